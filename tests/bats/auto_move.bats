#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# --device auto's move from the CPU to CUDA (cli/auto_move.h, issue #14):
# the same bytes as --device cpu wherever the move falls (the first, a
# middle or the last CPU call, at a batch's start or inside it), with
# pairs, the screening outputs and rounds; a run that ends before the
# engine is ready neither waits for it nor loses output.  No GPU needed:
# GPUASM_AUTO_TEST_MOVE=N moves to a second CPU engine at exactly the Nth
# CPU scan call, and GPUASM_AUTO_CHUNK_BASES makes those calls small.
# --device cuda's CPU start (issue #30) is the same move without the
# fallback: CUDA must open, and nothing is written until it has (the
# GPU suite's own runs set GPUASM_CUDA_CPU_START=0 so that CUDA scans every
# read it compares).

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    # The move is armed only for inputs above the small-input bound.
    export GPUASM_AUTO_CPU_CELLS=0
}

# The sample 8 times over, each copy's names made unique (336 reads).
make_big() {
    local k
    for k in 1 2 3 4 5 6 7 8; do
        awk -v k="$k" 'NR % 4 == 1 { print $1 "_" k; next } { print }' "$READS"
    done > "$T/big.fq"
}

# Run auto with the test move at CPU call $1, chunks of $2 bases, the rest
# of the arguments as options and inputs; the SAM in $T/auto.sam, --stats
# in $T/auto.json.
auto_run() {
    local at=$1 chunk=$2
    shift 2
    GPUASM_AUTO_TEST_MOVE=$at GPUASM_AUTO_CHUNK_BASES=$chunk \
        scan --device auto --no-PG --stats "$T/auto.json" -o "$T/auto.sam" "$@"
}

# The reads on each side add up to the input; with a move, exactly `at`
# CPU calls before it.
check_sides() {
    local at=$1 reads=$2 cpu moved
    cpu=$(stat_of "$T/auto.json" auto_cpu_reads)
    moved=$(stat_of "$T/auto.json" auto_moved_reads)
    assert_equal "$((cpu + moved))" "$reads"
    assert_equal "$(stat_of "$T/auto.json" reads)" "$reads"
    if [ "$moved" -gt 0 ]; then
        assert_equal "$(stat_of "$T/auto.json" auto_cpu_scans)" "$at"
        [[ "$(stat_of "$T/auto.json" device)" == "cpu ("*") then cpu ("* ]]
    fi
}

@test "a read too big for the CPU start waits for the engine moved to (GPUASM_AUTO_HUGE_CELLS): all on it, the bytes of --device cpu" {
    make_big
    scan --device cpu --no-PG "$T/big.fq" "$TARGETS" > "$T/cpu.sam"
    # one read a call, the test move never reached by the count: every
    # read is "huge", so the first waits for the stand-in and runs there
    GPUASM_AUTO_HUGE_CELLS=1 auto_run 1000000 1 "$T/big.fq" "$TARGETS"
    cmp "$T/cpu.sam" "$T/auto.sam"
    assert_equal "$(stat_of "$T/auto.json" auto_cpu_reads)" 0
    assert_equal "$(stat_of "$T/auto.json" auto_moved_reads)" 336
    # under the bound: every read on the CPU (the move never comes)
    GPUASM_AUTO_HUGE_CELLS=1000000000000000 auto_run 1000000 1 "$T/big.fq" "$TARGETS"
    cmp "$T/cpu.sam" "$T/auto.sam"
    assert_equal "$(stat_of "$T/auto.json" auto_moved_reads)" 0
    assert_equal "$(stat_of "$T/auto.json" auto_cpu_reads)" 336
}

@test "the move at the first, a middle and the last CPU call, in one batch or many: the bytes of --device cpu" {
    make_big
    local n=336 bs at moves=0
    scan --device cpu --no-PG "$T/big.fq" "$TARGETS" > "$T/cpu.sam"
    [ "$(records "$T/cpu.sam" | wc -l)" -gt 100 ]
    for bs in default 2000; do
        local opt=()
        [ "$bs" = default ] || opt=(--batch-size "$bs")
        # 300-base calls: two or three reads each, so moves fall inside batches.
        for at in 1 2 7 40 1000000; do
            auto_run "$at" 300 "${opt[@]}" "$T/big.fq" "$TARGETS"
            cmp "$T/cpu.sam" "$T/auto.sam" || { echo "batch $bs, move at call $at differs" >&2; return 1; }
            check_sides "$at" "$n"
            [ "$(stat_of "$T/auto.json" auto_moved_reads)" -eq 0 ] || moves=$((moves + 1))
        done
    done
    # Every move but the never-reached one happened.
    assert_equal "$moves" 8
    # One batch of 336 reads cut by a move at call 7: begun on the CPU,
    # most of its reads on the engine moved to.
    auto_run 7 300 "$T/big.fq" "$TARGETS"
    assert_equal "$(stat_of "$T/auto.json" auto_move_batch)" 0
    assert_equal "$(stat_of "$T/auto.json" auto_cpu_batches)" 1
    assert_equal "$(stat_of "$T/auto.json" auto_moved_batches)" 0
    [ "$(stat_of "$T/auto.json" auto_moved_reads)" -gt 300 ]
    # 18 batches of one call each: the move at batch 7's start.
    auto_run 7 1000000 --batch-size 2000 "$T/big.fq" "$TARGETS"
    cmp "$T/cpu.sam" "$T/auto.sam"
    assert_equal "$(stat_of "$T/auto.json" batches)" 18
    assert_equal "$(stat_of "$T/auto.json" auto_move_batch)" 7
    assert_equal "$(stat_of "$T/auto.json" auto_cpu_batches)" 7
    assert_equal "$(stat_of "$T/auto.json" auto_moved_batches)" 11
}

@test "back to the CPU after the move (the engine moved to being slower: GPUASM_AUTO_TEST_BACK): the bytes of --device cpu" {
    make_big
    scan --device cpu --no-PG "$T/big.fq" "$TARGETS" > "$T/cpu.sam"
    # 18 batches of one call each: the move at batch 3, back after 2 calls there.
    GPUASM_AUTO_TEST_BACK=2 auto_run 3 1000000 --batch-size 2000 --verbosity 4 "$T/big.fq" "$TARGETS" 2> "$T/err"
    cmp "$T/cpu.sam" "$T/auto.sam"
    assert_equal "$(stat_of "$T/auto.json" auto_moved_scans)" 2
    assert_equal "$(stat_of "$T/auto.json" auto_cpu_scans)" 16
    assert_equal "$(stat_of "$T/auto.json" auto_cpu_reads)" "$(( 336 - $(stat_of "$T/auto.json" auto_moved_reads) ))"
    [ "$(stat_of "$T/auto.json" auto_back_s)" != None ]
    grep -q "^gpuasm-scan: info: --device auto: back to the CPU after .* s (GPUASM_AUTO_TEST_BACK)$" "$T/err"
    # GPUASM_AUTO_BACK=0: no way back
    GPUASM_AUTO_BACK=0 GPUASM_AUTO_TEST_BACK=2 auto_run 3 1000000 --batch-size 2000 "$T/big.fq" "$TARGETS"
    cmp "$T/cpu.sam" "$T/auto.sam"
    assert_equal "$(stat_of "$T/auto.json" auto_moved_scans)" 15
    assert_equal "$(stat_of "$T/auto.json" auto_back_s)" None
    # the stand-in (as fast as the CPU) is never left without a knob
    auto_run 3 1000000 --batch-size 2000 "$T/big.fq" "$TARGETS"
    assert_equal "$(stat_of "$T/auto.json" auto_moved_scans)" 15
    # GPUASM_AUTO_BACK=1 with the stand-in, GPUASM_AUTO_BACK_MS=0: after
    # two calls on it, one round on the CPU (the probe) decides; either
    # way the bytes of --device cpu
    GPUASM_AUTO_BACK=1 GPUASM_AUTO_BACK_MS=0 auto_run 3 1000000 --batch-size 2000 --verbosity 4 "$T/big.fq" \
        "$TARGETS" 2> "$T/err"
    cmp "$T/cpu.sam" "$T/auto.sam"
    grep -q "^gpuasm-scan: info: --device auto: .* scanned .* bases a second, the CPU .* on a round of its own: \(back to the CPU\|stayed\)$" "$T/err"
}

@test "the move with pairs, --matched, --unmatched-reads and --report: every output as with --device cpu" {
    make_pair_files
    local o
    for dev in cpu auto; do
        o=(--no-PG --unmatched --report "$T/$dev.tsv" --matched "$T/$dev.m1.fq" --matched2 "$T/$dev.m2.fq"
           --unmatched-reads "$T/$dev.u1.fq" --unmatched-reads2 "$T/$dev.u2.fq"
           --stats "$T/$dev.json" -o "$T/$dev.sam" "$T/r1.fq" "$T/r2.fq" "$TARGETS")
        if [ "$dev" = cpu ]; then
            scan --device cpu "${o[@]}"
        else
            GPUASM_AUTO_TEST_MOVE=5 GPUASM_AUTO_CHUNK_BASES=200 scan --device auto --batch-size 1500 "${o[@]}"
        fi
    done
    for f in sam tsv m1.fq m2.fq u1.fq u2.fq; do
        cmp "$T/cpu.$f" "$T/auto.$f" || { echo "$f differs" >&2; return 1; }
    done
    [ "$(stat_of "$T/auto.json" auto_moved_reads)" -gt 0 ]
    assert_equal "$(stat_of "$T/auto.json" auto_cpu_scans)" 5
    [ -s "$T/cpu.m1.fq" ] && [ -s "$T/cpu.u1.fq" ]
    assert_equal "$(stat_of "$T/auto.json" reads)" 84
}

@test "the move in the middle of hit-dense rounds (the memory bound): the bytes of --device cpu" {
    periodic_case 400
    scan --device cpu --no-PG --all --max-memory 16M --stats "$T/c.json" "$T/periodic.fq" "$T/periodic.fa" > "$T/cpu.sam"
    local at
    for at in 3 30; do
        auto_run "$at" 1000 --all --max-memory 16M "$T/periodic.fq" "$T/periodic.fa"
        cmp "$T/cpu.sam" "$T/auto.sam"
        [ "$(stat_of "$T/auto.json" rounds)" -gt "$(stat_of "$T/auto.json" batches)" ]
        [ "$(stat_of "$T/auto.json" auto_moved_reads)" -gt 0 ]
        check_sides "$at" 400
        # the CPU calls and the stand-in keep the reads a call did at the budget
        assert_equal "$(stat_of "$T/auto.json" rescans)" 0
    done
    # no move: rounds cut into CPU calls, each ending the round where its
    # hits meet the budget, count each read once
    auto_run 1000000 1000 --all --max-memory 16M "$T/periodic.fq" "$T/periodic.fa"
    cmp "$T/cpu.sam" "$T/auto.sam"
    assert_equal "$(stat_of "$T/auto.json" auto_cpu_reads)" 400
    assert_equal "$(stat_of "$T/auto.json" rescans)" 0
}

@test "the move in the middle of rounds of pairs cut at the hit budget: whole pairs, each read counted once, the bytes of --device cpu" {
    # blocks of 25 pairs from one 2 kb sequence (60 near copies are the
    # targets: ~60 hits a read) and 25 random ones, as hostile.bats' case
    pairs_vs_copies_case
    scan --device cpu --no-PG --max-memory 1T -o "$T/cpu.sam" -1 "$T/r1.fq" -2 "$T/r2.fq" "$T/copies.fa"
    local at chunk
    for chunk in 700 100000; do   # CPU calls of ~7 reads, or whole rounds
        for at in 2 40 1000000; do
            auto_run "$at" "$chunk" --max-memory 16M -1 "$T/r1.fq" -2 "$T/r2.fq" "$T/copies.fa"
            cmp "$T/cpu.sam" "$T/auto.sam"
            [ "$(stat_of "$T/auto.json" rounds)" -gt $(( $(stat_of "$T/auto.json" batches) + 10 )) ]
            assert_equal "$(stat_of "$T/auto.json" rescans)" 0
            check_sides "$at" 800
        done
    done
}

@test "an input that ends before the engine is ready: no wait for it, every output whole, a note at --verbosity 4" {
    make_big
    scan --device cpu --no-PG "$T/big.fq" "$TARGETS" > "$T/cpu.sam"
    # The engine would open after 60 s; the run must not wait (timeout 30:
    # it takes well under a second).  SAM on standard output (flushed before
    # the process ends without waiting for that thread), --stats to a file.
    GPUASM_AUTO_TEST_MOVE=1 GPUASM_AUTO_TEST_DELAY_MS=60000 run --separate-stderr \
        timeout 30 "$GPUASM_SCAN" --device auto --no-PG --verbosity 4 --stats "$T/s.json" "$T/big.fq" "$TARGETS"
    assert_success
    cmp "$T/cpu.sam" <(printf '%s\n' "$output")
    assert_equal "$(stat_of "$T/s.json" auto_to)" "not ready"
    assert_equal "$(stat_of "$T/s.json" auto_cpu_reads)" 336
    assert_equal "$(stat_of "$T/s.json" auto_ready_s)" None
    grep -q "^gpuasm-scan: info: --device auto: the input ended (.* s) before the test engine (GPUASM_AUTO_TEST_MOVE) was ready; using the CPU$" <<<"$stderr"
    # -o FILE the same way.
    GPUASM_AUTO_TEST_MOVE=1 GPUASM_AUTO_TEST_DELAY_MS=60000 timeout 30 \
        "$GPUASM_SCAN" --device auto --no-PG -o "$T/o.sam" "$T/big.fq" "$TARGETS"
    cmp "$T/cpu.sam" "$T/o.sam"
}

@test "GPUASM_AUTO_MOVE=0: auto waits for its engine as before (no auto_ keys in --stats); bad values of the knobs are errors" {
    GPUASM_AUTO_MOVE=0 GPUASM_AUTO_TEST_MOVE=1 scan --device auto --no-PG --stats "$T/s.json" "$READS" "$TARGETS" > "$T/a.sam"
    cmp <(no_pg "$EXPECTED_SAM") "$T/a.sam"
    ! grep -q '"auto_' "$T/s.json"
    # Small inputs never arm the move (the CPU alone, as before).
    GPUASM_AUTO_CPU_CELLS=1000000000000 GPUASM_AUTO_TEST_MOVE=1 scan --device auto --stats "$T/s.json" "$READS" "$TARGETS" > /dev/null
    ! grep -q '"auto_' "$T/s.json"
    local k
    for k in GPUASM_AUTO_MOVE=2 GPUASM_AUTO_CHUNK_BASES=0 GPUASM_AUTO_TEST_MOVE=x GPUASM_AUTO_TEST_DELAY_MS=600001 \
             GPUASM_AUTO_BACK=2 GPUASM_AUTO_TEST_BACK=x GPUASM_AUTO_BACK_MS=-1; do
        run --separate-stderr env "$k" "$GPUASM_SCAN" --device auto -o "$T/x.sam" "$READS" "$TARGETS"
        assert_one_error "${k%%=*}="
        [ ! -e "$T/x.sam" ]
    done
}

@test "GPUASM_AUTO_GO_MS: the engine starts only once the input proves large; a small input never starts it; same bytes" {
    make_big
    scan --device cpu --no-PG "$T/big.fq" "$TARGETS" > "$T/cpu.sam"
    # Never large enough (100 s of CPU): nothing started, every read on the CPU
    GPUASM_AUTO_GO_MS=100000 auto_run 2 500 --verbosity 4 "$T/big.fq" "$TARGETS" 2> "$T/err"
    cmp "$T/cpu.sam" "$T/auto.sam"
    [ "$(stat_of "$T/auto.json" auto_to)" = "not started (the input ended before it proved large)" ]
    [ "$(stat_of "$T/auto.json" auto_moved_reads)" -eq 0 ]
    [ "$(stat_of "$T/auto.json" auto_cpu_reads)" -eq 336 ]
    [ "$(stat_of "$T/auto.json" auto_ready_s)" = None ]
    grep -q "before it proved large enough to start the test engine (GPUASM_AUTO_TEST_MOVE) (GPUASM_AUTO_GO_MS); using the CPU" "$T/err"
    # 1 ms: large after the first CPU call; the move follows at call 2
    GPUASM_AUTO_GO_MS=1 auto_run 2 500 "$T/big.fq" "$TARGETS"
    cmp "$T/cpu.sam" "$T/auto.sam"
    check_sides 2 336
    [ "$(stat_of "$T/auto.json" auto_moved_reads)" -gt 0 ]
    # From standard input (size unknown): started once the CPU has spent
    # the time, never before; the bytes as ever
    GPUASM_AUTO_TEST_MOVE=2 GPUASM_AUTO_CHUNK_BASES=500 GPUASM_AUTO_GO_MS=100000 \
        scan --device auto --no-PG --stats "$T/auto.json" -o "$T/auto.sam" - "$TARGETS" < "$T/big.fq"
    cmp "$T/cpu.sam" "$T/auto.sam"
    [ "$(stat_of "$T/auto.json" auto_moved_reads)" -eq 0 ]
    run --separate-stderr env GPUASM_AUTO_GO_MS=-1 "$GPUASM_SCAN" --device auto "$READS" "$TARGETS"
    assert_failure
    [[ "$stderr" == *"GPUASM_AUTO_GO_MS"* ]]
}

# ---- --device cuda's CPU start (issue #30) -----------------------------------

@test "--device cuda's CPU start: the move at any CPU call gives the bytes of --device cpu; --stats and --verbosity 4 say where the reads ran" {
    make_big
    scan --device cpu --no-PG "$T/big.fq" "$TARGETS" > "$T/cpu.sam"
    local at
    for at in 1 3 1000000; do
        GPUASM_AUTO_TEST_MOVE=$at GPUASM_AUTO_CHUNK_BASES=300 \
            scan --device cuda --no-PG --verbosity 4 --stats "$T/auto.json" "$T/big.fq" "$TARGETS" > "$T/auto.sam" 2> "$T/err"
        cmp "$T/cpu.sam" "$T/auto.sam"
        check_sides "$at" 336
        if [ "$at" = 1000000 ]; then
            # Every read on the CPU: CUDA (the stand-in) was still waited for.
            grep -q "^gpuasm-scan: info: --device cuda: the input ended before the test engine (GPUASM_AUTO_TEST_MOVE) was ready (after .* s); every read ran on the CPU$" "$T/err"
        else
            [ "$(stat_of "$T/auto.json" auto_moved_reads)" -gt 0 ]
            grep -q "^gpuasm-scan: info: --device cuda: .* reads (.* batches) on the CPU, then .* reads (.* batches) on cpu" "$T/err"
        fi
    done
    # An empty input: the header alone, as on the CPU.
    : > "$T/empty.fq"
    scan --device cpu --no-PG "$T/empty.fq" "$TARGETS" > "$T/cpu0.sam"
    GPUASM_AUTO_TEST_MOVE=1 scan --device cuda --no-PG "$T/empty.fq" "$TARGETS" > "$T/auto0.sam"
    cmp "$T/cpu0.sam" "$T/auto0.sam"
    grep -q '^@SQ' "$T/auto0.sam"
}

@test "--device cuda's CPU start, CUDA failing after the CPU has scanned every read: exit 1, CUDA's message, nothing written" {
    have_gpu && skip "a GPU is here (the failure needs a machine without one)"
    make_big
    # The open starts 400 ms late and then fails: the CPU has read, scanned
    # and reported every read by then, and the writer holds it all back.
    local out
    for out in - "$T/o.sam" "$T/o.bam"; do
        GPUASM_AUTO_TEST_DELAY_MS=400 run --separate-stderr "$GPUASM_SCAN" --device cuda -o "$out" "$T/big.fq" "$TARGETS"
        assert_only_error "--device cuda:"
        [[ "$stderr" == *"no CUDA device found"* || "$stderr" == *"built without CUDA"* ]]
        assert_equal "$output" ""
        [ "$out" = - ] || [ ! -e "$out" ]
    done
    # Reads that cannot be opened: CUDA's failure is still the one told.
    # (htslib's own [E::] line about the file comes first, as before.)
    GPUASM_AUTO_TEST_DELAY_MS=200 run --separate-stderr "$GPUASM_SCAN" --device cuda "$T/none.fq" "$TARGETS"
    assert_one_error "--device cuda:"
    # A bad record: the same.
    printf '@r1\nACGT\n+\nII\n' > "$T/bad.fq"
    GPUASM_AUTO_TEST_DELAY_MS=200 run --separate-stderr "$GPUASM_SCAN" --device cuda "$T/bad.fq" "$TARGETS"
    assert_only_error "--device cuda:"
    assert_equal "$output" ""
}

@test "GPUASM_CUDA_CPU_START=0: --device cuda opens CUDA before the first scan, as before; bad values are errors" {
    # The stand-in is not used: the real open (no GPU here) fails at once.
    have_gpu || {
        GPUASM_CUDA_CPU_START=0 GPUASM_AUTO_TEST_MOVE=1 run --separate-stderr "$GPUASM_SCAN" --device cuda "$READS" "$TARGETS"
        assert_only_error "--device cuda:"
    }
    # With it on (the default), the stand-in takes CUDA's place.
    GPUASM_AUTO_TEST_MOVE=1 scan --device cuda --no-PG --stats "$T/s.json" "$READS" "$TARGETS" > "$T/a.sam"
    cmp <(no_pg "$EXPECTED_SAM") "$T/a.sam"
    grep -q '"auto_cpu_reads"' "$T/s.json"
    local k
    for k in GPUASM_CUDA_CPU_START=2 GPUASM_CUDA_CPU_START=x; do
        run --separate-stderr env "$k" "$GPUASM_SCAN" --device cuda -o "$T/x.sam" "$READS" "$TARGETS"
        assert_one_error "${k%%=*}="
        [ ! -e "$T/x.sam" ]
    done
}
