/* SPDX-License-Identifier: MIT */
/* engine.h -- run searches on the lanes of one or more backends.
 *
 * The engine turns a device list ("auto", "cpu", "cuda:0,1", ...) into
 * lanes, instances of the backends of backend.h (one per CUDA device by
 * default, GPUASM_CUDA_LANES for more: engine.c says why; one for the CPU,
 * which spreads each scan over its threads), reads the tuning knobs once
 * (settings.h), and keeps per-lane statistics.  Whatever the backend, lane,
 * thread count or batch size, a scan returns the same hits in the same
 * order (gpuasm_hits_sort), which is what makes the SAM byte-identical.
 */
#ifndef GPUASM_ENGINE_H
#define GPUASM_ENGINE_H

#include <stddef.h>
#include "search/search.h"
#include "search/signal_mode.h"
#include "search/status.h"

typedef struct gpuasm_engine gpuasm_engine;

/* Open the lanes of a device list:
 *   "auto"          every CUDA device when there is one, else the CPU;
 *   "cpu";
 *   "cuda"          CUDA device 0; "cuda:N"; "cuda:N,M,..." a list (no
 *                   repeats); "cuda:all" every CUDA device.
 * n_threads: CPU worker threads, and each CUDA lane's host threads (the
 * filters' index and planning; >= 1).  Returns 0 and sets *out, or a
 * negative status with err: GPUASM_ERR_BAD_OPTION (not a device list, or a
 * tuning knob out of range), GPUASM_ERR_NO_DEVICE (a CUDA device asked for
 * is not there, or no CUDA in this build), GPUASM_ERR_CUDA, NOMEM.  When
 * "auto" falls back to the CPU because CUDA is unusable, *fallback holds
 * why (status NO_DEVICE or CUDA); otherwise fallback->status is 0. */
int gpuasm_engine_open(const char *device, int n_threads, gpuasm_engine **out,
                       gpuasm_err *err, gpuasm_err *fallback);

/* "cpu (N threads, SIMD)" or "cuda:0 NAME, cuda:1 NAME". */
const char *gpuasm_engine_describe(const gpuasm_engine *e);

/* The CPU lane's SIMD level ("avx512", "avx2", "sse4.1", "scalar"), or
 * NULL when no lane runs on the CPU. */
const char *gpuasm_engine_simd(const gpuasm_engine *e);

/* What the filters of the run were (--filter: the first lane's
 * filter_desc, backend.h), or NULL before the first scan. */
const char *gpuasm_engine_filter(const gpuasm_engine *e);

/* Is any lane a GPU? */
int gpuasm_engine_is_cuda(const gpuasm_engine *e);

/* Give every lane the targets (kept by pointer: must outlive the engine).
 * 0 or a status. */
int gpuasm_engine_set_targets(gpuasm_engine *e, const gpuasm_seqset *targets, gpuasm_err *err);

/* Lanes: independent scan queues that may run at the same time, each from
 * its own host thread. */
int gpuasm_engine_lanes(const gpuasm_engine *e);

/* Scan one batch of reads on one lane; out is cleared, filled and sorted.
 * 0, or a status with err (err->read: the batch index of the read a
 * failure is about, err->target: the target's). */
int gpuasm_engine_scan_lane(gpuasm_engine *e, int lane, const gpuasm_seqset *reads,
                            const gpuasm_search_opt *opt, gpuasm_hits *out, gpuasm_err *err);

/* The same on lane 0. */
int gpuasm_engine_scan(gpuasm_engine *e, const gpuasm_seqset *reads,
                       const gpuasm_search_opt *opt, gpuasm_hits *out, gpuasm_err *err);

/* The signal mode (signal_mode.h).  The reference signals of every later
 * signal scan (kept by pointer: they must outlive the engine); checked
 * with gpuasm_signal_check.  0 or a status. */
int gpuasm_engine_set_signal_targets(gpuasm_engine *e, const gpuasm_sigset *targets,
                                     const gpuasm_signal_opt *opt, gpuasm_err *err);

/* One batch of read signals on one lane: out[r * targets->n + t] for
 * every (read, reference) pair (reads->n x targets->n entries, the
 * caller's memory), the same on every backend.  The batch is checked
 * first (gpuasm_signal_check).  0, or a status with err (err->read: the
 * batch index of the read a failure is about). */
int gpuasm_engine_scan_signals_lane(gpuasm_engine *e, int lane, const gpuasm_sigset *reads,
                                    const gpuasm_signal_opt *opt, gpuasm_adsm_hit *out,
                                    gpuasm_err *err);

/* Totals over every scan so far (all lanes). */
void gpuasm_engine_stats(gpuasm_engine *e, gpuasm_scan_stats *total);

/* Add s into to, field by field (the totals of two engines, as --device
 * auto's move has: cli/pipeline.c). */
void gpuasm_scan_stats_add(gpuasm_scan_stats *to, const gpuasm_scan_stats *s);

/* Read bases per batch that every lane can take (device memory, threads). */
uint64_t gpuasm_engine_suggest_batch_bases(const gpuasm_engine *e);

/* Host memory for batch buffers: pinned (cudaHostAlloc) when a lane is a GPU. */
void *gpuasm_engine_host_alloc(gpuasm_engine *e, size_t bytes);
void gpuasm_engine_host_free(gpuasm_engine *e, void *p);

void gpuasm_engine_close(gpuasm_engine *e);

#endif
