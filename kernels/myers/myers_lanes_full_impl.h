/* SPDX-License-Identifier: MIT */
/* myers_lanes_full_impl.h -- text lanes with EVERY block of the pattern in
 * the vector (myers_lanes.h: gpuasm_text_lanes_full), for each SIMD level:
 * included by myers_lanes_sse41.c, _avx2.c and _avx512.c after
 * myers_lanes_impl.h, whose vector types, LN, LANES_FN, SIGNS and
 * lane_step() it uses.
 *
 * gpuasm_text_lanes() runs block 0 in the vector and the blocks below it
 * in scalar code when Ukkonen's cut-off lets them in: cheap where the
 * pattern matches the text in few places, a scalar loop over every block
 * of every lane where it matches everywhere (a read of a satellite repeat
 * against its array: issue #28's periodic case, where the cut-off never
 * cuts and that loop was 61% of the run).  Here the W <= 4 blocks of a
 * pattern of at most 256 bases run one after the other in the vector at
 * every column, Hyyro's carry between them lane by lane, so each lane
 * computes the whole column: D[m][j] exact everywhere in its piece, where
 * the cut-off version is exact where <= k, so both emit the same (j, D <=
 * k) stream (the segment argument of myers_lanes.h for the lead-in).
 */

/* One column of block b >= 1 in every lane: hp / hn in, the horizontal
 * +1 / -1 of the row above the block (bit 0 of each lane), out, those of
 * the block's last row (bit 63).  Returns Ph and Mh before the shift. */
static inline __attribute__((always_inline)) void full_block_step(vu *pv_io, vu *mv_io, vu eq, vu *hp, vu *hn,
                                                                  vu *ph_out, vu *mh_out)
{
    const vu pv = *pv_io, mv = *mv_io;
    const vu xv = eq | mv;
    const vu eqh = eq | *hn;   /* a -1 from above acts on the first row like a match */
    const vu xh = (((eqh & pv) + pv) ^ pv) | eqh;
    const vu ph = mv | ~(xh | pv);
    const vu mh = pv & xh;
    const vu phs = (ph << 1) | *hp, mhs = (mh << 1) | *hn;
    *hp = ph >> 63;
    *hn = mh >> 63;
    *pv_io = mhs | ~(xv | phs);
    *mv_io = phs & xv;
    *ph_out = ph;
    *mh_out = mh;
}

/* Per-lane scalar state. */
typedef struct {
    const uint8_t *txt;
    uint64_t p, e, s;   /* next column, end of the columns run, first owned column */
    uint64_t oe, n;     /* end of the owned columns, the text's length */
    uint32_t id, seg, seg_end;
} tf_lane;

/* Far below any score: T of a column a lane has not computed. */
#define TF_NONE (-((int64_t)1 << 40))

/* The lanes' vector state while lanes change segments, lane by lane. */
typedef struct {
    uint64_t pv[4][LN] __attribute__((aligned(64)));
    uint64_t mv[4][LN] __attribute__((aligned(64)));
    int64_t t[LN] __attribute__((aligned(64)));
    int64_t t1[LN] __attribute__((aligned(64)));   /* minima: T of the two columns before */
    int64_t t2[LN] __attribute__((aligned(64)));
} tf_state;

/* The vectors (PV, MV of W blocks, T, T1, T2) to st (put) or back (!put). */
static inline __attribute__((always_inline)) void tf_move(tf_state *st, vu *PV, vu *MV, vi *T, const uint32_t W,
                                                          int put)
{
    for (uint32_t b = 0; b < W; b++) {
        if (put) {
            memcpy(st->pv[b], &PV[b], sizeof PV[b]);
            memcpy(st->mv[b], &MV[b], sizeof MV[b]);
        } else {
            memcpy(&PV[b], st->pv[b], sizeof PV[b]);
            memcpy(&MV[b], st->mv[b], sizeof MV[b]);
        }
    }
    int64_t *dst[3] = { st->t, st->t1, st->t2 };
    for (int i = 0; i < 3; i++) {
        if (put) memcpy(dst[i], &T[i], sizeof T[i]);
        else memcpy(&T[i], dst[i], sizeof T[i]);
    }
}

/* Lane l starts segment ln[l].seg: column w - 1 of a fresh text, D[i] = i;
 * with minima one column past its piece (the last one's right side). */
static inline __attribute__((always_inline)) void tf_start(tf_lane *ln, tf_state *st, int l,
                                                           const gpuasm_lane_seg *seg,
                                                           const gpuasm_lane_text *texts, uint32_t m, int32_t k,
                                                           int minima, const uint32_t W)
{
    const gpuasm_lane_seg *sg = &seg[ln->seg];
    ln->txt = texts[sg->id].code;
    ln->n = texts[sg->id].n;
    ln->p = sg->w;
    ln->oe = sg->e;
    ln->e = sg->e + (uint64_t)(minima && sg->e < ln->n);
    ln->s = sg->s;
    ln->id = sg->id;
    for (uint32_t b = 0; b < W; b++) {
        st->pv[b][l] = ~(uint64_t)0;
        st->mv[b][l] = 0;
    }
    st->t[l] = (int64_t)k - (int64_t)m;
    st->t1[l] = st->t2[l] = TF_NONE;
}

#ifdef STAGE_EQ
/* Eq of every lane's next run columns, [column][block][lane] (levels
 * without a cheap 16-entry permute: scalar loads). */
typedef uint64_t tf_stage_t[64][4][LN];
static inline __attribute__((always_inline)) void tf_stage(tf_stage_t q, const tf_lane *ln, unsigned act,
                                                           uint32_t run, const uint64_t *peq, const uint32_t W)
{
    for (int l = 0; l < LN; l++) {
        const uint8_t *tx = (act >> l & 1) ? ln[l].txt + ln[l].p : NULL;
        for (uint32_t c = 0; c < run; c++) {
            const unsigned code = tx ? tx[c] & 15u : 0u;
            for (uint32_t b = 0; b < W; b++) q[c][b][l] = tx ? peq[(size_t)b * 16 + code] : 0;
        }
    }
}
#define TF_EQ(c, b) (*(const vu *)q[(c)][(b)])
#else
/* The codes of every lane's next run columns, eight a word ([c / 8][lane],
 * byte c % 8): Eq then comes from TEXT_EQB's permute of each block's 16
 * Peq words (the staging of Eq words was half this kernel, perf). */
typedef uint64_t tf_stage_t[8][LN];
static inline __attribute__((always_inline)) void tf_stage(tf_stage_t q, const tf_lane *ln, unsigned act,
                                                           uint32_t run, const uint64_t *peq, const uint32_t W)
{
    (void)peq;
    (void)W;
    for (int l = 0; l < LN; l++) {
        uint8_t b[64];
        memset(b, 0, sizeof b);
        if (act >> l & 1) memcpy(b, ln[l].txt + ln[l].p, run);
        for (int g = 0; g < 8; g++) memcpy(&q[g][l], b + 8 * g, 8);
    }
}
#define TF_EQ(c, b) TEXT_EQB(b, *(const vu *)q[(c) >> 3], 8 * ((c) & 7))
#endif

/* Hits of column j0 + c of each lane in `hits` (D = k - t[l]), owned ones
 * only; j0 = the lane's ln[l].p + c, less one with minima (the column
 * before, whose right side is now known). */
static inline int tf_push(gpuasm_lanes_ws *ws, const tf_lane *ln, const int64_t *t, unsigned hits, uint32_t c,
                          int minima, int32_t k)
{
    for (int l = 0; l < LN; l++) {
        if (!(hits >> l & 1)) continue;
        const uint64_t j = ln[l].p + c - (uint64_t)(minima != 0);
        if (j >= ln[l].s && j < ln[l].oe && gpuasm_lanes_push(ws, l, ln[l].id, j, (int32_t)(k - t[l])) < 0)
            return -1;
    }
    return 0;
}

/* The kernel for W blocks (a constant where inlined). */
static inline __attribute__((always_inline)) int text_lanes_full_w(gpuasm_lanes_ws *ws, const uint64_t *peq,
                                                                   uint32_t m, int32_t k, const gpuasm_lane_text *texts,
                                                                   uint32_t n_texts, int minima, const uint32_t W)
{
    gpuasm_lane_seg *seg;
    uint32_t first[9];
    if (gpuasm_lanes_plan(ws, LN, texts, n_texts, (uint64_t)m + (uint64_t)k, &seg, first) < 0) return -1;
    const unsigned hsh = (m - 1) % 64;   /* the last block's last row */
    tf_lane ln[LN];
    tf_state st;
    tf_stage_t q __attribute__((aligned(64)));
#ifndef STAGE_EQ
    TEXT_TABS(peq, W);
#endif
    memset(ln, 0, sizeof ln);
    memset(&st, 0, sizeof st);
    unsigned act = 0;
    for (int l = 0; l < LN; l++) {
        ln[l].seg = first[l];
        ln[l].seg_end = first[l + 1];
        st.t[l] = st.t1[l] = st.t2[l] = TF_NONE;
        if (ln[l].seg < ln[l].seg_end) {
            tf_start(&ln[l], &st, l, seg, texts, m, k, minima, W);
            act |= 1u << l;
        }
    }
    vu PV[4], MV[4];
    vi T[3];   /* T of this column, and with minima of the two before */
    tf_move(&st, PV, MV, T, W, 0);
    while (act) {
        /* A run: as many columns as every active lane has left in its
         * segment, at most 64 (one staging of the Eq words). */
        uint64_t run = 64;
        for (int l = 0; l < LN; l++)
            if ((act >> l & 1) && ln[l].e - ln[l].p < run) run = ln[l].e - ln[l].p;
        tf_stage(q, ln, act, (uint32_t)run, peq, W);
        for (uint32_t c = 0; c < (uint32_t)run; c++) {
            vu ph, mh, hp, hn;
            lane_step(&PV[0], &MV[0], TF_EQ(c, 0), &ph, &mh);   /* row 0 above block 0: 0 (free start) */
            hp = ph >> 63;
            hn = mh >> 63;
            for (uint32_t b = 1; b < W; b++) full_block_step(&PV[b], &MV[b], TF_EQ(c, b), &hp, &hn, &ph, &mh);
            /* T -= D[m][j] - D[m][j-1] */
            T[0] += (vi)((mh >> hsh) & 1) - (vi)((ph >> hsh) & 1);
            unsigned hits;
            if (minima) {
                /* column j - 1 is a local minimum (cpu_walk.h's emit_hit():
                 * D <= k, the left neighbour absent or larger, the right one
                 * absent or not smaller; "absent" is T < 0, so both sides
                 * are plain comparisons of T) */
                hits = (unsigned)SIGNS((T[1] >= 0) & (T[2] < T[1]) & (T[0] <= T[1])) & act;
                if (__builtin_expect(hits != 0, 0)) {
                    memcpy(st.t1, &T[1], sizeof T[1]);
                    if (tf_push(ws, ln, st.t1, hits, c, 1, k) < 0) return -1;
                }
                T[2] = T[1];
                T[1] = T[0];
                continue;
            }
            hits = ~(unsigned)SIGNS(T[0]) & act;
            if (__builtin_expect(hits != 0, 0)) {
                memcpy(st.t, &T[0], sizeof T[0]);
                if (tf_push(ws, ln, st.t, hits, c, 0, k) < 0) return -1;
            }
        }
        /* Lanes at the end of a segment take their next one (or stop). */
        unsigned done = 0;
        for (int l = 0; l < LN; l++)
            if (act >> l & 1) {
                ln[l].p += run;
                if (ln[l].p == ln[l].e) done |= 1u << l;
            }
        if (!done) continue;
        tf_move(&st, PV, MV, T, W, 1);
        for (int l = 0; l < LN; l++) {
            if (!(done >> l & 1)) continue;
            /* minima at the text's end: its last column has no right side */
            const uint64_t j = ln[l].e - 1;
            if (minima && ln[l].e == ln[l].n && j >= ln[l].s && j < ln[l].oe && st.t1[l] >= 0 &&
                st.t2[l] < st.t1[l] && gpuasm_lanes_push(ws, l, ln[l].id, j, (int32_t)(k - st.t1[l])) < 0)
                return -1;
            if (++ln[l].seg < ln[l].seg_end) tf_start(&ln[l], &st, l, seg, texts, m, k, minima, W);
            else act &= ~(1u << l);
        }
        tf_move(&st, PV, MV, T, W, 0);
    }
    return gpuasm_lanes_join(ws, LN);
}
#undef TF_EQ

int LANES_FN(gpuasm_text_lanes_full)(gpuasm_lanes_ws *ws, const uint64_t *peq, uint32_t m, int32_t k,
                                     const gpuasm_lane_text *texts, uint32_t n_texts, int minima)
{
    switch ((m + 63) / 64) {
    case 1: return text_lanes_full_w(ws, peq, m, k, texts, n_texts, minima, 1);
    case 2: return text_lanes_full_w(ws, peq, m, k, texts, n_texts, minima, 2);
    case 3: return text_lanes_full_w(ws, peq, m, k, texts, n_texts, minima, 3);
    case 4: return text_lanes_full_w(ws, peq, m, k, texts, n_texts, minima, 4);
    default: return -1;   /* past GPUASM_LANES_FULL_M: the caller never asks */
    }
}
