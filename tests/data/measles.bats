#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Real data: the sequana Hm2 reads (HiSeq 2x101) against measles + phiX +
# lambda must agree 100% with the edlib HW oracle (see check_oracle.py).
# R1 and R2 share read names: each file is run and checked on its own.

setup() {
    load ../bats/helpers
    require_shared_data
    D=$GPUASM_SHARED_DATA
    T=$BATS_TEST_TMPDIR
    cat "$D/genomes/measles_K01711.1.fasta" "$D/genomes/phiX174_NC_001422.1.fasta" \
        "$D/genomes/lambda_NC_001416.1.fasta" > "$T/viruses.fa"
    ORACLE=$D/oracles/edlib_hw.measles_Hm2_reads_vs_viruses.tsv.gz
}

check_mate() {
    local rf=reads/measles_sequana/Hm2_GTGAAA_L005_$1_001.fastq.gz
    # edlib's HW mode aligns whole reads: partial occurrences off
    run --separate-stderr scan --device cpu --read-overlap full --overlap full -o "$T/out.sam" "$D/$rf" "$T/viruses.fa"
    assert_success
    samtools quickcheck -v "$T/out.sam"
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/check_oracle.py" "$ORACLE" "$rf" "$T/out.sam"
    assert_success
    assert_output --partial "all agree with the oracle"
}

@test "Hm2 R1 vs measles+phiX+lambda agrees with the edlib HW oracle" {
    check_mate R1
}

@test "Hm2 R2 vs measles+phiX+lambda agrees with the edlib HW oracle" {
    check_mate R2
}

@test "Hm2 R1 as BAM output (-@ 2): quickcheck, same records" {
    require_samtools
    local rf=$D/reads/measles_sequana/Hm2_GTGAAA_L005_R1_001.fastq.gz
    scan --device cpu --no-PG -o "$T/out.sam" "$rf" "$T/viruses.fa"
    scan --device cpu --no-PG -@ 2 -O bam -o "$T/out.bam" "$rf" "$T/viruses.fa"
    samtools quickcheck -v "$T/out.bam"
    assert_equal "$(samtools view "$T/out.bam")" "$(records "$T/out.sam")"
}
