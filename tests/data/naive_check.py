#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent check of gpuasm-scan's default output (best hit per read and
target) against a plain dynamic-programming search written here from the
definition, sharing no code with gpuasm.

    naive_check.py [-e RATE | -k INT] [--pattern shorter|read|target] \
                   READS.fq TARGETS.fa OUT.sam

For every read, every target and both strands of the read it computes
ASM = min over substrings T' of the text of ED(pattern, T') (pattern = the
shorter sequence unless --pattern says otherwise; k = floor(e*m) or -k) with
Ukkonen's cut-off (columns stop at the last row <= k), and asserts that
  * OUT.sam has one record for (read, target) iff min over strands <= k,
    with the search distance (XD where there is one, else NM) equal to that
    minimum and the forward strand when it ties, and AS the score: aligned
    pattern bases - 2 x search distance (issue #26);
  * records come grouped by read in input order, best first (AS, then
    search distance, then aligned pattern bases, then strand, target in
    file order, position), FLAG 256 on every record of a read after its
    first (the primary is the best), XS:i (a second occurrence's score) no
    more than AS;
  * SEQ/QUAL are the read's (reverse-complemented/reversed with FLAG 16);
  * walking CIGAR over read and target reproduces the search distance
    (columns that match by the rule below), and NM and MD as SAM counts
    them (a match only where both bases are the same A, C, G or T), covers
    the whole read, and covers the whole target when the target is the
    pattern; XD is there iff the two distances differ.
Partial occurrences (search/search.h, "Partial occurrences"; cutadapt's
overlap semantics): with --overlap N (a target as pattern) and
--read-overlap N|half (a read as pattern), the pattern may also run off
the text's ends (--partial-ends 3|5|both, in the read's orientation as
sequenced, or the target's); for aligned length p in [N, m-1] the distance
is the naive DP's min over the text of ED(pattern prefix, text suffix) at
the end, or ED(pattern suffix, text prefix) at the start, over alignments
that do not delete the pattern base at the text's boundary, k_p = floor(e*p)
(or floor(k*p/m) with -k, cutadapt's rate), acceptable when k_p < p and D_p <= k_p, the best p by score
p - 2 D_p, and with a significance floor F (--partial-floor /
--read-partial-floor, or the floors the @CO line of OUT.sam names) only
p with p - 2 D_p >= F.  The record of a (read, target) is then its best occurrence by
score (aligned pattern bases - 2 x distance), then distance, then the
forward strand, then the leftmost end; a partial one has XP:Z (read3,
read5, target3, target5) and its CIGAR covers only the aligned part of
the pattern.  The defaults are gpuasm-scan's (auto: 1 with the floors of
the @CO line, half, both).
Matching rule (README.md, "What it finds"): case-insensitive; IUPAC codes in targets match
the bases they stand for; N or any other non-ACGT read base matches nothing
(with --match-read-wildcards, what it stands for).
Prints one line per problem and exits 1 if there was any; else prints a
summary and exits 0.  Standard library only.
"""
import argparse
import math
import re
import sys

CODE = {"A": 1, "C": 2, "G": 4, "T": 8, "U": 8, "R": 5, "Y": 10, "S": 6, "W": 9,
        "K": 12, "M": 3, "B": 14, "D": 13, "H": 11, "V": 7, "N": 15}
COMP_BASE = str.maketrans("ACGTNacgtn", "TGCANtgcan")


def target_codes(s):
    return [CODE.get(c, 15) for c in s.upper()]


WILDCARDS = False


def read_codes(s):
    # Non-ACGT read bases match nothing, unless --match-read-wildcards.
    codes = (CODE.get(x, 15) for x in s.upper())
    return [c if WILDCARDS or c in (1, 2, 4, 8) else 0 for c in codes]


def comp_code(c):
    return ((c & 1) << 3) | ((c & 2) << 1) | ((c & 4) >> 1) | ((c & 8) >> 3)


def asm_distance(p, t, k):
    """min over substrings T' of t of ED(p, T'), or k+1 if that is > k.
    p, t: lists of codes; two codes match iff they share a bit."""
    m = len(p)
    if m <= k:
        return 0 if m == 0 else None  # not searched by gpuasm
    INF = k + 1
    col = list(range(m + 1))  # D[i][-1] = i
    lact = k  # last row <= k
    best = INF
    for c in t:
        top = lact + 1 if lact < m else m
        diag = 0  # D[0][j-1]
        prev = 0  # D[0][j] (a match may start anywhere)
        for i in range(1, top + 1):
            old = col[i] if i <= lact else INF  # D[i][j-1]
            v = diag + (0 if p[i - 1] & c else 1)
            if old + 1 < v:
                v = old + 1
            if prev + 1 < v:
                v = prev + 1
            diag = old
            col[i] = v
            prev = v
        lact = top
        while lact > 0 and col[lact] > k:
            lact -= 1
        if top == m and col[m] < best:
            best = col[m]
    return best


def partial_distances(p, t, at_start, hamming):
    """D_p for every p in 1..m-1 (index p; None where undefined): the text
    end (P[0..p) against a suffix of t) or start (P[m-p..m) against a
    prefix), by the plain DP over the whole matrix (or the plain count)."""
    m, n = len(p), len(t)
    out = [None] * m
    if hamming:
        for q in range(1, m):
            if q > n:
                break
            if at_start:
                out[q] = sum(1 for i in range(q) if not p[m - q + i] & t[i])
            else:
                out[q] = sum(1 for i in range(q) if not p[i] & t[n - q + i])
        return out
    if at_start:  # a suffix of p at the start of t = a prefix of rev(p) at the end of rev(t)
        p, t = p[::-1], t[::-1]
    col = list(range(m + 1))
    prev = col[:]
    for c in t:
        prev = col[:]
        diag, col[0] = col[0], 0
        for i in range(1, m + 1):
            v = min(diag + (0 if p[i - 1] & c else 1), col[i - 1] + 1, col[i] + 1)
            diag, col[i] = col[i], v
    # no alignment ending with the boundary pattern base deleted (it ran off)
    for q in range(1, m):
        out[q] = min(prev[q - 1] + (0 if p[q - 1] & t[-1] else 1), prev[q] + 1)
    return out


def best_partial(p, t, at_start, hamming, omin, kfun, floor=0):
    """(plen, D) of the best partial occurrence at one end, or None; with
    floor > 0 only scores q - 2 D >= floor count."""
    m = len(p)
    if omin <= 0 or omin >= m or not t:
        return None
    ds = partial_distances(p, t, at_start, hamming)
    best = None
    for q in range(omin, m):
        kq, d = kfun(q), ds[q]
        if d is None or kq < 0 or kq >= q or d > kq:
            continue
        if floor > 0 and q - 2 * d < floor:
            continue
        key = (q - 2 * d, -d, q)
        if best is None or key > (best[0] - 2 * best[1], -best[1], best[0]):
            best = (q, d)
    return best


def hamming_distance(p, t, k):
    """min over windows of t of the mismatches against p (seed 004
    Definition 3), or k+1 if that is > k (or t is shorter than p)."""
    m = len(p)
    if m <= k:
        return 0 if m == 0 else None  # not searched by gpuasm
    best = k + 1
    for s in range(len(t) - m + 1):
        d = 0
        for i in range(m):
            if not p[i] & t[s + i]:
                d += 1
                if d >= best:
                    break
        if d < best:
            best = d
    return best


def read_fastx(path):
    recs = []
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        h = lines[i]
        if not h:
            i += 1
            continue
        if h[0] == "@":
            recs.append((h[1:].split()[0], lines[i + 1], lines[i + 3]))
            i += 4
        elif h[0] == ">":
            seq = []
            i += 1
            while i < len(lines) and not lines[i].startswith(">"):
                seq.append(lines[i].strip())
                i += 1
            recs.append((h[1:].split()[0], "".join(seq), None))
        else:
            raise SystemExit("naive_check: %s: cannot parse line %d" % (path, i + 1))
    return recs


def cigar_ops(cigar):
    return [(int(n), op) for n, op in re.findall(r"(\d+)([MIDNSHP=X])", cigar)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-e", type=float, default=0.1)
    ap.add_argument("-k", type=int, default=-1)
    ap.add_argument("--pattern", default="shorter", choices=["shorter", "read", "target"])
    ap.add_argument("--mode", default="edit", choices=["edit", "hamming"])
    ap.add_argument("--match-read-wildcards", action="store_true")
    ap.add_argument("--overlap", default="auto")
    ap.add_argument("--partial-floor", type=int, default=None)
    ap.add_argument("--read-partial-floor", type=int, default=None)
    ap.add_argument("--read-overlap", default="half")
    ap.add_argument("--partial-ends", default="both", choices=["3", "5", "both"])
    ap.add_argument("--strand", default="both", choices=["both", "forward"])
    ap.add_argument("reads")
    ap.add_argument("targets")
    ap.add_argument("sam")
    a = ap.parse_args()
    global WILDCARDS
    WILDCARDS = a.match_read_wildcards

    overlap = {"full": 0, "auto": 1}.get(a.overlap)
    if overlap is None:
        overlap = int(a.overlap)
    read_overlap = {"full": 0, "half": -1}.get(a.read_overlap)
    if read_overlap is None:
        read_overlap = int(a.read_overlap)
    ends = {"3": {3}, "5": {5}, "both": {3, 5}}[a.partial_ends]
    hamming = a.mode == "hamming"

    reads = read_fastx(a.reads)
    targets = read_fastx(a.targets)
    tnames = [t[0] for t in targets]
    tidx = {n: i for i, n in enumerate(tnames)}
    tcodes = [target_codes(t[1]) for t in targets]

    recs = []
    floors = [0, 0]   # targets as patterns, reads as patterns
    with open(a.sam) as f:
        for line in f:
            if line.startswith("@CO\tgpuasm-scan: partial occurrences"):
                # "... of targets: score (AS:i) >= F; of reads: score >= G; ..."
                m1 = re.search(r"of targets: score \(AS:i\) >= (\d+)", line)
                m2 = re.search(r"of reads: score >= (\d+)", line)
                floors = [int(m1.group(1)) if m1 else 0, int(m2.group(1)) if m2 else 0]
            if line.startswith("@"):
                continue
            recs.append(line.rstrip("\n").split("\t"))
    if a.partial_floor is not None:
        floors[0] = a.partial_floor
    if a.read_partial_floor is not None:
        floors[1] = a.read_partial_floor

    problems = []
    # Group records by read, in input order.
    ri = 0
    groups = {}
    order = []
    for r in recs:
        name = r[0]
        while ri < len(reads) and reads[ri][0] != name:
            ri += 1
        if ri == len(reads):
            problems.append("record for %s out of input order or unknown read" % name)
            break
        groups.setdefault(ri, []).append(r)
        if not order or order[-1] != ri:
            order.append(ri)

    n_pairs = n_hits = 0
    for i, (rname, rseq, rqual) in enumerate(reads):
        fwd = read_codes(rseq)
        rev = [comp_code(c) for c in reversed(fwd)]
        got = groups.get(i, [])
        # FLAG 256 on all but the first record of the read; records best
        # first (align/report.h's order); each target once.
        for j, r in enumerate(got):
            flag = int(r[1])
            if bool(flag & 256) != (j > 0):
                problems.append("%s: record %d has FLAG %d" % (rname, j + 1, flag))
        tids = [tidx.get(r[2], -1) for r in got]
        if len(set(tids)) != len(tids):
            problems.append("%s: a target repeated: %s" % (rname, [r[2] for r in got]))
        keys = []
        for r in got:
            tg = dict((x.split(":", 2)[0], x.split(":", 2)[2]) for x in r[11:])
            asv, sdv = int(tg.get("AS", 0)), int(tg.get("XD", tg.get("NM", 0)))
            # aligned pattern bases = AS + 2 x distance (checked against
            # the naive candidates below)
            keys.append((-asv, sdv, -(asv + 2 * sdv), 1 if int(r[1]) & 16 else 0, tidx.get(r[2], -1), int(r[3])))
        if keys != sorted(keys):
            problems.append("%s: records not best first: %s" % (rname, [(r[2], k[0], k[1]) for r, k in zip(got, keys)]))
        by_t = {tidx.get(r[2], -1): r for r in got}
        for t, tc in enumerate(tcodes):
            n_pairs += 1
            if a.pattern == "read":
                read_pat = True
            elif a.pattern == "target":
                read_pat = False
            else:
                read_pat = len(fwd) <= len(tc)
            m = len(fwd) if read_pat else len(tc)
            k = a.k if a.k >= 0 else int(math.floor(a.e * m))
            # partial k_p: e x p, or an absolute -k as the rate k / m (cutadapt)
            kfun = (lambda q: (a.k * q) // m) if a.k >= 0 else (lambda q: int(math.floor(a.e * q)))
            dist = hamming_distance if hamming else asm_distance
            strands = [0] if a.strand == "forward" else [0, 1]
            if m <= k:
                d = [None, None]
            elif read_pat:
                d = [dist(fwd, tc, k), dist(rev, tc, k)]
            else:
                d = [dist(tc, fwd, k), dist(tc, rev, k)]
            # Candidates (score, distance, strand, end order, kind, plen):
            # the best full occurrence per strand and the best partial one
            # per strand and end.
            cands = []
            for s in strands:
                if d[s] is not None and d[s] <= k:
                    cands.append((m - 2 * d[s], d[s], s, 1, "full", m))
            omin = read_overlap if read_pat else overlap
            if read_pat and omin < 0:
                omin = (m + 1) // 2
            if m > 0 and 0 < omin < m:
                for s in strands:
                    rs = fwd if s == 0 else rev
                    pat, txt = (rs, tc) if read_pat else (tc, rs)
                    for at_start in (0, 1):
                        # GPUASM_END_3: the end of the read as sequenced,
                        # which is the start of its reverse complement.
                        end35 = (5 if at_start else 3) if (read_pat or s == 0) else (3 if at_start else 5)
                        if end35 not in ends:
                            continue
                        b = best_partial(pat, txt, at_start, hamming, omin, kfun, floors[1 if read_pat else 0])
                        if b is None:
                            continue
                        q, dq = b
                        where = ("target5" if at_start else "target3") if read_pat else \
                                ("read%d" % end35)
                        cands.append((q - 2 * dq, dq, s, 0 if at_start else 2, where, q))
            cands.sort(key=lambda c: (-c[0], c[1], c[2], c[3]))
            best = cands[0][1] if cands else None
            want = bool(cands)
            r = by_t.get(t)
            if want != (r is not None):
                problems.append("%s vs %s: expected %s (strand distances %s, k=%d, candidates %s), got %s" % (
                    rname, tnames[t], "a hit" if want else "no hit", d, k, cands,
                    "a record" if r is not None else "none"))
                continue
            if not want:
                continue
            n_hits += 1
            flag = int(r[1])
            tags = dict((x.split(":", 2)[0], x.split(":", 2)[2]) for x in r[11:])
            nm = int(tags.get("NM", -1))
            sd = int(tags.get("XD", nm))
            if "XD" in tags and sd == nm:
                problems.append("%s vs %s: XD %d equals NM" % (rname, tnames[t], sd))
            if sd != best:
                problems.append("%s vs %s: search distance %d, naive DP %d" % (rname, tnames[t], sd, best))
            strand = 1 if flag & 16 else 0
            want_strand, kind, alen = cands[0][2], cands[0][4], cands[0][5]
            if int(tags.get("AS", -10 ** 9)) != alen - 2 * sd:
                problems.append("%s vs %s: AS %s != %d - 2 x %d" % (rname, tnames[t], tags.get("AS"), alen, sd))
            if strand != want_strand:
                problems.append("%s vs %s: strand %d, best is strand %d (%s)" % (rname, tnames[t], strand, want_strand, cands))
            if tags.get("XP", "full") != kind:
                problems.append("%s vs %s: XP %s, want %s (%s)" % (rname, tnames[t], tags.get("XP"), kind, cands))
            seq = rseq if not strand else rseq.translate(COMP_BASE)[::-1]
            if r[9].upper() != seq.upper():
                problems.append("%s vs %s: SEQ is not the read%s" % (rname, tnames[t], " (revcomp)" if strand else ""))
            if rqual is not None:
                q = rqual if not strand else rqual[::-1]
                if r[10] != q:
                    problems.append("%s vs %s: QUAL is not the read's" % (rname, tnames[t]))
            # Walk the CIGAR.
            ops = cigar_ops(r[5])
            rc = read_codes(seq)
            pos = int(r[3]) - 1
            qi, ti, edits, sedits, md, run = 0, pos, 0, 0, "", 0
            core = [o for o in ops if o[1] != "S"]
            if any(o[1] == "S" for o in ops[1:-1]) or (read_pat and kind == "full" and len(core) != len(ops)):
                problems.append("%s vs %s: bad S in CIGAR %s" % (rname, tnames[t], r[5]))
            if a.mode == "hamming" and any(o[1] in "ID" for o in ops):
                problems.append("%s vs %s: gap in a Hamming CIGAR %s" % (rname, tnames[t], r[5]))
            ok = True
            for n, op in ops:
                if op == "S":
                    qi += n
                elif op in "M=X":
                    for _ in range(n):
                        if ti >= len(tc):
                            ok = False
                            break
                        if not rc[qi] & tc[ti]:
                            sedits += 1
                        # SAM's NM: only the same A, C, G or T matches.
                        match = rc[qi] == tc[ti] and rc[qi] in (1, 2, 4, 8)
                        if (op == "=" and not match) or (op == "X" and match):
                            problems.append("%s vs %s: %s op at read %d disagrees" % (rname, tnames[t], op, qi))
                        if match:
                            run += 1
                        else:
                            edits += 1
                            md += "%d%s" % (run, targets[t][1][ti].upper())
                            run = 0
                        qi += 1
                        ti += 1
                elif op == "I":
                    edits += n
                    sedits += n
                    qi += n
                elif op == "D":
                    edits += n
                    sedits += n
                    md += "%d^%s" % (run, targets[t][1][ti:ti + n].upper())
                    run = 0
                    ti += n
                else:
                    ok = False
            md += "%d" % run
            if not ok or qi != len(seq) or ti > len(tc):
                problems.append("%s vs %s: CIGAR %s at POS %s does not fit read (%d) and target (%d)" % (
                    rname, tnames[t], r[5], r[3], len(seq), len(tc)))
                continue
            if edits != nm:
                problems.append("%s vs %s: CIGAR %s implies %d edits, NM %d" % (rname, tnames[t], r[5], edits, nm))
            if sedits != sd:
                problems.append("%s vs %s: CIGAR %s implies search distance %d, tags say %d" % (
                    rname, tnames[t], r[5], sedits, sd))
            if "MD" in tags and tags["MD"].upper() != md:
                problems.append("%s vs %s: MD %s, CIGAR walk gives %s" % (rname, tnames[t], tags["MD"], md))
            if not read_pat:
                # The target (the pattern) is covered where it is aligned:
                # whole, or its prefix / suffix of alen bases.
                lo, hi = 0, len(tc)
                if kind != "full":
                    text_start = (kind == "read5") == (strand == 0)
                    lo, hi = (len(tc) - alen, len(tc)) if text_start else (0, alen)
                if pos != lo or ti != hi:
                    problems.append("%s vs %s: target is the pattern but CIGAR %s covers %d-%d of %d (want %d-%d)" % (
                        rname, tnames[t], r[5], pos + 1, ti, len(tc), lo + 1, hi))
            else:
                read_bases = sum(n for n, op in ops if op in "M=XI")
                if read_bases != alen:
                    problems.append("%s vs %s: CIGAR %s aligns %d read bases, want %d" % (
                        rname, tnames[t], r[5], read_bases, alen))
            if "XS" in tags and int(tags["XS"]) > int(tags["AS"]):
                problems.append("%s vs %s: XS %s > AS %s" % (rname, tnames[t], tags["XS"], tags["AS"]))
    for p in problems:
        print("naive_check: " + p)
    if problems:
        return 1
    print("naive_check: %d reads x %d targets, %d hits, all agree" % (len(reads), len(targets), n_hits))
    return 0


if __name__ == "__main__":
    sys.exit(main())
