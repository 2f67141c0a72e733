/* SPDX-License-Identifier: MIT */
/* lower_bound.h -- binary search in a sorted array of uint64_t.  Header
 * only. */
#ifndef GPUASM_LOWER_BOUND_H
#define GPUASM_LOWER_BOUND_H

#include <stddef.h>
#include <stdint.h>

/* Index of the first element >= x in sorted v[0 .. n) (n when none). */
static inline size_t gpuasm_lower_bound_u64(const uint64_t *v, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

#endif
