#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The nf-core style module of workflows/nextflow (issue #10).  Nextflow cannot
# be installed here, so its script: and stub: blocks are run with bash after
# substituting the task variables (tests/nextflow_block.py), and the
# outputs are checked against gpuasm-scan run by hand.  The module's
# nf-test (workflows/nextflow/tests/main.nf.test) is not run (its README);
# its snapshot is checked here, and `nf-core modules lint` runs in
# tests/packages/nfcore.bats (make check-packages, opt-in).

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
 "clean": "--unmatched-reads test.clean.fastq.gz", "reads": "reads.fq", "targets": "targets.fa",
 "reference": "", "device": ""}
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
 "reads": "r1.fq r2.fq", "targets": "TARGETS", "reference": "", "device": "--device cpu"}
JSON
    sed -i "s|TARGETS|$TARGETS|" vars.json
    block script vars.json > script.sh
    run bash -euo pipefail script.sh
    assert_success
    [ "$(zcat p.clean_1.fastq.gz | wc -l)" -eq "$(zcat p.clean_2.fastq.gz | wc -l)" ]
    [ "$(zcat p.clean_1.fastq.gz | wc -l)" -gt 0 ]
    # the mates in the same order, named as read (r1.fq's /1, r2.fq's /2)
    diff <(zcat p.clean_1.fastq.gz | awk 'NR % 4 == 1' | sed 's|/1$||') <(zcat p.clean_2.fastq.gz | awk 'NR % 4 == 1' | sed 's|/2$||')
    [ "$(zcat p.clean_1.fastq.gz | awk 'NR % 4 == 1' | grep -vc '/1$')" -eq 0 ]
    "$PYTHON3" -c 'import json; d = json.load(open("vars.json")); del d["clean"]; json.dump(d, open("bad.json", "w"))'
    run block script bad.json
    assert_failure
    assert_output --partial "def clean of the script: block has no value"
}

@test "script: CRAM reads with their reference (-T), as the module's third input gives it" {
    require_samtools
    C=$GPUASM_SHARED_DATA/reads/measles_sequana
    [ -f "$C/test_measles.cram" ] || skip "shared data not found"
    mkdir "$T/work" && cd "$T/work"
    cp "$C/test_measles.cram" reads.cram && cp "$C/measles_chr1.fa" ref.fa
    cp "$GPUASM_SHARED_DATA/genomes/measles_K01711.1.fasta" targets.fa
    cat > vars.json <<'JSON'
{"args": "--no-PG", "task.cpus - 1": 0, "prefix": "c", "meta.id": "c",
 "clean": "--unmatched-reads c.clean_1.fastq.gz --unmatched-reads2 c.clean_2.fastq.gz",
 "reads": "reads.cram", "targets": "targets.fa", "reference": "-T ref.fa", "device": ""}
JSON
    block script vars.json > script.sh
    grep -q -- '-T ref.fa' script.sh
    run bash -euo pipefail script.sh
    assert_success
    scan --no-PG -T ref.fa -o w.bam reads.cram targets.fa 2> /dev/null
    diff <(samtools view c.bam) <(samtools view w.bam)
    [ "$(samtools view -c c.bam)" -gt 0 ]
}

@test "stub: makes every output (gzip files as nf-core lints them); the versions command gives the version alone" {
    mkdir "$T/work" && cd "$T/work"
    printf '{"prefix": "s", "meta.id": "s", "clean2": "echo \\"\\" | gzip > s.clean_2.fastq.gz", "meta.single_end ? %s : %s": "_1"}\n' "''" "'_1'" > vars.json
    block stub vars.json > stub.sh
    grep -q '^    echo "" | gzip > s.clean_1.fastq.gz$' stub.sh
    run bash -euo pipefail stub.sh
    assert_success
    ls s.bam s.report.tsv s_mqc.json s.stats.json s.clean_1.fastq.gz s.clean_2.fastq.gz
    [ "$(gzip -dc s.clean_2.fastq.gz)" = "" ]
    # the eval() of the versions topic, as written in main.nf
    cmd=$(grep -o 'eval("[^"]*")' "$NF" | sed 's/^eval("//; s/")$//')
    [ -n "$cmd" ]
    run bash -c "$cmd"
    assert_success
    assert_output "${GPUASM_VERSION:-$("$GPUASM_SCAN" --version | head -1 | cut -d' ' -f2)}"
}

@test "the nf-test snapshot holds what the module gives: the version, the stub's files" {
    snap=$GPUASM_TESTS_DIR/../workflows/nextflow/tests/main.nf.test.snap
    "$PYTHON3" - "$snap" "$GPUASM_TESTS_DIR/../workflows/nextflow/tests/main.nf.test" <<'PY'
import json, re, sys
snap = json.load(open(sys.argv[1]))
tests = re.findall(r'^\s*test\("([^"]+)"\)', open(sys.argv[2]).read(), re.M)
assert sorted(snap) == sorted(tests), (sorted(snap), sorted(tests))
for name, entry in snap.items():
    assert "versions_gpuasm" in json.dumps(entry), name
PY
    # the version the module's eval() reports, as the snapshot has it
    v=$("$GPUASM_SCAN" --version | sed '1!d; s/^gpuasm-scan //')
    [ "$(grep -c "\"$v\"" "$snap")" -ge 4 ]
    # the stub's files, made by its block, have the snapshot's md5sums
    # (nf-test takes a .gz file's md5 of its contents)
    mkdir "$T/w" && cd "$T/w"
    printf '{"prefix": "test", "meta.id": "test", "clean2": "echo \\"\\" | gzip > test.clean_2.fastq.gz", "meta.single_end ? %s : %s": "_1"}\n' "''" "'_1'" > vars.json
    block stub vars.json > stub.sh
    bash -euo pipefail stub.sh
    for f in test.bam test.report.tsv test_mqc.json test.stats.json test.clean_1.fastq.gz test.clean_2.fastq.gz; do
        case $f in *.gz) m=$(gzip -dc "$f" | md5sum | cut -d' ' -f1) ;; *) m=$(md5sum < "$f" | cut -d' ' -f1) ;; esac
        grep -q "\"$f:md5,$m\"" "$snap" || { echo "$f: md5 $m is not the snapshot's"; false; }
    done
}
