#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The documentation says what the programs do (issue #29):
#  * --help, the man page and README.md agree: every option of --help has
#    a man page entry with the same text and the same [default], and the
#    README names it (tests/help_man.py);
#  * every example command of README.md, of the man pages' EXAMPLES and
#    of --help runs as written: in a temporary folder that holds the
#    inputs the examples name (made from test-data/ and ../shared/data
#    below), with the built programs first on PATH and ./gpuasm-scan
#    beside them.  Lines that are not commands of the programs (the
#    set-up and build lines ./quickstart, make, ./configure; the library's
#    cc lines, which tests/bats/install.bats runs) are not run here.  An
#    example whose input cannot be made here (the real BLOW5 without
#    ../shared/data or slow5lib) is listed as skipped, with the reason.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    : "${GPUASM_SRCDIR:=$_gpuasm_top}"
    BIN=$(dirname "$GPUASM_SCAN")
}

@test "--help, the man page and the README say the same (options, texts, defaults)" {
    for p in gpuasm-scan gpuasm-signal; do
        bin=$GPUASM_SCAN
        [ $p = gpuasm-signal ] && bin=$GPUASM_SIGNAL
        run "$PYTHON3" "$GPUASM_TESTS_DIR/help_man.py" "$bin" "$GPUASM_SRCDIR/man/$p.1" "$GPUASM_SRCDIR/README.md"
        [ "$status" -eq 0 ] || { printf '%s\n' "$output"; echo "(man/make-man $p rewrites the man page from --help)"; false; }
    done
}

@test "man headings render as written (no quotes eaten by roff)" {
    command -v groff > /dev/null || command -v nroff > /dev/null || skip "no groff/nroff"
    for p in gpuasm-scan gpuasm-signal; do
        # the headings of --help ("Screening (README "In workflows"):") as the page shows them
        bin=$GPUASM_SCAN
        [ $p = gpuasm-signal ] && bin=$GPUASM_SIGNAL
        rendered=$(MANWIDTH=200 man -l "$GPUASM_SRCDIR/man/$p.1" 2>/dev/null || nroff -man "$GPUASM_SRCDIR/man/$p.1")
        while IFS= read -r h; do
            grep -qF -- "$h" <<< "$rendered" || { echo "$p.1: heading '$h' is not rendered as written"; false; }
        done < <("$bin" --help | sed -n 's/^\([A-Z][^ ].*\):$/\1/p')
    done
}

# The inputs the examples name, made in $T.
make_fixtures() {
    cd "$T"
    ln -s "$GPUASM_SCAN" gpuasm-scan
    ln -s "$GPUASM_SIGNAL" gpuasm-signal
    ln -s "$TEST_DATA" test-data
    cp "$READS" reads.fq
    gzip -c "$READS" > reads.fq.gz
    cp "$TARGETS" targets.fa
    cp "$TARGETS" viruses.fa
    cp "$TEST_DATA/fig4.X.txt" X.txt
    cp "$TEST_DATA/fig4.Y.txt" Y.txt
    make_pair_files
    gzip -c r1.fq > R1.fq.gz
    gzip -c r2.fq > R2.fq.gz
    # reads as unaligned BAM (samtools import, as a user would make it)
    if command -v samtools > /dev/null; then samtools import -0 reads.fq -o reads.bam; fi
    # adapters: bbmap's 158 where the shared data is, else the sample's TruSeq adapter
    if [ -f "$GPUASM_SHARED_DATA/adapters/bbmap_adapters.fa" ]; then
        cp "$GPUASM_SHARED_DATA/adapters/bbmap_adapters.fa" adapters.fa
    else
        awk '/^>/ { p = ($1 == ">truseq_r1") } p' targets.fa > adapters.fa
    fi
    # primers: 20-base pieces of the sample's viruses
    awk '!/^>/ { s = s $0 } END { print ">p1\n" substr(s, 101, 20) "\n>p2\n" substr(s, 2701, 20) }' targets.fa > primers.fa
    # raw signal: the shared R9.4.1 model and chr22 reads as BLOW5 (slow5lib's converter)
    if [ -f "$GPUASM_SHARED_DATA/signals/r9.4.1_400bps_6mer.model.tsv" ]; then
        cp "$GPUASM_SHARED_DATA/signals/r9.4.1_400bps_6mer.model.tsv" .
        if "$GPUASM_SIGNAL" -V | grep -q '^slow5lib yes' && [ -x "${GPUASM_SLOW5_CONVERT:-}" ]; then
            "$PYTHON3" "$GPUASM_TESTS_DIR/signal/blow5v01_to_slow5.py" \
                "$GPUASM_SHARED_DATA/signals/chr22_meth_example-subset.blow5" chr22.slow5
            "$GPUASM_SLOW5_CONVERT" chr22.slow5 reads.blow5 zlib
        fi
    fi
}

# Why an example cannot run here, or nothing.
cannot_run() {
    case $1 in
    *reads.blow5*|*r9.4.1_400bps_6mer*)
        [ -f reads.blow5 ] || { echo "needs ../shared/data/signals and slow5lib (the real BLOW5 reads)"; return; } ;;
    esac
    case $1 in
    *reads.bam*) [ -f reads.bam ] || echo "needs samtools (to make reads.bam)" ;;
    esac
}

# Run every command of file $1 (one per line), each with bash in $T; a
# line that fails is printed with its output.
run_examples() {
    local list=$1 what=$2 n=0 bad=0 why cmd
    while IFS= read -r cmd; do
        [ -n "$cmd" ] || continue
        why=$(cannot_run "$cmd")
        if [ -n "$why" ]; then
            echo "# $what: skipped: $cmd ($why)" >&3
            continue
        fi
        n=$((n + 1))
        if ! (cd "$T" && PATH="$BIN:$PATH" timeout 120 bash -o pipefail -c "$cmd") > "$T/ex.out" 2>&1; then
            echo "$what: failed: $cmd"
            tail -5 "$T/ex.out"
            bad=$((bad + 1))
        fi
    done < "$list"
    echo "# $what: $n example commands ran" >&3
    [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
}

@test "every example command of README.md runs as written" {
    make_fixtures
    # indented code lines that call the programs (continuations joined);
    # "$ " prompts dropped; "gpuasm-scan: ..." lines are messages, not commands
    awk '/^    / { l = substr($0, 5); if (c != "") { l = c " " l; c = "" }
                    sub(/^\$ /, "", l)
                    if (l ~ /\\$/) { c = substr(l, 1, length(l) - 1); next }
                    if (l ~ /^(\.\/)?gpuasm-(scan|signal)( |$)/) print l
                    next }
         { c = "" }' "$GPUASM_SRCDIR/README.md" | sed 's/[[:space:]]*#.*$//' > "$T/readme.cmds"
    [ "$(wc -l < "$T/readme.cmds")" -ge 5 ]
    run_examples "$T/readme.cmds" README.md
}

@test "every example of the man pages (EXAMPLES) and of --help runs as written" {
    make_fixtures
    : > "$T/man.cmds"
    for p in gpuasm-scan gpuasm-signal; do
        sed -n '/^\.SH EXAMPLES/,/^\.SH [^E]/p' "$GPUASM_SRCDIR/man/$p.1" |
            grep -v '^\.' | sed 's/\\-/-/g; s/\\e/\\/g' | grep "^$p " >> "$T/man.cmds" || true
        # --help's own example lines (two spaces, then the program), if any
        "$T/$p" --help | sed -n "s/^  \($p .*\)$/\1/p" >> "$T/man.cmds"
    done
    [ "$(grep -c '^gpuasm-scan ' "$T/man.cmds")" -ge 3 ]
    [ "$(grep -c '^gpuasm-signal ' "$T/man.cmds")" -ge 1 ]
    run_examples "$T/man.cmds" "man pages"
}
