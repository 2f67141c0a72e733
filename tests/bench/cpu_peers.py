#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cpu_peers.py -- the Python peers of tests/bench/cpu and the answer check.

Every search is gpuasm-scan's default problem (search.h): the shorter
sequence of a (read, target) pair is the pattern, k = floor(0.1 m), both
strands of the read, free start and end in the text (edlib's HW mode), and
the answer of a pair is its best distance <= k.  Each subcommand writes one
TSV line per (read, target) pair with an answer: read name, target name,
distance; read names lose a trailing /1 or /2 (as htslib's do).

  sassy READS TARGETS THREADS OUT.tsv
      Sassy (Beeloo & Groot Koerkamp; PyPI sassy-rs), its Python API:
      Searcher("iupac", rc=True).search_many(patterns, texts, k, THREADS,
      mode), patterns grouped by k (reads against genomes: mode "single",
      one read against the genomes in SIMD text lanes) or by length (adapters
      against reads: mode "batch_patterns", equal-length patterns in lanes,
      as Sassy2).
  edlib READS TARGETS THREADS OUT.tsv [MAX_READS]
      edlib.align(pattern, text, mode="HW", task="distance", k=k) for every
      pair and strand, THREADS worker processes; the exact reference.
      MAX_READS: only the first reads (edlib is slow on big inputs).
  sam SAM OUT.tsv
      gpuasm-scan's SAM as answers (XD, else NM, of each record; the best
      per pair).
  compare REF.tsv OTHER.tsv [READS MAX_READS]
      JSON on stdout: pairs in REF, in OTHER, in both with the same
      distance, with another distance, only in one.  With READS and
      MAX_READS, only the first MAX_READS reads of READS count (REF made
      from a prefix of the reads, as edlib's).
Standard library plus the peer module; sequences upper-cased (phiX's
lowercase half).
"""
import gzip
import json
import sys
import time
from collections import defaultdict

COMP = str.maketrans("ACGTNacgtn", "TGCANtgcan")


def norm(name):
    return name[:-2] if name.endswith("/1") or name.endswith("/2") else name


def read_fasta(path):
    out, name, buf = [], None, []
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                if name is not None:
                    out.append((name, "".join(buf).upper()))
                name, buf = line[1:].split()[0], []
            elif line:
                buf.append(line)
    if name is not None:
        out.append((name, "".join(buf).upper()))
    return out


def read_fastq(path, limit=None):
    out = []
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        while limit is None or len(out) < limit:
            h = f.readline()
            if not h:
                break
            s = f.readline().strip()
            f.readline()
            f.readline()
            out.append((norm(h[1:].split()[0]), s.upper()))
    return out


def kof(m):
    return int(0.1 * m)


def write(out, best):
    with open(out, "w") as f:
        for (r, t), d in best.items():
            f.write("%s\t%s\t%d\n" % (r, t, d))


def keep(best, key, d):
    if d is not None and (key not in best or d < best[key]):
        best[key] = d


def run_sassy(reads_p, targets_p, threads, out):
    import sassy
    reads, targets = read_fastq(reads_p), read_fasta(targets_p)
    s = sassy.Searcher("iupac", rc=True)
    best = {}
    # reads against genomes: reads are the patterns
    rp = [(i, r) for i, (n, r) in enumerate(reads) if all(len(r) <= len(t) for _, t in targets)]
    # adapters against reads: targets shorter than the reads are the patterns
    tp = [(j, t) for j, (n, t) in enumerate(targets) if all(len(t) < len(r) for _, r in reads)]
    if rp:
        texts = [t.encode() for _, t in targets]
        byk = defaultdict(list)
        for i, r in rp:
            if kof(len(r)) < len(r):
                byk[kof(len(r))].append(i)
        for k, idx in byk.items():
            for mt in s.search_many([reads[i][1].encode() for i in idx], texts, k, threads, "single"):
                keep(best, (reads[idx[mt.pattern_idx]][0], targets[mt.text_idx][0]), mt.cost)
    if tp:
        texts = [r.encode() for _, r in reads]
        bylen = defaultdict(list)
        for j, t in tp:
            if kof(len(t)) < len(t):
                bylen[len(t)].append(j)
        for m, idx in bylen.items():
            for mt in s.search_many([targets[j][1].encode() for j in idx], texts, kof(m), threads,
                                    "batch_patterns"):
                keep(best, (reads[mt.text_idx][0], targets[idx[mt.pattern_idx]][0]), mt.cost)
    write(out, best)


_G = {}


def _edlib_init(targets):
    _G["targets"] = targets


def _edlib_read(rec):
    import edlib
    name, r = rec
    rc = r.translate(COMP)[::-1]
    res = []
    for tn, t in _G["targets"]:
        read_pat = len(r) <= len(t)
        m = len(r) if read_pat else len(t)
        k = kof(m)
        if m <= k or not t or not r:
            continue
        best = None
        for q in (r, rc):
            a = edlib.align(q, t, mode="HW", task="distance", k=k) if read_pat else \
                edlib.align(t, q, mode="HW", task="distance", k=k)
            d = a["editDistance"]
            if d >= 0 and (best is None or d < best):
                best = d
        if best is not None:
            res.append((name, tn, best))
    return res


def run_edlib(reads_p, targets_p, threads, out, max_reads=None):
    reads = read_fastq(reads_p, int(max_reads) if max_reads else None)
    targets = read_fasta(targets_p)
    best = {}
    if threads > 1:
        import multiprocessing as mp
        with mp.Pool(threads, _edlib_init, (targets,)) as pool:
            for res in pool.imap(_edlib_read, reads, chunksize=64):
                for r, t, d in res:
                    keep(best, (r, t), d)
    else:
        _edlib_init(targets)
        for rec in reads:
            for r, t, d in _edlib_read(rec):
                keep(best, (r, t), d)
    write(out, best)


def run_sam(sam, out):
    best = {}
    with open(sam) as f:
        for line in f:
            if line[0] == "@":
                continue
            c = line.rstrip("\n").split("\t")
            if int(c[1]) & 4 or c[2] == "*":
                continue
            tags = {x[:2]: x[5:] for x in c[11:]}
            d = int(tags.get("XD", tags.get("NM", "-1")))
            keep(best, (norm(c[0]), c[2]), d)
    write(out, best)


def load(path):
    best = {}
    with open(path) as f:
        for line in f:
            r, t, d = line.rstrip("\n").split("\t")
            best[(r, t)] = int(d)
    return best


def compare(ref_p, other_p, reads_p=None, max_reads=None):
    ref, oth = load(ref_p), load(other_p)
    if reads_p and max_reads:
        names = {n for n, _ in read_fastq(reads_p, int(max_reads))}
        oth = {k: v for k, v in oth.items() if k[0] in names}
        ref = {k: v for k, v in ref.items() if k[0] in names}
    both = ref.keys() & oth.keys()
    same = sum(1 for x in both if ref[x] == oth[x])
    res = {"ref_pairs": len(ref), "pairs": len(oth), "same": same, "other_distance": len(both) - same,
           "missing": len(ref.keys() - oth.keys()), "extra": len(oth.keys() - ref.keys()),
           "examples_missing": sorted(ref.keys() - oth.keys())[:3],
           "examples_extra": sorted(oth.keys() - ref.keys())[:3],
           "examples_other_distance": [[x, ref[x], oth[x]] for x in sorted(both) if ref[x] != oth[x]][:3]}
    print(json.dumps(res))


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd, a = argv[1], argv[2:]
    t0 = time.time()
    if cmd == "sassy" and len(a) == 4:
        run_sassy(a[0], a[1], int(a[2]), a[3])
    elif cmd == "edlib" and len(a) in (4, 5):
        run_edlib(a[0], a[1], int(a[2]), a[3], *(a[4:]))
    elif cmd == "sam" and len(a) == 2:
        run_sam(a[0], a[1])
    elif cmd == "compare" and len(a) in (2, 4):
        compare(*a)
        return
    else:
        sys.exit(__doc__)
    print("%s: %.3f s" % (cmd, time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
