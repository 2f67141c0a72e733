#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""filter_data.py -- seeded inputs for tests/bats/filter.bats (issue #16):
the cases the exact filters must not lose a hit on.

  filter_data.py genomes SEED DIR   DIR/g.fa (targets of 1-12 kb: IUPAC codes,
                                    N runs, a lowercase stretch) and DIR/g.fq
                                    (reads of 40-260 bases: mutated copies of
                                    target stretches on either strand, some
                                    running off a target's end, some with N,
                                    a few random and one empty)
  filter_data.py primers SEED DIR   DIR/p.fa (400 primers of 16-30 bases,
                                    some with IUPAC codes, some shorter than
                                    the filter cuts) and DIR/p.fq (reads of
                                    60-160 random bases with primers planted,
                                    mutated, either strand, some cut off at
                                    the read's start or end, N in some)
  filter_data.py ends SEED DIR      DIR/e.fa (targets of 0.5-6 kb, some with
                                    IUPAC codes and N near their ends) and
                                    DIR/e.fq (reads of 40-300 bases, most
                                    running off a target's start or end by
                                    5-95% of their length, mutated at rates
                                    around -e 0.05-0.1, either strand, N in
                                    some): the ends pass of reads as patterns
  filter_data.py primer_ends SEED DIR
                                    DIR/pe.fa (300 primers of 4-40 bases,
                                    some with IUPAC codes) and DIR/pe.fq
                                    (reads of 12-160 bases, most with a
                                    mutated prefix of a primer at the 3' end
                                    and a suffix at the 5' start, either
                                    strand, 1 to m-1 bases; N and IUPAC
                                    letters in some; some shorter than the
                                    primers: the read is then the pattern):
                                    the ends filter of targets as patterns
  filter_data.py repeats SEED DIR   DIR/r.fa (a 3 kb target of period 8, a
                                    4 kb satellite of a 171-base unit copied
                                    at 0-3% divergence, poly-A runs inside a
                                    random 2 kb target, 20 primers of 12-24
                                    bases) and DIR/r.fq (reads of 60-200 bases
                                    from those targets, mutated, either
                                    strand, some running off an end; reads
                                    holding a primer 2-6 times; poly-A reads):
                                    hundreds of end hits per pair, for the
                                    keep rule of search.h (keep.bats)
Standard library only; the same SEED gives the same bytes.
"""
import os
import random
import sys

COMP = str.maketrans("ACGTRYKMBVDHNacgtrykmbvdhn", "TGCAYRMKVBHDNtgcayrmkvbhdn")


def rc(s):
    return s.translate(COMP)[::-1]


def mutate(rng, s, rate):
    out = []
    for ch in s:
        x = rng.random()
        if x < rate / 3:
            out.append(rng.choice("ACGT"))           # substitution
        elif x < 2 * rate / 3:
            continue                                  # deletion
        elif x < rate:
            out.append(ch + rng.choice("ACGT"))      # insertion
        else:
            out.append(ch)
    return "".join(out)


def write_fa(path, recs):
    with open(path, "w") as f:
        for name, s in recs:
            f.write(">%s\n" % name)
            for i in range(0, len(s), 70):
                f.write(s[i:i + 70] + "\n")


def write_fq(path, recs):
    with open(path, "w") as f:
        for name, s in recs:
            f.write("@%s\n%s\n+\n%s\n" % (name, s, "I" * len(s)))


def read_of(rng, g, a, m, rates):
    """m bases of target g from position a (negative, or past its end: the
    read runs off it; random bases there), codes other than ACGT replaced,
    mutated at a rate drawn from rates, reverse-complemented half the time."""
    lo, hi = max(0, a), min(len(g), a + m)
    s = g[lo:hi].upper()
    s = "".join(c if c in "ACGT" else rng.choice("ACGT") for c in s)
    s = mutate(rng, s, rng.choice(rates))
    if a < 0:
        s = "".join(rng.choices("ACGT", k=-a)) + s
    if a + m > len(g):
        s = s + "".join(rng.choices("ACGT", k=a + m - len(g)))
    if rng.random() < 0.5:
        s = rc(s)
    return s


def with_ns(rng, s):
    """s with 1-3 bases turned to N."""
    s = list(s)
    for _ in range(rng.randint(1, 3)):
        if s:
            s[rng.randrange(len(s))] = "N"
    return "".join(s)


def genomes(rng, d):
    tg = []
    for t in range(5):
        s = list(rng.choices("ACGT", k=rng.randint(1000, 12000)))
        for _ in range(rng.randint(0, 6)):            # IUPAC codes
            s[rng.randrange(len(s))] = rng.choice("RYKMSWBDHVN")
        if rng.random() < 0.6:                        # an N run
            a = rng.randrange(len(s))
            for i in range(a, min(len(s), a + rng.randint(1, 60))):
                s[i] = "N"
        if t == 1:                                    # lowercase (soft-masked)
            for i in range(100, 400):
                s[i] = s[i].lower()
        tg.append(("g%d" % t, "".join(s)))
    # a repeat: one target holds a copy of another's stretch
    a = tg[0][1][200:900]
    tg.append(("rep", "".join(rng.choices("ACGT", k=300)) + a + "".join(rng.choices("ACGT", k=300))))
    reads = []
    for r in range(260):
        name, g = rng.choice(tg)
        m = rng.randint(40, 260)
        kind = rng.random()
        if kind < 0.1:
            s = "".join(rng.choices("ACGT", k=m))
        else:
            if kind < 0.25:                            # off the target's start or end
                a = rng.choice([-rng.randint(1, m // 2), len(g) - m + rng.randint(1, m // 2)])
            else:
                a = rng.randint(0, max(0, len(g) - m))
            s = read_of(rng, g, a, m, [0.0, 0.02, 0.05, 0.09, 0.14])
        if rng.random() < 0.2:                         # N in the read
            s = with_ns(rng, s)
        reads.append(("r%d" % r, s))
    reads.append(("empty", ""))
    write_fa(os.path.join(d, "g.fa"), tg)
    write_fq(os.path.join(d, "g.fq"), reads)


def primers(rng, d):
    pr = []
    for i in range(400):
        m = rng.randint(16, 30) if i % 10 else rng.randint(5, 12)   # some too short to cut
        s = list(rng.choices("ACGT", k=m))
        if i % 7 == 0:
            s[rng.randrange(m)] = rng.choice("RYNSW")
        pr.append(("p%d" % i, "".join(s)))
    reads = []
    for r in range(600):
        s = "".join(rng.choices("ACGT", k=rng.randint(60, 160)))
        for _ in range(rng.randint(0, 3)):
            p = rng.choice(pr)[1]
            p = "".join(c if c in "ACGT" else rng.choice("ACGT") for c in p)
            p = mutate(rng, p, rng.choice([0.0, 0.04, 0.08, 0.12]))
            if rng.random() < 0.5:
                p = rc(p)
            x = rng.random()
            if x < 0.15:                               # cut off at the read's start
                p = p[rng.randint(1, max(1, len(p) - 3)):]
                s = p + s[len(p):]
            elif x < 0.3:                              # cut off at the read's end
                p = p[:rng.randint(3, max(3, len(p) - 1))]
                s = s[:len(s) - len(p)] + p
            else:
                a = rng.randint(0, max(0, len(s) - len(p)))
                s = s[:a] + p + s[a + len(p):]
        if rng.random() < 0.15:
            s = list(s)
            s[rng.randrange(len(s))] = "N"
            s = "".join(s)
        reads.append(("q%d" % r, s))
    write_fa(os.path.join(d, "p.fa"), pr)
    write_fq(os.path.join(d, "p.fq"), reads)


def ends(rng, d):
    tg = []
    for t in range(6):
        s = list(rng.choices("ACGT", k=rng.randint(500, 6000)))
        if t % 2:                                     # codes near the ends
            for _ in range(rng.randint(1, 3)):
                i = rng.randrange(120)
                s[i if rng.random() < 0.5 else len(s) - 1 - i] = rng.choice("RYKMSWBDHVN")
        if t == 5:                                    # and one in 6 bases there: no read's
            for i in range(0, 60, 6):                 # piece is intact, only the marks of
                s[i] = s[len(s) - 1 - i] = "N"       # ambiguous ends find its ends
        tg.append(("e%d" % t, "".join(s)))
    reads = []
    for r in range(400):
        name, g = rng.choice(tg)
        m = rng.randint(40, 300)
        if rng.random() < 0.1:
            s = "".join(rng.choices("ACGT", k=m))
        else:
            over = int(m * rng.uniform(0.05, 0.95))      # bases off the target
            a = -over if rng.random() < 0.5 else len(g) - m + over
            s = read_of(rng, g, a, m, [0.0, 0.02, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12])
        if rng.random() < 0.15:                        # N in the read
            s = with_ns(rng, s)
        reads.append(("x%d" % r, s))
    write_fa(os.path.join(d, "e.fa"), tg)
    write_fq(os.path.join(d, "e.fq"), reads)


def primer_ends(rng, d):
    pr = []
    for i in range(300):
        m = rng.randint(4, 9) if i % 10 == 0 else rng.randint(10, 40)
        s = list(rng.choices("ACGT", k=m))
        if i % 8 == 0:
            s[rng.randrange(m)] = rng.choice("RYNSWKMBDHV")
        pr.append(("e%d" % i, "".join(s)))
    reads = []
    for r in range(400):
        s = "".join(rng.choices("ACGT", k=rng.randint(12, 160) if r % 10 else rng.randint(12, 30)))
        for end in (3, 5):
            if rng.random() < 0.2:
                continue
            p = rng.choice(pr)[1]
            p = "".join(c if c in "ACGT" else rng.choice("ACGT") for c in p)
            p = mutate(rng, p, rng.choice([0.0, 0.0, 0.05, 0.1, 0.15]))
            if len(p) < 2:
                continue
            flip = rng.random() < 0.5
            if flip:
                p = rc(p)
            n = rng.randint(1, len(p) - 1)
            # the 3' end gets a prefix of the primer as searched on the
            # read's strand: a prefix of p, or (reverse strand) a prefix
            # of rc(p), i.e. rc of a suffix of p
            part = p[:n] if (end == 3) != flip else p[len(p) - n:]
            part = part[:len(s)]
            s = s[:len(s) - len(part)] + part if end == 3 else part + s[len(part):]
        x = rng.random()
        if x < 0.15:                                   # N in the read
            s = with_ns(rng, s)
        elif x < 0.25:                                 # IUPAC letters (--match-read-wildcards)
            s = list(s)
            s[rng.choice([0, len(s) - 1, rng.randrange(len(s))])] = rng.choice("RYKMSWN")
            s = "".join(s)
        reads.append(("s%d" % r, s))
    write_fa(os.path.join(d, "pe.fa"), pr)
    write_fq(os.path.join(d, "pe.fq"), reads)


def repeats(rng, d):
    unit8 = "".join(rng.choices("ACGT", k=8))
    unit171 = "".join(rng.choices("ACGT", k=171))
    sat = "".join(mutate(rng, unit171, rng.choice([0.0, 0.01, 0.03])) for _ in range(24))
    polya = list(rng.choices("ACGT", k=2000))
    for a in (300, 900, 1500):
        polya[a:a + 120] = "A" * 120
    tg = [("period8", (unit8 * 400)[:3000]), ("satellite", sat[:4000]), ("polyA", "".join(polya))]
    pr = [("pr%d" % i, "".join(rng.choices("ACGT", k=rng.randint(12, 24)))) for i in range(20)]
    reads = []
    for r in range(300):
        x = r % 5
        if x < 3:                                     # a stretch of a repeat target
            g = tg[x][1]
            m = rng.randint(60, 200)
            a = rng.randint(-m // 3, len(g) - 2 * m // 3)   # some off an end
            s = g[max(a, 0):a + m]
            s = mutate(rng, s, rng.choice([0.0, 0.02, 0.05, 0.1]))
        elif x == 3:                                  # a primer several times
            p = rng.choice(pr)[1]
            s = "".join(rng.choices("ACGT", k=rng.randint(5, 20)))
            for _ in range(rng.randint(2, 6)):
                s += mutate(rng, p, rng.choice([0.0, 0.05, 0.1])) + "".join(rng.choices("ACGT", k=rng.randint(0, 12)))
        else:                                         # poly-A with a random flank
            s = "A" * rng.randint(40, 150) + "".join(rng.choices("ACGT", k=rng.randint(0, 40)))
        if rng.random() < 0.5:
            s = rc(s)
        reads.append(("q%d" % r, s or "A"))
    write_fa(os.path.join(d, "r.fa"), tg + pr)
    write_fq(os.path.join(d, "r.fq"), reads)


def main(argv):
    gens = {"genomes": genomes, "primers": primers, "ends": ends, "primer_ends": primer_ends,
            "repeats": repeats}
    if len(argv) != 4 or argv[1] not in gens:
        sys.exit(__doc__)
    rng = random.Random(int(argv[2]))
    gens[argv[1]](rng, argv[3])


if __name__ == "__main__":
    main(sys.argv)
