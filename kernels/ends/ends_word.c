/* SPDX-License-Identifier: MIT */
/* ends_word.c -- the ends pass of patterns of up to four words: the
 * tables (see ends_word.h, whose step the GPU shares). */
#include <stddef.h>
#include <string.h>

#include "kernels/ends/ends_word.h"

/* e->peq for pat[0 .. m) (e->peq zero before). */
static void peq_build(ends_word *e, const uint8_t *pat, uint32_t m)
{
    /* Eq of code c: bit i set when pattern base i shares a base with c (the
     * nt16 rule (a & b) != 0, IUPAC sets on either side included): the OR
     * of the masks of c's bases, where base x's mask has bit i set when
     * pattern base i holds x (a read strand's ends_word is built for each
     * strand: 16 tests a base were most of its build) */
    uint64_t bm[2][4][EW_WORDS];
    memset(bm, 0, sizeof bm);
    for (uint32_t i = 0; i < m; i++) {
        const uint64_t bit = (uint64_t)1 << (i % 64u);
        const uint32_t w = i / 64u, a = pat[i], b = pat[m - 1u - i];
        for (uint32_t x = 0; x < 4; x++) {
            bm[0][x][w] |= ((uint64_t)0 - (a >> x & 1u)) & bit;
            bm[1][x][w] |= ((uint64_t)0 - (b >> x & 1u)) & bit;
        }
    }
    for (int s = 0; s < 2; s++)
        for (uint32_t w = 0; w < EW_WORDS; w++)
            for (uint32_t c = 1; c < 16; c++)
                e->peq[s][w][c] = (c & 1u ? bm[s][0][w] : 0) | (c & 2u ? bm[s][1][w] : 0) |
                                  (c & 4u ? bm[s][2][w] : 0) | (c & 8u ? bm[s][3][w] : 0);
}

void gpuasm_ends_word_build(ends_word *e, const gpuasm_search_opt *opt, const uint8_t *pat, uint32_t m,
                            uint32_t omin, int read_is_pattern)
{
    const int32_t fl = gpuasm_pair_partial_floor(opt, read_is_pattern);
    memset(e, 0, sizeof *e);
    e->m = m;
    /* The words of rows 1 .. m - 1, the only rows the rule reads: D of
     * row p depends on rows <= p alone (the carry runs down the words), so
     * a 65-base pattern's row 65 and its word are never needed (12 of the
     * 158 bbmap adapters: a two-word step for a one-word answer). */
    e->nw = m <= 65u ? 1u : (m - 1u + 63u) / 64u;
    e->omin = omin;
    e->kmax = gpuasm_partial_kf(opt, fl, m - 1u, m);
    peq_build(e, pat, m);
    for (uint32_t p = 0; p < m; p++) {
        const int32_t k = p < omin ? -1 : gpuasm_partial_kf(opt, fl, p, m);
        e->kp[p] = (int16_t)(k < 0 || (int64_t)k >= (int64_t)p ? -1 : k);   /* k < p <= 255 */
    }
    e->kmono = 1;
    for (uint32_t p = 2; p < m; p++)
        if (e->kp[p] < e->kp[p - 1]) e->kmono = 0;
}

void gpuasm_ends_word_rebuild(ends_word *e, const uint8_t *pat)
{
    memset(e->peq, 0, sizeof e->peq);
    peq_build(e, pat, e->m);
}

/* gpuasm_partial_best() of partial.h, edit mode, for an ends_word pattern
 * against text[0 .. n) (a read strand as searched): the same Myers block
 * step (Hyyro's, a carry between the words) over the same window and the
 * same row rule, so the same (plen, dist); test_kernels' engine cases and
 * tests/c/test_ends_filter.c compare the two. */
gpuasm_partial gpuasm_ends_word_best(const ends_word *e, const uint8_t *text, uint32_t n, int at_start,
                                     uint32_t reach)
{
    return gpuasm_ends_word_view(e, text, n, 0, at_start, reach);
}
