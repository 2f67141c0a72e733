#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The GPU DTW peer of issue #15's benchmark (tests/bench/dtw_peers and the
# scripts around it), on what runs without a GPU: the report's rows and
# verdict from given lines, the SASS loop counter on a hand-written
# listing, and the clear failures where cuDTW++'s sources or the mirror are
# missing.  The GPU run itself is the lead's (tests/bench/signal --device cuda).

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    B=$GPUASM_TESTS_DIR/bench
    # gpuasm-signal's --stats of gpu-best: 4e12 cells in 1 s of kernel
    printf '{"device": "cuda", "reads": 1, "cells": 4e12, "kernel_s": 1.0, "wall_s": 2.0, "scan_s": 1.0}\n' \
        > "$T/gpu-best.json"
}

report() {
    "$PYTHON3" "$B/dtw_peers_report.py" "$T/gpu-best.json"
}

@test "dtw_peers_report: a measured cuDTW++ row, the verdict and its ratio" {
    run report <<'EOF'
dtw_peer_device	NVIDIA H100 80GB HBM3	132	1980000
dtw_peer	cuDTW++	shfl_FullDTW_2047	2047	65536	2.746e+11	2.749e+11	0.1373	2e+12	ok: 3 of 3 entries = CPU DTW (max rel err 1.0e-07)
dtw_peer	cuDTW++	sub_warp_DTW<32>	1023	262144	2.743e+11	2.749e+11	0.0549	5e+12	ok: 3 of 3 entries = CPU DTW (max rel err 1.0e-07)
EOF
    assert_success
    assert_line --partial "| cuDTW++ shfl_FullDTW_2047: full DTW, 1 query x 65536 entries, n = 2047, fp32 squared; kernel 0.1373 s; ok: 3 of 3"
    assert_line --partial "| cuda | 65536 entries | 2.746e+11 | 2e+12 | - |"
    assert_line "cuDTW++ ran on: NVIDIA H100 80GB HBM3, 132 SMs, 1980 MHz (cudaDevAttrClockRate)"
    assert_line --partial "faster than cuDTW++ on the same GPU: yes (2.00x: gpu-best 4e+12 cells/s vs cuDTW++ shfl_FullDTW_2047 2e+12"
    assert_line --partial "against cuDTW++'s fastest kernel in this call (sub_warp_DTW<32>, n = 1023, 5e+12 cells/s): no (0.80x)"
}

@test "dtw_peers_report: a peer that did not build gets a row without numbers and no verdict" {
    run report <<'EOF'
dtw_peer_skip	DTWax	not built: licence
dtw_peer_fail	cuDTW++	build	nvcc failed (dtw-peers.log: error | x)
EOF
    assert_success
    assert_line "| cuDTW++ (build): not measured: nvcc failed (dtw-peers.log: error / x) | cuda | - | - | - | - | - | - | - | - |"
    assert_line --partial "faster than cuDTW++ on the same GPU: not decided"
    assert_line "DTWax: not built: licence."
    refute_output --partial "yes ("
    refute_output --partial "no ("
}

@test "dtw_peers_report: a row whose check failed is shown but decides nothing" {
    run report <<'EOF'
dtw_peer	cuDTW++	shfl_FullDTW_2047	2047	65536	2.746e+11	2.749e+11	0.1373	2e+12	FAILED: 1 of 3 entries = CPU DTW (max rel err 4.0e-01)
EOF
    assert_success
    assert_line --partial "kernel 0.1373 s; FAILED: 1 of 3"
    assert_line --partial "faster than cuDTW++ on the same GPU: not decided (cuDTW++'s n = 2047 kernel was not measured with a passing check"
    refute_output --partial "fastest kernel"
}

@test "dtw_peers_report: no gpu-best stats, no verdict" {
    rm "$T/gpu-best.json"
    run report <<'EOF'
dtw_peer	cuDTW++	shfl_FullDTW_2047	2047	65536	2.746e+11	2.749e+11	0.1373	2e+12	ok: 3 of 3 entries = CPU DTW (max rel err 1.0e-07)
EOF
    assert_success
    assert_line "faster than cuDTW++ on the same GPU: not decided (no gpu-best kernel cells/s in this call)"
}

@test "sass_loop.py: the innermost loop with the cells' min instructions, per cell by class" {
    # an outer loop around an inner one of 2 cells; the outer one has the
    # same mins and more instructions, so the inner one is taken
    cat > "$T/k.sass" <<'EOF'
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   IADD3 R2, R2, 0x1, RZ ;
        /*0020*/                   FADD R4, -R10, R11 ;
        /*0030*/                   FMNMX R5, R6, R7, PT ;
        /*0040*/                   FMNMX R5, R5, R8, PT ;
        /*0050*/                   FFMA R6, R4, R4, R5 ;
        /*0060*/                   FADD R4, -R12, R11 ;
        /*0070*/                   FMNMX R5, R6, R9, PT ;
        /*0080*/                   FMNMX R5, R5, R8, PT ;
        /*0090*/                   FFMA R7, R4, R4, R5 ;
        /*00a0*/                   IMAD.MOV.U32 R8, RZ, RZ, R7 ;
        /*00b0*/                   SHFL.UP PT, R9, R7, 0x1, RZ ;
        /*00c0*/              @!P0 BRA 0x20 ;
        /*00d0*/                   ISETP.NE.AND P1, PT, R2, 0x10, PT ;
        /*00e0*/               @P1 BRA 0x10 ;
        /*00f0*/                   EXIT ;
EOF
    run "$PYTHON3" "$B/sass_loop.py" --label "toy" --cells 2 < "$T/k.sass"
    assert_success
    # 11 instructions (0x20..0xc0): 4 min, 4 arith, 1 mov, 2 other (SHFL, BRA)
    assert_output --regexp "^sass_loop	toy	11	2	5.50	2.00	2.00	0.50	1.00	FMNMX 4, FADD 2, FFMA 2, "
    run "$PYTHON3" "$B/sass_loop.py" --label "none" --cells 2 < /dev/null
    assert_failure
    assert_output --partial "no SASS on stdin"
}

@test "dtw_peers: without cuDTW++'s sources, a line says so and nothing is measured" {
    CUDTW_SRC=$T/nowhere run --separate-stderr "$B/dtw_peers" --out "$T/o"
    assert_success
    assert_line --index 0 --partial "dtw_peer_skip	DTWax	not built: its sources carry LicenseRef-NvidiaProprietary"
    assert_line --index 1 "dtw_peer_fail	cuDTW++	build	no sources in $T/nowhere (run tests/bench/get_dtw_peers on the development machine and carry .peers)"
    refute_output --partial "dtw_peer	"
}

@test "get_dtw_peers: no mirror of cuDTW++, a clear error and exit 1" {
    run --separate-stderr "$B/get_dtw_peers" "$T/no-mirror"
    assert_failure 1
    assert_equal "$stderr" "tests/bench/get_dtw_peers: no mirror of asbschmidt/cuDTW under $T/no-mirror (fetch github:asbschmidt/cuDTW first)"
}

@test "cudtw_emulate: cuDTW++'s kernels, run on the host lane by lane, give dtw_full.h's distances" {
    local inc=$GPUASM_TESTS_DIR/../.peers/src/cuDTW/src/include
    [ -f "$inc/kernels/SHFL_FULLDTW_2047.cuh" ] ||
        skip "no cuDTW++ sources in .peers (tests/bench/get_dtw_peers extracts them)"
    command -v g++ >/dev/null 2>&1 || skip "no g++"
    g++ -std=c++20 -O1 -I "$inc" -I "$B" -o "$T/emu" "$B/cudtw_emulate.cpp" -pthread
    local a
    for a in 127 255 511 1023 2047 "127 s" "255 s" "511 s" "1023 s"; do
        # shellcheck disable=SC2086
        run "$T/emu" $a
        assert_success
        refute_output --partial "rel nan"
    done
    # the subwarp kernel of n = 127 packs 8 entries in a warp: 2 warps, 16 lines
    run "$T/emu" 127 s
    assert_equal "${#lines[@]}" 16
    run "$T/emu" 2046
    assert_failure 2
}
