/* SPDX-License-Identifier: MIT */
/* myers_lanes_avx512.c -- the lane kernels (myers_lanes.h) with 8 x 64-bit
 * lanes (AVX-512 F/BW/DQ/VL), compiled for that instruction set whatever
 * the build's flags; cpu_simd.c checks that the processor has it first.
 *
 * Text lanes take Eq of a lane's text code with one two-table permute
 * (vpermt2q: 16 Peq words in two registers, indexed by the code's low 4
 * bits), so no gather and no staging of Eq words.
 */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* clang ignores GCC's target pragma (the libFuzzer build, tests/fuzz): the
 * same features as an attribute on every function of this file. */
#if defined(__clang__)
#pragma clang attribute push (__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,bmi2,popcnt"))), apply_to = function)
#else
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,bmi2,popcnt")
#endif

#define LN 8
#define LANES_FN(name) name##_avx512
#define SIGNS(v) ((unsigned)_mm512_movepi64_mask((__m512i)(v)))
#define TEXT_TAB                                                                                  \
    const __m512i tab_lo_ = _mm512_loadu_si512((const void *)peq0),                               \
                  tab_hi_ = _mm512_loadu_si512((const void *)(peq0 + 8))
#define TEXT_EQ(q, sh) ((vu)_mm512_permutex2var_epi64(tab_lo_, (__m512i)((q) >> (sh)), tab_hi_))
/* The same for every block b < W of a pattern (myers_lanes_full_impl.h). */
#define TEXT_TABS(peq, W)                                                                         \
    __m512i tabs_lo_[4], tabs_hi_[4];                                                             \
    for (uint32_t b_ = 0; b_ < 4; b_++) {                                                         \
        const int in_ = b_ < (W);                                                                 \
        tabs_lo_[b_] = in_ ? _mm512_loadu_si512((const void *)((peq) + 16 * b_)) : _mm512_setzero_si512(); \
        tabs_hi_[b_] = in_ ? _mm512_loadu_si512((const void *)((peq) + 16 * b_ + 8))               \
                           : _mm512_setzero_si512();                                              \
    }
#define TEXT_EQB(b, q, sh) ((vu)_mm512_permutex2var_epi64(tabs_lo_[b], (__m512i)((q) >> (sh)), tabs_hi_[b]))
#define SHUF8(t, i) ((vu)_mm512_shuffle_epi8((__m512i)(t), (__m512i)(i)))
#define SAD8(v) ((vu)_mm512_sad_epu8((__m512i)(v), _mm512_setzero_si512()))
/* The column step in 11 instructions, three of them ternary logic:
 * 0xBE = (a ^ b) | c, 0xF1 = a | ~(b | c). */
#define LANE_STEP_ISA(pv_io, mv_io, eq_, ph_out, mh_out)                                          \
    do {                                                                                          \
        const __m512i pv_ = (__m512i)*(pv_io), mv_ = (__m512i)*(mv_io), e_ = (__m512i)(eq_);      \
        const __m512i s_ = _mm512_add_epi64(_mm512_and_si512(e_, pv_), pv_);                      \
        const __m512i xh_ = _mm512_ternarylogic_epi64(s_, pv_, e_, 0xBE);                         \
        const __m512i xv_ = _mm512_or_si512(e_, mv_);                                             \
        const __m512i ph_ = _mm512_ternarylogic_epi64(mv_, xh_, pv_, 0xF1);                       \
        const __m512i mh_ = _mm512_and_si512(pv_, xh_);                                           \
        const __m512i phs_ = _mm512_slli_epi64(ph_, 1), mhs_ = _mm512_slli_epi64(mh_, 1);         \
        *(pv_io) = (vu)_mm512_ternarylogic_epi64(mhs_, xv_, phs_, 0xF1);                          \
        *(mv_io) = (vu)_mm512_and_si512(phs_, xv_);                                               \
        *(ph_out) = (vu)ph_;                                                                      \
        *(mh_out) = (vu)mh_;                                                                      \
    } while (0)

#include "kernels/myers/myers_lanes_impl.h"
#include "kernels/myers/myers_lanes_full_impl.h"
#if defined(__clang__)
#pragma clang attribute pop
#endif
#endif
