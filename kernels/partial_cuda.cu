/* partial_cuda.cu -- the ends pass on the GPU: the partial occurrences of
 * search.h ("Partial occurrences") for every kernel, after its launcher
 * (cuda_backend.cu runs both).  The per-item code is partial.h's, the very
 * code the CPU pair walk runs, so both backends give the same hits.
 *
 * Work item: (pair, strand, end of the text), items = pairs x strands x 2,
 * one thread each in a grid-stride loop; an item whose pair takes no
 * partial occurrence at that end (omin = 0, or the end not asked for)
 * costs a few instructions.  Workspace (partial.h: 6 words per 64 pattern
 * bases): patterns up to SMALL_M bases use a per-thread array; longer ones
 * (long reads as patterns) run in a second launch whose threads each own a
 * slot of global scratch, at most SCRATCH_BUDGET bytes in all.
 */
#include <cuda_runtime.h>

#include <stdint.h>

#include <algorithm>

#include "cuda_kit.cuh"
#include "partial.h"

namespace {

enum {
    PNT = 128,             /* threads per block */
    SMALL_M = 256,         /* patterns with a per-thread workspace */
    SMALL_WORDS = 6 * (SMALL_M / 64),
    SLOT_PARTIAL = 5       /* scratch slot of the long-pattern workspace (cuda_kit.cuh) */
};
const size_t SCRATCH_BUDGET = (size_t)256 << 20;

struct partial_launch {
    gpuasm_batch_view v;   /* the batch on the device */
    int32_t hamming;       /* mode hamming: mismatches only */
    uint32_t strands;
    uint64_t items;        /* pairs x strands x 2 */
    int32_t big;           /* 0: patterns <= SMALL_M, 1: longer ones */
    uint64_t *glob;        /* big: slot s at glob + s * glob_words */
    uint64_t glob_words;
};

__device__ __forceinline__ void partial_item(const partial_launch &L, uint64_t item, uint64_t *ws,
                                             dev_out &out)
{
    const uint32_t end = (uint32_t)(item & 1u);
    const uint32_t strand = (uint32_t)((item >> 1) % L.strands);
    const uint64_t pair = (item >> 1) / L.strands;
    const gcore::pair_ref x = gcore::pair_at(L.v, pair);
    if (!x.p.searched) return;
    if ((x.p.m > SMALL_M) != (L.big != 0)) return;
    const uint32_t omin = gpuasm_pair_overlap_min(&L.v.opt, x.p.read_is_pattern, x.p.m);
    const uint32_t ends = gpuasm_partial_text_ends(&L.v.opt, x.p.read_is_pattern, strand);
    if (!omin || !(ends & (1u << end))) return;
    gpuasm_seqview pv, tv;
    pv.p = x.pat;
    pv.len = (uint32_t)x.p.m;
    pv.rc = x.p.read_is_pattern && strand;
    tv.p = x.txt;
    tv.len = (uint32_t)x.p.n;
    tv.rc = !x.p.read_is_pattern && strand;
    const gpuasm_partial b = gpuasm_partial_best(&L.v.opt, omin, &pv, &tv, (int)end, L.hamming, ws);
    if (b.plen)
        out.emit_kind(x.r, x.t, end ? 0u : tv.len - 1u, b.dist, strand,
                      end ? GPUASM_HIT_TEXT_START : GPUASM_HIT_TEXT_END, b.plen);
}

__global__ void __launch_bounds__(PNT) k_partial_small(partial_launch L, dev_out out)
{
    uint64_t ws[SMALL_WORDS];
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t it = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; it < L.items; it += stride)
        partial_item(L, it, ws, out);
}

__global__ void __launch_bounds__(PNT) k_partial_big(partial_launch L, uint64_t nslot, dev_out out)
{
    const uint64_t slot = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (slot >= nslot) return;
    uint64_t *ws = L.glob + slot * L.glob_words;
    for (uint64_t it = slot; it < L.items; it += nslot) partial_item(L, it, ws, out);
}

}  /* namespace */

/* The ends pass of batch b (cuda_launch.h).  Called by the backend after
 * the kernel's launcher, on the same stream and hit output. */
extern "C" int gpuasm_partial_cuda_launch(const gpuasm_cuda_batch *bp, int hamming, gpuasm_err *err)
{
    const gpuasm_cuda_batch &b = *bp;
    const uint32_t strands = (uint32_t)gpuasm_strands(&b.host.opt);
    const uint64_t npairs = (uint64_t)b.host.reads.n * b.host.targets.n;
    if (npairs == 0 || !gpuasm_partial_on(&b.host.opt)) return 0;
    partial_launch L;
    L.v = b.dev;
    L.hamming = hamming;
    L.strands = strands;
    L.items = npairs * strands * 2;
    L.big = 0;
    L.glob = NULL;
    L.glob_words = 0;
    /* The longest pattern decides whether the long-pattern launch is needed
     * and sizes its slots (a bound: the longest sequence of either set). */
    uint64_t maxm = 0;
    for (uint32_t r = 0; r < b.host.reads.n; ++r)
        maxm = std::max<uint64_t>(maxm, b.host.reads.off[r + 1] - b.host.reads.off[r]);
    for (uint32_t t = 0; t < b.host.targets.n; ++t)
        maxm = std::max<uint64_t>(maxm, b.host.targets.off[t + 1] - b.host.targets.off[t]);
    int rc = kit_begin_kernels(b, err);
    if (rc < 0) return rc;
    const unsigned grid = (unsigned)std::min<uint64_t>((L.items + PNT - 1) / PNT,
                                                       (uint64_t)b.sm_count * KIT_GRID_PER_SM);
    KIT_CLEAR_ERR();
    k_partial_small<<<grid, PNT, 0, b.stream>>>(L, b.out);
    KIT_CK_LAUNCH("k_partial_small");
    if (maxm > SMALL_M) {
        L.big = 1;
        L.glob_words = gpuasm_partial_ws_words((uint32_t)std::min<uint64_t>(maxm, UINT32_MAX));
        const size_t slot_bytes = (size_t)L.glob_words * sizeof(uint64_t);
        uint64_t nslot = std::max<uint64_t>(1, SCRATCH_BUDGET / slot_bytes);
        nslot = std::min<uint64_t>(nslot, (uint64_t)b.sm_count * 1024);
        nslot = std::min<uint64_t>(nslot, L.items);
        void *p = NULL;
        if ((rc = kit_grow(b, SLOT_PARTIAL, (size_t)nslot * slot_bytes, &p, err)) < 0) return rc;
        L.glob = (uint64_t *)p;
        KIT_CLEAR_ERR();
        k_partial_big<<<(unsigned)((nslot + PNT - 1) / PNT), PNT, 0, b.stream>>>(L, nslot, b.out);
        KIT_CK_LAUNCH("k_partial_big");
    }
    return 0;
}
