#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cutadapt_compare.py -- gpuasm-scan's adapter hits against a cutadapt info file.

    cutadapt_compare.py [--adapter NAME] [--list N] INFO.tsv[.gz] OUT.sam

INFO: cutadapt --info-file output (one line per read: name, errors (-1: no
match), 0-based start, end (exclusive), before, matched, after, adapter
name, qualities), as ../shared/data/oracles/*.info.tsv.gz.  OUT.sam:
gpuasm-scan --best (at most one record per read) with the read as the text
(the adapter is the pattern).  For each read:

  * flagged: cutadapt found the adapter (errors >= 0) / gpuasm has a record;
  * position: the matched part of the read, [start, end) in the read as
    sequenced: gpuasm's from the CIGAR's soft clips (reversed for FLAG 16);
  * errors: cutadapt's errors, gpuasm's search distance (XD if present,
    else NM; both count IUPAC matches as matches).
Read names are compared without a trailing /1 or /2 (gpuasm-scan drops it
from single-end reads, as samtools import does).

Every read flagged by both but placed differently is put in one of the two
documented differences of definition (README.md, "Agreement with cutadapt"),
or counted as unexplained:
  end       the same start and errors, the end differs by at most the
            errors: where an occurrence's distance is the same at several
            ends, gpuasm reports the leftmost end of the valley (search.h's
            local-minimum rule), cutadapt the alignment of highest score;
  leftmost  cutadapt's occurrence starts earlier and gpuasm's scores at
            least as well (aligned length - 2 x errors): cutadapt 4 keeps
            the earliest occurrence, gpuasm the best one (report.h's rank).
Reads flagged by one tool only are unexplained.
Prints a table of counts and up to N differing reads with both views, and a
machine line "SUMMARY reads=.. both=.. only_cutadapt=.. only_gpuasm=..
same_pos=.. same_err=.. end=.. leftmost=.. unexplained=.." last.  Exit
status 0 (a comparison, not a test: callers assert on the SUMMARY).
Standard library only.
"""
import argparse
import gzip
import re
import sys


def read_info(path, adapter):
    op = gzip.open if path.endswith(".gz") else open
    out = {}
    order = []
    with op(path, "rt") as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            # gpuasm-scan writes single-end names without /1 or /2, as
            # samtools import does
            name = re.sub(r"/[12]$", "", c[0].split()[0])
            if name not in out:
                order.append(name)
            if int(c[1]) < 0 or (adapter and len(c) > 7 and c[7] != adapter):
                out.setdefault(name, None)
                continue
            # several adapters (-n > 1) give several lines: keep the first
            if out.get(name) is None:
                out[name] = (int(c[2]), int(c[3]), int(c[1]), c[7] if len(c) > 7 else "")
    return out, order


def read_sam(path):
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("@"):
                continue
            r = line.rstrip("\n").split("\t")
            flag = int(r[1])
            if flag & 4 or flag & 256:
                continue
            name = r[0]
            ops = [(int(n), o) for n, o in re.findall(r"(\d+)([MIDNSHP=X])", r[5])]
            rlen = len(r[9])
            lead = ops[0][0] if ops and ops[0][1] == "S" else 0
            trail = ops[-1][0] if len(ops) > 1 and ops[-1][1] == "S" else 0
            start, end = lead, rlen - trail
            if flag & 16:  # CIGAR is along the reverse complement
                start, end = rlen - end, rlen - start
            tags = dict((t[:2], t[5:]) for t in r[11:])
            dist = int(tags.get("XD", tags.get("NM", "-1")))
            out[name] = (start, end, dist, r[2], tags.get("XP", "full"))
    return out


def compare(ca, order, ga):
    """The per-read comparison: counts and one line per differing read."""
    res = {"reads": len(order), "both": 0, "same": 0, "same_pos": 0, "same_err": 0, "only_c": 0,
           "only_g": 0, "end": 0, "leftmost": 0, "unexplained": 0, "diffs": []}
    for name in order:
        c, g = ca.get(name), ga.get(name)
        if c is None and g is None:
            continue
        if c is not None and g is not None:
            res["both"] += 1
            sp = (c[0], c[1]) == (g[0], g[1])
            se = c[2] == g[2]
            res["same_pos"] += sp
            res["same_err"] += se
            res["same"] += sp and se
            if sp and se:
                continue
            score_c = (c[1] - c[0]) - 2 * c[2]
            score_g = (g[1] - g[0]) - 2 * g[2]
            if c[0] == g[0] and c[2] == g[2] and abs(c[1] - g[1]) <= c[2]:
                why = "end"
            elif c[0] < g[0] and score_g >= score_c:
                why = "leftmost"
            else:
                why = "unexplained"
            res[why] += 1
            res["diffs"].append("%s\tcutadapt [%d,%d) e%d\tgpuasm [%d,%d) e%d %s %s\t%s" % (
                name, c[0], c[1], c[2], g[0], g[1], g[2], g[3], g[4], why))
        elif c is not None:
            res["only_c"] += 1
            res["unexplained"] += 1
            res["diffs"].append("%s\tcutadapt [%d,%d) e%d\tgpuasm none\tunexplained" % (
                name, c[0], c[1], c[2]))
        else:
            res["only_g"] += 1
            res["unexplained"] += 1
            res["diffs"].append("%s\tcutadapt none\tgpuasm [%d,%d) e%d %s %s\tunexplained" % (
                name, g[0], g[1], g[2], g[3], g[4]))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--adapter", default="", help="only this adapter's lines of INFO")
    ap.add_argument("--list", type=int, default=20)
    ap.add_argument("info")
    ap.add_argument("sam")
    a = ap.parse_args()
    ca, order = read_info(a.info, a.adapter)
    res = compare(ca, order, read_sam(a.sam))
    print("reads %d: flagged by both %d (same position %d, same errors %d), only cutadapt %d, "
          "only gpuasm %d" % (res["reads"], res["both"], res["same_pos"], res["same_err"],
                              res["only_c"], res["only_g"]))
    for d in res["diffs"][:a.list]:
        print("  " + d)
    if len(res["diffs"]) > a.list:
        print("  ... %d more" % (len(res["diffs"]) - a.list))
    print("SUMMARY reads=%d both=%d only_cutadapt=%d only_gpuasm=%d same_pos=%d same_err=%d "
          "end=%d leftmost=%d unexplained=%d" % (res["reads"], res["both"], res["only_c"], res["only_g"],
                                                 res["same_pos"], res["same_err"], res["end"],
                                                 res["leftmost"], res["unexplained"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
