/* SPDX-License-Identifier: MIT */
/* myers_lanes.h -- Myers' bit-vector search in SIMD lanes: the CPU twin of
 * the myers row run on several (pattern, text) streams at once (internal
 * to kernels/).
 *
 * Two layouts, after Sassy (Beeloo & Groot Koerkamp, "Sassy: searching
 * short DNA strings in the 2020s", 2025; its Sassy1 and Sassy2 modes):
 *
 *  - text lanes: ONE pattern (a read) against a list of texts (the
 *    targets), all texts cut into L pieces of about equal length, one per
 *    64-bit lane.  Each lane starts m + k columns before the piece it owns
 *    (the segment argument of cuda_device.cuh: an occurrence with <= k
 *    differences spans at most m + k text bases, so D[m][j] <= k is exact
 *    from there on) and reports only positions in its piece.  Block 0
 *    (pattern rows 1..64) runs in the vector; the blocks below it run only
 *    when Ukkonen's cut-off lets them in (myers_cpu.c's run_blocks, per
 *    lane, in scalar code: with k < 64 that is near true occurrences only).
 *  - pattern lanes: up to L short patterns (<= 64 bases, each with its own
 *    m and k; or 65..128 bases, two words a lane) against ONE text (a read
 *    strand): the lanes share the text symbol of a column, so Eq is one
 *    vector load from a table transposed to [symbol][lane].
 *
 * Both compute, in every lane, exactly the column recurrence of the scalar
 * twin (myers_cpu.c), so they emit exactly its (j, D[m][j] <= k) stream
 * for every pair; the tests (tests/c/test_lanes.c) hold them to the naive
 * DP and to the scalar twin at every SIMD level the machine has.
 *
 * nt16 codes only (the byte alphabet keeps the scalar twin).  One
 * gpuasm_lanes_ws per thread (its buffers are reused from call to call).
 */
#ifndef GPUASM_MYERS_LANES_H
#define GPUASM_MYERS_LANES_H

#include <stddef.h>
#include <stdint.h>

/* One reported position of a lane kernel: pair `id` (the index of the text
 * or pattern in the call's list), end j, D[m][j] <= k. */
typedef struct gpuasm_lane_hit {
    uint64_t j;
    uint32_t id;
    int32_t d;
} gpuasm_lane_hit;

/* A text of a text-lane call. */
typedef struct gpuasm_lane_text {
    const uint8_t *code;   /* nt16 codes */
    uint64_t n;            /* >= 1 */
} gpuasm_lane_text;

/* A pattern of a pattern-lane call. */
typedef struct gpuasm_lane_pattern {
    const uint64_t *peq;   /* [16 x ceil(m/64)] Peq words, block-major (myers_cpu.h) */
    uint32_t m;            /* 1..128 */
    int32_t k;             /* 0 <= k < m */
} gpuasm_lane_pattern;

/* Per-thread scratch: lane state, segment plans and the hits of a call. */
typedef struct gpuasm_lanes_ws {
    gpuasm_lane_hit *hit;            /* the call's hits, in (id, j) order */
    size_t n_hit, cap_hit;
    gpuasm_lane_hit *lane_hit[16];   /* per-lane hits before they are joined (2 groups of 8) */
    size_t lane_n[16], lane_cap[16];
    void *seg;                       /* text lanes: the segment plan */
    size_t seg_cap;
    uint64_t *blk;                   /* text lanes: per-lane state of blocks >= 1 */
    size_t blk_cap;
    void *tab;                       /* pattern lanes: transposed Peq tables */
    size_t tab_cap;
} gpuasm_lanes_ws;

void gpuasm_lanes_ws_free(gpuasm_lanes_ws *ws);

/* Text lanes at SIMD level `level` (cpu_simd.h, > scalar): the pattern
 * whose Peq is peq (block-major, [ceil(m/64)][16] words, as myers_cpu.c
 * builds it) with k differences (0 <= k < m), against texts[0 .. n_texts).
 * Fills ws->hit with every (text index, j, D[m][j]) with D <= k, in
 * increasing (id, j).  0, or -1 when out of memory. */
int gpuasm_text_lanes(int level, gpuasm_lanes_ws *ws, const uint64_t *peq, uint32_t m, int32_t k,
                      const gpuasm_lane_text *texts, uint32_t n_texts);

/* Text lanes with every block of the pattern in the vector
 * (myers_lanes_full_impl.h): the same arguments and hits as
 * gpuasm_text_lanes(), for 1 <= m <= GPUASM_LANES_FULL_M and any
 * 0 <= k < m.  Each lane computes every row at every column, where
 * gpuasm_text_lanes() runs the blocks below the first in scalar code
 * near occurrences: the faster one where the pattern matches the text
 * nearly everywhere (repeats), a few times slower where it matches in
 * few places.  minima: only the positions that are local minima of each
 * text's (j, D <= k) stream by the walk's rule (walk/cpu_walk.h,
 * emit_hit(): D(j-1) absent or > D(j), D(j+1) absent or >= D(j)), which
 * that rule then keeps as they are: a repeat's read emits a position a
 * column, and pushing them all cost what the DP did.  0, or -1 when out
 * of memory or outside those bounds. */
#define GPUASM_LANES_FULL_M 256
int gpuasm_text_lanes_full(int level, gpuasm_lanes_ws *ws, const uint64_t *peq, uint32_t m, int32_t k,
                           const gpuasm_lane_text *texts, uint32_t n_texts, int minima);

/* Pattern lanes at SIMD level `level` (> scalar): patterns[0 .. n_pat)
 * against one text of n >= 1 nt16 codes, those of <= 64 bases first, then
 * those of 65..128.  Fills ws->hit with every (pattern index, j, D[m][j])
 * with D <= k, in increasing (id, j).  0, or -1 when out of memory. */
int gpuasm_pattern_lanes(int level, gpuasm_lanes_ws *ws, const gpuasm_lane_pattern *patterns,
                         uint32_t n_pat, const uint8_t *text, uint64_t n);

/* ---- shared by the per-level files (myers_lanes_impl.h) ------------------- */

/* One piece of a text that a lane runs: columns [w, e) of text `id`,
 * reporting only j >= s (w <= s < e). */
typedef struct gpuasm_lane_seg {
    uint64_t w, s, e;
    uint32_t id;
} gpuasm_lane_seg;

/* The segments of each of L lanes: lane l's are seg[first[l] .. first[l+1]).
 * Owned pieces cut the concatenated texts into L parts of nearly equal
 * length; ov = m + k columns of lead-in.  0, or -1 (out of memory). */
int gpuasm_lanes_plan(gpuasm_lanes_ws *ws, int L, const gpuasm_lane_text *texts, uint32_t n_texts,
                      uint64_t ov, gpuasm_lane_seg **seg, uint32_t first[9]);

/* Append (id, j, d) to lane l's hits.  0 or -1. */
int gpuasm_lanes_push(gpuasm_lanes_ws *ws, int l, uint32_t id, uint64_t j, int32_t d);

/* Append the per-lane hits of lanes 0 .. L-1 to ws->hit, lane after lane,
 * and empty the lane buffers.  (Text lanes own consecutive pieces of the
 * texts and pattern lanes consecutive patterns, so lane order is (id, j)
 * order.)  0 or -1. */
int gpuasm_lanes_join(gpuasm_lanes_ws *ws, int L);

/* Room for `words` uint64_t in ws->blk / bytes in ws->tab (64-byte
 * aligned).  NULL when out of memory. */
uint64_t *gpuasm_lanes_blk(gpuasm_lanes_ws *ws, size_t words);
void *gpuasm_lanes_tab(gpuasm_lanes_ws *ws, size_t bytes);

/* The per-level entry points (myers_lanes_sse41.c, _avx2.c, _avx512.c). */
int gpuasm_text_lanes_sse41(gpuasm_lanes_ws *ws, const uint64_t *peq, uint32_t m, int32_t k,
                            const gpuasm_lane_text *texts, uint32_t n_texts);
int gpuasm_text_lanes_avx2(gpuasm_lanes_ws *ws, const uint64_t *peq, uint32_t m, int32_t k,
                           const gpuasm_lane_text *texts, uint32_t n_texts);
int gpuasm_text_lanes_avx512(gpuasm_lanes_ws *ws, const uint64_t *peq, uint32_t m, int32_t k,
                             const gpuasm_lane_text *texts, uint32_t n_texts);
int gpuasm_text_lanes_full_sse41(gpuasm_lanes_ws *ws, const uint64_t *peq, uint32_t m, int32_t k,
                                 const gpuasm_lane_text *texts, uint32_t n_texts, int minima);
int gpuasm_text_lanes_full_avx2(gpuasm_lanes_ws *ws, const uint64_t *peq, uint32_t m, int32_t k,
                                const gpuasm_lane_text *texts, uint32_t n_texts, int minima);
int gpuasm_text_lanes_full_avx512(gpuasm_lanes_ws *ws, const uint64_t *peq, uint32_t m, int32_t k,
                                  const gpuasm_lane_text *texts, uint32_t n_texts, int minima);
int gpuasm_pattern_lanes_sse41(gpuasm_lanes_ws *ws, const gpuasm_lane_pattern *patterns,
                               uint32_t n_pat, const uint8_t *text, uint64_t n);
int gpuasm_pattern_lanes_avx2(gpuasm_lanes_ws *ws, const gpuasm_lane_pattern *patterns,
                              uint32_t n_pat, const uint8_t *text, uint64_t n);
int gpuasm_pattern_lanes_avx512(gpuasm_lanes_ws *ws, const gpuasm_lane_pattern *patterns,
                                uint32_t n_pat, const uint8_t *text, uint64_t n);

#endif
