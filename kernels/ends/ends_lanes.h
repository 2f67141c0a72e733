/* SPDX-License-Identifier: MIT */
/* ends_lanes.h -- the CPU ends pass of several one-word patterns against
 * the same end of one text at once (host C; issue #26's adapter screen).
 *
 * The ends filter (walk/ends_filter.h) leaves a read strand a handful of
 * candidate targets at each end, each a chain of Myers steps over a short
 * window that waits on its own previous column (the step's latency, not
 * its instructions, set the CPU ends pass's time: perf on 200,000 reads x
 * 158 adapters).  Here up to GPUASM_EL_LANES candidates of one (text, end)
 * run side by side, one 64-bit lane each, over the longest of their
 * windows; then each lane's last column goes through the one-word row rule
 * of ends_word.h (gpuasm_ew_rows_best) as gpuasm_ends_word_best() does.
 *
 * Same answer as gpuasm_ends_word_best() item by item: a lane whose window
 * W_i is shorter than the group's X runs X columns instead, and every
 * alignment with at most k_p <= kmax differences of p <= m - 1 pattern
 * bases spans at most m - 1 + kmax text bases, at most the text, and (a
 * candidate of the ends filter) at most its reach, so it lies in W_i
 * as in X: each acceptable p has the same D_p in both, and no p that is
 * not acceptable in W_i becomes acceptable in X (a D_p <= k_p in X is
 * such an alignment).  tests/c/test_ends_filter holds the two equal on
 * random reads, targets and reaches.
 */
#ifndef GPUASM_ENDS_LANES_H
#define GPUASM_ENDS_LANES_H

#include <stdint.h>

#include "kernels/ends/ends_word.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Lanes of one group (four 64-bit lanes: two SSE2 registers a vector on
 * the baseline x86-64 build, one AVX2 register where the compiler may). */
#define GPUASM_EL_LANES 4

/* out[i] = gpuasm_ends_word_best(e[i], text, n, at_start, reach[i]) for
 * i in [0, count), every e[i] of one word (nw == 1; the caller runs the
 * others one by one).  text[0 .. n) is a read strand as searched (nt16),
 * at_start 0 for its end (pattern prefixes), 1 for its start (suffixes);
 * reach[i] as gpuasm_ends_word_best()'s (UINT32_MAX: the whole window;
 * 0: nothing, out[i] none, and e[i] is not read).  No allocation; any
 * count. */
void gpuasm_ends_lanes_best(const ends_word *const *e, const uint32_t *reach, uint32_t count, const uint8_t *text,
                            uint32_t n, int at_start, gpuasm_partial *out);

#ifdef __cplusplus
}
#endif

#endif
