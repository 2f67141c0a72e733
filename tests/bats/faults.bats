#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Faults around a run (issue #12): a full disk (ENOSPC), a reader that goes
# away (EPIPE), no GPU for --device cuda.  Each for every output format and
# with and without threads, each under `timeout` (no hang).  Signals:
# tests/bats/hostile.bats; CUDA out of memory: tests/gpu/run (GPU only).

setup() {
    load helpers
    load bad_inputs
    T=$BATS_TEST_TMPDIR
    make_big_fq 100 "$T/big.fq"
    # htslib's BGZF writer returns from bgzf_close() on a failed write
    # without freeing its handle: a leak inside htslib, after which the run
    # ends (util/write_guard.h), not what an ASan build tests here.
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
}

teardown() {
    if [ -n "${MNT:-}" ] && mountpoint -q "$MNT" 2>/dev/null; then umount "$MNT" || true; fi
}

@test "ENOSPC on /dev/full: SAM, BAM, CRAM, SAM.gz, -@ 1 and -@ 3: exit 1, 'No space left on device', no hang" {
    for fmt in sam bam cram sam.gz; do
        for t in 1 3; do
            run --separate-stderr timeout 60 "$GPUASM_SCAN" --device cpu -@ "$t" -O "$fmt" --unmatched \
                -o /dev/full "$T/big.fq" "$TARGETS"
            [ "$status" -ne 124 ] || { echo "hung: -O $fmt -@ $t" >&2; return 1; }
            assert_one_error "/dev/full" "No space left on device"
        done
    done
}

@test "ENOSPC on a full file system (a 64 KiB tmpfs): exit 1, nothing left there, an earlier result kept" {
    [ "$(id -u)" = 0 ] || skip "mounting a tmpfs needs root"
    MNT=$T/mnt
    mkdir "$MNT"
    mount -t tmpfs -o size=64k tmpfs "$MNT" 2>/dev/null || { MNT=; skip "cannot mount a tmpfs here"; }
    make_big_fq 400 "$T/big.fq"   # 16,800 reads: every format's output passes 64 KiB (CRAM: 120 KiB)
    echo "an earlier result" > "$MNT/out.x"
    for fmt in sam bam cram sam.gz; do
        for t in 1 3; do
            run --separate-stderr timeout 60 "$GPUASM_SCAN" --device cpu -@ "$t" -O "$fmt" --unmatched \
                -o "$MNT/out.x" "$T/big.fq" "$TARGETS"
            [ "$status" -ne 124 ] || { echo "hung: -O $fmt -@ $t" >&2; return 1; }
            assert_one_error "$MNT/out.x" "No space left on device"
            assert_equal "$(ls -A "$MNT")" "out.x"
            assert_equal "$(cat "$MNT/out.x")" "an earlier result"
        done
    done
}

# Run gpuasm-scan -@ T -O FMT into `head -c 100`, SIGPIPE as $1 leaves it
# ("" default, "ignore" ignored), stderr to $T/err.txt; prints its status.
into_head() {
    local pipe=$1 t=$2 fmt=$3
    timeout 60 bash -c '[ "$0" = ignore ] && trap "" PIPE
        "$1" --device cpu -@ "$2" -O "$3" --unmatched "$4" "$5" 2> "$6" | head -c 100 > /dev/null
        echo "${PIPESTATUS[0]}"' "$pipe" "$GPUASM_SCAN" "$t" "$fmt" "$T/big.fq" "$TARGETS" "$T/err.txt"
}

@test "EPIPE, SIGPIPE at its default (| head): killed by SIGPIPE (141), at once, for every format and thread count" {
    for fmt in sam bam sam.gz; do
        for t in 1 3; do
            run into_head "" "$t" "$fmt"
            assert_success
            assert_output 141
        done
    done
}

@test "EPIPE, SIGPIPE ignored: exit 1, 'standard output: write failed: Broken pipe', no hang (htslib's threaded SAM writer used to hang here)" {
    for fmt in sam bam sam.gz; do
        for t in 1 3; do
            run into_head ignore "$t" "$fmt"
            assert_success
            assert_output 1
            [[ "$(tail -n 1 "$T/err.txt")" == "gpuasm-scan: standard output: "*"Broken pipe" ]] ||
                { cat "$T/err.txt" >&2; return 1; }
        done
    done
}

@test "--device cuda without a usable GPU: exit 1, one line saying so, no output" {
    have_gpu && skip "a GPU is here (tests/gpu/run checks CUDA)"
    run --separate-stderr "$GPUASM_SCAN" --device cuda -o "$T/o.sam" "$READS" "$TARGETS"
    assert_only_error "--device cuda:"
    [[ "${stderr_lines[-1]}" == *"no CUDA device found"* || "${stderr_lines[-1]}" == *"built without CUDA"* ]]
    [ ! -e "$T/o.sam" ]
    # --device auto falls back to the CPU and says so only at --verbosity 4
    # (GPUASM_AUTO_CPU_CELLS=0: it tries CUDA however small the input)
    GPUASM_AUTO_CPU_CELLS=0 run --separate-stderr "$GPUASM_SCAN" --device auto --verbosity 4 "$READS" "$TARGETS"
    assert_success
    [[ "$stderr" == *"using the CPU"* ]]
}
