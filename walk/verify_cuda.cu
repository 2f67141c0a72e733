/* SPDX-License-Identifier: MIT */
/* verify_cuda.cu -- the CUDA verification of the exact filters' candidate
 * windows (filter_plan.h): one thread per window, the per-thread code of
 * verify_cuda_core.cuh, one launch per pattern width (1..4 words, so each
 * kernel keeps its W words in registers).  The CPU twin of a window is
 * the CPU walk over the same end ranges (cpu_scan.c); both are held to
 * each other by tests/c/test_verify_cuda (host) and tests/gpu/filter (SAM).
 *
 * The windows are planned on the host (filter_plan.c, threads): the index
 * look-ups are random reads that host threads do well, and the GPU gets
 * only the dense verification.  A thread per window is enough here: a
 * window is m + 3k columns, or a segment of 4096 columns when a read strand
 * is searched whole (all of them are then many).
 */
#include <cuda_runtime.h>

#include "kernels/cuda_kit.cuh"
#include "walk/verify_cuda_core.cuh"

namespace {

enum { VTHREADS = 256 };

template <int W>
__global__ void __launch_bounds__(VTHREADS)
k_verify(gpuasm_batch_view v, const gpuasm_vwin *win, uint64_t n, dev_out out)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const gpuasm_vwin w = win[i];
        emitter<dev_out> e;
        e.out = &out;
        e.r = w.read;
        e.t = w.target;
        e.s = w.strand;
        vcore::verify_window<W>(v, w, e);
    }
}

template <int W>
int launch_class(const gpuasm_cuda_batch *b, const gpuasm_vwin *d_win, uint64_t n, gpuasm_err *err)
{
    if (!n) return 0;
    uint64_t blocks = (n + VTHREADS - 1) / VTHREADS;
    const uint64_t most = (uint64_t)b->sm_count * KIT_GRID_PER_SM;
    if (blocks > most) blocks = most;
    KIT_CLEAR_ERR();
    k_verify<W><<<(unsigned)blocks, VTHREADS, 0, b->stream>>>(b->dev, d_win, n, b->out);
    KIT_CK_LAUNCH("k_verify");
    return 0;
}

}  /* namespace */

extern "C" int gpuasm_verify_cuda_launch(const gpuasm_cuda_batch *b, gpuasm_vwin *const d_win[4],
                                         const size_t n[4], gpuasm_err *err)
{
    int rc = kit_begin_kernels(*b, err);
    if (rc == 0) rc = launch_class<1>(b, d_win[0], n[0], err);
    if (rc == 0) rc = launch_class<2>(b, d_win[1], n[1], err);
    if (rc == 0) rc = launch_class<3>(b, d_win[2], n[2], err);
    if (rc == 0) rc = launch_class<4>(b, d_win[3], n[3], err);
    return rc;
}
