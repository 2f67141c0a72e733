/* SPDX-License-Identifier: MIT */
/* signal_norm.c -- normalisation and quantisation of signals (see
 * signal_norm.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/signal_mode.h"
#include "io/signal_norm.h"

static const char *const names[] = { "mad", "sd", "none" };

const char *gpuasm_norm_name(int method)
{
    return method >= 0 && method <= GPUASM_NORM_NONE ? names[method] : NULL;
}

int gpuasm_norm_find(const char *name)
{
    for (int i = 0; i <= GPUASM_NORM_NONE; i++)
        if (!strcmp(names[i], name)) return i;
    return -1;
}

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median of w[0 .. n), n >= 1 (sorts w): the mean of the middle two for
 * even n. */
static double median_of(float *w, size_t n)
{
    qsort(w, n, sizeof(float), cmp_float);
    return n % 2 ? (double)w[n / 2] : 0.5 * ((double)w[n / 2 - 1] + (double)w[n / 2]);
}

void gpuasm_norm_stats(const float *x, size_t n, int method, float *work, double *loc,
                       double *scale)
{
    *loc = 0;
    *scale = 1;
    if (n == 0 || method == GPUASM_NORM_NONE) return;
    if (method == GPUASM_NORM_SD) {
        double s = 0, ss = 0;
        for (size_t i = 0; i < n; i++) s += x[i];
        const double mean = s / (double)n;
        for (size_t i = 0; i < n; i++) ss += ((double)x[i] - mean) * ((double)x[i] - mean);
        *loc = mean;
        *scale = sqrt(ss / (double)n);
    } else {
        memcpy(work, x, n * sizeof(float));
        const double med = median_of(work, n);
        for (size_t i = 0; i < n; i++) work[i] = (float)fabs((double)x[i] - med);
        *loc = med;
        *scale = 1.4826 * median_of(work, n);
    }
    if (!(*scale > 0)) *scale = 1;   /* a constant signal */
}

int64_t gpuasm_norm_quantise(const float *x, size_t n, int method, double loc, double scale,
                             int16_t *q)
{
    int64_t clamped = 0;
    for (size_t i = 0; i < n; i++) {
        const double v = rint(((double)x[i] - loc) / scale * GPUASM_SIG_SCALE);
        if (v < GPUASM_SIG_QMIN || v > GPUASM_SIG_QMAX || isnan(v)) {
            if (method == GPUASM_NORM_NONE) return -1 - (int64_t)i;
            clamped++;
            q[i] = (int16_t)(v > 0 ? GPUASM_SIG_QMAX : GPUASM_SIG_QMIN);
        } else {
            q[i] = (int16_t)v;
        }
    }
    return clamped;
}
