#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Partial occurrences (issue #9; search/search.h "Partial occurrences"):
# adapters running off a read's ends, reads running off a target's ends,
# with cutadapt's overlap semantics; --strand forward.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
}

@test "the sample's partial records: adapter prefixes at the 3' end, a read off a target's start" {
    run --separate-stderr scan --device cpu --no-PG "$READS" "$TARGETS"
    assert_success
    run awk -F'\t' '/XP:Z:/ { for (i = 12; i <= NF; i++) if ($i ~ /^XP:Z:/) x = $i; print $1, $3, $4, $6, x }' <<<"$output"
    assert_output "alpha_edge virus_alpha 1 30S70M XP:Z:target5
adapter_end32 truseq_r1 1 68S32M XP:Z:read3
adapter_end20 truseq_r1 1 80S20M XP:Z:read3"
}

@test "--overlap full --read-overlap full: whole patterns only, no XP tag" {
    run --separate-stderr scan --device cpu --no-PG --overlap full --read-overlap full "$READS" "$TARGETS"
    assert_success
    refute_output --partial "XP:Z:"
    # adapter_end32 is then the whole adapter with 2 of its bases deleted
    run awk -F'\t' '$1 == "adapter_end32" { print $6, $12 }' <<<"$output"
    assert_output "68S31M2D1M NM:i:2"
}

@test "partial records agree with the independent naive check, many option sets" {
    local opts
    for opts in "" "--partial-ends 3" "--partial-ends 5 --overlap 1" "--strand forward" \
                "--mode hamming --overlap 1 --read-overlap 20" "-k 2 --overlap 2" \
                "--pattern target --overlap 5" "--pattern read --read-overlap 30" \
                "-e 0.2 --match-read-wildcards --overlap 1"; do
        # shellcheck disable=SC2086
        scan --device cpu --no-PG $opts "$READS" "$TARGETS" > "$T/o.sam"
        # shellcheck disable=SC2086
        run "$PYTHON3" "$GPUASM_TESTS_DIR/data/naive_check.py" $opts "$READS" "$TARGETS" "$T/o.sam"
        [ "$status" -eq 0 ] || { echo "options: $opts"; echo "$output"; return 1; }
        assert_output --regexp 'all agree$'
    done
}

@test "--partial-ends 3 / 5 and --strand forward restrict what is reported" {
    scan --device cpu --no-PG --overlap 1 --partial-ends 3 "$READS" "$TARGETS" > "$T/3.sam"
    scan --device cpu --no-PG --overlap 1 --partial-ends 5 "$READS" "$TARGETS" > "$T/5.sam"
    scan --device cpu --no-PG --overlap 1 --strand forward "$READS" "$TARGETS" > "$T/f.sam"
    grep -q 'XP:Z:read3' "$T/3.sam"
    ! grep -q 'XP:Z:read5\|XP:Z:target5' "$T/3.sam"
    grep -q 'XP:Z:read5' "$T/5.sam"
    ! grep -q 'XP:Z:read3\|XP:Z:target3' "$T/5.sam"
    run awk -F'\t' '!/^@/ && int($2 / 16) % 2' "$T/f.sam"
    assert_output ""
}

@test "partial records: CIGARs never start or end with a deletion, and samtools calmd agrees on NM and MD" {
    require_samtools
    scan --device cpu --no-PG --overlap 1 --read-overlap 5 -e 0.2 "$READS" "$TARGETS" > "$T/p.sam"
    run awk -F'\t' '!/^@/ && ($6 ~ /^[0-9]+D/ || $6 ~ /D$/ || $6 ~ /S[0-9]+D/ || $6 ~ /D[0-9]+S$/)' "$T/p.sam"
    assert_output ""
    samtools calmd "$T/p.sam" "$TARGETS" 2> /dev/null | grep -v '^@' > "$T/c.sam"
    grep -v '^@' "$T/p.sam" | diff - "$T/c.sam"
}

@test "--overlap, --read-overlap, --partial-ends, --strand: bad values are one-line errors" {
    local bad
    for bad in "--overlap 0" "--overlap x" "--overlap -3" "--read-overlap quarter" \
               "--partial-ends 4" "--strand reverse"; do
        # shellcheck disable=SC2086
        run --separate-stderr scan --device cpu $bad "$READS" "$TARGETS"
        assert_one_error "invalid ${bad%% *}"
        assert_equal "$output" ""
    done
}

@test "a kit of near-identical adapters: each partial record's own alignment (calmd agrees on NM and MD)" {
    require_samtools
    # Eight 40-base adapters, one base apart from a common sequence at
    # positions 8-29, and reads whose 3' and 5' ends carry a 30-base end
    # of the common sequence with a substitution or an indel: the members'
    # partial alignments have the same length and distance but different
    # columns, which the report must not take from one another (its trace
    # cache, align/report.c, keys on the aligned pattern bases).
    python3 - "$T" <<'PY'
import random, sys
t = sys.argv[1]
rnd = random.Random(7)
B = "ACGT"
common = "".join(rnd.choice(B) for _ in range(40))
with open(t + "/kit.fa", "w") as f:
    for i in range(8):
        pos = 8 + 3 * i
        s = common[:pos] + B[(B.index(common[pos]) + 1) % 4] + common[pos + 1:]
        f.write(">kit%d\n%s\n" % (i, s))
def mut(s):
    i = rnd.randrange(2, len(s) - 2)
    k = rnd.randrange(3)
    if k == 0: return s[:i] + B[(B.index(s[i]) + 1) % 4] + s[i + 1:]
    if k == 1: return s[:i] + s[i + 1:]
    return s[:i] + rnd.choice(B) + s[i:]
with open(t + "/kit.fq", "w") as f:
    for r in range(300):
        ins = "".join(rnd.choice(B) for _ in range(70))
        read = mut(common[10:]) + ins + mut(common[:30]) if r % 2 else ins + mut(common[:30])
        f.write("@r%d\n%s\n+\n%s\n" % (r, read, "I" * len(read)))
PY
    scan --device cpu --no-PG -e 0.15 "$T/kit.fq" "$T/kit.fa" > "$T/k.sam"
    # several members aligned on one read end: the case this test is for
    run awk -F'\t' '!/^@/ && /XP:Z:/ { n[$1 " " int($2 / 16) % 2]++ } END { for (k in n) if (n[k] >= 4) m++; print m + 0 }' "$T/k.sam"
    [ "$output" -ge 50 ] || { echo "reads with 4+ kit records on one strand: $output"; return 1; }
    samtools calmd "$T/k.sam" "$T/kit.fa" 2> /dev/null | grep -v '^@' > "$T/c.sam"
    grep -v '^@' "$T/k.sam" | diff - "$T/c.sam"
}
