# SPDX-License-Identifier: MIT
# helpers.bash -- shared setup of gpuasm's bats tests (tests/bats, tests/data).
#
# make check exports absolute paths (Makefile.am, AM_TESTS_ENVIRONMENT):
#   GPUASM_SCAN         the built gpuasm-scan
#   TEST_DATA           test-data/ of the source tree (the bundled sample)
#   GPUASM_SHARED_DATA  the shared real data (../shared/data beside the checkout)
#   GPUASM_TESTS_DIR    tests/ of the source tree
#   PYTHON3, GPUASM_VERSION
# Run by hand (bats tests/bats/cli.bats from the top of a built tree), the
# defaults below point at the same places.

# run --separate-stderr needs bats >= 1.5 (Debian 12 has 1.8.2).
bats_require_minimum_version 1.5.0

_gpuasm_top=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
: "${GPUASM_SCAN:=$_gpuasm_top/gpuasm-scan}"
: "${GPUASM_SIGNAL:=$_gpuasm_top/gpuasm-signal}"
: "${TEST_DATA:=$_gpuasm_top/test-data}"
: "${GPUASM_TESTS_DIR:=$_gpuasm_top/tests}"
: "${GPUASM_SHARED_DATA:=$_gpuasm_top/../shared/data}"
: "${PYTHON3:=python3}"

# bats-support and bats-assert: Debian installs them in /usr/lib/bats; the
# copy unpacked by fetch-peers lives beside its bats ($BATS_ROOT/lib/bats).
_gpuasm_load() {
    local d IFS=:
    for d in ${BATS_LIB_PATH:-} "${BATS_ROOT:-/nonexistent}/lib/bats" /usr/lib/bats /usr/local/lib/bats; do
        if [ -f "$d/$1/load.bash" ]; then
            # shellcheck disable=SC1090
            source "$d/$1/load.bash"
            return 0
        fi
    done
    echo "helpers.bash: $1 not found (Debian: apt-get install bats-support bats-assert)" >&2
    return 1
}
_gpuasm_load bats-support
_gpuasm_load bats-assert

READS="$TEST_DATA/reads.fq"
TARGETS="$TEST_DATA/targets.fa"
EXPECTED_SAM="$TEST_DATA/sample.expected.sam"

# True when gpuasm-scan was built with ASan (make check-asan's tree).
asan_build() {
    nm "$GPUASM_SCAN" 2>/dev/null | grep -q __asan_init
}

# gpuasm-scan with the given arguments.
scan() {
    "$GPUASM_SCAN" "$@"
}

# Records of a SAM file or stream without the header.
records() {
    grep -v '^@' "$@" || true
}

# SAM without @PG lines (the only line that differs between runs).
no_pg() {
    grep -v '^@PG' "$@" || true
}

require_samtools() {
    command -v samtools >/dev/null 2>&1 || skip "samtools not installed"
}

# A Python that has the edlib module (Debian python3-edlib installs it for
# the system python3, which may not be the first python3 on PATH); prints
# it, or returns 1.
edlib_python() {
    local py
    for py in "$PYTHON3" python3 /usr/bin/python3; do
        if "$py" -c 'import edlib' >/dev/null 2>&1; then
            echo "$py"
            return 0
        fi
    done
    return 1
}

# The slow tier (issue #29): make check-full (and CI) runs every test;
# make check skips the tests listed in tests/slow-tests.tsv (file, test
# name, why), so that it stays within 10 minutes on 2 cores.  The list
# lives apart from the tests so that marking one slow touches no test
# file; tests/bats/tiers.bats checks that every entry names a test.
# GPUASM_CHECK_FULL=1 runs them by hand too.  require_full marks a test
# slow from inside it.
require_full() {
    [ -n "${GPUASM_CHECK_FULL:-}" ] || skip "slow tier${1:+ ($1)}: make check-full runs it"
}

_gpuasm_slow_tier() {
    [ -z "${GPUASM_CHECK_FULL:-}" ] && [ -n "${BATS_TEST_DESCRIPTION:-}" ] || return 0
    local list=$GPUASM_TESTS_DIR/slow-tests.tsv why
    [ -f "$list" ] || return 0
    why=$(awk -F'\t' -v f="${BATS_TEST_FILENAME#"$GPUASM_TESTS_DIR"/}" -v t="$BATS_TEST_DESCRIPTION" \
          '$1 == f && $2 == t { print $3; exit }' "$list")
    [ -z "$why" ] || skip "slow tier ($why): make check-full runs it"
}

require_shared_data() {
    [ -d "$GPUASM_SHARED_DATA/oracles" ] || skip "shared data not found at $GPUASM_SHARED_DATA"
}

# Is there a usable NVIDIA GPU here?
have_gpu() {
    command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'
}

# Assert the failure shape of the command line contract: exit status 1,
# and on stderr exactly one line of ours, the last one, starting
# "gpuasm-scan: " ("$GPUASM_PROG: " when that is set: gpuasm-signal's
# tests) and containing each further argument (the file name, the
# record).  htslib's own messages ("[E::func] ...", "[W::func] ...", as
# samtools shows them) may come before it.  Use after run --separate-stderr.
assert_one_error() {
    assert_equal "$status" 1
    local n=${#stderr_lines[@]} i
    if [ "$n" -lt 1 ]; then
        echo "expected an error on stderr, got nothing" >&2
        return 1
    fi
    for ((i = 0; i < n - 1; i++)); do
        case "${stderr_lines[$i]}" in
            "["[EW]"::"*) ;;
            *) printf 'line %d of stderr is neither htslib'"'"'s nor the last:\n%s\n' \
                   $((i + 1)) "$stderr" >&2; return 1 ;;
        esac
    done
    local last=${stderr_lines[$((n - 1))]} prog=${GPUASM_PROG:-gpuasm-scan}
    case "$last" in
        "$prog: "*) ;;
        *) printf 'the last line of stderr does not start with "%s: ": %s\n' "$prog" "$stderr" >&2; return 1 ;;
    esac
    local want
    for want in "$@"; do
        case "$last" in
            *"$want"*) ;;
            *) printf 'the error does not mention "%s": %s\n' "$want" "$last" >&2; return 1 ;;
        esac
    done
}

# Like assert_one_error, and stderr is that one line alone (errors found
# before htslib is asked anything: options, names, pairing).
assert_only_error() {
    assert_one_error "$@"
    if [ "${#stderr_lines[@]}" -ne 1 ]; then
        printf 'expected one line on stderr, got %d:\n%s\n' "${#stderr_lines[@]}" "$stderr" >&2
        return 1
    fi
}

# FASTQ -> FASTA (no line wrapping).
fq2fa() {
    awk 'NR % 4 == 1 { print ">" substr($0, 2) } NR % 4 == 2 { print }' "$1"
}

# Write a BGZF-compressed copy of $1 to $2 (gzip members with the BC extra
# field, then the empty EOF block), so no bgzip binary is needed.
bgzf() {
    "$PYTHON3" - "$1" "$2" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
out = open(sys.argv[2], "wb")
def block(chunk):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    body = c.compress(chunk) + c.flush()
    bsize = 18 + len(body) + 8
    out.write(b"\x1f\x8b\x08\x04" + b"\0\0\0\0" + b"\0\xff" + struct.pack("<H", 6)
              + b"BC" + struct.pack("<HH", 2, bsize - 1) + body
              + struct.pack("<II", zlib.crc32(chunk) & 0xffffffff, len(chunk)))
for i in range(0, len(data), 60000):
    block(data[i:i + 60000])
block(b"")
PY
}

# The sample as R1/R2 files in $T (pairs.bats, workflow.bats): R1 = the reads named NAME/1, R2 = their
# reverse complements named NAME/2 (so both mates of a virus read hit).
make_pair_files() {
    awk 'NR % 4 == 1 { print $1 "/1"; next } { print }' "$READS" > "$T/r1.fq"
    awk 'BEGIN { c["A"]="T"; c["C"]="G"; c["G"]="C"; c["T"]="A"; c["N"]="N"
                 c["a"]="t"; c["c"]="g"; c["g"]="c"; c["t"]="a"; c["n"]="n" }
         NR % 4 == 1 { print $1 "/2"; next }
         NR % 4 == 2 { s = ""; for (i = length($0); i >= 1; i--) s = s c[substr($0, i, 1)]; print s; next }
         NR % 4 == 0 { q = ""; for (i = length($0); i >= 1; i--) q = q substr($0, i, 1); print q; next }
         { print }' "$READS" > "$T/r2.fq"
}

# The periodic case of issue #12: (ACGTTGCA)x1250 and 150-base periodic
# reads (about 2,500 end hits and 65 reported occurrences per read).
periodic_case() {
    "$PYTHON3" - "$T" "$1" <<'PY'
import random, sys
d, n = sys.argv[1], int(sys.argv[2])
unit = "ACGTTGCA"
open(d + "/periodic.fa", "w").write(">periodic\n" + unit * 1250 + "\n")
r = random.Random(5)
with open(d + "/periodic.fq", "w") as f:
    for i in range(n):
        ph = r.randrange(8)
        f.write("@p%d\n%s\n+\n%s\n" % (i, (unit * 20)[ph:ph + 150], "I" * 150))
PY
}

# $T/copies.fa: 60 copies of one random 2 kb sequence with 2%
# substitutions; $T/r1.fq, $T/r2.fq: 400 pairs of 100 bases, in blocks of
# 25 from the sequence's 300-base fragments (~60 end hits a read) and 25
# random ones (none): a round sized in a random block meets the hit
# budget in the next (hostile.bats, auto_move.bats).
pairs_vs_copies_case() {
    "$PYTHON3" - "$T" <<'PY'
import random, sys
d = sys.argv[1]
r = random.Random(7)
g = "".join(r.choice("ACGT") for _ in range(2000))
comp = {"A": "T", "C": "G", "G": "C", "T": "A"}
with open(d + "/copies.fa", "w") as f:
    for i in range(60):
        s = [c if r.random() >= 0.02 else r.choice("ACGT".replace(c, "")) for c in g]
        f.write(">copy%d\n%s\n" % (i, "".join(s)))
with open(d + "/r1.fq", "w") as f1, open(d + "/r2.fq", "w") as f2:
    for i in range(400):
        if (i // 25) % 2:
            frag = "".join(r.choice("ACGT") for _ in range(300))
        else:
            a = r.randrange(len(g) - 300)
            frag = g[a:a + 300]
        f1.write("@p%d\n%s\n+\n%s\n" % (i, frag[:100], "I" * 100))
        f2.write("@p%d\n%s\n+\n%s\n" % (i, "".join(comp[c] for c in reversed(frag[-100:])), "I" * 100))
PY
}

# A key of a --stats file (peak_rss_kb, rounds, ...).
stat_of() { "$PYTHON3" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# The end-of-run summary on stderr (issue #10: "gpuasm-scan: reads: ..."
# and its indented per-target lines) taken off $stderr and $stderr_lines
# after a `run --separate-stderr`, for tests about the other stderr lines
# (warnings, errors, silence otherwise); workflow.bats tests the summary.
strip_summary() {
    local keep=() l
    for l in "${stderr_lines[@]}"; do
        [[ "$l" =~ ^gpuasm-scan:\ .*:\ [0-9]+\ reads,\ [0-9]+\ with\ a\ hit\ \(.*%\),\ [0-9]+\ hit\ records(\;\ [0-9.e+-]+\ expected\ by\ chance)?$ ||
           "$l" =~ ^gpuasm-scan:\ \ \ .*\ [0-9]+\ reads\ \(.*%\):\ [0-9]+\ full,\ [0-9]+\ partial\;\ [0-9]+\ forward,\ [0-9]+\ reverse(\;\ [0-9.e+-]+\ by\ chance)?(\;\ breadth\ [0-9.]+,\ depth\ [0-9.]+)?$ ]] ||
            keep+=("$l")
    done
    stderr_lines=("${keep[@]}")
    if [ "${#keep[@]}" -gt 0 ]; then stderr=$(printf '%s\n' "${keep[@]}"); else stderr=""; fi
}

# filter_equal NAME READS TARGETS [OPTIONS...] (issue #16: filter.bats,
# ends_filter.bats): every --filter value (auto, on, pieces, index, 2
# threads) gives --filter off's SAM, which must have a hit; the --stats of
# each run in $T/NAME.VALUE.json ($T: the test's temporary directory).
filter_equal() {
    local name=$1 reads=$2 targets=$3 f
    shift 3
    scan --device cpu --no-PG --filter off --stats "$T/$name.off.json" "$@" "$reads" "$targets" > "$T/$name.off.sam"
    [ "$(grep -vc '^@' "$T/$name.off.sam")" -gt 0 ] || { echo "no hits: $name $*"; return 1; }
    for f in auto on pieces index; do
        scan --device cpu --no-PG -@ 2 --filter "$f" --stats "$T/$name.$f.json" "$@" "$reads" "$targets" \
            > "$T/$name.$f.sam"
        cmp "$T/$name.off.sam" "$T/$name.$f.sam" || { echo "differs: --filter $f $name $*"; return 1; }
    done
}

# stats_value FILE KEY: a value of a --stats file.
stats_value() {
    "$PYTHON3" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

# Tests of the slow tier skip here, in their setup (helpers is loaded there).
_gpuasm_slow_tier
