#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A screening step workflows drop in (issue #10): the per-target report
# (--report, --stats, --multiqc, --sample, the stderr summary), reads out
# (--matched, --unmatched-reads, --trim; pairs, gzip, BAM), --shard I/N and
# --merge-reports.  Each output is checked against the SAM of the same run
# or against a peer (cutadapt, samtools, MultiQC).

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    D=$GPUASM_SHARED_DATA
    ADAPTER=AGATCGGAAGAGCACACGTCTGAACTCCAGTCAC   # truseq_r1 of test-data/targets.fa
}

# Names of the reads of a FASTQ file (first word, without @), one a line.
fq_names() {
    awk 'NR % 4 == 1 { sub(/^@/, "", $1); print $1 }' "$@"
}

# Per target from a SAM file: reads (QNAMEs), forward/reverse and full/
# partial of each read's first record on the target (its best), records,
# histogram of that record's search distance (XD, else NM); must equal the
# --report rows.
check_report_vs_sam() {
    records "$1" | awk -F'\t' '
        { t = $3; if (!(($1, t) in seen)) { seen[$1, t] = 1; reads[t]++
              if (int($2 / 16) % 2) rev[t]++; else fwd[t]++
              if ($0 ~ /\tXP:Z:/) part[t]++; else full[t]++
              nm = 0; xd = -1
              for (i = 12; i <= NF; i++) { if ($i ~ /^NM:i:/) nm = substr($i, 6) + 0; if ($i ~ /^XD:i:/) xd = substr($i, 6) + 0 }
              d = xd >= 0 ? xd : nm; h[t, d]++; if (d > mx[t]) mx[t] = d }
          recs[t]++ }
        END { for (t in reads) { s = ""; for (d = 0; d <= mx[t]; d++) s = s (d ? "," : "") (h[t, d] + 0)
              print t, reads[t], fwd[t] + 0, rev[t] + 0, full[t] + 0, part[t] + 0, recs[t], s } }' |
        sort > "$T/from_sam"
    awk -F'\t' 'NR > 1 && $2 !~ /^\(/ && $4 > 0 { print $2, $4, $5, $6, $7, $8, $9, $11 }' "$2" |
        sort > "$T/from_report"
    diff "$T/from_sam" "$T/from_report"
}

@test "--report's evidence (issue #26): coverage, depth, identity and starts as the SAM says; reads_expected sums to the summary's" {
    for opt in "" --all; do
        scan --quiet $opt --report "$T/r.tsv" "$READS" "$TARGETS" > "$T/o.sam"
        run "$PYTHON3" - "$T/o.sam" "$T/r.tsv" <<'PY'
import re, sys
cov, starts, aligned, cols, match = {}, {}, {}, {}, {}
for line in open(sys.argv[1]):
    if line.startswith("@"):
        continue
    f = line.rstrip("\n").split("\t")
    t, pos = f[2], int(f[3]) - 1
    nm = int([x[5:] for x in f[11:] if x.startswith("NM:i:")][0])
    ref = c = 0
    for n, op in re.findall(r"(\d+)([MIDNSHP=X])", f[5]):
        n = int(n)
        if op in "M=XD":
            ref += n
        if op in "M=XID":
            c += n
    cov.setdefault(t, set()).update(range(pos, pos + ref))
    starts.setdefault(t, set()).add(pos)
    aligned[t] = aligned.get(t, 0) + ref
    cols[t] = cols.get(t, 0) + c
    match[t] = match.get(t, 0) + c - nm
bad = 0
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split("\t")
    if f[0] == "sample" or line.startswith("#") or f[1].startswith("("):
        continue
    t, length = f[1], int(f[2])
    want = [aligned.get(t, 0), match.get(t, 0), cols.get(t, 0), len(cov.get(t, ())),
            "%.4f" % (len(cov.get(t, ())) / length), "%.2f" % (aligned.get(t, 0) / length),
            "%.4f" % (match[t] / cols[t]) if cols.get(t) else ".", len(starts.get(t, ()))]
    got = [int(f[12]), int(f[13]), int(f[14]), int(f[15]), f[16], f[17], f[18], int(f[19])]
    if got != want:
        print(t, "report", got, "SAM", want)
        bad = 1
print("checked")
sys.exit(bad)
PY
        assert_success
    done
    # reads_expected: a fixed-point number per target, and the (any) row their sum
    run awk -F'\t' 'NR > 1 && $2 != "(none)" { if ($12 !~ /^[0-9]+\.[0-9]+$/ || length($12) - index($12, ".") != 9) bad = 1
                     if ($2 == "(any)") any = $12; else sum += $12 }
                     END { exit bad || (sum - any > 1e-6 || any - sum > 1e-6) }' "$T/r.tsv"
    assert_success
}

@test "--multiqc: a General Statistics part beside the bar graph; targets of one sequence are one bar" {
    printf '>a1\nAGATCGGAAGAGCACACGTCTGAACTCCAGTCAC\n>a2\nAGATCGGAAGAGCACACGTCTGAACTCCAGTCAC\n>b\nCTGTCTCTTATACACATCTCCGAGCCCACGAGAC\n' > "$T/ad.fa"
    scan --quiet --sample S --multiqc "$T/x_mqc.json" --report "$T/r.tsv" "$READS" "$T/ad.fa" > /dev/null
    [ -s "$T/x_general_mqc.json" ]
    run "$PYTHON3" - "$T/x_mqc.json" "$T/x_general_mqc.json" "$T/r.tsv" <<'PY'
import json, sys
bars = json.load(open(sys.argv[1]))["data"]["S"]
gen = json.load(open(sys.argv[2]))
assert gen["plot_type"] == "generalstats", gen
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[3]) if not l.startswith("#")]
any_row = [r for r in rows if r[1] == "(any)"][0]
assert abs(gen["data"]["S"]["gpuasm_percent_with_hit"] - float(any_row[9])) < 1e-9, (gen, any_row)
# a1 and a2 are one sequence: one bar, named for both
assert "a1 (= a2)" in bars and "a2" not in bars and "a1" not in bars, bars
same = {r[1]: r[20] for r in rows if not r[1].startswith("(") and r[0] != "sample"}
assert same == {"a1": ".", "a2": "a1", "b": "."}, same
print("ok")
PY
    assert_success
}

@test "--report with --all: several records per read and target, each read counted once by its best" {
    scan --all --report "$T/r.tsv" --quiet "$READS" "$TARGETS" > "$T/o.sam"
    # --all gives more records than reads on some target
    [ "$(awk -F'\t' '$2 == "(any)" { print ($9 > $4) }' "$T/r.tsv")" -eq 1 ]
    check_report_vs_sam "$T/o.sam" "$T/r.tsv"
}

@test "--report: one row per target and the totals, counted as the SAM of the same run says" {
    scan --no-PG --report "$T/r.tsv" "$READS" "$TARGETS" > "$T/o.sam" 2> "$T/err"
    head -1 "$T/r.tsv" | grep -qx $'sample\ttarget\tlength\treads\treads_forward\treads_reverse\treads_full\treads_partial\trecords\tpercent\tbest_distance\treads_expected\taligned_bases\tmatching_columns\taligned_columns\tbases_covered\tbreadth\tmean_depth\tmean_identity\tdistinct_starts\tsame_as\tcovered\tstarts'
    [ "$(wc -l < "$T/r.tsv")" -eq 6 ]              # header, 3 targets, (any), (none)
    check_report_vs_sam "$T/o.sam" "$T/r.tsv"
    # Totals: (any) = reads with a hit record, (none) = the others; 42 reads in all.
    with=$(records "$T/o.sam" | cut -f1 | sort -u | wc -l)
    run awk -F'\t' '$2 == "(any)" { print $4, $9 } $2 == "(none)" { print $4, $10 }' "$T/r.tsv"
    assert_output "$with $(records "$T/o.sam" | wc -l)
$((42 - with)) $(awk -v n=$((42 - with)) 'BEGIN { printf "%.2f", 100 * n / 42 }')"
    # The sample name from the reads file; the TSV's columns add up.
    awk -F'\t' 'NR > 1 { if ($1 != "reads") exit 1
                        if ($2 != "(none)" && ($4 != $5 + $6 || $4 != $7 + $8)) exit 1 }' "$T/r.tsv"
    # The SAM is the one a run without --report writes.
    scan --no-PG "$READS" "$TARGETS" | cmp - "$T/o.sam"
}

@test "--stats holds the same per-target numbers as --report, with the sample name" {
    scan --report "$T/r.tsv" --stats "$T/s.json" --sample S1 -o "$T/o.sam" "$READS" "$TARGETS" 2> /dev/null
    "$PYTHON3" - "$T/s.json" "$T/r.tsv" <<'EOF'
import csv, json, sys
s = json.load(open(sys.argv[1]))
rows = {r["target"]: r for r in csv.DictReader(open(sys.argv[2]), delimiter="\t")}
assert s["sample"] == "S1" and all(r["sample"] == "S1" for r in rows.values())
keys = ["reads", "reads_forward", "reads_reverse", "reads_full", "reads_partial", "records"]
for t in s["targets"] + [s["any_target"]]:
    r = rows[t["name"]]
    assert [t[k] for k in keys] == [int(r[k]) for k in keys], t["name"]
    assert ",".join(map(str, t["best_distance"])) or "." == r["best_distance"]
assert s["reads_without_hits"] == int(rows["(none)"]["reads"])
assert s["reads_with_hits"] == s["any_target"]["reads"]
assert s["reads"] == s["reads_with_hits"] + s["reads_without_hits"] == 42
EOF
}

@test "--sample: default from the reads file name (.fastq.gz and _R1 kept); bad names refused" {
    cp "$READS" "$T/Hm2_R1.fastq"
    gzip -c "$READS" > "$T/s_7.fq.gz"
    scan --quiet --report "$T/a.tsv" "$T/Hm2_R1.fastq" "$TARGETS" > /dev/null
    scan --quiet --report "$T/b.tsv" "$T/s_7.fq.gz" "$TARGETS" > /dev/null
    [ "$(cut -f1 "$T/a.tsv" | sort -u | tr '\n' ' ')" = "Hm2_R1 sample " ]
    [ "$(cut -f1 "$T/b.tsv" | sort -u | tr '\n' ' ')" = "s_7 sample " ]
    run scan --sample $'a\tb' --report "$T/c.tsv" "$READS" "$TARGETS"
    assert_failure 1
    assert_output --partial "invalid --sample"
    [ ! -e "$T/c.tsv" ]
}

@test "summary on stderr at the end of every run (cutadapt-style), none with --quiet" {
    run --separate-stderr scan --report "$T/r.tsv" -o "$T/o.sam" "$READS" "$TARGETS"
    assert_success
    [ -z "$output" ]
    with=$(awk -F'\t' '$2 == "(any)" { print $4 }' "$T/r.tsv")
    [[ "${stderr_lines[0]}" == "gpuasm-scan: reads: 42 reads, $with with a hit ("*"%), 38 hit records; "*" expected by chance" ]]
    # the top targets by reads, the largest first
    [ "${#stderr_lines[@]}" -eq 4 ]
    [[ "${stderr_lines[1]}" == "gpuasm-scan:   virus_alpha "* ]]
    run --separate-stderr scan --quiet --report "$T/r.tsv" -o "$T/o.sam" "$READS" "$TARGETS"
    [ -z "$stderr" ]
    # a plain SAM run ends with the same summary (stdout holds the SAM alone)
    run --separate-stderr scan -o "$T/o.sam" "$READS" "$TARGETS"
    assert_success
    [ "${#stderr_lines[@]}" -eq 4 ]
    [[ "${stderr_lines[0]}" == "gpuasm-scan: reads: 42 reads, $with with a hit ("*"%), 38 hit records; "*" expected by chance" ]]
    run --separate-stderr scan --device cpu "$READS" "$TARGETS"
    [ "${#stderr_lines[@]}" -eq 4 ]
    [ "$(records <<<"$output" | wc -l)" -eq 38 ]
    run --separate-stderr scan --quiet --device cpu -o "$T/o.sam" "$READS" "$TARGETS"
    [ -z "$stderr" ]
    # a failed run prints its error only, no summary that looks complete
    run --separate-stderr scan -o "$T/o.sam" "$READS" "$T/missing.fa"
    assert_failure
    [ "${#stderr_lines[@]}" -eq 1 ]
}

@test "--matched / --unmatched-reads: the reads split as the SAM says, FASTQ records unchanged" {
    scan --quiet --matched "$T/m.fq" --unmatched-reads "$T/u.fq" "$READS" "$TARGETS" > "$T/o.sam"
    records "$T/o.sam" | cut -f1 | uniq > "$T/hit_names"
    fq_names "$T/m.fq" > "$T/m_names"
    diff "$T/hit_names" "$T/m_names"
    # matched + unmatched = the input, each in input order
    fq_names "$READS" > "$T/all"
    sort "$T/m_names" <(fq_names "$T/u.fq") | diff - <(sort "$T/all")
    grep -vxFf "$T/m_names" "$T/all" | diff - <(fq_names "$T/u.fq")
    # sequence and qualities as read (htslib writes the name without its
    # comment, and bases in upper case, as samtools fastq does)
    awk 'NR % 4 == 1 { print $1; next } NR % 4 == 2 { print toupper($0); next } { print }' "$READS" > "$T/plain.fq"
    cat "$T/m.fq" "$T/u.fq" | paste - - - - | sort | diff - <(paste - - - - < "$T/plain.fq" | sort)
}

@test "--matched FILE.fq.gz is gzip; .bam is an unaligned BAM samtools reads; .fa is FASTA" {
    require_samtools
    scan --quiet --matched "$T/m.fq.gz" --unmatched-reads "$T/u.bam" "$READS" "$TARGETS" > /dev/null
    gzip -t "$T/m.fq.gz"
    [ "$(samtools view -c "$T/u.bam")" -eq $((42 - $(zcat "$T/m.fq.gz" | awk 'END { print NR / 4 }'))) ]
    [ "$(samtools view "$T/u.bam" | awk '$2 != 4 || $3 != "*"' | wc -l)" -eq 0 ]
    samtools fastq "$T/u.bam" 2> /dev/null | paste - - - - | sort > "$T/u1"
    scan --quiet --unmatched-reads "$T/u.fq" "$READS" "$TARGETS" > /dev/null
    paste - - - - < "$T/u.fq" | sort | diff - "$T/u1"
    scan --quiet --matched "$T/m.fa" "$READS" "$TARGETS" > /dev/null
    [ "$(grep -c '^>' "$T/m.fa")" -eq "$(zcat "$T/m.fq.gz" | awk 'END { print NR / 4 }')" ]
}

@test "pairs stay together: interleaved with /1 /2, or R1 and R2 files (--matched2)" {
    make_pair_files
    scan --quiet --matched "$T/m.fq" --unmatched-reads "$T/u.fq" "$T/r1.fq" "$T/r2.fq" "$TARGETS" > "$T/o.sam"
    # every pair in one file, R1 then R2
    awk 'NR % 4 == 1' "$T/m.fq" | paste - - | awk '{ a = $1; b = $2; sub(/\/1$/, "", a); sub(/\/2$/, "", b)
        if (a != b || $1 !~ /\/1$/ || $2 !~ /\/2$/) exit 1 }'
    awk 'NR % 4 == 1' "$T/u.fq" | paste - - | awk '{ a = $1; b = $2; sub(/\/1$/, "", a); sub(/\/2$/, "", b)
        if (a != b) exit 1 }'
    [ $(($(wc -l < "$T/m.fq") + $(wc -l < "$T/u.fq"))) -eq $((42 * 8)) ]
    # the matched pairs are those with records in the SAM
    records "$T/o.sam" | cut -f1 | uniq | awk '{ print "@" $1 "/1" }' | diff - <(awk 'NR % 8 == 1' "$T/m.fq")
    # R1 and R2 files: the same reads, names as in the input's R1/R2
    scan --quiet --matched "$T/m1.fq" --matched2 "$T/m2.fq" "$T/r1.fq" "$T/r2.fq" "$TARGETS" > /dev/null
    # the R1/R2 files keep the names as read (r1.fq's /1, r2.fq's /2), as cutadapt -o/-p
    awk 'NR % 8 == 1 || NR % 8 == 2 || NR % 8 == 3 || NR % 8 == 4' "$T/m.fq" | cmp - "$T/m1.fq"
    awk 'NR % 8 == 5 || NR % 8 == 6 || NR % 8 == 7 || NR % 8 == 0' "$T/m.fq" | cmp - "$T/m2.fq"
}

@test "--trim cuts as cutadapt -a does (the sample's adapter reads), reads cut to nothing as empty records" {
    command -v cutadapt > /dev/null || skip "cutadapt not installed"
    scan --quiet --preset cutadapt --trim \
        --matched "$T/m.fq" --unmatched-reads "$T/u.fq" "$READS" <(printf '>a\n%s\n' "$ADAPTER") > /dev/null
    cutadapt -a "$ADAPTER" -e 0.1 -O 3 -o "$T/c.fq" "$READS" > /dev/null 2>&1
    # a read cut to nothing is an empty record in both; htslib writes bases in upper case
    awk 'NR % 4 == 1 { n = $1 } NR % 4 == 2 { s = toupper($0) } NR % 4 == 0 { print n, s, $0 }' \
        "$T/c.fq" | sort > "$T/cut"
    grep -q '^@adapter_dimer  $' "$T/cut"
    cat "$T/m.fq" "$T/u.fq" | awk 'NR % 4 == 1 { n = $1 } NR % 4 == 2 { s = $0 } NR % 4 == 0 { print n, s, $0 }' |
        sort > "$T/ours"
    diff "$T/cut" "$T/ours"
    # it did cut something
    [ "$(cmp -l <(fq_names "$READS" | sort) <(cut -d' ' -f1 "$T/ours" | tr -d @) | wc -l)" -eq 0 ]
    ! diff -q <(awk 'NR % 4 == 2' "$T/m.fq") <(grep -A1 -xFf <(awk 'NR % 4 == 1 { print $1 }' "$T/m.fq") "$READS" | awk 'NR % 3 == 2') > /dev/null
}

@test "--trim against cutadapt on real reads: Hm2 R1 and R2 with their TruSeq adapters" {
    command -v cutadapt > /dev/null || skip "cutadapt not installed"
    M=$D/reads/measles_sequana
    [ -f "$M/Hm2_GTGAAA_L005_R1_001.fastq.gz" ] || skip "shared data not found"
    for r in 1 2; do
        a=AGATCGGAAGAGCACACGTCTGAACTCCAGTCAC
        [ $r = 2 ] && a=AGATCGGAAGAGCGTCGTGTAGGGAAAGAGTGT
        f=$M/Hm2_GTGAAA_L005_R${r}_001.fastq.gz
        scan --quiet --preset cutadapt --trim \
            --matched "$T/m.fq" --unmatched-reads "$T/u.fq" "$f" <(printf '>a\n%s\n' "$a") > /dev/null
        cutadapt -a "$a" -o "$T/c.fq" "$f" > /dev/null 2>&1
        awk 'NR % 4 == 1 { n = $1 } NR % 4 == 2 { s = $0 } NR % 4 == 0 { print n, s, $0 }' \
            "$T/c.fq" | sort > "$T/cut"
        cat "$T/m.fq" "$T/u.fq" | awk 'NR % 4 == 1 { n = $1 } NR % 4 == 2 { s = $0 } NR % 4 == 0 { print n, s, $0 }' |
            sort > "$T/ours"
        [ "$(wc -l < "$T/ours")" -eq 1499 ]
        # README "Agreement with cutadapt": every read flagged by both starts where cutadapt's does
        diff "$T/cut" "$T/ours"
    done
}

# Records of a SAM file sorted by the read order of a FASTQ file (stable:
# a read's records keep their order).
by_read_order() {
    awk -F'\t' 'NR == FNR { if (FNR % 4 == 1) { n = $1; sub(/^@/, "", n); sub(/[ \t].*/, "", n); sub(/\/[12]$/, "", n); i[n] = FNR } next }
                !/^@/ { print i[$1] "\t" $0 }' "$1" "$2" | sort -s -t$'\t' -k1,1n | cut -f2-
}

@test "--shard I/N for N = 1, 3, 4: the shards' records are the whole run's, the reports sum to its report" {
    scan --no-PG --report "$T/whole.tsv" "$READS" "$TARGETS" 2> /dev/null > "$T/whole.sam"
    for n in 1 3 4; do
        files=() reps=()
        for i in $(seq 1 $n); do
            scan --no-PG --batch-size 300 --shard $i/$n --report "$T/s$i.tsv" -o "$T/s$i.sam" "$READS" "$TARGETS" 2> /dev/null
            files+=("$T/s$i.sam") reps+=("$T/s$i.tsv")
        done
        # disjoint: no read in two shards; every shard has some
        for f in "${files[@]}"; do [ "$(records "$f" | wc -l)" -gt 0 ]; done
        [ "$(for f in "${files[@]}"; do records "$f" | cut -f1 | uniq; done | sort | uniq -d | wc -l)" -eq 0 ]
        cat "${files[@]}" | records > "$T/cat.sam"
        diff <(by_read_order "$READS" "$T/cat.sam") <(records "$T/whole.sam")
        scan --merge-reports "${reps[@]}" | cmp - "$T/whole.tsv"
    done
}

@test "--shard with pairs: mates stay in one shard; samtools cat of the shards = the whole run" {
    require_samtools
    make_pair_files
    scan --no-PG --unmatched "$T/r1.fq" "$T/r2.fq" "$TARGETS" > "$T/whole.sam"
    for i in 1 2 3; do
        scan --no-PG --unmatched --shard $i/3 -o "$T/s$i.bam" "$T/r1.fq" "$T/r2.fq" "$TARGETS"
    done
    samtools cat -o "$T/cat.bam" "$T/s1.bam" "$T/s2.bam" "$T/s3.bam"
    samtools view "$T/cat.bam" > "$T/cat.sam"
    diff <(by_read_order "$T/r1.fq" "$T/cat.sam") <(records "$T/whole.sam")
    # each shard holds whole pairs: 2 x (14 templates) reads
    for i in 1 2 3; do
        [ "$(samtools view -c -F 0x900 "$T/s$i.bam")" -eq 28 ]
    done
}

@test "--shard and --merge-reports: bad values and bad reports are errors naming the file" {
    for bad in 0/3 4/3 3 1/0 a/b 1/3x -1/3; do
        run scan --shard "$bad" "$READS" "$TARGETS"
        assert_failure 1
        assert_output "gpuasm-scan: invalid --shard '$bad' (expected I/N with 1 <= I <= N, e.g. 2/4)"
    done
    scan --quiet --report "$T/a.tsv" "$READS" "$TARGETS" > /dev/null
    scan --quiet --report "$T/b.tsv" --sample other "$READS" "$TARGETS" > /dev/null
    run scan --merge-reports "$T/a.tsv" "$T/b.tsv"
    assert_failure 1
    assert_output --partial "b.tsv: sample 'other', but"
    head -3 "$T/a.tsv" > "$T/cut.tsv"
    run scan --merge-reports "$T/a.tsv" "$T/cut.tsv"
    assert_failure 1
    assert_output "gpuasm-scan: $T/cut.tsv: truncated report (no (any) row)"
    run scan --merge-reports "$READS"
    assert_failure 1
    assert_output --partial "line 1: not a gpuasm-scan --report header"
    sed '2s/\t13\t12\t1\t/\t13\t11\t1\t/' "$T/a.tsv" > "$T/bad.tsv"
    run scan --merge-reports "$T/bad.tsv"
    assert_failure 1
    assert_output "gpuasm-scan: $T/bad.tsv: line 2: bad counts (reads must be forward + reverse and full + partial)"
    run scan --merge-reports
    assert_failure 1
    run scan --trim "$READS" "$TARGETS"
    assert_failure 1
    assert_output "gpuasm-scan: --trim cuts the reads written by --matched or --reads-out: give one of them"
}

@test "a failed run leaves no --report, --multiqc, --matched or --unmatched-reads file" {
    printf '@r1\nACGTACGTAC\n+\nIIIII\n' > "$T/bad.fq"
    run scan --report "$T/r.tsv" --multiqc "$T/x_mqc.json" --matched "$T/m.fq" --unmatched-reads "$T/u.fq.gz" \
        "$T/bad.fq" "$TARGETS"
    assert_failure 1
    [ -z "$(ls -A "$T" | grep -v bad.fq)" ]
    run scan --matched "$T/nodir/m.fq" "$READS" "$TARGETS"
    assert_failure 1
    assert_output --partial "nodir/m.fq"
    # never over an input, nor two outputs in one file
    cp "$READS" "$T/in.fq"
    run scan --unmatched-reads "$T/in.fq" "$T/in.fq" "$TARGETS"
    assert_failure 1
    assert_output "gpuasm-scan: --unmatched-reads $T/in.fq: this output is the input $T/in.fq (the same file): refusing to overwrite an input"
    cmp "$T/in.fq" "$READS"
    run scan --matched "$T/x.txt" "$READS" "$TARGETS"
    assert_failure 1
    assert_output "gpuasm-scan: --matched $T/x.txt: cannot tell the format from the name (name it .fq, .fastq, .fa, .fasta, optionally .gz, or .bam, .sam, .sam.gz, .cram; or give --reads-fmt)"
    [ ! -e "$T/x.txt" ]
    run scan --matched "$T/x.fq" --unmatched-reads "$T/x.fq" "$READS" "$TARGETS"
    assert_failure 1
    assert_output "gpuasm-scan: --unmatched-reads $T/x.fq: also given to --matched ($T/x.fq): two outputs of one run in one file"
}

@test "MultiQC loads the --multiqc files of two samples: its data file holds both samples' numbers" {
    mq=${MULTIQC:-}
    [ -n "$mq" ] || mq=$(command -v multiqc || true)
    [ -n "$mq" ] || { [ -x "$GPUASM_TESTS_DIR/../_venv/bin/multiqc" ] && mq=$GPUASM_TESTS_DIR/../_venv/bin/multiqc; } || true
    [ -n "$mq" ] || skip "multiqc not installed (./quickstart installs it into _venv)"
    mkdir "$T/in"
    scan --quiet --sample A --multiqc "$T/in/A_mqc.json" --report "$T/A.tsv" "$READS" "$TARGETS" > /dev/null
    head -40 "$READS" > "$T/ten.fq"
    scan --quiet --sample B --multiqc "$T/in/B_mqc.json" --report "$T/B.tsv" "$T/ten.fq" "$TARGETS" > /dev/null
    (cd "$T" && "$mq" --no-ansi -q -f -o "$T/out" "$T/in" > "$T/mq.log" 2>&1) || { cat "$T/mq.log"; false; }
    f=$(ls "$T"/out/multiqc_data/*gpuasm_scan_targets*.txt | head -1)
    [ -f "$f" ]
    "$PYTHON3" - "$f" "$T/A.tsv" "$T/B.tsv" <<'EOF'
import csv, sys
data = {r["Sample"]: r for r in csv.DictReader(open(sys.argv[1]), delimiter="\t")}
assert set(data) == {"A", "B"}, data.keys()
for path in sys.argv[2:]:
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    s = rows[0]["sample"]
    for r in rows:
        if r["target"] == "(none)":
            assert float(data[s]["no hit"]) == int(r["reads"]), (s, r)
        elif not r["target"].startswith("(") and int(r["reads"]) > 0:
            assert float(data[s][r["target"]]) == int(r["reads"]), (s, r)
EOF
}
