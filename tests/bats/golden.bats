#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The bundled sample (test-data/): golden SAM, and the sample itself.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
}

@test "golden SAM: --device cpu --no-PG on test-data/ equals sample.expected.sam" {
    scan --device cpu --no-PG "$READS" "$TARGETS" > "$T/out.sam"
    diff -u "$EXPECTED_SAM" "$T/out.sam"
}

@test "golden SAM with --device auto and @PG (ignoring @PG)" {
    scan "$READS" "$TARGETS" > "$T/out.sam" 2>/dev/null
    grep -q '^@PG' "$T/out.sam"
    diff -u "$EXPECTED_SAM" <(no_pg "$T/out.sam")
}

@test "golden SAM agrees with an independent naive DP (tests/data/naive_check.py)" {
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/naive_check.py" "$READS" "$TARGETS" "$EXPECTED_SAM"
    assert_success
    assert_output --regexp 'naive_check: 42 reads x 3 targets, [0-9]+ hits, all agree'
}

@test "the sample has what test-data/README.md says" {
    assert_equal "$(grep -c '^>' "$TARGETS")" 3
    assert_equal "$(awk 'NR % 4 == 1' "$READS" | wc -l)" 42
    run awk 'NR % 4 == 2 && /N/' "$READS"
    assert_equal "${#lines[@]}" 1
    grep -q '[a-z]' "$TARGETS"
    grep -v '^>' "$TARGETS" | grep -q '[RYSWKMBDHVN]'
}

@test "test-data/make-sample regenerates the committed sample byte for byte" {
    "$PYTHON3" "$TEST_DATA/make-sample" "$T" 2>/dev/null
    cmp "$T/targets.fa" "$TARGETS"
    cmp "$T/reads.fq" "$READS"
}

@test "--overlap 3 keeps the 0.1 release's occurrences (sample.v0.1.sam): only their order, AS, XS and XE are new" {
    scan --device cpu --no-PG --overlap 3 "$READS" "$TARGETS" > "$T/o3.sam"
    "$PYTHON3" "$GPUASM_TESTS_DIR/data/occurrences.py" "$TEST_DATA/sample.v0.1.sam" > "$T/old.txt"
    "$PYTHON3" "$GPUASM_TESTS_DIR/data/occurrences.py" "$T/o3.sam" > "$T/new.txt"
    [ -s "$T/old.txt" ]
    diff -u "$T/old.txt" "$T/new.txt"
    # the new rules: each read's records best first by AS = aligned - 2 x distance
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/naive_check.py" --overlap 3 "$READS" "$TARGETS" "$T/o3.sam"
    assert_success
}
