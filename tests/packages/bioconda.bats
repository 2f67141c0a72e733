#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The Bioconda recipe (issue #29; packaging/bioconda): build.sh run the way
# conda-build runs it -- in SRC_DIR (the distribution tree, as the release
# tarball unpacks), with PREFIX an empty prefix, CPU_COUNT and the CPU
# variant's cuda_compiler_version=None -- then every command of the
# recipe's test: section, in a folder holding its test: source_files, as
# conda-build's test phase does.  The CUDA variant's build is opt-in
# (GPUASM_PACKAGE_CUDA=1, with nvcc): it compiles every kernel.
# tests/packages/conda_recipe.py reads meta.yaml as conda-build does.

setup_file() {
    load ../bats/helpers
    : "${GPUASM_BUILDDIR:=$_gpuasm_top}"
    : "${GPUASM_SRCDIR:=$_gpuasm_top}"
    W=$BATS_FILE_TMPDIR
    "$PYTHON3" -c 'import jinja2, yaml' 2> /dev/null || return 0
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$GPUASM_BUILDDIR" distdir distdir="$W/src" \
        > "$W/distdir.log" 2>&1 || { cat "$W/distdir.log" >&3; return 1; }
    mkdir "$W/prefix"
    (cd "$W/src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PREFIX="$W/prefix" SRC_DIR="$W/src" \
        CPU_COUNT="${GPUASM_PACKAGE_JOBS:-2}" cuda_compiler_version=None CC=cc \
        bash "$GPUASM_SRCDIR/packaging/bioconda/build.sh") > "$W/build.log" 2>&1 ||
        { tail -30 "$W/build.log" >&3; return 1; }
    touch "$W/built"
}

setup() {
    load ../bats/helpers
    T=$BATS_TEST_TMPDIR
    W=$BATS_FILE_TMPDIR
    : "${GPUASM_SRCDIR:=$_gpuasm_top}"
    RECIPE=$GPUASM_SRCDIR/packaging/bioconda
    "$PYTHON3" -c 'import jinja2, yaml' 2> /dev/null || skip "no Python jinja2 and yaml (Debian: python3-jinja2 python3-yaml)"
}

recipe() {   # recipe VARIANT KEY
    "$PYTHON3" "$GPUASM_SRCDIR/tests/packages/conda_recipe.py" "$RECIPE/meta.yaml" \
        "cuda_compiler_version=$1" -- "$2"
}

@test "meta.yaml follows Bioconda's conventions (both variants render)" {
    for v in None 12.6; do
        recipe $v package.version > "$T/version"
        [ "$(cat "$T/version")" = "$(sed -n 's/^AC_INIT(\[gpuasm\], \[\([^]]*\)\].*/\1/p' "$GPUASM_SRCDIR/configure.ac")" ]
        recipe $v source.url | grep -q "/v$(cat "$T/version")/gpuasm-$(cat "$T/version").tar.gz$"
        [ "$(recipe $v source.sha256 | tr -d '\n' | wc -c)" -eq 64 ]
        recipe $v build.number | grep -qx 0
        recipe $v build.run_exports | grep -q '^gpuasm (pinned x.x)$'
        recipe $v requirements.build | grep -qx c_compiler_stub
        recipe $v requirements.host | grep -qx htslib
        ! recipe $v requirements.run | grep -q htslib   # htslib's own run_exports pin it
        recipe $v about.license | grep -qx MIT
        recipe $v about.license_file | grep -qx LICENSE
        [ "$(recipe $v test.commands | wc -l)" -ge 5 ]
    done
    # the variants: a CPU build string and no CUDA; a CUDA one with its compiler and runtime
    recipe None build.string | grep -qx 'cpu_0'
    ! recipe None requirements.build | grep -q cuda
    recipe 12.6 build.string | grep -qx 'cuda126_0'
    recipe 12.6 requirements.build | grep -qx cuda_compiler_stub
    recipe 12.6 requirements.host | grep -qx cuda-cudart-static
    grep -q -- '--without-cuda' "$RECIPE/build.sh" && grep -q -- '--with-cuda' "$RECIPE/build.sh"
    # the containers the nf-core module and the container recipe name are
    # this recipe's builds: VERSION--BUILDSTRING
    v=$(recipe None package.version)
    for b in "$(recipe None build.string)" "$(recipe 12.6 build.string)"; do
        grep -q "quay.io/biocontainers/gpuasm:$v--$b'" "$GPUASM_SRCDIR/workflows/nextflow/main.nf"
        grep -q "https://depot.galaxyproject.org/singularity/gpuasm:$v--$b'" "$GPUASM_SRCDIR/workflows/nextflow/main.nf"
    done
    grep -q "bioconda::gpuasm=$v\$" "$GPUASM_SRCDIR/workflows/nextflow/environment.yml"
}

@test "build.sh installs into a clean PREFIX as conda-build calls it" {
    [ -f "$W/built" ] || { echo "build.sh failed (above)"; false; }
    P=$W/prefix
    [ -x "$P/bin/gpuasm-scan" ] && [ -x "$P/bin/gpuasm-signal" ]
    [ -f "$P/lib/libgpuasm.so" ] && [ ! -e "$P/lib/libgpuasm.a" ]
    [ -f "$P/include/gpuasm.h" ] && [ -f "$P/share/man/man1/gpuasm-scan.1" ]
    grep -qx "prefix=$P" "$P/lib/pkgconfig/gpuasm.pc"
    # nothing outside PREFIX was written by the install (conda packages what is new in PREFIX)
    ! grep -n 'cuda' "$P/lib/pkgconfig/gpuasm.pc" | grep -v '^[0-9]*:#'
}

@test "the recipe's test: commands pass against the installed prefix" {
    [ -f "$W/built" ] || { echo "build.sh failed"; false; }
    mkdir "$T/work"
    while read -r f; do
        mkdir -p "$T/work/$(dirname "$f")"
        cp "$W/src/$f" "$T/work/$f"
    done < <(recipe None test.source_files)
    n=0
    while IFS= read -r cmd; do
        n=$((n + 1))
        (cd "$T/work" && env PATH="$W/prefix/bin:$PATH" PREFIX="$W/prefix" CC=cc \
            PKG_CONFIG_PATH="$W/prefix/lib/pkgconfig" bash -e -o pipefail -c "$cmd") > "$T/out" 2>&1 ||
            { echo "test command failed: $cmd"; cat "$T/out"; false; }
    done < <(recipe None test.commands)
    [ "$n" -ge 5 ]
    echo "# $n test commands passed" >&3
}

@test "the CUDA variant's build.sh (opt-in: GPUASM_PACKAGE_CUDA=1)" {
    [ "${GPUASM_PACKAGE_CUDA:-}" = 1 ] || skip "the CUDA variant compiles every kernel: GPUASM_PACKAGE_CUDA=1 runs it"
    command -v nvcc > /dev/null || skip "no nvcc"
    mkdir "$T/prefix"
    cudart=$(dirname "$(readlink -f "$(command -v nvcc)")")/../lib64
    cp -r "$W/src" "$T/src"
    # conda's host environment would hold the static runtime: the toolkit's stands in
    mkdir -p "$T/prefix/lib" && ln -s "$(readlink -f "$cudart")/libcudart_static.a" "$T/prefix/lib/"
    (cd "$T/src" && env -u MAKEFLAGS PREFIX="$T/prefix" SRC_DIR="$T/src" CPU_COUNT="${GPUASM_PACKAGE_JOBS:-2}" \
        cuda_compiler_version=12.6 CC=cc bash "$RECIPE/build.sh") > "$T/build.log" 2>&1 ||
        { tail -30 "$T/build.log"; false; }
    grep -q '^cudalibdir=' "$T/prefix/lib/pkgconfig/gpuasm.pc"
    "$T/prefix/bin/gpuasm-scan" --device cpu --no-PG "$READS" "$TARGETS" | cmp - <(no_pg "$EXPECTED_SAM")
}
