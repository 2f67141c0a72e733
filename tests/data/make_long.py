#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make_long.py -- seeded long test sequences for issue #11 (tests and
tests/bench/long).  Standard library only; the same arguments always give
the same bytes (random.Random(SEED), Python >= 3.2).

  pair LEN RATE SEED ORIG.fa MUT.fa
      As edlib's test data is made (test_data/*/mutated_XX_perc: a sequence
      and a copy with random edits): ORIG is LEN uniform random bases
      (A/C/G/T) named "orig"; MUT is a copy named "mut_<RATE>" where each
      base of ORIG, independently with probability RATE, gets one edit:
      substitution (by one of the 3 other bases), deletion, or insertion of
      one random base before it, each type with probability 1/3.  The number
      of edits is written to stderr (an upper bound of the edit distance).

  reads GENOME.fa[,GENOME2.fa...] N LEN ELO EHI SEED OUT.fq
      Nanopore-like reads: N reads spread over the genomes in turn (read r
      from genome r mod G).  Each read takes a fragment of min(LEN, 90% of
      the genome) bases at a uniform random start, on a random strand
      (reverse complement with probability 1/2), and gets per-base edits at
      a rate drawn uniformly from [ELO, EHI] for that read: substitution,
      insertion (1 to 3 random bases, lengths 1/2/3 with probability
      0.6/0.3/0.1) or deletion (1 base), in the proportions 0.4 / 0.3 / 0.3
      (nanopore errors are mostly indels).  The read name records its
      source: g<G>_<r>_<start>_<len>_<strand>_<rate>, G the genome's index
      in the list (0-based), start 0-based on the forward genome, len the
      fragment's bases, strand + or -, rate in percent.  Qualities are all
      '5' (Phred 20).

  mutate GENOME.fa LEN RATE SEED NAME OUT.fa
      One read as in `reads`, forward strand, from the first LEN bases of
      the genome at exactly RATE (the issue's "20 kb read, 5-10% mutated"
      cases), written as FASTA named NAME.

  ends GENOMES.fa SEED OUT.fq
      Reads that run off the genomes' ends (issue #28: the ends pass of
      reads as patterns): for every record of GENOMES.fa, and each of
      (600 random bases, 1,500 genome bases) and (1,000, 3,000; at most
      half the genome), the random bases then the genome's first bases,
      and the genome's last bases then the random ones, the genome part
      with 3% substitutions; each read also reverse-complemented.  Names
      ends0, ends1, ...; qualities 'I'.

  diverge GENOME.fa START LEN RATE SEED ORIG.fa MUT.fa
      Issue #28's real 1 Mb pair: ORIG is the genome's bases [START,
      START + LEN) (0-based, half-open) named "<record>:<START+1>-<END>",
      MUT a diverged copy named "<record>_div<RATE>".  Events fall on each
      base independently with probability RATE, drawn from a bacterial
      divergence model rather than edlib's uniform one: 90% substitutions,
      transitions twice as likely as both transversions together (kappa =
      2: ts/tv ~2 as between enteric genomes), 10% indels (half insertions
      of random bases, half deletions) with lengths from a power law
      P(L) ~ L^-1.8, L = 1..50 (the Zipfian indel lengths of Cartwright
      2009, Bioinformatics 25:2525; Chen et al. 2009, Genome Res 19:1230).
      Writes the events and the bases they edit (an upper bound of the
      edit distance) to stderr.
"""
import random
import sys

COMP = str.maketrans("ACGTN", "TGCAN")


def read_fasta(path):
    """First record of a FASTA file: (name, upper-case sequence)."""
    name, parts = None, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                if name is not None:
                    break
                name = line[1:].split()[0] if len(line) > 1 else "seq"
            elif name is not None:
                parts.append(line)
    if name is None:
        sys.exit("make_long.py: %s: no FASTA record" % path)
    return name, "".join(parts).upper()


def write_fasta(path, name, seq):
    with open(path, "w") as f:
        f.write(">%s\n" % name)
        for i in range(0, len(seq), 80):
            f.write(seq[i:i + 80] + "\n")


def edit_pair(rng, seq, rate):
    """edlib-style copy: one edit per base with probability rate (1/3 each
    substitution, deletion, insertion before the base).  Returns (copy,
    number of edits)."""
    out, n_edits = [], 0
    for c in seq:
        if rng.random() >= rate:
            out.append(c)
            continue
        n_edits += 1
        kind = rng.randrange(3)
        if kind == 0:
            out.append(rng.choice([b for b in "ACGT" if b != c]))
        elif kind == 1:
            pass
        else:
            out.append(rng.choice("ACGT"))
            out.append(c)
    return "".join(out), n_edits


def nanopore_errors(rng, seq, rate):
    """Per-base edits at `rate`: 0.4 substitution, 0.3 insertion of 1-3
    bases, 0.3 deletion."""
    out = []
    for c in seq:
        if rng.random() >= rate:
            out.append(c)
            continue
        u = rng.random()
        if u < 0.4:
            out.append(rng.choice([b for b in "ACGT" if b != c]))
        elif u < 0.7:
            ln = rng.choices((1, 2, 3), weights=(6, 3, 1))[0]
            out.append(c)
            out.append("".join(rng.choice("ACGT") for _ in range(ln)))
        # else: deletion
    return "".join(out)


def cmd_pair(length, rate, seed, orig_path, mut_path):
    rng = random.Random(int(seed))
    n, r = int(length), float(rate)
    orig = "".join(rng.choices("ACGT", k=n))
    mut, n_edits = edit_pair(rng, orig, r)
    write_fasta(orig_path, "orig", orig)
    write_fasta(mut_path, "mut_%g" % r, mut)
    sys.stderr.write("make_long.py pair: %d bases, %d edits, copy %d bases\n"
                     % (n, n_edits, len(mut)))


TRANSITION = {"A": "G", "G": "A", "C": "T", "T": "C"}
INDEL_LENGTHS = list(range(1, 51))
INDEL_WEIGHTS = [L ** -1.8 for L in INDEL_LENGTHS]


def diverge_copy(rng, seq, rate):
    """The `diverge` model: returns (copy, events, bases edited)."""
    out, i, n, events, edited = [], 0, len(seq), 0, 0
    while i < n:
        c = seq[i]
        if rng.random() >= rate or c not in TRANSITION:
            out.append(c)
            i += 1
            continue
        events += 1
        u = rng.random()
        if u < 0.9:
            # kappa = 2: P(transition) = kappa / (kappa + 2) = 1/2.
            if rng.random() < 0.5:
                out.append(TRANSITION[c])
            else:
                out.append(rng.choice([b for b in "ACGT" if b != c and b != TRANSITION[c]]))
            edited += 1
            i += 1
            continue
        ln = rng.choices(INDEL_LENGTHS, weights=INDEL_WEIGHTS)[0]
        edited += ln
        if u < 0.95:
            out.append("".join(rng.choices("ACGT", k=ln)))
            out.append(c)
            i += 1
        else:
            i += ln
    return "".join(out), events, edited


def cmd_diverge(genome, start, length, rate, seed, orig_path, mut_path):
    rng = random.Random(int(seed))
    name, seq = read_fasta(genome)
    s0, n, r = int(start), int(length), float(rate)
    if s0 < 0 or s0 + n > len(seq):
        sys.exit("make_long.py diverge: [%d, %d) is outside %s (%d bases)"
                 % (s0, s0 + n, genome, len(seq)))
    orig = seq[s0:s0 + n]
    mut, events, edited = diverge_copy(rng, orig, r)
    write_fasta(orig_path, "%s:%d-%d" % (name, s0 + 1, s0 + n), orig)
    write_fasta(mut_path, "%s_div%g" % (name, r), mut)
    sys.stderr.write("make_long.py diverge: %d bases, %d events, %d bases edited, copy %d bases\n"
                     % (n, events, edited, len(mut)))


def cmd_reads(genomes, n, length, elo, ehi, seed, out_path):
    rng = random.Random(int(seed))
    gs = [read_fasta(p) for p in genomes.split(",")]
    with open(out_path, "w") as f:
        for r in range(int(n)):
            gi = r % len(gs)
            g = gs[gi][1]
            ln = min(int(length), int(0.9 * len(g)))
            start = rng.randrange(len(g) - ln + 1)
            frag = g[start:start + ln]
            strand = "+" if rng.random() < 0.5 else "-"
            if strand == "-":
                frag = frag.translate(COMP)[::-1]
            rate = rng.uniform(float(elo), float(ehi))
            s = nanopore_errors(rng, frag, rate)
            f.write("@g%d_%d_%d_%d_%s_%.1f\n%s\n+\n%s\n"
                    % (gi, r, start, ln, strand, 100 * rate, s, "5" * len(s)))


def cmd_mutate(genome, length, rate, seed, name, out_path):
    rng = random.Random(int(seed))
    _, g = read_fasta(genome)
    write_fasta(out_path, name, nanopore_errors(rng, g[:int(length)], float(rate)))


def cmd_ends(genomes, seed, out_path):
    rng = random.Random(int(seed))
    recs = []
    with open(genomes) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                recs.append([])
            elif recs:
                recs[-1].append(line.upper())
    if not recs:
        sys.exit("make_long.py: %s: no FASTA record" % genomes)

    def sub(s, r):
        return "".join(rng.choice("ACGT") if rng.random() < r else c for c in s)

    def rand(n):
        return "".join(rng.choice("ACGT") for _ in range(n))

    i = 0
    with open(out_path, "w") as f:
        for parts in recs:
            g = "".join(parts)
            for over, body in ((600, 1500), (1000, 3000)):
                n = min(body, len(g) // 2)
                for r in (rand(over) + sub(g[:n], 0.03), sub(g[-n:], 0.03) + rand(over)):
                    for s in (r, r.translate(COMP)[::-1]):
                        f.write("@ends%d\n%s\n+\n%s\n" % (i, s, "I" * len(s)))
                        i += 1


def main(argv):
    cmds = {"pair": (cmd_pair, 5), "reads": (cmd_reads, 7), "mutate": (cmd_mutate, 6), "ends": (cmd_ends, 3),
            "diverge": (cmd_diverge, 7)}
    if len(argv) < 2 or argv[1] not in cmds or len(argv) - 2 != cmds[argv[1]][1]:
        sys.exit(__doc__)
    fn, _ = cmds[argv[1]]
    fn(*argv[2:])


if __name__ == "__main__":
    main(sys.argv)
