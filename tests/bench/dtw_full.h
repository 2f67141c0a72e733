/* SPDX-License-Identifier: MIT */
/* dtw_full.h -- the reference of the cuDTW++ peer checks (tests/bench/
 * cudtw_bench.cu on the GPU, tests/bench/cudtw_emulate.cpp on the host):
 * the full DTW of a query q and a series s of n samples each, squared
 * differences, in double: D(0,0) = c(0,0), D(i,-1) = D(-1,j) = inf,
 * D(i,j) = c(i,j) + min(D(i-1,j), D(i,j-1), D(i-1,j-1)); returns
 * D(n-1,n-1) (no square root), what cuDTW++'s kernels write per entry.
 * O(n^2) time, O(n) memory.  C++ (both users are C++). */
#ifndef GPUASM_BENCH_DTW_FULL_H
#define GPUASM_BENCH_DTW_FULL_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

static inline double dtw_full(const float *q, const float *s, uint64_t n)
{
    std::vector<double> prev(n, INFINITY), cur(n);
    for (uint64_t i = 0; i < n; ++i) {
        for (uint64_t j = 0; j < n; ++j) {
            const double d = (double)q[i] - (double)s[j];
            double best;
            if (i == 0 && j == 0) best = 0;
            else {
                best = prev[j];                                   /* up */
                if (j > 0) best = std::min(best, std::min(cur[j - 1], prev[j - 1]));
            }
            cur[j] = d * d + best;
        }
        std::swap(prev, cur);
    }
    return prev[n - 1];
}

#endif
