#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_data.py -- data making, timing and scoring helpers of tests/bench/run.

Subcommands (all seeded, streaming, standard library only):

  randgenome BASES SEED NAME OUT.fa
      a random genome (uniform A/C/G/T), the negative source of P2.
  primers N LEN SEED GENOMES.fa OUT.fa
      N primers of LEN bases named p0..: every 10th a stretch of GENOMES
      (so that reads from the genomes hold real sites), the rest uniform
      random (issue #16's many-patterns workload).
  virusdb TOTAL_BASES RECORDS SEED GENOMES.fa OUT.fa
      a virus-database-shaped reference (issue #28): GENOMES' records
      first, unchanged (the panel reads are drawn from), then RECORDS -
      len(panel) records "db<i>" filling TOTAL_BASES, lengths uniform in
      [mean/2, 3 mean/2]: every 50th a mutated copy of a stretch of a panel
      genome (substitutions, insertions and deletions at a divergence of
      5, 10, 20 or 30%: the relatives a real database holds), the rest
      uniform random.
  periodic PERIOD TARGET_BASES READS READ_LEN SEED DIR
      issue #28's periodic case and its control: DIR/per.fa (one target of
      TARGET_BASES bases, a random unit of PERIOD bases repeated) and
      DIR/per.fq (READS reads of READ_LEN bases of it, 2 random
      substitutions each: every read matches the target every PERIOD
      bases); DIR/rnd.fa and DIR/rnd.fq the same with a uniform random
      target (the non-periodic input of the same size).
  interleave A.fq B.fq OUT.fq
      records of A and B alternately (4-line FASTQ as wgsim writes it),
      then the rest of the longer one.
  repeat IN.fq[.gz] READS OUT.fq
      IN's records again and again until READS records, the name of copy r
      prefixed with "R<r>." so that every name is unique (P3).
  timeit OUT.json TIMEOUT_S CMD...
      runs CMD (no shell), writes {"rc", "wall_s", "user_s", "sys_s",
      "maxrss_kb", "timed_out"}; maxrss is the largest resident set of any
      child waited for (getrusage RUSAGE_CHILDREN).  Exits with CMD's status
      (124 on timeout, after killing CMD's process group).
  unwheel DIR WHEEL...
      unpacks wheels into DIR (what pip would install, without pip: the
      GPU machine's Python may have none).
  score TRUTH_FASTQ K OUT.json [sam FILE | tsv FILE]...
      scores hits against the names wgsim gave the reads: for each source
      (a SAM of gpuasm-scan or minimap2, or the TSV of edlib_hw screen),
      reads from the negative source (contig "neg") with any hit are false
      positives; a read of a genome counts as found when some hit is on its
      contig and overlaps its fragment.  K is the scan's k: reads whose
      wgsim counts (errors + substitutions + indel events of read 1) are
      <= K are "within k" (a lower bound of their distance, so a read can
      still be beyond k).  Writes one JSON object per source.
  compare A B OUT.json
      (read, target) pairs with their distances from two sources (sam:FILE
      or tsv:FILE, as above): same pairs, only in A, only in B, distance
      differs, strand or end differs.
"""
import gzip
import json
import os
import random
import resource
import signal
import subprocess
import sys
import threading
import time


def randgenome(bases, seed, name, out):
    rng = random.Random(int(seed))
    n = int(bases)
    with open(out, "w") as f:
        f.write(">%s\n" % name)
        line = 80
        done = 0
        while done < n:
            chunk = min(1 << 20, n - done)
            s = "".join(rng.choices("ACGT", k=chunk))
            f.write("\n".join(s[i:i + line] for i in range(0, len(s), line)))
            f.write("\n")
            done += chunk


def primers(n, length, seed, genomes, out):
    rng = random.Random(int(seed))
    n, length = int(n), int(length)
    seqs, cur = [], []
    with open(genomes) as f:
        for line in f:
            if line.startswith(">"):
                if cur:
                    seqs.append("".join(cur).upper())
                cur = []
            else:
                cur.append(line.strip())
    if cur:
        seqs.append("".join(cur).upper())
    with open(out, "w") as f:
        for i in range(n):
            if i % 10 == 0:
                g = rng.choice(seqs)
                a = rng.randrange(len(g) - length)
                p = g[a:a + length]
            else:
                p = "".join(rng.choices("ACGT", k=length))
            f.write(">p%d\n%s\n" % (i, p))


def _fasta(path):
    seqs, cur, name = [], [], None
    with open(path) as f:
        for line in f:
            if line.startswith(">"):
                if name is not None:
                    seqs.append((name, "".join(cur).upper()))
                name, cur = line[1:].split()[0], []
            else:
                cur.append(line.strip())
    if name is not None:
        seqs.append((name, "".join(cur).upper()))
    return seqs


def _mutate(rng, s, div):
    # edits at rate div, 80% substitutions, 10% insertions, 10% deletions;
    # the gaps between edits drawn geometric, so the cost is per edit.
    out, i, n = [], 0, len(s)
    while i < n:
        gap = int(rng.expovariate(div)) if div > 0 else n
        out.append(s[i:i + gap])
        i += gap
        if i >= n:
            break
        r = rng.random()
        if r < 0.8:
            out.append(rng.choice([c for c in "ACGT" if c != s[i]]))
            i += 1
        elif r < 0.9:
            out.append(rng.choice("ACGT"))
        else:
            i += 1
    return "".join(out)


def virusdb(total, records, seed, genomes, out):
    rng = random.Random(int(seed))
    total, records = int(total), int(records)
    panel = _fasta(genomes)
    rest = records - len(panel)
    mean = max(1000, (total - sum(len(s) for _, s in panel)) // max(1, rest))
    line = 80
    with open(out, "w", buffering=1 << 22) as f:
        def put(name, s):
            f.write(">%s\n" % name)
            f.write("\n".join(s[i:i + line] for i in range(0, len(s), line)))
            f.write("\n")
        for name, s in panel:
            put(name, s)
        for i in range(rest):
            n = rng.randint(mean // 2, mean * 3 // 2)
            if i % 50 == 0:
                _, g = rng.choice(panel)
                a = rng.randrange(max(1, len(g) - n))
                put("db%d" % i, _mutate(rng, g[a:a + n], rng.choice([0.05, 0.1, 0.2, 0.3])))
            else:
                put("db%d" % i, "".join(rng.choices("ACGT", k=n)))


def _records(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as f:
        while True:
            rec = [f.readline() for _ in range(4)]
            if not rec[0]:
                return
            yield rec


def periodic(period, tbases, reads, rlen, seed, d):
    period, tbases, reads, rlen = int(period), int(tbases), int(reads), int(rlen)
    rng = random.Random(int(seed))
    unit = "".join(rng.choice("ACGT") for _ in range(period))
    per = (unit * (tbases // period + 1))[:tbases]
    rnd = "".join(rng.choice("ACGT") for _ in range(tbases))
    for name, t in (("per", per), ("rnd", rnd)):
        with open(os.path.join(d, name + ".fa"), "w") as f:
            f.write(">%s\n%s\n" % (name, t))
        with open(os.path.join(d, name + ".fq"), "w") as f:
            q = "I" * rlen
            for i in range(reads):
                a = rng.randrange(tbases - rlen + 1)
                s = list(t[a:a + rlen])
                for _ in range(2):
                    j = rng.randrange(rlen)
                    s[j] = rng.choice("ACGT".replace(s[j], ""))
                f.write("@%s%d\n%s\n+\n%s\n" % (name, i, "".join(s), q))


def interleave(a, b, out):
    ia, ib = _records(a), _records(b)
    with open(out, "wb", buffering=1 << 22) as f:
        while True:
            ra, rb = next(ia, None), next(ib, None)
            if ra is None and rb is None:
                break
            for r in (ra, rb):
                if r is not None:
                    f.writelines(r)


def repeat(inp, reads, out):
    recs = list(_records(inp))
    reads = int(reads)
    # one block of all records with the copy number left out of the names:
    # joining the pieces with b"R<r>." renames a whole copy in one call.
    pieces = [b"@"]
    for i, r in enumerate(recs):
        rest = r[0][1:] + r[1] + r[2] + r[3]
        pieces.append(rest + b"@" if i + 1 < len(recs) else rest)
    with open(out, "wb", buffering=1 << 24) as f:
        done, copy = 0, 0
        while done < reads:
            sep = b"R%d." % copy
            if reads - done >= len(recs):
                f.write(sep.join(pieces))
                done += len(recs)
            else:
                for r in recs[: reads - done]:
                    f.write(b"@" + sep + r[0][1:] + r[1] + r[2] + r[3])
                done = reads
            copy += 1


def timeit(out, timeout, cmd):
    # GNU time, where there is one, reports the command's own peak RSS;
    # getrusage's children figure also counts the forked Python image
    # (about 15 MB) that exec replaced.
    gnu_time = os.access("/usr/bin/time", os.X_OK)
    rss_file = out + ".rss"
    full = ["/usr/bin/time", "-f", "%M", "-o", rss_file] + cmd if gnu_time else cmd
    t0 = time.monotonic()
    p = subprocess.Popen(full, start_new_session=True)
    # A blocking wait (waitpid) ends when the command does; Popen.wait with
    # a timeout polls with sleeps of up to 50 ms, which quantised the
    # small-input rows of tests/bench/pipeline to 50-ms steps.  The timeout
    # is a timer that kills the process group.
    fired = threading.Event()

    def kill():
        fired.set()
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass

    timer = threading.Timer(float(timeout), kill)
    timer.start()
    rc = p.wait()
    wall = time.monotonic() - t0
    timer.cancel()
    timed_out = fired.is_set()
    if timed_out:
        rc = 124
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    maxrss, rss_by = ru.ru_maxrss, "getrusage"
    if gnu_time:
        try:
            with open(rss_file) as f:
                maxrss, rss_by = int(f.read().split()[-1]), "/usr/bin/time"
        except (OSError, ValueError, IndexError):
            pass
        try:
            os.unlink(rss_file)
        except OSError:
            pass
    res = {"cmd": cmd, "rc": rc, "wall_s": round(wall, 4), "user_s": round(ru.ru_utime, 3),
           "sys_s": round(ru.ru_stime, 3), "maxrss_kb": maxrss, "maxrss_by": rss_by,
           "timed_out": timed_out}
    with open(out, "w") as f:
        json.dump(res, f)
        f.write("\n")
    return rc


def unwheel(dest, wheels):
    import zipfile
    os.makedirs(dest, exist_ok=True)
    for w in wheels:
        with zipfile.ZipFile(w) as z:
            for m in z.namelist():
                # *.data/ holds scripts and headers, not importable code
                if m.split("/", 1)[0].endswith(".data"):
                    continue
                z.extract(m, dest)


def _truth_name(name):
    """(contig, start, end, lower bound of edits of read 1) from a wgsim name
    contig_start_end_e1:s1:i1_e2:s2:i2_idx; the contig may hold '_'."""
    if name.endswith("/1") or name.endswith("/2"):
        name = name[:-2]
    parts = name.rsplit("_", 5)
    if len(parts) != 6:
        return None
    contig, start, end, r1 = parts[0], parts[1], parts[2], parts[3]
    e = r1.split(":")
    return contig, int(start), int(end), sum(int(x) for x in e)


def _cigar_span(cigar):
    span, num = 0, 0
    for ch in cigar:
        if ch.isdigit():
            num = num * 10 + ord(ch) - 48
        else:
            if ch in "MDN=X":
                span += num
            num = 0
    return span


def _hits(kind, path):
    """yield (read, target, first_base_1based, last_base_1based, strand, dist)."""
    if kind == "sam":
        with open(path) as f:
            for line in f:
                if line[0] == "@":
                    continue
                c = line.rstrip("\n").split("\t")
                flag = int(c[1])
                if flag & 4 or c[2] == "*":
                    continue
                pos = int(c[3])
                span = _cigar_span(c[5]) or 1
                dist = None
                for tag in c[11:]:
                    if tag.startswith("NM:i:"):
                        dist = int(tag[5:])
                        break
                r = c[0][:-2] if c[0].endswith(("/1", "/2")) else c[0]   # minimap2 keeps /1
                yield r, c[2], pos, pos + span - 1, "-" if flag & 16 else "+", dist
    else:
        with open(path) as f:
            for line in f:
                r, t, s, d, e = line.rstrip("\n").split("\t")
                end1 = int(e) + 1
                yield r, t, end1, end1, s, int(d)


def score(truth_fq, k, out, sources):
    k = int(k)
    truth = {}
    with open(truth_fq, "rb") as f:
        for i, line in enumerate(f):
            if i % 4 == 0:
                name = line[1:].split()[0].decode()
                if name.endswith("/1"):
                    name = name[:-2]
                truth[name] = _truth_name(name)
    n_pos = sum(1 for t in truth.values() if t and t[0] != "neg")
    n_neg = sum(1 for t in truth.values() if t and t[0] == "neg")
    within = {r for r, t in truth.items() if t and t[0] != "neg" and t[3] <= k}
    results = {}
    for kind, path in sources:
        found, any_hit, fp, records = set(), set(), set(), 0
        for r, tg, lo, hi, _s, _d in _hits(kind, path):
            records += 1
            t = truth.get(r)
            if t is None:
                continue
            any_hit.add(r)
            if t[0] == "neg":
                fp.add(r)
            elif tg == t[0]:
                # edlib's TSV gives only the end: accept ends inside the
                # fragment (with the read's length of slack for indels)
                if kind == "tsv":
                    if t[1] <= hi <= t[2] + 20:
                        found.add(r)
                elif lo <= t[2] and hi >= t[1]:
                    found.add(r)
        results[os.path.basename(path)] = {
            "source": path, "records": records, "reads": len(truth), "positives": n_pos,
            "negatives": n_neg, "positives_found": len(found),
            "recall": round(len(found) / n_pos, 6) if n_pos else None,
            "positives_within_k": len(within),
            "within_k_found": len(found & within),
            "recall_within_k": round(len(found & within) / len(within), 6) if within else None,
            "negatives_reported": len(fp), "reads_with_hits": len(any_hit)}
    with open(out, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")


def compare(a, b, out):
    def load(spec):
        kind, path = spec.split(":", 1)
        best = {}
        for r, t, lo, hi, s, d in _hits(kind, path):
            key = (r, t)
            if key not in best or (d is not None and best[key][0] is not None and d < best[key][0]):
                best[key] = (d, s, hi)
        return best
    A, B = load(a), load(b)
    both = A.keys() & B.keys()
    res = {"a": a, "b": b, "pairs_a": len(A), "pairs_b": len(B), "pairs_both": len(both),
           "only_a": len(A.keys() - B.keys()), "only_b": len(B.keys() - A.keys()),
           "distance_differs": sum(1 for x in both if A[x][0] != B[x][0]),
           "strand_or_end_differs": sum(1 for x in both if A[x][1:] != B[x][1:]),
           "examples_only_a": sorted(A.keys() - B.keys())[:5],
           "examples_only_b": sorted(B.keys() - A.keys())[:5],
           "examples_distance_differs": [[x, A[x], B[x]] for x in sorted(both)
                                         if A[x][0] != B[x][0]][:5]}
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "randgenome" and len(args) == 4:
        randgenome(*args)
    elif cmd == "primers" and len(args) == 5:
        primers(*args)
    elif cmd == "virusdb" and len(args) == 5:
        virusdb(*args)
    elif cmd == "periodic" and len(args) == 6:
        periodic(*args)
    elif cmd == "interleave" and len(args) == 3:
        interleave(*args)
    elif cmd == "repeat" and len(args) == 3:
        repeat(*args)
    elif cmd == "timeit" and len(args) >= 3:
        sys.exit(timeit(args[0], args[1], args[2:]))
    elif cmd == "unwheel" and len(args) >= 2:
        unwheel(args[0], args[1:])
    elif cmd == "score" and len(args) >= 5 and (len(args) - 3) % 2 == 0:
        srcs = [(args[i], args[i + 1]) for i in range(3, len(args), 2)]
        score(args[0], args[1], args[2], srcs)
    elif cmd == "compare" and len(args) == 3:
        compare(*args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
