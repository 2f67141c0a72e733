#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Outputs that round-trip (issue #29): --write-reference (the targets as
# the SAM header names them, with .fai and a Picard .dict: samtools calmd
# and CRAM work with it), CRAM output against -T or that reference, and
# --reads-out (every read once, in input order, trimmed with --trim: the
# stream cutadapt -o writes; names as read, empty records, stdout).

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    D=$GPUASM_SHARED_DATA
    ADAPTERS=$D/adapters/bbmap_adapters.fa
}

# Records with their tags in name order (CRAM decoding writes NM and MD
# where it keeps them, not in the order they were written).
sorted_tags() {
    awk -F'\t' -v OFS='\t' '!/^@/ { n = 0; for (i = 12; i <= NF; i++) t[++n] = $i
        for (i = 2; i <= n; i++) for (j = i; j > 1 && t[j - 1] > t[j]; j--) { x = t[j]; t[j] = t[j - 1]; t[j - 1] = x }
        line = $1; for (i = 2; i <= 11; i++) line = line OFS $i
        for (i = 1; i <= n; i++) line = line OFS t[i]
        print line }'
}

# Records as "QNAME FLAG RNAME POS NM MD", one line each.
nm_md() {
    awk -F'\t' '!/^@/ { nm = md = "-"
        for (i = 12; i <= NF; i++) { if ($i ~ /^NM:i:/) nm = $i; if ($i ~ /^MD:Z:/) md = $i }
        print $1, $2, $3, $4, nm, md }'
}

@test "--write-reference: FASTA named as @SQ, with the .fai and .dict samtools makes" {
    require_samtools
    printf '>a(1) one\nACGTACGTACGTACGTACGTAAAA\n>a(1) two\nacgtnnRYacgt\n>b/1\nTTTTGGGGCCCCAAAA\n' > "$T/t.fa"
    scan --quiet --write-reference "$T/ref.fa" -o "$T/x.sam" "$READS" "$T/t.fa"
    [ -f "$T/ref.fa" ] && [ -f "$T/ref.fa.fai" ] && [ -f "$T/ref.dict" ]
    # the names and lengths of @SQ, in order, and upper-case bases as searched
    diff <(grep '^@SQ' "$T/x.sam" | cut -f2,3) <(awk -F'\t' '{ print "SN:" $1 "\tLN:" $2 }' "$T/ref.fa.fai")
    [ "$(sed -n 2p "$T/ref.fa")" = ACGTACGTACGTACGTACGTAAAA ]
    [ "$(grep -A1 '^>a_1__2$' "$T/ref.fa" | tail -1)" = ACGTNNRYACGT ]
    # .fai as samtools faidx writes it, .dict with samtools dict's M5 (and our UR)
    cp "$T/ref.fa" "$T/copy.fa"
    samtools faidx "$T/copy.fa"
    cmp "$T/ref.fa.fai" "$T/copy.fa.fai"
    diff <(grep '^@SQ' "$T/ref.dict" | cut -f2-4) <(samtools dict "$T/copy.fa" | grep '^@SQ' | cut -f2-4)
    grep -q "UR:file:$(cd "$T" && pwd -P)/ref.fa$" "$T/ref.dict"
    # Picard's naming: FILE.fasta -> FILE.dict, other names FILE.dict appended
    scan --quiet --write-reference "$T/r2.fasta" -o /dev/null "$READS" "$T/t.fa"
    [ -f "$T/r2.dict" ] && [ -f "$T/r2.fasta.fai" ]
    scan --quiet --write-reference "$T/r3.seq" -o /dev/null "$READS" "$T/t.fa"
    [ -f "$T/r3.seq.dict" ]
}

@test "--write-reference refuses -, gzip names and the inputs" {
    run --separate-stderr scan --write-reference - "$READS" "$TARGETS"
    assert_only_error "--write-reference -" "plain FASTA"
    run --separate-stderr scan --write-reference "$T/r.fa.gz" "$READS" "$TARGETS"
    assert_only_error "--write-reference $T/r.fa.gz" "plain FASTA"
    cp "$TARGETS" "$T/t.fa"
    run --separate-stderr scan --write-reference "$T/t.fa" "$READS" "$T/t.fa"
    assert_one_error "--write-reference $T/t.fa" "refusing to overwrite an input"
    cmp "$T/t.fa" "$TARGETS"
}

@test "samtools calmd with the written reference changes no NM/MD on the 158-adapter screen of real reads" {
    require_samtools
    require_shared_data
    R=$D/reads/trimgalore/illumina_10K.reads1-4000.fastq.gz
    [ -f "$R" ] && [ -f "$ADAPTERS" ] || skip "shared reads/adapters not found"
    # --overlap 3 (cutadapt's -O 3): many short partial records besides the whole ones
    scan --quiet -@ 2 --overlap 3 --write-reference "$T/ref.fa" -o "$T/hits.bam" "$R" "$ADAPTERS"
    [ "$(grep -c '^>' "$T/ref.fa")" -eq 158 ]
    samtools view "$T/hits.bam" | nm_md > "$T/ours"
    [ "$(wc -l < "$T/ours")" -gt 10000 ]
    samtools calmd "$T/hits.bam" "$T/ref.fa" 2> "$T/calmd.err" | nm_md > "$T/calmd"
    [ ! -s "$T/calmd.err" ] || { cat "$T/calmd.err"; false; }
    diff "$T/ours" "$T/calmd"
    # the records name targets the user's own FASTA lacks (renamed ones):
    # there calmd cannot find them, which is what the written reference is for
    samtools calmd "$T/hits.bam" "$ADAPTERS" 2>&1 > /dev/null | grep -q 'not found in FASTA file'
}

@test "CRAM output is encoded against -T, else the --write-reference file, and decodes with it" {
    require_samtools
    scan --quiet --no-PG --write-reference "$T/ref.fa" -o "$T/x.sam" "$READS" "$TARGETS"
    scan --quiet --no-PG --write-reference "$T/ref2.fa" -o "$T/x.cram" "$READS" "$TARGETS"
    # a reference-based CRAM: htslib put each reference's M5 into @SQ
    [ "$(samtools view -H "$T/x.cram" | grep -c '^@SQ.*M5:')" -eq 3 ]
    diff <(sorted_tags < "$T/x.sam") <(samtools view --no-PG -T "$T/ref2.fa" "$T/x.cram" | sorted_tags)
    # -T as samtools takes it
    scan --quiet --no-PG -T "$T/ref.fa" -o "$T/y.cram" "$READS" "$TARGETS"
    [ "$(samtools view -H "$T/y.cram" | grep -c '^@SQ.*M5:')" -eq 3 ]
    diff <(sorted_tags < "$T/x.sam") <(samtools view --no-PG -T "$T/ref.fa" "$T/y.cram" | sorted_tags)
    # without either, as before: no reference (sequences kept in the CRAM)
    scan --quiet --no-PG -o "$T/z.cram" "$READS" "$TARGETS"
    [ "$(samtools view -H "$T/z.cram" | grep -c 'M5:')" -eq 0 ]
    diff <(sorted_tags < "$T/x.sam") <(samtools view --no-PG "$T/z.cram" | sorted_tags)
}

@test "--reads-out: every read once, in input order, matched ones trimmed; stdout with -o FILE" {
    scan --quiet --strand forward --partial-ends 3 --pattern target --best --trim \
        -o "$T/x.sam" --reads-out - "$READS" "$TARGETS" > "$T/s.fq"
    # the input's names in the input's order
    diff <(awk 'NR % 4 == 1 { print $1 }' "$READS") <(awk 'NR % 4 == 1' "$T/s.fq")
    # untrimmed reads as read (bases upper-cased), trimmed ones a prefix of the read
    paste - - - - < "$READS" | cut -f2 | tr a-z A-Z > "$T/in.seq"
    paste - - - - < "$T/s.fq" | cut -f2 > "$T/out.seq"
    paste "$T/in.seq" "$T/out.seq" | awk -F'\t' 'index($1, $2) != 1 { bad++ } $1 != $2 { cut++ }
        END { exit !(bad == 0 && cut > 0) }'
    # the same as --matched + --unmatched-reads, in input order
    scan --quiet --strand forward --partial-ends 3 --pattern target --best --trim \
        --matched "$T/m.fq" --unmatched-reads "$T/u.fq" "$READS" "$TARGETS" > /dev/null
    diff <(cat "$T/m.fq" "$T/u.fq" | paste - - - - | sort) <(paste - - - - < "$T/s.fq" | sort)
    # without --trim: the input itself (names without comments, upper case)
    scan --quiet -o /dev/null --reads-out "$T/all.fq" "$READS" "$TARGETS"
    diff <(awk 'NR % 4 == 1 { print $1; next } NR % 4 == 2 { print toupper($0); next } { print }' "$READS") "$T/all.fq"
}

@test "--reads-out keeps names as read (/1 /2) and writes reads cut to nothing as empty records" {
    printf '@r1/1 c\nAGATCGGAAGAGCACACGTCTGAACTCCAGTCAC\n+\n%s\n@r2/2\nACGTTGCAACGTAGATCGGAAGAGCACACG\n+\n%s\n@r3\nACGTTGCAACGT\n+\nIIIIIIIIIIII\n' \
        "$(printf 'I%.0s' $(seq 34))" "$(printf 'I%.0s' $(seq 30))" > "$T/r.fq"
    printf '>ad\nAGATCGGAAGAGCACACGTCTGAACTCCAGTCAC\n' > "$T/ad.fa"
    scan --quiet --strand forward --partial-ends 3 --pattern target --best --trim \
        -o /dev/null --reads-out "$T/o.fq" "$T/r.fq" "$T/ad.fa"
    printf '@r1/1\n\n+\n\n@r2/2\nACGTTGCAACGT\n+\nIIIIIIIIIIII\n@r3\nACGTTGCAACGT\n+\nIIIIIIIIIIII\n' | diff - "$T/o.fq"
    # FASTA by --reads-fmt (to a name that does not tell), gzip by the name
    scan --quiet --strand forward --partial-ends 3 --pattern target --best --trim \
        -o /dev/null --reads-fmt fasta --reads-out "$T/o.txt" "$T/r.fq" "$T/ad.fa"
    printf '>r1/1\n\n>r2/2\nACGTTGCAACGT\n>r3\nACGTTGCAACGT\n' | diff - "$T/o.txt"
    scan --quiet --strand forward --partial-ends 3 --pattern target --best --trim \
        -o /dev/null --reads-out "$T/o.fq.gz" "$T/r.fq" "$T/ad.fa"
    gzip -dc "$T/o.fq.gz" | diff "$T/o.fq" -
    # cutadapt writes the same bytes (names as read, the empty record), apart from the comment
    if command -v cutadapt > /dev/null; then
        cutadapt -a AGATCGGAAGAGCACACGTCTGAACTCCAGTCAC -o "$T/c.fq" "$T/r.fq" > /dev/null 2>&1
        sed 's/^\(@r1\/1\) c$/\1/' "$T/c.fq" | diff - "$T/o.fq"
    fi
}

@test "--reads-out: pairs interleaved, BAM by --reads-fmt on /dev/stdout, errors in one line" {
    make_pair_files
    scan --quiet -o "$T/x.bam" --reads-out - "$T/r1.fq" "$T/r2.fq" "$TARGETS" > "$T/p.fq"
    [ "$(awk 'NR % 8 == 1' "$T/p.fq" | grep -vc '/1$')" -eq 0 ]
    [ "$(awk 'NR % 8 == 5' "$T/p.fq" | grep -vc '/2$')" -eq 0 ]
    [ "$(wc -l < "$T/p.fq")" -eq $((2 * $(wc -l < "$READS"))) ]
    if command -v samtools > /dev/null; then
        scan --quiet -o "$T/x.sam" --reads-fmt bam --reads-out /dev/stdout "$READS" "$TARGETS" > "$T/r.bam"
        [ "$(samtools view -c "$T/r.bam")" -eq "$(($(wc -l < "$READS") / 4))" ]
    fi
    run --separate-stderr scan --reads-out - "$READS" "$TARGETS"
    assert_only_error "--reads-out -" "standard output carries the SAM output" "-o FILE"
    run --separate-stderr scan -o "$T/y.sam" --reads-out - --unmatched-reads - "$READS" "$TARGETS"
    assert_only_error "--unmatched-reads -" "standard output carries --reads-out"
    run --separate-stderr scan --reads-fmt fastx "$READS" "$TARGETS"
    assert_only_error "invalid --reads-fmt 'fastx'"
    run --separate-stderr scan -o "$T/y.sam" --reads-out "$T/reads.out" "$READS" "$TARGETS"
    assert_one_error "--reads-out $T/reads.out" "cannot tell the format" "--reads-fmt"
    run --separate-stderr scan --trim "$READS" "$TARGETS"
    assert_only_error "--trim" "--reads-out"
}

@test "the --reads-out stream under the cutadapt preset equals cutadapt 4.2's output (the shared oracles)" {
    require_shared_data
    O=$D/oracles
    M=$D/reads/measles_sequana
    [ -f "$O/Hm2_R1.cutadapt4.2.e0.1.trimmed.fastq.gz" ] || skip "no cutadapt oracles"
    preset=(--preset cutadapt --trim)
    # cutadapt keeps the header's comment; htslib's FASTQ reader drops it
    first_word() { gzip -dc "$1" | awk 'NR % 4 == 1 { print $1; next } { print }'; }
    # Hm2 R1, R2 (-a TruSeq, defaults): every read the same bytes
    for r in 1 2; do
        a=AGATCGGAAGAGCACACGTCTGAACTCCAGTCAC
        [ $r = 2 ] && a=AGATCGGAAGAGCGTCGTGTAGGGAAAGAGTGT
        scan --quiet "${preset[@]}" -o /dev/null --reads-out - "$M/Hm2_GTGAAA_L005_R${r}_001.fastq.gz" \
            <(printf '>a\n%s\n' "$a") > "$T/s$r.fq"
        first_word "$O/Hm2_R$r.cutadapt4.2.e0.1.trimmed.fastq.gz" | cmp - "$T/s$r.fq"
    done
    # Trim Galore's three (-O 1): every read the same but the few README's
    # "Agreement with cutadapt" table counts as "leftmost" (a different start)
    for x in illumina_10K:AGATCGGAAGAGC:4 smallRNA_100K:TGGAATTCTCGG:0 nextera_100K:CTGTCTCTTATA:0; do
        IFS=: read -r n a want <<< "$x"
        scan --quiet "${preset[@]}" --overlap 1 -o /dev/null --reads-out - \
            "$D/reads/trimgalore/$n.reads1-4000.fastq.gz" <(printf '>a\n%s\n' "$a") > "$T/$n.fq"
        first_word "$O/$n.reads1-4000.cutadapt4.2.e0.1.O1.trimmed.fastq.gz" > "$T/$n.c.fq"
        [ "$(wc -l < "$T/$n.fq")" -eq 16000 ] && [ "$(wc -l < "$T/$n.c.fq")" -eq 16000 ]
        diffs=$(diff <(paste - - - - < "$T/$n.fq") <(paste - - - - < "$T/$n.c.fq") | grep -c '^<' || true)
        [ "$diffs" -eq "$want" ] || { echo "$n: $diffs reads differ, README says $want"; false; }
    done
}
