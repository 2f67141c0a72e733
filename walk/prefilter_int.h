/* SPDX-License-Identifier: MIT */
/* prefilter_int.h -- what the two pigeonhole filters' units share
 * (internal to walk/): the q-gram keys of the windows both index
 * (prefilter.c: the pieces of target patterns; tindex.c: the targets'
 * window index, its build tindex_build.c), the sort both use and a
 * buffer position's target.  prefilter.h is their outside.
 */
#ifndef GPUASM_PREFILTER_INT_H
#define GPUASM_PREFILTER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "walk/prefilter.h"
#include "walk/qkey.h"

#define N_KEYS ((uint32_t)1 << (2 * GPUASM_QF_Q))
#define KEY_MASK (N_KEYS - 1)

static inline int64_t window_key(const uint8_t *s) { return gpuasm_qkey(s, GPUASM_QF_Q); }

/* The GPUASM_QF_EXT bases after the window starting at buffer position g,
 * 4 bits each, the first in the top nibble: 0..3 for a single base, 4 for
 * any other code or past the buffer's end (which no read base equals).
 * It may run into the next target: a window whose extension crosses a
 * target's end only ever gains false candidates, which the whole-piece
 * check drops (a true piece occurrence lies inside its target). */
static inline uint32_t ext_key(const uint8_t *code, uint64_t total, uint64_t g)
{
    uint32_t key = 0;
    for (uint64_t i = g + GPUASM_QF_Q; i < g + GPUASM_QF_Q + GPUASM_QF_EXT; i++) {
        const int b = i < total ? gpuasm_base2[code[i] & 15] : -1;
        key = key << 4 | (uint32_t)(b < 0 ? 4 : b);
    }
    return key;
}

/* Target of a code-buffer position g among targets [lo, hi) (off[]
 * ascending, off[lo] <= g < off[hi]). */
static inline uint32_t target_in(const gpuasm_seqset *targets, uint64_t g, uint32_t lo, uint32_t hi)
{
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (targets->off[mid] <= g) lo = mid; else hi = mid;
    }
    return lo;
}

static inline uint32_t target_of(const gpuasm_seqset *targets, uint64_t g)
{
    return target_in(targets, g, 0, targets->n);
}

/* Buckets of 4,096 bases: 4 bytes per 4 kb of targets. */
#define TOF_SHIFT 12

/* target_of through x's bucket table (g < x->total). */
static inline uint32_t tix_target(const gpuasm_tindex *x, const gpuasm_seqset *targets, uint64_t g)
{
    const uint64_t b = g >> TOF_SHIFT;
    return target_in(targets, g, x->tof[b], x->tof[b + 1] + 1);
}

/* NAME(v, n): ascending sort of v[0 .. n) of TYPE by KEY(&v[i]), a
 * uint64_t (quicksort, median of three, insertion sort for short runs; the
 * shorter side recursed, so the depth is O(log n)).  qsort's comparison
 * call per step was most of the index's build time, and a tenth of the
 * planning's at e = 0.1 against 20 Mb. */
#define DEFINE_SORT(NAME, TYPE, KEY)                                                          \
    static void NAME(TYPE *v, size_t n)                                                       \
    {                                                                                         \
        while (n > 24) {                                                                      \
            const uint64_t a = KEY(&v[0]), b = KEY(&v[n / 2]), c = KEY(&v[n - 1]);            \
            const uint64_t piv = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b); \
            size_t i = 0, j = n - 1;                                                          \
            for (;;) {                                                                        \
                while (KEY(&v[i]) < piv) i++;                                                 \
                while (KEY(&v[j]) > piv) j--;                                                 \
                if (i >= j) break;                                                            \
                const TYPE t = v[i];                                                          \
                v[i++] = v[j];                                                                \
                v[j--] = t;                                                                   \
            }                                                                                 \
            /* [0, j] <= piv <= [j + 1, n) */                                                 \
            if (j + 1 < n - j - 1) {                                                          \
                NAME(v, j + 1);                                                               \
                v += j + 1;                                                                   \
                n -= j + 1;                                                                   \
            } else {                                                                          \
                NAME(v + j + 1, n - j - 1);                                                   \
                n = j + 1;                                                                    \
            }                                                                                 \
        }                                                                                     \
        for (size_t i = 1; i < n; i++) {                                                      \
            const TYPE t = v[i];                                                              \
            const uint64_t key = KEY(&t);                                                     \
            size_t j = i;                                                                     \
            for (; j > 0 && KEY(&v[j - 1]) > key; j--) v[j] = v[j - 1];                       \
            v[j] = t;                                                                         \
        }                                                                                     \
    }

/* ---- tindex.c's look-ups, shared with tindex_ends.c ---- */

/* A piece P[a .. b) of a pattern looked up in the index: the rows
 * [qa, qb) of its first clean window (at w: Q single bases) and the single
 * bases after it (e of them, at most EXT); whole: the lookup compared
 * every base of the piece. */
typedef struct {
    uint32_t qa, qb;
    uint64_t w;
    int whole;
} piece_rows_t;

/* Look piece P[a .. b) up: 0 when it has no window of Q single bases (N
 * in every window: such a piece is never intact, prefilter.h), else 1 with
 * *r filled. */
int gpuasm_tix_piece_rows(const gpuasm_tindex *x, const gpuasm_seqset *targets, const uint8_t *p, uint64_t a,
                          uint64_t b, piece_rows_t *r);

/* Does the whole piece P[a .. b) occur (nt16 rule) where the index row
 * entry at buffer position g (in target t) puts its window, inside t? */
int gpuasm_tix_piece_there(const gpuasm_seqset *targets, uint32_t t, uint64_t g, const uint8_t *p, uint64_t a,
                           uint64_t b, const piece_rows_t *r);

/* The two-piece pairing of n packed hits in buf (room for 2n): tindex.c. */
size_t gpuasm_tix_pair_keep_sorted(uint64_t *buf, size_t n, int64_t slack, int pbits, int kbits, int tshift);

#endif
