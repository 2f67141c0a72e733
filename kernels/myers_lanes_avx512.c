/* myers_lanes_avx512.c -- the lane kernels (myers_lanes.h) with 8 x 64-bit
 * lanes (AVX-512 F/BW/DQ/VL), compiled for that instruction set whatever
 * the build's flags; cpu_simd.c checks that the processor has it first.
 *
 * Text lanes take Eq of a lane's text code with one two-table permute
 * (vpermt2q: 16 Peq words in two registers, indexed by the code's low 4
 * bits), so no gather and no staging of Eq words.
 */
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,bmi2,popcnt")
#include <immintrin.h>

#define LN 8
#define LANES_FN(name) name##_avx512
#define SIGNS(v) ((unsigned)_mm512_movepi64_mask((__m512i)(v)))
#define TEXT_TAB                                                                                  \
    const __m512i tab_lo_ = _mm512_loadu_si512((const void *)peq0),                               \
                  tab_hi_ = _mm512_loadu_si512((const void *)(peq0 + 8))
#define TEXT_EQ(q, sh) ((vu)_mm512_permutex2var_epi64(tab_lo_, (__m512i)((q) >> (sh)), tab_hi_))

#include "myers_lanes_impl.h"
#endif
