#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""report.py LOGS BENCHMARKS.md -- the tables of tests/bench/run.

Reads the raw outputs tests/bench/run left in LOGS (*.out, *.time.json,
*.stats.json, *.score.json, meta.tsv, commands.txt, notes.txt), writes
BENCHMARKS.md and prints a summary table.  Every figure comes from those
logs, except seed 000's Table I (GTX 580), copied from the paper.  A missing
input gives "n/a", never a made-up number.
"""
import glob
import json
import os
import re
import sys

# Seed 000 (Man, Nakano, Ito: ASM on the HMM), Table I: milliseconds for
# |Y| = 4M = 2^22, random 0/1 strings, one strand, the exact best distance
# (no k).  GPU: GeForce GTX 580, D CUDA blocks; CPU: Xeon X7460 2.66 GHz,
# sequential.  best = the fastest D of the row.
PAPER_D = [16, 32, 64, 128, 256, 512, 1024, 2048]
PAPER = {
    32: [178.2, 89.23, 44.92, 23.46, 23.53, 23.64, 23.90, 24.38],
    64: [178.6, 89.71, 46.74, 29.13, 29.13, 29.18, 29.39, 30.01],
    128: [181.1, 92.66, 55.81, 48.40, 48.51, 48.92, 50.16, 53.36],
    256: [187.0, 112.2, 95.77, 93.16, 91.83, 93.83, 100.1, 113.3],
    512: [236.5, 191.0, 184.6, 181.3, 185.0, 197.9, 224.1, 277.9],
    1024: [419.6, 423.8, 432.3, 449.4, 483.4, 551.5, 687.7, 960.0],
}
PAPER_CPU = {32: 701.8, 64: 1364, 128: 2683, 256: 5295, 512: 10560, 1024: 27720}
MS = [32, 64, 128, 256, 512, 1024]

logs = sys.argv[1]
out_md = sys.argv[2]


def path(name):
    return os.path.join(logs, name)


def read(name):
    try:
        with open(path(name)) as f:
            return f.read()
    except OSError:
        return None


def jload(name):
    t = read(name)
    if t is None:
        return None
    try:
        return json.loads(t)
    except ValueError:
        return None


def timing(name):
    """wall_s and maxrss of a successful step, else None."""
    d = jload(name + ".time.json")
    if not d or d.get("rc") != 0:
        return None
    return d


def num(pattern, text, group=1):
    if text is None:
        return None
    m = re.search(pattern, text)
    return float(m.group(group)) if m else None


def f(x, fmt="{:.3g}", na="n/a"):
    return na if x is None else fmt.format(x)


def xr(r):
    """a ratio as 1,234x / 56x / 1.23x"""
    if r is None:
        return "n/a"
    return "{:,.0f}x".format(r) if r >= 100 else ("{:.0f}x".format(r) if r >= 10 else "{:.2f}x".format(r))


def fi(x):
    return "n/a" if x is None else "{:,}".format(int(x))


meta = {}
for line in (read("meta.tsv") or "").splitlines():
    if "\t" in line:
        k, v = line.split("\t", 1)
        meta[k] = v
dev = meta.get("device", "cuda")
threads = meta.get("threads", "?")


def mint(key):
    try:
        return int(meta.get(key, ""))
    except ValueError:
        return None


# ---- P4 ceiling --------------------------------------------------------------
ceil_txt = read("ceiling.out")
ceil32 = num(r"W=32 m=32[^\n]*\t([0-9.]+) TCUPS", ceil_txt)
ceil64 = num(r"W=64 m=64[^\n]*\t([0-9.]+) TCUPS", ceil_txt)
ceil32_ms = num(r"W=32 m=32[^\n]*\t([0-9.]+) ms", ceil_txt)
ceil64_ms = num(r"W=64 m=64[^\n]*\t([0-9.]+) ms", ceil_txt)
ceil_check = None
if ceil_txt is not None:
    ceil_check = "FAIL" if "FAIL" in ceil_txt else ("ok" if "ok check" in ceil_txt else None)
ceil_max = max([c for c in (ceil32, ceil64) if c is not None], default=None)

# ---- P1 ------------------------------------------------------------------------
p1 = {}
for m in MS:
    k = m // 10
    g = read("p1.gpuasm.m%d.k%d.out" % (m, k))
    gb = read("p1.gpuasm.m%d.kbest.out" % m)
    e = read("p1.edlib.m%d.k%d.out" % (m, k))
    eb = read("p1.edlib.m%d.kbest.out" % m)
    row = {
        "k": k,
        "g_s": num(r"\t([0-9.]+) s\t", g),
        "g_tcups": num(r"\t([0-9.]+) TCUPS", g),
        "g_hits": num(r"\t([0-9]+) hits", g),
        "gb_s": num(r"\t([0-9.]+) s\t", gb),
        "gb_k": num(r"k=([0-9]+)", gb),
        "gb_hits": num(r"\t([0-9]+) hits", gb),
        "e_s": num(r"\t([0-9.]+) s\t", e),
        "e_best": num(r"best (-?[0-9]+)", e),
        "eb_s": num(r"\t([0-9.]+) s\t", eb),
        "dstar": num(r"best (-?[0-9]+)", eb),
    }
    p1[m] = row


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


p1_rows = []
for m in MS:
    r = p1[m]
    pbest = min(PAPER[m])
    pd = PAPER_D[PAPER[m].index(pbest)]
    g_ms = r["g_s"] * 1e3 if r["g_s"] is not None else None
    gb_ms = r["gb_s"] * 1e3 if r["gb_s"] is not None else None
    e_ms = r["e_s"] * 1e3 if r["e_s"] is not None else None
    eb_ms = r["eb_s"] * 1e3 if r["eb_s"] is not None else None
    p1_rows.append([
        str(m), str(r["k"]), f(g_ms, "{:.3f}"), f(g_ms / 2 if g_ms else None, "{:.3f}"),
        f(r["g_tcups"], "{:.2f}"), f(e_ms, "{:.2f}"), xr(ratio(e_ms, g_ms / 2 if g_ms else None)),
        f(r["dstar"], "{:.0f}"), f(eb_ms, "{:.1f}"), f(gb_ms, "{:.3f}"),
        "%g (D=%d)" % (pbest, pd), xr(ratio(pbest, gb_ms / 2 if gb_ms else None)),
    ])
P1_HEAD = ["m", "k", "gpuasm ms (2 strands)", "gpuasm ms/strand", "TCUPS", "edlib 1 core ms (k, 1 strand)",
           "edlib / gpuasm per strand", "D* (best distance)", "edlib 1 core ms (k=-1)",
           "gpuasm ms at k=D* (2 strands)", "GTX 580 ms, best D (paper)", "paper / gpuasm per strand at k=D*"]

# ---- P2 ------------------------------------------------------------------------
p2_reads = mint("p2_reads")
p2_sub = mint("p2_sub_reads")
sc = jload("p2.score.json") or {}
scs = jload("p2sub.score.json") or {}
g2 = timing("p2.gpuasm.%s" % dev)
g2stats = jload("p2.gpuasm.%s.stats.json" % dev)
g2sub = timing("p2sub.gpuasm.%s" % dev)
c2sub = timing("p2sub.gpuasm.cpu")
e2 = timing("p2sub.edlib")
e2out = read("p2sub.edlib.out")
e2_align = num(r"\t([0-9.]+) s align", e2out)
mm2 = timing("p2.minimap2")
rp2 = timing("p2.readpass")
rp2_s = num(r"\t([0-9.]+) s\t", read("p2.readpass.out"))
eng = read("p2.engine.out")
eng_tcups = num(r"\t([0-9.]+) TCUPS", eng)
eng_s = num(r"\t([0-9.]+) s\t", eng)
eng_rps = num(r"\t([0-9.]+) reads/s", eng)
eng_desc = re.search(r"\t([0-9]+ reads of [0-9]+ bp vs [0-9]+ bp)", eng or "")
stats_tcups = g2stats.get("kernel_tcups") if isinstance(g2stats, dict) else None
cmp_e = jload("p2sub.edlib-vs-gpuasm.json")
cpu_cuda = (read("p2sub.cpu-vs-%s.txt" % dev) or "").strip() or None


def rps(n, t):
    return n / t if n and t else None


g2_rps = rps(p2_reads, g2 and g2["wall_s"])
e2_rps = rps(p2_sub, e2_align)
c2_rps = rps(p2_sub, c2sub and c2sub["wall_s"])
g2sub_rps = rps(p2_sub, g2sub and g2sub["wall_s"])
mm2_rps = rps(p2_reads, mm2 and mm2["wall_s"])
rp2_rps = rps(p2_reads, rp2_s)


def sc_of(d, key_start):
    for k, v in d.items():
        if k.startswith(key_start):
            return v
    return None


sg = sc_of(sc, "p2.gpuasm")
smm = sc_of(sc, "p2.minimap2")
ssg = sc_of(scs, "p2sub.gpuasm.%s" % dev)
ssc = sc_of(scs, "p2sub.gpuasm.cpu")
sse = sc_of(scs, "p2sub.edlib")


def rec(s):
    if not s:
        return "n/a", "n/a", "n/a"
    return ("%s / %s (%.3f%%)" % (fi(s["positives_found"]), fi(s["positives"]),
                                  100.0 * s["positives_found"] / s["positives"] if s["positives"] else 0),
            "%s / %s" % (fi(s["within_k_found"]), fi(s["positives_within_k"])),
            fi(s["negatives_reported"]))


def mb(t):
    return f(t["maxrss_kb"] / 1024 if t else None, "{:.0f}")


p2_rows = []


def p2row(tool, reads, wall, r_s, rss, s, note=""):
    a, b, c = rec(s)
    p2_rows.append([tool, fi(reads), f(wall, "{:.3f}"), f(r_s, "{:,.0f}"), rss, a, b, c,
                    xr(ratio(g2_rps, r_s)), note])


p2row("gpuasm-scan --device %s -@ %s" % (dev, threads), p2_reads, g2 and g2["wall_s"], g2_rps, mb(g2), sg,
      "end to end")
p2row("gpuasm-scan --device %s (subsample)" % dev, p2_sub, g2sub and g2sub["wall_s"], g2sub_rps, mb(g2sub), ssg,
      "end to end; startup dominates")
p2row("gpuasm-scan --device cpu -@ %s (subsample)" % threads, p2_sub, c2sub and c2sub["wall_s"], c2_rps, mb(c2sub),
      ssc, "end to end")
p2row("edlib HW, %s threads (subsample)" % threads, p2_sub, e2_align, e2_rps, mb(e2), sse,
      "alignment phase only (reads in memory); reads/s extrapolated to any size")
p2row("minimap2 -x sr -t %s -a" % threads, p2_reads, mm2 and mm2["wall_s"], mm2_rps, mb(mm2), smm,
      "end to end, index included")
p2row("htslib read pass (floor)", p2_reads, rp2_s, rp2_rps, mb(rp2), None, "")
# issue #14: the same reads as .fq.gz (users' files), with their own floor
g2gz, rp2gz = timing("p2gz.gpuasm.%s" % dev), timing("p2gz.readpass")
rp2gz_s = num(r"\t([0-9.]+) s\t", read("p2gz.readpass.out"))
if g2gz or rp2gz:
    p2row("gpuasm-scan --device %s -@ %s, .fq.gz input" % (dev, threads), p2_reads, g2gz and g2gz["wall_s"],
          rps(p2_reads, g2gz and g2gz["wall_s"]), mb(g2gz), None,
          f(ratio(g2gz and g2gz["wall_s"], rp2gz_s), "{:.2f}x the .gz read pass"))
    p2row("htslib read pass of the .fq.gz (floor of .gz)", p2_reads, rp2gz_s, rps(p2_reads, rp2gz_s), mb(rp2gz),
          None, "one thread of zlib inflate (gzip is not BGZF: no htslib thread pool)")
P2_HEAD = ["tool", "reads", "s", "reads/s", "peak RSS MB", "true reads found (recall)",
           "found / within k (wgsim counts)", "negatives reported", "gpuasm %s speed-up" % dev, "note"]

# ---- P3 ------------------------------------------------------------------------
p3_reads = mint("p3_reads")
p3_sub = mint("p3_sub_reads")
rp3_s = num(r"\t([0-9.]+) s\t", read("p3.readpass.out"))
rp3 = timing("p3.readpass")
g3 = timing("p3.gpuasm.%s" % dev)
g3sub = timing("p3sub.gpuasm.%s" % dev)
ca = timing("p3sub.cutadapt")
g3stats = jload("p3.gpuasm.%s.stats.json" % dev)
g3_s = g3 and g3["wall_s"]
p3_ratio = ratio(g3_s, rp3_s)
g3sub_rps = rps(p3_sub, g3sub and g3sub["wall_s"])
ca_reads = mint("cutadapt_reads")
ca_rps = rps(ca_reads, ca and ca["wall_s"])
p3_rows = [
    ["gpuasm-scan --device %s -@ %s" % (dev, threads), fi(p3_reads), f(g3_s, "{:.3f}"),
     f(rps(p3_reads, g3_s), "{:,.0f}"), mb(g3), f(p3_ratio, "{:.2f}x the read pass")],
    ["htslib read pass (floor)", fi(p3_reads), f(rp3_s, "{:.3f}"), f(rps(p3_reads, rp3_s), "{:,.0f}"), mb(rp3), "1"],
    ["gpuasm-scan --device %s -@ %s (subsample)" % (dev, threads), fi(p3_sub), f(g3sub and g3sub["wall_s"], "{:.3f}"),
     f(g3sub_rps, "{:,.0f}"), mb(g3sub), ""],
    ["cutadapt -j %s -e 0.1 -a file:adapters (subsample)" % threads, fi(ca_reads), f(ca and ca["wall_s"], "{:.3f}"),
     f(ca_rps, "{:,.0f}"), mb(ca), f(ratio(g3sub_rps, ca_rps), "gpuasm (subsample) {:.1f}x its reads/s")],
]
# issue #14: the same reads as .fq.gz (users' files), with their own floor
g3gz, rp3gz = timing("p3gz.gpuasm.%s" % dev), timing("p3gz.readpass")
rp3gz_s = num(r"\t([0-9.]+) s\t", read("p3gz.readpass.out"))
if g3gz or rp3gz:
    g3gz_s = g3gz and g3gz["wall_s"]
    p3_rows += [
        ["gpuasm-scan --device %s -@ %s, .fq.gz input" % (dev, threads), fi(p3_reads), f(g3gz_s, "{:.3f}"),
         f(rps(p3_reads, g3gz_s), "{:,.0f}"), mb(g3gz), f(ratio(g3gz_s, rp3gz_s), "{:.2f}x the .gz read pass")],
        ["htslib read pass of the .fq.gz (floor of .gz)", fi(p3_reads), f(rp3gz_s, "{:.3f}"),
         f(rps(p3_reads, rp3gz_s), "{:,.0f}"), mb(rp3gz), f(ratio(rp3gz_s, rp3_s), "{:.2f}x the plain read pass")],
    ]
P3_HEAD = ["tool", "reads", "s", "reads/s", "peak RSS MB", "ratio"]

# ---- P4 ------------------------------------------------------------------------
p4 = [
    ("P1 m=32 (k=3), 1 word", p1[32]["g_tcups"], ceil32, "32-bit"),
    ("P1 m=64 (k=6), 1 word", p1[64]["g_tcups"], ceil64, "64-bit"),
    ("P1 m=1024 (k=102), multi-word", p1[1024]["g_tcups"], ceil_max, "best of 32/64-bit"),
    ("P2 engine (bench_kernels p2), multi-word", eng_tcups, ceil_max, "best of 32/64-bit"),
    ("P2 end-to-end run, kernel_tcups of --stats", stats_tcups, ceil_max, "best of 32/64-bit"),
]
p4_rows = [["ceiling probe, 32-bit words, m=32 (k=3)", f(ceil32, "{:.2f}"), "", ""],
           ["ceiling probe, 64-bit words, m=64 (k=6)", f(ceil64, "{:.2f}"), "", ""]]
for name, t, c, cn in p4:
    p4_rows.append([name, f(t, "{:.3g}"), cn, f(ratio(t, c) and 100 * ratio(t, c), "{:.3g}%")])
P4_HEAD = ["kernel", "TCUPS", "ceiling", "% of ceiling"]

# ---- targets ---------------------------------------------------------------------
targets = []


def target(name, measured, ok, gap):
    if ok is None:
        status = "not measured"
    else:
        status = "met" if ok else "missed: " + gap
    targets.append([name, measured, status])


t = p1[1024]["g_s"]
target("P1 m=1024 (k=102, both strands) <= 0.5 ms", f(t and t * 1e3, "{:.3f} ms"),
       None if t is None else t * 1e3 <= 0.5, f(t and t * 1e3 / 0.5, "{:.1f}x too slow"))
kt = stats_tcups if stats_tcups is not None else eng_tcups
src = "--stats kernel_tcups" if stats_tcups is not None else "engine alone (bench_kernels p2)"
target("P2 kernel >= 25 TCUPS", f(kt, "{:.2f} TCUPS (" + src + ")"), None if kt is None else kt >= 25,
       f(kt and 25 / kt, "{:.1f}x short"))
r = ratio(g2_rps, e2_rps)
target("P2 end to end >= 100x edlib HW on %s threads" % threads, xr(r), None if r is None else r >= 100,
       f(r and 100 / r, "{:.1f}x short"))
target("P2 faster than minimap2 -x sr -t %s" % threads,
       "%s s vs %s s" % (f(g2 and g2["wall_s"], "{:.2f}"), f(mm2 and mm2["wall_s"], "{:.2f}")),
       None if not (g2 and mm2) else g2["wall_s"] < mm2["wall_s"],
       f(g2 and mm2 and g2["wall_s"] / mm2["wall_s"], "{:.2f}x minimap2's time"))
if cmp_e:
    miss = cmp_e["only_a"] + cmp_e["distance_differs"]
    target("P2 every true hit (edlib's (read, genome) pairs, same distance)",
           "%s of %s edlib pairs, %s other distance (subsample); full set: %s true reads found" % (
               fi(cmp_e["pairs_both"]), fi(cmp_e["pairs_a"]), fi(cmp_e["distance_differs"]), rec(sg)[0]),
           miss == 0, "%d pairs missed or with another distance" % miss)
else:
    target("P2 every true hit", "n/a", None, "")
target("P3 end to end within 1.2x of the read pass", f(p3_ratio, "{:.2f}x"),
       None if p3_ratio is None else p3_ratio <= 1.2, f(p3_ratio and p3_ratio / 1.2, "{:.2f}x over the target"))
for name, t, c, cn in p4:
    if t is None and "stats" in name:
        continue
    lim = 70 if "1 word" in name else 50
    pc = ratio(t, c) and 100 * ratio(t, c)
    target("P4 %s >= %d%% of the ceiling" % (name, lim), f(pc, "{:.3g}%"), None if pc is None else pc >= lim,
           f(pc and lim / pc, "{:.1f}x short"))


# ---- output ----------------------------------------------------------------------
def md_table(head, rows):
    s = "| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n"
    for r in rows:
        s += "| " + " | ".join(str(x) for x in r) + " |\n"
    return s


def txt_table(head, rows):
    w = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    line = lambda r: "  ".join(str(x).ljust(w[i]) for i, x in enumerate(r)).rstrip()
    return "\n".join([line(head), line(["-" * x for x in w])] + [line(r) for r in rows])


notes = [n for n in (read("notes.txt") or "").splitlines() if n.strip()]
cmds = [c.split("\t", 1) for c in (read("commands.txt") or "").splitlines() if c.strip()]
cmp_line = "n/a"
if cmp_e:
    cmp_line = ("edlib pairs %s, gpuasm pairs %s, both %s, only edlib %s, only gpuasm %s, distance differs %s, "
                "strand or end differs %s" % (fi(cmp_e["pairs_a"]), fi(cmp_e["pairs_b"]), fi(cmp_e["pairs_both"]),
                                              fi(cmp_e["only_a"]), fi(cmp_e["only_b"]), fi(cmp_e["distance_differs"]),
                                              fi(cmp_e["strand_or_end_differs"])))

md = []
md.append("# Benchmarks\n")
md.append("Generated by `tests/bench/run` (issue #3). Every figure comes from that run's logs, "
          "except the GTX 580 column, copied from seed 000's Table I. Timings are never tests.\n")
md.append("| | |\n|---|---|\n" + "".join("| %s | %s |\n" % (k, v) for k, v in meta.items()
                                          if k in ("date", "commit", "gpu", "cpu", "os", "gpuasm", "nvcc", "edlib",
                                                   "minimap2", "wgsim", "cutadapt", "threads")))
md.append("## Targets of issue #3\n")
md.append(md_table(["target", "measured", "status"], targets))
md.append("## P1: seed 000's Table I (one random pattern vs 4 Mi random bases)\n")
md.append("gpuasm: `bench_kernels %s p1 M 4194304 K 11` (the engine alone: upload, kernel, hits back; "
          "median of 11 after a warm-up), both strands, so its cells are 2mn; TCUPS = 2mn / s. "
          "k = floor(0.1 m), gpuasm-scan's default. edlib: `edlib_hw p1 M 4194304 K 5`, the same "
          "pattern and text, one strand, one core, EDLIB_MODE_HW, EDLIB_TASK_DISTANCE, median of 5. "
          "D* is edlib's exact best distance (k = -1), the quantity seed 000 computes; gpuasm at k = D* "
          "finds it. The paper used random 0/1 strings (ours are random A/C/G/T), one strand, and the best "
          "of its D columns is shown. Ratios per strand = the other tool's time / (gpuasm's time / 2).\n" % dev)
md.append(md_table(P1_HEAD, p1_rows))
md.append("\nThe paper's sequential CPU (Xeon X7460) took %s ms for m = 32..1024.\n"
          % ", ".join("%g" % PAPER_CPU[m] for m in MS))
md.append("## P2: virus screen (wgsim reads vs measles, Ebola, phiX, lambda; -e 0.1, both strands)\n")
md.append("Reads: %s wgsim 150 bp reads (read 1 of pairs; -e 0.01 -r 0.03 -R 0.1), alternately from the "
          "four genomes (88,654 bp) and from a random 5 Mb genome (negatives); the subsample is the first %s "
          "reads. A true read counts as found when a hit lies on its genome and overlaps its wgsim fragment; "
          "'within k' = reads whose wgsim counts (errors + substitutions + indel events) are <= 15, a lower "
          "bound of their distance. Speed-up = gpuasm's reads/s on all %s reads over the tool's reads/s. "
          "edlib and gpuasm's CPU backend ran on the subsample only (their full runs would take minutes); "
          "their reads/s are per read and carry over to the full set.\n"
          % (fi(p2_reads), fi(p2_sub), fi(p2_reads)))
md.append(md_table(P2_HEAD, p2_rows))
md.append("\nEngine alone (`bench_kernels %s p2 genomes.fa 200000 150 0.04 5`: %s, synthetic 4%%-mutated reads): "
          "%s s, %s TCUPS, %s reads/s.\n" % (dev, eng_desc.group(1) if eng_desc else "n/a", f(eng_s, "{:.3f}"),
                                            f(eng_tcups, "{:.2f}"), f(eng_rps, "{:,.0f}")))
if isinstance(g2stats, dict):
    md.append("\n`--stats` of the full run: " + ", ".join("%s %s" % (k, v) for k, v in g2stats.items()) + "\n")
md.append("\nSubsample, edlib vs gpuasm (%s): %s. --device cpu vs --device %s SAM (without @PG): %s.\n"
          % (dev, cmp_line, dev, cpu_cuda or "n/a"))
md.append("## P3: adapter screen (real MiSeq reads repeated vs bbmap's 158 adapters)\n")
md.append("Reads: trimgalore's illumina_10K.reads1-4000 (4,000 real 150 bp reads) repeated to %s reads, "
          "renamed R<copy>.<name>, one plain FASTQ (%s bytes); the subsamples are its first %s reads (gpuasm) "
          "and first %s reads (cutadapt; the same 4,000 reads repeated, so reads/s compare). "
          "Adapters: bbmap_adapters.fa with header spaces as '_'. gpuasm writes SAM to local disk. cutadapt "
          "trims (the best adapter per read, 3' adapters with partial end matches), which is not the same "
          "search; it is there for scale.\n" % (fi(p3_reads), fi(mint("p3_bytes")), fi(p3_sub), fi(ca_reads)))
md.append(md_table(P3_HEAD, p3_rows))
md.append("\n## P4: share of the ceiling\n")
md.append("Ceiling probe (`tests/bench/ceiling.cu`): one pattern of one word per search, one thread per 4,096-base "
          "segment, 2-bit text (2^30 bases), Peq in shared memory, 128 (32-bit) / 64 (64-bit) patterns per "
          "launch, CUDA events, median of 5 (%s / %s ms); its hit counts were checked against a plain DP on "
          "the CPU: %s.\n" % (f(ceil32_ms, "{:.1f}"), f(ceil64_ms, "{:.1f}"), ceil_check or "n/a"))
md.append(md_table(P4_HEAD, p4_rows))
if ceil32:
    md.append("\nScale: P1 at m = 32 is 2 x 32 x 4 Mi = %.2g cells, %.3g us at the 32-bit ceiling's rate, so fixed "
              "costs per scan (launches, copies, hits back) bound its TCUPS; at m = 1024 it is %.2g cells, %.3g us "
              "at the best ceiling.\n" % (2 * 32 * 4194304, 2 * 32 * 4194304 / (ceil32 * 1e12) * 1e6,
                                         2 * 1024 * 4194304, 2 * 1024 * 4194304 / (ceil_max * 1e12) * 1e6))
# The gaps of missed targets, written by the developers from this run's
# numbers and profiles (tests/bench/gaps.md); kept beside the generated text.
gaps = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gaps.md")
if os.path.exists(gaps):
    with open(gaps) as fg:
        md.append("\n" + fg.read())
if notes:
    md.append("\n## Notes from the run\n")
    md.append("".join("* %s\n" % n for n in notes))
md.append("\n## Commands\n")
workdir, logsdir = meta.get("workdir"), meta.get("logsdir")


def short(c):
    # scratch and log folders of the run as $WORK and $OUT
    if workdir:
        c = c.replace(workdir, "$WORK")
    if logsdir:
        c = c.replace(logsdir, "$OUT")
    return c


md.append("Run on the GPU machine from the top of the tree, after `tests/gpu/run` built gpuasm with CUDA "
          "(carry `.peers` and `.shared-data`): `bash tests/bench/run`. It ran, in this order:\n\n```\n"
          + "".join("%s\n" % short(c[1] if len(c) == 2 else c[0]) for c in cmds) + "```\n")
md.append("Peak RSS is measured by %s.\n" % (
    "/usr/bin/time" if any((jload(os.path.basename(x)) or {}).get("maxrss_by") == "/usr/bin/time"
                           for x in glob.glob(path("*.time.json")))
    else "getrusage(RUSAGE_CHILDREN), which includes the ~15 MB of the forked Python wrapper"))
with open(out_md, "w") as fo:
    fo.write("\n".join(x.rstrip("\n") + "\n" for x in md))

# the summary, printed last
print()
print("== gpuasm benchmarks: %s | %s | commit %s" % (meta.get("gpu", "?"), meta.get("date", "?"),
                                                       meta.get("commit", "?")))
print("P1 (4 Mi random text, k = m/10; gpuasm both strands, edlib/paper one strand)")
print(txt_table(["m", "gpuasm ms", "TCUPS", "edlib ms", "x edlib/strand", "D*", "gpuasm ms k=D*", "GTX580 ms",
                 "x paper/strand"],
                [[r[0], r[2], r[4], r[5], r[6], r[7], r[9], r[10], r[11]] for r in p1_rows]))
print("P2 (virus screen)")
print(txt_table(["tool", "reads", "s", "reads/s", "RSS MB", "recall", "neg", "speed-up"],
                [[r[0], r[1], r[2], r[3], r[4], r[5], r[7], r[8]] for r in p2_rows]))
print("  engine: %s TCUPS; --stats kernel: %s TCUPS; subsample edlib vs gpuasm: %s" % (
    f(eng_tcups, "{:.2f}"), f(stats_tcups, "{:.2f}"), cmp_line))
print("P3 (adapter screen)")
print(txt_table(P3_HEAD, p3_rows))
print("P4 (ceiling: %s / %s TCUPS, check %s)" % (f(ceil32, "{:.2f}"), f(ceil64, "{:.2f}"), ceil_check or "n/a"))
print(txt_table(P4_HEAD, p4_rows[2:]))
print("Targets")
print(txt_table(["target", "measured", "status"], targets))
for n in notes:
    print("note: " + n)
