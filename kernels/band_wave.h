/* SPDX-License-Identifier: MIT */
/* band_wave.h -- one full band of 4 or 8 Myers blocks (bands.h's
 * gpuasm_bands_blocks()) on
 * nt16 text as a wavefront in vector lanes (internal to kernels/; issue
 * #28's huge pair): the step that kernels/myers/myers_bands.c (the search)
 * and kernels/ends/partial_cut.c (the ends pass) share.
 *
 * Block by block, a column of a band is a chain: block i + 1 needs block
 * i's bottom delta of the same column (Hyyrö's hin/hout), ~9 dependent
 * operations a block, so 8 blocks a column ran at ~3 ns a block step,
 * bound by that chain (perf, a 200 kb pair).  Skewed as the GPU's warp
 * wavefront (myers_cuda_core.cuh): at step t lane i (block i of the band)
 * computes column t - i, taking block i - 1's delta of that column from
 * the step before, so the lanes of a step are independent and run as one
 * vector (gcc/clang vector extensions).  Two widths, by the processor:
 * 4 lanes (one AVX2 register) and 8 (one AVX-512 register); eight 64-bit
 * lanes split over AVX2 registers spilled (the state and Peq need ~24
 * registers of 16) and ran 3.5x slower than the scalar chain.  The code
 * of each width is band_wave_lanes.h, included twice (names suffixed 4
 * and 8).  Hyyrö's block step has no carry between blocks
 * beyond hin/hout, so each lane is the scalar step on its own word.
 *
 * Eq of lane i: the text code of its column (nt16: a set of bases, bits
 * A 1, C 2, G 4, T 8; 0 for N) selects Peq[A] | Peq[C] | ... of the bases
 * it holds, since an nt16 Peq bit means "pattern base & text code != 0"
 * (the OR of the single bases' Peq): a band's table of the 16 codes'
 * rows, of which a full step takes the diagonal of the last WL rows
 * (lane i from column t - i's row) by blends.
 *
 * Between chunks the state stays skewed (lane i is i columns behind lane
 * 0): a run over columns [j0, j1) moves lane 0 through them and leaves the
 * band's bottom deltas (hb) final for columns < j1 - (WL - 1); the text's
 * last chunk drains.  Steps where some lane has no column (the band's
 * first WL - 1, its last, and those near the column whose state is kept)
 * run masked, lane by lane for the text.  Same values as the scalar band,
 * cell by cell: only the order of independent work changes.
 */
#ifndef GPUASM_KERNELS_BAND_WAVE_H
#define GPUASM_KERNELS_BAND_WAVE_H

#include <stdint.h>
#include <string.h>

#include "kernels/bands.h"

#define WN(x) WN_(x, WL)
#define WN_(x, l) WN__(x, l)
#define WN__(x, l) x##l

/* gpuasm_wave_run4 and friends: 4 blocks a band (AVX2's four 64-bit lanes) */
#define WL 4
#include "kernels/band_wave_lanes.h"
#undef WL

/* gpuasm_wave_run8 and friends: 8 blocks a band (AVX-512's eight lanes) */
#define WL 8
#include "kernels/band_wave_lanes.h"
#undef WL

#undef WN__
#undef WN_
#undef WN

/* Where a full band's wave reads and writes (the kernels' side of
 * gpuasm_wave_band4/8). */
typedef struct gpuasm_wave_io {
    const uint64_t *peq;        /* code c, block i of the band: peq[c * cstride + i * bstride] */
    size_t cstride, bstride;
    const uint8_t *codes;       /* [n] */
    int8_t *hb;                 /* [n] */
    int top;
    int64_t n, k, final_col;
    uint64_t *leq, *lph, *lmh;  /* [blocks] at final_col (final_col >= 0) */
} gpuasm_wave_io;

/* Columns [j0, j1) of a full band of `blocks` (4 or 8) lanes: the wave of
 * that width (gpuasm_wave_run4/8's return). */
static inline __attribute__((always_inline)) int64_t gpuasm_wave_band_run(int blocks, const gpuasm_wave_io *io,
                                                                          gpuasm_band_state *st, int64_t j0,
                                                                          int64_t j1)
{
#define GPUASM_WAVE_RUN(WL)                                                               \
    do {                                                                                  \
        gpuasm_wave_band##WL wb;                                                          \
        gpuasm_wave_peq##WL(&wb, io->peq, io->cstride, io->bstride);                      \
        wb.codes = io->codes;                                                             \
        wb.hb = io->hb;                                                                   \
        wb.top = io->top;                                                                 \
        wb.n = io->n;                                                                     \
        wb.k = io->k;                                                                     \
        wb.final_col = io->final_col;                                                     \
        wb.leq = io->leq;                                                                 \
        wb.lph = io->lph;                                                                 \
        wb.lmh = io->lmh;                                                                 \
        return gpuasm_wave_run##WL(&wb, st, j0, j1);                                      \
    } while (0)
    if (blocks == 8) GPUASM_WAVE_RUN(8);
    GPUASM_WAVE_RUN(4);
#undef GPUASM_WAVE_RUN
}

#endif
