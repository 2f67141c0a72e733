#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The ends filter (issue #16 with #9's default --overlap 3;
# walk/ends_filter.h): partial occurrences of target patterns at a
# read's ends are searched only for the (target, strand, end) items its
# exact rules keep, and that never changes a byte.  Every --filter value
# (auto, on, pieces, index) must write the SAM of --filter off on seeded
# random primers and reads with partial occurrences planted at both ends on
# both strands (tests/bats/filter_data.py primer_ends: IUPAC codes in primers, N
# and IUPAC letters in reads, reads shorter than the primers), over k =
# 0..3, -e rates, --overlap 1/3/10, --read-overlap, --partial-ends,
# --strand, --best and --all, edit and hamming, --match-read-wildcards; and
# on real data (the bbmap adapters against illumina and Hm2 reads).
# --stats must show that items were skipped (ends_skipped > 0) where the
# filter ran, so that equal bytes are not two exhaustive runs.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
}

@test "random primers with partial occurrences at both ends: every --filter = off, the ends filter drops items" {
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" primer_ends 16 "$T"
    local o
    for o in "" "--all" "--best" "-k 0" "-k 1 --all" "-k 2" "-k 3 --all" "-e 0.05" "-e 0.15 --all" \
             "-e 0.2" "--overlap 1" "--overlap 1 -k 2 --all" "--overlap 10 --all" "--overlap 10 -e 0.1" \
             "--read-overlap 3 --all" "--read-overlap full -k 1" "--partial-ends 3 --all" "--partial-ends 5" \
             "--strand forward --all" "--best -k 2"; do
        # shellcheck disable=SC2086
        filter_equal e "$T/pe.fq" "$T/pe.fa" $o
        [ "$(stats_value "$T/e.pieces.json" ends_skipped)" -gt 0 ] || { echo "ends filter dropped nothing: $o"; return 1; }
        [ "$(stats_value "$T/e.on.json" ends_skipped)" -gt 0 ] || { echo "ends filter dropped nothing (on): $o"; return 1; }
        # off runs every item
        [ "$(stats_value "$T/e.off.json" ends_skipped)" -eq 0 ]
    done
}

@test "hamming, --match-read-wildcards and a second seed: every --filter = off" {
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" primer_ends 1602 "$T"
    local o
    for o in "--mode hamming --all" "--mode hamming -k 1" "--mode hamming -e 0.1 --overlap 1" \
             "--match-read-wildcards --all" "--match-read-wildcards -k 2" "" "-k 3 --overlap 1 --all"; do
        # shellcheck disable=SC2086
        filter_equal h "$T/pe.fq" "$T/pe.fa" $o
        [ "$(stats_value "$T/h.pieces.json" ends_skipped)" -gt 0 ] || { echo "ends filter dropped nothing: $o"; return 1; }
    done
    # wildcard reads: the strands with an IUPAC letter in a window the rules
    # read are not filtered, so more items are kept than without wildcards
    filter_equal w "$T/pe.fq" "$T/pe.fa" --match-read-wildcards
    filter_equal x "$T/pe.fq" "$T/pe.fa"
    [ "$(stats_value "$T/w.pieces.json" ends_run)" -gt "$(stats_value "$T/x.pieces.json" ends_run)" ]
}

@test "--overlap full and the byte-free kernels: no ends filter; --stats and --verbosity 4 name it" {
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" primer_ends 16 "$T"
    filter_equal f "$T/pe.fq" "$T/pe.fa" --overlap full --read-overlap full --all
    [ "$(stats_value "$T/f.on.json" ends_run)" -eq 0 ] && [ "$(stats_value "$T/f.on.json" ends_skipped)" -eq 0 ]
    [[ "$(stats_value "$T/f.on.json" filter_plan)" != *"ends ("* ]]
    # the per-pair kernels (dp, scan) have no filters: same bytes, nothing counted
    filter_equal d "$T/pe.fq" "$T/pe.fa" --kernel dp -k 1
    [ "$(stats_value "$T/d.on.json" ends_skipped)" -eq 0 ]
    scan --device cpu --stats "$T/a.json" -o /dev/null "$T/pe.fq" "$T/pe.fa"
    [[ "$(stats_value "$T/a.json" filter_plan)" == "auto: pieces (q 6-8) + index ("*") + ends ("*" targets, "*" keys)" ]]
    run --separate-stderr scan --device cpu --verbosity 4 --filter pieces -o /dev/null "$T/pe.fq" "$T/pe.fa"
    assert_success
    [[ "$stderr" == *"gpuasm-scan: info: filter pieces: pieces (q 6-8) + ends ("*" targets, "* ]]
    # GPUASM_CPU_ENDS_FILTER=0 (the benchmarks' "before"): the ends pass for every item, same bytes
    GPUASM_CPU_ENDS_FILTER=0 scan --device cpu --no-PG --filter on --stats "$T/n.json" "$T/pe.fq" "$T/pe.fa" > "$T/n.sam"
    scan --device cpu --no-PG --filter on --stats "$T/y.json" "$T/pe.fq" "$T/pe.fa" > "$T/y.sam"
    cmp "$T/n.sam" "$T/y.sam"
    # (the reads shorter than a primer are its pattern: the index's ends filter may still skip those)
    [ "$(stats_value "$T/n.json" ends_skipped)" -lt "$(stats_value "$T/y.json" ends_skipped)" ]
    [[ "$(stats_value "$T/n.json" filter_plan)" != *"ends ("* ]]
    # auto leaves it out for a single target (GPUASM_EF_AUTO_MIN)
    sed -n 3,4p "$T/pe.fa" > "$T/one.fa"
    filter_equal s "$T/pe.fq" "$T/one.fa" --overlap 1
    [[ "$(stats_value "$T/s.auto.json" filter_plan)" != *"ends ("* ]]
    [[ "$(stats_value "$T/s.on.json" filter_plan)" == *" + ends (1 targets, "* ]]
}

@test "real data: the bbmap adapters vs illumina and Hm2 reads with the default --overlap 3: every --filter = off" {
    require_shared_data
    local D=$GPUASM_SHARED_DATA
    gzip -dc "$D/reads/trimgalore/illumina_10K.reads1-4000.fastq.gz" | head -n 4000 > "$T/ill.fq"
    gzip -dc "$D/reads/measles_sequana/Hm2_GTGAAA_L005_R1_001.fastq.gz" | head -n 2000 > "$T/hm2.fq"
    filter_equal ill "$T/ill.fq" "$D/adapters/bbmap_adapters.fa"
    [ "$(stats_value "$T/ill.auto.json" ends_skipped)" -gt "$(stats_value "$T/ill.auto.json" ends_run)" ]
    # the kits' families (50 adapters share 12 first bases, 112 their last
    # 16) are settled by one DP where it proves them empty
    [ "$(stats_value "$T/ill.auto.json" ends_settled)" -gt 0 ]
    filter_equal illb "$T/ill.fq" "$D/adapters/bbmap_adapters.fa" --best -e 0.2
    filter_equal hm2 "$T/hm2.fq" "$D/adapters/bbmap_adapters.fa" --all --overlap 1
    filter_equal hm2h "$T/hm2.fq" "$D/adapters/bbmap_adapters.fa" --mode hamming --best
    [ "$(stats_value "$T/hm2h.auto.json" ends_skipped)" -gt 0 ]
}

@test "adapter families (walk/ends_classes.h): settled at once, the bytes of each run alone and of --filter off" {
    # 8 families of 6 members (a shared stem of 14-30 bases at one end, the
    # rest each its own) and 8 loners, 30-64 bases; 600 random reads of
    # 150 bases, a third with a member's prefix (suffix) at their end
    # (start), some mutated, some with a stem inside
    "$PYTHON3" - "$T/fam.fa" "$T/fam.fq" <<'PY'
import random, sys
rnd = random.Random(2601)
b = lambda n: "".join(rnd.choice("ACGT") for _ in range(n))
def mut(s):
    s = list(s)
    for _ in range(rnd.randrange(3)):
        i = rnd.randrange(len(s))
        op = rnd.randrange(3)
        if op == 0: s[i] = rnd.choice("ACGT")
        elif op == 1: del s[i]
        else: s.insert(i, rnd.choice("ACGT"))
    return "".join(s)
tg = []
for f in range(8):
    stem = b(rnd.randrange(14, 31))
    for j in range(6):
        m = rnd.randrange(len(stem) + 4, 65)
        tg.append(stem + b(m - len(stem)) if f % 2 == 0 else b(m - len(stem)) + stem)
tg += [b(rnd.randrange(30, 65)) for _ in range(8)]
with open(sys.argv[1], "w") as fa:
    for i, t in enumerate(tg):
        fa.write(">a%d\n%s\n" % (i, t))
with open(sys.argv[2], "w") as fq:
    for r in range(600):
        s = b(150)
        t = rnd.choice(tg)
        p = rnd.randrange(8, len(t))
        k = r % 6
        if k == 0: s = s[:150 - p] + t[:p]
        elif k == 1: s = t[len(t) - p:] + s[p:]
        elif k == 2: s = s[:100] + mut(t[:p])
        elif k == 3: s = s[:40] + t[:20] + s[60:]
        s = s[:150] if len(s) >= 150 else s + b(150 - len(s))
        fq.write("@r%d\n%s\n+\n%s\n" % (r, s, "I" * 150))
PY
    local o
    for o in "" "--best" "-e 0.2" "-k 2 --all" "--overlap 3"; do
        # shellcheck disable=SC2086
        filter_equal fam "$T/fam.fq" "$T/fam.fa" $o
        # shellcheck disable=SC2086
        GPUASM_CPU_ENDS_CLASSES=0 scan --device cpu --no-PG -@ 2 --stats "$T/fam.n.json" $o "$T/fam.fq" "$T/fam.fa" > "$T/fam.n.sam"
        cmp "$T/fam.n.sam" "$T/fam.auto.sam" || { echo "differs with the families run one by one: $o"; return 1; }
        [ "$(stats_value "$T/fam.auto.json" ends_settled)" -gt 0 ] || { echo "nothing settled: $o"; return 1; }
        [ "$(stats_value "$T/fam.n.json" ends_settled)" -eq 0 ]
        [ "$(stats_value "$T/fam.n.json" ends_run)" -eq "$(stats_value "$T/fam.auto.json" ends_run)" ]
    done
}
