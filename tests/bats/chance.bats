#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Screening answers that mean something (issue #26; align/chance.h):
# random reads screened with the defaults hit at most 1% of the time, and
# as often as the chance model predicts; the floors are said in @CO,
# --stats and --verbosity 4; --overlap N and --preset cutadapt have no
# floor; every record carries XE:f.
#
# Random reads are made here (Python's random, seeded): 100,000 reads of
# 150 bases (the issue's 1,000,000 are tests/bench/chance's), and 10,000
# random 25-mers.

setup_file() {
    load helpers
    "$PYTHON3" - "$BATS_FILE_TMPDIR" <<'PY'
import random, sys
d = sys.argv[1]
rnd = random.Random(20261128)
with open(d + "/random.fq", "w") as f:
    q = "I" * 150
    for i in range(100000):
        f.write("@r%d\n%s\n+\n%s\n" % (i, "".join(rnd.choices("ACGT", k=150)), q))
with open(d + "/primers.fa", "w") as f:
    for i in range(10000):
        f.write(">p%d\n%s\n" % (i, "".join(rnd.choices("ACGT", k=25))))
PY
}

setup() {
    load helpers
    O=$BATS_FILE_TMPDIR
}

# jstat FILE KEY
jstat() {
    "$PYTHON3" -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(v)' "$1" "$2"
}

# The fraction of random reads with a hit lies at most E plus noise and at
# least 0.4 E minus noise (E: the expected chance hits per read of the
# --stats, partial and whole; 0.4: the union bound's slack measured at the
# defaults is 0.64-0.67, test_chance measures the bound itself), and is at
# most 1%.
check_random() {
    local json=$1 reads hit e
    reads=$(jstat "$json" reads)
    hit=$(jstat "$json" reads_with_hits)
    e=$("$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["chance_partial_per_read"] + d["chance_whole_per_read"])' "$json")
    echo "# $reads random reads: $hit with a hit, E = $e per read" >&3
    "$PYTHON3" - "$reads" "$hit" "$e" <<'PY'
import math, sys
n, h, e = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
want = e * n
sigma = math.sqrt(max(want, 1.0))
ok = h <= 0.01 * n and h <= want + 4 * sigma and h >= 0.4 * want - 4 * sigma
print("fraction %.4f%%, predicted at most %.4f%%" % (100.0 * h / n, 100.0 * e))
sys.exit(0 if ok else 1)
PY
}

@test "random reads against the 158 bbmap adapters, defaults: <= 1% with a hit, as the model predicts" {
    require_shared_data
    scan --quiet -@ 2 --stats "$O/a.json" -o /dev/null "$O/random.fq" "$GPUASM_SHARED_DATA/adapters/bbmap_adapters.fa"
    run check_random "$O/a.json"
    assert_success
}

@test "random reads against 10,000 random 25-mers at -k 2, defaults: <= 1% with a hit, as predicted" {
    head -n 200000 "$O/random.fq" > "$O/r50k.fq"
    scan --quiet -@ 2 -k 2 --stats "$O/p.json" -o /dev/null "$O/r50k.fq" "$O/primers.fa"
    run check_random "$O/p.json"
    assert_success
}

@test "--overlap 3 (cutadapt's -O 3) flags most random reads, as its E says" {
    head -n 40000 "$O/random.fq" > "$O/r10k.fq"
    # the sample's adapter alone (a target set of genomes and adapters
    # counts the genomes as sources too, which the reads never make
    # patterns: E is then an upper bound, align/chance.h)
    head -n 2 "$TEST_DATA/targets.fa" > "$O/adapter.fa"
    scan --quiet --overlap 3 --stats "$O/o3.json" -o /dev/null "$O/r10k.fq" "$O/adapter.fa"
    run jstat "$O/o3.json" partial_floor
    assert_output "None"
    # E of partial records per read, and the records found: within 20%
    run "$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); e=d["chance_partial_per_read"]*d["reads"]; r=d["records"]; print(e, r); sys.exit(0 if 0.8*e <= r <= 1.05*e + 4*e**0.5 else 1)' "$O/o3.json"
    assert_success
}

@test "the floors in effect: @CO, --stats and --verbosity 4; none with --overlap N or --preset cutadapt" {
    run --separate-stderr scan --verbosity 4 --stats "$O/s.json" "$READS" "$TARGETS"
    assert_success
    assert_line --regexp $'^@CO\tgpuasm-scan: partial occurrences of targets: score \\(AS:i\\) >= [0-9]+; of reads: score >= [0-9]+; expected chance partial records per read'
    [[ "$stderr" == *"info: partial occurrences of targets: score (AS:i) >= "* ]]
    run jstat "$O/s.json" partial_floor
    [[ "$output" =~ ^[0-9]+$ ]]
    run jstat "$O/s.json" max_chance
    assert_output "0.01"
    scan --quiet --overlap 3 "$READS" "$TARGETS" | grep -q $'^@CO\tgpuasm-scan: partial occurrences of targets: no floor, every score from --overlap 3'
    scan --quiet --preset cutadapt "$READS" "$TARGETS" | grep -q 'of targets: no floor, every score from --overlap 3'
    # a smaller --max-chance raises the floor
    f1=$(scan --quiet "$READS" "$TARGETS" | sed -n 's/^@CO.*of targets: score (AS:i) >= \([0-9]*\);.*/\1/p')
    f2=$(scan --quiet --max-chance 1e-6 "$READS" "$TARGETS" | sed -n 's/^@CO.*of targets: score (AS:i) >= \([0-9]*\);.*/\1/p')
    [ "$f2" -gt "$f1" ]
}

@test "every hit record has XE:f, and a record's XE never falls as its AS falls within a kind" {
    scan --quiet --all --overlap 3 "$READS" "$TARGETS" > "$O/all.sam"
    run "$PYTHON3" - "$O/all.sam" <<'PY'
import sys
pts = {}
for line in open(sys.argv[1]):
    if line.startswith("@"):
        continue
    f = line.rstrip("\n").split("\t")
    t = dict((x[:2], x[5:]) for x in f[11:])
    if "XE" not in t:
        sys.exit("no XE: " + line)
    kind = "partial" if "XP" in t else "whole"
    # per target pattern length m (the whole kind depends on it): key on (kind, RNAME)
    pts.setdefault((kind, f[2], len(f[9])), []).append((int(t["AS"]), float(t["XE"])))
for k, v in pts.items():
    v.sort()
    for (a1, e1), (a2, e2) in zip(v, v[1:]):
        if a2 > a1 and e2 > e1 * (1 + 1e-5) + 1e-44:
            sys.exit("%s: AS %d has XE %g, AS %d has XE %g" % (k, a1, e1, a2, e2))
print("ok")
PY
    assert_success
}

@test "--max-chance and --preset: bad values are one-line errors" {
    run --separate-stderr scan --max-chance 0 "$READS" "$TARGETS"
    assert_one_error "--max-chance"
    run --separate-stderr scan --max-chance abc "$READS" "$TARGETS"
    assert_one_error "--max-chance"
    run --separate-stderr scan --preset bowtie "$READS" "$TARGETS"
    assert_one_error "--preset"
    run --separate-stderr scan --overlap half "$READS" "$TARGETS"
    assert_one_error "--overlap"
}

@test "--preset cutadapt equals its long form; a later option overrides it" {
    scan --quiet --no-PG --preset cutadapt "$READS" "$TARGETS" > "$O/p.sam"
    scan --quiet --no-PG --strand forward --partial-ends 3 --pattern target --best --overlap 3 "$READS" "$TARGETS" > "$O/l.sam"
    cmp "$O/p.sam" "$O/l.sam"
    scan --quiet --no-PG --preset cutadapt --overlap 10 "$READS" "$TARGETS" > "$O/p10.sam"
    scan --quiet --no-PG --overlap 10 --preset cutadapt "$READS" "$TARGETS" > "$O/p10b.sam"
    cmp "$O/p10.sam" "$O/p10b.sam"
    ! cmp -s "$O/p.sam" "$O/p10.sam"
}
