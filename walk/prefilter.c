/* SPDX-License-Identifier: MIT */
/* prefilter.c -- the pigeonhole filter of target patterns (see prefilter.h;
 * the targets' window index is tindex.c). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "walk/prefilter.h"
#include "walk/prefilter_int.h"
#include "walk/qkey.h"

/* The target filter's key space: keys of q bases from q_base(q) on. */
static uint32_t q_base(int q) { return gpuasm_qkey_base(GPUASM_QF_QMIN, q); }
#define QF_KEYS (q_base(GPUASM_QF_Q) + N_KEYS)

void gpuasm_qfilter_free(gpuasm_qfilter *f)
{
    free(f->always);
    free(f->present);
    free(f->start);
    free(f->ids);
    free(f->woff);
    free(f->pa);
    free(f->pb);
    memset(f, 0, sizeof *f);
}

/* Target t's pieces (k + 1 of them) as pattern: their keys and window
 * starts into key[] and w[] (pieces entries each; the caller's), the
 * piece count returned (*qp: their q); 0 when t is not filtered (never a pattern, too
 * short to cut or genome-long: *always says which), so that both passes
 * of gpuasm_qfilter_build see the same pieces. */
static uint64_t target_pieces(const gpuasm_seqset *targets, const gpuasm_search_opt *opt, uint32_t t,
                              uint32_t *key, uint32_t *w, uint8_t *always, int *qp)
{
    const uint8_t *p = targets->code + targets->off[t];
    const uint64_t m = targets->off[t + 1] - targets->off[t];
    const int32_t k = gpuasm_pair_k(opt, m);
    *always = 0;
    if (!gpuasm_pair_searched(m, k, 1)) return 0;   /* never a pattern */
    const uint64_t pieces = (uint64_t)k + 1;
    /* Patterns too short to cut, or so long (a genome) that they are a
     * pattern only against longer reads, which their pieces would not
     * shorten much: not filtered (sorting a genome's pieces was a
     * tenth of a 20 Mb run's time). */
    if (m / pieces < GPUASM_QF_QMIN || m > GPUASM_QF_MAX_M) {
        *always = 1;
        return 0;
    }
    /* Nor where chance alone marks it against any text it is a pattern
     * of (n >= m bases): pieces x m x 4^-L >= 1 expected chance piece
     * hits (L = m / pieces bases a piece).  A 30 kb genome at e = 0.1
     * expects ~90 (pieces of 10 bases): it would be a candidate anyway,
     * and its 3,000 pieces made the filter as large and as slow to
     * build as the targets' index for a database of such genomes
     * (issue #28); adapters and primers expect ~0.001-0.01. */
    if ((double)pieces * (double)m * pow(4.0, -(double)(m / pieces)) >= 1.0) {
        *always = 1;
        return 0;
    }
    const int q = m / pieces < GPUASM_QF_Q ? (int)(m / pieces) : GPUASM_QF_Q;
    *qp = q;
    for (uint64_t i = 0; i < pieces; i++) {
        /* Piece i: [i m / pieces, (i+1) m / pieces), at least Q bases. */
        const uint64_t a = i * m / pieces, b = (i + 1) * m / pieces;
        int64_t kq = -1;
        uint64_t x = a;
        for (; x + (uint64_t)q <= b && kq < 0; x++) kq = gpuasm_qkey(p + x, q);
        if (kq < 0) {
            *always = 1;   /* no clean window: this target is not filtered */
            return 0;
        }
        key[i] = q_base(q) + (uint32_t)kq;
        w[i] = (uint32_t)(x - 1);   /* the loop stepped past the window */
    }
    return pieces;
}

int gpuasm_qfilter_build(gpuasm_qfilter *f, const gpuasm_seqset *targets,
                         const gpuasm_search_opt *opt)
{
    /* Two passes over the targets' pieces: count per key, then place.
     * Pieces come in (target, window) order, so placing them in that
     * order gives every row sorted by (target, window) with no sort (a
     * qsort of 20 M pieces of 6,670 genomes of 30 kb was as long as
     * the targets' index build: issue #28). */
    memset(f, 0, sizeof *f);
    const uint32_t nt = targets->n;
    uint32_t *key = NULL, *w = NULL;
    uint64_t most = 1;   /* pieces of one target at most */
    for (uint32_t t = 0; t < nt; t++) {
        const uint64_t m = targets->off[t + 1] - targets->off[t];
        const int32_t k = gpuasm_pair_k(opt, m);
        if (k >= 0 && m <= GPUASM_QF_MAX_M && (uint64_t)k + 1 > most) most = (uint64_t)k + 1;
    }
    f->n_targets = nt;
    f->always = calloc(nt ? nt : 1, 1);
    f->present = calloc(QF_KEYS / 64 + 1, sizeof(uint64_t));
    f->start = calloc((size_t)QF_KEYS + 1, sizeof(uint32_t));
    key = malloc(most * sizeof *key);
    w = malloc(most * sizeof *w);
    if (!f->always || !f->present || !f->start || !key || !w) goto oom;
    uint64_t n = 0;
    for (uint32_t t = 0; t < nt; t++) {
        int q = 0;
        const uint64_t np = target_pieces(targets, opt, t, key, w, &f->always[t], &q);
        for (uint64_t i = 0; i < np; i++) f->start[key[i] + 1]++;
        n += np;
        if (np) {
            f->n_filtered++;
            f->q_used |= 1u << q;
        }
    }
    if (n >= UINT32_MAX) goto oom;
    f->ids = malloc((n ? n : 1) * sizeof(uint32_t));
    f->woff = malloc((n ? n : 1) * sizeof(uint32_t));
    f->pa = malloc((n ? n : 1) * sizeof(uint32_t));
    f->pb = malloc((n ? n : 1) * sizeof(uint32_t));
    if (!f->ids || !f->woff || !f->pa || !f->pb) goto oom;
    for (uint32_t x = 0; x < QF_KEYS; x++) f->start[x + 1] += f->start[x];
    uint32_t *next = malloc((size_t)QF_KEYS * sizeof *next);
    if (!next) goto oom;
    memcpy(next, f->start, (size_t)QF_KEYS * sizeof *next);
    for (uint32_t t = 0; t < nt; t++) {
        uint8_t always;
        int q;
        const uint64_t np = target_pieces(targets, opt, t, key, w, &always, &q);
        const uint64_t m = targets->off[t + 1] - targets->off[t];
        for (uint64_t i = 0; i < np; i++) {
            const uint32_t at = next[key[i]]++;
            f->ids[at] = t;
            f->woff[at] = w[i];
            f->pa[at] = (uint32_t)(i * m / np);
            f->pb[at] = (uint32_t)((i + 1) * m / np);
            f->present[key[i] / 64] |= (uint64_t)1 << (key[i] % 64);
        }
    }
    free(next);
    free(key);
    free(w);
    f->targets = targets;
    return 0;
oom:
    free(key);
    free(w);
    gpuasm_qfilter_free(f);
    return -1;
}

/* Does entry i's whole piece occur in text[0 .. n) where its window starts
 * at text position ws?  (The window itself is known to.) */
static int piece_occurs(const gpuasm_qfilter *f, uint32_t i, const uint8_t *text, uint64_t n, int64_t ws)
{
    const int64_t s = ws - (int64_t)(f->woff[i] - f->pa[i]);
    const uint32_t len = f->pb[i] - f->pa[i];
    if (s < 0 || (uint64_t)s + len > n) return 0;
    const uint8_t *p = f->targets->code + f->targets->off[f->ids[i]] + f->pa[i];
    for (uint32_t y = 0; y < len; y++)
        if (!(p[y] & text[s + y])) return 0;
    return 1;
}

/* Walk the windows of text[0 .. n) that some target has, calling
 * visit(ctx, entry, window start) for every entry whose whole piece occurs
 * there.  1 when the text holds an ambiguity code (nothing visited); 0, or
 * visit's negative return. */
static int walk_windows(const gpuasm_qfilter *f, const uint8_t *text, uint64_t n,
                        int (*visit)(void *ctx, uint32_t i, int64_t ws), void *ctx)
{
    uint32_t qbase[GPUASM_QF_Q - GPUASM_QF_QMIN + 1];
    for (int q = GPUASM_QF_QMIN; q <= GPUASM_QF_Q; q++) qbase[q - GPUASM_QF_QMIN] = q_base(q);
    for (uint64_t j = 0; j < n; j++)
        if (gpuasm_base2[text[j] & 15u] < 0 && (text[j] & 15u) != 0) return 1;   /* matches several windows */
    uint32_t key = 0;
    unsigned run = 0;   /* single bases in a row ending at j */
    for (uint64_t j = 0; j < n; j++) {
        const int b = gpuasm_base2[text[j] & 15u];
        if (b < 0) {   /* code 0: N in a read matches nothing */
            run = 0;
            continue;
        }
        key = ((key << 2) | (uint32_t)b) & KEY_MASK;
        if (++run < GPUASM_QF_QMIN) continue;
        /* The windows of 6, 7 and 8 bases ending at j (most positions
         * stop at these bit tests). */
        for (int q = GPUASM_QF_QMIN; q <= GPUASM_QF_Q && (unsigned)q <= run; q++) {
            if (!(f->q_used >> q & 1)) continue;
            const uint32_t x = qbase[q - GPUASM_QF_QMIN] + (key & (((uint32_t)1 << (2 * q)) - 1));
            if (__builtin_expect(!(f->present[x / 64] >> (x % 64) & 1), 1)) continue;
            const int64_t ws = (int64_t)j + 1 - q;
            for (uint32_t i = f->start[x]; i < f->start[x + 1]; i++) {
                if (!piece_occurs(f, i, text, n, ws)) continue;
                const int r = visit(ctx, i, ws);
                if (r < 0) return r;
            }
        }
    }
    return 0;
}

typedef struct {
    const gpuasm_qfilter *f;
    uint32_t *mark, stamp;
    uint32_t **list;      /* or NULL */
    size_t *cap, n;
} mark_ctx;

static int visit_mark(void *ctx, uint32_t i, int64_t ws)
{
    (void)ws;
    mark_ctx *c = ctx;
    const uint32_t t = c->f->ids[i];
    if (c->mark[t] == c->stamp) return 0;
    c->mark[t] = c->stamp;
    if (!c->list) return 0;
    if (c->n == *c->cap) {
        const size_t cap = *c->cap ? 2 * *c->cap : 256;
        uint32_t *q = realloc(*c->list, cap * sizeof *q);
        if (!q) return -1;
        *c->list = q;
        *c->cap = cap;
    }
    (*c->list)[c->n++] = t;
    return 0;
}

int gpuasm_qfilter_mark(const gpuasm_qfilter *f, const uint8_t *text, uint64_t n, uint32_t *mark,
                        uint32_t stamp)
{
    mark_ctx c = { f, mark, stamp, NULL, NULL, 0 };
    return walk_windows(f, text, n, visit_mark, &c);
}

int64_t gpuasm_qfilter_mark_list(const gpuasm_qfilter *f, const uint8_t *text, uint64_t n, uint32_t *mark,
                                 uint32_t stamp, uint32_t **list, size_t *cap)
{
    mark_ctx c = { f, mark, stamp, list, cap, 0 };
    const int r = walk_windows(f, text, n, visit_mark, &c);
    if (r != 0) return r < 0 ? -1 : -2;
    return (int64_t)c.n;
}

static int cmp_seed(const void *a, const void *b)
{
    const gpuasm_seed *x = a, *y = b;
    if (x->target != y->target) return x->target < y->target ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

typedef struct {
    const gpuasm_qfilter *f;
    gpuasm_seed **out;
    size_t *cap, n;
} seed_ctx;

static int visit_seed(void *ctx, uint32_t i, int64_t ws)
{
    seed_ctx *c = ctx;
    if (c->n == *c->cap) {
        size_t cap = *c->cap ? 2 * *c->cap : 256;
        gpuasm_seed *q = realloc(*c->out, cap * sizeof *q);
        if (!q) return -1;
        *c->out = q;
        *c->cap = cap;
    }
    (*c->out)[c->n].target = c->f->ids[i];
    (*c->out)[c->n].start = ws - (int64_t)c->f->woff[i];   /* the target's first base */
    c->n++;
    return 0;
}

int64_t gpuasm_qfilter_seeds(const gpuasm_qfilter *f, const uint8_t *text, uint64_t n,
                             gpuasm_seed **out, size_t *cap)
{
    seed_ctx c = { f, out, cap, 0 };
    const int r = walk_windows(f, text, n, visit_seed, &c);
    if (r != 0) return r < 0 ? -1 : -2;
    if (c.n > 1) qsort(*out, c.n, sizeof **out, cmp_seed);
    size_t u = 0;
    for (size_t i = 0; i < c.n; i++)
        if (!u || cmp_seed(&(*out)[i], &(*out)[u - 1]) != 0) (*out)[u++] = (*out)[i];
    return (int64_t)u;
}
