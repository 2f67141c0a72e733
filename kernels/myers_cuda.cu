/* myers_cuda.cu -- the CUDA Myers kernels behind kernels/myers_cuda.h.
 *
 * Same end hits as gpuasm_myers_cpu_scan() (search.h): for every read r,
 * target t and strand s, the LOCAL MINIMA of D[m][.] that are <= k.  The
 * filtering happens on the device; only those hits are copied back.
 *
 * Algorithm: bit-parallel Myers 1999 (seed 003 §2.2), Hyyrö's block step
 * for multi-word patterns (hin/hout, as in edlib's calculateBlock and
 * myers_cpu.c).  Per-thread / per-lane logic lives in myers_cuda_core.cuh
 * as __host__ __device__ code; a host harness runs it against the CPU twin.
 *
 * Four paths; every (read, target) pair goes to exactly one of them
 * (gcore::route, used by the host planner and the device alike):
 *
 * RP  read as pattern, m <= 256 (P2: reads vs genomes).  Reads are sorted by
 *     length on the host and cut into groups of up to 64 reads of the same
 *     word count W = ceil(m/64) (1..4); a block (128 threads = 64 reads x 2
 *     strands) runs one group against one text segment [s0, s1) of one
 *     target, staged once in shared memory; every thread reads the same text
 *     byte at the same time (broadcast).  Masks: 4 per word per thread in
 *     shared memory ([base][word][thread], 64-bit, conflict-free), so Eq of
 *     a single base is one LDS.64 (IUPAC text codes: a uniform branch ORs
 *     up to four).  Ukkonen's cut-off exactly as run_blocks() of the CPU
 *     twin (Hyyrö 2003 / edlib): with k = 15 of m = 150 the first 64-bit
 *     word holds every row that can be <= k (about 2k rows on random DNA),
 *     so most columns cost one word, not three, and lanes rarely diverge.
 *     Why 64-bit words here: a 64-bit Myers step is ~20 SASS integer ops
 *     (two per AND/OR/LOP3, IADD3 + IADD3.X for the add, two funnel shifts
 *     per <<1), a 32-bit step ~10 plus ~2 for the hin hand-over between
 *     words: the same per cell, but with the cut-off the active band (~2k =
 *     30 rows) fits one 64-bit word and would need one or two 32-bit words,
 *     the second one often in only some lanes of a warp (divergence).
 *     Estimated ops per column per thread with one active word: text byte
 *     LDS 1, Eq LDS.64 1, step ~20, score 3, cut-off tests ~4, local-min
 *     test 2, loop ~3: ~34 for 150 cells (4.4 cells per op).
 *     Group segment overlap: the DP of the block starts at s0 - ov,
 *     ov = max over the group of m + k, reports only j in [s0, s1) and runs
 *     to s1 (inclusive) for the right-neighbour test.
 *
 * TP  target as pattern, m <= 64 (P3 adapters; P1 m = 32, 64; the ceiling
 *     comparison P4).  A thread per (read, strand, text segment of the read)
 *     stages its text window (4-bit codes, [word][thread] in shared memory,
 *     conflict-free) and loops over the small targets in length order; a
 *     target's 16-entry Eq table (computed once at set_targets) is a
 *     shared-memory load indexed by the thread's text code (the 16 codes x 8
 *     bytes span the 32 banks exactly once: conflict-free).  32-bit words
 *     for m <= 32, 64-bit otherwise.  Ops per column (32-bit): code 2, Eq 2,
 *     step 10, score 4, local min 2, loop 2: ~22 for 32 cells.
 *
 * WARP long patterns up to 4096 bases (either orientation; P1 m = 128..1024,
 *     long reads vs genomes): warp-cooperative wavefront (seed 003's
 *     thread-cooperative idea after Chacón et al.).  A group of LP lanes
 *     (LP = 1..32, LP | 32; several groups per warp for short patterns) runs
 *     one (pair, strand, text segment); lane g owns 32-bit words
 *     [gR, gR + R) (R = 1..4); at step t lane g processes column t - g and
 *     hands the horizontal delta of its top word to lane g+1 with one
 *     __shfl_up_sync(width LP).  Eq from a 16-code table in shared memory
 *     ([code][word][lane], conflict-free).  The lane owning row m-1 keeps the
 *     score and applies the local-minimum rule.  No cut-off (the wavefront
 *     computes every word anyway).  ~14 ops per lane-word-step + ~8 per step.
 *
 * SIMPLE the #2 kernel (one thread per item, W <= 4 64-bit words in
 *     registers, longer in global scratch), now with the local-minimum rule;
 *     everything with GPUASM_CUDA_SIMPLE=1, otherwise only patterns longer
 *     than 4096 (e.g. a 100,000-base pattern).
 *
 * Segments (seed 000 §V; seed 003 §3): item [s0, s1) of a text starts a
 * fresh DP column (D[i][j0-1] = i) at j0 = s0 - (m + k) (clamped at 0) and
 * runs to jend = min(s1 + 1, n).  Exact: an alignment with <= k differences
 * covers <= m + k text bases, so for every j >= s0 - 1 every start i of a
 * substring with ED(P, T[i..j]) <= k has i >= j0; the fresh DP sees all of
 * them and finds the same D whenever D <= k, and only larger values (fewer
 * starts) when D > k.  Hence D[s0-1 .. s1] are exact where <= k, which is
 * all the local-minimum rule needs for j in [s0, s1) (search.h).  Starting
 * earlier than needed (a group's max overlap) stays exact.
 *
 * Local minima are decided on the device (gcore::lm_push): only they are
 * copied back, and the host takes them as they are.
 *
 * Output: hits appended to a device array through a warp-aggregated atomic
 * counter (cooperative groups: one atomicAdd per converged set of lanes).
 * When the counter passes the capacity, the array grows and the whole scan
 * runs again (the hit set is deterministic): nothing is ever dropped.  No
 * device allocation once warm (buffers only grow).  Every call uses the
 * handle's stream.  Hits come back unsorted (the engine sorts).
 *
 * Test knobs (environment, read by gpuasm_cuda_open; for tests only):
 *   GPUASM_CUDA_SIMPLE=1       every pair through the #2 simple path (A/B)
 *   GPUASM_CUDA_SEG_MIN=N      segment length of every path (default: RP 4096
 *                              bases of target, TP 256 of read (at most 384),
 *                              WARP 4096, SIMPLE 2048; always >= m + k where
 *                              the path needs it); 1 is legal
 *   GPUASM_CUDA_FORCE_GLOBAL=1 the simple path (and the fallback) keeps every
 *                              pattern in global scratch
 *   GPUASM_CUDA_FORCE_WARP=1   every pair with m <= 4096 through the warp path
 *   GPUASM_CUDA_NO_WARP=1      long patterns through the simple path instead
 *   GPUASM_CUDA_WARP_LANES=N   most lanes per warp group (1, 2, 4, .., 32;
 *                              default 32); small N forces R > 1 words per lane
 *   GPUASM_CUDA_GROUP=N        reads per RP group (1..64, default 64)
 *   GPUASM_CUDA_PAIR_CHUNK=N   pairs per chunk of the per-pair enumeration
 *                              (WARP and SIMPLE paths; default 4 Mi)
 *   GPUASM_CUDA_HIT_CAP=N      initial hit-buffer capacity (default 1 Mi)
 *
 * Not thread-safe: one host thread at a time per gpuasm_cuda.
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <cooperative_groups.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <vector>

#include "myers_cuda.h"
#include "myers_cuda_core.cuh"
#include "cuda_kit.cuh"

using gcore::seqv;
using gcore::window;

/* Sequences of 2^31 bases or more are refused (scores and positions are
 * 32-bit on the device; end hits are 32-bit anyway). */
#define GPUASM_CUDA_MAX_LEN ((uint64_t)INT32_MAX)

enum {
    DEFAULT_SEG_SIMPLE = 2048,
    DEFAULT_SEG_RP = 4096,
    DEFAULT_SEG_TP = 256,
    MAX_SEG_TP = 384,          /* shared-memory bound of the TP window */
    MAX_SEG_RP = 16384,        /* shared-memory bound of the RP text */
    DEFAULT_SEG_WARP = 4096,
    DEFAULT_PAIR_CHUNK = 1 << 22,
    DEFAULT_HIT_CAP = 1 << 20,
    THREADS = 128,
    RP_NT = 128,               /* threads of an RP block: 64 reads x 2 strands */
    RP_GROUP_MAX = RP_NT / 2,
    TP_NT = 128,
    TP_CHUNK = 32,             /* small targets per shared-memory chunk */
    WARPS = THREADS / 32,
    GRID_PER_SM = 16           /* blocks per SM of the grid-stride kernels */
};
/* Global scratch for long patterns: at most this much, but at least 1 slot. */
static const size_t SCRATCH_BUDGET = (size_t)512 << 20;

/* ---- output ---------------------------------------------------------------- */

/* dev_out (the hit array) is in cuda_kit.cuh. */

/* emit(j, d) of one (read, target, strand). */
template <class Out> struct emitter {
    Out *out;
    uint32_t r, t, s;
    HD void operator()(uint32_t j, int32_t d) { out->emit(r, t, j, d, s); }
};

/* ---- RP path: decode (host and device) ------------------------------------- */

struct rp_launch {
    const uint8_t *rcode;
    const uint64_t *roff;
    const uint8_t *tcode;
    const uint64_t *toff;
    uint32_t ntargets;
    int32_t side, max_diffs;
    double error_rate;
    const uint64_t *blk_off;   /* [ntargets + 1] cumulative blocks of this W */
    const uint32_t *ng;        /* [ntargets] eligible groups of this W */
    const gcore::rp_group *groups;   /* this W's groups */
    const uint32_t *perm;      /* reads by length */
    uint32_t seglen;
    uint64_t total;            /* blocks */
};

struct rp_ctx {
    uint32_t t, n;
    gcore::rp_group gr;
    window win;
};

HD rp_ctx rp_setup(const rp_launch &L, uint64_t b)
{
    rp_ctx c;
    c.t = (uint32_t)gcore::find_slot(L.blk_off, L.ntargets, b);
    const uint64_t local = b - L.blk_off[c.t];
    const uint32_t ng = L.ng[c.t];
    c.gr = L.groups[local % ng];
    c.n = (uint32_t)(L.toff[c.t + 1] - L.toff[c.t]);
    c.win = gcore::make_window(local / ng, L.seglen, c.n, c.gr.ov);
    return c;
}

struct rp_pat {
    int valid;
    uint32_t r, strand, m;
    int32_t k;
    seqv pat;
};

/* Thread tid of the block: read tid/2 of the group, strand tid&1. */
HD rp_pat rp_thread_pattern(const rp_launch &L, const rp_ctx &c, uint32_t tid)
{
    rp_pat p;
    p.valid = 0;
    p.r = 0;
    p.strand = tid & 1u;
    p.m = 0;
    p.k = 0;
    p.pat.p = L.rcode;
    p.pat.len = 0;
    p.pat.rc = 0;
    const uint32_t ri = tid >> 1;
    if (ri >= c.gr.count) return p;
    p.r = L.perm[c.gr.first + ri];
    const uint64_t rlen = L.roff[p.r + 1] - L.roff[p.r];
    p.m = (uint32_t)rlen;
    p.k = gcore::pair_k(L.max_diffs, L.error_rate, rlen);
    p.pat.p = L.rcode + L.roff[p.r];
    p.pat.len = p.m;
    p.pat.rc = (int32_t)p.strand;
    p.valid = gcore::read_is_pattern(L.side, rlen, c.n) && gcore::searched(p.m, p.k, c.n);
    return p;
}

/* ---- TP path: decode -------------------------------------------------------- */

struct tp_launch {
    gcore::tp_params tp;
    const uint64_t *off;       /* [nreads + 1] exclusive scan of items per read */
    uint32_t nreads;
    const gcore::tp_tgt *tg;   /* eligible small targets, by length */
    uint32_t ntg;
    const uint64_t *eq16;      /* [small][16] */
    uint32_t win_words;        /* words per thread of the staged window */
};

struct tp_item_ctx {
    uint32_t r, strand, rlen;
    seqv txt;
    window win;
};

HD tp_item_ctx tp_item(const tp_launch &L, uint64_t item)
{
    tp_item_ctx c;
    c.r = (uint32_t)gcore::find_slot(L.off, L.nreads, item);
    const uint64_t local = item - L.off[c.r];
    c.strand = (uint32_t)(local & 1u);
    c.rlen = (uint32_t)(L.tp.roff[c.r + 1] - L.tp.roff[c.r]);
    c.txt.p = L.tp.rcode + L.tp.roff[c.r];
    c.txt.len = c.rlen;
    c.txt.rc = (int32_t)c.strand;
    c.win = gcore::make_window(local >> 1, L.tp.seglen, c.rlen, L.tp.ov);
    return c;
}

/* Run every eligible target of tg_s[0 .. cnt) (Eq tables eq_s[i][16]) over
 * the staged window of this thread. */
template <class Out>
HD void tp_targets(const uint32_t *win_s, uint32_t tid, uint32_t nt, const uint64_t *eq_s,
                   const gcore::tp_tgt *tg_s, uint32_t cnt, const tp_item_ctx &c, int32_t side,
                   Out &out)
{
    for (uint32_t i = 0; i < cnt; ++i) {
        const gcore::tp_tgt tg = tg_s[i];
        if (gcore::read_is_pattern(side, c.rlen, tg.m)) continue;   /* not a TP pair */
        emitter<Out> e;
        e.out = &out;
        e.r = c.r;
        e.t = tg.t;
        e.s = c.strand;
        if (tg.m <= 32)
            gcore::tp_run<uint32_t>(win_s, tid, nt, eq_s + 16 * (size_t)i, c.win, c.rlen, tg.m, tg.k, e);
        else
            gcore::tp_run<uint64_t>(win_s, tid, nt, eq_s + 16 * (size_t)i, c.win, c.rlen, tg.m, tg.k, e);
    }
}

/* ---- per-pair enumeration (WARP and SIMPLE): decode -------------------------- */

struct pair_launch {
    gcore::pair_params sp;
    const uint64_t *off;       /* [np + 1] exclusive scan of items of this class */
    uint64_t np;
    int32_t cls;
    uint32_t R, lp;            /* warp classes */
};

struct pitem {
    uint32_t r, t, strand;
    gcore::witem it;
};

HD pitem pair_item(const pair_launch &L, uint64_t w)
{
    pitem p;
    const uint64_t slot = gcore::find_slot(L.off, L.np, w);
    const gcore::pair_info pi = gcore::get_pair(L.sp, L.sp.pair0 + slot);
    gcore::item_views(pi, w - L.off[slot], &p.strand, &p.it.pat, &p.it.txt, &p.it.win);
    p.r = pi.r;
    p.t = pi.t;
    p.it.m = pi.m;
    p.it.n = pi.n;
    p.it.k = pi.k;
    p.it.w32 = (pi.m + 31u) / 32u;
    p.it.ncols = p.it.win.jend - p.it.win.j0;
    return p;
}

/* ---- device side ------------------------------------------------------------- */

template <int W>
static __global__ void __launch_bounds__(RP_NT)
k_rp(rp_launch L, dev_out out)
{
    extern __shared__ uint64_t rp_smem[];
    uint64_t *peq_s = rp_smem;
    uint8_t *text_s = (uint8_t *)(rp_smem + 4 * W * RP_NT);
    const uint32_t tid = threadIdx.x;
    for (uint64_t b = blockIdx.x; b < L.total; b += gridDim.x) {
        const rp_ctx c = rp_setup(L, b);
        const uint8_t *tc = L.tcode + L.toff[c.t] + c.win.j0;
        for (uint32_t i = tid; i < c.win.jend - c.win.j0; i += RP_NT)
            text_s[i] = gcore::enc_text(tc[i]);
        const rp_pat p = rp_thread_pattern(L, c, tid);
        gcore::rp_build_peq<W>(peq_s, tid, RP_NT, p.pat, p.valid);
        __syncthreads();
        if (p.valid) {
            emitter<dev_out> e;
            e.out = &out;
            e.r = p.r;
            e.t = c.t;
            e.s = p.strand;
            gcore::rp_thread<W>(text_s, peq_s, tid, RP_NT, c.win, c.n, p.m, p.k, e);
        }
        __syncthreads();
    }
}

/* cnt[r] = TP items of read r (r < nreads), cnt[nreads] = 0. */
static __global__ void __launch_bounds__(THREADS)
k_count_tp(gcore::tp_params tp, uint32_t nreads, uint64_t *cnt)
{
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i > nreads) return;
    cnt[i] = i == nreads ? 0 : gcore::tp_read_items(tp, tp.roff[i + 1] - tp.roff[i]);
}

static __global__ void __launch_bounds__(TP_NT)
k_tp(tp_launch L, dev_out out)
{
    extern __shared__ uint64_t tp_smem[];
    uint64_t *eq_s = tp_smem;                                        /* [TP_CHUNK][16] */
    gcore::tp_tgt *tg_s = (gcore::tp_tgt *)(eq_s + 16 * TP_CHUNK);  /* [TP_CHUNK] */
    uint32_t *win_s = (uint32_t *)(tg_s + TP_CHUNK);                 /* [words][TP_NT] */
    const uint32_t tid = threadIdx.x;
    const uint64_t total = L.off[L.nreads];
    for (uint64_t base = (uint64_t)blockIdx.x * TP_NT; base < total;
         base += (uint64_t)gridDim.x * TP_NT) {
        const uint64_t item = base + tid;
        const bool have = item < total;
        tp_item_ctx c;
        if (have) {
            c = tp_item(L, item);
            gcore::tp_stage(win_s, tid, TP_NT, c.txt, c.win.j0, c.win.jend);
        }
        for (uint32_t c0 = 0; c0 < L.ntg; c0 += TP_CHUNK) {
            const uint32_t cnt = L.ntg - c0 < TP_CHUNK ? L.ntg - c0 : TP_CHUNK;
            __syncthreads();
            for (uint32_t i = tid; i < cnt * 16; i += TP_NT) {
                const gcore::tp_tgt tg = L.tg[c0 + i / 16];
                eq_s[i] = L.eq16[(size_t)tg.small * 16 + i % 16];
            }
            for (uint32_t i = tid; i < cnt; i += TP_NT) tg_s[i] = L.tg[c0 + i];
            __syncthreads();
            if (have) tp_targets(win_s, tid, TP_NT, eq_s, tg_s, cnt, c, L.tp.side, out);
        }
        __syncthreads();
    }
}

/* cnt[i] = items of pair pair0 + i in class cls (i < np), cnt[np] = 0. */
static __global__ void __launch_bounds__(THREADS)
k_count_pairs(gcore::pair_params sp, uint64_t np, int cls, uint64_t *cnt)
{
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i > np) return;
    cnt[i] = i == np ? 0 : gcore::pair_items(sp, sp.pair0 + i, cls);
}

template <int R>
static __global__ void __launch_bounds__(THREADS)
k_warp(pair_launch L, dev_out out)
{
    __shared__ uint32_t peq_all[WARPS][16 * R * 32];
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    uint32_t *peq_w = peq_all[warp];
    const uint32_t lp = L.lp, gpw = 32u / lp;
    const uint32_t grp = lane / lp, g = lane % lp;
    const uint64_t total = L.off[L.np];
    const uint64_t wstride = (uint64_t)gridDim.x * WARPS * gpw;
    for (uint64_t wbase = ((uint64_t)blockIdx.x * WARPS + warp) * gpw; wbase < total;
         wbase += wstride) {
        const uint64_t item = wbase + grp;
        pitem p;
        p.it.ncols = 0;
        p.it.m = 1;
        p.it.n = 0;
        p.it.w32 = 1;
        p.r = p.t = p.strand = 0;
        if (item < total) p = pair_item(L, item);
        gcore::wc_build_peq<R>(peq_w, lane, g, p.it);
        __syncwarp();
        const uint32_t mine = p.it.ncols ? p.it.ncols + lp - 1u : 0u;
        const uint32_t steps = __reduce_max_sync(0xffffffffu, mine);
        gcore::wlane<R> st;
        gcore::wc_init<R>(st, p.it);
        emitter<dev_out> e;
        e.out = &out;
        e.r = p.r;
        e.t = p.t;
        e.s = p.strand;
        int hout = 0;
        /* The text code of the next step is loaded one step ahead. */
        uint32_t code = (g == 0 && p.it.ncols) ? p.it.txt.at(p.it.win.j0) : 0u;
        for (uint32_t t = 0; t < steps; ++t) {
            int hin = __shfl_up_sync(0xffffffffu, hout, 1, (int)lp);
            if (g == 0) hin = 0;
            const uint32_t cn = t + 1u - g;      /* column of step t+1 */
            const uint32_t next = (t + 1u >= g && cn < p.it.ncols) ? p.it.txt.at(p.it.win.j0 + cn) : 0u;
            hout = gcore::wc_step<R>(st, peq_w, lane, g, p.it, t, hin, code, e);
            code = next;
        }
        gcore::wc_finish<R>(st, g, p.it, e);
        __syncwarp();
    }
}

template <int W>
static __global__ void __launch_bounds__(THREADS)
k_simple_reg(pair_launch L, dev_out out)
{
    const uint64_t total = L.off[L.np];
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t w = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; w < total; w += stride) {
        const pitem p = pair_item(L, w);
        gcore::reg_store<W> st;
        emitter<dev_out> e;
        e.out = &out;
        e.r = p.r;
        e.t = p.t;
        e.s = p.strand;
        gcore::simple_run<W>(st, (uint32_t)W, p.it.pat, p.it.txt, p.it.win, p.it.k, e);
    }
}

static __global__ void __launch_bounds__(THREADS)
k_simple_glob(pair_launch L, uint64_t *scratch, uint64_t nslot, uint64_t wmax, dev_out out)
{
    const uint64_t slot = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (slot >= nslot) return;
    gcore::glob_store st;
    st.p = scratch + slot;
    st.nslot = nslot;
    st.wmax = wmax;
    const uint64_t total = L.off[L.np];
    for (uint64_t w = slot; w < total; w += nslot) {
        const pitem p = pair_item(L, w);
        emitter<dev_out> e;
        e.out = &out;
        e.r = p.r;
        e.t = p.t;
        e.s = p.strand;
        gcore::simple_run<0>(st, p.it.w32 / 2u + (p.it.w32 & 1u), p.it.pat, p.it.txt, p.it.win,
                             p.it.k, e);
    }
}

/* ---- host planner (plain C++, also run by the host harness) ------------------ */

struct knobs {
    gcore::route_knobs kn;
    uint32_t seg_simple, seg_rp, seg_tp, seg_warp;
    uint32_t group_reads;
    uint64_t pair_chunk;
};

/* Per target set (set_targets): lengths and the small targets' Eq tables. */
struct target_info {
    std::vector<uint64_t> len;        /* [ntargets] */
    std::vector<uint32_t> small_of;   /* [ntargets] index into eq16, or UINT32_MAX */
    std::vector<uint64_t> eq16;       /* [small][16] */
    uint64_t maxlen;
};

static void build_target_info(const gpuasm_seqset *tg, target_info &ti)
{
    ti.len.assign(tg->n, 0);
    ti.small_of.assign(tg->n, UINT32_MAX);
    ti.eq16.clear();
    ti.maxlen = 0;
    for (uint32_t t = 0; t < tg->n; ++t) {
        const uint64_t len = tg->off[t + 1] - tg->off[t];
        ti.len[t] = len;
        if (len > ti.maxlen) ti.maxlen = len;
        if (len == 0 || len > gcore::TP_MAX_M) continue;
        uint64_t b[4] = { 0, 0, 0, 0 };
        for (uint64_t i = 0; i < len; ++i) {
            const uint32_t c = tg->code[tg->off[t] + i];
            for (int x = 0; x < 4; ++x)
                if (c & (1u << x)) b[x] |= (uint64_t)1 << i;
        }
        ti.small_of[t] = (uint32_t)(ti.eq16.size() / 16);
        for (uint32_t c = 0; c < 16; ++c)
            ti.eq16.push_back(((c & 1u) ? b[0] : 0) | ((c & 2u) ? b[1] : 0) |
                              ((c & 4u) ? b[2] : 0) | ((c & 8u) ? b[3] : 0));
    }
}

/* Everything one scan call plans on the host from the lengths alone. */
struct host_plan {
    /* RP */
    std::vector<uint32_t> perm;
    std::vector<gcore::rp_group> groups;
    uint32_t g_lo[5], g_hi[5];
    std::vector<uint64_t> blk_off[5];   /* [W][ntargets + 1] */
    std::vector<uint32_t> ng[5];        /* [W][ntargets] */
    /* TP */
    std::vector<gcore::tp_tgt> tps;
    uint32_t tp_ov, tp_minlen;
    /* per-pair classes that may have work */
    bool cls_possible[gcore::NCLS];
    double cells;
};

static void plan_scan(const gpuasm_seqset *reads, const target_info &ti, const gpuasm_search_opt *opt,
                      const knobs &K, host_plan &hp)
{
    const uint32_t nr = reads->n, nt = (uint32_t)ti.len.size();
    const int32_t side = opt->pattern_side;
    const bool fast = !K.kn.simple && !K.kn.force_warp;
    for (int c = 0; c < gcore::NCLS; ++c) hp.cls_possible[c] = false;

    /* Targets by length, with prefix sums (for cells and possibility tests). */
    std::vector<uint64_t> tl_all(ti.len);
    std::sort(tl_all.begin(), tl_all.end());
    std::vector<double> pre_all(nt + 1, 0.0);
    for (uint32_t i = 0; i < nt; ++i) pre_all[i + 1] = pre_all[i] + (double)tl_all[i];
    std::vector<uint64_t> tl_tp;                 /* searched as patterns: m > k(m) */
    for (uint32_t t = 0; t < nt; ++t) {
        const uint64_t m = ti.len[t];
        if (gcore::searched(m, gcore::pair_k(opt->max_diffs, opt->error_rate, m), 1))
            tl_tp.push_back(m);
    }
    std::sort(tl_tp.begin(), tl_tp.end());
    std::vector<double> pre_tp(tl_tp.size() + 1, 0.0);
    for (size_t i = 0; i < tl_tp.size(); ++i) pre_tp[i + 1] = pre_tp[i] + (double)tl_tp[i];
    const uint64_t maxt = nt ? tl_all.back() : 0;

    /* Reads: cells, RP candidates, classes of RP pairs. */
    hp.cells = 0;
    uint64_t maxr = 0;
    std::vector<uint32_t> bucket(gcore::RP_MAX_M + 2, 0);
    for (uint32_t r = 0; r < nr; ++r) {
        const uint64_t rlen = reads->off[r + 1] - reads->off[r];
        if (rlen > maxr) maxr = rlen;
        if (rlen == 0) continue;
        const int32_t k = gcore::pair_k(opt->max_diffs, opt->error_rate, rlen);
        const bool rp_ok = gcore::searched(rlen, k, 1);
        /* RP pairs: targets with read_is_pattern (and n = tlen >= 1). */
        double rp_sum = 0;
        bool rp_any = false;
        if (side == GPUASM_PATTERN_READ) {
            rp_sum = pre_all[nt];
            rp_any = maxt >= 1;
        } else if (side == GPUASM_PATTERN_SHORTER) {
            const size_t i = std::lower_bound(tl_all.begin(), tl_all.end(), rlen) - tl_all.begin();
            rp_sum = pre_all[nt] - pre_all[i];
            rp_any = i < nt;
        }
        if (rp_ok && rp_any) {
            hp.cells += 2.0 * (double)rlen * rp_sum;
            const int cls = gcore::route(K.kn, 1, (uint32_t)rlen);
            if (cls >= 0) hp.cls_possible[cls] = true;
            else if (cls == gcore::ROUTE_RP) bucket[rlen]++;
        }
        /* TP pairs: searched targets without read_is_pattern. */
        double tp_sum = 0;
        if (side == GPUASM_PATTERN_TARGET) {
            tp_sum = pre_tp[tl_tp.size()];
        } else if (side == GPUASM_PATTERN_SHORTER) {
            const size_t i = std::lower_bound(tl_tp.begin(), tl_tp.end(), rlen) - tl_tp.begin();
            tp_sum = pre_tp[i];   /* tlen < rlen */
        }
        hp.cells += 2.0 * (double)rlen * tp_sum;
    }
    /* Targets: classes of TP pairs. */
    for (uint32_t t = 0; t < nt; ++t) {
        const uint64_t m = ti.len[t];
        if (!gcore::searched(m, gcore::pair_k(opt->max_diffs, opt->error_rate, m), 1)) continue;
        bool any = false;
        if (side == GPUASM_PATTERN_TARGET) any = maxr >= 1;
        else if (side == GPUASM_PATTERN_SHORTER) any = maxr > m;
        if (!any) continue;
        const int cls = gcore::route(K.kn, 0, (uint32_t)m);
        if (cls >= 0) hp.cls_possible[cls] = true;
    }

    /* RP groups: reads by length (counting sort), cut at W changes and at
     * group_reads reads. */
    hp.perm.clear();
    hp.groups.clear();
    for (int w = 0; w <= 4; ++w) {
        hp.g_lo[w] = hp.g_hi[w] = 0;
        hp.blk_off[w].assign(nt + 1, 0);
        hp.ng[w].assign(nt, 0);
    }
    if (fast) {
        std::vector<uint32_t> start(gcore::RP_MAX_M + 2, 0);
        for (uint32_t l = 1; l <= gcore::RP_MAX_M; ++l) start[l + 1] = start[l] + bucket[l];
        hp.perm.resize(start[gcore::RP_MAX_M + 1]);
        for (uint32_t r = 0; r < nr; ++r) {
            const uint64_t rlen = reads->off[r + 1] - reads->off[r];
            if (rlen >= 1 && rlen <= gcore::RP_MAX_M && bucket[rlen]) hp.perm[start[rlen]++] = r;
        }
        /* bucket[l] > 0 marks lengths that were counted (RP candidates);
         * start[l] now is the end of bucket l. */
        uint32_t i = 0;
        for (int w = 1; w <= 4; ++w) {
            hp.g_lo[w] = (uint32_t)hp.groups.size();
            while (i < hp.perm.size()) {
                const uint64_t len0 = reads->off[hp.perm[i] + 1] - reads->off[hp.perm[i]];
                if ((len0 + 63) / 64 != (uint64_t)w) break;
                gcore::rp_group g;
                g.first = i;
                g.count = 0;
                g.ov = 0;
                g.minlen = (uint32_t)len0;
                while (i < hp.perm.size() && g.count < K.group_reads) {
                    const uint64_t len = reads->off[hp.perm[i] + 1] - reads->off[hp.perm[i]];
                    if ((len + 63) / 64 != (uint64_t)w) break;
                    const uint64_t ov = len + (uint64_t)gcore::pair_k(opt->max_diffs, opt->error_rate, len);
                    if (ov > g.ov) g.ov = (uint32_t)ov;
                    ++g.count;
                    ++i;
                }
                hp.groups.push_back(g);
            }
            hp.g_hi[w] = (uint32_t)hp.groups.size();
            /* Blocks per target: segments x eligible groups (a prefix of
             * this W's groups, which are sorted by length). */
            for (uint32_t t = 0; t < nt; ++t) {
                const uint64_t n = ti.len[t];
                uint32_t ng = 0;
                if (n >= 1 && side == GPUASM_PATTERN_READ) {
                    ng = hp.g_hi[w] - hp.g_lo[w];
                } else if (n >= 1 && side == GPUASM_PATTERN_SHORTER) {
                    uint32_t lo = hp.g_lo[w], hi = hp.g_hi[w];   /* first group with minlen > n */
                    while (lo < hi) {
                        const uint32_t mid = lo + (hi - lo) / 2;
                        if (hp.groups[mid].minlen <= n) lo = mid + 1;
                        else hi = mid;
                    }
                    ng = lo - hp.g_lo[w];
                }
                hp.ng[w][t] = ng;
                const uint64_t nseg = ng ? (n + K.seg_rp - 1) / K.seg_rp : 0;
                hp.blk_off[w][t + 1] = hp.blk_off[w][t] + nseg * ng;
            }
        }
    }

    /* TP: eligible small targets by length. */
    hp.tps.clear();
    hp.tp_ov = 0;
    hp.tp_minlen = UINT32_MAX;
    if (fast && side != GPUASM_PATTERN_READ) {
        for (uint32_t t = 0; t < nt; ++t) {
            if (ti.small_of[t] == UINT32_MAX) continue;
            const uint32_t m = (uint32_t)ti.len[t];
            const int32_t k = gcore::pair_k(opt->max_diffs, opt->error_rate, m);
            if (!gcore::searched(m, k, 1)) continue;
            gcore::tp_tgt x;
            x.t = t;
            x.m = m;
            x.k = k;
            x.small = ti.small_of[t];
            hp.tps.push_back(x);
            if (m + (uint32_t)k > hp.tp_ov) hp.tp_ov = m + (uint32_t)k;
            if (m < hp.tp_minlen) hp.tp_minlen = m;
        }
        std::stable_sort(hp.tps.begin(), hp.tps.end(),
                         [](const gcore::tp_tgt &a, const gcore::tp_tgt &b) { return a.m < b.m; });
    }
}

/* ---- host side ------------------------------------------------------------ */

struct gpuasm_cuda {
    int device;
    int sm_count;
    char desc[320];
    cudaStream_t stream;
    cudaEvent_t ev0, ev1;
    knobs K;
    /* targets */
    int have_targets;
    uint32_t ntargets;
    uint8_t *d_tcode;
    uint64_t *d_toff;
    uint64_t *d_eq16;
    target_info ti;
    /* batch buffers, grown as needed (capacities in bytes) */
    uint8_t *d_rcode;   size_t rcode_cap;
    uint64_t *d_roff;   size_t roff_cap;
    uint64_t *d_cnt;    size_t cnt_cap;
    uint64_t *d_off;    size_t off_cap;
    void *d_cub;        size_t cub_cap;
    uint64_t *d_scratch; size_t scratch_cap;
    void *d_plan;       size_t plan_cap;
    gpuasm_endhit *d_hit; size_t hit_cap;    /* bytes */
    unsigned long long *d_misc;              /* [0] hit counter */
    unsigned long long *h_misc;              /* pinned [1]: hits */
    host_plan hp;
    std::vector<uint8_t> plan_buf;
    gpuasm_scan_stats last;
    /* for the seed kernels (cuda_kit.cuh) */
    const gpuasm_seqset *targets;             /* host view, kept by the caller */
    kit_scratch scratch[KIT_SCRATCH_SLOTS];
};

/* Error checks: cuda_kit.cuh's "CUDA: <call>: <error string>" into err.
 * CLEAR_ERR before a launch, so that a stale error of an earlier, already
 * reported call is not taken for the launch's. */
#define CK KIT_CK
#define CK_LAUNCH KIT_CK_LAUNCH
#define CLEAR_ERR() ((void)cudaGetLastError())

/* Make *p hold at least `need` bytes (contents are not kept). */
static int grow(void **p, size_t *cap, size_t need, char *err, size_t errlen)
{
    if (need <= *cap && *p) return 0;
    if (*p) CK(cudaFree(*p));
    *p = NULL;
    *cap = 0;
    size_t bytes = need + need / 4;        /* some slack: fewer regrowths */
    if (bytes < need) bytes = need;        /* overflow */
    if (bytes == 0) bytes = 1;
    CK(cudaMalloc(p, bytes));
    *cap = bytes;
    return 0;
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *s = getenv(name);
    if (!s || !*s) return dflt;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    return (*end || v == 0) ? dflt : (uint64_t)v;
}

static void read_knobs(knobs &K)
{
    K.kn.simple = env_u64("GPUASM_CUDA_SIMPLE", 0) != 0;
    K.kn.force_global = env_u64("GPUASM_CUDA_FORCE_GLOBAL", 0) != 0;
    K.kn.force_warp = env_u64("GPUASM_CUDA_FORCE_WARP", 0) != 0;
    K.kn.no_warp = env_u64("GPUASM_CUDA_NO_WARP", 0) != 0;
    uint64_t lanes = env_u64("GPUASM_CUDA_WARP_LANES", 32);
    uint32_t lp = 1;
    while (lp * 2 <= lanes && lp < 32) lp *= 2;   /* largest power of 2 <= lanes */
    K.kn.warp_lanes = (int32_t)lp;
    const uint64_t seg = env_u64("GPUASM_CUDA_SEG_MIN", 0);   /* 0: defaults */
    const uint64_t cap32 = (uint64_t)INT32_MAX;
    K.seg_simple = (uint32_t)(seg ? std::min(seg, cap32) : DEFAULT_SEG_SIMPLE);
    K.seg_warp = (uint32_t)(seg ? std::min(seg, cap32) : DEFAULT_SEG_WARP);
    K.seg_rp = (uint32_t)(seg ? std::min<uint64_t>(seg, MAX_SEG_RP) : DEFAULT_SEG_RP);
    K.seg_tp = (uint32_t)(seg ? std::min<uint64_t>(seg, MAX_SEG_TP) : DEFAULT_SEG_TP);
    const uint64_t gr = env_u64("GPUASM_CUDA_GROUP", RP_GROUP_MAX);
    K.group_reads = (uint32_t)std::min<uint64_t>(gr, RP_GROUP_MAX);
    K.pair_chunk = env_u64("GPUASM_CUDA_PAIR_CHUNK", DEFAULT_PAIR_CHUNK);
    if (K.pair_chunk > (uint64_t)INT32_MAX - 1) K.pair_chunk = DEFAULT_PAIR_CHUNK;
}

extern "C" int gpuasm_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();   /* clear it: no GPU is not an error */
        return 0;
    }
    return n;
}

extern "C" int gpuasm_cuda_open(int device, gpuasm_cuda **out, char *err, size_t errlen)
{
    *out = NULL;
    int n = gpuasm_cuda_device_count();
    if (device < 0 || device >= n) {
        snprintf(err, errlen, "CUDA: no device %d (%d device%s found)", device, n,
                 n == 1 ? "" : "s");
        return -1;
    }
    gpuasm_cuda *g = NULL;
    try {
        g = new gpuasm_cuda();
    } catch (...) {
        g = NULL;
    }
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    g->device = device;
    read_knobs(g->K);
    const uint64_t hit_cap = env_u64("GPUASM_CUDA_HIT_CAP", DEFAULT_HIT_CAP);

    int rc = -1;
    do {
        cudaDeviceProp prop;
        cudaError_t e;
        if ((e = cudaSetDevice(device)) != cudaSuccess) { kit_fail(err, errlen, "cudaSetDevice", e); break; }
        if ((e = cudaGetDeviceProperties(&prop, device)) != cudaSuccess) { kit_fail(err, errlen, "cudaGetDeviceProperties", e); break; }
        g->sm_count = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
        snprintf(g->desc, sizeof g->desc, "%s (sm_%d%d, %d SMs, %.0f GiB)", prop.name,
                 prop.major, prop.minor, prop.multiProcessorCount,
                 (double)prop.totalGlobalMem / (double)(1ULL << 30));
        if ((e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking)) != cudaSuccess) { kit_fail(err, errlen, "cudaStreamCreateWithFlags", e); break; }
        if ((e = cudaEventCreate(&g->ev0)) != cudaSuccess) { kit_fail(err, errlen, "cudaEventCreate", e); break; }
        if ((e = cudaEventCreate(&g->ev1)) != cudaSuccess) { kit_fail(err, errlen, "cudaEventCreate", e); break; }
        if ((e = cudaMalloc((void **)&g->d_misc, 2 * sizeof(unsigned long long))) != cudaSuccess) { kit_fail(err, errlen, "cudaMalloc", e); break; }
        if ((e = cudaHostAlloc((void **)&g->h_misc, 2 * sizeof(unsigned long long), cudaHostAllocDefault)) != cudaSuccess) { kit_fail(err, errlen, "cudaHostAlloc", e); break; }
        if (grow((void **)&g->d_hit, &g->hit_cap, hit_cap * sizeof(gpuasm_endhit), err, errlen)) break;
        rc = 0;
    } while (0);
    if (rc) {
        gpuasm_cuda_close(g);
        return -1;
    }
    *out = g;
    return 0;
}

extern "C" const char *gpuasm_cuda_describe(const gpuasm_cuda *g)
{
    return g->desc;
}

extern "C" int gpuasm_cuda_set_targets(gpuasm_cuda *g, const gpuasm_seqset *targets,
                                       char *err, size_t errlen)
{
    CK(cudaSetDevice(g->device));
    for (uint32_t t = 0; t < targets->n; t++) {
        if (targets->off[t + 1] - targets->off[t] > GPUASM_CUDA_MAX_LEN) {
            snprintf(err, errlen, "CUDA backend: target %u is longer than %llu bases",
                     t + 1, (unsigned long long)GPUASM_CUDA_MAX_LEN);
            return -1;
        }
    }
    g->have_targets = 0;
    if (g->d_tcode) CK(cudaFree(g->d_tcode));
    if (g->d_toff) CK(cudaFree(g->d_toff));
    if (g->d_eq16) CK(cudaFree(g->d_eq16));
    g->d_tcode = NULL;
    g->d_toff = NULL;
    g->d_eq16 = NULL;
    try {
        build_target_info(targets, g->ti);
    } catch (...) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    const size_t nbytes = (size_t)targets->off[targets->n];
    const size_t obytes = ((size_t)targets->n + 1) * sizeof(uint64_t);
    const size_t ebytes = g->ti.eq16.size() * sizeof(uint64_t);
    CK(cudaMalloc((void **)&g->d_tcode, nbytes ? nbytes : 1));
    CK(cudaMalloc((void **)&g->d_toff, obytes));
    CK(cudaMalloc((void **)&g->d_eq16, ebytes ? ebytes : 1));
    if (nbytes) CK(cudaMemcpyAsync(g->d_tcode, targets->code, nbytes, cudaMemcpyHostToDevice, g->stream));
    CK(cudaMemcpyAsync(g->d_toff, targets->off, obytes, cudaMemcpyHostToDevice, g->stream));
    if (ebytes) CK(cudaMemcpyAsync(g->d_eq16, g->ti.eq16.data(), ebytes, cudaMemcpyHostToDevice, g->stream));
    CK(cudaStreamSynchronize(g->stream));
    g->ntargets = targets->n;
    g->targets = targets;
    g->have_targets = 1;
    return 0;
}

/* Device copies of the host plan, carved out of one buffer (one upload). */
struct dev_plan {
    uint32_t *perm;
    gcore::rp_group *groups;
    uint64_t *blk_off[5];
    uint32_t *ng[5];
    gcore::tp_tgt *tps;
};

static size_t align_up(size_t x) { return (x + 15) & ~(size_t)15; }

static int upload_plan(gpuasm_cuda *g, dev_plan &dp, char *err, size_t errlen)
{
    const host_plan &hp = g->hp;
    const uint32_t nt = g->ntargets;
    size_t at = 0;
    size_t o_perm = at; at = align_up(at + hp.perm.size() * sizeof(uint32_t));
    size_t o_groups = at; at = align_up(at + hp.groups.size() * sizeof(gcore::rp_group));
    size_t o_blk[5], o_ng[5];
    for (int w = 1; w <= 4; ++w) {
        o_blk[w] = at; at = align_up(at + ((size_t)nt + 1) * sizeof(uint64_t));
        o_ng[w] = at; at = align_up(at + (size_t)nt * sizeof(uint32_t));
    }
    size_t o_tps = at; at = align_up(at + hp.tps.size() * sizeof(gcore::tp_tgt));
    try {
        g->plan_buf.resize(at);
    } catch (...) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uint8_t *h = g->plan_buf.data();
    if (!hp.perm.empty()) memcpy(h + o_perm, hp.perm.data(), hp.perm.size() * sizeof(uint32_t));
    if (!hp.groups.empty()) memcpy(h + o_groups, hp.groups.data(), hp.groups.size() * sizeof(gcore::rp_group));
    for (int w = 1; w <= 4; ++w) {
        memcpy(h + o_blk[w], hp.blk_off[w].data(), ((size_t)nt + 1) * sizeof(uint64_t));
        if (nt) memcpy(h + o_ng[w], hp.ng[w].data(), (size_t)nt * sizeof(uint32_t));
    }
    if (!hp.tps.empty()) memcpy(h + o_tps, hp.tps.data(), hp.tps.size() * sizeof(gcore::tp_tgt));
    if (grow(&g->d_plan, &g->plan_cap, at, err, errlen)) return -1;
    uint8_t *d = (uint8_t *)g->d_plan;
    if (at) CK(cudaMemcpyAsync(d, h, at, cudaMemcpyHostToDevice, g->stream));
    dp.perm = (uint32_t *)(d + o_perm);
    dp.groups = (gcore::rp_group *)(d + o_groups);
    for (int w = 1; w <= 4; ++w) {
        dp.blk_off[w] = (uint64_t *)(d + o_blk[w]);
        dp.ng[w] = (uint32_t *)(d + o_ng[w]);
    }
    dp.tps = (gcore::tp_tgt *)(d + o_tps);
    return 0;
}

/* Everything one launch sequence needs. */
struct scan_ctx {
    const gpuasm_seqset *reads;
    const gpuasm_search_opt *opt;
    dev_plan dp;
    uint64_t npairs, chunk;
    unsigned grid;        /* blocks of the grid-stride kernels */
};

static int launch_pair_class(gpuasm_cuda *g, const scan_ctx &sc, gcore::pair_params sp,
                             uint64_t np, int cls, dev_out dout, char *err, size_t errlen)
{
    const uint64_t nblk = (np + 1 + THREADS - 1) / THREADS;
    CLEAR_ERR();
    k_count_pairs<<<(unsigned)nblk, THREADS, 0, g->stream>>>(sp, np, cls, g->d_cnt);
    CK_LAUNCH("k_count_pairs");
    size_t cub_bytes = g->cub_cap;
    CK(cub::DeviceScan::ExclusiveSum(g->d_cub, cub_bytes, g->d_cnt, g->d_off, (int)(np + 1), g->stream));
    pair_launch L;
    L.sp = sp;
    L.off = g->d_off;
    L.np = np;
    L.cls = cls;
    L.R = 1;
    L.lp = 32;
    CLEAR_ERR();
    if (cls >= gcore::CLS_WARP_R1) {
        gcore::warp_shape(cls, &L.R, &L.lp);
        switch (L.R) {
        case 1: k_warp<1><<<sc.grid, THREADS, 0, g->stream>>>(L, dout); break;
        case 2: k_warp<2><<<sc.grid, THREADS, 0, g->stream>>>(L, dout); break;
        case 3: k_warp<3><<<sc.grid, THREADS, 0, g->stream>>>(L, dout); break;
        default: k_warp<4><<<sc.grid, THREADS, 0, g->stream>>>(L, dout); break;
        }
        CK_LAUNCH("k_warp");
    } else if (cls >= gcore::CLS_REG1) {
        switch (cls) {
        case 1: k_simple_reg<1><<<sc.grid, THREADS, 0, g->stream>>>(L, dout); break;
        case 2: k_simple_reg<2><<<sc.grid, THREADS, 0, g->stream>>>(L, dout); break;
        case 3: k_simple_reg<3><<<sc.grid, THREADS, 0, g->stream>>>(L, dout); break;
        default: k_simple_reg<4><<<sc.grid, THREADS, 0, g->stream>>>(L, dout); break;
        }
        CK_LAUNCH("k_simple_reg");
    } else {
        /* Global scratch: slots for the longest sequence of the batch and
         * the targets (a bound on every pattern of this chunk). */
        uint64_t maxm = std::max<uint64_t>(g->ti.maxlen, 1);
        for (uint32_t r = 0; r < sc.reads->n; ++r)
            maxm = std::max<uint64_t>(maxm, sc.reads->off[r + 1] - sc.reads->off[r]);
        const uint64_t wmax = (maxm + 63) / 64;
        const uint64_t slot_bytes = 6 * wmax * sizeof(uint64_t);
        uint64_t nslot = SCRATCH_BUDGET / slot_bytes;
        const uint64_t most = (uint64_t)g->sm_count * 1024;
        if (nslot > most) nslot = most;
        if (nslot < 1) nslot = 1;
        /* grow() frees and allocates (synchronous): only when it must. */
        if (grow((void **)&g->d_scratch, &g->scratch_cap, (size_t)(nslot * slot_bytes), err, errlen))
            return -1;
        const uint64_t blocks = (nslot + THREADS - 1) / THREADS;
        CLEAR_ERR();
        k_simple_glob<<<(unsigned)blocks, THREADS, 0, g->stream>>>(L, g->d_scratch, nslot, wmax, dout);
        CK_LAUNCH("k_simple_glob");
    }
    return 0;
}

/* One pass of every search kernel of the scan, appending to d_hit. */
static int launch_all(gpuasm_cuda *g, const scan_ctx &sc, dev_out dout, char *err, size_t errlen)
{
    const host_plan &hp = g->hp;
    const gpuasm_search_opt *opt = sc.opt;

    /* RP groups. */
    for (int w = 1; w <= 4; ++w) {
        const uint64_t total = hp.blk_off[w][g->ntargets];
        if (total == 0) continue;
        rp_launch L;
        L.rcode = g->d_rcode;
        L.roff = g->d_roff;
        L.tcode = g->d_tcode;
        L.toff = g->d_toff;
        L.ntargets = g->ntargets;
        L.side = opt->pattern_side;
        L.max_diffs = opt->max_diffs;
        L.error_rate = opt->error_rate;
        L.blk_off = sc.dp.blk_off[w];
        L.ng = sc.dp.ng[w];
        L.groups = sc.dp.groups + hp.g_lo[w];
        L.perm = sc.dp.perm;
        L.seglen = g->K.seg_rp;
        L.total = total;
        const size_t smem = (size_t)4 * w * RP_NT * sizeof(uint64_t) +
                            align_up((size_t)g->K.seg_rp + 2 * gcore::RP_MAX_M + 16);
        const unsigned grid = (unsigned)std::min<uint64_t>(total, (uint64_t)INT32_MAX);
        CLEAR_ERR();
        switch (w) {
        case 1: k_rp<1><<<grid, RP_NT, smem, g->stream>>>(L, dout); break;
        case 2: k_rp<2><<<grid, RP_NT, smem, g->stream>>>(L, dout); break;
        case 3: k_rp<3><<<grid, RP_NT, smem, g->stream>>>(L, dout); break;
        default: k_rp<4><<<grid, RP_NT, smem, g->stream>>>(L, dout); break;
        }
        CK_LAUNCH("k_rp");
    }

    /* TP small targets: items per read, scan, search. */
    if (!hp.tps.empty()) {
        const uint32_t nr = sc.reads->n;
        tp_launch L;
        L.tp.rcode = g->d_rcode;
        L.tp.roff = g->d_roff;
        L.tp.side = opt->pattern_side;
        L.tp.seglen = g->K.seg_tp;
        L.tp.ov = hp.tp_ov;
        L.tp.minlen = hp.tp_minlen;
        L.tp.active = 1;
        L.off = g->d_off;
        L.nreads = nr;
        L.tg = sc.dp.tps;
        L.ntg = (uint32_t)hp.tps.size();
        L.eq16 = g->d_eq16;
        L.win_words = (g->K.seg_tp + hp.tp_ov + 1 + 7) / 8 + 1;
        const uint64_t nblk = ((uint64_t)nr + 1 + THREADS - 1) / THREADS;
        CLEAR_ERR();
        k_count_tp<<<(unsigned)nblk, THREADS, 0, g->stream>>>(L.tp, nr, g->d_cnt);
        CK_LAUNCH("k_count_tp");
        size_t cub_bytes = g->cub_cap;
        CK(cub::DeviceScan::ExclusiveSum(g->d_cub, cub_bytes, g->d_cnt, g->d_off, (int)(nr + 1), g->stream));
        const size_t smem = (size_t)TP_CHUNK * 16 * sizeof(uint64_t) + TP_CHUNK * sizeof(gcore::tp_tgt) +
                            (size_t)L.win_words * TP_NT * sizeof(uint32_t);
        CLEAR_ERR();
        k_tp<<<sc.grid, TP_NT, smem, g->stream>>>(L, dout);
        CK_LAUNCH("k_tp");
    }

    /* Per-pair classes (WARP, SIMPLE), chunk by chunk. */
    bool any = false;
    for (int c = 0; c < gcore::NCLS; ++c) any = any || hp.cls_possible[c];
    if (!any) return 0;
    gcore::pair_params sp;
    sp.rcode = g->d_rcode;
    sp.roff = g->d_roff;
    sp.tcode = g->d_tcode;
    sp.toff = g->d_toff;
    sp.nreads = sc.reads->n;
    sp.ntargets = g->ntargets;
    sp.max_diffs = opt->max_diffs;
    sp.error_rate = opt->error_rate;
    sp.side = opt->pattern_side;
    sp.kn = g->K.kn;
    sp.seg_simple = g->K.seg_simple;
    sp.seg_warp = g->K.seg_warp;
    for (uint64_t p0 = 0; p0 < sc.npairs; p0 += sc.chunk) {
        const uint64_t np = std::min<uint64_t>(sc.npairs - p0, sc.chunk);
        sp.pair0 = p0;
        for (int c = 0; c < gcore::NCLS; ++c)
            if (hp.cls_possible[c] && launch_pair_class(g, sc, sp, np, c, dout, err, errlen)) return -1;
    }
    return 0;
}

/* The seed kernels of issue #4, by opt.kernel (Myers on the byte alphabet
 * has its own single-word kernel). */
static int launch_seed(const kit_batch &kb, dev_out dout, char *err, size_t errlen)
{
    switch (kb.opt.kernel) {
    case GPUASM_KERNEL_MYERS: return gpuasm_myers_byte_cuda_launch(kb, dout, err, errlen);
    case GPUASM_KERNEL_DP: return gpuasm_dp_cuda_launch(kb, dout, err, errlen);
    case GPUASM_KERNEL_SCAN: return gpuasm_scan_cuda_launch(kb, dout, err, errlen);
    case GPUASM_KERNEL_HAMMING: return gpuasm_hamming_cuda_launch(kb, dout, err, errlen);
    default:
        snprintf(err, errlen, "CUDA backend: unknown kernel %d", (int)kb.opt.kernel);
        return -1;
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int scan_impl(gpuasm_cuda *g, const gpuasm_seqset *reads, const gpuasm_search_opt *opt,
                     gpuasm_hits *out, char *err, size_t errlen)
{
    CK(cudaSetDevice(g->device));

    /* The batch: codes and offsets (reads are indexed by absolute offsets). */
    const size_t nbytes = (size_t)reads->off[reads->n];
    const size_t obytes = ((size_t)reads->n + 1) * sizeof(uint64_t);
    if (grow((void **)&g->d_rcode, &g->rcode_cap, nbytes, err, errlen)) return -1;
    if (grow((void **)&g->d_roff, &g->roff_cap, obytes, err, errlen)) return -1;

    /* The seed kernels (cuda_kit.cuh) plan for themselves. */
    const int seed = opt->kernel != GPUASM_KERNEL_MYERS || opt->alphabet != GPUASM_ALPHABET_NT16;
    kit_batch kb;
    if (seed) {
        g->last.cells = gpuasm_scan_cells(reads, 0, reads->n, g->targets, opt);
        kb.nreads = reads->n;
        kb.h_roff = reads->off;
        kb.h_rcode = reads->code;
        kb.ntargets = g->ntargets;
        kb.h_toff = g->targets->off;
        kb.h_tcode = g->targets->code;
        kb.d_rcode = g->d_rcode;
        kb.d_roff = g->d_roff;
        kb.d_tcode = g->d_tcode;
        kb.d_toff = g->d_toff;
        kb.opt = *opt;
        kb.stream = g->stream;
        kb.sm_count = g->sm_count;
        kb.scratch = g->scratch;
    } else {
        plan_scan(reads, g->ti, opt, g->K, g->hp);   /* may throw bad_alloc: caught by the caller */
        g->last.cells = g->hp.cells;
    }

    scan_ctx sc;
    sc.reads = reads;
    sc.opt = opt;
    sc.npairs = (uint64_t)reads->n * g->ntargets;
    sc.chunk = std::max<uint64_t>(1, std::min<uint64_t>(sc.npairs, g->K.pair_chunk));
    sc.grid = (unsigned)(g->sm_count * GRID_PER_SM);

    /* Scan buffers for the per-read (TP) and per-pair enumerations, and
     * CUB's temporary storage: sized before any launch (grow() synchronises). */
    const size_t cnt_n = (size_t)std::max<uint64_t>(reads->n, sc.chunk) + 1;
    if (grow((void **)&g->d_cnt, &g->cnt_cap, cnt_n * sizeof(uint64_t), err, errlen)) return -1;
    if (grow((void **)&g->d_off, &g->off_cap, cnt_n * sizeof(uint64_t), err, errlen)) return -1;
    size_t cub_bytes = 0;
    CK(cub::DeviceScan::ExclusiveSum(NULL, cub_bytes, g->d_cnt, g->d_off, (int)cnt_n, g->stream));
    if (grow(&g->d_cub, &g->cub_cap, cub_bytes, err, errlen)) return -1;

    if (nbytes) CK(cudaMemcpyAsync(g->d_rcode, reads->code, nbytes, cudaMemcpyHostToDevice, g->stream));
    CK(cudaMemcpyAsync(g->d_roff, reads->off, obytes, cudaMemcpyHostToDevice, g->stream));
    if (!seed && upload_plan(g, sc.dp, err, errlen)) return -1;

    for (;;) {
        const unsigned long long cap = g->hit_cap / sizeof(gpuasm_endhit);
        dev_out dout;
        dout.hit = g->d_hit;
        dout.count = g->d_misc;
        dout.cap = cap;
        CK(cudaMemsetAsync(g->d_misc, 0, sizeof(unsigned long long), g->stream));
        CK(cudaEventRecord(g->ev0, g->stream));
        if (seed ? launch_seed(kb, dout, err, errlen) : launch_all(g, sc, dout, err, errlen)) return -1;
        CK(cudaEventRecord(g->ev1, g->stream));
        CK(cudaMemcpyAsync(&g->h_misc[0], g->d_misc, sizeof(unsigned long long), cudaMemcpyDeviceToHost, g->stream));
        CK(cudaStreamSynchronize(g->stream));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, g->ev0, g->ev1));
        g->last.kernel_s += 1e-3 * (double)ms;
        const unsigned long long nhit = g->h_misc[0];
        if (nhit > cap) {
            /* Some hits were not stored: make room for all and run again
             * (the set of hits is deterministic, so the rerun fits). */
            if (nhit > SIZE_MAX / sizeof(gpuasm_endhit) / 2) {
                snprintf(err, errlen, "CUDA backend: too many hits (%llu)", nhit);
                return -1;
            }
            if (grow((void **)&g->d_hit, &g->hit_cap, (size_t)nhit * sizeof(gpuasm_endhit), err, errlen))
                return -1;
            continue;
        }
        if (nhit) {
            if (gpuasm_hits_reserve(out, (size_t)nhit) < 0) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            CK(cudaMemcpyAsync(out->hit + out->n, g->d_hit, (size_t)nhit * sizeof(gpuasm_endhit),
                               cudaMemcpyDeviceToHost, g->stream));
            CK(cudaStreamSynchronize(g->stream));
            out->n += (size_t)nhit;
        }
        g->last.end_hits = nhit;
        return 0;
    }
}

extern "C" int gpuasm_cuda_scan(gpuasm_cuda *g, const gpuasm_seqset *reads,
                                const gpuasm_search_opt *opt, gpuasm_hits *out,
                                char *err, size_t errlen)
{
    const double t0 = now_s();
    memset(&g->last, 0, sizeof g->last);
    g->last.scans = 1;
    if (!g->have_targets) {
        snprintf(err, errlen, "CUDA backend: no targets set");
        return -1;
    }
    if (reads->n == 0 || g->ntargets == 0) {
        g->last.scan_s = now_s() - t0;
        return 0;
    }
    for (uint32_t r = 0; r < reads->n; r++) {
        const uint64_t rlen = reads->off[r + 1] - reads->off[r];
        if (rlen > GPUASM_CUDA_MAX_LEN) {
            snprintf(err, errlen, "CUDA backend: read %u of the batch is longer than %llu bases",
                     r + 1, (unsigned long long)GPUASM_CUDA_MAX_LEN);
            return -1;
        }
        /* The same refusal as the CPU twins' (gpuasm_cpu_scan). */
        for (uint32_t t = 0; gpuasm_kernel_max_pattern(opt) && t < g->ntargets; t++) {
            const uint64_t m = gpuasm_pair_too_long(opt, rlen, g->targets->off[t + 1] - g->targets->off[t]);
            if (m) {
                snprintf(err, errlen, "--kernel %s takes patterns of at most %llu bases; "
                         "read %u of the batch vs target %u has one of %llu",
                         gpuasm_kernel_name(opt->kernel),
                         (unsigned long long)gpuasm_kernel_max_pattern(opt), r + 1, t + 1,
                         (unsigned long long)m);
                return -1;
            }
        }
    }
    int rc;
    /* CUB and the planner are C++ and may throw; nothing may unwind into C. */
    try {
        rc = scan_impl(g, reads, opt, out, err, errlen);
    } catch (...) {
        snprintf(err, errlen, "CUDA backend: out of memory or unexpected C++ exception");
        rc = -1;
    }
    g->last.scan_s = now_s() - t0;
    return rc;
}

extern "C" void gpuasm_cuda_last_stats(const gpuasm_cuda *g, gpuasm_scan_stats *out)
{
    *out = g->last;
}

extern "C" uint64_t gpuasm_cuda_suggest_batch_bases(const gpuasm_cuda *g)
{
    /* Per read base the device holds its code (1 byte), a share of the
     * offsets, permutation and scan arrays (~28 bytes per read, i.e. ~0.2
     * byte per base for 150-bp reads) and the hits; 4 bytes per base is a
     * generous bound for short reads.  At most 1/8 of the free memory per
     * handle (two handles per device are expected), between 16 Mi and
     * 256 Mi bases. */
    size_t free_b = 0, total_b = 0;
    if (cudaSetDevice(g->device) != cudaSuccess ||
        cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        (void)cudaGetLastError();
        return (uint64_t)64 << 20;
    }
    uint64_t bases = (uint64_t)free_b / 8 / 4;
    const uint64_t lo = (uint64_t)16 << 20, hi = (uint64_t)256 << 20;
    if (bases < lo) bases = lo;
    if (bases > hi) bases = hi;
    return bases;
}

extern "C" void gpuasm_cuda_close(gpuasm_cuda *g)
{
    if (!g) return;
    /* Best effort: errors while freeing have nowhere to go. */
    (void)cudaSetDevice(g->device);
    void *dev[] = { g->d_tcode, g->d_toff, g->d_eq16, g->d_rcode, g->d_roff, g->d_cnt, g->d_off,
                    g->d_cub, g->d_scratch, g->d_plan, g->d_hit, g->d_misc };
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i]) (void)cudaFree(dev[i]);
    for (int i = 0; i < KIT_SCRATCH_SLOTS; i++)
        if (g->scratch[i].p) (void)cudaFree(g->scratch[i].p);
    if (g->h_misc) (void)cudaFreeHost(g->h_misc);
    if (g->ev0) (void)cudaEventDestroy(g->ev0);
    if (g->ev1) (void)cudaEventDestroy(g->ev1);
    if (g->stream) (void)cudaStreamDestroy(g->stream);
    (void)cudaGetLastError();
    delete g;
}

extern "C" void *gpuasm_cuda_host_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocDefault) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

extern "C" void gpuasm_cuda_host_free(void *p)
{
    if (p) (void)cudaFreeHost(p);
}
