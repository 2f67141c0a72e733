/* SPDX-License-Identifier: MIT */
/* ends_plan.h -- the ends filter's candidates as a list of ends-pass items,
 * for a backend that runs the ends pass elsewhere (the CUDA backend:
 * kernels/ends/partial_cuda.cu; internal to kernels/ and engine/; issue #26).
 *
 * The GPU's ends pass runs one thread per item, item = ((pair x strands) +
 * strand) x 2 + end with pair = read x n_targets + target (partial_cuda.cu),
 * over every item of a batch.  Against many short targets (10,000 primers)
 * almost every item finds nothing, and the dense pass cost the GPU twice
 * the CPU's time on the same input.  This plan lists only the items the
 * ends filter (ends_filter.h) keeps: for each read strand, the targets
 * whose rules fire at an end, and the targets "always" there; a strand the
 * filter cannot read (an ambiguity code) lists every target at its ends.
 * An item left out provably has no partial occurrence (ends_filter.h's
 * proof), and the kernel runs the listed ones with the same per-item code
 * (gpuasm_partial_best), so the hits are the dense pass's: CUDA = CPU bytes
 * by construction, and tests/gpu/run holds them to the CPU backend's SAM.
 *
 * Used only where every pair of the batch has the target as its pattern
 * (targets shorter than every read, or --pattern target), on nt16, for
 * targets of at most GPUASM_ENDS_PLAN_MAX_M bases (a thread's workspace
 * in the kernel); gpuasm_ends_plan_applies() says so. */
#ifndef GPUASM_ENDS_PLAN_H
#define GPUASM_ENDS_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "search/search.h"
#include "search/status.h"
#include "walk/ends_filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* partial_cuda.cu's per-thread workspace bound (SMALL_M). */
#define GPUASM_ENDS_PLAN_MAX_M 256

typedef struct gpuasm_ends_plan {
    uint64_t *item;             /* [n] items as above, in read order */
    size_t n, cap;
    uint64_t dense;             /* the items the dense pass would have run (pairs x strands x 2) */
    uint32_t *always, n_always; /* the targets "always" at some end */
    size_t cap_always;
    /* each listing thread's marks, buffers and items, kept from build to
     * build (nothing is allocated per read or per batch once grown) */
    struct gpuasm_ends_plan_ws *ws;
    int n_ws;
} gpuasm_ends_plan;

/* Is the target the pattern of every pair of reads x targets (--pattern
 * target, or every target shorter than every non-empty read:
 * gpuasm_read_is_pattern takes the read on ties)?  1 or 0. */
int gpuasm_targets_are_patterns(const gpuasm_seqset *reads, const gpuasm_seqset *targets,
                                const gpuasm_search_opt *opt);

/* Does the plan apply to this batch: partial occurrences on, nt16, every
 * target at most GPUASM_ENDS_PLAN_MAX_M bases and the pattern of every
 * pair with a read of the batch (1), or not (0: run the dense pass). */
int gpuasm_ends_plan_applies(const gpuasm_seqset *reads, const gpuasm_seqset *targets,
                             const gpuasm_search_opt *opt);

/* Fill p (emptied first; buffers reused) with the items of reads x
 * targets that the ends filter f (built by gpuasm_efilter_build for
 * targets and opt) keeps, on up to n_threads host threads (the caller's
 * among them).  0, or a negative gpuasm status (out of memory, a thread
 * that cannot start) with err set. */
int gpuasm_ends_plan_build(gpuasm_ends_plan *p, const gpuasm_efilter *f, const gpuasm_seqset *reads,
                           const gpuasm_seqset *targets, const gpuasm_search_opt *opt, int n_threads,
                           gpuasm_err *err);

/* Reads as the pattern (issue #28: a virus database, reads against
 * thousands of genome ends): does the reads' plan apply to this batch?
 * Partial occurrences of reads on (--read-overlap), nt16, every read at
 * most GPUASM_ENDS_PLAN_MAX_M bases and the pattern of every pair, and
 * prep (built for targets and opt) with the targets' index and their end
 * windows' index.  1 or 0 (the dense pass). */
struct gpuasm_cpu_prep;
int gpuasm_ends_plan_reads_applies(const gpuasm_seqset *reads, const gpuasm_seqset *targets,
                                   const gpuasm_search_opt *opt, const struct gpuasm_cpu_prep *prep);

/* Fill p with the items of reads x targets whose target end the CPU
 * walk's marks keep (gpuasm_ends_index_marks with the two-piece rule, and
 * the ends with ambiguity codes; a read strand the marks cannot read
 * lists every end), on up to n_threads host threads.  The same items the
 * CPU walk runs, so the kernel's hits are the CPU's.  0 or a status. */
int gpuasm_ends_plan_build_reads(gpuasm_ends_plan *p, const struct gpuasm_cpu_prep *prep,
                                 const gpuasm_seqset *reads, const gpuasm_seqset *targets,
                                 const gpuasm_search_opt *opt, int n_threads, gpuasm_err *err);

void gpuasm_ends_plan_free(gpuasm_ends_plan *p);

#ifdef __cplusplus
}
#endif

#endif
