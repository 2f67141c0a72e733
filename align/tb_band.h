/* SPDX-License-Identifier: MIT */
/* tb_band.h -- the linear traceback's band (traceback_linear.c): a running
 * column of Myers' bit-vectors over the blocks of 64 pattern rows that
 * can still hold a cell of use, and its steps.  Not installed. */
#ifndef GPUASM_TB_BAND_H
#define GPUASM_TB_BAND_H

#include <stddef.h>
#include <stdint.h>

#define GPUASM_TB_WB 64   /* rows per block (one 64-bit word) */

/* The band of one forward or reverse pass and its running column. */
typedef struct gpuasm_tb_band {
    const uint64_t *peq;    /* [16 * W] */
    uint32_t m;
    int64_t W;              /* blocks: ceil(m / 64) */
    int64_t dlo, dhi;       /* diagonals x - i of the band, inclusive */
    int hin0;               /* horizontal delta of row 0: 0 free start, 1 anchored */
    const uint8_t *text;
    int64_t t0, tstep;      /* column x reads text[t0 + tstep * x] */
    int64_t k;              /* cells above k are of no use (k = the hit's distance) */
    uint64_t row0_over_k;   /* row 0 is of no use in every column from this one on */
    int to_end;             /* 1: a cell is of use only when F + |x - i - ediag| <= k */
    int64_t ediag;          /* to_end: the diagonal of the cell the alignment ends in */
    const uint32_t *hs;     /* to_end, or NULL: gpuasm_tb_seeds()'s counts, n_hs + 1 */
    size_t n_hs;
    uint64_t x;             /* column held */
    int64_t fb, lb;         /* blocks held, first and last (for the next step) */
    int64_t sfb, slb;       /* blocks computed (and stored) in column x */
    uint64_t *pv, *mv;      /* [W] vertical deltas (Myers' Pv/Mv) by block */
    int64_t *sc;            /* [W] F at each block's last row */
} gpuasm_tb_band;

/* Peq (Myers 1999) of pattern[0..m), or of its reverse: bit r of
 * peq[c * W + b] ([16 * W]) is set when pattern row 64 b + r + 1 matches
 * text code c (shares a base, nt16.h). */
void gpuasm_tb_peq(uint64_t *peq, const uint8_t *p, uint32_t m, int64_t W, int reversed);

/* Column x0 of the pass: F(i, x0) = i (no text consumed yet). */
void gpuasm_tb_band_init(gpuasm_tb_band *bd, uint64_t x0);

/* One text column; with store, its blocks' words (Pv, Mv, Ph, Mh) there,
 * four per block (sfb .. slb). */
void gpuasm_tb_band_step(gpuasm_tb_band *bd, uint64_t *store);

/* Two text columns, no stores; returns the wider one's block count. */
int64_t gpuasm_tb_band_step2(gpuasm_tb_band *bd);

#endif
