#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""simulate.py -- SIMULATED nanopore raw signal from genomes and a k-mer pore
model, for the screening measurement of gpuasm-signal (tests/signal/README.md).
These are not real reads: every read id starts with "sim_" and the SLOW5
header says "@simulated".

Model (ours, stated so the numbers can be judged):
  * a read is a stretch of one genome strand (forward, or reverse
    complement, each with probability 1/2) from a uniform start;
  * the signal walks its k-mers 5' to 3', as gpuasm-signal's reference
    does: k-mer j contributes a dwell of d_j samples, d_j = max(1,
    round(Gamma(shape 3, mean M))), M = sampling rate / translocation speed
    = 4000 / 450 = 8.9 samples per base (R9.4.1, 400-450 bases/s);
  * each sample is the k-mer's level_mean_pA plus Gaussian noise of
    sd = noise x level_stdv_pA (the model's own spread; --noise, default 1);
  * per read, pA' = a pA + b with a ~ U(0.9, 1.1) and b ~ U(-5, 5) pA (the
    drift that per-read normalisation has to remove);
  * pA' becomes ADC values as an R9.4.1 MinION does: digitisation 8192,
    range 1467.61 pA, offset 10: raw = round(pA' x 8192 / 1467.61 - 10).
Output: SLOW5 v0.2.0 text (slow5lib reads it; gpuasm-signal turns raw
back into pA with the same three numbers).  Read ids are
sim_GENOME_STRAND_FS_FE_I: the forward-strand bases [FS, FE) the read's
k-mers cover (0-based, half-open), I its number.

  simulate.py --model M.tsv --reads N --samples S [--noise F] [--seed X]
              OUT.slow5 GENOME.fa [GENOME.fa ...]
N reads per genome, S samples each (genomes shorter than S / 8.9 + k bases
are skipped with a message).
"""
import argparse
import gzip
import random
import sys

DIG, RANGE, OFFSET, RATE = 8192.0, 1467.61, 10.0, 4000.0
MEAN_DWELL = RATE / 450.0
COMP = {"A": "T", "C": "G", "G": "C", "T": "A"}


def read_fasta(path):
    opener = gzip.open if path.endswith(".gz") else open
    name, seq, out = None, [], []
    with opener(path, "rt") as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                if name is not None:
                    out.append((name, "".join(seq).upper()))
                name, seq = line[1:].split()[0], []
            elif line:
                seq.append(line)
    if name is not None:
        out.append((name, "".join(seq).upper()))
    return out


def read_model(path):
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        ik, im, isd = head.index("kmer"), head.index("level_mean_pA"), head.index("level_stdv_pA")
        model = {}
        for line in f:
            p = line.rstrip("\n").split("\t")
            model[p[ik]] = (float(p[im]), float(p[isd]))
    return model, len(next(iter(model)))


def simulate(rng, seq, model, k, samples, noise):
    need = int(samples / MEAN_DWELL * 1.5) + k + 1          # bases enough for `samples`
    if len(seq) < need:
        return None
    strand = "+" if rng.random() < 0.5 else "-"
    s = seq if strand == "+" else "".join(COMP.get(c, "N") for c in reversed(seq))
    start = rng.randrange(0, len(s) - need + 1)
    a, b = rng.uniform(0.9, 1.1), rng.uniform(-5.0, 5.0)
    raw, j = [], start
    while len(raw) < samples:
        km = s[j:j + k]
        j += 1
        if len(km) < k:
            return None
        if km not in model:                                    # N or IUPAC: skip the k-mer
            continue
        mean, sd = model[km]
        dwell = max(1, int(round(rng.gammavariate(3.0, MEAN_DWELL / 3.0))))
        for _ in range(dwell):
            pa = a * (mean + rng.gauss(0.0, noise * sd)) + b
            raw.append(int(round(pa * DIG / RANGE - OFFSET)))
    # the forward-strand bases the read's k-mers cover: [fs, fe)
    fs, fe = (start, j - 1 + k) if strand == "+" else (len(seq) - (j - 1 + k), len(seq) - start)
    return strand, fs, fe, raw[:samples]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--reads", type=int, required=True)
    ap.add_argument("--samples", type=int, required=True)
    ap.add_argument("--noise", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("out")
    ap.add_argument("genomes", nargs="+")
    o = ap.parse_args()
    rng = random.Random(o.seed)
    model, k = read_model(o.model)
    with open(o.out, "w") as out:
        out.write("#slow5_version\t0.2.0\n#num_read_groups\t1\n")
        out.write("@simulated\tSIMULATED by tests/signal/simulate.py seed %d noise %g (not real reads)\n"
                  % (o.seed, o.noise))
        out.write("#char*\tuint32_t\tdouble\tdouble\tdouble\tdouble\tuint64_t\tint16_t*\n")
        out.write("#read_id\tread_group\tdigitisation\toffset\trange\tsampling_rate\t"
                  "len_raw_signal\traw_signal\n")
        for path in o.genomes:
            for name, seq in read_fasta(path):
                made = 0
                for i in range(o.reads):
                    r = simulate(rng, seq, model, k, o.samples, o.noise)
                    if r is None:
                        sys.stderr.write("simulate.py: %s: %s too short for %d samples\n"
                                         % (path, name, o.samples))
                        break
                    strand, fs, fe, raw = r
                    rid = "sim_%s_%s_%d_%d_%d" % (name.replace("|", "_"), strand, fs, fe, i)
                    out.write("%s\t0\t%r\t%r\t%r\t%r\t%d\t%s\n" % (rid, DIG, OFFSET, RANGE, RATE,
                                                               len(raw), ",".join(map(str, raw))))
                    made += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
