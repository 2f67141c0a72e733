/* SPDX-License-Identifier: MIT */
/* band_wave.h -- one full band of GPUASM_BAND_BLOCKS (4) Myers blocks on
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
 * the step before, so the 4 lanes of a step are independent and run as
 * one vector (gcc/clang vector extensions: one AVX2 register, two SSE2
 * ones).  Four lanes, not eight: eight 64-bit lanes split over AVX2
 * registers spilled (the state, Peq and masks need ~24 registers of 16)
 * and ran 3.5x slower than the scalar chain.  Hyyrö's block step has no carry between blocks
 * beyond hin/hout, so each lane is the scalar step on its own word.
 *
 * Eq of lane i: the text code of its column (nt16: a set of bases, bits
 * A 1, C 2, G 4, T 8; 0 for N) selects Peq[A] | Peq[C] | ... of the bases
 * it holds, since an nt16 Peq bit means "pattern base & text code != 0"
 * (the OR of the single bases' Peq).  The four codes of a step are four
 * consecutive text bytes, one 32-bit load, tested against per-lane masks.
 *
 * Between chunks the state stays skewed (lane i is i columns behind lane
 * 0): a run over columns [j0, j1) moves lane 0 through them and leaves the
 * band's bottom deltas (hb) final for columns < j1 - 3; the text's last
 * chunk drains.  Steps where some lane has no column (the band's first 3,
 * its last 3, and those near the column whose state the ends pass keeps)
 * run masked, lane by lane for the text.  Same values as the scalar band,
 * cell by cell: only the order of independent work changes.
 */
#ifndef GPUASM_KERNELS_BAND_WAVE_H
#define GPUASM_KERNELS_BAND_WAVE_H

#include <stdint.h>
#include <string.h>

#include "kernels/bands.h"

#if GPUASM_BAND_BLOCKS != 4
#error "band_wave.h runs 4 blocks a band"
#endif
#define WL GPUASM_BAND_BLOCKS

typedef uint64_t gpuasm_wv __attribute__((vector_size(8 * WL)));
typedef int64_t gpuasm_wvi __attribute__((vector_size(8 * WL)));

/* One band's wave: what stays the same over its columns. */
typedef struct gpuasm_wave_band {
    gpuasm_wv peq[4];       /* lane i: Peq of base A, C, G, T (codes 1, 2, 4, 8), block i */
    gpuasm_wv tab[16];      /* lane i: Peq of code c, block i (gpuasm_wave_tab) */
    const uint8_t *codes;   /* [n] the text's nt16 codes, column order (low 4 bits) */
    int8_t *hb;             /* [n] deltas in from the band above (unless top) and out */
    int top;                /* the pattern's first band: row 0 above is 0 */
    int64_t n, k;
    int64_t final_col;      /* the column whose Eq, Ph, Mh go to leq/lph/lmh (-1: none) */
    uint64_t *leq, *lph, *lmh;   /* [WL] */
} gpuasm_wave_band;

/* Lane i tests the byte of text column t - i within the 4 bytes loaded
 * from t - 3 (byte 3 - i), at the bit of base x. */
#define GPUASM_WAVE_MASK(x) \
    (gpuasm_wv){ (uint64_t)1 << (24 + (x)), (uint64_t)1 << (16 + (x)), (uint64_t)1 << (8 + (x)), (uint64_t)1 << (x) }

static inline __attribute__((always_inline)) void gpuasm_wave_eq(const gpuasm_wave_band *wb, uint64_t w,
                                                                 gpuasm_wv *eq)
{
    const gpuasm_wv b = (gpuasm_wv){ w, w, w, w };
    *eq = (wb->peq[0] & (gpuasm_wv)((b & GPUASM_WAVE_MASK(0)) != 0)) |
           (wb->peq[1] & (gpuasm_wv)((b & GPUASM_WAVE_MASK(1)) != 0)) |
           (wb->peq[2] & (gpuasm_wv)((b & GPUASM_WAVE_MASK(2)) != 0)) |
           (wb->peq[3] & (gpuasm_wv)((b & GPUASM_WAVE_MASK(3)) != 0));
}

/* wb->tab from wb->peq: code c's Peq is the OR of its bases'. */
static inline __attribute__((always_inline)) void gpuasm_wave_tab(gpuasm_wave_band *wb)
{
    for (int c = 0; c < 16; c++) {
        gpuasm_wv e = { 0 };
        for (int x = 0; x < 4; x++)
            if (c & (1 << x)) e |= wb->peq[x];
        wb->tab[c] = e;
    }
}

/* The lanes' state within a run, and the bottom row's (in registers: a
 * store to the band's state every step cost ~10%). */
typedef struct gpuasm_wave_regs {
    gpuasm_wv pv, mv, cp, cn;   /* Pv, Mv; each lane's last bottom delta (+1, -1 bits) */
    int64_t bottom, exit_f, exit_d;
} gpuasm_wave_regs;

/* One step: lane i at column t - i with Eq eq; lane 0's delta from
 * above is (tp, tn).  Leaves Ph/Mh before the shift in *ph0 / *mh0. */
static inline __attribute__((always_inline)) void gpuasm_wave_step(gpuasm_wave_regs *r, const gpuasm_wv *eqp,
                                                                   uint64_t tp, uint64_t tn, gpuasm_wv *ph0,
                                                                   gpuasm_wv *mh0)
{
    const gpuasm_wv eq = *eqp;   /* by pointer: a vector argument is an ABI question without AVX */
    const gpuasm_wv in_p = (gpuasm_wv){ tp }, in_n = (gpuasm_wv){ tn };
    const gpuasm_wv hp = __builtin_shufflevector(r->cp, in_p, 4, 0, 1, 2);
    const gpuasm_wv hn = __builtin_shufflevector(r->cn, in_n, 4, 0, 1, 2);
    const gpuasm_wv pv = r->pv, mv = r->mv;
    const gpuasm_wv xv = eq | mv, eqh = eq | hn;
    const gpuasm_wv xh = (((eqh & pv) + pv) ^ pv) | eqh;
    gpuasm_wv ph = mv | ~(xh | pv);
    gpuasm_wv mh = pv & xh;
    *ph0 = ph;
    *mh0 = mh;
    r->cp = ph >> 63;
    r->cn = mh >> 63;
    ph = (ph << 1) | hp;
    mh = (mh << 1) | hn;
    r->pv = mh | ~(xv | ph);
    r->mv = ph & xv;
}

/* The last lane's delta for column c: hb, the bottom row's D, the band's
 * exit. */
static inline __attribute__((always_inline)) void gpuasm_wave_out(const gpuasm_wave_band *wb, gpuasm_wave_regs *r,
                                                                  int64_t c)
{
    const int h = (int)r->cp[WL - 1] - (int)r->cn[WL - 1];
    wb->hb[c] = (int8_t)h;
    r->bottom += h;
    if (r->bottom <= wb->k && r->exit_f == INT64_MAX) {
        r->exit_f = c;
        r->exit_d = r->bottom;
    }
}

/* A step where some lane has no column (f the band's start: lane i works
 * when f < t - i < n), lane by lane. */
static inline __attribute__((always_inline)) void gpuasm_wave_masked(const gpuasm_wave_band *wb, gpuasm_wave_regs *r,
                                                                     int64_t t, int64_t f)
{
    uint64_t w = 0;
    gpuasm_wvi act = { 0 };
    for (int i = 0; i < WL; i++) {
        const int64_t c = t - i;
        if (c > f && c < wb->n) {
            act[i] = -1;
            w |= (uint64_t)(wb->codes[c] & 15u) << (8 * (WL - 1 - i));
        }
    }
    uint64_t tp = 0, tn = 0;
    if (!wb->top && t > f && t < wb->n) {
        tp = (uint64_t)(wb->hb[t] > 0);
        tn = (uint64_t)(wb->hb[t] < 0);
    }
    const gpuasm_wave_regs old = *r;
    gpuasm_wv ph0, mh0;
    gpuasm_wv eq;
    gpuasm_wave_eq(wb, w, &eq);
    gpuasm_wave_step(r, &eq, tp, tn, &ph0, &mh0);
    const gpuasm_wv a = (gpuasm_wv)act;
    r->pv = (r->pv & a) | (old.pv & ~a);
    r->mv = (r->mv & a) | (old.mv & ~a);
    if (wb->final_col >= 0)
        for (int i = 0; i < WL; i++)
            if (act[i] && t - i == wb->final_col) {
                wb->leq[i] = eq[i];
                wb->lph[i] = ph0[i];
                wb->lmh[i] = mh0[i];
            }
    if (act[WL - 1]) gpuasm_wave_out(wb, r, t - (WL - 1));
}

/* Columns [j0, j1) of lane 0 (st skewed as the header says; the band
 * started at st->start_f); the text's last chunk (j1 == n) drains.
 * Returns the first column whose bottom delta is not final yet (n when
 * drained). */
static inline __attribute__((always_inline)) int64_t gpuasm_wave_run(const gpuasm_wave_band *wb,
                                                                     gpuasm_band_state *st, int64_t j0, int64_t j1)
{
    const int64_t f = st->start_f, n = wb->n;
    gpuasm_wave_regs r;
    memcpy(&r.pv, st->pv, sizeof r.pv);
    memcpy(&r.mv, st->mv, sizeof r.mv);
    memcpy(&r.cp, st->cp, sizeof r.cp);
    memcpy(&r.cn, st->cn, sizeof r.cn);
    r.bottom = st->bottom;
    r.exit_f = st->exit_f;
    r.exit_d = st->exit_d;
    /* full steps: every lane has a column, none is final_col */
    int64_t lo = f + WL > j0 ? f + WL : j0, hi = j1;
    if (lo > j1) lo = j1;
    if (wb->final_col >= 0 && wb->final_col < hi) hi = wb->final_col;
    if (hi < lo) hi = lo;
    int64_t t = j0;
    for (; t < lo; t++) gpuasm_wave_masked(wb, &r, t, f);
    /* Full steps: lane i's Eq is column t - i's table row in lane i, so a
     * step loads one row (code c's Peq for all four blocks) and takes the
     * diagonal of the last four (three blends: a fifth of the
     * instructions the masks' tests took). */
    gpuasm_wv e1 = { 0 }, e2 = { 0 }, e3 = { 0 };
    if (t < hi) {
        e1 = wb->tab[wb->codes[t - 1] & 15u];
        e2 = wb->tab[wb->codes[t - 2] & 15u];
        e3 = wb->tab[wb->codes[t - 3] & 15u];
    }
    for (; t < hi; t++) {
        const gpuasm_wv e0 = wb->tab[wb->codes[t] & 15u];
        const gpuasm_wv lo01 = __builtin_shufflevector(e0, e1, 0, 5, 2, 3);
        const gpuasm_wv hi23 = __builtin_shufflevector(e2, e3, 0, 1, 2, 7);
        const gpuasm_wv eq = __builtin_shufflevector(lo01, hi23, 0, 1, 6, 7);
        e3 = e2;
        e2 = e1;
        e1 = e0;
        uint64_t tp = 0, tn = 0;
        if (!wb->top) {
            tp = (uint64_t)(wb->hb[t] > 0);
            tn = (uint64_t)(wb->hb[t] < 0);
        }
        gpuasm_wv ph0, mh0;
        gpuasm_wave_step(&r, &eq, tp, tn, &ph0, &mh0);
        gpuasm_wave_out(wb, &r, t - (WL - 1));
    }
    for (; t < j1; t++) gpuasm_wave_masked(wb, &r, t, f);
    int64_t done = j1 - (WL - 1) > f + 1 ? j1 - (WL - 1) : f + 1;
    if (j1 == n) {
        for (; t < n + WL - 1; t++) gpuasm_wave_masked(wb, &r, t, f);
        done = n;
    }
    memcpy(st->pv, &r.pv, sizeof r.pv);
    memcpy(st->mv, &r.mv, sizeof r.mv);
    memcpy(st->cp, &r.cp, sizeof r.cp);
    memcpy(st->cn, &r.cn, sizeof r.cn);
    st->bottom = r.bottom;
    st->exit_f = r.exit_f;
    st->exit_d = r.exit_d;
    return done;
}

#undef WL

#endif
