#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Picard and samtools validation of real outputs (issue #9): Picard's
# ValidateSamFile finds no error (and no warning) in the SAM and BAM
# outputs of single-end FASTQ, paired FASTQ, paired BAM and an adapter run
# with -R, and samtools flagstat counts their pairing right.
#
# Picard runs once, in one JVM, over every file (tests/data/ValidateSamFiles.java;
# a JVM start costs ~2 s): the outputs are made and validated in
# setup_file, each test reads its files' part of the report.  Picard is
# Debian's picard-tools: its wrapper is `PicardCommandLine ValidateSamFile
# I=x.bam` (`picard-tools` is the deprecated name of the same script, which
# also echoes "JavOpt: ..." lines on stdout and splits arguments at spaces);
# the jar is used here directly.  Hand-made bad files check that the
# validation can fail.
#
# Warnings: none is accepted.  Two things Picard would flag are the user's
# to give: a read group (MISSING_READ_GROUP is an ERROR without -R/--rg or
# --keep-tags of input that has them) and PL in it (MISSING_PLATFORM_VALUE).

setup_file() {
    load ../bats/helpers
    [ -d "$GPUASM_SHARED_DATA/oracles" ] || return 0
    local D=$GPUASM_SHARED_DATA O=$BATS_FILE_TMPDIR
    local R=$D/reads/measles_sequana/Hm2_GTGAAA_L005_R
    local i10k=$D/reads/trimgalore/illumina_10K.reads1-4000.fastq.gz
    local ebola=$D/reads/ebola_viralngs/G5012.3.subset.bam
    local rg='@RG\tID:run1\tSM:sample1\tPL:ILLUMINA'
    # single-end FASTQ whose names end in /1
    scan --device cpu -R "$rg" -o "$O/se.sam" "$i10k" "$D/reads/trimgalore/multi_adapters.fa"
    scan --device cpu -R "$rg" --best --unmatched -o "$O/se.bam" "$i10k" "$D/reads/trimgalore/multi_adapters.fa"
    # paired FASTQ (two files) against measles
    scan --device cpu --rg ID:Hm2 --rg SM:Hm2 --rg PL:ILLUMINA -o "$O/pe.sam" \
        "${R}1_001.fastq.gz" "${R}2_001.fastq.gz" "$D/genomes/measles_K01711.1.fasta"
    scan --device cpu --rg ID:Hm2 --rg SM:Hm2 --rg PL:ILLUMINA --all --unmatched -@ 2 -o "$O/pe.bam" \
        -1 "${R}1_001.fastq.gz" -2 "${R}2_001.fastq.gz" "$D/genomes/measles_K01711.1.fasta"
    # paired unaligned BAM (flags 77/141, read groups) against Ebola
    scan --device cpu --keep-tags -o "$O/pbam.sam" "$ebola" "$D/genomes/ebola_G5012.3_consensus.fasta"
    scan --device cpu --keep-tags --unmatched -o "$O/pbam.bam" "$ebola" "$D/genomes/ebola_G5012.3_consensus.fasta"
    # adapters with -R: Hm2 R1 against the 158 bbmap adapters (renamed names)
    scan --device cpu -R "$rg" -o "$O/ad.sam" "${R}1_001.fastq.gz" "$D/adapters/bbmap_adapters.fa" 2>/dev/null
    scan --device cpu -R "$rg" --best -o "$O/ad.bam" "${R}1_001.fastq.gz" "$D/adapters/bbmap_adapters.fa" 2>/dev/null
    # the controls: what gpuasm wrote before issue #9 for a single-end x/1
    # read, and for a target named with a '(' (bbmap's "(RA3)")
    printf '@HD\tVN:1.6\n@SQ\tSN:a\tLN:10\n@RG\tID:x\tSM:y\tPL:ILLUMINA\nr\t65\ta\t1\t255\t5M5S\t*\t0\t0\tACGTAAAAAA\t*\tRG:Z:x\n' \
        > "$O/bad_flag.sam"
    printf '@HD\tVN:1.6\n@SQ\tSN:a(1)\tLN:10\n@RG\tID:x\tSM:y\tPL:ILLUMINA\nr\t0\ta(1)\t1\t255\t5M5S\t*\t0\t0\tACGTAAAAAA\t*\tRG:Z:x\n' \
        > "$O/bad_name.sam"
    local jar=${PICARD_JAR:-/usr/share/java/picard.jar}
    if command -v java >/dev/null 2>&1 && [ -f "$jar" ]; then
        java -cp "$jar" "$GPUASM_TESTS_DIR/data/ValidateSamFiles.java" \
            "$O"/se.sam "$O"/se.bam "$O"/pe.sam "$O"/pe.bam "$O"/pbam.sam "$O"/pbam.bam \
            "$O"/ad.sam "$O"/ad.bam "$O"/bad_flag.sam "$O"/bad_name.sam \
            > "$O/picard.txt" 2> "$O/picard.err" || true
    fi
}

setup() {
    load ../bats/helpers
    require_shared_data
    O=$BATS_FILE_TMPDIR
}

# Picard's summary of one file (from the one run in setup_file).
picard_of() {
    [ -f "$O/picard.txt" ] || skip "Picard not installed (Debian: picard-tools)"
    awk -v f="== FILE $O/$1" '$0 == f { on = 1; next } /^== FILE / { on = 0 } on' "$O/picard.txt"
}

# Picard found nothing in each file named.
picard_clean() {
    local f s
    for f in "$@"; do
        [ -s "$O/$f" ] || { echo "$f was not made" >&2; return 1; }
        s=$(picard_of "$f")
        if ! grep -qx 'No errors found' <<<"$s" || ! grep -qx '== EXIT 0' <<<"$s"; then
            printf 'Picard on %s:\n%s\n' "$f" "$s" >&2
            return 1
        fi
    done
}

# A line of samtools flagstat: "$1 + 0 $2".
flagstat_has() {
    grep -qxF "$1 + 0 $2" <<<"$flagstat" || { printf 'flagstat lacks "%s + 0 %s":\n%s\n' "$1" "$2" "$flagstat" >&2; return 1; }
}

@test "Picard: the validation fails on the old outputs (the controls: FLAG 65 from a /1, an SN with '(')" {
    local s
    s=$(picard_of bad_flag.sam)
    [[ "$s" == *"ERROR:INVALID_FLAG_MATE_UNMAPPED"* ]] || { echo "$s" >&2; return 1; }
    [[ "$s" == *"ERROR:MATE_NOT_FOUND"* ]]
    # Picard stops at the name ("doesn't match regex") with status -1
    s=$(picard_of bad_name.sam)
    [[ "$s" == *"== EXIT -1"* ]] || { echo "$s" >&2; return 1; }
    grep -q "Sequence name 'a(1)' doesn't match regex" "$O/picard.err"
}

@test "Picard: single-end FASTQ named /1 (SAM, and BAM with --best --unmatched): no errors" {
    picard_clean se.sam se.bam
}

@test "Picard: paired FASTQ files (SAM, and BAM with --all --unmatched -@ 2): no errors" {
    picard_clean pe.sam pe.bam
}

@test "Picard: paired unaligned BAM with --keep-tags (SAM, and BAM with --unmatched): no errors" {
    picard_clean pbam.sam pbam.bam
}

@test "Picard: Hm2 against the bbmap adapters with -R (SAM, and BAM with --best): no errors" {
    picard_clean ad.sam ad.bam
}

@test "flagstat: single-end FASTQ named /1 is not paired" {
    require_samtools
    local f
    for f in se.sam se.bam ad.sam; do
        flagstat=$(samtools flagstat "$O/$f")
        flagstat_has 0 "paired in sequencing"
        flagstat_has 0 "read1"
        flagstat_has 0 "singletons (N/A : N/A)"
    done
    # --unmatched: all 4,000 reads, one record each with --best
    flagstat=$(samtools flagstat "$O/se.bam")
    flagstat_has 4000 "in total (QC-passed reads + QC-failed reads)"
}

@test "flagstat: paired FASTQ files: every read paired, read1 = read2, the whole read set with --unmatched" {
    require_samtools
    flagstat=$(samtools flagstat "$O/pe.bam")
    flagstat_has 2998 "paired in sequencing"
    flagstat_has 1499 "read1"
    flagstat_has 1499 "read2"
    flagstat_has 2998 "primary"
    # without --unmatched: the pairs with a hit, both mates each
    local n1 n2 total
    flagstat=$(samtools flagstat "$O/pe.sam")
    total=$(samtools view -c -F 0x900 "$O/pe.sam")
    n1=$(samtools view -c -F 0x900 -f 0x40 "$O/pe.sam")
    n2=$(samtools view -c -F 0x900 -f 0x80 "$O/pe.sam")
    [ "$n1" -gt 1000 ] && [ "$n1" = "$n2" ] && [ "$total" = "$((2 * n1))" ]
    flagstat_has "$total" "paired in sequencing"
    # mapped mates of unmapped reads are singletons; both-mapped pairs are not
    local single
    single=$(samtools view -c -F 0x904 -f 0x8 "$O/pe.sam")
    flagstat_has "$single" "singletons ($(awk -v a="$single" -v b="$total" 'BEGIN { printf "%.2f%%", 100 * a / b }') : N/A)"
}

@test "flagstat: paired BAM input keeps its pairing: the same counts as the input with --unmatched" {
    require_samtools
    local ebola=$GPUASM_SHARED_DATA/reads/ebola_viralngs/G5012.3.subset.bam in
    in=$(samtools flagstat "$ebola")
    flagstat=$(samtools flagstat "$O/pbam.bam")
    local what n
    for what in "paired in sequencing" "read1" "read2" "in total (QC-passed reads + QC-failed reads)"; do
        n=$(grep -F " + 0 $what" <<<"$in" | head -1 | cut -d' ' -f1)
        flagstat_has "$n" "$what"
    done
}
