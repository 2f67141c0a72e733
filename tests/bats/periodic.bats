#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A repeat read's search through the targets' periodic runs (issue #28,
# "No cliffs"; walk/periodic.h): where the window index declines a read
# strand (it matches everywhere), the CPU walk leaves out the columns of
# a run that repeat those of the period before and replays that period's
# positions; and the ends marks of such a strand give up past their bound
# (walk/prefilter.h, gpuasm_ends_max_hits).  Both must write the bytes of
# searching every column (GPUASM_CPU_PERIODIC=0) and of the marks that
# never give up (GPUASM_CPU_PREFILTER=2); --stats' periodic_cols shows that
# columns were left out, so equal bytes are not two identical runs.
# tests/c/test_periodic checks the runs, the claim and the pieces.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
}

# periodic_inputs SEED READS: $T/t.fa (targets with runs of periods 1 to
# 64 between random flanks, a period-8 array to both ends, a run broken
# by point changes, a random control, poly-A and a dinucleotide array at
# an end) and $T/r.fq (reads of 70 to 250 bases from them, up to five
# edits, half reverse-complemented).
periodic_inputs() {
    "$PYTHON3" - "$T" "$1" "$2" <<'PY'
import random, sys
d, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = random.Random(seed)
def rnd(k): return "".join(r.choice("ACGT") for _ in range(k))
def rc(s): return s[::-1].translate(str.maketrans("ACGT", "TGCA"))
def mutate(s, k):
    s = list(s)
    for _ in range(k):
        j, op = r.randrange(len(s)), r.randrange(3)
        if op == 0: s[j] = r.choice("ACGT".replace(s[j], ""))
        elif op == 1: del s[j]
        else: s.insert(j, r.choice("ACGT"))
    return "".join(s)
parts = [rnd(50)]
for p in (1, 2, 3, 8, 37, 64):
    unit = rnd(p)
    parts += [(unit * (4000 // p + 2))[:r.randrange(1500, 4000)], rnd(r.randrange(10, 400))]
u8, u23 = rnd(8), rnd(23)
broken = list((u23 * 400)[:9000])
for _ in range(4):
    j = r.randrange(len(broken))
    broken[j] = r.choice("ACGT".replace(broken[j], ""))
targets = ["".join(parts), (u8 * 1300)[:10000], rnd(300) + "".join(broken) + rnd(300), rnd(6000),
           rnd(500) + "A" * 3000 + rnd(500) + "CA" * 1500]
with open(d + "/t.fa", "w") as f:
    for i, t in enumerate(targets):
        f.write(">t%d\n%s\n" % (i, t))
with open(d + "/r.fq", "w") as f:
    for i in range(n):
        t = targets[r.randrange(len(targets))]
        L = r.choice((40, 64, 70, 100, 150, 151, 200, 250, 300, 500))
        a = max(0, min(r.randrange(-30, len(t) - L + 30), len(t) - L))
        s = mutate(t[a:a + L], r.randrange(0, 6))
        if r.random() < 0.5:
            s = rc(s)
        f.write("@r%d\n%s\n+\n%s\n" % (i, s, "I" * len(s)))
PY
}

@test "periodic runs' repeating columns left out: the SAM of searching every column, with and without --all, at several e, strands and SIMD levels (scalar pieces too)" {
    periodic_inputs 1 1500
    local opts simd
    for opts in "" "--all" "-e 0.05" "--all -e 0.2" "--strand forward"; do
        for simd in 0 1 2; do
            # shellcheck disable=SC2086
            GPUASM_CPU_SIMD=$simd scan --device cpu -@ 2 --no-PG $opts --stats "$T/on.json" "$T/r.fq" "$T/t.fa" > "$T/on.sam"
            [ "$(stat_of "$T/on.json" periodic_cols)" -gt 0 ] || { echo "nothing left out: $simd $opts"; return 1; }
            # shellcheck disable=SC2086
            GPUASM_CPU_SIMD=$simd GPUASM_CPU_PERIODIC=0 scan --device cpu -@ 2 --no-PG $opts --stats "$T/off.json" \
                "$T/r.fq" "$T/t.fa" > "$T/off.sam"
            assert_equal "$(stat_of "$T/off.json" periodic_cols)" 0
            cmp "$T/on.sam" "$T/off.sam" || { echo "differs: simd $simd $opts"; return 1; }
            [ "$(records "$T/on.sam" | wc -l)" -gt 700 ]
        done
    done
}

@test "periodic runs: the keep rule's early stop in a replayed run writes the bytes of keeping every hit (one and two threads)" {
    periodic_inputs 2 1000
    GPUASM_KEEP_ALL=1 scan --device cpu -@ 2 --no-PG "$T/r.fq" "$T/t.fa" > "$T/all.sam"
    local t
    for t in 1 2; do
        scan --device cpu -@ $t --no-PG --stats "$T/rule.json" "$T/r.fq" "$T/t.fa" > "$T/rule.sam"
        [ "$(stat_of "$T/rule.json" periodic_cols)" -gt 0 ]
        cmp "$T/all.sam" "$T/rule.sam"
    done
}

@test "periodic runs: the ends marks that give up on a repeat read write the bytes of marks that never give up" {
    periodic_case 500
    scan --device cpu -@ 2 --no-PG --stats "$T/auto.json" "$T/periodic.fq" "$T/periodic.fa" > "$T/auto.sam"
    GPUASM_CPU_PREFILTER=2 scan --device cpu -@ 2 --no-PG --stats "$T/on.json" "$T/periodic.fq" "$T/periodic.fa" \
        > "$T/on.sam"
    cmp "$T/auto.sam" "$T/on.sam"
    assert_equal "$(records "$T/auto.sam" | wc -l)" 500
    # (here the marks that never give up mark every end too: the bound
    # saves their cost, ~48 us a read, not DP)
    assert_equal "$(stat_of "$T/auto.json" ends_run)" "$(stat_of "$T/on.json" ends_run)"
}

@test "periodic runs: a target without one leaves no column out" {
    "$PYTHON3" - "$T" <<'PY'
import random, sys
r = random.Random(9)
t = "".join(r.choice("ACGT") for _ in range(20000))
open(sys.argv[1] + "/t.fa", "w").write(">t\n" + t + "\n")
with open(sys.argv[1] + "/r.fq", "w") as f:
    for i in range(300):
        a = r.randrange(len(t) - 150)
        f.write("@r%d\n%s\n+\n%s\n" % (i, t[a:a + 150], "I" * 150))
PY
    scan --device cpu -@ 2 --no-PG --stats "$T/s.json" "$T/r.fq" "$T/t.fa" > "$T/s.sam"
    assert_equal "$(stat_of "$T/s.json" periodic_cols)" 0
    assert_equal "$(records "$T/s.sam" | wc -l)" 300
}

@test "dense piece hits (poly-A reads against targets with a poly-A run): the index's pairing writes the SAM of --filter off" {
    "$PYTHON3" - "$T" <<'PY'
import random, sys
r = random.Random(3)
def rnd(k): return "".join(r.choice("ACGT") for _ in range(k))
with open(sys.argv[1] + "/t.fa", "w") as f:
    for i in range(20):
        t = rnd(20000)
        if i == 7:
            t = t[:8000] + "A" * 600 + t[8600:]
        f.write(">t%d\n%s\n" % (i, t))
with open(sys.argv[1] + "/r.fq", "w") as f:
    for i in range(120):
        L = r.choice((150, 300))
        s = "A" * L if i % 3 == 0 else "A" * (L // 2) + rnd(L - L // 2) if i % 3 == 1 else rnd(L)
        f.write("@r%d\n%s\n+\n%s\n" % (i, s, "I" * L))
PY
    local o
    for o in "" "--all" "--all -e 0.05"; do
        # shellcheck disable=SC2086
        scan --device cpu -@ 2 --no-PG $o --stats "$T/auto.json" "$T/r.fq" "$T/t.fa" > "$T/auto.sam"
        [ "$(stat_of "$T/auto.json" index_strands)" -gt 0 ]
        # shellcheck disable=SC2086
        scan --device cpu -@ 2 --no-PG $o --filter off "$T/r.fq" "$T/t.fa" > "$T/off.sam"
        cmp "$T/auto.sam" "$T/off.sam" || { echo "differs: $o"; return 1; }
    done
    # the 40 poly-A reads, each in t7's run
    assert_equal "$(records "$T/auto.sam" | wc -l)" 40
}
