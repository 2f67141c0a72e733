/* cuda_launch.h -- the C names of what the kernels' CUDA files export:
 * each kernel's launcher (NAME_cuda.cu), for the kernel table (registry.c),
 * and the ends pass and the filters' verification, for the CUDA backend
 * (engine/cuda_backend.cu, which exports itself through engine/backend.h).
 * Only compiled into a CUDA build.  What a launcher may and must do:
 * cuda_kit.cuh. */
#ifndef GPUASM_CUDA_LAUNCH_H
#define GPUASM_CUDA_LAUNCH_H

#include "kernels/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

int gpuasm_myers_cuda_launch(const gpuasm_cuda_batch *b, gpuasm_err *err);
void gpuasm_myers_cuda_free_state(void *state);
int gpuasm_dp_cuda_launch(const gpuasm_cuda_batch *b, gpuasm_err *err);
int gpuasm_scan_cuda_launch(const gpuasm_cuda_batch *b, gpuasm_err *err);
int gpuasm_hamming_cuda_launch(const gpuasm_cuda_batch *b, gpuasm_err *err);
/* The signal mode's launcher signature (registry.h: gpuasm_signal_kernel). */
int gpuasm_dtw_cuda_launch(const gpuasm_cuda_batch *b, gpuasm_signal_batch *s, gpuasm_err *err);
void gpuasm_dtw_cuda_free_state(void *state);

/* The ends pass (partial.h) on the GPU, for every kernel: the backend runs
 * it after the kernel's launcher when gpuasm_partial_on(); hamming: the
 * mode of the kernel (mismatches only); long_ends: the launcher was the
 * myers kernel's (GPUASM_CAP_LONG_ENDS), whose LONG path took the text
 * ends that gcore::long_end_omin() names, so the pass leaves those;
 * *cells: set to the cells of its warp path (gpuasm_scan_stats.ends_cells). */
int gpuasm_partial_cuda_launch(const gpuasm_cuda_batch *b, int hamming, int long_ends, double *cells,
                               gpuasm_err *err);

/* The filters' candidate windows (filter_plan.h) on the GPU, instead of the
 * myers launcher when the backend planned the batch: d_win[c] holds n[c]
 * windows of patterns of c + 1 words (verify_cuda.cu). */
struct gpuasm_vwin;
int gpuasm_verify_cuda_launch(const gpuasm_cuda_batch *b, struct gpuasm_vwin *const d_win[4],
                              const size_t n[4], gpuasm_err *err);

#ifdef __cplusplus
}
#endif
#endif
