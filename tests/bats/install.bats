#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The library installs where it is put (issue #29): `make install
# prefix=DIR` into a fresh temporary prefix, then the README's compile
# lines (Library section: shared, and static through `pkg-config
# --static`) are run as written, with pkg-config alone finding the
# library, and their output is the example's.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    : "${GPUASM_BUILDDIR:=$_gpuasm_top}"
    : "${GPUASM_SRCDIR:=$_gpuasm_top}"
    [ -f "$GPUASM_BUILDDIR/Makefile" ] || skip "no configured build tree at $GPUASM_BUILDDIR"
    command -v pkg-config > /dev/null || skip "pkg-config not installed"
    command -v cc > /dev/null || skip "no cc (the README's compile line names it)"
}

# make install into $T/p (once per test: each test has its own $T), quietly;
# the sub-make must not inherit make check's jobserver.
install_to_prefix() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$GPUASM_BUILDDIR" install prefix="$T/p" \
        > "$T/install.log" 2>&1 || { cat "$T/install.log"; return 1; }
    export PKG_CONFIG_PATH="$T/p/lib/pkgconfig" LD_LIBRARY_PATH="$T/p/lib"
}

# The README's "$ cc ... pkg-config ..." lines of the Library section.
readme_compile_lines() {
    sed -n '/^## Library/,/^## /p' "$GPUASM_SRCDIR/README.md" | sed -n 's/^    \$ \(cc .*pkg-config.*\)$/\1/p'
}

@test "make install prefix=DIR writes gpuasm.pc pointing into DIR" {
    install_to_prefix
    [ -f "$T/p/lib/pkgconfig/gpuasm.pc" ]
    [ "$(pkg-config --variable=prefix gpuasm)" = "$T/p" ]
    [ "$(pkg-config --variable=libdir gpuasm)" = "$T/p/lib" ]
    [ "$(pkg-config --cflags gpuasm)" = "-I$T/p/include" ] ||
        [ "$(pkg-config --cflags gpuasm | tr ' ' '\n' | grep -c -- "-I$T/p/include")" -eq 1 ]
    [ -f "$T/p/include/gpuasm.h" ] && [ -f "$T/p/lib/libgpuasm.a" ] && [ -x "$T/p/bin/gpuasm-scan" ]
    # nothing of configure's prefix is left in it, and a CUDA build's runtime
    # directory only in its own variable (cudalibdir, which
    # --define-variable overrides), never in the link flags
    ! grep -n '/usr/local' "$T/p/lib/pkgconfig/gpuasm.pc" | grep -v ':cudalibdir='
    ! grep -n '^Libs.*cuda-[0-9]' "$T/p/lib/pkgconfig/gpuasm.pc"
    if grep -q '^cudalibdir=' "$T/p/lib/pkgconfig/gpuasm.pc"; then
        pkg-config --static --libs gpuasm | grep -q -- "-L$(pkg-config --variable=cudalibdir gpuasm) "
        pkg-config --define-variable=cudalibdir=/elsewhere --static --libs gpuasm | grep -q -- '-L/elsewhere '
    fi
    # make uninstall takes it away again
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$GPUASM_BUILDDIR" uninstall prefix="$T/p" > /dev/null 2>&1
    [ ! -e "$T/p/lib/pkgconfig/gpuasm.pc" ] && [ ! -e "$T/p/include/gpuasm.h" ]
}

@test "the README's shared compile line builds the example against the installed library" {
    asan_build && skip "an ASan build's library needs -fsanitize=address in the program too (the plain build's make check runs this)"
    install_to_prefix
    mapfile -t cmds < <(readme_compile_lines)
    [ "${#cmds[@]}" -eq 2 ]
    cp "$GPUASM_SRCDIR/examples/example.c" "$T/"
    cd "$T"
    [[ "${cmds[0]}" != *-static* ]]
    run bash -c "${cmds[0]}"
    assert_success
    diff <(printf '%s\n' "$output") "$GPUASM_SRCDIR/examples/example.expected"
    # it took the installed shared library, not a copy from the build tree
    run ldd ./example
    assert_output --partial "$T/p/lib/libgpuasm.so"
}

@test "the README's static compile line (pkg-config --static) builds a static example" {
    asan_build && skip "an ASan build's library needs -fsanitize=address in the program too (the plain build's make check runs this)"
    install_to_prefix
    mapfile -t cmds < <(readme_compile_lines)
    cmd=${cmds[1]}
    [[ "$cmd" == *"--static"* ]]
    # Never -lisal, with or without ISA-L in the build: the library's calls
    # read no file, and Debian's libisal-dev has no libisal.a (gpuasm.pc.in).
    ! pkg-config --static --libs gpuasm | tr ' ' '\n' | grep -qx -- -lisal || false
    # Every library pkg-config --static names must exist as an archive
    # (htslib's own static dependencies: Debian's libhts-dev does not pull
    # in libhtscodecs-dev), else this is not the test's to judge.
    for l in $(pkg-config --static --libs-only-l gpuasm); do
        case $l in -lgpuasm|-pthread) continue ;; esac
        a=$(cc -print-file-name="lib${l#-l}.a")
        [ "$a" != "lib${l#-l}.a" ] ||
            skip "no lib${l#-l}.a for pkg-config --static (Debian: libhtscodecs-dev, libdeflate-dev, libbz2-dev, liblzma-dev)"
    done
    # A CUDA build's runtime loads the driver with dlopen: no -static there (README).
    if grep -q '^cudalibdir=' "$T/p/lib/pkgconfig/gpuasm.pc"; then cmd=${cmd/cc -static /cc }; fi
    cp "$GPUASM_SRCDIR/examples/example.c" "$T/"
    cd "$T"
    run --separate-stderr bash -c "$cmd"
    assert_success
    diff <(printf '%s\n' "$output") "$GPUASM_SRCDIR/examples/example.expected"
    # no libgpuasm.so was needed: the archive went into the program
    ! ldd ./example 2>/dev/null | grep -q libgpuasm || false
    # and nothing of the reads reader came with it (no ISA-L symbol to resolve)
    if command -v nm > /dev/null; then ! nm ./example | grep -q 'isal_inflate\|gpuasm_gunzip' || false; fi
}
