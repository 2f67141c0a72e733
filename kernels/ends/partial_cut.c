/* SPDX-License-Identifier: MIT */
/* partial_cut.c -- the CPU ends pass of long patterns with Ukkonen's
 * cut-off (partial_cut.h says why it is exact). */
#include "kernels/band_wave.h"
#include "kernels/bands.h"
#include "kernels/ends/partial_cut.h"

#define BAND GPUASM_BAND_BLOCKS
#define NEVER INT64_MAX

/* One end's bands (kernels/bands.h's ctx): the window's W columns, the
 * pattern's nw blocks in bands of 4 or 8 (bands.h; myers_bands.c's
 * schedule and cut-off). */
typedef struct cut_bands {
    const uint64_t *peq;    /* [16][nw] */
    uint32_t m, nw, W;
    size_t nb;
    uint32_t bb;            /* blocks a band (gpuasm_bands_blocks) */
    int32_t kmax;
    int8_t *hb;             /* [W] */
    uint8_t *codes;         /* [W] the window's text codes in column order */
    uint64_t *pv, *mv;      /* [nw] the final column's, for the row walk */
    uint64_t *leq, *lph, *lmh;
} cut_bands;

static uint32_t band_blocks(const cut_bands *c, size_t b)
{
    const uint32_t b0 = (uint32_t)b * c->bb;
    return c->nw - b0 < c->bb ? c->nw - b0 : c->bb;
}

/* Columns [j0, j1) of band b (the last band, of ns blocks), one block
 * after the other.  The final column leaves Eq, Ph and Mh for the row
 * walk. */
static void cut_columns(const cut_bands *c, size_t b, uint32_t ns, uint64_t hbit, gpuasm_band_state *st, int64_t j0, int64_t j1)
{
    const uint32_t b0 = (uint32_t)b * c->bb, W = c->W;
    uint64_t pv[BAND], mv[BAND];
    for (uint32_t s = 0; s < ns; s++) {
        pv[s] = st->pv[s];
        mv[s] = st->mv[s];
    }
    int64_t bottom = st->bottom;
    for (int64_t q = j0; q < j1; q++) {
        const uint8_t tc = c->codes[q];
        const uint64_t *peqc = c->peq + (size_t)(tc & 15u) * c->nw + b0;
        uint64_t hp = 0, hn = 0;
        if (b0) {
            hp = (uint64_t)(c->hb[q] > 0);
            hn = (uint64_t)(c->hb[q] < 0);
        }
        const int final = q + 1 == (int64_t)W;
        int h = 0;
#pragma GCC unroll 8
        for (uint32_t s = 0; s < ns; s++) {
            /* Hyyro's block step, written out as partial.h does (the
             * device's copy): (hp, hn) enters the block's top row, its
             * bit-63 delta leaves for the block below (myers_block.h's
             * form, with its select, was 6% slower on a 200 kb pair). */
            const uint64_t eq = peqc[s], p0 = pv[s], m0 = mv[s];
            const uint64_t xv = eq | m0;
            const uint64_t eqh = eq | hn;
            const uint64_t xh = (((eqh & p0) + p0) ^ p0) | eqh;
            uint64_t ph = m0 | ~(xh | p0);
            uint64_t mh = p0 & xh;
            if (final) {   /* the last column, for the row walk */
                c->leq[b0 + s] = eq;
                c->lph[b0 + s] = ph;
                c->lmh[b0 + s] = mh;
            }
            if (s + 1 == ns) h = (int)((ph & hbit) != 0) - (int)((mh & hbit) != 0);
            const uint64_t op = ph >> 63, on = mh >> 63;
            ph = (ph << 1) | hp;
            mh = (mh << 1) | hn;
            pv[s] = mh | ~(xv | ph);
            mv[s] = ph & xv;
            hp = op;
            hn = on;
        }
        c->hb[q] = (int8_t)h;
        bottom += h;
        if (bottom <= c->kmax && st->exit_f == NEVER) {
            st->exit_f = q;
            st->exit_d = bottom;
        }
    }
    for (uint32_t s = 0; s < ns; s++) {
        st->pv[s] = pv[s];
        st->mv[s] = mv[s];
    }
    st->bottom = bottom;
}

/* On x86-64 AVX-512 and AVX2 clones as well (band_wave.h). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static int64_t cut_run(void *ctx, size_t b, gpuasm_band_state *st, int64_t j0, int64_t j1)
{
    const cut_bands *c = ctx;
    const uint32_t ns = band_blocks(c, b);
    if (b + 1 < c->nb)   /* bands before the last are full */
    {
        /* band_wave.h's wavefront over the window's codes in column order;
         * the final column's Eq, Ph and Mh go to the row walk */
        const uint32_t b0 = (uint32_t)b * c->bb;
        const gpuasm_wave_io io = { c->peq + b0, c->nw, 1, c->codes, c->hb, b == 0, c->W, c->kmax,
                                    (int64_t)c->W - 1, c->leq + b0, c->lph + b0, c->lmh + b0 };
        return gpuasm_wave_band_run((int)c->bb, &io, st, j0, j1);
    }
    cut_columns(c, b, ns, b + 1 < c->nb ? (uint64_t)1 << 63 : (uint64_t)1 << ((c->m - 1u) % 64u), st, j0, j1);
    return j1;
}

static void cut_finish(void *ctx, size_t b, const gpuasm_band_state *st)
{
    const cut_bands *c = ctx;
    if (!st) return;
    const uint32_t b0 = (uint32_t)b * c->bb, ns = band_blocks(c, b);
    for (uint32_t s = 0; s < ns; s++) {
        c->pv[b0 + s] = st->pv[s];
        c->mv[b0 + s] = st->mv[s];
    }
}

uint32_t gpuasm_partial_cut_ws_words(uint32_t m)
{
    return 22u * ((m + 63u) / 64u) + (uint32_t)(((uint64_t)4 * m + 7u) / 8u);
}

gpuasm_partial gpuasm_partial_best_cut(const gpuasm_search_opt *o, uint32_t omin, int32_t sfloor,
                                       const gpuasm_seqview *pat, const gpuasm_seqview *txt, int at_start,
                                       uint64_t *ws)
{
    gpuasm_partial best;
    best.plen = 0;
    best.dist = 0;
    const uint32_t m = pat->len, n = txt->len;
    if (omin == 0 || omin >= m || n == 0) return best;
    const int32_t kmax = gpuasm_partial_kf(o, sfloor, m - 1u, m);
    if (kmax < 0) return best;
    /* Kept rows have k_p < p <= m - 1 (gpuasm_partial_row), so their
     * alignments cover at most 2m - 3 text bases: a window past 2m - 1
     * columns gives the same kept candidates (partial.h's argument). */
    const uint64_t kw = (uint64_t)kmax < m ? (uint64_t)kmax : m;
    uint64_t wlen = (uint64_t)(m - 1u) + kw;
    if (wlen > n) wlen = n;
    const uint32_t W = (uint32_t)wlen, nw = (m + 63u) / 64u;
    /* ws: pv, mv, the last column's Eq, Ph and Mh ([nw] each), a spare
     * [nw], then Peq [16][nw] (bit i of Peq[c] is set when pattern base i
     * holds a base of text code c: the nt16 rule (a & b) != 0, IUPAC sets
     * included; code 0, a read's N, matches nothing), then the bands'
     * deltas hb[W] and the window's text codes in column order [W]. */
    cut_bands c;
    c.pv = ws;
    c.mv = ws + nw;
    c.leq = ws + 2 * nw;
    c.lph = ws + 3 * nw;
    c.lmh = ws + 4 * nw;
    uint64_t *peq = ws + 6 * nw;
    c.hb = (int8_t *)(ws + 22 * nw);
    c.codes = (uint8_t *)c.hb + W;
    for (uint32_t q = 0; q < W; q++) c.codes[q] = gpuasm_seqview_at(txt, at_start ? W - 1u - q : n - W + q, 0);
    for (uint32_t w = 0; w < 16 * nw; w++) peq[w] = 0;
    for (uint32_t i = 0; i < m; i++) {
        const uint8_t x = gpuasm_seqview_at(pat, i, at_start) & 15u;
        for (uint32_t y = 1; y < 16; y++)
            if (x & y) peq[y * nw + i / 64u] |= (uint64_t)1 << (i % 64u);
    }
    c.peq = peq;
    c.m = m;
    c.nw = nw;
    c.W = W;
    c.bb = (uint32_t)gpuasm_bands_blocks();
    c.nb = (nw + c.bb - 1) / c.bb;
    c.kmax = kmax;
    /* The bands from the fresh column -1 (D[i] = i), band b + 1 from the
     * first column >= band b's start whose bottom row is <= kmax: every
     * cell <= kmax is exact, every other computed cell an over-estimate,
     * and the rows of bands not entered are > kmax (myers_bands.c's
     * induction).  A band entered at the last column computes nothing:
     * its rows are > kmax there, and it is left out. */
    const gpuasm_band_ops ops = { &c, c.nb, (int64_t)W, m, c.bb, kmax, cut_run, cut_finish };
    int64_t last_start;
    long entered = gpuasm_bands_run(&ops, gpuasm_bands_helpers_for((uint64_t)nw * W), &last_start);
    if (entered > 0 && last_start >= (int64_t)W - 1) entered--;
    const uint32_t rows = entered <= 0 ? 0
                        : (size_t)entered == c.nb ? m : (uint32_t)entered * c.bb * 64u;   /* rows 1 .. rows computed */
    return gpuasm_partial_cut_rows(o, omin, sfloor, pat, txt, at_start, kmax, rows, c.pv, c.mv, c.leq, c.lph,
                                   c.lmh);
}

gpuasm_partial gpuasm_partial_cut_rows(const gpuasm_search_opt *o, uint32_t omin, int32_t sfloor,
                                       const gpuasm_seqview *pat, const gpuasm_seqview *txt, int at_start,
                                       int32_t kmax, uint32_t rows, const uint64_t *pv, const uint64_t *mv,
                                       const uint64_t *leq, const uint64_t *lph, const uint64_t *lmh)
{
    gpuasm_partial best;
    best.plen = 0;
    best.dist = 0;
    const uint32_t m = pat->len, n = txt->len;
    /* The row walk over the blocks computed at the last column; rows below
     * them are > kmax at column W - 2, so a candidate there could only come
     * from the diagonal term of the first row below (e1 exact, e > kmax). */
    const int32_t big = kmax + 2;   /* "> kmax": e + 1 and e1 + 1 stay past every k_p */
    int32_t d = 0, e1 = 0;
    for (uint32_t p = 1; p < m; p++) {
        int32_t e = big;
        int mismatch = 1;
        if (p <= rows) {
            const uint32_t w = (p - 1u) / 64u, b = (p - 1u) % 64u;
            d += (int32_t)((pv[w] >> b) & 1u) - (int32_t)((mv[w] >> b) & 1u);
            e = d - ((int32_t)((lph[w] >> b) & 1u) - (int32_t)((lmh[w] >> b) & 1u));
            mismatch = !((leq[w] >> b) & 1u);
        } else {
            /* P[p-1] against the last text base, for the diagonal term */
            const uint8_t pc = gpuasm_seqview_at(pat, p - 1u, at_start);
            const uint8_t tc = gpuasm_seqview_at(txt, at_start ? 0 : n - 1u, 0);
            mismatch = !(pc & tc);
            if (e1 >= big) break;   /* every row below: both terms > kmax */
        }
        gpuasm_partial_row(o, p, m, omin, sfloor, e1, e, mismatch, &best);
        e1 = e;
    }
    return best;
}
