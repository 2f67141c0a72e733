#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Output: SAM header and records, BAM/CRAM read back with samtools, the
# reporting options, and identical output whatever threads/batches/device.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    scan --device cpu --no-PG "$READS" "$TARGETS" > "$T/ref.sam"
}

@test "SAM header: @HD, one @SQ per target in file order, @PG, @CO with the floors" {
    run --separate-stderr scan --device cpu "$READS" "$TARGETS"
    assert_success
    assert_line --index 0 $'@HD\tVN:1.6\tSO:unsorted\tGO:query'
    assert_line --index 1 $'@SQ\tSN:truseq_r1\tLN:34'
    assert_line --index 2 $'@SQ\tSN:virus_alpha\tLN:2600'
    assert_line --index 3 $'@SQ\tSN:virus_beta\tLN:2300'
    assert_line --index 4 --regexp $'^@PG\tID:gpuasm-scan\tPN:gpuasm-scan\tVN:[^\t]+\tCL:'
    assert_line --index 5 --regexp $'^@CO\tgpuasm-scan: partial occurrences of targets: '
    refute_line --index 6 --regexp '^@'
}

@test "--no-PG drops only the @PG line" {
    run --separate-stderr scan --device cpu "$READS" "$TARGETS"
    assert_equal "$(no_pg <<<"$output")" "$(cat "$T/ref.sam")"
    run grep -c '^@PG' "$T/ref.sam"
    assert_output 0
}

@test "records: MAPQ 255, no mate, tags NM MD AS [XS] [XD] [XP] XE, AS = aligned - 2 x (XD if there, else NM)" {
    run awk -F'\t' '/^@SQ/ { split($2, s, ":"); split($3, l, ":"); len[s[2]] = l[2]; next }
        !/^@/ {
            if ($5 != 255 || $7 != "*" || $8 != 0 || $9 != 0) { print "fields: " $0; next }
            nm = ""; as = ""; md = ""; xd = ""; xe = ""; tags = ""
            for (i = 12; i <= NF; i++) {
                tags = tags substr($i, 1, 2) " "
                if ($i ~ /^NM:i:/) nm = substr($i, 6)
                if ($i ~ /^AS:i:/) as = substr($i, 6)
                if ($i ~ /^MD:Z:/) md = substr($i, 6)
                if ($i ~ /^XD:i:/) xd = substr($i, 6)
                if ($i ~ /^XE:f:/) xe = substr($i, 6)
            }
            sd = xd == "" ? nm : xd
            # aligned pattern bases: the read (M, I) when it is the shorter, else the target (M, D)
            rp = length($10) <= len[$3]; c = $6; al = 0
            while (match(c, /^[0-9]+[MIDNSHP=X]/)) { n = substr(c, 1, RLENGTH - 1) + 0; op = substr(c, RLENGTH, 1)
                if (op ~ /[M=X]/ || (rp && op == "I") || (!rp && op == "D")) al += n; c = substr(c, RLENGTH + 1) }
            if (nm == "" || md == "" || as != al - 2 * sd || xd == nm || xe == "" || xe < 0) print "tags: " $0
            if (tags !~ /^NM MD AS (XS )?(XD )?(XP )?XE $/) print "tag order: " tags
        }' "$T/ref.sam"
    assert_success
    assert_output ""
    # The sample has targets with IUPAC codes that reads match: XD there.
    grep -q 'XD:i:' "$T/ref.sam"
}

@test "every output goes through htslib: samtools quickcheck on SAM" {
    require_samtools
    samtools quickcheck -v "$T/ref.sam"
}

@test "-o FILE writes what stdout gets" {
    scan --device cpu --no-PG -o "$T/out.sam" "$READS" "$TARGETS"
    cmp "$T/out.sam" "$T/ref.sam"
}

@test "-O bam: BAM that samtools reads back to the same records" {
    require_samtools
    run --separate-stderr scan --device cpu --no-PG -O bam -o "$T/out.bam" "$READS" "$TARGETS"
    assert_success
    assert_equal "$output" ""
    samtools quickcheck -v "$T/out.bam"
    [ "$(head -c 4 < <(gzip -dc "$T/out.bam"))" = $'BAM\001' ]
    assert_equal "$(samtools view "$T/out.bam")" "$(records "$T/ref.sam")"
    assert_equal "$(samtools view -H "$T/out.bam" | grep -v '^@PG')" "$(grep '^@' "$T/ref.sam")"
}

@test "-O bam to stdout" {
    require_samtools
    scan --device cpu --no-PG -O bam "$READS" "$TARGETS" > "$T/out.bam"
    samtools quickcheck -v "$T/out.bam"
    assert_equal "$(samtools view "$T/out.bam")" "$(records "$T/ref.sam")"
}

@test "-O cram: CRAM that samtools reads back to the same records" {
    require_samtools
    cp "$TARGETS" "$T/ref.fa"
    samtools faidx "$T/ref.fa"
    run --separate-stderr scan --device cpu --no-PG -O cram -o "$T/out.cram" "$READS" "$T/ref.fa"
    assert_success
    samtools quickcheck -v "$T/out.cram"
    [ "$(head -c 4 "$T/out.cram")" = "CRAM" ]
    # CRAM stores MD/NM-free records and regenerates them from the reference
    # on decode: compare the fields and the NM of every record.
    assert_equal "$(samtools view -T "$T/ref.fa" "$T/out.cram" | cut -f1-11)" "$(records "$T/ref.sam" | cut -f1-11)"
    assert_equal "$(samtools view -T "$T/ref.fa" "$T/out.cram" | grep -o 'NM:i:[0-9]*')" \
                 "$(records "$T/ref.sam" | grep -o 'NM:i:[0-9]*')"
}

@test "-O sam is the default" {
    scan --device cpu --no-PG -O sam "$READS" "$TARGETS" > "$T/out.sam"
    cmp "$T/out.sam" "$T/ref.sam"
}

@test "records grouped by read in input order, best first (the primary the best), 256 after the first" {
    run "$PYTHON3" - "$READS" "$T/ref.sam" <<'PY'
import sys
names = [l[1:].split()[0] for i, l in enumerate(open(sys.argv[1])) if i % 4 == 0]
recs = [l.split("\t") for l in open(sys.argv[2]) if not l.startswith("@")]
pos = -1
for r in recs:
    i = names.index(r[0])
    assert i >= pos, "read order: " + r[0]
    assert (int(r[1]) & 256 == 0) == (i != pos), "FLAG 256: " + r[0]
    pos = i
print("ok")
PY
    assert_success
    assert_output "ok"
    # best first: tests/data/check_order.py (AS, distance, aligned, strand, target, position)
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/check_order.py" "$T/ref.sam"
    assert_success
    # the sample has reads with records on two targets (shared_fwd, alpha_adapter)
    assert_output --regexp 'with secondary records: all best first'
}

@test "default: at most one record per (read, target), the best; XS on a second occurrence" {
    run awk -F'\t' '!/^@/ { n[$1 "\t" $3]++ } END { for (k in n) if (n[k] > 1) print k }' "$T/ref.sam"
    assert_output ""
    # adapter_twice carries the adapter twice (exact, then 1 substitution).
    run awk -F'\t' '$1 == "adapter_twice" && $3 == "truseq_r1"' "$T/ref.sam"
    assert_equal "${#lines[@]}" 1
    assert_output --regexp $'\tNM:i:0(\t|$)'
    assert_output --regexp $'\tXS:i:32(\t|$)'    # 34 aligned - 2 x 1 difference
    assert_output --regexp $'^adapter_twice\t0\ttruseq_r1\t1\t255\t10S34M86S\t'
}

@test "--all: every occurrence, best first, a superset of the default" {
    run --separate-stderr scan --device cpu --no-PG --all "$READS" "$TARGETS"
    assert_success
    echo "$output" > "$T/all.sam"
    samtools quickcheck "$T/all.sam"
    run awk -F'\t' '$1 == "adapter_twice" && $3 == "truseq_r1" { print $2, $6 }' "$T/all.sam"
    assert_equal "${#lines[@]}" 2
    assert_equal "${lines[0]}" "0 10S34M86S"
    assert_equal "${lines[1]}" "256 80S34M16S"
    # Every default record is the first record of its (read, target) in --all
    # (FLAG 256 aside), and NM never decreases within a (read, target).
    run "$PYTHON3" - "$T/ref.sam" "$T/all.sam" <<'PY'
import sys
def recs(p):
    return [l.rstrip("\n").split("\t") for l in open(p) if not l.startswith("@")]
import re
def tag(r, k):
    v = [t for t in r[11:] if t.startswith(k + ":")]
    return v[0][5:] if v else None
def score(r):
    # report.h's rank: aligned pattern bases - 2 x search distance
    sd = int(tag(r, "XD") or tag(r, "NM"))
    ops = re.findall(r"(\d+)([MIDS=X])", r[5])
    rlen = len(r[9])
    read_is_pattern = rlen <= LN[r[2]]
    plen = sum(int(n) for n, o in ops if o in ("MI=X" if read_is_pattern else "MD=X"))
    return plen - 2 * sd
LN = {}
for l in open(sys.argv[1]):
    if l.startswith("@SQ"):
        f = dict(x.split(":", 1) for x in l.rstrip("\n").split("\t")[1:])
        LN[f["SN"]] = int(f["LN"])
best = {}
for r in recs(sys.argv[1]):
    best[(r[0], r[2])] = r
firsts = {}
last_nm = {}
for r in recs(sys.argv[2]):
    key = (r[0], r[2])
    if key not in firsts:
        firsts[key] = r
    else:
        assert score(r) <= last_nm[key], "not best first: %s" % (key,)
    last_nm[key] = score(r)
assert set(firsts) == set(best), "pairs differ"
for key, r in best.items():
    a = firsts[key]
    f = lambda x: [x[0], str(int(x[1]) & ~256)] + x[2:11] + sorted(t for t in x[11:] if not t.startswith("XS:"))
    assert f(a) == f(r), "first --all record differs: %s\n%s\n%s" % (key, a, r)
print("ok")
PY
    assert_success
    assert_output "ok"
}

@test "--unmatched: one FLAG 4 record for each read without hits" {
    require_samtools
    run --separate-stderr scan --device cpu --no-PG --unmatched "$READS" "$TARGETS"
    assert_success
    echo "$output" > "$T/un.sam"
    samtools quickcheck "$T/un.sam"
    # Hit records unchanged.
    assert_equal "$(samtools view -F 4 "$T/un.sam")" "$(records "$T/ref.sam")"
    # Every read appears; the unmatched ones are exactly those without hits.
    assert_equal "$(records "$T/un.sam" | cut -f1 | uniq | wc -l)" "$(awk 'NR % 4 == 1' "$READS" | wc -l)"
    run bash -c "samtools view -f 4 '$T/un.sam' | cut -f1"
    local unmatched=$output
    [ -n "$unmatched" ]
    records "$T/ref.sam" | cut -f1 > "$T/hit-names"
    run bash -c "awk 'NR % 4 == 1 { print substr(\$1, 2) }' '$READS' | grep -vxF -f '$T/hit-names'"
    assert_equal "$unmatched" "$output"
    run bash -c "samtools view -f 4 '$T/un.sam' | cut -f2-9 | sort -u"
    assert_output $'4\t*\t0\t0\t*\t*\t0\t0'
    # The random negatives are among them.
    [[ "$unmatched" == *random_01* ]]
}

@test "--eqx: =/X instead of M, everything else the same" {
    run --separate-stderr scan --device cpu --no-PG --eqx "$READS" "$TARGETS"
    assert_success
    echo "$output" > "$T/eqx.sam"
    run bash -c "grep -v '^@' '$T/eqx.sam' | cut -f6 | grep '[M]'"
    assert_output ""
    run bash -c "grep -v '^@' '$T/eqx.sam' | cut -f6 | grep -c '[X]'"
    [ "$output" -gt 0 ]
    # Merging = and X back into M gives the default CIGAR.
    run "$PYTHON3" - "$T/ref.sam" "$T/eqx.sam" <<'PY'
import re, sys
def recs(p):
    return [l.rstrip("\n").split("\t") for l in open(p) if not l.startswith("@")]
def to_m(c):
    out = []
    for n, op in re.findall(r"(\d+)(\D)", c):
        op = "M" if op in "=X" else op
        if out and out[-1][1] == op:
            out[-1][0] += int(n)
        else:
            out.append([int(n), op])
    return "".join("%d%s" % (n, op) for n, op in out)
a, b = recs(sys.argv[1]), recs(sys.argv[2])
assert len(a) == len(b)
for x, y in zip(a, b):
    assert x[:5] + x[6:] == y[:5] + y[6:], (x, y)
    assert to_m(y[5]) == x[5], (x[5], y[5])
print("ok")
PY
    assert_output "ok"
}

@test "--pattern read and --pattern target agree with a naive DP" {
    run --separate-stderr scan --device cpu --no-PG --pattern read "$READS" "$TARGETS"
    assert_success
    echo "$output" > "$T/pr.sam"
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/naive_check.py" --pattern read "$READS" "$TARGETS" "$T/pr.sam"
    assert_success
    # The read is the pattern: no clipping but where it runs off a target's
    # end (XP:Z:target3/5), and the 34-bp adapter (text now) can hold no
    # read longer than 34 + k.
    refute_output --partial "0 hits"
    run awk -F'\t' '!/^@/ && $6 ~ /S/ && !/XP:Z:target[35]/' "$T/pr.sam"
    assert_output ""

    run --separate-stderr scan --device cpu --no-PG --pattern target -k 3 "$READS" "$TARGETS"
    assert_success
    echo "$output" > "$T/pt.sam"
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/naive_check.py" --pattern target -k 3 "$READS" "$TARGETS" "$T/pt.sam"
    assert_success
    # a virus (2,600 bases) cannot lie inside a read: only its ends can,
    # as partial occurrences
    run awk -F'\t' '!/^@/ { print $3 }' "$T/pt.sam"
    assert_line "truseq_r1"
    run awk -F'\t' '!/^@/ && $3 == "virus_alpha" && !/XP:Z:read[35]/' "$T/pt.sam"
    assert_output ""
}

@test "-@ 1 and -@ 2 give identical output" {
    scan --device cpu --no-PG -@ 1 "$READS" "$TARGETS" > "$T/t1.sam"
    scan --device cpu --no-PG -@ 2 "$READS" "$TARGETS" > "$T/t2.sam"
    scan --device cpu --no-PG -@ 4 "$READS" "$TARGETS" > "$T/t4.sam"
    cmp "$T/t1.sam" "$T/ref.sam"
    cmp "$T/t2.sam" "$T/ref.sam"
    cmp "$T/t4.sam" "$T/ref.sam"
}

@test "-@ 2 BAM equals -@ 1 BAM" {
    require_samtools
    scan --device cpu --no-PG -@ 1 -O bam -o "$T/t1.bam" "$READS" "$TARGETS"
    scan --device cpu --no-PG -@ 2 -O bam -o "$T/t2.bam" "$READS" "$TARGETS"
    assert_equal "$(samtools view --no-PG -h "$T/t1.bam")" "$(samtools view --no-PG -h "$T/t2.bam")"
}

@test "different --batch-size give identical output" {
    for b in 1 100 1k 5k 1M; do
        scan --device cpu --no-PG --batch-size "$b" "$READS" "$TARGETS" > "$T/b.sam"
        cmp "$T/b.sam" "$T/ref.sam"
    done
}

@test "--device cpu and auto give identical output" {
    scan --device auto --no-PG "$READS" "$TARGETS" > "$T/auto.sam" 2>/dev/null
    cmp "$T/auto.sam" "$T/ref.sam"
}

@test "-k overrides -e" {
    scan --device cpu --no-PG -e 0.5 -k 2 "$READS" "$TARGETS" > "$T/k2a.sam"
    scan --device cpu --no-PG -k 2 "$READS" "$TARGETS" > "$T/k2b.sam"
    cmp "$T/k2a.sam" "$T/k2b.sam"
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/naive_check.py" -k 2 "$READS" "$TARGETS" "$T/k2a.sam"
    assert_success
}
