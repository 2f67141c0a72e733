/* SPDX-License-Identifier: MIT */
/* naive_dp.h -- the O(m*n) oracle the kernels are tested against.
 *
 * Plain Levenshtein DP for approximate matching (free start; seed 003 §2.1,
 * seed 000 §IV):
 *     D[0][j] = 0,  D[i][0] = i,
 *     D[i][j] = min(D[i-1][j-1] + (match(p[i-1], t[j-1]) ? 0 : 1),
 *                   D[i-1][j] + 1, D[i][j-1] + 1)
 * with the nt16 match rule of nt16.h ((a & b) != 0; code 0 matches nothing).
 * No bit tricks, no cut-offs: it is the reference.
 */
#ifndef GPUASM_NAIVE_DP_H
#define GPUASM_NAIVE_DP_H

#include <stdint.h>

/* last[j] = D[m][j+1] for j = 0 .. n-1: the distance of the best match of
 * the whole pattern ending at text position j (0-based, inclusive).
 * m >= 0.  Returns 0, or -1 when out of memory. */
int gpuasm_naive_dp(const uint8_t *pattern, uint32_t m,
                    const uint8_t *text, uint64_t n, int32_t *last);

/* gpuasm_naive_dp with the byte alphabet's rule when byte != 0 (match iff
 * equal; search.h GPUASM_ALPHABET_BYTE). */
int gpuasm_naive_dp_alpha(const uint8_t *pattern, uint32_t m,
                          const uint8_t *text, uint64_t n, int byte, int32_t *last);

/* Hamming (seed 004 Definition 3): last[j] = mismatches of the pattern
 * against text[j-m+1 .. j] for j >= m-1, INT32_MAX for j < m-1 (no window).
 * Match rule nt16 (byte == 0) or equality (byte != 0). */
void gpuasm_naive_hamming(const uint8_t *pattern, uint32_t m,
                          const uint8_t *text, uint64_t n, int byte, int32_t *last);

/* The same DP restricted to a band of diagonals, for patterns too long for
 * the full matrix: only cells (i, x) with x - i in [dlo, dhi] are computed
 * (x = text bases consumed, 0..n), every other cell counts as infinite, and
 * row 0 is 0 inside the band.  last[j] = D[m][j+1] as above for j = 0 .. n-1
 * (INT32_MAX where the band does not reach or no path exists).  Equal to
 * gpuasm_naive_dp() for every j whose optimal alignments all stay inside
 * the band (true when the band holds diagonals j+1-m +- D[m][j+1]).
 * Returns 0 or -1 (out of memory). */
int gpuasm_naive_dp_band(const uint8_t *pattern, uint32_t m,
                         const uint8_t *text, uint64_t n,
                         int64_t dlo, int64_t dhi, int32_t *last);

#endif
