/* SPDX-License-Identifier: MIT */
/* dp_cuda.cu -- the CUDA dp kernel (--kernel dp): seed 000 (Man, Nakano,
 * Ito, "The approximate string matching on the Hierarchical Memory
 * Machine", §IV-V) with seed 001 §6-8: the plain edit-distance DP of
 * approximate string matching swept by anti-diagonals, the text split into
 * D segments, one CUDA block per segment.
 *
 * Contract: gpuasm_dp_cuda_launch() (the dp row of registry.c) emits
 * exactly the end hits that gpuasm_cpu_scan() gives with opt.kernel =
 * GPUASM_KERNEL_DP (search.h: the
 * local minima of D[m][.] that are <= k, for every searched (read, target,
 * strand); pair rule, k per pair and skipped pairs as in cpu_scan.c), in
 * edit mode, on the nt16 alphabet (match = (a & b) != 0, reads reverse-
 * complemented for strand 1) and the byte alphabet (match = a == b, strand
 * 0 only).  The DP itself has no cut-off: every cell is the full value
 * (D[i][j] <= i), values > k are simply never reported.
 *
 * Matrix (dp_cpu.c): D[0][j] = 0 (free start), D[i][j0-1] = i (fresh start
 * at the left edge of a window), D[i][j] = min(D[i-1][j-1] + (P[i-1] !~
 * T[j]), D[i-1][j] + 1, D[i][j-1] + 1).  Rows i = 1..m are pattern bases.
 *
 * Work items and segments (seed 000 §V): every searched (pair, strand) is
 * split into D segments [s0, s1) = [seg n / D, (seg+1) n / D) of its text
 * (D = opt.segments when > 0, else n / max(8 (m + k), 2048) rounded up;
 * never more than n, so no segment is empty).  One CUDA block per (pair,
 * strand, segment) computes the window [j0, jend): j0 = s0 - (m + k)
 * clamped at 0, jend = min(s1 + 1, n) (one column past the segment for the
 * right neighbour of the local-minimum test).  The paper's segments are
 * s + 2m long for the ASM value; for end hits m + k is what exactness
 * needs (an alignment with <= k differences covers <= m + k text bases:
 * "Segments" in cuda_device.cuh), so D[s0-1 .. s1] are exact wherever <= k
 * and the local-minimum rule (gcore::lm_push) reports j in [s0, s1) only.
 * Each segment's end hits go straight to the hit array: the minimum over
 * segments of seed 000 Step 4 (and seed 001 §8's bitmap) is not needed,
 * because we report every end position, not one ASM value.
 *
 * Two block programs (both: one __syncthreads per wavefront step):
 *
 * PAPER (opt.variant = paper): seed 000 §IV's "improved parallel ASM
 *   algorithm".  The matrix lives as a ring of 3 anti-diagonals x LD
 *   ints, LD = m + 1 rounded up to 32 (the paper's padding; here every
 *   thread of a step uses the same ring row, so accesses are conflict-free
 *   anyway and rows 128-byte aligned).  Ring row t mod 3 holds
 *   anti-diagonal t: cell (i, c) with c = t - i + 1 (c = window column).
 *   At step t each row i computes (i, t - i + 1) from ring[(t-1)%3][i]
 *   (left), ring[(t-1)%3][i-1] (up), ring[(t-2)%3][i-1] (diagonal) and
 *   writes ring[t%3][i]: 3 LDS + 1 STS per cell, as in the paper.  Row 0
 *   is ring[*][0] = 0; column -1 of row i (= i) is stored before the first
 *   step at ring[(i-2) mod 3][i], the slot anti-diagonal i - 2 would use
 *   (no boundary branches).  Steps: ncols + m - 1.
 *   - STAGED (m <= 1024): blockDim = m rounded up to 32, thread g = row
 *     g + 1 (seed 000's "m threads per block"), pattern base in a register,
 *     text staged in a shared-memory byte ring (below).  Shared memory:
 *     12 LD bytes + the text ring (<= 2 KiB): 14.4 KiB at m = 1024.
 *   - LOOP (m > 1024, or the knobs below): blockDim = min(m, 1024);
 *     thread g does rows g+1, g+1+blockDim, ... of the anti-diagonal;
 *     pattern and text read from global memory.  The ring in shared
 *     memory when 12 LD bytes fit the opt-in limit (m up to 18,432 on an
 *     H100), else in global scratch (slot 1: one ring per block of a wave;
 *     waves of at most 2 blocks per SM and 256 MiB).  Any m works (a
 *     100,000-base pattern: 1.2 MB ring per block, slow but exact).
 *
 * BEST (default): the same wavefront, tiled.  Thread g owns H consecutive
 *   rows and at step t computes the tile of R = 4 text columns q = t - g
 *   (window columns 4q .. 4q+3) for all its rows: 4 H cells per
 *   __syncthreads instead of 1.  Inside a thread the left and diagonal
 *   neighbours stay in registers; the only exchange is the tile of the
 *   thread's bottom row, which thread g+1 reads at step t+1 (int4,
 *   double-buffered by step parity: 2 x blockDim x 16 bytes, conflict-free
 *   128-bit accesses).  Cell: x = min(diag + mismatch, up + 1) (Hopper DPX
 *   __viaddmin_s32), then v = min(left + 1, x): one op on the serial
 *   left-to-right chain.  Steps: ceil(ncols / 4) + m / H.  Exact for the
 *   same reason as PAPER: the same recurrence in another order.
 *   - m <= 8192: H = 1, 2, 4, 8 (the smallest with m / H <= 1024, so
 *     m <= 1024 keeps "one thread per row"), rows' left values and codes
 *     in registers.  Shared memory 32 B per thread + the text ring (4 B
 *     per element): 40 KiB at 1024 threads.
 *   - BEST-MEM, m > 8192: blockDim = 1024, H = ceil(m / 1024), the rows'
 *     left values and codes in memory ([h][thread], 5 bytes per row):
 *     in shared memory after X and the text ring when that fits the
 *     opt-in limit (m up to about 37,000 on an H100), else a global slot
 *     per block (scratch slot 1, waves as LOOP).  3 memory accesses per
 *     row and tile of 4 cells (left load and store, code), against 4 per
 *     cell in LOOP.
 *
 * Text ring (STAGED, BEST): element x holds window columns x (STAGED) or
 *   4x .. 4x+3 (BEST, one byte each); thread g reads element t - g at step
 *   t.  Every C steps (C = largest power of 2 <= blockDim / 2) the first C
 *   threads store the elements [t + C, t + 2C) they loaded into a register
 *   C steps earlier and load [t + 2C, t + 3C): global latency is hidden
 *   behind C steps.  Ring size TR (power of 2) >= 2C + blockDim: the
 *   elements written at step t never alias one read at step t or later.
 *
 * Planning: the host walks the (read, target) pairs once (O(pairs)), sorts
 *   searched pairs into buckets of one block shape (path, blockDim, H; for
 *   LOOP the ring size class) and writes per bucket a compact plan: one
 *   16-byte entry (first item, read, target) per pair; item = strand + S x
 *   segment within a pair (S = strands).  A block finds its pair by binary
 *   search and derives m, n, k, strand and window with the same functions
 *   the host used.  Plans go through scratch slot 0 (cudaMemcpyAsync on
 *   b.stream), in chunks of at most 256 Ki pairs (bounded memory for 1M-read
 *   batches), grids of at most 2^30 blocks per launch.
 *
 * Limits: sequences < 2^31 bases (the backend checks); none on m.
 *
 * Knobs (settings.h): dp_rows (BEST: at least H rows per thread: 1, 2, 4,
 * 8), dp_threads (every pair through the memory-backed program of its
 * variant, PAPER: LOOP, BEST: BEST-MEM, with at most N threads per block,
 * so rows loop even for short patterns), dp_force_global (the same with
 * the ring / rows in global scratch), dp_pair_chunk (pairs per plan
 * chunk, default 256 Ki).
 *
 * Per-thread logic is __host__ __device__ (the dp_* / best_* / paper_*
 * functions of dp_cuda_core.cuh); the kernels below are thin loops of "init; sync; (step;
 * sync) x nsteps; finish", so a host harness can run the very same code
 * phase by phase over every thread of a block.
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <new>
#include <unordered_map>
#include <vector>

#include "kernels/cuda_kit.cuh"
#include "kernels/dp/dp_cuda_core.cuh"

/* The dp kernel's scratch slots (cuda_kit.cuh: kit_grow). */
enum dp_slot {
    DP_SLOT_ENTRIES,           /* a chunk's plan entries */
    DP_SLOT_RING,              /* LOOP_GL / BESTM_GL: the rings or rows in global memory */
    DP_N_SLOTS
};
static_assert((int)DP_N_SLOTS <= (int)KIT_SCRATCH_SLOTS, "the dp kernel's scratch slots");

namespace {

using namespace dpk;

/* ---- kernels: init; sync; (step; sync) x nsteps; finish ------------------ */

template <int H, int A>
__global__ void __launch_bounds__(DP_MAX_THREADS) k_best(dp_args a, dev_out out)
{
    extern __shared__ int4 dp_smem[];
    const dp_item it = dp_decode(a, a.item_base + blockIdx.x);
    const best_geo geo = best_geo_of(it, blockDim.x, H);
    int4 *X = dp_smem;
    uint32_t *TX = (uint32_t *)(dp_smem + 2 * (size_t)geo.B);
    const uint32_t g = threadIdx.x;
    dp_emit<dev_out> em = { &out, it.r, it.t, it.strand };
    best_st<H> st;
    best_init<H>(st, it, geo, g, TX);
    __syncthreads();
    for (uint32_t t = 0; t < geo.nsteps; ++t) {
        best_step<H, A>(st, it, geo, g, t, X, TX, em);
        __syncthreads();
    }
    best_finish<H>(st, it, geo, g, em);
}

template <int A>
__global__ void __launch_bounds__(DP_MAX_THREADS) k_staged(dp_args a, dev_out out)
{
    extern __shared__ int4 dp_smem[];
    const dp_item it = dp_decode(a, a.item_base + blockIdx.x);
    const uint32_t B = blockDim.x, g = threadIdx.x;
    const stage_geom sg = stage_of(B);
    int32_t *ring = (int32_t *)dp_smem;
    uint8_t *TX = (uint8_t *)dp_smem + staged_ring_bytes(it.m);
    dp_emit<dev_out> em = { &out, it.r, it.t, it.strand };
    paper_st st;
    staged_init(st, it, sg, g, B, ring, TX);
    __syncthreads();
    const uint32_t nsteps = paper_nsteps(it);
    for (uint32_t t = 0; t < nsteps; ++t) {
        staged_step<A>(st, it, sg, g, t, ring, TX, em);
        __syncthreads();
    }
    paper_finish(st, it, g, B, em);
}

template <int GLOBAL, int A>
__global__ void __launch_bounds__(DP_MAX_THREADS) k_loop(dp_args a, dev_out out)
{
    extern __shared__ int4 dp_smem[];
    const dp_item it = dp_decode(a, a.item_base + blockIdx.x);
    const uint32_t B = blockDim.x, g = threadIdx.x;
    int32_t *ring = GLOBAL ? a.gring + (size_t)blockIdx.x * a.ring_words : (int32_t *)dp_smem;
    dp_emit<dev_out> em = { &out, it.r, it.t, it.strand };
    paper_st st;
    loop_init(st, it, g, B, ring);
    __syncthreads();
    const uint32_t nsteps = paper_nsteps(it);
    for (uint32_t t = 0; t < nsteps; ++t) {
        loop_step<A>(st, it, g, B, t, ring, em);
        __syncthreads();
    }
    paper_finish(st, it, g, B, em);
}

template <int GLOBAL, int A>
__global__ void __launch_bounds__(DP_MAX_THREADS) k_bestm(dp_args a, dev_out out)
{
    extern __shared__ int4 dp_smem[];
    const dp_item it = dp_decode(a, a.item_base + blockIdx.x);
    const bestm_geo geo = bestm_geo_of(it, blockDim.x);
    int4 *X = dp_smem;
    uint32_t *TX = (uint32_t *)(dp_smem + 2 * (size_t)geo.g.B);
    unsigned char *rows = GLOBAL ? (unsigned char *)(a.gring + (size_t)blockIdx.x * a.ring_words)
                                 : (unsigned char *)(TX + geo.g.sg.TR);
    const uint32_t g = threadIdx.x;
    dp_emit<dev_out> em = { &out, it.r, it.t, it.strand };
    bestm_st st;
    bestm_init(st, it, geo, g, TX, rows);
    __syncthreads();
    for (uint32_t t = 0; t < geo.g.nsteps; ++t) {
        bestm_step<A>(st, it, geo, g, t, X, TX, rows, em);
        __syncthreads();
    }
    bestm_finish(st, it, geo, g, em);
}

/* ---- host planning -------------------------------------------------------- */

struct dp_knobs {
    uint32_t rows;            /* BEST: at least this many rows per thread */
    uint32_t threads;         /* 0, or every pair through LOOP / BEST-MEM, <= this many threads */
    int force_global;         /* every pair through LOOP / BEST-MEM, store in global scratch */
    size_t pair_chunk;
};

/* Blocks of one shape; entries of one plan chunk. */
struct dp_bucket {
    int path;
    uint32_t B, H;            /* H: BEST, BEST-MEM shared */
    uint32_t maxm;
    uint64_t items;
    std::vector<dp_entry> e;
};

static uint32_t round32(uint64_t x) { return (uint32_t)((x + 31u) & ~(uint64_t)31u); }

/* The knobs of settings.h that dp reads (read once per launch). */
static dp_knobs dp_knobs_of(const gpuasm_settings &st)
{
    dp_knobs K;
    const int64_t h = gpuasm_knob(st.dp_rows, 1);
    K.rows = h >= 8 ? 8 : h >= 4 ? 4 : h >= 2 ? 2 : 1;
    K.threads = (uint32_t)gpuasm_knob(st.dp_threads, 0);
    K.force_global = gpuasm_knob(st.dp_force_global, 0) != 0;
    K.pair_chunk = (size_t)gpuasm_knob(st.dp_pair_chunk, DP_DEFAULT_PAIR_CHUNK);
    return K;
}

/* Bucket key of a pair with pattern length m (blocks of one launch share
 * blockDim and the dynamic shared memory size).  smem_optin: the device's
 * opt-in shared memory per block (bytes). */
static uint64_t dp_classify(const dp_knobs &K, int paper, uint32_t m, size_t smem_optin,
                            int *path, uint32_t *B, uint32_t *H)
{
    const int mem = K.threads || K.force_global;   /* memory-backed programs forced */
    const uint32_t bl = K.threads ? K.threads : (uint32_t)DP_MAX_THREADS;
    const uint32_t bm = round32(m) < bl ? round32(m) : bl;   /* their blockDim */
    if (!paper) {
        if (!mem && m <= DP_BEST_MAX_M) {
            uint32_t h = K.rows;
            while ((m + h - 1) / h > DP_MAX_THREADS) h *= 2;
            *path = PATH_BEST;
            *H = h;
            *B = round32((m + h - 1) / h);
            return ((uint64_t)PATH_BEST << 60) | ((uint64_t)h << 32) | *B;
        }
        *B = bm;
        *H = (m + bm - 1) / bm;
        if (K.force_global || best_smem(bm) + bestm_rows_bytes(*H, bm) > smem_optin) {
            *path = PATH_BESTM_GL;
            return ((uint64_t)PATH_BESTM_GL << 60) | *B;
        }
        *path = PATH_BESTM_SH;
        return ((uint64_t)PATH_BESTM_SH << 60) | ((uint64_t)*H << 32) | *B;
    }
    *H = 1;
    if (!mem && m <= DP_STAGED_MAX_M) {
        *path = PATH_STAGED;
        *B = round32(m);
        return ((uint64_t)PATH_STAGED << 60) | *B;
    }
    *B = bm;
    /* Ring class: m rounded up to 1024 (one smem size per launch). */
    const uint64_t cls = ((uint64_t)m + 1023) / 1024;
    const size_t bytes = (size_t)3 * ring_ld((uint32_t)(cls * 1024)) * sizeof(int32_t);
    if (K.force_global || bytes > smem_optin) {
        *path = PATH_LOOP_GL;
        return ((uint64_t)PATH_LOOP_GL << 60) | *B;
    }
    *path = PATH_LOOP_SH;
    return ((uint64_t)PATH_LOOP_SH << 60) | (cls << 32) | *B;
}

/* What a plan walks: the batch's host view. */
struct dp_plan_in {
    uint32_t nreads, ntargets;
    const uint64_t *roff, *toff;
    gpuasm_search_opt opt;
};

/* Walk every (read, target) pair once; searched pairs go to their bucket;
 * flush(buckets) every pair_chunk entries and at the end.  0 or flush's
 * status. */
template <class Flush>
static int dp_plan(const dp_plan_in &P, const dp_knobs &K, size_t smem_optin, Flush &flush)
{
    const gpuasm_search_opt &o = P.opt;
    const uint32_t strands = (uint32_t)gpuasm_strands(&o);
    const int paper = o.variant == GPUASM_VARIANT_PAPER;
    std::vector<dp_bucket> bk;
    std::unordered_map<uint64_t, size_t> idx;
    uint64_t last_key = ~(uint64_t)0;
    size_t last_b = 0, pending = 0;
    for (uint32_t r = 0; r < P.nreads; ++r) {
        const uint64_t rlen = P.roff[r + 1] - P.roff[r];
        for (uint32_t t = 0; t < P.ntargets; ++t) {
            const gpuasm_pair pr = gpuasm_pair_of(&o, rlen, P.toff[t + 1] - P.toff[t]);
            if (!pr.searched) continue;
            const uint64_t m = pr.m, n = pr.n;
            const int32_t k = pr.k;
            int path;
            uint32_t B, H;
            const uint64_t key = dp_classify(K, paper, (uint32_t)m, smem_optin, &path, &B, &H);
            size_t bi;
            if (key == last_key) {
                bi = last_b;
            } else {
                auto f = idx.find(key);
                if (f == idx.end()) {
                    bi = bk.size();
                    idx.emplace(key, bi);
                    dp_bucket nb;
                    nb.path = path;
                    nb.B = B;
                    nb.H = H;
                    nb.maxm = 0;
                    nb.items = 0;
                    bk.push_back(nb);
                } else {
                    bi = f->second;
                }
                last_key = key;
                last_b = bi;
            }
            dp_bucket &b = bk[bi];
            dp_entry e;
            e.item0 = b.items;
            e.r = r;
            e.t = t;
            b.e.push_back(e);
            b.items += strands * dp_nseg(m, k, n, o.segments);
            if ((uint32_t)m > b.maxm) b.maxm = (uint32_t)m;
            if (++pending >= K.pair_chunk) {
                const int rc = flush(bk);
                if (rc < 0) return rc;
                for (auto &x : bk) {
                    x.e.clear();
                    x.items = 0;
                    x.maxm = 0;
                }
                pending = 0;
            }
        }
    }
    return pending ? flush(bk) : 0;
}

/* Dynamic shared memory of a bucket's blocks (bytes). */
static size_t dp_bucket_smem(const dp_bucket &b)
{
    switch (b.path) {
    case PATH_BEST: return best_smem(b.B);
    case PATH_STAGED: return staged_smem(b.maxm, b.B);
    case PATH_LOOP_SH: return (size_t)3 * ring_ld(b.maxm) * sizeof(int32_t);
    case PATH_BESTM_SH: return best_smem(b.B) + bestm_rows_bytes(b.H, b.B);
    case PATH_BESTM_GL: return best_smem(b.B);
    default: return 0;
    }
}

/* LOOP_GL, BESTM_GL: int32 words of one block's global slot. */
static uint64_t dp_gl_words(const dp_bucket &b)
{
    if (b.path == PATH_LOOP_GL) return (uint64_t)3 * ring_ld(b.maxm);
    return (bestm_rows_bytes((b.maxm + b.B - 1) / b.B, b.B) + 3) / 4;
}

/* Blocks per wave = global slots (at most 2 per SM, the most 1024-thread
 * blocks an SM holds, and DP_GRING_BUDGET bytes in all). */
static uint64_t dp_gl_wave(const dp_bucket &bk, int sm_count)
{
    const size_t slot = (size_t)dp_gl_words(bk) * sizeof(int32_t);
    uint64_t ns = DP_GRING_BUDGET / slot;
    const uint64_t resident = 2 * (uint64_t)(sm_count > 0 ? sm_count : 1);
    if (ns > resident) ns = resident;
    if (ns > bk.items) ns = bk.items;
    if (ns < 1) ns = 1;
    return ns;
}

/* ---- device launch -------------------------------------------------------- */

typedef void (*dp_kernel_fn)(dp_args, dev_out);

/* The kernel of a bucket's block program. */
template <int A>
static dp_kernel_fn dp_kernel_of(const dp_bucket &bk)
{
    switch (bk.path) {
    case PATH_BEST:
        return bk.H == 1 ? k_best<1, A> : bk.H == 2 ? k_best<2, A> : bk.H == 4 ? k_best<4, A>
                                                                                : k_best<8, A>;
    case PATH_STAGED: return k_staged<A>;
    case PATH_LOOP_SH: return k_loop<0, A>;
    case PATH_LOOP_GL: return k_loop<1, A>;
    case PATH_BESTM_SH: return k_bestm<0, A>;
    default: return k_bestm<1, A>;
    }
}

/* Launch every item of a bucket: grids of at most DP_MAX_GRID blocks, or
 * waves of the global slots (scratch slot 1) for LOOP_GL / BESTM_GL. */
template <int A>
static int dp_launch_bucket(const dp_bucket &bk, const gpuasm_cuda_batch &b, dp_args a,
                            gpuasm_err *err)
{
    const dp_kernel_fn kern = dp_kernel_of<A>(bk);
    const size_t smem = dp_bucket_smem(bk);
    if (smem > 48 * 1024)
        KIT_CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    uint64_t wave = DP_MAX_GRID;
    if (bk.path == PATH_LOOP_GL || bk.path == PATH_BESTM_GL) {
        a.ring_words = dp_gl_words(bk);
        wave = dp_gl_wave(bk, b.sm_count);
        void *p = NULL;
        const int rc = kit_grow(b, DP_SLOT_RING, (size_t)wave * a.ring_words * sizeof(int32_t), &p, err);
        if (rc < 0) return rc;
        a.gring = (int32_t *)p;
    }
    for (uint64_t i0 = 0; i0 < bk.items; i0 += wave) {
        const uint64_t nb = bk.items - i0 < wave ? bk.items - i0 : wave;
        a.item_base = i0;
        KIT_CLEAR_ERR();
        kern<<<(unsigned)nb, bk.B, smem, b.stream>>>(a, b.out);
        KIT_CK_LAUNCH("dp kernel");
    }
    return 0;
}

/* One plan chunk as uploaded: every bucket's entries back to back in
 * host; bucket i's start at off[i]. */
static void dp_concat(const std::vector<dp_bucket> &bk, std::vector<dp_entry> &host,
                      std::vector<size_t> &off)
{
    host.clear();
    off.resize(bk.size());
    for (size_t i = 0; i < bk.size(); ++i) {
        off[i] = host.size();
        host.insert(host.end(), bk[i].e.begin(), bk[i].e.end());
    }
}

/* Upload one plan chunk (slot 0) and launch its buckets. */
struct dp_device_flush {
    const gpuasm_cuda_batch *b;
    gpuasm_err *err;
    std::vector<dp_entry> host;   /* the chunk, buckets back to back */
    int flushes;

    int operator()(std::vector<dp_bucket> &bk)
    {
        std::vector<size_t> off;
        dp_concat(bk, host, off);
        if (host.empty()) return 0;
        /* The previous chunk's kernels still read slot 0: wait for them
         * before the copy overwrites it (and before the host buffer is
         * refilled, whatever the driver does with pageable memory). */
        if (flushes++) KIT_CK(cudaStreamSynchronize(b->stream));
        void *p = NULL;
        int rc = kit_grow(*b, DP_SLOT_ENTRIES, host.size() * sizeof(dp_entry), &p, err);
        if (rc < 0) return rc;
        if ((rc = kit_begin_kernels(*b, err)) < 0) return rc;
        KIT_CK(cudaMemcpyAsync(p, host.data(), host.size() * sizeof(dp_entry),
                               cudaMemcpyHostToDevice, b->stream));
        dp_args a;
        memset(&a, 0, sizeof a);
        a.v = b->dev;
        a.strands = (uint32_t)gpuasm_strands(&b->host.opt);
        const int byte = b->host.opt.alphabet == GPUASM_ALPHABET_BYTE;
        for (size_t i = 0; i < bk.size(); ++i) {
            if (bk[i].e.empty()) continue;
            a.ent = (const dp_entry *)p + off[i];
            a.nent = (uint32_t)bk[i].e.size();
            rc = byte ? dp_launch_bucket<DP_ALPHA_BYTE>(bk[i], *b, a, err)
                      : dp_launch_bucket<DP_ALPHA_NT16>(bk[i], *b, a, err);
            if (rc < 0) return rc;
        }
        return 0;
    }
};

}  /* namespace */

extern "C" int gpuasm_dp_cuda_launch(const gpuasm_cuda_batch *bp, gpuasm_err *err)
{
    const gpuasm_cuda_batch &b = *bp;
    if (b.host.reads.n == 0 || b.host.targets.n == 0) return 0;
    const dp_knobs K = dp_knobs_of(*b.settings);
    dp_plan_in P;
    P.nreads = b.host.reads.n;
    P.ntargets = b.host.targets.n;
    P.roff = b.host.reads.off;
    P.toff = b.host.targets.off;
    P.opt = b.host.opt;
    dp_device_flush fl;
    fl.b = &b;
    fl.err = err;
    fl.flushes = 0;
    try {
        return dp_plan(P, K, b.smem_optin, fl);
    } catch (const std::bad_alloc &) {
        return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "dp kernel: out of memory (plan)");
    }
}
