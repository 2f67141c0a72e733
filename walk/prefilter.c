/* prefilter.c -- the pigeonhole filter of target patterns (see prefilter.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "walk/prefilter.h"
#include "walk/qkey.h"

#define N_KEYS ((uint32_t)1 << (2 * GPUASM_QF_Q))
#define KEY_MASK (N_KEYS - 1)

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

static int64_t window_key(const uint8_t *s) { return gpuasm_qkey(s, GPUASM_QF_Q); }

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
        const int b = i < total ? gpuasm_base2[code[i] & 15] : -1;
        key = key << 4 | (uint32_t)(b < 0 ? 4 : b);
    }
    return key;
}

/* NAME(v, n): ascending sort of v[0 .. n) of TYPE by KEY(&v[i]), a
 * uint64_t (quicksort, median of three, insertion sort for short runs; the
 * shorter side recursed, so the depth is O(log n)).  qsort's comparison
 * call per step was most of the index's build time, and a tenth of the
 * planning's at e = 0.1 against 20 Mb. */
#define DEFINE_SORT(NAME, TYPE, KEY)                                                          \
    static void NAME(TYPE *v, size_t n)                                                       \
    {                                                                                         \
        while (n > 24) {                                                                      \
            const uint64_t a = KEY(&v[0]), b = KEY(&v[n / 2]), c = KEY(&v[n - 1]);            \
            const uint64_t piv = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b); \
            size_t i = 0, j = n - 1;                                                          \
            for (;;) {                                                                        \
                while (KEY(&v[i]) < piv) i++;                                                 \
                while (KEY(&v[j]) > piv) j--;                                                 \
                if (i >= j) break;                                                            \
                const TYPE t = v[i];                                                          \
                v[i++] = v[j];                                                                \
                v[j--] = t;                                                                   \
            }                                                                                 \
            /* [0, j] <= piv <= [j + 1, n) */                                                 \
            if (j + 1 < n - j - 1) {                                                          \
                NAME(v, j + 1);                                                               \
                v += j + 1;                                                                   \
                n -= j + 1;                                                                   \
            } else {                                                                          \
                NAME(v + j + 1, n - j - 1);                                                   \
                n = j + 1;                                                                    \
            }                                                                                 \
        }                                                                                     \
        for (size_t i = 1; i < n; i++) {                                                      \
            const TYPE t = v[i];                                                              \
            const uint64_t key = KEY(&t);                                                     \
            size_t j = i;                                                                     \
            for (; j > 0 && KEY(&v[j - 1]) > key; j--) v[j] = v[j - 1];                       \
            v[j] = t;                                                                         \
        }                                                                                     \
    }

static inline uint64_t u64_key(const uint64_t *x) { return *x; }
DEFINE_SORT(sort_u64, uint64_t, u64_key)

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

/* ---- the targets' window index ------------------------------------------- */

void gpuasm_tindex_free(gpuasm_tindex *x)
{
    free(x->start);
    free(x->sub);
    free(x->pos);
    free(x->ext4);
    free(x->amb);
    memset(x, 0, sizeof *x);
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

/* The index is built in three passes, each split over threads (issue #16:
 * on one thread the build of 20 Mb took ~2 s, a fixed cost in every run):
 *   1. count: each thread counts the windows per key whose first base lies
 *      in its share [a, b) of the code buffer;
 *   2. place: row x holds thread 0's windows of key x, then thread 1's,
 *      ... (prefix sums of the counts), each thread writing its own slots:
 *      the window's position and its extension key;
 *   3. sort: each row by (extension key, position), rows split over the
 *      threads by their windows.
 * (extension key, position) is unique per window, so a row's final order
 * does not depend on where pass 2 put its windows: the index is the same,
 * byte for byte, for any number of threads (tests/c/test_lanes compares
 * them).  The runs of ambiguous codes are found on the caller's thread
 * (one pass over the bytes). */

/* A thread's share of the build. */
typedef struct tix_job {
    const gpuasm_seqset *targets;
    gpuasm_tindex *x;
    uint32_t *ek;           /* each window's extension key, in row order */
    uint64_t a, b;          /* passes 1-2: windows starting in [a, b) */
    uint32_t *cnt;          /* [N_KEYS] pass 1: windows per key; pass 2: next slot per key */
    uint32_t k0, k1;        /* pass 3: rows [k0, k1) */
    uint64_t n_pos;         /* pass 1: windows counted */
    int pass, failed;
} tix_job;

/* Passes 1 and 2 over the windows of Q single bases inside one target
 * whose first base lies in [a, b). */
static void tix_windows(tix_job *j)
{
    const gpuasm_seqset *targets = j->targets;
    const uint64_t total = targets->off[targets->n];
    const uint8_t *s = targets->code;
    if (j->a >= j->b) return;
    uint32_t t = target_of(targets, j->a);
    uint32_t key = 0;
    unsigned run = 0;   /* single bases in a row ending at i, inside target t */
    const uint64_t end = j->b + GPUASM_QF_Q - 1 < total ? j->b + GPUASM_QF_Q - 1 : total;
    uint32_t *cnt = j->cnt, *pos = j->x->pos, *ek = j->ek;
    uint64_t n = 0;
    for (uint64_t i = j->a; i < end; i++) {
        while (i >= targets->off[t + 1]) {   /* windows never span two targets */
            t++;
            run = 0;
        }
        const int b = gpuasm_base2[s[i] & 15];
        if (b < 0) {
            run = 0;
            continue;
        }
        key = ((key << 2) | (uint32_t)b) & KEY_MASK;
        if (++run < GPUASM_QF_Q) continue;
        const uint64_t w = i + 1 - GPUASM_QF_Q;   /* >= a: the run began at a or later */
        if (!j->pass) {
            cnt[key]++;
            n++;
        } else {
            ek[cnt[key]] = ext_key(s, total, w);
            pos[cnt[key]++] = (uint32_t)w;
        }
    }
    j->n_pos = n;
}

/* Pass 3: rows [k0, k1) sorted by (extension key, position). */
static void tix_sort(tix_job *j)
{
    const gpuasm_tindex *x = j->x;
    uint32_t widest = 0;
    for (uint32_t k = j->k0; k < j->k1; k++)
        if (x->start[k + 1] - x->start[k] > widest) widest = x->start[k + 1] - x->start[k];
    uint64_t *tmp = malloc((widest ? widest : 1) * sizeof(uint64_t));
    if (!tmp) {
        j->failed = 1;
        return;
    }
    for (uint32_t k = j->k0; k < j->k1; k++) {
        const uint32_t lo = x->start[k], n = x->start[k + 1] - lo;
        for (uint32_t i = 0; i < n; i++) tmp[i] = (uint64_t)j->ek[lo + i] << 32 | x->pos[lo + i];
        if (n > 1) sort_u64(tmp, n);
        for (uint32_t i = 0; i < n; i++) {
            x->pos[lo + i] = (uint32_t)tmp[i];
            x->ext4[lo + i] = (uint16_t)(tmp[i] >> 48);
        }
        /* sub: where the extension's first code reaches 1, 2, 3, 4 */
        uint32_t i = 0;
        for (uint32_t v = 1; v <= 4; v++) {
            while (i < n && tmp[i] >> 60 < v) i++;
            x->sub[4 * (size_t)k + v - 1] = lo + i;
        }
    }
    free(tmp);
}

static void *tix_run(void *arg)
{
    tix_job *j = arg;
    if (j->pass < 2) tix_windows(j); else tix_sort(j);
    return NULL;
}

/* Run jobs[0 .. n) with their pass set to pass: jobs[0] on the caller's
 * thread, the others on threads of their own (a job whose thread cannot be
 * started runs here: the result is the same). */
static void tix_pass(tix_job *jobs, int n, int pass)
{
    pthread_t tid[GPUASM_TINDEX_MAX_THREADS];
    int started[GPUASM_TINDEX_MAX_THREADS] = { 0 };
    for (int i = 0; i < n; i++) jobs[i].pass = pass;
    for (int i = 1; i < n; i++) started[i] = pthread_create(&tid[i], NULL, tix_run, &jobs[i]) == 0;
    tix_run(&jobs[0]);
    for (int i = 1; i < n; i++) {
        if (started[i]) pthread_join(tid[i], NULL);
        else tix_run(&jobs[i]);
    }
}

/* The runs of ambiguous codes (not single bases) of every target, in
 * buffer order; a run never spans two targets.  0 or -1 (out of memory). */
static int tix_amb(gpuasm_tindex *x, const gpuasm_seqset *targets)
{
    size_t amb_cap = 0;
    const uint8_t *s = targets->code;
    for (uint32_t t = 0; t < targets->n; t++) {
        for (uint64_t i = targets->off[t]; i < targets->off[t + 1]; i++) {
            if (gpuasm_base2[s[i] & 15] >= 0) continue;
            /* ambiguous: extend the last run or start one */
            if (x->n_amb && x->amb[2 * x->n_amb - 1] + 1 == i && i > targets->off[t]) {
                x->amb[2 * x->n_amb - 1] = i;
                continue;
            }
            if (2 * x->n_amb + 2 > amb_cap) {
                size_t c = amb_cap ? 2 * amb_cap : 64;
                uint64_t *q = realloc(x->amb, c * sizeof(uint64_t));
                if (!q) return -1;
                x->amb = q;
                amb_cap = c;
            }
            x->amb[2 * x->n_amb] = x->amb[2 * x->n_amb + 1] = i;
            x->n_amb++;
        }
    }
    return 0;
}

int gpuasm_tindex_build(gpuasm_tindex *x, const gpuasm_seqset *targets, uint64_t max_pos, int n_threads)
{
    memset(x, 0, sizeof *x);
    uint32_t *ek = NULL;   /* pass 2: each window's extension key, in row order (4 bytes a window) */
    tix_job *jobs = NULL;
    const uint64_t total = targets->off[targets->n];
    if (total >= UINT32_MAX) return 1;
    /* Threads: at most one per GPUASM_TINDEX_MIN_SHARE bases (a small
     * target set is not worth a thread's start). */
    if (n_threads > GPUASM_TINDEX_MAX_THREADS) n_threads = GPUASM_TINDEX_MAX_THREADS;
    if ((uint64_t)n_threads > total / GPUASM_TINDEX_MIN_SHARE) n_threads = (int)(total / GPUASM_TINDEX_MIN_SHARE);
    if (n_threads < 1) n_threads = 1;
    if (!(x->start = calloc((size_t)N_KEYS + 1, sizeof(uint32_t)))) goto oom;
    if (!(jobs = calloc((size_t)n_threads, sizeof *jobs))) goto oom;
    for (int i = 0; i < n_threads; i++) {
        jobs[i].targets = targets;
        jobs[i].x = x;
        jobs[i].a = total * (uint64_t)i / (uint64_t)n_threads;
        jobs[i].b = total * (uint64_t)(i + 1) / (uint64_t)n_threads;
        if (!(jobs[i].cnt = calloc((size_t)N_KEYS, sizeof(uint32_t)))) goto oom;
    }
    if (tix_amb(x, targets) < 0) goto oom;
    /* Pass 1: count windows per key. */
    tix_pass(jobs, n_threads, 0);
    uint64_t n_pos = 0;
    for (int i = 0; i < n_threads; i++) n_pos += jobs[i].n_pos;
    if (n_pos > max_pos) {
        for (int i = 0; i < n_threads; i++) free(jobs[i].cnt);
        free(jobs);
        gpuasm_tindex_free(x);
        return 1;
    }
    /* Rows, and each thread's first slot in each row. */
    uint32_t at = 0;
    for (uint32_t k = 0; k < N_KEYS; k++) {
        x->start[k] = at;
        for (int i = 0; i < n_threads; i++) {
            const uint32_t c = jobs[i].cnt[k];
            jobs[i].cnt[k] = at;
            at += c;
        }
    }
    x->start[N_KEYS] = at;
    if (!(x->pos = malloc((n_pos ? n_pos : 1) * sizeof(uint32_t)))) goto oom;
    if (!(x->sub = malloc((size_t)N_KEYS * 4 * sizeof(uint32_t)))) goto oom;
    if (!(x->ext4 = malloc((n_pos ? n_pos : 1) * sizeof(uint16_t)))) goto oom;
    if (!(ek = malloc((n_pos ? n_pos : 1) * sizeof(uint32_t)))) goto oom;
    /* Pass 2: place the windows. */
    for (int i = 0; i < n_threads; i++) jobs[i].ek = ek;
    tix_pass(jobs, n_threads, 1);
    x->n_pos = n_pos;
    x->total = total;
    /* Pass 3: each row sorted by the next GPUASM_QF_EXT bases (ext_key),
     * so that a piece longer than Q is looked up by its first Q + E bases:
     * a binary search inside the row instead of a walk over every window.
     * The rows are split into runs of about n_pos / n_threads windows. */
    uint32_t k = 0;
    for (int i = 0; i < n_threads; i++) {
        const uint64_t upto = n_pos * (uint64_t)(i + 1) / (uint64_t)n_threads;
        jobs[i].k0 = k;
        while (k < N_KEYS && (i == n_threads - 1 || x->start[k + 1] <= upto)) k++;
        jobs[i].k1 = k;
    }
    tix_pass(jobs, n_threads, 2);
    int failed = 0;
    for (int i = 0; i < n_threads; i++) {
        failed |= jobs[i].failed;
        free(jobs[i].cnt);
    }
    free(jobs);
    jobs = NULL;
    free(ek);
    if (failed) {
        gpuasm_tindex_free(x);
        return -1;
    }
    return 0;
oom:
    for (int i = 0; jobs && i < n_threads; i++) free(jobs[i].cnt);
    free(jobs);
    free(ek);
    gpuasm_tindex_free(x);
    return -1;
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

/* The first row entry in [lo, hi) whose first 4 extension codes (ext4)
 * are >= v (the row is sorted by the whole extension key, so by them). */
static uint32_t ext4_bound(const gpuasm_tindex *x, uint32_t lo, uint32_t hi, uint32_t v)
{
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (x->ext4[mid] < v) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* A piece P[a .. b) of a pattern looked up in the index: the rows
 * [qa, qb) of its first clean window (at w: Q single bases) and the single
 * bases after it (e of them, at most EXT); whole: the lookup compared
 * every base of the piece. */
typedef struct {
    uint32_t qa, qb;
    uint64_t w;
    int whole;
} piece_rows_t;

/* Look piece P[a .. b) up: 0 when it has no window of Q single bases (N
 * in every window: such a piece is never intact, prefilter.h), else 1 with
 * *r filled. */
static int piece_rows(const gpuasm_tindex *x, const gpuasm_seqset *targets, const uint8_t *p, uint64_t a,
                      uint64_t b, piece_rows_t *r)
{
    int64_t key = -1;
    uint64_t w = a;
    for (; w + GPUASM_QF_Q <= b && key < 0; w++) key = window_key(p + w);
    if (key < 0) return 0;
    w--;                     /* the window found starts at w */
    /* The piece's single bases after the window (at most EXT): only
     * the windows of the row whose extension starts with them. */
    uint32_t ext = 0, e = 0;
    for (; e < GPUASM_QF_EXT && w + GPUASM_QF_Q + e < b; e++) {
        const int c = gpuasm_base2[p[w + GPUASM_QF_Q + e] & 15];
        if (c < 0) break;
        ext = ext << 4 | (uint32_t)c;
    }
    const uint32_t shift = 4 * (GPUASM_QF_EXT - e);
    const uint64_t elo = (uint64_t)ext << shift, ehi = ((uint64_t)ext + 1) << shift;
    uint32_t qa = x->start[key], qb = x->start[key + 1];
    if (e) {   /* the windows whose extension starts with the piece's next base (sub) */
        const uint32_t c0 = ext >> (4 * (e - 1));
        qa = c0 ? x->sub[4 * (size_t)key + c0 - 1] : qa;
        qb = x->sub[4 * (size_t)key + c0];
    }
    if (e > 1) {   /* and with the rest: binary searches */
        /* first by the first 4 extension codes (ext4, exact when
         * e <= 4: elo and ehi then end in 16 zero bits), then by the
         * rest on the few windows left (ext_bound reads the bases) */
        qa = ext4_bound(x, qa, qb, (uint32_t)(elo >> 16));
        qb = ext4_bound(x, qa, qb, (uint32_t)((ehi - 1) >> 16) + 1);
        if (e > 4) {
            qa = ext_bound(x, targets->code, qa, qb, elo);
            qb = ext_bound(x, targets->code, qa, qb, ehi);
        }
    }
    r->qa = qa;
    r->qb = qb;
    r->w = w;
    /* the window at the piece's start and the extension to its end */
    r->whole = w == a && w + GPUASM_QF_Q + e == b;
    return 1;
}

/* Does the whole piece P[a .. b) occur (nt16 rule) where the index row
 * entry at buffer position g (in target t) puts its window, inside t?  A
 * cheap check that drops most chance window hits. */
static int piece_there(const gpuasm_seqset *targets, uint32_t t, uint64_t g, const uint8_t *p, uint64_t a,
                       uint64_t b, const piece_rows_t *r)
{
    if (g - targets->off[t] < r->w - a || g + (b - r->w) > targets->off[t + 1]) return 0;
    if (r->whole) return 1;
    const uint8_t *tp = targets->code + g - (r->w - a);
    uint64_t y = a;
    while (y < b && (p[y] & tp[y - a])) y++;
    return y == b;
}

/* Ranges by (target, lo): lo < 2^32 (a target's length; total < 2^32). */
static inline uint64_t range_key(const gpuasm_end_range *r) { return (uint64_t)r->target << 32 | r->lo; }
DEFINE_SORT(sort_ranges, gpuasm_end_range, range_key)

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
    if (k < 0 || m / ((uint64_t)k + 1) < GPUASM_QF_Q) return -2;
    for (uint32_t i = 0; i < m; i++)
        if (gpuasm_base2[p[i] & 15] < 0 && (p[i] & 15) != 0) return -2;   /* a wildcard read */
    /* Two intact pieces (k + 2 of them) where they are long enough, else
     * one (k + 1): prefilter.h, "Two pieces". */
    int two = m / ((uint64_t)k + 2) >= GPUASM_QF_Q;
    const uint64_t pieces = (uint64_t)k + 1 + (uint64_t)two;
    /* Hits are packed as (target, c, piece) into 63 bits and sorted (bit
     * 63 marks the paired ones). */
    const int pbits = 64 - __builtin_clzll(pieces), cbits = 64 - __builtin_clzll(x->total + m + 1),
              tbits = 64 - __builtin_clzll((uint64_t)targets->n + 1);
    if (pbits + cbits + tbits > 63) two = 0;   /* never with 32-bit positions in practice */
    const int64_t slack = hamming ? 0 : k;
    size_t n = 0;
    for (uint64_t i = 0; i < pieces; i++) {
        const uint64_t a = i * m / pieces, b = (i + 1) * m / pieces;
        piece_rows_t pr;
        if (!piece_rows(x, targets, p, a, b, &pr)) continue;   /* never intact */
        const uint64_t w = pr.w;
        for (uint32_t q = pr.qa; q < pr.qb; q++) {
            const uint64_t g = x->pos[q];
            const uint32_t t = target_of(targets, g);
            if (in_group[t] != stamp) continue;
            if (!piece_there(targets, t, g, p, a, b, &pr)) continue;
            /* The pattern's end when P[w ..] is at text position g. */
            const int64_t c = (int64_t)(g - targets->off[t]) + (int64_t)(m - w) - 1;
            if (two) {   /* a hit (target, c, piece), paired below: packed in out's memory */
                if (gpuasm_grow((void **)out, cap, n / 3 + 1, sizeof **out) < 0) return -1;
                ((uint64_t *)*out)[n++] = ((uint64_t)t << cbits | (uint64_t)c) << pbits | i;
                continue;
            }
            const int r = push_range(out, cap, n, t, c - slack, c + slack,
                                     targets->off[t + 1] - targets->off[t]);
            if (r < 0) return -1;
            n += (size_t)r;
        }
    }
    if (two && n) {
        /* Keep the hits with a hit of another piece in the same target
         * whose end is within slack of theirs (two intact pieces of one
         * alignment are: prefilter.h), each as its range [c - slack,
         * c + slack].  The partners are found in a hash table of the hits
         * by (target, c / W), W = 2^wb > slack, after them in out's
         * memory (open addressing, at most half full): a hit's partners
         * lie in its bucket or the two beside it; before it, counters of
         * hits per hashed bucket leave out the hits alone in theirs.
         * O(hits), where sorting them was half of the planning's time,
         * and the table's probes still another half.  The kept ones (few) are
         * moved to the front, sorted, and written as ranges from the last
         * one (range y takes the bytes of hits 3y .. 3y + 2, read already). */
        const int wb = slack ? 64 - __builtin_clzll((uint64_t)slack) : 0;
        int tb = 64 - __builtin_clzll((uint64_t)n);   /* 2^tb > n */
        tb++;
        const size_t tsize = (size_t)1 << tb, tmask = tsize - 1;
        /* counts: 2^cb > 32 n one-byte counters of hits per hashed bucket */
        const int cb = tb + 4;
        const size_t csize = (size_t)1 << cb;
        if (gpuasm_grow((void **)out, cap, ((n + tsize) * sizeof(uint64_t) + csize) / sizeof **out + 1,
                        sizeof **out) < 0)
            return -1;
        uint64_t *h = (uint64_t *)*out, *tab = h + n;
        uint8_t *cnt = (uint8_t *)(tab + tsize);
        const uint64_t pmask = ((uint64_t)1 << pbits) - 1, cmask = ((uint64_t)1 << cbits) - 1;
        const uint64_t used = (uint64_t)1 << 63;
#define PAIR_HASH(t, bk) ((((uint64_t)(t) << cbits | (bk)) * 0x9E3779B97F4A7C15ull))
#define PAIR_SLOT(t, bk) ((size_t)(PAIR_HASH(t, bk) >> (64 - tb)))
#define PAIR_CNT(t, bk) cnt[PAIR_HASH(t, bk) >> (64 - cb)]
        /* First a count per hashed bucket: a hit whose bucket and the two
         * beside it hold no other hit (nearly every chance hit) has no
         * partner; the others (the true pairs among them) are paired
         * exactly below, among themselves (a partner is such a hit too). */
        memset(cnt, 0, csize);
        for (size_t y = 0; y < n; y++) {
            uint8_t *q = &PAIR_CNT(h[y] >> (cbits + pbits), (h[y] >> pbits & cmask) >> wb);
            if (*q < 255) (*q)++;
        }
        size_t nc = 0;
        for (size_t y = 0; y < n; y++) {
            const uint64_t t = h[y] >> (cbits + pbits), bk = (h[y] >> pbits & cmask) >> wb;
            unsigned sum = PAIR_CNT(t, bk) + PAIR_CNT(t, bk + 1) + (bk ? PAIR_CNT(t, bk - 1) : 0u);
            if (sum >= 2) h[nc++] = h[y];   /* nc <= y */
        }
        n = nc;
        memset(tab, 0, tsize * sizeof *tab);
        for (size_t y = 0; y < n; y++) {
            const uint64_t t = h[y] >> (cbits + pbits), bk = (h[y] >> pbits & cmask) >> wb;
            size_t z = PAIR_SLOT(t, bk);
            while (tab[z]) z = (z + 1) & tmask;
            tab[z] = h[y] | used;
        }
        size_t u = 0;
        for (size_t y = 0; y < n; y++) {
            const uint64_t v = h[y], t = v >> (cbits + pbits), c = v >> pbits & cmask, pc = v & pmask;
            const uint64_t bk = c >> wb;
            int paired = 0;
            for (uint64_t d = bk ? bk - 1 : 0; d <= bk + 1 && !paired; d++) {
                for (size_t z = PAIR_SLOT(t, d); tab[z] && !paired; z = (z + 1) & tmask) {
                    const uint64_t w2 = tab[z] & ~used;
                    if (w2 >> (cbits + pbits) != t) continue;
                    const uint64_t c2 = w2 >> pbits & cmask;
                    paired = (c2 >> wb) == d && (c2 > c ? c2 - c : c - c2) <= (uint64_t)slack &&
                             (w2 & pmask) != pc;
                }
            }
            if (paired) h[u++] = v;   /* u <= y: h[y] is read */
        }
#undef PAIR_CNT
#undef PAIR_HASH
#undef PAIR_SLOT
        if (u > 1) sort_u64(h, u);   /* by (target, c): the ranges' order */
        if (gpuasm_grow((void **)out, cap, u, sizeof **out) < 0) return -1;
        h = (uint64_t *)*out;
        for (size_t y = u; y-- > 0;) {
            const uint64_t v = h[y];
            const uint32_t t = (uint32_t)(v >> (cbits + pbits));
            const int64_t c = (int64_t)(v >> pbits & cmask);
            const uint64_t len = targets->off[t + 1] - targets->off[t];
            gpuasm_end_range r = { t, c - slack < 0 ? 0 : (uint64_t)(c - slack),
                                   c + slack >= (int64_t)len ? len - 1 : (uint64_t)(c + slack) };
            (*out)[y] = r;
        }
        /* ranges past their target's end (c - slack >= len) dropped, as push_range does */
        n = 0;
        for (size_t y = 0; y < u; y++) {
            const uint64_t len = targets->off[(*out)[y].target + 1] - targets->off[(*out)[y].target];
            if ((*out)[y].lo < len) (*out)[n++] = (*out)[y];
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
    if (n > 1) sort_ranges(*out, n);
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

/* Does target t hold an ambiguous code (not a single base) in buffer
 * positions [lo, hi)?  A binary search over the runs (buffer order). */
static int amb_in(const gpuasm_tindex *x, uint64_t lo, uint64_t hi)
{
    size_t a = 0, b = x->n_amb;   /* the first run ending at or after lo */
    while (a < b) {
        const size_t mid = a + (b - a) / 2;
        if (x->amb[2 * mid + 1] < lo) a = mid + 1; else b = mid;
    }
    return a < x->n_amb && x->amb[2 * a] < hi;
}

uint32_t gpuasm_partial_piece_len(const gpuasm_search_opt *o, uint32_t omin, uint32_t m)
{
    uint64_t L = m;
    for (uint32_t p = omin; p < m; p++) {
        const int32_t kp = gpuasm_partial_kf(o, o->read_partial_floor, p, m);
        if (kp < 0 || (int64_t)kp >= (int64_t)p) continue;   /* p is never acceptable */
        const uint64_t l = p / ((uint64_t)kp + 1);
        if (l < L) L = l;
    }
    return L >= GPUASM_QF_Q && L < m ? (uint32_t)L : 0;
}

/* Set the bit of every Q-base key of single bases in [lo, hi). */
static void end_bits_of(const uint8_t *s, uint64_t lo, uint64_t hi, uint64_t *bits)
{
    uint32_t key = 0;
    int run = 0;
    for (uint64_t i = lo; i < hi; i++) {
        const int b = gpuasm_base2[s[i] & 15];
        if (b < 0) {
            run = 0;
            continue;
        }
        key = ((key << 2) | (uint32_t)b) & KEY_MASK;
        if (++run >= GPUASM_QF_Q) bits[key >> 6] |= (uint64_t)1 << (key & 63);
    }
}

void gpuasm_end_bits(const gpuasm_seqset *targets, uint32_t W, uint64_t *bits)
{
    memset(bits, 0, GPUASM_END_BITS_WORDS * sizeof(uint64_t));
    for (uint32_t t = 0; t < targets->n; t++) {
        const uint64_t lo = targets->off[t], hi = targets->off[t + 1], w = W < hi - lo ? W : hi - lo;
        if (2 * w >= hi - lo) {   /* the two windows overlap: the target whole */
            end_bits_of(targets->code, lo, hi, bits);
            continue;
        }
        end_bits_of(targets->code, lo, lo + w, bits);
        end_bits_of(targets->code, hi - w, hi, bits);
    }
}

/* May the piece P[a .. b) (b - a >= Q) occur in an end window of bits?
 * 0 only when a window of Q single bases at its start or its end is in
 * none (then it occurs in none: bits hold every Q-window of single bases
 * of the end windows); a window with another code decides nothing. */
static int end_bits_may(const uint64_t *bits, const uint8_t *p, uint64_t a, uint64_t b)
{
    const int64_t k1 = window_key(p + a), k2 = window_key(p + b - GPUASM_QF_Q);
    if (k1 >= 0 && !(bits[k1 >> 6] >> (k1 & 63) & 1)) return 0;
    if (k2 >= 0 && !(bits[k2 >> 6] >> (k2 & 63) & 1)) return 0;
    return 1;
}

int gpuasm_tindex_end_marks(const gpuasm_tindex *x, const gpuasm_seqset *targets, const uint8_t *p,
                            uint32_t m, uint32_t L, uint32_t W, uint32_t ends, const uint64_t *bits,
                            const uint32_t *in_group, uint32_t stamp, uint32_t *mark)
{
    if (!L || L >= m) return -2;
    for (uint32_t i = 0; i < m; i++)
        if (gpuasm_base2[p[i] & 15] < 0 && (p[i] & 15) != 0) return -2;   /* a wildcard read */
    for (int at_start = 0; at_start < 2; at_start++) {
        if (!(ends & (1u << at_start))) continue;
        const uint32_t bit = 1u << at_start;
        /* Text end: pieces [i L, (i + 1) L) with (i + 1) L <= m - 1;
         * text start: their mirror images [m - (i + 1) L, m - i L) with
         * m - (i + 1) L >= 1 (prefilter.h, "Partial occurrences"). */
        for (uint64_t i = 0; (i + 1) * (uint64_t)L <= (uint64_t)m - 1; i++) {
            const uint64_t a = at_start ? m - (i + 1) * L : i * L, b = a + L;
            if (bits && !end_bits_may(bits, p, a, b)) continue;   /* in no end window */
            piece_rows_t pr;
            if (!piece_rows(x, targets, p, a, b, &pr)) continue;   /* never intact */
            for (uint32_t q = pr.qa; q < pr.qb; q++) {
                const uint64_t g = x->pos[q];
                const uint32_t t = target_of(targets, g);
                if (in_group[t] != stamp || (mark[t] & bit)) continue;
                if (!piece_there(targets, t, g, p, a, b, &pr)) continue;
                /* the piece's bases in the target: [s, s + L) */
                const uint64_t s = g - (pr.w - a), n = targets->off[t + 1] - targets->off[t];
                const uint64_t w = W < n ? W : n;
                if (at_start ? s + L <= targets->off[t] + w : s >= targets->off[t + 1] - w)
                    mark[t] |= bit;
            }
        }
    }
    return 0;
}

int gpuasm_tindex_end_amb(const gpuasm_tindex *x, const gpuasm_seqset *targets, uint32_t t, uint32_t W)
{
    const uint64_t lo = targets->off[t], hi = targets->off[t + 1], w = W < hi - lo ? W : hi - lo;
    return (amb_in(x, hi - w, hi) ? 1 : 0) | (amb_in(x, lo, lo + w) ? 2 : 0);
}
