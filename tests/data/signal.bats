#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Real raw signal (issue #15): the R9.4.1 chr22 reads of ../shared/data/signals
# and its 6-mer pore model.  The BLOW5 there predates the format slow5lib
# reads (blow5v0.1), so blow5v01_to_slow5.py rewrites it as SLOW5 text in
# the test's temporary folder first (tests/signal/README.md).

setup() {
    load ../bats/helpers
    require_shared_data
    D=$GPUASM_SHARED_DATA
    T=$BATS_TEST_TMPDIR
    GPUASM_PROG=gpuasm-signal
    LEGACY=$D/signals/chr22_meth_example-subset.blow5
    MODEL=$D/signals/r9.4.1_400bps_6mer.model.tsv
    MEASLES=$D/genomes/measles_K01711.1.fasta
    [ -f "$LEGACY" ] || skip "no $LEGACY"
    "$PYTHON3" "$GPUASM_TESTS_DIR/signal/blow5v01_to_slow5.py" "$LEGACY" "$T/chr22.slow5"
}

sig() {
    "$GPUASM_SIGNAL" "$@"
}

have_slow5() {
    sig -V | grep -q '^slow5lib yes'
}

@test "a BLOW5 v0.1 file is refused in one line that names the converter, whose output reads" {
    run --separate-stderr sig -p "$MODEL" "$LEGACY" "$MEASLES"
    assert_only_error "chr22_meth_example-subset.blow5" "BLOW5 v0.1" "blow5v01_to_slow5.py"
    have_slow5 || skip "gpuasm-signal built without slow5lib"
    run sig -p "$MODEL" "$T/chr22.slow5" "$MEASLES"
    assert_success
    [ "${#lines[@]}" -eq 20 ]
}

@test "chr22 signals: SLOW5 (slow5lib), BLOW5 (zlib) and pA text give the same lines" {
    have_slow5 || skip "gpuasm-signal built without slow5lib"
    sig -@ 2 -p "$MODEL" "$T/chr22.slow5" "$MEASLES" > "$T/slow5.paf"
    [ "$(wc -l < "$T/slow5.paf")" -eq 20 ]
    "$GPUASM_SLOW5_CONVERT" "$T/chr22.slow5" "$T/chr22.blow5" zlib
    sig -@ 2 -p "$MODEL" "$T/chr22.blow5" "$MEASLES" > "$T/blow5.paf"
    cmp "$T/slow5.paf" "$T/blow5.paf"
    # pA by hand (the first 2,000 samples of each read), as text
    awk -F'\t' '!/^[#@]/ { n = split($8, a, ","); printf "%s", $1
        for (i = 1; i <= n && i <= 2000; i++) printf " %.9g", (a[i] + $4) * $5 / $3
        printf "\n" }' "$T/chr22.slow5" > "$T/chr22.txt"
    sig -@ 2 -p "$MODEL" "$T/chr22.txt" "$MEASLES" | cut -f 1,3- > "$T/text.paf"
    cut -f 1,3- "$T/slow5.paf" > "$T/slow5.cut"
    cmp "$T/slow5.cut" "$T/text.paf"
    # the first sample of the first read: (1373 + 3) x 1467.61 / 8192 = 246.5 pA
    printf '1\n2\n3\n' > "$T/y.txt"
    run --separate-stderr sig --norm none "$T/chr22.slow5" "$T/y.txt"
    assert_one_error "chr22.slow5" "record 1 (11b6cd19-3958-4264-a6f0-04aef956ebbd)" "value 246.5"
    # and a pore model's levels, in pA, are no --norm none reference
    run --separate-stderr sig --norm none -p "$MODEL" "$T/chr22.slow5" "$MEASLES"
    assert_one_error "measles_K01711.1.fasta" "strand +" "--norm"
}

@test "chr22 signals: PAF columns, both strands, same lines for -@ 1, --batch-size, --layout paper" {
    sig --device cpu -p "$MODEL" "$T/chr22.slow5" "$MEASLES" > "$T/a.paf" || skip "no slow5lib"
    awk -F'\t' 'NF != 17 || $2 < $4 || $3 >= $4 || ($5 != "+" && $5 != "-") || $7 != 15894 ||
                $8 >= $9 || $9 > 15894 || $12 != 255 || $13 !~ /^ad:f:[0-9.]+$/ || $15 !~ /^pa:A:[YN]$/ { bad++ }
                END { exit bad > 0 }' "$T/a.paf"
    [ "$(cut -f 5 "$T/a.paf" | sort | uniq -c | awk '{ print $1 }' | paste -sd,)" = "10,10" ]
    sig --device cpu -@ 2 --batch-size 3000 -p "$MODEL" "$T/chr22.slow5" "$MEASLES" > "$T/b.paf"
    sig --layout paper -p "$MODEL" "$T/chr22.slow5" "$MEASLES" > "$T/c.paf"
    cmp "$T/a.paf" "$T/b.paf"
    cmp "$T/a.paf" "$T/c.paf"
}

@test "test_dtw on the real signals: a warped segment of one read against the others" {
    export GPUASM_TEST_ONLY=real
    GPUASM_SIGNAL_READS=$T/chr22.slow5 run "$GPUASM_TEST_DTW_BIN"
    if ! have_slow5; then
        # without slow5lib the reads come as text
        awk -F'\t' '!/^[#@]/ { n = split($8, a, ","); printf "%s", $1
            for (i = 1; i <= n; i++) printf " %.9g", (a[i] + $4) * $5 / $3; printf "\n" }' \
            "$T/chr22.slow5" > "$T/chr22.txt"
        GPUASM_SIGNAL_READS=$T/chr22.txt run "$GPUASM_TEST_DTW_BIN"
    fi
    assert_success
    assert_output --partial "real signals, layout best"
    refute_output --partial "not ok"
}

@test "screening: simulated measles reads pass on their own strand, real human windows do not" {
    have_slow5 || skip "gpuasm-signal built without slow5lib"
    "$PYTHON3" "$GPUASM_TESTS_DIR/signal/simulate.py" --model "$MODEL" --reads 6 --samples 2000 \
        "$T/sim.slow5" "$MEASLES"
    # 20 windows of 2,000 samples of the human reads
    awk -F'\t' 'BEGIN { OFS = "\t" } /^[#@]/ { print; next }
        { n = split($8, a, ","); for (o = 0; o + 2000 <= n && w < 20; o += 2000) {
            s = a[o + 1]; for (i = 2; i <= 2000; i++) s = s "," a[o + i]
            print $1 ":" o, $2, $3, $4, $5, $6, 2000, s; w++ } }' "$T/chr22.slow5" > "$T/human.slow5"
    sig --tsv -@ 2 -p "$MODEL" "$T/sim.slow5" "$MEASLES" > "$T/sim.tsv"
    sig --tsv -@ 2 -p "$MODEL" "$T/human.slow5" "$MEASLES" > "$T/human.tsv"
    # every simulated read: its best line passes, on its own strand, overlapping its bases
    run awk -F'\t' 'NR > 1 { if (!($1 in best) || $13 < best[$1]) { best[$1] = $13; line[$1] = $0 } }
        END { for (r in best) { split(line[r], f, "\t"); n = split(r, p, "_")
                if (f[14] != "Y" || f[6] != p[n - 3] || f[8] >= p[n - 1] || f[9] <= p[n - 2]) bad++
                reads++ }
              print reads, bad + 0 }' "$T/sim.tsv"
    assert_output "6 0"
    run awk -F'\t' 'NR > 1 && $14 == "Y" { pass++ } NR > 1 { n++ } END { print n, pass + 0 }' "$T/human.tsv"
    assert_output "40 0"
}
