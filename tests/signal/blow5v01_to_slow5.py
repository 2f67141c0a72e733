#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blow5v01_to_slow5.py -- rewrite a pre-release BLOW5 file (header line
"##file_format=blow5v0.1") as SLOW5 v0.2.0 text, which slow5lib reads.

Why: ../shared/data/signals/chr22_meth_example-subset.blow5 (slow5lib's own
test file at commit 062eff9, 2021) predates the BLOW5 format slow5lib 0.7
reads: slow5lib refuses it ("Invalid magic number").  Its records are the
real R9.4.1 signals, so the tests convert it, in a temporary folder, to the
current text format; nothing converted is kept in the project.

Layout of a v0.1 record (little-endian, found by reading the file: the ten
records and their fields parse to the end of the file exactly):
  uint64 read_id length, read_id bytes,
  uint64 n_samples, float32 digitisation, offset, range, sample_rate,
  int16 raw_signal[n_samples],
  uint64 num_bases, uint64 sequence length, sequence bytes,
  uint64 fast5_path length, fast5_path bytes.
The values are written back unchanged (float32 widened to double, printed
with repr so they read back to the same float); pA = (raw + offset) x range
/ digitisation is then slow5lib's and gpuasm's business.

  blow5v01_to_slow5.py IN.blow5 OUT.slow5
Exit status 1 with a message when IN is not such a file.
"""
import struct
import sys

MAGIC = b"##file_format=blow5v0.1\n"


def records(data):
    if not data.startswith(MAGIC):
        raise ValueError("not a blow5v0.1 file (first line %r)" % data[:40])
    i = data.index(b"\n", len(MAGIC)) + 1          # the column line
    while i < len(data):
        (n,) = struct.unpack_from("<Q", data, i); i += 8
        rid = data[i:i + n].decode("ascii"); i += n
        (ns,) = struct.unpack_from("<Q", data, i); i += 8
        dig, off, rng, rate = struct.unpack_from("<4f", data, i); i += 16
        sig = struct.unpack_from("<%dh" % ns, data, i); i += 2 * ns
        i += 8                                      # num_bases
        (n,) = struct.unpack_from("<Q", data, i); i += 8 + n   # sequence
        (n,) = struct.unpack_from("<Q", data, i); i += 8 + n   # fast5_path
        if i > len(data):
            raise ValueError("truncated record %s" % rid)
        yield rid, dig, off, rng, rate, sig


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: blow5v01_to_slow5.py IN.blow5 OUT.slow5\n")
        return 1
    try:
        with open(argv[1], "rb") as f:
            recs = list(records(f.read()))
    except (OSError, ValueError, struct.error) as e:
        sys.stderr.write("blow5v01_to_slow5.py: %s: %s\n" % (argv[1], e))
        return 1
    with open(argv[2], "w") as out:
        out.write("#slow5_version\t0.2.0\n#num_read_groups\t1\n")
        out.write("@converted_from\tblow5v0.1 by tests/signal/blow5v01_to_slow5.py\n")
        out.write("#char*\tuint32_t\tdouble\tdouble\tdouble\tdouble\tuint64_t\tint16_t*\n")
        out.write("#read_id\tread_group\tdigitisation\toffset\trange\tsampling_rate\t"
                  "len_raw_signal\traw_signal\n")
        for rid, dig, off, rng, rate, sig in recs:
            out.write("%s\t0\t%r\t%r\t%r\t%r\t%d\t%s\n" % (rid, dig, off, rng, rate, len(sig),
                                                       ",".join(map(str, sig))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
