/* SPDX-License-Identifier: MIT */
/* myers_lanes_avx2.c -- the lane kernels (myers_lanes.h) with 4 x 64-bit
 * lanes (AVX2), compiled for that instruction set whatever the build's
 * flags; cpu_simd.c checks that the processor has it first.
 *
 * Text lanes gather Eq of each lane's text code from the 16 Peq words of
 * block 0 (vpgatherqq).
 */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* clang ignores GCC's target pragma (the libFuzzer build, tests/fuzz): the
 * same features as an attribute on every function of this file. */
#if defined(__clang__)
#pragma clang attribute push (__attribute__((target("avx2,bmi2,popcnt"))), apply_to = function)
#else
#pragma GCC target("avx2,bmi2,popcnt")
#endif

#define LN 4
#define LANES_FN(name) name##_avx2
#define SIGNS(v) ((unsigned)_mm256_movemask_pd((__m256d)(v)))
#define STAGE_EQ 1
#define SHUF8(t, i) ((vu)_mm256_shuffle_epi8((__m256i)(t), (__m256i)(i)))
#define SAD8(v) ((vu)_mm256_sad_epu8((__m256i)(v), _mm256_setzero_si256()))

#include "kernels/myers/myers_lanes_impl.h"
#include "kernels/myers/myers_lanes_full_impl.h"
#if defined(__clang__)
#pragma clang attribute pop
#endif
#endif
