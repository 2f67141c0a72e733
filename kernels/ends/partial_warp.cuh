/* SPDX-License-Identifier: MIT */
/* partial_warp.cuh -- the ends pass for long patterns on the GPU (issue #11):
 * partial.h's gpuasm_partial_best() in edit mode on the nt16 alphabet,
 * computed by a warp per item instead of one thread, as __host__ __device__
 * per-lane code: k_partial_warp of partial_cuda.cu calls these functions
 * between its shuffles, and tests/c/test_partial_cuda.cu runs them on the
 * CPU lane by lane against gpuasm_partial_best() itself (the CPU twin).
 *
 * The same matrix as partial.h: Myers' bit vectors (Myers 1999, Hyyrö 2003
 * blocks) of the whole pattern (reversed for the text start) over the
 * W = min(n, m - 1 + k_{m-1}) text columns at that end, started fresh
 * (D[i][-1] = i, D[0][j] = 0).  The D matrix is unique, so any block split
 * of its rows gives the same values; only the split differs:
 *
 *   - STRIPS of 32 lanes x R 32-bit words (32 x 32 R rows) as the LONG path
 *     (myers_long_core.cuh): lane g owns words [g R, g R + R) of the strip
 *     and at step t computes column t - g with the WARP path's block step
 *     (wc_words of myers_cuda_core.cuh, the 16-code Eq table [code][r][lane]
 *     in shared memory), handing the horizontal delta of its bottom word
 *     and the column's text code to lane g + 1 (one io value, one
 *     __shfl_up_sync).  A strip below the first reads its lane 0's io
 *     (the delta of the row above it and the code), per column, from the
 *     record (a byte per column, global scratch) that the strip above
 *     wrote.
 *   - UKKONEN'S CUT-OFF across strips, as the LONG path's
 *     (myers_long_core.cuh, whose header has the induction): with kmax =
 *     k_{m-1}, the largest k_p (k_p never falls as p grows), strip s (rows
 *     a .. b) is computed only from its ENTRY column c_s on, where c_0 = 0
 *     and c_{s+1} = 1 + the first column f >= c_s - 1 with D[b][f] <= kmax
 *     and f <= W - 2 (found after the pass from row b's deltas in the
 *     strip's record: strip_entry_warp, pw_entry_d0);
 *     it starts at column c_s - 1 from the over-estimate D[i] = D[a-1][c_s
 *     - 1] + (i - a + 1) (Pv all ones).  Strips below a strip with no such
 *     f are never entered: every path to their rows passes row b at a
 *     column where it is > kmax, or at column W - 1, which the walk does
 *     not read (it reads column W - 2 only: THE ROW WALK below).  Values
 *     are exact where <= kmax and over-estimates elsewhere, and a kept
 *     D_p <= k_p <= kmax is a min over an optimal path's cells, all <=
 *     kmax, so it is exact.  On unrelated text the rows <= kmax reach
 *     about 2.5 kmax (long_band_rows()): at -e 0.2 (the reads' default)
 *     half of a 10 kb pattern, 3 of the 5 strips of R = 2, where every
 *     strip used to run all W columns.
 *   - TIGHTER ENTRY: the test on row b is D[b][f] <= min(kmax, f + kmax +
 *     m - W - b) (f + 1 - b when W = m - 1 + kmax), not kmax alone.  A
 *     kept candidate p (b < p <= m - 1) ends at column W - 1 (partial.h's
 *     rule: a diagonal or horizontal last step into (p, W - 1)), and its
 *     optimal path leaves row b from some cell (b, f); the rest of the
 *     path moves W - 1 - f columns and p - b rows, so it costs at least
 *     (W - 1 - f) - (p - b) >= W - f - m + b, and D[b][f] + that <= D_p
 *     <= k_p <= kmax.  Every useful crossing of row b is at a column the
 *     test accepts, so entering at the first such column keeps the
 *     induction above.  On unrelated text, where D[b][.] is about 0.4 b,
 *     strips 1 and 2 of R = 2 enter some 2,800 and 3,600 columns later
 *     (of W = 12,000 for a 10 kb read at -e 0.2).
 *   - THE ROW WALK of partial.h at the last column, strip by strip:
 *     partial.h's rule needs only the column before the last, W-2: the
 *     alignment must not end with P[p-1] deleted after the text's last
 *     base, so D_p = min(D[p-1][W-2] + (P[p-1] !~ T[last]), D[p][W-2] + 1)
 *     (partial.h reads D[.][W-2] as D[.][W-1] minus the last horizontal
 *     delta: the same numbers).  So a strip runs columns c0 .. W-2 only
 *     (for W = 1, or a strip entered at W - 1, its column W-2 is its
 *     start column: the fresh column D[p] = p, or base + one per row), and
 *     D[p][W-2] is a prefix sum of the vertical deltas (Pv: +1, Mv: -1) of
 *     rows 1 .. p: each lane sums its words (popcounts), a warp scan gives
 *     the sums above the lane (plus the strips above), and each lane walks
 *     its own rows; a candidate p >= omin with D_p <= k_p < p is kept by
 *     gpuasm_partial_keep().  Column W-1 is never computed (it was, with
 *     a copy of the lane's words at W-2 kept in 2R more registers).
 *   - THE BEST of the lanes: gpuasm_partial_keep() is the maximum under a
 *     total order (score p - 2 D_p, then the smaller D_p, then the larger p;
 *     no two candidates share p), so the lanes' bests combine in any order
 *     (pw_merge) to the one partial.h keeps.
 *
 * Cost per item: at most ceil(w32 / 32R) strips x (W + 30) steps of R
 * word steps per lane, plus the walk (32 R rows per lane per strip).
 * partial_cuda.cu picks R per item (pw_pick_r: the strip that holds the
 * rows that can be <= kmax, as the LONG path's shapes) and launches one
 * kernel per R.
 */
#ifndef GPUASM_PARTIAL_WARP_CUH
#define GPUASM_PARTIAL_WARP_CUH

#include <stdint.h>

#include "kernels/myers/myers_cuda_core.cuh"
#include "kernels/partial.h"

namespace gcore {

enum {
    PW_LANES = 32,      /* lanes per item (a warp) */
    PW_RMAX = 6         /* 32-bit words per lane: 1 .. 6 */
};

/* One ends-pass item: pattern pat (already oriented: reversed by the walk
 * when at_start), text txt, the window of W columns at the text's end
 * (at_start == 0) or start. */
struct pw_item {
    gpuasm_seqview pat, txt;
    uint32_t m, n, W, omin, w32;
    int32_t sfloor;     /* the pair's significance floor (gpuasm_partial_kf) */
    int32_t at_start;
    int32_t kmax;       /* k_{m-1}: no kept D_p is larger (the cut-off's bound) */
};

/* Set up an item as gpuasm_partial_best() does (edit mode, nt16): 0 when
 * it has no candidate at all (the same early exits), else 1. */
HD int pw_setup(pw_item &it, const gpuasm_search_opt *o, uint32_t omin, int32_t sfloor, const gpuasm_seqview &pat,
                const gpuasm_seqview &txt, int at_start)
{
    it.pat = pat;
    it.txt = txt;
    it.m = pat.len;
    it.n = txt.len;
    it.omin = omin;
    it.sfloor = sfloor;
    it.at_start = at_start;
    it.w32 = (it.m + 31u) / 32u;
    it.W = 0;
    if (omin == 0 || omin >= it.m || it.n == 0) return 0;
    const int32_t kmax = gpuasm_partial_kf(o, sfloor, it.m - 1u, it.m);
    if (kmax < 0) return 0;
    it.kmax = kmax;
    uint64_t wlen = (uint64_t)(it.m - 1u) + (uint64_t)kmax;
    if (wlen > it.n) wlen = it.n;
    it.W = (uint32_t)wlen;
    return 1;
}

/* Text code of window column q (0 <= q < W), as partial.h reads it. */
HD uint32_t pw_code(const pw_item &it, uint32_t q)
{
    return gpuasm_seqview_at(&it.txt, it.at_start ? it.W - 1u - q : it.n - it.W + q, 0) & 15u;
}

/* Strips of an item with R words per lane. */
HD uint32_t pw_strips(uint32_t w32, uint32_t R)
{
    return (w32 + PW_LANES * R - 1u) / (PW_LANES * R);
}

/* Words per lane for a pattern of m bases with kmax = k_{m-1}: the
 * smallest R whose strip (32 x 32 R rows) holds the rows that can be <=
 * kmax on unrelated text (long_band_rows(), the LONG path's rule), else
 * R = PW_RMAX.  The first strip runs every column and a deeper one only
 * from its entry on, so the strip that holds the band most tightly does
 * the fewest word steps: a 10 kb read at -e 0.2 (kmax 1,999, band 5,061
 * rows) took five strips of R = 2, entered at columns 0, ~2,900 and
 * ~5,700 of W = 12,000 on unrelated text (27,400 steps of 2 words), and
 * takes one of R = 5 (12,000 steps of 5 words, a step's fixed cost
 * shared by 5). */
HD uint32_t pw_pick_r(uint32_t m, int32_t kmax)
{
    const uint32_t rows = long_band_rows(m, kmax);
    for (uint32_t R = 1; R < PW_RMAX; ++R)
        if (32u * PW_LANES * R >= rows) return R;
    return PW_RMAX;
}

/* Strip s: words [w0, w0 + nw) of the pattern, entered at window column
 * c0 (< W) from base = D[a-1][c0-1] (strip 0: c0 = 0, base = 0). */
struct pw_strip {
    uint32_t w0, nw, last, lanes, steps, c0;
    int32_t base;
};

HD pw_strip pw_strip_of(const pw_item &it, uint32_t R, uint32_t s, uint32_t c0, int32_t base)
{
    pw_strip sp;
    const uint32_t sw = PW_LANES * R;
    sp.w0 = s * sw;
    sp.nw = it.w32 - sp.w0 < sw ? it.w32 - sp.w0 : sw;
    sp.last = sp.w0 + sp.nw == it.w32;
    sp.lanes = (sp.nw + R - 1u) / R;
    sp.c0 = c0;
    sp.base = base;
    /* Columns c0 .. W-2 (the row walk's column; none when c0 = W - 1). */
    sp.steps = c0 + 1u < it.W ? it.W - 1u - c0 + sp.lanes - 1u : 0u;
    return sp;
}

enum : uint32_t { PW_NONE = 0xffffffffu };   /* no entry column for the next strip */

/* A lane's words: Pv/Mv of the current column (after the pass: column
 * W-2). */
template <int R> struct pw_lane {
    uint32_t pv[R], mv[R];
};

/* Masks of the lane's words of strip sp (words past the pattern: 0). */
template <int R>
HD void pw_build_peq(uint32_t *peq_w, uint32_t g, const pw_item &it, const pw_strip &sp)
{
    for (int r = 0; r < R; ++r) {
        const uint32_t wl = g * (uint32_t)R + (uint32_t)r;
        uint32_t b[4] = { 0, 0, 0, 0 };
        if (wl < sp.nw) {
            const uint32_t lo = (sp.w0 + wl) * 32u;
            const uint32_t hi = it.m - lo < 32u ? it.m : lo + 32u;
            for (uint32_t i = lo; i < hi; ++i) {
                const uint32_t c = gpuasm_seqview_at(&it.pat, i, it.at_start);
                for (int x = 0; x < 4; ++x)
                    if (c & (1u << x)) b[x] |= 1u << (i - lo);
            }
        }
        wc_put_masks<R>(peq_w, g, r, b);
    }
}

/* The strip's first column c0 - 1: D[i] = base + (i - a + 1) (Pv all
 * ones; strip 0: the fresh column D[i][-1] = i); it is also column W-2
 * when c0 = W - 1. */
template <int R>
HD void pw_begin(pw_lane<R> &L)
{
    for (int r = 0; r < R; ++r) {
        L.pv[r] = ~0u;
        L.mv[r] = 0;
    }
}

/* D[b][c0 - 1] of a strip that is not the last (rows a .. b, 32 nw of
 * them): the over-estimate base + 32 nw the pass starts from, from which
 * the next strip's entry follows (strip_entry_seq / strip_entry_warp of
 * myers_long_core.cuh, with kmax, on the strip's record). */
HD int32_t pw_entry_d0(const pw_strip &sp) { return sp.base + (int32_t)(32u * sp.nw); }

/* The slope of the ends pass's entry bound (the header's "TIGHTER
 * ENTRY"): a cell D[b][f] of the strip's bottom row b on the optimal path
 * of a kept candidate has D[b][f] <= f + kmax + m - W - b. */
HD int64_t pw_entry_slope(const pw_item &it, const pw_strip &sp)
{
    const int64_t b = 32 * (int64_t)(sp.w0 + sp.nw);
    return (int64_t)it.kmax + (int64_t)it.m - (int64_t)it.W - b;
}

/* Lane 0's input (io: myers_cuda_core.cuh) at window column c: the
 * column's code and the carry of the strip above's bottom row from its
 * record (rec_in, NULL in the first strip: row 0, delta 0), which holds
 * the whole io byte; 0 past the window. */
HD uint32_t pw_in0(const pw_item &it, const uint8_t *rec_in, uint32_t c)
{
    if (c >= it.W) return 0;
    return rec_in ? (uint32_t)rec_in[c] : io_pack(0, pw_code(it, c));
}

/* Step t of lane g: column c = c0 + t - g (idle when t < g, c >= W - 1, or
 * the lane has no words in the strip).  in: the io entering the lane's top
 * row (lane g-1's return value; for g = 0 pw_in0() of column c): the
 * carry and column c's text code.  The bottom lane of a strip that is not
 * the last writes its bottom row's io to rec_out[c] (the next strip's
 * input and, after the pass, its entry: pw_entry_d0).  Returns the io of
 * the lane's bottom word (0 when idle). */
template <int R>
HD uint32_t pw_step(pw_lane<R> &L, const uint32_t *peq_w, uint32_t g, const pw_item &it,
                    const pw_strip &sp, uint32_t t, uint32_t in, uint8_t *rec_out)
{
    const uint32_t c = sp.c0 + t - g;            /* wraps when t < g: idle */
    if (t < g || c + 1u >= it.W || g >= sp.lanes) return 0;
    const uint32_t code = io_code(in);
    uint32_t sph, smh;
    const uint32_t out = io_pack(wc_words<R>(L.pv, L.mv, peq_w, g, code, in, R - 1u, sph, smh), code);
    if (!sp.last && g == sp.lanes - 1u) rec_out[c] = (uint8_t)out;
    return out;
}

/* The sum of the vertical deltas of the lane's rows (those < m) in column
 * W-2, after the strip's last step. */
template <int R>
HD int32_t pw_sum(const pw_lane<R> &L, const pw_item &it, const pw_strip &sp, uint32_t g)
{
    int32_t esum = 0;
    for (int r = 0; r < R; ++r) {
        const uint32_t w = sp.w0 + g * (uint32_t)R + (uint32_t)r;
        if (g >= sp.lanes || w >= sp.w0 + sp.nw || 32u * w + 1u > it.m - 1u) continue;
        const uint32_t rows = it.m - 1u - 32u * w;   /* rows of the word that are < m */
        const uint32_t mask = rows >= 32u ? ~0u : (1u << rows) - 1u;
        esum += popc32(L.pv[r] & mask) - popc32(L.mv[r] & mask);
    }
    return esum;
}

/* The lane's rows in the walk: e0 = D[a-1][W-2] of the row a-1 above its
 * first row a; code: the last column's text code (Eq).  Candidates go to
 * best (gpuasm_partial_keep). */
template <int R>
HD void pw_walk(const pw_lane<R> &L, const uint32_t *peq_w, uint32_t g, const pw_item &it,
                const pw_strip &sp, const gpuasm_search_opt *o, uint32_t code, int32_t e0,
                gpuasm_partial &best)
{
    if (g >= sp.lanes) return;
    int32_t e = e0, e1 = e0;
    for (int r = 0; r < R; ++r) {
        const uint32_t w = sp.w0 + g * (uint32_t)R + (uint32_t)r;
        if (w >= sp.w0 + sp.nw) break;
        const uint32_t eq = peq_w[((size_t)code * R + r) * 32 + g];
        /* Word r by selects, not L.pv[r]: a runtime index put the lane's
         * words in local memory for the whole kernel, the pass's steps
         * included (ptxas: a 40-48 byte stack frame for R = 5, 6). */
        uint32_t pv = 0, mv = 0;
        DEV_UNROLL
        for (int q = 0; q < R; ++q)
            if (q == r) {
                pv = L.pv[q];
                mv = L.mv[q];
            }
        for (uint32_t b = 0; b < 32u; ++b) {
            const uint32_t p = 32u * w + b + 1u;
            if (p >= it.m) return;
            e += (int32_t)((pv >> b) & 1u) - (int32_t)((mv >> b) & 1u);
            gpuasm_partial_row(o, p, it.m, it.omin, it.sfloor, e1, e, !((eq >> b) & 1u), &best);
            e1 = e;
        }
    }
}

/* Combine two lanes' bests (any order: see the header comment). */
HD void pw_merge(gpuasm_partial &best, const gpuasm_partial &other)
{
    if (other.plen) gpuasm_partial_keep(&best, other.plen, other.dist);
}

}  /* namespace gcore */

#endif
