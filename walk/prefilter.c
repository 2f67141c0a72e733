/* SPDX-License-Identifier: MIT */
/* prefilter.c -- the pigeonhole filter of target patterns (see prefilter.h;
 * the targets' window index is tindex.c). */
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

typedef struct { uint32_t key, t, w, a, b; } qf_pair;

static int cmp_pair(const void *a, const void *b)
{
    const qf_pair *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->w < y->w ? -1 : x->w > y->w;
}

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

int gpuasm_qfilter_build(gpuasm_qfilter *f, const gpuasm_seqset *targets,
                         const gpuasm_search_opt *opt)
{
    memset(f, 0, sizeof *f);
    const uint32_t nt = targets->n;
    qf_pair *pairs = NULL;
    size_t n_pairs = 0, cap = 0;
    f->n_targets = nt;
    f->always = calloc(nt ? nt : 1, 1);
    f->present = calloc(QF_KEYS / 64 + 1, sizeof(uint64_t));
    f->start = calloc((size_t)QF_KEYS + 1, sizeof(uint32_t));
    if (!f->always || !f->present || !f->start) goto oom;
    for (uint32_t t = 0; t < nt; t++) {
        const uint8_t *p = targets->code + targets->off[t];
        const uint64_t m = targets->off[t + 1] - targets->off[t];
        const int32_t k = gpuasm_pair_k(opt, m);
        if (!gpuasm_pair_searched(m, k, 1)) continue;   /* never a pattern */
        const uint64_t pieces = (uint64_t)k + 1;
        /* Patterns too short to cut, or so long (a genome) that they are a
         * pattern only against longer reads, which their pieces would not
         * shorten much: not filtered (sorting a genome's pieces was a
         * tenth of a 20 Mb run's time). */
        if (m / pieces < GPUASM_QF_QMIN || m > GPUASM_QF_MAX_M) {
            f->always[t] = 1;
            continue;
        }
        const int q = m / pieces < GPUASM_QF_Q ? (int)(m / pieces) : GPUASM_QF_Q;
        size_t first = n_pairs;
        for (uint64_t i = 0; i < pieces && !f->always[t]; i++) {
            /* Piece i: [i m / pieces, (i+1) m / pieces), at least Q bases. */
            const uint64_t a = i * m / pieces, b = (i + 1) * m / pieces;
            int64_t key = -1;
            uint64_t x = a;
            for (; x + (uint64_t)q <= b && key < 0; x++) key = gpuasm_qkey(p + x, q);
            if (key < 0) {
                f->always[t] = 1;   /* no clean window: this target is not filtered */
                n_pairs = first;
                break;
            }
            if (n_pairs == cap) {
                size_t c = cap ? 2 * cap : 1024;
                qf_pair *q = realloc(pairs, c * sizeof *q);
                if (!q) goto oom;
                pairs = q;
                cap = c;
            }
            pairs[n_pairs].key = q_base(q) + (uint32_t)key;
            f->q_used |= 1u << q;
            pairs[n_pairs].t = t;
            pairs[n_pairs].w = (uint32_t)(x - 1);   /* the loop stepped past the window */
            pairs[n_pairs].a = (uint32_t)a;
            pairs[n_pairs].b = (uint32_t)b;
            n_pairs++;
        }
        if (!f->always[t]) f->n_filtered++;
    }
    /* Compressed rows: (target, window start) by key, each once. */
    if (n_pairs) qsort(pairs, n_pairs, sizeof *pairs, cmp_pair);
    size_t u = 0;
    for (size_t i = 0; i < n_pairs; i++)
        if (!u || cmp_pair(&pairs[i], &pairs[u - 1]) != 0) pairs[u++] = pairs[i];
    f->ids = malloc((u ? u : 1) * sizeof(uint32_t));
    f->woff = malloc((u ? u : 1) * sizeof(uint32_t));
    f->pa = malloc((u ? u : 1) * sizeof(uint32_t));
    f->pb = malloc((u ? u : 1) * sizeof(uint32_t));
    if (!f->ids || !f->woff || !f->pa || !f->pb) goto oom;
    for (size_t i = 0; i < u; i++) {
        f->start[pairs[i].key + 1]++;
        f->present[pairs[i].key / 64] |= (uint64_t)1 << (pairs[i].key % 64);
        f->ids[i] = pairs[i].t;
        f->woff[i] = pairs[i].w;
        f->pa[i] = pairs[i].a;
        f->pb[i] = pairs[i].b;
    }
    f->targets = targets;
    for (uint32_t x = 0; x < QF_KEYS; x++) f->start[x + 1] += f->start[x];
    free(pairs);
    return 0;
oom:
    free(pairs);
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
