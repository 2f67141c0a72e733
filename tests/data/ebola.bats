#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Real data: viral-ngs' unaligned Ebola BAM (100 pairs, HiSeq 2x101) against
# the G5012.3 consensus must agree 100% with the edlib HW oracle.

setup() {
    load ../bats/helpers
    require_shared_data
    D=$GPUASM_SHARED_DATA
    T=$BATS_TEST_TMPDIR
    ORACLE=$D/oracles/edlib_hw.ebola_G5012.3_subset_vs_ebola.tsv.gz
    EBOLA=$D/genomes/ebola_G5012.3_consensus.fasta
    RF=reads/ebola_viralngs/G5012.3.subset.bam
}

@test "Ebola unaligned BAM vs G5012.3 agrees with the edlib HW oracle" {
    # edlib's HW mode aligns whole reads: partial occurrences off
    run --separate-stderr scan --device cpu --read-overlap full --overlap full -o "$T/out.sam" "$D/$RF" "$EBOLA"
    assert_success
    samtools quickcheck -v "$T/out.sam"
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/check_oracle.py" "$ORACLE" "$RF" "$T/out.sam"
    assert_success
    assert_output --partial "all agree with the oracle"
}

@test "Ebola pairs keep 0x1/0x40/0x80; mates point at each other" {
    scan --device cpu --no-PG -o "$T/out.sam" "$D/$RF" "$EBOLA"
    run awk -F'\t' 'function bit(x, b) { return int(x / b) % 2 }
        !/^@/ && (!bit($2, 1) || bit($2, 64) == bit($2, 128)) { print "not paired: " $1, $2 }' "$T/out.sam"
    assert_output ""
    # Both mates of most pairs hit the consensus: their first records name
    # each other (RNEXT "=", PNEXT = the mate's POS).
    run awk -F'\t' 'function bit(x, b) { return int(x / b) % 2 }
        /^@/ { next }
        !bit($2, 256) { pos[$1, bit($2, 64)] = $4; rec[$1, bit($2, 64)] = $0 }
        END { n = 0; bad = 0
              for (k in rec) { split(k, a, SUBSEP); split(rec[k], f, "\t")
                if ((a[1], 1 - a[2]) in pos) { n++
                  if (f[7] != "=" || f[8] != pos[a[1], 1 - a[2]]) { print "bad mate fields: " rec[k]; bad++ } }
                else if (!bit(f[2], 8)) { print "no 0x8: " rec[k]; bad++ } }
              print "pairs", n }' "$T/out.sam"
    refute_output --partial "bad"
    refute_output --partial "no 0x8"
    [ "$(awk '/^pairs/ { print $2 }' <<<"$output")" -gt 150 ]
}

@test "Ebola: BAM and CRAM output pass quickcheck and read back the same" {
    require_samtools
    cp "$EBOLA" "$T/ebola.fa"
    samtools faidx "$T/ebola.fa"
    scan --device cpu --no-PG -o "$T/out.sam" "$D/$RF" "$T/ebola.fa"
    scan --device cpu --no-PG -O bam -o "$T/out.bam" "$D/$RF" "$T/ebola.fa"
    scan --device cpu --no-PG -O cram -o "$T/out.cram" "$D/$RF" "$T/ebola.fa"
    samtools quickcheck -v "$T/out.sam" "$T/out.bam" "$T/out.cram"
    assert_equal "$(samtools view "$T/out.bam")" "$(records "$T/out.sam")"
    assert_equal "$(samtools view -T "$T/ebola.fa" "$T/out.cram" | cut -f1-11)" "$(records "$T/out.sam" | cut -f1-11)"
}

@test "Ebola --keep-tags copies each read's RG tag and the @RG lines; without it none" {
    require_samtools
    scan --device cpu --no-PG --keep-tags -o "$T/keep.sam" "$D/$RF" "$EBOLA"
    scan --device cpu --no-PG -o "$T/plain.sam" "$D/$RF" "$EBOLA"
    samtools quickcheck -v "$T/keep.sam"
    assert_equal "$(grep '^@RG' "$T/keep.sam")" "$(samtools view -H "$D/$RF" | grep '^@RG')"
    run grep -c $'\tRG:Z:' "$T/plain.sam"
    assert_output 0
    # The RG of each hit is the RG of its read (name and mate) in the input.
    samtools view "$D/$RF" | awk -F'\t' 'function bit(x, b) { return int(x / b) % 2 }
        { for (i = 12; i <= NF; i++) if ($i ~ /^RG:Z:/) print $1 "/" (bit($2, 64) ? 1 : 2) "\t" $i }' \
        | sort > "$T/in.rg"
    grep -v '^@' "$T/keep.sam" | awk -F'\t' 'function bit(x, b) { return int(x / b) % 2 }
        { for (i = 12; i <= NF; i++) if ($i ~ /^RG:Z:/) print $1 "/" (bit($2, 64) ? 1 : 2) "\t" $i }' \
        | sort -u > "$T/out.rg"
    [ "$(wc -l < "$T/out.rg")" -gt 150 ]
    run comm -13 "$T/in.rg" "$T/out.rg"
    assert_output ""
    # Apart from the tags, the records are those of the plain run.
    assert_equal "$(grep -v '^@' "$T/keep.sam" | cut -f1-11)" "$(grep -v '^@' "$T/plain.sam" | cut -f1-11)"
}
