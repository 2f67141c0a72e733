/* SPDX-License-Identifier: MIT */
/* dtw_cuda.cu -- the CUDA dtw kernel (the signal mode, signal_mode.h): seed 001
 * (Nakano, "Optimal implementations of the approximate string matching and
 * the approximate discrete signal matching on the memory machine models")
 * §5 and §10, ADSM by the anti-diagonal DP of §6-8, for raw nanopore
 * signal against the expected signal of genome strands.
 *
 * Contract: gpuasm_dtw_cuda_launch() (the dtw row of registry.c, the
 * signal launcher signature of cuda_kit.cuh) gives, for every (read,
 * reference) pair of the batch, exactly the (cost, end) of signal_mode.h that
 * gpuasm_dtw_cpu_pair() gives: integer costs, so bit for bit.  Results are
 * 64-bit keys (cost << 32 | end, dtw_cuda_core.cuh): the smallest key is
 * the best cost at its smallest end, so several blocks of one pair combine
 * with a min.
 *
 * Two block programs (opt.variant), BEST with two paths; dtw_cuda_core.cuh
 * has their per-thread code and the reasoning:
 *
 * BEST (default), band path: one warp per (read, reference) item, DTW_WARPS items per
 *   block ("many reads per block"), no shared memory, no __syncthreads.
 *   Lane L holds R consecutive query rows in registers (R = 4 .. 64) and
 *   at step t the tile of 4 reference columns t - L; the tile's bottom row
 *   goes to lane L + 1 by __shfl_up_sync.  R: when 4 divides m, the
 *   largest power of 2 up to 64 that divides m (ALIGNED: row m - 1 is the
 *   bottom row of its lane, the tile's output, so no per-cell select picks
 *   it out; 2,000 samples: R = 16, 74 registers); else the smallest R with
 *   32 R >= m (one band up to 2,048 rows) and a select per cell.  A cell is one DPX __vimin3_s32 and, for
 *   the abs cost, one VABSDIFF (__sad: |x - y| plus the min; see cell() in
 *   dtw_cuda_core.cuh), for the sq cost sub, mul, add, shift and an add; inside a lane
 *   the 4 columns of R rows form a wavefront of independent chains, so the
 *   warp issues cells back to back.  Steps: ceil(n / 4) + 31 per band;
 *   queries of more than 32 R samples run in bands of 32 R rows, the last
 *   row of a band reaching the next through a row buffer in global scratch
 *   (one per warp of a wave; waves bounded by DTW_BND_BUDGET).
 *
 * BEST, sets path (default where it fits): rows per lane decoupled from
 *   the divisibility of m.  The band path needs R | m for ALIGNED (else a
 *   select per cell, ~25% more work), so 2,000-sample queries got R = 16
 *   and ran as 4 bands (more rows per lane helped, BENCHMARKS.md,
 *   "Measurements behind the code", but 32 and 64 do not divide 2,000).  Here lane L holds S sets of R0 rows (R0 in {4, 8, 16}
 *   dividing m, S = ceil(m / 32 R0) <= 8): set s is the virtual lane
 *   v = 32 s + L, rows [v R0, v R0 + R0), which at step t computes tile
 *   t - v with the band path's per-lane code (dtw_cuda_core.cuh, "sets").
 *   Its input from above is what virtual lane v - 1 returned at step
 *   t - 1: lane L - 1's set s, or, for L = 0, lane 31's set s - 1, so one
 *   rotate shuffle per set and int (__shfl_sync from lane (L + 31) & 31)
 *   serves both.  The query runs in one pass of ceil(n / 4) + m / R0 - 1
 *   steps: no band loop, no global row buffer, and each lane has S
 *   independent 4 x R0 tiles per step between its shuffles (ILP; the band
 *   path has one).  2,000 samples: R0 = 16, S = 4 (125 of the 128 virtual
 *   lanes busy).  R0 and S: sets_choose() (fewest issued rows per step,
 *   S (R0 + 2), ties to the larger R0); queries no instance fits (4 does
 *   not divide m, or more than 8 sets / 64 rows a lane) take the band
 *   path.  Registers (sm_90, nvcc 13.0, -Xptxas -v, abs/sq cost; no
 *   spills): R0 = 16: S = 1/2/3/4 63-64/108-110/156-157/195-196; R0 = 8:
 *   S = 1/2/4/8 46-48/70-72/127-128/238; R0 = 4: S = 1/4/8 38-40/93-96/168
 *   (the band path's R = 16: 72-74; R0 = 4 with S = 15, 16 spilled:
 *   hence S <= 8).  So 2,000-sample queries run at 8 warps an SM instead
 *   of ~24, each with 4 independent tiles a step.
 *   The query values stay int32 (packing them as int16 pairs would save
 *   S R0 / 2 registers at an unpack per row and tile).
 *
 * PAPER (opt.variant = paper): seed 001 §6-8 for the reproduction.  A block
 *   per (item, segment): thread g computes rows g+1, g+1+B, ... of the
 *   anti-diagonal (B = m rounded up to 32, at most 1024: §6's m threads),
 *   the ring of 3 anti-diagonals x LD int32 of §7 in shared memory (global
 *   scratch when 12 LD bytes pass the opt-in limit: m above ~18,000), the
 *   reference split into segments as §8 (one per max(8 m, 2048) samples,
 *   or opt.segments), each window started 2 m columns early.  A check pass
 *   (one block per item) then makes §8 exact for DTW, which it is not by
 *   itself: dtw_cuda_core.cuh, "PAPER".
 *
 * Uploads: the reference signals once per set of targets (the lane's
 *   state: padded to whole tiles of 4 samples, so a tile is one 8-byte
 *   load), each batch's read signals into scratch slots DTW_SLOT_VALUES and
 *   DTW_SLOT_OFFSETS, the plan into DTW_SLOT_ITEMS, the result keys into
 *   DTW_SLOT_KEYS (copied back through a pinned buffer of the state), band
 *   buffers / PAPER columns into the others (enum dtw_slot below).
 *
 * Knobs (settings.h): dtw_rows (BEST: at most R rows per lane, so short
 * queries take the multi-band path; on the sets path at most R0 rows a
 * set), dtw_sets (BEST: at most S sets a lane; 0: no sets path, every
 * query through the bands), dtw_force_global (PAPER: the ring in
 * global scratch), dtw_chunk (BEST items per wave of a multi-band bucket,
 * PAPER blocks per chunk).
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <new>
#include <vector>

#include "kernels/cuda_kit.cuh"
#include "kernels/dtw/dtw_cuda_core.cuh"

/* The dtw kernel's scratch slots (cuda_kit.cuh: kit_grow). */
enum dtw_slot {
    DTW_SLOT_VALUES,           /* the batch's read values */
    DTW_SLOT_OFFSETS,          /* their offsets */
    DTW_SLOT_ITEMS,            /* BEST: the items; PAPER: the plan entries */
    DTW_SLOT_KEYS,             /* the (cost, end) keys of the pairs */
    DTW_SLOT_COLS,             /* BEST: the bands' rows; PAPER: the check columns */
    DTW_SLOT_LAST,             /* PAPER: the segments' last columns */
    DTW_SLOT_SEGKEYS,          /* PAPER: the segments' keys */
    DTW_SLOT_FIX,              /* PAPER: the check pass's rows and the global rings */
    DTW_N_SLOTS
};
static_assert((int)DTW_N_SLOTS <= (int)KIT_SCRATCH_SLOTS, "the dtw kernel's scratch slots");

namespace {

using namespace dtwk;

/* Global scratch of band buffers and PAPER columns (bytes per launch). */
const size_t DTW_BND_BUDGET = (size_t)256 << 20;

/* ---- BEST ------------------------------------------------------------------ */

struct best_args {
    dtw_dev d;
    const uint2 *items;        /* (read, reference) of the bucket */
    uint32_t nitems;           /* items of this launch (from items[0]) */
    int32_t *bnd;              /* multi-band: one row buffer per warp of the launch */
    uint64_t bnd_stride;       /* int32 per buffer */
    uint64_t *keys;            /* [nreads x ntargets] */
};

/* The warp's item: its index w (the caller returns when w >= nitems:
 * whole warps leave together) and (read, reference). */
__device__ uint32_t best_warp_item(const best_args &a, uint2 *rt)
{
    const uint32_t w = blockIdx.x * DTW_WARPS + threadIdx.x / 32;
    if (w < a.nitems) *rt = a.items[w];
    return w;
}

template <int R, int COST, int ALIGNED>
__global__ void __launch_bounds__(32 * DTW_WARPS) k_best(best_args a)
{
    const uint32_t lane = threadIdx.x & 31u;
    uint2 rt;
    const uint32_t w = best_warp_item(a, &rt);
    if (w >= a.nitems) return;
    const best_item it = best_item_of(a.d, rt.x, rt.y);
    int32_t *bnd = a.bnd ? a.bnd + (size_t)w * a.bnd_stride : NULL;
    const uint32_t nb = best_bands(it.m, R), nsteps = best_nsteps(it);
    best_lane<R> s;
    for (uint32_t band = 0; band < nb; ++band) {
        const int last = band + 1 == nb;
        best_band_init<R>(s, it, band, lane);
        int4 above = lane == 0 ? best_top(bnd, band, 0, it.ntiles)
                               : make_int4(DTW_INF, DTW_INF, DTW_INF, DTW_INF);
        for (uint32_t t = 0; t < nsteps; ++t) {
            const int4 o = best_band_step<R, COST, ALIGNED>(s, it, lane, t, above, bnd, last);
            int4 sh;
            sh.x = __shfl_up_sync(0xffffffffu, o.x, 1);
            sh.y = __shfl_up_sync(0xffffffffu, o.y, 1);
            sh.z = __shfl_up_sync(0xffffffffu, o.z, 1);
            sh.w = __shfl_up_sync(0xffffffffu, o.w, 1);
            above = lane == 0 ? best_top(bnd, band, t + 1, it.ntiles) : sh;
        }
        __syncwarp();   /* the band's row buffer, for lane 0 of the next band */
    }
    if (s.hl >= 0) a.keys[(size_t)rt.x * a.d.ntargets + rt.y] = key_of(s.best, s.bestj);
}

typedef void (*best_fn)(best_args);

template <int COST, int ALIGNED> static best_fn best_kernel_a(uint32_t R)
{
    switch (R) {
    case 4: return k_best<4, COST, ALIGNED>;
    case 8: return k_best<8, COST, ALIGNED>;
    case 16: return k_best<16, COST, ALIGNED>;
    case 32: return k_best<32, COST, ALIGNED>;
    default: return k_best<64, COST, ALIGNED>;
    }
}

template <int COST> static best_fn best_kernel(uint32_t R, int aligned)
{
    return aligned ? best_kernel_a<COST, 1>(R) : best_kernel_a<COST, 0>(R);
}

/* Rows per lane for a query of m samples, at most rmax (a power of 2 in
 * 4 .. 64): when 4 divides m, the largest R that divides m (ALIGNED: row
 * m - 1 at the bottom of its lane; 2000 samples: R = 16, 4 bands of 512
 * rows); else the smallest R with 32 R >= m (one band up to 2048). */
static uint32_t best_rows(uint32_t m, uint32_t rmax, int *aligned)
{
    uint32_t R = 4;
    if (m % 4 == 0) {
        while (R < rmax && m % (2 * R) == 0) R *= 2;
        *aligned = 1;
        return R;
    }
    while (R < rmax && 32 * R < m) R *= 2;
    *aligned = 0;
    return R;
}

/* ---- BEST, sets: S sets of R0 rows per lane, one pass -------------------- */

template <int R0, int S, int COST>
__global__ void __launch_bounds__(32 * DTW_WARPS) k_sets(best_args a)
{
    const uint32_t lane = threadIdx.x & 31u;
    uint2 rt;
    if (best_warp_item(a, &rt) >= a.nitems) return;
    const best_item it = best_item_of(a.d, rt.x, rt.y);
    const uint32_t nsteps = sets_nsteps(it, R0), from = (lane + 31u) & 31u;
    sets_lane<R0, S> st;
    sets_init<R0, S>(st, it, lane);
    int4 in[S], out[S], rot[S];
    DEV_UNROLL
    for (int s = 0; s < S; ++s) rot[s] = make_int4(DTW_INF, DTW_INF, DTW_INF, DTW_INF);
    for (uint32_t t = 0; t < nsteps; ++t) {
        sets_above<S>(in, rot, lane, t, it.ntiles);
        sets_step<R0, S, COST>(st, it, lane, t, in, out);
        DEV_UNROLL
        for (int s = 0; s < S; ++s) {
            rot[s].x = __shfl_sync(0xffffffffu, out[s].x, from);
            rot[s].y = __shfl_sync(0xffffffffu, out[s].y, from);
            rot[s].z = __shfl_sync(0xffffffffu, out[s].z, from);
            rot[s].w = __shfl_sync(0xffffffffu, out[s].w, from);
        }
    }
    uint64_t key;
    if (sets_key<R0, S>(st, &key)) a.keys[(size_t)rt.x * a.d.ntargets + rt.y] = key;
}

/* The instances: S = 1 .. sets_max(R0) sets of R0 = 4, 8, 16 rows (S R0
 * <= 64 rows, S <= 8: 196 registers at R0 = 16, S = 4; 238 at 8 x 8; no
 * spills.  R0 = 4 with S = 15, 16 spilled). */
template <int COST, int R0, int S> static best_fn sets_kernel_s(uint32_t s)
{
    if (S > 1 && s < (uint32_t)S) return sets_kernel_s<COST, R0, (S > 1 ? S - 1 : 1)>(s);
    return k_sets<R0, S, COST>;
}

template <int COST> static best_fn sets_kernel(uint32_t R0, uint32_t S)
{
    switch (R0) {
    case 4: return sets_kernel_s<COST, 4, sets_max(4)>(S);
    case 8: return sets_kernel_s<COST, 8, sets_max(8)>(S);
    default: return sets_kernel_s<COST, 16, sets_max(16)>(S);
    }
}

/* ---- PAPER ----------------------------------------------------------------- */

/* One searched item: its blocks are [blk0, blk0 + nseg) of the chunk. */
struct paper_entry {
    uint32_t blk0, r, t, nseg;
};

struct paper_args {
    dtw_dev d;
    const paper_entry *ent;
    uint32_t nent;
    uint32_t base;             /* first block (pass 1) or entry (pass 2) of the launch */
    uint32_t mmax;             /* int32 per column buffer */
    int32_t *chk, *last;       /* [blocks of the chunk x mmax] */
    uint64_t *segkey;          /* [blocks of the chunk] */
    int32_t *fix;              /* pass 2: [2 per block of the launch x mmax] */
    int32_t *gring;            /* global ring: one slot per block of the launch */
    uint64_t ring_words;
    int32_t segments;
    uint64_t *keys;
};

struct paper_entry_first {
    __device__ uint32_t operator()(const paper_entry &e) const { return e.blk0; }
};
__device__ uint32_t paper_find(const paper_entry *e, uint32_t ne, uint32_t blk)
{
    return wave::find_entry(e, ne, blk, paper_entry_first());
}

__device__ paper_item paper_entry_item(const paper_args &a, const paper_entry &e, uint32_t seg,
                                       int from_bnd)
{
    const uint64_t r0 = a.d.roff[e.r];
    return paper_item_of(a.d.rval + r0, (uint32_t)(a.d.roff[e.r + 1] - r0), a.d.tval + a.d.toff[e.t],
                         a.d.tlen[e.t], seg, e.nseg, from_bnd);
}

/* Pass 1: block = (entry, segment), fresh start. */
template <int COST, int GL>
__global__ void __launch_bounds__(DTW_MAX_THREADS) k_paper(paper_args a)
{
    extern __shared__ int32_t dtw_ring_sh[];
    const uint32_t blk = a.base + blockIdx.x;
    const paper_entry e = a.ent[paper_find(a.ent, a.nent, blk)];
    const uint32_t seg = blk - e.blk0;
    const paper_item it = paper_entry_item(a, e, seg, 0);
    int32_t *ring = GL ? a.gring + (size_t)blockIdx.x * a.ring_words : dtw_ring_sh;
    const uint32_t LD = wave::ring_ld(it.m), g = threadIdx.x, B = blockDim.x;
    int32_t *chk = seg > 0 ? a.chk + (size_t)blk * a.mmax : NULL;
    int32_t *last = a.last + (size_t)blk * a.mmax;
    paper_st st;
    paper_init(st, ring, LD, it.m, g, B, NULL);
    __syncthreads();
    const uint32_t nsteps = paper_nsteps(it);
    for (uint32_t t = 0; t < nsteps; ++t) {
        paper_step<COST>(st, it, ring, LD, g, B, t, chk, last);
        __syncthreads();
    }
    if (paper_has_last_row(it, g, B)) a.segkey[blk] = key_of(st.best, st.bestj);
}

/* Pass 2: block = entry; the segments in order, each checked against the
 * exact last column of the one before and recomputed from it if needed. */
template <int COST, int GL>
__global__ void __launch_bounds__(DTW_MAX_THREADS) k_paper_fix(paper_args a)
{
    extern __shared__ int32_t dtw_ring_sh[];
    const paper_entry e = a.ent[a.base + blockIdx.x];
    int32_t *ring = GL ? a.gring + (size_t)blockIdx.x * a.ring_words : dtw_ring_sh;
    const uint32_t g = threadIdx.x, B = blockDim.x;
    const uint64_t r0 = a.d.roff[e.r];
    const uint32_t m = (uint32_t)(a.d.roff[e.r + 1] - r0);
    const uint32_t LD = wave::ring_ld(m);
    const int32_t *exact = a.last + (size_t)e.blk0 * a.mmax;
    uint64_t best = a.segkey[e.blk0];              /* the thread of row m keeps it */
    for (uint32_t seg = 1; seg < e.nseg; ++seg) {
        const uint32_t blk = e.blk0 + seg;
        const int32_t *chk = a.chk + (size_t)blk * a.mmax;
        int same = 1;
        for (uint32_t i = g; i < m; i += B) same &= chk[i] == exact[i];
        if (__syncthreads_and(same)) {
            exact = a.last + (size_t)blk * a.mmax;
            best = a.segkey[blk] < best ? a.segkey[blk] : best;
            continue;
        }
        int32_t *fix = a.fix + ((size_t)blockIdx.x * 2 + (seg & 1)) * a.mmax;
        const paper_item it = paper_entry_item(a, e, seg, 1);
        paper_st st;
        paper_init(st, ring, LD, m, g, B, exact);
        __syncthreads();
        const uint32_t nsteps = paper_nsteps(it);
        for (uint32_t t = 0; t < nsteps; ++t) {
            paper_step<COST>(st, it, ring, LD, g, B, t, NULL, fix);
            __syncthreads();
        }
        const uint64_t k = key_of(st.best, st.bestj);
        best = k < best ? k : best;
        exact = fix;
    }
    const paper_item it0 = paper_entry_item(a, e, 0, 0);
    if (paper_has_last_row(it0, g, B)) a.keys[(size_t)e.r * a.d.ntargets + e.t] = best;
}

/* ---- the lane's state: the references on the device --------------------- */

struct dtw_state {
    uint64_t version;          /* targets_version of the upload; 0: none */
    int16_t *tval;    size_t tval_cap;
    uint64_t *toff;   size_t toff_cap;
    uint32_t *tlen;   size_t tlen_cap;
    uint32_t ntargets, maxn;
    uint64_t *hkeys;  size_t hkeys_cap;   /* pinned, for the results */
};

static int upload_targets(const gpuasm_cuda_batch &b, dtw_state *st, const gpuasm_sigset &t,
                          gpuasm_err *err)
{
    std::vector<uint64_t> off(t.n + 1);
    std::vector<uint32_t> len(t.n);
    off[0] = 0;
    uint32_t maxn = 0;
    for (uint32_t i = 0; i < t.n; ++i) {
        len[i] = (uint32_t)(t.off[i + 1] - t.off[i]);
        maxn = std::max(maxn, len[i]);
        off[i + 1] = off[i] + (len[i] + DTW_TILE - 1) / DTW_TILE * DTW_TILE + DTW_TILE;
    }
    std::vector<int16_t> val(off[t.n], 0);
    for (uint32_t i = 0; i < t.n; ++i)
        if (len[i]) memcpy(&val[off[i]], t.val + t.off[i], (size_t)len[i] * sizeof(int16_t));
    int rc;
    if ((rc = kit_grow_buf(b.stream, (void **)&st->tval, &st->tval_cap, val.size() * 2 + 8, err)) < 0 ||
        (rc = kit_grow_buf(b.stream, (void **)&st->toff, &st->toff_cap, off.size() * 8, err)) < 0 ||
        (rc = kit_grow_buf(b.stream, (void **)&st->tlen, &st->tlen_cap, len.size() * 4 + 4, err)) < 0)
        return rc;
    if (!val.empty())
        KIT_CK(cudaMemcpyAsync(st->tval, val.data(), val.size() * 2, cudaMemcpyHostToDevice, b.stream));
    KIT_CK(cudaMemcpyAsync(st->toff, off.data(), off.size() * 8, cudaMemcpyHostToDevice, b.stream));
    if (!len.empty())
        KIT_CK(cudaMemcpyAsync(st->tlen, len.data(), len.size() * 4, cudaMemcpyHostToDevice, b.stream));
    KIT_CK(cudaStreamSynchronize(b.stream));   /* the host vectors go away */
    st->ntargets = t.n;
    st->maxn = maxn;
    st->version = b.targets_version;
    return 0;
}

/* The pinned result buffer of the state: at least n keys.  0 or a status. */
static int host_keys(dtw_state *st, size_t n, gpuasm_err *err)
{
    if (n <= st->hkeys_cap && st->hkeys) return 0;
    if (st->hkeys) KIT_CK(cudaFreeHost(st->hkeys));
    st->hkeys = NULL;
    st->hkeys_cap = 0;
    const size_t want = n + n / 4 + 1;
    KIT_CK(cudaHostAlloc((void **)&st->hkeys, want * sizeof(uint64_t), cudaHostAllocDefault));
    st->hkeys_cap = want;
    return 0;
}

/* ---- launches ----------------------------------------------------------------- */

struct dtw_knobs {
    uint32_t rows;             /* BEST: most rows per lane (sets: per set) */
    uint32_t sets;             /* BEST: most sets per lane (0: no sets path) */
    int force_global;
    uint64_t chunk;            /* 0: from the budget */
};

static dtw_knobs dtw_knobs_of(const gpuasm_settings &s)
{
    dtw_knobs K;
    const int64_t r = gpuasm_knob(s.dtw_rows, DTW_R_MAX);
    K.rows = r >= 64 ? 64 : r >= 32 ? 32 : r >= 16 ? 16 : r >= 8 ? 8 : 4;
    K.sets = (uint32_t)gpuasm_knob(s.dtw_sets, DTW_SETS_MAX);
    K.force_global = gpuasm_knob(s.dtw_force_global, 0) != 0;
    K.chunk = (uint64_t)gpuasm_knob(s.dtw_chunk, 0);
    return K;
}

template <int COST>
static int run_best(const gpuasm_cuda_batch &b, const gpuasm_signal_batch &s, const dtw_knobs &K,
                    const dtw_dev &d, uint64_t *keys, gpuasm_err *err)
{
    /* Buckets by (R, aligned) for the band path, then by (R0, S) for the
     * sets path: items (read, reference) of searched pairs. */
    enum { NBAND = 10, NSET = 3 * DTW_SETS_MAX, NB = NBAND + NSET };
    std::vector<uint2> bk[NB];
    uint32_t maxm[NB] = { 0 };
    for (uint32_t r = 0; r < s.reads.n; ++r) {
        const uint32_t m = (uint32_t)(s.reads.off[r + 1] - s.reads.off[r]);
        if (m == 0) continue;
        int bi;
        uint32_t R0, S;
        if (sets_choose(m, K.sets, K.rows, &R0, &S)) {
            bi = NBAND + (R0 == 4 ? 0 : R0 == 8 ? 1 : 2) * DTW_SETS_MAX + (int)S - 1;
        } else {
            int aligned;
            const uint32_t R = best_rows(m, K.rows, &aligned);
            bi = 2 * (R == 4 ? 0 : R == 8 ? 1 : R == 16 ? 2 : R == 32 ? 3 : 4) + aligned;
        }
        for (uint32_t t = 0; t < s.targets.n; ++t) {
            if (s.targets.off[t + 1] == s.targets.off[t]) continue;
            bk[bi].push_back(make_uint2(r, t));
            maxm[bi] = std::max(maxm[bi], m);
        }
    }
    std::vector<uint2> all;
    size_t start[NB];
    for (int i = 0; i < NB; ++i) {
        start[i] = all.size();
        all.insert(all.end(), bk[i].begin(), bk[i].end());
    }
    if (all.empty()) return 0;
    void *p = NULL;
    int rc = kit_grow(b, DTW_SLOT_ITEMS, all.size() * sizeof(uint2), &p, err);
    if (rc < 0) return rc;
    KIT_CK(cudaMemcpyAsync(p, all.data(), all.size() * sizeof(uint2), cudaMemcpyHostToDevice, b.stream));
    const uint32_t ntiles_max = ((dtw_state *)*b.state)->maxn / DTW_TILE + 1;
    for (int i = 0; i < NB; ++i) {
        if (bk[i].empty()) continue;
        best_args a;
        a.d = d;
        a.keys = keys;
        a.bnd = NULL;
        a.bnd_stride = 0;
        a.items = (const uint2 *)p + start[i];
        a.nitems = (uint32_t)bk[i].size();
        if (i >= NBAND) {                          /* sets: one launch, no scratch */
            const uint32_t R0 = 4u << ((i - NBAND) / DTW_SETS_MAX);
            const uint32_t S = (uint32_t)(i - NBAND) % DTW_SETS_MAX + 1;
            KIT_CLEAR_ERR();
            sets_kernel<COST>(R0, S)<<<(a.nitems + DTW_WARPS - 1) / DTW_WARPS, 32 * DTW_WARPS, 0,
                                      b.stream>>>(a);
            KIT_CK_LAUNCH("dtw best kernel (sets)");
            continue;
        }
        const uint32_t R = 4u << (i / 2);
        uint64_t wave = bk[i].size();
        if (best_bands(maxm[i], R) > 1) {
            a.bnd_stride = (uint64_t)ntiles_max * DTW_TILE;
            wave = std::min<uint64_t>(wave, std::max<uint64_t>(1, DTW_BND_BUDGET / (a.bnd_stride * 4)));
            if (K.chunk) wave = std::min<uint64_t>(wave, K.chunk);
            void *q = NULL;
            if ((rc = kit_grow(b, DTW_SLOT_COLS, (size_t)wave * a.bnd_stride * 4, &q, err)) < 0) return rc;
            a.bnd = (int32_t *)q;
        }
        const best_fn kern = best_kernel<COST>(R, i & 1);
        for (uint64_t i0 = 0; i0 < bk[i].size(); i0 += wave) {
            a.items = (const uint2 *)p + start[i] + i0;
            a.nitems = (uint32_t)std::min<uint64_t>(wave, bk[i].size() - i0);
            KIT_CLEAR_ERR();
            kern<<<(a.nitems + DTW_WARPS - 1) / DTW_WARPS, 32 * DTW_WARPS, 0, b.stream>>>(a);
            KIT_CK_LAUNCH("dtw best kernel");
        }
    }
    return 0;
}

template <int COST>
static int run_paper(const gpuasm_cuda_batch &b, const gpuasm_signal_batch &s, const dtw_knobs &K,
                     const dtw_dev &d, uint64_t *keys, gpuasm_err *err)
{
    uint32_t mmax = 0;
    for (uint32_t r = 0; r < s.reads.n; ++r)
        mmax = std::max(mmax, (uint32_t)(s.reads.off[r + 1] - s.reads.off[r]));
    if (mmax == 0) return 0;
    const uint32_t B = std::min<uint32_t>((mmax + 31) / 32 * 32, DTW_MAX_THREADS);
    const size_t ring_bytes = (size_t)3 * wave::ring_ld(mmax) * sizeof(int32_t);
    const int gl = K.force_global || ring_bytes > b.smem_optin;
    const uint64_t col_bytes = (uint64_t)mmax * 4;
    /* Blocks per chunk: chk + last columns and a key per block within the budget. */
    uint64_t chunk = std::max<uint64_t>(1, DTW_BND_BUDGET / (2 * col_bytes + 8));
    if (K.chunk) chunk = std::min<uint64_t>(chunk, K.chunk);
    const uint64_t slots = std::max<uint64_t>(1, 2 * (uint64_t)(b.sm_count > 0 ? b.sm_count : 1));

    typedef void (*pfn)(paper_args);
    const pfn k1 = gl ? k_paper<COST, 1> : k_paper<COST, 0>;
    const pfn k2 = gl ? k_paper_fix<COST, 1> : k_paper_fix<COST, 0>;
    const size_t smem = gl ? 0 : ring_bytes;
    if (smem > 48 * 1024) {
        KIT_CK(cudaFuncSetAttribute(k1, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        KIT_CK(cudaFuncSetAttribute(k2, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    }

    std::vector<paper_entry> ent;
    uint64_t blocks = 0;
    int flushes = 0;
    auto flush = [&]() -> int {
        if (ent.empty()) return 0;
        if (flushes++) KIT_CK(cudaStreamSynchronize(b.stream));   /* slots of the last chunk */
        void *pe, *pc, *pl, *pk, *pf;
        int rc;
        /* Pass 2 runs one block per entry; with the ring in global memory
         * both passes run in waves of `slots` blocks, each block its slot. */
        const uint64_t wave = gl ? slots : (uint64_t)1 << 30;
        const size_t fix_bytes = (size_t)2 * std::min<uint64_t>(ent.size(), wave) * col_bytes;
        const size_t gring_bytes = gl ? (size_t)wave * ring_bytes : 0;
        if ((rc = kit_grow(b, DTW_SLOT_ITEMS, ent.size() * sizeof(paper_entry), &pe, err)) < 0 ||
            (rc = kit_grow(b, DTW_SLOT_COLS, (size_t)blocks * col_bytes, &pc, err)) < 0 ||
            (rc = kit_grow(b, DTW_SLOT_LAST, (size_t)blocks * col_bytes, &pl, err)) < 0 ||
            (rc = kit_grow(b, DTW_SLOT_SEGKEYS, (size_t)blocks * 8, &pk, err)) < 0 ||
            (rc = kit_grow(b, DTW_SLOT_FIX, fix_bytes + gring_bytes, &pf, err)) < 0)
            return rc;
        KIT_CK(cudaMemcpyAsync(pe, ent.data(), ent.size() * sizeof(paper_entry), cudaMemcpyHostToDevice,
                               b.stream));
        paper_args a;
        memset(&a, 0, sizeof a);
        a.d = d;
        a.ent = (const paper_entry *)pe;
        a.nent = (uint32_t)ent.size();
        a.mmax = mmax;
        a.chk = (int32_t *)pc;
        a.last = (int32_t *)pl;
        a.segkey = (uint64_t *)pk;
        a.fix = (int32_t *)pf;
        a.keys = keys;
        if (gl) {
            a.gring = (int32_t *)((char *)pf + fix_bytes);
            a.ring_words = ring_bytes / 4;
        }
        for (uint64_t i0 = 0; i0 < blocks; i0 += wave) {
            a.base = (uint32_t)i0;
            KIT_CLEAR_ERR();
            k1<<<(unsigned)std::min<uint64_t>(wave, blocks - i0), B, smem, b.stream>>>(a);
            KIT_CK_LAUNCH("dtw paper kernel");
        }
        for (uint64_t i0 = 0; i0 < ent.size(); i0 += wave) {
            a.base = (uint32_t)i0;
            KIT_CLEAR_ERR();
            k2<<<(unsigned)std::min<uint64_t>(wave, ent.size() - i0), B, smem, b.stream>>>(a);
            KIT_CK_LAUNCH("dtw paper check kernel");
        }
        ent.clear();
        blocks = 0;
        return 0;
    };
    for (uint32_t r = 0; r < s.reads.n; ++r) {
        const uint32_t m = (uint32_t)(s.reads.off[r + 1] - s.reads.off[r]);
        if (m == 0) continue;
        for (uint32_t t = 0; t < s.targets.n; ++t) {
            const uint32_t n = (uint32_t)(s.targets.off[t + 1] - s.targets.off[t]);
            if (n == 0) continue;
            const uint32_t nseg = paper_nseg(m, n, s.opt.segments);
            if (blocks && blocks + nseg > chunk) {
                const int rc = flush();
                if (rc < 0) return rc;
            }
            paper_entry e = { (uint32_t)blocks, r, t, nseg };
            ent.push_back(e);
            blocks += nseg;
        }
    }
    return flush();
}

static int launch_impl(const gpuasm_cuda_batch &b, gpuasm_signal_batch &s, gpuasm_err *err)
{
    if (!*b.state) {
        dtw_state *st = new (std::nothrow) dtw_state();
        if (!st) return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
        *b.state = st;
    }
    dtw_state *st = (dtw_state *)*b.state;
    int rc;
    if (st->version != b.targets_version || st->ntargets != s.targets.n)
        if ((rc = upload_targets(b, st, s.targets, err)) < 0) return rc;
    const dtw_knobs K = dtw_knobs_of(*b.settings);

    /* The reads, and the keys (all "no result" until a kernel writes). */
    const size_t nval = (size_t)s.reads.off[s.reads.n];
    const size_t npairs = (size_t)s.reads.n * s.targets.n;
    void *pv, *po, *pk;
    if ((rc = kit_grow(b, DTW_SLOT_VALUES, nval * 2 + 8, &pv, err)) < 0 ||
        (rc = kit_grow(b, DTW_SLOT_OFFSETS, ((size_t)s.reads.n + 1) * 8, &po, err)) < 0 ||
        (rc = kit_grow(b, DTW_SLOT_KEYS, npairs * 8, &pk, err)) < 0)
        return rc;
    if (nval) KIT_CK(cudaMemcpyAsync(pv, s.reads.val, nval * 2, cudaMemcpyHostToDevice, b.stream));
    KIT_CK(cudaMemcpyAsync(po, s.reads.off, ((size_t)s.reads.n + 1) * 8, cudaMemcpyHostToDevice, b.stream));
    KIT_CK(cudaMemsetAsync(pk, 0xff, npairs * 8, b.stream));
    if ((rc = kit_begin_kernels(b, err)) < 0) return rc;
    dtw_dev d;
    d.rval = (const int16_t *)pv;
    d.roff = (const uint64_t *)po;
    d.tval = st->tval;
    d.toff = st->toff;
    d.tlen = st->tlen;
    d.ntargets = s.targets.n;
    uint64_t *keys = (uint64_t *)pk;
    const int sq = s.opt.cost == GPUASM_COST_SQ;
    if (s.opt.variant == GPUASM_VARIANT_PAPER)
        rc = sq ? run_paper<GPUASM_COST_SQ>(b, s, K, d, keys, err)
                : run_paper<GPUASM_COST_ABS>(b, s, K, d, keys, err);
    else
        rc = sq ? run_best<GPUASM_COST_SQ>(b, s, K, d, keys, err)
                : run_best<GPUASM_COST_ABS>(b, s, K, d, keys, err);
    if (rc < 0) return rc;
    KIT_CK(cudaEventRecord(s.ev_end, b.stream));

    /* Results back through a pinned buffer, then into the caller's hits. */
    if ((rc = host_keys(st, npairs, err)) < 0) return rc;
    KIT_CK(cudaMemcpyAsync(st->hkeys, keys, npairs * 8, cudaMemcpyDeviceToHost, b.stream));
    KIT_CK(cudaStreamSynchronize(b.stream));
    KIT_CK(cudaEventElapsedTime(&s.kernel_ms, b.ev_begin, s.ev_end));
    for (uint32_t r = 0; r < s.reads.n; ++r)
        for (uint32_t t = 0; t < s.targets.n; ++t) {
            const size_t i = (size_t)r * s.targets.n + t;
            const uint64_t k = st->hkeys[i];
            gpuasm_adsm_hit &h = s.out[i];
            h.read = r;
            h.target = t;
            h.cost = k == KEY_NONE ? -1 : (int32_t)(k >> 32);
            h.end = k == KEY_NONE ? UINT32_MAX : (uint32_t)k;
        }
    return 0;
}

}  /* namespace */

extern "C" int gpuasm_dtw_cuda_launch(const gpuasm_cuda_batch *b, gpuasm_signal_batch *s,
                                      gpuasm_err *err)
{
    if (s->reads.n == 0 || s->targets.n == 0) return 0;
    try {
        return launch_impl(*b, *s, err);
    } catch (const std::bad_alloc &) {
        return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "dtw kernel: out of memory (plan)");
    }
}

extern "C" void gpuasm_dtw_cuda_free_state(void *state)
{
    dtw_state *st = (dtw_state *)state;
    if (!st) return;
    if (st->tval) (void)cudaFree(st->tval);
    if (st->toff) (void)cudaFree(st->toff);
    if (st->tlen) (void)cudaFree(st->tlen);
    if (st->hkeys) (void)cudaFreeHost(st->hkeys);
    delete st;
}
