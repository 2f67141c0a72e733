#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# gpuasm-signal (issue #15): the command, its inputs, outputs and errors, on
# small inputs made here.  Real signals: tests/data/signal.bats.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    GPUASM_PROG=gpuasm-signal
    # seed 001 Fig. 4
    printf '1\n3\n5\n3\n1\n' > "$T/X.txt"
    printf '1\n2\n3\n4\n4\n2\n1\n2\n' > "$T/Y.txt"
}

sig() {
    "$GPUASM_SIGNAL" "$@"
}

# A k = 2 pore model whose 16 levels lie in [-3.75, 3.75] (so --norm none
# takes them as they are): level = (code - 7.5) / 2, code = 4 first + second.
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
    printf '>g1 a test genome\nACGTTGCAAGTCCATGGATCCGTAGCTAGGCTTACGGATC\n' > "$T/g.fa"
}

# The signal of k-mers [from, to) of SEQ, each level repeated 3 times, one
# signal per line named NAME.
kmer_signal() {  # NAME SEQ FROM TO
    awk -v name="$1" -v s="$2" -v f="$3" -v t="$4" 'BEGIN {
        code["A"] = 0; code["C"] = 1; code["G"] = 2; code["T"] = 3
        printf "%s", name
        for (i = f; i < t; i++) {
            c = code[substr(s, i + 1, 1)] * 4 + code[substr(s, i + 2, 1)]
            for (r = 0; r < 3; r++) printf " %s", (c - 7.5) / 2
        }
        printf "\n"
    }'
}

@test "gpuasm-signal --help and -V" {
    run sig --help
    assert_success
    assert_output --partial "Usage: gpuasm-signal"
    assert_output --partial "--signal-prefix"
    assert_output --partial "--pore-model"
    run sig -V
    assert_success
    assert_output --partial "gpuasm-signal"
    assert_output --partial "slow5lib"
}

@test "seed 001 Fig. 4: ADSM(1,3,5,3,1 ; 1,2,3,4,4,2,1,2) = 4 at Y[2..6] (PAF)" {
    run --separate-stderr sig --norm none "$T/X.txt" "$T/Y.txt"
    assert_success
    # 4 normalised units (256 steps of 1/64 inside); per sample 4 / 5 = 0.8; 0-based [1, 6)
    assert_output "$(printf 'X\t5\t0\t5\t+\tY\t8\t1\t6\t5\t5\t255\tad:f:4\tan:f:0.8000\tpa:A:N\tks:i:1\tke:i:6')"
    [ -z "$stderr" ]
}

@test "seed 001 Fig. 4 as TSV, and -t decides the pass column" {
    run sig --norm none --tsv -t 0.8 "$T/X.txt" "$T/Y.txt"
    assert_success
    assert_line --index 0 "$(printf 'read\tread_samples\tquery_start\tquery_end\ttarget\tstrand\ttarget_len\tref_start\tref_end\tkmer_start\tkmer_end\tcost\tcost_per_sample\tpass')"
    assert_line --index 1 "$(printf 'X\t5\t0\t5\tY\t+\t8\t1\t6\t1\t6\t4\t0.8000\tY')"
    run sig --norm none --tsv -t 0.79 "$T/X.txt" "$T/Y.txt"
    assert_line --index 1 --regexp $'\tN$'
}

@test "costs print in normalised units, exactly (steps of 1/64), in PAF and TSV" {
    # |0.5 - 0| + |0.015625 - 0| + |-0.25 - 0|: 0.765625 units = 49 steps of 1/64
    printf 'x 0.5 0.015625 -0.25\n' > "$T/q.txt"
    printf 'y 0 0 0 0\n' > "$T/r.txt"
    run sig --norm none "$T/q.txt" "$T/r.txt"
    assert_success
    assert_output --regexp $'\tad:f:0\\.765625\tan:f:0\\.2552\t'
    run sig --norm none --tsv "$T/q.txt" "$T/r.txt"
    assert_line --index 1 --regexp $'\t0\\.765625\t0\\.2552\t[YN]$'
    # the bundled Fig. 4 files (README's example) give the README's cost 4
    run sig --norm none --tsv "$TEST_DATA/fig4.X.txt" "$TEST_DATA/fig4.Y.txt"
    assert_line --index 1 --regexp $'^fig4\t5\t0\t5\tfig4\t\\+\t8\t1\t6\t1\t6\t4\t0\\.8000\t'
}

@test "text layouts: one signal per line (names, commas, CRLF, comments, gzip) = one value per line" {
    printf '# two signals\nfirst 1,3,5,3,1\r\n\n1 3 5\n' > "$T/reads.txt"
    gzip -c "$T/reads.txt" > "$T/reads.txt.gz"
    run sig --norm none --tsv "$T/reads.txt" "$T/Y.txt"
    assert_success
    assert_line --index 1 --regexp $'^first\t5\t0\t5\tY\t\\+\t8\t1\t6\t1\t6\t4\t'
    assert_line --index 2 --regexp $'^signal2\t3\t'
    run sig --norm none --tsv "$T/reads.txt.gz" "$T/Y.txt"
    assert_line --index 1 --regexp $'^first\t5\t0\t5\tY\t\\+\t8\t1\t6\t1\t6\t4\t'
    # the reference may be a one-signal-per-line file too
    printf 'Yref 1 2 3 4 4 2 1 2\n' > "$T/yref.txt"
    run sig --norm none --tsv "$T/X.txt" "$T/yref.txt"
    assert_line --index 1 --regexp $'^X\t5\t0\t5\tYref\t\\+\t8\t1\t6\t1\t6\t4\t'
}

@test "genome + pore model: both strands, the interval in forward bases" {
    make_model
    local s=ACGTTGCAAGTCCATGGATCCGTAGCTAGGCTTACGGATC rc
    rc=$(printf '%s' "$s" | rev | tr ACGT TGCA)
    { kmer_signal fwd "$s" 10 20; kmer_signal rev "$rc" 5 15; } > "$T/reads.txt"
    run --separate-stderr sig --norm none --tsv -p "$T/k2.tsv" "$T/reads.txt" "$T/g.fa"
    assert_success
    # k-mers [10, 20) of '+' cover bases [10, 21); k-mers [5, 15) of the
    # reverse complement cover forward bases [40 - 16, 40 - 5) = [24, 35)
    assert_line --index 1 "$(printf 'fwd\t30\t0\t30\tg1\t+\t40\t10\t21\t10\t20\t0\t0.0000\tY')"
    assert_line --index 4 "$(printf 'rev\t30\t0\t30\tg1\t-\t40\t24\t35\t5\t15\t0\t0.0000\tY')"
    assert_line --index 2 --regexp $'^fwd\t30\t0\t30\tg1\t-\t'
}

@test "the same lines whatever the threads, batch size, layout and segments" {
    make_model
    local s=ACGTTGCAAGTCCATGGATCCGTAGCTAGGCTTACGGATC
    for i in 0 3 7 11 15 19; do kmer_signal "r$i" "$s" "$i" $((i + 12)); done > "$T/reads.txt"
    sig --device cpu -p "$T/k2.tsv" "$T/reads.txt" "$T/g.fa" > "$T/a.paf"
    [ "$(wc -l < "$T/a.paf")" -eq 12 ]
    sig --device cpu -@ 2 --batch-size 1 -p "$T/k2.tsv" "$T/reads.txt" "$T/g.fa" > "$T/b.paf"
    sig --layout paper --segments 3 -p "$T/k2.tsv" "$T/reads.txt" "$T/g.fa" > "$T/c.paf"
    sig --cost abs -p "$T/k2.tsv" "$T/reads.txt" "$T/g.fa" > "$T/d.paf"
    cmp "$T/a.paf" "$T/b.paf"
    cmp "$T/a.paf" "$T/c.paf"
    cmp "$T/a.paf" "$T/d.paf"
    # the squared cost is another cost (and the same lines otherwise)
    sig --cost sq -p "$T/k2.tsv" "$T/reads.txt" "$T/g.fa" > "$T/e.paf"
    [ "$(wc -l < "$T/e.paf")" -eq 12 ]
    ! cmp -s "$T/a.paf" "$T/e.paf"
}

@test "threads: the report's start search on -@ N threads gives the one-thread lines byte for byte" {
    # 40 SIMULATED reads (tests/signal/simulate.py, k = 2 model above) of
    # 300 samples from both strands of a random 4 kb genome: every pair
    # has a start to search, the wrong strand's far from its end.
    make_model
    awk 'BEGIN { srand(15); printf ">g4k random\n"; for (i = 0; i < 4000; i++) printf "%s", substr("ACGT", int(rand() * 4) + 1, 1); printf "\n" }' > "$T/g4k.fa"
    python3 "$BATS_TEST_DIRNAME/../signal/simulate.py" --model "$T/k2.tsv" --reads 40 --samples 300 \
        "$T/sim.slow5" "$T/g4k.fa" 2> /dev/null
    awk -F'\t' '!/^[#@]/ { n = split($8, a, ","); printf "%s", $1
        for (i = 1; i <= n; i++) printf " %.9g", (a[i] + $4) * $5 / $3; printf "\n" }' \
        "$T/sim.slow5" > "$T/sim.txt"
    [ "$(wc -l < "$T/sim.txt")" -eq 40 ]
    local cost fmt t
    for cost in abs sq; do
        for fmt in "" --tsv; do
            sig --device cpu -@ 1 --cost "$cost" $fmt -p "$T/k2.tsv" "$T/sim.txt" "$T/g4k.fa" > "$T/one"
            [ "$(grep -vc '^read' "$T/one")" -eq 80 ]
            for t in 2 3; do
                # 1k samples a batch: 10 batches, the starts of one
                # searched while the next is scanned
                sig --device cpu -@ "$t" --batch-size 1k --stats "$T/st.json" --cost "$cost" $fmt \
                    -p "$T/k2.tsv" "$T/sim.txt" "$T/g4k.fa" > "$T/many"
                grep -q '"batches":10,' "$T/st.json"
                grep -q '"report_s":[0-9.]*,"starts_cpu_s":[0-9.]*}' "$T/st.json"
                cmp "$T/one" "$T/many"
            done
        done
    done
    # the starts are not all at their ends' fixed distance (there is
    # something to search)
    [ "$(awk -F'\t' '{ print $10 }' "$T/one" | sort -u | wc -l)" -gt 10 ]
}

@test "--signal-prefix, --signal-skip, and a window past the read's end" {
    run sig --norm none --tsv -n 3 "$T/X.txt" "$T/Y.txt"
    assert_line --index 1 --regexp $'^X\t5\t0\t3\tY\t'
    run sig --norm none --tsv --signal-skip 2 -n 2 "$T/X.txt" "$T/Y.txt"
    assert_line --index 1 --regexp $'^X\t5\t2\t4\tY\t'
    run sig --norm none --tsv --signal-skip 9 "$T/X.txt" "$T/Y.txt"
    assert_success
    assert_line --index 1 "$(printf 'X\t5\t5\t5\tY\t+\t8\tNA\tNA\tNA\tNA\tNA\tNA\tN')"
    run sig --norm none --signal-skip 9 "$T/X.txt" "$T/Y.txt"
    assert_output "$(printf 'X\t5\t5\t5\t+\tY\t8\t0\t0\t0\t0\t255\tad:f:-1\tpa:A:N')"
}

@test "--norm: mad and sd normalise each signal (an offset and a scale change nothing)" {
    awk '{ print $1 * 3 + 100 }' "$T/X.txt" > "$T/X2.txt"
    for n in mad sd; do
        sig --norm "$n" --tsv "$T/X.txt" "$T/Y.txt" | cut -f 8- > "$T/a"
        sig --norm "$n" --tsv "$T/X2.txt" "$T/Y.txt" | cut -f 8- > "$T/b"
        cmp "$T/a" "$T/b"
    done
    ! cmp -s <(sig --norm mad "$T/X.txt" "$T/Y.txt") <(sig --norm sd "$T/X.txt" "$T/Y.txt")
}

@test "--stats: JSON with the run's counts; -o writes the file" {
    run sig --norm none -o "$T/out.paf" --stats "$T/st.json" "$T/X.txt" "$T/Y.txt"
    assert_success
    [ -z "$output" ]
    [ "$(wc -l < "$T/out.paf")" -eq 1 ]
    run cat "$T/st.json"
    assert_output --partial '"program":"gpuasm-signal"'
    assert_output --partial '"reads":1,"bases":5,"records":1,"reads_with_hits":0'
    assert_output --partial '"cells":40'
}

@test "-o and --stats as gpuasm-scan's (util/output_file.h): never over an input, in place only on success" {
    # an output that is an input is refused before anything is read
    cp "$T/X.txt" "$T/Xc.txt"
    run --separate-stderr sig --norm none -o "$T/Xc.txt" "$T/Xc.txt" "$T/Y.txt"
    assert_only_error "-o $T/Xc.txt: this output is the reads file $T/Xc.txt (the same file): refusing to overwrite an input"
    cmp "$T/X.txt" "$T/Xc.txt"
    ln -s Y.txt "$T/ylink.txt"
    run --separate-stderr sig --norm none --stats "$T/ylink.txt" -o "$T/o.paf" "$T/X.txt" "$T/Y.txt"
    assert_only_error "--stats $T/ylink.txt: this output is the reference $T/Y.txt (the same file)"
    [ ! -e "$T/o.paf" ]
    run --separate-stderr sig --norm none --stats "$T/o.paf" -o "$T/o.paf" "$T/X.txt" "$T/Y.txt"
    assert_only_error "--stats $T/o.paf: also given to -o ($T/o.paf): two outputs of one run in one file"
    run --separate-stderr sig --norm none --tsv --stats - "$T/X.txt" "$T/Y.txt"
    assert_only_error "--stats -: standard output carries the TSV output (give -o FILE)"
    # --stats - with -o FILE: the JSON on standard output
    run --separate-stderr sig --norm none --stats - -o "$T/o.paf" "$T/X.txt" "$T/Y.txt"
    assert_success
    assert_output --partial '"program":"gpuasm-signal"'
    [ "$(wc -l < "$T/o.paf")" -eq 1 ]
    # a failed run leaves an earlier output as it was, and no temporary file
    printf 'a 1 2 3\nb 1 x 3\n' > "$T/bad.txt"
    cp "$T/o.paf" "$T/before.paf"
    run --separate-stderr sig --norm none -o "$T/o.paf" --stats "$T/st.json" "$T/bad.txt" "$T/Y.txt"
    assert_one_error "bad.txt" "record 2 (b)"
    cmp "$T/before.paf" "$T/o.paf"
    [ ! -e "$T/st.json" ]
    [ -z "$(find "$T" -name '.*gpuasm-*')" ]
}

@test "errors: one line naming the file and the record, exit 1, no output file left" {
    printf 'a 1 2 3\nb 1 x 3\n' > "$T/bad.txt"
    run --separate-stderr sig --norm none -o "$T/o.paf" "$T/bad.txt" "$T/Y.txt"
    assert_one_error "bad.txt" "record 2 (b)" "'x' is not a number"
    [ ! -e "$T/o.paf" ]
    printf '1\n2 3\n' > "$T/two.txt"
    run --separate-stderr sig --norm none "$T/two.txt" "$T/Y.txt"
    assert_one_error "two.txt" "line 2" "several values"
    printf 'a\n' > "$T/noval.txt"
    run --separate-stderr sig "$T/noval.txt" "$T/Y.txt"
    assert_one_error "noval.txt" "record 1 (a)" "no values"
    printf '1\n200\n' > "$T/big.txt"
    run --separate-stderr sig --norm none "$T/big.txt" "$T/Y.txt"
    assert_one_error "big.txt" "record 1" "value 200 at sample 1" "--norm"
    run --separate-stderr sig "$T/missing.txt" "$T/Y.txt"
    assert_one_error "missing.txt" "cannot open"
    run --separate-stderr sig "$T/X.txt" "$T/missing-ref.txt"
    assert_one_error "missing-ref.txt"
}

@test "errors: a FASTA reference needs -p; bad pore models" {
    make_model
    run --separate-stderr sig "$T/X.txt" "$T/g.fa"
    assert_one_error "g.fa" "-p"
    head -n 10 "$T/k2.tsv" > "$T/short.tsv"
    run --separate-stderr sig -p "$T/short.tsv" "$T/X.txt" "$T/g.fa"
    assert_one_error "short.tsv" "9 of the 16 2-mers" "GC the first missing"
    bad_model nocol '1s/level_mean_pA/mean/' "line 1" "level_mean_pA"
    bad_model badk '3s/^AC/AN/' "line 3" "AN"
    bad_model lenk '3s/^AC/AAA/' "line 3" "not 2 long"
    bad_model dup '3s/^AC/AA/' "line 3" "AA twice"
}

# The model with one sed edit must fail with a message naming the file and
# the given words.
bad_model() {  # NAME SED WORDS...
    local name=$1 edit=$2
    shift 2
    sed "$edit" "$T/k2.tsv" > "$T/$name.tsv"
    run --separate-stderr sig -p "$T/$name.tsv" "$T/X.txt" "$T/g.fa"
    assert_one_error "$name.tsv" "$@"
}

@test "errors: options out of range, and a window longer than the kernel takes" {
    run --separate-stderr sig --cost cube "$T/X.txt" "$T/Y.txt"
    assert_only_error "--cost" "cube"
    run --separate-stderr sig --norm zscore "$T/X.txt" "$T/Y.txt"
    assert_only_error "--norm" "zscore"
    run --separate-stderr sig -n 40000 "$T/X.txt" "$T/Y.txt"
    assert_only_error "--signal-prefix" "40000"
    run --separate-stderr sig --layout fancy "$T/X.txt" "$T/Y.txt"
    assert_only_error "--layout" "fancy"
    run --separate-stderr sig -t -1 "$T/X.txt" "$T/Y.txt"
    assert_only_error "--threshold"
    run --separate-stderr sig "$T/X.txt"
    assert_only_error "expected <reads> and a reference"
    awk 'BEGIN { printf "long"; for (i = 0; i < 33000; i++) printf " %d", i % 7; printf "\n" }' > "$T/long.txt"
    run --separate-stderr sig -n 0 "$T/long.txt" "$T/Y.txt"
    assert_one_error "long.txt" "record 1 (long)" "33000 samples" "--signal-prefix"
    run --separate-stderr sig -n 32768 "$T/long.txt" "$T/Y.txt"
    assert_success
}

@test "gpuasm-scan points the signal kernel to gpuasm-signal" {
    GPUASM_PROG=gpuasm-scan
    run --separate-stderr scan --kernel dtw "$READS" "$TARGETS"
    assert_only_error "gpuasm-signal"
    run --separate-stderr scan --mode signal "$READS" "$TARGETS"
    assert_only_error "gpuasm-signal"
}

# SLOW5 text made here (R9.4.1 numbers: digitisation 8192, range 1467.61).
make_slow5() {
    {
        printf '#slow5_version\t0.2.0\n#num_read_groups\t1\n@note\tmade by tests/bats/signal.bats\n'
        printf '#char*\tuint32_t\tdouble\tdouble\tdouble\tdouble\tuint64_t\tint16_t*\n'
        printf '#read_id\tread_group\tdigitisation\toffset\trange\tsampling_rate\tlen_raw_signal\traw_signal\n'
        printf 'r1\t0\t8192\t10\t1467.61\t4000\t5\t100,400,700,400,100\n'
        printf 'r2\t0\t8192\t10\t1467.61\t4000\t3\t700,100,400\n'
    } > "$T/r.slow5"
    # the same signals in pA, as text: (raw + 10) x 1467.61 / 8192
    awk 'BEGIN { split("100,400,700,400,100", a, ","); printf "r1"; for (i = 1; i <= 5; i++) printf " %.9g", (a[i] + 10) * 1467.61 / 8192; printf "\n"
                 split("700,100,400", b, ","); printf "r2"; for (i = 1; i <= 3; i++) printf " %.9g", (b[i] + 10) * 1467.61 / 8192; printf "\n" }' > "$T/r.txt"
}

@test "SLOW5 and BLOW5 through slow5lib: pA per record, the same lines as the text signals" {
    make_slow5
    if ! sig -V | grep -q '^slow5lib yes'; then
        run --separate-stderr sig "$T/r.slow5" "$T/Y.txt"
        assert_one_error "r.slow5" "without slow5lib"
        return
    fi
    sig --tsv "$T/r.txt" "$T/Y.txt" > "$T/text.tsv"
    sig --tsv "$T/r.slow5" "$T/Y.txt" > "$T/slow5.tsv"
    cmp "$T/text.tsv" "$T/slow5.tsv"
    "$GPUASM_SLOW5_CONVERT" "$T/r.slow5" "$T/r.blow5" zlib
    sig --tsv "$T/r.blow5" "$T/Y.txt" > "$T/blow5.tsv"
    cmp "$T/text.tsv" "$T/blow5.tsv"
    # the pA conversion itself: r1's sample 1 in pA, in --norm none's refusal
    run --separate-stderr sig --norm none "$T/r.slow5" "$T/Y.txt"
    assert_one_error "r.slow5" "record 1 (r1)" "value 19.7"
    # svb-zd, slow5tools' default: decoded, or refused where configure found
    # this slow5lib unsafe with it (Debian 0.7.0)
    "$GPUASM_SLOW5_CONVERT" "$T/r.slow5" "$T/svb.blow5" svb-zd
    run --separate-stderr sig --tsv "$T/svb.blow5" "$T/Y.txt"
    if [ "$status" -eq 0 ]; then
        assert_output "$(cat "$T/text.tsv")"
    else
        assert_one_error "svb.blow5" "svb-zd"
    fi
    # a BLOW5 cut short
    head -c 100 "$T/r.blow5" > "$T/cut.blow5"
    run --separate-stderr sig "$T/cut.blow5" "$T/Y.txt"
    assert_one_error "cut.blow5"
}
