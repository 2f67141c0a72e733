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
    filter_equal illb "$T/ill.fq" "$D/adapters/bbmap_adapters.fa" --best -e 0.2
    filter_equal hm2 "$T/hm2.fq" "$D/adapters/bbmap_adapters.fa" --all --overlap 1
    filter_equal hm2h "$T/hm2.fq" "$D/adapters/bbmap_adapters.fa" --mode hamming --best
    [ "$(stats_value "$T/hm2h.auto.json" ends_skipped)" -gt 0 ]
}
