#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""edlib_check.py -- gpuasm-scan against edlib's own test pairs (issue #11).

  edlib_check.py SCAN EDLIB_DIR GROUP [THREADS]

For each pair (a mutated query and its original target, edlib's test_data),
runs  SCAN --device cpu --no-PG --all --pattern read -k D QUERY TARGET
(named copies of the two sequences in a scratch folder: edlib's files have
bare ">" headers) with D = edlib's infix (HW) distance of the pair, and
checks that

  * a forward-strand record has NM == D (edlib aligns the query as given)
    and none has less (so gpuasm finds edlib's distance, no better and no
    worse: with -k D a worse best would give no record at all);
  * its CIGAR and POS re-walk over query and target to exactly NM
    differences, and MD agrees with the walk (the traceback is a real
    alignment of that cost).

GROUP
  prefixes   E_coli_DH1/prefixes/*: the HW rows of expected_edit_distances.tsv
  mason      E_coli_DH1/mason_illumina_reads/{50,100,250,500}bp: HW rows
             (the 10 kbp ones hold N, which edlib counts as an ordinary
             letter and gpuasm as a base that matches nothing: left out)
  phage      Enterobacteria_Phage_1/mutated_*_perc (94 kb each) against the
             phage: the table has only their NW distances, so D comes from
             edlib itself (python3 edlib.align(..., mode="HW")); exit 77
             when this Python has no edlib module
  pair:ORIG.fa,MUT.fa   a pair made by tests/data/make_long.py (the query
             is MUT); D from edlib as for phage (exit 77 without edlib)

Prints one line per pair and a summary; exit 0 when every pair agrees, 1
otherwise, 77 (skip) as said above.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

COMP = str.maketrans("ACGTN", "TGCAN")


def fasta_seq(path):
    with open(path) as f:
        return "".join(l.strip() for l in f if not l.startswith(">")).upper()


def rows(edlib_dir, prefix, skip_re=None):
    out = []
    with open(os.path.join(edlib_dir, "expected_edit_distances.tsv")) as f:
        for line in f:
            if line.startswith("#") or line.startswith("query\t"):
                continue
            q, t, _ql, _tl, mode, dist = line.rstrip("\n").split("\t")[:6]
            if mode != "HW" or not q.startswith(prefix):
                continue
            if skip_re and re.search(skip_re, q):
                continue
            out.append((os.path.join(edlib_dir, q), os.path.join(edlib_dir, t), int(dist)))
    return out


def edlib_hw(query, target):
    import edlib   # noqa: imported here so that the other groups need no edlib
    return edlib.align(fasta_seq(query), fasta_seq(target), mode="HW")["editDistance"]


def walk(cigar, pos, seq, ref):
    """Differences of the alignment CIGAR at 1-based POS (M is a base pair,
    counted when the bases differ), and the MD string it implies."""
    i, x, nm, md, run = 0, pos - 1, 0, [], 0
    for ln, op in re.findall(r"(\d+)([MIDNSHP=X])", cigar):
        ln = int(ln)
        if op in "M=X":
            for _ in range(ln):
                if seq[i] == ref[x]:
                    run += 1
                else:
                    md.append("%d%s" % (run, ref[x]))
                    run, nm = 0, nm + 1
                i, x = i + 1, x + 1
        elif op == "I":
            i, nm = i + ln, nm + ln
        elif op == "S":
            i += ln
        elif op == "D":
            md.append("%d^%s" % (run, ref[x:x + ln]))
            run, x, nm = 0, x + ln, nm + ln
    md.append(str(run))
    return nm, "".join(md), i == len(seq)


def check(scan, query, target, dist, threads, tmp):
    # edlib's files have bare ">" headers, which gpuasm-scan refuses for
    # targets (an empty name): the sequences go through named copies.
    seq_q, ref = fasta_seq(query), fasta_seq(target)
    qf, tf = os.path.join(tmp, "query.fa"), os.path.join(tmp, "target.fa")
    with open(qf, "w") as f:
        f.write(">query\n%s\n" % seq_q)
    with open(tf, "w") as f:
        f.write(">target\n%s\n" % ref)
    # edlib's HW mode aligns the whole query: partial occurrences off
    cmd = [scan, "--device", "cpu", "--no-PG", "--all", "--pattern", "read", "--read-overlap", "full",
           "--overlap", "full", "-k", str(dist),
           "-@", str(threads), qf, tf]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return "gpuasm-scan exit %d: %s" % (p.returncode, p.stderr.strip())
    best = None
    for line in p.stdout.splitlines():
        if line.startswith("@"):
            continue
        f = line.split("\t")
        if int(f[1]) & 4 or int(f[1]) & 16:
            continue
        tags = dict((t[:2], t[5:]) for t in f[11:])
        nm = int(tags["NM"])
        if best is None or nm < best[0]:
            best = (nm, int(f[3]), f[5], tags.get("MD"), f[9])
    if best is None:
        return "no forward record with -k %d" % dist
    nm, pos, cigar, md, seq = best
    if seq != seq_q:
        return "SEQ is not the query"
    if nm != dist:
        return "NM %d, edlib %d" % (nm, dist)
    wnm, wmd, whole = walk(cigar, pos, seq, ref)
    if not whole or wnm != nm or wmd != md:
        return "CIGAR %s at %d re-walks to NM %d MD %s (record: NM %d MD %s)" % (
            cigar[:40], pos, wnm, wmd[:40], nm, (md or "")[:40])
    return None


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    scan, d, group = argv[1], argv[2], argv[3]
    threads = int(argv[4]) if len(argv) > 4 else 1
    if group == "prefixes":
        cases = rows(d, "E_coli_DH1/prefixes/")
    elif group == "mason":
        cases = rows(d, "E_coli_DH1/mason_illumina_reads/", r"/10kbp/")
    elif group == "phage" or group.startswith("pair:"):
        try:
            import edlib  # noqa: F401
        except ImportError:
            print("no edlib module in %s" % sys.executable)
            return 77
        if group == "phage":
            pd = os.path.join(d, "Enterobacteria_Phage_1")
            t = os.path.join(pd, "Enterobacteria_phage_1.fasta")
            qs = sorted(f for f in os.listdir(pd) if re.match(r"mutated_\d+_perc\.fasta$", f))
            pairs = [(os.path.join(pd, q), t) for q in qs]
        else:
            orig, mut = group[5:].split(",")
            pairs = [(mut, orig)]
        cases = [(q, t, edlib_hw(q, t)) for q, t in pairs]
    else:
        sys.exit("edlib_check.py: unknown group %s" % group)
    bad = 0
    tmp = tempfile.mkdtemp(prefix="edlib_check.")
    for q, t, dist in cases:
        msg = check(scan, q, t, dist, threads, tmp)
        print("%s %s vs %s: edlib HW %d%s" % ("ok" if msg is None else "FAIL",
              os.path.relpath(q, d) if q.startswith(d) else q, os.path.basename(t), dist,
              "" if msg is None else ": " + msg))
        bad += msg is not None
    shutil.rmtree(tmp, ignore_errors=True)
    print("%d of %d pairs agree with edlib" % (len(cases) - bad, len(cases)))
    return 1 if bad or not cases else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
