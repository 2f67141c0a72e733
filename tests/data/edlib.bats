#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Real data: edlib's own test pairs (mutated copies of E. coli prefixes, of
# mason reads and of a 94 kb phage) give edlib's infix (HW) distances
# through gpuasm-scan, and the alignments behind them re-walk to those
# distances (tests/data/edlib_check.py says how).  Issue #11.

setup() {
    load ../bats/helpers
    require_shared_data
    E=$GPUASM_SHARED_DATA/edlib
}

@test "edlib E. coli prefixes (50 bp - 10 kb, 60-99% identity): 35 HW distances, alignments re-walk" {
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/edlib_check.py" "$GPUASM_SCAN" "$E" prefixes
    assert_success
    assert_output --partial "35 of 35 pairs agree with edlib"
}

@test "edlib mason reads (50-500 bp, 60-97% identity): 24 HW distances, alignments re-walk" {
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/edlib_check.py" "$GPUASM_SCAN" "$E" mason
    assert_success
    assert_output --partial "24 of 24 pairs agree with edlib"
}

@test "edlib phage pairs (94 kb, 60-99% identity): edlib's HW distances, alignments re-walk" {
    py=$(edlib_python) || skip "no Python with the edlib module (Debian: python3-edlib)"
    run "$py" "$GPUASM_TESTS_DIR/data/edlib_check.py" "$GPUASM_SCAN" "$E" phage 2
    assert_success
    assert_output --partial "7 of 7 pairs agree with edlib"
}
