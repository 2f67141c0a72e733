#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The Debian source package (issue #29; debian/): dpkg-buildpackage builds
# its three binary packages from the distribution tree (make distdir), in a
# temporary folder; lintian finds nothing to report; the packages'
# contents, unpacked with dpkg -x (nothing is installed on this machine),
# run: the programs on the bundled sample, and the README's library example
# built with pkg-config alone, as debian/tests/smoke (the autopkgtest) does.
# make check-packages runs it (a package build takes minutes); it skips,
# saying why, where the Debian build tools are absent.

setup_file() {
    load ../bats/helpers
    : "${GPUASM_BUILDDIR:=$_gpuasm_top}"
    command -v dpkg-buildpackage > /dev/null || return 0
    command -v dh > /dev/null || return 0
    W=$BATS_FILE_TMPDIR
    export DEB_WORK=$W
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$GPUASM_BUILDDIR" distdir distdir="$W/gpuasm-src" \
        > "$W/distdir.log" 2>&1 || { cat "$W/distdir.log" >&3; return 1; }
    (cd "$W/gpuasm-src" && dpkg-checkbuilddeps) > "$W/builddeps.log" 2>&1 || return 0
    (cd "$W/gpuasm-src" &&
        DEB_BUILD_OPTIONS="nocheck parallel=${GPUASM_PACKAGE_JOBS:-2}" dpkg-buildpackage -us -uc -b) \
        > "$W/build.log" 2>&1 || { tail -30 "$W/build.log" >&3; return 1; }
    touch "$W/built"
}

setup() {
    load ../bats/helpers
    T=$BATS_TEST_TMPDIR
    : "${GPUASM_SRCDIR:=$_gpuasm_top}"
    command -v dpkg-buildpackage > /dev/null && command -v dh > /dev/null ||
        skip "no dpkg-buildpackage/debhelper (Debian: apt-get install dpkg-dev debhelper)"
    W=$BATS_FILE_TMPDIR
    if [ ! -f "$W/built" ]; then
        [ -s "$W/builddeps.log" ] && skip "build dependencies missing: $(cat "$W/builddeps.log")"
        echo "the package build failed (see above)"
        return 1
    fi
    MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
    VER=$(cd "$W/gpuasm-src" && dpkg-parsechangelog -SVersion)
    ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)
}

@test "dpkg-buildpackage builds gpuasm, libgpuasm0 and libgpuasm-dev" {
    for p in gpuasm libgpuasm0 libgpuasm-dev; do
        [ -f "$W/${p}_${VER}_${ARCH}.deb" ]
    done
    # what each holds
    for p in gpuasm libgpuasm0 libgpuasm-dev; do dpkg-deb -c "$W/${p}_${VER}_${ARCH}.deb" > "$T/$p.list"; done
    grep -q './usr/bin/gpuasm-scan$' "$T/gpuasm.list"
    grep -q './usr/share/man/man1/gpuasm-scan.1.gz$' "$T/gpuasm.list"
    grep -q "./usr/lib/$MA/libgpuasm.so.0 -> libgpuasm.so.0.0.0\$" "$T/libgpuasm0.list"
    grep -q "./usr/lib/$MA/pkgconfig/gpuasm.pc\$" "$T/libgpuasm-dev.list"
    grep -q "./usr/include/gpuasm.h\$" "$T/libgpuasm-dev.list"
    ! grep -q '\.la$' "$T/libgpuasm-dev.list"
    dpkg-deb -f "$W/gpuasm_${VER}_${ARCH}.deb" Depends | grep -q 'libhts3'
}

@test "lintian reports nothing on the binary packages (errors, warnings, info, pedantic)" {
    command -v lintian > /dev/null || skip "lintian not installed"
    run lintian --info --pedantic --display-experimental --fail-on error,warning,info,pedantic \
        "$W/gpuasm_${VER}_${ARCH}.changes"
    printf '%s\n' "$output" | grep -v '^running with root privileges' >&3 || true
    assert_success
    refute_output --regexp '^[EWIPX]: '
}

@test "the unpacked packages run: gpuasm-scan on the sample, gpuasm-signal, the library example (shared, static)" {
    R=$T/root
    for p in gpuasm libgpuasm0 libgpuasm-dev; do dpkg -x "$W/${p}_${VER}_${ARCH}.deb" "$R"; done
    export LD_LIBRARY_PATH=$R/usr/lib/$MA
    "$R/usr/bin/gpuasm-scan" --version | head -1 | grep -qx "gpuasm-scan ${VER%%-*}"
    "$R/usr/bin/gpuasm-scan" --device cpu --no-PG "$READS" "$TARGETS" > "$T/hits.sam"
    no_pg "$EXPECTED_SAM" | cmp - "$T/hits.sam"
    run "$R/usr/bin/gpuasm-signal" --norm none --tsv "$TEST_DATA/fig4.X.txt" "$TEST_DATA/fig4.Y.txt"
    assert_success
    assert_line --index 1 --regexp $'\t4\t0\\.8000\t'
    [ -f "$R/usr/share/doc/gpuasm/README.md" ] && [ -f "$R/usr/share/doc/gpuasm/copyright" ]
    # the library through pkg-config alone: the .pc of the package, its
    # paths moved under the unpacked root
    export PKG_CONFIG_PATH=$R/usr/lib/$MA/pkgconfig
    pc="pkg-config --define-variable=prefix=$R/usr"
    cp "$GPUASM_SRCDIR/examples/example.c" "$T/"
    cd "$T"
    cc example.c $($pc --cflags --libs gpuasm) -o example
    ./example | cmp - "$GPUASM_SRCDIR/examples/example.expected"
    ldd ./example | grep -q "$R/usr/lib/$MA/libgpuasm.so.0"
    cc -static example.c $($pc --static --cflags --libs gpuasm) -o example-static 2> link.log
    ./example-static | cmp - "$GPUASM_SRCDIR/examples/example.expected"
}

@test "the autopkgtest (debian/tests/smoke) passes on the unpacked packages" {
    R=$T/root
    for p in gpuasm libgpuasm0 libgpuasm-dev; do dpkg -x "$W/${p}_${VER}_${ARCH}.deb" "$R"; done
    mkdir "$T/tmp"
    # the packages' files found where an installation would put them: PATH,
    # the loader's path, and pkg-config's sysroot for the .pc's /usr paths
    cd "$W/gpuasm-src"
    run env PATH="$R/usr/bin:$PATH" LD_LIBRARY_PATH="$R/usr/lib/$MA" \
        PKG_CONFIG_PATH="$R/usr/lib/$MA/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$R" \
        AUTOPKGTEST_TMP="$T/tmp" sh debian/tests/smoke
    assert_success
}
