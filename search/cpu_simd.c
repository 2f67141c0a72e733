/* SPDX-License-Identifier: MIT */
/* cpu_simd.c -- the SIMD level of a run (see cpu_simd.h). */
#include "search/cpu_simd.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define GPUASM_X86 1
#endif

int gpuasm_simd_detect(void)
{
#ifdef GPUASM_X86
    __builtin_cpu_init();
    /* The AVX-512 kernels use F (the lanes), BW/DQ/VL (mask moves of
     * 64-bit lanes, 256-bit forms); every AVX-512 processor since Skylake-SP
     * has all four. */
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return GPUASM_SIMD_AVX512;
    if (__builtin_cpu_supports("avx2")) return GPUASM_SIMD_AVX2;
    if (__builtin_cpu_supports("sse4.1")) return GPUASM_SIMD_SSE41;
#endif
    return GPUASM_SIMD_SCALAR;
}

int gpuasm_simd_choose(long long knob)
{
    int level = gpuasm_simd_detect();
    if (knob >= 0 && knob < level) level = (int)knob;
    return level;
}

const char *gpuasm_simd_name(int level)
{
    static const char *const names[GPUASM_N_SIMD] = { "scalar", "sse4.1", "avx2", "avx512" };
    return level >= 0 && level < GPUASM_N_SIMD ? names[level] : "?";
}

int gpuasm_simd_lanes(int level)
{
    static const int lanes[GPUASM_N_SIMD] = { 1, 2, 4, 8 };
    return level >= 0 && level < GPUASM_N_SIMD ? lanes[level] : 1;
}
