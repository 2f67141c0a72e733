#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# libgpuasm and the packaging (issue #10): the README's example gives the
# hits gpuasm-scan gives for the same sequences; the shared library exports
# the public symbols only; the README shows the example as it is built; the
# man pages name every option of --help; --version's first line.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    : "${GPUASM_EXAMPLE:=$_gpuasm_top/examples/example}"
    : "${GPUASM_LIBDIR:=$_gpuasm_top/.libs}"
    : "${GPUASM_SRCDIR:=$_gpuasm_top}"
}

@test "the library's example finds what gpuasm-scan finds in the same sequences" {
    [ -x "$GPUASM_EXAMPLE" ] || skip "examples/example not built (make check builds it)"
    run "$GPUASM_EXAMPLE"
    assert_success
    diff <(printf '%s\n' "$output") "$GPUASM_SRCDIR/examples/example.expected"
    [ "${#lines[@]}" -eq 2 ]
    # The same sequences through gpuasm-scan (whole occurrences, as the
    # library reports them): read, target, strand, search distance (XD,
    # else NM), [pos-1, end), CIGAR.
    src=$GPUASM_SRCDIR/examples/example.c
    awk -F'"' '/const char \*targets/ { t = 1; next } /const char \*reads/ { r = 1; t = 0; next } /};/ { t = r = 0 }
               t && NF >= 3 { print ">" n++ > "'"$T"'/t.fa"; print $2 > "'"$T"'/t.fa" }
               r && NF >= 3 { print ">" m++ > "'"$T"'/r.fa"; print $2 > "'"$T"'/r.fa" }' "$src"
    [ "$(grep -c '>' "$T/t.fa")" -eq 2 ] && [ "$(grep -c '>' "$T/r.fa")" -eq 3 ]
    scan --device cpu --overlap full --read-overlap full "$T/r.fa" "$T/t.fa" | records |
        awk -F'\t' '{ len = 0; c = $6; lead = 0; trail = 0; ql = length($10); first = 1
                      while (match(c, /^[0-9]+[MIDNSHP=X]/)) { n = substr(c, 1, RLENGTH - 1) + 0; op = substr(c, RLENGTH, 1)
                          if (op ~ /[MD=XN]/) len += n
                          if (op == "S") { if (first) lead = n; else trail = n }
                          first = 0; c = substr(c, RLENGTH + 1) }
                      nm = ""; xd = ""
                      for (i = 12; i <= NF; i++) { if ($i ~ /^NM:i:/) nm = substr($i, 6); if ($i ~ /^XD:i:/) xd = substr($i, 6) }
                      d = xd != "" ? xd : nm
                      printf "read %s target %s %s distance %d target [%d, %d) read [%d, %d) %s\n",
                          $1, $3, (int($2 / 16) % 2 ? "-" : "+"), d, $4 - 1, $4 - 1 + len, lead, ql - trail, $6 }' > "$T/scan.txt"
    diff "$T/scan.txt" "$GPUASM_SRCDIR/examples/example.expected"
}

@test "the README shows the example exactly as it is built and installed" {
    awk '/^    \/\* example.c --/ { on = 1 } on && /^    [^ ]/ && !/^    [\/#{}a-z ]/ { on = 0 }
         on { if ($0 ~ /^$/) print ""; else print substr($0, 5) } on && /^    }$/ { exit }' \
        "$GPUASM_SRCDIR/README.md" > "$T/readme_example.c"
    diff "$T/readme_example.c" "$GPUASM_SRCDIR/examples/example.c"
}

@test "libgpuasm.so exports the public calls of gpuasm.h only" {
    so=$(ls "$GPUASM_LIBDIR"/libgpuasm.so.* 2>/dev/null | head -1)
    [ -n "$so" ] || skip "no shared library built"
    command -v nm > /dev/null || skip "nm not installed"
    run sh -c "nm -D --defined-only '$so' | awk '\$2 ~ /^[TDBRW]\$/ { print \$3 }' | sort"
    assert_success
    assert_output "gpuasm_align_batch
gpuasm_config_default
gpuasm_library_version
gpuasm_result_free"
    # and each is declared in the header
    for f in $output; do grep -q "$f(" "$GPUASM_SRCDIR/lib/gpuasm.h"; done
}

@test "the man pages name every option of --help; --version's first line is the program and version" {
    for p in gpuasm-scan gpuasm-signal; do
        bin=$GPUASM_SCAN
        [ $p = gpuasm-signal ] && bin=$GPUASM_SIGNAL
        "$bin" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u > "$T/opts"
        while read -r o; do
            grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" "$GPUASM_SRCDIR/man/$p.1" || { echo "$p.1 lacks $o"; false; }
        done < "$T/opts"
        [ "$("$bin" --version | head -1)" = "$p ${GPUASM_VERSION:-$("$bin" --version | head -1 | cut -d' ' -f2)}" ]
    done
    grep -q '^\.TH GPUASM-SCAN 1' "$GPUASM_SRCDIR/man/gpuasm-scan.1"
}
