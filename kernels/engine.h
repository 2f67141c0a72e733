/* engine.h -- choose and drive a search backend (the CPU twin or CUDA).
 *
 * The engine owns the backend, its threads and its pinned buffers; callers
 * see only search.h's plain structs.  Whatever the backend, thread count or
 * batch size, gpuasm_engine_scan() returns the same hits in the same order
 * (gpuasm_hits_sort() order), which is what makes the SAM byte-identical.
 */
#ifndef GPUASM_ENGINE_H
#define GPUASM_ENGINE_H

#include <stddef.h>
#include "search.h"

typedef struct gpuasm_engine gpuasm_engine;

/* Open a backend.
 *   device:   "auto" (every CUDA device when there is one, else the CPU),
 *             "cpu", "cuda" (device 0), "cuda:N", "cuda:N,M,..." or
 *             "cuda:all" (an error when CUDA is unavailable).
 *   n_threads: CPU threads for the CPU backend (>= 1).
 * On success returns 0 and sets *out; when "auto" fell back to the CPU
 * because of a CUDA problem, warn gets a one-line reason (else warn[0]=0).
 * On failure returns -1 with a one-line reason in err. */
int gpuasm_engine_open(const char *device, int n_threads, gpuasm_engine **out,
                       char *err, size_t errlen, char *warn, size_t warnlen);

/* "cpu (N threads)" or the CUDA device's description. */
const char *gpuasm_engine_describe(const gpuasm_engine *e);

/* Give the engine the targets (kept by pointer: must outlive the engine). */
int gpuasm_engine_set_targets(gpuasm_engine *e, const gpuasm_seqset *targets,
                              char *err, size_t errlen);

/* Scan one batch of reads; out is cleared, filled and sorted. 0 or -1.
 * Same as gpuasm_engine_scan_lane(e, 0, ...). */
int gpuasm_engine_scan(gpuasm_engine *e, const gpuasm_seqset *reads,
                       const gpuasm_search_opt *opt, gpuasm_hits *out,
                       char *err, size_t errlen);

/* Lanes: independent scan queues that may run at the same time, each from
 * its own host thread (for CUDA: one handle = one stream, two per device,
 * so one batch's copies overlap another's kernels; for the CPU: one lane
 * that uses all n_threads). */
int gpuasm_engine_lanes(const gpuasm_engine *e);
int gpuasm_engine_scan_lane(gpuasm_engine *e, int lane, const gpuasm_seqset *reads,
                            const gpuasm_search_opt *opt, gpuasm_hits *out,
                            char *err, size_t errlen);

/* Totals over every scan so far (all lanes). */
void gpuasm_engine_stats(gpuasm_engine *e, gpuasm_scan_stats *total);

/* Read bases per batch suited to the backend (device memory, threads). */
uint64_t gpuasm_engine_suggest_batch_bases(const gpuasm_engine *e);

/* Host memory for batch buffers: pinned (cudaHostAlloc) on CUDA. */
void *gpuasm_engine_host_alloc(gpuasm_engine *e, size_t bytes);
void gpuasm_engine_host_free(gpuasm_engine *e, void *p);

void gpuasm_engine_close(gpuasm_engine *e);

#endif
