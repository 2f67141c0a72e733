#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""signal_peers.py -- the CPU DTW library beside gpuasm-signal in
tests/bench/signal: dtaidistance's subsequence alignment (its C code:
use_c=True, penalty 0: seed 001's three moves at no extra cost), on the
same reads and references, normalised as gpuasm-signal does (median and
1.4826 MAD per signal).  dtaidistance's inner distance is the squared
difference (and it reports the square root of the sum), so gpuasm-signal's
--cost sq is the one to compare; its end positions are checked against
gpuasm-signal's TSV where one is given.

  signal_peers.py --reads R.slow5 --genome G.fa --model M.tsv --prefix P
                  --max-reads N [--gpuasm-tsv T]
Prints TSV lines: peer, reads, pairs, cells, seconds, cells_per_s,
reads_per_s, ends_within_2 (of the pairs compared with gpuasm-signal).
One thread (dtaidistance's subsequence alignment is one call per pair).
"""
import argparse
import sys
import time

import numpy as np
from dtaidistance.subsequence.dtw import subsequence_alignment

COMP = {"A": "T", "C": "G", "G": "C", "T": "A"}


def fasta(path):
    name, seq, out = None, [], []
    for line in open(path):
        line = line.strip()
        if line.startswith(">"):
            if name:
                out.append((name, "".join(seq).upper()))
            name, seq = line[1:].split()[0], []
        elif line:
            seq.append(line)
    if name:
        out.append((name, "".join(seq).upper()))
    return out


def norm(x):
    med = np.median(x)
    mad = 1.4826 * np.median(np.abs(x - med))
    return (x - med) / (mad if mad > 0 else 1.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reads", required=True)
    ap.add_argument("--genome", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--prefix", type=int, default=2000)
    ap.add_argument("--max-reads", type=int, default=4)
    ap.add_argument("--gpuasm-tsv")
    o = ap.parse_args()
    model, k = {}, None
    with open(o.model) as f:
        head = f.readline().rstrip("\n").split("\t")
        ik, im = head.index("kmer"), head.index("level_mean_pA")
        for line in f:
            p = line.rstrip("\n").split("\t")
            model[p[ik]] = float(p[im])
    k = len(next(iter(model)))
    mean_all = float(np.mean(list(model.values())))
    refs = []
    for name, s in fasta(o.genome):
        rc = "".join(COMP.get(c, "N") for c in reversed(s))
        for strand, q in (("+", s), ("-", rc)):
            lv = np.array([model.get(q[i:i + k], mean_all) for i in range(len(q) - k + 1)])
            refs.append((name, strand, norm(lv)))
    reads = []
    for line in open(o.reads):
        if line.startswith(("#", "@")):
            continue
        p = line.rstrip("\n").split("\t")
        raw = np.array(p[7].split(",")[:o.prefix], dtype=float)
        pa = (raw + float(p[3])) * float(p[4]) / float(p[2])
        reads.append((p[0], norm(pa)))
        if len(reads) >= o.max_reads:
            break
    ours = {}
    if o.gpuasm_tsv:
        for line in open(o.gpuasm_tsv).read().splitlines()[1:]:
            p = line.split("\t")
            ours[(p[0], p[4], p[5])] = int(p[10]) - 1     # kmer_end - 1: the end k-mer
    cells, pairs, near, compared = 0, 0, 0, 0
    t0 = time.perf_counter()
    for rid, q in reads:
        for name, strand, r in refs:
            sa = subsequence_alignment(q, r, penalty=0.0, use_c=True)
            m = sa.best_match()
            cells += len(q) * len(r)
            pairs += 1
            key = (rid, name, strand)
            if key in ours:
                compared += 1
                near += abs(m.segment[1] - ours[key]) <= 2
    dt = time.perf_counter() - t0
    print("peer\treads\tpairs\tcells\tseconds\tcells_per_s\treads_per_s\tends_within_2")
    print("dtaidistance %s subsequence_alignment (C, 1 thread)\t%d\t%d\t%.0f\t%.3f\t%.4g\t%.4g\t%d of %d"
          % (__import__("dtaidistance").__version__, len(reads), pairs, cells, dt, cells / dt,
             len(reads) / dt, near, compared))
    return 0


if __name__ == "__main__":
    sys.exit(main())
