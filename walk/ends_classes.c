/* SPDX-License-Identifier: MIT */
/* ends_classes.c -- the ends pass's candidates that share their first
 * bases, settled by one DP (ends_classes.h says why it is exact). */
#include <stdlib.h>
#include <string.h>

#include "walk/ends_classes.h"
#include "util/grow.h"

/* Code i of target t's pattern at end e (reversed at the text's start). */
static inline uint8_t code_at(const gpuasm_seqset *s, uint32_t t, int e, uint32_t i)
{
    const uint64_t o = s->off[t], m = s->off[t + 1] - o;
    return s->code[o + (e ? m - 1 - i : i)] & 15u;
}

static inline int single_base(uint8_t c) { return c && !(c & (c - 1u)); }

typedef struct { uint32_t key, t; } key_t_pair;

static int cmp_key(const void *a, const void *b)
{
    const key_t_pair *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->t > y->t) - (x->t < y->t);
}

void gpuasm_ends_classes_free(gpuasm_ends_classes *c)
{
    free(c->kupto);
    for (int e = 0; e < 2; e++) {
        free(c->cls[e]);
        free(c->rep[e]);
        free(c->lcp[e]);
    }
    memset(c, 0, sizeof *c);
}

/* The classes of end e from the keyed members v[0 .. nv) (sorted). */
static int build_end(gpuasm_ends_classes *c, int e, const gpuasm_seqset *s, const ends_word *ew,
                     const key_t_pair *v, size_t nv)
{
    uint32_t ncls = 0;
    for (size_t i = 0; i < nv;) {
        size_t j = i + 1;
        while (j < nv && v[j].key == v[i].key) j++;
        ncls += j - i >= 2;
        i = j;
    }
    c->rep[e] = malloc((ncls ? ncls : 1) * sizeof(uint32_t));
    c->lcp[e] = malloc(ncls ? ncls : 1);
    if (!c->rep[e] || !c->lcp[e]) return -1;
    uint32_t k = 0;
    for (size_t i = 0; i < nv;) {
        size_t j = i + 1;
        while (j < nv && v[j].key == v[i].key) j++;
        if (j - i < 2) {
            i = j;
            continue;
        }
        /* L: the codes all members share, at most m - 1 of each */
        const uint32_t t0 = v[i].t;
        uint32_t L = ew[t0].m - 1u;
        for (size_t x = i + 1; x < j; x++)
            if (ew[v[x].t].m - 1u < L) L = ew[v[x].t].m - 1u;
        for (size_t x = i + 1; x < j; x++) {
            uint32_t l = GPUASM_EC_KEY;
            while (l < L && code_at(s, v[x].t, e, l) == code_at(s, t0, e, l)) l++;
            L = l;
        }
        c->rep[e][k] = t0;
        c->lcp[e][k] = (uint8_t)L;
        for (size_t x = i; x < j; x++) c->cls[e][v[x].t] = k;
        k++;
        i = j;
    }
    c->n_cls[e] = ncls;
    return 0;
}

int gpuasm_ends_classes_build(gpuasm_ends_classes *c, const gpuasm_seqset *targets, const ends_word *ew)
{
    memset(c, 0, sizeof *c);
    const uint32_t nt = targets->n;
    key_t_pair *v = malloc((nt ? nt : 1) * sizeof *v);
    c->kupto = malloc((nt ? nt : 1) * (size_t)GPUASM_EC_ROWS);
    if (!v || !c->kupto) {
        free(v);
        free(c->kupto);
        c->kupto = NULL;
        return -1;
    }
    for (uint32_t t = 0; t < nt; t++) {
        int8_t *ku = c->kupto + (size_t)t * GPUASM_EC_ROWS;
        int32_t run = -1;
        for (uint32_t p = 0; p < GPUASM_EC_ROWS; p++) {
            if (ew[t].m && p < ew[t].m && ew[t].kp[p] > run) run = ew[t].kp[p];
            ku[p] = (int8_t)run;
        }
    }
    for (int e = 0; e < 2; e++) {
        if (!(c->cls[e] = malloc((nt ? nt : 1) * sizeof(uint32_t)))) goto oom;
        size_t nv = 0;
        for (uint32_t t = 0; t < nt; t++) {
            c->cls[e][t] = UINT32_MAX;
            /* one-word ends_words (the lanes' candidates) with a key */
            if (!ew[t].m || ew[t].nw != 1 || ew[t].m <= GPUASM_EC_KEY || !ew[t].omin || ew[t].kmax < 0) continue;
            uint32_t key = 0, i = 0;
            for (; i < GPUASM_EC_KEY; i++) {
                const uint8_t b = code_at(targets, t, e, i);
                if (!single_base(b)) break;
                key = (key << 2) | (uint32_t)__builtin_ctz(b);
            }
            if (i < GPUASM_EC_KEY) continue;
            v[nv++] = (key_t_pair){ key, t };
        }
        qsort(v, nv, sizeof *v, cmp_key);
        if (build_end(c, e, targets, ew, v, nv) < 0) goto oom;
    }
    free(v);
    return 0;
oom:
    free(v);
    gpuasm_ends_classes_free(c);
    return -1;
}

void gpuasm_ec_ws_free(gpuasm_ec_ws *ws)
{
    free(ws->seen);
    free(ws->cnt);
    free(ws->wmax);
    free(ws->slot);
    free(ws->R);
    free(ws->cell);
    free(ws->touched);
    memset(ws, 0, sizeof *ws);
}

/* One Myers word (Eq peq: rows 1 .. 64 of a pattern at end e) over the
 * text's last (first, at e = 1) W bases: the last column's cells of rows
 * 1 .. L (1 <= L <= 64) into cell[], and R = min(L, min over the window's
 * columns of D(L, x)), row L's value followed by its horizontal deltas
 * (Ph/Mh bit L - 1). */
/* Always inlined: gpuasm_ends_word_none's L = 64 is then a constant (row
 * L's delta the top bit, a fifth fewer instructions a column). */
static inline __attribute__((always_inline)) int32_t word_dp(const uint64_t *peq, uint32_t L, int e,
                                                              const uint8_t *text, uint32_t n, uint32_t W,
                                                              int8_t *cell)
{
    const uint8_t *tp = e ? text + W - 1u : text + n - W;
    const ptrdiff_t step = e ? -1 : 1;
    uint64_t pv = ~(uint64_t)0, mv = 0;
    int32_t R = (int32_t)L;   /* the column before the window, and paths from below row L */
    int32_t dL = (int32_t)L;  /* D(L, x): L in the column before the window */
    for (uint32_t x = 0; x < W; x++, tp += step) {
        const uint64_t eq = peq[*tp & 15u];
        const uint64_t xv = eq | mv;
        const uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
        uint64_t ph = mv | ~(xh | pv);
        uint64_t mh = pv & xh;
        dL += (int32_t)((ph >> (L - 1u)) & 1u) - (int32_t)((mh >> (L - 1u)) & 1u);
        R = dL < R ? dL : R;
        ph <<= 1;
        mh <<= 1;
        pv = mh | ~(xv | ph);
        mv = ph & xv;
    }
    int32_t d = 0;
    for (uint32_t p = 1; p <= L; p++) {
        d += (int32_t)((pv >> (p - 1)) & 1u) - (int32_t)((mv >> (p - 1)) & 1u);
        cell[p] = (int8_t)d;
    }
    return R;
}

/* 1 when member w, looking at rows up to P, has no acceptable p by the
 * cells of rows <= L and R (rows in (L, P]: R above kfar, at least their
 * largest k_p): ends_classes.h. */
static int member_settled(const ends_word *w, uint32_t L, const int8_t *cell, int32_t R, uint32_t P,
                          int32_t kfar)
{
    const uint32_t top = P < L ? P : L;
    for (uint32_t p = w->omin; p <= top; p++)
        if (w->kp[p] >= 0 && cell[p] <= w->kp[p]) return 0;
    return P <= L || R > kfar;
}

int64_t gpuasm_ends_classes_settle(const gpuasm_ends_classes *c, gpuasm_ec_ws *ws, const ends_word *ew,
                                   const uint32_t *list, uint32_t nl, uint32_t *reach, const uint8_t *text,
                                   uint32_t n, int e)
{
    const uint32_t ncls = c->n_cls[0] > c->n_cls[1] ? c->n_cls[0] : c->n_cls[1];
    if (!ncls || !n) return 0;
    if (ws->cap < ncls) {
        gpuasm_ec_ws_free(ws);
        ws->seen = calloc(ncls, sizeof(uint32_t));
        ws->cnt = malloc(ncls * sizeof(uint32_t));
        ws->wmax = malloc(ncls * sizeof(uint32_t));
        ws->slot = malloc(ncls * sizeof(uint32_t));
        ws->touched = malloc(ncls * sizeof(uint32_t));
        ws->R = malloc(ncls * sizeof(int32_t));
        ws->cell = malloc((size_t)ncls * GPUASM_EC_ROWS);
        if (!ws->seen || !ws->cnt || !ws->wmax || !ws->slot || !ws->touched || !ws->R || !ws->cell) {
            gpuasm_ec_ws_free(ws);
            return -1;
        }
        ws->cap = ncls;
    }
    if (++ws->stamp == 0) {
        memset(ws->seen, 0, ws->cap * sizeof(uint32_t));
        ws->stamp = 1;
    }
    uint32_t nt = 0;
    for (uint32_t i = 0; i < nl; i++) {
        const uint32_t k = c->cls[e][list[i]];
        if (k == UINT32_MAX || !reach[i]) continue;
        const uint32_t W = gpuasm_ew_window(&ew[list[i]], n, reach[i]);
        if (ws->seen[k] != ws->stamp) {
            ws->seen[k] = ws->stamp;
            ws->cnt[k] = 0;
            ws->wmax[k] = 0;
            ws->touched[nt++] = k;
        }
        ws->cnt[k]++;
        if (W > ws->wmax[k]) ws->wmax[k] = W;
    }
    /* one DP a class with enough candidates; slot: its results, or none */
    uint32_t ns = 0;
    for (uint32_t j = 0; j < nt; j++) {
        const uint32_t k = ws->touched[j];
        ws->slot[k] = UINT32_MAX;
        if (ws->cnt[k] < GPUASM_EC_MIN) continue;
        ws->R[ns] = word_dp(ew[c->rep[e][k]].peq[e][0], c->lcp[e][k], e, text, n, ws->wmax[k],
                            ws->cell + (size_t)ns * GPUASM_EC_ROWS);
        ws->slot[k] = ns++;
    }
    int64_t done = 0;
    for (uint32_t i = 0; ns && i < nl; i++) {
        const uint32_t t = list[i], k = c->cls[e][t];
        if (k == UINT32_MAX || !reach[i] || ws->seen[k] != ws->stamp || ws->slot[k] == UINT32_MAX) continue;
        const ends_word *w = &ew[t];
        const uint32_t P = reach[i] < w->m - 1u ? reach[i] : w->m - 1u, sl = ws->slot[k];
        /* kupto[P]: the largest k_p up to P, at least those past L */
        if (!member_settled(w, c->lcp[e][k], ws->cell + (size_t)sl * GPUASM_EC_ROWS, ws->R[sl], P,
                            c->kupto[(size_t)t * GPUASM_EC_ROWS + P]))
            continue;
        reach[i] = 0;
        done++;
    }
    return done;
}

int gpuasm_ends_word_none(const ends_word *w, const uint8_t *text, uint32_t n, int e, uint32_t reach)
{
    if (w->omin == 0 || w->omin >= w->m || n == 0 || w->kmax < 0 || reach == 0) return 1;
    if (w->nw < 2) return 0;
    /* rows up to m - 1: the two- and more-word steps take the row rule
     * over every row (reach bounds their window only) */
    const uint32_t W = gpuasm_ew_window(w, n, reach), P = w->m - 1u;
    int32_t kfar = -1;   /* the largest k_p past row 64 */
    for (uint32_t p = 65 > w->omin ? 65 : w->omin; p <= P; p++)
        if (w->kp[p] > kfar) kfar = w->kp[p];
    int8_t cell[GPUASM_EC_ROWS];
    const int32_t R = word_dp(w->peq[e][0], 64, e, text, n, W, cell);
    return member_settled(w, 64, cell, R, P, kfar);
}
