/* SPDX-License-Identifier: MIT */
/* myers_block.h -- one step of Myers' bit-vector algorithm on a block of
 * 64 pattern rows (host C), shared by the Myers CPU twin (myers_cpu.c) and
 * the linear traceback (traceback.c).
 *
 * Myers 1999 (seed 003 §2.2) in Hyyro's block form ("Explaining and
 * extending the bit-parallel approximate string matching algorithm of
 * Myers", 2001) as edlib's calculateBlock(): bit i of a word is row
 * 64b + i + 1 of the block; pv/mv are the vertical +1/-1 deltas of the
 * column, eq the block's Peq word for the text symbol.
 */
#ifndef GPUASM_MYERS_BLOCK_H
#define GPUASM_MYERS_BLOCK_H

#include <stdint.h>

/* Advance one block by one text column.  hin, and the return value, in
 * {-1, 0, +1}, are the horizontal deltas D[row][j] - D[row][j-1] of the
 * row just above the block and of the block's last real row (selected by
 * hbit).  *ph_out, *mh_out get the horizontal +1/-1 deltas of every row
 * of the block (before the shift); callers that do not need them pass
 * locals the compiler drops. */
static inline int gpuasm_myers_block_step(uint64_t *pv_io, uint64_t *mv_io, uint64_t eq, int hin,
                                          uint64_t hbit, uint64_t *ph_out, uint64_t *mh_out)
{
    uint64_t pv = *pv_io, mv = *mv_io;
    uint64_t hin_neg = (uint64_t)(hin < 0);
    uint64_t hin_pos = (uint64_t)(hin > 0);
    uint64_t xv = eq | mv;
    /* A -1 coming in from above acts on row 0 of the block like a match. */
    eq |= hin_neg;
    uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
    uint64_t ph = mv | ~(xh | pv);
    uint64_t mh = pv & xh;
    int hout = (int)((ph & hbit) != 0) - (int)((mh & hbit) != 0);
    *ph_out = ph;
    *mh_out = mh;
    ph = (ph << 1) | hin_pos;
    mh = (mh << 1) | hin_neg;
    *pv_io = mh | ~(xv | ph);
    *mv_io = ph & xv;
    return hout;
}

#endif
