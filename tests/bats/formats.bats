#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Every input format gives the hits of the plain FASTQ (QUAL aside for FASTA).

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    # The reference output: the bundled FASTQ, CPU, no @PG.
    scan --device cpu --no-PG "$READS" "$TARGETS" > "$T/ref.sam"
    [ -n "$(records "$T/ref.sam")" ]
}

# The SAM of `gpuasm-scan --device cpu --no-PG ARGS...` equals ref.sam.
same_as_fastq() {
    run --separate-stderr scan --device cpu --no-PG "$@"
    strip_summary
    assert_success
    assert_equal "$stderr" ""
    assert_equal "$output" "$(cat "$T/ref.sam")"
}

# Records without QUAL (column 11), for inputs that carry none.
no_qual() {
    records "$1" | cut -f1-10,12-
}

@test "FASTQ (the reference run) has hits on both strands and all targets" {
    run records "$T/ref.sam"
    assert_line --regexp $'^[^\t]+\t0\t'
    assert_line --regexp $'^[^\t]+\t16\t'
    for t in truseq_r1 virus_alpha virus_beta; do
        assert_line --regexp $'^[^\t]+\t[0-9]+\t'"$t"$'\t'
    done
}

@test "FASTA reads: same records, QUAL *" {
    fq2fa "$READS" > "$T/r.fa"
    run --separate-stderr scan --device cpu --no-PG "$T/r.fa" "$TARGETS"
    strip_summary
    assert_success
    echo "$output" > "$T/fa.sam"
    assert_equal "$(no_qual "$T/fa.sam")" "$(no_qual "$T/ref.sam")"
    run bash -c "grep -v '^@' '$T/fa.sam' | cut -f11 | sort -u"
    assert_output "*"
    assert_equal "$(grep '^@' "$T/fa.sam")" "$(grep '^@' "$T/ref.sam")"
}

@test "wrapped multi-line FASTA reads" {
    fq2fa "$READS" | awk '/^>/ { print; next } { while (length($0) > 25) { print substr($0, 1, 25); $0 = substr($0, 26) } print }' > "$T/r.fa"
    run --separate-stderr scan --device cpu --no-PG "$T/r.fa" "$TARGETS"
    strip_summary
    assert_success
    echo "$output" > "$T/fa.sam"
    assert_equal "$(no_qual "$T/fa.sam")" "$(no_qual "$T/ref.sam")"
}

@test "gzip FASTQ" {
    gzip -c "$READS" > "$T/r.fq.gz"
    same_as_fastq "$T/r.fq.gz" "$TARGETS"
}

@test "BGZF FASTQ" {
    bgzf "$READS" "$T/r.fq.bgz"
    run "$PYTHON3" -c "import sys; d=open(sys.argv[1],'rb').read(); sys.exit(d[12:14] != b'BC')" "$T/r.fq.bgz"
    assert_success
    same_as_fastq "$T/r.fq.bgz" "$TARGETS"
    cp "$T/r.fq.bgz" "$T/r.fq.gz"
    same_as_fastq "$T/r.fq.gz" "$TARGETS"
}

@test "gzip and BGZF targets" {
    gzip -c "$TARGETS" > "$T/t.fa.gz"
    same_as_fastq "$READS" "$T/t.fa.gz"
    bgzf "$TARGETS" "$T/t.fa.bgz"
    same_as_fastq "$READS" "$T/t.fa.bgz"
}

@test "targets with CRLF line ends and blank lines" {
    sed 's/$/\r/' "$TARGETS" | awk '{ print } /^>/ { n++ } n == 2 && !done { print ""; done = 1 }' > "$T/t.fa"
    same_as_fastq "$READS" "$T/t.fa"
}

@test "reads on stdin (-)" {
    run --separate-stderr bash -c '"$1" --device cpu --no-PG - "$2" < "$3"' _ "$GPUASM_SCAN" "$TARGETS" "$READS"
    strip_summary
    assert_success
    assert_equal "$output" "$(cat "$T/ref.sam")"
}

@test "gzip reads on stdin (-)" {
    gzip -c "$READS" > "$T/r.fq.gz"
    run --separate-stderr bash -c 'cat "$3" | "$1" --device cpu --no-PG - "$2"' _ "$GPUASM_SCAN" "$TARGETS" "$T/r.fq.gz"
    strip_summary
    assert_success
    assert_equal "$output" "$(cat "$T/ref.sam")"
}

@test "unaligned BAM made with samtools import" {
    require_samtools
    samtools import -0 "$READS" -o "$T/r.bam"
    same_as_fastq "$T/r.bam" "$TARGETS"
}

@test "SAM input" {
    require_samtools
    samtools import -0 "$READS" -o "$T/r.sam"
    same_as_fastq "$T/r.sam" "$TARGETS"
}

@test "unaligned BAM on stdin" {
    require_samtools
    samtools import -0 "$READS" -o "$T/r.bam"
    run --separate-stderr bash -c '"$1" --device cpu --no-PG - "$2" < "$3"' _ "$GPUASM_SCAN" "$TARGETS" "$T/r.bam"
    strip_summary
    assert_success
    assert_equal "$output" "$(cat "$T/ref.sam")"
}

@test "CRAM input" {
    require_samtools
    samtools import -0 "$READS" -o "$T/r.bam"
    samtools view -C -o "$T/r.cram" "$T/r.bam"
    samtools quickcheck -u "$T/r.cram"
    same_as_fastq "$T/r.cram" "$TARGETS"
}

@test "BAM records with FLAG 16 are turned back to sequencing orientation" {
    require_samtools
    samtools import -0 "$READS" -o "$T/r.sam"
    # Store every other read reverse-complemented with FLAG 16, as an aligner would.
    awk 'BEGIN { FS = OFS = "\t"; c["A"]="T"; c["C"]="G"; c["G"]="C"; c["T"]="A"; c["N"]="N"
                 c["a"]="t"; c["c"]="g"; c["g"]="c"; c["t"]="a"; c["n"]="n" }
         /^@/ { print; next }
         { n++ }
         n % 2 == 0 { s = ""; q = ""
                      for (i = length($10); i >= 1; i--) { s = s c[substr($10, i, 1)]; q = q substr($11, i, 1) }
                      $2 = $2 + 16; $10 = s; $11 = q }
         { print }' "$T/r.sam" > "$T/flipped.sam"
    [ "$(awk '!/^@/ && $2 >= 16' "$T/flipped.sam" | wc -l)" -gt 10 ]
    samtools view -b -o "$T/flipped.bam" "$T/flipped.sam"
    same_as_fastq "$T/flipped.bam" "$TARGETS"
}

@test "secondary and supplementary records of BAM input are skipped" {
    require_samtools
    samtools import -0 "$READS" -o "$T/r.sam"
    # Repeat each read as a secondary (256) and a supplementary (2048) record.
    awk 'BEGIN { FS = OFS = "\t" } /^@/ { print; next }
         { print; r = $0; $2 = $2 + 256; print; $0 = r; $2 = $2 + 2048; print }' "$T/r.sam" > "$T/dup.sam"
    samtools view -b -o "$T/dup.bam" "$T/dup.sam"
    same_as_fastq "$T/dup.bam" "$TARGETS"
}

@test "paired BAM: mates keep 0x1/0x40/0x80 and get mate fields" {
    require_samtools
    # Read 2 of each pair: the reverse complement of read 1, so both mates hit.
    awk 'BEGIN { c["A"]="T"; c["C"]="G"; c["G"]="C"; c["T"]="A"; c["N"]="N"
                 c["a"]="t"; c["c"]="g"; c["g"]="c"; c["t"]="a"; c["n"]="n" }
         NR % 4 == 1 { print $1; next }
         NR % 4 == 2 { s = ""; for (i = length($0); i >= 1; i--) s = s c[substr($0, i, 1)]; print s; next }
         NR % 4 == 0 { q = ""; for (i = length($0); i >= 1; i--) q = q substr($0, i, 1); print q; next }
         { print }' "$READS" > "$T/r2.fq"
    awk 'NR % 4 == 1 { print $1; next } { print }' "$READS" > "$T/r1.fq"
    samtools import -1 "$T/r1.fq" -2 "$T/r2.fq" -o "$T/pairs.bam"
    run --separate-stderr scan --device cpu --no-PG "$T/pairs.bam" "$TARGETS"
    strip_summary
    assert_success
    echo "$output" > "$T/pairs.sam"
    samtools quickcheck "$T/pairs.sam"
    # Every record is paired and says which mate it is; mate fields come from
    # the mate's first record (0x8 when the mate has no hit).
    run awk 'function bit(x, b) { return int(x / b) % 2 }
        BEGIN { FS = "\t"; bad = 0 }
        /^@/ { next }
        { rec[NR] = $0; mate = bit($2, 64) ? 1 : 2
          if (!bit($2, 256)) { first[$1, mate] = $3 "\t" $4 "\t" bit($2, 16) } }
        END {
          for (i in rec) {
            split(rec[i], f, "\t"); fl = f[2]; mate = bit(fl, 64) ? 1 : 2; other = 3 - mate
            if (!bit(fl, 1) || (bit(fl, 64) != 0) == (bit(fl, 128) != 0)) { print "not paired: " rec[i]; bad++; continue }
            if ((f[1], other) in first) {
              split(first[f[1], other], m, "\t")
              rnext = (m[1] == f[3]) ? "=" : m[1]
              if (bit(fl, 8) || f[7] != rnext || f[8] != m[2] || (bit(fl, 32) != 0) != (m[3] != 0)) { print "mate fields: " rec[i]; bad++ }
            } else if (!bit(fl, 8)) { print "mate without hit but no 0x8: " rec[i]; bad++ }
          }
          exit bad != 0 }' "$T/pairs.sam"
    assert_success
    # Both mates of the adapter-free virus reads hit, on opposite strands.
    run awk -F'\t' 'function bit(x, b) { return int(x / b) % 2 }
        $1 == "alpha_01" && !bit($2, 256) { print bit($2, 16) }' "$T/pairs.sam"
    assert_equal "${#lines[@]}" 2
    [ "${lines[0]}" != "${lines[1]}" ]
}

@test "--match-read-wildcards: N in a read matches any base; NM still counts it, XD has the search's" {
    run awk -F'\t' '$1 == "beta_with_N" { print $6, $12, $14 }' "$T/ref.sam"
    assert_output "100M NM:i:3 AS:i:94"
    run --separate-stderr scan --device cpu --no-PG --match-read-wildcards "$READS" "$TARGETS"
    strip_summary
    assert_success
    echo "$output" > "$T/wild.sam"
    # SAM's NM counts an N against a base (SAMtags "NM"); the search found
    # the read at distance 0, which AS (100 aligned - 2 x 0) and XD say.
    run awk -F'\t' '$1 == "beta_with_N" { print $6, $12, $13, $14, $15 }' "$T/wild.sam"
    assert_output "100M NM:i:3 MD:Z:20G34G25C18 AS:i:100 XD:i:0"
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/naive_check.py" --match-read-wildcards "$READS" "$TARGETS" "$T/wild.sam"
    assert_success
    # Reads without ambiguity codes are unaffected.
    assert_equal "$(grep -v beta_with_N "$T/wild.sam")" "$(grep -v beta_with_N "$T/ref.sam")"
}
