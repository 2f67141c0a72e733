/* SPDX-License-Identifier: MIT */
/* myers_cpu.h -- the scalar Myers twin's pieces that the CPU pair walk
 * (cpu_scan.c) and the SIMD lanes (myers_lanes.h) share (internal to
 * kernels/): the PEq table and one pattern's search from a prebuilt one.
 */
#ifndef GPUASM_MYERS_CPU_H
#define GPUASM_MYERS_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/twin.h"

/* Column state of the block algorithm, grown and reused across pairs. */
typedef struct gpuasm_myers_cols {
    uint64_t *pv, *mv;   /* [blocks] vertical +1 / -1 deltas (VP, VN) */
    int64_t *score;      /* [blocks] D[last real row of block b][j] */
    size_t cap;          /* blocks allocated */
    int8_t *hb;          /* [columns] the bands' bottom-row deltas (myers_bands.c) */
    size_t hb_cap;       /* columns allocated */
    /* The band search's state at the text's last column, when want_end
     * is set (issue #28: the text-end partial of a long pattern from the
     * search itself, kernels/ends/partial_cut.h): Pv/Mv there and that
     * step's Eq, Ph, Mh (before the shift) of every block of rows 1 ..
     * end_rows; the rows below are > k there and in the column before.
     * end_ok: set by a search that left it (patterns of bands only). */
    int want_end, end_ok;
    uint32_t end_rows;
    uint64_t *end_w;     /* [5][blocks]: pv, mv, eq, ph, mh */
    size_t end_cap;      /* blocks allocated */
} gpuasm_myers_cols;

void gpuasm_myers_cols_free(gpuasm_myers_cols *cols);

/* Grow cols->hb to n columns.  0, or -1 when out of memory. */
int gpuasm_myers_cols_hb(gpuasm_myers_cols *cols, uint64_t n);

/* Patterns of at least this many 64-row blocks are searched band by band
 * (gpuasm_myers_run_bands); shorter ones column by column (run_blocks). */
#define GPUASM_MYERS_BANDS_MIN_WORDS 64u

/* The search of gpuasm_myers_run_nt16() (same emits, same order) band by
 * band: myers_bands.c says how and why it is exact.  peq block-major with
 * 1 << sym_shift symbols a block (4: nt16, 8: bytes); m >= 1 bases, k >= 0
 * (else nothing).  0, or -1 when out of memory. */
int gpuasm_myers_run_bands(const uint64_t *peq, unsigned sym_shift, uint32_t m, const uint8_t *text,
                           uint64_t n, int32_t k, gpuasm_emit_fn emit, void *ctx, gpuasm_myers_cols *cols);

/* Words of the nt16 PEq of an m-base pattern: 16 x ceil(m / 64). */
size_t gpuasm_myers_peq_words(uint32_t m);

/* The nt16 PEq of pattern[0 .. m), block-major: bit i of peq[16 b + c] is
 * set when pattern row 64 b + i + 1 shares a base with code c (seed 003
 * Algorithm 1).  peq has gpuasm_myers_peq_words(m) words. */
void gpuasm_myers_peq_nt16(uint64_t *peq, const uint8_t *pattern, uint32_t m);

/* The twin's search of one pair from its PEq: emit(ctx, j, D[m][j]) for
 * every j with D <= k, in increasing j (twin.h).  m >= 1.  0, or -1 when
 * out of memory (cols grows). */
int gpuasm_myers_run_nt16(const uint64_t *peq, uint32_t m, const uint8_t *text, uint64_t n,
                          int32_t k, gpuasm_emit_fn emit, void *ctx, gpuasm_myers_cols *cols);

#endif
