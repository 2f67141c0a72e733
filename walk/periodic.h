/* SPDX-License-Identifier: MIT */
/* periodic.h -- the periodic runs of a target (tandem repeats: satellites,
 * poly-A, microsatellite arrays), and the columns of a read's search
 * through them that need no DP (issue #28, "No cliffs": a read of a
 * repeat against its array matches at every period, the window index
 * declines it, and the search ran every column of the array).
 *
 * Why columns repeat.  In the search of a pattern P (m bases) through a
 * text T with a free start (Myers' D[i][j]), what the walk reads of the
 * last row is E(j) = min(D[m][j], k + 1): the positions with D <= k and
 * their D, and for a local minimum (emit_hit(), walk/cpu_walk.h) the same
 * of j - 1 and j + 1, where D > k counts as absent.  An alignment of P
 * with at most k differences spans at most m + k text bases, so E(j) is a
 * function of P and T[j - m - k + 1 .. j] alone (the segment argument of
 * myers_lanes.h: none within that window means none at all).  In a run
 * [s, e) of period p (T[y] = T[y - p] for y in [s + p, e)), the window of
 * j equals that of j - p once j - m - k + 1 - p >= s: from
 * a = s + p + m + k - 1 on, E(j) = E(j - p) for j in [a, e), and the
 * local-minimum flag repeats with period p for j in [a + 1, e - 1).  The
 * stream of (j, D <= k) positions, or of local minima, over [c1, c2) with
 * c1 >= a + p + 1 and c2 <= e - 1 is therefore the stream over
 * [c1 - p, c1) shifted by multiples of p: the walk searches the target in
 * pieces that leave [c1, c2) out, each piece from m + k columns before its
 * first position (the same argument), and replays the period before c1.
 * Exact: the same positions and D values, hence the same bytes.
 */
#ifndef GPUASM_WALK_PERIODIC_H
#define GPUASM_WALK_PERIODIC_H

#include <stddef.h>
#include <stdint.h>

/* A run [s, e) of period p (0-based, half-open text positions). */
typedef struct gpuasm_period_run {
    uint64_t s, e;
    uint32_t p;
} gpuasm_period_run;

/* Runs of periods 1 .. GPUASM_PERIOD_MAX of at least GPUASM_PERIOD_RUN_MIN
 * bases (shorter ones save less than their pieces' lead-in costs). */
#define GPUASM_PERIOD_MAX 64u
#define GPUASM_PERIOD_RUN_MIN 1024u

/* The runs of text[0 .. n) (nt16 codes; equal codes repeat), disjoint and
 * in order, in *out (grown; *cap entries).  Found from samples every
 * GPUASM_PERIOD_RUN_MIN / 2 bases (each a 64-base window against its
 * shifts by 1 .. GPUASM_PERIOD_MAX) and grown to the maximal run: a run
 * may be missed (it then costs its DP, as before), never wrong.  Returns
 * their number, or -1 when out of memory. */
int64_t gpuasm_period_runs(const uint8_t *text, uint64_t n, gpuasm_period_run **out, size_t *cap);

/* Each target's runs, found the first time a read needs them (a read
 * strand the window index declines) and then shared by every thread. */
typedef struct gpuasm_period_cache {
    uint32_t n;                /* targets */
    void **of;                 /* [n] the target's runs, NULL: not yet found */
} gpuasm_period_cache;

/* 0, or -1 when out of memory. */
int gpuasm_period_cache_open(gpuasm_period_cache *c, uint32_t n_targets);
void gpuasm_period_cache_free(gpuasm_period_cache *c);

/* Target t's runs (text, n: its bases) in *runs, their number returned;
 * -1 when out of memory (the caller then searches the whole target). */
int64_t gpuasm_period_cache_get(const gpuasm_period_cache *c, uint32_t t, const uint8_t *text, uint64_t n,
                                const gpuasm_period_run **runs);

/* One piece of a target's search: text positions [ws, hi + 1) (or to the
 * target's end), keeping the positions [lo, hi); then, when p > 0, the
 * positions [hi, skip_end) replayed from [hi - p, hi). */
typedef struct gpuasm_text_piece {
    uint32_t target;
    uint32_t p;
    uint64_t ws, lo, hi, skip_end;
} gpuasm_text_piece;

/* The pieces of target t (n bases, its runs) for a pattern of m bases at
 * distance k, appended to *out (n_out of them, *cap entries): one piece
 * (the whole target) where no run is long enough to pay its lead-in.
 * Returns how many were appended, or -1 when out of memory. */
int64_t gpuasm_text_pieces(uint32_t t, uint64_t n, const gpuasm_period_run *runs, int64_t n_runs, uint32_t m,
                           int32_t k, gpuasm_text_piece **out, size_t n_out, size_t *cap);

#endif
