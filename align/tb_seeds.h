/* SPDX-License-Identifier: MIT */
/* tb_seeds.h -- a lower bound of what the rest of an alignment costs, from
 * the pattern's seeds that the text lacks (the seed heuristic of A*PA:
 * Groot Koerkamp & Ivanov 2024, "Exact global alignment using A* with
 * chaining seed heuristic and match pruning", §2; here without chaining
 * or pruning).  For the linear traceback (traceback_linear.c).  Not
 * installed. */
#ifndef GPUASM_TB_SEEDS_H
#define GPUASM_TB_SEEDS_H

#include <stddef.h>
#include <stdint.h>

/* Seed length, bases: a 16-mer is a 32-bit key, and one occurs by chance
 * in a band of 2d+1 = 25,000 diagonals with probability ~6e-6. */
#define GPUASM_TB_SEED_LEN 16

/* The pattern pattern[0..m) is cut into seeds j = pattern[16 j .. 16 j +
 * 16) (the last partial one left out).  An alignment ending in cell
 * (m, e1) (e1 = text bases consumed, 0-based exclusive) with cost d, that
 * starts at text base x0 or later, keeps to diagonals e - d .. e + d
 * (diagonal = text bases - pattern bases; e = e1 - m), so a seed aligned
 * without an error lies at a text position p with p - 16 j in that range
 * and x0 <= p <= e1 - 16.  A seed with no such exact occurrence costs the
 * alignment at least one difference in its rows, and two where no
 * substring there is within edit distance 1 of it (tb_seeds.c's
 * near_one); seeds do not overlap, so their costs add.  Fills cnt[j]
 * (j = 0 .. n_seeds) with the cost of seeds j' >= j, so the part of any
 * such alignment from pattern row i on costs at least cnt[ceil(i / 16)]
 * (cnt[n_seeds] = 0).  Codes other than single
 * bases make a seed present (in the pattern) or give up (in the text:
 * returns 1, cnt untouched), which keeps the bound a lower bound.
 * Returns 0, 1 (no bound), or -1 out of memory; *cnt (*m_cnt entries) is
 * grown as needed. */
int gpuasm_tb_seeds(const uint8_t *pattern, uint32_t m, const uint8_t *text, uint64_t x0,
                    uint64_t e1, int64_t d, uint32_t **cnt, size_t *m_cnt);

#endif
