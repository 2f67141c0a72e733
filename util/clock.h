/* SPDX-License-Identifier: MIT */
/* clock.h -- the one wall clock of host C code (timings, stats, progress). */
#ifndef GPUASM_CLOCK_H
#define GPUASM_CLOCK_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC (a process-local origin: use differences). */
static inline double gpuasm_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
