/* SPDX-License-Identifier: MIT */
/* partial_cut.h -- the CPU ends pass of long patterns in edit mode with
 * Ukkonen's cut-off (internal to kernels/; issue #28: "the ends pass at
 * bit-parallel speed on the CPU, with the cut-offs the GPU uses").
 *
 * kernels/partial.h's gpuasm_partial_best() runs every row of the pattern
 * over its W = min(n, m - 1 + kmax) columns: (W x ceil(m / 64)) word
 * steps, so a 200 kb read running off a genome's ends cost four times its
 * whole-occurrence search (80% of a 200 kb pair's run, perf).  This is the
 * same matrix with Ukkonen's cut-off (Ukkonen 1985; Hyyrö's blocks, as
 * run_blocks() of kernels/myers/myers_cpu.c, whose comment has the
 * induction) at kmax = k_{m-1}, the largest k_p:
 *   - blocks 0 .. last are computed; a block enters when the last row of
 *     the block above was <= kmax in the column before, from the over-
 *     estimate "that row + 1 per row" (Pv all ones), and leaves when its
 *     last row is >= kmax + its rows (every cell > kmax);
 *   - so every cell <= kmax is exact and every other computed cell is an
 *     over-estimate, and rows of blocks not computed are > kmax;
 *   - no block leaves at the last column: the row walk reads column W - 2
 *     (partial.h's rule D_p = min(D[p-1][W-2] + mismatch, D[p][W-2] + 1))
 *     as the last column minus its horizontal deltas, for every block
 *     computed there; rows below are taken as > kmax.
 * A kept D_p <= k_p <= kmax is a min of two terms, one of them a cell <=
 * kmax (exact); an over-estimate raises only the other term or a D_p past
 * k_p: the same kept candidates, hence the same best as
 * gpuasm_partial_best() (gpuasm_partial_keep's order).  The GPU's warp
 * version (kernels/ends/partial_warp.cuh) applies the same cut-off across
 * strips.  tests/c/test_partial_cut holds this to gpuasm_partial_best().
 */
#ifndef GPUASM_PARTIAL_CUT_H
#define GPUASM_PARTIAL_CUT_H

#include <stdint.h>

#include "kernels/partial.h"

/* Words of workspace gpuasm_partial_best_cut() needs for m pattern bases
 * (any text length). */
uint32_t gpuasm_partial_cut_ws_words(uint32_t m);

/* gpuasm_partial_best() in edit mode on nt16 codes (the same arguments and
 * result), with the cut-off above; ws: gpuasm_partial_cut_ws_words(m)
 * words.  Host code. */
gpuasm_partial gpuasm_partial_best_cut(const gpuasm_search_opt *o, uint32_t omin, int32_t sfloor,
                                       const gpuasm_seqview *pat, const gpuasm_seqview *txt, int at_start,
                                       uint64_t *ws);

/* The row walk of gpuasm_partial_best_cut() on a DP's last column: pv/mv
 * there and that step's Eq, Ph, Mh (before the shift), words of rows 1 ..
 * rows, computed exactly where <= kmax and over-estimated elsewhere, the
 * rows below > kmax at the last two columns; kmax = k_{m-1}
 * (gpuasm_partial_kf).  Any such DP with a free start in the text gives
 * the same best: gpuasm_partial_best_cut()'s window or the whole-text
 * search itself (myers_cpu.h's want_end, at the text end), whose cut-off
 * at its k >= kmax keeps those properties.  Host code. */
gpuasm_partial gpuasm_partial_cut_rows(const gpuasm_search_opt *o, uint32_t omin, int32_t sfloor,
                                       const gpuasm_seqview *pat, const gpuasm_seqview *txt, int at_start,
                                       int32_t kmax, uint32_t rows, const uint64_t *pv, const uint64_t *mv,
                                       const uint64_t *leq, const uint64_t *lph, const uint64_t *lmh);

#endif
