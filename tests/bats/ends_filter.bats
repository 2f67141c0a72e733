#!/usr/bin/env bats
# The ends filter (issue #16 with #9's default --overlap 3;
# kernels/ends_filter.h): partial occurrences of target patterns at a
# read's ends are searched only for the (target, strand, end) items its
# exact rules keep, and that never changes a byte.  Every --filter value
# (auto, on, pieces, index) must write the SAM of --filter off on seeded
# random primers and reads with partial occurrences planted at both ends on
# both strands (tests/bats/filter_data.py ends: IUPAC codes in primers, N
# and IUPAC letters in reads, reads shorter than the primers), over k =
# 0..3, -e rates, --overlap 1/3/10, --read-overlap, --partial-ends,
# --strand, --best and --all, edit and hamming, --match-read-wildcards; and
# on real data (the bbmap adapters against illumina and Hm2 reads).
# --stats must show that the ends filter dropped items (ends_dropped > 0)
# where it ran, so that equal bytes are not two exhaustive runs.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
}

# ends_equal NAME READS TARGETS [OPTIONS...]: every --filter value gives
# --filter off's SAM (2 threads); the --stats of each in $T/NAME.*.json.
ends_equal() {
    local name=$1 reads=$2 targets=$3 f
    shift 3
    scan --device cpu --no-PG --filter off --stats "$T/$name.off.json" "$@" "$reads" "$targets" > "$T/$name.off.sam"
    [ "$(grep -vc '^@' "$T/$name.off.sam")" -gt 0 ] || { echo "no hits: $name $*"; return 1; }
    for f in auto on pieces index; do
        scan --device cpu --no-PG -@ 2 --filter "$f" --stats "$T/$name.$f.json" "$@" "$reads" "$targets" \
            > "$T/$name.$f.sam"
        cmp "$T/$name.off.sam" "$T/$name.$f.sam" || { echo "differs: --filter $f $name $*"; return 1; }
    done
}

# stat FILE KEY: a value of a --stats file.
stat() {
    "$PYTHON3" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

@test "random primers with partial occurrences at both ends: every --filter = off, the ends filter drops items" {
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" ends 16 "$T"
    local o
    for o in "" "--all" "--best" "-k 0" "-k 1 --all" "-k 2" "-k 3 --all" "-e 0.05" "-e 0.15 --all" \
             "-e 0.2" "--overlap 1" "--overlap 1 -k 2 --all" "--overlap 10 --all" "--overlap 10 -e 0.1" \
             "--read-overlap 3 --all" "--read-overlap full -k 1" "--partial-ends 3 --all" "--partial-ends 5" \
             "--strand forward --all" "--best -k 2"; do
        # shellcheck disable=SC2086
        ends_equal e "$T/e.fq" "$T/e.fa" $o
        [ "$(stat "$T/e.pieces.json" ends_dropped)" -gt 0 ] || { echo "ends filter dropped nothing: $o"; return 1; }
        [ "$(stat "$T/e.on.json" ends_dropped)" -gt 0 ] || { echo "ends filter dropped nothing (on): $o"; return 1; }
        # off and index (reads as patterns only) run no ends filter
        [ "$(stat "$T/e.off.json" ends_kept)" -eq 0 ] && [ "$(stat "$T/e.off.json" ends_dropped)" -eq 0 ]
        [ "$(stat "$T/e.index.json" ends_dropped)" -eq 0 ]
    done
}

@test "hamming, --match-read-wildcards and a second seed: every --filter = off" {
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" ends 1602 "$T"
    local o
    for o in "--mode hamming --all" "--mode hamming -k 1" "--mode hamming -e 0.1 --overlap 1" \
             "--match-read-wildcards --all" "--match-read-wildcards -k 2" "" "-k 3 --overlap 1 --all"; do
        # shellcheck disable=SC2086
        ends_equal h "$T/e.fq" "$T/e.fa" $o
        [ "$(stat "$T/h.pieces.json" ends_dropped)" -gt 0 ] || { echo "ends filter dropped nothing: $o"; return 1; }
    done
    # wildcard reads: the strands with an IUPAC letter in a window the rules
    # read are not filtered, so more items are kept than without wildcards
    ends_equal w "$T/e.fq" "$T/e.fa" --match-read-wildcards
    ends_equal x "$T/e.fq" "$T/e.fa"
    [ "$(stat "$T/w.pieces.json" ends_kept)" -gt "$(stat "$T/x.pieces.json" ends_kept)" ]
}

@test "--overlap full and the byte-free kernels: no ends filter; --stats and --verbosity 4 name it" {
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" ends 16 "$T"
    ends_equal f "$T/e.fq" "$T/e.fa" --overlap full --all
    [ "$(stat "$T/f.on.json" ends_kept)" -eq 0 ] && [ "$(stat "$T/f.on.json" ends_dropped)" -eq 0 ]
    [[ "$(stat "$T/f.on.json" filter_plan)" != *"ends ("* ]]
    # the per-pair kernels (dp, scan) have no filters: same bytes, nothing counted
    ends_equal d "$T/e.fq" "$T/e.fa" --kernel dp -k 1
    [ "$(stat "$T/d.on.json" ends_dropped)" -eq 0 ]
    scan --device cpu --stats "$T/a.json" -o /dev/null "$T/e.fq" "$T/e.fa"
    [[ "$(stat "$T/a.json" filter_plan)" == "auto: pieces (q 6-8) + index ("*") + ends ("*" targets, "*" keys)" ]]
    run --separate-stderr scan --device cpu --verbosity 4 --filter pieces -o /dev/null "$T/e.fq" "$T/e.fa"
    assert_success
    [[ "$stderr" == *"gpuasm-scan: info: filter pieces: pieces (q 6-8) + ends ("*" targets, "* ]]
    # GPUASM_CPU_ENDS_FILTER=0 (the benchmarks' "before"): the ends pass for every item, same bytes
    GPUASM_CPU_ENDS_FILTER=0 scan --device cpu --no-PG --filter on --stats "$T/n.json" "$T/e.fq" "$T/e.fa" > "$T/n.sam"
    scan --device cpu --no-PG --filter on "$T/e.fq" "$T/e.fa" > "$T/y.sam"
    cmp "$T/n.sam" "$T/y.sam"
    [ "$(stat "$T/n.json" ends_kept)" -eq 0 ] && [ "$(stat "$T/n.json" ends_dropped)" -eq 0 ]
    [[ "$(stat "$T/n.json" filter_plan)" != *"ends ("* ]]
    # auto leaves it out for a single target (GPUASM_EF_AUTO_MIN)
    sed -n 3,4p "$T/e.fa" > "$T/one.fa"
    ends_equal s "$T/e.fq" "$T/one.fa" --overlap 1
    [[ "$(stat "$T/s.auto.json" filter_plan)" != *"ends ("* ]]
    [[ "$(stat "$T/s.on.json" filter_plan)" == *" + ends (1 targets, "* ]]
}

@test "real data: the bbmap adapters vs illumina and Hm2 reads with the default --overlap 3: every --filter = off" {
    require_shared_data
    local D=$GPUASM_SHARED_DATA
    gzip -dc "$D/reads/trimgalore/illumina_10K.reads1-4000.fastq.gz" | head -n 4000 > "$T/ill.fq"
    gzip -dc "$D/reads/measles_sequana/Hm2_GTGAAA_L005_R1_001.fastq.gz" | head -n 2000 > "$T/hm2.fq"
    ends_equal ill "$T/ill.fq" "$D/adapters/bbmap_adapters.fa"
    [ "$(stat "$T/ill.auto.json" ends_dropped)" -gt "$(stat "$T/ill.auto.json" ends_kept)" ]
    ends_equal illb "$T/ill.fq" "$D/adapters/bbmap_adapters.fa" --best -e 0.2
    ends_equal hm2 "$T/hm2.fq" "$D/adapters/bbmap_adapters.fa" --all --overlap 1
    ends_equal hm2h "$T/hm2.fq" "$D/adapters/bbmap_adapters.fa" --mode hamming --best
    [ "$(stat "$T/hm2h.auto.json" ends_dropped)" -gt 0 ]
}
