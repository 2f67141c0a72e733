/* SPDX-License-Identifier: MIT */
/* cuda_launch.h -- the C names of what the kernels' CUDA files export:
 * each kernel's launcher (NAME_cuda.cu), for the kernel's row, and the ends
 * pass (kernels/ends), for the CUDA backend (engine/cuda_backend.cu, which
 * exports itself through engine/backend.h; the filters' verification is
 * walk/filter_plan.h's).
 * Only compiled into a CUDA build.  What a launcher may and must do:
 * cuda_kit.cuh. */
#ifndef GPUASM_CUDA_LAUNCH_H
#define GPUASM_CUDA_LAUNCH_H

#include "kernels/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every kernel's launcher and state's free, from kernel_list.h (a kernel
 * that keeps no per-lane state defines no free: its row says NULL).  A
 * sequence kernel's launcher queues its search of one batch; a signal
 * kernel's has the signal mode's signature (registry.h:
 * gpuasm_signal_kernel). */
#define GPUASM_LAUNCH_SEQ(NAME) \
    int gpuasm_##NAME##_cuda_launch(const gpuasm_cuda_batch *b, gpuasm_err *err);
#define GPUASM_LAUNCH_SIGNAL(NAME) \
    int gpuasm_##NAME##_cuda_launch(const gpuasm_cuda_batch *b, gpuasm_signal_batch *s, gpuasm_err *err);
#define GPUASM_KERNEL(ID, NAME, KIND) \
    GPUASM_LAUNCH_##KIND(NAME) void gpuasm_##NAME##_cuda_free_state(void *state);
#include "kernels/kernel_list.h"
#undef GPUASM_LAUNCH_SEQ
#undef GPUASM_LAUNCH_SIGNAL

struct ends_word;   /* kernels/ends/ends_word.h */

/* The ends pass (partial.h) on the GPU, for every kernel: the backend runs
 * it after the kernel's launcher when gpuasm_partial_on(); hamming: the
 * mode of the kernel (mismatches only); long_ends: the launcher was the
 * myers kernel's (GPUASM_CAP_LONG_ENDS), whose LONG path took the text
 * ends that gcore::long_end_omin() names, so the pass leaves those;
 * ew, ew_slot (device memory, or NULL): the targets' ends_word tables
 * (kernels/ends/ends_word.h; slot -1: none), which the pass uses for a target as
 * the pattern in edit mode instead of rebuilding Eq and k_p per item;
 * n_ew: the slots of ew (their one-word tables go to shared memory where
 * they fit); *cells: set to the cells of its warp path
 * (gpuasm_scan_stats.ends_cells). */
int gpuasm_partial_cuda_launch(const gpuasm_cuda_batch *b, int hamming, int long_ends,
                               const struct ends_word *ew, const int32_t *ew_slot, uint32_t n_ew,
                               double *cells, gpuasm_err *err);

/* The same pass over the n items at d_items only (device memory; the
 * items the ends filter keeps, listed on the host by walk/ends_plan.h): the
 * same hits as the dense pass, since every item left out has none.
 * Patterns of at most GPUASM_ENDS_PLAN_MAX_M bases. */
int gpuasm_partial_cuda_launch_list(const gpuasm_cuda_batch *b, int hamming, int long_ends,
                                    const struct ends_word *ew, const int32_t *ew_slot,
                                    const uint64_t *d_items, uint64_t n, gpuasm_err *err);

#ifdef __cplusplus
}
#endif
#endif
