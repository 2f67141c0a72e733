#!/usr/bin/env bats
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
    file=$(awk -F'\t' '$1 ~ /^bats\// { print $1; exit }' "$LIST")
    name=$(awk -F'\t' '$1 ~ /^bats\// { print $2; exit }' "$LIST")
    [ -n "$file" ]
    run env -u GPUASM_CHECK_FULL bats --tap -f "^$(printf '%s' "$name" | sed 's/[][\.*^$()+?{}|]/\\&/g')\$" "$GPUASM_TESTS_DIR/$file"
    assert_output --regexp "^ok 1 .* # skip slow tier \\("
}
