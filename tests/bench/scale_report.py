#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scale_report.py LOGS BENCHMARKS.md -- the tables of tests/bench/scale.

Reads LOGS/meta.tsv, runs.tsv (part, tool, device, parameter, reads, name,
rc: the timed run NAME has NAME.time.json, and gpuasm runs NAME.json, their
--stats), same.tsv (byte comparisons) and the *.score.json recall files;
writes LOGS/scale.md and puts it into BENCHMARKS.md as the section "##
Scale workloads (issue #16): MACHINE" (replacing the one of the same
heading, or appended).

Rates: a gpuasm run's time per read is its --stats scan_s (time inside the
scans: the filter's index build included, reading and writing not) over
its reads; the exhaustive run covers only the first reads (it takes hours
on a CPU), so "speed-up" is the exhaustive time per read over the
filter's; "wall speed-up" compares the whole runs where both took every
read (CUDA).  Wall time is the whole process (bench_data.py timeit).  Cells/s:
the exhaustive search's DP cells (--stats cells: m x n per searched pair
and strand) over scan_s, whatever the filter skipped.
"""
import json
import os
import re
import sys

from cpu_report import put_section   # tests/bench/, beside this script


def load_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def jload(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main(logs, bench_md):
    meta = {r[0]: r[1] if len(r) > 1 else "" for r in load_tsv(os.path.join(logs, "meta.tsv"))}
    runs = {}
    for part, tool, dev, param, reads, name, rc in load_tsv(os.path.join(logs, "runs.tsv")):
        runs[(part, tool, dev, param)] = {
            "reads": int(reads), "name": name, "rc": int(rc),
            "time": jload(os.path.join(logs, name + ".time.json")) or {},
            "stats": jload(os.path.join(logs, name + ".json")) or {}}

    def build_s(r):
        """The index build time of a run (--stats index_build_s; older runs:
        from its filter_plan), 0 without."""
        s = (r or {}).get("stats", {})
        if "index_build_s" in s:
            return float(s["index_build_s"])
        m = re.search(r"MiB, ([0-9.]+) s\)", s.get("filter_plan") or "")
        return float(m.group(1)) if m else 0.0

    def plan_s(r):
        """Host planning of the CUDA lanes (--stats plan_s), 0 without."""
        return float((r or {}).get("stats", {}).get("plan_s", 0.0))

    def per_read(r):
        """scan_s per read, the index build left out (it is shown apart)."""
        s = r["stats"]
        return (s["scan_s"] - build_s(r)) / s["reads"] if s.get("reads") else None

    machine = meta.get("machine", "?")
    if meta.get("gpu"):
        machine += ", " + meta["gpu"]
    # BENCH_SCALE_HEADING: another section (a part run alone must not
    # replace the whole run's tables)
    out = [os.environ.get("BENCH_SCALE_HEADING") or "## Scale workloads (issue #16): %s" % machine, ""]
    out.append("`tests/bench/scale` (commit %s, %s threads; sizes: %s). Exhaustive = "
               "`--filter off` on the first reads only, filter = `--filter auto` on all reads; "
               "per-read times from `--stats` scan_s without the index build (shown apart: once per "
               "run, when the targets are loaded). Peers in the same run." % (meta.get("commit", "?"), meta.get("threads", "?"),
                                            meta.get("sizes", "?")))
    out.append("")
    # bigref
    big = sorted({(k[2], k[3]) for k in runs if k[0] == "bigref" and k[1].startswith("gpuasm")})
    if big:
        out.append("### 150-bp reads vs the four genomes inside a %s reference" %
                   meta.get("sizes", "").split()[0].replace("ref=", "") + " bases")
        out.append("")
        out.append("Filter run's seconds apart (`--stats`): wall (the whole process), index build (once, "
                   "threaded over -@), plan (CUDA: the windows planned on host threads; 0 on the CPU, "
                   "whose walk looks pieces up as it verifies), scan (inside the scan calls, without the "
                   "index build; the plan included).")
        out.append("")
        out.append("| device | e | filter: reads | filter: wall s | index build s | plan s | scan s "
                   "| filter: ms/read | exhaustive: reads | exhaustive: ms/read "
                   "| speed-up | wall speed-up | filter cells/s | filter plan | index strands / declined | recall |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for dev, e in big:
            f = runs.get(("bigref", "gpuasm-filter", dev, e))
            x = runs.get(("bigref", "gpuasm-exhaustive", dev, e))
            if not f:
                continue
            pf, px = per_read(f), per_read(x) if x else None
            s = f["stats"]
            sc = jload(os.path.join(logs, "big.%s.%s.score.json" % (dev, e))) or {}
            rec = next(iter(sc.values()), {}).get("recall") if sc else None
            wf, wx = f["time"].get("wall_s"), x["time"].get("wall_s") if x else None
            out.append("| %s | %s | %d | %s | %.2f | %.2f | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s |" % (
                dev, e, f["reads"], "%.2f" % wf if wf else "-", build_s(f), plan_s(f),
                "%.2f" % (s["scan_s"] - build_s(f)) if s.get("scan_s") else "-",
                "%.3f" % (1e3 * pf) if pf else "failed",
                x["reads"] if x else "-", "%.2f" % (1e3 * px) if px else "-",
                "%.0fx" % (px / pf) if pf and px else "-",
                # whole runs compared only when both ran every read
                "%.1fx" % (wx / wf) if wf and wx and x["reads"] == f["reads"] else "-",
                "%.3g" % (s["cells"] / (s["scan_s"] - build_s(f))) if s.get("scan_s") else "-",
                s.get("filter_plan", "-"), s.get("index_strands", "-"), s.get("index_declined", "-"),
                "%.4f" % rec if rec is not None else "-"))
        mm = runs.get(("bigref", "minimap2", "cpu", "-x sr"))
        if mm:
            sc = jload(os.path.join(logs, "big.minimap2.score.json")) or {}
            rec = next(iter(sc.values()), {}).get("recall") if sc else None
            w = mm["time"].get("wall_s")
            out.append("")
            out.append("minimap2 -x sr (index included, %s threads): %s s wall for %d reads (%.3f ms/read), "
                       "recall %s (reads of the four genomes found at their origin; gpuasm's recall "
                       "in the table counts the same)." % (
                           meta.get("threads", "?"), w, mm["reads"], 1e3 * w / mm["reads"] if w else 0,
                           "%.4f" % rec if rec is not None else "-"))
        out.append("")
    # primers
    pr = sorted({(k[2], k[3]) for k in runs if k[0] == "primers"})
    if pr:
        out.append("### 150-bp reads vs many primers (25 bases, -k 2)")
        out.append("")
        out.append("O=3: the default `--overlap 3` (primers running off a read's ends, cutadapt's -O 3: the "
                   "ends pass, cut by the ends filter of walk/ends_filter.h; \"ends filter off\": "
                   "GPUASM_CPU_ENDS_FILTER=0, the ends pass for every primer, as before it); O=full: whole "
                   "occurrences only. Wall: the whole process (reading, SAM writing included).")
        out.append("")
        out.append("| device | options | filter: reads | filter: reads/s | filter: wall s | exhaustive: reads "
                   "| exhaustive: reads/s | speed-up | filter cells/s | exhaustive cells/s "
                   "| patterns kept / dropped | ends items run / skipped |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for dev, param in pr:
            x = runs.get(("primers", "gpuasm-exhaustive", dev, param))
            for tool, label in (("gpuasm-filter-noends", ", ends filter off"), ("gpuasm-filter", "")):
                f = runs.get(("primers", tool, dev, param))
                if not f:
                    continue
                pf, px = per_read(f), per_read(x) if x else None
                s, sx = f["stats"], x["stats"] if x else {}
                out.append("| %s | %s%s | %d | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s |" % (
                    dev, param, label, f["reads"], "%.0f" % (1 / pf) if pf else "failed",
                    "%.2f" % f["time"]["wall_s"] if f["time"].get("wall_s") else "-", x["reads"] if x else "-",
                    "%.0f" % (1 / px) if px else "-", "%.1fx" % (px / pf) if pf and px else "-",
                    "%.3g" % (s["cells"] / s["scan_s"]) if s.get("scan_s") else "-",
                    "%.3g" % (sx["cells"] / sx["scan_s"]) if sx.get("scan_s") else "-",
                    s.get("pieces_kept", "-"), s.get("pieces_dropped", "-"),
                    s.get("ends_run", "-"), s.get("ends_skipped", "-")))
        out.append("")
    # crossover
    cr = sorted({k[3] for k in runs if k[0] == "cross"}, key=lambda p: (int(p.split(":")[0]), float(p.split(":")[1])))
    if cr:
        out.append("### Crossover: where --filter auto takes the index (CPU)")
        out.append("")
        out.append("150-bp reads, ms per read (scan_s / reads; index build left out) with `--filter off`, "
                   "`on` (the index for every read strand it can cut) and `auto` (the cost model: a read "
                   "strand's candidate windows must cover under a quarter of the text), and what auto chose.")
        out.append("")
        out.append("| reference bases | e | k | off | on | auto | auto: strands via index / searched whole "
                   "| index build s |")
        out.append("|---|---|---|---|---|---|---|---|")
        for p in cr:
            n, e = p.split(":")
            cells = []
            for f in ("off", "on", "auto"):
                r = runs.get(("cross", "gpuasm-" + f, "cpu", p))
                v = per_read(r) if r else None
                cells.append("%.2f" % (1e3 * v) if v else "-")
            a = runs.get(("cross", "gpuasm-auto", "cpu", p))
            s = a["stats"] if a else {}
            out.append("| %s | %s | %d | %s | %s / %s | %.2f |" % (
                n, e, int(float(e) * 150), " | ".join(cells), s.get("index_strands", "-"),
                s.get("index_declined", "-"), build_s(a)))
        out.append("")
    same = load_tsv(os.path.join(logs, "same.tsv"))
    if same:
        bad = [s for s in same if s[1] != "same"]
        out.append("Output checks: %d of %d comparisons byte-identical%s." % (
            len(same) - len(bad), len(same), "" if not bad else "; DIFFERENT: " + "; ".join(s[0] for s in bad)))
        out.append("")
    text = "\n".join(out)
    with open(os.path.join(logs, "scale.md"), "w") as f:
        f.write(text)
    put_section(bench_md, out[0], text)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
