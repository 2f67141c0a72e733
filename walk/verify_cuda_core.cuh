/* SPDX-License-Identifier: MIT */
/* verify_cuda_core.cuh -- the per-thread code of the CUDA verification of
 * the filters' candidate windows (walk/verify_cuda.cu), __host__
 * __device__ so that tests/c/test_verify_cuda runs exactly this code on
 * the CPU against gpuasm_cpu_scan().
 *
 * One thread runs one window of filter_plan.h: Myers' bit-vector
 * recurrence with Hyyrö's blocks (the simple path of myers_cuda_core.cuh,
 * W 64-bit words in registers) over text columns [j0, jend), a fresh DP
 * column at j0, reporting the local minima <= k in [s0, s1) by search.h's
 * rule (lm_push of cuda_device.cuh).  The window's plan guarantees that
 * these are exactly the pair's end hits there (filter_plan.h).
 */
#ifndef GPUASM_VERIFY_CUDA_CORE_CUH
#define GPUASM_VERIFY_CUDA_CORE_CUH

#include <stdint.h>

#include "kernels/cuda_device.cuh"
#include "walk/filter_plan.h"
#include "kernels/myers/myers_cuda_core.cuh"
#include "search/search.h"

namespace vcore {

/* Window w of batch view v (W = ceil(m / 64) words), end hits to
 * emit(j, d). */
template <int W, class Emit>
HD void verify_window(const gpuasm_batch_view &v, const gpuasm_vwin &w, Emit &emit)
{
    const uint8_t *rs = v.reads.code + v.reads.off[w.read];
    const uint32_t rlen = (uint32_t)(v.reads.off[w.read + 1] - v.reads.off[w.read]);
    const uint8_t *ts = v.targets.code + v.targets.off[w.target];
    const uint32_t tlen = (uint32_t)(v.targets.off[w.target + 1] - v.targets.off[w.target]);
    gcore::seqv pat, txt;
    if (w.read_is_pattern) {
        pat.p = rs; pat.len = rlen; pat.rc = w.strand;
        txt.p = ts; txt.len = tlen; txt.rc = 0;
    } else {
        pat.p = ts; pat.len = tlen; pat.rc = 0;
        txt.p = rs; txt.len = rlen; txt.rc = w.strand;
    }
    gcore::window win;
    win.s0 = w.s0;
    win.s1 = w.s1;
    win.j0 = w.j0;
    win.jend = w.jend;
    gcore::reg_store<W> st;
    gcore::simple_run<W>(st, (uint32_t)W, pat, txt, win, w.k, emit);
}

}  /* namespace vcore */

#endif
