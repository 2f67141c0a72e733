#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Issue #31, "Nothing lost, round 2" (the input half): reads whose first
# gzip member or BGZF block is empty are read whole, RNA reads, SLOW5/BLOW5
# checked before slow5lib parses them (valgrind-clean on the cases that
# crashed it), flat signals, pore models, and the messages rewritten.  The
# one-line cases are rows of the bad-input table (badinput.bats 67-85).

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    GPUASM_PROG=gpuasm-scan
    BLOW5_PY="$GPUASM_TESTS_DIR/signal/blow5.py"
}

sig() {
    "$GPUASM_SIGNAL" "$@"
}

# Was gpuasm-signal built with slow5lib?
gpuasm_have_slow5() {
    "$GPUASM_SIGNAL" -V | grep -qx 'slow5lib yes'
}

# The QNAMEs of the FLAG-4/primary records of a SAM (one per read with
# --unmatched), in order.
qnames() {
    grep -v '^@' "$1" | awk -F'\t' 'int($2 / 256) % 2 == 0 { print $1 }'
}

# The read names of a FASTQ as zcat gives them (first word, no '@').
zcat_names() {
    zcat -f "$1" | awk 'NR % 4 == 1 { n = substr($1, 2); sub(/\/[12]$/, "", n); print n }'
}

# A k = 2 pore model (signal.bats's): level = (code - 7.5) / 2.
make_model() {
    {
        printf 'kmer\tlevel_mean_pA\tlevel_stdv_pA\n'
        local a b i=0
        for a in A C G T; do
            for b in A C G T; do
                printf '%s%s\t%s\t1.0\n' "$a" "$b" "$(awk -v c=$i 'BEGIN { print (c - 7.5) / 2 }')"
                i=$((i + 1))
            done
        done
    } > "$T/k2.tsv"
    awk 'BEGIN { srand(15); printf ">g4k random\n"; for (i = 0; i < 4000; i++) printf "%s", substr("ACGT", int(rand() * 4) + 1, 1); printf "\n" }' > "$T/g4k.fa"
}

# ---- silent zero: empty first members -----------------------------------------------

@test "an empty first gzip member: the reads zcat gives, from a file and from stdin (test-data)" {
    : | gzip -n > "$T/empty.gz"
    gzip -nc "$READS" > "$T/r.gz"
    cat "$T/empty.gz" "$T/empty.gz" "$T/r.gz" > "$T/cat.fq.gz"
    scan --device cpu --no-PG --unmatched "$READS" "$TARGETS" > "$T/plain.sam"
    scan --device cpu --no-PG --unmatched "$T/cat.fq.gz" "$TARGETS" > "$T/cat.sam"
    scan --device cpu --no-PG --unmatched - "$TARGETS" < "$T/cat.fq.gz" > "$T/stdin.sam"
    [ "$(qnames "$T/cat.sam" | wc -l)" -eq 42 ]
    assert_equal "$(qnames "$T/cat.sam")" "$(zcat_names "$T/cat.fq.gz")"
    cmp "$T/plain.sam" "$T/cat.sam"
    cmp "$T/plain.sam" "$T/stdin.sam"
    # an empty member later (between two files) was always read whole
    cat "$T/r.gz" "$T/empty.gz" "$T/r.gz" > "$T/mid.fq.gz"
    [ "$(scan --device cpu --unmatched "$T/mid.fq.gz" "$TARGETS" | qnames /dev/stdin | wc -l)" -eq 84 ]
    # a file of empty members only is an empty read set, as before
    run --separate-stderr scan --device cpu "$T/empty.gz" "$TARGETS"
    assert_success
}

@test "an empty first BGZF block (a BGZF EOF block), FASTQ and BAM, file and stdin" {
    : > "$T/e"
    bgzf "$T/e" "$T/eof.bgz"
    [ "$(stat -c %s "$T/eof.bgz")" -eq 28 ]
    bgzf "$READS" "$T/r.bgz"
    cat "$T/eof.bgz" "$T/r.bgz" > "$T/cat.fq.bgz"
    scan --device cpu --no-PG --unmatched "$READS" "$TARGETS" > "$T/plain.sam"
    scan --device cpu --no-PG --unmatched "$T/cat.fq.bgz" "$TARGETS" > "$T/cat.sam"
    cmp "$T/plain.sam" "$T/cat.sam"
    scan --device cpu --no-PG --unmatched -O bam -o "$T/r.bam" "$READS" "$TARGETS"
    cat "$T/eof.bgz" "$T/r.bam" > "$T/cat.bam"
    scan --device cpu --no-PG --unmatched "$T/r.bam" "$TARGETS" > "$T/bam.sam"
    scan --device cpu --no-PG --unmatched "$T/cat.bam" "$TARGETS" > "$T/catbam.sam"
    scan --device cpu --no-PG --unmatched -@ 3 - "$TARGETS" < "$T/cat.bam" > "$T/stdinbam.sam"
    [ "$(qnames "$T/catbam.sam" | wc -l)" -eq 42 ]
    cmp "$T/bam.sam" "$T/catbam.sam"
    cmp "$T/bam.sam" "$T/stdinbam.sam"
}

@test "an empty first member on real reads: Hm2 R1 (1,499 reads) and the Ebola uBAM, as zcat and samtools read them" {
    require_shared_data
    local d=$GPUASM_SHARED_DATA/reads
    : | gzip -n > "$T/empty.gz"
    cat "$T/empty.gz" "$d/measles_sequana/Hm2_GTGAAA_L005_R1_001.fastq.gz" > "$T/hm2.fq.gz"
    scan --device cpu --no-PG --unmatched "$T/hm2.fq.gz" "$TARGETS" > "$T/hm2.sam"
    [ "$(qnames "$T/hm2.sam" | wc -l)" -eq 1499 ]
    assert_equal "$(qnames "$T/hm2.sam")" "$(zcat_names "$T/hm2.fq.gz")"
    # the uBAM after an empty BGZF block: the reads samtools gives for the uBAM itself
    : > "$T/e"
    bgzf "$T/e" "$T/eof.bgz"
    cat "$T/eof.bgz" "$d/ebola_viralngs/G5012.3.subset.bam" > "$T/ebola.bam"
    scan --device cpu --no-PG --unmatched "$d/ebola_viralngs/G5012.3.subset.bam" "$TARGETS" > "$T/a.sam"
    scan --device cpu --no-PG --unmatched "$T/ebola.bam" "$TARGETS" > "$T/b.sam"
    [ "$(qnames "$T/b.sam" | wc -l)" -eq 200 ]
    cmp "$T/a.sam" "$T/b.sam"
    if command -v samtools >/dev/null; then
        assert_equal "$(qnames "$T/b.sam" | sort)" \
            "$(samtools view "$d/ebola_viralngs/G5012.3.subset.bam" | cut -f1 | sort)"
    fi
}

@test "R1 with an empty first gzip member: the pairs of the plain files (issue #31: 'ends after 0')" {
    make_pair_files
    : | gzip -n > "$T/empty.gz"
    gzip -nc "$T/r1.fq" | cat "$T/empty.gz" - > "$T/r1.fq.gz"
    scan --device cpu --no-PG --unmatched "$T/r1.fq" "$T/r2.fq" "$TARGETS" > "$T/plain.sam"
    scan --device cpu --no-PG --unmatched "$T/r1.fq.gz" "$T/r2.fq" "$TARGETS" > "$T/gz.sam"
    cmp "$T/plain.sam" "$T/gz.sam"
}

# ---- inputs that mean something --------------------------------------------------------

@test "RNA reads: U is T everywhere (first read too), the SAM of the DNA reads byte for byte" {
    awk 'NR % 4 == 2 { gsub(/T/, "U") } { print }' "$READS" > "$T/rna.fq"
    awk 'NR % 4 == 2 && NR > 4 { gsub(/T/, "u") } { print }' "$READS" > "$T/rna2.fq"
    gzip -nc "$T/rna.fq" > "$T/rna.fq.gz"
    scan --device cpu --no-PG --unmatched "$READS" "$TARGETS" > "$T/dna.sam"
    local f
    for f in rna.fq rna2.fq rna.fq.gz; do
        scan --device cpu --no-PG --unmatched "$T/$f" "$TARGETS" > "$T/$f.sam"
        cmp "$T/dna.sam" "$T/$f.sam"
    done
    # 34 of 42 reads hit, as with T (issue #31: 3 with U read as N)
    [ "$(records "$T/rna2.fq.sam" | awk -F'\t' 'int($2 / 4) % 2 == 0 && int($2 / 256) % 2 == 0' | wc -l)" -eq 34 ]
    # FASTA too
    fq2fa "$T/rna.fq" > "$T/rna.fa"
    fq2fa "$READS" > "$T/dna.fa"
    cmp <(scan --device cpu --no-PG "$T/dna.fa" "$TARGETS") <(scan --device cpu --no-PG "$T/rna.fa" "$TARGETS")
}

@test "qualities outside '!'..'~' are refused with the record and base (space, DEL, non-ASCII); '~' is fine" {
    local q
    for q in ' ' $'\x7f' $'\xc3'; do
        printf '@r1\nACGTACGTAC\n+\nIIIIIIIIII\n@r2\nACGTACGTAC\n+\nIII%sIIIIII\n' "$q" > "$T/q.fq"
        run --separate-stderr scan --device cpu -o "$T/o.sam" "$T/q.fq" "$TARGETS"
        assert_only_error "$T/q.fq: record 2 (r2): quality byte 0x" "at base 4 is outside '!'..'~'"
        [ ! -e "$T/o.sam" ]
    done
    # the first base's quality too (htslib stores a space as 0xff, BAM's "no quality")
    printf '@r1\nACGTACGTAC\n+\n IIIIIIIII\n' > "$T/q1.fq"
    run --separate-stderr scan --device cpu "$T/q1.fq" "$TARGETS"
    assert_only_error "$T/q1.fq: record 1 (r1): quality byte 0x20 at base 1 is outside"
    printf '@r1\nACGTACGTAC\n+\n!!!!!~~~~~\n' > "$T/ok.fq"
    run --separate-stderr scan --device cpu --no-PG --unmatched "$T/ok.fq" "$TARGETS"
    assert_success
    assert_output --partial $'!!!!!~~~~~'
}

@test "targets: all N, gaps, '.', '*', digits and non-ASCII are refused naming record and base; IUPAC and U load" {
    local t want
    while IFS='|' read -r t want; do
        printf "$t" > "$T/t.fa"
        run --separate-stderr scan --device cpu "$READS" "$T/t.fa"
        assert_only_error "$T/t.fa: record" "$want"
    done <<'EOF'
>n\nNNNNNNNNNNNN\n|record 1 (n): every base is N
>ok\nACGTACGT\n>n2\nnnnn\n|record 2 (n2): every base is N
>g\nACGT-ACGT\n|'-' at base 5 is not a base
>p\nACGT.ACGT\n|'.' at base 5 is not a base
>s\nACGTACGT*\n|'*' at base 9 is not a base
>d\nACG7TACGT\n|'7' at base 4 is not a base
>x\nACG\xc3\xa9T\n|byte 0xc3 at base 4 is not a base
EOF
    printf '>iupac\nACGTRYKMSWBDHVN\n>rna\nAGAUCGGAAGAGC\n>mostly_n\nNNNNNNNNNNNNAGATCGGAAGAGC\n' > "$T/ok.fa"
    run --separate-stderr scan --device cpu "$READS" "$T/ok.fa"
    assert_success
}

@test "--max-memory: a read larger than the bound is named in a warning (none for the sample)" {
    "$PYTHON3" -c 'import random; r = random.Random(3); s = "".join(r.choice("ACGT") for _ in range(12000000)); print("@big\n" + s + "\n+\n" + "I" * len(s))' > "$T/big.fq"
    run --separate-stderr scan --device cpu --max-memory 16M -o "$T/o.sam" "$T/big.fq" "$TARGETS"
    assert_success
    strip_summary
    assert_equal "${#stderr_lines[@]}" 1
    [[ "${stderr_lines[0]}" == "gpuasm-scan: warning: --max-memory 16 MiB exceeded: the reads took "*" MiB at the peak"*"the longest read, $T/big.fq: record 1 (big), has 12000000 bases"* ]]
    # the sample stays under the bound; not in an ASan build, whose shadow
    # memory and quarantine count in the resident size the bound is read from
    asan_build && return 0
    run --separate-stderr scan --device cpu --max-memory 16M -o "$T/o.sam" "$READS" "$TARGETS"
    assert_success
    strip_summary
    [ -z "$stderr" ]
}

# ---- the messages ----------------------------------------------------------------------

@test "empty file names are refused before any work (-o '', --stats=, a positional ''); other options say their own" {
    run --separate-stderr scan -o '' "$READS" "$TARGETS"
    assert_only_error "-o '': an empty file name"
    [ -z "$output" ]
    run --separate-stderr scan --stats= -o "$T/o.sam" "$READS" "$TARGETS"
    assert_only_error "--stats '': an empty file name"
    [ ! -e "$T/o.sam" ]
    run --separate-stderr scan --report '' -o "$T/o.sam" "$READS" "$TARGETS"
    assert_only_error "--report '': an empty file name"
    run --separate-stderr scan "$READS" ''
    assert_only_error "an empty file name ('') among the inputs"
    run --separate-stderr scan --verbosity '' "$READS" "$TARGETS"
    assert_only_error "invalid --verbosity ''"
    GPUASM_PROG=gpuasm-signal
    run --separate-stderr sig -o '' "$READS" "$TARGETS"
    assert_only_error "-o '': an empty file name"
    run --separate-stderr sig -p '' "$READS" "$TARGETS"
    assert_only_error "-p '': an empty file name"
}

@test "both inputs on stdin: one message, for gpuasm-scan (targets, R1/R2) and gpuasm-signal" {
    run --separate-stderr scan - - < "$READS"
    assert_only_error "the reads and the targets cannot both be - (standard input)"
    run --separate-stderr scan "$READS" - - < "$READS"
    assert_only_error "the reads and the targets cannot both be -"
    GPUASM_PROG=gpuasm-signal
    run --separate-stderr sig - - < /dev/null
    assert_only_error "the reads and the reference cannot both be - (standard input)"
}

@test "a thread that will not start: the reason and the limits (threads' stacks past ulimit -v)" {
    if asan_build; then skip "ASan reserves its own address space"; fi
    run --separate-stderr bash -c 'ulimit -s 1000000 && ulimit -v 3500000 && exec "$0" "$@"' \
        "$GPUASM_SCAN" --device cpu -o "$T/o.sam" "$READS" "$TARGETS"
    [ "$status" -ne 0 ] || skip "this machine started every thread"
    strip_summary
    assert_one_error "cannot start" "(the system's limit on threads and processes, ulimit -u, or on memory for their stacks, ulimit -v; try fewer threads, -@)"
    [ ! -e "$T/o.sam" ]
    run --separate-stderr bash -c 'ulimit -v 400000 && exec "$0" "$@"' \
        "$GPUASM_SCAN" --device cpu -@ 400 -o "$T/o.sam" "$READS" "$TARGETS"
    [ "$status" -ne 0 ] || skip "this machine started 400 threads in 400 MB"
    assert_one_error "$READS: cannot start 400 decoding threads: " "ulimit -v"
}

# ---- gpuasm-signal: SLOW5/BLOW5 checked before slow5lib --------------------------------

# Each forged file (tests/signal/blow5.py): exit 1, one message naming the
# file (and the record), no output; under valgrind where it is installed:
# no invalid read or write, no leak of ours (issue #31: 5,996 invalid writes).
@test "SLOW5/BLOW5 whose sizes lie (len_raw_signal, record size, read groups, header size): one message each, valgrind clean" {
    gpuasm_have_slow5 || skip "built without slow5lib"
    make_model
    local c want vg=()
    if command -v valgrind >/dev/null && ! nm "$GPUASM_SIGNAL" 2>/dev/null | grep -q __asan_init; then
        vg=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite)
    fi
    GPUASM_PROG=gpuasm-signal
    while IFS='|' read -r c want; do
        "$PYTHON3" "$BLOW5_PY" "$T/$c" "$c"
        run --separate-stderr "${vg[@]}" "$GPUASM_SIGNAL" -p "$T/k2.tsv" -o "$T/o.paf" "$T/$c" "$T/g4k.fa"
        [ "$status" -ne 99 ] || { echo "valgrind: $c: $stderr" >&2; return 1; }
        assert_only_error "$T/$c: " "$want"
        [ ! -e "$T/o.paf" ]
    done <<'EOF'
len-small.slow5|record 1 (read1): len_raw_signal says 2 samples but raw_signal holds 3000
len-large.slow5|record 1 (read1): len_raw_signal says 6028 samples but raw_signal holds 3000
len-small.blow5|record 1 (read1): auxiliary field 1
len-huge.blow5|record 1 (read1): len_raw_signal says 1099511627776 samples but the record has
size-huge.blow5|record 2: its size field says 1125899906842624 bytes, more than the rest of the file
no-eof.blow5|record 4: the file ends after a record without BLOW5's end-of-file marker
groups-huge.blow5|BLOW5 header: the header says 4000000000 read groups
groups-huge.slow5|SLOW5 header: the header says 4000000000 read groups
textsize-huge.blow5|BLOW5 header: the header says its text is 3000000000 bytes
crlf.slow5|SLOW5 header: its lines end in CR LF
aux-missing.slow5|record 1 (read1): 10 columns, the header names 14
eof-trailing.blow5|record 4: 1 byte after BLOW5's end-of-file marker
empty-line.slow5|record 2: an empty line
version-missing.slow5|SLOW5 header: header line 1: version '' is not X.Y.Z
EOF
}

@test "SLOW5 text, BLOW5 (zlib records, none, zlib signal) and slow5lib's own BLOW5: the same lines, valgrind clean" {
    gpuasm_have_slow5 || skip "built without slow5lib"
    make_model
    local c
    for c in good.slow5 good.blow5 good-none.blow5 good-zlibsig.blow5; do
        "$PYTHON3" "$BLOW5_PY" "$T/$c" "$c"
    done
    sig --tsv -p "$T/k2.tsv" "$T/good.slow5" "$T/g4k.fa" > "$T/text.tsv"
    [ "$(wc -l < "$T/text.tsv")" -eq 7 ]
    for c in good.blow5 good-none.blow5 good-zlibsig.blow5; do
        sig --tsv -p "$T/k2.tsv" "$T/$c" "$T/g4k.fa" | cmp "$T/text.tsv" -
    done
    if [ -x "$GPUASM_SLOW5_CONVERT" ]; then
        "$GPUASM_SLOW5_CONVERT" "$T/good.slow5" "$T/lib.blow5" zlib
        sig --tsv -p "$T/k2.tsv" "$T/lib.blow5" "$T/g4k.fa" | cmp "$T/text.tsv" -
    fi
    if command -v valgrind >/dev/null && ! nm "$GPUASM_SIGNAL" 2>/dev/null | grep -q __asan_init; then
        for c in good.slow5 good.blow5 good-zlibsig.blow5; do
            valgrind -q --error-exitcode=99 "$GPUASM_SIGNAL" --tsv -p "$T/k2.tsv" "$T/$c" "$T/g4k.fa" > "$T/vg.tsv"
            cmp "$T/text.tsv" "$T/vg.tsv"
        done
    fi
}

@test "a pre-release (v0.1) BLOW5 is named as such (issue #31: 'record 1 (\$): no values')" {
    printf '##file_format=blow5v0.1\n#read_id\tn_samples\n' > "$T/old.blow5"
    make_model
    GPUASM_PROG=gpuasm-signal
    run --separate-stderr sig -p "$T/k2.tsv" "$T/old.blow5" "$T/g4k.fa"
    assert_only_error "$T/old.blow5: a pre-release SLOW5/BLOW5 file (v0.1" "convert it"
}

@test "a flat signal (no variation after normalisation) is reported as flat and never passed, whatever --norm" {
    make_model
    {
        printf 'flat'; for i in $(seq 300); do printf ' 1.5'; done; printf '\n'
        printf 'one 2.0\n'
        printf 'live'; for i in $(seq 100); do printf ' %s' $((i % 7)); done; printf '\n'
    } > "$T/reads.txt"
    local norm
    for norm in mad sd none; do
        run --separate-stderr sig --norm "$norm" -t 100 -p "$T/k2.tsv" "$T/reads.txt" "$T/g4k.fa"
        assert_success
        assert_equal "$(grep -c $'^flat\t.*\tpa:A:N\t.*\tfl:A:Y$' <<< "$output")" 2
        assert_equal "$(grep -c $'^one\t.*\tpa:A:N\t.*\tfl:A:Y$' <<< "$output")" 2
        # a signal that varies passes the lax threshold, and has no fl tag
        assert_equal "$(grep -c $'^live\t.*\tpa:A:Y\t' <<< "$output")" 2
        ! grep -q $'^live\t.*fl:A' <<< "$output"
        [[ "$stderr" == *"warning: $T/reads.txt: 2 reads with no variation in their window after normalisation"*"the first: record 1 (flat)" ]]
        run sig --tsv --norm "$norm" -t 100 -p "$T/k2.tsv" "$T/reads.txt" "$T/g4k.fa"
        assert_equal "$(grep -c $'^flat\t.*\tflat$' <<< "$output")" 2
    done
}

@test "pore models: a column twice, levels that do not vary, a mean in other units, k-mers missing: refused" {
    make_model
    printf '1\n3\n5\n3\n1\n' > "$T/x.txt"
    GPUASM_PROG=gpuasm-signal
    awk 'BEGIN { OFS = "\t" } NR == 1 { print $0, "level_mean_pA"; next } { print $0, $2 * 2 }' "$T/k2.tsv" > "$T/dup.tsv"
    run --separate-stderr sig -p "$T/dup.tsv" "$T/x.txt" "$T/g4k.fa"
    assert_only_error "$T/dup.tsv: line 1: the header has the column level_mean_pA twice (columns 2 and 4)"
    awk 'BEGIN { OFS = "\t" } NR == 1 { print; next } { print $1, 80, $3 }' "$T/k2.tsv" > "$T/flat.tsv"
    run --separate-stderr sig -p "$T/flat.tsv" "$T/x.txt" "$T/g4k.fa"
    assert_only_error "$T/flat.tsv: every k-mer has the same level_mean_pA (80)"
    sed '1s/level_mean_pA/level_mean/' "$T/k2.tsv" > "$T/units.tsv"
    run --separate-stderr sig -p "$T/units.tsv" "$T/x.txt" "$T/g4k.fa"
    assert_only_error "$T/units.tsv: line 1: the header needs the columns kmer and level_mean_pA" "in other units"
    head -n 10 "$T/k2.tsv" > "$T/few.tsv"
    run --separate-stderr sig -p "$T/few.tsv" "$T/x.txt" "$T/g4k.fa"
    assert_only_error "$T/few.tsv: 9 of the 16 2-mers, GC the first missing"
}
