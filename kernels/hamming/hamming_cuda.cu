/* SPDX-License-Identifier: MIT */
/* hamming_cuda.cu -- the CUDA hamming kernel (seed 004: k-mismatch on the
 * GPU): the hamming row of registry.c, gpuasm_hamming_cuda_launch()
 * (cuda_kit.cuh says what a launcher does).  The per-thread logic is in
 * hamming_cuda_core.cuh; this file has the kernels, the plan and the
 * launcher.
 *
 * Problem (search.h, "Hamming mode"; seed 004 Definition 3): for every
 * searched (read, target, strand), D[m][j] = mismatches of the pattern
 * against T[j-m+1 .. j] for j in [m-1, n-1]; the end hits are the local
 * minima of D[m][.] that are <= k (positions j < m-1 count as > k).
 * Exactly the hits of gpuasm_cpu_scan() with GPUASM_KERNEL_HAMMING
 * (kernels/hamming/hamming_cpu.c + the local-minimum filter of cpu_scan.c).
 *
 * ---- Work items (every variant) ------------------------------------------
 * A batch has two orientations: O1 = the read is the text (pattern = a
 * target: adapters, seed 004 Figs. 13-14 where a 100 Mb "read" is searched
 * for 16..1024-base patterns) and O2 = the read is the pattern (text = a
 * target).  For each, X = the text set (reads for O1, targets for O2) is
 * taken as ONE string, the concatenation of its sequences (the batch's
 * offsets as they are), and Y = the pattern set.  A window is identified by
 * its start g in X; it is searched for pattern y iff it lies inside one
 * sequence x of X and (x, y) is a pair of this orientation under search.h's
 * pair rule (win_ok()).  X is cut into tiles of window starts; a work item
 * is (tile, chunk of candidate patterns), a block runs one item at a time
 * (grid-stride over 64-bit item numbers, grid = SMs x resident blocks), and
 * loops over the chunk's patterns and both strands.  So 1 M short reads x a
 * few targets and a few 100 Mb reads x one pattern both give millions of
 * equal items: both fill the GPU.  Candidate patterns (host, plan()) are
 * those that can have a window at all; their indices are uploaded once.
 *
 * Strands: the text is always X forward; strand 1 searches rc(pattern)
 * (nt16: match(comp a, b) == match(a, comp b)).  For O2 that is search.h's
 * strand 1 as is (the read, i.e. the pattern, is reverse-complemented).  For
 * O1 (the read is the text), the window of rc(read) ending at j is the
 * reverse complement of the read window starting at s = n-1-j, so
 * D_rc[j] = mismatches(rc(P), read[s .. s+m-1]): the same window start, the
 * reported end j = n-1-s and left/right neighbours swapped (report()).  The
 * byte alphabet has strand 0 only.
 *
 * Tiles and exactness: a tile computes CW consecutive window starts
 * b0 .. b0+CW-1 (b0 = tile x (CW-2) - 1) and reports only the middle CW-2,
 * so both neighbours of every reported window are computed in the same
 * block and exchanged through shared memory (d_s).  Tiles partition X's
 * window starts, so every window is reported by exactly one block.  A
 * window that leaves its sequence (j < m-1 or j > n-1) is BIGD (> k),
 * which is the contract's "no neighbour" / "counts as > k"; so is a
 * neighbour start in another sequence (report() checks sl: with m = 1 the
 * previous sequence's last window is a searched window).  D is counted
 * in full (no early exit, as in the paper), so neighbours are exact.
 *
 * ---- Variants (b.host.opt.variant; same hits) -----------------------------------
 * THREAD (seed 004 §IV.A, "thread"): one thread per window start (256 per
 *     block), pattern and text read from global memory, one byte each per
 *     cell; only D goes through shared memory (for the neighbour test).
 *     ~6 ops per cell (2 loads, compare, add, loop).
 * PAPER (seed 004 §IV.C, OPT-block-thread, Algorithms 5-6): BlockDim = 256
 *     threads, one per window start; the block stages its pattern P' (m
 *     bytes) and text tile T' (BlockDim + m - 1 bytes) in shared memory,
 *     then thread c counts ham(P', T'[c .. c+m-1]).  ~4 ops per cell (two
 *     LDS.U8, compare, add).  Patterns longer than PAPER_MAX_M (32768:
 *     ~66 KB of shared memory) go to the THREAD layout (global memory).
 * BEST (ours): bit planes and popcount.  A text word x holds 32 positions
 *     as NPT bit planes (nt16: 4 one-hot planes A, C, G, T of the code, so
 *     an IUPAC set or the 0 code is just its set bits; byte: the 8 bit
 *     planes of the symbol).  Per pattern and strand the block builds in
 *     shared memory the pattern at all 32 shifts: tab[w][r] = planes of
 *     pattern positions 32w + b - r (b = 0..31), zero outside [0, m), by
 *     one funnel shift per plane from the packed pattern.  Lane r of warp
 *     wp owns the V window starts 32 (V wp + v) + r (v = 0..V-1): all its
 *     windows have the same shift r, so window v is aligned with text words
 *     V wp + v + w and
 *         matches(v) = sum_w popc(match(tab[w][r], text[V wp + v + w])),
 *         nt16: match = (Pa&Ta) | (Pc&Tc) | (Pg&Tg) | (Pt&Tt)   (4 LOP3),
 *         byte: match = valid & ~OR_p(P_p ^ T_p)  (valid = a 9th pattern plane),
 *     D = m - matches: exact for IUPAC sets and 0 codes (no 2-bit
 *     shortcut that would need pure ACGT).  The V text words in use sit in
 *     a register ring (one new LDS.128 per w, shared by V windows) and
 *     tab[w][r] is one LDS.128 per lane per w (conflict-free, shared by V
 *     windows).  nt16: V = 8, 8 warps: CW = 2048 window starts per tile,
 *     8 patterns per item; byte: V = 4 (twice the planes), CW = 1024.
 *     Text and pattern are packed by warp ballots (one __ballot_sync per
 *     plane per 32 positions).
 *     Expected ops per window (nt16): NW = floor((m+62)/32) words, each
 *     4 LOP3 + POPC + IADD + 2/V loads + a uniform guard ~ 6.5 ops, plus
 *     ~25 per window and pattern (validity, D store, neighbour test):
 *     m = 16: ~38 ops (THREAD ~100), m = 256: ~84 (THREAD ~1500),
 *     m = 1024: ~240 (THREAD ~6000, PAPER ~4000).  Ceiling (a prediction,
 *     not a measurement; BENCHMARKS.md has the measured reproduction): POPC
 *     runs at 16 per clock per SM on sm_90, a quarter of LOP3/IADD (CUDA
 *     Programming Guide, arithmetic instruction throughput), so POPC alone
 *     caps the inner loop at 512 cells per clock per SM and the 5 LOP3/IADD
 *     at ~410: ~400 cells/clk/SM, ~90 T cells/s on 132 SMs at 1.7 GHz.
 *     Limits: the table takes 512 bytes per pattern word (nt16; byte 1536):
 *     patterns up to BEST_MAX_M (nt16 8192: ~150 KB; byte 2048: ~110 KB) use
 *     it, longer ones the THREAD layout.
 *
 * The per-thread and per-warp logic is __host__ __device__ code written
 * once against a "team" (dev_team: this thread, __syncthreads, ballots;
 * host_team: a loop over the block's threads with the same phases), so a
 * host program runs exactly the kernels' code on the CPU.  Only dev_team
 * (ballot packing: bit b of __ballot_sync = lane b), the kernel wrappers
 * and launch_one() are device-only.  Codes: nt16 codes are 4-bit sets
 * (nt16.h); BEST reads only those 4 bits, THREAD and PAPER compare whole
 * bytes like the twin.
 *
 * Knob (settings.h): cuda_hamming_smem_m lowers the longest pattern of the
 * shared-memory layouts (PAPER, BEST) to N, so short patterns exercise the
 * THREAD fallback; 0 sends everything there.
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "kernels/cuda_kit.cuh"
#include "kernels/hamming/hamming_cuda_core.cuh"

/* The hamming kernel's scratch slots (cuda_kit.cuh: kit_grow). */
enum hamming_slot {
    HAMMING_SLOT_CANDIDATES,   /* the filtered launch's candidate positions */
    HAMMING_N_SLOTS
};
static_assert((int)HAMMING_N_SLOTS <= (int)KIT_SCRATCH_SLOTS, "the hamming kernel's scratch slots");

namespace ham {

/* ---- kernels: a grid-stride loop over items --------------------------- */

struct dev_emit {
    dev_out out;
    HD void operator()(uint32_t r, uint32_t t, uint32_t j, int32_t d, uint32_t s) { out.emit(r, t, j, d, s); }
};

template <int BYTE>
static __global__ void __launch_bounds__(TB) k_thread(lp L, dev_out out)
{
    __shared__ int32_t d_s[TB];
    __shared__ uint32_t xr[2];
    dev_team tm;
    dev_emit em{ out };
    for (uint64_t item = blockIdx.x; item < L.nitems; item += gridDim.x)
        thread_item<BYTE>(tm, L, item, d_s, xr, em);
}

template <int BYTE>
static __global__ void __launch_bounds__(TB) k_paper(lp L, dev_out out)
{
    extern __shared__ uint4 smem_paper[];
    paper_smem sm;
    paper_layout(L.m_hi, (uint8_t *)smem_paper, &sm);
    dev_team tm;
    dev_emit em{ out };
    for (uint64_t item = blockIdx.x; item < L.nitems; item += gridDim.x)
        paper_item<BYTE>(tm, L, item, sm, em);
}

template <int BYTE>
static __global__ void __launch_bounds__(TB, 2) k_best(lp L, dev_out out)
{
    extern __shared__ uint4 smem_best[];
    best_smem sm;
    best_layout<BYTE>(L.m_hi, (uint8_t *)smem_best, &sm);
    dev_team tm;
    dev_emit em{ out };
    for (uint64_t item = blockIdx.x; item < L.nitems; item += gridDim.x)
        best_item<BYTE>(tm, L, item, sm, em);
}

/* ---- host plan ----------------------------------------------------------- */

struct job {
    int kind;          /* KIND_* */
    lp L;              /* L.cand: offset into the candidate list until uploaded */
    uint64_t cand_off;
    size_t smem;       /* dynamic shared memory bytes */
};

/* Longest pattern of the shared-memory layouts (the test knob may lower it). */
static uint32_t smem_max_m(int kind, int byte, long knob)
{
    uint32_t lim = kind == KIND_PAPER ? (uint32_t)PAPER_MAX_M
                                      : (byte ? (uint32_t)BEST_MAX_M_BYTE : (uint32_t)BEST_MAX_M_NT16);
    if (knob >= 0 && (uint64_t)knob < lim) lim = (uint32_t)knob;
    return lim;
}

/* The launches of batch b: per orientation, the candidate patterns of each
 * length range (shared-memory layout up to its limit, THREAD beyond),
 * appended to cand.  knob < 0: no GPUASM_CUDA_HAMMING_SMEM_M.  Host views
 * only; the device pointers are copied into the lp as given in b. */
static void plan(const gpuasm_cuda_batch &b, long knob, std::vector<job> &jobs, std::vector<uint32_t> &cand)
{
    const int byte = b.host.opt.alphabet == GPUASM_ALPHABET_BYTE;
    const int variant = b.host.opt.variant;
    const int main_kind = variant == GPUASM_VARIANT_THREAD ? KIND_THREAD
                        : variant == GPUASM_VARIANT_PAPER ? KIND_PAPER : KIND_BEST;
    for (int o1 = 1; o1 >= 0; --o1) {
        lp L;
        memset(&L, 0, sizeof L);
        const uint64_t *hxoff = o1 ? b.host.reads.off : b.host.targets.off;
        const uint64_t *hyoff = o1 ? b.host.targets.off : b.host.reads.off;
        const uint32_t ny = o1 ? b.host.targets.n : b.host.reads.n;
        L.nx = o1 ? b.host.reads.n : b.host.targets.n;
        L.xcode = o1 ? b.dev.reads.code : b.dev.targets.code;
        L.xoff = o1 ? b.dev.reads.off : b.dev.targets.off;
        L.ycode = o1 ? b.dev.targets.code : b.dev.reads.code;
        L.yoff = o1 ? b.dev.targets.off : b.dev.reads.off;
        L.xtotal = hxoff[L.nx];
        if (L.nx == 0 || ny == 0 || L.xtotal == 0) continue;
        uint64_t xmax = 0;
        for (uint32_t x = 0; x < L.nx; ++x) {
            const uint64_t n = hxoff[x + 1] - hxoff[x];
            if (n > xmax) xmax = n;
        }
        L.xmax = (uint32_t)xmax;   /* < 2^31 (the handle refuses longer) */
        L.o1 = o1;
        L.opt = b.host.opt;
        L.strands = gpuasm_strands(&b.host.opt);
        /* Ranges: [1, lim] in the main layout, (lim, inf) in THREAD. */
        const uint32_t lim = main_kind == KIND_THREAD ? UINT32_MAX : smem_max_m(main_kind, byte, knob);
        for (int part = 0; part < 2; ++part) {
            const int kind = part == 0 ? main_kind : KIND_THREAD;
            if (part == 1 && lim == UINT32_MAX) break;
            job J;
            J.kind = kind;
            J.L = L;
            J.L.m_lo = part == 0 ? 1u : lim + 1u;
            J.L.m_hi = part == 0 ? lim : UINT32_MAX;
            J.cand_off = cand.size();
            uint32_t mmax = 0;
            for (uint32_t y = 0; y < ny; ++y) {
                const uint64_t m64 = hyoff[y + 1] - hyoff[y];
                if (m64 == 0 || m64 > UINT32_MAX) continue;
                const uint32_t m = (uint32_t)m64;
                if (!pattern_ok(J.L, m, gpuasm_pair_k(&L.opt, m))) continue;
                cand.push_back(y);
                if (m > mmax) mmax = m;
            }
            J.L.ncand = cand.size() - J.cand_off;
            if (J.L.ncand == 0) continue;
            J.L.m_hi = mmax;   /* the longest candidate sizes shared memory */
            J.L.pc = kind == KIND_BEST ? (uint32_t)BEST_PC : 1u;
            J.L.cw = kind == KIND_BEST ? (byte ? (uint32_t)shape<1>::CW : (uint32_t)shape<0>::CW) : (uint32_t)TB;
            J.L.ntiles = (J.L.xtotal + J.L.cw - 3u) / (J.L.cw - 2u);
            J.L.nitems = J.L.ntiles * ((J.L.ncand + J.L.pc - 1u) / J.L.pc);
            J.smem = kind == KIND_PAPER ? paper_layout(mmax, NULL, NULL)
                   : kind == KIND_BEST ? (byte ? best_layout<1>(mmax, NULL, NULL) : best_layout<0>(mmax, NULL, NULL))
                   : 0;
            jobs.push_back(J);
        }
    }
}

template <class K>
static int launch_one(K kern, const gpuasm_cuda_batch &b, const job &J, gpuasm_err *err)
{
    if (J.smem > 48u * 1024u)
        KIT_CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)J.smem));
    int occ = 0;
    KIT_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kern, TB, J.smem));
    if (occ < 1)
        return gpuasm_err_set(err, GPUASM_ERR_INTERNAL,
                              "hamming: %zu bytes of shared memory per block do not fit", J.smem);
    uint64_t grid = (uint64_t)(b.sm_count > 0 ? b.sm_count : 1) * (uint64_t)occ;
    if (grid > J.L.nitems) grid = J.L.nitems;
    KIT_CLEAR_ERR();
    kern<<<(unsigned)grid, TB, J.smem, b.stream>>>(J.L, b.out);
    KIT_CK_LAUNCH("hamming kernel");
    return 0;
}

}  /* namespace ham */

/* cuda_kit.cuh's launcher: plans the batch on the host (O(reads + targets)),
 * uploads the candidate lists into scratch slot 0 and queues the kernels on
 * b.stream; hits go to out.  Deterministic, so the handle may call it again
 * after a hit-buffer overflow.  0, or -1 with a one-line reason in err (out
 * of host memory, a CUDA error, a block that does not fit). */
extern "C" int gpuasm_hamming_cuda_launch(const gpuasm_cuda_batch *bp, gpuasm_err *err)
{
    const gpuasm_cuda_batch &b = *bp;
    std::vector<ham::job> jobs;
    std::vector<uint32_t> cand;
    try {
        ham::plan(b, (long)gpuasm_knob(b.settings->cuda_hamming_smem_m, -1), jobs, cand);
    } catch (...) {
        return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
    }
    if (jobs.empty()) return 0;
    void *d_cand = NULL;
    int rc = kit_grow(b, HAMMING_SLOT_CANDIDATES, cand.size() * sizeof(uint32_t), &d_cand, err);
    if (rc < 0) return rc;
    if ((rc = kit_begin_kernels(b, err)) < 0) return rc;
    /* Pageable source: the call returns once the data is staged, so the
     * vector may go when this function returns. */
    KIT_CK(cudaMemcpyAsync(d_cand, cand.data(), cand.size() * sizeof(uint32_t), cudaMemcpyHostToDevice,
                           b.stream));
    const int byte = b.host.opt.alphabet == GPUASM_ALPHABET_BYTE;
    for (size_t i = 0; i < jobs.size(); ++i) {
        ham::job &J = jobs[i];
        J.L.cand = (const uint32_t *)d_cand + J.cand_off;
        switch (J.kind) {
        case ham::KIND_PAPER:
            rc = byte ? ham::launch_one(ham::k_paper<1>, b, J, err)
                      : ham::launch_one(ham::k_paper<0>, b, J, err);
            break;
        case ham::KIND_BEST:
            rc = byte ? ham::launch_one(ham::k_best<1>, b, J, err)
                      : ham::launch_one(ham::k_best<0>, b, J, err);
            break;
        default:
            rc = byte ? ham::launch_one(ham::k_thread<1>, b, J, err)
                      : ham::launch_one(ham::k_thread<0>, b, J, err);
            break;
        }
        if (rc < 0) return rc;
    }
    return 0;
}
