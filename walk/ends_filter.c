/* SPDX-License-Identifier: MIT */
/* ends_filter.c -- the exact candidate filter of the ends pass (see
 * ends_filter.h for the rules and the proof). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "walk/ends_filter.h"
#include "search/cpu_simd.h"
#include "util/grow.h"
#include "util/insertion_sort.h"
#include "walk/qkey.h"
#include "kernels/registry.h"

/* Row of a key of q bases (1 <= q <= 8): keys of q bases from q_base(q)
 * on, q_base(q) = 4 + 16 + .. + 4^(q-1). */
static inline uint32_t q_base(int q) { return gpuasm_qkey_base(1, q); }
#define EF_ROWS (q_base(GPUASM_EF_Q + 1))

static int clean(const uint8_t *s, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        if (gpuasm_base2[s[i] & 15] < 0) return 0;
    return 1;
}

typedef struct { uint32_t row, t; } x_pair;
typedef struct { uint32_t row; gpuasm_ef_piece e; } p_pair;

typedef struct {
    x_pair *x;
    size_t nx, cap_x;
    p_pair *p;
    size_t np, cap_p;
} build_vec;

void gpuasm_efilter_free(gpuasm_efilter *f)
{
    free(f->always);
    free(f->filtered);
    free(f->roff);
    free(f->rcode);
    for (int e = 0; e < 2; e++) {
        free(f->xstart[e]);
        free(f->xids[e]);
        free(f->xbits[e]);
        free(f->pstart[e]);
        free(f->pent[e]);
        free(f->pmaxw[e]);
        free(f->qmask[e]);
        free(f->qdmask[e]);
        free(f->gstart[e]);
        free(f->gtgt[e]);
    }
    memset(f, 0, sizeof *f);
}

#define EF_SPAN 2

/* The rules of pattern q (m bases, k_p of opt) at one end into v.
 * Returns 1 when they cannot all be keyed (the target is "always" there;
 * v is left as it was), 0, or -1 when out of memory. */
static int end_rules(build_vec *v, gpuasm_efilter *f, int e, uint32_t t, const uint8_t *q, uint32_t m,
                     uint32_t omin, const gpuasm_search_opt *opt, int hamming)
{
    const size_t nx0 = v->nx, np0 = v->np;
    uint32_t p = omin;
    while (p < m) {
        const int32_t c = gpuasm_partial_kf(opt, opt->partial_floor, p, m);
        if (c < 0 || (int64_t)c >= (int64_t)p) {   /* never acceptable */
            p++;
            continue;
        }
        uint32_t hi = p;
        /* With differences, a range of lengths shares its pieces (cut from
         * its shortest length) and their windows (as wide as the range):
         * ranges of EF_SPAN lengths keep both tight, at more table entries
         * (the shortest lengths, at the floor, pass most often). */
        while (hi + 1 < m && gpuasm_partial_kf(opt, opt->partial_floor, hi + 1, m) == c &&
               (c == 0 || hi + 1 < p + EF_SPAN))
            hi++;
        const uint32_t lo = p;
        p = hi + 1;
        if (c == 0) {
            /* exact: (p', Q[0 .. p')) for p' <= 8 */
            for (uint32_t x = lo; x <= hi && x <= GPUASM_EF_Q; x++) {
                const int64_t key = gpuasm_qkey(q, (int)x);
                if (key < 0) goto always;
                if (gpuasm_grow((void **)&v->x, &v->cap_x, v->nx + 1, sizeof(*v->x)) < 0) return -1;
                v->x[v->nx].row = q_base((int)x) + (uint32_t)key;
                v->x[v->nx++].t = t;
                f->x_used[e] |= 1u << x;
                if (x > f->dmax[e]) f->dmax[e] = x;
            }
            if (hi <= GPUASM_EF_Q) continue;
            /* one piece Q[0 .. a) starting d in [a, hi] bases before the end */
            const uint32_t a = lo > GPUASM_EF_Q + 1 ? lo : GPUASM_EF_Q + 1;
            if (!clean(q, a)) goto always;
            if (gpuasm_grow((void **)&v->p, &v->cap_p, v->np + 1, sizeof(*v->p)) < 0) return -1;
            v->p[v->np].row = q_base(GPUASM_EF_Q) + (uint32_t)gpuasm_qkey(q, GPUASM_EF_Q);
            v->p[v->np++].e = (gpuasm_ef_piece){ .t = t, .s = 0, .a = (uint16_t)a, .dlo = (uint16_t)a,
                                                 .dhi = (uint16_t)hi, .r = (uint16_t)hi };
            f->p_used[e] |= 1u << GPUASM_EF_Q;
            if (hi > f->dmax[e]) f->dmax[e] = hi;
            continue;
        }
        /* c + 1 pieces of a bases cut from Q[0 .. lo) */
        const uint32_t a = lo / ((uint32_t)c + 1u);
        if (a < GPUASM_EF_AMIN) goto always;
        const int qk = a < GPUASM_EF_Q ? (int)a : GPUASM_EF_Q;
        const int64_t sh = hamming ? 0 : c;
        for (uint32_t j = 0; j <= (uint32_t)c; j++) {
            const uint32_t s = j * a;
            if (!clean(q + s, a)) goto always;
            /* piece j as the FIRST intact piece: pieces 0 .. j-1 each hold
             * an operation, all before piece j's first base, so at most
             * c - j lie after it and shift it (the top of ends_filter.h) */
            const int64_t shj = hamming ? 0 : c - (int64_t)j;
            int64_t dlo = (int64_t)lo - s - shj, dhi = (int64_t)hi - s + shj;
            if (dlo < (int64_t)a) dlo = a;   /* the piece lies inside the text */
            if (gpuasm_grow((void **)&v->p, &v->cap_p, v->np + 1, sizeof(*v->p)) < 0) return -1;
            v->p[v->np].row = q_base(qk) + (uint32_t)gpuasm_qkey(q + s, qk);
            v->p[v->np++].e = (gpuasm_ef_piece){ .t = t, .s = (uint16_t)s, .a = (uint16_t)a, .dlo = (uint16_t)dlo,
                                                 .dhi = (uint16_t)dhi, .r = (uint16_t)(hi + sh) };
            f->p_used[e] |= 1u << qk;
            if ((uint64_t)dhi > f->dmax[e]) f->dmax[e] = (uint32_t)dhi;
        }
    }
    return 0;
always:
    v->nx = nx0;
    v->np = np0;
    return 1;
}

/* The piece bases of entry x at end e. */
static const uint8_t *piece_bases(const gpuasm_efilter *f, int e, const gpuasm_ef_piece *x)
{
    return (e ? f->rcode + f->roff[x->t] : f->targets->code + f->targets->off[x->t]) + x->s;
}

/* Piece entries by row, then dlo, dhi, a, r and the piece's bases (the
 * rule: entries equal in all of these are one group), then target and s:
 * a total order, so the rows and groups come out the same on every
 * platform.  An index is sorted (4 bytes an entry, and qsort's copy of
 * it), not the entries: a long target has hundreds of thousands. */
static _Thread_local const gpuasm_efilter *sort_f;   /* qsort's comparator has no argument */
static _Thread_local const p_pair *sort_p;
static _Thread_local int sort_e;
static int cmp_rule(const void *pa, const void *pb)
{
    const p_pair *x = sort_p + *(const uint32_t *)pa, *y = sort_p + *(const uint32_t *)pb;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    const gpuasm_ef_piece *a = &x->e, *b = &y->e;
    if (a->dlo != b->dlo) return a->dlo < b->dlo ? -1 : 1;
    if (a->dhi != b->dhi) return a->dhi < b->dhi ? -1 : 1;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    if (a->r != b->r) return a->r < b->r ? -1 : 1;
    const int c = memcmp(piece_bases(sort_f, sort_e, a), piece_bases(sort_f, sort_e, b), a->a);
    if (c) return c;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    return (a->s > b->s) - (a->s < b->s);
}

GPUASM_INSERTION_SORT(uint32_t, sort_rules, cmp_rule)

static int same_rule(const gpuasm_efilter *f, int e, const gpuasm_ef_piece *a, const gpuasm_ef_piece *b,
                     uint32_t ra, uint32_t rb)
{
    return ra == rb && a->dlo == b->dlo && a->dhi == b->dhi && a->a == b->a && a->r == b->r &&
           !memcmp(piece_bases(f, e, a), piece_bases(f, e, b), a->a);
}

/* The qdmask bucket of a window whose last base is de bases before the
 * text's end: one bit of a uint32_t, the last taking the rest. */
#define EF_DBUCKET_LAST 31u
static inline uint32_t ef_dbucket(uint32_t de)
{
    const uint32_t b = de / GPUASM_EF_DBUCKET;
    return b < EF_DBUCKET_LAST ? b : EF_DBUCKET_LAST;
}

/* Rows of v in CSR form: start[EF_ROWS + 1], the ids / entries by row;
 * piece entries of one rule in one group (ends_filter.h). */
static int to_rows(gpuasm_efilter *f, int e, build_vec *v)
{
    const uint32_t rows = EF_ROWS;
    f->xstart[e] = calloc((size_t)rows + 1, sizeof(uint32_t));
    f->pstart[e] = calloc((size_t)rows + 1, sizeof(uint32_t));
    f->xids[e] = malloc((v->nx ? v->nx : 1) * sizeof(uint32_t));
    f->qmask[e] = calloc((size_t)1 << (2 * GPUASM_EF_Q), 1);
    f->qdmask[e] = calloc((size_t)1 << (2 * GPUASM_EF_Q), sizeof(uint32_t));
    if (!f->xstart[e] || !f->pstart[e] || !f->xids[e] || !f->qmask[e] || !f->qdmask[e]) return -1;
    /* a piece row of q bases and key k: every 8-base key whose last q
     * bases (its low 2q bits) are k; its window's last base lies d - q
     * bases before the text's end for d in [dlo, dhi] */
    for (size_t i = 0; i < v->np; i++) {
        const uint32_t row = v->p[i].row;
        int q = GPUASM_EF_AMIN;
        while (q < GPUASM_EF_Q && row >= q_base(q + 1)) q++;
        const uint32_t k = row - q_base(q), ext = (uint32_t)1 << (2 * (GPUASM_EF_Q - q));
        const gpuasm_ef_piece *pe = &v->p[i].e;
        const uint32_t b0 = ef_dbucket(pe->dlo > (uint32_t)q ? pe->dlo - (uint32_t)q : 0),
                       b1 = ef_dbucket(pe->dhi > (uint32_t)q ? pe->dhi - (uint32_t)q : 0);
        const uint32_t bits = (b1 == EF_DBUCKET_LAST ? ~(uint32_t)0 : ((uint32_t)2 << b1) - 1) &
                              ~(((uint32_t)1 << b0) - 1);
        for (uint32_t x = 0; x < ext; x++) {
            f->qmask[e][(x << (2 * q)) | k] |= (uint8_t)(1u << (q - GPUASM_EF_AMIN));
            f->qdmask[e][(x << (2 * q)) | k] |= bits;
        }
    }
    if (!(f->xbits[e] = calloc((size_t)rows / 64 + 1, sizeof(uint64_t)))) return -1;
    for (size_t i = 0; i < v->nx; i++) {
        f->xstart[e][v->x[i].row + 1]++;
        f->xbits[e][v->x[i].row >> 6] |= (uint64_t)1 << (v->x[i].row & 63);
    }
    for (uint32_t r = 0; r < rows; r++) f->xstart[e][r + 1] += f->xstart[e][r];
    /* counting sort, stable: target order within a row */
    uint32_t *fill = malloc((size_t)rows * sizeof(uint32_t));
    if (!fill) return -1;
    memcpy(fill, f->xstart[e], (size_t)rows * sizeof(uint32_t));
    for (size_t i = 0; i < v->nx; i++) f->xids[e][fill[v->x[i].row]++] = v->x[i].t;
    free(fill);
    /* piece entries: sorted by row and rule (each row by dlo: the
     * binary search of gpuasm_efilter_mark), one entry a group */
    uint32_t *idx = malloc((v->np ? v->np : 1) * sizeof(uint32_t));
    uint32_t *rstart = calloc((size_t)rows + 1, sizeof(uint32_t));
    if (!idx || !rstart) {
        free(idx);
        free(rstart);
        return -1;
    }
    sort_f = f;
    sort_p = v->p;
    sort_e = e;
    /* by row first (a counting sort: the row is cmp_rule's first key),
     * then each row's few entries by the rest of cmp_rule: the order of
     * qsort with cmp_rule, without its ~25 comparisons an entry (10,000
     * primers: 158 M instructions of a 0.85 G start, callgrind) */
    for (size_t i = 0; i < v->np; i++) rstart[v->p[i].row + 1]++;
    for (uint32_t r = 0; r < rows; r++) rstart[r + 1] += rstart[r];
    for (size_t i = 0; i < v->np; i++) idx[rstart[v->p[i].row]++] = (uint32_t)i;
    for (uint32_t r = rows, hi = (uint32_t)v->np; r-- > 0;) {   /* rstart[r] is now row r's end */
        const uint32_t lo = r ? rstart[r - 1] : 0;
        sort_rules(idx + lo, hi - lo);
        hi = lo;
    }
    free(rstart);
    /* the groups and their targets counted, then written (a group's
     * targets by target; the same target twice in one rule, from two
     * equal pieces, once) */
    uint32_t ng = 0, nt = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass) {
            f->pent[e] = malloc((ng ? ng : 1) * sizeof(gpuasm_ef_piece));
            f->gstart[e] = malloc(((size_t)ng + 1) * sizeof(uint32_t));
            f->gtgt[e] = malloc((nt ? nt : 1) * sizeof(uint32_t));
            if (!f->pent[e] || !f->gstart[e] || !f->gtgt[e]) {
                free(idx);
                return -1;
            }
            ng = nt = 0;
        }
        uint32_t last_t = UINT32_MAX;
        for (size_t i = 0; i < v->np; i++) {
            const p_pair *y = &v->p[idx[i]], *y0 = i ? &v->p[idx[i - 1]] : NULL;
            if (!y0 || !same_rule(f, e, &y->e, &y0->e, y->row, y0->row)) {
                if (pass) {
                    f->gstart[e][ng] = nt;
                    f->pent[e][ng] = y->e;
                    f->pstart[e][y->row + 1]++;
                }
                ng++;
            } else if (last_t == y->e.t) {
                continue;
            }
            if (pass) f->gtgt[e][nt] = y->e.t;
            nt++;
            last_t = y->e.t;
        }
    }
    free(idx);
    const size_t np = v->np;
    free(v->p);   /* the entries are in pent now: one end's list at a time */
    v->p = NULL;
    v->np = v->cap_p = 0;
    f->gstart[e][ng] = nt;
    f->n_groups[e] = ng;
    for (uint32_t r = 0; r < rows; r++) f->pstart[e][r + 1] += f->pstart[e][r];
    /* each piece row's widest range (gpuasm_efilter_mark's binary search) */
    if (!(f->pmaxw[e] = calloc(rows, sizeof(uint16_t)))) return -1;
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t i = f->pstart[e][r]; i < f->pstart[e][r + 1]; i++) {
            const gpuasm_ef_piece *x = &f->pent[e][i];
            if (x->dhi - x->dlo > f->pmaxw[e][r]) f->pmaxw[e][r] = (uint16_t)(x->dhi - x->dlo);
        }
    f->n_entries += v->nx + np;
    return 0;
}

int gpuasm_efilter_build(gpuasm_efilter *f, const gpuasm_seqset *targets, const gpuasm_search_opt *opt)
{
    memset(f, 0, sizeof *f);
    build_vec v[2];
    memset(v, 0, sizeof v);
    const uint32_t nt = targets->n;
    const int hamming = gpuasm_search_mode(opt) == GPUASM_MODE_HAMMING;
    f->n_targets = nt;
    f->targets = targets;
    f->always = calloc(nt ? nt : 1, 1);
    f->filtered = calloc(nt ? nt : 1, 1);
    f->roff = malloc((nt ? nt : 1) * sizeof(uint64_t));
    if (!f->always || !f->filtered || !f->roff) goto oom;
    uint64_t rbases = 0;
    for (uint32_t t = 0; t < nt; t++) {
        const uint64_t m = targets->off[t + 1] - targets->off[t];
        f->roff[t] = UINT64_MAX;
        if (!gpuasm_pair_searched(m, gpuasm_pair_k(opt, m), 1)) continue;   /* never a pattern */
        if (!gpuasm_pair_overlap_min(opt, 0, m)) continue;                  /* no partial occurrences */
        if (m > GPUASM_EF_MAX_M) continue;
        f->roff[t] = rbases;
        rbases += m;
    }
    f->rcode = malloc(rbases ? rbases : 1);
    if (!f->rcode) goto oom;
    for (uint32_t t = 0; t < nt; t++) {
        const uint64_t m = targets->off[t + 1] - targets->off[t];
        if (!gpuasm_pair_searched(m, gpuasm_pair_k(opt, m), 1)) continue;
        const uint32_t omin = gpuasm_pair_overlap_min(opt, 0, m);
        if (!omin) continue;
        f->filtered[t] = 1;
        if (m > GPUASM_EF_MAX_M) {
            f->always[t] = 3;
            continue;
        }
        const uint8_t *p = targets->code + targets->off[t];
        uint8_t *r = f->rcode + f->roff[t];
        for (uint64_t i = 0; i < m; i++) r[i] = p[m - 1 - i];
        for (int e = 0; e < 2; e++) {
            const int rc = end_rules(&v[e], f, e, t, e ? r : p, (uint32_t)m, omin, opt, hamming);
            if (rc < 0) goto oom;
            if (rc) f->always[t] |= (uint8_t)(1u << e);
        }
        if (f->always[t] != 3) f->n_filtered++;
    }
    for (int e = 0; e < 2; e++)
        if (to_rows(f, e, &v[e]) < 0) goto oom;
    for (int e = 0; e < 2; e++) {
        free(v[e].x);
        free(v[e].p);
    }
    return 0;
oom:
    for (int e = 0; e < 2; e++) {
        free(v[e].x);
        free(v[e].p);
    }
    gpuasm_efilter_free(f);
    return -1;
}

void gpuasm_ef_ws_free(gpuasm_ef_ws *ws)
{
    free(ws->tail);
    free(ws->wj);
    free(ws->c2);
    free(ws->gmark);
    memset(ws, 0, sizeof *ws);
}

typedef struct {
    uint32_t **mark, stamp, **reach;
    uint32_t **list;
    size_t *cap, n;
} mark_ctx;

/* Target t fired at end e by a rule whose occurrences span at most r text
 * bases. */
static int mark_one(mark_ctx *c, int e, uint32_t t, uint32_t r)
{
    if (c->mark[e][t] == c->stamp) {
        if (c->reach && c->reach[e][t] < r) c->reach[e][t] = r;
        return 0;
    }
    c->mark[e][t] = c->stamp;
    if (c->reach) c->reach[e][t] = r;
    if (e == 1 && c->mark[0][t] == c->stamp) return 0;   /* listed at the end */
    if (gpuasm_grow((void **)c->list, c->cap, c->n + 1, sizeof(uint32_t)) < 0) return -1;
    (*c->list)[c->n++] = t;
    return 0;
}

/* What one call marks with, for the piece rule's windows. */
typedef struct {
    const gpuasm_efilter *f;
    int e;
    const uint8_t *tail;
    uint32_t L;
    uint32_t *gmark, gs;
    const uint32_t *gstart, *gtgt;
} piece_ctx;

/* The piece rows of the window of the tail ending at base j (its last
 * bases' key, qm: the q with entries, bit q - GPUASM_EF_AMIN): fire every
 * entry whose piece occurs there at a d inside its range.  0, or -1 when
 * out of memory. */
static int window_rows(mark_ctx *c, const piece_ctx *pc, uint32_t j, uint32_t key, uint32_t qm)
{
    const gpuasm_efilter *f = pc->f;
    const int e = pc->e;
    while (qm) {
        const uint32_t q = GPUASM_EF_AMIN + (uint32_t)__builtin_ctz(qm);
        qm &= qm - 1;
        const uint32_t row = q_base((int)q) + (key & (((uint32_t)1 << (2 * q)) - 1));
        const uint32_t x = j + 1 - q, d = pc->L - x;
        /* the entries with dlo <= d (a binary search in the row, sorted
         * by dlo), back to dlo = d - (the row's widest range): the only
         * ones whose range can hold d */
        const gpuasm_ef_piece *const row0 = f->pent[e] + f->pstart[e][row];
        uint32_t lo = 0, hi = f->pstart[e][row + 1] - f->pstart[e][row];
        while (lo < hi) {
            const uint32_t mid = (lo + hi) >> 1;
            if (row0[mid].dlo <= d) lo = mid + 1; else hi = mid;
        }
        const uint32_t dfloor = d > f->pmaxw[e][row] ? d - f->pmaxw[e][row] : 0;
        for (const gpuasm_ef_piece *pe = row0 + lo; pe-- != row0 && pe->dlo >= dfloor;) {
            const uint32_t g = (uint32_t)(pe - f->pent[e]);   /* an entry a group */
            if (d > pe->dhi || pc->gmark[g] == pc->gs) continue;
            /* the text bases its run's occurrences can span */
            const uint32_t r = pe->r, g0 = pc->gstart[g], g1 = pc->gstart[g + 1];
            if (g1 - g0 == 1 && c->mark[e][pe->t] == c->stamp && (!c->reach || c->reach[e][pe->t] >= r)) continue;
            const uint8_t *pb = piece_bases(f, e, pe);
            uint32_t y = q;
            while (y < pe->a && (pb[y] & pc->tail[x + y])) y++;
            if (y < pe->a) continue;
            pc->gmark[g] = pc->gs;
            for (uint32_t i = g0; i < g1; i++)
                if (mark_one(c, e, pc->gtgt[i], r) < 0) return -1;
        }
    }
    return 0;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define EF_SCAN_AVX2 1
/* The windows j in [j0, L) (j0 >= GPUASM_EF_Q - 1) of a tail of single
 * bases whose 8-base key has its qdmask bit for bucket ef_dbucket(L - 1 -
 * j), eight windows a step: the keys from the bases' 2-bit codes, their
 * qdmask words by one gather, the bits by a variable shift.  Writes j and
 * the key to out[2 i], out[2 i + 1] in increasing j, as the scalar loop
 * visits them; returns their number.  out holds 2 (L - j0) words, c2 L +
 * 32 bytes (scratch).  The scalar loop was ~14 instructions a window,
 * most of the filter's time (callgrind). */
__attribute__((target("avx2"))) static uint32_t scan_windows_avx2(const uint8_t *tail, uint32_t L, uint32_t j0,
                                                                  const uint32_t *qdmask, uint8_t *c2,
                                                                  uint32_t *out)
{
    /* nt16 single bases 1, 2, 4, 8 -> 0 .. 3 (ctz), a byte each; the
     * caller has no other codes in the tail.  c2 holds L + 32 bytes:
     * the lanes past L read zeros and are dropped. */
    const __m128i lut = _mm_setr_epi8(0, 0, 1, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0);
    const __m128i lo4 = _mm_set1_epi8(15);
    uint32_t i = 0;
    for (; i + 16 <= L; i += 16)
        _mm_storeu_si128((__m128i *)(c2 + i),
                         _mm_shuffle_epi8(lut, _mm_and_si128(_mm_loadu_si128((const __m128i *)(tail + i)), lo4)));
    for (; i < L; i++) c2[i] = (uint8_t)__builtin_ctz(tail[i] & 15u);
    memset(c2 + L, 0, 32);
    const __m256i one = _mm256_set1_epi32(1), last = _mm256_set1_epi32((int)EF_DBUCKET_LAST);
    const __m256i step = _mm256_setr_epi32(0, -1, -2, -3, -4, -5, -6, -7);
    uint32_t keys[8], n = 0;
    for (uint32_t j = j0; j < L; j += 8) {
        const uint8_t *src = c2 + (j - 7u);
        __m256i key = _mm256_setzero_si256();
#pragma GCC unroll 8
        for (int b = 0; b < 8; b++) {
            const __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(src + b)));
            key = _mm256_or_si256(_mm256_slli_epi32(key, 2), v);
        }
        const __m256i w = _mm256_i32gather_epi32((const int *)qdmask, key, 4);
        /* de = L - 1 - j - lane, wrapping past L: those lanes are dropped */
        const __m256i de = _mm256_add_epi32(_mm256_set1_epi32((int)(L - 1u - j)), step);
        const __m256i bk = _mm256_min_epu32(_mm256_srli_epi32(de, 2), last);
        const __m256i bit = _mm256_and_si256(_mm256_srlv_epi32(w, bk), one);
        uint32_t mask = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_slli_epi32(bit, 31)));
        if (L - j < 8) mask &= (1u << (L - j)) - 1u;
        if (!mask) continue;
        _mm256_storeu_si256((__m256i *)keys, key);
        for (; mask; mask &= mask - 1u) {
            const uint32_t l = (uint32_t)__builtin_ctz(mask);
            out[2 * n] = j + l;
            out[2 * n + 1] = keys[l];
            n++;
        }
    }
    return n;
}
#endif

/* The nt16 codes (low four bits) of tail[0 .. L): -1 when one matches
 * several bases (an IUPAC set: the strand cannot be filtered), else 0
 * with *nobase 1 when one is no single base (N's 0).  Eight bytes a step,
 * per byte x: x & (x - 1) is not 0 for a set of several bases, x - 1
 * borrows (bit 7 of (x | 0x80) - 1 clear) only for x = 0. */
static int tail_codes(const uint8_t *tail, uint32_t L, int *nobase)
{
    const uint64_t lo4 = 0x0f0f0f0f0f0f0f0fu, hi = 0x8080808080808080u, one = 0x0101010101010101u;
    uint64_t several = 0, zero = 0;
    uint32_t i = 0;
    for (; i + 8 <= L; i += 8) {
        uint64_t v;
        memcpy(&v, tail + i, 8);
        v &= lo4;
        const uint64_t dec = (v | hi) - one;
        several |= v & dec & lo4;
        zero |= ~dec & hi;
    }
    for (; i < L; i++) {
        const uint8_t x = tail[i] & 15u;
        several |= (uint64_t)(x & (x - 1u));
        zero |= (uint64_t)(x == 0);
    }
    *nobase = zero != 0;
    return several ? -1 : 0;
}

int64_t gpuasm_efilter_mark(const gpuasm_efilter *f, const uint8_t *text, uint64_t n, uint32_t ends,
                            uint32_t *mark[2], uint32_t stamp, uint32_t *reach[2], uint32_t **list,
                            size_t *cap, gpuasm_ef_ws *ws)
{
    mark_ctx c = { mark, stamp, reach, list, cap, 0 };
    /* the groups' own stamps: a group that fired has marked all of its
     * targets with its reach, so its entries need no second compare */
    const size_t ngr = (size_t)f->n_groups[0] + f->n_groups[1];
    if (ngr > ws->cap_gmark) {
        free(ws->gmark);
        ws->cap_gmark = 0;
        if (!(ws->gmark = calloc(ngr, sizeof(uint32_t)))) return -1;
        ws->cap_gmark = ngr;
        ws->gstamp = 0;
    }
    if (++ws->gstamp == 0) {
        memset(ws->gmark, 0, ws->cap_gmark * sizeof(uint32_t));
        ws->gstamp = 1;
    }
    for (int e = 0; e < 2; e++) {
        if (!(ends >> e & 1u)) continue;
        const uint32_t L = (uint32_t)(n < f->dmax[e] ? n : f->dmax[e]);
        if (!L) continue;
        if (gpuasm_grow((void **)&ws->tail, &ws->cap_tail, L, 1) < 0) return -1;
        /* the text as the rules see it: its last L bases, or its first L
         * reversed (the text start) */
        uint8_t *tail = ws->tail;
        if (e) {   /* reversed eight bytes at a time */
            uint32_t i = 0;
            for (; i + 8 <= L; i += 8) {
                uint64_t v;
                memcpy(&v, text + L - 8 - i, 8);
                v = __builtin_bswap64(v);
                memcpy(tail + i, &v, 8);
            }
            for (; i < L; i++) tail[i] = text[L - 1 - i];
        } else {
            memcpy(tail, text + n - L, L);
        }
        /* nt16 codes (low four bits) that match several bases (IUPAC sets:
         * the strand cannot be filtered) and those that are no single base
         * (those and N's 0): ORed over the tail without a branch a base */
        int nobase;
        if (tail_codes(tail, L, &nobase) < 0) return -2;
        /* exact rule: the text's last p bases against the patterns' first p */
        uint32_t key = 0;
        for (uint32_t p = 1; p <= L && p <= GPUASM_EF_Q; p++) {
            const int b = gpuasm_base2[tail[L - p] & 15];
            if (b < 0) break;   /* N: no longer suffix matches */
            key |= (uint32_t)b << (2 * (p - 1));
            if (!(f->x_used[e] >> p & 1)) continue;
            const uint32_t row = q_base((int)p) + key;
            if (!(f->xbits[e][row >> 6] >> (row & 63) & 1)) continue;
            for (uint32_t i = f->xstart[e][row]; i < f->xstart[e][row + 1]; i++)
                if (mark_one(&c, e, f->xids[e][i], p) < 0) return -1;
        }
        /* piece rule: every window of q single bases, d bases before the end */
        if (!f->p_used[e]) continue;
        const piece_ctx pc = { f, e, tail, L, ws->gmark + (e ? f->n_groups[0] : 0), ws->gstamp,
                               f->gstart[e], f->gtgt[e] };
        const uint8_t *const qmask = f->qmask[e];
        const uint32_t *const qdmask = f->qdmask[e];   /* most windows stop at its bit */
        const uint32_t kmask = ((uint32_t)1 << (2 * GPUASM_EF_Q)) - 1;
        key = 0;
        if (!nobase) {
            /* single bases only (most reads): a base's 2 bits are its
             * code's trailing zeros, the window's q need no run length past
             * GPUASM_EF_Q - 1 bases, and most windows are a load and a
             * test (the general loop below took ~27 instructions a window,
             * callgrind) */
            uint32_t j = 0;
            for (; j < L && j + 1 < GPUASM_EF_Q; j++) {
                key = (key << 2) | (uint32_t)__builtin_ctz(tail[j] & 15u);
                if (j + 1 < GPUASM_EF_AMIN || !(qdmask[key & kmask] >> ef_dbucket(L - 1 - j) & 1)) continue;
                const uint32_t qm = qmask[key & kmask] & (((uint32_t)2 << (j + 1 - GPUASM_EF_AMIN)) - 1);
                if (qm && window_rows(&c, &pc, j, key, qm) < 0) return -1;
            }
#ifdef EF_SCAN_AVX2
            if (ws->simd >= GPUASM_SIMD_AVX2 && j < L) {
                if (gpuasm_grow((void **)&ws->wj, &ws->cap_wj, 2 * (size_t)(L - j), sizeof(uint32_t)) < 0 ||
                    gpuasm_grow((void **)&ws->c2, &ws->cap_c2, (size_t)L + 32, 1) < 0)
                    return -1;
                const uint32_t nw = scan_windows_avx2(tail, L, j, qdmask, ws->c2, ws->wj);
                for (uint32_t i = 0; i < nw; i++) {
                    const uint32_t wk = ws->wj[2 * i + 1], qm = qmask[wk];
                    if (qm && window_rows(&c, &pc, ws->wj[2 * i], wk, qm) < 0) return -1;
                }
                continue;
            }
#endif
            for (; j < L; j++) {
                key = (key << 2) | (uint32_t)__builtin_ctz(tail[j] & 15u);
                if (!(qdmask[key & kmask] >> ef_dbucket(L - 1 - j) & 1)) continue;
                const uint32_t qm = qmask[key & kmask];
                if (qm && window_rows(&c, &pc, j, key, qm) < 0) return -1;
            }
            continue;
        }
        uint32_t run = 0;
        for (uint32_t j = 0; j < L; j++) {
            const int b = gpuasm_base2[tail[j] & 15];
            if (b < 0) {
                run = 0;
                continue;
            }
            key = (key << 2) | (uint32_t)b;   /* the top bits fall off: masked below */
            if (++run < GPUASM_EF_AMIN || !(qdmask[key & kmask] >> ef_dbucket(L - 1 - j) & 1)) continue;
            /* the q with entries among q <= run (bits of bases before an N
             * are in key, not in its last run bases): most windows stop
             * here, one load where a test per q cost ~90 instructions a
             * window (callgrind) */
            uint32_t qm = qmask[key & kmask];
            if (run < GPUASM_EF_Q) qm &= ((uint32_t)2 << (run - GPUASM_EF_AMIN)) - 1;
            if (qm && window_rows(&c, &pc, j, key, qm) < 0) return -1;
        }
    }
    return (int64_t)c.n;
}
