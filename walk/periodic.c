/* SPDX-License-Identifier: MIT */
/* periodic.c -- a target's periodic runs and the pieces of a search that
 * leave their repeating columns out (periodic.h says why that is exact). */
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "walk/periodic.h"

/* Bases a sample compares with each of its shifts. */
#define SAMPLE_W 64u

int64_t gpuasm_period_runs(const uint8_t *text, uint64_t n, gpuasm_period_run **out, size_t *cap)
{
    size_t nr = 0;
    uint64_t prev_e = 0;   /* runs are disjoint: the next starts at or after it */
    for (uint64_t x = 0; x + SAMPLE_W + GPUASM_PERIOD_MAX <= n;) {
        /* the smallest shift that repeats the sample's 64 bases (the first
         * eight compared as one word: most shifts fail there) */
        uint64_t w0;
        memcpy(&w0, text + x, 8);
        uint32_t p = 0;
        for (uint32_t q = 1; q <= GPUASM_PERIOD_MAX && !p; q++) {
            uint64_t wq;
            memcpy(&wq, text + x + q, 8);
            if (wq == w0 && !memcmp(text + x, text + x + q, SAMPLE_W)) p = q;
        }
        uint64_t next = x + GPUASM_PERIOD_RUN_MIN / 2;
        if (p) {
            /* text[y] = text[y - p] for y in [x + p, x + p + 64): grow it */
            uint64_t s = x, e = x + SAMPLE_W + p;
            while (s > prev_e && text[s - 1] == text[s - 1 + p]) s--;
            while (e < n && text[e] == text[e - p]) e++;
            if (e - s >= GPUASM_PERIOD_RUN_MIN) {
                if (gpuasm_grow((void **)out, cap, nr + 1, sizeof **out) < 0) return -1;
                (*out)[nr++] = (gpuasm_period_run){ s, e, p };
                prev_e = e;
                if (next < e) next = e;
            }
        }
        x = next;
    }
    return (int64_t)nr;
}

/* ---- the cache ------------------------------------------------------------ */

typedef struct runs_entry {
    int64_t n;
    gpuasm_period_run run[];
} runs_entry;

/* Targets without runs share this one (never freed). */
static runs_entry no_runs = { 0 };

int gpuasm_period_cache_open(gpuasm_period_cache *c, uint32_t n_targets)
{
    c->n = n_targets;
    c->of = calloc(n_targets ? n_targets : 1, sizeof *c->of);
    return c->of ? 0 : -1;
}

void gpuasm_period_cache_free(gpuasm_period_cache *c)
{
    for (uint32_t t = 0; c->of && t < c->n; t++)
        if (c->of[t] != &no_runs) free(c->of[t]);
    free(c->of);
    c->of = NULL;
    c->n = 0;
}

int64_t gpuasm_period_cache_get(const gpuasm_period_cache *c, uint32_t t, const uint8_t *text, uint64_t n,
                                const gpuasm_period_run **runs)
{
    runs_entry *e = __atomic_load_n(&c->of[t], __ATOMIC_ACQUIRE);
    if (!e) {
        /* found here; two threads may both find them: one entry stays */
        gpuasm_period_run *r = NULL;
        size_t cap = 0;
        const int64_t nr = gpuasm_period_runs(text, n, &r, &cap);
        if (nr < 0) {
            free(r);
            return -1;
        }
        runs_entry *mine = &no_runs;
        if (nr > 0) {
            if (!(mine = malloc(sizeof *mine + (size_t)nr * sizeof *r))) {
                free(r);
                return -1;
            }
            mine->n = nr;
            memcpy(mine->run, r, (size_t)nr * sizeof *r);
        }
        free(r);
        void *expected = NULL;
        if (__atomic_compare_exchange_n(&c->of[t], &expected, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            e = mine;
        } else {
            if (mine != &no_runs) free(mine);
            e = expected;
        }
    }
    *runs = e->run;
    return e->n;
}

/* ---- the pieces ----------------------------------------------------------- */

static int push_piece(gpuasm_text_piece **out, size_t at, size_t *cap, gpuasm_text_piece pc)
{
    if (gpuasm_grow((void **)out, cap, at + 1, sizeof **out) < 0) return -1;
    (*out)[at] = pc;
    return 0;
}

int64_t gpuasm_text_pieces(uint32_t t, uint64_t n, const gpuasm_period_run *runs, int64_t n_runs, uint32_t m,
                           int32_t k, gpuasm_text_piece **out, size_t n_out, size_t *cap)
{
    const uint64_t lead = (uint64_t)m + (uint64_t)(k > 0 ? k : 0);
    size_t at = n_out;
    uint64_t cur = 0;   /* the first position of the next piece */
    for (int64_t i = 0; i < n_runs; i++) {
        const gpuasm_period_run *r = &runs[i];
        const uint64_t p = r->p;
        /* E(j) = E(j - p) from a on; flags repeat from a + 1 (periodic.h) */
        const uint64_t a = r->s + p + lead - 1, c1 = a + p + 1;
        if (r->e < c1 + 2) continue;
        const uint64_t c2 = r->e - 1;
        /* worth a piece's lead-in (m + k columns) several times over */
        if (c1 <= cur || c2 - c1 < 4 * lead) continue;
        if (push_piece(out, at++, cap,
                       (gpuasm_text_piece){ t, (uint32_t)p, cur > lead ? cur - lead : 0, cur, c1, c2 }) < 0)
            return -1;
        cur = c2;
    }
    if (push_piece(out, at++, cap, (gpuasm_text_piece){ t, 0, cur > lead ? cur - lead : 0, cur, n, n }) < 0) return -1;
    return (int64_t)(at - n_out);
}
