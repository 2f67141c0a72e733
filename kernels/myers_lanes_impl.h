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
 *
 * The recurrence is myers_block.h's with hin = 0 (row 0 is 0 in every
 * column: free start), lane by lane; names as there (Pv/Mv, Ph/Mh, Xv/Xh).
 * Scores are kept as T = k - D (a lane has a hit when T >= 0, i.e. when its
 * sign bit is clear), so one sign-mask instruction tests every lane.
 */
#include <stdint.h>
#include <string.h>

#include "myers_block.h"
#include "myers_lanes.h"

typedef uint64_t vu __attribute__((vector_size(8 * LN)));
typedef int64_t vi __attribute__((vector_size(8 * LN)));

#define LANE_MASK ((1u << LN) - 1u)

/* One column of one word per lane (hin = 0).  Returns Ph and Mh before the
 * shift, so the caller can read the last row's horizontal delta. */
static inline __attribute__((always_inline)) void lane_step(vu *pv_io, vu *mv_io, vu eq, vu *ph_out,
                                                            vu *mh_out)
{
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
    TEXT_TAB;

    tl_lane ln[LN];
    uint64_t a_pv[LN] __attribute__((aligned(64)));
    uint64_t a_mv[LN] __attribute__((aligned(64)));
    int64_t a_t[LN] __attribute__((aligned(64)));
    int64_t a_tp[LN] __attribute__((aligned(64)));
    uint64_t q[8][LN] __attribute__((aligned(64)));
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

    while (act) {
        /* A run: as many columns as every active lane has left in its
         * segment, at most 64 (one staging of the codes). */
        uint64_t run = 64;
        for (int l = 0; l < LN; l++)
            if ((act >> l & 1) && ln[l].e - ln[l].p < run) run = ln[l].e - ln[l].p;
        for (int l = 0; l < LN; l++) {
            uint8_t b[64];
            memset(b, 0, sizeof b);
            if (act >> l & 1) memcpy(b, ln[l].txt + ln[l].p, (size_t)run);
            for (int g = 0; g < 8; g++) memcpy(&q[g][l], b + 8 * g, 8);
        }
        for (uint32_t c = 0; c < (uint32_t)run; c++) {
            vu qv;
            memcpy(&qv, q[c >> 3], sizeof qv);
            const vu eq = TEXT_EQ(qv, 8 * (c & 7));
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
                        if (j >= ln[l].s && gpuasm_lanes_push(ws, l, ln[l].id, j, (int32_t)(k - a_t[l])) < 0)
                            return -1;
                    }
                }
                continue;
            }
            /* Blocks below 0: lanes where one is active, or where block 0's
             * last row was <= k in the previous column (the cut-off brings
             * block 1 in, run_blocks' rule). */
            const unsigned cand = (~(unsigned)SIGNS(tp) | busy) & act;
            if (__builtin_expect(cand != 0, 0)) {
                memcpy(a_t, &T, sizeof T);
                memcpy(a_tp, &tp, sizeof tp);
                for (int l = 0; l < LN; l++) {
                    if (!(cand >> l & 1)) continue;
                    uint64_t *pv = blk + (size_t)l * 3 * W, *mv = pv + W;
                    int64_t *sc = (int64_t *)(mv + W);
                    const uint64_t j = ln[l].p + c;
                    const unsigned code = ln[l].txt[j] & 15u;
                    int h = (int)(a_tp[l] - a_t[l]);   /* block 0's hout */
                    int32_t last = ln[l].last;
                    uint64_t ph1, mh1;
                    for (int32_t b = 1; b <= last; b++) {
                        h = gpuasm_myers_block_step(&pv[b], &mv[b], peq[(size_t)b * 16 + code], h,
                                                    hbit_of(m, W, (uint32_t)b), &ph1, &mh1);
                        sc[b] += h;
                    }
                    /* The last active block's last row in column j-1. */
                    const int64_t prev = last == 0 ? (int64_t)k - a_tp[l] : sc[last] - h;
                    if ((uint32_t)last + 1 < W && prev <= k) {
                        const int32_t b = last + 1;
                        pv[b] = ~(uint64_t)0;
                        mv[b] = 0;
                        sc[b] = prev + rows_of(m, W, (uint32_t)b);
                        h = gpuasm_myers_block_step(&pv[b], &mv[b], peq[(size_t)b * 16 + code], h,
                                                    hbit_of(m, W, (uint32_t)b), &ph1, &mh1);
                        sc[b] += h;
                        last = b;
                    }
                    while (last > 0 && sc[last] >= (int64_t)k + rows_of(m, W, (uint32_t)last)) last--;
                    if ((uint32_t)last == W - 1 && sc[last] <= k && j >= ln[l].s &&
                        gpuasm_lanes_push(ws, l, ln[l].id, j, (int32_t)sc[last]) < 0)
                        return -1;
                    ln[l].last = last;
                    busy = last > 0 ? busy | (1u << l) : busy & ~(1u << l);
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
    return gpuasm_lanes_join(ws, LN);
}

/* ---- pattern lanes -------------------------------------------------------- */

/* A group of LN patterns: Eq per text code, the last row's bit, T at the
 * start (k - m) and k.  Lanes without a pattern never hit (k = -1). */
typedef struct {
    vu eq[16];
    vu hb;
    vi t0, k;
} pl_group;

/* One column of one group: step, then T -= the last row's delta. */
#define PL_STEP(G, PV, MV, T, c)                                                                 \
    do {                                                                                         \
        vu ph_, mh_;                                                                             \
        lane_step(&(PV), &(MV), (G)->eq[c], &ph_, &mh_);                                         \
        (T) += (vi)((mh_ & (G)->hb) == 0) - (vi)((ph_ & (G)->hb) == 0);                          \
    } while (0)

/* Hits of a group at column j: lanes whose T >= 0, D = k - T. */
static inline int pl_hits(gpuasm_lanes_ws *ws, int buf0, uint32_t id0, uint32_t n_pat,
                          const pl_group *g, vi T, uint64_t j)
{
    const unsigned hits = ~(unsigned)SIGNS(T) & LANE_MASK;
    if (__builtin_expect(hits == 0, 1)) return 0;
    int64_t a_t[LN] __attribute__((aligned(64)));
    int64_t a_k[LN] __attribute__((aligned(64)));
    memcpy(a_t, &T, sizeof T);
    memcpy(a_k, &g->k, sizeof a_k);
    for (int l = 0; l < LN; l++)
        if ((hits >> l & 1) && id0 + (uint32_t)l < n_pat &&
            gpuasm_lanes_push(ws, buf0 + l, id0 + (uint32_t)l, j, (int32_t)(a_k[l] - a_t[l])) < 0)
            return -1;
    return 0;
}

int LANES_FN(gpuasm_pattern_lanes)(gpuasm_lanes_ws *ws, const gpuasm_lane_pattern *pat,
                                   uint32_t n_pat, const uint8_t *text, uint64_t n)
{
    const uint32_t ng = (n_pat + LN - 1) / LN;
    pl_group *grp = gpuasm_lanes_tab(ws, (size_t)ng * sizeof(pl_group));
    if (!grp) return -1;
    /* Transpose the patterns' Peq words to [group][code][lane]. */
    for (uint32_t g = 0; g < ng; g++) {
        uint64_t eq[16][LN], hb[LN];
        int64_t t0[LN], kk[LN];
        for (int l = 0; l < LN; l++) {
            const uint32_t i = g * LN + (uint32_t)l;
            if (i < n_pat) {
                for (int c = 0; c < 16; c++) eq[c][l] = pat[i].peq[c];
                hb[l] = (uint64_t)1 << (pat[i].m - 1);
                t0[l] = (int64_t)pat[i].k - (int64_t)pat[i].m;
                kk[l] = pat[i].k;
            } else {
                for (int c = 0; c < 16; c++) eq[c][l] = 0;
                hb[l] = 1;
                t0[l] = -2;   /* m = 1, k = -1: D stays 1 > k */
                kk[l] = -1;
            }
        }
        memcpy(grp[g].eq, eq, sizeof eq);
        memcpy(&grp[g].hb, hb, sizeof hb);
        memcpy(&grp[g].t0, t0, sizeof t0);
        memcpy(&grp[g].k, kk, sizeof kk);
    }
    const vu ones = ~(vu){ 0 };
    uint32_t g = 0;
    /* Two groups per pass over the text: two independent dependency
     * chains per column keep the vector units busy. */
    for (; g + 2 <= ng; g += 2) {
        const pl_group *A = &grp[g], *B = &grp[g + 1];
        vu pa = ones, ma = (vu){ 0 }, pb = ones, mb = (vu){ 0 };
        vi ta = A->t0, tb = B->t0;
        for (uint64_t j = 0; j < n; j++) {
            const unsigned c = text[j] & 15u;
            PL_STEP(A, pa, ma, ta, c);
            PL_STEP(B, pb, mb, tb, c);
            if (__builtin_expect(((SIGNS(ta) & SIGNS(tb)) & LANE_MASK) != LANE_MASK, 0)) {
                if (pl_hits(ws, 0, g * LN, n_pat, A, ta, j) < 0 ||
                    pl_hits(ws, LN, (g + 1) * LN, n_pat, B, tb, j) < 0)
                    return -1;
            }
        }
        if (gpuasm_lanes_join(ws, 2 * LN) < 0) return -1;
    }
    for (; g < ng; g++) {
        const pl_group *A = &grp[g];
        vu pa = ones, ma = (vu){ 0 };
        vi ta = A->t0;
        for (uint64_t j = 0; j < n; j++) {
            const unsigned c = text[j] & 15u;
            PL_STEP(A, pa, ma, ta, c);
            if (pl_hits(ws, 0, g * LN, n_pat, A, ta, j) < 0) return -1;
        }
        if (gpuasm_lanes_join(ws, LN) < 0) return -1;
    }
    return 0;
}
