/* SPDX-License-Identifier: MIT */
/* ends_word.c -- the CPU ends pass on one or two words (see ends_word.h). */
#include <string.h>

#include "walk/ends_word.h"

void gpuasm_ends_word_build(ends_word *e, const gpuasm_search_opt *opt, const uint8_t *pat, uint32_t m,
                            uint32_t omin)
{
    const int32_t fl = gpuasm_pair_partial_floor(opt, 0);
    memset(e, 0, sizeof *e);
    e->m = m;
    e->nw = (m + 63u) / 64u;
    e->omin = omin;
    e->kmax = gpuasm_partial_kf(opt, fl, m - 1u, m);
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t x = 0; x < 4; x++) {
            if (pat[i] & (1u << x)) e->bm[0][x][i / 64u] |= (uint64_t)1 << (i % 64u);
            if (pat[m - 1u - i] & (1u << x)) e->bm[1][x][i / 64u] |= (uint64_t)1 << (i % 64u);
        }
    for (uint32_t p = 0; p < m; p++) {
        const int32_t k = p < omin ? -1 : gpuasm_partial_kf(opt, fl, p, m);
        e->kp[p] = (int8_t)(k < 0 || (int64_t)k >= (int64_t)p ? -1 : k > 127 ? 127 : k);
    }
}

/* gpuasm_ends_word_best() for a pattern of one word: the same step without the
 * carry and the word loop (most adapters and primers; the loop costs 3% of
 * a 158-adapter screen's instructions, callgrind). */
static gpuasm_partial partial_best_word1(const ends_word *e, const uint8_t *text, uint32_t n, int at_start)
{
    gpuasm_partial best = { 0, 0 };
    const uint32_t m = e->m;
    uint64_t wlen = (uint64_t)(m - 1u) + (uint64_t)e->kmax;
    const uint32_t W = (uint32_t)(wlen > n ? n : wlen);
    const uint64_t b0 = e->bm[at_start][0][0], b1 = e->bm[at_start][1][0], b2 = e->bm[at_start][2][0],
                   b3 = e->bm[at_start][3][0];
    uint64_t pv = ~(uint64_t)0, mv = 0, leq = 0, lph = 0, lmh = 0;
    for (uint32_t q = 0; q < W; q++) {
        const uint8_t tc = at_start ? text[W - 1u - q] : text[n - W + q];
        const uint64_t eq = ((tc & 1u) ? b0 : 0) | ((tc & 2u) ? b1 : 0) | ((tc & 4u) ? b2 : 0) |
                            ((tc & 8u) ? b3 : 0);
        const uint64_t xv = eq | mv;
        const uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
        uint64_t ph = mv | ~(xh | pv);
        uint64_t mh = pv & xh;
        leq = eq;
        lph = ph;
        lmh = mh;
        ph <<= 1;
        mh <<= 1;
        pv = mh | ~(xv | ph);
        mv = ph & xv;
    }
    const uint32_t p0 = e->omin - 1u;
    const uint64_t below = (((uint64_t)1 << p0) - 1u);   /* p0 <= 62 */
    int32_t d = __builtin_popcountll(pv & below) - __builtin_popcountll(mv & below);
    int32_t e1 = p0 ? d - ((int32_t)((lph >> (p0 - 1u)) & 1u) - (int32_t)((lmh >> (p0 - 1u)) & 1u)) : 0;
    for (uint32_t p = e->omin; p < m; p++) {
        const uint32_t b = p - 1u;
        d += (int32_t)((pv >> b) & 1u) - (int32_t)((mv >> b) & 1u);
        const int32_t ev = d - ((int32_t)((lph >> b) & 1u) - (int32_t)((lmh >> b) & 1u));
        const int32_t kp = e->kp[p];
        if (kp >= 0) {
            const int32_t diag = e1 + (int32_t)!((leq >> b) & 1u), left = ev + 1;
            const int32_t dp = diag < left ? diag : left;
            if (dp <= kp) gpuasm_partial_keep(&best, p, dp);
        }
        e1 = ev;
    }
    return best;
}

/* gpuasm_partial_best() of partial.h, edit mode, for an ends_word pattern
 * against text[0 .. n) (a read strand as searched): the same Myers block
 * step (Hyyro's, a carry between the words) over the same window and the
 * same row rule, so the same (plen, dist); test_kernels' engine cases and
 * tests/c/test_ends_filter.c compare the two. */
gpuasm_partial gpuasm_ends_word_best(const ends_word *e, const uint8_t *text, uint32_t n, int at_start)
{
    gpuasm_partial best = { 0, 0 };
    const uint32_t m = e->m, nw = e->nw;
    if (e->omin == 0 || e->omin >= m || n == 0 || e->kmax < 0) return best;
    if (nw == 1) return partial_best_word1(e, text, n, at_start);
    uint64_t wlen = (uint64_t)(m - 1u) + (uint64_t)e->kmax;
    const uint32_t W = (uint32_t)(wlen > n ? n : wlen);
    const uint64_t (*bm)[EW_WORDS] = e->bm[at_start];
    uint64_t pv[EW_WORDS], mv[EW_WORDS], leq[EW_WORDS], lph[EW_WORDS], lmh[EW_WORDS];
    for (uint32_t w = 0; w < EW_WORDS; w++) {
        pv[w] = ~(uint64_t)0;
        mv[w] = leq[w] = lph[w] = lmh[w] = 0;
    }
    for (uint32_t q = 0; q < W; q++) {
        const uint8_t tc = at_start ? text[W - 1u - q] : text[n - W + q];
        int hin = 0;
        for (uint32_t w = 0; w < nw; w++) {
            const uint64_t eq = ((tc & 1u) ? bm[0][w] : 0) | ((tc & 2u) ? bm[1][w] : 0) |
                                ((tc & 4u) ? bm[2][w] : 0) | ((tc & 8u) ? bm[3][w] : 0);
            const uint64_t p0 = pv[w], m0 = mv[w];
            const uint64_t hneg = (uint64_t)(hin < 0), hpos = (uint64_t)(hin > 0);
            const uint64_t xv = eq | m0, eqh = eq | hneg;
            const uint64_t xh = (((eqh & p0) + p0) ^ p0) | eqh;
            uint64_t ph = m0 | ~(xh | p0);
            uint64_t mh = p0 & xh;
            hin = (int)(ph >> 63) - (int)(mh >> 63);
            leq[w] = eq;
            lph[w] = ph;
            lmh[w] = mh;
            ph = (ph << 1) | hpos;
            mh = (mh << 1) | hneg;
            pv[w] = mh | ~(xv | ph);
            mv[w] = ph & xv;
        }
    }
    /* Rows from omin - 1 on: D of row p of the last column is the prefix
     * sum of the vertical deltas, popcounts to get there. */
    const uint32_t p0 = e->omin - 1u;
    int32_t d = 0;
    for (uint32_t w = 0; w < nw && 64u * w < p0; w++) {
        const uint32_t rows = p0 - 64u * w;
        const uint64_t below = rows >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << rows) - 1u);
        d += __builtin_popcountll(pv[w] & below) - __builtin_popcountll(mv[w] & below);
    }
    int32_t e1 = 0;
    if (p0) {
        const uint32_t w = (p0 - 1u) / 64u, b = (p0 - 1u) % 64u;
        e1 = d - ((int32_t)((lph[w] >> b) & 1u) - (int32_t)((lmh[w] >> b) & 1u));
    }
    for (uint32_t p = e->omin; p < m; p++) {
        const uint32_t w = (p - 1u) / 64u, b = (p - 1u) % 64u;
        d += (int32_t)((pv[w] >> b) & 1u) - (int32_t)((mv[w] >> b) & 1u);
        const int32_t ev = d - ((int32_t)((lph[w] >> b) & 1u) - (int32_t)((lmh[w] >> b) & 1u));
        const int32_t kp = e->kp[p];
        if (kp >= 0) {
            const int32_t diag = e1 + (int32_t)!((leq[w] >> b) & 1u), left = ev + 1;
            const int32_t dp = diag < left ? diag : left;
            if (dp <= kp) gpuasm_partial_keep(&best, p, dp);
        }
        e1 = ev;
    }
    return best;
}

