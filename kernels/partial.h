/* SPDX-License-Identifier: MIT */
/* partial.h -- the ends pass: the best partial occurrence of a pattern at
 * one end of a text (search.h, "Partial occurrences"), written once as
 * GPUASM_HD C that the CPU pair walk (cpu_scan.c) and the CUDA ends kernel
 * (partial_cuda.cu) both run, so the two backends agree by construction.
 *
 * Edit mode, text end: Myers' bit-vector DP (Myers 1999; Hyyrö's blocks,
 * as myers_cpu.c) of the whole pattern over the last W text positions,
 * W = min(n, m - 1 + k_{m-1}) (k_p of gpuasm_partial_kf), started fresh (D[i][first-1] = i) with a
 * free start in the text (D[0][j] = 0).  Exact for every D_p <= k_p: an
 * alignment of P[0 .. p) ending at n-1 with at most k_p <= k_{m-1}
 * differences covers at most p + k_p <= W text bases (the segment argument
 * of cuda_device.cuh).  At the last column, D[p][n-1] is the prefix sum of
 * the vertical deltas (Pv: +1, Mv: -1) of rows 1 .. p, and the column
 * before it D[p][n-2] = D[p][n-1] minus the last step's horizontal delta
 * (Ph: +1, Mh: -1).  The alignment must not end with the pattern base
 * P[p-1] deleted after the text's last base (search.h: such a base ran off
 * the text, as cutadapt skips it for free; a CIGAR must not end with D
 * either), so D_p = min(D[p-1][n-2] + (P[p-1] !~ T[n-1]), D[p][n-2] + 1).
 * Text start: the same on the reversed pattern over the reversed first W
 * positions (a suffix of P aligned to a prefix of T is a prefix of rev(P)
 * aligned to a suffix of rev(T)).
 *
 * Hamming mode: mismatches of P[0 .. p) against the last p text bases
 * (text start: of P[m-p .. m) against the first p), counted with an early
 * exit once past k_p (only values <= k_p matter).
 *
 * Cost: (W x ceil(m/64)) word steps plus O(m) per (pair, strand, end); for
 * a 34-base adapter in a 150-base read, 2 x 37 single-word columns.
 */
#ifndef GPUASM_PARTIAL_H
#define GPUASM_PARTIAL_H

#include <stdint.h>

#include "search/nt16.h"
#include "search/search.h"

/* A sequence as searched: the bases p[0 .. len), reverse-complemented when
 * rc (the read on strand 1). */
typedef struct gpuasm_seqview {
    const uint8_t *p;
    uint32_t len;
    int32_t rc;
} gpuasm_seqview;

/* Base i of v in search orientation, or of its reverse when rev. */
GPUASM_HD uint8_t gpuasm_seqview_at(const gpuasm_seqview *v, uint32_t i, int rev)
{
    const uint32_t x = rev ? v->len - 1u - i : i;
    return v->rc ? gpuasm_nt16_comp(v->p[v->len - 1u - x]) : v->p[x];
}

/* The best partial occurrence at one end: plen = 0 when there is none. */
typedef struct gpuasm_partial {
    uint32_t plen;   /* aligned pattern bases */
    int32_t dist;    /* D_plen */
} gpuasm_partial;

/* Words of workspace gpuasm_partial_best() needs for a pattern of m bases. */
GPUASM_HD uint32_t gpuasm_partial_ws_words(uint32_t m) { return 6u * ((m + 63u) / 64u); }

/* Keep the better of (best, candidate p with distance d): score p - 2d,
 * then the smaller d, then the larger p (search.h). */
GPUASM_HD void gpuasm_partial_keep(gpuasm_partial *best, uint32_t p, int32_t d)
{
    const int64_t s = (int64_t)p - 2 * (int64_t)d;
    const int64_t bs = (int64_t)best->plen - 2 * (int64_t)best->dist;
    if (best->plen == 0 || s > bs || (s == bs && (d < best->dist || (d == best->dist && p > best->plen)))) {
        best->plen = p;
        best->dist = d;
    }
}

/* Text-end candidate p (partial.h's rule, the one every walk applies):
 * e1 = D[p-1][n-2], e = D[p][n-2], mismatch: P[p-1] !~ T[n-1].  The
 * alignment must not end with P[p-1] deleted after the text's last base,
 * so D_p = min(e1 + mismatch, e + 1); p >= omin with k_p < p and D_p <= k_p
 * (k_p of gpuasm_partial_kf: the pair's floor sfloor, 0 for none) is kept. */
GPUASM_HD void gpuasm_partial_row(const gpuasm_search_opt *o, uint32_t p, uint32_t m, uint32_t omin,
                                  int32_t sfloor, int32_t e1, int32_t e, int mismatch, gpuasm_partial *best)
{
    const int32_t diag = e1 + (mismatch ? 1 : 0), left = e + 1;
    const int32_t dp = diag < left ? diag : left;
    if (p < omin) return;
    const int32_t kp = gpuasm_partial_kf(o, sfloor, p, m);
    if (kp < 0 || (int64_t)kp >= (int64_t)p || dp > kp) return;
    gpuasm_partial_keep(best, p, dp);
}

/* Does pattern base code pc match text code tc (nt16 sets / bytes)? */
GPUASM_HD int gpuasm_partial_match(int byte, uint8_t pc, uint8_t tc)
{
    return byte ? pc == tc : (pc & tc) != 0;
}

/* Hamming: mismatches of the p pattern bases against the p text bases at
 * the end (at_start == 0: P[0 .. p) vs T[n-p .. n)) or at the start
 * (P[m-p .. m) vs T[0 .. p)), stopping once past kp. */
GPUASM_HD int32_t gpuasm_partial_mismatches(const gpuasm_seqview *pat, const gpuasm_seqview *txt,
                                            uint32_t p, int at_start, int byte, int32_t kp)
{
    const uint32_t m = pat->len, n = txt->len;
    int32_t d = 0;
    for (uint32_t i = 0; i < p && d <= kp; i++) {
        const uint8_t pc = gpuasm_seqview_at(pat, at_start ? m - p + i : i, 0);
        const uint8_t tc = gpuasm_seqview_at(txt, at_start ? i : n - p + i, 0);
        d += !gpuasm_partial_match(byte, pc, tc);
    }
    return d;
}

/* The best partial occurrence of pat at the end (at_start == 0) or the
 * start (at_start == 1) of txt, for aligned lengths p in [omin, m - 1]
 * (0 < omin < m), with k_p = gpuasm_partial_kf(o, sfloor, p, m) (sfloor: the
 * pair's significance floor, gpuasm_pair_partial_floor; 0: none), in edit or
 * hamming mode.
 * ws: gpuasm_partial_ws_words(m) words of scratch (edit mode only). */
GPUASM_HD gpuasm_partial gpuasm_partial_best(const gpuasm_search_opt *o, uint32_t omin, int32_t sfloor,
                                             const gpuasm_seqview *pat, const gpuasm_seqview *txt,
                                             int at_start, int hamming, uint64_t *ws)
{
    gpuasm_partial best;
    best.plen = 0;
    best.dist = 0;
    const uint32_t m = pat->len, n = txt->len;
    const int byte = o->alphabet == GPUASM_ALPHABET_BYTE;
    if (omin == 0 || omin >= m || n == 0) return best;
    if (hamming) {
        for (uint32_t p = omin; p < m && p <= n; p++) {
            const int32_t kp = gpuasm_partial_kf(o, sfloor, p, m);
            if (kp < 0 || (int64_t)kp >= (int64_t)p) continue;
            const int32_t d = gpuasm_partial_mismatches(pat, txt, p, at_start, byte, kp);
            if (d <= kp) gpuasm_partial_keep(&best, p, d);
        }
        return best;
    }
    /* Edit: Myers over the last (reversed: first) W text positions. */
    const int32_t kmax = gpuasm_partial_kf(o, sfloor, m - 1u, m);
    if (kmax < 0) return best;
    uint64_t wlen = (uint64_t)(m - 1u) + (uint64_t)kmax;
    if (wlen > n) wlen = n;
    const uint32_t W = (uint32_t)wlen, nw = (m + 63u) / 64u;
    /* ws: pv, mv, and bm = [4][nw] base masks, whose first 3 rows are
     * reused after the loop for the last step's Eq, Ph and Mh. */
    uint64_t *pv = ws, *mv = ws + nw, *bm = ws + 2 * nw;
    for (uint32_t w = 0; w < nw; w++) {
        pv[w] = ~(uint64_t)0;
        mv[w] = 0;
        bm[w] = bm[nw + w] = bm[2 * nw + w] = bm[3 * nw + w] = 0;
    }
    /* Base masks (nt16): bit i of mask x is set when pattern base i holds
     * base x, so Eq of a text code is the OR of the masks of its bases
     * (the nt16 rule (a & b) != 0, IUPAC sets included).  The byte
     * alphabet has no masks: its Eq is built per column below. */
    if (!byte)
        for (uint32_t i = 0; i < m; i++) {
            const uint8_t c = gpuasm_seqview_at(pat, i, at_start);
            for (uint32_t x = 0; x < 4; x++)
                if (c & (1u << x)) bm[x * nw + i / 64u] |= (uint64_t)1 << (i % 64u);
        }
    for (uint32_t q = 0; q < W; q++) {
        /* Column q of the window: text position n - W + q (text end), or
         * the reversed text's, i.e. T[W - 1 - q] (text start). */
        const uint8_t tc = gpuasm_seqview_at(txt, at_start ? W - 1u - q : n - W + q, 0);
        int hin = 0;
        for (uint32_t w = 0; w < nw; w++) {
            uint64_t eq = 0;
            if (byte) {
                for (uint32_t i = w * 64u; i < m && i < w * 64u + 64u; i++)
                    if (gpuasm_seqview_at(pat, i, at_start) == tc) eq |= (uint64_t)1 << (i % 64u);
            } else {
                if (tc & 1u) eq |= bm[w];
                if (tc & 2u) eq |= bm[nw + w];
                if (tc & 4u) eq |= bm[2 * nw + w];
                if (tc & 8u) eq |= bm[3 * nw + w];
            }
            /* Hyyro's block step (block_step() of myers_cpu.c): hin is the
             * horizontal delta entering the block's top row, hout the one
             * leaving its last row (bit 63). */
            const uint64_t p0 = pv[w], m0 = mv[w];
            const uint64_t hneg = (uint64_t)(hin < 0), hpos = (uint64_t)(hin > 0);
            const uint64_t xv = eq | m0;
            const uint64_t eqh = eq | hneg;
            const uint64_t xh = (((eqh & p0) + p0) ^ p0) | eqh;
            uint64_t ph = m0 | ~(xh | p0);
            uint64_t mh = p0 & xh;
            hin = (int)(ph >> 63) - (int)(mh >> 63);
            if (q + 1 == W) {
                /* The last column: its Eq and horizontal deltas, kept in
                 * the words of the masks, which are not needed any more
                 * (word w's masks are read before word w is written). */
                bm[w] = eq;
                bm[nw + w] = ph;
                bm[2 * nw + w] = mh;
            }
            ph = (ph << 1) | hpos;
            mh = (mh << 1) | hneg;
            pv[w] = mh | ~(xv | ph);
            mv[w] = ph & xv;
        }
    }
    const uint64_t *leq = bm, *lph = bm + nw, *lmh = bm + 2 * nw;
    /* Row by row: d = D[p] of the last column (prefix sums of the vertical
     * deltas), e = D[p] of the column before (d minus the horizontal
     * delta), e1 = that of row p - 1 (row 0 is 0 everywhere). */
    int32_t d = 0, e1 = 0;
    for (uint32_t p = 1; p < m; p++) {
        const uint32_t w = (p - 1u) / 64u, b = (p - 1u) % 64u;
        d += (int32_t)((pv[w] >> b) & 1u) - (int32_t)((mv[w] >> b) & 1u);
        const int32_t e = d - ((int32_t)((lph[w] >> b) & 1u) - (int32_t)((lmh[w] >> b) & 1u));
        gpuasm_partial_row(o, p, m, omin, sfloor, e1, e, !((leq[w] >> b) & 1u), &best);
        e1 = e;
    }
    return best;
}

#endif
