#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""seeds_report.py [--commit C] [--meta META.tsv] [-o OUT.md] TSV... -- the
seed reproduction tables (issue #4) as markdown.

Reads the TSV rows of tests/bench/bench_seeds (any number of files, any
subcommands; '#' lines are metadata) and prints, for each experiment found,
a table of our figures next to the paper's.  The paper's figures are typed
in below from the seed texts in ../shared/seeds/ with their table or figure;
where a paper has only a plot, the table says "plot only" and gives what
the text states.  A missing or failed row gives "n/a" / "error", never a
number.  tests/bench/seeds.md explains what each table measures.

The commit comes from --commit, else $COMMIT, else the "commit" line of
--meta (tests/bench/run's meta.tsv), else `git rev-parse HEAD` here.
"""
import argparse
import os
import subprocess
import sys

# ---- the papers' figures -----------------------------------------------------

# Seed 000 (Man, Nakano, Ito, "The Approximate String Matching on the
# Hierarchical Memory Machine, with Performance Evaluation"), §VI, Table I:
# milliseconds, |Y| = 4M = 2^22 random 0/1 characters, |X| = m, D CUDA
# blocks, GeForce GTX 580; CPU = one core of a Xeon X7460 (2.66 GHz).
T1_D = [16, 32, 64, 128, 256, 512, 1024, 2048]
T1_GPU = {
    32: [178.2, 89.23, 44.92, 23.46, 23.53, 23.64, 23.90, 24.38],
    64: [178.6, 89.71, 46.74, 29.13, 29.13, 29.18, 29.39, 30.01],
    128: [181.1, 92.66, 55.81, 48.40, 48.51, 48.92, 50.16, 53.36],
    256: [187.0, 112.2, 95.77, 93.16, 91.83, 93.83, 100.1, 113.3],
    512: [236.5, 191.0, 184.6, 181.3, 185.0, 197.9, 224.1, 277.9],
    1024: [419.6, 423.8, 432.3, 449.4, 483.4, 551.5, 687.7, 960.0],
}
T1_CPU = {32: 701.8, 64: 1364, 128: 2683, 256: 5295, 512: 10560, 1024: 27720}

# Seed 003 (de Melo, Canalli, UFRRJ 2014), §4.1 (configurations) and §4.2,
# Tabela 4.1: sequential CPU ms (Core i5 4200U) and thread-cooperative GPU
# ms (GeForce GT 740M; the sum of nvprof's "Profiling result" times:
# kernel, memcpy HtoD/DtoH, memset), and |t| in characters.
BIBLE_PAT = {4: "LORD", 31: "for his mercy endureth for ever"}
BIBLE_TEXTS = [("kjv2x", "whole, doubled", 8703687), ("kjv", "whole", 4351843),
               ("nt", "New Testament", 1017275), ("psalms", "Psalms", 240885),
               ("genesis", "Genesis", 166659), ("1john", "1 John", 13369)]
BIBLE_PAPER = {  # configuration -> (CPU ms, GPU ms, speed-up)
    1: (278.787018, 20.677804, 13.48), 2: (140.347000, 7.93738, 17.68),
    3: (34.472000, 1.705135, 20.21), 4: (8.427000, 0.414089, 20.35),
    5: (6.247000, 0.298561, 20.92), 6: (1.269000, 0.0376, 33.75),
    7: (279.370026, 15.87318, 17.60), 8: (139.198013, 10.337652, 13.46),
    9: (35.797001, 2.380277, 15.03), 10: (8.577001, 0.546658, 15.68),
    11: (6.340000, 0.390404, 16.23), 12: (1.460000, 0.101409, 14.39),
}

# Seed 004 (k mismatches on CUDA, GTX 260): Figs. 12-15 are plots; the
# seed text holds no value read off them.
HAMMING_PAPER = (
    "Seed 004 §V, Figs. 13 (time vs pattern size, text = the B. anthracis "
    "genome) and 14 (time vs text size, pattern of 256 characters): **plot "
    "only** -- the seed text has the captions but no axis values, so no "
    "paper number is given here.  The text states: OPT-block-thread is much "
    "faster than thread and block-thread (Fig. 13); all times grow linearly "
    "with the text, thread ~ block-thread (Fig. 14); OPT-block-thread is "
    "40-80x a simple CPU scan (Fig. 15, Yersinia pestis).  GeForce GTX 260.")

# Seed 002 (Mitani, Ino, Hagihara, supplementary file), §9, Fig. 12.
SCAN_PAPER = (
    "Seed 002 supplement §9, Fig. 12 (GBPR, the segment-based bit-parallel "
    "baseline -- not the paper's scan method -- for k = 0, 1, 2, pattern "
    "sizes m and segment sizes s; n = 2^31, sigma = 64): **plot only**.  "
    "The text states the ranges: 62-371 Gbit/s for their GBPR (alpha = 1) "
    "on a GPU with 336.5 GB/s of memory bandwidth, and 15-75 Gbit/s for the "
    "original GBPR on a GeForce GTX 680 (192.3 GB/s).")

# ---- reading -----------------------------------------------------------------

COLS = ["exp", "case", "kernel", "variant", "alphabet", "strands", "m", "n", "k",
        "segments", "kernel_s", "wall_s", "cells", "rate", "unit", "hits", "reps", "status"]


def fnum(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def load(paths):
    rows, meta = [], {}
    for p in paths:
        with open(p) as f:
            for line in f:
                line = line.rstrip("\n")
                if not line:
                    continue
                if line.startswith("#"):
                    parts = line[1:].split("\t")
                    if parts[0] in ("device", "date", "options", "genome", "scan-text",
                                    "text", "elapsed_s"):
                        meta.setdefault(parts[0], [])
                        val = "\t".join(parts[1:])
                        if val not in meta[parts[0]]:
                            meta[parts[0]].append(val)
                    continue
                v = line.split("\t")
                if len(v) != len(COLS):
                    continue
                r = dict(zip(COLS, v))
                for c in ("strands", "m", "n", "k", "segments", "reps"):
                    r[c] = int(r[c])
                for c in ("kernel_s", "wall_s", "cells", "rate", "hits"):
                    r[c] = fnum(r[c])
                rows.append(r)
    return rows, meta


def ok(r):
    return r is not None and r["status"].startswith("ok") and r["kernel_s"] is not None


def ms(r, col="kernel_s"):
    if r is None:
        return "n/a"
    if not ok(r):
        return "error" if r["status"].startswith("error") else \
            "MISMATCH" if r["status"].startswith("MISMATCH") else "skipped"
    return fmt_ms(r[col] * 1e3)


def fmt_ms(v):
    if v is None:
        return "n/a"
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    if v >= 1:
        return "%.2f" % v
    return "%.3g" % v


def g3(x):
    """a rate with 3 significant digits, or n/a"""
    return "n/a" if x is None else "%.3g" % x


def ratio(a, b):
    """a / b as 12.3x, or n/a"""
    if a is None or b is None or b <= 0:
        return "n/a"
    x = a / b
    return "%.0fx" % x if x >= 100 else "%.1fx" % x if x >= 10 else "%.2fx" % x


def table(head, body):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    return "\n".join(out)


def find(rows, **kw):
    for r in rows:
        if all(r.get(k) == v for k, v in kw.items()):
            return r
    return None


# ---- the tables ----------------------------------------------------------------

def table1(rows):
    t = [r for r in rows if r["exp"] == "table1"]
    if not t:
        return None
    out = ["### Seed 000, Table I: the dp kernel with D segments (|Y| = %s random 0/1 characters)\n"
           % ", ".join(str(n) for n in sorted({r["n"] for r in t}))]
    out.append("Our kernel time (ms, best of the timed runs; CUDA events on a GPU, the "
               "wall time on the CPU) and, in "
               "brackets, the paper's GTX 580 time (seed 000 §VI, Table I).  One strand, "
               "byte alphabet, k = D* = ASM(X, Y) (the paper's output: the best distance).\n")
    ms_ = sorted({r["m"] for r in t})
    head = ["m", "D*"] + ["D=%d" % d for d in T1_D] + ["D=auto"]
    for variant, what in (("paper", "The paper's layout (seed 000 §IV: a ring of 3 "
                           "anti-diagonals in shared memory, one thread per row, one "
                           "__syncthreads per anti-diagonal):"),
                          ("best", "Our layout (a thread owns rows and advances 4 text "
                           "columns per __syncthreads, cells in registers, Hopper "
                           "DPX min-add):")):
        if not any(r["kernel"] == "dp" and r["variant"] == variant for r in t):
            continue
        out.append(what + "\n")
        body = []
        for m in ms_:
            k = next((r["k"] for r in t if r["m"] == m), None)
            row = [m, k]
            for i, d in enumerate(T1_D):
                r = find(t, m=m, kernel="dp", variant=variant, segments=d)
                p = T1_GPU.get(m, [None] * 8)[i]
                row.append("%s (%s)" % (ms(r), fmt_ms(p)) if r or p else "n/a")
            row.append(ms(find(t, m=m, kernel="dp", variant=variant, segments=0)))
            body.append(row)
        out.append(table(head, body))
        out.append("")
    head = ["m", "our best layout, D", "dp ms", "dp GCUPS", "dp wall ms", "paper best D", "GTX 580 ms",
            "GTX 580 / ours", "paper CPU ms", "myers ms (nt16, 2 strands)", "myers GCUPS",
            "myers byte ms", "hits", "checks"]
    body = []
    for m in ms_:
        dps = [r for r in t if r["m"] == m and r["kernel"] == "dp" and ok(r)]
        best = min(dps, key=lambda r: r["kernel_s"]) if dps else None
        pg = T1_GPU.get(m)
        pbest = min(range(8), key=lambda i: pg[i]) if pg else None
        my = find(t, m=m, kernel="myers", alphabet="nt16")
        myb = find(t, m=m, kernel="myers", alphabet="byte")
        bad = [r for r in t if r["m"] == m and not ok(r)]
        body.append([
            m, "%s, %s" % (best["variant"], best["segments"] or "auto") if best else "n/a", ms(best),
            g3(best["rate"] if best else None), ms(best, "wall_s"),
            T1_D[pbest] if pg else "n/a", fmt_ms(pg[pbest]) if pg else "n/a",
            ratio(pg[pbest] / 1e3 if pg else None, best["kernel_s"] if best else None),
            fmt_ms(T1_CPU.get(m)), ms(my),
            g3(my["rate"] if ok(my) else None), ms(myb) if myb else "-",
            "%d" % best["hits"] if best else "n/a",
            "ok" if not bad else "; ".join(sorted({r["status"][:60] for r in bad})),
        ])
    out.append(table(head, body))
    return "\n".join(out)


def bible(rows, meta):
    t = [r for r in rows if r["exp"] == "bible"]
    if not t:
        return None
    out = ["### Seed 003, Tabela 4.1: Myers (byte alphabet) on the King James Bible\n",
           "Paper: GT 740M GPU time = the sum of nvprof's kernel + memcpy + memset "
           "times, so it is set against our wall time of the whole scan call "
           "(copies in, kernel, hits out); our kernel time (CUDA events) beside it.  "
           "Our texts are `bible -f` output (verse references included), so their "
           "sizes differ a little from the paper's lengths.\n"]
    head = ["config", "pattern", "text", "paper length", "our length", "paper CPU ms",
            "paper GPU ms", "k", "our wall ms", "our kernel ms", "paper GPU / our wall (k=0)",
            "hits"]
    body = []
    cfg = 0
    for m in (4, 31):
        for name, label, plen in BIBLE_TEXTS:
            cfg += 1
            rs = sorted((r for r in t if r["m"] == m and r["case"] == name), key=lambda r: r["k"])
            n = rs[0]["n"] if rs else None
            pc, pg, _ = BIBLE_PAPER[cfg]
            r0 = find(t, m=m, case=name, k=0)
            body.append([
                cfg, "`%s`" % BIBLE_PAT[m], label, plen, n if n else "n/a", fmt_ms(pc), fmt_ms(pg),
                " / ".join(str(r["k"]) for r in rs) or "n/a",
                " / ".join(ms(r, "wall_s") for r in rs) or "n/a",
                " / ".join(ms(r) for r in rs) or "n/a",
                ratio(pg / 1e3, r0["wall_s"] if ok(r0) else None),
                " / ".join("%d" % r["hits"] if ok(r) else r["status"][:40] for r in rs) or "n/a",
            ])
    out.append(table(head, body))
    return "\n".join(out)


def hamming(rows, meta):
    t = [r for r in rows if r["exp"] == "hamming"]
    if not t:
        return None
    g = "; ".join(meta.get("genome", [])) or "?"
    out = ["### Seed 004, Figs. 13-14: k-mismatch (hamming kernel), genome %s\n" % g.replace("\t", ", "),
           HAMMING_PAPER + "\n",
           "Ours: the genome repeated to n bases as one read (both strands), one "
           "pattern of m bases cut from it as the target, k = floor(m/10); kernel "
           "ms (best of the timed runs) for the paper's two layouts and ours.\n"]
    ns = sorted({r["n"] for r in t})
    head = ["m", "k"]
    for n in ns:
        head += ["n=%gM thread" % (n / 1e6), "OPT-block-thread", "best", "thread / best"]
    body = []
    for m in sorted({r["m"] for r in t}):
        k = next(r["k"] for r in t if r["m"] == m)
        row = [m, k]
        for n in ns:
            th = find(t, m=m, n=n, variant="thread")
            pa = find(t, m=m, n=n, variant="paper")
            be = find(t, m=m, n=n, variant="best")
            row += [ms(th), ms(pa), ms(be),
                    ratio(th["kernel_s"] if ok(th) else None, be["kernel_s"] if ok(be) else None)]
        body.append(row)
    out.append(table(head, body))
    out.append("")
    big = ns[-1]
    head = ["m", "n", "best GCUPS", "best wall ms", "OPT-block-thread / best", "hits", "checks"]
    body = []
    for m in sorted({r["m"] for r in t}):
        be = find(t, m=m, n=big, variant="best")
        pa = find(t, m=m, n=big, variant="paper")
        bad = [r for r in t if r["m"] == m and not ok(r)]
        body.append([m, big, g3(be["rate"] if ok(be) else None),
                     ms(be, "wall_s"),
                     ratio(pa["kernel_s"] if ok(pa) else None, be["kernel_s"] if ok(be) else None),
                     "%d" % be["hits"] if ok(be) else "n/a",
                     "ok" if not bad else "; ".join(sorted({r["status"][:60] for r in bad}))])
    out.append(table(head, body))
    return "\n".join(out)


def scan(rows, meta):
    t = [r for r in rows if r["exp"] == "scan"]
    if not t:
        return None
    txt = "; ".join(meta.get("scan-text", [])).replace("\t", ", ")
    out = ["### Seed 002, Fig. 12 axes: search throughput (Gbit/s of text, 8 bits per character)\n",
           SCAN_PAPER + "\n",
           "Ours: %s; one random pattern per m with 240 planted copies (0, 1 or 2 "
           "substitutions); Gbit/s = 8 n / kernel time (best of the timed runs); "
           "the wall column counts the copy of the text to the device as well.\n" % txt]
    head = ["m"]
    for k in (0, 1, 2):
        head += ["k=%d scan Gbit/s" % k, "myers Gbit/s", "scan wall Gbit/s"]
    head += ["checks"]
    body = []
    for m in sorted({r["m"] for r in t}):
        row = [m]
        for k in (0, 1, 2):
            s = find(t, m=m, k=k, kernel="scan")
            my = find(t, m=m, k=k, kernel="myers")
            g = lambda r: g3(r["rate"]) if ok(r) and r["rate"] else ms(r)
            wall = g3(8 * s["n"] / s["wall_s"] / 1e9) if ok(s) and s["wall_s"] else ms(s)
            row += [g(s), g(my), wall]
        bad = [r for r in t if r["m"] == m and not ok(r)]
        row.append("ok" if not bad else "; ".join(sorted({r["status"][:60] for r in bad})))
        body.append(row)
    out.append(table(head, body))
    return "\n".join(out)


def commit_of(args):
    if args.commit:
        return args.commit
    if os.environ.get("COMMIT"):
        return os.environ["COMMIT"]
    if args.meta and os.path.exists(args.meta):
        for line in open(args.meta):
            k, _, v = line.rstrip("\n").partition("\t")
            if k == "commit":
                return v
    try:
        top = os.path.dirname(os.path.abspath(__file__))
        c = subprocess.run(["git", "-C", top, "rev-parse", "HEAD"], capture_output=True,
                           text=True, check=True).stdout.strip()
        d = subprocess.run(["git", "-C", top, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
        return c + (" (+ uncommitted changes)" if d else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tsv", nargs="+")
    ap.add_argument("--commit")
    ap.add_argument("--meta", help="tests/bench/run's meta.tsv (commit, gpu)")
    ap.add_argument("-o", "--out", help="write here instead of stdout")
    args = ap.parse_args()
    rows, meta = load(args.tsv)
    parts = ["## Seed reproductions (issue #4)\n",
             "Device: %s.  Commit: %s.  Date: %s.  Options: %s.  Made by "
             "tests/bench/bench_seeds and tests/bench/seeds_report.py; "
             "tests/bench/seeds.md says what each table measures.  Timings are "
             "never tests; a hit-count check that fails shows as MISMATCH.\n"
             % ("; ".join(meta.get("device", ["?"])), commit_of(args),
                "; ".join(meta.get("date", ["?"])), "; ".join(meta.get("options", ["?"])))]
    for fn in (lambda: table1(rows), lambda: bible(rows, meta), lambda: hamming(rows, meta),
               lambda: scan(rows, meta)):
        s = fn()
        if s:
            parts.append(s + "\n")
    bad = [r for r in rows if r["status"].startswith("MISMATCH")]
    if bad:
        parts.append("**Hit-count MISMATCH rows:**\n")
        parts += ["- %s %s %s m=%d n=%d k=%d: %s" % (r["exp"], r["kernel"], r["variant"], r["m"],
                                                    r["n"], r["k"], r["status"]) for r in bad]
    text = "\n".join(parts) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
