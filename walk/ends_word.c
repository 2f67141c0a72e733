/* SPDX-License-Identifier: MIT */
/* ends_word.c -- the CPU ends pass on one or two words (see ends_word.h). */
#include <stddef.h>
#include <string.h>

#include "walk/ends_word.h"

void gpuasm_ends_word_build(ends_word *e, const gpuasm_search_opt *opt, const uint8_t *pat, uint32_t m,
                            uint32_t omin)
{
    const int32_t fl = gpuasm_pair_partial_floor(opt, 0);
    memset(e, 0, sizeof *e);
    e->m = m;
    /* The words of rows 1 .. m - 1, the only rows the rule reads: D of
     * row p depends on rows <= p alone (the carry runs down the words), so
     * a 65-base pattern's row 65 and its word are never needed (12 of the
     * 158 bbmap adapters: a two-word step for a one-word answer). */
    e->nw = m <= 65u ? 1u : 2u;
    e->omin = omin;
    e->kmax = gpuasm_partial_kf(opt, fl, m - 1u, m);
    /* Eq of code c: bit i set when pattern base i shares a base with c (the
     * nt16 rule (a & b) != 0, IUPAC sets on either side included). */
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t c = 0; c < 16; c++) {
            if (pat[i] & c) e->peq[0][i / 64u][c] |= (uint64_t)1 << (i % 64u);
            if (pat[m - 1u - i] & c) e->peq[1][i / 64u][c] |= (uint64_t)1 << (i % 64u);
        }
    for (uint32_t p = 0; p < m; p++) {
        const int32_t k = p < omin ? -1 : gpuasm_partial_kf(opt, fl, p, m);
        e->kp[p] = (int8_t)(k < 0 || (int64_t)k >= (int64_t)p ? -1 : k > 127 ? 127 : k);
    }
}

/* Bits set in x (SWAR: no popcnt in a generic x86-64 build, where
 * __builtin_popcountll is a libgcc call of ~21 instructions). */
static inline int32_t pop64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555u);
    x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return (int32_t)((x * 0x0101010101010101u) >> 56);
}

/* The shortest run of rows summed by pop64 rather than a row at a time. */
#define EW_JUMP 3

/* The row rule over the last column's vectors (nw words; a constant where
 * inlined).  D of row p of the last column is the prefix sum of the
 * vertical deltas, popcounts to get to row omin - 1.  D_p >= D[p][n-1]
 * (the last column's cell is the minimum of D_p's two terms and a
 * trailing deletion), and k_p <= k_{m-1}: a row whose D[p][n-1] is past
 * kmax holds no hit, and costs only its delta, taken from the vectors
 * shifted a bit a row (most rows of a text with no occurrence: the row
 * pass was two fifths of the ends pass, callgrind). */
static inline __attribute__((always_inline)) gpuasm_partial
rows_best(const ends_word *e, const uint64_t *pv, const uint64_t *mv, const uint64_t *leq,
          const uint64_t *lph, const uint64_t *lmh, uint32_t nw)
{
    gpuasm_partial best = { 0, 0 };
    const uint32_t m = e->m, p0 = e->omin - 1u;
    const int32_t kmax = e->kmax;
    int32_t d = 0;
    for (uint32_t w = 0; w < nw && 64u * w < p0; w++) {
        const uint32_t rows = p0 - 64u * w;
        const uint64_t below = rows >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << rows) - 1u);
        d += __builtin_popcountll(pv[w] & below) - __builtin_popcountll(mv[w] & below);
    }
    /* rows p = b + 1 for the bits b in [omin - 1, m - 2], word by word */
    for (uint32_t w = 0; w < nw; w++) {
        const uint32_t blo = p0 > 64u * w ? p0 : 64u * w, bhi = m - 2u < 64u * w + 63u ? m - 2u : 64u * w + 63u;
        if (blo > bhi) continue;
        uint64_t vp = pv[w] >> (blo % 64u), vm = mv[w] >> (blo % 64u);
        for (uint32_t b = blo; b <= bhi; b++, vp >>= 1, vm >>= 1) {
            const int32_t dprev = d;
            d += (int32_t)(vp & 1u) - (int32_t)(vm & 1u);
            if (d > kmax) {
                /* D drops at most 1 a row: the g rows after this one are
                 * past kmax too, their deltas summed at once */
                uint32_t g = (uint32_t)(d - kmax - 1);
                if (g > bhi - b) g = bhi - b;   /* < 64 */
                if (g >= EW_JUMP) {
                    const uint64_t low = ((uint64_t)2 << g) - 2u;   /* bits 1 .. g */
                    d += pop64(vp & low) - pop64(vm & low);
                    vp >>= g;
                    vm >>= g;
                    b += g;
                }
                continue;
            }
            const uint32_t p = b + 1u, s = b % 64u;
            const int32_t kp = e->kp[p];
            if (kp < 0) continue;
            /* e1 = D[p-1][n-2], ev = D[p][n-2]: D of the last column minus
             * the last step's horizontal delta (row 0: D[0][n-2] = 0) */
            const int32_t ev = d - ((int32_t)((lph[w] >> s) & 1u) - (int32_t)((lmh[w] >> s) & 1u));
            int32_t e1 = 0;
            if (b) {
                const uint32_t w1 = nw == 1 ? 0 : (b - 1u) / 64u, s1 = (b - 1u) % 64u;
                e1 = dprev - ((int32_t)((lph[w1] >> s1) & 1u) - (int32_t)((lmh[w1] >> s1) & 1u));
            }
            const int32_t diag = e1 + (int32_t)!((leq[w] >> s) & 1u), left = ev + 1;
            const int32_t dp = diag < left ? diag : left;
            if (dp <= kp) gpuasm_partial_keep(&best, p, dp);
        }
    }
    return best;
}

/* gpuasm_ends_word_best() for a pattern of one word: the same step without
 * the carry (most adapters and primers). */
static gpuasm_partial partial_best_word1(const ends_word *e, const uint8_t *text, uint32_t n, int at_start)
{
    const uint32_t m = e->m;
    uint64_t wlen = (uint64_t)(m - 1u) + (uint64_t)e->kmax;
    const uint32_t W = (uint32_t)(wlen > n ? n : wlen);
    const uint64_t *peq = e->peq[at_start][0];
    /* text start: the first W bases reversed */
    const ptrdiff_t step = at_start ? -1 : 1;
    const uint8_t *tp = at_start ? text + W - 1u : text + n - W, *const tend = tp + step * (ptrdiff_t)W;
    uint64_t pv = ~(uint64_t)0, mv = 0, leq = 0, lph = 0, lmh = 0;
    for (; tp != tend; tp += step) {
        const uint64_t eq = peq[*tp & 15u];
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
    return rows_best(e, &pv, &mv, &leq, &lph, &lmh, 1);
}

/* The same on two words (patterns of 65 .. 128 bases), unrolled: Hyyro's
 * carry from word 0 into word 1 is word 0's last horizontal delta (Ph and
 * Mh never share a bit); row 0's delta is 0 (a free start in the text).
 * The word loop with the carry as an int cost 2.5 times these steps
 * (callgrind). */
static gpuasm_partial partial_best_word2(const ends_word *e, const uint8_t *text, uint32_t n, int at_start)
{
    const uint32_t m = e->m;
    uint64_t wlen = (uint64_t)(m - 1u) + (uint64_t)e->kmax;
    const uint32_t W = (uint32_t)(wlen > n ? n : wlen);
    const uint64_t *peq0 = e->peq[at_start][0], *peq1 = e->peq[at_start][1];
    const ptrdiff_t step = at_start ? -1 : 1;
    const uint8_t *tp = at_start ? text + W - 1u : text + n - W, *const tend = tp + step * (ptrdiff_t)W;
    uint64_t pv[2] = { ~(uint64_t)0, ~(uint64_t)0 }, mv[2] = { 0, 0 };
    uint64_t leq[2] = { 0, 0 }, lph[2] = { 0, 0 }, lmh[2] = { 0, 0 };
    uint64_t pv0 = pv[0], pv1 = pv[1], mv0 = 0, mv1 = 0;
    for (; tp != tend; tp += step) {
        const uint32_t c = *tp & 15u;
        const uint64_t eq0 = peq0[c], eq1 = peq1[c];
        const uint64_t xv0 = eq0 | mv0;
        const uint64_t xh0 = (((eq0 & pv0) + pv0) ^ pv0) | eq0;
        const uint64_t ph0 = mv0 | ~(xh0 | pv0), mh0 = pv0 & xh0;
        const uint64_t hpos = ph0 >> 63, hneg = mh0 >> 63;
        const uint64_t ph0s = ph0 << 1, mh0s = mh0 << 1;
        pv0 = mh0s | ~(xv0 | ph0s);
        mv0 = ph0s & xv0;
        const uint64_t xv1 = eq1 | mv1, eqh = eq1 | hneg;
        const uint64_t xh1 = (((eqh & pv1) + pv1) ^ pv1) | eqh;
        const uint64_t ph1 = mv1 | ~(xh1 | pv1), mh1 = pv1 & xh1;
        const uint64_t ph1s = (ph1 << 1) | hpos, mh1s = (mh1 << 1) | hneg;
        pv1 = mh1s | ~(xv1 | ph1s);
        mv1 = ph1s & xv1;
        leq[0] = eq0;
        leq[1] = eq1;
        lph[0] = ph0;
        lph[1] = ph1;
        lmh[0] = mh0;
        lmh[1] = mh1;
    }
    pv[0] = pv0;
    pv[1] = pv1;
    mv[0] = mv0;
    mv[1] = mv1;
    return rows_best(e, pv, mv, leq, lph, lmh, 2);
}

/* gpuasm_partial_best() of partial.h, edit mode, for an ends_word pattern
 * against text[0 .. n) (a read strand as searched): the same Myers block
 * step (Hyyro's, a carry between the words) over the same window and the
 * same row rule, so the same (plen, dist); test_kernels' engine cases and
 * tests/c/test_ends_filter.c compare the two. */
gpuasm_partial gpuasm_ends_word_best(const ends_word *e, const uint8_t *text, uint32_t n, int at_start)
{
    const gpuasm_partial none = { 0, 0 };
    if (e->omin == 0 || e->omin >= e->m || n == 0 || e->kmax < 0) return none;
    return e->nw == 1 ? partial_best_word1(e, text, n, at_start) : partial_best_word2(e, text, n, at_start);
}
