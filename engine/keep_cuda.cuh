/* SPDX-License-Identifier: MIT */
/* keep_cuda.cuh -- search.h's keep rule (GPUASM_KEEP_REPORTED) on the
 * device, for the CUDA backend (cuda_backend.cu).  C++ for .cu files only.
 *
 * The kernels return every local minimum; a hit-dense input (a satellite,
 * poly-A, a period-8 target: issue #28) returns hundreds a pair, which
 * the host would copy and sort only to drop.  This pass keeps on the
 * device what the report can use, so the copy, the sort and the rounds
 * (the hit budget counts what is kept) follow the kept hits.
 */
#ifndef GPUASM_KEEP_CUDA_CUH
#define GPUASM_KEEP_CUDA_CUH

#include <stddef.h>

#include "kernels/cuda_kit.cuh"
#include "search/search.h"
#include "search/status.h"

/* search.h's rule over the n end hits d_hit[0 .. n) (device memory, any
 * order) of the batch dev (device view: the reads' lengths give L), on
 * stream: the kept ones are written back to d_hit[0 .. *n_kept), in
 * (read, target, strand, end) order.  The CPU twin is
 * gpuasm_hits_keep_reported (search/hits.c): from the same hit list it
 * keeps the same hits (runs of one (read, target, strand) in increasing
 * end), here one thread a run.  (The CUDA kernels' raw lists can hold a
 * few more local minima than the CPU walk's where a text is cut into
 * segments; the report's bytes are the same, --stats' end_hits not.)  A run holding a full hit at a distance of 64 or more is kept whole
 * (a superset: the report's bytes are the same; only --stats' end_hits can
 * then differ from the CPU's).  Returns 0; 1 when the (read, target,
 * strand) key does not fit 64 bits or n does not fit 32 (nothing done: the
 * caller applies the twin on the host); or a negative status with err
 * (GPUASM_ERR_NOMEM for device memory: the pipeline scans fewer reads).
 * scratch: KIT_SCRATCH_SLOTS grow-only buffers of the lane, the pass's own. */
int gpuasm_keep_cuda(kit_scratch *scratch, cudaStream_t stream, const gpuasm_batch_view *dev,
                     gpuasm_endhit *d_hit, size_t n, size_t *n_kept, gpuasm_err *err);

#endif
