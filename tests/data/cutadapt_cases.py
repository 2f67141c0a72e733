#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cutadapt_cases.py -- cutadapt's own test cases, matched by gpuasm-scan.

    cutadapt_cases.py GPUASM_SCAN CUTADAPT_DIR WORKDIR

CUTADAPT_DIR is ../shared/data/cutadapt (CASES.tsv, data/, cut/).  For
every matching-related case (CASES.tsv: one cutadapt command each), this
runs that command with cutadapt (on PATH) plus --info-file, and gpuasm-scan
on the same reads and adapters with the options that mean the same thing:

    -a ADAPTER (3')        --partial-ends 3   (full anywhere, or a prefix at the 3' end)
    -g ADAPTER (5')        --partial-ends 5
    -b ADAPTER (anywhere)  --partial-ends both
    -e E, -O N             -e E, --overlap N  (cutadapt's defaults: 0.1, 3)
    --no-indels            --mode hamming
    --match-read-wildcards --match-read-wildcards
    always                 --preset cutadapt (--strand forward --pattern
                           target --best --partial-ends 3 --overlap 3:
                           cutadapt looks for adapters on the read as
                           sequenced and keeps one match per read; the
                           options above override it)

and compares the per-read matches with cutadapt_compare.py's rules (same
reads, same [start, end) and errors, or a documented difference of
definition).  Cases it cannot map are listed with the reason: anchored
adapters (not required by the issue), repeated removal (-n), paired-end
adapters (-A), non-DNA adapters with -N (gpuasm's alphabet is DNA), a mix
of adapter types in one command (the type is global in gpuasm-scan), BAM
input that cutadapt 4.2 cannot read.  One line per case, then a table, then
"TOTAL cases=.. compared=.. reads=.. both=.. same=.. end=.. leftmost=..
unexplained=.."; exit 1 when any read is unexplained or a run failed.
"""
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cutadapt_compare  # noqa: E402

TYPES = {"-a": "3", "--adapter": "3", "-g": "5", "--front": "5", "-b": "both", "--anywhere": "both"}


def load_cases(path):
    rows = []
    for line in open(path):
        if line.startswith("#") or line.startswith("case\t"):
            continue
        c = line.rstrip("\n").split("\t")
        if len(c) >= 5:
            rows.append({"case": c[0], "cmd": c[2], "deb42": c[4] if len(c) > 5 else c[3]})
    return rows


def plan(tokens, cdir):
    """gpuasm options for a cutadapt command, or (None, why)."""
    adapters, types = [], set()
    e, overlap, opts, reads = "0.1", "3", [], []
    i = 1
    while i < len(tokens):
        t = tokens[i]
        v = tokens[i + 1] if i + 1 < len(tokens) else None
        if t in TYPES:
            if v.startswith("^") or v.endswith("$"):
                return None, "anchored adapter (not required)"
            types.add(TYPES[t])
            if v.startswith("file:"):
                name = None
                for line in open(os.path.join(cdir, v[5:])):
                    if line.startswith(">"):
                        name = line[1:].split()[0]
                    elif line.strip():
                        adapters.append((name, line.strip()))
            elif "=" in v:
                adapters.append(tuple(v.split("=", 1)))
            else:
                adapters.append((str(len(adapters) + 1), v))
            i += 2
        elif t in ("-A", "-G", "-B", "-p"):
            return None, "paired-end adapters (-A/-p)"
        elif t == "-e":
            e = v
            i += 2
        elif t == "-O":
            overlap = v
            i += 2
        elif t == "-n":
            if int(v) > 1:
                return None, "repeated adapter removal (-n > 1)"
            i += 2
        elif t == "-N":
            if any(re.search(r"[^ACGTUNRYSWKMBDHVacgtunryswkmbdhv]", s) for _, s in adapters + [("", "")]):
                return None, "non-DNA adapter letters with -N"
            opts.append("-N")
            i += 1
        elif t == "--no-indels":
            opts += ["--mode", "hamming"]
            i += 1
        elif t == "--match-read-wildcards":
            opts.append("--match-read-wildcards")
            i += 1
        elif t in ("-o", "--info-file", "--untrimmed-output", "--too-short-output", "--too-long-output",
                   "-m", "-M", "--action"):
            i += 2
        elif t in ("--discard", "--discard-untrimmed", "--pair-adapters"):
            if t == "--pair-adapters":
                return None, "paired-end adapters (--pair-adapters)"
            i += 1
        elif t.startswith("-"):
            return None, "option %s not mapped" % t
        else:
            reads.append(t)
            i += 1
    if len(types) != 1:
        return None, "a mix of adapter types (the type is global in gpuasm-scan)"
    if "-N" in opts:
        if any(re.search(r"[^ACGTacgt]", s) for _, s in adapters):
            return None, "-N with wildcard letters in the adapter"
        opts.remove("-N")
    if len(reads) != 1:
        return None, "not one reads file"
    if reads[0].endswith(".bam"):
        return None, "BAM input (cutadapt 4.2 cannot read it)"
    gopts = ["-e", e, "--overlap", overlap, "--partial-ends", types.pop()] + opts
    return (adapters, reads[0], gopts), None


def main():
    scan, cdir, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    cases = load_cases(os.path.join(cdir, "CASES.tsv"))
    tot = {"cases": 0, "compared": 0, "reads": 0, "both": 0, "same": 0, "end": 0, "leftmost": 0,
           "unexplained": 0, "failed": 0}
    for c in cases:
        tot["cases"] += 1
        tokens = shlex.split(c["cmd"])
        p, why = plan(tokens, cdir)
        if p is None:
            print("%-26s not compared: %s" % (c["case"], why))
            continue
        adapters, reads, gopts = p
        cw = os.path.join(work, c["case"])
        os.makedirs(cw, exist_ok=True)
        info = os.path.join(cw, "cutadapt.info")
        ccmd = [x.replace("OUTDIR", cw) for x in tokens] + ["--quiet", "--info-file", info]
        r = subprocess.run(ccmd, cwd=cdir, capture_output=True, text=True)
        if r.returncode != 0:
            print("%-26s cutadapt failed: %s" % (c["case"], r.stderr.strip()[-200:]))
            tot["failed"] += 1
            continue
        afa = os.path.join(cw, "adapters.fa")
        with open(afa, "w") as f:
            for name, seq in adapters:
                f.write(">%s\n%s\n" % (name, seq))
        sam = os.path.join(cw, "gpuasm.sam")
        gcmd = [scan, "--device", "cpu", "--no-PG", "--quiet", "--preset", "cutadapt"] + gopts + \
               ["-o", sam, os.path.join(cdir, reads), afa]
        r = subprocess.run(gcmd, capture_output=True, text=True)
        if r.returncode != 0:
            print("%-26s gpuasm-scan failed: %s" % (c["case"], r.stderr.strip()[-200:]))
            tot["failed"] += 1
            continue
        ca, order = cutadapt_compare.read_info(info, "")
        ga = cutadapt_compare.read_sam(sam)
        res = cutadapt_compare.compare(ca, order, ga)
        tot["compared"] += 1
        for k in ("reads", "both", "same", "end", "leftmost", "unexplained"):
            tot[k] += res[k]
        print("%-26s %s: %d reads, %d flagged by both (%d same), %d only cutadapt, %d only gpuasm, "
              "differences: %d end, %d leftmost, %d unexplained" % (
                  c["case"], " ".join(gopts), res["reads"], res["both"], res["same"], res["only_c"],
                  res["only_g"], res["end"], res["leftmost"], res["unexplained"]))
        for d in res["diffs"]:
            if d.endswith("unexplained"):
                print("    " + d)
    print("TOTAL " + " ".join("%s=%d" % kv for kv in tot.items()))
    return 1 if tot["unexplained"] or tot["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
