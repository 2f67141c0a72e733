/* SPDX-License-Identifier: MIT */
/* myers_long_core.cuh -- the per-lane logic of the CUDA Myers LONG path
 * (issue #11: patterns over 4,096 bases; issue #14 P1: the cut-off the warp
 * wavefront lacks), as __host__ __device__ code: k_long of myers_cuda.cu
 * calls these functions between its shuffles, and tests/c/test_long_cuda.cu
 * runs them on the CPU lane by lane against the naive DP.
 *
 * The pattern's 32-bit words (Myers 1999 with Hyyrö 2003 blocks) are cut
 * into STRIPS of LP lanes x R words (32 LP R rows); a group of LP lanes runs
 * one work item (pair, strand, text segment: cuda_device.cuh) strip by
 * strip.  Within a strip the lanes run the warp path's wavefront (lane g
 * owns words [gR, gR + R) of the strip and computes column t - g at step t,
 * handing the horizontal delta of its bottom word and the column's text
 * code to lane g + 1 as one "io" value, myers_cuda_core.cuh).  Between
 * strips a RECORD in global scratch carries, per column, the io of the
 * strip's bottom row (one byte per column: its delta and the code), which
 * is lane 0's input in the strip below.
 *
 * Ukkonen's cut-off across strips (Ukkonen 1985; Hyyrö 2003 §4 and edlib's
 * "last block", myers_cpu.c's run_blocks()), at strip granularity: strip s
 * (rows a .. b, 1-based) is computed only from its ENTRY column c_s on:
 *     c_s = 1 + the first column f >= c_{s-1} - 1 with D[a-1][f] <= k
 * (column -1 is the fresh column D[i] = i of the segment, so strips whose
 * first row is <= k + 1 start at column 0), initialised at c_s - 1 as the
 * over-estimate D[i] = D[a-1][f] + (i - a + 1) (Pv all ones), and then
 * runs to the end of the window; deeper strips are never entered when no
 * such f exists.  Exact where D <= k: the last row with D <= k grows by at
 * most one per column, so no cell of strip s is <= k before c_s (induction
 * over s and columns); over-estimated inputs give over-estimates, and a cell
 * <= k has an optimal path of cells <= k, all computed exactly.  Hence
 * D[m][j] is exact where <= k and > k before the last strip's entry, which
 * is all the local-minimum rule (cuda_device.cuh) needs.
 *
 * A strip never leaves once entered (no drop): inside a warp the lanes run
 * in lockstep, so only whole strips that are skipped save time, and the
 * drop of a strip would need the state of the strip below it, which runs
 * later.  The first strip is sized to hold the rows that can be <= k on
 * unrelated text (long_band_rows(): about 2.5k rows for DNA), so
 * on a segment without a hit the deeper strips are never entered.  At
 * k = 0.1 m that is about a third of the pattern; at m = 1024, k = 102 a
 * strip of 16 lanes x 1 word (two items per warp) instead of 32 words.
 *
 * Two kinds of pass: a strip that is not the last runs LEAN
 * (long_step_lean: the bottom lane only stores its io; the next strip's
 * entry is found after the pass from the record, strip_entry_warp), the
 * last strip (and every strip of a warp where some group is in its last)
 * runs long_step, whose bottom lane keeps the score.  Both give the same
 * entry (strip_entry_seq is the bottom lane's running test over the
 * record).
 *
 * THE TEXT-END PARTIAL (search.h "Partial occurrences", partial.h; issue
 * #9's ends pass) of a pair the LONG path searches comes from the search's
 * own DP instead of a second pass over the text's last W = m - 1 + k_{m-1}
 * columns (that pass was about half of the ends pass's work on 10 kb
 * reads).  partial.h's rule needs only column n - 2 of the DP and the
 * text's last base: D_p = min(D[p-1][n-2] + (P[p-1] !~ T[n-1]),
 * D[p][n-2] + 1) for p in [omin, m - 1], kept when D_p <= k_p.  The item
 * whose segment ends the text (win.s1 == n) holds column n - 2 in its
 * report range [s0 - 1, s1) (s0 <= n - 1), where the segment argument
 * (cuda_device.cuh) holds for every row p, since a prefix alignment with
 * <= k differences covers at most p + k <= m + k text bases: each cell is
 * the whole text's D where <= k.  The cut-off keeps every cell <= k exact
 * and leaves the others over-estimates, and the rows of strips never
 * entered are > k at every column (above).  k_p <= k_{m-1} <= k, so a
 * D_p <= k_p is a min of two terms one of which is a cell <= k, exact;
 * over-estimates only raise the other term or a D_p > k_p: the same kept
 * candidates, hence the same best (gpuasm_partial_keep's order), as
 * gpuasm_partial_best() over its window, which is exact for the same cells.
 * Each pass of such an item stores its lanes' words at column n - 2
 * (long_dump; a strip entered at column n - 1 stores its starting column
 * n - 2, Pv all ones), and after its last strip the group walks the rows
 * of the strips entered (long_end_sum, a scan, long_end_rows).  The ends
 * pass leaves these (pair, strand) ends to the search: the two agree
 * through long_end_omin().
 *
 * Host and device: the functions below take one lane's state; the caller
 * runs step t of every lane of the group, then hands each lane's return
 * value to the next (a __shfl_up_sync on the device, an array on the host).
 */
#ifndef GPUASM_MYERS_LONG_CORE_CUH
#define GPUASM_MYERS_LONG_CORE_CUH

#include <stdint.h>

#include "kernels/myers/myers_cuda_core.cuh"
#include "kernels/partial.h"

namespace gcore {

/* long_band_rows(), long_shape() and long_shape_of() (which strip a pair
 * gets) are in myers_cuda_core.cuh, with the router. */

/* One strip pass of an item. */
struct lstrip {
    uint32_t w0, nw;    /* the strip's 32-bit words: [w0, w0 + nw) */
    uint32_t c0;        /* entry column (0-based in the window) */
    int32_t base;       /* D[a-1][c0-1]: the row above the strip, column c0-1 */
    int32_t last;       /* the strip holds row m (the pattern's last) */
    uint32_t steps;     /* wavefront steps: (ncols - c0) + lanes used - 1 */
};

/* Strip s of item it, entered at column c0 with base (strip 0: c0 = 0,
 * base = 0: row 0 is 0).  R words per lane, lp lanes. */
HD lstrip long_strip(const witem &it, uint32_t R, uint32_t lp, uint32_t s, uint32_t c0, int32_t base)
{
    lstrip sp;
    const uint32_t sw = R * lp;
    sp.w0 = s * sw;
    sp.nw = it.w32 - sp.w0 < sw ? it.w32 - sp.w0 : sw;
    sp.c0 = c0;
    sp.base = base;
    sp.last = sp.w0 + sp.nw == it.w32;
    const uint32_t lanes = (sp.nw + R - 1u) / R;
    sp.steps = it.ncols > c0 ? it.ncols - c0 + lanes - 1u : 0u;
    return sp;
}

/* One lane of a strip pass.  The bottom lane (the one holding the strip's
 * last row) keeps that row's score: D[m][.] in the last strip (local minima
 * reported), else the entry of the next strip (first, first_d). */
template <int R> struct llane {
    uint32_t pv[R], mv[R];
    int32_t top;        /* D of the row above the lane's first row, at its column */
    int32_t score;
    uint32_t first;     /* next strip: entry column (UINT32_MAX: none yet) */
    int32_t first_d;    /* D[b][first - 1] */
    lmin lm;
};

/* Masks of the lane's words of strip sp: peq_w[code][r][lane] as the warp
 * path (wc_build_peq); words past the pattern get 0. */
template <int R>
HD void long_build_peq(uint32_t *peq_w, uint32_t lane, uint32_t g, const witem &it, const lstrip &sp)
{
    for (int r = 0; r < R; ++r) {
        const uint32_t wl = g * (uint32_t)R + (uint32_t)r;
        wc_store_word<R>(peq_w, lane, r, it, sp.w0 + wl, it.ncols && wl < sp.nw);
    }
}

/* Bottom row (1-based) of strip sp. */
HD uint32_t long_bottom_row(const witem &it, const lstrip &sp)
{
    const uint32_t b = 32u * (sp.w0 + sp.nw);
    return b < it.m ? b : it.m;
}

/* Lane 0's input (io: myers_cuda_core.cuh) at window column c: the code
 * of text position j0 + c, and the carry of the strip above's bottom row
 * there from its record (rec_in, NULL in strip 0, whose row above is row
 * 0: delta 0), which holds the whole io byte; 0 past the window. */
HD uint32_t long_in0(const witem &it, const uint8_t *rec_in, uint32_t c)
{
    if (c >= it.ncols) return 0;
    return rec_in ? (uint32_t)rec_in[c] : io_pack(0, it.txt.at(it.win.j0 + c));
}

/* Start of a pass: every word at "one more per row" from the row above
 * (D[a-1][c0-1] = base); the bottom lane's score is D[b][c0-1], which may
 * already enter the next strip. */
template <int R>
HD void long_begin(llane<R> &L, uint32_t g, const witem &it, const lstrip &sp)
{
    for (int r = 0; r < R; ++r) {
        L.pv[r] = ~0u;
        L.mv[r] = 0;
    }
    L.top = sp.base + (int32_t)(32u * (uint32_t)R * g);
    const uint32_t a = 32u * sp.w0 + 1u;
    L.score = sp.base + (int32_t)(long_bottom_row(it, sp) - a + 1u);
    L.first = UINT32_MAX;
    L.first_d = 0;
    if (!sp.last && L.score <= it.k) {
        L.first = sp.c0;      /* the next strip enters at c0 */
        L.first_d = L.score;
    }
    lm_init(L.lm);
}

/* Step t of lane g in pass sp: column c = c0 + t - g (idle outside
 * [c0, ncols) or past the strip's words).  in: lane g-1's return value,
 * or for g = 0 long_in0() of column c (io: the carry into the lane's top
 * row and the column's code).  The bottom lane of a non-last strip writes
 * its bottom row's io to rec_out[c]; in the last strip it reports local
 * minima of D[m][.].  Returns the io of the lane's last word and column c
 * (0 when idle). */
template <int R, class Emit>
HD uint32_t long_step(llane<R> &L, const uint32_t *peq_w, uint32_t lane, uint32_t g, const witem &it,
                      const lstrip &sp, uint32_t t, uint32_t in, uint8_t *rec_out, Emit &emit)
{
    const uint32_t c = sp.c0 + t - g;          /* wraps when t < g: idle */
    if (t < g || c >= it.ncols || g * (uint32_t)R >= sp.nw) return 0;
    L.top += io_delta(in);                       /* the carry into the lane's first row */
    const uint32_t wb = sp.nw - 1u;              /* strip-relative word of the bottom row */
    const uint32_t gb = wb / (uint32_t)R;
    const uint32_t code = io_code(in);
    uint32_t sph = 0, smh = 0;
    const uint32_t h = wc_words<R>(L.pv, L.mv, peq_w, lane, code, in, wb % (uint32_t)R, sph, smh);
    if (g == gb) {
        if (sp.last) {
            L.score += wc_delta(sph, smh, 1u << ((it.m - 1u) & 31u));
            lm_push(L.lm, L.score, it.win.j0 + c, it.k, it.win.s0, it.win.s1, emit);
        } else {
            const uint32_t hb = (sph >> 31) | ((smh >> 31) << 1);
            rec_out[c] = (uint8_t)io_pack(hb, code);
            L.score += io_delta(hb);
            if (L.first == UINT32_MAX && L.score <= it.k && c + 1u < it.ncols) {
                L.first = c + 1u;
                L.first_d = L.score;
            }
        }
    }
    return io_pack(h, code);
}

/* THE LAST STRIP LEAVES (k_long, a strip below the first that is the
 * pattern's last): lane g's rows at its column are all > k when its lower
 * bound top - popc(Mv) is (D[i] = top + the deltas of the rows above i,
 * each >= -1; computed values are exact where the true ones are <= k, so
 * a computed value > k is a true one > k).  When every lane's rows are >
 * k at two consecutive steps t - 1 and t (lane g at columns c - g - 1 and
 * c - g, c = c0 + t), no path of cells <= k crosses into the columns
 * right of that staircase: a path into them passes a staircase cell of
 * step t, or steps diagonally from the bottom row of lane g at column
 * c - g - 1 (step t - 1's staircase) into lane g + 1.  Only the row above
 * the strip (row b, the record) leads back in, so the strip stops and is
 * entered again as at first: at 1 + the first column f >= c with
 * D[b][f] <= k (D[b][c] is lane 0's top), from D[b][f] + one per row.
 * Its rows are > k in between, which is all the local-minimum rule and
 * the text-end partial need (a strip out at column n - 2 stores nothing
 * and its rows are left out of the walk).  A 10 kb read's second strip
 * entered at its hit ran to the end of the 36,000-column window, the
 * longest items of a launch; now it runs while the hit's band does. */
template <int R>
HD bool long_lane_out(const llane<R> &L, uint32_t g, const witem &it, const lstrip &sp)
{
    if (g * (uint32_t)R >= sp.nw) return true;
    int32_t low = L.top;
    for (int r = 0; r < R; ++r) low -= popc32(L.mv[r]);
    return low > it.k;
}

/* The LEAN step of a strip that is not the last (k_long runs it when no
 * group of the warp is in its last strip): the same words as long_step(),
 * but the bottom lane only stores its io in the record.  A non-last strip
 * holds 32 lp R rows, so its bottom row is bit 31 of the bottom lane's
 * last word, the lane's own carry out: no selects, and no score kept per
 * step (ncu, sm_90 SASS: the selects and the bottom lane's score and
 * entry test were about a fifth of the step); the next strip's entry
 * comes from the record afterwards (strip_entry_seq / strip_entry_warp). */
template <int R>
HD uint32_t long_step_lean(llane<R> &L, const uint32_t *peq_w, uint32_t lane, uint32_t g, const witem &it,
                           const lstrip &sp, uint32_t t, uint32_t in, uint8_t *rec_out)
{
    const uint32_t c = sp.c0 + t - g;          /* wraps when t < g: idle */
    if (t < g || c >= it.ncols || g * (uint32_t)R >= sp.nw) return 0;
    const uint32_t code = io_code(in);
    uint32_t sph, smh;
    const uint32_t out = io_pack(wc_words<R>(L.pv, L.mv, peq_w, lane, code, in, R - 1u, sph, smh), code);
    if (g == (sp.nw - 1u) / (uint32_t)R) rec_out[c] = (uint8_t)out;
    return out;
}

/* The entry of the strip below a strip that is not the last, from the
 * strip's record (rec: the io of its bottom row b at columns [c0, ncols)):
 * with d0 = D[b][c0 - 1] (the pass's over-estimate, base + the strip's
 * rows), the next strip enters at c0 if d0 <= thr(c0 - 1), else at c + 1
 * for the first column c in [c0, ncols - 1) with D[b][c] <= thr(c)
 * (first_d = D[b][c]); first = UINT32_MAX when there is none.  thr(c) =
 * min(kmax, c + slope): the LONG path passes slope = STRIP_NO_SLOPE (the
 * bottom lane's running test of long_step() / long_begin(), kmax alone);
 * the ends pass its tighter bound (pw_entry_slope, partial_warp.cuh).
 * Sequential: the host harnesses' twin of strip_entry_warp. */
enum : int64_t { STRIP_NO_SLOPE = (int64_t)1 << 40 };

HD bool strip_entry_ok(int32_t d, int64_t c, int32_t kmax, int64_t slope)
{
    return d <= kmax && (int64_t)d <= c + slope;
}

HD void strip_entry_seq(const uint8_t *rec, uint32_t c0, uint32_t ncols, int32_t d0, int32_t kmax, int64_t slope,
                        uint32_t &first, int32_t &first_d)
{
    first = UINT32_MAX;
    first_d = 0;
    if (strip_entry_ok(d0, (int64_t)c0 - 1, kmax, slope)) {
        first = c0;
        first_d = d0;
        return;
    }
    int32_t d = d0;
    for (uint32_t c = c0; c + 1u < ncols; ++c) {
        d += io_delta(rec[c]);
        if (strip_entry_ok(d, c, kmax, slope)) {
            first = c + 1u;
            first_d = d;
            return;
        }
    }
}

/* D[b][c0 - 1] of pass sp: base + the strip's rows a .. b. */
HD int32_t long_entry_d0(const witem &it, const lstrip &sp)
{
    return sp.base + (int32_t)(long_bottom_row(it, sp) - 32u * sp.w0);
}

#ifdef __CUDACC__
/* The io entering lane g of a group of lp lanes (lp | 32) at wavefront step
 * t: lane g-1's io of step t-1 (out), and for lane 0 the input of the
 * pass's column t, from registers the group fills a block of lp columns
 * ahead, one column a lane (cur: this block, nxt: the next; load(x): the
 * input of the pass's column x, 0 past its end; start with cur = load(g),
 * nxt = load(lp + g)).  Lane 0 loading its own input one step ahead put
 * the record's load (L2: the strip above wrote it) on the wavefront's
 * critical path.  k_long and k_partial_warp. */
template <class Load>
__device__ __forceinline__ uint32_t wavefront_in(uint32_t &cur, uint32_t &nxt, uint32_t t, uint32_t g, uint32_t lp,
                                                 uint32_t out, const Load &load)
{
    const uint32_t tl = t & (lp - 1u);
    if (tl == 0 && t) {
        cur = nxt;
        nxt = load(t + lp + g);
    }
    const uint32_t in = __shfl_up_sync(0xffffffffu, out, 1, (int)lp);
    const uint32_t in0 = __shfl_sync(0xffffffffu, cur, (int)tl, (int)lp);
    return g == 0 ? in0 : in;
}

/* STEADY RUNS (k_long's lean passes, k_partial_warp's passes): steps
 * [t0, t1) of a pass in which every lane of the group computes a column
 * of the window (t0 >= lp and t1 multiples of lp; the caller's window
 * bound on lane 0's column), in blocks of lp steps: lane 0's inputs of a
 * block loaded once (wavefront_in's cur / nxt, which it leaves as
 * wavefront_in would at step t1), and no test in a step but the loop's.
 * The lean step through wavefront_in and long_step_lean was about 111
 * instructions for R = 5 in the sm_90 SASS of k_long<5>, of which about
 * 65 were the 5 words: the block load's test, the idle lane's and the
 * bottom lane's (a division by R), and the Peq address (shift, mask and
 * two multiplies) were the rest, and the kernel is bound by integer issue
 * (the chain of a lane's words is not the bound: a schedule skewed by word
 * that broke it ran 4% slower).  Lanes past the strip compute what they
 * are given (Peq 0) and hand it only to lanes past the strip.  rec: the
 * bottom lane's record (it writes rec[c0 + t - g] = its io at step t),
 * NULL in every other lane. */
template <int R, class Load>
__device__ __forceinline__ void wavefront_steady(uint32_t *pv, uint32_t *mv, const uint32_t *peq_w, uint32_t lane,
                                                 uint32_t g, uint32_t lp, uint32_t &cur, uint32_t &nxt,
                                                 uint32_t &out, uint32_t t0, uint32_t t1, uint32_t c0,
                                                 const Load &load, uint8_t *rec)
{
    const uint32_t *peq_l = peq_w + lane;
    for (uint32_t tb = t0; tb < t1; tb += lp) {
        cur = nxt;
        nxt = load(tb + lp + g);
        uint8_t *rb = rec ? rec + (c0 + tb - g) : NULL;
#pragma unroll 4
        for (uint32_t i = 0; i < lp; ++i) {
            const uint32_t up = __shfl_up_sync(0xffffffffu, out, 1, (int)lp);
            const uint32_t in0 = __shfl_sync(0xffffffffu, cur, (int)i, (int)lp);
            const uint32_t in = g == 0 ? in0 : up;
            /* Peq of the column's code: (in & 0x3c) is 4 x the code */
            uint32_t sph, smh;
            out = (in & 0x3cu) | wc_words_row<R>(pv, mv, peq_l + (in & 0x3cu) * (8u * (uint32_t)R), in, (uint32_t)R,
                                                 sph, smh);   /* io_pack(carry, code) */
            if (rb) rb[i] = (uint8_t)out;
        }
    }
}

/* strip_entry_seq() by a group of lp lanes (lane g; lp | 32, the group's
 * lanes [grp lp, grp lp + lp) of the warp), lp columns at a time: each lane
 * reads one column's delta, a scan within the group gives D[b][.], a
 * ballot the first column <= kmax.  Every lane of the warp must call it
 * (groups that need no entry pass active = 0).  The record was written by
 * this warp: the caller's __syncwarp() orders it.  Returns the entry in
 * every lane of the group. */
template <class Rd, class Gate>
__device__ __forceinline__ void strip_entry_warp_by(const Rd &rd, const Gate &gate, uint32_t c0, uint32_t ncols,
                                                    int32_t d0, int32_t kmax, int64_t slope, int active, uint32_t g,
                                                    uint32_t grp, uint32_t lp, uint32_t &first, int32_t &first_d)
{
    first = UINT32_MAX;
    first_d = 0;
    bool done = !active;
    if (!done && strip_entry_ok(d0, (int64_t)c0 - 1, kmax, slope)) {
        first = c0;
        first_d = d0;
        done = true;
    }
    const uint32_t hi = ncols ? ncols - 1u : 0u;      /* candidate columns: c + 1 < ncols */
    uint32_t iters = (!done && hi > c0) ? (hi - c0 + lp - 1u) / lp : 0u;
    iters = __reduce_max_sync(0xffffffffu, iters);
    const uint32_t gmask = lp == 32u ? 0xffffffffu : (1u << lp) - 1u;
    int32_t run = d0;
    for (uint32_t i = 0; i < iters; ++i) {
        /* Found in every group: the rest of the record is not read (a
         * piped strip's gate would wait for the strip above's end). */
        if (__all_sync(0xffffffffu, done)) break;
        const uint32_t c = c0 + i * lp + g;
        gate(min(c0 + i * lp + lp, hi));   /* every lane: the record's columns < that are final */
        int32_t d = (!done && c < hi) ? io_delta(rd(c)) : 0;
        for (uint32_t off = 1; off < lp; off <<= 1) {
            const int32_t v = __shfl_up_sync(0xffffffffu, d, off, (int)lp);
            if (g >= off) d += v;
        }
        const int32_t dc = run + d;
        const uint32_t ok = (uint32_t)(__ballot_sync(0xffffffffu, !done && c < hi && strip_entry_ok(dc, c, kmax, slope)) >> (grp * lp)) & gmask;
        const int src = ok ? __ffs((int)ok) - 1 : 0;
        const int32_t dsrc = __shfl_sync(0xffffffffu, dc, src, (int)lp);
        if (!done && ok) {
            first = c0 + i * lp + (uint32_t)src + 1u;
            first_d = dsrc;
            done = true;
        }
        run += __shfl_sync(0xffffffffu, d, (int)lp - 1, (int)lp);
    }
}

/* The record written by this warp (or final before the call). */
__device__ __forceinline__ void strip_entry_warp(const uint8_t *rec, uint32_t c0, uint32_t ncols, int32_t d0,
                                                 int32_t kmax, int64_t slope, int active, uint32_t g, uint32_t grp,
                                                 uint32_t lp, uint32_t &first, int32_t &first_d)
{
    strip_entry_warp_by([&](uint32_t c) { return (uint32_t)rec[c]; }, [](uint32_t) {}, c0, ncols, d0, kmax, slope,
                        active, g, grp, lp, first, first_d);
}
#endif

/* ---- The text-end partial from the search (the header's last part) ---- */

/* omin of pair (read_is_pattern rip, pattern m, threshold k, text n) on
 * strand s when the LONG path takes its text-end partial, else 0: the
 * pair is routed to it (kn), takes partial occurrences at the end of its
 * searched text (bit 0 of gpuasm_partial_text_ends), in edit mode on the
 * nt16 alphabet (the myers kernel's LONG path; the caller says the kernel
 * is that).  k_long and the ends pass (partial_cuda.cu) both ask this. */
HD uint32_t long_end_omin(const route_knobs &kn, const gpuasm_search_opt &o, int rip, uint32_t m, int32_t k,
                          uint32_t n, uint32_t strand)
{
    if (!kn.long_ends || o.alphabet != GPUASM_ALPHABET_NT16 || !gpuasm_partial_on(&o) || n == 0) return 0;
    if (!gpuasm_pair_searched(m, k, n) || route(kn, rip, m, k) < CLS_LONG) return 0;
    if (!(gpuasm_partial_text_ends(&o, rip, strand) & 1u)) return 0;
    return gpuasm_pair_overlap_min(&o, rip, m);
}

/* A stored column word: through L2 on the device (ld.cg), since the piped
 * strips (myers_pipe_cuda.cu) store theirs from other SMs, whose writes
 * an L1 line read earlier would hide. */
HD uint32_t col_word(const uint32_t *col, uint32_t w)
{
#ifdef __CUDA_ARCH__
    return __ldcg(col + w);
#else
    return col[w];
#endif
}

/* Store lane g's words of pass sp (Pv at col[w], Mv at col[cs + w], w the
 * pattern's 32-bit word). */
template <int R>
HD void long_dump(const llane<R> &L, uint32_t g, const lstrip &sp, uint32_t *col, uint32_t cs)
{
    for (int r = 0; r < R; ++r) {
        const uint32_t wl = g * (uint32_t)R + (uint32_t)r;
        if (wl >= sp.nw) break;
        col[sp.w0 + wl] = L.pv[r];
        col[cs + sp.w0 + wl] = L.mv[r];
    }
}

/* The step at which lane g of pass sp computes column ncols - 2 (after
 * which long_dump() stores it), or UINT32_MAX when the pass starts there
 * (c0 = ncols - 1: long_dump() right after long_begin()). */
HD uint32_t long_dump_step(const witem &it, const lstrip &sp, uint32_t g)
{
    return sp.c0 + 2u <= it.ncols ? it.ncols - 2u - sp.c0 + g : UINT32_MAX;
}

/* Rows 1 .. min(32 w1, m - 1) of words [w0, w1) of the stored column:
 * the sum of their vertical deltas (D of the last row minus D of row
 * 32 w0). */
HD int32_t long_end_sum(const uint32_t *col, uint32_t cs, uint32_t w0, uint32_t w1, uint32_t m)
{
    int32_t sum = 0;
    for (uint32_t w = w0; w < w1 && 32u * w + 1u <= m - 1u; ++w) {
        const uint32_t rows = m - 1u - 32u * w;
        const uint32_t mask = rows >= 32u ? ~0u : (1u << rows) - 1u;
        sum += popc32(col_word(col, w) & mask) - popc32(col_word(col, cs + w) & mask);
    }
    return sum;
}

/* partial.h's rule on the rows of words [w0, w1) (rows 32 w0 + 1 ..; at
 * most m - 1): e0 = D[32 w0][n-2] (0 for row 0), tc the text's last code,
 * pat the pattern as searched; candidates p >= omin go to best under the
 * pair's floor sfloor (gpuasm_partial_kf). */
HD void long_end_rows(const uint32_t *col, uint32_t cs, uint32_t w0, uint32_t w1, int32_t e0, const seqv &pat,
                      uint32_t m, uint32_t omin, int32_t sfloor, uint32_t tc, const gpuasm_search_opt &o,
                      gpuasm_partial &best)
{
    int32_t e = e0, e1 = e0;
    for (uint32_t w = w0; w < w1; ++w) {
        const uint32_t pv = col_word(col, w), mv = col_word(col, cs + w);
        for (uint32_t b = 0; b < 32u; ++b) {
            const uint32_t p = 32u * w + b + 1u;
            if (p >= m) return;
            e += (int32_t)((pv >> b) & 1u) - (int32_t)((mv >> b) & 1u);
            gpuasm_partial_row(&o, p, m, omin, sfloor, e1, e, !(pat.at(p - 1u) & tc), &best);
            e1 = e;
        }
    }
}

/* After the last step of the last strip: the virtual column n. */
template <int R, class Emit>
HD void long_finish(llane<R> &L, uint32_t g, const witem &it, const lstrip &sp, Emit &emit)
{
    const uint32_t gb = (sp.nw - 1u) / (uint32_t)R;
    if (sp.last && it.ncols && g == gb && it.win.jend == it.n)
        lm_push(L.lm, (int32_t)BIGD, it.n, it.k, it.win.s0, it.win.s1, emit);
}

}  /* namespace gcore */

#endif
