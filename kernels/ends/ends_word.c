/* SPDX-License-Identifier: MIT */
/* ends_word.c -- the ends pass of patterns of up to four words: the
 * tables (see ends_word.h, whose step the GPU shares). */
#include <stddef.h>
#include <string.h>

#include "kernels/ends/ends_word.h"

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
    /* Eq of code c: bit i set when pattern base i shares a base with c (the
     * nt16 rule (a & b) != 0, IUPAC sets on either side included). */
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t c = 0; c < 16; c++) {
            if (pat[i] & c) e->peq[0][i / 64u][c] |= (uint64_t)1 << (i % 64u);
            if (pat[m - 1u - i] & c) e->peq[1][i / 64u][c] |= (uint64_t)1 << (i % 64u);
        }
    for (uint32_t p = 0; p < m; p++) {
        const int32_t k = p < omin ? -1 : gpuasm_partial_kf(opt, fl, p, m);
        e->kp[p] = (int16_t)(k < 0 || (int64_t)k >= (int64_t)p ? -1 : k);   /* k < p <= 255 */
    }
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
