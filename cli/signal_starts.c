/* SPDX-License-Identifier: MIT */
/* signal_starts.c -- gpuasm-signal's start search on an hts_tpool (see
 * signal_starts.h). */
#include <stdlib.h>

#include <htslib/thread_pool.h>

#include "util/clock.h"
#include "cli/signal_starts.h"

/* Chunks per thread: pairs differ in cost (a start far from its end, an
 * unsearched pair), so several chunks a thread even the threads out. */
#define CHUNKS_PER_THREAD 4

typedef struct chunk {
    /* the job, set by submit */
    const gpuasm_sigreport_opt *o;
    const gpuasm_sigbatch *b;
    const gpuasm_sigref *ref;
    const gpuasm_adsm_hit *hit;
    int64_t *start;
    size_t first, count;
    /* the worker's */
    int32_t *work;         /* 2 (window + 1) int32, kept between batches */
    size_t m_work;
    int rc;
    double seconds;
} chunk;

struct gpuasm_sigstarts {
    hts_tpool *pool;       /* NULL: one thread, inline */
    hts_tpool_process *q;
    chunk *c;
    int n_chunks;
    int pending;           /* chunks of the submitted batch (0: none) */
    double cpu_s;
};

static void *run_chunk(void *arg)
{
    chunk *c = arg;
    const double t0 = gpuasm_now_s();
    c->rc = gpuasm_sigreport_starts(c->o, c->b, c->ref, c->hit, c->first, c->count, c->start, c->work);
    c->seconds = gpuasm_now_s() - t0;
    return NULL;
}

int gpuasm_sigstarts_open(int n_threads, gpuasm_sigstarts **out)
{
    gpuasm_sigstarts *s = calloc(1, sizeof(*s));
    if (!s) return -1;
    s->n_chunks = n_threads > 1 ? n_threads * CHUNKS_PER_THREAD : 1;
    if (!(s->c = calloc((size_t)s->n_chunks, sizeof(*s->c)))) goto fail;
    if (n_threads > 1) {
        if (!(s->pool = hts_tpool_init(n_threads))) goto fail;
        /* in_only: the chunks write into the caller's start array; the
         * queue holds a whole batch's chunks, so submit never blocks. */
        if (!(s->q = hts_tpool_process_init(s->pool, s->n_chunks, 1))) goto fail;
    }
    *out = s;
    return 0;
fail:
    gpuasm_sigstarts_close(s);
    return -1;
}

int gpuasm_sigstarts_submit(gpuasm_sigstarts *s, const gpuasm_sigreport_opt *o,
                            const gpuasm_sigbatch *b, const gpuasm_sigref *ref,
                            const gpuasm_adsm_hit *hit, uint64_t max_window, int64_t *start)
{
    const size_t npairs = (size_t)b->n * ref->n;
    if (npairs == 0) return 0;
    const size_t need = 2 * ((size_t)max_window + 1);
    int n = s->n_chunks;
    if ((size_t)n > npairs) n = (int)npairs;
    for (int k = 0; k < n; k++) {
        chunk *c = &s->c[k];
        if (need > c->m_work) {
            int32_t *w = realloc(c->work, need * sizeof(*w));
            if (!w) return -1;
            c->work = w;
            c->m_work = need;
        }
        c->o = o;
        c->b = b;
        c->ref = ref;
        c->hit = hit;
        c->start = start;
        c->first = npairs * (size_t)k / (size_t)n;
        c->count = npairs * (size_t)(k + 1) / (size_t)n - c->first;
        c->rc = 0;
        c->seconds = 0;
    }
    if (!s->pool) {
        run_chunk(&s->c[0]);
        s->cpu_s += s->c[0].seconds;
        return s->c[0].rc;
    }
    for (int k = 0; k < n; k++) {
        if (hts_tpool_dispatch(s->pool, s->q, run_chunk, &s->c[k]) < 0) {
            /* the ones dispatched still run: wait for them */
            s->pending = k;
            gpuasm_sigstarts_wait(s);
            return -1;
        }
    }
    s->pending = n;
    return 0;
}

int gpuasm_sigstarts_wait(gpuasm_sigstarts *s)
{
    if (!s->pool || s->pending == 0) return 0;
    int rc = hts_tpool_process_flush(s->q) < 0 ? -1 : 0;
    for (int k = 0; k < s->pending; k++) {
        s->cpu_s += s->c[k].seconds;
        if (rc == 0 && s->c[k].rc < 0) rc = s->c[k].rc;
    }
    s->pending = 0;
    return rc;
}

double gpuasm_sigstarts_cpu_s(const gpuasm_sigstarts *s)
{
    return s ? s->cpu_s : 0.0;
}

void gpuasm_sigstarts_close(gpuasm_sigstarts *s)
{
    if (!s) return;
    if (s->q) {
        gpuasm_sigstarts_wait(s);
        hts_tpool_process_destroy(s->q);
    }
    if (s->pool) hts_tpool_destroy(s->pool);
    for (int k = 0; s->c && k < s->n_chunks; k++) free(s->c[k].work);
    free(s->c);
    free(s);
}
