/* SPDX-License-Identifier: MIT */
/* ends_lanes.c -- several one-word ends passes against one text end at once
 * (see ends_lanes.h): the step of ends_word.h's gpuasm_ew_word1 in gcc's
 * vector extensions, one target a lane. */
#include <stddef.h>
#include <string.h>

#include "kernels/ends/ends_lanes.h"

typedef uint64_t el_vec __attribute__((vector_size(8 * GPUASM_EL_LANES)));

/* One group of at most GPUASM_EL_LANES runnable items (idx into e/reach/out,
 * W their windows): the Myers step over the group's longest window, then
 * each lane's row rule. */
/* On x86-64 an AVX2 clone as well (one register a vector; the baseline
 * SSE2 build splits each in two), picked at load time by the processor. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void run_group(const ends_word *const *e, const uint32_t *reach, const uint32_t *idx, const uint32_t *W,
                      uint32_t nl, const uint8_t *text, uint32_t n, int at_start, gpuasm_partial *out)
{
    el_vec eqt[16];
    uint32_t X = 0;
    for (uint32_t c = 0; c < 16; c++) eqt[c] = (el_vec){ 0 };
    for (uint32_t l = 0; l < nl; l++) {
        const uint64_t *peq = e[idx[l]]->peq[at_start][0];
        for (uint32_t c = 0; c < 16; c++) eqt[c][l] = peq[c];
        if (W[l] > X) X = W[l];
    }
    const uint8_t *tp;
    ptrdiff_t step;
    gpuasm_ew_start(text, n, X, 0, at_start, &tp, &step);
    /* X - 1 columns, then the last one, whose Eq and horizontal deltas
     * the row rule reads (kept out of the loop: on the baseline build a
     * vector is two SSE registers, and three more live vectors spilled) */
    const uint8_t *const tlast = tp + step * (ptrdiff_t)(X - 1u);
    el_vec pv = ~(el_vec){ 0 }, mv = { 0 };
    for (; tp != tlast; tp += step) {
        const el_vec eq = eqt[*tp & 15u];
        const el_vec xv = eq | mv;
        const el_vec xh = (((eq & pv) + pv) ^ pv) | eq;
        const el_vec ph = (mv | ~(xh | pv)) << 1;
        const el_vec mh = (pv & xh) << 1;
        pv = mh | ~(xv | ph);
        mv = ph & xv;
    }
    const el_vec leq = eqt[*tp & 15u];
    const el_vec xv = leq | mv;
    const el_vec xh = (((leq & pv) + pv) ^ pv) | leq;
    const el_vec lph = mv | ~(xh | pv);
    const el_vec lmh = pv & xh;
    pv = (lmh << 1) | ~(xv | (lph << 1));
    mv = (lph << 1) & xv;
    for (uint32_t l = 0; l < nl; l++) {
        const ends_word *w = e[idx[l]];
        const uint32_t r = reach[idx[l]];
        /* the rows of gpuasm_ends_word_view(): none past reach */
        const uint32_t rows = r < w->m ? r + 1u : w->m;
        const uint64_t p = pv[l], m = mv[l], q = leq[l], h = lph[l], g = lmh[l];
        out[idx[l]] = gpuasm_ew_rows_best(w->kp, rows, w->omin, w->kmax, w->kmono, &p, &m, &q, &h, &g, 1);
    }
}

void gpuasm_ends_lanes_best(const ends_word *const *e, const uint32_t *reach, uint32_t count, const uint8_t *text,
                            uint32_t n, int at_start, gpuasm_partial *out)
{
    uint32_t idx[GPUASM_EL_LANES], W[GPUASM_EL_LANES], nl = 0;
    for (uint32_t i = 0; i < count; i++) {
        out[i] = (gpuasm_partial){ 0, 0 };
        if (reach[i] == 0) continue;   /* e[i] unused */
        const ends_word *w = e[i];
        /* gpuasm_ends_word_view()'s items with nothing to run */
        if (w->omin == 0 || w->omin >= w->m || n == 0 || w->kmax < 0) continue;
        idx[nl] = i;
        W[nl] = gpuasm_ew_window(w, n, reach[i]);
        if (++nl == GPUASM_EL_LANES) {
            run_group(e, reach, idx, W, nl, text, n, at_start, out);
            nl = 0;
        }
    }
    if (nl) run_group(e, reach, idx, W, nl, text, n, at_start, out);
}
