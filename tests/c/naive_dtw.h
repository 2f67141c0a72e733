/* naive_dtw.h -- the oracle of the signal-mode tests: seed 001 §5's ADSM
 * matrix computed the plainest way, the whole (m+1) x (n+1) matrix in
 * double precision, with the three moves and the cost of signal.h (the
 * same function of two ints: exact in double).  O(m n) time and memory;
 * no shared code with the twins beyond gpuasm_dtw_cost().  Usable from C
 * and from the nvcc-compiled harness.
 */
#ifndef GPUASM_NAIVE_DTW_H
#define GPUASM_NAIVE_DTW_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "signal.h"

/* d[i * (n + 1) + j], 0 <= i <= m, 0 <= j <= n (seed 001's 1-based j):
 * d[0][j] = 0 for j >= 1, d[i][0] = +inf. */
static inline double *naive_dtw_matrix(const int16_t *x, uint32_t m, const int16_t *y, uint64_t n,
                                       int32_t cost_kind)
{
    double *d = (double *)malloc((size_t)(m + 1) * (size_t)(n + 1) * sizeof(double));
    if (!d) abort();
    for (uint64_t j = 0; j <= n; j++) d[j] = j ? 0.0 : INFINITY;
    for (uint32_t i = 1; i <= m; i++) {
        double *row = d + (size_t)i * (n + 1), *up = row - (n + 1);
        row[0] = INFINITY;
        for (uint64_t j = 1; j <= n; j++) {
            double v = row[j - 1];
            if (up[j] < v) v = up[j];
            if (up[j - 1] < v) v = up[j - 1];
            row[j] = v + (double)gpuasm_dtw_cost(cost_kind, x[i - 1], y[j - 1]);
        }
    }
    return d;
}

/* ADSM(X, Y) and the smallest 0-based end j with D[m][j] equal to it: the
 * same recurrence row by row, two rows of n + 1 doubles (long texts). */
static inline double naive_adsm(const int16_t *x, uint32_t m, const int16_t *y, uint64_t n,
                                int32_t cost_kind, uint64_t *end)
{
    double *up = (double *)malloc((size_t)(n + 1) * sizeof(double));
    double *row = (double *)malloc((size_t)(n + 1) * sizeof(double));
    if (!up || !row) abort();
    for (uint64_t j = 0; j <= n; j++) up[j] = j ? 0.0 : INFINITY;
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
    double best = INFINITY;
    for (uint64_t j = 1; j <= n; j++)
        if (up[j] < best) {
            best = up[j];
            *end = j - 1;
        }
    free(up);
    free(row);
    return best;
}

/* DTW(X, Y) of whole signals (the global alignment: path from (1,1) to
 * (m,n)), for checking an alignment's start. */
static inline double naive_dtw(const int16_t *x, uint32_t m, const int16_t *y, uint64_t n,
                               int32_t cost_kind)
{
    double *d = (double *)malloc((size_t)(m + 1) * (size_t)(n + 1) * sizeof(double));
    if (!d) abort();
    for (uint64_t j = 0; j <= n; j++) d[j] = INFINITY;
    d[0] = 0;
    for (uint32_t i = 1; i <= m; i++) {
        double *row = d + (size_t)i * (n + 1), *up = row - (n + 1);
        row[0] = INFINITY;
        for (uint64_t j = 1; j <= n; j++) {
            double v = row[j - 1];
            if (up[j] < v) v = up[j];
            if (up[j - 1] < v) v = up[j - 1];
            row[j] = v + (double)gpuasm_dtw_cost(cost_kind, x[i - 1], y[j - 1]);
        }
    }
    const double r = d[(size_t)m * (n + 1) + n];
    free(d);
    return r;
}

#endif
