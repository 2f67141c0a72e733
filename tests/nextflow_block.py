#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""nextflow_block.py MAIN.NF BLOCK VARS.json -- print the shell script of a
Nextflow process's `script:` or `stub:` block with its variables substituted
as Nextflow would (tests/bats/nextflow.bats; Nextflow itself cannot be
installed here).  VARS maps each Groovy expression of the block ("task.cpus
- 1", "prefix", "meta.id", ...) to its value; an expression VARS does not
have, or a `def` it does not name, is an error (exit 1), so a change to the
module cannot go untested."""
import json
import re
import sys

path, block, varfile = sys.argv[1:4]
text = open(path).read()
values = json.load(open(varfile))

# The block: from "BLOCK:" to the next block label or the process's end.
m = re.search(r"^\s*%s:\s*\n(.*?)(?=^\s*(?:script|stub|output|input|when):\s*$|^}\s*$)" % block,
              text, re.S | re.M)
if not m:
    sys.exit("nextflow_block.py: no %s: block in %s" % (block, path))
body = m.group(1)
for name in re.findall(r"^\s*def\s+(\w+)\s*=", body, re.M):
    if name not in values:
        sys.exit("nextflow_block.py: def %s of the %s: block has no value in %s" % (name, block, varfile))
q = re.search(r'"""\n(.*?)"""', body, re.S)
if not q:
    sys.exit("nextflow_block.py: no \"\"\" script in the %s: block" % block)

def subst(tok):
    t = tok.group(0)
    if t == "\\\\":
        return "\\"
    if t == "\\$":
        return "$"
    expr = t[2:-1].strip() if t.startswith("${") else t[1:]
    if expr not in values:
        sys.exit("nextflow_block.py: %s of the %s: block has no value in %s" % (t, block, varfile))
    return str(values[expr])

print(re.sub(r"\\\\|\\\$|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_.]*", subst, q.group(1)), end="")
