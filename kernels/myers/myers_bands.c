/* SPDX-License-Identifier: MIT */
/* myers_bands.c -- the Myers twin's search of one LONG pattern band by
 * band (issue #28, "a single huge pair"): the same hits as run_blocks()
 * of myers_cpu.c, in an order of work that fits the caches.
 *
 * run_blocks() (Hyyrö's blocks with Ukkonen's cut-off, edlib's order)
 * walks the text column by column and, in each column, every active block
 * of the pattern.  For a 1 Mb pattern that is ~15,600 blocks a column:
 * each column reads Pv, Mv, a score and a PEq word per block (the PEq
 * words 128 bytes apart, a cache line each), ~0.5-2 MB of state per
 * column, out of L3.  Here the pattern's blocks are cut into BANDS of
 * 4 or 8 blocks (256 or 512 rows: bands.h) and each band runs over its whole text
 * before the next: the band's Pv/Mv live in registers, its PEq words
 * (4 x 16 words for nt16) in L1, and the band's bottom row hands its
 * horizontal delta for every column to the band below through one byte a
 * column (hb[j], rewritten in place by each band).  The same schedule as
 * the GPU's LONG strips (myers_long_core.cuh), with 64-bit words.
 *
 * The cut-off, at band granularity (the strips' rule): band 0 starts at
 * the fresh column -1 (D[i] = i); band b (first row a) starts at column
 *     f_b = the first column f >= f_{b-1} with D[a-1][f] <= k
 * (the band above's bottom row as computed; f = -1 when a - 1 <= k and
 * f_{b-1} = -1), initialised there as D[i][f] = D[a-1][f] + (i - a + 1)
 * (Pv all ones) and computed from f + 1 to the end of the text; a band
 * with no such f is never entered, nor is any band below it.  Exact where
 * D <= k, by induction over bands: (i) every cell of band b before column
 * f_b is > k, since a path of cells <= k into it would cross row a - 1 at
 * a column < f_b, where the band above is > k (computed > k means true
 * > k: computed cells are exact where <= k and over-estimates elsewhere);
 * (ii) at column f_b the only paths of cells <= k into the band come down
 * column f_b from (a-1, f_b), so the initial column is exact where <= k
 * and an over-estimate elsewhere, with valid deltas; (iii) from there on
 * the recurrence of over-estimates gives over-estimates, and a cell <= k
 * has an optimal path of cells <= k, all exact.  So D[m][j] <= k holds
 * for the computed last band exactly where it holds in the true DP, with
 * the same value, and is > k before the last band's start: the emits are
 * run_blocks()' (which is exact too), in increasing j.  A band's initial
 * column is > k below its top row unless f = -1: a first column f >= 0
 * with D[a-1][f] <= k after columns > k has D[a-1][f] = k (horizontal
 * deltas are >= -1), so nothing is emitted there, and a band starts at the
 * column of the band above only at -1.  A band never leaves once entered (as on the GPU): bands that
 * run_blocks() would drop and bring back cost a little more here, against
 * 4-10x less memory traffic per block step.
 *
 * The bands run through kernels/bands.h's driver: one after the other,
 * or, for a huge pair, as a wavefront on the CPU backend's threads (the
 * same bytes).  tests/c/test_bands.c holds this to the naive DP, alone
 * and pipelined.
 */
#include <stdint.h>
#include <stdlib.h>

#include "kernels/band_wave.h"
#include "kernels/bands.h"
#include "kernels/myers/myers_cpu.h"

#define BAND_BLOCKS GPUASM_BAND_BLOCKS
#define NEVER INT64_MAX

/* One block step written out (partial_cut.c's form of Hyyrö's step):
 * (hp, hn) is the horizontal delta entering the block's top row as two
 * bits (+1, -1), replaced by its last row's (bit 63); ph0/mh0 get the
 * horizontal deltas before the shift (callers that do not need them pass
 * locals the compiler drops). */
#define BLOCK_STEP(pv, mv, eq, hp, hn, ph0, mh0)                         \
    do {                                                                 \
        const uint64_t xv_ = (eq) | (mv);                                \
        const uint64_t eqh_ = (eq) | (hn);                               \
        const uint64_t xh_ = ((((eqh_) & (pv)) + (pv)) ^ (pv)) | eqh_;   \
        uint64_t ph_ = (mv) | ~(xh_ | (pv));                             \
        uint64_t mh_ = (pv) & xh_;                                       \
        (ph0) = ph_;                                                     \
        (mh0) = mh_;                                                     \
        const uint64_t op_ = ph_ >> 63, on_ = mh_ >> 63;                 \
        ph_ = (ph_ << 1) | (hp);                                         \
        mh_ = (mh_ << 1) | (hn);                                         \
        (pv) = mh_ | ~(xv_ | ph_);                                       \
        (mv) = ph_ & xv_;                                                \
        (hp) = op_;                                                      \
        (hn) = on_;                                                      \
    } while (0)

/* One search's bands (the driver's ctx). */
typedef struct search_bands {
    const uint64_t *peq;
    unsigned sym_shift;
    uint32_t m;
    size_t W, nb;       /* blocks, bands */
    size_t bb;          /* blocks a band (gpuasm_bands_blocks) */
    const uint8_t *text;
    int64_t n, k;
    int8_t *hb;
    gpuasm_emit_fn emit;
    void *emit_ctx;
    uint64_t *end_w;    /* [5][W] the last column's state (NULL: not wanted) */
} search_bands;

/* A full band (BAND_BLOCKS blocks of 64 rows, not the pattern's last)
 * over columns [j0, j1); sh (log2 of the PEq's symbols) a constant in
 * each call, so that the blocks' loop unrolls with Pv/Mv in registers
 * (a loop over memory arrays ran at ~4 ns a block step). */
static inline __attribute__((always_inline)) void
run_full_band(const search_bands *s, unsigned sh, size_t b, gpuasm_band_state *st, int64_t j0, int64_t j1)
{
    const unsigned mask = (1u << sh) - 1u;
    const uint64_t *peq_b = s->peq + ((b * s->bb) << sh);
    const uint8_t *text = s->text;
    const int nbk = (int)s->bb;
    int8_t *hb = s->hb;
    const int top = b == 0;
    uint64_t pv[BAND_BLOCKS], mv[BAND_BLOCKS];
    for (int i = 0; i < nbk; i++) {
        pv[i] = st->pv[i];
        mv[i] = st->mv[i];
    }
    int64_t bottom = st->bottom;
    for (int64_t j = j0; j < j1; j++) {
        const uint64_t *eqc = peq_b + (text[j] & mask);
        uint64_t hp = 0, hn = 0;
        if (!top) {
            hp = (uint64_t)(hb[j] > 0);
            hn = (uint64_t)(hb[j] < 0);
        }
        for (int i = 0; i < nbk; i++) {
            const uint64_t eq = eqc[(size_t)i << sh];
            uint64_t ph0, mh0;
            BLOCK_STEP(pv[i], mv[i], eq, hp, hn, ph0, mh0);
            (void)ph0;
            (void)mh0;
        }
        const int h = (int)hp - (int)hn;
        hb[j] = (int8_t)h;
        bottom += h;
        if (bottom <= s->k && st->exit_f == NEVER) {
            st->exit_f = j;
            st->exit_d = bottom;
        }
    }
    for (int i = 0; i < nbk; i++) {
        st->pv[i] = pv[i];
        st->mv[i] = mv[i];
    }
    st->bottom = bottom;
}

/* The last column's Eq, Ph and Mh of block w (before the shift). */
static inline void end_block(const search_bands *s, size_t w, uint64_t eq, uint64_t ph, uint64_t mh)
{
    s->end_w[2 * s->W + w] = eq;
    s->end_w[3 * s->W + w] = ph;
    s->end_w[4 * s->W + w] = mh;
}

/* The pattern's last band (1 to BAND_BLOCKS blocks, the last one holding
 * rows up to m) over columns [j0, j1): emits D[m][j] <= k. */
static void run_last_band(const search_bands *s, size_t b, gpuasm_band_state *st, int64_t j0, int64_t j1)
{
    const unsigned sh = s->sym_shift, mask = (1u << sh) - 1u;
    const size_t b0 = b * s->bb, ns = s->W - b0;
    const unsigned last_bit = (s->m - 1u) % 64u;
    const uint64_t *peq_b = s->peq + (b0 << sh);
    const int8_t *hb = s->hb;
    const int top = b == 0;
    int64_t bottom = st->bottom;
    for (int64_t j = j0; j < j1; j++) {
        const uint64_t *eqc = peq_b + (s->text[j] & mask);
        uint64_t hp = 0, hn = 0;
        if (!top) {
            hp = (uint64_t)(hb[j] > 0);
            hn = (uint64_t)(hb[j] < 0);
        }
        size_t i = 0;
        const int dump = s->end_w && j + 1 == s->n;
        for (; i + 1 < ns; i++) {
            const uint64_t eq = eqc[i << sh];
            uint64_t ph0, mh0;
            BLOCK_STEP(st->pv[i], st->mv[i], eq, hp, hn, ph0, mh0);
            if (dump) end_block(s, b0 + i, eq, ph0, mh0);   /* the last column */
        }
        /* The last block: its score is read at row m's bit, not bit 63
         * (padding rows above m: myers_cpu.c's header). */
        const uint64_t eq = eqc[i << sh];
        const uint64_t p0 = st->pv[i], m0 = st->mv[i];
        const uint64_t xv = eq | m0, eqh = eq | hn;
        const uint64_t xh = (((eqh & p0) + p0) ^ p0) | eqh;
        uint64_t ph = m0 | ~(xh | p0);
        uint64_t mh = p0 & xh;
        if (dump) end_block(s, b0 + i, eq, ph, mh);
        bottom += (int64_t)((ph >> last_bit) & 1u) - (int64_t)((mh >> last_bit) & 1u);
        ph = (ph << 1) | hp;
        mh = (mh << 1) | hn;
        st->pv[i] = mh | ~(xv | ph);
        st->mv[i] = ph & xv;
        if (bottom <= s->k) s->emit(s->emit_ctx, (uint64_t)j, (int32_t)bottom);
    }
    st->bottom = bottom;
}

/* A full band on nt16 text as band_wave.h's vector wavefront. */
static inline __attribute__((always_inline)) int64_t run_wave(const search_bands *s, size_t b, gpuasm_band_state *st,
                                                              int64_t j0, int64_t j1)
{
    gpuasm_wave_io io = { s->peq + ((b * s->bb) << 4), 1, 16, s->text, s->hb, b == 0, s->n, s->k, -1,
                          NULL, NULL, NULL };
    if (s->end_w) {
        io.final_col = s->n - 1;
        io.leq = s->end_w + 2 * s->W + b * s->bb;
        io.lph = io.leq + s->W;
        io.lmh = io.lph + s->W;
    }
    return gpuasm_wave_band_run((int)s->bb, &io, st, j0, j1);
}

/* On x86-64 AVX-512 and AVX2 clones as well (band_wave.h's vector of 4
 * words: one register, two, or four on the SSE2 baseline). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static int64_t run_band(void *ctx, size_t b, gpuasm_band_state *st, int64_t j0, int64_t j1)
{
    const search_bands *s = ctx;
    if (b + 1 < s->nb && s->sym_shift == 4)
        return run_wave(s, b, st, j0, j1);
    if (b + 1 < s->nb)
        run_full_band(s, 8, b, st, j0, j1);
    else
        run_last_band(s, b, st, j0, j1);
    return j1;
}

static void finish_band(void *ctx, size_t b, const gpuasm_band_state *st)
{
    const search_bands *s = ctx;
    if (!st || !s->end_w) return;
    const size_t b0 = b * s->bb, ns = s->W - b0 < s->bb ? s->W - b0 : s->bb;
    for (size_t i = 0; i < ns; i++) {
        s->end_w[b0 + i] = st->pv[i];
        s->end_w[s->W + b0 + i] = st->mv[i];
    }
}

int gpuasm_myers_run_bands(const uint64_t *peq, unsigned sym_shift, uint32_t m, const uint8_t *text,
                           uint64_t n, int32_t k, gpuasm_emit_fn emit, void *ctx, gpuasm_myers_cols *cols)
{
    if (m == 0 || k < 0 || n == 0) return 0;
    if (n > (uint64_t)INT64_MAX / 2) return -1;
    if (gpuasm_myers_cols_hb(cols, n) < 0) return -1;
    search_bands s;
    s.peq = peq;
    s.sym_shift = sym_shift;
    s.m = m;
    s.W = ((size_t)m + 63u) / 64u;
    s.bb = (size_t)gpuasm_bands_blocks();
    s.nb = (s.W + s.bb - 1) / s.bb;
    s.text = text;
    s.n = (int64_t)n;
    s.k = k;
    s.hb = cols->hb;
    s.emit = emit;
    s.emit_ctx = ctx;
    s.end_w = NULL;
    cols->end_ok = 0;
    if (cols->want_end && sym_shift == 4) {
        if (s.W > cols->end_cap) {
            uint64_t *e = realloc(cols->end_w, 5 * s.W * sizeof(uint64_t));
            if (!e) return -1;
            cols->end_w = e;
            cols->end_cap = s.W;
        }
        s.end_w = cols->end_w;
    }
    const gpuasm_band_ops ops = { &s, s.nb, (int64_t)n, m, (uint32_t)s.bb, k, run_band, finish_band };
    int64_t last_start;
    long entered = gpuasm_bands_run(&ops, gpuasm_bands_helpers_for((uint64_t)s.W * n), &last_start);
    if (entered < 0) return -1;
    if (s.end_w) {
        /* a band entered at the last column computed nothing there (its
         * rows are > k: the header), as partial_cut.c leaves it out */
        if (entered > 0 && last_start >= (int64_t)n - 1) entered--;
        cols->end_rows = entered <= 0 ? 0 : (size_t)entered == s.nb ? m : (uint32_t)entered * 64u * (uint32_t)s.bb;
        cols->end_ok = 1;
    }
    return 0;
}
