#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The bad-input table of issues #12 and #31 (docs/bad-input.md): every malformed
# input of tests/bats/bad_inputs.bash through gpuasm-scan, each checked for
#   - the exit status (1, or 0 where the input is valid or samtools only
#     warns), under `timeout` (no hang) and never a crash (134, 139, ...);
#   - the one error line naming the file and the record (or the warning);
#   - no -o file and no temporary file left by a failed run, the -o file
#     present after a successful one;
#   - every input file unchanged afterwards (no input harmed).

setup() {
    load helpers
    load bad_inputs
    T=$BATS_TEST_TMPDIR/w
    mkdir -p "$T"
}

# Checksums of every file the case made and of the test data, -o aside.
input_sums() {
    find "$T" "$TEST_DATA" -type f ! -name out.sam ! -name '.out.sam.gpuasm-*' -print0 |
        sort -z | xargs -0 md5sum
}

check_case() {
    local desc want_status want=() kind peer loose args=() rc=0 skip_why=
    "case_$1" || rc=$?
    [ "$rc" -ne 77 ] || skip "${skip_why:-needs samtools}"
    [ "$rc" -eq 0 ]
    local before out=()
    before=$(input_sums)
    [ "$kind" = output ] || out=(-o "$T/out.sam")
    run --separate-stderr timeout 120 "$GPUASM_SCAN" --device cpu "${out[@]}" "${args[@]}" </dev/null
    [ "$status" -ne 124 ] || { echo "hung (timeout 120 s)" >&2; return 1; }
    if [ "$want_status" -eq 1 ] && [ -n "$loose" ]; then
        assert_equal "$status" 1
        local w
        for w in "${want[@]}"; do [[ "${stderr_lines[-1]}" == "gpuasm-scan: "*"$w"* ]]; done
        [ ! -e "$T/out.sam" ] || { echo "-o file left behind" >&2; return 1; }
    elif [ "$want_status" -eq 1 ]; then
        assert_one_error "${want[@]}"
        [ ! -e "$T/out.sam" ] || { echo "-o file left behind" >&2; return 1; }
    else
        [ "$status" -eq 0 ] || { echo "exit $status: $stderr" >&2; return 1; }
        [ "$kind" = output ] || [ -s "$T/out.sam" ] || { echo "no -o file" >&2; return 1; }
        if [ "${#want[@]}" -gt 0 ]; then
            local line w ok=0
            for line in "${stderr_lines[@]}"; do
                ok=1
                for w in "${want[@]}"; do [[ "$line" == *"$w"* ]] || ok=0; done
                [ "$ok" -eq 0 ] || break
            done
            [ "$ok" -eq 1 ] || { printf 'no warning with %s in:\n%s\n' "${want[*]}" "$stderr" >&2; return 1; }
        fi
    fi
    # No temporary file of ours anywhere in the scratch directory.
    [ -z "$(find "$T" -name '.*.gpuasm-*')" ] || { echo "temporary file left" >&2; return 1; }
    assert_equal "$(input_sums)" "$before"
}

@test "01 missing_file: reads file that does not exist" {
    check_case missing_file
}

@test "02 directory_reads: a directory as the reads file" {
    check_case directory_reads
}

@test "03 dev_null: /dev/null as the reads file (an empty read set)" {
    check_case dev_null
}

@test "04 empty_reads: empty (0-byte) FASTQ" {
    check_case empty_reads
}

@test "05 empty_stdin: reads on standard input, nothing there" {
    check_case empty_stdin
}

@test "06 binary_garbage: 100 kB of random bytes as reads" {
    check_case binary_garbage
}

@test "07 elf_binary: an executable (/bin/sh) as reads" {
    check_case elf_binary
}

@test "08 nul_in_first_bytes: FASTQ with a NUL byte in its first record's name" {
    check_case nul_in_first_bytes
}

@test "09 gz_truncated: gzip FASTQ cut in the middle" {
    check_case gz_truncated
}

@test "10 gz_trailing_garbage: gzip FASTQ followed by 8 bytes of text" {
    check_case gz_trailing_garbage
}

@test "11 gz_corrupt: gzip FASTQ with one byte of its deflate data flipped" {
    check_case gz_corrupt
}

@test "12 gz_header_only: a 10-byte gzip header and nothing else" {
    check_case gz_header_only
}

@test "13 bgzf_fastq_no_eof: BGZF FASTQ without its end-of-file block" {
    check_case bgzf_fastq_no_eof
}

@test "14 bam_truncated: BAM cut in the middle of a block" {
    check_case bam_truncated
}

@test "15 bam_truncated_threads: the same with -@ 3 (htslib's threaded reader: issue #12's deadlock and lost blocks)" {
    check_case bam_truncated_threads
}

@test "16 bam_header_truncated: BAM cut inside its header block" {
    check_case bam_header_truncated
}

@test "17 bam_corrupt_block: BAM with one byte of a block's deflate data flipped" {
    check_case bam_corrupt_block
}

@test "18 bam_trailing_garbage: BAM followed by 8 bytes of text" {
    check_case bam_trailing_garbage
}

@test "19 bam_no_eof: BAM without its BGZF end-of-file block (cut at a block boundary)" {
    check_case bam_no_eof
}

@test "20 sam_bad_line: SAM whose third record has a non-numeric POS" {
    check_case sam_bad_line
}

@test "21 cram_no_reference: CRAM whose reference cannot be found (no -T)" {
    check_case cram_no_reference
}

@test "22 cram_cut_header: CRAM cut inside its file definition (found by the fuzzer: 'No such file or directory')" {
    check_case cram_cut_header
}

@test "23 fq_missing_plus: FASTQ record 2 without its '+' line" {
    check_case fq_missing_plus
}

@test "24 fq_qual_short: FASTQ record 2 with a quality string shorter than its sequence" {
    check_case fq_qual_short
}

@test "25 fq_qual_long: FASTQ record 2 with a quality string longer than its sequence" {
    check_case fq_qual_long
}

@test "26 fq_no_qual_line: FASTQ ending after a '+' line" {
    check_case fq_no_qual_line
}

@test "27 fq_fasta_record: a FASTA record in the middle of a FASTQ file (issue #12: read one record, exit 0)" {
    check_case fq_fasta_record
}

@test "28 fq_name_255: FASTQ record 2 with a 255-character name (issue #12: dropped, exit 0)" {
    check_case fq_name_255
}

@test "29 fq_zero_length_read: FASTQ record with an empty sequence (valid: written as FLAG 4 with --unmatched)" {
    check_case fq_zero_length_read
}

@test "30 fq_all_n: a read of 150 Ns (N matches nothing: no hits)" {
    check_case fq_all_n
}

@test "31 fq_10mb_line: one 10,000,000-base read on a single line, an adapter in its middle" {
    check_case fq_10mb_line
}

@test "32 fq_crlf: FASTQ with CRLF line ends (same hits as LF)" {
    check_case fq_crlf
}

@test "33 fq_control_bytes_in_name: read names with an ESC sequence (escaped in messages, a warning)" {
    check_case fq_control_bytes_in_name
}

@test "34 fq_utf8_name: a read name in UTF-8 (SAM's QNAME is ASCII: a warning)" {
    check_case fq_utf8_name
}

@test "35 fq_nul_in_sequence: a NUL byte inside a sequence after the first record (htslib reads it as N)" {
    check_case fq_nul_in_sequence
}

@test "36 fa_fastq_record: a FASTQ record inside a FASTA reads file (known limit: its lines become sequence)" {
    check_case fa_fastq_record
}

@test "37 pairs_count_differs: R1 and R2 files with different read counts" {
    check_case pairs_count_differs
}

@test "38 pairs_names_differ: R1 and R2 files whose mates are named differently" {
    check_case pairs_names_differ
}

@test "39 targets_missing: targets file that does not exist" {
    check_case targets_missing
}

@test "40 targets_directory: a directory as the targets file" {
    check_case targets_directory
}

@test "41 targets_empty: empty targets file" {
    check_case targets_empty
}

@test "42 targets_header_only: a targets file with a header line and no sequence" {
    check_case targets_header_only
}

@test "43 targets_empty_name: a target with an empty name ('>' alone; issue #12: @SQ SN:*)" {
    check_case targets_empty_name
}

@test "44 targets_nul_in_name: a NUL byte at the start of a target's name (found by the fuzzer: an empty @SQ SN)" {
    check_case targets_nul_in_name
}

@test "45 targets_binary: random bytes as targets" {
    check_case targets_binary
}

@test "46 targets_gz_truncated: gzip targets cut short" {
    check_case targets_gz_truncated
}

@test "47 targets_gz_trailing: gzip targets followed by 8 bytes of text" {
    check_case targets_gz_trailing
}

@test "48 targets_100000_tiny: 100,000 targets of 16 bases (works: 100,000 @SQ lines)" {
    check_case targets_100000_tiny
}

@test "49 opt_k_negative: -k -1" {
    check_case opt_k_negative
}

@test "50 opt_k_huge: -k 99999999999" {
    check_case opt_k_huge
}

@test "51 opt_k_ge_target: -k 40, not below the 34-base adapter's length" {
    check_case opt_k_ge_target
}

@test "52 opt_e_nan: -e nan" {
    check_case opt_e_nan
}

@test "53 opt_e_one: -e 1" {
    check_case opt_e_one
}

@test "54 opt_threads_huge: -@ 100000" {
    check_case opt_threads_huge
}

@test "55 opt_batch_zero: --batch-size 0" {
    check_case opt_batch_zero
}

@test "56 opt_batch_one: --batch-size 1 (one read per batch: works, same SAM)" {
    check_case opt_batch_one
}

@test "57 opt_max_memory_tiny: --max-memory 1k" {
    check_case opt_max_memory_tiny
}

@test "58 opt_device_bogus: --device cuda:x" {
    check_case opt_device_bogus
}

@test "59 opt_verbosity_huge: --verbosity 99" {
    check_case opt_verbosity_huge
}

@test "60 opt_format_bogus: -O fastq" {
    check_case opt_format_bogus
}

@test "61 out_is_reads: -o the reads file itself (issue #12: the reads were deleted)" {
    check_case out_is_reads
}

@test "62 out_symlink_to_reads: -o a symbolic link to the reads file" {
    check_case out_symlink_to_reads
}

@test "63 out_is_targets: -o the targets file" {
    check_case out_is_targets
}

@test "64 stats_is_reads: --stats the reads file" {
    check_case stats_is_reads
}

@test "65 out_missing_dir: -o into a directory that does not exist" {
    check_case out_missing_dir
}

@test "66 out_dev_full: -o /dev/full, BAM (a full disk: issue #12's stale errno)" {
    check_case out_dev_full
}

@test "67 gz_empty_first_member: gzip FASTQ whose first member is empty (cat empty.fq.gz reads.fq.gz; issue #31: 0 reads, exit 0)" {
    check_case gz_empty_first_member
}

@test "68 bam_empty_first_block: BAM after an empty BGZF block (a BGZF end-of-file block first; issue #31: 0 reads)" {
    check_case bam_empty_first_block
}

@test "69 fq_rna: RNA reads: U for T in every read, the first too (issue #31: 'not a FASTQ'; U is T, as in targets)" {
    check_case fq_rna
}

@test "70 fq_rna_after_first: U for T after the first read (issue #31: read as N, 3 of 42 reads hit)" {
    check_case fq_rna_after_first
}

@test "71 fq_qual_space: FASTQ quality with a space (below '!'; issue #31: copied into a SAM samtools rejects)" {
    check_case fq_qual_space
}

@test "72 fq_qual_del: FASTQ quality with a DEL byte (above '~')" {
    check_case fq_qual_del
}

@test "73 fq_cr_only: FASTQ with CR-only line ends (old Mac; issue #31: 'malformed record')" {
    check_case fq_cr_only
}

@test "74 bgzf_bad_bsize: BGZF FASTQ whose second block's BSIZE is 1 too large (zcat reads it; issue #31: 'malformed record')" {
    check_case bgzf_bad_bsize
}

@test "75 reads_xz: xz-compressed FASTQ (issue #31: htslib 1.16 abort()ed, exit 134)" {
    check_case reads_xz
}

@test "76 reads_bzip2: bzip2-compressed FASTQ ('not a FASTQ...')" {
    check_case reads_bzip2
}

@test "77 pairs_r2_empty: R2 empty, R1 with reads (issue #31: 'ends after 0')" {
    check_case pairs_r2_empty
}

@test "78 targets_all_n: a target of 20 Ns (issue #31: matched every read)" {
    check_case targets_all_n
}

@test "79 targets_gap: a target with alignment gaps '-' (issue #31: accepted, read as N)" {
    check_case targets_gap
}

@test "80 targets_star_digit: targets with '*' and a digit" {
    check_case targets_star_digit
}

@test "81 opt_out_empty: -o '' (issue #31: ran to the end, then could not move the output)" {
    check_case opt_out_empty
}

@test "82 opt_both_stdin: reads and targets both - (issue #31: '-: cannot open: Bad file descriptor')" {
    check_case opt_both_stdin
}

@test "83 out_cram_reference_missing: -O cram,reference=FILE that does not exist (issue #31: 'x.cram: cannot open for writing')" {
    check_case out_cram_reference_missing
}

@test "84 cram_reference_missing: CRAM input with -T FILE that does not exist ('cannot use reference')" {
    check_case cram_reference_missing
}

@test "85 fq_long_read_max_memory: a 10 Mb read with --max-memory 16M (issue #31: 50 Mb with 64M peaked at 677 MiB, no word)" {
    check_case fq_long_read_max_memory
}

@test "86 out_is_stats: -o and --stats the same file, once as ./NAME (issue #31: the statistics replaced the SAM)" {
    check_case out_is_stats
}

@test "87 outs_same_file: --matched and --unmatched-reads one file, one through a link (an earlier result there)" {
    check_case outs_same_file
}

@test "88 out_read_only: -o an existing file the user may not write (mode 444; root may, as with samtools)" {
    check_case out_read_only
}

@test "89 merge_reports_twice: --merge-reports given one report twice (its reads would count twice)" {
    check_case merge_reports_twice
}
