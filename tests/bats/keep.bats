#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The keep rule (issue #28, "best-per-pair on the fly"; search/search.h,
# GPUASM_KEEP_REPORTED): without --all the backends return only the end
# hits the report can use, and the SAM must be the bytes of a run that
# keeps every hit (GPUASM_KEEP_ALL=1), on inputs with hundreds of hits a
# pair (a period-8 target, a satellite, poly-A, a primer several times a
# read: tests/bats/filter_data.py repeats) and on the filter tests' inputs;
# --stats' end_hits shows that the rule dropped hits, so equal bytes are
# not the trivial equality of two identical runs.  The CUDA backend runs
# the same rule over its sorted hits: tests/gpu/run checks its SAM.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
}

# keep_equal NAME READS TARGETS [OPTIONS...]: the default keep rule and
# GPUASM_KEEP_ALL=1 write the same SAM (1 and 2 threads), which has a hit;
# the --stats of each in $T/NAME.{rule,all}.json.
keep_equal() {
    local name=$1 reads=$2 targets=$3
    shift 3
    GPUASM_KEEP_ALL=1 scan --device cpu --no-PG --stats "$T/$name.all.json" "$@" "$reads" "$targets" \
        > "$T/$name.all.sam"
    [ "$(grep -vc '^@' "$T/$name.all.sam")" -gt 0 ] || { echo "no hits: $name $*"; return 1; }
    local t
    for t in 1 2; do
        scan --device cpu --no-PG -@ $t --stats "$T/$name.rule.json" "$@" "$reads" "$targets" > "$T/$name.rule.sam"
        cmp "$T/$name.all.sam" "$T/$name.rule.sam" || { echo "differs: -@ $t $name $*"; return 1; }
    done
}

@test "repeats (period 8, satellite, poly-A, primers several times a read): the keep rule writes the bytes of keeping every hit" {
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" repeats 28 "$T"
    local o kept all
    for o in "" "--best" "-k 3" "-k 12" "-e 0.05" "--filter off" "--strand forward" "--read-overlap full" \
             "--overlap 3" "--overlap full --best" "--mode hamming -k 2" "--mode hamming -k 6 --best" \
             "--eqx -e 0.15"; do
        # shellcheck disable=SC2086
        keep_equal r "$T/r.fq" "$T/r.fa" $o
        kept=$(stats_value "$T/r.rule.json" end_hits)
        all=$(stats_value "$T/r.all.json" end_hits)
        [ "$kept" -lt "$all" ] || { echo "no hit dropped ($kept of $all): $o"; return 1; }
    done
    # the period-8 target alone: most hits go (the rule keeps a window of
    # about 2 (m + k) columns a distance)
    kept=$(stats_value "$T/r.rule.json" end_hits)
    [ "$((kept * 2))" -lt "$all" ] || { echo "kept $kept of $all"; return 1; }
}

@test "--all keeps every hit: end_hits is the same with and without GPUASM_KEEP_ALL" {
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" repeats 29 "$T"
    keep_equal r "$T/r.fq" "$T/r.fa" --all
    [ "$(stats_value "$T/r.rule.json" end_hits)" -eq "$(stats_value "$T/r.all.json" end_hits)" ]
}

@test "the filter tests' inputs (genomes, primers, ends): the keep rule writes the bytes of keeping every hit" {
    local d o
    for d in genomes:g primers:p ends:e primer_ends:pe; do
        "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" "${d%%:*}" 7 "$T"
        for o in "" "--best" "-k 3" "--overlap 3"; do
            # shellcheck disable=SC2086
            keep_equal "${d##*:}" "$T/${d##*:}.fq" "$T/${d##*:}.fa" $o
        done
    done
}

@test "GPUASM_KEEP_ALL takes 0 or 1 only" {
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" repeats 30 "$T"
    GPUASM_KEEP_ALL=0 scan --device cpu --no-PG "$T/r.fq" "$T/r.fa" > "$T/a.sam"
    run env GPUASM_KEEP_ALL=2 "$GPUASM_SCAN" --device cpu "$T/r.fq" "$T/r.fa"
    assert_failure 1
    assert_output --partial "GPUASM_KEEP_ALL"
}

@test "repeats at every SIMD level: the read strands the index declines (text lanes with every block in the vector, local minima in the lanes) write the scalar twin's bytes" {
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" repeats 31 "$T"
    local o lv
    for o in "" "--all" "-k 8" "-e 0.05 --best" "--eqx -e 0.15"; do
        # shellcheck disable=SC2086
        GPUASM_CPU_SIMD=0 scan --device cpu --no-PG $o "$T/r.fq" "$T/r.fa" > "$T/scalar.sam"
        [ "$(grep -vc '^@' "$T/scalar.sam")" -gt 0 ]
        for lv in 1 2 3; do
            # shellcheck disable=SC2086
            GPUASM_CPU_SIMD=$lv scan --device cpu --no-PG -@ 2 --stats "$T/s.json" $o "$T/r.fq" "$T/r.fa" > "$T/lanes.sam"
            cmp "$T/scalar.sam" "$T/lanes.sam" || { echo "SIMD level $lv differs from scalar: $o"; return 1; }
        done
        # the index declined read strands (the path under test ran)
        [ "$(stats_value "$T/s.json" index_declined)" -gt 0 ] || { echo "no strand declined: $o"; return 1; }
    done
}
