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

@test "the wrapper's test runs as shipped: its data beside it, outputs as gpuasm-scan writes them" {
    require_samtools
    # the test's data are copies of test-data/'s
    cmp "$SM/test/reads.fq" "$READS"
    cmp "$SM/test/targets.fa" "$TARGETS"
    # a copy of the wrapper folder, run from test/ with the command its header gives
    cp -r "$SM" "$T/sm"
    cd "$T/sm/test"
    cmd=$(sed -n 's/^#   \(snakemake --cores 2 out\/a.bam\) .*/\1/p' Snakefile)
    [ -n "$cmd" ]
    run $cmd
    assert_success
    scan --no-PG --report whole.tsv --sample a --multiqc whole_mqc.json --unmatched-reads whole.fq.gz \
        reads.fq targets.fa 2> /dev/null > whole.sam
    diff <(samtools view out/a.bam) <(records whole.sam)
    cmp out/a.tsv whole.tsv
    cmp out/a_mqc.json whole_mqc.json
    cmp <(zcat out/a.clean.fq.gz) <(zcat whole.fq.gz)
    # the log holds gpuasm-scan's summary
    grep -q '^gpuasm-scan: a: 42 reads, 34 with a hit' logs/a.log
}

@test "the wrapper: --shard from the wildcards shard and n_shards; paths and names quoted for the shell" {
    require_samtools
    cp -r "$SM" "$T/sm"
    cd "$T/sm/test"
    run snakemake --cores 1 shards/a.2-of-3.bam "out/s 1 (x).bam"
    assert_success
    scan --no-PG --shard 2/3 reads.fq targets.fa 2> /dev/null > s2.sam
    diff <(samtools view shards/a.2-of-3.bam) <(records s2.sam)
    [ "$(samtools view -c shards/a.2-of-3.bam)" -gt 0 ]
    # a sample name and output paths with spaces and parentheses
    [ -s "out/s 1 (x).bam" ] && [ -s "out/s 1 (x).tsv" ] && [ -s "out/s 1 (x).clean.fq.gz" ]
    awk -F'\t' 'NR == 2 { exit $1 != "s 1 (x)" }' "out/s 1 (x).tsv"
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
