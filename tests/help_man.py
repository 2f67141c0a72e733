#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""help_man.py -- do --help, the man page and the README say the same thing?
(issue #29; tests/bats/docs.bats)

  help_man.py PROG MANPAGE README

For every option of `PROG --help` (a line that starts with a few spaces
and a dash): the man page has an entry (.TP/.B) for the same option
spelling, and the default in square brackets at the end of the option's
text ("[0.1]", "[auto]") is the same in both; the README names the
option (its long form, or its short form in backquotes).  Prints one line
per difference and exits 1 if there is any.
"""
import re
import subprocess
import sys


def help_options(text):
    """option spelling -> its text (continuation lines joined)."""
    opts, cur = {}, None
    for line in text.split("\n"):
        m = re.match(r"^ {2,8}(-\S.*?)(?: {2,}(.*))?$", line)
        if m and not line.startswith(" " * 12):
            cur = m.group(1).strip()
            opts[cur] = (m.group(2) or "").strip()
        elif cur and re.match(r"^ {12,}\S", line):
            opts[cur] += " " + line.strip()
        else:
            cur = None
    return opts


def unroff(s):
    s = s.replace("\\(dq", '"').replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")
    return s.strip()


def man_options(text):
    """option spelling (.TP then .B) -> its text up to the next macro."""
    opts, cur, lines = {}, None, text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith(".B ") and i > 0 and lines[i - 1] == ".TP":
            cur = unroff(line[3:])
            opts[cur] = ""
        elif line.startswith(".") and line != ".br":
            cur = None
        elif cur is not None and line != ".br":
            opts[cur] = (opts[cur] + " " + unroff(line)).strip()
    return opts


def default_of(text):
    """The last [...] of an option's text, or None."""
    m = re.findall(r"\[([^\[\]]*)\]", text)
    return m[-1] if m else None


def main():
    prog, manpage, readme = sys.argv[1:4]
    help_text = subprocess.run([prog, "--help"], capture_output=True, text=True, check=True).stdout
    h = help_options(help_text)
    m = man_options(open(manpage).read())
    doc = open(readme).read()
    bad = []
    if not h:
        bad.append("%s --help: no options found" % prog)
    for opt, text in h.items():
        if opt not in m:
            bad.append("%s: the man page has no entry '%s'" % (manpage, opt))
            continue
        dh, dm = default_of(text), default_of(m[opt])
        if dh != dm:
            bad.append("%s: '%s' default [%s] in --help, [%s] in the man page" % (manpage, opt, dh, dm))
        if re.sub(r"\s+", " ", text) != re.sub(r"\s+", " ", m[opt]):
            bad.append("%s: '%s' says \"%s\" in --help, \"%s\" in the man page"
                       % (manpage, opt, text, m[opt]))
        names = re.findall(r"(?<![\w-])(--?[A-Za-z@0-9][\w-]*)", opt)
        if not any(("`%s" % n) in doc or (n.startswith("--") and n in doc) for n in names):
            bad.append("README.md names none of %s (%s)" % (", ".join(names), prog))
    for opt in m:
        if opt.startswith("-") and opt not in h:
            bad.append("%s: entry '%s' is not an option of --help" % (manpage, opt))
    print("\n".join(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
