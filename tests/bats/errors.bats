#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Errors of the input: exit 1, one line on stderr naming the file (and the
# record where there is one); with -o FILE no output file is left behind.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
}

# Run gpuasm-scan (CPU: no GPU warning on stderr) twice, to stdout and with
# -o, and check the error shape both times.  Arguments: the strings stderr
# must contain, then --, then the reads and targets.
fails_with() {
    local want=()
    while [ "$1" != -- ]; do want+=("$1"); shift; done
    shift
    run --separate-stderr scan --device cpu "$@"
    assert_one_error "${want[@]}"
    rm -f "$T/out.sam"
    run --separate-stderr scan --device cpu -o "$T/out.sam" "$@"
    assert_one_error "${want[@]}"
    [ ! -e "$T/out.sam" ] || { echo "-o file left behind after a failed run" >&2; return 1; }
}

@test "missing reads file" {
    fails_with "$T/nope.fq" -- "$T/nope.fq" "$TARGETS"
}

@test "missing targets file" {
    fails_with "$T/nope.fa" -- "$READS" "$T/nope.fa"
}

@test "unreadable reads file" {
    [ "$(id -u)" != 0 ] || skip "root reads every file"
    cp "$READS" "$T/r.fq"
    chmod 000 "$T/r.fq"
    fails_with "$T/r.fq" -- "$T/r.fq" "$TARGETS"
}

@test "unreadable targets file" {
    [ "$(id -u)" != 0 ] || skip "root reads every file"
    cp "$TARGETS" "$T/t.fa"
    chmod 000 "$T/t.fa"
    fails_with "$T/t.fa" -- "$READS" "$T/t.fa"
}

@test "a directory as the reads file" {
    mkdir "$T/dir.fq"
    fails_with "$T/dir.fq" -- "$T/dir.fq" "$TARGETS"
}

@test "a directory as the targets file" {
    mkdir "$T/dir.fa"
    fails_with "$T/dir.fa" -- "$READS" "$T/dir.fa"
}

@test "malformed FASTQ: quality length != sequence length, names file and record" {
    printf '@r1\nACGTACGTAC\n+\nIIIIIIIIII\n@r2\nACGTACGTAC\n+\nIIIII\n@r3\nACGTACGTAC\n+\nIIIIIIIIII\n' > "$T/bad.fq"
    fails_with "$T/bad.fq" "record 2" "r2" -- "$T/bad.fq" "$TARGETS"
}

@test "malformed FASTQ: not FASTQ at all after the first record" {
    printf '@r1\nACGTACGTAC\n+\nIIIIIIIIII\nthis is not fastq\n' > "$T/bad.fq"
    run --separate-stderr scan --device cpu "$T/bad.fq" "$TARGETS"
    assert_one_error "$T/bad.fq"
}

@test "malformed FASTQ after many good reads: -o file removed" {
    # Enough good reads (several batches) that output has been written
    # before the bad record is met.
    for i in $(seq 1 50); do sed "s/^@\([a-z]\)/@b${i}_\1/" "$READS"; done > "$T/big.fq"
    printf '@broken\nACGTACGTAC\n+\nIII\n' >> "$T/big.fq"
    run --separate-stderr scan --device cpu --batch-size 1k -o "$T/out.sam" "$T/big.fq" "$TARGETS"
    assert_one_error "$T/big.fq" "broken"
    [ ! -e "$T/out.sam" ]
}

@test "truncated gzip reads" {
    gzip -c "$READS" > "$T/full.fq.gz"
    head -c $(( $(wc -c < "$T/full.fq.gz") / 2 )) "$T/full.fq.gz" > "$T/trunc.fq.gz"
    fails_with "$T/trunc.fq.gz" -- "$T/trunc.fq.gz" "$TARGETS"
}

@test "truncated gzip targets" {
    gzip -c "$TARGETS" > "$T/full.fa.gz"
    head -c $(( $(wc -c < "$T/full.fa.gz") / 2 )) "$T/full.fa.gz" > "$T/trunc.fa.gz"
    fails_with "$T/trunc.fa.gz" -- "$READS" "$T/trunc.fa.gz"
}

@test "empty target file" {
    : > "$T/empty.fa"
    fails_with "$T/empty.fa" -- "$READS" "$T/empty.fa"
}

@test "target with no bases, named" {
    printf '>a\nACGTACGTACGTACGTACGT\n>hollow some comment\n>c\nACGTACGTACGTACGTACGT\n' > "$T/t.fa"
    fails_with "$T/t.fa" "hollow" -- "$READS" "$T/t.fa"
}

@test "last target with no bases" {
    printf '>a\nACGTACGTACGTACGTACGT\n>tail\n' > "$T/t.fa"
    fails_with "$T/t.fa" "tail" -- "$READS" "$T/t.fa"
}

@test "duplicate target names with --strict-names, named" {
    printf '>twin first\nACGTACGTACGTACGTACGT\n>other\nTTTTGGGGCCCCAAAATTTT\n>twin second\nGGGGACGTACGTACGTACGT\n' > "$T/t.fa"
    fails_with "$T/t.fa" "record 3 (twin)" "duplicate target name" "record 1" -- --strict-names "$READS" "$T/t.fa"
}

@test "k >= length of a target is an error" {
    # The adapter (34 bp) is the pattern against every read longer than it.
    fails_with "truseq_r1" -- -k 34 "$READS" "$TARGETS"
    fails_with -- -k 100 "$READS" "$TARGETS"
}

@test "k just below the shortest target is accepted" {
    run --separate-stderr scan --device cpu --no-PG -k 33 "$READS" "$TARGETS"
    assert_success
}

@test "an empty reads file is not an error: header only" {
    : > "$T/empty.fq"
    run --separate-stderr scan --device cpu --no-PG "$T/empty.fq" "$TARGETS"
    assert_success
    assert_equal "$(records <<<"$output")" ""
    assert_line --index 0 --regexp '^@HD'
}

@test "-o into a missing directory" {
    run --separate-stderr scan --device cpu -o "$T/no/such/dir/out.sam" "$READS" "$TARGETS"
    assert_one_error "$T/no/such/dir/out.sam"
    assert_equal "$output" ""
}

@test "a failed run removes only a regular -o file, never a device" {
    # -o names a symlink to /dev/null (stat sees a character device): the
    # failed run must leave it alone, where a plain unlink would remove it.
    ln -s /dev/null "$T/devnull.sam"
    printf '@r1\nACGTACGTAC\n+\nIIIIIIIIII\n@r2\nACGTACGTAC\n+\nIII\n' > "$T/bad.fq"
    run --separate-stderr scan --device cpu -o "$T/devnull.sam" "$T/bad.fq" "$TARGETS"
    assert_failure 1
    [ -L "$T/devnull.sam" ]
}
