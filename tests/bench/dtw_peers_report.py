#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""dtw_peers_report.py -- tests/bench/signal's rows for the GPU DTW peers:
reads tests/bench/dtw_peers' TSV lines on stdin and gpuasm-signal's
--stats JSON of the same call (gpu-best: BEST layout, --cost abs), prints
Markdown rows in signal's table columns (run | device | reads | DP cells |
kernel cells/s | reads/s | wall s | scan s | report s | starts CPU s),
then, after a blank line, the verdict of issue #15's goal "faster than
cuDTW++ on the same GPU" and the instructions per cell of the two hot
loops.  A peer that did not build or run gets a row that says so and no
number; a row whose check against the CPU DTW failed is shown but not used
for the verdict.

  dtw_peers_report.py GPU_BEST_STATS.json < dtw_peers.tsv
"""
import json
import sys

NEAREST = 2047   # cuDTW++'s query length nearest the benchmark's 2,000 samples


def main():
    ours = None
    try:
        s = json.load(open(sys.argv[1]))
        if s.get("kernel_s", 0) > 0:
            ours = s["cells"] / s["kernel_s"]
    except (OSError, ValueError, KeyError, IndexError):
        pass
    rows, notes, sass, measured = [], [], [], []
    device = None
    for line in sys.stdin:
        f = line.rstrip("\n").split("\t")
        kind = f[0]
        if kind == "dtw_peer_device" and len(f) >= 4:
            device = "%s, %s SMs, %.0f MHz (cudaDevAttrClockRate)" % (f[1], f[2], int(f[3]) / 1e3)
        elif kind == "dtw_peer" and len(f) >= 10:
            _, name, kernel, n, entries, cells, paper, ks, cps, check = f[:10]
            ok = check.startswith("ok")
            label = "%s %s: full DTW, 1 query x %s entries, n = %s, fp32 squared; kernel %.4g s; %s" % (
                name, kernel, entries, n, float(ks), check)
            rows.append("| %s | cuda | %s entries | %.4g | %.4g | - | - | - | - | - |" % (
                label, entries, float(cells), float(cps)))
            if ok:
                measured.append((float(cps), kernel, int(n)))
        elif kind == "dtw_peer_fail" and len(f) >= 4:
            rows.append("| %s (%s): not measured: %s | cuda | - | - | - | - | - | - | - | - |" % (
                f[1], f[2], f[3].replace("|", "/")))
        elif kind == "dtw_peer_skip" and len(f) >= 3:
            notes.append("%s: %s." % (f[1], f[2]))
        elif kind == "sass_loop" and len(f) >= 10:
            sass.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % tuple(f[1:10]))
    for r in rows:
        print(r)
    print()
    if device:
        print("cuDTW++ ran on: %s" % device)
        print()
    near = [m for m in measured if m[2] == NEAREST]
    if ours is None:
        print("faster than cuDTW++ on the same GPU: not decided (no gpu-best kernel cells/s in this call)")
    elif not near:
        print("faster than cuDTW++ on the same GPU: not decided (cuDTW++'s n = %d kernel was not measured "
              "with a passing check in this call)" % NEAREST)
    else:
        c, k, n = near[0]
        print("faster than cuDTW++ on the same GPU: %s (%.2fx: gpu-best %.3g cells/s vs cuDTW++ %s %.3g, "
              "its query length nearest 2,000)" % ("yes" if ours > c else "no", ours / c, ours, k, c))
    if ours is not None and measured:
        c, k, n = max(measured)
        print()
        print("against cuDTW++'s fastest kernel in this call (%s, n = %d, %.3g cells/s): %s (%.2fx)" % (
            k, n, c, "yes" if ours > c else "no", ours / c))
    for note in notes:
        print()
        print(note)
    if sass:
        print()
        print("| hot loop (static SASS count) | instructions | cells per trip | instr/cell | min | arith | mov "
              "| other | top opcodes |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in sass:
            print(r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
