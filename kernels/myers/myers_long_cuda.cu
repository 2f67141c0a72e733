/* SPDX-License-Identifier: MIT */
/* myers_long_cuda.cu -- the myers kernel's LONG path (myers_cuda.cu's top
 * says when it runs): k_long, a warp per item in strips of LP lanes x R
 * words with the wavefront and Ukkonen's cut-off of myers_long_core.cuh,
 * items from a work queue longest first, and the launches of a chunk's
 * LONG classes at once.
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "kernels/myers/myers_launch.cuh"
#include "kernels/myers/myers_long_pass.cuh"

using gcore::seqv;
using gcore::window;

/* LONG (myers_long_core.cuh): a group of lp lanes per item, strip after
 * strip; the group's two records (a byte per column: the bottom row's io
 * of the strip above and of this one) at rec + group * 2 * rec_cols, and
 * for text-end partials its column n - 2 at col + group * 2 * cs.
 *
 * Items come from a work queue: lane 0 takes the next gpw queue places
 * (*queue, zeroed by the launcher), place q runs item order[q] (the
 * launcher's longest-first order; order == NULL: item q).  The grid is
 * what the SMs hold at once (launch_long), so every warp slot works
 * until the queue is empty.  Before, a fixed grid stride over 1,802 blocks
 * ran 2.3 waves of blocks with 2 of 4 warps busy (ncu: 16.9% achieved
 * occupancy of 37.5%), and a 10 kb read's items differ 7x in length
 * (phiX 5.4 kb, a lambda segment 36 kb): a long item started last set the
 * kernel's end. */
template <int R>
static __global__ void __launch_bounds__(THREADS)
k_long(pair_launch L, const uint32_t *order, unsigned long long *queue, uint8_t *rec, uint32_t rec_cols,
       uint32_t *col, uint32_t cs, dev_out out)
{
    __shared__ uint32_t peq_all[WARPS][16 * R * 32];
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    uint32_t *peq_w = peq_all[warp];
    const uint32_t lp = L.lp, gpw = 32u / lp;
    const uint32_t grp = lane / lp, g = lane % lp;
    const uint64_t group = ((uint64_t)blockIdx.x * WARPS + warp) * gpw + grp;
    uint8_t *rec_g = rec + group * 2 * (uint64_t)rec_cols;
    /* The group's column n - 2 (text-end partials; col == NULL: none). */
    uint32_t *col_g = col ? col + group * 2 * (uint64_t)cs : NULL;
    const uint64_t total = L.off[L.np];
    for (;;) {
        unsigned long long q0 = 0;
        if (lane == 0) q0 = atomicAdd(queue, (unsigned long long)gpw);
        q0 = __shfl_sync(0xffffffffu, q0, 0);
        if (q0 >= total) break;
        const uint64_t q = q0 + grp;
        pitem p;
        group_item(L, q < total && order ? (uint64_t)order[q] : q, total, p);
        emitter<dev_out> e;
        e.out = &out;
        e.r = p.r;
        e.t = p.t;
        e.s = p.strand;
        bool live = p.it.ncols != 0;
        /* The text-end partial: the segment that ends the text. */
        const uint32_t eomin = col_g && live && p.it.win.s1 == p.it.n
                                   ? gcore::long_end_omin(L.sp.kn, L.sp.v.opt, p.rip, p.it.m, p.it.k, p.it.n, p.strand)
                                   : 0u;
        uint32_t wend = 0;     /* words of the strips entered */
        uint32_t c0 = 0;
        int32_t base = 0;
        for (uint32_t s = 0;; ++s) {
            gcore::lstrip sp;
            if (live) {
                sp = gcore::long_strip(p.it, R, lp, s, c0, base);
            } else {
                sp.w0 = sp.nw = sp.c0 = sp.steps = 0;
                sp.base = 0;
                sp.last = 1;
            }
            const uint32_t steps = __reduce_max_sync(0xffffffffu, sp.steps);
            if (steps == 0) break;
            __syncwarp();   /* the previous pass's Peq reads and record writes are done */
            gcore::long_build_peq<R>(peq_w, lane, g, p.it, sp);
            gcore::llane<R> st;
            gcore::long_begin<R>(st, g, p.it, sp);
            __syncwarp();
            const uint8_t *rin = s ? rec_g + (uint64_t)((s - 1u) & 1u) * rec_cols : NULL;
            uint8_t *rout = rec_g + (uint64_t)(s & 1u) * rec_cols;
            /* LEAN passes (no group of the warp in its last strip) keep no
             * score per step: the entry comes from the record after. */
            const bool lean = __all_sync(0xffffffffu, !sp.steps || !sp.last);
            const auto load = [&](uint32_t x) { return sp.steps ? gcore::long_in0(p.it, rin, sp.c0 + x) : 0u; };
            const auto no_hook = [](uint32_t, uint32_t) {};
            /* The column store, its address made where it runs (once a
             * pass): kept live through the pass, it cost 9-16 registers. */
            const auto dump = [&]() {
                const uint64_t gi = ((uint64_t)blockIdx.x * WARPS + (threadIdx.x >> 5)) * (32u / L.lp) +
                                    (threadIdx.x & 31u) / L.lp;
                gcore::long_dump<R>(st, g, sp, col + gi * 2 * (uint64_t)cs, cs);
            };
            uint32_t first;
            int32_t first_d;
            uint32_t left = UINT32_MAX;
            if (lean) {
                long_pass<R, true>(st, peq_w, lane, g, lp, p.it, sp, steps, load, no_hook, UINT32_MAX, rout, e,
                                   eomin != 0, dump, false);
                __syncwarp();   /* the record, written by the bottom lanes */
                gcore::strip_entry_warp(rout, sp.c0, p.it.ncols, gcore::long_entry_d0(p.it, sp), p.it.k,
                                        gcore::STRIP_NO_SLOPE, live && sp.steps, g, grp, lp, first, first_d);
            } else {
                /* The last strip below the first may leave (lp = 32: one
                 * group, so the test is the warp's). */
                const bool may_leave = lp == 32u && live && s > 0 && sp.last;
                left = long_pass<R, false>(st, peq_w, lane, g, lp, p.it, sp, steps, load, no_hook, UINT32_MAX, rout,
                                           e, eomin != 0, dump,
                                           may_leave);
                if (left != UINT32_MAX) {
                    /* Entered again at 1 + the first f >= c with D[b][f]
                     * <= k, c = c0 + left (lane 0's column, D[b][c] its top). */
                    const int32_t dc = __shfl_sync(0xffffffffu, st.top, 0);
                    gcore::strip_entry_warp(rin, sp.c0 + left + 1u, p.it.ncols, dc, p.it.k, gcore::STRIP_NO_SLOPE,
                                            1, g, grp, lp, first, first_d);
                    if (first != UINT32_MAX) {
                        c0 = first;
                        base = first_d;
                        --s;   /* the same strip again */
                        continue;
                    }
                }
                gcore::long_finish<R>(st, g, p.it, sp, e);
                /* The next strip's entry, from the lane holding this strip's
                 * bottom row; the record it reads was written by this warp
                 * (ordered by the __syncwarp above the next pass). */
                const uint32_t gb = live ? (sp.nw - 1u) / R : 0u;
                first = __shfl_sync(0xffffffffu, st.first, (int)gb, (int)lp);
                first_d = __shfl_sync(0xffffffffu, st.first_d, (int)gb, (int)lp);
            }
            /* The strips whose rows the text-end partial walks: entered and
             * in at column n - 2 (a pass that left stored nothing). */
            if (live && sp.steps && left == UINT32_MAX) wend = sp.w0 + sp.nw;
            if (live && (sp.last || first == UINT32_MAX)) live = false;
            c0 = first;
            base = first_d;
        }
        if (__any_sync(0xffffffffu, eomin != 0)) {
            __syncwarp();   /* the stored column */
            long_end_walk(col_g, cs, wend, eomin, p, g, lp, L.sp.v.opt, out);
        }
        __syncwarp();
    }
}

/* ---- the launches ------------------------------------------------------------ */

/* LONG's work queue (k_long): one upload of the counter (zero) and, for
 * chunks of at most LONG_ORDER_PAIRS pairs and LONG_ORDER_ITEMS items
 * (knob cuda_long_order_items; the list's host memory stays under 16 MiB,
 * and with more items than that the order matters little: they outnumber
 * the warps), the class's items
 * longest first, numbered as the offsets number them (pair_items() in pair
 * order).
 * An item's cost is its columns x its pattern's strips (an upper bound:
 * deeper strips start late or never), so the 36 kb lambda segments of a
 * 10 kb read start before the 5 kb phiX items, not after them.  *items:
 * the class's items (0 when not listed). */
enum { LONG_ORDER_PAIRS = 1 << 16, LONG_ORDER_ITEMS = 1 << 20 };

static void long_list(const gpuasm_cuda_batch &b, gcore::pair_params sp, uint64_t np, int cls, uint32_t R,
                      uint32_t lp, std::vector<uint32_t> &order, uint64_t *items)
{
    std::vector<std::pair<uint64_t, uint32_t>> cost;
    uint64_t id = 0;
    sp.v = b.host;
    const uint64_t most = (uint64_t)gpuasm_knob(b.settings->cuda_long_order_items, LONG_ORDER_ITEMS);
    /* One pass over the pairs; a list that would pass `most` is dropped
     * before it does (so it never holds more than `most` entries). */
    for (uint64_t i = 0; np <= LONG_ORDER_PAIRS && i < np; ++i) {
        const gcore::pair_info pi = gcore::get_pair(sp, sp.pair0 + i);
        if (pi.nseg == 0 || pi.cls != cls) continue;
        if (id + 2 * pi.nseg > most) {
            cost.clear();
            break;
        }
        const uint64_t strips = ((pi.m + 31u) / 32u + R * lp - 1u) / (R * lp);
        for (uint64_t local = 0; local < 2 * pi.nseg; ++local, ++id) {
            const gcore::window w = gcore::make_window(local >> 1, pi.seglen, pi.n,
                                                       (uint64_t)pi.m + (uint64_t)pi.k);
            cost.emplace_back((uint64_t)(w.jend - w.j0) * strips, (uint32_t)id);
        }
    }
    if (!cost.empty())
        std::stable_sort(cost.begin(), cost.end(),
                         [](const std::pair<uint64_t, uint32_t> &a, const std::pair<uint64_t, uint32_t> &c) {
                             return a.first > c.first;
                         });
    *items = cost.empty() ? 0 : id;
    order.resize(cost.size());
    for (size_t i = 0; i < cost.size(); ++i) order[i] = cost[i].second;
}

/* Blocks of k_long<R> that the SMs hold at once (the occupancy API). */
template <int R>
static uint64_t long_resident(const gpuasm_cuda_batch &b)
{
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_long<R>, THREADS, 0) != cudaSuccess ||
        per_sm < 1)
        per_sm = 1;
    return (uint64_t)per_sm * (uint64_t)b.sm_count;
}

static uint64_t long_resident_of(uint32_t R, const gpuasm_cuda_batch &b)
{
    switch (R) {
    case 1: return long_resident<1>(b);
    case 2: return long_resident<2>(b);
    case 3: return long_resident<3>(b);
    case 4: return long_resident<4>(b);
    case 5: return long_resident<5>(b);
    default: return long_resident<6>(b);
    }
}

/* One LONG class of a chunk: its launch, item order, grid and places in
 * the shared scratch (queue words, record and column bytes). */
struct long_class {
    pair_launch L;
    std::vector<uint32_t> order;
    uint64_t items, blocks, q_at, rec_at, col_at;
    bool pipe;             /* k_long_pipe (myers_pipe_cuda.cu); its region at rec_at */
};

/* The LONG classes of a chunk, launched at once (kit_fork: the first on
 * the batch's stream, the others on side streams forked after the uploads
 * and joined back).  Patterns of similar length fall into neighbouring classes (a
 * 10 kb read at -e 0.2 takes R = 5 up to m = 10,100 and R = 6 above), and
 * one after the other each class's last items ran alone on an idle GPU
 * (ncu: k_long<5> at 4.8% achieved occupancy on 142 blocks, 20.9 ms,
 * before its sibling started); at once, the next class's blocks take the
 * SMs the first one's tail leaves.  Records: two per group, as long as
 * the longest window of the chunk (segment + m + k + 1, get_pair()), and
 * the text-end partials' column n - 2 (long_end_omin: two words per 32
 * rows of the longest pattern) per group, bounded by the budget through
 * the grids; no per-item allocation.  Offsets the host did not plan are
 * counted here, one buffer per class. */
int myers::launch_long(const scan_ctx &sc, gcore::pair_params sp, uint64_t np, const std::vector<int> &classes,
                      gpuasm_err *err)
{
    const gpuasm_cuda_batch &b = *sc.b;
    const size_t nc = classes.size();
    if (nc == 0) return 0;
    uint64_t maxr = 1;
    for (uint32_t r = 0; r < b.host.reads.n; ++r)
        maxr = std::max<uint64_t>(maxr, b.host.reads.off[r + 1] - b.host.reads.off[r]);
    const uint64_t maxt = std::max<uint64_t>(sc.S->ti.maxlen, 1);
    const int32_t side = b.host.opt.pattern_side;   /* the longest pattern */
    const uint64_t maxm = side == GPUASM_PATTERN_READ ? maxr
                        : side == GPUASM_PATTERN_TARGET ? maxt : std::min(maxr, maxt);
    const uint64_t mk = maxm + (uint64_t)std::max<int32_t>(gpuasm_pair_k(&b.host.opt, maxm), 0);
    const uint64_t seg = sc.K.seg_long ? std::max<uint64_t>(sc.K.seg_long, mk)
                                       : std::max<uint64_t>(sc.K.seg_warp, 2 * mk);
    const uint64_t rec_cols = seg + mk + 2;
    const gpuasm_search_opt &o = b.host.opt;
    const bool ends = sp.kn.long_ends && o.alphabet == GPUASM_ALPHABET_NT16 && gpuasm_partial_on(&o);
    const uint64_t cs = ends ? (maxm + 31u) / 32u : 0u;
    /* The piped kernel: one record an item, as long as the longest text's
     * window can be; strips of PIPE_R x 32 words. */
    const uint64_t maxn = side == GPUASM_PATTERN_READ ? maxt : side == GPUASM_PATTERN_TARGET ? maxr
                                                                                             : std::max(maxr, maxt);
    const uint64_t pipe_cols = std::min<uint64_t>(rec_cols, maxn + 2);
    const uint32_t pipe_r = sc.K.pipe_r == 2 ? 2u : 1u;
    const uint32_t smax = (uint32_t)(((maxm + 31u) / 32u + 32u * pipe_r - 1u) / (32u * pipe_r));
    const uint64_t pipe_warps = sc.K.long_pipe ? myers::pipe_resident(pipe_r, b) * WARPS : 0;

    std::vector<long_class> C(nc);
    size_t counted = 0;
    for (size_t i = 0; i < nc; ++i) counted += sc.dp.pair_off[classes[i]] == NULL;
    void *offp = NULL;
    int rc = 0;
    if (counted && (rc = kit_grow(b, SLOT_LONG_OFF, counted * (size_t)(np + 1) * sizeof(uint64_t), &offp, err)) < 0)
        return rc;
    uint64_t qwords = 0, bytes = 0;
    for (size_t i = 0, ci = 0; i < nc; ++i) {
        long_class &c = C[i];
        const int cls = classes[i];
        const uint64_t *off = NULL;
        uint64_t *d_off = sc.dp.pair_off[cls] ? NULL : (uint64_t *)offp + ci++ * (np + 1);
        if ((rc = myers::class_offsets(sc, sp, np, cls, d_off, &off, err)) < 0) return rc;
        c.L.sp = sp;
        c.L.off = off;
        c.L.np = np;
        c.L.cls = cls;
        gcore::long_shape(cls - gcore::CLS_LONG, &c.L.R, &c.L.lp);
        long_list(b, sp, np, cls, c.L.R, c.L.lp, c.order, &c.items);
        const uint64_t groups = (uint64_t)WARPS * (32u / c.L.lp);
        const uint64_t per_block = groups * 2 * rec_cols, col_per_block = groups * 2 * cs * sizeof(uint32_t);
        /* The grid: what the SMs hold at once (the queue feeds every
         * warp), no more than the items need, within the class's share of
         * the budget. */
        c.blocks = std::max<uint64_t>(1, SCRATCH_BUDGET / nc / (per_block + col_per_block));
        c.blocks = std::min<uint64_t>(c.blocks, long_resident_of(c.L.R, b));
        if (c.items) c.blocks = std::min<uint64_t>(c.blocks, (c.items + groups - 1) / groups);
        c.q_at = qwords;                      /* 2 words of counter, then the order */
        qwords += 2 + c.order.size() + (c.order.size() & 1u);
        /* Piped where the class's items (listed, so counted) are too few
         * to fill the GPU: at most an eighth of the warps it holds, each
         * then with its strips on warps of their own (knob 2: always). */
        const uint64_t pbytes = c.items ? myers::pipe_bytes(c.items, smax, pipe_cols, cs) : 0;
        c.pipe = c.items && pbytes <= SCRATCH_BUDGET / nc &&
                 (sc.K.long_pipe == 2 || (sc.K.long_pipe == 1 && smax >= 2 && c.items * 8 <= pipe_warps));
        c.rec_at = bytes;
        if (c.pipe) {
            c.blocks = std::min<uint64_t>(pipe_warps / WARPS, (c.items * smax + WARPS - 1) / WARPS);
            c.blocks = std::max<uint64_t>(c.blocks, 1);
            bytes += (pbytes + 15u) & ~(uint64_t)15u;
            c.col_at = c.rec_at;
            continue;
        }
        bytes += (c.blocks * per_block + 15u) & ~(uint64_t)15u;
        c.col_at = bytes;
        bytes += c.blocks * col_per_block;
    }
    /* One upload of the counters (zero) and the lists; the host waits for
     * it (the list is pageable and local, as partial_cuda.cu's are). */
    std::vector<uint32_t> host(qwords, 0);
    for (size_t i = 0; i < nc; ++i)
        std::copy(C[i].order.begin(), C[i].order.end(), host.begin() + (ptrdiff_t)(C[i].q_at + 2));
    void *dq = NULL, *rec = NULL;
    if ((rc = kit_grow(b, SLOT_LONG_QUEUE, host.size() * sizeof(uint32_t), &dq, err)) < 0) return rc;
    if ((rc = kit_grow(b, SLOT_LONG, (size_t)std::max<uint64_t>(bytes, 1), &rec, err)) < 0) return rc;
    KIT_CK(cudaMemcpyAsync(dq, host.data(), host.size() * sizeof(uint32_t), cudaMemcpyHostToDevice, b.stream));
    KIT_CK(cudaStreamSynchronize(b.stream));
    kit_fork f;
    if ((rc = kit_fork_open(f, b.stream, nc, err)) < 0) return rc;
    for (size_t i = 0; i < nc; ++i) {
        long_class &c = C[i];
        const cudaStream_t st = kit_fork_stream(f, i);
        unsigned long long *queue = (unsigned long long *)((uint32_t *)dq + c.q_at);
        const uint32_t *order = c.order.empty() ? NULL : (const uint32_t *)dq + c.q_at + 2;
        uint8_t *r8 = (uint8_t *)rec + c.rec_at;
        uint32_t *col = ends ? (uint32_t *)((uint8_t *)rec + c.col_at) : NULL;
        const unsigned nb = (unsigned)c.blocks;
        if (c.pipe) {
            myers::pipe_args A;
            A.L = c.L;
            A.order = order;
            A.queue = queue;
            A.smax = smax;
            A.rec_cols = (uint32_t)pipe_cols;
            A.cs = (uint32_t)cs;
            if ((rc = myers::launch_pipe(A, pipe_r, c.items, (uint8_t *)rec + c.rec_at, nb, st, b.out, err)) < 0)
                return rc;
            continue;
        }
        KIT_CLEAR_ERR();
        switch (c.L.R) {
#define LONG_LAUNCH(R_) k_long<R_><<<nb, THREADS, 0, st>>>(c.L, order, queue, r8, (uint32_t)rec_cols, col, (uint32_t)cs, b.out)
        case 1: LONG_LAUNCH(1); break;
        case 2: LONG_LAUNCH(2); break;
        case 3: LONG_LAUNCH(3); break;
        case 4: LONG_LAUNCH(4); break;
        case 5: LONG_LAUNCH(5); break;
        default: LONG_LAUNCH(6); break;
#undef LONG_LAUNCH
        }
        KIT_CK_LAUNCH("k_long");
    }
    if ((rc = kit_fork_join(f, err)) < 0) return rc;
    return 0;
}
