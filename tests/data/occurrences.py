#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The occurrences a SAM file of gpuasm-scan reports, as sorted lines that
do not depend on the rules issue #26 changed: one line per hit record with
QNAME, FLAG without 0x100 (which record is primary), RNAME, POS, CIGAR,
NM, MD, XD and XP, sorted by read (input order) and then as text.  AS, XS
and XE (the score, the second occurrence's score, the chance expectation)
and the records' order within a read are left out.

    occurrences.py OUT.sam > lines.txt
Standard library only."""
import sys


def main():
    order, by_read = [], {}
    with open(sys.argv[1]) as f:
        for line in f:
            if line.startswith("@"):
                continue
            r = line.rstrip("\n").split("\t")
            flag = int(r[1])
            if flag & 4:
                continue
            tags = dict((x[:2], x[5:]) for x in r[11:])
            key = "\t".join([r[0], str(flag & ~256), r[2], r[3], r[5]] +
                            ["%s=%s" % (t, tags.get(t, "")) for t in ("NM", "MD", "XD", "XP")])
            if r[0] not in by_read:
                order.append(r[0])
                by_read[r[0]] = []
            by_read[r[0]].append(key)
    for q in order:
        for k in sorted(by_read[q]):
            print(k)


if __name__ == "__main__":
    main()
