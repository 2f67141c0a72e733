/* SPDX-License-Identifier: MIT */
/* ends_word.h -- the CPU ends pass of a short target as the pattern (edit
 * mode): what gpuasm_partial_best() (kernels/partial.h) builds per item,
 * built once per run, and the Myers step over one or two 64-bit words.
 * walk/cpu_scan.c's pair walk calls it for adapters and primers, most of
 * the items a screen runs (issue #26). */
#ifndef GPUASM_ENDS_WORD_H
#define GPUASM_ENDS_WORD_H

#include <stdint.h>

#include "kernels/partial.h"
#include "search/search.h"

/* The ends pass of a target that is the pattern, up to EW_MAX bases, in
 * edit mode on nt16 (adapters and primers: most of the items a screen
 * runs), with what gpuasm_partial_best() builds per item built once per
 * run: per end (0: the text's end, the pattern as it is; 1: its start, the
 * pattern reversed), Eq of the pattern's words for each of the 16 text
 * codes (the OR of the base masks of the code's bases: one load a column
 * where four tests and ORs cost a third of the column step, callgrind),
 * and k_p under the floor (gpuasm_partial_kf) for every p, -1 where p is
 * no candidate. */
#define EW_WORDS 2
#define EW_MAX (64 * EW_WORDS)
typedef struct ends_word {
    uint64_t peq[2][EW_WORDS][16];
    int8_t kp[EW_MAX];
    uint32_t m, omin, nw;  /* nw: the words of rows 1 .. m - 1 (the rule's rows) */
    int32_t kmax;         /* k_{m-1} (partial.h's window: W = m - 1 + kmax) */
} ends_word;

/* e for pattern pat[0 .. m) (nt16 codes, 1 <= m <= EW_MAX bases) under
 * opt, with omin the shortest partial occurrence (bases) the pair rule
 * admits (gpuasm_pair_overlap_min, >= 1). */
void gpuasm_ends_word_build(ends_word *e, const gpuasm_search_opt *opt, const uint8_t *pat, uint32_t m,
                            uint32_t omin);

/* gpuasm_partial_best() of kernels/partial.h, edit mode, for e's pattern
 * against text[0 .. n) (a read strand as searched, nt16): the same Myers
 * block step (seed 000; Hyyro's carry between the words) over the same
 * window and the same row rule, so the same (plen, dist): plen the aligned
 * pattern bases (0: none), at_start 0 for the text's end (a pattern
 * prefix), 1 for its start (a suffix).  test_kernels' engine cases and
 * tests/c/test_ends_filter.c compare the two. */
gpuasm_partial gpuasm_ends_word_best(const ends_word *e, const uint8_t *text, uint32_t n, int at_start);

#endif
