#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The test tiers (issue #29): every entry of tests/slow-tests.tsv names a
# test that exists (a renamed test would otherwise leave the slow tier
# silently), with a reason; and a listed test skips under make check and
# runs under make check-full (GPUASM_CHECK_FULL=1).

setup() {
    load helpers
    LIST=$GPUASM_TESTS_DIR/slow-tests.tsv
}

@test "every slow-tier entry names an existing test, with a reason" {
    [ -f "$LIST" ]
    n=0
    while IFS=$'\t' read -r file name why; do
        case $file in ''|'#'*) continue ;; esac
        n=$((n + 1))
        [ -f "$GPUASM_TESTS_DIR/$file" ] || { echo "no file $file"; false; }
        grep -qF "@test \"$name\" {" "$GPUASM_TESTS_DIR/$file" || { echo "$file has no test \"$name\""; false; }
        [ -n "$why" ] || { echo "$file: \"$name\": no reason given"; false; }
    done < "$LIST"
    [ "$n" -gt 0 ]
}

@test "a slow-tier test skips under make check and runs under make check-full" {
    # a tests folder of its own: one bats file, one test listed as slow
    T=$BATS_TEST_TMPDIR
    mkdir -p "$T/tests/bats"
    printf '#!/usr/bin/env bats\nsetup() { load "%s/helpers"; }\n@test "slow one" { true; }\n@test "fast one" { true; }\n' \
        "$GPUASM_TESTS_DIR/bats" > "$T/tests/bats/x.bats"
    printf 'bats/x.bats\tslow one\tbecause\n' > "$T/tests/slow-tests.tsv"
    run env -u GPUASM_CHECK_FULL GPUASM_TESTS_DIR="$T/tests" bats --tap "$T/tests/bats/x.bats"
    assert_line --index 1 "ok 1 slow one # skip slow tier (because): make check-full runs it"
    assert_line --index 2 "ok 2 fast one"
    run env GPUASM_CHECK_FULL=1 GPUASM_TESTS_DIR="$T/tests" bats --tap "$T/tests/bats/x.bats"
    assert_line --index 1 "ok 1 slow one"
    assert_line --index 2 "ok 2 fast one"
}
