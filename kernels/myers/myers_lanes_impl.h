/* SPDX-License-Identifier: MIT */
/* myers_lanes_impl.h -- the lane kernels of myers_lanes.h, written once for
 * every SIMD level with gcc's vector extensions.  Each level's file
 * (myers_lanes_sse41.c, _avx2.c, _avx512.c) sets `#pragma GCC target`,
 * defines the macros below and includes this file:
 *
 *   LN               64-bit lanes: 2, 4 or 8
 *   LANES_FN(name)   the level's name of a function (name_avx2, ...)
 *   SIGNS(v)         bit l set when lane l of v (a vi) is negative
 *   TEXT_TAB         declarations of the text-lane Eq table, from peq0[16]
 *   TEXT_EQ(q, sh)   Eq of block 0 for the codes in bits sh.. of each lane
 *                    of q (a vu), from TEXT_TAB
 *   STAGE_EQ         instead of TEXT_TAB/TEXT_EQ: the staging of a run looks
 *                    up every lane's Eq words itself (scalar loads; where
 *                    the vector unit has no cheap 16-entry permute)
 *   SHUF8(t, i)      bytes of t (a vu) picked by the low 4 bits of each byte
 *                    of i within 16-byte blocks (pshufb)
 *   SAD8(v)          per lane, the sum of its 8 bytes (psadbw against 0)
 *   LANE_STEP_ISA    optional: a faster lane_step (AVX-512 ternary logic)
 *
 * The recurrence is myers_block.h's with hin = 0 (row 0 is 0 in every
 * column: free start), lane by lane; names as there (Pv/Mv, Ph/Mh, Xv/Xh).
 * Scores are kept as T = k - D (a lane has a hit when T >= 0, i.e. when its
 * sign bit is clear), so one sign-mask instruction tests every lane.
 *
 * Windows of 8 columns: with row 0 fixed at 0, D of row r is the sum of
 * the vertical deltas of rows 1..r, popcount(Pv) - popcount(Mv) over them,
 * so a lane's score is known at any column without following it column by
 * column; it moves by at most 1 per column.  A window whose lanes all start
 * more than 8 above k can have no hit (nor bring block 1 in), and runs the
 * bare recurrence; only the others follow the score column by column.
 */
#include <stdint.h>
#include <string.h>

#include "kernels/myers/myers_block.h"
#include "kernels/myers/myers_lanes.h"

typedef uint64_t vu __attribute__((vector_size(8 * LN)));
typedef int64_t vi __attribute__((vector_size(8 * LN)));

#define LANE_MASK ((1u << LN) - 1u)

/* One column of one word per lane (hin = 0).  Returns Ph and Mh before the
 * shift, so the caller can read the last row's horizontal delta. */
static inline __attribute__((always_inline)) void lane_step(vu *pv_io, vu *mv_io, vu eq, vu *ph_out,
                                                            vu *mh_out)
{
#ifdef LANE_STEP_ISA
    LANE_STEP_ISA(pv_io, mv_io, eq, ph_out, mh_out);
#else
    const vu pv = *pv_io, mv = *mv_io;
    const vu xv = eq | mv;
    const vu xh = (((eq & pv) + pv) ^ pv) | eq;
    const vu ph = mv | ~(xh | pv);
    const vu mh = pv & xh;
    const vu phs = ph << 1, mhs = mh << 1;
    *pv_io = mhs | ~(xv | phs);
    *mv_io = phs & xv;
    *ph_out = ph;
    *mh_out = mh;
#endif
}

/* D of the rows in rm (1..r): popcount(Pv & rm) - popcount(Mv & rm), per
 * lane, with pshufb nibble counts and psadbw sums: each byte holds
 * cnt(Pv) + 8 - cnt(Mv), in 0..16, and 8 bytes add 64 too many. */
static inline __attribute__((always_inline)) vi lane_score(vu pv, vu mv, vu rm)
{
    const vu nib = (vu){ 0 } + 0x0f0f0f0f0f0f0f0fULL;
    const vu lut = (vu){ 0 } + 0x0302020102010100ULL;   /* popcount of 0..7; 8..15 below */
    const vu luth = (vu){ 0 } + 0x0403030203020201ULL;
    vu lt;   /* the 16-entry nibble table, repeated in every 16-byte block */
    for (int i = 0; i < LN; i += 2) {
        lt[i] = lut[0];
        lt[i + 1] = luth[0];
    }
    pv &= rm;
    mv &= rm;
    const vu cp = SHUF8(lt, pv & nib) + SHUF8(lt, (pv >> 4) & nib);
    const vu cm = SHUF8(lt, mv & nib) + SHUF8(lt, (mv >> 4) & nib);
    return (vi)SAD8(cp + ((vu){ 0 } + 0x0808080808080808ULL) - cm) - 64;
}

/* ---- text lanes ----------------------------------------------------------- */

/* Rows of block b of an m-row pattern with W blocks; its last row's bit. */
static inline int64_t rows_of(uint32_t m, uint32_t W, uint32_t b)
{
    return b + 1 < W ? 64 : (int64_t)m - (int64_t)(W - 1) * 64;
}
static inline uint64_t hbit_of(uint32_t m, uint32_t W, uint32_t b)
{
    return b + 1 < W ? (uint64_t)1 << 63 : (uint64_t)1 << ((m - 1) % 64);
}

/* Per-lane scalar state of the text-lane kernel. */
typedef struct {
    const uint8_t *txt;     /* the current segment's text */
    uint64_t p, e, s;       /* next column, end, first owned column */
    uint32_t id, seg, seg_end;
    int32_t last;           /* Ukkonen: blocks 0 .. last are active */
} tl_lane;

/* Blocks 1 .. of text lane l in column j, scalar, after block 0 (in the
 * vector) went from T = tp to t (k minus its last row's score): the
 * blocks Ukkonen's cut-off keeps (lane->last), a block brought in below
 * them where the last one's last row was <= k in column j-1 (run_blocks'
 * rule), and the hit of column j when the last block is active and <= k.
 * st: the lane's Pv, Mv and scores of W blocks.  0, or -1 when out of
 * memory. */
static inline int tl_lower_blocks(gpuasm_lanes_ws *ws, tl_lane *lane, int l, uint64_t *st, const uint64_t *peq,
                                  uint32_t m, uint32_t W, int32_t k, uint64_t j, int64_t tp, int64_t t)
{
    uint64_t *pv = st, *mv = pv + W;
    int64_t *sc = (int64_t *)(mv + W);
    const unsigned code = lane->txt[j] & 15u;
    int h = (int)(tp - t);   /* block 0's hout */
    int32_t last = lane->last;
    uint64_t ph1, mh1;
    for (int32_t b = 1; b <= last; b++) {
        h = gpuasm_myers_block_step(&pv[b], &mv[b], peq[(size_t)b * 16 + code], h, hbit_of(m, W, (uint32_t)b),
                                    &ph1, &mh1);
        sc[b] += h;
    }
    /* The last active block's last row in column j-1. */
    const int64_t prev = last == 0 ? (int64_t)k - tp : sc[last] - h;
    if ((uint32_t)last + 1 < W && prev <= k) {
        const int32_t b = last + 1;
        pv[b] = ~(uint64_t)0;
        mv[b] = 0;
        sc[b] = prev + rows_of(m, W, (uint32_t)b);
        h = gpuasm_myers_block_step(&pv[b], &mv[b], peq[(size_t)b * 16 + code], h, hbit_of(m, W, (uint32_t)b),
                                    &ph1, &mh1);
        sc[b] += h;
        last = b;
    }
    while (last > 0 && sc[last] >= (int64_t)k + rows_of(m, W, (uint32_t)last)) last--;
    lane->last = last;
    if ((uint32_t)last == W - 1 && sc[last] <= k && j >= lane->s &&
        gpuasm_lanes_push(ws, l, lane->id, j, (int32_t)sc[last]) < 0)
        return -1;
    return 0;
}

int LANES_FN(gpuasm_text_lanes)(gpuasm_lanes_ws *ws, const uint64_t *peq, uint32_t m, int32_t k,
                                const gpuasm_lane_text *texts, uint32_t n_texts)
{
    gpuasm_lane_seg *seg;
    uint32_t first[9];
    if (gpuasm_lanes_plan(ws, LN, texts, n_texts, (uint64_t)m + (uint64_t)k, &seg, first) < 0)
        return -1;
    const uint32_t W = (m + 63) / 64;
    const int64_t rows0 = rows_of(m, W, 0);
    const unsigned hsh = (unsigned)(rows0 - 1);   /* block 0's last row */
    /* Blocks 1 .. W-1 of each lane (Pv, Mv, score), scalar, as run_blocks. */
    uint64_t *blk = NULL;
    if (W > 1 && !(blk = gpuasm_lanes_blk(ws, (size_t)LN * 3 * W))) return -1;
    const int32_t last0 = (uint32_t)k / 64 < W - 1 ? (int32_t)((uint32_t)k / 64) : (int32_t)(W - 1);
    const uint64_t *peq0 = peq;   /* block 0: peq[0 .. 16) */
#ifndef STAGE_EQ
    TEXT_TAB;
#endif

    tl_lane ln[LN];
    uint64_t a_pv[LN] __attribute__((aligned(64)));
    uint64_t a_mv[LN] __attribute__((aligned(64)));
    int64_t a_t[LN] __attribute__((aligned(64)));
    int64_t a_tp[LN] __attribute__((aligned(64)));
#ifdef STAGE_EQ
    uint64_t q[64][LN] __attribute__((aligned(64)));   /* Eq words, [column][lane] */
#define COL_EQ(c) (*(const vu *)q[(c)])
#else
    uint64_t q[8][LN] __attribute__((aligned(64)));    /* codes, 8 columns a word */
#define COL_EQ(c) TEXT_EQ(qv, 8 * ((c) & 7))
#endif
    unsigned act = 0, busy = 0;

    /* Lane l starts segment ln[l].seg: column w - 1 of a fresh text, D[i] = i. */
#define START_SEG(l)                                                                              \
    do {                                                                                          \
        const gpuasm_lane_seg *sg_ = &seg[ln[l].seg];                                             \
        ln[l].txt = texts[sg_->id].code;                                                          \
        ln[l].p = sg_->w;                                                                         \
        ln[l].e = sg_->e;                                                                         \
        ln[l].s = sg_->s;                                                                         \
        ln[l].id = sg_->id;                                                                       \
        a_pv[l] = ~(uint64_t)0;                                                                   \
        a_mv[l] = 0;                                                                              \
        a_t[l] = (int64_t)k - rows0;                                                              \
        ln[l].last = last0;                                                                       \
        for (int32_t b_ = 1; b_ <= last0; b_++) {                                                 \
            uint64_t *st_ = blk + (size_t)(l) * 3 * W;                                            \
            st_[b_] = ~(uint64_t)0;                                                               \
            st_[W + b_] = 0;                                                                      \
            st_[2 * W + b_] = (uint64_t)((int64_t)b_ * 64 + rows_of(m, W, (uint32_t)b_));         \
        }                                                                                         \
        busy = last0 > 0 ? busy | (1u << (l)) : busy & ~(1u << (l));                              \
    } while (0)

    for (int l = 0; l < LN; l++) {
        ln[l].seg = first[l];
        ln[l].seg_end = first[l + 1];
        a_pv[l] = ~(uint64_t)0;
        a_mv[l] = 0;
        a_t[l] = -1;
        if (ln[l].seg < ln[l].seg_end) {
            START_SEG(l);
            act |= 1u << l;
        }
    }
    vu PV, MV;
    vi T;
    memcpy(&PV, a_pv, sizeof PV);
    memcpy(&MV, a_mv, sizeof MV);
    memcpy(&T, a_t, sizeof T);

    const vu rm0 = (vu){ 0 } + (rows0 == 64 ? ~(uint64_t)0 : ((uint64_t)1 << rows0) - 1);
    while (act) {
        /* A run: as many columns as every active lane has left in its
         * segment, at most 64 (one staging of the codes). */
        uint64_t run = 64;
        for (int l = 0; l < LN; l++)
            if ((act >> l & 1) && ln[l].e - ln[l].p < run) run = ln[l].e - ln[l].p;
        for (int l = 0; l < LN; l++) {
#ifdef STAGE_EQ
            const uint8_t *tx = ln[l].txt + ln[l].p;
            if (act >> l & 1)
                for (uint32_t c = 0; c < (uint32_t)run; c++) q[c][l] = peq0[tx[c] & 15u];
            else
                for (uint32_t c = 0; c < (uint32_t)run; c++) q[c][l] = 0;
#else
            uint8_t b[64];
            memset(b, 0, sizeof b);
            if (act >> l & 1) memcpy(b, ln[l].txt + ln[l].p, (size_t)run);
            for (int g = 0; g < 8; g++) memcpy(&q[g][l], b + 8 * g, 8);
#endif
        }
        for (uint32_t c0 = 0; c0 < (uint32_t)run; c0 += 8) {
#ifndef STAGE_EQ
            vu qv;
            memcpy(&qv, q[c0 >> 3], sizeof qv);
#endif
            const uint32_t cn = (uint32_t)run - c0 < 8 ? (uint32_t)run - c0 : 8;
            T = (vi){ 0 } + (int64_t)k - lane_score(PV, MV, rm0);
            if (cn == 8 && !busy && (SIGNS(T + 8) & act) == act) {
                /* Every active lane is more than 8 above k: no hit and no
                 * block 1 in these 8 columns. */
                for (uint32_t i = 0; i < 8; i++) {
                    vu ph, mh;
                    lane_step(&PV, &MV, COL_EQ(c0 + i), &ph, &mh);
                }
                continue;
            }
            for (uint32_t c = c0; c < c0 + cn; c++) {
                const vu eq = COL_EQ(c);
                vu ph, mh;
                lane_step(&PV, &MV, eq, &ph, &mh);
                const vi tp = T;
                /* T -= D[rows0][j] - D[rows0][j-1] */
                T += (vi)((mh >> hsh) & 1) - (vi)((ph >> hsh) & 1);
                if (W == 1) {
                    const unsigned hits = ~(unsigned)SIGNS(T) & act;
                    if (__builtin_expect(hits != 0, 0)) {
                        memcpy(a_t, &T, sizeof T);
                        for (int l = 0; l < LN; l++) {
                            if (!(hits >> l & 1)) continue;
                            const uint64_t j = ln[l].p + c;
                            if (j >= ln[l].s &&
                                gpuasm_lanes_push(ws, l, ln[l].id, j, (int32_t)(k - a_t[l])) < 0)
                                return -1;
                        }
                    }
                    continue;
                }
                /* Blocks below 0: lanes where one is active, or where block
                 * 0's last row was <= k in the previous column (the cut-off
                 * brings block 1 in, run_blocks' rule). */
                const unsigned cand = (~(unsigned)SIGNS(tp) | busy) & act;
                if (__builtin_expect(cand != 0, 0)) {
                    memcpy(a_t, &T, sizeof T);
                    memcpy(a_tp, &tp, sizeof tp);
                    for (int l = 0; l < LN; l++) {
                        if (!(cand >> l & 1)) continue;
                        if (tl_lower_blocks(ws, &ln[l], l, blk + (size_t)l * 3 * W, peq, m, W, k, ln[l].p + c,
                                            a_tp[l], a_t[l]) < 0)
                            return -1;
                        busy = ln[l].last > 0 ? busy | (1u << l) : busy & ~(1u << l);
                    }
                }
            }
        }
        /* Lanes at the end of a segment take their next one (or stop). */
        unsigned done = 0;
        for (int l = 0; l < LN; l++)
            if (act >> l & 1) {
                ln[l].p += run;
                if (ln[l].p == ln[l].e) done |= 1u << l;
            }
        if (done) {
            memcpy(a_pv, &PV, sizeof PV);
            memcpy(a_mv, &MV, sizeof MV);
            memcpy(a_t, &T, sizeof T);
            for (int l = 0; l < LN; l++) {
                if (!(done >> l & 1)) continue;
                if (++ln[l].seg < ln[l].seg_end) {
                    START_SEG(l);
                } else {
                    act &= ~(1u << l);
                    busy &= ~(1u << l);
                }
            }
            memcpy(&PV, a_pv, sizeof PV);
            memcpy(&MV, a_mv, sizeof MV);
            memcpy(&T, a_t, sizeof T);
        }
    }
#undef START_SEG
#undef COL_EQ
    return gpuasm_lanes_join(ws, LN);
}

/* ---- pattern lanes -------------------------------------------------------- */

/* A group of LN patterns: Eq per text code, the last row's bit, the rows'
 * mask and k.  Lanes without a pattern get k = -2^40: they never hit and
 * always look far above k to the window tests. */
typedef struct {
    vu eq[16];
    vu hb, rm;
    vi k;
} pl_group;

/* Hits of a group at column j: lanes whose T >= 0, D = k - T. */
static inline int pl_hits(gpuasm_lanes_ws *ws, int buf0, uint32_t id0, const pl_group *g, vi T,
                          uint64_t j, unsigned hits)
{
    int64_t a_t[LN] __attribute__((aligned(64)));
    int64_t a_k[LN] __attribute__((aligned(64)));
    memcpy(a_t, &T, sizeof T);
    memcpy(a_k, &g->k, sizeof a_k);
    for (int l = 0; l < LN; l++)
        if ((hits >> l & 1) && gpuasm_lanes_push(ws, buf0 + l, id0 + (uint32_t)l, j, (int32_t)(a_k[l] - a_t[l])) < 0)
            return -1;
    return 0;
}

/* Columns [j0, j0 + cn) of one group, following T column by column. */
static inline int pl_checked(gpuasm_lanes_ws *ws, int buf0, uint32_t id0, const pl_group *g, vu *pv,
                             vu *mv, vi T, const uint8_t *text, uint64_t j0, uint32_t cn)
{
    for (uint32_t i = 0; i < cn; i++) {
        vu ph, mh;
        lane_step(pv, mv, g->eq[text[j0 + i] & 15u], &ph, &mh);
        T += (vi)((mh & g->hb) == 0) - (vi)((ph & g->hb) == 0);
        const unsigned hits = ~(unsigned)SIGNS(T) & LANE_MASK;
        if (__builtin_expect(hits != 0, 0) && pl_hits(ws, buf0, id0, g, T, j0 + i, hits) < 0) return -1;
    }
    return 0;
}

/* Patterns of <= 64 bases, one word per lane. */
static int pattern_lanes_narrow(gpuasm_lanes_ws *ws, const gpuasm_lane_pattern *pat, uint32_t n_pat,
                                const uint8_t *text, uint64_t n)
{
    const uint32_t ng = (n_pat + LN - 1) / LN;
    pl_group *grp = gpuasm_lanes_tab(ws, (size_t)ng * sizeof(pl_group));
    if (!grp) return -1;
    /* Transpose the patterns' Peq words to [group][code][lane]. */
    for (uint32_t g = 0; g < ng; g++) {
        uint64_t eq[16][LN], hb[LN], rm[LN];
        int64_t kk[LN];
        for (int l = 0; l < LN; l++) {
            const uint32_t i = g * LN + (uint32_t)l;
            const uint32_t m = i < n_pat ? pat[i].m : 1;
            for (int c = 0; c < 16; c++) eq[c][l] = i < n_pat ? pat[i].peq[c] : 0;
            hb[l] = (uint64_t)1 << (m - 1);
            rm[l] = m == 64 ? ~(uint64_t)0 : ((uint64_t)1 << m) - 1;
            kk[l] = i < n_pat ? pat[i].k : -((int64_t)1 << 40);
        }
        memcpy(grp[g].eq, eq, sizeof eq);
        memcpy(&grp[g].hb, hb, sizeof hb);
        memcpy(&grp[g].rm, rm, sizeof rm);
        memcpy(&grp[g].k, kk, sizeof kk);
    }
    const vu ones = ~(vu){ 0 };
    uint32_t g = 0;
    /* Two groups per pass over the text: two independent dependency
     * chains per column keep the vector units busy.  Windows of 8 columns
     * (see the top): a group whose lanes are all more than 8 above k runs
     * bare; once every lane is further above k than columns are left, the
     * group cannot hit again and stops (edlib's early exit). */
    for (; g < ng; g += 2) {
        const int two = g + 1 < ng;
        const pl_group *A = &grp[g], *B = &grp[two ? g + 1 : g];
        vu pa = ones, ma = (vu){ 0 }, pb = ones, mb = (vu){ 0 };
        int live_a = 1, live_b = two;
        for (uint64_t j0 = 0; j0 < n && (live_a || live_b); j0 += 8) {
            const uint32_t cn = n - j0 < 8 ? (uint32_t)(n - j0) : 8;
            const vi left = (vi){ 0 } + (int64_t)(n - j0);
            vi ta = A->k - lane_score(pa, ma, A->rm), tb = B->k - lane_score(pb, mb, B->rm);
            live_a = live_a && (SIGNS(ta + left) & LANE_MASK) != LANE_MASK;
            live_b = live_b && (SIGNS(tb + left) & LANE_MASK) != LANE_MASK;
            const int fast_a = cn == 8 && (SIGNS(ta + 8) & LANE_MASK) == LANE_MASK;
            const int fast_b = cn == 8 && (SIGNS(tb + 8) & LANE_MASK) == LANE_MASK;
            if (live_a && live_b && fast_a && fast_b) {
                for (uint32_t i = 0; i < 8; i++) {
                    const unsigned c = text[j0 + i] & 15u;
                    vu ph, mh;
                    lane_step(&pa, &ma, A->eq[c], &ph, &mh);
                    lane_step(&pb, &mb, B->eq[c], &ph, &mh);
                }
                continue;
            }
            if (live_a) {
                if (fast_a) {
                    for (uint32_t i = 0; i < 8; i++) {
                        vu ph, mh;
                        lane_step(&pa, &ma, A->eq[text[j0 + i] & 15u], &ph, &mh);
                    }
                } else if (pl_checked(ws, 0, g * LN, A, &pa, &ma, ta, text, j0, cn) < 0) {
                    return -1;
                }
            }
            if (live_b) {
                if (fast_b) {
                    for (uint32_t i = 0; i < 8; i++) {
                        vu ph, mh;
                        lane_step(&pb, &mb, B->eq[text[j0 + i] & 15u], &ph, &mh);
                    }
                } else if (pl_checked(ws, LN, (g + 1) * LN, B, &pb, &mb, tb, text, j0, cn) < 0) {
                    return -1;
                }
            }
        }
        if (gpuasm_lanes_join(ws, two ? 2 * LN : LN) < 0) return -1;
    }
    return 0;
}

/* ---- pattern lanes of two words (65 .. 128 bases) ----------------------------- */

/* A group of LN patterns of two blocks each (no cut-off: both always run). */
typedef struct {
    vu eq0[16], eq1[16];
    vu hb1, rm1;
    vi k;
} pw_group;

/* One column of both blocks; block 1 takes block 0's last-row delta as hin
 * (myers_block.h: a -1 acts on its first row like a match, Ph/Mh shift it
 * in).  Returns block 1's Ph and Mh before the shift. */
static inline __attribute__((always_inline)) void wide_step(vu *pv0, vu *mv0, vu *pv1, vu *mv1,
                                                            vu eq0, vu eq1, vu *ph_out, vu *mh_out)
{
    vu ph0, mh0;
    lane_step(pv0, mv0, eq0, &ph0, &mh0);
    const vu hpos = ph0 >> 63, hneg = mh0 >> 63;
    const vu pv = *pv1, mv = *mv1;
    const vu xv = eq1 | mv;
    const vu e = eq1 | hneg;
    const vu xh = (((e & pv) + pv) ^ pv) | e;
    const vu ph = mv | ~(xh | pv);
    const vu mh = pv & xh;
    const vu phs = (ph << 1) | hpos, mhs = (mh << 1) | hneg;
    *pv1 = mhs | ~(xv | phs);
    *mv1 = phs & xv;
    *ph_out = ph;
    *mh_out = mh;
}

static int pattern_lanes_wide(gpuasm_lanes_ws *ws, const gpuasm_lane_pattern *pat, uint32_t n_pat,
                              uint32_t id0, const uint8_t *text, uint64_t n)
{
    const uint32_t ng = (n_pat + LN - 1) / LN;
    pw_group *grp = gpuasm_lanes_tab(ws, (size_t)ng * sizeof(pw_group));
    if (!grp) return -1;
    for (uint32_t g = 0; g < ng; g++) {
        uint64_t eq0[16][LN], eq1[16][LN], hb[LN], rm[LN];
        int64_t kk[LN];
        for (int l = 0; l < LN; l++) {
            const uint32_t i = g * LN + (uint32_t)l;
            const uint32_t r1 = i < n_pat ? pat[i].m - 64 : 1;   /* rows of block 1 */
            for (int c = 0; c < 16; c++) {
                eq0[c][l] = i < n_pat ? pat[i].peq[c] : 0;
                eq1[c][l] = i < n_pat ? pat[i].peq[16 + c] : 0;
            }
            hb[l] = (uint64_t)1 << (r1 - 1);
            rm[l] = r1 == 64 ? ~(uint64_t)0 : ((uint64_t)1 << r1) - 1;
            kk[l] = i < n_pat ? pat[i].k : -((int64_t)1 << 40);
        }
        memcpy(grp[g].eq0, eq0, sizeof eq0);
        memcpy(grp[g].eq1, eq1, sizeof eq1);
        memcpy(&grp[g].hb1, hb, sizeof hb);
        memcpy(&grp[g].rm1, rm, sizeof rm);
        memcpy(&grp[g].k, kk, sizeof kk);
    }
    const vu ones = ~(vu){ 0 };
    for (uint32_t g = 0; g < ng; g++) {
        const pw_group *G = &grp[g];
        vu p0 = ones, m0 = (vu){ 0 }, p1 = ones, m1 = (vu){ 0 };
        for (uint64_t j0 = 0; j0 < n; j0 += 8) {
            const uint32_t cn = n - j0 < 8 ? (uint32_t)(n - j0) : 8;
            /* D[m] = D[64] + the deltas of block 1's rows. */
            vi T = G->k - lane_score(p0, m0, ones) - lane_score(p1, m1, G->rm1);
            if ((SIGNS(T + (int64_t)(n - j0)) & LANE_MASK) == LANE_MASK) break;   /* no hit left */
            if (cn == 8 && (SIGNS(T + 8) & LANE_MASK) == LANE_MASK) {
                for (uint32_t i = 0; i < 8; i++) {
                    const unsigned c = text[j0 + i] & 15u;
                    vu ph, mh;
                    wide_step(&p0, &m0, &p1, &m1, G->eq0[c], G->eq1[c], &ph, &mh);
                }
                continue;
            }
            for (uint32_t i = 0; i < cn; i++) {
                const unsigned c = text[j0 + i] & 15u;
                vu ph, mh;
                wide_step(&p0, &m0, &p1, &m1, G->eq0[c], G->eq1[c], &ph, &mh);
                T += (vi)((mh & G->hb1) == 0) - (vi)((ph & G->hb1) == 0);
                const unsigned hits = ~(unsigned)SIGNS(T) & LANE_MASK;
                if (__builtin_expect(hits != 0, 0)) {
                    int64_t a_t[LN] __attribute__((aligned(64)));
                    int64_t a_k[LN] __attribute__((aligned(64)));
                    memcpy(a_t, &T, sizeof T);
                    memcpy(a_k, &G->k, sizeof a_k);
                    for (int l = 0; l < LN; l++)
                        if ((hits >> l & 1) &&
                            gpuasm_lanes_push(ws, l, id0 + g * LN + (uint32_t)l, j0 + i,
                                              (int32_t)(a_k[l] - a_t[l])) < 0)
                            return -1;
                }
            }
        }
        if (gpuasm_lanes_join(ws, LN) < 0) return -1;
    }
    return 0;
}

int LANES_FN(gpuasm_pattern_lanes)(gpuasm_lanes_ws *ws, const gpuasm_lane_pattern *pat,
                                   uint32_t n_pat, const uint8_t *text, uint64_t n)
{
    uint32_t narrow = 0;
    while (narrow < n_pat && pat[narrow].m <= 64) narrow++;
    if (narrow && pattern_lanes_narrow(ws, pat, narrow, text, n) < 0) return -1;
    if (narrow < n_pat && pattern_lanes_wide(ws, pat + narrow, n_pat - narrow, narrow, text, n) < 0)
        return -1;
    return 0;
}
