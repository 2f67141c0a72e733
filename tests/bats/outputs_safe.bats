#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Issue #31, the outputs: nothing a run writes replaces what it must not.
#   - two outputs of one run naming one file (by name, ./NAME, a link,
#     standard output redirected to it, --multiqc's General Statistics
#     file) are refused before anything is written; so is one --report
#     given twice to --merge-reports;
#   - an existing output the user may not write is refused;
#   - every terminating signal gpuasm can catch leaves no output and no
#     temporary file (util/output_file.h, cli/signals.h), for gpuasm-scan
#     and gpuasm-signal; the temporary file of a killed (-9) run is removed
#     by the next run;
#   - `| head` still ends the run with SIGPIPE, silently.
# (Issue #12's half: tests/bats/hostile.bats.)

setup() {
    load helpers
    load bad_inputs
    # a directory of its own: run --separate-stderr keeps files in $BATS_TEST_TMPDIR
    T=$BATS_TEST_TMPDIR/w
    mkdir -p "$T"
}

teardown() {
    if [ -f "$T/feed" ]; then kill "$(cat "$T/feed")" 2>/dev/null || true; fi
    if [ -n "${RO_DIR:-}" ]; then rm -rf "$RO_DIR"; fi
}

# The names in $T, hidden ones too, one a line.
listing() {
    ls -A "$T" | sort
}

@test "two outputs naming one file: exit 1, one line naming both options, nothing written" {
    cd "$T"
    echo "an earlier result" > x.sam
    ln -s x.sam link.sam
    mkdir sub
    local before
    before=$(listing)
    run --separate-stderr scan --device cpu -o x.sam --stats x.sam "$READS" "$TARGETS"
    assert_only_error "--stats x.sam: also given to -o (x.sam): two outputs of one run in one file"
    run --separate-stderr scan --device cpu -o x.sam --stats ./x.sam "$READS" "$TARGETS"
    assert_only_error "--stats ./x.sam: also given to -o (x.sam)"
    # ./NAME and NAME of a file not there yet
    run --separate-stderr scan --device cpu -o ./new.sam --report new.sam "$READS" "$TARGETS"
    assert_only_error "--report new.sam: also given to -o (./new.sam)"
    run --separate-stderr scan --device cpu -o x.sam --report link.sam "$READS" "$TARGETS"
    assert_only_error "--report link.sam: also given to -o (x.sam)"
    run --separate-stderr scan --device cpu --report r_general_mqc.json --multiqc r_mqc.json \
        "$READS" "$TARGETS"
    assert_only_error "--multiqc (its General Statistics file) r_general_mqc.json: also given to --report (r_general_mqc.json)"
    run --separate-stderr scan --device cpu --matched m.fq --unmatched-reads ./m.fq "$READS" "$TARGETS"
    assert_only_error "--unmatched-reads ./m.fq: also given to --matched (m.fq)"
    run --separate-stderr scan --device cpu --matched "$T/sub/../m.fq" --unmatched-reads m.fq \
        "$READS" "$TARGETS"
    assert_only_error "--unmatched-reads m.fq: also given to --matched ($T/sub/../m.fq)"
    # issue #29's outputs: --reads-out, and --write-reference's FASTA, .fai and .dict
    run --separate-stderr scan --device cpu -o x.sam --reads-out ./x.sam "$READS" "$TARGETS"
    assert_only_error "--reads-out ./x.sam: also given to -o (x.sam)"
    run --separate-stderr scan --device cpu -o ref.fa.fai --write-reference ref.fa "$READS" "$TARGETS"
    assert_only_error "--write-reference (its .fai) ref.fa.fai: also given to -o (ref.fa.fai)"
    run --separate-stderr scan --device cpu --stats ref.dict --write-reference ref.fa "$READS" "$TARGETS"
    assert_only_error "--write-reference (its .dict) ref.dict: also given to --stats (ref.dict)"
    assert_equal "$(listing)" "$before"
    assert_equal "$(cat x.sam)" "an earlier result"
    # standard output redirected to another output's file (the shell made it)
    run --separate-stderr bash -c '"$0" --device cpu --report r.tsv "$1" "$2" > r.tsv' \
        "$GPUASM_SCAN" "$READS" "$TARGETS"
    assert_only_error "--report r.tsv: also given to -o (standard output, redirected to it)"
    [ ! -s r.tsv ]
    rm r.tsv
    assert_equal "$(listing)" "$before"
}

@test "gpuasm-signal: -o and --stats one file: exit 1, one line naming both, nothing written" {
    printf '1\n2\n3\n4\n4\n2\n1\n2\n' > "$T/Y.txt"
    printf 'r1 1 3 5 3 1\n' > "$T/X.txt"
    cd "$T"
    local before
    before=$(listing)
    GPUASM_PROG=gpuasm-signal
    run --separate-stderr "$GPUASM_SIGNAL" --norm none -o o.paf --stats ./o.paf X.txt Y.txt
    assert_only_error "--stats ./o.paf: also given to -o (o.paf): two outputs of one run in one file"
    assert_equal "$(listing)" "$before"
}

@test "--merge-reports: one report given twice (by name, as ./NAME, through a link): exit 1, naming it" {
    cd "$T"
    scan --quiet --device cpu --report a.tsv "$READS" "$TARGETS" > /dev/null
    ln -s a.tsv l.tsv
    run --separate-stderr scan --merge-reports a.tsv a.tsv
    assert_only_error "--merge-reports a.tsv: given twice (its reads would count twice)"
    assert_output ""
    run --separate-stderr scan --merge-reports a.tsv ./a.tsv
    assert_only_error "--merge-reports ./a.tsv: the same file as a.tsv"
    run --separate-stderr scan --merge-reports l.tsv a.tsv --multiqc m_mqc.json
    assert_only_error "--merge-reports a.tsv: the same file as l.tsv"
    [ ! -e m_mqc.json ]
    # two different reports of one sample still merge
    cp a.tsv b.tsv
    run --separate-stderr scan --merge-reports a.tsv b.tsv
    assert_success
}

@test "an existing output the user may not write (mode 444): exit 1, 'Permission denied', left as it was" {
    # root writes whatever the mode bits say (as samtools does as root),
    # and so does gpuasm (access(2)): the refusal is a user's, so run as
    # nobody where we are root.
    local as=()
    if [ "$(id -u)" = 0 ]; then
        command -v setpriv > /dev/null || skip "root, and no setpriv to run as another user"
        id nobody > /dev/null 2>&1 || skip "root, and no user nobody to run as"
        as=(setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups)
        # a directory nobody may write, outside bats's private ones
        RO_DIR=$(mktemp -d /tmp/gpuasm-ro.XXXXXX)
        chown nobody "$RO_DIR"
        "${as[@]}" true 2> /dev/null || skip "setpriv cannot change user here"
        "${as[@]}" test -r "$READS" -a -x "$GPUASM_SCAN" || skip "nobody cannot read the test data"
    else
        RO_DIR=$(mktemp -d "$T/ro.XXXXXX")
    fi
    "${as[@]}" sh -c 'echo "an earlier result" > "$1/ro.sam" && chmod 444 "$1/ro.sam"' sh "$RO_DIR"
    run --separate-stderr "${as[@]}" "$GPUASM_SCAN" --device cpu -o "$RO_DIR/ro.sam" "$READS" "$TARGETS"
    assert_only_error "$RO_DIR/ro.sam: cannot open for writing: Permission denied"
    assert_equal "$(cat "$RO_DIR/ro.sam")" "an earlier result"
    assert_equal "$(ls -A "$RO_DIR")" "ro.sam"
    # --stats too
    run --separate-stderr "${as[@]}" "$GPUASM_SCAN" --device cpu -o "$RO_DIR/new.sam" \
        --stats "$RO_DIR/ro.sam" "$READS" "$TARGETS"
    assert_only_error "$RO_DIR/ro.sam: cannot open for writing: Permission denied"
    assert_equal "$(ls -A "$RO_DIR")" "ro.sam"
}

@test "gpuasm-scan: every terminating signal mid-run leaves no output, no temporary file; exit status 128 + N" {
    for sig in SIGINT SIGTERM SIGHUP SIGQUIT SIGALRM SIGVTALRM SIGUSR1 SIGUSR2 SIGXCPU; do
        start_mid_run
        run signal_mid_run "$sig" --device cpu -@ 2 -o "$T/out.sam" --stats "$T/s.json" \
            --report "$T/r.tsv" --matched "$T/m.fq" "$T/in.fq" "$TARGETS"
        kill "$(cat "$T/feed")" 2>/dev/null || true
        assert_output "tmp-seen $((128 + $(kill -l "${sig#SIG}")))"
        [ ! -e "$T/out.sam" ] && [ ! -e "$T/s.json" ] && [ ! -e "$T/r.tsv" ] && [ ! -e "$T/m.fq" ]
        [ -z "$(find "$T" -name '.*.gpuasm-*')" ] || { find "$T" -name '.*.gpuasm-*' >&2; return 1; }
        grep -q "^gpuasm-scan: interrupted by $sig" "$T/err.txt" || { cat "$T/err.txt" >&2; return 1; }
    done
}

@test "gpuasm-signal: every terminating signal mid-run leaves no output, no temporary file; exit status 128 + N" {
    printf '1\n2\n3\n4\n4\n2\n1\n2\n' > "$T/Y.txt"
    awk 'BEGIN { for (i = 0; i < 20000; i++) printf "r%d 1 3 5 3 1 2 4 4\n", i }' > "$T/reads.txt"
    for sig in SIGINT SIGTERM SIGHUP SIGQUIT SIGALRM SIGVTALRM SIGUSR1 SIGUSR2 SIGXCPU; do
        start_mid_run "$T/in.txt" "$T/reads.txt" 10000
        MID_RUN_EXE=$GPUASM_SIGNAL run signal_mid_run "$sig" --norm none -o "$T/o.paf" \
            --stats "$T/s.json" "$T/in.txt" "$T/Y.txt"
        kill "$(cat "$T/feed")" 2>/dev/null || true
        assert_output "tmp-seen $((128 + $(kill -l "${sig#SIG}")))"
        [ ! -e "$T/o.paf" ] && [ ! -e "$T/s.json" ]
        [ -z "$(find "$T" -name '.*.gpuasm-*')" ] || { find "$T" -name '.*.gpuasm-*' >&2; return 1; }
        grep -q "^gpuasm-signal: interrupted by $sig" "$T/err.txt" || { cat "$T/err.txt" >&2; return 1; }
    done
}

@test "a killed (-9) run's temporary file is removed by the next run in that directory; a running one's is kept" {
    # no process has a PID above pid_max
    local dead=$(($(cat /proc/sys/kernel/pid_max) + 1))
    touch "$T/.out.sam.gpuasm-$dead-AbC123" "$T/.other.bam.gpuasm-$dead-xyz789" \
        "$T/.out.sam.gpuasm-$$-Live01" "$T/.notours.gpuasm-x-123456"
    run --separate-stderr scan --device cpu -o "$T/out.sam" "$READS" "$TARGETS"
    assert_success
    assert_equal "$(listing)" "$(printf '%s\n' ".notours.gpuasm-x-123456" ".out.sam.gpuasm-$$-Live01" out.sam | sort)"
    # and one really killed
    rm "$T"/.out.sam.gpuasm-* "$T/out.sam"
    start_mid_run
    "$GPUASM_SCAN" --device cpu -o "$T/out.sam" "$T/in.fq" "$TARGETS" 2> /dev/null &
    local pid=$! i
    for i in $(seq 100); do [ -n "$(find "$T" -name '.out.sam.gpuasm-*')" ] && break; sleep 0.1; done
    kill -9 "$pid"
    wait "$pid" || true
    kill "$(cat "$T/feed")" 2>/dev/null || true
    [ -n "$(find "$T" -name ".out.sam.gpuasm-$pid-*")" ]
    run --separate-stderr scan --device cpu -o "$T/out.sam" "$READS" "$TARGETS"
    assert_success
    [ -z "$(find "$T" -name '.out.sam.gpuasm-*')" ]
}

@test "| head -1: gpuasm-scan dies of SIGPIPE (141) with no message, and leaves no temporary file" {
    make_big_fq 100 "$T/big.fq"
    run bash -c '"$0" --device cpu --stats "$1/s.json" "$1/big.fq" "$2" 2> "$1/err.txt" | head -1 > /dev/null
        echo "${PIPESTATUS[0]}"' "$GPUASM_SCAN" "$T" "$TARGETS"
    assert_success
    assert_output 141
    assert_equal "$(cat "$T/err.txt")" ""
    [ ! -e "$T/s.json" ]
    [ -z "$(find "$T" -name '.*.gpuasm-*')" ]
}
