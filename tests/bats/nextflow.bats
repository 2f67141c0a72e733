#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The nf-core style module of workflows/nextflow (issue #10).  Nextflow cannot
# be installed here, so its script: and stub: blocks are run with bash after
# substituting the task variables (tests/nextflow_block.py), and the
# outputs are checked against gpuasm-scan run by hand.  The module's
# nf-test (workflows/nextflow/tests/main.nf.test) is not run (its README).

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    NF=$GPUASM_TESTS_DIR/../workflows/nextflow/main.nf
    PATH=$(dirname "$GPUASM_SCAN"):$PATH
    export PATH
}

block() {  # BLOCK VARS.json: the block's script, substituted
    "$PYTHON3" "$GPUASM_TESTS_DIR/nextflow_block.py" "$NF" "$@"
}

@test "script: (single end) writes the BAM, report, MultiQC, stats and clean reads gpuasm-scan writes" {
    require_samtools
    mkdir "$T/work" && cd "$T/work"
    cp "$READS" reads.fq && cp "$TARGETS" targets.fa
    cat > vars.json <<'JSON'
{"args": "--no-PG", "task.cpus - 1": 1, "prefix": "test", "meta.id": "test",
 "clean": "--unmatched-reads test.clean.fastq.gz", "reads": "reads.fq", "targets": "targets.fa"}
JSON
    block script vars.json > script.sh
    grep -q '^    gpuasm-scan' script.sh
    run bash -euo pipefail script.sh
    assert_success
    scan --no-PG --sample test --report w.tsv --multiqc w_mqc.json --unmatched-reads w.fq.gz reads.fq targets.fa \
        2> /dev/null > w.sam
    diff <(samtools view test.bam) <(records w.sam)
    cmp test.report.tsv w.tsv
    cmp test_mqc.json w_mqc.json
    cmp <(zcat test.clean.fastq.gz) <(zcat w.fq.gz)
    "$PYTHON3" -c 'import json, sys; s = json.load(open("test.stats.json")); assert s["sample"] == "test" and s["reads"] == 42'
}

@test "script: (paired) writes the clean mates to _1 and _2; a missing variable is an error" {
    mkdir "$T/work" && cd "$T/work"
    awk 'NR % 4 == 1 { print $1 "/1"; next } { print }' "$READS" > r1.fq
    awk 'NR % 4 == 1 { print $1 "/2"; next } { print }' "$READS" > r2.fq
    cat > vars.json <<'JSON'
{"args": "--no-PG", "task.cpus - 1": 0, "prefix": "p", "meta.id": "p",
 "clean": "--unmatched-reads p.clean_1.fastq.gz --unmatched-reads2 p.clean_2.fastq.gz",
 "reads": "r1.fq r2.fq", "targets": "TARGETS"}
JSON
    sed -i "s|TARGETS|$TARGETS|" vars.json
    block script vars.json > script.sh
    run bash -euo pipefail script.sh
    assert_success
    [ "$(zcat p.clean_1.fastq.gz | wc -l)" -eq "$(zcat p.clean_2.fastq.gz | wc -l)" ]
    [ "$(zcat p.clean_1.fastq.gz | wc -l)" -gt 0 ]
    diff <(zcat p.clean_1.fastq.gz | awk 'NR % 4 == 1') <(zcat p.clean_2.fastq.gz | awk 'NR % 4 == 1')
    "$PYTHON3" -c 'import json; d = json.load(open("vars.json")); del d["clean"]; json.dump(d, open("bad.json", "w"))'
    run block script bad.json
    assert_failure
    assert_output --partial "def clean of the script: block has no value"
}

@test "stub: touches every output; the versions command gives the version alone" {
    mkdir "$T/work" && cd "$T/work"
    printf '{"prefix": "s", "meta.id": "s", "clean": "s.clean_1.fastq.gz s.clean_2.fastq.gz"}\n' > vars.json
    block stub vars.json > stub.sh
    run bash -euo pipefail stub.sh
    assert_success
    ls s.bam s.report.tsv s_mqc.json s.stats.json s.clean_1.fastq.gz s.clean_2.fastq.gz
    # the eval() of the versions topic, as written in main.nf
    cmd=$(grep -o 'eval("[^"]*")' "$NF" | sed 's/^eval("//; s/")$//')
    [ -n "$cmd" ]
    run bash -c "$cmd"
    assert_success
    assert_output "${GPUASM_VERSION:-$("$GPUASM_SCAN" --version | head -1 | cut -d' ' -f2)}"
}
