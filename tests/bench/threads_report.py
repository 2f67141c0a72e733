#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""threads_report.py LOGS -- the table of tests/bench/threads (issue #13).

Reads LOGS/meta.tsv, LOGS/runs.tsv (kind, threads, timeit JSON, --stats
JSON) and LOGS/readpass.txt; prints Markdown: one row per -@ T (wall,
speed-up over -@ 1, CPU use = (user + sys) / (wall x T), the stage keys),
then the host's ceiling (T independent -@ 1 processes on T equal parts:
the single-thread wall of the whole input over the time until the last
part ended), the register-only probe (LOGS/probe.tsv: cpu_probe alone and
as T copies at once) and the htslib read pass.  Every figure is from these logs.
"""
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main(logs):
    meta = dict(l.rstrip("\n").split("\t", 1) for l in open(os.path.join(logs, "meta.tsv")) if "\t" in l)
    runs = [l.rstrip("\n").split("\t") for l in open(os.path.join(logs, "runs.tsv")) if l.strip()]
    simd = "?"
    for kind, t, tj, sj in runs:
        st = load(sj) if kind == "threads" else None
        if st and st.get("simd"):
            simd = st["simd"]
            break
    out = []
    out.append("Host: %s, %s CPUs, %s thread(s) per core, SIMD level gpuasm picked: %s; commit %s; %s reads "
               "(illumina_10K repeated) vs the 158 bbmap adapters, whole occurrences, SAM to /dev/null; %s." % (
                   meta.get("cpu", "?"), meta.get("cpus", "?"), meta.get("threads_per_core", "?"), simd,
                   meta.get("commit", "?"), meta.get("reads", "?"), meta.get("date", "?")))
    out.append("")
    out.append("| -@ | wall s | speed-up | CPU use | user s | read_s | encode_s | report_s (summed) | "
               "first scan at s | last scan end s |")
    out.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    base = None
    for kind, t, tj, sj in runs:
        if kind != "threads":
            continue
        tm, st = load(tj), load(sj)
        if not tm or tm.get("rc") != 0 or not st:
            out.append("| %s | failed | | | | | | | | |" % t)
            continue
        t = int(t)
        w = tm["wall_s"]
        if t == 1:
            base = w
        use = (tm["user_s"] + tm["sys_s"]) / (w * t) if w > 0 else 0
        out.append("| %d | %.2f | %s | %.0f%% | %.1f | %.2f | %.2f | %.2f | %.3f | %.2f |" % (
            t, w, "%.2fx" % (base / w) if base else "-", 100 * use, tm["user_s"], st.get("read_s", 0),
            st.get("encode_s", 0), st.get("report_s", 0), st.get("first_scan_at") or 0,
            st.get("last_scan_end_at") or 0))
    alone = [load(tj) for kind, t, tj, sj in runs if kind == "alone"]
    conc = [load(tj) for kind, t, tj, sj in runs if kind == "concurrent"]
    conc = [c for c in conc if c and c.get("rc") == 0]
    out.append("")
    if alone and alone[0] and conc and base:
        a = alone[0]["wall_s"]
        last = max(c["wall_s"] for c in conc)
        mean = sum(c["wall_s"] for c in conc) / len(conc)
        out.append("Host ceiling: %d independent `-@ 1` processes on %d equal parts of the input, started "
                   "together: the last ended after %.2f s (mean %.2f s); one part alone: %.2f s. So %d "
                   "cores give %.1fx the single-thread run (%.2f s / %.2f s), not %dx: each copy runs "
                   "%.2fx slower beside the others (all-core clock, shared caches and memory)." % (
                       len(conc), len(conc), last, mean, a, len(conc), base / last, base, last,
                       len(conc), mean / a))
        out.append("")
    # cpu_probe rows: when, copies, "cpu_probe", seconds, checksum bit.
    probe = {}
    try:
        for l in open(os.path.join(logs, "probe.tsv")):
            f = l.rstrip("\n").split("\t")
            if len(f) >= 4 and f[2] == "cpu_probe":
                probe.setdefault((f[0], int(f[1])), []).append(float(f[3]))
    except OSError:
        pass
    for when in ("before", "after"):
        one = probe.get((when, 1))
        many = [v for (w, n), v in probe.items() if w == when and n > 1]
        if not one or not many:
            continue
        many = many[0]
        n = len(many)
        out.append("Register-only work (tests/bench/cpu_probe, %s the runs): one copy alone %.2f s; %d copies "
                   "at once: the last ended after %.2f s (mean %.2f s), so %d cores give %.1fx one core to "
                   "work that shares no memory at all." % (
                       when, one[0], n, max(many), sum(many) / n, n, n * one[0] / max(many)))
        out.append("")
    rp = []
    try:
        for l in open(os.path.join(logs, "readpass.txt")):
            f = l.split("\t")
            if len(f) >= 4 and f[0] == "readpass":
                rp.append(float(f[3].split()[0]))
    except OSError:
        pass
    if rp:
        out.append("htslib read pass of the whole input (tests/bench/readpass, one thread): %s s: "
                   "the floor of the one reader thread." % " and ".join("%.2f" % x for x in rp))
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
