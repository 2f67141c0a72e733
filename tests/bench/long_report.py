#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""long_report.py -- the tables of tests/bench/long (issue #11).

  long_report.py LOGS "SECTION TITLE" > long.md
      Reads the logs of one tests/bench/long run (timeit JSON, --stats JSON,
      SAM/TSV/text outputs, meta.tsv) and writes the markdown section.
      Every figure comes from those logs.
  long_report.py --splice BENCHMARKS.md "SECTION TITLE" long.md
      Replaces the section "## SECTION TITLE" of BENCHMARKS.md (up to the
      next "## " heading) with long.md, or appends it.

Recall (L2): the read names of make_long.py reads give genome, start,
length and strand; a tool "found" a read when one of its records (SAM) or
lines (edlib TSV) is on the read's genome and overlaps its fragment.
"""
import json
import os
import re
import sys

NAME = re.compile(r"^g(\d+)_(\d+)_(\d+)_(\d+)_([+-])_([\d.]+)$")


def load(logs, name):
    try:
        with open(os.path.join(logs, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def meta(logs):
    m = {}
    try:
        with open(os.path.join(logs, "meta.tsv")) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("\t")
                m[k] = v
    except OSError:
        pass
    return m


def sam_records(path):
    """(qname, flag, rname, pos, cigar, tags) of every mapped record."""
    try:
        f = open(path)
    except OSError:
        return
    with f:
        for line in f:
            if line.startswith("@"):
                continue
            x = line.rstrip("\n").split("\t")
            flag = int(x[1])
            if flag & 4:
                continue
            tags = dict((t[:2], t[5:]) for t in x[11:])
            yield x[0], flag, x[2], int(x[3]), x[5], tags


def ref_len(cigar):
    return sum(int(n) for n, op in re.findall(r"(\d+)([MDN=X])", cigar))


def edlib_scores(path):
    """edlib-aligner output: the score of each query, in order ("score = N"
    with -p, "#I: N ..." without)."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return []
    found = re.findall(r"score = (-?\d+)", text) or re.findall(r"(?m)^#\d+: (-?\d+)", text)
    return [int(m) for m in found]


def fmt_s(j):
    if not j:
        return "-"
    if j.get("timed_out"):
        return "timed out"
    if j.get("rc"):
        return "failed (%d)" % j["rc"]
    return "%.2f" % j["wall_s"]


def fmt_mb(j):
    return "%.1f" % (j["maxrss_kb"] / 1024.0) if j and not j.get("rc") else "-"


def ok_run(j):
    return j is not None and not j.get("rc") and not j.get("timed_out")


def l1(logs, out, goals):
    g4, g1, ep = load(logs, "l1.gpuasm4.json"), load(logs, "l1.gpuasm1.json"), load(logs, "l1.edlib_path.json")
    if not g4:
        return
    nm = {}
    for q, flag, _r, _p, _c, tags in sam_records(os.path.join(logs, "l1.gpuasm4.sam")):
        if not flag & 256:
            nm[q] = int(tags["NM"])
    names = sorted(nm) if nm else []
    escore = edlib_scores(os.path.join(logs, "l1.edlib_path.out"))
    st = load(logs, "l1.gpuasm4.stats.json") or {}
    out.append("### L1: the issue's 20 kb reads against lambda (48,502 bp), -e 0.15, one thread\n")
    out.append("Reads: lambda's first 20,000 bases with 5, 6.5, 8 and 10% nanopore-like edits "
               "(`make_long.py mutate`). gpuasm-scan `--device cpu -e 0.15` (both strands); "
               "edlib `edlib-aligner -m HW -p` (distance, then the path; forward strand).\n")
    out.append("| read | edlib HW distance | gpuasm NM |")
    out.append("|---|---|---|")
    order = ["lam20k_0.05", "lam20k_0.065", "lam20k_0.08", "lam20k_0.10"]
    for i, q in enumerate(order):
        out.append("| %s | %s | %s |" % (q, escore[i] if i < len(escore) else "-", nm.get(q, "no hit")))
    out.append("")
    out.append("| run | wall s | peak RSS MB |")
    out.append("|---|---|---|")
    out.append("| gpuasm-scan, 4 reads (scan %.3f s of it) | %s | %s |"
               % (st.get("scan_s", float("nan")), fmt_s(g4), fmt_mb(g4)))
    out.append("| gpuasm-scan, the 5%% read alone | %s | %s |" % (fmt_s(g1), fmt_mb(g1)))
    out.append("| edlib HW with path, 4 reads | %s | %s |" % (fmt_s(ep), fmt_mb(ep)))
    out.append("")
    if ok_run(g1):
        goals.append(("the 20 kb read vs lambda in under a second (CPU)",
                      "%.2f s alone; %.2f s for all 4 (%.2f s per read)" % (
                          g1["wall_s"], g4["wall_s"], g4["wall_s"] / 4),
                      "met" if g1["wall_s"] < 1 else "missed"))
    same = all(i < len(escore) and nm.get(q) == escore[i] for i, q in enumerate(order))
    goals.append(("L1 distances equal edlib's", "%d reads" % len(names), "met" if same else "missed"))


def truth(name, targets):
    m = NAME.match(name)
    if not m:
        return None
    gi, _r, start, ln, strand, _rate = m.groups()
    return targets[int(gi)], int(start), int(ln)


def l2(logs, out, goals, m):
    with open(os.path.join(logs, "l2.targets.txt")) as f:
        targets = [l.strip() for l in f if l.strip()]
    reads = set()
    gj, ej, mj = load(logs, "l2.gpuasm.json"), load(logs, "l2.edlib.json"), load(logs, "l2.minimap2.json")
    found = {"gpuasm": set(), "minimap2": set(), "edlib": set()}
    best = {}
    partial = set()   # (read, genome) pairs with a partial occurrence (XP tag) at a genome end
    for q, flag, r, pos, cig, tags in sam_records(os.path.join(logs, "l2.gpuasm.sam")):
        reads.add(q)
        t = truth(q, targets)
        if "XP" in tags:
            # a read running off a genome's end (issue #9): edlib's HW mode
            # does not search these, so they are counted apart
            partial.add((q, r))
        elif not flag & 256 or (q, r) not in best:
            best[(q, r)] = int(tags["NM"])
        if t and r == t[0] and pos - 1 < t[1] + t[2] and t[1] < pos - 1 + ref_len(cig):
            found["gpuasm"].add(q)
    for q, flag, r, pos, cig, _tags in sam_records(os.path.join(logs, "l2.minimap2.sam")):
        t = truth(q, targets)
        if t and r == t[0] and pos - 1 < t[1] + t[2] and t[1] < pos - 1 + ref_len(cig):
            found["minimap2"].add(q)
    epairs = {}
    try:
        with open(os.path.join(logs, "l2.edlib.tsv")) as f:
            for line in f:
                q, r, _s, d, end = line.rstrip("\n").split("\t")[:5]
                epairs[(q, r)] = int(d)
                t = truth(q, targets)
                if t and r == t[0] and t[1] <= int(end) <= t[1] + int(1.3 * t[2]):
                    found["edlib"].add(q)
    except OSError:
        pass
    n = int(m.get("reads", "0") or 0)
    st = load(logs, "l2.gpuasm.stats.json") or {}
    out.append("### L2: %d nanopore-like reads vs measles, Ebola, phiX, lambda (88,654 bp), -e 0.2, "
               "both strands, %s threads\n" % (n, m.get("threads", "?")))
    out.append("Reads: `make_long.py reads` (seed 11): 10 kb fragments (phiX: 4,847 bases, 90% of "
               "it) at a uniform start and strand, per-read error rate uniform in 5-15%, edits 40% "
               "substitutions, 30% insertions of 1-3 bases, 30% deletions. k = floor(0.2 m) covers "
               "15%. Found: a hit on the read's genome overlapping its fragment. edlib "
               "(`tests/bench/edlib_hw screen`, distance only) is the exact reference: every "
               "(read, genome) pair within k, with its distance.\n")
    out.append("| tool | wall s | reads/s | peak RSS MB | reads found | agreement with edlib |")
    out.append("|---|---|---|---|---|---|")
    agree = "-"
    if epairs:
        same = sum(1 for k, d in epairs.items() if best.get(k) == d)
        extra = sum(1 for k in best if k not in epairs)
        agree = ("%d of %d edlib pairs, same distance; %d full hits edlib lacks; %d pairs with a partial "
                 "occurrence at a genome end (not searched by edlib)" % (same, len(epairs), extra, len(partial)))
        goals.append(("L2 gpuasm's (read, genome) distances equal edlib's (full hits)",
                      "%d of %d, %d extra (%d partial occurrences apart)" % (same, len(epairs), extra, len(partial)),
                      "met" if same == len(epairs) and extra == 0 else "missed"))
    for tool, j in (("gpuasm-scan --device %s" % m.get("device", "?"), gj), ("edlib HW", ej),
                    ("minimap2 -x map-ont", mj)):
        key = tool.split()[0].replace("-scan", "").replace("gpuasm", "gpuasm")
        key = "gpuasm" if key.startswith("gpuasm") else ("edlib" if key == "edlib" else "minimap2")
        rps = "%.1f" % (n / j["wall_s"]) if ok_run(j) and j["wall_s"] > 0 else "-"
        out.append("| %s | %s | %s | %s | %d of %d | %s |" % (
            tool, fmt_s(j), rps, fmt_mb(j), len(found[key]), n, agree if key == "gpuasm" else "-"))
    out.append("")
    if st:
        out.append("gpuasm --stats: scan %.2f s (kernel %.2f s), %.3g cells, %.4f TCUPS.\n" % (
            st.get("scan_s", 0), st.get("kernel_s", 0), st.get("cells", 0), st.get("kernel_tcups", 0)))
    if st and st.get("ends_kernel_s", 0) > 0:
        # CUDA: the ends pass's span (on its own stream, beside the search
        # kernels, inside kernel_s), its own cells (m x W per (pair, strand,
        # end), --stats ends_cells)
        out.append("The ends pass (reads running off a genome's end) runs beside the search kernel on a "
                   "stream of its own: its span %.3f s of the %.3f s kernel time, %.3g cells, %.2f TCUPS "
                   "over its span.\n" % (st["ends_kernel_s"], st.get("kernel_s", 0), st.get("ends_cells", 0),
                                         st.get("ends_tcups", 0)))
    if m.get("device", "cpu") != "cpu":
        gpu_rows(logs, out, goals, n, st)
    if ok_run(gj) and ok_run(mj) and m.get("device", "cpu") != "cpu":
        goals.append(("L2 gpuasm recall >= minimap2's", "%d vs %d of %d" % (
            len(found["gpuasm"]), len(found["minimap2"]), n),
            "met" if len(found["gpuasm"]) >= len(found["minimap2"]) else "missed"))
        goals.append(("L2 gpuasm faster end to end than minimap2 -x map-ont", "%.2f s vs %.2f s" % (
            gj["wall_s"], mj["wall_s"]), "met" if gj["wall_s"] < mj["wall_s"] else "missed"))


def read_text(logs, name):
    try:
        with open(os.path.join(logs, name)) as f:
            return f.read().strip()
    except OSError:
        return ""


def gpu_rows(logs, out, goals, n, st):
    """The CUDA run's A/B (GPUASM_CUDA_LONG=0), the CPU SAM comparison and the
    kernel rate against this run's P2 engine rate."""
    sj, cj = load(logs, "l2.gpuasm_simple.json"), load(logs, "l2.gpuasm_cpu.json")
    ss = load(logs, "l2.gpuasm_simple.stats.json") or {}
    cs = load(logs, "l2.gpuasm_cpu.stats.json") or {}
    out.append("The table's gpuasm row is the LONG path (`GPUASM_CUDA_LONG=1`). The same reads:\n")
    out.append("| run | wall s | scan s | kernel s | kernel TCUPS | SAM vs the LONG run (@PG aside) |")
    out.append("|---|---|---|---|---|---|")
    for name, j, x, cmpf in (("--device cuda, GPUASM_CUDA_LONG=0 (simple kernel for m > 4,096)", sj, ss, "l2.cmp_simple.txt"),
                             ("--device cpu", cj, cs, "l2.cmp_cpu.txt")):
        out.append("| %s | %s | %s | %s | %s | %s |" % (
            name, fmt_s(j), "%.2f" % x["scan_s"] if "scan_s" in x else "-",
            "%.2f" % x["kernel_s"] if "kernel_s" in x else "-",
            "%.4f" % x["kernel_tcups"] if "kernel_tcups" in x else "-",
            (read_text(logs, cmpf) or "-") if ok_run(j) else "-"))
    out.append("")
    p2 = read_text(logs, "l2.p2engine.txt")
    mt = re.search(r"\t([0-9.]+) TCUPS", p2)
    mk = re.search(r"\t([0-9.]+) kernel_s", p2)
    mc = re.search(r"\t([0-9.e+]+) cells", p2)
    p2k = float(mc.group(1)) / float(mk.group(1)) / 1e12 if mc and mk and float(mk.group(1)) > 0 else None
    if p2:
        out.append("P2 engine in this run (`bench_kernels p2`, 200,000 reads of 150 bp vs the four "
                   "genomes): %s TCUPS per call, %s TCUPS of kernel time.\n" % (
                       mt.group(1) if mt else "?", "%.2f" % p2k if p2k else "?"))
    if st and p2k:
        r = st.get("kernel_tcups", 0) / p2k
        goals.append(("L2 kernel cells/s >= 50% of the P2 kernel rate (same run)",
                      "%.2f vs %.2f TCUPS (%.0f%%)" % (st.get("kernel_tcups", 0), p2k, 100 * r),
                      "met" if r >= 0.5 else "missed"))
        if st.get("ends_kernel_s", 0) > 0:
            r = st.get("ends_tcups", 0) / p2k
            goals.append(("L2 the ends pass: its cells/s over its span >= 50% of the P2 kernel rate (same run)",
                          "%.2f vs %.2f TCUPS (%.0f%%)" % (st.get("ends_tcups", 0), p2k, 100 * r),
                          "met" if r >= 0.5 else "missed"))
    for v, what, j in (("cpu", "--device cpu", cj), ("simple", "the old routing (GPUASM_CUDA_LONG=0)", sj)):
        c = read_text(logs, "l2.cmp_%s.txt" % v)
        if c and not ok_run(j):
            goals.append(("L2 CUDA LONG SAM = %s SAM, byte for byte" % what,
                          "not compared: that run did not finish", "not run"))
        elif c:
            goals.append(("L2 CUDA LONG SAM = %s SAM, byte for byte" % what, c,
                          "met" if c == "same" else "missed"))


def l3(logs, out, goals):
    gj = load(logs, "l3.gpuasm.json")
    if not gj:
        return
    ep, ed = load(logs, "l3.edlib_path.json"), load(logs, "l3.edlib_dist.json")
    st = load(logs, "l3.gpuasm.stats.json") or {}
    nm, ncig = None, 0
    for _q, flag, _r, _p, cig, tags in sam_records(os.path.join(logs, "l3.gpuasm.sam")):
        if not flag & 256:
            nm, ncig = int(tags["NM"]), len(re.findall(r"[MIDS]", cig))
    sp, sd = edlib_scores(os.path.join(logs, "l3.edlib_path.out")), edlib_scores(os.path.join(logs, "l3.edlib_dist.out"))
    try:
        with open(os.path.join(logs, "l3.pair.txt")) as f:
            pair = f.read().strip()
    except OSError:
        pair = ""
    out.append("### L3: 1 Mb vs 1 Mb, one thread\n")
    out.append("`make_long.py pair 1000000 0.01 11` (%s): the copy is the read. gpuasm-scan with "
               "its defaults (`--device cpu`, -e 0.1: k = 99,998), both strands, alignment and "
               "SAM; edlib-aligner -m HW one strand, with the path (`-p`) and without.\n" % pair)
    out.append("| run | wall s | peak RSS MB | distance |")
    out.append("|---|---|---|---|")
    out.append("| gpuasm-scan (scan %.1f s, traceback and the rest %.1f s; %d CIGAR ops) | %s | %s | %s |" % (
        st.get("scan_s", float("nan")), st.get("wall_s", float("nan")) - st.get("scan_s", float("nan")),
        ncig, fmt_s(gj), fmt_mb(gj), nm))
    out.append("| edlib HW with path | %s | %s | %s |" % (fmt_s(ep), fmt_mb(ep), sp[0] if sp else "-"))
    out.append("| edlib HW distance only | %s | %s | %s |" % (fmt_s(ed), fmt_mb(ed), sd[0] if sd else "-"))
    out.append("")
    if ok_run(gj) and ok_run(ep):
        goals.append(("1 Mb vs 1 Mb with alignment in <= edlib's time (HW with path, same run)",
                      "%.1f s vs %.1f s (%.2fx)" % (gj["wall_s"], ep["wall_s"], ep["wall_s"] / gj["wall_s"]),
                      "met" if gj["wall_s"] <= ep["wall_s"] else "missed"))
    if ok_run(gj):
        goals.append(("1 Mb vs 1 Mb peak RSS <= 100 MB", "%.1f MB" % (gj["maxrss_kb"] / 1024.0),
                      "met" if gj["maxrss_kb"] <= 100 * 1024 else "missed"))
    if nm is not None and sp:
        goals.append(("1 Mb distance equals edlib's", "%d vs %d" % (nm, sp[0]), "met" if nm == sp[0] else "missed"))


def report(logs, title):
    m = meta(logs)
    out, goals = [], []
    l1(logs, out, goals)
    l2(logs, out, goals, m)
    l3(logs, out, goals)
    head = ["## %s" % title, "",
            "Generated by `tests/bench/long` (issue #11). Every figure comes from that run's logs; "
            "timings are never tests.", "",
            "| | |", "|---|---|"]
    for k in ("date", "commit", "cpu", "load", "threads", "gpuasm", "edlib", "minimap2"):
        if k in m:
            head.append("| %s | %s |" % (k if k != "load" else "load average at start", m[k]))
    if "lscpu" in m:
        head.append("| lscpu | %s |" % m["lscpu"].replace("|", "/"))
    head.append("")
    if goals:
        head += ["| goal | measured | status |", "|---|---|---|"]
        head += ["| %s | %s | %s |" % g for g in goals]
        head.append("")
    notes = os.path.join(logs, "notes.txt")
    tail = []
    if m.get("device", "cpu") == "cpu":
        tail = ["The GPU half of issue #11's benchmark (1,000 reads of 10 kb on the device, "
                "minimap2 -x map-ont and edlib beside it) is `tests/bench/long --device cuda` on "
                "the GPU machine: its own section, \"Long sequences (GPU)\".", ""]
    if os.path.exists(notes) and os.path.getsize(notes):
        with open(notes) as f:
            tail += ["Notes from the run:", ""] + ["* " + l.strip() for l in f if l.strip()] + [""]
    print("\n".join(head + out + tail))


def splice(bench_md, title, part):
    with open(part) as f:
        new = f.read().rstrip("\n") + "\n"
    try:
        with open(bench_md) as f:
            lines = f.read().split("\n")
    except OSError:
        lines = []
    head = "## " + title
    if head in lines:
        a = lines.index(head)
        b = next((i for i in range(a + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        text = "\n".join(lines[:a]) + ("\n" if a else "") + new + ("\n" + "\n".join(lines[b:]) if b < len(lines) else "")
    else:
        text = "\n".join(lines).rstrip("\n") + "\n\n" + new
    with open(bench_md, "w") as f:
        f.write(text)


def main(argv):
    if len(argv) == 5 and argv[1] == "--splice":
        splice(argv[2], argv[3], argv[4])
        return 0
    if len(argv) != 3:
        sys.exit(__doc__)
    report(argv[1], argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
