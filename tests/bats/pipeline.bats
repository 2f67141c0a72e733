#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The streaming pipeline (cli/pipeline.c): the same bytes whatever the
# batch size and thread count, --stats, the progress line, errors in the
# middle of a stream, bounded memory, and --device parsing.  CPU only.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
}

# Run gpuasm-scan on the CPU with the given options for each batch size and
# thread count, and check every output equals the first (ignoring @PG).
# Arguments: the reads, the targets, then extra options.
same_for_all_batchings() {
    local reads=$1 targets=$2 ref="" bs th
    shift 2
    for th in 1 2 4; do
        for bs in default 1 100; do
            local opt=()
            [ "$bs" = default ] || opt=(--batch-size "$bs")
            run --separate-stderr scan --device cpu -@ "$th" "${opt[@]}" "$@" "$reads" "$targets"
            strip_summary
            assert_success
            assert_equal "$stderr" ""
            no_pg <<<"$output" > "$T/out.$th.$bs.sam"
            if [ -z "$ref" ]; then
                ref=$T/out.$th.$bs.sam
                # A comparison of empty outputs would prove nothing.
                [ "$(records "$ref" | wc -l)" -gt 0 ]
            else
                cmp "$ref" "$T/out.$th.$bs.sam" ||
                    { echo "-@ $th --batch-size $bs differs from $ref" >&2; return 1; }
            fi
        done
    done
}

# Run a command with stderr on a pseudo-terminal and stdout to a file.
# Arguments: the file, the command.  Prints what the terminal received.
with_tty_stderr() {
    "$PYTHON3" - "$@" <<'PY'
import os, pty, subprocess, sys
master, slave = pty.openpty()
with open(sys.argv[1], "wb") as out:
    p = subprocess.Popen(sys.argv[2:], stdout=out, stderr=slave, stdin=subprocess.DEVNULL)
os.close(slave)
got = b""
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:   # EIO: the child side closed
        break
    if not chunk:
        break
    got += chunk
sys.stdout.write(got.decode("utf-8", "replace"))
sys.exit(p.wait())
PY
}

# The last progress line of a stderr text ("\r" separated updates).
last_progress() {
    printf '%s' "$1" | tr '\r' '\n' | grep -E '.' | tail -n 1
}

# FASTQ of n reads of length len named PREFIXi, deterministic: slices of a pseudo-random
# pool (an LCG), with a TruSeq adapter prefix in every 7th read so that
# there are hits.
make_reads() {
    awk -v n="$1" -v len="$2" -v pre="${3:-read}" 'BEGIN {
        s = 12345; split("ACGT", b, ""); pool = ""
        for (i = 0; i < 20000; i++) { s = (s * 1103515245 + 12345) % 2147483648; pool = pool b[int(s / 65536) % 4 + 1] }
        q = sprintf("%*s", len, ""); gsub(/ /, "I", q)
        for (i = 1; i <= n; i++) {
            seq = substr(pool, (i * 7919) % (20000 - len) + 1, len)
            if (i % 7 == 0) seq = "AGATCGGAAGAGC" substr(seq, 14)
            printf "@%s%d\n%s\n+\n%s\n", pre, i, seq, q
        }
    }'
}

@test "sample: same bytes for --batch-size default/1/100 and -@ 1/2/4" {
    same_for_all_batchings "$READS" "$TARGETS"
    # and they are the golden output
    no_pg "$EXPECTED_SAM" | cmp - "$T/out.1.default.sam"
}

@test "SAM text made by the report threads = htslib's sam_write1 bytes (samtools view of the BAM), SAM and .sam.gz, any batching" {
    require_samtools
    make_reads 3000 100 > "$T/r.fq"
    for run in "-@ 1" "-@ 4 --batch-size 1" "-@ 2 --batch-size 5k"; do
        # shellcheck disable=SC2086
        scan --device cpu --no-PG $run --all --unmatched -o "$T/o.bam" "$T/r.fq" "$TARGETS"
        # shellcheck disable=SC2086
        scan --device cpu --no-PG $run --all --unmatched -o "$T/o.sam" "$T/r.fq" "$TARGETS"
        # shellcheck disable=SC2086
        scan --device cpu --no-PG $run --all --unmatched -o "$T/o.sam.gz" "$T/r.fq" "$TARGETS"
        samtools view --no-PG -h -o "$T/h.sam" "$T/o.bam"
        samtools view --no-PG -h -O sam.gz -o "$T/h.sam.gz" "$T/o.bam"
        [ "$(records "$T/h.sam" | wc -l)" -ge 3000 ]
        cmp "$T/o.sam" "$T/h.sam"
        # the same BGZF blocks too: one record never spans two (bgzf_flush_try)
        cmp "$T/o.sam.gz" "$T/h.sam.gz"
    done
}

@test "sample --all --unmatched --eqx: same bytes for every batching" {
    same_for_all_batchings "$READS" "$TARGETS" --all --unmatched --eqx
}

@test "paired BAM (mates), real data: same bytes for every batching" {
    require_shared_data
    local D=$GPUASM_SHARED_DATA
    same_for_all_batchings "$D/reads/ebola_viralngs/G5012.3.subset.bam" \
        "$D/genomes/ebola_G5012.3_consensus.fasta" --unmatched --keep-tags
    # the mate fields were filled (RNEXT "=" on some record)
    records "$T/out.1.default.sam" | awk '$7 == "=" { n++ } END { exit !(n > 0) }'
}

@test "Hm2 R1 vs measles+phiX+lambda: same bytes for -@ 1 default, -@ 2 --batch-size 5k, -@ 4 --batch-size 1" {
    require_shared_data
    local D=$GPUASM_SHARED_DATA
    local rf=$D/reads/measles_sequana/Hm2_GTGAAA_L005_R1_001.fastq.gz
    cat "$D/genomes/measles_K01711.1.fasta" "$D/genomes/phiX174_NC_001422.1.fasta" \
        "$D/genomes/lambda_NC_001416.1.fasta" > "$T/viruses.fa"
    scan --device cpu -@ 1 "$rf" "$T/viruses.fa" | no_pg > "$T/a.sam"
    scan --device cpu -@ 2 --batch-size 5k "$rf" "$T/viruses.fa" | no_pg > "$T/b.sam"
    scan --device cpu -@ 4 --batch-size 1 "$rf" "$T/viruses.fa" | no_pg > "$T/c.sam"
    [ "$(records "$T/a.sam" | wc -l)" -gt 1000 ]
    cmp "$T/a.sam" "$T/b.sam"
    cmp "$T/a.sam" "$T/c.sam"
}

@test "--stats writes one JSON object whose counts match the SAM" {
    run --separate-stderr scan --device cpu -@ 2 --batch-size 1 --unmatched \
        --stats "$T/s.json" -o "$T/out.sam" "$READS" "$TARGETS"
    strip_summary
    assert_success
    assert_equal "$stderr" ""
    "$PYTHON3" -m json.tool "$T/s.json" > /dev/null
    local reads bases
    reads=$(awk 'END { print NR / 4 }' "$READS")
    bases=$(awk 'NR % 4 == 2 { n += length($0) } END { print n }' "$READS")
    "$PYTHON3" - "$T/s.json" "$T/out.sam" "$reads" "$bases" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
want = ["program", "version", "device", "simd", "filter", "filter_plan", "lanes", "reads", "bases",
        "records", "reads_with_hits", "batches", "batch_bases", "rounds", "rescans", "max_memory", "wall_s",
        "scan_s", "kernel_s",
        "cells", "kernel_tcups", "reads_per_s", "end_hits", "index_strands", "index_declined", "pieces_kept",
        "pieces_dropped", "ends_run", "ends_skipped", "ends_settled", "periodic_cols", "index_build_s", "plan_s",
        "ends_kernel_s", "ends_cells", "ends_tcups", "engine_ready_at", "first_scan_at",
        "last_scan_end_at", "read_s", "encode_s", "report_s", "write_s",
        # the chance model (issue #26, align/chance.h)
        "max_chance", "partial_floor", "read_partial_floor", "chance_partial_per_read",
        "chance_read_partial_per_read", "chance_whole_per_read", "peak_rss_kb",
        # the per-target report (issue #10), in every run's --stats
        "sample", "reads_without_hits", "percent_with_hits", "any_target", "targets"]
assert list(s) == want, list(s)
recs = [l.split("\t") for l in open(sys.argv[2]) if not l.startswith("@")]
hit_reads = {r[0] for r in recs if not int(r[1]) & 4}
reads, bases = int(sys.argv[3]), int(sys.argv[4])
assert s["program"] == "gpuasm-scan", s
assert s["simd"] in ("avx512", "avx2", "sse4.1", "scalar"), s
assert s["device"] == "cpu (2 threads, %s)" % s["simd"], s
assert s["lanes"] == 1, s
assert s["reads"] == reads, (s["reads"], reads)
assert s["bases"] == bases, (s["bases"], bases)
assert s["records"] == len(recs), (s["records"], len(recs))
assert s["reads_with_hits"] == len(hit_reads), (s["reads_with_hits"], len(hit_reads))
assert s["batches"] == reads, s          # --batch-size 1: one unpaired read per batch
assert s["batch_bases"] == 1, s
assert s["rounds"] == s["batches"], s    # few hits: one scan round per batch
assert s["rescans"] == 0, s
assert s["max_memory"] == 1 << 30, s     # the default bound (issue #12)
assert s["cells"] > 0 and s["kernel_s"] > 0 and s["kernel_tcups"] > 0, s
assert s["ends_kernel_s"] == 0 and s["ends_cells"] == 0 and s["ends_tcups"] == 0, s   # CUDA only
assert s["kernel_s"] == s["scan_s"], s   # the CPU has no separate kernel clock
# the stage keys: instants in order within the run, busy times within it
assert 0 <= s["engine_ready_at"] <= s["first_scan_at"] <= s["last_scan_end_at"] <= s["wall_s"], s
for k in ("read_s", "encode_s", "report_s", "write_s"):
    assert 0 < s[k] < s["wall_s"] * 3, (k, s)   # report_s is summed over 2 threads
assert s["wall_s"] > 0 and s["reads_per_s"] > 0 and s["peak_rss_kb"] > 0, s
PY
}

@test "--stats: default batch size is the engine's (4M bases per CPU thread), capped at 4M" {
    run --separate-stderr scan --device cpu -@ 3 --stats "$T/s.json" "$READS" "$TARGETS"
    strip_summary
    assert_success
    "$PYTHON3" -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["batch_bases"] == 4194304 and s["batches"] == 1, s' "$T/s.json"
}

@test "--stats: cells follow the kernels' rule (m x n per pair and strand, m > k)" {
    # reads of 20 and 3 bases; targets of 10 and 40 bases.  The shorter is
    # the pattern: a 10 x 20, c 20 x 40, then the 3-base read against both.
    printf '@r1\nACGTACGTACGTACGTACGT\n+\nIIIIIIIIIIIIIIIIIIII\n@r2\nACG\n+\nIII\n' > "$T/r.fq"
    printf '>a\nACGTACGTAC\n>c\n%s\n' "$(printf 'ACGT%.0s' {1..10})" > "$T/t.fa"
    run --separate-stderr scan --device cpu --stats "$T/s.json" "$T/r.fq" "$T/t.fa"
    strip_summary
    assert_success
    "$PYTHON3" -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["cells"] == 2*(10*20+20*40) + 2*(3*10+3*40), s' "$T/s.json"
    # -k 4: the 3-base read is not searched (m <= k)
    run --separate-stderr scan --device cpu -k 4 --stats "$T/s.json" "$T/r.fq" "$T/t.fa"
    strip_summary
    assert_success
    "$PYTHON3" -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["cells"] == 2*(10*20+20*40), s' "$T/s.json"
}

@test "--stats: the version is the program's" {
    run --separate-stderr scan --device cpu --stats "$T/s.json" "$READS" "$TARGETS"
    strip_summary
    assert_success
    "$PYTHON3" -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["version"] == sys.argv[2], s' \
        "$T/s.json" "$(scan --version | awk 'NR == 1 { print $2 }')"
}

@test "--stats to an unwritable place: exit 1, one message, no -o file" {
    run --separate-stderr scan --device cpu --stats "$T/no/such/dir/s.json" -o "$T/out.sam" \
        "$READS" "$TARGETS"
    strip_summary
    assert_one_error "$T/no/such/dir/s.json"
    [ ! -e "$T/out.sam" ]
}

@test "--progress in a pipe: one progress line format, final counts = reads and hits" {
    run --separate-stderr scan --device cpu --progress -o "$T/out.sam" "$READS" "$TARGETS"
    strip_summary
    assert_success
    local line reads hits
    line=$(last_progress "$stderr")
    reads=$(awk 'END { print NR / 4 }' "$READS")
    hits=$(records "$T/out.sam" | wc -l)
    [[ "$line" =~ ^gpuasm-scan:\ ([0-9]+)\ reads\ read,\ ([0-9]+)\ done,\ ([0-9]+)\ reads/s,\ ([0-9]+)\ hits\ *$ ]] ||
        { echo "bad progress line: '$line'" >&2; return 1; }
    assert_equal "${BASH_REMATCH[1]}" "$reads"
    assert_equal "${BASH_REMATCH[2]}" "$reads"
    assert_equal "${BASH_REMATCH[4]}" "$hits"
    # every update has the same shape; the line ends with a newline
    printf '%s' "$stderr" | tr '\r' '\n' | grep -E '.' |
        grep -Evq '^gpuasm-scan: [0-9]+ reads read, [0-9]+ done, [0-9]+ reads/s, [0-9]+ hits *$' && return 1
    [ "${#stderr_lines[@]}" -eq 1 ]
}

@test "--progress: hits count hit records, not the FLAG 4 ones of --unmatched" {
    run --separate-stderr scan --device cpu --progress --unmatched -o "$T/out.sam" "$READS" "$TARGETS"
    strip_summary
    assert_success
    local line hits
    line=$(last_progress "$stderr")
    hits=$(records "$T/out.sam" | awk 'int($2 / 4) % 2 == 0' | wc -l)
    [[ "$line" =~ \ ([0-9]+)\ hits\ *$ ]]
    assert_equal "${BASH_REMATCH[1]}" "$hits"
    [ "$hits" -lt "$(records "$T/out.sam" | wc -l)" ]
}

@test "progress updates about twice a second on a slow run" {
    # a FIFO that delivers its reads over ~1.6 s
    mkfifo "$T/slow.fq"
    { head -n 80 "$READS"; sleep 1.6; tail -n +81 "$READS"; } > "$T/slow.fq" &
    run --separate-stderr scan --device cpu --progress --batch-size 100 -o "$T/out.sam" \
        "$T/slow.fq" "$TARGETS"
    strip_summary
    wait
    assert_success
    local n
    n=$(printf '%s' "$stderr" | tr '\r' '\n' | grep -c 'reads/s')
    # updates at ~0.5, 1.0, 1.5 s and the final one; allow a slow machine
    [ "$n" -ge 3 ] || { echo "only $n progress updates: $stderr" >&2; return 1; }
    [ "$n" -le 8 ] || { echo "$n progress updates in ~1.6 s" >&2; return 1; }
}

@test "progress moves before the first batch is done: reads are counted as they are read" {
    # 20 reads, a pause, the rest: all in one default-sized batch, so none
    # is done before the input ends; the line must still count the 20.
    mkfifo "$T/slow.fq"
    { head -n 80 "$READS"; sleep 1.2; tail -n +81 "$READS"; } > "$T/slow.fq" &
    run --separate-stderr scan --device cpu --progress -o "$T/out.sam" "$T/slow.fq" "$TARGETS"
    strip_summary
    wait
    assert_success
    printf '%s' "$stderr" | tr '\r' '\n' | grep -Eq '^gpuasm-scan: 20 reads read, 0 done, ' ||
        { echo "no update with 20 reads read and none done: $stderr" >&2; return 1; }
    [[ "$(last_progress "$stderr")" == "gpuasm-scan: 42 reads read, 42 done, "* ]]
}

@test "no progress line in a pipe without --progress, or with --quiet" {
    run --separate-stderr scan --device cpu -o "$T/out.sam" "$READS" "$TARGETS"
    strip_summary
    assert_success
    assert_equal "$stderr" ""
    run --separate-stderr scan --device cpu --progress --quiet -o "$T/out.sam" "$READS" "$TARGETS"
    strip_summary
    assert_success
    assert_equal "$stderr" ""
}

@test "on a terminal: progress line by default, none with --quiet" {
    run with_tty_stderr "$T/tty.out" "$GPUASM_SCAN" --device cpu "$READS" "$TARGETS"
    assert_success
    [[ "$output" == *"gpuasm-scan: 42 reads read, 42 done, "*" hits"* ]] || { echo "no progress: '$output'" >&2; return 1; }
    no_pg "$T/tty.out" | cmp - <(no_pg "$EXPECTED_SAM")
    run with_tty_stderr "$T/tty.out" "$GPUASM_SCAN" --device cpu --quiet "$READS" "$TARGETS"
    assert_success
    assert_equal "$output" ""
}

@test "a malformed record after many good ones, tiny batches, 4 threads: one error, no -o or --stats file" {
    # quality longer than the sequence: htslib cannot resync on it
    { make_reads 3000 60; printf '@bad\nACGTACGTAC\n+\nIIIIIIIIIIIIIII\n'; make_reads 500 60 more; } > "$T/r.fq"
    printf '>adapter\nAGATCGGAAGAGC\n' > "$T/t.fa"
    local bs
    for bs in 1 200 1k; do
        rm -f "$T/out.sam" "$T/s.json"
        run --separate-stderr scan --device cpu -@ 4 --batch-size "$bs" -o "$T/out.sam" \
            --stats "$T/s.json" "$T/r.fq" "$T/t.fa"
        strip_summary
        assert_one_error "$T/r.fq" "record 3001" "bad"
        [ ! -e "$T/out.sam" ] || { echo "-o file left behind (--batch-size $bs)" >&2; return 1; }
        [ ! -e "$T/s.json" ] || { echo "--stats file left behind (--batch-size $bs)" >&2; return 1; }
    done
    # the same reads without the bad record are fine
    { make_reads 3000 60; make_reads 500 60 more; } > "$T/ok.fq"
    run --separate-stderr scan --device cpu -@ 4 --batch-size 1 -o "$T/out.sam" "$T/ok.fq" "$T/t.fa"
    strip_summary
    assert_success
    [ "$(records "$T/out.sam" | wc -l)" -gt 400 ]
}

@test "memory stays bounded: small batches use far less than one whole-input batch" {
    make_reads 100000 100 > "$T/r.fq"
    printf '>adapter\nAGATCGGAAGAGC\n' > "$T/t.fa"
    scan --device cpu -@ 2 --batch-size 20k --stats "$T/small.json" -o "$T/a.sam" "$T/r.fq" "$T/t.fa"
    scan --device cpu -@ 2 --batch-size 1G --stats "$T/big.json" -o "$T/b.sam" "$T/r.fq" "$T/t.fa"
    cmp <(no_pg "$T/a.sam") <(no_pg "$T/b.sam")
    "$PYTHON3" - "$T/small.json" "$T/big.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["reads"] == b["reads"] == 100000, (a, b)
assert a["batches"] >= 400 and b["batches"] == 1, (a, b)
# 10 MB of bases (plus names and qualities) in one batch vs a few 20k batches
# (not under ASan, make check-asan: its quarantine keeps freed batches, as
# hostile.bats's RSS bounds say)
import os
if not os.environ.get("ASAN_OPTIONS"):
    assert a["peak_rss_kb"] * 2 < b["peak_rss_kb"], (a["peak_rss_kb"], b["peak_rss_kb"])
PY
}

@test "--device: malformed specs exit 1 with one message" {
    local d
    for d in "cuda:x" "cuda:1," "cuda:" "cuda:,1" "cuda:-1" "cuda:+1" "cuda: 1" "cuda:1,,2" \
             "cuda:0,0" "cuda:all," "cuda:ALL" "gpu" "CPU" "cuda0" "cuda:99999" ""; do
        run --separate-stderr scan --device "$d" "$READS" "$TARGETS"
        strip_summary
        assert_one_error "--device"
        assert_equal "$output" ""
    done
}

@test "--device cuda:all / cuda:0,1 / cuda:1 without a GPU: exit 1, one message" {
    have_gpu && skip "a GPU is present"
    local d
    for d in cuda cuda:all cuda:0,1 cuda:1; do
        run --separate-stderr scan --device "$d" -o "$T/out.sam" "$READS" "$TARGETS"
        strip_summary
        assert_one_error "--device $d"
        [ ! -e "$T/out.sam" ]
    done
}

@test "--device auto on a small input: the CPU without starting CUDA (GPUASM_AUTO_CPU_CELLS), a note at --verbosity 4, same bytes either side of the threshold" {
    # The sample: ~4 k reads bases x ~1 k target bases, x 2 strands, ~1e7 cells.
    run --separate-stderr scan --device auto --verbosity 4 -@ 2 "$READS" "$TARGETS"
    strip_summary
    assert_success
    # (the floors' note of issue #26 and the filter's of issue #16 follow it)
    [[ "${stderr_lines[0]}" == "gpuasm-scan: info: --device auto: a small input (about "*" cells, under 5e+08 for 2 CPU threads: GPUASM_AUTO_CPU_CELLS): the CPU, without starting CUDA" ]] ||
        { echo "$stderr" >&2; return 1; }
    local l
    for l in "${stderr_lines[@]:1}"; do
        [[ "$l" == "gpuasm-scan: info: filter auto: "* || "$l" == "gpuasm-scan: info: partial occurrences of targets: "* ]] ||
            { echo "$stderr" >&2; return 1; }
    done
    no_pg <<<"$output" | cmp - <(no_pg "$EXPECTED_SAM")
    # --stats names the device taken: the CPU under the threshold
    scan --device auto -@ 2 --stats "$T/small.json" "$READS" "$TARGETS" > /dev/null
    grep -q '"device":"cpu' "$T/small.json"
    # Over the threshold (1 cell a thread): auto as before (CUDA where there
    # is one), no note, and the same bytes
    GPUASM_AUTO_CPU_CELLS=1 run --separate-stderr scan --device auto -@ 2 "$READS" "$TARGETS"
    strip_summary
    assert_success
    assert_equal "$stderr" ""
    no_pg <<<"$output" | cmp - <(no_pg "$EXPECTED_SAM")
    # An input of unknown size (standard input) keeps auto; a bad knob is an error
    GPUASM_AUTO_CPU_CELLS=1000000000000 run --separate-stderr scan --device auto --verbosity 4 - "$TARGETS" < "$READS"
    strip_summary
    assert_success
    [[ "$stderr" != *"a small input"* ]] || { echo "$stderr" >&2; return 1; }
    no_pg <<<"$output" | cmp - <(no_pg "$EXPECTED_SAM")
    GPUASM_AUTO_CPU_CELLS=-3 run --separate-stderr scan --device auto "$READS" "$TARGETS"
    strip_summary
    assert_failure
    assert_equal "$stderr" "gpuasm-scan: GPUASM_AUTO_CPU_CELLS='-3': expected an integer from 0 to 4611686018427387904"
}

@test "--device auto without a GPU: silent, same bytes as cpu; the fallback is a note at --verbosity 4" {
    have_gpu && skip "a GPU is present"
    run --separate-stderr scan --device auto -@ 2 --batch-size 100 "$READS" "$TARGETS"
    strip_summary
    assert_success
    assert_equal "$stderr" ""
    no_pg <<<"$output" | cmp - <(no_pg "$EXPECTED_SAM")
    # Asked for: one note (a build with CUDA; a build without has nothing
    # to fall back from), beside the filter's (issue #16).  Never with
    # --quiet.  GPUASM_AUTO_CPU_CELLS=0: try CUDA however small the input
    # (auto_device.h).
    GPUASM_AUTO_CPU_CELLS=0 run --separate-stderr scan --device auto --verbosity 4 "$READS" "$TARGETS"
    strip_summary
    assert_success
    local notes
    notes=$(grep -v '^gpuasm-scan: info: filter auto: \|^gpuasm-scan: info: partial occurrences of targets: ' <<<"$stderr" || true)
    [ "$(grep -c . <<<"$notes")" -le 1 ]
    if [ -n "$notes" ]; then
        [[ "$notes" == "gpuasm-scan: info: "*"using the CPU" ]] || { echo "$notes" >&2; return 1; }
    fi
    run --separate-stderr scan --device auto --verbosity 4 --quiet "$READS" "$TARGETS"
    strip_summary
    assert_success
    assert_equal "$stderr" ""
}

@test "--help lists --quiet, --progress, --stats and the --device forms" {
    run --separate-stderr scan --help
    strip_summary
    assert_success
    local w
    for w in --quiet --progress --stats "cuda:N,M" "cuda:all"; do
        [[ "$output" == *"$w"* ]] || { echo "--help lacks $w" >&2; return 1; }
    done
}

@test "GPU: every lane gives the CPU's bytes (cuda, cuda:all, tiny batches); stats agree" {
    have_gpu || skip "no GPU"
    require_shared_data
    local D=$GPUASM_SHARED_DATA d bs ndev
    local rf=$D/reads/measles_sequana/Hm2_GTGAAA_L005_R1_001.fastq.gz
    cat "$D/genomes/measles_K01711.1.fasta" "$D/genomes/phiX174_NC_001422.1.fasta" \
        "$D/genomes/lambda_NC_001416.1.fasta" > "$T/viruses.fa"
    ndev=$(nvidia-smi -L | grep -c '^GPU')
    scan --device cpu -@ 4 --stats "$T/cpu.json" "$rf" "$T/viruses.fa" | no_pg > "$T/cpu.sam"
    for d in cuda cuda:all; do
        for bs in 1k 20k default; do
            local opt=()
            [ "$bs" = default ] || opt=(--batch-size "$bs")
            scan --device "$d" -@ 4 "${opt[@]}" --stats "$T/gpu.json" "$rf" "$T/viruses.fa" |
                no_pg > "$T/gpu.sam"
            cmp "$T/cpu.sam" "$T/gpu.sam" || { echo "--device $d --batch-size $bs differs" >&2; return 1; }
            local lanes=1
            [ "$d" = cuda ] || lanes=$ndev
            "$PYTHON3" - "$T/cpu.json" "$T/gpu.json" "$lanes" <<'PY'
import json, sys
c, g = (json.load(open(p)) for p in sys.argv[1:3])
assert g["lanes"] == int(sys.argv[3]), g
assert g["device"].startswith("cuda:"), g
for k in ("reads", "bases", "records", "reads_with_hits", "cells"):
    assert g[k] == c[k], (k, g[k], c[k])   # same work, counted by the same rule
assert g["kernel_s"] > 0 and g["kernel_tcups"] > 0, g
PY
        done
    done
    # GPUASM_CUDA_LANES (issue #14's A/B knob): 1 and 4 lanes a device, same bytes
    for n in 1 4; do
        GPUASM_CUDA_LANES=$n scan --device cuda -@ 4 --batch-size 5k --stats "$T/gpu.json" \
            "$rf" "$T/viruses.fa" | no_pg > "$T/gpu.sam"
        cmp "$T/cpu.sam" "$T/gpu.sam" || { echo "GPUASM_CUDA_LANES=$n differs" >&2; return 1; }
        "$PYTHON3" -c 'import json, sys; g = json.load(open(sys.argv[1])); assert g["lanes"] == int(sys.argv[2]), g' \
            "$T/gpu.json" "$n"
    done
}

@test "report parts never split adjacent mates: one big batch = tiny batches" {
    bam=$GPUASM_SHARED_DATA/reads/ebola_viralngs/G5012.3.subset.bam
    ref=$GPUASM_SHARED_DATA/genomes/ebola_G5012.3_consensus.fasta
    [ -f "$bam" ] || skip "shared data not found"
    # One unpaired read first shifts the pairs to (odd, even) positions, so a
    # part boundary every 256 reads falls between two mates.
    { samtools view -H "$bam"
      samtools view "$bam" | head -n 1 | awk 'BEGIN{OFS="\t"} {$1="solo"; $2=4; print}'
      for i in 1 2 3 4; do samtools view "$bam"; done; } | samtools view -b -o "$BATS_TEST_TMPDIR/shifted.bam" -
    scan --device cpu --no-PG -@ 4 --batch-size 1G "$BATS_TEST_TMPDIR/shifted.bam" "$ref" > "$BATS_TEST_TMPDIR/big.sam"
    scan --device cpu --no-PG -@ 4 --batch-size 1000 "$BATS_TEST_TMPDIR/shifted.bam" "$ref" > "$BATS_TEST_TMPDIR/tiny.sam"
    [ "$(grep -vc '^@' "$BATS_TEST_TMPDIR/big.sam")" -gt 700 ]
    cmp "$BATS_TEST_TMPDIR/big.sam" "$BATS_TEST_TMPDIR/tiny.sam"
}
