#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Pairing flags only from real pairing (issue #9; io/records.h): a "/1"
# in one FASTQ file pairs nothing; R1/R2 files (-1/-2 or two reads
# arguments) are read in lockstep and written as samtools import -1 -2 and
# a paired BAM would be; a pair is written whole; bad pairs are errors that
# name both files.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    C=$GPUASM_SHARED_DATA/cutadapt/data
    P=$GPUASM_SHARED_DATA/reads/phix_strobealign
    # awk: records with any pairing flag (0x1 0x8 0x20 0x40 0x80)
    NO_PAIR_BITS='function b(x, v) { return int(x / v) % 2 }
        !/^@/ && (b($2, 1) || b($2, 8) || b($2, 32) || b($2, 64) || b($2, 128))'
}

# Check the pairing of a SAM file: every record paired with exactly one of
# 0x40/0x80; mate fields from the mate's primary record (0x8 and the
# read's own place when the mate has none; a 0x4 record at its mate's
# place); every paired read's mate present.  Prints problems, exits 1.
check_pairs() {
    awk 'function bit(x, b) { return int(x / b) % 2 }
        BEGIN { FS = "\t"; bad = 0 }
        /^@/ { next }
        { n++; rec[n] = $0; mate = bit($2, 64) ? 1 : 2
          if (!bit($2, 256)) { prim[$1, mate] = $3 "\t" $4 "\t" bit($2, 16) "\t" bit($2, 4) } }
        END {
          for (i = 1; i <= n; i++) {
            split(rec[i], f, "\t"); fl = f[2]; mate = bit(fl, 64) ? 1 : 2; other = 3 - mate
            if (!bit(fl, 1) || (bit(fl, 64) != 0) == (bit(fl, 128) != 0)) { print "not paired: " rec[i]; bad++; continue }
            if (!((f[1], other) in prim)) { print "mate missing: " rec[i]; bad++; continue }
            split(prim[f[1], other], m, "\t")
            if (m[4]) {   # the mate has no hit
              if (!bit(fl, 8)) { print "no 0x8: " rec[i]; bad++ }
              want_rnext = bit(fl, 4) ? "*" : "="; want_pnext = bit(fl, 4) ? 0 : f[4]
            } else {
              if (bit(fl, 8)) { print "0x8 but the mate has a hit: " rec[i]; bad++ }
              if ((bit(fl, 32) != 0) != (m[3] != 0)) { print "0x20: " rec[i]; bad++ }
              want_rnext = (m[1] == f[3]) ? "=" : m[1]; want_pnext = m[2]
              if (bit(fl, 4) && (f[3] != m[1] || f[4] != m[2])) { print "0x4 record not at its mate: " rec[i]; bad++ }
            }
            if (f[7] != want_rnext || f[8] != want_pnext || f[9] != 0) { print "mate fields: " rec[i]; bad++ }
          }
          exit bad != 0 }' "$1"
}

@test "single-end FASTQ named x/1, x/2: FLAG 0/16 and QNAME without the suffix, as samtools import names it" {
    require_samtools
    awk 'NR % 4 == 1 { print $1 (NR % 8 == 1 ? "/1" : "/2") " c"; next } { print }' "$READS" > "$T/s.fq"
    run --separate-stderr scan --device cpu --no-PG --unmatched "$T/s.fq" "$TARGETS"
    strip_summary
    assert_success
    printf '%s\n' "$output" > "$T/s.sam"
    # no pairing flag at all (0x1 0x8 0x20 0x40 0x80)
    run awk -F'\t' "$NO_PAIR_BITS" "$T/s.sam"
    assert_output ""
    # QNAMEs as samtools import writes them, in input order
    assert_equal "$(records "$T/s.sam" | cut -f1 | uniq)" \
        "$(samtools import -0 "$T/s.fq" 2>/dev/null | samtools view | cut -f1)"
    # and everything else as for the names without a suffix
    assert_equal "$(records "$T/s.sam" | cut -f2-)" \
        "$(scan --device cpu --no-PG --unmatched "$READS" "$TARGETS" | records | cut -f2-)"
    run samtools flagstat "$T/s.sam"
    assert_line --partial "0 + 0 paired in sequencing"
}

@test "real single-end reads named .../1 (illumina_10K): no pairing flags, flagstat counts none paired" {
    require_shared_data
    require_samtools
    local r=$GPUASM_SHARED_DATA/reads/trimgalore/illumina_10K.reads1-4000.fastq.gz
    zcat "$r" | head -1 | grep -q '/1$'
    run --separate-stderr scan --device cpu -o "$T/o.sam" "$r" "$GPUASM_SHARED_DATA/reads/trimgalore/multi_adapters.fa"
    strip_summary
    assert_success
    [ "$(records "$T/o.sam" | wc -l)" -gt 1000 ]
    run awk -F'\t' "$NO_PAIR_BITS"' || (!/^@/ && $1 ~ /\/1$/)' "$T/o.sam"
    assert_output ""
    run samtools flagstat "$T/o.sam"
    assert_line --partial "0 + 0 paired in sequencing"
    assert_line --partial "0 + 0 read1"
}

@test "R1 R2 as two reads arguments = -1 R1 -2 R2 = samtools import -1 -2 as BAM input" {
    require_samtools
    make_pair_files
    run --separate-stderr scan --device cpu --no-PG "$T/r1.fq" "$T/r2.fq" "$TARGETS"
    strip_summary
    assert_success
    assert_equal "$stderr" ""
    printf '%s\n' "$output" > "$T/two.sam"
    run --separate-stderr scan --device cpu --no-PG -1 "$T/r1.fq" -2 "$T/r2.fq" "$TARGETS"
    strip_summary
    assert_success
    cmp "$T/two.sam" <(printf '%s\n' "$output")
    samtools import -1 "$T/r1.fq" -2 "$T/r2.fq" -o "$T/pairs.bam" 2>/dev/null
    run --separate-stderr scan --device cpu --no-PG "$T/pairs.bam" "$TARGETS"
    strip_summary
    assert_success
    assert_equal "$(records "$T/two.sam")" "$(records <<<"$output")"
    run check_pairs "$T/two.sam"
    assert_success
    # names without /1 /2; both mates of alpha_01 hit, on opposite strands
    run awk -F'\t' '$1 == "alpha_01" { print int($2 / 16) % 2, int($2 / 64) % 4 }' "$T/two.sam"
    assert_equal "${#lines[@]}" 2
    [ "${lines[0]:0:1}" != "${lines[1]:0:1}" ]
    [ "${lines[0]:2}" = 1 ] && [ "${lines[1]:2}" = 2 ]
}

@test "a pair is written whole: the mate without a hit gets its FLAG 4 record at its mate's place" {
    make_pair_files
    # R2 of random_01 replaced by a copy of an adapter read: only R2 hits.
    awk -v s=GATCCTGAGCAGATCGGAAGAGCACACGTCTGAACTCCAGTCACTTGCTAAGCAGTTA '
         NR % 4 == 1 { n = $0 } n ~ /^@random_01/ && NR % 4 == 2 { print s; next }
         n ~ /^@random_01/ && NR % 4 == 0 { q = s; gsub(/./, "I", q); print q; next } { print }' \
        "$T/r2.fq" > "$T/r2b.fq"
    run --separate-stderr scan --device cpu --no-PG "$T/r1.fq" "$T/r2b.fq" "$TARGETS"
    strip_summary
    assert_success
    printf '%s\n' "$output" > "$T/o.sam"
    run awk -F'\t' '$1 == "random_01" { print $2, $3, $4, $6, $7, $8 }' "$T/o.sam"
    assert_line --index 0 "69 truseq_r1 1 * = 1"     # 1+4+64: no hit, placed at its mate
    assert_line --index 1 "137 truseq_r1 1 10S34M14S = 1"   # 1+8+128
    # without --unmatched, pairs with no hit at all stay out
    run awk -F'\t' '$1 == "random_02"' "$T/o.sam"
    assert_output ""
    run check_pairs "$T/o.sam"
    assert_success
    # --unmatched: every pair, both mates
    run --separate-stderr scan --device cpu --no-PG --unmatched "$T/r1.fq" "$T/r2b.fq" "$TARGETS"
    strip_summary
    assert_success
    printf '%s\n' "$output" > "$T/u.sam"
    run check_pairs "$T/u.sam"
    assert_success
    assert_equal "$(records "$T/u.sam" | awk -F'\t' 'int($2 / 256) % 2 == 0' | wc -l)" 84
    run awk -F'\t' '$1 == "random_02" { print $2, $3, $7 }' "$T/u.sam"
    assert_output "$(printf '77 * *\n141 * *')"
}

@test "real pairs (phiX, cutadapt paired.N.fastq): names with /1 /2 and comments pair; mates complete" {
    require_shared_data
    require_samtools
    run --separate-stderr scan --device cpu -o "$T/px.sam" "$P/phix.1.fastq" "$P/phix.2.fastq" \
        "$GPUASM_SHARED_DATA/genomes/phiX174_NC_001422.1.fasta"
    strip_summary
    assert_success
    run check_pairs "$T/px.sam"
    assert_success
    run samtools flagstat "$T/px.sam"
    local n1 n2
    n1=$(records "$T/px.sam" | awk -F'\t' 'int($2 / 256) % 2 == 0 && int($2 / 64) % 2' | wc -l)
    n2=$(records "$T/px.sam" | awk -F'\t' 'int($2 / 256) % 2 == 0 && int($2 / 128) % 2' | wc -l)
    [ "$n1" -gt 30 ] && [ "$n1" = "$n2" ]
    assert_line "$n1 + 0 read1"
    assert_line "$((2 * n1)) + 0 paired in sequencing"
    # cutadapt's paired test files: read1/1 ... with comments
    printf '>ad\nCTGTCTCTTATACACATCT\n' > "$T/ad.fa"
    run --separate-stderr scan --device cpu --unmatched -o "$T/c.sam" "$C/paired.1.fastq" "$C/paired.2.fastq" "$T/ad.fa"
    strip_summary
    assert_success
    run check_pairs "$T/c.sam"
    assert_success
    assert_equal "$(records "$T/c.sam" | cut -f1 | uniq | tr '\n' ' ')" "read1 read2 read3 read4 read5 "
}

@test "R1 with more reads than R2 (and R2 with more): error naming both files and the read" {
    make_pair_files
    head -n 160 "$T/r2.fq" > "$T/r2short.fq"
    run --separate-stderr scan --device cpu -o "$T/o.sam" "$T/r1.fq" "$T/r2short.fq" "$TARGETS"
    strip_summary
    assert_only_error "$T/r1.fq, $T/r2short.fq: $T/r2short.fq ends after 40 reads, $T/r1.fq has more (its read 41, " \
        "has no mate): R1 and R2 must hold the mates of the same pairs in the same order"
    [ ! -e "$T/o.sam" ]
    head -n 8 "$T/r1.fq" > "$T/r1short.fq"
    run --separate-stderr scan --device cpu -1 "$T/r1short.fq" -2 "$T/r2.fq" "$TARGETS"
    strip_summary
    assert_only_error "$T/r1short.fq ends after 2 reads, $T/r2.fq has more (its read 3, alpha_03, has no mate)"
}

@test "mates whose names differ: error naming both files, the read and both names" {
    make_pair_files
    awk 'NR == 9 { print "@other/2"; next } { print }' "$T/r2.fq" > "$T/r2bad.fq"
    run --separate-stderr scan --device cpu -o "$T/o.sam" "$T/r1.fq" "$T/r2bad.fq" "$TARGETS"
    strip_summary
    assert_only_error "$T/r1.fq, $T/r2bad.fq: read 3: mate names differ (alpha_03 in $T/r1.fq, other in $T/r2bad.fq"
    [ ! -e "$T/o.sam" ]
}

@test "a bad record in R2 names R2 and the record" {
    make_pair_files
    { cat "$T/r2.fq"; printf '@x/2\nACGT\n+\nII\n'; } > "$T/r2bad.fq"
    { cat "$T/r1.fq"; printf '@x/1\nACGT\n+\nIIII\n'; } > "$T/r1b.fq"
    run --separate-stderr scan --device cpu "$T/r1b.fq" "$T/r2bad.fq" "$TARGETS"
    strip_summary
    assert_one_error "$T/r2bad.fq: record 43"
}

@test "-1/-2 misuse: one without the other, with two reads arguments, both on stdin" {
    make_pair_files
    run --separate-stderr scan --device cpu -1 "$T/r1.fq" "$TARGETS"
    strip_summary
    assert_only_error "-1 and -2 go together"
    run --separate-stderr scan --device cpu -2 "$T/r2.fq" "$TARGETS"
    strip_summary
    assert_only_error "-1 and -2 go together"
    run --separate-stderr scan --device cpu -1 "$T/r1.fq" -2 "$T/r2.fq" "$T/r1.fq" "$TARGETS"
    strip_summary
    assert_only_error "with -1 and -2, give only <targets.fa>"
    run --separate-stderr scan --device cpu - - "$TARGETS"
    strip_summary
    assert_only_error "R1 and R2 cannot both be -"
}

@test "paired BAM whose mates are not adjacent: pairing kept, RNEXT unset, one warning" {
    require_samtools
    make_pair_files
    samtools import -1 "$T/r1.fq" -2 "$T/r2.fq" -o "$T/pairs.sam" 2>/dev/null
    # all R1 records first, then all R2: no mate is next to its mate
    { grep '^@' "$T/pairs.sam"; grep -v '^@' "$T/pairs.sam" | awk -F'\t' 'int($2 / 64) % 2'
      grep -v '^@' "$T/pairs.sam" | awk -F'\t' 'int($2 / 128) % 2'; } > "$T/split.sam"
    run --separate-stderr scan --device cpu --no-PG "$T/split.sam" "$TARGETS"
    strip_summary
    assert_success
    printf '%s\n' "$output" > "$T/o.sam"
    assert_equal "${#stderr_lines[@]}" 1
    [[ "$stderr" == "gpuasm-scan: warning: $T/split.sam: 84 paired reads had no mate next to them"* ]] ||
        { echo "$stderr" >&2; return 1; }
    run awk -F'\t' 'function b(x, v) { return int(x / v) % 2 }
        !/^@/ && ($7 != "*" || $8 != 0 || b($2, 8) || b($2, 32) || !b($2, 1))' "$T/o.sam"
    assert_output ""
}
