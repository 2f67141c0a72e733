#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blow5.py -- write SLOW5 text and BLOW5 files byte by byte (issue #31's
tests and the fuzz seeds), so that a test can also forge what slow5lib
would never write: a len_raw_signal that disagrees with the samples, a
record size larger than the file, a header with 4 billion read groups.

As a module: slow5_text(records, aux=...), blow5(records, ...).
As a command (for the bats tests):
  blow5.py OUT CASE      CASE is one of the names in CASES below.
A record is (read_id, samples, aux_values); the main fields are those of
tests/signal/simulate.py (digitisation 8192, offset 10, range 1467.61,
4000 Hz).  Layout: slow5lib 0.7.0's (src/slow5.c), the SLOW5 v0.2.0
specification (hasindu2008/slow5-specs).
"""
import random
import struct
import sys
import zlib

MAIN_TYPES = "#char*\tuint32_t\tdouble\tdouble\tdouble\tdouble\tuint64_t\tint16_t*"
MAIN_NAMES = "#read_id\tread_group\tdigitisation\toffset\trange\tsampling_rate\tlen_raw_signal\traw_signal"
DIG, OFFSET, RANGE, RATE = 8192.0, 10.0, 1467.61, 4000.0
# auxiliary columns as real files have them (slow5tools f2s): name, type, struct format
AUX = [("channel_number", "char*", None), ("median_before", "double", "<d"),
       ("read_number", "int32_t", "<i"), ("start_mux", "uint8_t", "<B"),
       ("start_time", "uint64_t", "<Q"),
       ("end_reason", "enum{unknown,partial,mux_change,unblock_mux_change,signal_positive,signal_negative}", "<B")]


def records(n=3, samples=400, seed=31):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        level = rng.randrange(-60, 60)
        sig = []
        for _ in range(samples):
            if rng.random() < 0.05:
                level = rng.randrange(-60, 60)
            sig.append(level + rng.randrange(-4, 5))
        out.append(("read%d" % (i + 1), sig, (str(100 + i), 230.5 + i, 7 + i, 1 + i % 4, 1000 * i, i % 6)))
    return out


def header_text(aux, read_groups=1):
    text = "".join("@%s\t%s\n" % (k, "\t".join([v] * read_groups))
                   for k, v in (("run_id", "run1"), ("asic_id", "asic1")))
    text += MAIN_TYPES + "".join("\t" + t for _, t, _ in aux) + "\n"
    text += MAIN_NAMES + "".join("\t" + n for n, _, _ in aux) + "\n"
    return text


def slow5_text(recs, aux=AUX, lens=None):
    """SLOW5 text; lens[i] overrides record i's len_raw_signal."""
    out = "#slow5_version\t0.2.0\n#num_read_groups\t1\n" + header_text(aux)
    for i, (rid, sig, av) in enumerate(recs):
        n = lens[i] if lens and i < len(lens) and lens[i] is not None else len(sig)
        row = [rid, "0", repr(DIG), repr(OFFSET), repr(RANGE), repr(RATE), str(n), ",".join(map(str, sig))]
        row += [str(v) for v in av[:len(aux)]]
        out += "\t".join(row) + "\n"
    return out.encode()


def blow5_record(rid, sig, av, aux=AUX, signal_press=0, length=None):
    b = rid.encode()
    r = struct.pack("<H", len(b)) + b + struct.pack("<Idddd", 0, DIG, OFFSET, RANGE, RATE)
    raw = struct.pack("<%dh" % len(sig), *sig)
    if signal_press == 250:                  # zlib signal (slow5lib's hidden method 250)
        raw = zlib.compress(raw)
    r += struct.pack("<Q", len(raw) // 2 if signal_press == 0 and length is None else
                     (length if length is not None else len(raw))) + raw
    for (name, typ, fmt), v in zip(aux, av):
        if fmt is None:
            s = str(v).encode()
            r += struct.pack("<Q", len(s)) + s
        else:
            r += struct.pack(fmt, v)
    return r


def blow5(recs, aux=AUX, record_press=1, signal_press=0, read_groups=1, lengths=None, sizes=None,
          eof=True, text_size=None):
    """BLOW5 v0.2.0; lengths[i] overrides record i's len_raw_signal,
    sizes[i] its record size field."""
    text = header_text(aux, read_groups).encode()
    fixed = b"BLOW5\x01" + bytes([0, 2, 0, record_press]) + struct.pack("<I", read_groups) + bytes([signal_press])
    fixed += b"\0" * (64 - len(fixed))
    out = fixed + struct.pack("<I", len(text) if text_size is None else text_size) + text
    for i, (rid, sig, av) in enumerate(recs):
        r = blow5_record(rid, sig, av, aux, signal_press, lengths[i] if lengths and i < len(lengths) else None)
        if record_press == 1:
            r = zlib.compress(r)
        size = sizes[i] if sizes and i < len(sizes) and sizes[i] is not None else len(r)
        out += struct.pack("<Q", size) + r
    return out + (b"5WOLB" if eof else b"")


def _cases():
    recs = records()
    one = records(1, 3000)
    return {
        "good.slow5": slow5_text(recs),
        "good.blow5": blow5(recs),
        "good-none.blow5": blow5(recs, record_press=0),
        "good-zlibsig.blow5": blow5(recs, signal_press=250),
        # issue #31's crash: len_raw_signal smaller / larger than the samples, first record
        "len-small.slow5": slow5_text(one + recs, lens=[2]),
        "len-large.slow5": slow5_text(one + recs, lens=[6028]),
        "len-small.blow5": blow5(recs, record_press=0, lengths=[2]),
        "len-huge.blow5": blow5(recs, record_press=0, lengths=[1 << 40]),
        "size-huge.blow5": blow5(recs, record_press=0, sizes=[None, 1 << 50]),
        "no-eof.blow5": blow5(recs, eof=False),
        "groups-huge.blow5": blow5(recs, read_groups=1) [:10] + struct.pack("<I", 4000000000)
                             + blow5(recs)[14:],
        "groups-huge.slow5": slow5_text(recs).replace(b"#num_read_groups\t1", b"#num_read_groups\t4000000000"),
        "textsize-huge.blow5": blow5(recs, text_size=3000000000),
        "crlf.slow5": slow5_text(recs).replace(b"\n", b"\r\n"),
        "aux-missing.slow5": slow5_text(recs).replace(b"\t7\t1\t0\t0\n", b"\n", 1),
        "eof-trailing.blow5": blow5(recs) + b"\n",
        "empty-line.slow5": slow5_text(recs).replace(b"\nread2", b"\n\nread2"),
        "version-missing.slow5": slow5_text(recs).replace(b"#slow5_version\t0.2.0\n", b"#slow5_version\n"),
    }


CASES = _cases


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: blow5.py OUT CASE")
    with open(sys.argv[1], "wb") as f:
        f.write(_cases()[sys.argv[2]])
