/* SPDX-License-Identifier: MIT */
/* tb_band.c -- the linear traceback's band and its steps (tb_band.h): the
 * rules of use that traceback_linear.c's header states (the diagonals,
 * the gaps back to the end's diagonal, the seeds' bound), as the blocks
 * that leave and enter. */
#include <stdint.h>
#include <string.h>

#include "kernels/myers/myers_block.h"
#include "align/tb_seeds.h"
#include "align/tb_band.h"

#define WB GPUASM_TB_WB
typedef gpuasm_tb_band band;

/* Peq (Myers 1999) of pattern, or of its reverse: bit r of peq[c * W + b]
 * is set when pattern row 64 b + r + 1 matches text code c (shares a
 * base, nt16.h).  The union over the bases of c, as in myers_cpu.c. */
void gpuasm_tb_peq(uint64_t *peq, const uint8_t *p, uint32_t m, int64_t W, int reversed)
{
    memset(peq, 0, (size_t)(16 * W) * sizeof(uint64_t));
    for (uint32_t i = 0; i < m; i++) {
        unsigned c = (reversed ? p[m - 1 - i] : p[i]) & 15;
        uint64_t bit = (uint64_t)1 << (i & 63);
        for (unsigned base = 1; base < 16; base <<= 1)
            if (c & base) peq[base * W + (i >> 6)] |= bit;
    }
    for (unsigned c = 3; c < 16; c++) {
        if (!(c & (c - 1))) continue;
        for (int64_t b = 0; b < W; b++)
            for (unsigned base = 1; base < 16; base <<= 1)
                if (c & base) peq[c * W + b] |= peq[base * W + b];
    }
}

static inline int64_t last_row(const band *bd, int64_t b)
{
    return (b + 1) * WB < (int64_t)bd->m ? (b + 1) * WB : (int64_t)bd->m;
}

/* Block of row r (row 0 is no block's: it goes with block 0). */
static inline int64_t block_of(int64_t r) { return r <= 1 ? 0 : (r - 1) / WB; }

static inline int64_t rows_lo(const band *bd, uint64_t x)
{
    int64_t r = (int64_t)x - bd->dhi;
    return r < 0 ? 0 : r;
}

static inline int64_t rows_hi(const band *bd, uint64_t x)
{
    int64_t r = (int64_t)x - bd->dlo;
    return r > (int64_t)bd->m ? (int64_t)bd->m : r;
}

/* Column x's first block: the band's diagonals' first, or the first one
 * held, but not past the last one held (a block entering below needs the
 * one above). */
static inline int64_t first_block(const band *bd, uint64_t x, int64_t fb, int64_t lb)
{
    int64_t b = block_of(rows_lo(bd, x));
    if (b < fb) b = fb;
    return b > lb ? lb : b;
}

/* Column x's Peq words, by block. */
static inline const uint64_t *column_eq(const band *bd, uint64_t x)
{
    return bd->peq + (size_t)(bd->text[bd->t0 + bd->tstep * (int64_t)x] & 15) * bd->W;
}

/* Column x0 of the pass: F(i, x0) = i (no text consumed yet). */
void gpuasm_tb_band_init(band *bd, uint64_t x0)
{
    bd->x = x0;
    bd->fb = bd->sfb = 0;
    bd->lb = bd->slb = block_of(rows_hi(bd, x0));
    for (int64_t b = 0; b <= bd->lb; b++) {
        bd->pv[b] = ~(uint64_t)0;
        bd->mv[b] = 0;
        bd->sc[b] = last_row(bd, b);
    }
}

static inline void block_in_band(band *bd, int64_t b, uint64_t eq, int *h, uint64_t hbit,
                                 uint64_t **store)
{
    uint64_t ph, mh;
    *h = gpuasm_myers_block_step(&bd->pv[b], &bd->mv[b], eq, *h, hbit, &ph, &mh);
    bd->sc[b] += *h;
    if (*store) {
        uint64_t *s = *store;
        s[0] = bd->pv[b];
        s[1] = bd->mv[b];
        s[2] = ph;
        s[3] = mh;
        *store = s + 4;
    }
}

/* What the rest of an alignment from pattern row i on costs at least,
 * by the seeds the text lacks (tb_seeds.h): 0 without them. */
static inline int64_t seeds_left(const band *bd, int64_t i)
{
    if (!bd->hs) return 0;
    const size_t j = (size_t)(i + GPUASM_TB_SEED_LEN - 1) / GPUASM_TB_SEED_LEN;
    return bd->hs[j < bd->n_hs ? j : bd->n_hs];
}

/* A lower bound, over block b's cells (i, x), of what the rule of use
 * compares with k: F(i, x), which is at least F(last row) - (last row - i)
 * (the rows of a column differ by at most one each); with to_end, plus a
 * lower bound of the rest: the larger of |x - i - ediag|, the gaps back to
 * the end cell's diagonal, and seeds_left(i), which does not grow with i.
 * Each is bounded over the block on its own: i + |t - i| (t = x - ediag)
 * is t for i <= t and 2 i - t above, so its least is at the block's first
 * row or at t; seeds_left is least at the last row. */
static inline int64_t block_least(const band *bd, int64_t b, uint64_t x)
{
    const int64_t r0 = b * WB + 1, r1 = last_row(bd, b);
    if (!bd->to_end) return bd->sc[b] - (r1 - r0);
    const int64_t t = (int64_t)x - bd->ediag;
    const int64_t by_diag = bd->sc[b] - r1 + (r0 >= t ? 2 * r0 - t : t);
    const int64_t by_seeds = bd->sc[b] - (r1 - r0) + seeds_left(bd, r1);
    return by_diag > by_seeds ? by_diag : by_seeds;
}

/* May the block below the last one enter in column x, the last row above
 * it having cost f in column x-1?  Its first row r0 is of use in column x
 * only through (r0-1, x-1) or (r0-1, x), which are then exact (the row
 * itself was of no use in x-1, or the block would be there), and F(r0, x)
 * is then at least f (a diagonal step from the first, or a gap from the
 * second, which costs at least f - 1).  So with to_end the rule of use
 * needs f + max(|x - r0 - ediag|, seeds_left(r0)) <= k, without it f <= k. */
static inline int may_enter(const band *bd, uint64_t x, int64_t f)
{
    if (!bd->to_end) return f <= bd->k;
    const int64_t r0 = (bd->lb + 1) * WB + 1, g = (int64_t)x - r0 - bd->ediag;
    const int64_t by_diag = g < 0 ? -g : g, by_seeds = seeds_left(bd, r0);
    return f + (by_diag > by_seeds ? by_diag : by_seeds) <= bd->k;
}

/* Block b's bit of its last row (the row whose delta goes to the next). */
static inline uint64_t hbit_of(const band *bd, int64_t b)
{
    return (uint64_t)1 << ((last_row(bd, b) - 1) & 63);
}

/* The block below the last one enters in column x where may_enter()
 * allows it (the last row above it cost sc[lb] - h in column x-1), from
 * "one more per row" than that row, and takes column x's step. */
static inline void enter_below(band *bd, uint64_t x, const uint64_t *eq, int *h, uint64_t **store)
{
    if (bd->lb >= block_of(rows_hi(bd, x)) || !may_enter(bd, x, bd->sc[bd->lb] - *h)) return;
    const int64_t b = ++bd->lb;
    bd->pv[b] = ~(uint64_t)0;
    bd->mv[b] = 0;
    bd->sc[b] = bd->sc[b - 1] - *h + (last_row(bd, b) - b * WB);
    block_in_band(bd, b, eq[b], h, hbit_of(bd, b), store);
}

/* Column x's blocks of no use leave: from the bottom, then from the top
 * (block 0 only once row 0 is of no use either). */
static inline void drop_blocks(band *bd, uint64_t x)
{
    while (bd->lb > bd->fb && block_least(bd, bd->lb, x) > bd->k) bd->lb--;
    while (bd->fb < bd->lb && block_least(bd, bd->fb, x) > bd->k && (bd->fb > 0 || x >= bd->row0_over_k))
        bd->fb++;
}

/* Advance the running column by one text column: blocks sfb..slb; with
 * store, their words are written there, four per block.  Blocks leave
 * and enter on two rules, both exact for every cell of an alignment of
 * cost <= k that stays in the band:
 *   the band     rows outside diagonals dlo..dhi (one row more per column);
 *   the values   (Ukkonen 1985, as myers_cpu.c's cut-off) a block whose
 *                cells all exceed k (with to_end: whose cells are all of
 *                no use, block_least) leaves from the bottom or, when every
 *                row above it is gone, from the top; a block enters below
 *                only when the last row above it was <= k in column x-1
 *                (the only way its first row can be <= k in column x;
 *                with to_end, may_enter).
 * A block entering below starts from "one more per row" than the last row
 * of the block above in column x-1, and the row above a top block that
 * left counts +1 per column: over-estimates that no alignment of cost <= k
 * in the band ever reads. */
void gpuasm_tb_band_step(band *bd, uint64_t *store)
{
    uint64_t x = ++bd->x;
    const int64_t nfb = first_block(bd, x, bd->fb, bd->lb);
    const uint64_t *eq = column_eq(bd, x);
    const uint64_t hfull = (uint64_t)1 << 63;
    int h = nfb == 0 ? bd->hin0 : 1;
    int64_t last = bd->lb < bd->W - 1 ? bd->lb : bd->W - 2;   /* blocks with 64 rows */
    for (int64_t b = nfb; b <= last; b++) block_in_band(bd, b, eq[b], &h, hfull, &store);
    if (bd->lb == bd->W - 1 && nfb <= bd->lb)
        block_in_band(bd, bd->lb, eq[bd->lb], &h, (uint64_t)1 << ((bd->m - 1) & 63), &store);
    enter_below(bd, x, eq, &h, &store);
    bd->sfb = bd->fb = nfb;
    bd->slb = bd->lb;
    drop_blocks(bd, x);
}

/* Two columns, x+1 and x+2, without stores, on x+1's blocks: no block
 * leaves between them.  A block kept that band_step() would drop changes
 * only cells of no use (its values are exact DP steps from inputs that
 * are exact or over-estimates, hence never below the true F and exact on
 * cells of use, which band_step() computes as well), so the rule above
 * and the walk are the same; x+2's blocks enter and leave by band_step()'s
 * rules.  What it is for: x+2's block b - 1 runs beside x+1's block b, two
 * chains of h at once (the band's blocks are one chain a column, ~12
 * cycles a block).  Returns the larger of the two columns' block counts. */
int64_t gpuasm_tb_band_step2(band *bd)
{
    const uint64_t x1 = bd->x + 1, x2 = bd->x + 2;
    const int64_t lb = bd->lb, nfb1 = first_block(bd, x1, bd->fb, lb), nfb2 = first_block(bd, x2, nfb1, lb);
    const uint64_t *eq1 = column_eq(bd, x1), *eq2 = column_eq(bd, x2);
    int h1 = nfb1 == 0 ? bd->hin0 : 1, h2 = nfb2 == 0 ? bd->hin0 : 1;
    uint64_t *none = NULL;
    for (int64_t b = nfb1; b <= lb; b++) {
        block_in_band(bd, b, eq1[b], &h1, hbit_of(bd, b), &none);
        if (b > nfb2) block_in_band(bd, b - 1, eq2[b - 1], &h2, hbit_of(bd, b - 1), &none);
    }
    /* x+1's block below may enter; then x+2 catches up */
    enter_below(bd, x1, eq1, &h1, &none);
    const int64_t lb1 = bd->lb, w1 = lb1 - nfb1 + 1;
    for (int64_t b = lb > nfb2 ? lb : nfb2; b <= lb1; b++) block_in_band(bd, b, eq2[b], &h2, hbit_of(bd, b), &none);
    enter_below(bd, x2, eq2, &h2, &none);
    bd->x = x2;
    bd->sfb = bd->fb = nfb2;
    bd->slb = bd->lb;
    drop_blocks(bd, x2);
    const int64_t w2 = bd->slb - bd->sfb + 1;
    return w1 > w2 ? w1 : w2;
}
