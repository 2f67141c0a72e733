#!/bin/bash
# SPDX-License-Identifier: MIT
# build.sh -- conda-build runs this in $SRC_DIR (the release tarball,
# unpacked: configure is there, no autotools needed), with PREFIX (the host
# environment, where gpuasm is installed), CPU_COUNT, CC/CFLAGS/LDFLAGS and
# the variant's cuda_compiler_version set (meta.yaml; issue #29).
# tests/packages/bioconda.bats runs it the same way in a clean prefix.
set -euxo pipefail

cuda_args=(--without-cuda)
if [[ "${cuda_compiler_version:-None}" != "None" ]]; then
    # conda's CUDA packages: nvcc in the build environment, the static
    # runtime in the host one (lib, or the targets/ tree of CUDA >= 12).
    cudalib=${PREFIX}/lib
    [[ -f ${cudalib}/libcudart_static.a ]] || cudalib=${PREFIX}/targets/x86_64-linux/lib
    cuda_args=(--with-cuda NVCC="$(command -v nvcc)" CUDA_ARCH="${GPUASM_CUDA_ARCH:-sm_90}"
               CUDA_LIBDIR="${cudalib}")
fi

# Shared libgpuasm only (conda links shared); no fuzzing harness, no real
# test data: neither is part of a package build.  ISA-L (meta.yaml's isa-l)
# is asked for, not left to be found: a package that fell back to zlib
# would inflate gzip reads on zlib, slower, without a word.
./configure --prefix="${PREFIX}" --disable-static --disable-dependency-tracking \
    --with-slow5 --with-isal FUZZ_CC=false GPUASM_SHARED_DATA= "${cuda_args[@]}"
make -j"${CPU_COUNT:-1}"
make install
