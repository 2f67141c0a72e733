/* myers_lanes_avx2.c -- the lane kernels (myers_lanes.h) with 4 x 64-bit
 * lanes (AVX2), compiled for that instruction set whatever the build's
 * flags; cpu_simd.c checks that the processor has it first.
 *
 * Text lanes gather Eq of each lane's text code from the 16 Peq words of
 * block 0 (vpgatherqq).
 */
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx2,bmi2,popcnt")
#include <immintrin.h>

#define LN 4
#define LANES_FN(name) name##_avx2
#define SIGNS(v) ((unsigned)_mm256_movemask_pd((__m256d)(v)))
#define TEXT_TAB const long long *tab_ = (const long long *)peq0
#define TEXT_EQ(q, sh)                                                                            \
    ((vu)_mm256_i64gather_epi64(tab_, (__m256i)(((q) >> (sh)) & 15u), 8))

#include "myers_lanes_impl.h"
#endif
