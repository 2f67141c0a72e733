#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare gpuasm-scan's default output with an edlib HW oracle.

    check_oracle.py [-e RATE] ORACLE.tsv.gz READ_FILE OUT.sam

ORACLE.tsv.gz: one of ../shared/data/oracles/edlib_hw.*.tsv.gz (columns
read_file, read_id, read_len, target, strand, edit_distance, locations; one
row per read, target and strand, reads in file order).  READ_FILE selects
the rows of one input file (the value of the read_file column), because
R1 and R2 files share read names.

The read is the pattern (it is shorter than every genome), k = floor(e * m)
with m = read_len (default -e 0.1).  For every read and target of the
oracle:  OUT.sam has a record iff min over strands of edit_distance <= k
(and m > k: gpuasm does not search empty reads);
then its NM is that minimum, its strand is the forward one when the forward
distance equals the minimum (gpuasm's tie rule), and there is exactly one
record for the pair (default mode: best hit only).  Records must belong to
oracle reads, be grouped by read in input order, and carry FLAG 256 on all
but the first record of a read.

Read names: htslib drops a trailing /1 or /2 of FASTQ names (and sets the
mate flags), and BAM mates share one name; an oracle read_id "NAME/1" is
matched to a record NAME with FLAG 0x40 (or with no mate flag when NAME is
unique), "NAME/2" to NAME with FLAG 0x80.

Prints one line per disagreement (at most 50) and exits 1 if there was any.
"""
import argparse
import gzip
import math
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-e", type=float, default=0.1)
    ap.add_argument("oracle")
    ap.add_argument("read_file")
    ap.add_argument("sam")
    a = ap.parse_args()

    reads = []      # read ids in file order
    info = {}       # read id -> (read_len, {target: [dist+, dist-]})
    targets = []
    with gzip.open(a.oracle, "rt") as f:
        for line in f:
            if line.startswith("#") or line.startswith("read_file\t"):
                continue
            c = line.rstrip("\n").split("\t")
            if c[0] != a.read_file:
                continue
            rid, rlen, tgt, strand, dist = c[1], int(c[2]), c[3], c[4], int(c[5])
            if rid not in info:
                reads.append(rid)
                info[rid] = (rlen, {})
            if tgt not in targets:
                targets.append(tgt)
            info[rid][1].setdefault(tgt, [None, None])[0 if strand == "+" else 1] = dist
    if not reads:
        print("check_oracle: no oracle rows for %s" % a.read_file)
        return 1

    # Name lookup: stripped name -> [(mate, read id)].
    by_name = {}
    for rid in reads:
        base, mate = rid, 0
        if rid.endswith("/1") or rid.endswith("/2"):
            base, mate = rid[:-2], int(rid[-1])
        by_name.setdefault(base, []).append((mate, rid))
    index = {rid: i for i, rid in enumerate(reads)}

    problems = []
    got = {}        # read id -> {target: [records]}
    last = -1
    first_of_read = {}
    with open(a.sam) as f:
        for line in f:
            if line.startswith("@"):
                continue
            r = line.rstrip("\n").split("\t")
            flag = int(r[1])
            cands = by_name.get(r[0], [])
            if not cands and (r[0].endswith("/1") or r[0].endswith("/2")):
                cands = by_name.get(r[0][:-2], [])
            if len(cands) > 1:
                mate = 1 if flag & 0x40 else 2 if flag & 0x80 else 0
                cands = [c for c in cands if c[0] == mate]
            if len(cands) != 1:
                problems.append("record %s (FLAG %d) matches %d oracle reads" % (r[0], flag, len(cands)))
                continue
            rid = cands[0][1]
            i = index[rid]
            if i < last:
                problems.append("%s: records out of input order" % rid)
            if i != last:
                if rid in first_of_read:
                    problems.append("%s: records of the read are not grouped" % rid)
                first_of_read[rid] = True
                if flag & 0x100:
                    problems.append("%s: first record has FLAG %d (0x100 set)" % (rid, flag))
            elif not flag & 0x100:
                problems.append("%s: later record without FLAG 0x100" % rid)
            last = i
            if flag & 0x4:
                continue  # --unmatched records
            got.setdefault(rid, {}).setdefault(r[2], []).append(r)

    n_hits = 0
    for rid in reads:
        rlen, per_t = info[rid]
        k = int(math.floor(a.e * rlen))
        for tgt in targets:
            d = per_t.get(tgt, [None, None])
            recs = got.get(rid, {}).get(tgt, [])
            if None in d:
                problems.append("%s vs %s: oracle lacks a strand" % (rid, tgt))
                continue
            best = min(d)
            # gpuasm does not search pairs with m <= k (every position would
            # match): that leaves out empty reads, which edlib scores 0.
            want = best <= k and rlen > k
            if want != bool(recs):
                problems.append("%s vs %s: oracle %s (+%d/-%d, k=%d), gpuasm %s" % (
                    rid, tgt, "hit" if want else "no hit", d[0], d[1], k,
                    "%d record(s)" % len(recs) if recs else "none"))
                continue
            if not want:
                continue
            n_hits += 1
            if len(recs) != 1:
                problems.append("%s vs %s: %d records in default mode" % (rid, tgt, len(recs)))
            r = recs[0]
            tags = dict((x.split(":", 2)[0], x.split(":", 2)[2]) for x in r[11:])
            nm = int(tags.get("NM", -1))
            if nm != best:
                problems.append("%s vs %s: NM %d, oracle %d (+%d/-%d)" % (rid, tgt, nm, best, d[0], d[1]))
            strand = 1 if int(r[1]) & 16 else 0
            want_strand = 0 if d[0] == best else 1
            if strand != want_strand:
                problems.append("%s vs %s: strand %d, oracle says %d (+%d/-%d)" % (rid, tgt, strand, want_strand, d[0], d[1]))
    extra = set(got) - set(reads)
    for rid in extra:
        problems.append("%s: records for a read the oracle does not know" % rid)

    for p in problems[:50]:
        print("check_oracle: " + p)
    if len(problems) > 50:
        print("check_oracle: ... %d more" % (len(problems) - 50))
    if problems:
        return 1
    print("check_oracle: %s: %d reads x %d targets, %d hits, all agree with the oracle" % (
        a.read_file, len(reads), len(targets), n_hits))
    return 0


if __name__ == "__main__":
    sys.exit(main())
