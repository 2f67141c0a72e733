/* SPDX-License-Identifier: MIT */
/* filter_plan.h -- the exact filters' candidate windows as a list, for a
 * backend that verifies them elsewhere (the CUDA backend: kernels/
 * verify_cuda.cu; internal to kernels/).
 *
 * For each (read, target, strand) pair that search.h's rule searches, the
 * plan lists text windows whose union holds every end hit of the pair,
 * each with the columns to run (a fresh DP column at j0, as the segments of
 * cuda_device.cuh) and the ends it reports:
 *   - read strand as the pattern, targets' index (prefilter.h) used: one
 *     window per merged end range [lo, hi] of the read strand, run from
 *     j0 = lo - (m + k) (clamped) to jend = hi + 2 (clamped), reporting
 *     [lo, hi + 1);
 *   - target as the pattern, pieces filter (prefilter.h) used: the whole
 *     read strand for the targets that are candidates, nothing for the
 *     others;
 *   - everything else (no filter, the cost model declined, a read the
 *     lemma cannot cut): the whole text in segments of PLAN_SEG columns
 *     with m + k columns of lead-in.
 * Every window's local minima are those of the whole text (search.h):
 * outside the ranges no end has D <= k (the lemma, prefilter.h), and the
 * lead-in makes D exact where it is <= k (cuda_device.cuh, "Segments").  So
 * the verifier's hits are exactly the CPU walk's (cpu_scan.c), which reads
 * the same ranges: the CUDA and CPU bytes agree by construction, and
 * tests/c/test_verify_cuda holds the per-thread code of the plan's windows
 * to gpuasm_cpu_scan().
 *
 * Used only for the myers kernel on nt16 with patterns of at most
 * GPUASM_PLAN_MAX_M bases (registers of one thread); the caller runs the
 * exhaustive launcher otherwise.
 */
#ifndef GPUASM_FILTER_PLAN_H
#define GPUASM_FILTER_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/registry.h"   /* gpuasm_cuda_batch */
#include "search/search.h"
#include "search/status.h"
#include "walk/cpu_scan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest pattern (bases) of a planned batch: 4 words of 64 rows. */
#define GPUASM_PLAN_MAX_M 256

/* One window: pattern and text of pair (read, target) on strand (1: the
 * read reverse-complemented), k differences; text columns [j0, jend) are
 * run and the end hits in [s0, s1) reported (0-based text positions). */
typedef struct gpuasm_vwin {
    uint32_t read, target;
    uint16_t strand, read_is_pattern;
    int32_t k;
    uint32_t j0, jend, s0, s1;
} gpuasm_vwin;

/* The windows of a plan, by pattern words (class w: ceil(m / 64) = w + 1).
 * The caller may set, before the first build (a zeroed plan is ready):
 *   read_base   added to every window's read (the index of the built
 *               set's first read in the caller's batch; 0 by default);
 *   host_alloc, host_free   where the windows live (malloc/free when NULL;
 *               the CUDA backend gives pinned memory, so that their copy
 *               to the device is asynchronous: engine/plan_upload.cuh;
 *               host_free takes NULL);
 *   parts       1: the windows stay where each planning thread wrote them,
 *               in read order part after part, and win[] is not filled (no
 *               single-threaded gather of every window); n[] still counts
 *               them all.  Either way a build's windows are its parts
 *               0 .. n_parts - 1 (gpuasm_plan_part; without parts, one:
 *               win[]). */
typedef struct gpuasm_plan {
    gpuasm_vwin *win[4];
    size_t n[4], cap[4];
    uint32_t read_base;
    void *(*host_alloc)(size_t bytes);
    void (*host_free)(void *p);
    int parts, n_parts;
    gpuasm_scan_stats counts;   /* what the filters did (index_*, pieces_*) */
    /* each planning thread's scratch and windows, kept from build to
     * build (nothing is allocated per read or per chunk once grown) */
    struct gpuasm_plan_ws *ws;
    int n_ws;
} gpuasm_plan;

/* Does a batch qualify: myers on nt16, --filter not off, and every
 * searched pair's pattern at most GPUASM_PLAN_MAX_M bases? */
int gpuasm_plan_applies(const gpuasm_seqset *reads, const gpuasm_seqset *targets,
                        const gpuasm_search_opt *opt);

/* Fill plan (emptied first; buffers reused) with the windows of every
 * searched pair of reads x targets, using prep's filters (built for
 * targets and opt: gpuasm_cpu_prep_build), with up to n_threads host
 * threads (the caller's among them), each on a share of the reads.  The
 * windows come in read order whatever n_threads is.  0, or
 * GPUASM_ERR_NOMEM / GPUASM_ERR_THREAD. */
int gpuasm_plan_build(gpuasm_plan *plan, const gpuasm_cpu_prep *prep, const gpuasm_seqset *reads,
                      const gpuasm_seqset *targets, const gpuasm_search_opt *opt, int n_threads,
                      gpuasm_err *err);

/* Part i (0 <= i < plan->n_parts) of a build: its *n windows of class c
 * (valid until the next build). */
const gpuasm_vwin *gpuasm_plan_part(const gpuasm_plan *plan, int i, int c, size_t *n);

void gpuasm_plan_free(gpuasm_plan *plan);

/* The planned windows on the GPU (walk/verify_cuda.cu; a CUDA build only),
 * instead of the kernel's launcher when the backend planned the batch:
 * d_win[c] holds n[c] windows of patterns of c + 1 words. */
int gpuasm_verify_cuda_launch(const gpuasm_cuda_batch *b, gpuasm_vwin *const d_win[4],
                              const size_t n[4], gpuasm_err *err);

#ifdef __cplusplus
}
#endif
#endif
