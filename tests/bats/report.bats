#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# What a record says (issue #9; align/report.h): NM and MD as SAM defines
# them (samtools calmd agrees), the search distance in XD where it differs
# and in AS, and --best: one record per read, by the documented tie rule.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
}

# samtools calmd recomputes NM and MD from the reference and says so on
# stderr when a record's differ ("different NM/MD"); it must find nothing
# to change.  $1: SAM; $2: FASTA whose names are the SAM's @SQ SN.
calmd_agrees() {
    cp "$2" "$T/calmd_ref.fa"   # calmd writes a .fai beside it
    samtools calmd "$1" "$T/calmd_ref.fa" > "$T/calmd.sam" 2> "$T/calmd.err"
    [ ! -s "$T/calmd.err" ] || { cat "$T/calmd.err" >&2; return 1; }
    cmp <(records "$1") <(records "$T/calmd.sam")
}

# The targets of $2 renamed to the @SQ SN of SAM $1, in order.
sn_fasta() {
    awk -F'\t' 'NR == FNR { if ($1 == "@SQ") sn[++n] = substr($2, 4); next }
                /^>/ { print ">" sn[++i]; next } { print }' "$1" "$2"
}

@test "NM and MD agree with samtools calmd: the sample, --all, --eqx, --match-read-wildcards, --mode hamming" {
    require_samtools
    local opts
    for opts in "" "--all" "--eqx" "--match-read-wildcards" "--mode hamming" "--pattern target -k 3"; do
        # shellcheck disable=SC2086
        scan --device cpu $opts "$READS" "$TARGETS" > "$T/o.sam"
        calmd_agrees "$T/o.sam" "$TARGETS" || { echo "options: $opts" >&2; return 1; }
    done
}

@test "IUPAC codes the search matched count in NM (SAM); XD has the search distance, AS = aligned - 2 x XD" {
    # virus_beta has IUPAC codes at 151, 481, 1211, 1891, 1901 (test-data/README.md)
    run awk -F'\t' '$1 == "beta_15" { print $4, $6, $12, $13, $14, $15 }' "$EXPECTED_SAM"
    assert_output "104 95M NM:i:1 MD:Z:47R47 AS:i:95 XD:i:0"
    # no XD where the two agree
    run awk -F'\t' '$1 == "alpha_02" { print $12, $13, $14, NF }' "$EXPECTED_SAM"
    assert_output "NM:i:2 MD:Z:69T42G37 AS:i:146 15"
}

@test "--eqx: X + I + D = NM; = only where the bases are the same A/C/G/T" {
    scan --device cpu --no-PG --eqx --match-read-wildcards "$READS" "$TARGETS" > "$T/o.sam"
    run awk -F'\t' '!/^@/ { c = $6; n = 0
            while (match(c, /^[0-9]+[MIDNSHP=X]/)) { len = substr(c, 1, RLENGTH - 1) + 0; op = substr(c, RLENGTH, 1)
                if (op == "X" || op == "I" || op == "D") n += len; c = substr(c, RLENGTH + 1) }
            if ("NM:i:" n != $12) print "X+I+D " n ": " $1 " " $6 " " $12 }' "$T/o.sam"
    assert_output ""
    # beta_with_N: its three N are X although the search matched them
    run awk -F'\t' '$1 == "beta_with_N" { print $6 }' "$T/o.sam"
    assert_output "20=1X34=1X25=1X18="
}

@test "real data: Hm2 R1 against the bbmap adapters (renamed targets), --all: calmd agrees" {
    require_shared_data
    require_samtools
    local a=$GPUASM_SHARED_DATA/adapters/bbmap_adapters.fa
    scan --device cpu --all -o "$T/o.sam" \
        "$GPUASM_SHARED_DATA/reads/measles_sequana/Hm2_GTGAAA_L005_R1_001.fastq.gz" "$a" 2>/dev/null
    [ "$(records "$T/o.sam" | wc -l)" -gt 3000 ]
    sn_fasta "$T/o.sam" "$a" > "$T/ad.fa"
    calmd_agrees "$T/o.sam" "$T/ad.fa"
}

# Check that a --best output has, for every read, the record that the
# default output's records of that read rank first by the rule: lowest
# search distance (XD, else NM), longest aligned pattern, forward strand,
# first target in the file.  $1 default SAM, $2 --best SAM.
best_is_min() {
    "$PYTHON3" - "$1" "$2" <<'PY'
import re, sys
def load(p):
    sq, recs = [], []
    for line in open(p):
        f = line.rstrip("\n").split("\t")
        if f[0] == "@SQ":
            sq.append((f[1][3:], int(f[2][3:])))
        elif not line.startswith("@"):
            recs.append(f)
    return sq, recs
sq, dflt = load(sys.argv[1])
_, best = load(sys.argv[2])
tix = {n: i for i, (n, _) in enumerate(sq)}
def key(f):
    tags = {t[:2]: t[5:] for t in f[11:]}
    dist = int(tags.get("XD", tags["NM"]))
    ops = re.findall(r"(\d+)([MIDNSHP=X])", f[5])
    rlen = sum(int(n) for n, o in ops if o in "MIS=X")
    tlen = sq[tix[f[2]]][1]
    read_is_pattern = rlen <= tlen
    plen = sum(int(n) for n, o in ops if o in ("MI=X" if read_is_pattern else "MD=X"))
    return (-(plen - 2 * dist), dist, -plen, (int(f[1]) >> 4) & 1, tix[f[2]])
by_read = {}
for f in dflt:
    by_read.setdefault(f[0], []).append(f)
bad = 0
names = [f[0] for f in best]
if len(names) != len(set(names)):
    print("more than one record for a read"); bad += 1
if names != list(by_read):
    print("reads differ or out of order"); bad += 1
for f in best:
    if int(f[1]) & 256:
        print("secondary:", f[0]); bad += 1
    want = min(by_read.get(f[0], [f]), key=key)
    w = list(want); w[1] = str(int(w[1]) & ~256)
    if w != f:
        print("read %s: --best gave %s %s, the rule gives %s %s" % (f[0], f[2], key(f), want[2], key(want))); bad += 1
print("%d reads checked, %d problems" % (len(best), bad))
sys.exit(bad != 0)
PY
}

@test "--best: one primary record per read, the rule's minimum of the default records (sample)" {
    scan --device cpu --no-PG "$READS" "$TARGETS" > "$T/d.sam"
    scan --device cpu --no-PG --best "$READS" "$TARGETS" > "$T/b.sam"
    run best_is_min "$T/d.sam" "$T/b.sam"
    assert_success
    assert_output --partial "34 reads checked, 0 problems"
    # alpha_adapter: both at distance 0; the virus aligns more of its
    # pattern (the whole 120-base read) than the adapter (34 bases)
    run awk -F'\t' '$1 == "alpha_adapter" { print $2, $3 }' "$T/b.sam"
    assert_output "0 virus_alpha"
}

@test "--best on real data: Hm2 R1 against the 158 bbmap adapters" {
    require_shared_data
    local r=$GPUASM_SHARED_DATA/reads/measles_sequana/Hm2_GTGAAA_L005_R1_001.fastq.gz
    scan --device cpu --no-PG --overlap 3 -o "$T/d.sam" "$r" "$GPUASM_SHARED_DATA/adapters/bbmap_adapters.fa" 2>/dev/null
    scan --device cpu --no-PG --overlap 3 --best -o "$T/b.sam" "$r" "$GPUASM_SHARED_DATA/adapters/bbmap_adapters.fa" 2>/dev/null
    run best_is_min "$T/d.sam" "$T/b.sam"
    assert_success
    # partial occurrences of >= 3 bases at either read end (cutadapt's -O 3)
    # with 158 adapters on both strands: most reads have one
    assert_output --partial "1028 reads checked, 0 problems"
    [ "$(records "$T/d.sam" | wc -l)" -gt 3000 ]
    # whole adapters only: the reads that hold one
    scan --device cpu --no-PG --overlap full -o "$T/df.sam" "$r" "$GPUASM_SHARED_DATA/adapters/bbmap_adapters.fa" 2>/dev/null
    scan --device cpu --no-PG --overlap full --best -o "$T/bf.sam" "$r" "$GPUASM_SHARED_DATA/adapters/bbmap_adapters.fa" 2>/dev/null
    run best_is_min "$T/df.sam" "$T/bf.sam"
    assert_success
    assert_output --partial "145 reads checked, 0 problems"
}

@test "--best tie rule: score (aligned - 2 x distance), then distance, aligned length, forward strand, file order" {
    # read: 10 random bases, ADAPTER (24), 10 random; targets built from it
    local ad=AGATCGGAAGAGCACACGTCTGAA
    printf '@r\nTTGACCATGC%sGCATTCAGTC\n+\n%s\n' "$ad" "$(printf 'I%.0s' $(seq 44))" > "$T/r.fq"
    local rc
    rc=$(printf '%s' "$ad" | rev | tr ACGT TGCA)
    # 1 edit, 24 bases    | exact, 20 bases     | exact, 24, reverse   | exact, 24        | exact, 24 again
    printf '>one_edit\nAGATCGGAAGAGCACTCGTCTGAA\n>short\nAGATCGGAAGAGCACACGTC\n>rev\n%s\n>fwd\n%s\n>fwd_again\n%s\n' \
        "$rc" "$ad" "$ad" > "$T/t.fa"
    run --separate-stderr scan --device cpu --best "$T/r.fq" "$T/t.fa"
    assert_success
    run awk -F'\t' '!/^@/ { print $2, $3, $6 }' <<<"$output"
    assert_output "0 fwd 10S24M10S"          # forward, 24 aligned, 0 edits, first of the two
    # without fwd and fwd_again: the reverse-strand exact hit (score 24)
    # beats the forward 1-edit one (22) and the 20-base exact one (20)
    head -n 6 "$T/t.fa" > "$T/t3.fa"
    run --separate-stderr scan --device cpu --best "$T/r.fq" "$T/t3.fa"
    run awk -F'\t' '!/^@/ { print $2, $3 }' <<<"$output"
    assert_output "16 rev"
    # one edit in 24 aligned bases (score 22) beats an exact 20 (score 20),
    # as cutadapt picks the adapter with the best score, not the fewest errors
    head -n 4 "$T/t.fa" > "$T/t2.fa"
    run --separate-stderr scan --device cpu --best "$T/r.fq" "$T/t2.fa"
    run awk -F'\t' '!/^@/ { print $2, $3 }' <<<"$output"
    assert_output "0 one_edit"
}

@test "--best with --unmatched, with pairs; --best with --all is an error" {
    scan --device cpu --no-PG --best --unmatched "$READS" "$TARGETS" > "$T/b.sam"
    assert_equal "$(records "$T/b.sam" | cut -f1)" "$(awk 'NR % 4 == 1 { print substr($1, 2) }' "$READS")"
    run awk -F'\t' '!/^@/ && int($2 / 256) % 2' "$T/b.sam"
    assert_output ""
    awk 'NR % 4 == 1 { print $1 "/1"; next } { print }' "$READS" > "$T/r1.fq"
    awk 'NR % 4 == 1 { print $1 "/2"; next } { print }' "$READS" > "$T/r2.fq"
    scan --device cpu --no-PG --best "$T/r1.fq" "$T/r2.fq" "$TARGETS" > "$T/p.sam"
    # two records per pair with a hit (one per mate), none secondary
    run awk -F'\t' '!/^@/ { n[$1]++ } END { for (r in n) if (n[r] != 2) print r, n[r] }' "$T/p.sam"
    assert_output ""
    run --separate-stderr scan --device cpu --best --all "$READS" "$TARGETS"
    assert_only_error "--best reports one record per read, --all every occurrence"
}
