# SPDX-License-Identifier: MIT
# bad_inputs.bash -- the malformed inputs of issue #12, one function each,
# shared by tests/bats/badinput.bats (which checks gpuasm-scan on every one)
# and tests/bad-input/table (which runs gpuasm-scan, samtools and cutadapt
# on them for docs/bad-input.md).
#
# case_NAME runs in an empty scratch directory $T, with the good inputs
# $READS and $TARGETS (test-data/), and sets:
#   desc          one line: the input
#   args=(...)    gpuasm-scan's arguments (the -o of the checks comes first)
#   want_status   0 or 1
#   want=(...)    status 1: strings the error line must hold (file, record,
#                 what); status 0: strings a warning line must hold (or none)
#   kind          reads | targets | option | output: which peer command
#                 tests/bad-input/table runs (on $peer, default args[0] for
#                 reads, the targets for targets)
#   peer          the file the peers read (optional)
#   loose         1: htslib prints lines of its own that are not [E::]/[W::]
#                 (perror-style): only the last line is checked
# A case that cannot run here returns 77, with skip_why saying why (default:
# it needs samtools).
# Beside the cases: the inputs of large and interrupted runs (make_big_fq,
# make_big_bam, start_mid_run, signal_mid_run) for the tests that load it.
# Everything it makes is small (the 10 Mb read and the 100,000 targets
# are made in a second or two).
#
# BAD_INPUT_CASES lists them in table order.

BAD_INPUT_CASES=(
    missing_file directory_reads dev_null empty_reads empty_stdin
    binary_garbage elf_binary nul_in_first_bytes
    gz_truncated gz_trailing_garbage gz_corrupt gz_header_only bgzf_fastq_no_eof
    bam_truncated bam_truncated_threads bam_header_truncated bam_corrupt_block
    bam_trailing_garbage bam_no_eof sam_bad_line cram_no_reference cram_cut_header
    fq_missing_plus fq_qual_short fq_qual_long fq_no_qual_line fq_fasta_record
    fq_name_255 fq_zero_length_read fq_all_n fq_10mb_line fq_crlf
    fq_control_bytes_in_name fq_utf8_name fq_nul_in_sequence fa_fastq_record
    pairs_count_differs pairs_names_differ
    targets_missing targets_directory targets_empty targets_header_only
    targets_empty_name targets_nul_in_name targets_binary targets_gz_truncated
    targets_gz_trailing targets_100000_tiny
    opt_k_negative opt_k_huge opt_k_ge_target opt_e_nan opt_e_one opt_threads_huge
    opt_batch_zero opt_batch_one opt_max_memory_tiny opt_device_bogus opt_verbosity_huge
    opt_format_bogus
    out_is_reads out_symlink_to_reads out_is_targets stats_is_reads out_missing_dir
    out_dev_full
    gz_empty_first_member bam_empty_first_block fq_rna fq_rna_after_first
    fq_qual_space fq_qual_del fq_cr_only bgzf_bad_bsize reads_xz reads_bzip2
    pairs_r2_empty targets_all_n targets_gap targets_star_digit opt_out_empty
    opt_both_stdin out_cram_reference_missing cram_reference_missing fq_long_read_max_memory
    out_is_stats outs_same_file out_read_only merge_reports_twice
)

# n copies of the sample FASTQ with unique names (16800 reads for n = 400).
make_big_fq() {
    awk -v n="$1" '{ line[NR] = $0 } END {
        for (c = 1; c <= n; c++) for (i = 1; i <= NR; i++)
            print (i % 4 == 1) ? "@c" c "_" substr(line[i], 2) : line[i] }' "$READS" > "$2"
}

# A BAM of those reads (gpuasm-scan's own output: no samtools needed), many
# BGZF blocks.
make_big_bam() {
    make_big_fq 400 "$T/big.fq"
    "$GPUASM_SCAN" --device cpu --no-PG --unmatched -O bam -o "$1" "$T/big.fq" "$TARGETS"
}

# Start a run's input on a FIFO: the first LINES lines of SRC are written,
# then the writer waits, so the run is caught mid-way with its temporary
# files open.  $T/feed is the writer's pid file.  Without arguments: the
# first half of 100 copies of the sample's reads on $T/in.fq.
start_mid_run() {   # [FIFO SRC LINES]
    local fifo=${1:-$T/in.fq} src=${2:-$T/src.fq} lines=${3:-16800}
    rm -f "$fifo"
    mkfifo "$fifo"
    [ $# -gt 0 ] || make_big_fq 100 "$src"
    # The writer: those lines, then hold the FIFO open until killed.
    ( exec 3>"$fifo"; head -n "$lines" "$src" >&3; exec sleep 60 ) &
    echo $! > "$T/feed"
}

# Python runs $MID_RUN_EXE (default gpuasm-scan) with ARGS... and default
# signal dispositions (a background job of a non-interactive shell starts
# with SIGINT and SIGQUIT ignored, which gpuasm then leaves alone, as nohup
# asks) and no core files (SIGQUIT, SIGXCPU), waits for a temporary file
# in $T, sends the signal SIG (SIGINT, ...) and prints "tmp-seen" or
# "tmp-not-seen" and the exit status as the shell shows it; stderr in
# $T/err.txt.
signal_mid_run() {   # SIG ARGS...
    local sig=$1; shift
    "$PYTHON3" - "$sig" "$T" "${MID_RUN_EXE:-$GPUASM_SCAN}" "$@" <<'PY'
import glob, os, resource, signal, subprocess, sys, time
sig, tdir, exe, args = getattr(signal, sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
def dfl():
    for s in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGALRM", "SIGVTALRM", "SIGUSR1",
              "SIGUSR2", "SIGXCPU"):
        signal.signal(getattr(signal, s), signal.SIG_DFL)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
p = subprocess.Popen([exe] + args, preexec_fn=dfl, stdout=subprocess.DEVNULL,
                     stderr=open(os.path.join(tdir, "err.txt"), "w"))
t0 = time.time()
while not glob.glob(os.path.join(tdir, ".*.gpuasm-*")) and time.time() - t0 < 30:
    time.sleep(0.05)
time.sleep(0.3)
seen = bool(glob.glob(os.path.join(tdir, ".*.gpuasm-*")))
p.send_signal(sig)
try:
    rc = p.wait(timeout=30)
except subprocess.TimeoutExpired:
    p.kill()
    print("hung")
    sys.exit(0)
print("%s %d" % ("tmp-seen" if seen else "tmp-not-seen", 128 - rc if rc < 0 else rc))
PY
}

# Flip one byte of a file at offset $2.
flip_byte() {
    "${PYTHON3:-python3}" -c 'import sys; p, o = sys.argv[1], int(sys.argv[2]); d = bytearray(open(p, "rb").read()); d[o] ^= 0xff; open(p, "wb").write(d)' "$1" "$2"
}

defaults() { want_status=1; want=(); kind=reads; peer=; loose=; skip_why=; }

# A small reads file $T/NAME made by printf FORMAT, read against the sample targets.
reads_text() { printf "$2" > "$T/$1"; args=("$T/$1" "$TARGETS"); }

# ---- reads files ------------------------------------------------------------------

case_missing_file() { defaults; desc="reads file that does not exist"
    args=("$T/nope.fq" "$TARGETS"); want=("$T/nope.fq" "No such file"); }
case_directory_reads() { defaults; desc="a directory as the reads file"
    mkdir "$T/dir.fq"; args=("$T/dir.fq" "$TARGETS"); want=("$T/dir.fq"); }
case_dev_null() { defaults; desc="/dev/null as the reads file (an empty read set)"
    args=(/dev/null "$TARGETS"); want_status=0; }
case_empty_reads() { defaults; desc="empty (0-byte) FASTQ"
    : > "$T/empty.fq"; args=("$T/empty.fq" "$TARGETS"); want_status=0; }
case_empty_stdin() { defaults; desc="reads on standard input, nothing there"
    args=(- "$TARGETS"); want_status=0; peer=/dev/null; }
case_binary_garbage() { defaults; desc="100 kB of random bytes as reads"
    head -c 100000 /dev/urandom > "$T/junk.fq"; args=("$T/junk.fq" "$TARGETS")
    want=("$T/junk.fq" "not a FASTQ/FASTA/SAM/BAM/CRAM file"); }
case_elf_binary() { defaults; desc="an executable (/bin/sh) as reads"
    cp "$(command -v sh)" "$T/sh.fq"; args=("$T/sh.fq" "$TARGETS")
    want=("$T/sh.fq" "not a FASTQ/FASTA/SAM/BAM/CRAM file"); }
case_nul_in_first_bytes() { defaults; desc="FASTQ with a NUL byte in its first record's name"
    printf '@r\0x\nACGTACGTAC\n+\nIIIIIIIIII\n' > "$T/nul.fq"; args=("$T/nul.fq" "$TARGETS")
    want=("$T/nul.fq" "not a FASTQ/FASTA/SAM/BAM/CRAM file"); }
case_gz_truncated() { defaults; desc="gzip FASTQ cut in the middle"
    make_big_fq 50 "$T/b.fq"; gzip -c "$T/b.fq" > "$T/full.gz"
    local half=$(( $(wc -c < "$T/full.gz") / 2 ))
    head -c "$half" "$T/full.gz" > "$T/cut.fq.gz"; args=("$T/cut.fq.gz" "$TARGETS")
    want=("$T/cut.fq.gz: record " "truncated file" "byte $half"); }
case_gz_trailing_garbage() { defaults; desc="gzip FASTQ followed by 8 bytes of text"
    make_big_fq 50 "$T/b.fq"; { gzip -c "$T/b.fq"; echo garbage; } > "$T/tail.fq.gz"
    args=("$T/tail.fq.gz" "$TARGETS"); want=("$T/tail.fq.gz: record " "trailing garbage" "8 bytes"); }
case_gz_corrupt() { defaults; desc="gzip FASTQ with one byte of its deflate data flipped"
    make_big_fq 50 "$T/b.fq"; gzip -c "$T/b.fq" > "$T/bad.fq.gz"; flip_byte "$T/bad.fq.gz" 5000
    args=("$T/bad.fq.gz" "$TARGETS"); want=("$T/bad.fq.gz: record " "corrupt compressed data"); }
case_gz_header_only() { defaults; desc="a 10-byte gzip header and nothing else"
    gzip -c "$READS" | head -c 10 > "$T/h.fq.gz"; args=("$T/h.fq.gz" "$TARGETS")
    want=("$T/h.fq.gz: record 1: truncated file"); }
case_bgzf_fastq_no_eof() { defaults; desc="BGZF FASTQ without its end-of-file block"
    bgzf "$READS" "$T/r.fq.gz"; head -c -28 "$T/r.fq.gz" > "$T/noeof.fq.gz"
    args=("$T/noeof.fq.gz" "$TARGETS"); want_status=0
    want=("warning: $T/noeof.fq.gz: no BGZF end-of-file block after record 42"); }
case_bam_truncated() { defaults; desc="BAM cut in the middle of a block"
    make_big_bam "$T/big.bam"; head -c 150000 "$T/big.bam" > "$T/cut.bam"
    args=("$T/cut.bam" "$TARGETS"); want=("$T/cut.bam: record " "truncated file" "byte 150000"); }
case_bam_truncated_threads() { defaults; desc="the same with -@ 3 (htslib's threaded reader: issue #12's deadlock and lost blocks)"
    make_big_bam "$T/big.bam"; head -c 150000 "$T/big.bam" > "$T/cut.bam"
    args=(-@ 3 "$T/cut.bam" "$TARGETS"); want=("$T/cut.bam: record " "truncated file"); peer="$T/cut.bam"; }
case_bam_header_truncated() { defaults; desc="BAM cut inside its header block"
    make_big_bam "$T/big.bam"; head -c 100 "$T/big.bam" > "$T/h.bam"
    args=("$T/h.bam" "$TARGETS"); want=("$T/h.bam" "truncated file"); }
case_bam_corrupt_block() { defaults; desc="BAM with one byte of a block's deflate data flipped"
    make_big_bam "$T/big.bam"; flip_byte "$T/big.bam" 100000
    args=("$T/big.bam" "$TARGETS"); want=("$T/big.bam: record " "corrupt compressed data"); }
case_bam_trailing_garbage() { defaults; desc="BAM followed by 8 bytes of text"
    make_big_bam "$T/big.bam"; echo garbage >> "$T/big.bam"
    args=("$T/big.bam" "$TARGETS"); want=("$T/big.bam: record " "trailing garbage"); }
case_bam_no_eof() { defaults; desc="BAM without its BGZF end-of-file block (cut at a block boundary)"
    make_big_bam "$T/big.bam"; head -c -28 "$T/big.bam" > "$T/noeof.bam"
    args=("$T/noeof.bam" "$TARGETS"); want_status=0
    want=("warning: $T/noeof.bam: no BGZF end-of-file block after record "); }
case_sam_bad_line() { defaults; desc="SAM whose third record has a non-numeric POS"
    "$GPUASM_SCAN" --device cpu --no-PG --unmatched "$READS" "$TARGETS" > "$T/ok.sam"
    awk -F'\t' 'BEGIN { OFS = "\t" } /^@/ { print; next } { if (++n == 3) $4 = "xyz"; print }' "$T/ok.sam" > "$T/bad.sam"
    args=("$T/bad.sam" "$TARGETS"); want=("$T/bad.sam: record 3" "malformed"); }
case_cram_no_reference() { defaults; desc="CRAM whose reference cannot be found (no -T)"
    printf '>ref\n%s\n' "$(head -c 3000 /dev/zero | tr '\0' A)ACGTTGCAACGTAGATCGGAAGAGC" > "$T/ref.fa"
    printf '@SQ\tSN:ref\tLN:3025\nr1\t0\tref\t3001\t60\t25M\t*\t0\t0\tACGTTGCAACGTAGATCGGAAGAGC\t*\n' > "$T/in.sam"
    command -v samtools >/dev/null && samtools view -C -T "$T/ref.fa" -o "$T/in.cram" "$T/in.sam" 2>/dev/null || return 77
    rm "$T/ref.fa"   # its path is in the CRAM's @SQ UR: gone, and no cache either
    mkdir "$T/noref"; export REF_PATH=$T/noref REF_CACHE=$T/noref
    args=("$T/in.cram" "$TARGETS"); want=("$T/in.cram: record 1" "-T FILE"); loose=1; }
case_cram_cut_header() { defaults; desc="CRAM cut inside its file definition (found by the fuzzer: 'No such file or directory')"
    "$GPUASM_SCAN" --device cpu --no-PG --unmatched -O cram -o "$T/ok.cram" "$READS" "$TARGETS"
    head -c 30 "$T/ok.cram" > "$T/cut.cram"; args=("$T/cut.cram" "$TARGETS")
    want=("$T/cut.cram: cannot open: CRAM version 3.0" "htslib cannot read (truncated or corrupt"); }
case_fq_missing_plus() { defaults; desc="FASTQ record 2 without its '+' line"
    reads_text p.fq '@r1\nACGTACGTAC\n+\nIIIIIIIIII\n@r2\nACGTACGTAC\nIIIIIIIIII\n'
    want=("$T/p.fq: record 2 (r2): no '+' line before the qualities"); }
case_fq_qual_short() { defaults; desc="FASTQ record 2 with a quality string shorter than its sequence"
    reads_text q.fq '@r1\nACGTACGTAC\n+\nIIIIIIIIII\n@r2\nACGTACGTAC\n+\nIIIII\n'
    want=("$T/q.fq: record 2 (r2)" "quality length 5 != sequence length 10"); }
case_fq_qual_long() { defaults; desc="FASTQ record 2 with a quality string longer than its sequence"
    reads_text q.fq '@r1\nACGTACGTAC\n+\nIIIIIIIIII\n@r2\nACGTA\n+\nIIIIIIIIII\n'
    want=("$T/q.fq: record 2 (r2)" "quality length"); }
case_fq_no_qual_line() { defaults; desc="FASTQ ending after a '+' line"
    reads_text q.fq '@r1\nACGTACGTAC\n+\nIIIIIIIIII\n@r2\nACGTACGTAC\n+\n'
    want=("$T/q.fq: record 2 (r2)"); }
case_fq_fasta_record() { defaults; desc="a FASTA record in the middle of a FASTQ file (issue #12: read one record, exit 0)"
    reads_text m.fq '@r1\nACGTACGTAC\n+\nIIIIIIIIII\n>r2\nACGTACGTAC\n@r3\nACGTACGTAC\n+\nIIIIIIIIII\n'
    want=("$T/m.fq: record 2 (r2)" "a FASTA record ('>') in a FASTQ file"); }
case_fq_name_255() { defaults; desc="FASTQ record 2 with a 255-character name (issue #12: dropped, exit 0)"
    local n; n=$(head -c 255 /dev/zero | tr '\0' n)
    printf '@r1\nACGTACGTAC\n+\nIIIIIIIIII\n@%s\nACGTACGTAC\n+\nIIIIIIIIII\n@r3\nACGTACGTAC\n+\nIIIIIIIIII\n' "$n" > "$T/n.fq"
    args=("$T/n.fq" "$TARGETS"); want=("$T/n.fq: record 2" "read name of 255 characters, longer than SAM allows (254)"); }
case_fq_zero_length_read() { defaults; desc="FASTQ record with an empty sequence (valid: written as FLAG 4 with --unmatched)"
    printf '@r1\n\n+\n\n@r2\nACGTACGTAC\n+\nIIIIIIIIII\n' > "$T/z.fq"
    args=(--unmatched "$T/z.fq" "$TARGETS"); want_status=0; }
case_fq_all_n() { defaults; desc="a read of 150 Ns (N matches nothing: no hits)"
    printf '@n\n%s\n+\n%s\n' "$(head -c 150 /dev/zero | tr '\0' N)" "$(head -c 150 /dev/zero | tr '\0' I)" > "$T/n.fq"
    args=(--unmatched "$T/n.fq" "$TARGETS"); want_status=0; }
case_fq_10mb_line() { defaults; desc="one 10,000,000-base read on a single line, an adapter in its middle"
    "${PYTHON3:-python3}" -c 'import random; r = random.Random(1); s = "".join(r.choice("ACGT") for _ in range(5000000)); a = "AGATCGGAAGAGCACACGTCTGAACTCCAGTCA"; s = s + a + s[:5000000 - len(a)]; print("@long\n" + s + "\n+\n" + "I" * len(s))' > "$T/long.fq"
    args=("$T/long.fq" "$TARGETS"); want_status=0; }
case_fq_crlf() { defaults; desc="FASTQ with CRLF line ends (same hits as LF)"
    sed 's/$/\r/' "$READS" > "$T/crlf.fq"; args=("$T/crlf.fq" "$TARGETS"); want_status=0; }
case_fq_control_bytes_in_name() { defaults; desc="read names with an ESC sequence (escaped in messages, a warning)"
    { head -8 "$READS"; printf '@r\033[31mred\nACGTACGTAC\n+\nIIIIIIIIII\n'; } > "$T/esc.fq"
    args=("$T/esc.fq" "$TARGETS"); want_status=0; want=("warning: $T/esc.fq" 'record 3 (r\x1b[31mred)'); }
case_fq_utf8_name() { defaults; desc="a read name in UTF-8 (SAM's QNAME is ASCII: a warning)"
    { head -8 "$READS"; printf '@r\303\251\nACGTACGTAC\n+\nIIIIIIIIII\n'; } > "$T/u.fq"
    args=("$T/u.fq" "$TARGETS"); want_status=0; want=("warning: $T/u.fq" "record 3"); }
case_fq_nul_in_sequence() { defaults; desc="a NUL byte inside a sequence after the first record (htslib reads it as N)"
    { head -8 "$READS"; printf '@r3\nACG\0ACGTAC\n+\nIIIIIIIIII\n'; } > "$T/z.fq"
    args=(--unmatched "$T/z.fq" "$TARGETS"); want_status=0; }
case_fa_fastq_record() { defaults; desc="a FASTQ record inside a FASTA reads file (known limit: its lines become sequence)"
    printf '>r1\nACGTACGTAC\n@r2\nACGTAC\n+\nIIIIII\n' > "$T/m.fa"
    args=(--unmatched "$T/m.fa" "$TARGETS"); want_status=0; }
case_pairs_count_differs() { defaults; desc="R1 and R2 files with different read counts"
    head -8 "$READS" > "$T/r1.fq"; head -4 "$READS" > "$T/r2.fq"
    args=("$T/r1.fq" "$T/r2.fq" "$TARGETS"); want=("$T/r1.fq" "has no mate"); peer="$T/r1.fq"; }
case_pairs_names_differ() { defaults; desc="R1 and R2 files whose mates are named differently"
    head -4 "$READS" > "$T/r1.fq"; sed -n 5,8p "$READS" > "$T/r2.fq"
    args=("$T/r1.fq" "$T/r2.fq" "$TARGETS"); want=("read 1: mate names differ"); peer="$T/r1.fq"; }

# ---- targets ------------------------------------------------------------------------

case_targets_missing() { defaults; kind=targets; desc="targets file that does not exist"
    args=("$READS" "$T/nope.fa"); want=("$T/nope.fa" "No such file"); }
case_targets_directory() { defaults; kind=targets; desc="a directory as the targets file"
    mkdir "$T/d.fa"; args=("$READS" "$T/d.fa"); want=("$T/d.fa"); }
case_targets_empty() { defaults; kind=targets; desc="empty targets file"
    : > "$T/e.fa"; args=("$READS" "$T/e.fa"); want=("$T/e.fa" "empty target file"); }
case_targets_header_only() { defaults; kind=targets; desc="a targets file with a header line and no sequence"
    printf '>lonely\n' > "$T/h.fa"; args=("$READS" "$T/h.fa"); want=("$T/h.fa: record 1 (lonely)" "no bases"); }
case_targets_empty_name() { defaults; kind=targets; desc="a target with an empty name ('>' alone; issue #12: @SQ SN:*)"
    printf '>\nACGTACGTACGTACGTACGT\n' > "$T/e.fa"; args=("$READS" "$T/e.fa"); want=("$T/e.fa: record 1" "empty name"); }
case_targets_nul_in_name() { defaults; kind=targets; desc="a NUL byte at the start of a target's name (found by the fuzzer: an empty @SQ SN)"
    printf '>a\nACGTACGTACGTACGTACGT\n>\0b\nACGTACGTACGTACGTACGT\n' > "$T/z.fa"; args=("$READS" "$T/z.fa")
    want=("$T/z.fa: record 2" "a NUL byte in the name"); }
case_targets_binary() { defaults; kind=targets; desc="random bytes as targets"
    head -c 10000 /dev/urandom > "$T/j.fa"; args=("$READS" "$T/j.fa"); want=("$T/j.fa" "not a FASTA or FASTQ file"); }
case_targets_gz_truncated() { defaults; kind=targets; desc="gzip targets cut short"
    gzip -c "$TARGETS" > "$T/t.fa.gz"; head -c 60 "$T/t.fa.gz" > "$T/c.fa.gz"
    args=("$READS" "$T/c.fa.gz"); want=("$T/c.fa.gz: record" "truncated file"); }
case_targets_gz_trailing() { defaults; kind=targets; desc="gzip targets followed by 8 bytes of text"
    { gzip -c "$TARGETS"; echo garbage; } > "$T/g.fa.gz"
    args=("$READS" "$T/g.fa.gz"); want=("$T/g.fa.gz: record" "trailing garbage"); }
case_targets_100000_tiny() { defaults; kind=targets; desc="100,000 targets of 16 bases (works: 100,000 @SQ lines)"
    awk 'BEGIN { srand(3); split("A C G T", b); for (i = 1; i <= 100000; i++) { s = ""; for (j = 0; j < 16; j++) s = s b[int(rand() * 4) + 1]; print ">t" i; print s } }' > "$T/many.fa"
    args=("$READS" "$T/many.fa"); want_status=0; }

# ---- option values ----------------------------------------------------------------

case_opt_k_negative() { defaults; kind=option; desc="-k -1"; args=(-k -1 "$READS" "$TARGETS"); want=("invalid -k/--max-diffs '-1'"); }
case_opt_k_huge() { defaults; kind=option; desc="-k 99999999999"; args=(-k 99999999999 "$READS" "$TARGETS"); want=("invalid -k/--max-diffs"); }
case_opt_k_ge_target() { defaults; kind=option; desc="-k 40, not below the 34-base adapter's length"
    args=(-k 40 "$READS" "$TARGETS"); want=("$TARGETS: record 1 (truseq_r1)" "-k 40 is not smaller"); }
case_opt_e_nan() { defaults; kind=option; desc="-e nan"; args=(-e nan "$READS" "$TARGETS"); want=("invalid -e/--error-rate 'nan'"); }
case_opt_e_one() { defaults; kind=option; desc="-e 1"; args=(-e 1 "$READS" "$TARGETS"); want=("invalid -e/--error-rate '1'"); }
case_opt_threads_huge() { defaults; kind=option; desc="-@ 100000"; args=(-@ 100000 "$READS" "$TARGETS"); want=("invalid -@/--threads '100000'"); }
case_opt_batch_zero() { defaults; kind=option; desc="--batch-size 0"; args=(--batch-size 0 "$READS" "$TARGETS"); want=("invalid --batch-size '0'"); }
case_opt_batch_one() { defaults; kind=option; desc="--batch-size 1 (one read per batch: works, same SAM)"; args=(--batch-size 1 "$READS" "$TARGETS"); want_status=0; }
case_opt_max_memory_tiny() { defaults; kind=option; desc="--max-memory 1k"; args=(--max-memory 1k "$READS" "$TARGETS"); want=("invalid --max-memory '1k'"); }
case_opt_device_bogus() { defaults; kind=option; desc="--device cuda:x"; args=(--device cuda:x "$READS" "$TARGETS"); want=("invalid --device 'cuda:x'"); }
case_opt_verbosity_huge() { defaults; kind=option; desc="--verbosity 99"; args=(--verbosity 99 "$READS" "$TARGETS"); want=("invalid --verbosity '99'"); }
case_opt_format_bogus() { defaults; kind=option; desc="-O fastq"; args=(-O fastq "$READS" "$TARGETS"); want=("invalid -O/--output-fmt 'fastq'"); }

# ---- outputs ------------------------------------------------------------------------

case_out_is_reads() { defaults; kind=output; desc="-o the reads file itself (issue #12: the reads were deleted)"
    cp "$READS" "$T/r.fq"; args=(-O sam -o "$T/r.fq" "$T/r.fq" "$TARGETS")
    want=("-o $T/r.fq" "the reads file" "refusing to overwrite an input"); }
case_out_symlink_to_reads() { defaults; kind=output; desc="-o a symbolic link to the reads file"
    cp "$READS" "$T/r.fq"; ln -s r.fq "$T/link.sam"; args=(-o "$T/link.sam" "$T/r.fq" "$TARGETS"); want=("-o $T/link.sam" "the reads file"); }
case_out_is_targets() { defaults; kind=output; desc="-o the targets file"
    cp "$TARGETS" "$T/t.fa"; args=(-O sam -o "$T/t.fa" "$READS" "$T/t.fa"); want=("-o $T/t.fa" "the targets file"); }
case_stats_is_reads() { defaults; kind=output; desc="--stats the reads file"
    cp "$READS" "$T/r.fq"; args=(--stats "$T/r.fq" "$T/r.fq" "$TARGETS"); want=("--stats $T/r.fq" "the reads file"); }
case_out_missing_dir() { defaults; kind=output; desc="-o into a directory that does not exist"
    args=(-o "$T/no/such/out.sam" "$READS" "$TARGETS"); want=("$T/no/such/out.sam" "No such file"); }
case_out_dev_full() { defaults; kind=output; desc="-o /dev/full, BAM (a full disk: issue #12's stale errno)"
    make_big_fq 20 "$T/b.fq"; args=(-O bam -o /dev/full --unmatched "$T/b.fq" "$TARGETS"); want=("/dev/full" "No space left on device")
    # htslib leaks its BGZF handle after the failed write (faults.bats)
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"; }

# ---- issue #31: nothing lost, round 2 (the input half) -------------------------------

case_gz_empty_first_member() { defaults; desc="gzip FASTQ whose first member is empty (cat empty.fq.gz reads.fq.gz; issue #31: 0 reads, exit 0)"
    : | gzip -n > "$T/e.gz"; gzip -nc "$READS" > "$T/r.gz"; cat "$T/e.gz" "$T/r.gz" > "$T/cat.fq.gz"
    args=(--unmatched "$T/cat.fq.gz" "$TARGETS"); want_status=0; peer="$T/cat.fq.gz"; }
case_bam_empty_first_block() { defaults; desc="BAM after an empty BGZF block (a BGZF end-of-file block first; issue #31: 0 reads)"
    "$GPUASM_SCAN" --device cpu --no-PG --unmatched -O bam -o "$T/r.bam" "$READS" "$TARGETS" 2>/dev/null
    printf '\037\213\010\004\0\0\0\0\0\377\006\0BC\002\0\033\0\003\0\0\0\0\0\0\0\0\0' > "$T/eof.bgz"
    cat "$T/eof.bgz" "$T/r.bam" > "$T/cat.bam"
    args=(--unmatched "$T/cat.bam" "$TARGETS"); want_status=0; peer="$T/cat.bam"; }
case_fq_rna() { defaults; desc="RNA reads: U for T in every read, the first too (issue #31: 'not a FASTQ'; U is T, as in targets)"
    awk 'NR % 4 == 2 { gsub(/T/, "U") } { print }' "$READS" > "$T/rna.fq"
    args=(--unmatched "$T/rna.fq" "$TARGETS"); want_status=0; }
case_fq_rna_after_first() { defaults; desc="U for T after the first read (issue #31: read as N, 3 of 42 reads hit)"
    awk 'NR % 4 == 2 && NR > 4 { gsub(/T/, "U") } { print }' "$READS" > "$T/rna2.fq"
    args=(--unmatched "$T/rna2.fq" "$TARGETS"); want_status=0; }
case_fq_qual_space() { defaults; desc="FASTQ quality with a space (below '!'; issue #31: copied into a SAM samtools rejects)"
    reads_text q.fq '@r1\nACGTACGTAC\n+\nIIIIIIIIII\n@r2\nACGTACGTAC\n+\nIIII IIIII\n'
    want=("$T/q.fq: record 2 (r2)" "quality byte 0x20 at base 5" "'!'..'~'"); }
case_fq_qual_del() { defaults; desc="FASTQ quality with a DEL byte (above '~')"
    reads_text q.fq '@r1\nACGTACGTAC\n+\nIIIIIIIII\177\n'
    want=("$T/q.fq: record 1 (r1)" "quality byte 0x7f at base 10"); }
case_fq_cr_only() { defaults; desc="FASTQ with CR-only line ends (old Mac; issue #31: 'malformed record')"
    tr '\n' '\r' < "$READS" > "$T/cr.fq"; args=("$T/cr.fq" "$TARGETS")
    want=("$T/cr.fq: record 1" "lines end in CR alone"); }
case_bgzf_bad_bsize() { defaults; desc="BGZF FASTQ whose second block's BSIZE is 1 too large (zcat reads it; issue #31: 'malformed record')"
    make_big_fq 30 "$T/b.fq"
    "${PYTHON3:-python3}" - "$T/b.fq" "$T/bs.fq.gz" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
def block(chunk):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    body = c.compress(chunk) + c.flush()
    return (b"\x1f\x8b\x08\x04\0\0\0\0\0\xff" + struct.pack("<H", 6) + b"BC"
            + struct.pack("<HH", 2, 18 + len(body) + 8 - 1) + body
            + struct.pack("<II", zlib.crc32(chunk) & 0xffffffff, len(chunk)))
blocks = [bytearray(block(data[i:i + 30000])) for i in range(0, len(data), 30000)] + [block(b"")]
blocks[1][16:18] = struct.pack("<H", struct.unpack("<H", blocks[1][16:18])[0] + 1)
open(sys.argv[2], "wb").write(b"".join(bytes(b) for b in blocks))
PY
    args=("$T/bs.fq.gz" "$TARGETS"); want=("$T/bs.fq.gz: record" "BSIZE" "zcat reads it"); loose=1; }
case_reads_xz() { defaults; desc="xz-compressed FASTQ (issue #31: htslib 1.16 abort()ed, exit 134)"
    command -v xz >/dev/null || return 77
    xz -c "$READS" > "$T/r.fq.xz"; args=("$T/r.fq.xz" "$TARGETS"); want=("$T/r.fq.xz" "decompress it first"); }
case_reads_bzip2() { defaults; desc="bzip2-compressed FASTQ ('not a FASTQ...')"
    command -v bzip2 >/dev/null || return 77
    bzip2 -c "$READS" > "$T/r.fq.bz2"; args=("$T/r.fq.bz2" "$TARGETS"); want=("$T/r.fq.bz2: bzip2-compressed" "decompress it first"); }
case_pairs_r2_empty() { defaults; desc="R2 empty, R1 with reads (issue #31: 'ends after 0')"
    head -8 "$READS" > "$T/r1.fq"; : > "$T/r2.fq"
    args=("$T/r1.fq" "$T/r2.fq" "$TARGETS"); want=("$T/r2.fq has no reads at all" "R1 and R2 must"); peer="$T/r1.fq"; }
case_targets_all_n() { defaults; kind=targets; desc="a target of 20 Ns (issue #31: matched every read)"
    printf '>adapter\nAGATCGGAAGAGC\n>gap\nNNNNNNNNNNNNNNNNNNNN\n' > "$T/n.fa"
    args=("$READS" "$T/n.fa"); want=("$T/n.fa: record 2 (gap)" "every base is N"); }
case_targets_gap() { defaults; kind=targets; desc="a target with alignment gaps '-' (issue #31: accepted, read as N)"
    printf '>g\nAGATCGG--AAGAGC\n' > "$T/g.fa"; args=("$READS" "$T/g.fa"); want=("$T/g.fa: record 1 (g)" "'-' at base 8 is not a base"); }
case_targets_star_digit() { defaults; kind=targets; desc="targets with '*' and a digit"
    printf '>s\nAGATCGGAAGAGC*\n>d\nAGAT1CGG\n' > "$T/s.fa"; args=("$READS" "$T/s.fa"); want=("$T/s.fa: record 1 (s)" "'*' at base 14"); }
case_opt_out_empty() { defaults; kind=output; desc="-o '' (issue #31: ran to the end, then could not move the output)"
    args=(-o '' "$READS" "$TARGETS"); want=("-o '': an empty file name"); }
case_opt_both_stdin() { defaults; kind=option; desc="reads and targets both - (issue #31: '-: cannot open: Bad file descriptor')"
    args=(- -); want=("cannot both be - (standard input)"); }
case_out_cram_reference_missing() { defaults; kind=output; desc="-O cram,reference=FILE that does not exist (issue #31: 'x.cram: cannot open for writing')"
    args=(-O "cram,reference=$T/nope.fa" -o "$T/x.cram" "$READS" "$TARGETS"); want=("$T/x.cram: the CRAM reference $T/nope.fa" "cannot be read"); }
case_cram_reference_missing() { defaults; desc="CRAM input with -T FILE that does not exist ('cannot use reference')"
    printf '>ref\n%s\n' "$(head -c 3000 /dev/zero | tr '\0' A)ACGTTGCAACGTAGATCGGAAGAGC" > "$T/ref.fa"
    printf '@SQ\tSN:ref\tLN:3025\nr1\t0\tref\t3001\t60\t25M\t*\t0\t0\tACGTTGCAACGTAGATCGGAAGAGC\t*\n' > "$T/in.sam"
    command -v samtools >/dev/null && samtools view -C -T "$T/ref.fa" -o "$T/in.cram" "$T/in.sam" 2>/dev/null || return 77
    args=(-T "$T/nope.fa" "$T/in.cram" "$TARGETS"); want=("$T/in.cram: the reference $T/nope.fa (-T) cannot be read"); peer="$T/in.cram"; }
case_fq_long_read_max_memory() { defaults; desc="a 10 Mb read with --max-memory 16M (issue #31: 50 Mb with 64M peaked at 677 MiB, no word)"
    "${PYTHON3:-python3}" -c 'import random; r = random.Random(1); s = "".join(r.choice("ACGT") for _ in range(10000000)); print("@long\n" + s + "\n+\n" + "I" * len(s))' > "$T/long.fq"
    args=(--max-memory 16M "$T/long.fq" "$TARGETS"); want_status=0; want=("warning: --max-memory 16 MiB exceeded" "$T/long.fq: record 1 (long)"); }

# issue #31: outputs that replace each other, or what the user may not write
case_out_is_stats() { defaults; kind=output; desc="-o and --stats the same file, once as ./NAME (issue #31: the statistics replaced the SAM)"
    args=(-o "$T/out_x.sam" --stats "$T/./out_x.sam" "$READS" "$TARGETS"); want=("--stats $T/./out_x.sam" "also given to -o ($T/out_x.sam)"); }
case_outs_same_file() { defaults; kind=output; desc="--matched and --unmatched-reads one file, one through a link (an earlier result there)"
    echo "an earlier result" > "$T/out_m.fq"; ln -s out_m.fq "$T/out_link.fq"
    args=(--matched "$T/out_m.fq" --unmatched-reads "$T/out_link.fq" "$READS" "$TARGETS")
    want=("--unmatched-reads $T/out_link.fq" "also given to --matched ($T/out_m.fq)"); }
case_out_read_only() { defaults; kind=output; desc="-o an existing file the user may not write (mode 444; root may, as with samtools)"
    if [ "$(id -u)" = 0 ]; then skip_why="root writes a mode 444 file (tests/bats/outputs_safe.bats runs it as nobody)"; return 77; fi
    echo "an earlier result" > "$T/out_ro.sam"; chmod 444 "$T/out_ro.sam"
    args=(-o "$T/out_ro.sam" "$READS" "$TARGETS"); want=("$T/out_ro.sam" "cannot open for writing: Permission denied"); }
case_merge_reports_twice() { defaults; kind=option; desc="--merge-reports given one report twice (its reads would count twice)"
    "$GPUASM_SCAN" --quiet --device cpu --report "$T/a.tsv" "$READS" "$TARGETS" > /dev/null
    args=(--merge-reports "$T/a.tsv" "$T/./a.tsv"); want=("--merge-reports $T/./a.tsv" "the same file as $T/a.tsv"); }
