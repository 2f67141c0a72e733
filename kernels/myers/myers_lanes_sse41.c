/* SPDX-License-Identifier: MIT */
/* myers_lanes_sse41.c -- the lane kernels (myers_lanes.h) with 2 x 64-bit
 * lanes (SSE4.1: 64-bit compares), compiled for that instruction set
 * whatever the build's flags; cpu_simd.c checks that the processor has it
 * first.  Text lanes look Eq up per lane (two scalar loads).
 */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* clang ignores GCC's target pragma (the libFuzzer build, tests/fuzz): the
 * same features as an attribute on every function of this file. */
#if defined(__clang__)
#pragma clang attribute push (__attribute__((target("sse4.1,popcnt"))), apply_to = function)
#else
#pragma GCC target("sse4.1,popcnt")
#endif

#define LN 2
#define LANES_FN(name) name##_sse41
#define SIGNS(v) ((unsigned)_mm_movemask_pd((__m128d)(v)))
#define STAGE_EQ 1
#define SHUF8(t, i) ((vu)_mm_shuffle_epi8((__m128i)(t), (__m128i)(i)))
#define SAD8(v) ((vu)_mm_sad_epu8((__m128i)(v), _mm_setzero_si128()))

#include "kernels/myers/myers_lanes_impl.h"
#include "kernels/myers/myers_lanes_full_impl.h"
#if defined(__clang__)
#pragma clang attribute pop
#endif
#endif
