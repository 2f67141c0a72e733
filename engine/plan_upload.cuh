/* SPDX-License-Identifier: MIT */
/* plan_upload.cuh -- the planned windows of --filter (walk/filter_plan.h)
 * planned on host threads and copied to the device while the GPU verifies
 * the chunk before, for the CUDA backend (cuda_backend.cu).  C++ for .cu
 * files only.
 *
 * Why a unit of its own: a copy from pageable memory returns only once
 * the driver has staged it, and its staging waits behind the stream's
 * kernels, so with the plan's windows in malloc'd memory the host planned
 * chunk i + 1 only after the GPU had verified chunk i (the primer screen
 * of issue #26: ~19 M windows of 28 bytes a run, CUDA slower than the CPU
 * with the GPU mostly idle).  Here two plans alternate, their windows in
 * pinned memory: the copy of chunk i is queued at once, and the host plans
 * chunk i + 1 into the other plan while the GPU copies and verifies i;
 * chunk i + 2 reuses i's plan after its copy's event.  Each planning
 * thread's windows are copied from where it wrote them (gpuasm_plan's
 * parts): one thread gathering every window into one buffer was ~0.5 GB
 * of memcpy a primer run.
 */
#ifndef GPUASM_PLAN_UPLOAD_CUH
#define GPUASM_PLAN_UPLOAD_CUH

#include <stddef.h>
#include <stdint.h>

#include "kernels/cuda_kit.cuh"
#include "search/search.h"
#include "search/status.h"
#include "walk/filter_plan.h"

typedef struct gpuasm_plan_upload {
    gpuasm_plan plan[2];       /* windows pinned, in parts (pageable, gathered: GPUASM_CUDA_PLAN_PINNED=0) */
    cudaEvent_t copied[2];     /* plan[i]'s last copy to the device */
    int next;                  /* the plan the next chunk is built in */
    gpuasm_vwin *d_win[4];     /* the chunk's windows on the device, by class */
    size_t win_cap[4];         /* bytes */
} gpuasm_plan_upload;

/* Ready u (zeroed by the caller) for planning into pinned memory, or into
 * pageable memory when pinned is 0 (the A/B of the knob).  0 or
 * GPUASM_ERR_CUDA. */
int gpuasm_plan_upload_open(gpuasm_plan_upload *u, int pinned, gpuasm_err *err);

/* Plan reads [first, first + n) of the batch `reads` against targets with
 * prep's filters on n_threads host threads (gpuasm_plan_build; windows'
 * read indices are the batch's), and queue their copy to u->d_win on
 * stream, after the stream's earlier work.  *out is the plan (its n[] and
 * the filters' counts); *plan_s gets the planning's wall seconds added.
 * The windows on the device stay valid until the next call on the same
 * stream.  0, or a status with err (GPUASM_ERR_NOMEM, GPUASM_ERR_THREAD,
 * GPUASM_ERR_CUDA). */
int gpuasm_plan_upload_chunk(gpuasm_plan_upload *u, cudaStream_t stream, const gpuasm_cpu_prep *prep,
                             const gpuasm_seqset *reads, uint32_t first, uint32_t n,
                             const gpuasm_seqset *targets, const gpuasm_search_opt *opt, int n_threads,
                             const gpuasm_plan **out, double *plan_s, gpuasm_err *err);

/* Free what u holds (best effort; the device must be current). */
void gpuasm_plan_upload_close(gpuasm_plan_upload *u);

#endif
