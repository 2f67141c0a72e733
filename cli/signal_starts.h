/* SPDX-License-Identifier: MIT */
/* signal_starts.h -- the start search of gpuasm-signal's report on the
 * run's threads: gpuasm_dtw_start() for every (read, strand) pair of a
 * batch, split into chunks over an htslib thread pool (hts_tpool), while
 * the caller goes on (reads and scans the next batch).  The lines are then
 * written in input order on one thread (gpuasm_sigreport_lines), so the
 * output does not depend on the thread count.
 *
 * One batch at a time: submit, then wait before the next submit.  The
 * batch, its hits and start array must stay untouched until wait
 * returns. */
#ifndef GPUASM_SIGNAL_STARTS_H
#define GPUASM_SIGNAL_STARTS_H

#include <stddef.h>
#include <stdint.h>

#include "io/signal_report.h"

typedef struct gpuasm_sigstarts gpuasm_sigstarts;

/* n_threads <= 1: no pool, submit computes the starts itself.  0, or -1
 * (out of memory, or no thread could start). */
int gpuasm_sigstarts_open(int n_threads, gpuasm_sigstarts **s);

/* Starts of every pair of b (start: b->n x ref->n, as
 * gpuasm_sigreport_starts) in the background.  max_window: b's longest
 * window (samples).  0, -1 out of memory (nothing submitted), -2 (no
 * pool: a start not found, as gpuasm_sigreport_starts). */
int gpuasm_sigstarts_submit(gpuasm_sigstarts *s, const gpuasm_sigreport_opt *o,
                            const gpuasm_sigbatch *b, const gpuasm_sigref *ref,
                            const gpuasm_adsm_hit *hit, uint64_t max_window, int64_t *start);

/* Wait for the submitted batch.  0, -1 (the pool failed), -2 (a start not
 * found).  Nothing submitted: 0. */
int gpuasm_sigstarts_wait(gpuasm_sigstarts *s);

/* Seconds the start searches took, summed over chunks (thread time, not
 * wall time), since open. */
double gpuasm_sigstarts_cpu_s(const gpuasm_sigstarts *s);

/* Waits for anything submitted, then frees s (NULL: nothing). */
void gpuasm_sigstarts_close(gpuasm_sigstarts *s);

#endif
