#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""conda_recipe.py -- read a conda recipe's meta.yaml as conda-build would
for one variant, without conda (tests/packages/bioconda.bats; issue #29):
Jinja2 rendering with stand-ins for conda-build's functions (compiler(),
pin_subpackage(), ...), then selectors (`# [expr]` at a line's end: the
line is dropped unless expr is true), then YAML.

  conda_recipe.py META.yaml [VAR=VALUE ...] -- KEY.PATH

prints the value at KEY.PATH (test.commands, test.source_files, ...): a
list one item per line, anything else as it is.  VAR=VALUE sets a variant
variable (cuda_compiler_version=None).  Exit status 1 with a message when
the recipe does not render or the key is missing.
"""
import re
import sys

import jinja2
import yaml


def render(path, variant):
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    ctx = dict(variant)
    ctx.update(
        compiler=lambda lang: "%s_compiler_stub" % lang,
        pin_subpackage=lambda name, max_pin=None, exact=False: "%s (pinned %s)" % (name, max_pin),
        pin_compatible=lambda name, **kw: name,
        cdt=lambda name: name,
        PKG_HASH="0", PKG_BUILDNUM="0", environ={})
    text = env.from_string(open(path).read()).render(**ctx)
    # selectors, as conda-build evaluates them: platform names and variant variables
    ns = dict(linux=True, osx=False, win=False, unix=True, x86_64=True, aarch64=False,
              py=312, **variant)
    out = []
    for line in text.split("\n"):
        m = re.search(r"#\s*\[(.*)\]\s*$", line)
        if m:
            if not eval(m.group(1), {"__builtins__": {}}, ns):
                continue
            line = line[:m.start()].rstrip()
        out.append(line)
    return yaml.safe_load("\n".join(out))


def main(argv):
    if "--" not in argv:
        sys.exit(__doc__)
    i = argv.index("--")
    variant = dict(a.split("=", 1) for a in argv[2:i])
    meta = render(argv[1], variant)
    v = meta
    for k in argv[i + 1].split("."):
        if not isinstance(v, dict) or k not in v:
            sys.exit("conda_recipe.py: %s has no %s" % (argv[1], argv[i + 1]))
        v = v[k]
    if isinstance(v, list):
        print("\n".join(str(x) for x in v))
    else:
        print(v)


if __name__ == "__main__":
    main(sys.argv)
