/* SPDX-License-Identifier: MIT */
/* bench_common.h -- what the benchmark programs share: the random generator
 * (splitmix64, fixed start, so that bench_kernels and edlib_hw draw the same
 * P1 pattern and text), the clock, and the comparator for medians. */
#ifndef GPUASM_BENCH_COMMON_H
#define GPUASM_BENCH_COMMON_H
#include <stdint.h>
#include "util/clock.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static inline uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline double now(void) { return gpuasm_now_s(); }

/* qsort comparator of doubles, ascending (medians of repeated timings). */
static inline int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
#endif
