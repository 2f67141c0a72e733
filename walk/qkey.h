/* SPDX-License-Identifier: MIT */
/* qkey.h -- 2-bit keys of q single bases, for the exact filters'
 * tables (prefilter.c, ends_filter.c; internal to kernels/). */
#ifndef GPUASM_QKEY_H
#define GPUASM_QKEY_H

#include <stdint.h>

/* 2-bit base of a single-base nt16 code (A=1 -> 0, C=2 -> 1, G=4 -> 2,
 * T=8 -> 3), -1 for any other code (IUPAC sets, N, a read's 0). */
static const int8_t gpuasm_base2[16] = { -1, 0, 1, -1, 2, -1, -1, -1, 3, -1, -1, -1, -1, -1, -1, -1 };

/* The key of s[0 .. q) (q <= 16; the first base in the highest bits), or
 * -1 when one of them is not a single base. */
static inline int64_t gpuasm_qkey(const uint8_t *s, int q)
{
    uint32_t key = 0;
    for (int i = 0; i < q; i++) {
        const int b = gpuasm_base2[s[i] & 15];
        if (b < 0) return -1;
        key = (key << 2) | (uint32_t)b;
    }
    return key;
}

/* Where the keys of q bases start in a table of keys of qmin .. q bases
 * (qmin <= q <= 15), shorter ones first: 4^qmin + .. + 4^(q-1) =
 * (4^q - 4^qmin) / 3. */
static inline uint32_t gpuasm_qkey_base(int qmin, int q)
{
    return (((uint32_t)1 << (2 * q)) - ((uint32_t)1 << (2 * qmin))) / 3u;
}

#endif
