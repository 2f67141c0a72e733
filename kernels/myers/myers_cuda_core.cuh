/* SPDX-License-Identifier: MIT */
/* myers_cuda_core.cuh -- the per-thread and per-lane logic of the CUDA Myers
 * kernels (kernels/myers/myers_cuda.cu), as __host__ __device__ code so that a
 * host program can run exactly this code on the CPU (a throwaway harness
 * drives every path against the CPU twin on random inputs), plus the
 * routing rule and pair enumeration that the host planner (myers_plan.cu)
 * and the device share.
 *
 * Nothing here launches anything; myers_cuda.cu holds the kernels (thin
 * wrappers that stage shared memory and call these functions) and the
 * launcher.  See myers_cuda.cu's header comment for the design and the
 * numbers.
 */
#ifndef GPUASM_MYERS_CUDA_CORE_CUH
#define GPUASM_MYERS_CUDA_CORE_CUH

#include <stdint.h>

#include "kernels/cuda_device.cuh"
#include "search/search.h"

namespace gcore {

/* ---- the Myers block step ------------------------------------------------
 * Hyyrö's block step (edlib's calculateBlock), identical to block_step() of
 * myers_cpu.c for T = uint64_t; T = uint32_t gives 32-row blocks.
 * block_step_bits: the carry as two bits (hp / hn in bit 0: the delta +1 /
 * -1 entering the block's top row), updated to the delta leaving its last
 * row; ph / mh: the block's Ph / Mh before the shift, from which any row's
 * delta can be read.  The wavefronts (wc_words) chain it with no compares
 * or selects between words. */
template <class T>
HD void block_step_bits(T &pv_io, T &mv_io, T eq, T &hp, T &hn, T &ph, T &mh)
{
    const T pv = pv_io, mv = mv_io;
    const T xv = eq | mv, eqh = eq | hn;
    const T xh = (((eqh & pv) + pv) ^ pv) | eqh;
    ph = mv | ~(xh | pv);
    mh = pv & xh;
    const T phs = (ph << 1) | hp, mhs = (mh << 1) | hn;
    pv_io = mhs | ~(xv | phs);
    mv_io = phs & xv;
    hp = ph >> (sizeof(T) * 8 - 1);
    hn = mh >> (sizeof(T) * 8 - 1);
}

/* The same step with the carry as an int: hin, the return value in {-1,
 * 0, +1}: horizontal delta of the row above the block and of the row
 * selected by hbit. */
template <class T>
HD int block_step(T &pv_io, T &mv_io, T eq, int hin, T hbit)
{
    T hp = (T)(hin > 0), hn = (T)(hin < 0), ph, mh;
    block_step_bits<T>(pv_io, mv_io, eq, hp, hn, ph, mh);
    return (int)((ph & hbit) != 0) - (int)((mh & hbit) != 0);
}

/* One column of single-word Myers (Myers 1999, Fig. 3; seed 003 §2.2):
 * no block above (hin = 0), so this is block_step() without the carries.
 * Updates pv/mv for text symbol mask eq and returns the score delta of
 * row lb + 1 (bit lb, the pattern's last row). */
template <class T>
HD int32_t word_step(T &pv, T &mv, T eq, uint32_t lb)
{
    const T xv = eq | mv;
    const T xh = (((eq & pv) + pv) ^ pv) | eq;
    T ph = mv | ~(xh | pv);
    T mh = pv & xh;
    const int32_t delta = (int32_t)((ph >> lb) & 1u) - (int32_t)((mh >> lb) & 1u);
    ph <<= 1;
    mh <<= 1;
    pv = mh | ~(xv | ph);
    mv = ph & xv;
    return delta;
}

/* Text code as staged for the read-as-pattern kernel: 0..3 for a single
 * base (A, C, G, T), 16 | code otherwise (IUPAC sets, 0). */
HD uint8_t enc_text(uint32_t c)
{
    c &= 15;
    switch (c) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    default: return (uint8_t)(16 | c);
    }
}

/* ======================================================================
 * Path RP: read as pattern, W 64-bit words (m <= 64 W <= 256), a group of
 * patterns per block against one staged text segment; Ukkonen's cut-off
 * exactly as run_blocks() of myers_cpu.c.
 * peq_s layout: [base 0..3][word w][thread]  (one 64-bit mask each).
 * ====================================================================== */

/* The four base masks (A, C, G, T) of pattern word w (bases 64w ..
 * 64w+63, clipped to the pattern): bit i of b[x] is set iff pattern base
 * 64w+i contains base x.  Eq of any text code is the OR of the masks of its
 * bases, which is the nt16 match rule. */
HD void word_masks(const seqv &pat, uint32_t w, uint64_t b[4])
{
    b[0] = b[1] = b[2] = b[3] = 0;
    const uint32_t lo = w * 64u;
    const uint32_t hi = pat.len - lo < 64u ? pat.len : lo + 64u;
    for (uint32_t i = lo; i < hi; ++i) {
        const uint32_t c = pat.at(i);
        const uint64_t bit = (uint64_t)1 << (i - lo);
        if (c & 1u) b[0] |= bit;
        if (c & 2u) b[1] |= bit;
        if (c & 4u) b[2] |= bit;
        if (c & 8u) b[3] |= bit;
    }
}

/* Masks of one pattern (the read, strand given) into peq_s; an invalid
 * slot (no pattern) gets zero masks. */
template <int W>
HD void rp_build_peq(uint64_t *peq_s, uint32_t tid, uint32_t nt, const seqv &pat, int valid)
{
    for (int w = 0; w < W; ++w) {
        uint64_t b[4] = { 0, 0, 0, 0 };
        if (valid) word_masks(pat, (uint32_t)w, b);
        for (int x = 0; x < 4; ++x) peq_s[((size_t)x * W + w) * nt + tid] = b[x];
    }
}

template <int W>
HD uint64_t rp_eq(const uint64_t *peq_s, uint32_t tid, uint32_t nt, uint32_t e, int w)
{
    if (e < 4) return peq_s[((size_t)e * W + w) * nt + tid];
    /* IUPAC set (or 0) in the target: OR of the masks of its bases. */
    uint64_t eq = 0;
    if (e & 1u) eq |= peq_s[((size_t)0 * W + w) * nt + tid];
    if (e & 2u) eq |= peq_s[((size_t)1 * W + w) * nt + tid];
    if (e & 4u) eq |= peq_s[((size_t)2 * W + w) * nt + tid];
    if (e & 8u) eq |= peq_s[((size_t)3 * W + w) * nt + tid];
    return eq;
}

/* Rows of block b of an m-row pattern with W blocks. */
template <int W>
HD int32_t rp_rows(uint32_t m, int b)
{
    return b + 1 < W ? 64 : (int32_t)m - 64 * (W - 1);
}

/* One thread's DP: pattern masks in peq_s (column tid), text window
 * text_s[0 .. jend-j0) = enc_text of positions j0 .. jend-1 of a text of n
 * positions; reports local minima in [s0, s1) through emit(j, d). */
template <int W, class Emit>
HD void rp_thread(const uint8_t *text_s, const uint64_t *peq_s, uint32_t tid, uint32_t nt,
                  const window &win, uint32_t n, uint32_t m, int32_t k, Emit &emit)
{
    uint64_t pv[W], mv[W];
    int32_t sc[W];
    const uint64_t top = (uint64_t)1 << 63;
    const uint64_t hlast = (uint64_t)1 << ((m - 1u) & 63u);
    /* Active blocks 0 .. last as a thermometer mask (bit b: block b active);
     * an index would let the compiler address pv/sc dynamically, which puts
     * them in local memory.  Column j0-1: D[i] = i; rows <= k live in
     * blocks 0 .. k/64 (run_blocks()). */
    uint32_t act = (1u << W) - 1u;
    if ((uint32_t)k / 64u + 1u < (uint32_t)W) act = (1u << ((uint32_t)k / 64u + 1u)) - 1u;
    DEV_UNROLL
    for (int b = 0; b < W; ++b) {
        pv[b] = ~(uint64_t)0;
        mv[b] = 0;
        sc[b] = 64 * b + rp_rows<W>(m, b);
    }
    lmin lm;
    lm_init(lm);
    for (uint32_t j = win.j0; j < win.jend; ++j) {
        const uint32_t e = text_s[j - win.j0];
        int h = 0;
        int32_t sl = 0;
        uint32_t nact = act;
        DEV_UNROLL
        for (int b = 0; b < W; ++b) {
            if ((act >> b) & 1u) {
                const uint64_t eq = rp_eq<W>(peq_s, tid, nt, e, b);
                h = block_step<uint64_t>(pv[b], mv[b], eq, h, b + 1 < W ? top : hlast);
                sc[b] += h;
                sl = sc[b];
            } else if (b > 0 && ((act >> (b - 1)) & 1u) && sl - h <= k) {
                /* Block b = last + 1 comes in: sl - h is the last row of
                 * block `last` in column j-1; the new block starts from
                 * "that + 1 per row", an over-estimate with valid deltas. */
                pv[b] = ~(uint64_t)0;
                mv[b] = 0;
                sc[b] = sl - h + rp_rows<W>(m, b);
                const uint64_t eq = rp_eq<W>(peq_s, tid, nt, e, b);
                sc[b] += block_step<uint64_t>(pv[b], mv[b], eq, h, b + 1 < W ? top : hlast);
                nact |= 1u << b;
            }
        }
        act = nact;
        /* Drop blocks whose every cell is > k (from the top, cascading). */
        DEV_UNROLL
        for (int b = W - 1; b >= 1; --b)
            if (((act >> b) & 1u) && !((act >> (b + 1)) & 1u) && sc[b] >= k + rp_rows<W>(m, b))
                act &= ~(1u << b);
        const int32_t d = ((act >> (W - 1)) & 1u) ? sc[W - 1] : (int32_t)BIGD;
        lm_push(lm, d, j, k, win.s0, win.s1, emit);
    }
    if (win.jend == n) lm_push(lm, (int32_t)BIGD, n, k, win.s0, win.s1, emit);
}

/* A group of RP patterns: reads perm[first .. first+count), both strands
 * (thread 2i = read i strand 0, 2i+1 = strand 1), all with ceil(m/64) = W;
 * ov = max over the group of m + k; minlen = shortest read. */
struct rp_group {
    uint32_t first, count;
    uint32_t ov, minlen;
};

/* ======================================================================
 * Path TP: target as pattern, m <= 64 (one word), a thread per
 * (read, strand, text segment) of the read, looping over the small
 * targets; the text window packed 4 bits per code in win_s[word][thread].
 * ====================================================================== */

/* Per scan: one eligible small target (m <= 64, m > k), by length. */
struct tp_tgt {
    uint32_t t, m;
    int32_t k;
    uint32_t small;   /* index into the per-target Eq tables */
};

HD void tp_stage(uint32_t *win_s, uint32_t tid, uint32_t nt, const seqv &txt,
                 uint32_t j0, uint32_t jend)
{
    uint32_t wd = 0, q = 0;
    for (uint32_t j = j0; j < jend; ++j) {
        wd |= (txt.at(j) & 15u) << (4u * (q & 7u));
        if ((++q & 7u) == 0) {
            win_s[(size_t)(q / 8u - 1u) * nt + tid] = wd;
            wd = 0;
        }
    }
    if (q & 7u) win_s[(size_t)(q / 8u) * nt + tid] = wd;
}

/* One (pattern, window) run with T-bit words (m <= bits of T); eq16 is the
 * target's 16-entry Eq table. */
template <class T, class Emit>
HD void tp_run(const uint32_t *win_s, uint32_t tid, uint32_t nt, const uint64_t *eq16,
               const window &win, uint32_t n, uint32_t m, int32_t k, Emit &emit)
{
    T pv = ~(T)0, mv = 0;
    const uint32_t lb = (m - 1u) & (uint32_t)(sizeof(T) * 8 - 1);
    int32_t score = (int32_t)m;
    lmin lm;
    lm_init(lm);
    uint32_t wd = 0;
    for (uint32_t j = win.j0, q = 0; j < win.jend; ++j, ++q) {
        if ((q & 7u) == 0) wd = win_s[(size_t)(q / 8u) * nt + tid];
        const uint32_t c = (wd >> (4u * (q & 7u))) & 15u;
        score += word_step<T>(pv, mv, (T)eq16[c], lb);
        lm_push(lm, score, j, k, win.s0, win.s1, emit);
    }
    if (win.jend == n) lm_push(lm, (int32_t)BIGD, n, k, win.s0, win.s1, emit);
}

/* ======================================================================
 * Path WARP: long patterns, warp-cooperative wavefront.  A group of LP
 * lanes (LP | 32) runs one work item; lane g of the group owns 32-bit words
 * [g R, g R + R) of the pattern; at step t lane g processes column
 * c = t - g and passes the horizontal delta of its top word to lane g+1
 * (a __shfl_up_sync on the device, an array in the host harness).
 * peq_w layout (one warp's region): [code 0..15][word r][warp lane].
 * ====================================================================== */

/* What a lane hands to lane g + 1 at each step (the wavefront's "io"):
 * bits 0-1 the horizontal delta leaving the lane's last word (bit 0: +1,
 * bit 1: -1, neither: 0), bits 2-5 the column's text code.  Carried as
 * two bits rather than an int so that block_step_bits takes them as its
 * carries without compares or selects (sm_90 SASS: an int carry between
 * the words cost about 23 instructions a word, the bits 13). */
HD uint32_t io_pack(uint32_t h2, uint32_t code) { return (h2 & 3u) | (code << 2); }
HD uint32_t io_code(uint32_t io) { return (io >> 2) & 15u; }
HD int io_delta(uint32_t io) { return (int)(io & 1u) - (int)((io >> 1) & 1u); }

/* The R words of a lane: Hyyrö's block step (block_step_bits() above)
 * down the words, with the carry h2 (io's bits 0-1, higher bits ignored:
 * the delta entering the first word's top row) as two bits; pq: the lane's
 * Peq masks of the column's code (word r at pq[32 r]).  sph / smh: Ph and
 * Mh of the lane's word rs (before the shift; rs >= R: none), from which
 * the caller reads the delta of any row of that word (bit b: +1 when Ph's
 * bit b is set, -1 when Mh's is).  Returns the carry (h2) leaving the
 * lane's last word (bit 31 of its Ph / Mh). */
template <int R>
HD uint32_t wc_words_row(uint32_t *pv, uint32_t *mv, const uint32_t *pq, uint32_t h2, uint32_t rs, uint32_t &sph,
                         uint32_t &smh)
{
    uint32_t hp = h2 & 1u, hn = (h2 >> 1) & 1u;
    DEV_UNROLL
    for (int r = 0; r < R; ++r) {
        const uint32_t eq = pq[r * 32];
        uint32_t ph, mh;
        block_step_bits<uint32_t>(pv[r], mv[r], eq, hp, hn, ph, mh);
        if ((uint32_t)r == rs) {
            sph = ph;
            smh = mh;
        }
    }
    return hp | (hn << 1);
}

/* wc_words_row() for text code `code` of lane `lane` of the warp's 16-code
 * table (peq_w: [code][word r][lane]). */
template <int R>
HD uint32_t wc_words(uint32_t *pv, uint32_t *mv, const uint32_t *peq_w, uint32_t lane, uint32_t code,
                     uint32_t h2, uint32_t rs, uint32_t &sph, uint32_t &smh)
{
    return wc_words_row<R>(pv, mv, peq_w + (size_t)code * R * 32 + lane, h2, rs, sph, smh);
}

/* Set bits of x. */
HD int popc32(uint32_t x)
{
#ifdef __CUDA_ARCH__
    return __popc(x);
#else
    return __builtin_popcount(x);
#endif
}

/* The delta of the row at bit hl of a word whose Ph / Mh are ph / mh. */
HD int wc_delta(uint32_t ph, uint32_t mh, uint32_t hl)
{
    return (int)((ph & hl) != 0) - (int)((mh & hl) != 0);
}

template <int R> struct wlane {
    uint32_t pv[R], mv[R];
    int32_t score;
    lmin lm;
};

/* Work item as the lanes see it. */
struct witem {
    seqv pat, txt;
    uint32_t m, n;
    int32_t k;
    window win;
    uint32_t w32;      /* ceil(m / 32) */
    uint32_t ncols;    /* jend - j0; 0 for an empty slot */
};

/* Slot r of a lane's 16-code table from the four base masks of its word
 * (bit i of b[x]: the word's base i holds base x): Eq of code c is the OR
 * of the masks of c's bases, the nt16 match rule.  Also the ends pass's
 * (partial_warp.cuh). */
template <int R>
HD void wc_put_masks(uint32_t *peq_w, uint32_t lane, int r, const uint32_t b[4])
{
    for (uint32_t c = 0; c < 16; ++c)
        peq_w[((size_t)c * R + r) * 32 + lane] = ((c & 1u) ? b[0] : 0) | ((c & 2u) ? b[1] : 0) |
                                                 ((c & 4u) ? b[2] : 0) | ((c & 8u) ? b[3] : 0);
}

/* Slot r of a lane's 16-code table: the masks of 32-bit pattern word w
 * (valid), or 0 (an empty slot, a word past the pattern). */
template <int R>
HD void wc_store_word(uint32_t *peq_w, uint32_t lane, int r, const witem &it, uint32_t w, int valid)
{
    uint32_t b[4] = { 0, 0, 0, 0 };
    if (valid) {
        const uint32_t lo = w * 32u;
        const uint32_t hi = it.m - lo < 32u ? it.m : lo + 32u;
        for (uint32_t i = lo; i < hi; ++i) {
            const uint32_t c = it.pat.at(i);
            const uint32_t bit = 1u << (i - lo);
            for (int x = 0; x < 4; ++x)
                if (c & (1u << x)) b[x] |= bit;
        }
    }
    wc_put_masks<R>(peq_w, lane, r, b);
}

template <int R>
HD void wc_build_peq(uint32_t *peq_w, uint32_t lane, uint32_t g, const witem &it)
{
    for (int r = 0; r < R; ++r) {
        const uint32_t w = g * (uint32_t)R + (uint32_t)r;
        wc_store_word<R>(peq_w, lane, r, it, w, it.ncols && w < it.w32);
    }
}

template <int R>
HD void wc_init(wlane<R> &L, const witem &it)
{
    for (int r = 0; r < R; ++r) {
        L.pv[r] = ~0u;
        L.mv[r] = 0;
    }
    L.score = (int32_t)it.m;
    lm_init(L.lm);
}

/* Step t of lane g: column c = t - g when 0 <= c < ncols (code = text code
 * of position j0 + c); h2in: lane g-1's carry (io bits 0-1; 0 for g = 0).
 * Returns the carry of the lane's last word (0 when idle).  The lane
 * holding row m-1 keeps the score and reports local minima. */
template <int R, class Emit>
HD uint32_t wc_step(wlane<R> &L, const uint32_t *peq_w, uint32_t lane, uint32_t g,
                    const witem &it, uint32_t t, uint32_t h2in, uint32_t code, Emit &emit)
{
    const uint32_t c = t - g;                 /* wraps when t < g: idle */
    if (t < g || c >= it.ncols) return 0;
    const uint32_t wl = it.w32 - 1u;          /* word of row m-1 */
    const uint32_t glast = wl / (uint32_t)R;
    uint32_t sph = 0, smh = 0;
    const uint32_t h = wc_words<R>(L.pv, L.mv, peq_w, lane, code, h2in, wl % (uint32_t)R, sph, smh);
    if (g == glast) {
        L.score += wc_delta(sph, smh, 1u << ((it.m - 1u) & 31u));
        lm_push(L.lm, L.score, it.win.j0 + c, it.k, it.win.s0, it.win.s1, emit);
    }
    return h;
}

/* After the last step: the virtual column n (no right neighbour). */
template <int R, class Emit>
HD void wc_finish(wlane<R> &L, uint32_t g, const witem &it, Emit &emit)
{
    const uint32_t glast = (it.w32 - 1u) / (uint32_t)R;
    if (it.ncols && g == glast && it.win.jend == it.n)
        lm_push(L.lm, (int32_t)BIGD, it.n, it.k, it.win.s0, it.win.s1, emit);
}

/* ======================================================================
 * Path SIMPLE (the #2 kernel, knob cuda_simple and the fallback for
 * patterns longer than the warp path holds): one thread per item, W
 * 64-bit words in registers (WC > 0) or in global scratch (WC == 0).
 * ====================================================================== */

template <int W> struct reg_store {
    uint64_t pv[W], mv[W], b[4][W];
    HD uint64_t &PV(uint32_t w) { return pv[w]; }
    HD uint64_t &MV(uint32_t w) { return mv[w]; }
    HD uint64_t &B(int base, uint32_t w) { return b[base][w]; }
};

/* Slot s of global scratch: array a (0 Pv, 1 Mv, 2..5 B[0..3]), word w at
 * scratch[(a * wmax + w) * nslot + s]; p = scratch + s. */
struct glob_store {
    uint64_t *p;
    size_t nslot, wmax;
    HD uint64_t &PV(uint32_t w) { return p[(size_t)w * nslot]; }
    HD uint64_t &MV(uint32_t w) { return p[(wmax + w) * nslot]; }
    HD uint64_t &B(int base, uint32_t w) { return p[((2 + (size_t)base) * wmax + w) * nslot]; }
};

template <int WC, class Store, class Emit>
HD void simple_run(Store &st, uint32_t words, const seqv &pat, const seqv &txt,
                   const window &win, int32_t k, Emit &emit)
{
    const uint32_t m = pat.len;
    const uint32_t nw = WC > 0 ? (uint32_t)WC : words;
    for (uint32_t w = 0; w < nw; ++w) {
        uint64_t b[4];
        word_masks(pat, w, b);
        for (int x = 0; x < 4; ++x) st.B(x, w) = b[x];
        st.PV(w) = ~(uint64_t)0;
        st.MV(w) = 0;
    }
    const uint64_t top = (uint64_t)1 << 63;
    const uint64_t hl = (uint64_t)1 << ((m - 1u) & 63u);
    int32_t score = (int32_t)m;
    lmin lm;
    lm_init(lm);
    for (uint32_t j = win.j0; j < win.jend; ++j) {
        const uint32_t c = txt.at(j);
        const uint64_t s_a = (uint64_t)0 - (uint64_t)(c & 1u);
        const uint64_t s_c = (uint64_t)0 - (uint64_t)((c >> 1) & 1u);
        const uint64_t s_g = (uint64_t)0 - (uint64_t)((c >> 2) & 1u);
        const uint64_t s_t = (uint64_t)0 - (uint64_t)((c >> 3) & 1u);
        int h = 0;
        for (uint32_t w = 0; w < nw; ++w) {
            const uint64_t eq = (st.B(0, w) & s_a) | (st.B(1, w) & s_c) |
                                (st.B(2, w) & s_g) | (st.B(3, w) & s_t);
            uint64_t pv = st.PV(w), mv = st.MV(w);
            h = block_step<uint64_t>(pv, mv, eq, h, w + 1 == nw ? hl : top);
            st.PV(w) = pv;
            st.MV(w) = mv;
        }
        score += h;
        lm_push(lm, score, j, k, win.s0, win.s1, emit);
    }
    if (win.jend == txt.len) lm_push(lm, (int32_t)BIGD, txt.len, k, win.s0, win.s1, emit);
}

/* ======================================================================
 * Routing: which path searches a (read, target) pair.  Host and device
 * agree through this one function.
 * ====================================================================== */

enum {
    RP_MAX_M = 256,      /* read-as-pattern group path: W = 1..4 64-bit words */
    TP_MAX_M = 64,       /* target-as-pattern single-word path */
    WARP_RMAX = 4,       /* warp path: up to 4 32-bit words per lane */
    WARP_MAX_M = 32 * 32 * WARP_RMAX,   /* 4096 */
    /* Classes of the per-pair enumeration (count, scan, search): */
    CLS_GLOB = 0,        /* simple, global scratch */
    CLS_REG1 = 1,        /* simple, W = 1..4 registers: 1..4 */
    CLS_WARP_R1 = 5,     /* warp R = 1, LP = 1, 2, 4, 8, 16, 32: 5..10 */
    CLS_WARP_R2 = 11,    /* warp R = 2, 3, 4 with LP = 32: 11..13 */
    CLS_LONG = 14,       /* LONG (myers_long_core.cuh), shapes 0..7: 14..21 */
    LONG_SHAPES = 8,
    NCLS = 22,
    ROUTE_NONE = -1, ROUTE_RP = -2, ROUTE_TP = -3
};

struct route_knobs {
    int32_t simple;       /* everything through the simple path */
    int32_t force_global; /* simple path: global scratch for every W */
    int32_t force_warp;   /* every pair through the warp path (m <= 4096) */
    int32_t no_warp;      /* long patterns through the simple path */
    int32_t warp_lanes;   /* most lanes per warp group: 1..32 (power of 2) */
    int32_t long_mode;    /* LONG path: 0 off, 1 for m > 4096 and the warp
                             pairs of long_takes_warp(), 2 also for every
                             warp pair, 3 for m > 4096 only */
    int32_t long_rmax;    /* LONG path: widest strip, words per lane (1..6) */
    int32_t long_ends;    /* LONG path: takes its pairs' text-end partials
                             (long_end_omin(), myers_long_core.cuh) */
    int32_t long_pad;     /* LONG path: rows of margin over 2.5 k in the
                             first strip's shape (long_band_rows()) */
};

HD int lanes_class(uint32_t lp)
{
    int c = 0;
    while ((1u << c) < lp) ++c;
    return c;   /* log2 */
}

/* Rows the first strip should hold: the rows that can be <= k on unrelated
 * text.  On random DNA the last row with D <= k over 4,096-column segments
 * peaked at 2.27k (m = 1024, k = 102, 200,000 columns), 2.10k (4097, 409),
 * 2.07k (10000, 1000) and 2.76k (256, 25) (a plain DP, column by column,
 * issue #11's notes); 2.5k + 64 rows leaves deeper strips for hits and
 * repeats. */
#define LONG_BAND_PAD 64u
HD uint32_t long_band_rows(uint32_t m, int32_t k, uint32_t pad = LONG_BAND_PAD)
{
    const uint64_t want = 5u * (uint64_t)(uint32_t)k / 2u + pad;
    return want < m ? (uint32_t)want : m;
}

/* Shape of a LONG class: lanes per group LP and words per lane R:
 * (8, 1), (16, 1), (32, 1), then 32 lanes of R = 2 .. 6 words (strips of
 * 2,048 .. 6,144 rows).  A strip's rows all run at every column it is
 * entered, so the strip that holds long_band_rows() most tightly is the
 * cheapest: a 10 kb read at -e 0.2 (band 5,064 rows) took two strips of
 * R = 4 (8,192 rows on unrelated text, where rows to ~4,100 are <= k)
 * when R = 4 was the widest, and takes one strip of R = 5 (5,120). */
HD void long_shape(int idx, uint32_t *R, uint32_t *lp)
{
    *lp = idx == 0 ? 8u : idx == 1 ? 16u : 32u;
    *R = idx <= 2 ? 1u : (uint32_t)idx - 1u;
}

/* Shape index of a pattern of m bases with threshold k: the smallest strip
 * of 32 LP R rows that holds long_band_rows(), else the largest, among
 * the shapes of at most rmax words per lane. */
HD int long_shape_of(uint32_t m, int32_t k, uint32_t rmax = 6, uint32_t pad = LONG_BAND_PAD)
{
    const uint32_t rows = long_band_rows(m, k, pad);
    int last = 0;
    for (int i = 0; i < LONG_SHAPES; ++i) {
        uint32_t R, lp;
        long_shape(i, &R, &lp);
        if (R > rmax) break;
        last = i;
        if (32u * R * lp >= rows) return i;
    }
    return last;
}

/* Does a pattern of the warp path (m <= 4096) take the LONG path under
 * long_mode 1?  From 1,024 bases, where the cut-off band holds at most half
 * the rows (k <= about m / 5 - 26): the WARP wavefront computes every row,
 * the LONG strips only the band on unrelated text.  P1 (one pattern vs 4 Mi
 * random bases, k = m / 10) on an H100: m = 1,024 / 2,048 / 4,096 at 4.5 /
 * 5.2 / 6.5 TCUPS on the warp path, 9.0 / 12.4 / 12.2 on LONG
 * (BENCHMARKS.md, "P1 ..., old build and new, call 4"); a 4 kb read at
 * -e 0.2 (band 2,064 of 4,000 rows) stays on the warp path. */
#define LONG_WARP_MIN_M 1024u
HD bool long_takes_warp(uint32_t m, int32_t k)
{
    return m >= LONG_WARP_MIN_M && 2u * long_band_rows(m, k) <= m;
}

/* Route of a pair with pattern length m, threshold k (gpuasm_pair_searched() already true).
 * Returns ROUTE_RP / ROUTE_TP (group / small-target kernels, enumerated on
 * the host) or a class id. */
HD int route(const route_knobs &kn, int rip, uint32_t m, int32_t k)
{
    const uint32_t w64 = (m + 63u) / 64u;
    if (kn.simple) return (!kn.force_global && w64 <= 4) ? (int)w64 : CLS_GLOB;
    if (!kn.force_warp) {
        if (rip && m <= RP_MAX_M) return ROUTE_RP;
        if (!rip && m <= TP_MAX_M) return ROUTE_TP;
    }
    if (kn.long_mode == 2 || (kn.long_mode != 0 && m > WARP_MAX_M) ||
        (kn.long_mode == 1 && long_takes_warp(m, k)))
        return CLS_LONG + long_shape_of(m, k, (uint32_t)kn.long_rmax, (uint32_t)kn.long_pad);
    if (!kn.no_warp && m <= WARP_MAX_M) {
        const uint32_t w32 = (m + 31u) / 32u;
        const uint32_t maxl = (uint32_t)kn.warp_lanes;
        const uint32_t R = (w32 + maxl - 1u) / maxl;
        if (R <= 1) {
            uint32_t lp = 1;
            while (lp < w32) lp <<= 1;
            return CLS_WARP_R1 + lanes_class(lp);
        }
        if (R <= WARP_RMAX) return CLS_WARP_R2 + (int)R - 2;
    }
    return (!kn.force_global && w64 <= 4) ? (int)w64 : CLS_GLOB;
}

/* Lanes per group and words per lane of a warp class. */
HD void warp_shape(int cls, uint32_t *R, uint32_t *lp)
{
    if (cls >= CLS_WARP_R2) {
        *R = (uint32_t)(cls - CLS_WARP_R2 + 2);
        *lp = 32;
    } else {
        *R = 1;
        *lp = 1u << (cls - CLS_WARP_R1);
    }
}

/* Everything the per-pair enumeration needs, by value. */
struct pair_params {
    gpuasm_batch_view v;   /* the batch on the device */
    route_knobs kn;
    uint32_t seg_simple;   /* segment length of the simple path (>= 1) */
    uint32_t seg_warp;     /* segment length of the warp path (>= 1) */
    uint32_t seg_long;     /* LONG path: segment length, 0: max(seg_warp, 2 (m + k)) */
    uint64_t pair0;        /* first pair of the current chunk */
};

struct pair_info {
    seqv pat, txt;         /* strand 0 views (rc = 0) */
    uint32_t m, n, r, t;
    int32_t k;
    int32_t rip;
    int32_t cls;           /* route */
    uint64_t seglen, nseg; /* nseg == 0: not searched */
};

HD pair_info get_pair(const pair_params &sp, uint64_t pair)
{
    pair_info pi;
    const pair_ref x = pair_at(sp.v, pair);
    const gpuasm_pair &pr = x.p;
    pi.r = x.r;
    pi.t = x.t;
    pi.rip = pr.read_is_pattern;
    pi.pat.p = x.pat;
    pi.txt.p = x.txt;
    pi.m = (uint32_t)pr.m;
    pi.n = (uint32_t)pr.n;
    pi.pat.len = pi.m;
    pi.txt.len = pi.n;
    pi.pat.rc = 0;
    pi.txt.rc = 0;
    pi.k = pr.k;
    pi.seglen = 0;
    pi.nseg = 0;
    pi.cls = ROUTE_NONE;
    if (!pr.searched) return pi;
    pi.cls = route(sp.kn, pi.rip, pi.m, pi.k);
    const uint64_t mk = (uint64_t)pi.m + (uint64_t)pi.k;
    uint64_t smin = pi.cls >= CLS_WARP_R1 ? sp.seg_warp : sp.seg_simple;
    /* LONG: segments of at least 2 (m + k), so the overlap of m + k columns
     * costs at most a third of an item (the warp path's 4,096 would triple
     * the work of a 10 kb pattern). */
    if (pi.cls >= CLS_LONG) smin = sp.seg_long ? sp.seg_long : (sp.seg_warp > 2 * mk ? sp.seg_warp : 2 * mk);
    pi.seglen = mk > smin ? mk : smin;
    pi.nseg = ((uint64_t)pi.n + pi.seglen - 1) / pi.seglen;
    return pi;
}

/* Items of a pair for class cls: 2 strands x nseg, 0 if not in it. */
HD uint64_t pair_items(const pair_params &sp, uint64_t pair, int cls)
{
    const pair_info pi = get_pair(sp, pair);
    if (pi.nseg == 0 || pi.cls != cls) return 0;
    return 2 * pi.nseg;
}

/* Item `local` (strand = local & 1, segment = local >> 1) of a pair: the
 * strand-specific views and the window. */
HD void item_views(const pair_info &pi, uint64_t local, uint32_t *strand, seqv *pat,
                   seqv *txt, window *win)
{
    *strand = (uint32_t)(local & 1u);
    const uint64_t seg = local >> 1;
    *pat = pi.pat;
    *txt = pi.txt;
    pat->rc = pi.rip && *strand;
    txt->rc = !pi.rip && *strand;
    *win = make_window(seg, pi.seglen, pi.n, (uint64_t)pi.m + (uint64_t)pi.k);
}

/* ---- the TP (small target) path's per-read enumeration ---------------- */

struct tp_params {
    gpuasm_batch_view v;   /* the batch on the device */
    uint32_t seglen;       /* text segment length (>= 1) */
    uint32_t ov;           /* max over eligible small targets of m + k */
    uint32_t minlen;       /* shortest eligible small target (UINT32_MAX: none) */
    int32_t active;        /* the path is on (not simple / force_warp) */
};

/* Does read r (rlen bases) have any TP pair with an eligible small target?
 * TP means !read_is_pattern(rlen, tlen); for SHORTER that is tlen < rlen. */
HD int tp_read_has_work(const tp_params &tp, uint64_t rlen)
{
    if (!tp.active || rlen == 0 || tp.minlen == UINT32_MAX) return 0;
    if (tp.v.opt.pattern_side == GPUASM_PATTERN_READ) return 0;
    if (tp.v.opt.pattern_side == GPUASM_PATTERN_TARGET) return 1;
    return tp.minlen < rlen;
}

HD uint64_t tp_read_items(const tp_params &tp, uint64_t rlen)
{
    if (!tp_read_has_work(tp, rlen)) return 0;
    return 2 * ((rlen + tp.seglen - 1) / tp.seglen);
}

}  /* namespace gcore */

#endif
