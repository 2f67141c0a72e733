#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The nf-core module (issue #29; workflows/nextflow) passes `nf-core modules
# lint` with 0 failures, run as the nf-core/modules repository runs it: the
# module at modules/nf-core/gpuasm/scan of a modules repository that this
# test makes in a temporary folder (git, .nf-core.yml and the two JSON
# schemas of nf-core/modules, which the lint validates meta.yml and
# environment.yml against).
#
# Opt-in (make check-packages; it needs what is not on these machines):
#   * nf-core/tools 4.x: GPUASM_NFCORE=PATH, else _nfcore_venv/bin/nf-core
#     of the source tree (python3 -m venv _nfcore_venv &&
#     _nfcore_venv/bin/pip install 'nf-core>=4,<5'), else nf-core on PATH;
#   * nf-core/modules' schemas: GPUASM_NFCORE_MODULES=DIR, a checkout or a
#     git directory of github.com/nf-core/modules, or GPUASM_NFCORE_NETWORK=1
#     to clone it;
#   * Nextflow: tests/packages/nextflow-stub stands in (its header says
#     what it answers), as the real launcher downloads itself.
# Without them the tests skip and say which is missing.  Network lookups
# the lint makes (Bioconda's package list) warn where there is no network;
# the two warnings expected here are named below.

setup() {
    load ../bats/helpers
    T=$BATS_TEST_TMPDIR
    : "${GPUASM_SRCDIR:=$_gpuasm_top}"
    MOD=$GPUASM_SRCDIR/workflows/nextflow
    NFCORE=${GPUASM_NFCORE:-}
    [ -n "$NFCORE" ] || { [ -x "$GPUASM_SRCDIR/_nfcore_venv/bin/nf-core" ] && NFCORE=$GPUASM_SRCDIR/_nfcore_venv/bin/nf-core; } || true
    [ -n "$NFCORE" ] || NFCORE=$(command -v nf-core || true)
}

require_nfcore() {
    [ -n "$NFCORE" ] || skip "nf-core/tools not installed (python3 -m venv _nfcore_venv && _nfcore_venv/bin/pip install 'nf-core>=4,<5')"
    "$NFCORE" --version 2> /dev/null | grep -q 'version 4\.' || skip "$NFCORE is not nf-core/tools 4.x"
}

# nf-core/modules' FILE (a path in that repository) on stdout.
modules_file() {
    local m=${GPUASM_NFCORE_MODULES:-}
    if [ -z "$m" ] && [ "${GPUASM_NFCORE_NETWORK:-}" = 1 ] && [ ! -d "$BATS_FILE_TMPDIR/nf-core-modules" ]; then
        git clone -q --depth 1 https://github.com/nf-core/modules "$BATS_FILE_TMPDIR/nf-core-modules" || return 1
    fi
    [ -n "$m" ] || m=$BATS_FILE_TMPDIR/nf-core-modules
    if [ -f "$m/$1" ]; then cat "$m/$1"; else git --git-dir="$m" show "HEAD:$1" 2> /dev/null || git -C "$m" show "HEAD:$1"; fi
}

@test "nf-core modules lint: 0 failed on modules/nf-core/gpuasm/scan of a modules repository" {
    require_nfcore
    [ -n "${GPUASM_NFCORE_MODULES:-}" ] || [ "${GPUASM_NFCORE_NETWORK:-}" = 1 ] ||
        skip "needs nf-core/modules' schemas: GPUASM_NFCORE_MODULES=DIR (a checkout or git dir of nf-core/modules) or GPUASM_NFCORE_NETWORK=1"
    R=$T/modules
    mkdir -p "$R/modules/nf-core/gpuasm/scan" "$T/home" "$T/bin"
    cp -r "$MOD/main.nf" "$MOD/meta.yml" "$MOD/environment.yml" "$MOD/tests" "$R/modules/nf-core/gpuasm/scan/"
    modules_file .nf-core.yml > "$R/.nf-core.yml"
    modules_file modules/meta-schema.json > "$R/modules/meta-schema.json"
    modules_file modules/environment-schema.json > "$R/modules/environment-schema.json"
    grep -q '^repository_type: modules' "$R/.nf-core.yml"
    # a git repository that is its own remote: the lint compares the module
    # with the remote's copy (file://, as github.com is not reachable here)
    (cd "$R" && git init -q -b master . && git add -A &&
        git -c user.email=test@gpuasm.invalid -c user.name=test commit -qm "gpuasm/scan" &&
        git remote add origin "$R" && git fetch -q origin && git branch -q -u origin/master)
    cp "$GPUASM_SRCDIR/tests/packages/nextflow-stub" "$T/bin/nextflow"
    run env HOME="$T/home" PATH="$T/bin:$PATH" NF_CORE_LINT_OUTPUT=plain HIDE_PROGRESS=1 \
        "$NFCORE" --log-file "$T/lint.log" modules -g "file://$R" -b master lint gpuasm/scan -d "$R" --plain-text
    printf '%s\n' "$output" | sed -n '/Warning\|Failed\|Passed\|^gpuasm\/scan\|not specified\|labels/p' | sed 's/^/# /' >&3
    assert_output --regexp '\[✔\] +[0-9]+ Tests Passed'
    assert_output --regexp '\[✗\] +0 Tests Failed'
    # the warnings are these two, no other: Bioconda has no gpuasm yet (or
    # no network to ask), and nf-core's label list lacks process_gpu, the
    # label its GPU modules use
    n=$(printf '%s\n' "$output" | sed -n 's/.*\[!\] *\([0-9]*\) Test Warnings*.*/\1/p')
    [ "${n:-0}" -le 2 ]
    [ "${n:-0}" -eq 0 ] || { assert_output --partial "bioconda_version"; assert_output --partial 'Non-standard labels found: `process_gpu`'; }
}
