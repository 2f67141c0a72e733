#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Target names as given (issue #9, io/targets.h): the first word of the
# header, "/1" "/2" kept, duplicates made unique with _N (one warning),
# characters SAM does not allow in @SQ SN mapped to '_', the header in
# @SQ DS; --strict-names makes both an error.  Every standard adapter file
# in the shared data loads.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    A=$GPUASM_SHARED_DATA/adapters
}

# The @SQ lines of a run of the sample reads against targets $1 (more
# options after it), one "SN<TAB>LN[<TAB>DS]" per line, into $T/sq.
sq_of() {
    local t=$1
    shift
    run --separate-stderr scan --device cpu --no-PG "$@" "$READS" "$t"
    strip_summary
    assert_success
    printf '%s\n' "$output" > "$T/out.sam"
    awk -F'\t' '$1 == "@SQ" { l = substr($2, 4) "\t" substr($3, 4); if (NF > 3) l = l "\t" substr($4, 4); print l }' \
        "$T/out.sam" > "$T/sq"
}

# Every @SQ SN of $T/out.sam matches SAM v1.6 §1.2.1 and is unique.
sn_valid_and_unique() {
    run awk -F'\t' '$1 == "@SQ" {
            sn = substr($2, 4)
            if (sn !~ /^[0-9A-Za-z!#$%&+.\/:;?@^_|~-][0-9A-Za-z!#$%&*+.\/:;=?@^_|~-]*$/) print "invalid: " sn
            if (seen[sn]++) print "duplicate: " sn
        }' "$T/out.sam"
    assert_output ""
}

# Load one adapter file: exit 0, one @SQ per record (same lengths, file
# order), names valid and unique, and the records read back by samtools.
# $1 the file, $2 the number of duplicate names it has (for the warning).
loads() {
    local f=$1 dups=$2
    [ -f "$f" ] || skip "shared data not found: $f"
    run --separate-stderr scan --device cpu "$READS" "$f"
    strip_summary
    assert_success
    printf '%s\n' "$output" > "$T/out.sam"
    if [ "$dups" -eq 0 ]; then
        assert_equal "$stderr" ""
    else
        assert_equal "${#stderr_lines[@]}" 1
        [[ "$stderr" == "gpuasm-scan: warning: $f: $dups duplicate target names made unique"* ]] ||
            { echo "warning: $stderr" >&2; return 1; }
    fi
    sn_valid_and_unique
    # LN in file order = the sequence lengths (samtools faidx of a copy)
    cp "$f" "$T/copy.fa"
    assert_equal "$(awk -F'\t' '$1 == "@SQ" { print substr($3, 4) }' "$T/out.sam")" \
        "$(awk '/^>/ { if (n) print n; n = 0; next } { n += length($0) } END { print n }' "$T/copy.fa")"
    if command -v samtools >/dev/null; then samtools quickcheck "$T/out.sam"; fi
}

@test "bbmap adapters.fa (158 records: spaces, /, #, (, [, commas, 4 x 'Illumina') loads" {
    loads "$A/bbmap_adapters.fa" 3
    run grep -c '^@SQ' "$T/out.sam"
    assert_output 158
    # the four "Illumina ..." headers: the first keeps the name, all four
    # keep their header in DS
    run grep -P '^@SQ\tSN:Illumina(_[0-9])?\t' "$T/out.sam"
    assert_line --index 0 -p $'SN:Illumina\tLN:24\tDS:Illumina Small RNA v1.5 3p Adapter'
    assert_line --index 1 -p $'SN:Illumina_2\tLN:21\tDS:Illumina RNA 3p Adapter (RA3)'
    assert_line --index 2 -p $'SN:Illumina_3\tLN:26\tDS:Illumina RNA 5p Adapter (RA5)'
    assert_line --index 3 -p $'SN:Illumina_4\tLN:22\tDS:Illumina 3p RNA Adapter'
    # SAM-invalid characters mapped, the header in DS; valid ones (/ #) kept
    grep -qF $'SN:I5_Primer_Nextera_XT_and_Nextera_Enrichment__N/S/E_501\tLN:51\tDS:I5_Primer_Nextera_XT_and_Nextera_Enrichment_[N/S/E]501' "$T/out.sam"
    grep -qF $'SN:RNA_PCR_Primer_Index_1__RPI1__2_9\tLN:63\tDS:RNA_PCR_Primer_Index_1_(RPI1)_2,9' "$T/out.sam"
    grep -qF $'SN:RNA_Adapter__RA5__part_#_15013205\t' "$T/out.sam"
    # names that needed nothing have no DS
    grep -qP '^@SQ\tSN:TruSeq_Universal_Adapter\tLN:[0-9]+$' "$T/out.sam"
}

@test "trimmomatic NexteraPE-PE.fa loads, PrefixNX/1 and PrefixNX/2 as named" {
    loads "$A/trimmomatic/NexteraPE-PE.fa" 0
    grep -qP '^@SQ\tSN:PrefixNX/1\tLN:' "$T/out.sam"
    grep -qP '^@SQ\tSN:PrefixNX/2\tLN:' "$T/out.sam"
}

@test "trimmomatic TruSeq2-PE.fa loads, PrefixPE/1 and PrefixPE/2 as named" {
    loads "$A/trimmomatic/TruSeq2-PE.fa" 0
    grep -qP '^@SQ\tSN:PrefixPE/1\tLN:' "$T/out.sam"
    grep -qP '^@SQ\tSN:PrefixPE/2\tLN:' "$T/out.sam"
}

@test "trimmomatic TruSeq2-SE.fa loads" {
    loads "$A/trimmomatic/TruSeq2-SE.fa" 0
    assert_equal "$(grep -c '^@SQ' "$T/out.sam")" 3
}

@test "trimmomatic TruSeq3-PE.fa loads, PrefixPE/1 and PrefixPE/2 as named" {
    loads "$A/trimmomatic/TruSeq3-PE.fa" 0
    assert_equal "$(grep '^@SQ' "$T/out.sam" | cut -f2 | tr '\n' ' ')" "SN:PrefixPE/1 SN:PrefixPE/2 "
}

@test "trimmomatic TruSeq3-PE-2.fa loads" {
    loads "$A/trimmomatic/TruSeq3-PE-2.fa" 0
    assert_equal "$(grep -c '^@SQ' "$T/out.sam")" 6
}

@test "trimmomatic TruSeq3-SE.fa loads" {
    loads "$A/trimmomatic/TruSeq3-SE.fa" 0
    assert_equal "$(grep -c '^@SQ' "$T/out.sam")" 2
}

@test "trimgalore multi_adapters.fa loads" {
    loads "$GPUASM_SHARED_DATA/reads/trimgalore/multi_adapters.fa" 0
    assert_equal "$(grep '^@SQ' "$T/out.sam" | cut -f2 | tr '\n' ' ')" \
        "SN:Illumina_Universal SN:Nextera_Transposase SN:SmallRNA "
}

@test "the first word is the name (space or tab ends it); /1 /2 and a comment's text stay out" {
    printf '>ad/1 first mate\nAGATCGGAAGAGCACACG\n>ad/2\tsecond mate\nAGATCGGAAGAGCGTCGT\n>x/3\nACGTTGCAACGTTGCA\n' > "$T/t.fa"
    sq_of "$T/t.fa"
    assert_equal "$(cat "$T/sq")" "$(printf 'ad/1\t18\nad/2\t18\nx/3\t16')"
    assert_equal "$stderr" ""
}

@test "duplicates: _2, _3 in file order, one warning naming the file and the count, DS on every namesake" {
    printf '>a one\nACGTACGTACGTACGT\n>b\nTTTTGGGGCCCCAAAA\n>a two\nGGGGACGTACGTACGT\n>a three\nCCCCACGTACGTACGT\n' > "$T/t.fa"
    sq_of "$T/t.fa"
    assert_equal "$(cat "$T/sq")" "$(printf 'a\t16\ta one\nb\t16\na_2\t16\ta two\na_3\t16\ta three')"
    assert_equal "${#stderr_lines[@]}" 1
    assert_equal "$stderr" "gpuasm-scan: warning: $T/t.fa: 2 duplicate target names made unique with a _N suffix (the first: record 3, a, is now a_2; @SQ DS keeps the header; --strict-names makes duplicates an error)"
    # the same names every run
    sq_of "$T/t.fa"
    assert_equal "$(cut -f1 "$T/sq" | tr '\n' ' ')" "a b a_2 a_3 "
}

@test "a suffix never takes an existing name, wherever in the file that name comes" {
    printf '>a\nACGTACGTACGTACGT\n>a\nTTTTGGGGCCCCAAAA\n>a_2\nGGGGACGTACGTACGT\n>a_3 x\nCCCCACGTACGTACGT\n>a\nACGTTTTTACGTACGT\n' > "$T/t.fa"
    sq_of "$T/t.fa"
    assert_equal "$(cut -f1 "$T/sq" | tr '\n' ' ')" "a a_4 a_2 a_3 a_5 "
    sn_valid_and_unique
}

@test "characters SAM does not allow in SN become _, the header goes to DS, a clash gets a suffix" {
    printf '>(RA3) left\nACGTACGTACGTACGT\n>p[1],x\nTTTTGGGGCCCCAAAA\n>*star=eq\nGGGGACGTACGTACGT\n>_RA3_\nCCCCACGTACGTACGT\n>ok=*\nACGTTTTTACGTACGT\n' > "$T/t.fa"
    sq_of "$T/t.fa"
    # _RA3_ (record 4) is valid and keeps its name: the mapped (RA3) takes
    # the next free one; '*' and '=' are allowed after the first character
    assert_equal "$(cat "$T/sq")" "$(printf '_RA3__2\t16\t(RA3) left\np_1__x\t16\tp[1],x\n_star=eq\t16\t*star=eq\n_RA3_\t16\nok=*\t16')"
    assert_equal "$stderr" ""
    sn_valid_and_unique
    # --verbosity 4 says how many were mapped
    run --separate-stderr scan --device cpu --verbosity 4 "$READS" "$T/t.fa"
    strip_summary
    assert_success
    [[ "$stderr" == *"gpuasm-scan: info: $T/t.fa: 3 target names had characters SAM does not allow in @SQ SN, now '_'"* ]] ||
        { echo "$stderr" >&2; return 1; }
}

@test "a tab or control character in a header is a space in DS" {
    printf '>a(1)\tx\ty\r\nACGTACGTACGTACGT\r\n' > "$T/t.fa"
    sq_of "$T/t.fa"
    assert_equal "$(cat "$T/sq")" "$(printf 'a_1_\t16\ta(1) x y')"
    run grep -c $'\r' "$T/out.sam"
    assert_output 0
}

@test "--strict-names: a duplicate is an error naming the file, both records and the name" {
    printf '>a\nACGTACGTACGTACGT\n>b\nTTTTGGGGCCCCAAAA\n>a again\nGGGGACGTACGTACGT\n' > "$T/t.fa"
    run --separate-stderr scan --device cpu --strict-names -o "$T/o.sam" "$READS" "$T/t.fa"
    strip_summary
    assert_only_error "$T/t.fa: record 3 (a): duplicate target name (first seen as record 1"
    [ ! -e "$T/o.sam" ]
}

@test "--strict-names: a character SAM does not allow is an error naming it" {
    printf '>a\nACGTACGTACGTACGT\n>b(2)\nTTTTGGGGCCCCAAAA\n' > "$T/t.fa"
    run --separate-stderr scan --device cpu --strict-names "$READS" "$T/t.fa"
    strip_summary
    assert_only_error "$T/t.fa: record 2 (b(2)): name has a character SAM does not allow in @SQ SN ('(';"
    # valid and unique names pass unchanged
    run --separate-stderr scan --device cpu --strict-names --no-PG "$READS" "$TARGETS"
    strip_summary
    assert_success
    assert_equal "$output" "$(cat "$EXPECTED_SAM")"
}

@test "--strict-names on the bbmap adapters: the first duplicate or bad name is the error" {
    [ -f "$A/bbmap_adapters.fa" ] || skip "shared data not found"
    run --separate-stderr scan --device cpu --strict-names "$READS" "$A/bbmap_adapters.fa"
    strip_summary
    assert_only_error "$A/bbmap_adapters.fa: record 33 (I5_Primer_Nextera_XT_and_Nextera_Enrichment_[N/S/E]501)"
}

@test "an empty name ('>' alone, or '>' then a space) is an error naming the record" {
    printf '>a\nACGTACGTACGTACGT\n>\nTTTTGGGGCCCCAAAA\n' > "$T/t.fa"
    run --separate-stderr scan --device cpu -o "$T/o.sam" "$READS" "$T/t.fa"
    strip_summary
    assert_only_error "$T/t.fa: record 2: empty name"
    [ ! -e "$T/o.sam" ]
    printf '> a\nACGTACGTACGTACGT\n' > "$T/t.fa"
    run --separate-stderr scan --device cpu "$READS" "$T/t.fa"
    strip_summary
    assert_only_error "$T/t.fa: record 1: empty name"
}

@test "FASTQ targets load as FASTA does; a SAM/BAM file is not a target file" {
    awk '/^>/ { if (s) { print s; print "+"; q = s; gsub(/./, "I", q); print q } print "@" substr($0, 2); s = ""; next }
         { s = s $0 } END { print s; print "+"; q = s; gsub(/./, "I", q); print q }' "$TARGETS" > "$T/t.fq"
    run --separate-stderr scan --device cpu --no-PG "$READS" "$T/t.fq"
    strip_summary
    assert_success
    assert_equal "$output" "$(cat "$EXPECTED_SAM")"
    printf '@HD\tVN:1.6\nr1\t4\t*\t0\t0\t*\t*\t0\t0\tACGTACGTACGTACGTAA\t*\n' > "$T/t.sam"
    run --separate-stderr scan --device cpu "$READS" "$T/t.sam"
    strip_summary
    assert_only_error "$T/t.sam: not a FASTA or FASTQ file"
}

@test "a FASTQ target whose quality is short is an error naming the record" {
    printf '@t1\nACGTACGTACGTACGT\n+\nIIIIIIIIIIIIIIII\n@t2\nACGTACGTACGTACGT\n+\nIIII\n' > "$T/t.fq"
    run --separate-stderr scan --device cpu "$READS" "$T/t.fq"
    strip_summary
    assert_only_error "$T/t.fq: record 2 (t2): quality length 4 != sequence length 16"
}
