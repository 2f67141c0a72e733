#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every read's records best first, the primary the best (issue #26;
align/report.h's order), on any gpuasm-scan SAM, without recomputing the
hits:

    check_order.py OUT.sam

For each read (records of one QNAME and mate, FLAG 0x40/0x80, in a row):
the first hit record has no FLAG 0x100 and every later one has it; the
records' keys (-AS, search distance (XD, else NM), -(AS + 2 x distance) =
-aligned pattern bases, strand, target's @SQ index, POS) are in
non-decreasing order; so no record has a higher AS than its read's
primary.  Prints one line per problem and exits 1, else a summary (reads,
records, reads with secondaries).  Standard library only."""
import sys


def main():
    sq = {}
    problems = []
    reads = recs = multi = 0
    cur, keys, flags = None, [], []

    def close():
        nonlocal multi
        if cur is None or not keys:
            return
        if any(bool(f & 256) != (i > 0) for i, f in enumerate(flags)):
            problems.append("%s: FLAG 0x100 not on exactly the records after the first: %s" % (cur[0], flags))
        if keys != sorted(keys):
            problems.append("%s: records not best first (-AS, distance, -aligned, strand, target, pos): %s"
                            % (cur[0], keys))
        multi += len(keys) > 1

    with open(sys.argv[1]) as f:
        for line in f:
            if line.startswith("@SQ"):
                name = [x[3:] for x in line.rstrip("\n").split("\t") if x.startswith("SN:")][0]
                sq[name] = len(sq)
                continue
            if line.startswith("@"):
                continue
            r = line.rstrip("\n").split("\t")
            flag = int(r[1])
            who = (r[0], flag & 0xC0)
            if who != cur:
                close()
                cur, keys, flags = who, [], []
                reads += 1
            if flag & 4:
                continue
            tags = dict((x[:2], x[5:]) for x in r[11:])
            if "AS" not in tags:
                problems.append("%s: a hit record without AS" % r[0])
                continue
            a = int(tags["AS"])
            d = int(tags.get("XD", tags.get("NM", "0")))
            keys.append((-a, d, -(a + 2 * d), 1 if flag & 16 else 0, sq.get(r[2], -1), int(r[3])))
            flags.append(flag)
            recs += 1
    close()
    for p in problems[:20]:
        print("check_order: " + p)
    if problems:
        print("check_order: %d problems" % len(problems))
        return 1
    print("check_order: %d reads, %d hit records, %d reads with secondary records: all best first"
          % (reads, recs, multi))
    return 0


if __name__ == "__main__":
    sys.exit(main())
