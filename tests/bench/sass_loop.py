#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""sass_loop.py -- "show the arithmetic" of issue #15: the instructions of
a DTW kernel's hot loop, per DP cell, read from its SASS (cuobjdump -sass).

  cuobjdump -sass -fun NAME binary | sass_loop.py --label L --cells C

Finds the loops of the function (a branch whose target lies before it),
takes the one with the most min instructions (the cells' three-way min),
the shortest such loop where several tie (the wavefront step loop of
cuDTW++'s shfl_FullDTW_2047 and of gpuasm's k_best, not the band loop
around it), and counts its instructions between the target and the
branch, by class.  C is the DP
cells one trip of that loop computes per thread (64 for both: cuDTW++'s 64
columns per lane and step; gpuasm BEST's R = 16 rows x 4 columns).  The
count is static: a loop with forward branches inside (gpuasm's band
boundary and best-end paths) counts every instruction once, taken or not,
so its instr/cell is an upper bound of the path most steps take.
Classes: min (FMNMX, VIMNMX3, IMNMX...), arith (the cost and the add:
FADD, FFMA, FMUL, IABS, IADD3, VIADD, IMAD.IADD, IMAD), mov (MOV,
IMAD.MOV: register rotation the compiler did not rename away), other
(shuffles, loads, compares, branches, bookkeeping).

Prints one TSV line:
  sass_loop  label  loop_instructions  cells_per_trip  instr_per_cell
             min_per_cell  arith_per_cell  mov_per_cell  other_per_cell  top opcodes
"""
import argparse
import collections
import re
import sys

INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
MIN = {"FMNMX", "FMNMX3", "VIMNMX", "VIMNMX3", "IMNMX", "VIADDMNMX", "HMNMX2"}
ARITH = {"FADD", "FFMA", "FMUL", "IABS", "IADD3", "IADD", "VIADD", "IMAD", "IMAD.IADD", "HADD2",
         "HFMA2", "HMUL2"}


def klass(op):
    base = op.split(".")[0]
    if base in MIN:
        return "min"
    if op.startswith("IMAD.MOV") or base == "MOV":
        return "mov"
    if op in ARITH or (base in ARITH and base != "IMAD"):
        return "arith"
    return "other"


def parse(lines):
    out = []
    for line in lines:
        m = INSN.search(line)
        if not m:
            continue
        text = m.group(2).strip()
        if text.startswith("@"):
            text = text.split(None, 1)[1] if " " in text else ""
        op = text.split()[0] if text else ""
        out.append((int(m.group(1), 16), op, text))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", required=True)
    ap.add_argument("--cells", type=int, required=True)
    a = ap.parse_args()
    ins = parse(sys.stdin)
    if not ins:
        print("sass_loop.py: no SASS on stdin", file=sys.stderr)
        return 1
    addr_index = {addr: i for i, (addr, _, _) in enumerate(ins)}
    best = None      # (mins, -length, first, last)
    for i, (addr, op, text) in enumerate(ins):
        if op != "BRA":
            continue
        m = re.search(r"0x([0-9a-f]+)", text)
        if not m:
            continue
        tgt = int(m.group(1), 16)
        if tgt < addr and tgt in addr_index:
            j = addr_index[tgt]
            mins = sum(1 for _, o, _ in ins[j:i + 1] if klass(o) == "min")
            key = (mins, -(i - j), j, i)
            if best is None or key > best:
                best = key
    if best is None:
        print("sass_loop.py: no loop found", file=sys.stderr)
        return 1
    body = ins[best[2]:best[3] + 1]
    ops = collections.Counter(op for _, op, _ in body)
    cls = collections.Counter()
    for op, c in ops.items():
        cls[klass(op)] += c
    n = len(body)
    top = ", ".join("%s %d" % (o, c) for o, c in ops.most_common(8))
    c = float(a.cells)
    print("sass_loop\t%s\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%s" % (
        a.label, n, a.cells, n / c, cls["min"] / c, cls["arith"] / c, cls["mov"] / c, cls["other"] / c, top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
