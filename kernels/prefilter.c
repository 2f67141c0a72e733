/* prefilter.c -- the pigeonhole filter of target patterns (see prefilter.h). */
#include <stdlib.h>
#include <string.h>

#include "prefilter.h"

#define N_KEYS ((uint32_t)1 << (2 * GPUASM_QF_Q))
#define KEY_MASK (N_KEYS - 1)

/* The target filter's key space: keys of q bases from q_base(q) on. */
static uint32_t q_base(int q)
{
    uint32_t b = 0;
    for (int x = GPUASM_QF_QMIN; x < q; x++) b += (uint32_t)1 << (2 * x);
    return b;
}
#define QF_KEYS (q_base(GPUASM_QF_Q) + N_KEYS)

/* 2-bit base of a single-base nt16 code (A=1, C=2, G=4, T=8), -1 otherwise. */
static const int8_t base2[16] = { -1, 0, 1, -1, 2, -1, -1, -1, 3, -1, -1, -1, -1, -1, -1, -1 };

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

/* The key of a q-base window of single bases starting at s[0], or -1 when
 * the window holds another code. */
static int64_t window_key_q(const uint8_t *s, int q)
{
    uint32_t key = 0;
    for (int i = 0; i < q; i++) {
        const int b = base2[s[i] & 15];
        if (b < 0) return -1;
        key = (key << 2) | (uint32_t)b;
    }
    return key;
}

static int64_t window_key(const uint8_t *s) { return window_key_q(s, GPUASM_QF_Q); }

/* The GPUASM_QF_EXT bases after the window starting at buffer position g,
 * 4 bits each, the first in the top nibble: 0..3 for a single base, 4 for
 * any other code or past the buffer's end (which no read base equals).
 * It may run into the next target: a window whose extension crosses a
 * target's end only ever gains false candidates, which the whole-piece
 * check drops (a true piece occurrence lies inside its target). */
static uint32_t ext_key(const uint8_t *code, uint64_t total, uint64_t g)
{
    uint32_t key = 0;
    for (uint64_t i = g + GPUASM_QF_Q; i < g + GPUASM_QF_Q + GPUASM_QF_EXT; i++) {
        const int b = i < total ? base2[code[i] & 15] : -1;
        key = key << 4 | (uint32_t)(b < 0 ? 4 : b);
    }
    return key;
}

/* Ascending sort of v[0 .. n) (quicksort, median of three, insertion sort
 * for short runs; the shorter side recursed, so the depth is O(log n)).
 * qsort's comparison call per step was most of the index's build time. */
static void sort_u64(uint64_t *v, size_t n)
{
    while (n > 24) {
        uint64_t a = v[0], b = v[n / 2], c = v[n - 1];
        const uint64_t piv = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        size_t i = 0, j = n - 1;
        for (;;) {
            while (v[i] < piv) i++;
            while (v[j] > piv) j--;
            if (i >= j) break;
            const uint64_t t = v[i];
            v[i++] = v[j];
            v[j--] = t;
        }
        /* [0, j] <= piv <= [j + 1, n) */
        if (j + 1 < n - j - 1) {
            sort_u64(v, j + 1);
            v += j + 1;
            n -= j + 1;
        } else {
            sort_u64(v + j + 1, n - j - 1);
            n = j + 1;
        }
    }
    for (size_t i = 1; i < n; i++) {
        const uint64_t t = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > t; j--) v[j] = v[j - 1];
        v[j] = t;
    }
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
            for (; x + (uint64_t)q <= b && key < 0; x++) key = window_key_q(p + x, q);
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
        if (base2[text[j] & 15u] < 0 && (text[j] & 15u) != 0) return 1;   /* matches several windows */
    uint32_t key = 0;
    unsigned run = 0;   /* single bases in a row ending at j */
    for (uint64_t j = 0; j < n; j++) {
        const int b = base2[text[j] & 15u];
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

/* ---- the targets' window index ------------------------------------------- */

void gpuasm_tindex_free(gpuasm_tindex *x)
{
    free(x->start);
    free(x->pos);
    free(x->amb);
    memset(x, 0, sizeof *x);
}

int gpuasm_tindex_build(gpuasm_tindex *x, const gpuasm_seqset *targets, uint64_t max_pos)
{
    memset(x, 0, sizeof *x);
    uint32_t *ek = NULL;   /* pass 2: each window's extension key, in row order (4 bytes a window) */
    const uint64_t total = targets->off[targets->n];
    if (total >= UINT32_MAX) return 1;
    /* Pass 1: count windows per key and ambiguous runs. */
    if (!(x->start = calloc((size_t)N_KEYS + 1, sizeof(uint32_t)))) goto oom;
    size_t amb_cap = 0;
    uint64_t n_pos = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t t = 0; t < targets->n; t++) {
            const uint8_t *s = targets->code;
            uint32_t key = 0;
            unsigned run = 0;
            for (uint64_t i = targets->off[t]; i < targets->off[t + 1]; i++) {
                const int b = base2[s[i] & 15];
                if (b < 0) {
                    run = 0;
                    if (pass) continue;
                    /* ambiguous: extend the last run or start one */
                    if (x->n_amb && x->amb[2 * x->n_amb - 1] + 1 == i && i > targets->off[t]) {
                        x->amb[2 * x->n_amb - 1] = i;
                    } else {
                        if (2 * x->n_amb + 2 > amb_cap) {
                            size_t c = amb_cap ? 2 * amb_cap : 64;
                            uint64_t *q = realloc(x->amb, c * sizeof(uint64_t));
                            if (!q) goto oom;
                            x->amb = q;
                            amb_cap = c;
                        }
                        x->amb[2 * x->n_amb] = x->amb[2 * x->n_amb + 1] = i;
                        x->n_amb++;
                    }
                    continue;
                }
                key = ((key << 2) | (uint32_t)b) & KEY_MASK;
                if (++run < GPUASM_QF_Q) continue;
                const uint64_t w = i + 1 - GPUASM_QF_Q;   /* the window's first base */
                if (!pass) {
                    x->start[key + 1]++;
                    n_pos++;
                } else {
                    ek[x->start[key]] = ext_key(s, total, w);
                    x->pos[x->start[key]++] = (uint32_t)w;
                }
            }
        }
        if (!pass) {
            if (n_pos > max_pos) {
                gpuasm_tindex_free(x);
                return 1;
            }
            for (uint32_t k = 0; k < N_KEYS; k++) x->start[k + 1] += x->start[k];
            if (!(x->pos = malloc((n_pos ? n_pos : 1) * sizeof(uint32_t)))) goto oom;
            if (!(ek = malloc((n_pos ? n_pos : 1) * sizeof(uint32_t)))) goto oom;
        }
    }
    /* Pass 2 advanced start[x] to the end of row x: shift back. */
    for (uint32_t k = N_KEYS; k > 0; k--) x->start[k] = x->start[k - 1];
    x->start[0] = 0;
    x->n_pos = n_pos;
    x->total = total;
    /* Each row sorted by the next GPUASM_QF_EXT bases (ext_key), so that a
     * piece longer than Q is looked up by its first Q + E bases: a binary
     * search inside the row instead of a walk over every window.  The keys
     * were taken in pass 2, in text order (sequential reads). */
    uint32_t widest = 0;
    for (uint32_t k = 0; k < N_KEYS; k++)
        if (x->start[k + 1] - x->start[k] > widest) widest = x->start[k + 1] - x->start[k];
    uint64_t *tmp = malloc((widest ? widest : 1) * sizeof(uint64_t));
    if (!tmp) goto oom;
    for (uint32_t k = 0; k < N_KEYS; k++) {
        const uint32_t lo = x->start[k], n = x->start[k + 1] - lo;
        if (n < 2) continue;
        for (uint32_t i = 0; i < n; i++) tmp[i] = (uint64_t)ek[lo + i] << 32 | x->pos[lo + i];
        sort_u64(tmp, n);
        for (uint32_t i = 0; i < n; i++) x->pos[lo + i] = (uint32_t)tmp[i];
    }
    free(tmp);
    free(ek);
    return 0;
oom:
    free(ek);
    gpuasm_tindex_free(x);
    return -1;
}

/* Target of a code-buffer position (off[] ascending). */
static uint32_t target_of(const gpuasm_seqset *targets, uint64_t g)
{
    uint32_t lo = 0, hi = targets->n;   /* off[lo] <= g < off[hi] */
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (targets->off[mid] <= g) lo = mid; else hi = mid;
    }
    return lo;
}

/* The first row entry in [lo, hi) whose extension key is >= key (the row
 * is sorted by it). */
static uint32_t ext_bound(const gpuasm_tindex *x, const uint8_t *code, uint32_t lo, uint32_t hi,
                          uint64_t key)
{
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (ext_key(code, x->total, x->pos[mid]) < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static int cmp_range(const void *a, const void *b)
{
    const gpuasm_end_range *x = a, *y = b;
    if (x->target != y->target) return x->target < y->target ? -1 : 1;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int push_range(gpuasm_end_range **out, size_t *cap, size_t n, uint32_t t, int64_t lo, int64_t hi,
                      uint64_t len)
{
    if (hi < 0 || lo >= (int64_t)len) return 0;
    if (n == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        gpuasm_end_range *q = realloc(*out, c * sizeof *q);
        if (!q) return -1;
        *out = q;
        *cap = c;
    }
    (*out)[n].target = t;
    (*out)[n].lo = lo < 0 ? 0 : (uint64_t)lo;
    (*out)[n].hi = hi >= (int64_t)len ? len - 1 : (uint64_t)hi;
    return 1;
}

int64_t gpuasm_tindex_ranges(const gpuasm_tindex *x, const gpuasm_seqset *targets, const uint8_t *p,
                             uint32_t m, int32_t k, int hamming, const uint32_t *in_group,
                             uint32_t stamp, gpuasm_end_range **out, size_t *cap)
{
    const uint64_t pieces = (uint64_t)k + 1;
    if (k < 0 || m / pieces < GPUASM_QF_Q) return -2;
    for (uint32_t i = 0; i < m; i++)
        if (base2[p[i] & 15] < 0 && (p[i] & 15) != 0) return -2;   /* a wildcard read */
    const int64_t slack = hamming ? 0 : k;
    size_t n = 0;
    for (uint64_t i = 0; i < pieces; i++) {
        const uint64_t a = i * m / pieces, b = (i + 1) * m / pieces;
        int64_t key = -1;
        uint64_t w = a;
        for (; w + GPUASM_QF_Q <= b && key < 0; w++) key = window_key(p + w);
        if (key < 0) continue;   /* N in every window: this piece is never intact */
        w--;                     /* the window found starts at w */
        /* The piece's single bases after the window (at most EXT): only
         * the windows of the row whose extension starts with them. */
        uint32_t ext = 0, e = 0;
        for (; e < GPUASM_QF_EXT && w + GPUASM_QF_Q + e < b; e++) {
            const int c = base2[p[w + GPUASM_QF_Q + e] & 15];
            if (c < 0) break;
            ext = ext << 4 | (uint32_t)c;
        }
        const uint32_t shift = 4 * (GPUASM_QF_EXT - e);
        const uint64_t elo = (uint64_t)ext << shift, ehi = ((uint64_t)ext + 1) << shift;
        uint32_t qa = x->start[key], qb = x->start[key + 1];
        if (e) {
            qa = ext_bound(x, targets->code, qa, qb, elo);
            qb = ext_bound(x, targets->code, qa, qb, ehi);
        }
        for (uint32_t q = qa; q < qb; q++) {
            const uint64_t g = x->pos[q];
            const uint32_t t = target_of(targets, g);
            if (in_group[t] != stamp) continue;
            /* The whole piece must occur (nt16 rule), not just its window:
             * a cheap check that drops most chance window hits. */
            if (g - targets->off[t] < w - a || g + (b - w) > targets->off[t + 1]) continue;
            const uint8_t *tp = targets->code + g - (w - a);
            uint64_t y = a;
            while (y < b && (p[y] & tp[y - a])) y++;
            if (y < b) continue;
            /* The pattern's end when P[w ..] is at text position g. */
            const int64_t c = (int64_t)(g - targets->off[t]) + (int64_t)(m - w) - 1;
            const int r = push_range(out, cap, n, t, c - slack, c + slack,
                                     targets->off[t + 1] - targets->off[t]);
            if (r < 0) return -1;
            n += (size_t)r;
        }
    }
    /* Ambiguity zones: an alignment whose intact piece lies over an
     * ambiguous run [r0, r1] ends within m + slack of it. */
    const int64_t reach = (int64_t)m + slack + GPUASM_QF_Q;
    for (size_t z = 0; z < x->n_amb; z++) {
        const uint32_t t = target_of(targets, x->amb[2 * z]);
        if (in_group[t] != stamp) continue;
        const int64_t r0 = (int64_t)(x->amb[2 * z] - targets->off[t]);
        const int64_t r1 = (int64_t)(x->amb[2 * z + 1] - targets->off[t]);
        const int r = push_range(out, cap, n, t, r0 - reach, r1 + reach,
                                 targets->off[t + 1] - targets->off[t]);
        if (r < 0) return -1;
        n += (size_t)r;
    }
    if (n > 1) qsort(*out, n, sizeof **out, cmp_range);
    /* Merge overlapping and adjacent ranges of a target. */
    size_t u = 0;
    for (size_t i = 0; i < n; i++) {
        gpuasm_end_range *o = *out;
        if (u && o[u - 1].target == o[i].target && o[i].lo <= o[u - 1].hi + 1) {
            if (o[i].hi > o[u - 1].hi) o[u - 1].hi = o[i].hi;
        } else {
            o[u++] = o[i];
        }
    }
    return (int64_t)u;
}
