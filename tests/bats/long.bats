#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Long sequences (issue #11): pairs made as edlib's test data is made (a
# random sequence and a copy with 1% random edits: tests/data/make_long.py
# pair) give edlib's infix (HW) distance through gpuasm-scan, with an
# alignment that re-walks to it (tests/data/edlib_check.py).  The 1 Mb pair
# takes about a minute of CPU for each side: it runs when GPUASM_TEST_1MB
# is set (tests/bench/long runs it too).

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    MAKE_LONG=$GPUASM_TESTS_DIR/data/make_long.py
}

pair_vs_edlib() {
    local len=$1 seed=$2
    py=$(edlib_python) || skip "no Python with the edlib module (Debian: python3-edlib)"
    "$PYTHON3" "$MAKE_LONG" pair "$len" 0.01 "$seed" "$T/orig.fa" "$T/mut.fa"
    run "$py" "$GPUASM_TESTS_DIR/data/edlib_check.py" "$GPUASM_SCAN" "$T" "pair:$T/orig.fa,$T/mut.fa"
    assert_success
    assert_output --partial "1 of 1 pairs agree with edlib"
}

@test "100 kb pair with 1% edits: edlib's HW distance, alignment re-walks" {
    pair_vs_edlib 100000 101
}

@test "1 Mb pair with 1% edits: edlib's HW distance, alignment re-walks (GPUASM_TEST_1MB)" {
    [ -n "${GPUASM_TEST_1MB:-}" ] || skip "set GPUASM_TEST_1MB=1 (about 90 s on 2 cores)"
    pair_vs_edlib 1000000 11
}

@test "make_long.py is seeded: the same arguments give the same bytes" {
    "$PYTHON3" "$MAKE_LONG" pair 5000 0.05 7 "$T/a1.fa" "$T/b1.fa"
    "$PYTHON3" "$MAKE_LONG" pair 5000 0.05 7 "$T/a2.fa" "$T/b2.fa"
    cmp "$T/a1.fa" "$T/a2.fa"
    cmp "$T/b1.fa" "$T/b2.fa"
    "$PYTHON3" "$MAKE_LONG" reads "$TARGETS" 6 400 0.05 0.15 3 "$T/r1.fq"
    "$PYTHON3" "$MAKE_LONG" reads "$TARGETS" 6 400 0.05 0.15 3 "$T/r2.fq"
    cmp "$T/r1.fq" "$T/r2.fq"
    run grep -c '^@' "$T/r1.fq"
    assert_output 6
}
