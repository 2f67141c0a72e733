#!/usr/bin/env python3
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
    with the search distance (XD where there is one, else NM; AS = -it)
    equal to that minimum and the forward strand when it ties;
  * records come grouped by read in input order, targets in file order,
    FLAG 256 on every record of a read after its first;
  * SEQ/QUAL are the read's (reverse-complemented/reversed with FLAG 16);
  * walking CIGAR over read and target reproduces the search distance
    (columns that match by the rule below), and NM and MD as SAM counts
    them (a match only where both bases are the same A, C, G or T), covers
    the whole read, and covers the whole target when the target is the
    pattern; XD is there iff the two distances differ.
Matching rule (DESIGN.md): case-insensitive; IUPAC codes in targets match
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
    ap.add_argument("reads")
    ap.add_argument("targets")
    ap.add_argument("sam")
    a = ap.parse_args()
    global WILDCARDS
    WILDCARDS = a.match_read_wildcards

    reads = read_fastx(a.reads)
    targets = read_fastx(a.targets)
    tnames = [t[0] for t in targets]
    tidx = {n: i for i, n in enumerate(tnames)}
    tcodes = [target_codes(t[1]) for t in targets]

    recs = []
    with open(a.sam) as f:
        for line in f:
            if line.startswith("@"):
                continue
            recs.append(line.rstrip("\n").split("\t"))

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
        # FLAG 256 on all but the first record of the read; targets in order.
        for j, r in enumerate(got):
            flag = int(r[1])
            if bool(flag & 256) != (j > 0):
                problems.append("%s: record %d has FLAG %d" % (rname, j + 1, flag))
        tids = [tidx.get(r[2], -1) for r in got]
        if tids != sorted(tids) or len(set(tids)) != len(tids):
            problems.append("%s: targets not in file order or repeated: %s" % (rname, [r[2] for r in got]))
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
            dist = hamming_distance if a.mode == "hamming" else asm_distance
            if m <= k:
                d = [None, None]
            elif read_pat:
                d = [dist(fwd, tc, k), dist(rev, tc, k)]
            else:
                d = [dist(tc, fwd, k), dist(tc, rev, k)]
            best = min(x for x in d if x is not None) if d[0] is not None else None
            want = best is not None and best <= k
            r = by_t.get(t)
            if want != (r is not None):
                problems.append("%s vs %s: expected %s (strand distances %s, k=%d), got %s" % (
                    rname, tnames[t], "a hit" if want else "no hit", d, k,
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
            if int(tags.get("AS", 1)) != -sd:
                problems.append("%s vs %s: AS %s != -%d" % (rname, tnames[t], tags.get("AS"), sd))
            strand = 1 if flag & 16 else 0
            want_strand = 0 if d[0] == best else 1
            if strand != want_strand:
                problems.append("%s vs %s: strand %d, best is strand %d (%s)" % (rname, tnames[t], strand, want_strand, d))
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
            if any(o[1] == "S" for o in ops[1:-1]) or (read_pat and len(core) != len(ops)):
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
            if not read_pat and (pos != 0 or ti != len(tc)):
                problems.append("%s vs %s: target is the pattern but CIGAR %s covers %d-%d of %d" % (
                    rname, tnames[t], r[5], pos + 1, ti, len(tc)))
            if "XS" in tags and int(tags["XS"]) < sd:
                problems.append("%s vs %s: XS %s < search distance %d" % (rname, tnames[t], tags["XS"], sd))
    for p in problems:
        print("naive_check: " + p)
    if problems:
        return 1
    print("naive_check: %d reads x %d targets, %d hits, all agree" % (len(reads), len(targets), n_hits))
    return 0


if __name__ == "__main__":
    sys.exit(main())
