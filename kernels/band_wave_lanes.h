/* SPDX-License-Identifier: MIT */
/* band_wave_lanes.h -- band_wave.h's wavefront for WL lanes (WL blocks a
 * band), its names suffixed by WL through WN(): included by band_wave.h
 * once for each width, no guard. */
typedef uint64_t WN(gpuasm_wv) __attribute__((vector_size(8 * WL)));
typedef int64_t WN(gpuasm_wvi) __attribute__((vector_size(8 * WL)));

/* One band's wave: what stays the same over its columns. */
typedef struct WN(gpuasm_wave_band) {
    WN(gpuasm_wv) peq[4];       /* lane i: Peq of base A, C, G, T (codes 1, 2, 4, 8), block i */
    WN(gpuasm_wv) tab[16];      /* lane i: Peq of code c, block i (WN(gpuasm_wave_tab)) */
    const uint8_t *codes;   /* [n] the text's nt16 codes, column order (low 4 bits) */
    int8_t *hb;             /* [n] deltas in from the band above (unless top) and out */
    int top;                /* the pattern's first band: row 0 above is 0 */
    int64_t n, k;
    int64_t final_col;      /* the column whose Eq, Ph, Mh go to leq/lph/lmh (-1: none) */
    uint64_t *leq, *lph, *lmh;   /* [WL] */
} WN(gpuasm_wave_band);

/* Lane i tests the byte of text column t - i within the WL bytes of
 * columns t - WL + 1 .. t (byte WL - 1 - i), at the bit of base x. */
static inline __attribute__((always_inline)) void WN(gpuasm_wave_mask)(int x, WN(gpuasm_wv) *mk)
{
    for (int i = 0; i < WL; i++) (*mk)[i] = (uint64_t)1 << (8 * (WL - 1 - i) + x);
}

static inline __attribute__((always_inline)) void WN(gpuasm_wave_eq)(const WN(gpuasm_wave_band) *wb, uint64_t w,
                                                                     WN(gpuasm_wv) *eq)
{
    const WN(gpuasm_wv) b = (WN(gpuasm_wv)){ 0 } + w;
    WN(gpuasm_wv) e = { 0 }, mk = { 0 };
    for (int x = 0; x < 4; x++) {
        WN(gpuasm_wave_mask)(x, &mk);
        e |= wb->peq[x] & (WN(gpuasm_wv))((b & mk) != 0);
    }
    *eq = e;
}

/* wb->tab from wb->peq: code c's Peq is the OR of its bases'. */
static inline __attribute__((always_inline)) void WN(gpuasm_wave_tab)(WN(gpuasm_wave_band) *wb)
{
    for (int c = 0; c < 16; c++) {
        WN(gpuasm_wv) e = { 0 };
        for (int x = 0; x < 4; x++)
            if (c & (1 << x)) e |= wb->peq[x];
        wb->tab[c] = e;
    }
}

/* wb->peq and wb->tab from a PEq table whose word of code c, block i of
 * the band, is peq[c * cstride + i * bstride]. */
static inline __attribute__((always_inline)) void WN(gpuasm_wave_peq)(WN(gpuasm_wave_band) *wb, const uint64_t *peq,
                                                                      size_t cstride, size_t bstride)
{
    for (int x = 0; x < 4; x++)
        for (int i = 0; i < WL; i++) wb->peq[x][i] = peq[((size_t)1 << x) * cstride + (size_t)i * bstride];
    WN(gpuasm_wave_tab)(wb);
}

/* The lanes' state within a run, and the bottom row's (in registers: a
 * store to the band's state every step cost ~10%). */
typedef struct WN(gpuasm_wave_regs) {
    WN(gpuasm_wv) pv, mv, cp, cn;   /* Pv, Mv; each lane's last bottom delta (+1, -1 bits) */
    int64_t bottom, exit_f, exit_d;
} WN(gpuasm_wave_regs);

/* One step: lane i at column t - i with Eq eq; lane 0's delta from
 * above is (tp, tn).  Leaves Ph/Mh before the shift in *ph0 / *mh0. */
static inline __attribute__((always_inline)) void WN(gpuasm_wave_step)(WN(gpuasm_wave_regs) *r, const WN(gpuasm_wv) *eqp,
                                                                   uint64_t tp, uint64_t tn, WN(gpuasm_wv) *ph0,
                                                                   WN(gpuasm_wv) *mh0)
{
    const WN(gpuasm_wv) eq = *eqp;   /* by pointer: a vector argument is an ABI question without AVX */
    const WN(gpuasm_wv) in_p = (WN(gpuasm_wv)){ tp }, in_n = (WN(gpuasm_wv)){ tn };
#if WL == 4
    const WN(gpuasm_wv) hp = __builtin_shufflevector(r->cp, in_p, 4, 0, 1, 2);
    const WN(gpuasm_wv) hn = __builtin_shufflevector(r->cn, in_n, 4, 0, 1, 2);
#else
    const WN(gpuasm_wv) hp = __builtin_shufflevector(r->cp, in_p, 8, 0, 1, 2, 3, 4, 5, 6);
    const WN(gpuasm_wv) hn = __builtin_shufflevector(r->cn, in_n, 8, 0, 1, 2, 3, 4, 5, 6);
#endif
    const WN(gpuasm_wv) pv = r->pv, mv = r->mv;
    const WN(gpuasm_wv) xv = eq | mv, eqh = eq | hn;
    const WN(gpuasm_wv) xh = (((eqh & pv) + pv) ^ pv) | eqh;
    WN(gpuasm_wv) ph = mv | ~(xh | pv);
    WN(gpuasm_wv) mh = pv & xh;
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
static inline __attribute__((always_inline)) void WN(gpuasm_wave_out)(const WN(gpuasm_wave_band) *wb, WN(gpuasm_wave_regs) *r,
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
static inline __attribute__((always_inline)) void WN(gpuasm_wave_masked)(const WN(gpuasm_wave_band) *wb, WN(gpuasm_wave_regs) *r,
                                                                     int64_t t, int64_t f)
{
    uint64_t w = 0;
    WN(gpuasm_wvi) act = { 0 };
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
    const WN(gpuasm_wave_regs) old = *r;
    WN(gpuasm_wv) ph0, mh0;
    WN(gpuasm_wv) eq;
    WN(gpuasm_wave_eq)(wb, w, &eq);
    WN(gpuasm_wave_step)(r, &eq, tp, tn, &ph0, &mh0);
    const WN(gpuasm_wv) a = (WN(gpuasm_wv))act;
    r->pv = (r->pv & a) | (old.pv & ~a);
    r->mv = (r->mv & a) | (old.mv & ~a);
    if (wb->final_col >= 0)
        for (int i = 0; i < WL; i++)
            if (act[i] && t - i == wb->final_col) {
                wb->leq[i] = eq[i];
                wb->lph[i] = ph0[i];
                wb->lmh[i] = mh0[i];
            }
    if (act[WL - 1]) WN(gpuasm_wave_out)(wb, r, t - (WL - 1));
}

/* Columns [j0, j1) of lane 0 (st skewed as the header says; the band
 * started at st->start_f); the text's last chunk (j1 == n) drains.
 * Returns the first column whose bottom delta is not final yet (n when
 * drained). */
static inline __attribute__((always_inline)) int64_t WN(gpuasm_wave_run)(const WN(gpuasm_wave_band) *wb,
                                                                     gpuasm_band_state *st, int64_t j0, int64_t j1)
{
    const int64_t f = st->start_f, n = wb->n;
    WN(gpuasm_wave_regs) r;
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
    for (; t < lo; t++) WN(gpuasm_wave_masked)(wb, &r, t, f);
    /* Full steps: lane i's Eq is column t - i's table row in lane i, so a
     * step loads one row (code c's Peq for all the band's blocks) and
     * takes the diagonal of the last WL rows by blends (the masks' tests
     * were a third of a step's instructions). */
    WN(gpuasm_wv) e[WL];
    if (t < hi)
        for (int i = 1; i < WL; i++) e[i] = wb->tab[wb->codes[t - i] & 15u];
    for (; t < hi; t++) {
        e[0] = wb->tab[wb->codes[t] & 15u];
#if WL == 4
        const WN(gpuasm_wv) lo01 = __builtin_shufflevector(e[0], e[1], 0, 5, 2, 3);
        const WN(gpuasm_wv) hi23 = __builtin_shufflevector(e[2], e[3], 0, 1, 2, 7);
        const WN(gpuasm_wv) eq = __builtin_shufflevector(lo01, hi23, 0, 1, 6, 7);
#else
        const WN(gpuasm_wv) b01 = __builtin_shufflevector(e[0], e[1], 0, 9, 2, 3, 4, 5, 6, 7);
        const WN(gpuasm_wv) b23 = __builtin_shufflevector(e[2], e[3], 0, 1, 2, 11, 4, 5, 6, 7);
        const WN(gpuasm_wv) b45 = __builtin_shufflevector(e[4], e[5], 0, 1, 2, 3, 4, 13, 6, 7);
        const WN(gpuasm_wv) b67 = __builtin_shufflevector(e[6], e[7], 0, 1, 2, 3, 4, 5, 6, 15);
        const WN(gpuasm_wv) c03 = __builtin_shufflevector(b01, b23, 0, 1, 10, 11, 4, 5, 6, 7);
        const WN(gpuasm_wv) c47 = __builtin_shufflevector(b45, b67, 0, 1, 2, 3, 4, 5, 14, 15);
        const WN(gpuasm_wv) eq = __builtin_shufflevector(c03, c47, 0, 1, 2, 3, 12, 13, 14, 15);
#endif
        for (int i = WL - 1; i > 0; i--) e[i] = e[i - 1];
        uint64_t tp = 0, tn = 0;
        if (!wb->top) {
            tp = (uint64_t)(wb->hb[t] > 0);
            tn = (uint64_t)(wb->hb[t] < 0);
        }
        WN(gpuasm_wv) ph0, mh0;
        WN(gpuasm_wave_step)(&r, &eq, tp, tn, &ph0, &mh0);
        WN(gpuasm_wave_out)(wb, &r, t - (WL - 1));
    }
    for (; t < j1; t++) WN(gpuasm_wave_masked)(wb, &r, t, f);
    int64_t done = j1 - (WL - 1) > f + 1 ? j1 - (WL - 1) : f + 1;
    if (j1 == n) {
        for (; t < n + WL - 1; t++) WN(gpuasm_wave_masked)(wb, &r, t, f);
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

