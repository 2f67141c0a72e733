#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Real data: strobealign's phiX MiSeq reads (2x301) against phiX174 must
# agree 100% with the edlib HW oracle (see check_oracle.py).

setup() {
    load ../bats/helpers
    require_shared_data
    D=$GPUASM_SHARED_DATA
    T=$BATS_TEST_TMPDIR
    ORACLE=$D/oracles/edlib_hw.phix_strobealign_reads_vs_phix.tsv.gz
    PHIX=$D/genomes/phiX174_NC_001422.1.fasta
}

# edlib's HW mode aligns whole reads: partial occurrences off.
check_file() {
    local rf=reads/phix_strobealign/$1
    run --separate-stderr scan --device cpu --read-overlap full --overlap full -o "$T/out.sam" "$D/$rf" "$PHIX"
    assert_success
    samtools quickcheck -v "$T/out.sam"
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/check_oracle.py" "$ORACLE" "$rf" "$T/out.sam"
    assert_success
    assert_output --partial "all agree with the oracle"
}

@test "phix.1.fastq vs phiX agrees with the edlib HW oracle" {
    check_file phix.1.fastq
}

@test "phix.2.fastq vs phiX agrees with the edlib HW oracle" {
    check_file phix.2.fastq
}

@test "phiX hits: --all and --eqx outputs pass quickcheck" {
    require_samtools
    scan --device cpu --all -o "$T/all.sam" "$D/reads/phix_strobealign/phix.1.fastq" "$PHIX"
    samtools quickcheck -v "$T/all.sam"
    scan --device cpu --eqx -O bam -o "$T/eqx.bam" "$D/reads/phix_strobealign/phix.1.fastq" "$PHIX"
    samtools quickcheck -v "$T/eqx.bam"
}
