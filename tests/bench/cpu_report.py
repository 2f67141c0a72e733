#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cpu_report.py LOGS BENCHMARKS.md -- the tables of tests/bench/cpu.

Reads LOGS/meta.tsv, runs.tsv (one timed run a line: task, tool, round,
reads, timeit JSON, answers file, load average before the run),
answers.tsv (task, tool, cpu_peers.py compare JSON) and scaling.tsv; writes
LOGS/cpu.md and puts it into BENCHMARKS.md as the section "## CPU backend
(issue #13): CPU MODEL, N cores" (replacing the one of the same machine, or
appended).  Prints the tables.

Per task and tool: the median wall time of the rounds, reads/s (reads over
that median), reads/s per core (divided by the threads every tool was
given), reads per CPU second (reads over the median user + sys time: the
figure a busy shared machine disturbs least), the largest peak RSS, and the
answers against edlib's (the exact reference) on edlib's reads: pairs
with the same best distance / edlib's pairs, and any missing, extra or
other-distance pairs.
"""
import json
import os
import statistics
import sys

NAMES = {
    "gpuasm": "gpuasm-scan --device cpu --overlap full (whole patterns, as Sassy and edlib)",
    "gpuasm_avx2": "gpuasm-scan --device cpu --overlap full, GPUASM_CPU_SIMD=2 (AVX2)",
    "gpuasm_partial": "gpuasm-scan --device cpu --best (partial adapters at the ends, cutadapt's question)",
    "sassy": "Sassy (Python API, search_many)",
    "edlib": "edlib (Python, HW mode; first reads only)",
    "bbduk": "BBDuk (k-mer filter, not the same search)",
    "seal": "Seal (k-mer matching, not the same search)",
    "cutadapt": "cutadapt -e 0.1 (3' trimming; first reads only)",
    "minimap2": "minimap2 -x sr (mapping, not the same search)",
}
TASKS = {
    "virus": "Virus screen: real Hm2 reads (2 x 101 bp, repeated) vs measles, ebola, phiX, lambda",
    "wgsim": "wgsim screen: 150-bp reads, half from the four genomes (1% errors, 3% mutations), half random",
    "adapters": "Adapter screen: real illumina_10K reads (150 bp, repeated) vs the 158 bbmap adapters",
}


def load_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def main(logs, bench_md):
    meta = {r[0]: r[1] if len(r) > 1 else "" for r in load_tsv(os.path.join(logs, "meta.tsv"))}
    threads = int(meta.get("threads", "1") or 1)
    runs = {}
    for task, tool, rnd, reads, js, ans, load in load_tsv(os.path.join(logs, "runs.tsv")):
        try:
            j = json.load(open(js))
        except (OSError, ValueError):
            continue
        r = runs.setdefault((task, tool), {"reads": int(reads), "wall": [], "cpu": [], "rss": [],
                                           "load": [], "failed": 0})
        if j.get("rc") != 0:
            r["failed"] += 1
            continue
        r["wall"].append(j["wall_s"])
        r["cpu"].append(j["user_s"] + j["sys_s"])
        r["rss"].append(j["maxrss_kb"])
        r["load"].append(float(load))
    answers = {(t, tool): json.loads(js) for t, tool, js in load_tsv(os.path.join(logs, "answers.tsv"))}

    out = []
    out.append("## CPU backend (issue #13): %s" % meta.get("cpu", "?"))
    out.append("")
    out.append("`tests/bench/cpu` at %s, %s; %s; SIMD level gpuasm picked: **%s**; every tool "
               "given %d thread%s; %s rounds, tools in a rotating order, medians.  "
               "Peers: Sassy %s, edlib %s, cutadapt %s, bbmap %s, minimap2 %s." % (
                   meta.get("commit", "?"), meta.get("date", "?"), meta.get("os", "?"),
                   meta.get("simd", "?"), threads, "s" if threads > 1 else "", meta.get("reps", "?"),
                   meta.get("sassy") or "-", meta.get("edlib") or "-", meta.get("cutadapt") or "-",
                   meta.get("bbmap") or "-", meta.get("minimap2") or "-"))
    out.append("reads/s per core = reads / median wall / threads; reads per CPU-s = reads / median "
               "(user + sys): the machine is shared, so the load average (1 min, before each run) is "
               "given, and per-CPU-second figures are the steadier ones.  Answers: (read, target) "
               "pairs with a hit and their best distance, against edlib's on the first %s reads." % (
                   meta.get("edlib_reads_virus", "?")))
    for task in ("virus", "wgsim", "adapters"):
        rows = [(tool, r) for (t, tool), r in runs.items() if t == task]
        if not rows:
            continue
        out.append("")
        out.append("### %s (%s reads)" % (TASKS[task], meta.get("reads_" + task, "?")))
        out.append("")
        out.append("| tool | reads | wall s | reads/s | reads/s per core | reads per CPU-s | peak RSS MB "
                   "| load | answers vs edlib |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        order = list(NAMES)
        rows.sort(key=lambda x: order.index(x[0]) if x[0] in order else 99)
        per_core = {}
        for tool, r in rows:
            if not r["wall"]:
                out.append("| %s | %d | failed | | | | | | |" % (NAMES.get(tool, tool), r["reads"]))
                continue
            wall = statistics.median(r["wall"])
            cpu = statistics.median(r["cpu"])
            rps = r["reads"] / wall
            per_core[tool] = (rps / threads, r["reads"] / cpu if cpu > 0 else 0.0)
            a = answers.get((task, tool))
            if a:
                ans = "%d / %d same" % (a["same"], a["ref_pairs"])
                extra = [("%d missing" % a["missing"]) if a["missing"] else "",
                         ("%d extra" % a["extra"]) if a["extra"] else "",
                         ("%d other distance" % a["other_distance"]) if a["other_distance"] else ""]
                extra = [x for x in extra if x]
                if extra:
                    ans += " (" + ", ".join(extra) + ")"
            elif tool == "edlib":
                ans = "the reference"
            else:
                ans = "-"
            out.append("| %s | %d | %.3f | %.0f | %.0f | %.0f | %.0f | %.1f | %s |" % (
                NAMES.get(tool, tool), r["reads"], wall, rps, rps / threads,
                r["reads"] / cpu if cpu > 0 else 0, max(r["rss"]) / 1024, statistics.median(r["load"]),
                ans + ("" if not r["failed"] else " (%d failed runs)" % r["failed"])))
        g = per_core.get("gpuasm")
        ratios = []
        for peer in ("sassy", "edlib", "bbduk", "seal", "cutadapt", "minimap2"):
            if g and peer in per_core and per_core[peer][0] > 0:
                ratios.append("%.1fx %s (%.1fx per CPU-s)" % (
                    g[0] / per_core[peer][0], peer,
                    g[1] / per_core[peer][1] if per_core[peer][1] > 0 else 0))
        if ratios:
            out.append("")
            out.append("gpuasm-scan reads/s per core: " + ", ".join(ratios) + ".")
    scal = load_tsv(os.path.join(logs, "scaling.tsv"))
    if scal:
        out.append("")
        out.append("### Threads (gpuasm-scan --device cpu -@ N, the inputs above concatenated)")
        out.append("")
        out.append("| task | reads | -@ | wall s | reads/s | speed-up over -@ 1 | reads/s per thread | load |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
        by = {}
        for task, t, rnd, reads, js, load in scal:
            try:
                j = json.load(open(js))
            except (OSError, ValueError):
                continue
            if j.get("rc") == 0:
                e = by.setdefault((task, int(t)), {"reads": int(reads), "wall": [], "load": []})
                e["wall"].append(j["wall_s"])
                e["load"].append(float(load))
        for task in ("virus", "adapters"):
            base = None
            for t in sorted(x[1] for x in by if x[0] == task):
                e = by[(task, t)]
                w = statistics.median(e["wall"])
                if base is None:
                    base = w * t if t != 1 else w
                out.append("| %s | %d | %d | %.2f | %.0f | %.2f | %.0f | %.1f |" % (
                    task, e["reads"], t, w, e["reads"] / w, base / w, e["reads"] / w / t,
                    statistics.median(e["load"])))
    text = "\n".join(out) + "\n"
    with open(os.path.join(logs, "cpu.md"), "w") as f:
        f.write(text)
    print(text)
    # BENCHMARKS.md: replace the section of this machine (the same heading:
    # CPU model and cores) or append it, so each machine keeps its table.
    put_section(bench_md, out[0], text)


def put_section(bench_md, heading, text):
    """Replace the section of BENCHMARKS.md whose "## " line is heading by
    text (which starts with it), or append text (also tests/bench/scale_report.py)."""
    old = open(bench_md).read() if os.path.exists(bench_md) else ""
    keep, skipping = [], False
    for line in old.split("\n"):
        if line.startswith("## "):
            skipping = line == heading
        if not skipping:
            keep.append(line)
    body = "\n".join(keep).rstrip("\n")
    with open(bench_md, "w") as f:
        f.write((body + "\n\n" if body else "") + text)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
