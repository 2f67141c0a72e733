/* prefilter.c -- the pigeonhole filter of target patterns (see prefilter.h). */
#include <stdlib.h>
#include <string.h>

#include "prefilter.h"

#define N_KEYS ((uint32_t)1 << (2 * GPUASM_QF_Q))
#define KEY_MASK (N_KEYS - 1)

/* 2-bit base of a single-base nt16 code (A=1, C=2, G=4, T=8), -1 otherwise. */
static const int8_t base2[16] = { -1, 0, 1, -1, 2, -1, -1, -1, 3, -1, -1, -1, -1, -1, -1, -1 };

typedef struct { uint32_t key, t; } qf_pair;

static int cmp_pair(const void *a, const void *b)
{
    const qf_pair *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

void gpuasm_qfilter_free(gpuasm_qfilter *f)
{
    free(f->always);
    free(f->present);
    free(f->start);
    free(f->ids);
    memset(f, 0, sizeof *f);
}

/* The key of a Q-window of single bases starting at s[0], or -1 when the
 * window holds another code. */
static int64_t window_key(const uint8_t *s)
{
    uint32_t key = 0;
    for (int i = 0; i < GPUASM_QF_Q; i++) {
        const int b = base2[s[i] & 15];
        if (b < 0) return -1;
        key = (key << 2) | (uint32_t)b;
    }
    return key;
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
    f->present = calloc(N_KEYS / 64, sizeof(uint64_t));
    f->start = calloc((size_t)N_KEYS + 1, sizeof(uint32_t));
    if (!f->always || !f->present || !f->start) goto oom;
    for (uint32_t t = 0; t < nt; t++) {
        const uint8_t *p = targets->code + targets->off[t];
        const uint64_t m = targets->off[t + 1] - targets->off[t];
        const int32_t k = gpuasm_pair_k(opt, m);
        if (!gpuasm_pair_searched(m, k, 1)) continue;   /* never a pattern */
        const uint64_t pieces = (uint64_t)k + 1;
        if (m / pieces < GPUASM_QF_Q) {
            f->always[t] = 1;
            continue;
        }
        size_t first = n_pairs;
        for (uint64_t i = 0; i < pieces && !f->always[t]; i++) {
            /* Piece i: [i m / pieces, (i+1) m / pieces), at least Q bases. */
            const uint64_t a = i * m / pieces, b = (i + 1) * m / pieces;
            int64_t key = -1;
            for (uint64_t x = a; x + GPUASM_QF_Q <= b && key < 0; x++) key = window_key(p + x);
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
            pairs[n_pairs].key = (uint32_t)key;
            pairs[n_pairs].t = t;
            n_pairs++;
        }
        if (!f->always[t]) f->n_filtered++;
    }
    /* Compressed rows: targets by key, each (key, target) once. */
    if (n_pairs) qsort(pairs, n_pairs, sizeof *pairs, cmp_pair);
    size_t u = 0;
    for (size_t i = 0; i < n_pairs; i++)
        if (!u || pairs[i].key != pairs[u - 1].key || pairs[i].t != pairs[u - 1].t) pairs[u++] = pairs[i];
    f->ids = malloc((u ? u : 1) * sizeof(uint32_t));
    if (!f->ids) goto oom;
    for (size_t i = 0; i < u; i++) {
        f->start[pairs[i].key + 1]++;
        f->present[pairs[i].key / 64] |= (uint64_t)1 << (pairs[i].key % 64);
        f->ids[i] = pairs[i].t;
    }
    for (uint32_t x = 0; x < N_KEYS; x++) f->start[x + 1] += f->start[x];
    free(pairs);
    return 0;
oom:
    free(pairs);
    gpuasm_qfilter_free(f);
    return -1;
}

int gpuasm_qfilter_mark(const gpuasm_qfilter *f, const uint8_t *text, uint64_t n, uint32_t *mark,
                        uint32_t stamp)
{
    uint32_t key = 0;
    unsigned run = 0;   /* single bases in a row ending at j */
    for (uint64_t j = 0; j < n; j++) {
        const unsigned c = text[j] & 15u;
        const int b = base2[c];
        if (b < 0) {
            if (c != 0) return 1;   /* an ambiguity code matches several windows */
            run = 0;
            continue;
        }
        key = ((key << 2) | (uint32_t)b) & KEY_MASK;
        if (++run < GPUASM_QF_Q) continue;
        if (!(f->present[key / 64] >> (key % 64) & 1)) continue;
        for (uint32_t i = f->start[key]; i < f->start[key + 1]; i++) mark[f->ids[i]] = stamp;
    }
    return 0;
}
