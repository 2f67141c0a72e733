/* SPDX-License-Identifier: MIT */
/* myers_byte_cuda.cu -- the Myers kernel on the byte alphabet (library API,
 * GPUASM_ALPHABET_BYTE), for texts that are not DNA: seed 003's King James
 * Bible experiment (Tabela 4.1) runs here.
 *
 * Patterns of at most 64 symbols (the myers row's byte limit): one 64-bit
 * word, Myers 1999 exactly as run_one_word() of myers_cpu.c.  Strand 0 only.
 *
 * Layout (seed 003's task-parallel scheme, GBPR-like): every searched
 * (read, target) pair's text is cut into segments of `seglen` symbols; one
 * thread runs one segment (starting m + k symbols early, search.h's
 * segment argument in cuda_device.cuh), and one block of NT threads holds
 * NT consecutive segments of ONE pair, so the block builds that pair's
 * 256-entry Peq once in shared memory (2 KB) and every thread's Eq is one
 * shared load indexed by its text byte.  The host plans blocks: per block
 * the pair and its first segment.  seglen adapts to the batch so that a
 * single long text (the Bible: 4.4 M symbols) still fills the GPU.
 */
#include <algorithm>
#include <vector>

#include "kernels/cuda_kit.cuh"
#include "kernels/myers/myers_cuda_core.cuh"   /* gcore::word_step */
#include "kernels/myers/myers_slots.h"

namespace {

enum { NT = 128, SEG_MIN = 256, SEG_MAX = 4096 };

/* One block of the plan: a pair and its first segment. */
struct mb_block {
    uint32_t read, target;
    int32_t k;
    uint32_t rip;     /* read is the pattern */
    uint32_t seg0;
};

struct mb_launch {
    gpuasm_batch_view v;      /* the batch on the device */
    const mb_block *blk;
    uint32_t seglen;
};

struct byte_emit {
    dev_out *out;
    uint32_t r, t;
    __device__ void operator()(uint32_t j, int32_t d) { out->emit(r, t, j, d, 0); }
};

__global__ void __launch_bounds__(NT) k_myers_byte(mb_launch L, dev_out out)
{
    __shared__ uint64_t peq[256];
    const mb_block B = L.blk[blockIdx.x];
    const uint8_t *rs = L.v.reads.code + L.v.reads.off[B.read];
    const uint32_t rlen = (uint32_t)(L.v.reads.off[B.read + 1] - L.v.reads.off[B.read]);
    const uint8_t *ts = L.v.targets.code + L.v.targets.off[B.target];
    const uint32_t tlen = (uint32_t)(L.v.targets.off[B.target + 1] - L.v.targets.off[B.target]);
    const uint8_t *pat = B.rip ? rs : ts, *text = B.rip ? ts : rs;
    const uint32_t m = B.rip ? rlen : tlen, n = B.rip ? tlen : rlen;

    for (uint32_t c = threadIdx.x; c < 256; c += NT) peq[c] = 0;
    __syncthreads();
    /* m <= 64 bits; one thread per pattern symbol, OR into the symbol's word. */
    for (uint32_t i = threadIdx.x; i < m; i += NT)
        atomicOr((unsigned long long *)&peq[pat[i]], 1ull << i);
    __syncthreads();

    const uint64_t seg = (uint64_t)B.seg0 + threadIdx.x;
    if (seg * L.seglen >= n) return;
    const gcore::window win = gcore::make_window(seg, L.seglen, n, (uint64_t)m + (uint64_t)B.k);
    byte_emit emit = { &out, B.read, B.target };
    const uint32_t lb = m - 1u;
    uint64_t pv = ~0ull, mv = 0;
    int32_t score = (int32_t)m;
    gcore::lmin lm;
    gcore::lm_init(lm);
    for (uint32_t j = win.j0; j < win.jend; ++j) {
        score += gcore::word_step<uint64_t>(pv, mv, peq[text[j]], lb);
        gcore::lm_push(lm, score, j, B.k, win.s0, win.s1, emit);
    }
    if (win.jend == n) gcore::lm_push(lm, (int32_t)gcore::BIGD, n, B.k, win.s0, win.s1, emit);
}

} // namespace

int gpuasm_myers_byte_cuda_launch(const gpuasm_cuda_batch &b, gpuasm_err *err)
{
    /* The searched pairs first: their text lengths set the segment length. */
    struct pair_t { uint32_t r, t; int32_t k; uint32_t rip; uint64_t n; };
    std::vector<pair_t> pairs;
    uint64_t total = 0;
    for (uint32_t r = 0; r < b.host.reads.n; r++) {
        const uint64_t rl = b.host.reads.off[r + 1] - b.host.reads.off[r];
        for (uint32_t t = 0; t < b.host.targets.n; t++) {
            const gpuasm_pair p = gpuasm_pair_of(&b.host.opt, rl, b.host.targets.off[t + 1] - b.host.targets.off[t]);
            if (!p.searched) continue;
            pairs.push_back(pair_t{ r, t, p.k, (uint32_t)p.read_is_pattern, p.n });
            total += p.n;
        }
    }
    if (!total) return 0;
    /* Segment length: enough threads for the whole GPU (about 1024 per SM)
     * over all searched text, between SEG_MIN and SEG_MAX symbols. */
    const uint64_t want_threads = (uint64_t)b.sm_count * 1024;
    const uint32_t seglen = (uint32_t)std::min<uint64_t>(
        SEG_MAX, std::max<uint64_t>(SEG_MIN, total / want_threads));
    std::vector<mb_block> plan;
    for (const pair_t &p : pairs) {
        const uint64_t segs = (p.n + seglen - 1) / seglen;
        for (uint64_t s0 = 0; s0 < segs; s0 += NT)
            plan.push_back(mb_block{ p.r, p.t, p.k, p.rip, (uint32_t)s0 });
    }
    void *d_plan = NULL;
    const size_t bytes = plan.size() * sizeof(mb_block);
    int rc = kit_grow(b, SLOT_BYTE_PLAN, bytes, &d_plan, err);
    if (rc < 0) return rc;
    KIT_CK(cudaMemcpyAsync(d_plan, plan.data(), bytes, cudaMemcpyHostToDevice, b.stream));
    if ((rc = kit_begin_kernels(b, err)) < 0) return rc;
    mb_launch L = { b.dev, (const mb_block *)d_plan, seglen };
    /* Grids of at most 2^31 - 1 blocks; the plan is cut into launches. */
    const size_t max_grid = 1u << 30;
    for (size_t first = 0; first < plan.size(); first += max_grid) {
        const size_t nb = std::min(max_grid, plan.size() - first);
        L.blk = (const mb_block *)d_plan + first;
        KIT_CLEAR_ERR();
        k_myers_byte<<<(unsigned)nb, NT, 0, b.stream>>>(L, b.out);
        KIT_CK_LAUNCH("k_myers_byte");
    }
    /* The plan may go out of scope now: a copy from pageable memory
     * returns only once the source has been staged. */
    return 0;
}
