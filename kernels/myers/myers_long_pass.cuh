/* SPDX-License-Identifier: MIT */
/* myers_long_pass.cuh -- what the LONG path's two kernels share (internal
 * to kernels/myers; .cu files only): one strip pass of a group of lanes
 * (long_pass) and the text-end partial's walk of the stored column
 * (long_end_walk).  k_long (myers_long_cuda.cu) runs an item's strips one
 * after the other on one group; k_long_pipe (myers_pipe_cuda.cu) runs
 * each strip on its own warp, behind the strip above, and gives long_pass
 * a loader and a hook that wait for that strip's record and publish its
 * own.
 */
#ifndef GPUASM_MYERS_LONG_PASS_CUH
#define GPUASM_MYERS_LONG_PASS_CUH

#include <stdint.h>

#include "kernels/myers/myers_launch.cuh"

/* One strip pass: `steps` wavefront steps of the group's lanes, lane 0 fed
 * by wavefront_in (myers_long_core.cuh) from load(x) (the input, io, of
 * the pass's column x: 0 past the window).  LEAN: long_step_lean (a strip
 * that is not the last, in every group of the warp), else long_step.
 * dump_on: the group's item takes its text-end partial, and each lane
 * stores its words at column ncols - 2 (dump); the steps before any lane
 * of the warp gets there run without the test.
 *
 * hook(t_done, t_next), called by every lane of the warp before steps
 * [t_done, t_next) run (at the start, every lp steps of the stepwise
 * loops, every `chunk` steps (a multiple of lp) of the steady run): the
 * steps before t_done are done, and the steps up to t_next load the
 * inputs of columns < c0 + t_next + lp.  k_long's hook does nothing. */
template <int R, bool LEAN, class Load, class Hook, class Dump>
static __device__ __forceinline__ uint32_t long_pass(gcore::llane<R> &st, const uint32_t *peq_w, uint32_t lane,
                                                     uint32_t g, uint32_t lp, const gcore::witem &it,
                                                     const gcore::lstrip &sp, uint32_t steps, const Load &load,
                                                     const Hook &hook, uint32_t chunk, uint8_t *rout,
                                                     emitter<dev_out> &e, bool dump_on, const Dump &dump,
                                                     bool may_leave)
{
    hook(0u, lp);
    uint32_t cur = load(g), nxt = load(lp + g), out = 0;
    uint32_t td = UINT32_MAX;
    if (dump_on && sp.steps) {
        td = gcore::long_dump_step(it, sp, g);
        if (td == UINT32_MAX) dump();   /* entered at ncols - 1 */
    }
    const auto step = [&](uint32_t t) {
        if ((t & (lp - 1u)) == 0 && t) hook(t, t + lp);
        const uint32_t in = gcore::wavefront_in(cur, nxt, t, g, lp, out, load);
        if (LEAN)
            out = gcore::long_step_lean<R>(st, peq_w, lane, g, it, sp, t, in, rout);
        else
            out = gcore::long_step<R>(st, peq_w, lane, g, it, sp, t, in, rout, e);
    };
    const uint32_t split = min(steps, __reduce_min_sync(0xffffffffu, td));
    uint32_t t = 0;
    bool prev = false;
    if (LEAN) {
        /* Steps where every lane of every group computes (lane 0's column
         * below the window's end, before any dump) run without tests
         * (wavefront_steady): from lp on, to a multiple of lp. */
        const uint32_t win = sp.steps && it.ncols > sp.c0 ? min(split, it.ncols - sp.c0) : 0u;
        const uint32_t t1 = __reduce_min_sync(0xffffffffu, win) & ~(lp - 1u);
        if (t1 > lp) {
            for (; t < lp; ++t) step(t);
            uint8_t *rec = g == (sp.nw - 1u) / (uint32_t)R ? rout : NULL;   /* the bottom lane's */
            for (; t < t1;) {
                const uint32_t te = t1 - t > chunk ? t + chunk : t1;
                hook(t, te);
                gcore::wavefront_steady<R>(st.pv, st.mv, peq_w, lane, g, lp, cur, nxt, out, t, te, sp.c0, load, rec);
                t = te;
            }
        }
    }
    for (; t < split; ++t) {
        step(t);
        /* The last strip leaves (myers_long_core.cuh, long_lane_out) where
         * every lane is out at two consecutive steps, tested at the steps
         * 32 j - 1 and 32 j once all lanes run; never after a lane stored
         * its column n - 2 (t < split). */
        if (!LEAN && may_leave) {
            const uint32_t tl = t & 31u;
            if ((tl == 31u || (tl == 0u && t)) && t >= lp && sp.c0 + t < it.ncols) {
                const bool out = __all_sync(0xffffffffu, gcore::long_lane_out<R>(st, g, it, sp));
                if (tl == 31u) prev = out;
                else if (prev && out) return t;
            }
        }
    }
    for (; t < steps; ++t) {
        step(t);
        if (t == td) dump();
    }
    return UINT32_MAX;
}

/* The text-end partial (myers_long_core.cuh) of item p after its last
 * strip: lane g of the group walks a run of the stored words [0, wend)
 * (col: Pv at col[w], Mv at col[cs + w]; every lane's stores done and
 * visible), from D of the row above it (a scan of the runs' sums), and
 * lane 0 emits the best.  Every lane of the warp calls it (eomin = 0: the
 * group has none). */
static __device__ __forceinline__ void long_end_walk(const uint32_t *col, uint32_t cs, uint32_t wend, uint32_t eomin,
                                                     const pitem &p, uint32_t g, uint32_t lp,
                                                     const gpuasm_search_opt &opt, dev_out &out)
{
    const uint32_t per = (wend + lp - 1u) / lp;
    const uint32_t w0 = eomin ? min(wend, g * per) : 0u, w1 = eomin ? min(wend, w0 + per) : 0u;
    const int32_t sum = gcore::long_end_sum(col, cs, w0, w1, p.it.m);
    int32_t inc = sum;
    for (uint32_t off = 1; off < lp; off <<= 1) {
        const int32_t v = __shfl_up_sync(0xffffffffu, inc, off, (int)lp);
        if (g >= off) inc += v;
    }
    gpuasm_partial best;
    best.plen = 0;
    best.dist = 0;
    if (eomin)
        gcore::long_end_rows(col, cs, w0, w1, inc - sum, p.it.pat, p.it.m, eomin,
                             gpuasm_pair_partial_floor(&opt, p.rip), p.it.txt.at(p.it.n - 1u), opt, best);
    for (uint32_t off = lp / 2u; off; off >>= 1) {
        gpuasm_partial o;
        o.plen = __shfl_xor_sync(0xffffffffu, best.plen, off, (int)lp);
        o.dist = __shfl_xor_sync(0xffffffffu, best.dist, off, (int)lp);
        if (o.plen) gpuasm_partial_keep(&best, o.plen, o.dist);
    }
    if (eomin && g == 0 && best.plen)
        out.emit_kind(p.r, p.t, p.it.n - 1u, best.dist, p.strand, GPUASM_HIT_TEXT_END, best.plen);
}

#endif
