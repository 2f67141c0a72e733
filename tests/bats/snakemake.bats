#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The Snakemake wrapper and example workflow of workflows/snakemake (issue #10),
# run by the real Snakemake (Debian's snakemake, installed by quickstart):
# the outputs must be what gpuasm-scan writes when run whole by hand.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    command -v snakemake > /dev/null || skip "snakemake not installed (Debian: snakemake)"
    SM=$GPUASM_TESTS_DIR/../workflows/snakemake
    # gpuasm-scan as built, first on PATH (the wrapper calls it by name)
    PATH=$(dirname "$GPUASM_SCAN"):$PATH
    export PATH
    mq=${MULTIQC:-}
    [ -n "$mq" ] || mq=$(command -v multiqc || true)
    [ -n "$mq" ] || { [ -x "$GPUASM_TESTS_DIR/../_venv/bin/multiqc" ] && mq=$GPUASM_TESTS_DIR/../_venv/bin/multiqc; } || true
}

# Records sorted by the read order of a FASTQ file (see workflow.bats).
by_read_order() {
    awk -F'\t' 'NR == FNR { if (FNR % 4 == 1) { n = $1; sub(/^@/, "", n); sub(/[ \t].*/, "", n); i[n] = FNR } next }
                !/^@/ { print i[$1] "\t" $0 }' "$1" "$2" | sort -s -t$'\t' -k1,1n | cut -f2-
}

@test "the wrapper's test/Snakefile: BAM, report, MultiQC content and clean reads as gpuasm-scan writes them" {
    require_samtools
    mkdir "$T/w" && cp "$READS" "$T/w/reads.fq" && cp "$TARGETS" "$T/w/targets.fa"
    run snakemake -j2 -s "$SM/test/Snakefile" --directory "$T/w" out/S1.bam out/S1.tsv out/S1_mqc.json out/S1.clean.fq.gz
    assert_success
    cd "$T/w"
    scan --no-PG --report whole.tsv --sample S1 --multiqc whole_mqc.json --unmatched-reads whole.fq.gz \
        reads.fq targets.fa 2> /dev/null > whole.sam
    diff <(samtools view out/S1.bam) <(records whole.sam)
    cmp out/S1.tsv whole.tsv
    cmp out/S1_mqc.json whole_mqc.json
    cmp <(zcat out/S1.clean.fq.gz) <(zcat whole.fq.gz)
    # the log holds gpuasm-scan's summary
    grep -q '^gpuasm-scan: S1: 42 reads, 34 with a hit' logs/S1.log
}

@test "the example workflow: two samples scattered over 3 shards, gathered = the whole runs, MultiQC has both" {
    require_samtools
    head -80 "$READS" > "$T/b.fq"
    run snakemake -j2 -s "$SM/example/Snakefile" --directory "$T/w" \
        --config samples="A=$READS,B=$T/b.fq" targets="$TARGETS" shards=3 multiqc="$mq"
    assert_success
    cd "$T/w"
    for s in A B; do
        r=$READS
        [ $s = B ] && r=$T/b.fq
        scan --no-PG --report whole.$s.tsv --sample $s "$r" "$TARGETS" 2> /dev/null > whole.$s.sam
        ls shards/$s.1.bam shards/$s.2.bam shards/$s.3.bam
        samtools view results/$s.bam > cat.$s.sam
        [ -s cat.$s.sam ]
        diff <(by_read_order "$r" cat.$s.sam) <(records whole.$s.sam)
        cmp results/$s.tsv whole.$s.tsv
    done
    [ -n "$mq" ] || skip "multiqc not installed: the workflow ran without it (./quickstart installs it)"
    f=$(ls results/multiqc/multiqc_data/*gpuasm_scan_targets*.txt | head -1)
    # both samples' reads without a hit, as the reports say
    for s in A B; do
        want=$(awk -F'\t' '$2 == "(none)" { print $4 }' whole.$s.tsv)
        got=$(awk -F'\t' -v s=$s 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "no hit") c = i } $1 == s { print $c + 0 }' "$f")
        [ "$want" = "$got" ]
    done
}
