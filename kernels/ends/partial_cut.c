/* SPDX-License-Identifier: MIT */
/* partial_cut.c -- the CPU ends pass of long patterns with Ukkonen's
 * cut-off (partial_cut.h says why it is exact). */
#include "kernels/ends/partial_cut.h"

/* Rows of block b of m rows in nw blocks, and its last row's bit. */
static inline int64_t cut_rows(uint32_t m, uint32_t nw, uint32_t b)
{
    return b + 1 < nw ? 64 : (int64_t)m - (int64_t)(nw - 1) * 64;
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
    uint64_t wlen = (uint64_t)(m - 1u) + (uint64_t)kmax;
    if (wlen > n) wlen = n;
    const uint32_t W = (uint32_t)wlen, nw = (m + 63u) / 64u;
    /* ws: pv, mv, the last column's Eq, Ph and Mh, the blocks' last-row
     * scores ([nw] each), then Peq [16][nw]: bit i of Peq[c] is set when
     * pattern base i holds a base of text code c (the nt16 rule (a & b) !=
     * 0, IUPAC sets included; code 0, a read's N, matches nothing). */
    uint64_t *pv = ws, *mv = ws + nw, *leq = ws + 2 * nw, *lph = ws + 3 * nw, *lmh = ws + 4 * nw;
    int64_t *score = (int64_t *)(ws + 5 * nw);
    uint64_t *peq = ws + 6 * nw;
    for (uint32_t w = 0; w < 16 * nw; w++) peq[w] = 0;
    for (uint32_t i = 0; i < m; i++) {
        const uint8_t c = gpuasm_seqview_at(pat, i, at_start) & 15u;
        for (uint32_t x = 1; x < 16; x++)
            if (c & x) peq[x * nw + i / 64u] |= (uint64_t)1 << (i % 64u);
    }
    /* Column -1: D[i] = i; rows <= kmax lie in blocks 0 .. kmax / 64. */
    uint32_t last = (uint32_t)kmax / 64u < nw - 1 ? (uint32_t)kmax / 64u : nw - 1;
    for (uint32_t b = 0; b <= last; b++) {
        pv[b] = ~(uint64_t)0;
        mv[b] = 0;
        score[b] = (int64_t)b * 64 + cut_rows(m, nw, b);
    }
    const uint64_t hbit_last = (uint64_t)1 << ((m - 1u) % 64u);
    for (uint32_t q = 0; q < W; q++) {
        const uint8_t tc = gpuasm_seqview_at(txt, at_start ? W - 1u - q : n - W + q, 0);
        const uint64_t *peqc = peq + (size_t)(tc & 15u) * nw;
        const int final = q + 1 == W;
        int hin = 0;   /* row 0: free start */
        int entered = 0;
        for (uint32_t w = 0;; w++) {
            const uint64_t eq = peqc[w];
            /* Hyyro's block step, written out as partial.h does (the
             * device's copy): hin enters the block's top row, its bit-63
             * delta leaves for the block below.  myers_block.h's
             * gpuasm_myers_block_step() here made a 200 kb pair 6% slower
             * (5.6-5.7 -> 5.95-6.0 s, -@ 2): its hout select per block. */
            const uint64_t p0 = pv[w], m0 = mv[w];
            const uint64_t hneg = (uint64_t)(hin < 0), hpos = (uint64_t)(hin > 0);
            const uint64_t xv = eq | m0;
            const uint64_t eqh = eq | hneg;
            const uint64_t xh = (((eqh & p0) + p0) ^ p0) | eqh;
            uint64_t ph = m0 | ~(xh | p0);
            uint64_t mh = p0 & xh;
            const uint64_t hb = w + 1 < nw ? (uint64_t)1 << 63 : hbit_last;
            score[w] += (int64_t)((ph & hb) != 0) - (int64_t)((mh & hb) != 0);
            hin = (int)(ph >> 63) - (int)(mh >> 63);
            if (final) {   /* the last column, for the row walk */
                leq[w] = eq;
                lph[w] = ph;
                lmh[w] = mh;
            }
            ph = (ph << 1) | hpos;
            mh = (mh << 1) | hneg;
            pv[w] = mh | ~(xv | ph);
            mv[w] = ph & xv;
            if (w < last) continue;
            /* Block w + 1 enters where block w's last row (bit 63: hin is
             * its delta) was <= kmax in the column before; one entry a
             * column (run_blocks' argument: only its first row can be
             * <= kmax), so a block just entered lets none in below it. */
            if (entered || w + 1 >= nw || score[w] - hin > kmax) break;
            entered = 1;
            pv[w + 1] = ~(uint64_t)0;
            mv[w + 1] = 0;
            score[w + 1] = score[w] - hin + cut_rows(m, nw, w + 1);
            last = w + 1;
        }
        if (!final)
            while (last > 0 && score[last] >= (int64_t)kmax + cut_rows(m, nw, last)) last--;
    }
    /* The row walk over the blocks computed at the last column; rows below
     * them are > kmax at column W - 2, so a candidate there could only come
     * from the diagonal term of the first row below (e1 exact, e > kmax). */
    const int32_t big = kmax + 2;   /* "> kmax": e + 1 and e1 + 1 stay past every k_p */
    const uint32_t rows = last + 1 < nw ? (last + 1) * 64u : m;   /* rows 1 .. rows computed */
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
