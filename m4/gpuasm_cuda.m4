# SPDX-License-Identifier: MIT
# gpuasm_cuda.m4 -- find a CUDA toolkit for the optional GPU backend.
#
# GPUASM_CHECK_CUDA
#
#   --with-cuda[=DIR]  use CUDA (from DIR, else $CUDA_HOME, PATH, /usr/local/cuda);
#                      failing to find a working nvcc + cudart is an error.
#   --without-cuda     CPU only.
#   (neither)          use CUDA when nvcc and cudart are found and work.
#
# Precious variables: NVCC (the compiler), CUDA_ARCH (nvcc -arch value,
# default sm_90 = H100/H200; never "native", which on a machine without a GPU
# silently falls back to an old architecture), NVCCFLAGS.
#
# The check compiles a tiny __global__ kernel with nvcc and links a host C
# program against the *static* cudart (-lcudart_static -ldl -lrt -lpthread
# -lstdc++), the way gpuasm-scan is linked, so the binary needs no
# LD_LIBRARY_PATH.  Nothing is run: the build machine may have no GPU.
#
# Where libcudart_static.a lives (issue #29: never a path written into the
# build by hand): CUDA_LIBDIR as given; else the toolkit's own pkg-config
# module (cudart-X.Y, as NVIDIA's packages and conda's cuda-cudart-dev
# install it) names its libdir; else the toolkit root's lib64, lib or
# targets/*/lib.  gpuasm.pc names it in a variable of its own (cudalibdir),
# which `pkg-config --define-variable=cudalibdir=DIR` overrides.
#
# Sets: use_cuda (yes/no), NVCC, CUDA_ARCH, NVCCFLAGS, CUDA_CPPFLAGS,
#       CUDA_LIBDIR, CUDA_LDFLAGS, CUDA_LIBS; AC_DEFINE HAVE_CUDA;
#       AM_CONDITIONAL HAVE_CUDA.
AC_DEFUN([GPUASM_CHECK_CUDA], [
AC_REQUIRE([AC_PROG_CC])
AC_ARG_VAR([NVCC], [CUDA compiler (default: nvcc from --with-cuda=DIR, $CUDA_HOME, PATH or /usr/local/cuda)])
AC_ARG_VAR([CUDA_ARCH], [GPU architecture for nvcc -arch (default: sm_90)])
AC_ARG_VAR([NVCCFLAGS], [extra flags for nvcc (default: -O3)])
AC_ARG_VAR([CUDA_LIBDIR], [directory of libcudart_static.a (default: from the toolkit's cudart pkg-config module, else the toolkit's lib64)])
AC_ARG_WITH([cuda],
  [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@],
    [build the CUDA backend (toolkit in DIR; default: use CUDA if nvcc and cudart are found)])],
  [], [with_cuda=check])

use_cuda=no
CUDA_CPPFLAGS=
CUDA_LDFLAGS=
CUDA_LIBS=
: ${CUDA_ARCH=sm_90}
: ${NVCCFLAGS=-O3}
AS_IF([test "x$CUDA_ARCH" = xnative],
  [AC_MSG_WARN([CUDA_ARCH=native compiles for an old default GPU on machines without one; name the architecture, e.g. sm_90])])

AS_IF([test "x$with_cuda" != xno], [
  gpuasm_cuda_dirs=
  AS_CASE([$with_cuda],
    [yes|check], [gpuasm_cuda_dirs="${CUDA_HOME} PATH /usr/local/cuda"],
    [gpuasm_cuda_dirs="$with_cuda"])

  # 1. nvcc: $NVCC as given, else the first candidate that has one.
  AC_MSG_CHECKING([for nvcc])
  AS_IF([test -z "$NVCC"], [
    for gpuasm_d in $gpuasm_cuda_dirs; do
      AS_IF([test "x$gpuasm_d" = xPATH],
        [gpuasm_nvcc=`command -v nvcc 2>/dev/null`],
        [gpuasm_nvcc="$gpuasm_d/bin/nvcc"])
      AS_IF([test -n "$gpuasm_nvcc" && test -x "$gpuasm_nvcc"], [NVCC=$gpuasm_nvcc; break])
    done
  ])
  AS_IF([test -n "$NVCC"], [AC_MSG_RESULT([$NVCC])], [AC_MSG_RESULT([no])])

  # 2. The toolkit root is the directory above nvcc's bin/ (symlinks resolved).
  AS_IF([test -n "$NVCC"], [
    gpuasm_nvcc_path=`command -v "$NVCC" 2>/dev/null`
    gpuasm_nvcc_real=`readlink -f "$gpuasm_nvcc_path" 2>/dev/null || echo "$gpuasm_nvcc_path"`
    gpuasm_cuda_root=`dirname "$gpuasm_nvcc_real"`
    gpuasm_cuda_root=`dirname "$gpuasm_cuda_root"`
    AS_CASE([$with_cuda], [yes|check|no], [], [gpuasm_cuda_root=$with_cuda])
    AC_MSG_CHECKING([for the static CUDA runtime])
    gpuasm_cudart_dir=
    AS_IF([test -n "$CUDA_LIBDIR"], [
      AS_IF([test -f "$CUDA_LIBDIR/libcudart_static.a"], [gpuasm_cudart_dir=$CUDA_LIBDIR],
        [AC_MSG_RESULT([no]); AC_MSG_ERROR([CUDA_LIBDIR=$CUDA_LIBDIR has no libcudart_static.a])])])
    # The toolkit's own pkg-config module, cudart-X.Y (X.Y: nvcc's release).
    gpuasm_cuda_release=`"$NVCC" --version 2>/dev/null | sed -n 's/.*release \([[0-9]][[0-9]]*\.[[0-9]][[0-9]]*\).*/\1/p' | head -1`
    AS_IF([test -z "$gpuasm_cudart_dir" && test -n "$gpuasm_cuda_release" && test -n "$PKG_CONFIG"], [
      gpuasm_l=`$PKG_CONFIG --variable=libdir "cudart-$gpuasm_cuda_release" 2>/dev/null`
      AS_IF([test -n "$gpuasm_l" && test -f "$gpuasm_l/libcudart_static.a"], [gpuasm_cudart_dir=$gpuasm_l])])
    for gpuasm_l in lib64 lib targets/x86_64-linux/lib targets/sbsa-linux/lib; do
      test -n "$gpuasm_cudart_dir" && break
      AS_IF([test -f "$gpuasm_cuda_root/$gpuasm_l/libcudart_static.a"],
        [gpuasm_cudart_dir="$gpuasm_cuda_root/$gpuasm_l"; break])
    done
    AS_IF([test -n "$gpuasm_cudart_dir"],
      [AC_MSG_RESULT([$gpuasm_cudart_dir/libcudart_static.a])],
      [AC_MSG_RESULT([no])])
  ])

  # 3. Compile a kernel with nvcc, link it into a C program with static cudart.
  AS_IF([test -n "$NVCC" && test -n "$gpuasm_cudart_dir"], [
    AC_MSG_CHECKING([whether $NVCC -arch=$CUDA_ARCH compiles a kernel and links with cudart_static])
    cat > conftest_cuda.cu <<'EOF'
__global__ void gpuasm_conftest_kernel(int *p) { *(p + threadIdx.x) = 1; }
extern "C" int gpuasm_conftest_launch(void)
{
    int *d = 0, n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) return 0;
    if (cudaMalloc(&d, 32 * sizeof(int)) != cudaSuccess) return -1;
    gpuasm_conftest_kernel<<<1, 32>>>(d);
    cudaFree(d);
    return n;
}
EOF
    cat > conftest_cuda_main.c <<'EOF'
int gpuasm_conftest_launch(void);
int main(void) { return gpuasm_conftest_launch() < 0; }
EOF
    gpuasm_cuda_ok=no
    AS_IF([$NVCC $NVCCFLAGS -arch=$CUDA_ARCH -c conftest_cuda.cu -o conftest_cuda.o >&AS_MESSAGE_LOG_FD 2>&1 &&
           $CC $CFLAGS -c conftest_cuda_main.c -o conftest_cuda_main.o >&AS_MESSAGE_LOG_FD 2>&1 &&
           $CC $CFLAGS $LDFLAGS -o conftest_cuda$EXEEXT conftest_cuda_main.o conftest_cuda.o \
               -L"$gpuasm_cudart_dir" -lcudart_static -ldl -lrt -lpthread -lstdc++ >&AS_MESSAGE_LOG_FD 2>&1],
      [gpuasm_cuda_ok=yes])
    rm -f conftest_cuda.cu conftest_cuda_main.c conftest_cuda.o conftest_cuda_main.o conftest_cuda$EXEEXT
    AC_MSG_RESULT([$gpuasm_cuda_ok])
    AS_IF([test "x$gpuasm_cuda_ok" = xyes], [
      use_cuda=yes
      CUDA_CPPFLAGS="-I$gpuasm_cuda_root/include"
      CUDA_LIBDIR=$gpuasm_cudart_dir
      CUDA_LDFLAGS="-L$gpuasm_cudart_dir"
      CUDA_LIBS="-lcudart_static -ldl -lrt -lpthread -lstdc++"
    ])
  ])

  AS_IF([test "x$use_cuda" = xno], [
    AS_IF([test "x$with_cuda" = xcheck],
      [AC_MSG_NOTICE([CUDA not found or not working: building the CPU backend only])],
      [AC_MSG_FAILURE([--with-cuda given but no working nvcc + static cudart found (see config.log); set NVCC or use --with-cuda=DIR])])
  ])
])

AS_IF([test "x$use_cuda" = xyes],
  [AC_DEFINE([HAVE_CUDA], [1], [Define to 1 when the CUDA backend is built.])],
  [NVCC=])
AC_SUBST([NVCC])
AC_SUBST([CUDA_ARCH])
AC_SUBST([NVCCFLAGS])
AC_SUBST([CUDA_CPPFLAGS])
AC_SUBST([CUDA_LDFLAGS])
AC_SUBST([CUDA_LIBDIR])
AC_SUBST([CUDA_LIBS])
AM_CONDITIONAL([HAVE_CUDA], [test "x$use_cuda" = xyes])
])
