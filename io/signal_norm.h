/* SPDX-License-Identifier: MIT */
/* signal_norm.h -- per-signal normalisation and quantisation for the
 * signal mode (search/signal_mode.h): pA (or any unit) in, the kernels' int16
 * values out.
 *
 * Every signal -- a read's window of samples, a reference strand's expected
 * levels -- is normalised on its own, as the raw-signal mappers do:
 *   GPUASM_NORM_MAD   z = (x - median) / (1.4826 MAD)   (the default: robust
 *                     to the spikes of raw signal; 1.4826 MAD estimates the
 *                     standard deviation of normal data)
 *   GPUASM_NORM_SD    z = (x - mean) / sd                (population sd)
 *   GPUASM_NORM_NONE  z = x                              (values already in
 *                     their units: seed 001's example)
 * A constant signal (MAD or sd 0) gets scale 1.  Then
 *   q = round(z x GPUASM_SIG_SCALE), clamped to [GPUASM_SIG_QMIN,
 *   GPUASM_SIG_QMAX], i.e. z to [-8, 7.98] in steps of 1/64:
 * normalised samples beyond 8 are spikes (counted: *clamped); with
 * GPUASM_NORM_NONE a value outside the range is an error instead (the caller
 * asked for its values as they are).  Rounding is to nearest, ties to even
 * (lrint), on the host only: both backends see the same integers.
 */
#ifndef GPUASM_SIGNAL_NORM_H
#define GPUASM_SIGNAL_NORM_H

#include <stddef.h>
#include <stdint.h>

enum gpuasm_norm {
    GPUASM_NORM_MAD = 0,
    GPUASM_NORM_SD = 1,
    GPUASM_NORM_NONE = 2
};

/* "mad", "sd", "none"; gpuasm_norm_find: the inverse, -1 when unknown. */
const char *gpuasm_norm_name(int method);
int gpuasm_norm_find(const char *name);

/* Location and scale of x[0 .. n) by `method` (n >= 1); work: n floats of
 * scratch (MAD sorts a copy).  NONE gives 0 and 1. */
void gpuasm_norm_stats(const float *x, size_t n, int method, float *work, double *loc,
                       double *scale);

/* q[i] = the quantised (x[i] - loc) / scale, as above.  Returns the number
 * of clamped values, or -1 - i for the first value i outside the range
 * when method is GPUASM_NORM_NONE (q is then incomplete). */
int64_t gpuasm_norm_quantise(const float *x, size_t n, int method, double loc, double scale,
                             int16_t *q);

#endif
