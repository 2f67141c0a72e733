/* SPDX-License-Identifier: MIT */
/* ends_classes.h -- the ends pass's candidates that share their first
 * bases, settled by one DP (internal to walk/; issue #26's adapter
 * screen).
 *
 * Adapter kits are families: of the 158 bbmap adapters, 50 share their
 * first 12 bases and 112 their last 16 (the index sits in the middle).  A
 * chance piece of the ends filter (ends_filter.h) that fires one of them
 * fires the whole family at that end, and the ends pass then ran one DP a
 * member, all but never with a hit.  Here the members of a class that are
 * candidates of one (read strand, end) are settled together where one DP
 * proves that none of them has an acceptable partial occurrence; the
 * others run as before, so the end hits are the same bytes.
 *
 * ---- Why the settle is exact ------------------------------------------------
 * A class: targets whose patterns at end e (ends_word.h: the pattern as it
 * is at the text's end, reversed at its start) share their first L codes
 * (L >= GPUASM_EC_KEY, L <= m - 1 of every member); all are one-word
 * ends_words (the lanes' candidates).  Myers' column (seed 000) holds
 * D(i, x) in rows i = 1 .. 64, and rows <= L depend only on the Eq bits of
 * rows <= L (the carry runs from low rows to high ones), so every member's
 * rows 1 .. L are the same in the same window.  Each candidate i of the
 * class has its window W_i (gpuasm_ew_window: the text's last W_i bases at
 * end e) and looks at rows p in [omin_i, P_i], P_i = min(reach_i, m_i - 1)
 * (gpuasm_ends_word_view()'s row rule).  One DP over the widest window
 * X = max W_i gives values no larger than any member's own window gives
 * (a superset of alignment starts), hence lower bounds on its D_p:
 *  - p <= L: D_p >= D(p, last column) (D_p is the last cell without a
 *    trailing pattern deletion: kernels/partial.h), the same cell for all;
 *  - p > L: every path to (p, last) crosses row L in some column of the
 *    window at cost >= D(L, x), or starts in the column before it at a
 *    row > L at cost > L; so D_p >= R = min(L, min_x D(L, x)).
 A candidate i is settled (none at that end) when the cell of every p in
 * [omin_i, min(P_i, L)] exceeds its k_p and R exceeds its k_p for every p
 * in (L, P_i]: it can then have no D_p <= k_p, i.e. no acceptable
 * occurrence, and gpuasm_ends_word_best() would have returned none.  The
 * DP runs once for the class's candidates of a (strand, end); the others
 * (R too small for rows a long reach looks at) run in the lanes.
 * tests/c/test_ends_classes holds settled candidates to that on random and
 * adapter-like targets.
 */
#ifndef GPUASM_ENDS_CLASSES_H
#define GPUASM_ENDS_CLASSES_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/ends/ends_word.h"
#include "search/search.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bases of the key that puts targets in one class (single bases only). */
#define GPUASM_EC_KEY 12
/* A class is settled only when a strand has at least this many of its
 * members as candidates at one end (fewer: the lanes' own DPs cost less). */
#define GPUASM_EC_MIN 3
/* Rows of a one-word ends_word: p = 1 .. 64. */
#define GPUASM_EC_ROWS 65

typedef struct gpuasm_ends_classes {
    uint32_t *cls[2];     /* [targets->n] target t's class at end e, UINT32_MAX: none */
    uint32_t n_cls[2];
    uint32_t *rep[2];     /* [n_cls] a member: its Eq words hold the shared rows */
    uint8_t *lcp[2];      /* [n_cls] L: rows every member shares (<= m - 1 of each) */
    int8_t *kupto;        /* [targets->n * GPUASM_EC_ROWS] max of target t's k_p over
                           * p <= P (-1: none), for the rows past L at once */
} gpuasm_ends_classes;

/* Scratch of gpuasm_ends_classes_settle() (grown, no per-read allocation). */
typedef struct gpuasm_ec_ws {
    uint32_t *seen, *cnt, *wmax, *slot;   /* [n_cls of either end] */
    uint32_t *touched;
    int32_t *R;                           /* [classes run] their R */
    int8_t *cell;                         /* [classes run * GPUASM_EC_ROWS] their last cells */
    size_t cap;
    uint32_t stamp;
} gpuasm_ec_ws;

/* Classes of the one-word ends_words ew[0 .. targets->n) (m == 0: none)
 * at both ends.  0, or -1 when out of memory (c is then empty). */
int gpuasm_ends_classes_build(gpuasm_ends_classes *c, const gpuasm_seqset *targets, const ends_word *ew);
void gpuasm_ends_classes_free(gpuasm_ends_classes *c);

/* For the candidates list[0 .. nl) of one read strand text[0 .. n) at end
 * e (0 its end, 1 its start), with reach[i] as gpuasm_ends_lanes_best()'s
 * (0: nothing to run): set reach[i] = 0 for every candidate of a settled
 * class (above), whose answer is then none, as it would have been.  Returns
 * the number settled, or -1 when out of memory (reach unchanged). */
int64_t gpuasm_ends_classes_settle(const gpuasm_ends_classes *c, gpuasm_ec_ws *ws, const ends_word *ew,
                                   const uint32_t *list, uint32_t nl, uint32_t *reach, const uint8_t *text,
                                   uint32_t n, int e);
void gpuasm_ec_ws_free(gpuasm_ec_ws *ws);

/* The same bound for one candidate of two or more words (adapters of 66 ..
 * 256 bases: each its own class, L = its first 64 rows, one word's DP where
 * gpuasm_ends_word_best() runs them all): 1 when w (built by
 * gpuasm_ends_word_build()) provably has no acceptable partial occurrence
 * at end e of text[0 .. n) within reach (then gpuasm_ends_word_best()
 * returns none), 0 when it may have one (or w is one word: no gain). */
int gpuasm_ends_word_none(const ends_word *w, const uint8_t *text, uint32_t n, int e, uint32_t reach);

#ifdef __cplusplus
}
#endif

#endif
