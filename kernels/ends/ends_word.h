/* SPDX-License-Identifier: MIT */
/* ends_word.h -- the ends pass (edit mode, nt16) of a pattern of up to
 * four 64-bit words from tables built once: what gpuasm_partial_best()
 * (kernels/partial.h) builds per item, and the Myers step.  The CPU walk
 * (walk/cpu_scan.c) runs it for targets as patterns (adapters and
 * primers, most of the items a screen runs; issue #26) and for a short
 * read as the pattern of genome ends (issue #28); the GPU's ends pass
 * (partial_cuda.cu) for targets of up to two words, from the same code
 * (GPUASM_HD). */
#ifndef GPUASM_ENDS_WORD_H
#define GPUASM_ENDS_WORD_H

#include <stdint.h>

#include <stddef.h>

#include "kernels/partial.h"
#include "search/nt16.h"
#include "search/search.h"

/* The ends pass of a pattern of up to EW_MAX bases in edit mode on nt16
 * (a target that is the pattern: adapters and primers, most of the items
 * a screen runs, built once per run; a short read that is the pattern of
 * genomes, built once per read strand for its items against every
 * genome end), with what gpuasm_partial_best() builds per item built
 * once: per end (0: the text's end, the pattern as it is; 1: its start, the
 * pattern reversed), Eq of the pattern's words for each of the 16 text
 * codes (the OR of the base masks of the code's bases: one load a column
 * where four tests and ORs cost a third of the column step, callgrind),
 * and k_p under the floor (gpuasm_partial_kf) for every p, -1 where p is
 * no candidate. */
#define EW_WORDS 4
#define EW_MAX (64 * EW_WORDS)
typedef struct ends_word {
    uint64_t peq[2][EW_WORDS][16];
    int16_t kp[EW_MAX];
    uint32_t m, omin, nw;  /* nw: the words of rows 1 .. m - 1 (the rule's rows) */
    int32_t kmax;         /* k_{m-1} (partial.h's window: W = m - 1 + kmax) */
    int32_t kmono;        /* 1: kp[p] does not decrease over p in [1, m) (-1 only before
                           * the first p with a k_p): the row rule's chunk bound */
} ends_word;

/* e for pattern pat[0 .. m) (nt16 codes, 1 <= m <= EW_MAX bases) under
 * opt, with omin the shortest partial occurrence (bases) the pair rule
 * admits (gpuasm_pair_overlap_min, >= 1) and the floor of the pattern's
 * side (gpuasm_pair_partial_floor: read_is_pattern 1 for a read). */
#ifdef __cplusplus
extern "C" {
#endif

void gpuasm_ends_word_build(ends_word *e, const gpuasm_search_opt *opt, const uint8_t *pat, uint32_t m,
                            uint32_t omin, int read_is_pattern);

/* e, built by gpuasm_ends_word_build() for a pattern of e->m bases, for
 * pattern pat[0 .. e->m) under the same options, omin and side: only the
 * Eq tables change (k_p depends on the length alone; a read strand's
 * ends_word is remade for every strand of reads of one length). */
void gpuasm_ends_word_rebuild(ends_word *e, const uint8_t *pat);

/* gpuasm_partial_best() of kernels/partial.h, edit mode, for e's pattern
 * against text[0 .. n) (a read strand as searched, nt16): the same Myers
 * block step (seed 000; Hyyro's carry between the words) over the same
 * window and the same row rule, so the same (plen, dist): plen the aligned
 * pattern bases (0: none), at_start 0 for the text's end (a pattern
 * prefix), 1 for its start (a suffix).  reach: look at no more than the
 * last (first) reach text bases (UINT32_MAX: the whole window), exact when
 * every acceptable occurrence spans at most that many, as the ends
 * filter's reach proves (ends_filter.h, gpuasm_efilter_mark): a chance
 * candidate fired by a short run costs a short window.  test_kernels'
 * engine cases and tests/c/test_ends_filter.c compare the two. */
gpuasm_partial gpuasm_ends_word_best(const ends_word *e, const uint8_t *text, uint32_t n, int at_start,
                                     uint32_t reach);

#ifdef __cplusplus
}
#endif

/* ---- the step, for the host and the GPU (GPUASM_HD) ---------------------- */

/* Bits set in x (SWAR on the host: no popcnt in a generic x86-64 build,
 * where __builtin_popcountll is a libgcc call of ~21 instructions). */
GPUASM_HD int32_t gpuasm_ew_pop64(uint64_t x)
{
#ifdef __CUDA_ARCH__
    return __popcll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555u);
    x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return (int32_t)((x * 0x0101010101010101u) >> 56);
#endif
}

/* The shortest run of rows summed by pop64 rather than a row at a time. */
#define EW_JUMP 3
/* Rows of the host row rule's chunk (its two counts in one byte each). */
#define EW_CHUNK 8

/* The row rule over the last column's vectors (nw words; a constant where
 * inlined).  D of row p of the last column is the prefix sum of the
 * vertical deltas, popcounts to get to row omin - 1.  D_p >= D[p][n-1]
 * (the last column's cell is the minimum of D_p's two terms and a
 * trailing deletion), and k_p <= k_{m-1}: a row whose D[p][n-1] is past
 * kmax holds no hit, and costs only its delta, taken from the vectors
 * shifted a bit a row (most rows of a text with no occurrence: the row
 * pass was two fifths of the ends pass, callgrind). */
/* Row p = b + 1 (bit b of word w) of the row rule, d = D[p][n-1], dprev
 * = D[p-1][n-1], kp = k_p >= 0: D_p from its two terms, kept in *best
 * when at most kp.  e1 = D[p-1][n-2], ev = D[p][n-2]: D of the last
 * column minus the last step's horizontal delta (row 0: D[0][n-2] = 0). */
GPUASM_HD void gpuasm_ew_row(gpuasm_partial *best, uint32_t b, uint32_t w, uint32_t nw, int32_t d, int32_t dprev,
                             int32_t kp, const uint64_t *leq, const uint64_t *lph, const uint64_t *lmh)
{
    const uint32_t s = b % 64u;
    const int32_t ev = d - ((int32_t)((lph[w] >> s) & 1u) - (int32_t)((lmh[w] >> s) & 1u));
    int32_t e1 = 0;
    if (b) {
        const uint32_t w1 = nw == 1 ? 0 : (b - 1u) / 64u, s1 = (b - 1u) % 64u;
        e1 = dprev - ((int32_t)((lph[w1] >> s1) & 1u) - (int32_t)((lmh[w1] >> s1) & 1u));
    }
    const int32_t diag = e1 + (int32_t)!((leq[w] >> s) & 1u), left = ev + 1;
    const int32_t dp = diag < left ? diag : left;
    if (dp <= kp) gpuasm_partial_keep(best, b + 1u, dp);
}

GPUASM_HD gpuasm_partial
gpuasm_ew_rows_best(const int16_t *kpt, uint32_t m, uint32_t omin, int32_t kmax, int kmono, const uint64_t *pv,
                    const uint64_t *mv, const uint64_t *leq, const uint64_t *lph, const uint64_t *lmh, uint32_t nw)
{
    gpuasm_partial best = { 0, 0 };
    const uint32_t p0 = omin - 1u;
    int32_t d = 0;
    for (uint32_t w = 0; w < nw && 64u * w < p0; w++) {
        const uint32_t rows = p0 - 64u * w;
        const uint64_t below = rows >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << rows) - 1u);
        d += gpuasm_ew_pop64(pv[w] & below) - gpuasm_ew_pop64(mv[w] & below);
    }
    /* rows p = b + 1 for the bits b in [omin - 1, m - 2], word by word */
    for (uint32_t w = 0; w < nw; w++) {
        const uint32_t blo = p0 > 64u * w ? p0 : 64u * w, bhi = m - 2u < 64u * w + 63u ? m - 2u : 64u * w + 63u;
        if (blo > bhi) continue;
        uint64_t vp = pv[w] >> (blo % 64u), vm = mv[w] >> (blo % 64u);
#ifndef __CUDA_ARCH__
        /* The host: rows in chunks of EW_CHUNK, a chunk skipped whole
         * where even its lowest possible D (d less every -1 in it) is past
         * the largest k_p of its rows (its last row's where k_p does not
         * decrease, kmono; else kmax): exact, as the row test below.  A
         * text with no occurrence climbs past k_p at once while kmax is
         * reached only at the last rows, so the row-at-a-time loop ran
         * nearly every row (750 instructions an item, 4% of the default
         * adapter screen, callgrind). */
        for (uint32_t b = blo; b <= bhi;) {
            const uint32_t len = bhi - b + 1u < EW_CHUNK ? bhi - b + 1u : EW_CHUNK;
            const uint64_t lm = ((uint64_t)1 << len) - 1u;
            /* both counts by one SWAR on the bytes: +1s in byte 0, -1s in byte 1 */
            uint64_t x = (vp & lm) | ((vm & lm) << 8);
            x = x - ((x >> 1) & 0x5555u);
            x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
            x = (x + (x >> 4)) & 0x0f0fu;
            const int32_t up = (int32_t)(x & 0xffu), down = (int32_t)(x >> 8);
            const int32_t kub = kmono ? kpt[b + len] : kmax;
            if (d - down > kub) {
                d += up - down;
                vp >>= len;
                vm >>= len;
                b += len;
                continue;
            }
            for (const uint32_t end = b + len; b < end; b++, vp >>= 1, vm >>= 1) {
                const int32_t dprev = d;
                d += (int32_t)(vp & 1u) - (int32_t)(vm & 1u);
                const int32_t kp = kpt[b + 1u];
                if (kp >= 0 && d <= kp) gpuasm_ew_row(&best, b, w, nw, d, dprev, kp, leq, lph, lmh);   /* D_p >= d */
            }
        }
#else
        (void)kmono;
        for (uint32_t b = blo; b <= bhi; b++, vp >>= 1, vm >>= 1) {
            const int32_t dprev = d;
            d += (int32_t)(vp & 1u) - (int32_t)(vm & 1u);
            if (d > kmax) {
                /* D drops at most 1 a row: the g rows after this one are
                 * past kmax too, their deltas summed at once */
                uint32_t g = (uint32_t)(d - kmax - 1);
                if (g > bhi - b) g = bhi - b;   /* < 64 */
                if (g >= EW_JUMP) {
                    const uint64_t low = ((uint64_t)2 << g) - 2u;   /* bits 1 .. g */
                    d += gpuasm_ew_pop64(vp & low) - gpuasm_ew_pop64(vm & low);
                    vp >>= g;
                    vm >>= g;
                    b += g;
                }
                continue;
            }
            const int32_t kp = kpt[b + 1u];
            if (kp >= 0) gpuasm_ew_row(&best, b, w, nw, d, dprev, kp, leq, lph, lmh);
        }
#endif
    }
    return best;
}

/* The text bases the step runs over: partial.h's window W = m - 1 + kmax,
 * at most the text, at most reach. */
GPUASM_HD uint32_t gpuasm_ew_window(const ends_word *e, uint32_t n, uint32_t reach)
{
    uint64_t w = (uint64_t)(e->m - 1u) + (uint64_t)e->kmax;
    if (w > n) w = n;
    return (uint32_t)(w > reach ? reach : w);
}

/* The step over a pattern of one word (most adapters and primers; no
 * carry), then the row rule: the W text bases from tp on, one every step
 * (+1 or -1) bases, complemented where comp (the read's reverse
 * complement read from the read itself: the GPU's text views).  peq: the
 * end's Eq by text code ([16]), kp: k_p by p, m, omin, kmax: the
 * pattern's (an ends_word's fields, or an ends_word1's in the GPU's
 * shared memory). */
GPUASM_HD gpuasm_partial gpuasm_ew_word1(const uint64_t *peq, const int16_t *kp, uint32_t m, uint32_t omin,
                                         int32_t kmax, int kmono, const uint8_t *tp, ptrdiff_t step, uint32_t W,
                                         int comp)
{
    const uint8_t *const tend = tp + step * (ptrdiff_t)W;
    uint64_t pv = ~(uint64_t)0, mv = 0, leq = 0, lph = 0, lmh = 0;
    for (; tp != tend; tp += step) {
        uint8_t c = *tp & 15u;
        if (comp) c = gpuasm_nt16_comp(c);
        const uint64_t eq = peq[c];
        const uint64_t xv = eq | mv;
        const uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
        uint64_t ph = mv | ~(xh | pv);
        uint64_t mh = pv & xh;
        leq = eq;
        lph = ph;
        lmh = mh;
        ph <<= 1;
        mh <<= 1;
        pv = mh | ~(xv | ph);
        mv = ph & xv;
    }
    return gpuasm_ew_rows_best(kp, m, omin, kmax, kmono, &pv, &mv, &leq, &lph, &lmh, 1);
}

/* The same on two words (patterns of 66 .. 128 bases), unrolled: Hyyro's
 * carry from word 0 into word 1 is word 0's last horizontal delta (Ph and
 * Mh never share a bit); row 0's delta is 0 (a free start in the text).
 * The word loop with the carry as an int cost 2.5 times these steps
 * (callgrind). */
GPUASM_HD gpuasm_partial gpuasm_ew_word2(const ends_word *e, const uint8_t *tp, ptrdiff_t step, uint32_t W,
                                         int comp, int at_start)
{
    const uint64_t *peq0 = e->peq[at_start][0], *peq1 = e->peq[at_start][1];
    const uint8_t *const tend = tp + step * (ptrdiff_t)W;
    uint64_t pv[2] = { ~(uint64_t)0, ~(uint64_t)0 }, mv[2] = { 0, 0 };
    uint64_t leq[2] = { 0, 0 }, lph[2] = { 0, 0 }, lmh[2] = { 0, 0 };
    uint64_t pv0 = pv[0], pv1 = pv[1], mv0 = 0, mv1 = 0;
    for (; tp != tend; tp += step) {
        uint32_t c = *tp & 15u;
        if (comp) c = gpuasm_nt16_comp((uint8_t)c);
        const uint64_t eq0 = peq0[c], eq1 = peq1[c];
        const uint64_t xv0 = eq0 | mv0;
        const uint64_t xh0 = (((eq0 & pv0) + pv0) ^ pv0) | eq0;
        const uint64_t ph0 = mv0 | ~(xh0 | pv0), mh0 = pv0 & xh0;
        const uint64_t hpos = ph0 >> 63, hneg = mh0 >> 63;
        const uint64_t ph0s = ph0 << 1, mh0s = mh0 << 1;
        pv0 = mh0s | ~(xv0 | ph0s);
        mv0 = ph0s & xv0;
        const uint64_t xv1 = eq1 | mv1, eqh = eq1 | hneg;
        const uint64_t xh1 = (((eqh & pv1) + pv1) ^ pv1) | eqh;
        const uint64_t ph1 = mv1 | ~(xh1 | pv1), mh1 = pv1 & xh1;
        const uint64_t ph1s = (ph1 << 1) | hpos, mh1s = (mh1 << 1) | hneg;
        pv1 = mh1s | ~(xv1 | ph1s);
        mv1 = ph1s & xv1;
        leq[0] = eq0;
        leq[1] = eq1;
        lph[0] = ph0;
        lph[1] = ph1;
        lmh[0] = mh0;
        lmh[1] = mh1;
    }
    pv[0] = pv0;
    pv[1] = pv1;
    mv[0] = mv0;
    mv[1] = mv1;
    return gpuasm_ew_rows_best(e->kp, e->m, e->omin, e->kmax, e->kmono, pv, mv, leq, lph, lmh, 2);
}

/* The same on three or four words (patterns of 130 .. 256 bases: short
 * reads against genome ends), the words in a loop with Hyyro's carry. */
GPUASM_HD gpuasm_partial gpuasm_ew_wordn(const ends_word *e, const uint8_t *tp, ptrdiff_t step, uint32_t W,
                                         int comp, int at_start)
{
    const uint32_t nw = e->nw;
    uint64_t pv[EW_WORDS], mv[EW_WORDS], leq[EW_WORDS], lph[EW_WORDS], lmh[EW_WORDS];
    for (uint32_t w = 0; w < EW_WORDS; w++) {
        pv[w] = ~(uint64_t)0;
        mv[w] = leq[w] = lph[w] = lmh[w] = 0;
    }
    const uint8_t *const tend = tp + step * (ptrdiff_t)W;
    for (; tp != tend; tp += step) {
        uint32_t c = *tp & 15u;
        if (comp) c = gpuasm_nt16_comp((uint8_t)c);
        uint64_t hpos = 0, hneg = 0;   /* row 0's delta: a free start in the text */
        for (uint32_t w = 0; w < nw; w++) {
            const uint64_t eq = e->peq[at_start][w][c], p0 = pv[w], m0 = mv[w];
            const uint64_t xv = eq | m0, eqh = eq | hneg;
            const uint64_t xh = (((eqh & p0) + p0) ^ p0) | eqh;
            const uint64_t ph = m0 | ~(xh | p0), mh = p0 & xh;
            const uint64_t phs = (ph << 1) | hpos, mhs = (mh << 1) | hneg;
            hpos = ph >> 63;
            hneg = mh >> 63;
            pv[w] = mhs | ~(xv | phs);
            mv[w] = phs & xv;
            leq[w] = eq;
            lph[w] = ph;
            lmh[w] = mh;
        }
    }
    return gpuasm_ew_rows_best(e->kp, e->m, e->omin, e->kmax, e->kmono, pv, mv, leq, lph, lmh, nw);
}

/* The window's first base *tp and direction *step for a text view of n
 * bases and W window bases: the text's last W bases forwards (its end) or
 * its first W backwards (its start); on the reverse complement each is
 * the other end of the read. */
GPUASM_HD void gpuasm_ew_start(const uint8_t *p, uint32_t n, uint32_t W, int rc, int at_start,
                               const uint8_t **tp, ptrdiff_t *step)
{
    const int back = at_start != rc;
    *tp = back ? p + W - 1u : p + n - W;
    *step = back ? -1 : 1;
}

/* gpuasm_ends_word_best() against a text view (kernels/partial.h): the
 * read, or its reverse complement read backwards from the read (rc), the
 * whole window.  The GPU's ends pass runs this for targets with an
 * ends_word; the CPU walk runs gpuasm_ends_word_best() on its own rc copy
 * (the same bases, so the same answer). */
GPUASM_HD gpuasm_partial gpuasm_ends_word_view(const ends_word *e, const uint8_t *p, uint32_t n, int rc,
                                               int at_start, uint32_t reach)
{
    const gpuasm_partial none = { 0, 0 };
    if (e->omin == 0 || e->omin >= e->m || n == 0 || e->kmax < 0 || reach == 0) return none;
    const uint32_t W = gpuasm_ew_window(e, n, reach);
    const uint8_t *tp;
    ptrdiff_t step;
    gpuasm_ew_start(p, n, W, rc, at_start, &tp, &step);
    /* Rows past reach are never acceptable (an acceptable p lies in a
     * run [lo, hi] of the ends filter that fired, and reach >= hi + c >=
     * p: ends_filter.h; UINT32_MAX where nothing was filtered), so the row
     * rule stops there: a chance candidate of a short run looks at its few
     * rows, not all m (one word; the row rule was a third of the CPU ends
     * pass on the adapter screen, perf). */
    const uint32_t rows = reach < e->m ? reach + 1u : e->m;
    return e->nw == 1   ? gpuasm_ew_word1(e->peq[at_start][0], e->kp, rows, e->omin, e->kmax, e->kmono, tp, step, W, rc)
           : e->nw == 2 ? gpuasm_ew_word2(e, tp, step, W, rc, at_start)
                        : gpuasm_ew_wordn(e, tp, step, W, rc, at_start);
}

/* ---- one word, compact: the GPU's dense ends pass in shared memory ------ */

/* The tables of a one-word ends_word (patterns of up to 65 bases, nw 1):
 * Eq of both ends and k_p for p < EW1_KP, 416 bytes where an ends_word
 * is 1,560, so that a panel's tables fit in a block's shared memory (the
 * 158 bbmap adapters: 64 KiB) and a warp's Eq loads, eight targets at two
 * ends, no longer touch sixteen cache lines a step (partial_cuda.cu). */
#define EW1_KP 72
typedef struct ends_word1 {
    uint64_t peq[2][16];
    int16_t kp[EW1_KP];
    uint32_t m, omin;
    int32_t kmax;
    int32_t kmono;  /* ends_word's */
} ends_word1;

/* e as an ends_word1: 1, or 0 where e is not one word (w unchanged). */
GPUASM_HD int gpuasm_ends_word1_of(const ends_word *e, ends_word1 *w)
{
    if (e->nw != 1 || e->m > 65u) return 0;
    for (int end = 0; end < 2; end++)
        for (int c = 0; c < 16; c++) w->peq[end][c] = e->peq[end][0][c];
    for (uint32_t p = 0; p < EW1_KP; p++) w->kp[p] = p < e->m ? e->kp[p] : (int16_t)-1;
    w->m = e->m;
    w->omin = e->omin;
    w->kmax = e->kmax;
    w->kmono = e->kmono;
    return 1;
}

/* gpuasm_ends_word_view() of the ends_word w was made from, the whole
 * window: the same step and row rule on the same tables, so the same
 * (plen, dist) (tests/c/test_ends_filter compares the two). */
GPUASM_HD gpuasm_partial gpuasm_ends_word1_view(const ends_word1 *w, const uint8_t *p, uint32_t n, int rc,
                                                int at_start)
{
    const gpuasm_partial none = { 0, 0 };
    if (w->omin == 0 || w->omin >= w->m || n == 0 || w->kmax < 0) return none;
    uint64_t W = (uint64_t)(w->m - 1u) + (uint64_t)w->kmax;
    if (W > n) W = n;
    const uint8_t *tp;
    ptrdiff_t step;
    gpuasm_ew_start(p, n, (uint32_t)W, rc, at_start, &tp, &step);
    return gpuasm_ew_word1(w->peq[at_start], w->kp, w->m, w->omin, w->kmax, w->kmono, tp, step, (uint32_t)W, rc);
}

#endif
