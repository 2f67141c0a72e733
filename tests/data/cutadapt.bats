#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Agreement with cutadapt (issue #9): cutadapt's own test cases
# (../shared/data/cutadapt/CASES.tsv, run with the local cutadapt and
# --info-file) and the cutadapt 4.2 oracles of ../shared/data/oracles.
# Every read placed differently must be one of the two documented
# differences of definition (README.md "Agreement with cutadapt";
# tests/data/cutadapt_compare.py): counts are pinned so a change shows.

setup() {
    load ../bats/helpers
    require_shared_data
    D=$GPUASM_SHARED_DATA
    T=$BATS_TEST_TMPDIR
}

# oracle NAME READS ADAPTER=SEQ INFO [options]: gpuasm-scan as cutadapt -a,
# its preset (--preset cutadapt: forward strand, partial only at the 3'
# end, one match per read, -O 3, issue #26), then the comparison's SUMMARY
# line in $output.
oracle() {
    local reads=$2 ad=$3 info=$4
    shift 4
    printf '>%s\n%s\n' "${ad%%=*}" "${ad#*=}" > "$T/ad.fa"
    scan --device cpu --no-PG --quiet --preset cutadapt \
        "$@" -o "$T/o.sam" "$reads" "$T/ad.fa"
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/cutadapt_compare.py" "$D/oracles/$info" "$T/o.sam"
    assert_success
    output=${lines[-1]}
}

@test "cutadapt's test cases: every compared read as cutadapt finds it" {
    command -v cutadapt > /dev/null || skip "cutadapt not installed"
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/cutadapt_cases.py" "$GPUASM_SCAN" "$D/cutadapt" "$T/cases"
    echo "$output"
    assert_success
    assert_line "TOTAL cases=34 compared=21 reads=385 both=231 same=231 end=0 leftmost=0 unexplained=0 failed=0"
}

@test "Hm2 R1/R2 vs TruSeq (cutadapt 4.2 defaults -e 0.1 -O 3): the same 181 and 185 reads" {
    local r=$D/reads/measles_sequana
    oracle r1 "$r/Hm2_GTGAAA_L005_R1_001.fastq.gz" TruSeq_R1=AGATCGGAAGAGCACACGTCTGAACTCCAGTCAC \
        Hm2_R1.cutadapt4.2.e0.1.info.tsv.gz
    assert_output "SUMMARY reads=1499 both=181 only_cutadapt=0 only_gpuasm=0 same_pos=180 same_err=181 end=1 leftmost=0 unexplained=0"
    oracle r2 "$r/Hm2_GTGAAA_L005_R2_001.fastq.gz" TruSeq_R2=AGATCGGAAGAGCGTCGTGTAGGGAAAGAGTGT \
        Hm2_R2.cutadapt4.2.e0.1.info.tsv.gz
    assert_output "SUMMARY reads=1499 both=185 only_cutadapt=0 only_gpuasm=0 same_pos=185 same_err=185 end=0 leftmost=0 unexplained=0"
}

@test "Hm2 R1/R2 --no-indels = --mode hamming: the same reads, positions and errors" {
    local r=$D/reads/measles_sequana
    oracle r1 "$r/Hm2_GTGAAA_L005_R1_001.fastq.gz" TruSeq_R1=AGATCGGAAGAGCACACGTCTGAACTCCAGTCAC \
        Hm2_R1.cutadapt4.2.noindels.e0.1.info.tsv.gz --mode hamming
    assert_output "SUMMARY reads=1499 both=177 only_cutadapt=0 only_gpuasm=0 same_pos=177 same_err=177 end=0 leftmost=0 unexplained=0"
    oracle r2 "$r/Hm2_GTGAAA_L005_R2_001.fastq.gz" TruSeq_R2=AGATCGGAAGAGCGTCGTGTAGGGAAAGAGTGT \
        Hm2_R2.cutadapt4.2.noindels.e0.1.info.tsv.gz --mode hamming
    assert_output "SUMMARY reads=1499 both=185 only_cutadapt=0 only_gpuasm=0 same_pos=185 same_err=185 end=0 leftmost=0 unexplained=0"
}

@test "Trim Galore's reads (-O 1): illumina, smallRNA, nextera, with and without indels" {
    local g=$D/reads/trimgalore
    oracle i "$g/illumina_10K.reads1-4000.fastq.gz" Illumina_Universal=AGATCGGAAGAGC \
        illumina_10K.reads1-4000.cutadapt4.2.e0.1.O1.info.tsv.gz --overlap 1
    assert_output "SUMMARY reads=4000 both=2543 only_cutadapt=0 only_gpuasm=0 same_pos=2533 same_err=2539 end=6 leftmost=4 unexplained=0"
    oracle i "$g/illumina_10K.reads1-4000.fastq.gz" Illumina_Universal=AGATCGGAAGAGC \
        illumina_10K.reads1-4000.cutadapt4.2.e0.1.O1.noindels.info.tsv.gz --overlap 1 --mode hamming
    assert_output "SUMMARY reads=4000 both=2535 only_cutadapt=0 only_gpuasm=0 same_pos=2532 same_err=2532 end=0 leftmost=3 unexplained=0"
    oracle s "$g/smallRNA_100K.reads1-4000.fastq.gz" SmallRNA=TGGAATTCTCGG \
        smallRNA_100K.reads1-4000.cutadapt4.2.e0.1.O1.info.tsv.gz --overlap 1
    assert_output "SUMMARY reads=4000 both=3835 only_cutadapt=0 only_gpuasm=0 same_pos=3831 same_err=3835 end=4 leftmost=0 unexplained=0"
    oracle s "$g/smallRNA_100K.reads1-4000.fastq.gz" SmallRNA=TGGAATTCTCGG \
        smallRNA_100K.reads1-4000.cutadapt4.2.e0.1.O1.noindels.info.tsv.gz --overlap 1 --mode hamming
    assert_output "SUMMARY reads=4000 both=3825 only_cutadapt=0 only_gpuasm=0 same_pos=3825 same_err=3825 end=0 leftmost=0 unexplained=0"
    oracle n "$g/nextera_100K.reads1-4000.fastq.gz" Nextera_Transposase=CTGTCTCTTATA \
        nextera_100K.reads1-4000.cutadapt4.2.e0.1.O1.info.tsv.gz --overlap 1
    assert_output "SUMMARY reads=4000 both=1487 only_cutadapt=0 only_gpuasm=0 same_pos=1485 same_err=1487 end=2 leftmost=0 unexplained=0"
    oracle n "$g/nextera_100K.reads1-4000.fastq.gz" Nextera_Transposase=CTGTCTCTTATA \
        nextera_100K.reads1-4000.cutadapt4.2.e0.1.O1.noindels.info.tsv.gz --overlap 1 --mode hamming
    assert_output "SUMMARY reads=4000 both=1486 only_cutadapt=0 only_gpuasm=0 same_pos=1486 same_err=1486 end=0 leftmost=0 unexplained=0"
}
