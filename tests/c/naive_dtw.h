/* SPDX-License-Identifier: MIT */
/* naive_dtw.h -- the oracle of the signal-mode tests: seed 001 §5's DP
 * computed the plainest way, row by row over the whole reference in double
 * precision, with the three moves and the cost of signal_mode.h (the same
 * function of two ints: exact in double).  O(m n) time, O(n) memory; no
 * code shared with the twins beyond gpuasm_dtw_cost().  Usable from C and
 * from the nvcc-compiled harness.
 */
#ifndef GPUASM_NAIVE_DTW_H
#define GPUASM_NAIVE_DTW_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "search/signal_mode.h"

/* Row m of the DP (x: m >= 0 values, y: n values), n + 1 doubles, malloc'd:
 * row[j] for seed 001's 1-based j (row[0] = +inf).  free_start: ADSM's row
 * 0 (d[0][j] = 0 for j >= 1, any start in Y); else DTW's (only d[0][0] = 0:
 * the path starts at y_1). */
static inline double *naive_dtw_row(const int16_t *x, uint32_t m, const int16_t *y, uint64_t n,
                                    int32_t cost_kind, int free_start)
{
    double *up = (double *)malloc((size_t)(n + 1) * sizeof(double));
    double *row = (double *)malloc((size_t)(n + 1) * sizeof(double));
    if (!up || !row) abort();
    for (uint64_t j = 0; j <= n; j++) up[j] = free_start ? (j ? 0.0 : INFINITY) : (j ? INFINITY : 0.0);
    for (uint32_t i = 1; i <= m; i++) {
        row[0] = INFINITY;
        for (uint64_t j = 1; j <= n; j++) {
            double v = row[j - 1];
            if (up[j] < v) v = up[j];
            if (up[j - 1] < v) v = up[j - 1];
            row[j] = v + (double)gpuasm_dtw_cost(cost_kind, x[i - 1], y[j - 1]);
        }
        double *t = up;
        up = row;
        row = t;
    }
    free(row);
    return up;
}

/* ADSM(X, Y) and the smallest 0-based end j with D[m][j] equal to it. */
static inline double naive_adsm(const int16_t *x, uint32_t m, const int16_t *y, uint64_t n,
                                int32_t cost_kind, uint64_t *end)
{
    double *r = naive_dtw_row(x, m, y, n, cost_kind, 1);
    double best = INFINITY;
    for (uint64_t j = 1; j <= n; j++)
        if (r[j] < best) {
            best = r[j];
            *end = j - 1;
        }
    free(r);
    return best;
}

/* DTW(X, Y) of whole signals (the path from (1, 1) to (m, n)), for
 * checking an alignment's start. */
static inline double naive_dtw(const int16_t *x, uint32_t m, const int16_t *y, uint64_t n,
                               int32_t cost_kind)
{
    double *r = naive_dtw_row(x, m, y, n, cost_kind, 0);
    const double d = r[n];
    free(r);
    return d;
}

#endif
