/* SPDX-License-Identifier: MIT */
/* partial_cuda.cu -- the ends pass on the GPU: the partial occurrences of
 * search.h ("Partial occurrences") for every kernel, launched after its
 * launcher on a stream of the lane's own, so that it runs beside the
 * search kernels (cuda_backend.cu runs both; b.stream below is that
 * stream).  The per-item code is partial.h's, the very
 * code the CPU pair walk runs, so both backends give the same hits.
 *
 * Work item: (pair, strand, end of the text), items = pairs x strands x 2,
 * one thread each in a grid-stride loop; an item whose pair takes no
 * partial occurrence at that end (omin = 0, or the end not asked for)
 * costs a few instructions.  Workspace (partial.h: 6 words per 64 pattern
 * bases): patterns up to SMALL_M bases use a per-thread array.
 *
 * Longer patterns (long reads against genomes, issue #11), edit mode on
 * nt16: a WARP per item (partial_warp.cuh: strips of 32 lanes x R words,
 * the LONG path's wavefront, block step and cut-off across strips, the row
 * walk by the lanes), the same (plen, dist) as partial.h by construction
 * of the same matrix
 * (tests/c/test_partial_cuda runs that per-lane code on the host against
 * gpuasm_partial_best).  The host lists these items (only pairs whose
 * pattern can be long are visited), sorts each R's list by cost, longest
 * first, and the warps take items from a counter (a work queue): a 10 kb
 * read vs a genome end is ~12,000 columns x 3 strips, and a static split
 * of a few hundred such items over thousands of warps left most SMs idle
 * (k_partial_big: 3 blocks, 1.22 s for 320 items on an H100).  One
 * launch per R (1..6), each on a stream of its own joined back into the
 * batch's (pw_launch_all: the widest R's few items no longer run alone),
 * records (a byte per column: a strip's bottom-row io) two per warp of
 * each launch in global scratch, at most SCRATCH_BUDGET bytes per launch,
 * which bounds its grid.  Hamming mode and the byte alphabet keep the
 * thread per item with global scratch (k_partial_big), and so do patterns
 * under GPUASM_CUDA_ENDS_WARP_MIN bases (settings.h; default: none).
 */
#include <cuda_runtime.h>

#include <stdint.h>

#include <algorithm>

#include <vector>

#include "kernels/cuda_kit.cuh"
#include "kernels/partial.h"
#include "kernels/myers/myers_long_core.cuh"
#include "kernels/myers/myers_plan.h"
#include "kernels/ends/partial_warp.cuh"
#include "kernels/ends/ends_word.h"
#include "kernels/pipe_sync.cuh"

namespace {

enum {
    PNT = 128,             /* threads per block */
    SMALL_M = 256,         /* patterns with a per-thread workspace */
    SMALL_WORDS = 6 * (SMALL_M / 64),
    PW_WARPS = PNT / 32,
    PNS = 512              /* threads per block of k_partial_shared */
};
/* k_partial_shared's tables may take this much of a block's shared memory
 * (three blocks of 64 KiB fit an H100/H200 SM: 48 of its 64 warps). */
const size_t EW1_SMEM_MAX = (size_t)96 << 10;
/* Scratch slots (cuda_kit.cuh) of the ends pass: the lane's second array
 * (gpuasm_cuda_batch.scratch of the pass's batch), since it runs beside
 * the search kernel on a stream of its own. */
enum ends_slot {
    SLOT_PARTIAL,          /* the long-pattern workspace */
    SLOT_PW_LIST,          /* the warp path's item lists and queue counters */
    SLOT_PW_REC,           /* the warp path's records */
    ENDS_N_SLOTS
};
static_assert((int)ENDS_N_SLOTS <= (int)KIT_SCRATCH_SLOTS, "the ends pass's scratch slots");
const size_t SCRATCH_BUDGET = (size_t)256 << 20;

struct partial_launch {
    gpuasm_batch_view v;   /* the batch on the device */
    int32_t hamming;       /* mode hamming: mismatches only */
    uint32_t strands;
    uint64_t items;        /* pairs x strands x 2 */
    int32_t big;           /* 0: patterns <= SMALL_M, 1: longer ones */
    uint64_t warp_min;     /* big: patterns of at least this many bases are the warp path's */
    uint64_t *glob;        /* big: slot s at glob + s * glob_words */
    uint64_t glob_words;
    int32_t long_ends;     /* the search took the text ends long_end_omin(kn, ...) names */
    gcore::route_knobs kn;
    /* the CPU walk's ends pass of short targets (kernels/ends/ends_word.h), built
     * once per run on the host: ew[ew_slot[t]] for target t, slot -1 (or
     * ew NULL): the generic gpuasm_partial_best() */
    const ends_word *ew;
    const int32_t *ew_slot;
    uint32_t n_ew;         /* slots of ew (k_partial_shared copies the one-word ones) */
};

/* Item `item` = ((pair x strands) + strand) x 2 + end of a batch view (host
 * or device pointers): its sequences as searched; live = 0 when the pair
 * takes no partial occurrence at that end, or when kn != NULL and the
 * search kernel's LONG path took it (the text end of the pairs
 * gcore::long_end_omin() names: myers_long_core.cuh). */
struct pitem_views {
    gcore::pair_ref x;
    uint32_t strand, end, omin;
    int32_t sfloor;
    int live;
    gpuasm_seqview pv, tv;
};

HD pitem_views partial_views(const gpuasm_batch_view &v, uint32_t strands, uint64_t item,
                             const gcore::route_knobs *kn)
{
    pitem_views e;
    e.end = (uint32_t)(item & 1u);
    e.strand = (uint32_t)((item >> 1) % strands);
    e.x = gcore::pair_at(v, (item >> 1) / strands);
    const gpuasm_pair &p = e.x.p;
    e.omin = p.searched ? gpuasm_pair_overlap_min(&v.opt, p.read_is_pattern, p.m) : 0u;
    e.sfloor = gpuasm_pair_partial_floor(&v.opt, p.read_is_pattern);
    const uint32_t ends = gpuasm_partial_text_ends(&v.opt, p.read_is_pattern, e.strand);
    e.live = e.omin && (ends & (1u << e.end));
    if (e.live && kn && e.end == 0 &&
        gcore::long_end_omin(*kn, v.opt, p.read_is_pattern, (uint32_t)p.m, p.k, (uint32_t)p.n, e.strand))
        e.live = 0;
    e.pv.p = e.x.pat;
    e.pv.len = (uint32_t)p.m;
    e.pv.rc = p.read_is_pattern && e.strand;
    e.tv.p = e.x.txt;
    e.tv.len = (uint32_t)p.n;
    e.tv.rc = !p.read_is_pattern && e.strand;
    return e;
}

/* The hit of an item's best partial occurrence (search.h). */
__device__ __forceinline__ void partial_emit(dev_out &out, const pitem_views &e, const gpuasm_partial &b)
{
    out.emit_kind(e.x.r, e.x.t, e.end ? 0u : e.tv.len - 1u, b.dist, e.strand,
                  e.end ? GPUASM_HIT_TEXT_START : GPUASM_HIT_TEXT_END, b.plen);
}

__device__ __forceinline__ void partial_item(const partial_launch &L, uint64_t item, uint64_t *ws,
                                             dev_out &out, const ends_word1 *sw = NULL)
{
    const pitem_views e = partial_views(L.v, L.strands, item, L.long_ends ? &L.kn : NULL);
    if (!e.live || (e.x.p.m > SMALL_M) != (L.big != 0) || e.x.p.m >= L.warp_min) return;
    /* a target as the pattern with an ends_word (edit mode): its Eq and
     * k_p from the table instead of rebuilt per item, the same (plen,
     * dist) (ends_word.h; tests/c/test_ends_filter holds the view form to
     * gpuasm_partial_best on both strands) */
    const int32_t slot = L.ew && !e.x.p.read_is_pattern ? L.ew_slot[e.x.t] : -1;
    /* sw (k_partial_shared): the slot's one-word tables in shared memory,
     * the same step on the same tables (ends_word1) */
    const gpuasm_partial b = slot >= 0 && sw && sw[slot].m
        ? gpuasm_ends_word1_view(&sw[slot], e.tv.p, e.tv.len, e.tv.rc, (int)e.end)
        : slot >= 0
        ? gpuasm_ends_word_view(&L.ew[slot], e.tv.p, e.tv.len, e.tv.rc, (int)e.end, UINT32_MAX)
        : gpuasm_partial_best(&L.v.opt, e.omin, e.sfloor, &e.pv, &e.tv, (int)e.end, L.hamming, ws);
    if (b.plen) partial_emit(out, e, b);
}

__global__ void __launch_bounds__(PNT) k_partial_small(partial_launch L, dev_out out)
{
    uint64_t ws[SMALL_WORDS];
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t it = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; it < L.items; it += stride)
        partial_item(L, it, ws, out);
}

/* The dense pass with the one-word targets' tables copied into shared
 * memory once per block (ends_word1: 416 bytes a target where their
 * ends_word is 1,560).  A warp's 32 items are eight targets of one read at
 * both ends and strands: from the ends_words in global memory each step's
 * Eq load touched sixteen cache lines; from shared memory it is one bank
 * access a thread.  Slots of more words keep their ends_word (m = 0). */
__global__ void __launch_bounds__(PNS) k_partial_shared(partial_launch L, dev_out out)
{
    extern __shared__ ends_word1 sw[];
    for (uint32_t s = threadIdx.x; s < L.n_ew; s += blockDim.x)
        if (!gpuasm_ends_word1_of(&L.ew[s], &sw[s])) sw[s].m = 0;
    __syncthreads();
    uint64_t ws[SMALL_WORDS];
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t it = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; it < L.items; it += stride)
        partial_item(L, it, ws, out, sw);
}

/* The items the host listed (walk/ends_plan.h), the same per-item code. */
__global__ void __launch_bounds__(PNT) k_partial_list(partial_launch L, const uint64_t *items, uint64_t n,
                                                      dev_out out)
{
    uint64_t ws[SMALL_WORDS];
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        partial_item(L, items[i], ws, out);
}

__global__ void __launch_bounds__(PNT) k_partial_big(partial_launch L, uint64_t nslot, dev_out out)
{
    const uint64_t slot = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (slot >= nslot) return;
    uint64_t *ws = L.glob + slot * L.glob_words;
    for (uint64_t it = slot; it < L.items; it += nslot) partial_item(L, it, ws, out);
}

/* The lanes' bests merged: every lane holds the warp's. */
__device__ __forceinline__ void pw_merge_warp(gpuasm_partial &best)
{
    for (uint32_t off = 16; off; off >>= 1) {
        gpuasm_partial o;
        o.plen = __shfl_xor_sync(0xffffffffu, best.plen, off);
        o.dist = __shfl_xor_sync(0xffffffffu, best.dist, off);
        gcore::pw_merge(best, o);
    }
}

/* The warp path: items[0 .. n) of one R, taken from the queue *next. */
struct pw_launch {
    gpuasm_batch_view v;
    uint32_t strands;
    const uint64_t *items;
    uint32_t n;
    unsigned int *next;
    uint8_t *rec;         /* two records of rec_cols per warp of the grid */
    uint64_t rec_cols;
};

template <int R>
__global__ void __launch_bounds__(PNT) k_partial_warp(pw_launch L, dev_out out)
{
    __shared__ uint32_t peq_all[PW_WARPS][16 * R * 32];
    const unsigned FULL = 0xffffffffu;
    const uint32_t g = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    uint32_t *peq_w = peq_all[warp];
    uint8_t *rec_w = L.rec + ((uint64_t)blockIdx.x * PW_WARPS + warp) * 2 * L.rec_cols;
    for (;;) {
        uint32_t i = 0;
        if (g == 0) i = atomicAdd(L.next, 1u);
        i = __shfl_sync(FULL, i, 0);
        if (i >= L.n) break;
        const pitem_views e = partial_views(L.v, L.strands, L.items[i], NULL);   /* listed by pw_plan */
        gcore::pw_item it;
        gpuasm_partial best;
        best.plen = 0;
        best.dist = 0;
        /* Uniform over the warp: every lane decodes the same item. */
        if (gcore::pw_setup(it, &L.v.opt, e.omin, e.sfloor, e.pv, e.tv, (int)e.end)) {
            int32_t base_e = 0;   /* D[a-1][W-2] above the strip */
            const uint32_t ns = gcore::pw_strips(it.w32, R);
            /* Strip s enters at column col0 from D = base (the cut-off:
             * partial_warp.cuh); strips below one with no entry are skipped. */
            uint32_t col0 = 0;
            int32_t base = 0;
            for (uint32_t s = 0; s < ns; ++s) {
                const gcore::pw_strip sp = gcore::pw_strip_of(it, R, s, col0, base);
                __syncwarp();   /* the last strip's walk (Peq reads) and records are done */
                gcore::pw_build_peq<R>(peq_w, g, it, sp);
                gcore::pw_lane<R> st;
                gcore::pw_begin<R>(st);
                __syncwarp();
                const uint8_t *rin = s ? rec_w + (uint64_t)((s - 1u) & 1u) * L.rec_cols : NULL;
                uint8_t *rout = rec_w + (uint64_t)(s & 1u) * L.rec_cols;
                /* Lane 0's inputs (pw_in0) a block ahead: wavefront_in. */
                const auto load = [&](uint32_t x) { return gcore::pw_in0(it, rin, col0 + x); };
                uint32_t cur = load(g), nxt = load(32u + g), out = 0;
                /* Steps where every lane computes (lane 0's column below
                 * W - 1) run without tests (wavefront_steady), from 32 on
                 * to a multiple of 32. */
                const uint32_t t1 = it.W > col0 + 1u ? min(sp.steps, it.W - 1u - col0) & ~31u : 0u;
                uint32_t t = 0;
                if (t1 > 32u) {
                    for (; t < 32u; ++t)
                        out = gcore::pw_step<R>(st, peq_w, g, it, sp, t,
                                                gcore::wavefront_in(cur, nxt, t, g, 32u, out, load), rout);
                    uint8_t *rec = !sp.last && g == sp.lanes - 1u ? rout : NULL;
                    gcore::wavefront_steady<R>(st.pv, st.mv, peq_w, g, g, 32u, cur, nxt, out, 32u, t1, col0, load, rec);
                    t = t1;
                }
                for (; t < sp.steps; ++t)
                    out = gcore::pw_step<R>(st, peq_w, g, it, sp, t, gcore::wavefront_in(cur, nxt, t, g, 32u, out, load),
                                            rout);
                /* The walk: the lanes' sums scanned (inclusive), then each
                 * lane from the row above its first. */
                const int32_t es = gcore::pw_sum<R>(st, it, sp, g);
                int32_t ie = es;
                for (uint32_t off = 1; off < 32u; off <<= 1) {
                    const int32_t b = __shfl_up_sync(FULL, ie, off);
                    if (g >= off) ie += b;
                }
                gcore::pw_walk<R>(st, peq_w, g, it, sp, &L.v.opt, gcore::pw_code(it, it.W - 1u),
                                  base_e + ie - es, best);
                base_e += __shfl_sync(FULL, ie, 31);
                /* The next strip's entry, from the strip's record (its bottom
                 * row's deltas, written by the bottom lane). */
                if (sp.last) break;
                __syncwarp();
                uint32_t first;
                int32_t first_d;
                gcore::strip_entry_warp(rout, col0, it.W, gcore::pw_entry_d0(sp), it.kmax,
                                        gcore::pw_entry_slope(it, sp), 1, g, 0, 32u, first, first_d);
                if (first == gcore::PW_NONE) break;
                col0 = first;
                base = first_d;
            }
        }
        pw_merge_warp(best);
        if (g == 0 && best.plen) partial_emit(out, e, best);
    }
}

/* THE WARP PATH PIPED (issue #28's huge pair; kernels/pipe_sync.cuh):
 * where a batch has few warp-path items, each strip of an item is a task
 * on a warp of its own, behind the strip above, as the search's piped LONG
 * strips (myers_pipe_cuda.cu, whose header has the rules): one record an
 * item rewritten in place, each strip's entry (info), record progress
 * (done) and end (fin) in global words.  The walk of strip s needs D at
 * its top row in column W-2, which strip s - 1 leaves in eb[s - 1] with
 * its own best (bp, bd) before its fin; the strip that holds the last row
 * (or the first never entered) merges the bests (a total order:
 * pw_merge) and emits, as k_partial_warp's one warp does.  The same
 * candidates for any strip width (the header's cut-off argument), so R is
 * the pipe's own. */
struct pp_launch {
    gpuasm_batch_view v;
    uint32_t strands, n, smax;
    const uint64_t *items;        /* [n], longest first */
    unsigned int *next;           /* the queue's counter (zeroed) */
    uint8_t *rec;                 /* [n] records of rec_cols bytes */
    uint64_t rec_cols;
    unsigned long long *info;     /* [n smax], zeroed */
    uint32_t *done, *fin;         /* [n smax], zeroed */
    int32_t *eb, *bd;             /* [n smax] */
    uint32_t *bp;                 /* [n smax] */
};

template <int R>
__global__ void __launch_bounds__(PNT) k_partial_pipe(pp_launch L, dev_out out)
{
    __shared__ uint32_t peq_all[PW_WARPS][16 * R * 32];
    const unsigned FULL = 0xffffffffu;
    const uint32_t g = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    uint32_t *peq_w = peq_all[warp];
    const uint32_t tasks = L.n * L.smax;
    for (;;) {
        uint32_t q = 0;
        if (g == 0) q = atomicAdd(L.next, 1u);
        q = __shfl_sync(FULL, q, 0);
        if (q >= tasks) break;
        const uint32_t i = q / L.smax, s = q % L.smax;
        const pitem_views e = partial_views(L.v, L.strands, L.items[i], NULL);   /* listed by pw_plan */
        gcore::pw_item it;
        if (!gcore::pw_setup(it, &L.v.opt, e.omin, e.sfloor, e.pv, e.tv, (int)e.end)) continue;
        if (s >= gcore::pw_strips(it.w32, R)) continue;
        const uint64_t at = (uint64_t)i * L.smax;
        unsigned long long *info = L.info + at;
        uint32_t *done = L.done + at, *fin = L.fin + at;
        uint8_t *rec = L.rec + (uint64_t)i * L.rec_cols;
        const auto rd = [&](uint32_t c) { return (uint32_t)__ldcg(rec + c); };
        uint32_t seen = 0;
        const auto gate = [&](uint32_t need) { pipe_wait(done + s - 1u, need, seen); };
        uint32_t col0;
        int32_t base;
        bool above;
        const bool entered = pipe_enter(info, s, &col0, &base, &above,
                                        [&](uint32_t c0a, int32_t basea, uint32_t &first, int32_t &first_d) {
            const gcore::pw_strip sa = gcore::pw_strip_of(it, R, s - 1u, c0a, basea);
            gcore::strip_entry_warp_by(rd, gate, sa.c0, it.W, gcore::pw_entry_d0(sa), it.kmax,
                                       gcore::pw_entry_slope(it, sa), 1, g, 0, 32u, first, first_d);
        });
        pipe_publish_info(info + s, entered, col0, base, g);
        gpuasm_partial best;
        best.plen = 0;
        best.dist = 0;
        bool merge = above && !entered;   /* the first strip never entered merges */
        if (entered) {
            const gcore::pw_strip sp = gcore::pw_strip_of(it, R, s, col0, base);
            __syncwarp();
            gcore::pw_build_peq<R>(peq_w, g, it, sp);
            gcore::pw_lane<R> st;
            gcore::pw_begin<R>(st);
            __syncwarp();
            const uint8_t *rin = s ? rec : NULL;
            const auto load = [&](uint32_t x) {
                const uint32_t c = col0 + x;
                if (c >= it.W) return 0u;
                return rin ? (uint32_t)__ldcg(rin + c) : gcore::io_pack(0, gcore::pw_code(it, c));
            };
            const uint32_t gb = sp.lanes - 1u;   /* the bottom lane */
            uint32_t published = 0;
            const auto hook = [&](uint32_t t_done, uint32_t t_next) {
                if (!sp.last && g == gb && t_done > gb) {
                    const uint32_t c = col0 + t_done - gb;   /* record columns < c final */
                    if (c >= published + PIPE_PUBLISH) {
                        __threadfence();
                        *(volatile uint32_t *)(done + s) = c;
                        published = c;
                    }
                }
                if (rin) gate(min(col0 + t_next + 32u, it.W));
            };
            hook(0u, 32u);
            uint32_t cur = load(g), nxt = load(32u + g), out = 0;
            const uint32_t t1 = it.W > col0 + 1u ? min(sp.steps, it.W - 1u - col0) & ~31u : 0u;
            uint32_t t = 0;
            if (t1 > 32u) {
                for (; t < 32u; ++t)
                    out = gcore::pw_step<R>(st, peq_w, g, it, sp, t, gcore::wavefront_in(cur, nxt, t, g, 32u, out, load),
                                            rec);
                uint8_t *rr = !sp.last && g == gb ? rec : NULL;
                for (; t < t1;) {
                    const uint32_t te = t1 - t > PIPE_CHUNK ? t + PIPE_CHUNK : t1;
                    hook(t, te);
                    gcore::wavefront_steady<R>(st.pv, st.mv, peq_w, g, g, 32u, cur, nxt, out, t, te, col0, load, rr);
                    t = te;
                }
            }
            for (; t < sp.steps; ++t) {
                if ((t & 31u) == 0 && t) hook(t, t + 32u);
                out = gcore::pw_step<R>(st, peq_w, g, it, sp, t, gcore::wavefront_in(cur, nxt, t, g, 32u, out, load),
                                        rec);
            }
            if (!sp.last && g == gb) {
                __threadfence();
                *(volatile uint32_t *)(done + s) = it.W;
            }
            /* The walk, from D at the strip's top row in column W-2 (the
             * strip above's, once it is finished). */
            int32_t base_e = 0;
            if (s > 0) {
                if (g == 0)
                    while (*(const volatile uint32_t *)(fin + s - 1u) == 0) __nanosleep(256);
                __syncwarp();
                __threadfence();
                base_e = __ldcg(L.eb + at + s - 1u);
            }
            const int32_t es = gcore::pw_sum<R>(st, it, sp, g);
            int32_t ie = es;
            for (uint32_t off = 1; off < 32u; off <<= 1) {
                const int32_t b = __shfl_up_sync(FULL, ie, off);
                if (g >= off) ie += b;
            }
            gcore::pw_walk<R>(st, peq_w, g, it, sp, &L.v.opt, gcore::pw_code(it, it.W - 1u), base_e + ie - es, best);
            pw_merge_warp(best);
            const int32_t below = base_e + __shfl_sync(FULL, ie, 31);
            if (g == 0) {
                L.eb[at + s] = below;
                L.bp[at + s] = best.plen;
                L.bd[at + s] = best.dist;
            }
            merge = sp.last;
        }
        __threadfence();
        __syncwarp();
        if (g == 0) *(volatile uint32_t *)(fin + s) = 1u;
        if (merge) {
            pipe_wait_fin(fin, s, g);
            for (uint32_t a = g; a < s; a += 32u) {
                gpuasm_partial o;
                o.plen = __ldcg(L.bp + at + a);
                o.dist = __ldcg(L.bd + at + a);
                gcore::pw_merge(best, o);
            }
            pw_merge_warp(best);
            if (g == 0 && best.plen) partial_emit(out, e, best);
        }
        __syncwarp();
    }
}

}  /* namespace */

/* The warp path's items of a batch (edit mode, nt16, patterns over SMALL_M
 * bases), by R, each list longest first.  Only pairs whose pattern can be
 * that long are visited (a pattern of the SHORTER side is the shorter of
 * the two). */
static void pw_plan(const gpuasm_batch_view &h, uint32_t strands, uint64_t warp_min, const gcore::route_knobs *kn,
                    std::vector<uint64_t> lists[gcore::PW_RMAX + 1], uint64_t *maxw, double *cells)
{
    std::vector<uint32_t> lr, lt, all_r, all_t;
    for (uint32_t r = 0; r < h.reads.n; ++r) {
        all_r.push_back(r);
        if (h.reads.off[r + 1] - h.reads.off[r] > SMALL_M) lr.push_back(r);
    }
    for (uint32_t t = 0; t < h.targets.n; ++t) {
        all_t.push_back(t);
        if (h.targets.off[t + 1] - h.targets.off[t] > SMALL_M) lt.push_back(t);
    }
    const int side = h.opt.pattern_side;
    const std::vector<uint32_t> &rs = side == GPUASM_PATTERN_TARGET ? all_r : lr;
    const std::vector<uint32_t> &ts = side == GPUASM_PATTERN_READ ? all_t : lt;
    std::vector<std::pair<uint64_t, uint64_t> > cost[gcore::PW_RMAX + 1];
    *maxw = 1;
    *cells = 0;
    for (uint32_t r : rs)
        for (uint32_t t : ts) {
            const uint64_t pair = (uint64_t)r * h.targets.n + t;
            for (uint32_t s = 0; s < strands; ++s)
                for (uint32_t end = 0; end < 2; ++end) {
                    const uint64_t item = ((pair * strands) + s) * 2 + end;
                    const pitem_views e = partial_views(h, strands, item, kn);
                    if (!e.live || e.x.p.m <= SMALL_M || e.x.p.m < warp_min) continue;
                    gcore::pw_item it;
                    if (!gcore::pw_setup(it, &h.opt, e.omin, e.sfloor, e.pv, e.tv, (int)e.end)) continue;
                    const uint32_t R = gcore::pw_pick_r(it.m, it.kmax);
                    cost[R].push_back(std::make_pair((uint64_t)gcore::pw_strips(it.w32, R) * (it.W + 31u), item));
                    *maxw = std::max<uint64_t>(*maxw, it.W);
                    *cells += (double)it.m * it.W;
                }
        }
    for (uint32_t R = 1; R <= gcore::PW_RMAX; ++R) {
        std::sort(cost[R].begin(), cost[R].end(),
                  [](const std::pair<uint64_t, uint64_t> &a, const std::pair<uint64_t, uint64_t> &b) {
                      return a.first != b.first ? a.first > b.first : a.second < b.second;
                  });
        lists[R].clear();
        for (const auto &c : cost[R]) lists[R].push_back(c.second);
    }
}

template <int R>
static uint64_t pp_resident_warps(const gpuasm_cuda_batch &b)
{
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_partial_pipe<R>, PNT, 0) != cudaSuccess ||
        per_sm < 1)
        per_sm = 1;
    return (uint64_t)per_sm * (uint64_t)b.sm_count * PW_WARPS;
}

/* The warp path piped (k_partial_pipe), where the batch's `total` items
 * (listed at d + PW_RMAX, the queue counter at d) are at most an eighth
 * of the warps the SMs hold (GPUASM_CUDA_LONG_PIPE, as the search's LONG
 * strips: 0 never, 2 always) and their region fits the budget.  0 when
 * launched, 1 when not (the caller launches k_partial_warp), or a status. */
static int pw_launch_pipe(const gpuasm_cuda_batch &b, uint32_t strands, uint64_t *d, size_t total,
                          uint64_t rec_cols, gpuasm_err *err)
{
    const int64_t mode = gpuasm_knob(b.settings->cuda_ends_pipe, gpuasm_knob(b.settings->cuda_long_pipe, myers::PIPE_DEFAULT));
    const uint32_t R = gpuasm_knob(b.settings->cuda_pipe_r, 1) == 2 ? 2u : 1u;
    if (mode == 0) return 1;
    uint64_t maxm = 1;
    for (uint32_t r = 0; r < b.host.reads.n; ++r)
        maxm = std::max<uint64_t>(maxm, b.host.reads.off[r + 1] - b.host.reads.off[r]);
    for (uint32_t t = 0; t < b.host.targets.n; ++t)
        maxm = std::max<uint64_t>(maxm, b.host.targets.off[t + 1] - b.host.targets.off[t]);
    const uint32_t smax = gcore::pw_strips((uint32_t)((maxm + 31u) / 32u), R);
    const uint64_t nsync = (uint64_t)total * smax;
    const uint64_t bytes = nsync * 28u + (uint64_t)total * rec_cols;
    const uint64_t warps = R == 1 ? pp_resident_warps<1>(b) : pp_resident_warps<2>(b);
    if (bytes > SCRATCH_BUDGET || nsync >= UINT32_MAX || (mode == 1 && (smax < 2 || total * 8 > warps))) return 1;
    void *region = NULL;
    int rc = kit_grow(b, SLOT_PW_REC, (size_t)bytes, &region, err);
    if (rc < 0) return rc;
    pp_launch L;
    L.v = b.dev;
    L.strands = strands;
    L.n = (uint32_t)total;
    L.smax = smax;
    L.items = d + gcore::PW_RMAX;
    L.next = (unsigned int *)d;
    L.info = (unsigned long long *)region;
    L.done = (uint32_t *)(L.info + nsync);
    L.fin = L.done + nsync;
    L.eb = (int32_t *)(L.fin + nsync);
    L.bp = (uint32_t *)(L.eb + nsync);
    L.bd = (int32_t *)(L.bp + nsync);
    L.rec = (uint8_t *)(L.bd + nsync);
    L.rec_cols = rec_cols;
    KIT_CK(cudaMemsetAsync(region, 0, (size_t)nsync * 16u, b.stream));
    const unsigned nb = (unsigned)std::max<uint64_t>(1, std::min<uint64_t>(warps, nsync + PW_WARPS - 1) / PW_WARPS);
    KIT_CLEAR_ERR();
    if (R == 1)
        k_partial_pipe<1><<<nb, PNT, 0, b.stream>>>(L, b.out);
    else
        k_partial_pipe<2><<<nb, PNT, 0, b.stream>>>(L, b.out);
    KIT_CK_LAUNCH("k_partial_pipe");
    return 0;
}

/* The warp path's launches (see the header comment). */
static int pw_launch_all(const gpuasm_cuda_batch &b, uint32_t strands, uint64_t warp_min,
                         const gcore::route_knobs *kn, double *cells, gpuasm_err *err)
{
    std::vector<uint64_t> lists[gcore::PW_RMAX + 1];
    uint64_t maxw = 1;
    pw_plan(b.host, strands, warp_min, kn, lists, &maxw, cells);
    size_t total = 0;
    for (uint32_t R = 1; R <= gcore::PW_RMAX; ++R) total += lists[R].size();
    if (total == 0) return 0;
    /* One upload: the counters (one per R, 8 bytes apart), then the lists. */
    std::vector<uint64_t> host(gcore::PW_RMAX + total, 0);
    size_t at = gcore::PW_RMAX, off[gcore::PW_RMAX + 1];
    for (uint32_t R = 1; R <= gcore::PW_RMAX; ++R) {
        off[R] = at;
        std::copy(lists[R].begin(), lists[R].end(), host.begin() + at);
        at += lists[R].size();
    }
    void *p = NULL;
    int rc = kit_grow(b, SLOT_PW_LIST, host.size() * sizeof(uint64_t), &p, err);
    if (rc < 0) return rc;
    uint64_t *d = (uint64_t *)p;
    /* `host` is pageable and dies with this call, and an async copy from
     * pageable memory may still read it after returning: wait for it (the
     * stream holds only the kernel before it; the GPU stays busy with that
     * while this thread waits). */
    KIT_CK(cudaMemcpyAsync(d, host.data(), host.size() * sizeof(uint64_t), cudaMemcpyHostToDevice, b.stream));
    KIT_CK(cudaStreamSynchronize(b.stream));
    const uint64_t rec_cols = maxw + 1;
    if ((rc = pw_launch_pipe(b, strands, d, total, rec_cols, err)) != 1) return rc;
    const uint64_t per_block = (uint64_t)PW_WARPS * 2 * rec_cols;
    void *rec = NULL;
    uint64_t most = std::max<uint64_t>(1, SCRATCH_BUDGET / per_block);
    most = std::min<uint64_t>(most, (uint64_t)b.sm_count * KIT_GRID_PER_SM);
    /* One launch per strip width R, the widest first, each on a stream of
     * its own (joined back into b.stream): one after the other, a width
     * with few items (the widest: a few hundred warps of 10 kb patterns)
     * left the GPU at 6% occupancy for its whole run (ncu: k_partial_warp<4>
     * 14 ms on 51-66 blocks after <2>'s 52 ms).  Each launch has its own
     * records (blocks x per_block bytes), so they can run at once. */
    uint64_t blocks[gcore::PW_RMAX + 1] = { 0 }, rec_at[gcore::PW_RMAX + 1] = { 0 }, rec_bytes = 0;
    int widths = 0;
    for (uint32_t R = 1; R <= gcore::PW_RMAX; ++R) {
        if (lists[R].empty()) continue;
        blocks[R] = std::min<uint64_t>(most, (lists[R].size() + PW_WARPS - 1) / PW_WARPS);
        rec_at[R] = rec_bytes;
        rec_bytes += blocks[R] * per_block;
        widths++;
    }
    if ((rc = kit_grow(b, SLOT_PW_REC, (size_t)rec_bytes, &rec, err)) < 0) return rc;
    /* Widest first: launch 0 runs on b.stream, the others beside it
     * (kit_fork). */
    kit_fork f;
    if ((rc = kit_fork_open(f, b.stream, (size_t)widths, err)) < 0) return rc;
    size_t launch = 0;
    for (uint32_t R = gcore::PW_RMAX; R >= 1; --R) {
        if (lists[R].empty()) continue;
        const cudaStream_t st = kit_fork_stream(f, launch++);
        pw_launch L;
        L.v = b.dev;
        L.strands = strands;
        L.items = d + off[R];
        L.n = (uint32_t)lists[R].size();
        L.next = (unsigned int *)(d + (R - 1));
        L.rec = (uint8_t *)rec + rec_at[R];
        L.rec_cols = rec_cols;
        const unsigned nb = (unsigned)blocks[R];
        KIT_CLEAR_ERR();
        switch (R) {
        case 1: k_partial_warp<1><<<nb, PNT, 0, st>>>(L, b.out); break;
        case 2: k_partial_warp<2><<<nb, PNT, 0, st>>>(L, b.out); break;
        case 3: k_partial_warp<3><<<nb, PNT, 0, st>>>(L, b.out); break;
        case 4: k_partial_warp<4><<<nb, PNT, 0, st>>>(L, b.out); break;
        case 5: k_partial_warp<5><<<nb, PNT, 0, st>>>(L, b.out); break;
        default: k_partial_warp<6><<<nb, PNT, 0, st>>>(L, b.out); break;
        }
        KIT_CK_LAUNCH("k_partial_warp");
    }
    if ((rc = kit_fork_join(f, err)) < 0) return rc;
    return 0;
}

/* The thread-per-item launch of batch b over `items` items, small
 * patterns (the callers set big, warp_min and glob for the long ones).
 * long_ends: the myers kernel's LONG path took the text ends of its pairs
 * (the same knobs as its launcher: myers_plan.h). */
static partial_launch launch_of(const gpuasm_cuda_batch &b, int hamming, int long_ends, uint64_t items,
                                const ends_word *ew, const int32_t *ew_slot, uint32_t n_ew)
{
    partial_launch L;
    L.v = b.dev;
    L.hamming = hamming;
    L.strands = (uint32_t)gpuasm_strands(&b.host.opt);
    L.items = items;
    L.big = 0;
    L.warp_min = UINT64_MAX;
    L.glob = NULL;
    L.glob_words = 0;
    L.long_ends = long_ends && !hamming;
    L.kn = myers::knobs_of(*b.settings).kn;
    L.ew = hamming ? NULL : ew;
    L.ew_slot = ew_slot;
    L.n_ew = L.ew ? n_ew : 0;
    return L;
}

/* The ends pass of batch b (cuda_launch.h).  Called by the backend after
 * the kernel's launcher, on the same stream and hit output. */
extern "C" int gpuasm_partial_cuda_launch(const gpuasm_cuda_batch *bp, int hamming, int long_ends,
                                          const ends_word *ew, const int32_t *ew_slot, uint32_t n_ew,
                                          double *cells, gpuasm_err *err)
{
    *cells = 0;
    const gpuasm_cuda_batch &b = *bp;
    const uint32_t strands = (uint32_t)gpuasm_strands(&b.host.opt);
    const uint64_t npairs = (uint64_t)b.host.reads.n * b.host.targets.n;
    if (npairs == 0 || !gpuasm_partial_on(&b.host.opt)) return 0;
    partial_launch L = launch_of(b, hamming, long_ends, npairs * strands * 2, ew, ew_slot, n_ew);
    const gcore::route_knobs *kn = L.long_ends ? &L.kn : NULL;
    /* The longest pattern decides whether the long-pattern launch is needed
     * and sizes its slots (a bound: the longest sequence of either set). */
    uint64_t maxm = 0;
    for (uint32_t r = 0; r < b.host.reads.n; ++r)
        maxm = std::max<uint64_t>(maxm, b.host.reads.off[r + 1] - b.host.reads.off[r]);
    for (uint32_t t = 0; t < b.host.targets.n; ++t)
        maxm = std::max<uint64_t>(maxm, b.host.targets.off[t + 1] - b.host.targets.off[t]);
    int rc = kit_begin_kernels(b, err);
    if (rc < 0) return rc;
    /* the targets' one-word tables in shared memory where they fit
     * (GPUASM_CUDA_ENDS_SHARED=0: from global memory, k_partial_small) */
    const size_t smem = (size_t)L.n_ew * sizeof(ends_word1);
    const size_t smem_cap = std::min(EW1_SMEM_MAX, b.smem_optin);
    if (L.n_ew && smem <= smem_cap && gpuasm_knob(b.settings->cuda_ends_shared, 1)) {
        KIT_CK(cudaFuncSetAttribute(k_partial_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        const unsigned grid = (unsigned)std::min<uint64_t>((L.items + PNS - 1) / PNS, (uint64_t)b.sm_count * 4);
        KIT_CLEAR_ERR();
        k_partial_shared<<<grid, PNS, smem, b.stream>>>(L, b.out);
        KIT_CK_LAUNCH("k_partial_shared");
    } else {
        const unsigned grid = (unsigned)std::min<uint64_t>((L.items + PNT - 1) / PNT,
                                                           (uint64_t)b.sm_count * KIT_GRID_PER_SM);
        KIT_CLEAR_ERR();
        k_partial_small<<<grid, PNT, 0, b.stream>>>(L, b.out);
        KIT_CK_LAUNCH("k_partial_small");
    }
    /* Longer patterns: a warp per item from warp_min bases on (edit mode,
     * nt16; GPUASM_CUDA_ENDS_WARP_MIN), a thread per item below it. */
    const uint64_t warp_min = !hamming && b.host.opt.alphabet == GPUASM_ALPHABET_NT16
                                  ? (uint64_t)gpuasm_knob(b.settings->cuda_ends_warp_min, SMALL_M + 1)
                                  : UINT64_MAX;
    if (maxm >= warp_min && (rc = pw_launch_all(b, strands, warp_min, kn, cells, err)) < 0) return rc;
    if (maxm > SMALL_M && warp_min > SMALL_M + 1) {
        L.big = 1;
        L.warp_min = warp_min;
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

/* The ends pass of batch b over the n items at d_items (device memory,
 * listed by walk/ends_plan.h; cuda_launch.h).  Patterns of at most SMALL_M
 * bases only (gpuasm_ends_plan_applies). */
extern "C" int gpuasm_partial_cuda_launch_list(const gpuasm_cuda_batch *bp, int hamming, int long_ends,
                                               const ends_word *ew, const int32_t *ew_slot,
                                               const uint64_t *d_items, uint64_t n, gpuasm_err *err)
{
    const gpuasm_cuda_batch &b = *bp;
    if (n == 0 || !gpuasm_partial_on(&b.host.opt)) return 0;
    const partial_launch L = launch_of(b, hamming, long_ends, n, ew, ew_slot, 0);
    int rc = kit_begin_kernels(b, err);
    if (rc < 0) return rc;
    const unsigned grid = (unsigned)std::min<uint64_t>((n + PNT - 1) / PNT, (uint64_t)b.sm_count * KIT_GRID_PER_SM);
    KIT_CLEAR_ERR();
    k_partial_list<<<grid, PNT, 0, b.stream>>>(L, d_items, n, b.out);
    KIT_CK_LAUNCH("k_partial_list");
    return 0;
}
