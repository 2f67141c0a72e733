#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The seed kernels from the command line (issue #4): --kernel dp and scan
# give the bytes of the default myers kernel; --mode hamming agrees with an
# independent naive Hamming search; every refusal is one clear line.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
}

# The targets of the sample that are at most 64 bases (the adapters).
short_targets() {
    awk '/^>/ { keep = 0; name = $0; next } { seq[name] = seq[name] $0; order[++n] = name }
         END { for (i = 1; i <= n; i++) { nm = order[i]; if (done[nm]++) continue;
               if (length(seq[nm]) <= 64) print nm "\n" seq[nm] } }' "$TARGETS" > "$T/short.fa"
    [ "$(grep -c '^>' "$T/short.fa")" -ge 1 ]
}

@test "--kernel dp: the same SAM as --kernel myers (best hit, --all, --pattern target)" {
    for opts in "" "--all" "--pattern target -k 3" "--all --eqx -e 0.15"; do
        scan --device cpu --no-PG $opts "$READS" "$TARGETS" > "$T/myers.sam"
        scan --device cpu --no-PG --kernel dp $opts "$READS" "$TARGETS" > "$T/dp.sam"
        cmp "$T/myers.sam" "$T/dp.sam"
        [ "$(grep -vc "^@" "$T/dp.sam")" -gt 0 ]
    done
}

@test "--kernel dp with the default options equals the golden SAM" {
    scan --device cpu --no-PG --kernel dp "$READS" "$TARGETS" > "$T/dp.sam"
    diff -u "$EXPECTED_SAM" "$T/dp.sam"
}

@test "--kernel scan on the adapters: the same SAM as --kernel myers" {
    short_targets
    for opts in "" "--all" "-k 2" "-k 0 --all"; do
        scan --device cpu --no-PG $opts "$READS" "$T/short.fa" > "$T/myers.sam"
        scan --device cpu --no-PG --kernel scan $opts "$READS" "$T/short.fa" > "$T/scan.sam"
        cmp "$T/myers.sam" "$T/scan.sam"
    done
    [ "$(grep -vc '^@' "$T/scan.sam")" -gt 0 ]
}

@test "--kernel scan refuses a pattern over 64 bases, naming read and target" {
    run --separate-stderr scan --device cpu --kernel scan -o "$T/out.sam" "$READS" "$TARGETS"
    assert_failure 1
    assert_equal "${#stderr_lines[@]}" 1
    [[ "$stderr" == *"reads.fq: record 1 ("*"--kernel scan takes patterns of at most 64 bases"* ]]
    [[ "$stderr" == *"against target virus_alpha"* ]]
    [ ! -e "$T/out.sam" ]
}

@test "--mode hamming agrees with an independent naive Hamming search" {
    scan --device cpu --mode hamming "$READS" "$TARGETS" > "$T/h.sam"
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/naive_check.py" --mode hamming "$READS" "$TARGETS" "$T/h.sam"
    assert_success
    assert_output --regexp 'naive_check: 42 reads x 3 targets, [0-9]+ hits, all agree'
    # and the edit-mode SAM does not pass as Hamming (the check can fail)
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/naive_check.py" --mode hamming "$READS" "$TARGETS" "$EXPECTED_SAM"
    assert_failure
}

@test "--mode hamming with -k and --pattern target agrees with the naive search" {
    scan --device cpu --mode hamming -k 2 --pattern target "$READS" "$TARGETS" > "$T/h.sam"
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/naive_check.py" --mode hamming -k 2 --pattern target \
        "$READS" "$TARGETS" "$T/h.sam"
    assert_success
}

@test "--mode hamming: CIGARs have no gaps, NM counts mismatches; --kernel hamming is the same" {
    scan --device cpu --no-PG --mode hamming --all "$READS" "$TARGETS" > "$T/h.sam"
    scan --device cpu --no-PG --kernel hamming --all "$READS" "$TARGETS" > "$T/k.sam"
    cmp "$T/h.sam" "$T/k.sam"
    run awk '!/^@/ && $6 ~ /[ID]/' "$T/h.sam"
    assert_output ""
    [ "$(grep -vc '^@' "$T/h.sam")" -gt 10 ]
}

@test "--mode hamming and --kernel: bad values and conflicts are one-line errors" {
    # the sequence kernels as --help lists them (the table's order), joined as
    # the message joins them: no list of kernels to keep here
    local names
    names=$(scan --help | awk '/^        / && $2 ~ /^(edit|hamming)$/ && $3 != "" { n[++c] = $1 }
        END { for (i = 1; i <= c; i++) printf "%s%s", i == 1 ? "" : i == c ? " or " : ", ", n[i] }')
    [[ $names == "myers, "*" or "* ]]
    run --separate-stderr scan --kernel foo "$READS" "$TARGETS"
    assert_failure 1
    assert_equal "$stderr" "gpuasm-scan: invalid --kernel 'foo' (expected $names)"
    run --separate-stderr scan --mode levenshtein "$READS" "$TARGETS"
    assert_failure 1
    assert_equal "$stderr" "gpuasm-scan: invalid --mode 'levenshtein' (expected edit or hamming)"
    run --separate-stderr scan --mode hamming --kernel dp "$READS" "$TARGETS"
    assert_failure 1
    assert_equal "$stderr" "gpuasm-scan: --kernel dp is a kernel of --mode edit; --mode hamming needs a kernel of its own (e.g. --kernel hamming)"
    run --separate-stderr scan --kernel hamming --mode edit "$READS" "$TARGETS"
    assert_failure 1
    assert_equal "$stderr" "gpuasm-scan: --kernel hamming is a kernel of --mode hamming; --mode edit needs a kernel of its own (e.g. --kernel myers)"
    assert_equal "$output" ""
}

@test "--help names the kernels and the modes" {
    run scan --help
    assert_success
    assert_output --partial "--kernel NAME"
    assert_output --partial "--mode MODE"
    assert_output --partial "hamming (mismatches only"
}

@test "@PG CL records --kernel" {
    scan --device cpu --kernel dp "$READS" "$TARGETS" > "$T/dp.sam"
    grep -q '^@PG.*CL:.*--kernel dp' "$T/dp.sam"
}

@test "real data: phiX reads with --kernel dp and --mode hamming (dp = myers bytes)" {
    require_shared_data
    local D=$GPUASM_SHARED_DATA R=$GPUASM_SHARED_DATA/reads/phix_strobealign/phix.1.fastq
    local PHIX=$GPUASM_SHARED_DATA/genomes/phiX174_NC_001422.1.fasta
    scan --device cpu --no-PG -@ 2 "$R" "$PHIX" > "$T/myers.sam"
    scan --device cpu --no-PG -@ 2 --kernel dp "$R" "$PHIX" > "$T/dp.sam"
    cmp "$T/myers.sam" "$T/dp.sam"
    scan --device cpu --mode hamming -@ 2 "$R" "$PHIX" > "$T/h.sam"
    samtools quickcheck -v "$T/h.sam"
}
