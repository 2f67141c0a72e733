/* SPDX-License-Identifier: MIT */
/* myers_cuda.cu -- the CUDA Myers kernels: the myers row of the kernel
 * table (registry.c), launched by the CUDA backend (cuda_backend.cu) through
 * gpuasm_myers_cuda_launch() (cuda_kit.cuh says what a launcher does).
 *
 * Same end hits as the CPU twin (myers_cpu.c via cpu_scan.c): for every read r,
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
 * LONG patterns of any length with Ukkonen's cut-off across strips (issue
 *     #11; P1's missing cut-off, issue #14), knob cuda_long (1, the
 *     default since the GPU suite ran it (CUDA = CPU bytes, H100): m > 4096
 *     instead of SIMPLE, and the WARP pairs of long_takes_warp() (m >=
 *     1,024 with a band of at most half the rows: P1, issue #30); 2: every
 *     WARP pair; 3: m > 4096 only; 0: off): the pattern's 32-bit words cut into strips of
 *     LP lanes x R words (8x1 .. 32x6, the smallest holding 2.5k + 64
 *     rows), a group of LP lanes per (pair, strand, text segment) running
 *     the WARP wavefront strip after strip; a deeper strip starts at the
 *     first column where the row above it is <= k, so on unrelated text
 *     only the first strip runs, and the last strip leaves where all its
 *     rows are > k and is entered again from the row above.  Between strips
 *     an int8 record per column
 *     (the bottom row's horizontal delta) in global scratch, two per group,
 *     bounded by SCRATCH_BUDGET through the grid.  Items from a work queue,
 *     longest first, on a grid of what the SMs hold at once, the classes
 *     (shapes) of a chunk launched at once (launch_long).  A pass that is
 *     not the last runs its steps where every lane computes in blocks of
 *     LP steps with no per-step test (wavefront_steady: the lean step of
 *     R = 5 went from about 111 to 82 instructions, the words being 65;
 *     the kernel is bound by integer issue).  The text-end
 *     partials of its pairs come from column n - 2.  Segments of at least
 *     2 (m + k).  Per-lane code in myers_long_core.cuh (its header comment
 *     has the exactness argument), run on the host by
 *     tests/c/test_long_cuda.
 *
 * SIMPLE the #2 kernel (one thread per item, W <= 4 64-bit words in
 *     registers, longer in global scratch), now with the local-minimum rule;
 *     everything with the cuda_simple knob, otherwise patterns longer than
 *     4096 (e.g. a 100,000-base pattern) only with cuda_long = 0.
 *
 * Few pairs (<= 4096, one chunk; P1's one pattern against one text): the
 * per-pair classes' item offsets are planned on the host and uploaded with
 * the plan, so a class is one launch, not three (count, scan, search).
 *
 * Segments: see cuda_device.cuh (seed 000 §V); starting earlier than needed
 * (a group's max overlap) stays exact.
 *
 * Local minima are decided on the device (gcore::lm_push): only they are
 * copied back, and the host takes them as they are.
 *
 * The host planner (myers_plan.cu) works from the lengths alone; the
 * Eq tables of small targets are built once per target set and kept in the
 * lane's state.  Hits go to the lane's device array (cuda_kit.cuh's
 * dev_out: a warp-aggregated atomic counter; the backend re-runs the
 * launcher after an overflow).  No device allocation once warm.
 *
 * Knobs (settings.h): cuda_simple, cuda_force_global, cuda_force_warp,
 * cuda_no_warp, cuda_long, cuda_warp_lanes, cuda_group, cuda_seg_min (segment length
 * of every path: default RP 4096 bases of target, TP 256 of read (at most
 * 384), WARP 4096, SIMPLE 2048, LONG max(4096, 2 (m + k)); always >= m + k where the path needs it),
 * cuda_pair_chunk (pairs per chunk of the per-pair enumeration, default
 * 4 Mi).  Myers on the byte alphabet has its own kernel
 * (myers_byte_cuda.cu), reached through the same launcher.
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <cooperative_groups.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <new>
#include <utility>
#include <vector>

#include "kernels/myers/myers_launch.cuh"

using gcore::seqv;
using gcore::window;
using myers::RP_NT;

/* Myers on the byte alphabet (myers_byte_cuda.cu): the launcher hands
 * such batches over. */
int gpuasm_myers_byte_cuda_launch(const gpuasm_cuda_batch &b, gpuasm_err *err);


/* ---- RP path: decode (host and device) ------------------------------------- */

struct rp_launch {
    gpuasm_batch_view v;       /* the batch on the device */
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
    c.t = (uint32_t)gcore::find_slot(L.blk_off, L.v.targets.n, b);
    const uint64_t local = b - L.blk_off[c.t];
    const uint32_t ng = L.ng[c.t];
    c.gr = L.groups[local % ng];
    c.n = (uint32_t)(L.v.targets.off[c.t + 1] - L.v.targets.off[c.t]);
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
    p.pat.p = L.v.reads.code;
    p.pat.len = 0;
    p.pat.rc = 0;
    const uint32_t ri = tid >> 1;
    if (ri >= c.gr.count) return p;
    p.r = L.perm[c.gr.first + ri];
    const gpuasm_pair pr = gpuasm_view_pair(&L.v, p.r, c.t);
    p.m = (uint32_t)pr.m;
    p.k = pr.k;
    p.pat.p = L.v.reads.code + L.v.reads.off[p.r];
    p.pat.len = p.m;
    p.pat.rc = (int32_t)p.strand;
    p.valid = pr.read_is_pattern && pr.searched;
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
    c.rlen = (uint32_t)(L.tp.v.reads.off[c.r + 1] - L.tp.v.reads.off[c.r]);
    c.txt.p = L.tp.v.reads.code + L.tp.v.reads.off[c.r];
    c.txt.len = c.rlen;
    c.txt.rc = (int32_t)c.strand;
    c.win = gcore::make_window(local >> 1, L.tp.seglen, c.rlen, L.tp.ov);
    return c;
}

/* Run every eligible target of tg_s[0 .. cnt) (Eq tables eq_s[i][16]) over
 * the staged window of this thread. */
template <class Out>
HD void tp_targets(const uint32_t *win_s, uint32_t tid, uint32_t nt, const uint64_t *eq_s,
                   const gcore::tp_tgt *tg_s, uint32_t cnt, const tp_item_ctx &c,
                   const gpuasm_search_opt &opt, Out &out)
{
    for (uint32_t i = 0; i < cnt; ++i) {
        const gcore::tp_tgt tg = tg_s[i];
        if (gpuasm_read_is_pattern(&opt, c.rlen, tg.m)) continue;   /* not a TP pair */
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
        const uint8_t *tc = L.v.targets.code + L.v.targets.off[c.t] + c.win.j0;
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
    cnt[i] = i == nreads ? 0 : gcore::tp_read_items(tp, tp.v.reads.off[i + 1] - tp.v.reads.off[i]);
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
            if (have) tp_targets(win_s, tid, TP_NT, eq_s, tg_s, cnt, c, L.tp.v.opt, out);
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
        pitem p;
        group_item(L, wbase + grp, total, p);
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
        uint32_t hout = 0;
        /* The text code of the next step is loaded one step ahead. */
        uint32_t code = (g == 0 && p.it.ncols) ? p.it.txt.at(p.it.win.j0) : 0u;
        for (uint32_t t = 0; t < steps; ++t) {
            uint32_t hin = __shfl_up_sync(0xffffffffu, hout, 1, (int)lp);
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

/* ---- the launcher ------------------------------------------------------------ */

extern "C" void gpuasm_myers_cuda_free_state(void *state)
{
    myers_state *s = (myers_state *)state;
    if (!s) return;
    if (s->d_eq16) (void)cudaFree(s->d_eq16);
    delete s;
}

static size_t align_up(size_t x) { return (x + 15) & ~(size_t)15; }

static int upload_plan(const gpuasm_cuda_batch &b, myers_state &S, dev_plan &dp, gpuasm_err *err)
{
    const myers::host_plan &hp = S.hp;
    const uint32_t nt = b.host.targets.n;
    size_t at = 0;
    size_t o_perm = at; at = align_up(at + hp.perm.size() * sizeof(uint32_t));
    size_t o_groups = at; at = align_up(at + hp.groups.size() * sizeof(gcore::rp_group));
    size_t o_blk[5], o_ng[5];
    for (int w = 1; w <= 4; ++w) {
        o_blk[w] = at; at = align_up(at + ((size_t)nt + 1) * sizeof(uint64_t));
        o_ng[w] = at; at = align_up(at + (size_t)nt * sizeof(uint32_t));
    }
    size_t o_tps = at; at = align_up(at + hp.tps.size() * sizeof(gcore::tp_tgt));
    size_t o_poff[gcore::NCLS];
    for (int c = 0; c < gcore::NCLS; ++c) {
        o_poff[c] = at;
        at = align_up(at + hp.pair_off[c].size() * sizeof(uint64_t));
    }
    S.plan_buf.resize(at);
    uint8_t *h = S.plan_buf.data();
    if (!hp.perm.empty()) memcpy(h + o_perm, hp.perm.data(), hp.perm.size() * sizeof(uint32_t));
    if (!hp.groups.empty()) memcpy(h + o_groups, hp.groups.data(), hp.groups.size() * sizeof(gcore::rp_group));
    for (int w = 1; w <= 4; ++w) {
        memcpy(h + o_blk[w], hp.blk_off[w].data(), ((size_t)nt + 1) * sizeof(uint64_t));
        if (nt) memcpy(h + o_ng[w], hp.ng[w].data(), (size_t)nt * sizeof(uint32_t));
    }
    if (!hp.tps.empty()) memcpy(h + o_tps, hp.tps.data(), hp.tps.size() * sizeof(gcore::tp_tgt));
    for (int c = 0; c < gcore::NCLS; ++c)
        if (!hp.pair_off[c].empty())
            memcpy(h + o_poff[c], hp.pair_off[c].data(), hp.pair_off[c].size() * sizeof(uint64_t));
    void *dv = NULL;
    int rc = kit_grow(b, SLOT_PLAN, at, &dv, err);
    if (rc < 0) return rc;
    uint8_t *d = (uint8_t *)dv;
    if (at) KIT_CK(cudaMemcpyAsync(d, h, at, cudaMemcpyHostToDevice, b.stream));
    dp.perm = (uint32_t *)(d + o_perm);
    dp.groups = (gcore::rp_group *)(d + o_groups);
    for (int w = 1; w <= 4; ++w) {
        dp.blk_off[w] = (uint64_t *)(d + o_blk[w]);
        dp.ng[w] = (uint32_t *)(d + o_ng[w]);
    }
    dp.tps = (gcore::tp_tgt *)(d + o_tps);
    for (int c = 0; c < gcore::NCLS; ++c)
        dp.pair_off[c] = hp.pair_off[c].empty() ? NULL : (uint64_t *)(d + o_poff[c]);
    return 0;
}

/* Item offsets of class cls in a chunk of np pairs: the host's plan, else
 * counted and scanned on the batch's stream into d_off ([np + 1]). */
int myers::class_offsets(const scan_ctx &sc, const gcore::pair_params &sp, uint64_t np, int cls,
                          uint64_t *d_off, const uint64_t **off, gpuasm_err *err)
{
    const gpuasm_cuda_batch &b = *sc.b;
    *off = sc.dp.pair_off[cls];
    if (*off) return 0;
    const uint64_t nblk = (np + 1 + THREADS - 1) / THREADS;
    KIT_CLEAR_ERR();
    k_count_pairs<<<(unsigned)nblk, THREADS, 0, b.stream>>>(sp, np, cls, sc.d_cnt);
    KIT_CK_LAUNCH("k_count_pairs");
    size_t cub_bytes = sc.cub_cap;
    KIT_CK(cub::DeviceScan::ExclusiveSum(sc.d_cub, cub_bytes, sc.d_cnt, d_off, (int)(np + 1), b.stream));
    *off = d_off;
    return 0;
}

static int launch_pair_class(const scan_ctx &sc, gcore::pair_params sp, uint64_t np, int cls,
                             gpuasm_err *err)
{
    const gpuasm_cuda_batch &b = *sc.b;
    const uint64_t *off = NULL;
    int rc = myers::class_offsets(sc, sp, np, cls, sc.d_off, &off, err);
    if (rc < 0) return rc;
    pair_launch L;
    L.sp = sp;
    L.off = off;
    L.np = np;
    L.cls = cls;
    L.R = 1;
    L.lp = 32;
    KIT_CLEAR_ERR();
    if (cls >= gcore::CLS_WARP_R1) {
        gcore::warp_shape(cls, &L.R, &L.lp);
        switch (L.R) {
        case 1: k_warp<1><<<sc.grid, THREADS, 0, b.stream>>>(L, b.out); break;
        case 2: k_warp<2><<<sc.grid, THREADS, 0, b.stream>>>(L, b.out); break;
        case 3: k_warp<3><<<sc.grid, THREADS, 0, b.stream>>>(L, b.out); break;
        default: k_warp<4><<<sc.grid, THREADS, 0, b.stream>>>(L, b.out); break;
        }
        KIT_CK_LAUNCH("k_warp");
    } else if (cls >= gcore::CLS_REG1) {
        switch (cls) {
        case 1: k_simple_reg<1><<<sc.grid, THREADS, 0, b.stream>>>(L, b.out); break;
        case 2: k_simple_reg<2><<<sc.grid, THREADS, 0, b.stream>>>(L, b.out); break;
        case 3: k_simple_reg<3><<<sc.grid, THREADS, 0, b.stream>>>(L, b.out); break;
        default: k_simple_reg<4><<<sc.grid, THREADS, 0, b.stream>>>(L, b.out); break;
        }
        KIT_CK_LAUNCH("k_simple_reg");
    } else {
        /* Global scratch: slots for the longest sequence of the batch and
         * the targets (a bound on every pattern of this chunk). */
        uint64_t maxm = std::max<uint64_t>(sc.S->ti.maxlen, 1);
        for (uint32_t r = 0; r < b.host.reads.n; ++r)
            maxm = std::max<uint64_t>(maxm, b.host.reads.off[r + 1] - b.host.reads.off[r]);
        const uint64_t wmax = (maxm + 63) / 64;
        const uint64_t slot_bytes = 6 * wmax * sizeof(uint64_t);
        uint64_t nslot = SCRATCH_BUDGET / slot_bytes;
        const uint64_t most = (uint64_t)b.sm_count * 1024;
        if (nslot > most) nslot = most;
        if (nslot < 1) nslot = 1;
        void *scratch = NULL;
        rc = kit_grow(b, SLOT_GLOB, (size_t)(nslot * slot_bytes), &scratch, err);
        if (rc < 0) return rc;
        const uint64_t blocks = (nslot + THREADS - 1) / THREADS;
        KIT_CLEAR_ERR();
        k_simple_glob<<<(unsigned)blocks, THREADS, 0, b.stream>>>(L, (uint64_t *)scratch, nslot, wmax, b.out);
        KIT_CK_LAUNCH("k_simple_glob");
    }
    return 0;
}

/* Few pairs in one chunk (P1: one pattern against one text): the items of
 * each possible class counted and scanned here, from the lengths, and
 * uploaded with the plan, so the class costs one launch instead of three
 * (k_count_pairs, CUB's scan, the search kernel; issue #14 P1). */
enum { HOST_OFF_PAIRS = 4096 };

/* get_pair()'s parameters for batch view v (the host's copy, or the
 * device's for the launches) under the scan's knobs, with the LONG path's
 * segment seg_long (0: get_pair()'s default), from the first pair. */
static gcore::pair_params pair_params_of(const gpuasm_batch_view &v, const scan_ctx &sc, uint32_t seg_long)
{
    gcore::pair_params sp;
    sp.v = v;
    sp.kn = sc.K.kn;
    sp.seg_simple = sc.K.seg_simple;
    sp.seg_warp = sc.K.seg_warp;
    sp.seg_long = seg_long;
    sp.pair0 = 0;
    return sp;
}

static void plan_pair_offsets(const gpuasm_cuda_batch &b, const scan_ctx &sc, myers::host_plan &hp)
{
    for (int c = 0; c < gcore::NCLS; ++c) hp.pair_off[c].clear();
    if (sc.npairs == 0 || sc.npairs > HOST_OFF_PAIRS || sc.chunk < sc.npairs) return;
    const gcore::pair_params sp = pair_params_of(b.host, sc, sc.K.seg_long);
    for (int c = 0; c < gcore::NCLS; ++c) {
        if (!hp.cls_possible[c]) continue;
        std::vector<uint64_t> &off = hp.pair_off[c];
        off.resize(sc.npairs + 1);
        uint64_t at = 0;
        for (uint64_t i = 0; i < sc.npairs; ++i) {
            off[i] = at;
            at += gcore::pair_items(sp, i, c);
        }
        off[sc.npairs] = at;
    }
}

/* The LONG path's segment length of a batch of few pairs (issue #30's
 * P1).  get_pair()'s default, max(seg_warp, 2 (m + k)), gives one 1,024-
 * base pattern against 4 Mi bases 2,048 items of 4,096 columns: too few
 * for the SMs, each a chain of dependent steps (H200: 0.61 ms of kernel).
 * Where the batch's LONG items at the default are fewer than
 * LONG_ITEMS_WANT, the segments are cut to its text positions over that
 * many, but no shorter than 1.8 (m + k) of its longest pattern (a segment
 * pays m + k columns of overlap; P1 measured best at 2,048 = 1.82 (m +
 * k): 0.50-0.56 ms) and only where that is shorter than every LONG pair's
 * default.  Speed only: the segments give the same hits.  0 keeps the
 * default; GPUASM_CUDA_SEG_MIN sets it whatever. */
enum { LONG_ITEMS_WANT = 4096 };

static uint32_t long_segment(const gpuasm_cuda_batch &b, const scan_ctx &sc)
{
    if (sc.K.seg_long || sc.npairs == 0 || sc.npairs > HOST_OFF_PAIRS) return sc.K.seg_long;
    const gcore::pair_params sp = pair_params_of(b.host, sc, 0);
    uint64_t items = 0, floor = 0, dflt = UINT64_MAX;
    double pos = 0;
    for (uint64_t i = 0; i < sc.npairs; ++i) {
        const gcore::pair_info pi = gcore::get_pair(sp, i);
        if (pi.nseg == 0 || pi.cls < gcore::CLS_LONG) continue;
        items += 2 * pi.nseg;
        pos += 2.0 * (double)pi.n;
        floor = std::max<uint64_t>(floor, ((uint64_t)pi.m + (uint64_t)pi.k) * 9 / 5 + 1);
        dflt = std::min<uint64_t>(dflt, pi.seglen);
    }
    if (items == 0 || items >= LONG_ITEMS_WANT) return 0;
    const uint64_t seg = std::max<uint64_t>(floor, (uint64_t)(pos / LONG_ITEMS_WANT) + 1);
    return seg < dflt ? (uint32_t)seg : 0;
}

/* One pass of every search kernel of the scan. */
static int launch_all(const scan_ctx &sc, gpuasm_err *err)
{
    const gpuasm_cuda_batch &b = *sc.b;
    const myers::host_plan &hp = sc.S->hp;

    /* RP groups. */
    for (int w = 1; w <= 4; ++w) {
        const uint64_t total = hp.blk_off[w][b.host.targets.n];
        if (total == 0) continue;
        rp_launch L;
        L.v = b.dev;
        L.blk_off = sc.dp.blk_off[w];
        L.ng = sc.dp.ng[w];
        L.groups = sc.dp.groups + hp.g_lo[w];
        L.perm = sc.dp.perm;
        L.seglen = sc.K.seg_rp;
        L.total = total;
        const size_t smem = (size_t)4 * w * RP_NT * sizeof(uint64_t) +
                            align_up((size_t)sc.K.seg_rp + 2 * gcore::RP_MAX_M + 16);
        const unsigned grid = (unsigned)std::min<uint64_t>(total, (uint64_t)INT32_MAX);
        KIT_CLEAR_ERR();
        switch (w) {
        case 1: k_rp<1><<<grid, RP_NT, smem, b.stream>>>(L, b.out); break;
        case 2: k_rp<2><<<grid, RP_NT, smem, b.stream>>>(L, b.out); break;
        case 3: k_rp<3><<<grid, RP_NT, smem, b.stream>>>(L, b.out); break;
        default: k_rp<4><<<grid, RP_NT, smem, b.stream>>>(L, b.out); break;
        }
        KIT_CK_LAUNCH("k_rp");
    }

    /* TP small targets: items per read, scan, search. */
    if (!hp.tps.empty()) {
        const uint32_t nr = b.host.reads.n;
        tp_launch L;
        L.tp.v = b.dev;
        L.tp.seglen = sc.K.seg_tp;
        L.tp.ov = hp.tp_ov;
        L.tp.minlen = hp.tp_minlen;
        L.tp.active = 1;
        L.off = sc.d_off;
        L.nreads = nr;
        L.tg = sc.dp.tps;
        L.ntg = (uint32_t)hp.tps.size();
        L.eq16 = sc.S->d_eq16;
        L.win_words = (sc.K.seg_tp + hp.tp_ov + 1 + 7) / 8 + 1;
        const uint64_t nblk = ((uint64_t)nr + 1 + THREADS - 1) / THREADS;
        KIT_CLEAR_ERR();
        k_count_tp<<<(unsigned)nblk, THREADS, 0, b.stream>>>(L.tp, nr, sc.d_cnt);
        KIT_CK_LAUNCH("k_count_tp");
        size_t cub_bytes = sc.cub_cap;
        KIT_CK(cub::DeviceScan::ExclusiveSum(sc.d_cub, cub_bytes, sc.d_cnt, sc.d_off, (int)(nr + 1), b.stream));
        const size_t smem = (size_t)TP_CHUNK * 16 * sizeof(uint64_t) + TP_CHUNK * sizeof(gcore::tp_tgt) +
                            (size_t)L.win_words * TP_NT * sizeof(uint32_t);
        KIT_CLEAR_ERR();
        k_tp<<<sc.grid, TP_NT, smem, b.stream>>>(L, b.out);
        KIT_CK_LAUNCH("k_tp");
    }

    /* Per-pair classes (WARP, SIMPLE), chunk by chunk. */
    bool any = false;
    for (int c = 0; c < gcore::NCLS; ++c) any = any || hp.cls_possible[c];
    if (!any) return 0;
    gcore::pair_params sp = pair_params_of(b.dev, sc, sc.K.seg_long);
    for (uint64_t p0 = 0; p0 < sc.npairs; p0 += sc.chunk) {
        const uint64_t np = std::min<uint64_t>(sc.npairs - p0, sc.chunk);
        sp.pair0 = p0;
        std::vector<int> longs;
        for (int c = 0; c < gcore::NCLS; ++c) {
            if (!hp.cls_possible[c]) continue;
            if (c >= gcore::CLS_LONG) {
                longs.push_back(c);
                continue;
            }
            const int rc = launch_pair_class(sc, sp, np, c, err);
            if (rc < 0) return rc;
        }
        const int rc = myers::launch_long(sc, sp, np, longs, err);
        if (rc < 0) return rc;
    }
    return 0;
}

/* The small targets' Eq tables on the device, for the current targets. */
static int prepare_targets(const gpuasm_cuda_batch &b, myers_state &S, gpuasm_err *err)
{
    if (S.targets_version == b.targets_version && S.d_eq16) return 0;
    myers::build_target_info(&b.host.targets, S.ti);
    const size_t ebytes = S.ti.eq16.size() * sizeof(uint64_t);
    int rc = kit_grow_buf(b.stream, (void **)&S.d_eq16, &S.eq16_cap, ebytes, err);
    if (rc < 0) return rc;
    if (ebytes) KIT_CK(cudaMemcpyAsync(S.d_eq16, S.ti.eq16.data(), ebytes, cudaMemcpyHostToDevice, b.stream));
    /* The table is pageable host memory that build_target_info may refill
     * at the next target change: let the copy finish. */
    KIT_CK(cudaStreamSynchronize(b.stream));
    S.targets_version = b.targets_version;
    return 0;
}

extern "C" int gpuasm_myers_cuda_launch(const gpuasm_cuda_batch *bp, gpuasm_err *err)
{
    const gpuasm_cuda_batch &b = *bp;
    if (b.host.opt.alphabet != GPUASM_ALPHABET_NT16) return gpuasm_myers_byte_cuda_launch(b, err);
    if (!*b.state) {
        *b.state = new myers_state();
        ((myers_state *)*b.state)->d_eq16 = NULL;
    }
    myers_state &S = *(myers_state *)*b.state;
    int rc = prepare_targets(b, S, err);
    if (rc < 0) return rc;

    scan_ctx sc;
    sc.b = bp;
    sc.S = &S;
    sc.K = myers::knobs_of(*b.settings);
    myers::plan_scan(&b.host.reads, S.ti, &b.host.opt, sc.K, S.hp);
    sc.npairs = (uint64_t)b.host.reads.n * b.host.targets.n;
    sc.chunk = std::max<uint64_t>(1, std::min<uint64_t>(sc.npairs, sc.K.pair_chunk));
    sc.grid = (unsigned)(b.sm_count * KIT_GRID_PER_SM);
    sc.K.seg_long = long_segment(b, sc);

    /* Scan buffers for the per-read (TP) and per-pair enumerations, and
     * CUB's temporary storage: sized before any launch (growing syncs). */
    const size_t cnt_n = (size_t)std::max<uint64_t>(b.host.reads.n, sc.chunk) + 1;
    void *p = NULL;
    if ((rc = kit_grow(b, SLOT_CNT, cnt_n * sizeof(uint64_t), &p, err)) < 0) return rc;
    sc.d_cnt = (uint64_t *)p;
    if ((rc = kit_grow(b, SLOT_OFF, cnt_n * sizeof(uint64_t), &p, err)) < 0) return rc;
    sc.d_off = (uint64_t *)p;
    size_t cub_bytes = 0;
    KIT_CK(cub::DeviceScan::ExclusiveSum(NULL, cub_bytes, sc.d_cnt, sc.d_off, (int)cnt_n, b.stream));
    if ((rc = kit_grow(b, SLOT_CUB, cub_bytes, &sc.d_cub, err)) < 0) return rc;
    sc.cub_cap = b.scratch[SLOT_CUB].cap;
    plan_pair_offsets(b, sc, S.hp);
    if ((rc = upload_plan(b, S, sc.dp, err)) < 0) return rc;
    if ((rc = kit_begin_kernels(b, err)) < 0) return rc;
    return launch_all(sc, err);
}
