#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""screen.py -- the screening measurement of gpuasm-signal (issue #15):
how well the ADSM cost separates reads of a virus from human reads.

Positives: SIMULATED reads (tests/signal/simulate.py: stated dwell and
noise model) of each genome given.  Negatives: REAL human reads, the R9.4.1
chr22 signals of ../shared/data/signals (converted from their pre-release
BLOW5 by blow5v01_to_slow5.py), cut into windows of --prefix samples at
offsets 0, P, 2P, ... (each window one query: there are only 10 reads).
Every query is compared with both strands of every genome; a query's score
is its lowest cost per sample (an) over them.  Reported: ROC AUC (the
probability that a random viral query scores below a random human one,
ties half), the threshold that passes at most 1% of the human windows and
the fraction of viral reads caught at it, the same at gpuasm-signal's
default threshold, and how often a viral read's best line is its own
genome and strand with the aligned interval overlapping the simulated one.

  screen.py --gpuasm-signal BIN --data DIR [--reads N] [--prefix P]
            [--noise F] [--threads T] [--device D] [--seed S] [--workdir W]
            GENOME.fa ...
Prints a Markdown table; exit status 0 unless a run fails.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.stderr.write("screen.py: %s failed:\n%s" % (" ".join(cmd), r.stderr))
        sys.exit(1)
    return r.stdout


def human_windows(slow5, out, prefix):
    """Windows of `prefix` samples of every read of a SLOW5 text file."""
    n = 0
    with open(slow5) as f, open(out, "w") as o:
        for line in f:
            if line.startswith(("#", "@")):
                o.write(line)
                continue
            p = line.rstrip("\n").split("\t")
            sig = p[7].split(",")
            for off in range(0, len(sig) - prefix + 1, prefix):
                w = sig[off:off + prefix]
                o.write("\t".join([p[0] + ":" + str(off)] + p[1:6] + [str(len(w)), ",".join(w)]) + "\n")
                n += 1
    return n


def best_per_read(tsv):
    """read -> (an, target, strand, ref_start, ref_end) of its lowest line."""
    best = {}
    lines = tsv.splitlines()
    for line in lines[1:]:
        p = line.split("\t")
        if p[12] == "NA":
            continue
        an = float(p[12])
        if p[0] not in best or an < best[p[0]][0]:
            best[p[0]] = (an, p[4], p[5], int(p[7]), int(p[8]))
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuasm-signal", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--reads", type=int, default=50)
    ap.add_argument("--prefix", type=int, default=2000)
    ap.add_argument("--noise", type=float, default=1.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--cost", default="abs")
    ap.add_argument("--norm", default="mad")
    ap.add_argument("--workdir")
    ap.add_argument("genomes", nargs="+")
    o = ap.parse_args()
    model = os.path.join(o.data, "signals", "r9.4.1_400bps_6mer.model.tsv")
    work = o.workdir or tempfile.mkdtemp(prefix="gpuasm-screen.")
    os.makedirs(work, exist_ok=True)
    sim = os.path.join(work, "simulated.slow5")
    run([sys.executable, os.path.join(HERE, "simulate.py"), "--model", model, "--reads", str(o.reads),
         "--samples", str(o.prefix), "--noise", str(o.noise), "--seed", str(o.seed), sim] + o.genomes)
    chr22 = os.path.join(work, "chr22.slow5")
    run([sys.executable, os.path.join(HERE, "blow5v01_to_slow5.py"),
         os.path.join(o.data, "signals", "chr22_meth_example-subset.blow5"), chr22])
    neg = os.path.join(work, "chr22-windows.slow5")
    n_neg = human_windows(chr22, neg, o.prefix)
    ref = os.path.join(work, "genomes.fa")
    with open(ref, "w") as f:
        for g in o.genomes:
            f.write(open(g).read())
    base = [o.gpuasm_signal, "--tsv", "-n", str(o.prefix), "-@", str(o.threads), "--device", o.device,
            "--cost", o.cost, "--norm", o.norm, "-p", model]
    pos = best_per_read(run(base + [sim, ref]))
    negb = best_per_read(run(base + [neg, ref]))
    P = sorted(v[0] for v in pos.values())
    N = sorted(v[0] for v in negb.values())
    # AUC: P(viral < human), ties half.
    auc = sum((n > p) + 0.5 * (n == p) for p in P for n in N) / (len(P) * len(N))
    # The largest threshold passing <= 1% of the human windows (an <= t passes).
    allowed = int(0.01 * len(N))
    t1 = N[allowed] - 1e-4 if allowed < len(N) else N[-1]
    caught = sum(p <= t1 for p in P) / len(P)
    fp = sum(n <= t1 for n in N)
    help_txt = run([o.gpuasm_signal, "--help"])
    dflt = float(help_txt.split("-t, --threshold FLOAT")[1].split("[")[1].split("]")[0])
    caught_d = sum(p <= dflt for p in P) / len(P)
    fp_d = sum(n <= dflt for n in N)
    # Placement: best line on the read's own genome and strand, overlapping
    # the bases it was simulated from (the DTW's free ends may run a few
    # k-mers past them: a warping path may end on a horizontal run).
    placed = 0
    for rid, (an, tname, strand, rs, re_) in pos.items():
        parts = rid.split("_")
        fs, fe, s = int(parts[-3]), int(parts[-2]), parts[-4]
        gname = "_".join(parts[1:-4])
        if tname.replace("|", "_") == gname and strand == s and rs < fe and fs < re_:
            placed += 1
    print("| viral reads (simulated) | human windows (real) | prefix | noise | cost, norm | ROC AUC | "
          "threshold at <= 1%% human | viral caught | human passing | default %.2f: viral caught | "
          "human passing | best line on the read's genome and strand, overlapping its bases |" % dflt)
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("| %d | %d | %d | %g | %s, %s | %.4f | %.4f | %.1f%% | %d of %d | %.1f%% | %d of %d | %.1f%% |"
          % (len(P), len(N), o.prefix, o.noise, o.cost, o.norm, auc, t1, 100 * caught, fp, len(N), 100 * caught_d,
             fp_d, len(N), 100.0 * placed / len(P)))
    print()
    print("viral an: min %.4f median %.4f max %.4f; human an: min %.4f median %.4f max %.4f"
          % (P[0], P[len(P) // 2], P[-1], N[0], N[len(N) // 2], N[-1]))
    if n_neg != len(N):
        sys.stderr.write("screen.py: %d windows cut, %d scored\n" % (n_neg, len(N)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
