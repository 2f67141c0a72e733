/* SPDX-License-Identifier: MIT */
/* cpu_simd.h -- which SIMD instruction set the CPU twins use (internal to
 * kernels/).
 *
 * The CPU backend picks one level per run, when it opens: the highest the
 * processor has (gcc's __builtin_cpu_supports), lowered by the knob
 * GPUASM_CPU_SIMD (settings.h) so that the tests run every lower path on
 * any machine.  The level only chooses code (the lane kernels of
 * myers_lanes.h); hits never depend on it.  Builds for other processors
 * than x86-64 have the scalar level only.
 */
#ifndef GPUASM_CPU_SIMD_H
#define GPUASM_CPU_SIMD_H

#ifdef __cplusplus
extern "C" {
#endif

enum gpuasm_simd_level {
    GPUASM_SIMD_SCALAR = 0,   /* 64-bit words, one pair at a time (myers_cpu.c) */
    GPUASM_SIMD_SSE41  = 1,   /* 2 x 64-bit lanes (SSE4.1) */
    GPUASM_SIMD_AVX2   = 2,   /* 4 x 64-bit lanes (AVX2) */
    GPUASM_SIMD_AVX512 = 3,   /* 8 x 64-bit lanes (AVX-512 F, BW, VL, DQ) */
    GPUASM_N_SIMD
};

/* The highest level this processor runs (and this build has). */
int gpuasm_simd_detect(void);

/* The level a run uses: gpuasm_simd_detect() lowered to knob when the knob
 * (GPUASM_CPU_SIMD, -1 when unset) is lower. */
int gpuasm_simd_choose(long long knob);

/* "scalar", "sse4.1", "avx2", "avx512"; "?" for anything else. */
const char *gpuasm_simd_name(int level);

/* 64-bit lanes of a level (1 for scalar). */
int gpuasm_simd_lanes(int level);

#ifdef __cplusplus
}
#endif
#endif
