/* SPDX-License-Identifier: MIT */
/* bands.c -- the band driver of bands.h: bands in order on one thread, or
 * as a wavefront over helper threads. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/bands.h"

/* Columns a band runs between two looks at the band above: ~16 us of an
 * 4-block band, so a band follows the one above ~1 chunk behind and the
 * wavefront's lead-in over 16 threads stays well under a millisecond. */
#define CHUNK 2048

#define UNKNOWN INT64_MIN
#define NEVER INT64_MAX

static atomic_int pool_free;
static int pool_size;
static uint64_t pool_min_work = (uint64_t)1 << 27;

void gpuasm_bands_set_helpers(int n, uint64_t min_work)
{
    pool_size = n > 0 ? n : 0;
    atomic_store(&pool_free, pool_size);
    pool_min_work = min_work ? min_work : (uint64_t)1 << 27;
}

int gpuasm_bands_helpers_for(uint64_t work) { return work < pool_min_work ? 0 : pool_size; }

static int forced_blocks;

void gpuasm_bands_set_blocks(int blocks) { forced_blocks = blocks == 4 || blocks == 8 ? blocks : 0; }

int gpuasm_bands_blocks(void)
{
    if (forced_blocks) return forced_blocks;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    /* the AVX-512 clones of the kernels run the 8-lane wave */
    static atomic_int have;
    int h = atomic_load_explicit(&have, memory_order_relaxed);
    if (!h) {
        h = __builtin_cpu_supports("avx512f") ? 8 : 4;
        atomic_store_explicit(&have, h, memory_order_relaxed);
    }
    return h;
#else
    return 4;
#endif
}

/* Take up to want slots from the pool. */
static int pool_take(int want)
{
    int have = atomic_load(&pool_free);
    for (;;) {
        const int take = want < have ? want : have;
        if (take <= 0) return 0;
        if (atomic_compare_exchange_weak(&pool_free, &have, have - take)) return take;
    }
}

typedef struct wave {
    const gpuasm_band_ops *ops;
    int threads;                /* the caller's and the helpers' */
    _Atomic int64_t *entry;     /* [n_bands + 1] band b's start column: UNKNOWN, NEVER or >= -1 */
    int64_t *entry_top;         /* [n_bands + 1] D above band b there, written before entry[b] */
    _Atomic int64_t *done;      /* [n_bands] columns [.., done[b]) of band b are finished */
    atomic_int stop;
} wave;

typedef struct wave_thread {
    wave *w;
    int t;
    int rc;
} wave_thread;

static void pause_once(unsigned *spins)
{
    if (++*spins < 256) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    } else {
        sched_yield();
    }
}

/* Band b entered at column f with D = top above it (bands.h's ops). */
static void band_start(const gpuasm_band_ops *ops, size_t b, int64_t f, int64_t top, gpuasm_band_state *st)
{
    memset(st, 0, sizeof *st);
    for (int i = 0; i < GPUASM_BAND_BLOCKS; i++) st->pv[i] = ~(uint64_t)0;
    const int last = b + 1 == ops->n_bands;
    const int64_t rows = (int64_t)64 * ops->blocks;
    st->bottom = top + (last ? (int64_t)ops->m - (int64_t)b * rows : rows);
    /* > k unless f = -1 (myers_bands.c's header) */
    st->exit_f = st->bottom <= ops->k && !last ? f : NEVER;
    st->exit_d = st->bottom;
    st->start_f = f;
}

static void publish_exit(wave *w, size_t b, const gpuasm_band_state *st)
{
    w->entry_top[b + 1] = st->exit_d;
    atomic_store_explicit(&w->entry[b + 1], st->exit_f, memory_order_release);
}

/* Band b on this thread: wait for its entry, then run it chunk by chunk
 * behind band b - 1.  0, or -1 when run() failed or another thread did. */
static int run_band(wave *w, size_t b)
{
    const gpuasm_band_ops *ops = w->ops;
    const int64_t n = ops->n_cols;
    int64_t f;
    unsigned spins = 0;
    while ((f = atomic_load_explicit(&w->entry[b], memory_order_acquire)) == UNKNOWN) {
        if (atomic_load_explicit(&w->stop, memory_order_relaxed)) return -1;
        pause_once(&spins);
    }
    if (f == NEVER) {
        atomic_store_explicit(&w->entry[b + 1], NEVER, memory_order_release);
        atomic_store_explicit(&w->done[b], n, memory_order_release);
        ops->finish(ops->ctx, b, NULL);
        return 0;
    }
    gpuasm_band_state st;
    band_start(ops, b, f, w->entry_top[b], &st);
    int published = st.exit_f != NEVER;
    if (published) publish_exit(w, b, &st);
    for (int64_t j0 = f + 1; j0 < n;) {
        const int64_t j1 = n - j0 < CHUNK ? n : j0 + CHUNK;
        if (b > 0) {
            spins = 0;
            while (atomic_load_explicit(&w->done[b - 1], memory_order_acquire) < j1) {
                if (atomic_load_explicit(&w->stop, memory_order_relaxed)) return -1;
                pause_once(&spins);
            }
        }
        const int64_t fin = ops->run(ops->ctx, b, &st, j0, j1);
        if (fin < 0) {
            atomic_store(&w->stop, 1);
            return -1;
        }
        if (!published && st.exit_f != NEVER) {
            publish_exit(w, b, &st);
            published = 1;
        }
        atomic_store_explicit(&w->done[b], fin, memory_order_release);
        j0 = j1;
    }
    if (!published) atomic_store_explicit(&w->entry[b + 1], NEVER, memory_order_release);
    atomic_store_explicit(&w->done[b], n, memory_order_release);
    ops->finish(ops->ctx, b, &st);
    return 0;
}

/* Thread t's bands: those with (n_bands - 1 - b) mod T == t, in order, so
 * that the last band (the one that emits) is the caller's (t = 0). */
static void *wave_main(void *arg)
{
    wave_thread *wt = arg;
    wave *w = wt->w;
    const size_t nb = w->ops->n_bands, T = (size_t)w->threads;
    wt->rc = 0;
    for (size_t b = (nb - 1 - (size_t)wt->t) % T; b < nb; b += T)
        if (run_band(w, b) < 0) {
            wt->rc = -1;
            atomic_store(&w->stop, 1);
            break;
        }
    return NULL;
}

/* -2 when it could not start (memory, threads: nothing ran), -1 when
 * run() stopped, else bands.h's count. */
static long run_wave(const gpuasm_band_ops *ops, int helpers, int64_t *last_start)
{
    const size_t nb = ops->n_bands;
    wave w;
    w.ops = ops;
    w.threads = 1 + helpers;
    atomic_init(&w.stop, 0);
    w.entry = malloc((nb + 1) * sizeof(*w.entry));
    w.entry_top = malloc((nb + 1) * sizeof(*w.entry_top));
    w.done = malloc(nb * sizeof(*w.done));
    wave_thread *wt = malloc((size_t)w.threads * sizeof(*wt));
    pthread_t *tid = malloc((size_t)w.threads * sizeof(*tid));
    long rc = -2;
    if (!w.entry || !w.entry_top || !w.done || !wt || !tid) goto out;
    for (size_t b = 0; b <= nb; b++) atomic_init(&w.entry[b], UNKNOWN);
    for (size_t b = 0; b < nb; b++) atomic_init(&w.done[b], INT64_MIN);
    w.entry_top[0] = 0;
    int started = 0;
    for (int t = 1; t < w.threads; t++, started++) {
        wt[t].w = &w;
        wt[t].t = t;
        if (pthread_create(&tid[t], NULL, wave_main, &wt[t]) != 0) break;
    }
    if (started + 1 < w.threads) {   /* a helper did not start: stop those that did */
        atomic_store(&w.stop, 1);
        for (int t = 1; t <= started; t++) pthread_join(tid[t], NULL);
        goto out;
    }
    atomic_store_explicit(&w.entry[0], -1, memory_order_release);   /* band 0 may start */
    wt[0].w = &w;
    wt[0].t = 0;
    wave_main(&wt[0]);
    rc = -1;
    int ok = wt[0].rc == 0;
    for (int t = 1; t < w.threads; t++) {
        pthread_join(tid[t], NULL);
        ok &= wt[t].rc == 0;
    }
    if (ok) {
        rc = 0;
        *last_start = -1;
        for (size_t b = 0; b < nb; b++) {
            const int64_t f = atomic_load(&w.entry[b]);
            if (f == NEVER) break;
            *last_start = f;
            rc++;
        }
    }
out:
    free(w.entry);
    free(w.entry_top);
    free(w.done);
    free(wt);
    free(tid);
    return rc;
}

/* One thread: the bands in order (no atomics, no allocation). */
static long run_alone(const gpuasm_band_ops *ops, int64_t *last_start)
{
    int64_t f = -1, top = 0;
    size_t b = 0;
    *last_start = -1;
    for (; b < ops->n_bands; b++) {
        gpuasm_band_state st;
        band_start(ops, b, f, top, &st);
        *last_start = f;
        if (f + 1 < ops->n_cols && ops->run(ops->ctx, b, &st, f + 1, ops->n_cols) < 0) return -1;
        ops->finish(ops->ctx, b, &st);
        if (st.exit_f == NEVER) break;
        f = st.exit_f;
        top = st.exit_d;
    }
    const long entered = b < ops->n_bands ? (long)b + 1 : (long)b;
    for (size_t c = (size_t)entered; c < ops->n_bands; c++) ops->finish(ops->ctx, c, NULL);
    return entered;
}

long gpuasm_bands_run(const gpuasm_band_ops *ops, int helpers, int64_t *last_start)
{
    if (ops->n_bands == 0) {
        *last_start = -1;
        return 0;
    }
    if ((size_t)helpers > ops->n_bands - 1) helpers = (int)(ops->n_bands - 1);
    const int got = helpers > 0 ? pool_take(helpers) : 0;
    if (got == 0) return run_alone(ops, last_start);
    long rc = run_wave(ops, got, last_start);
    atomic_fetch_add(&pool_free, got);
    /* out of memory or threads before any band ran: the same answer on
     * this thread alone */
    if (rc == -2) rc = run_alone(ops, last_start);
    return rc;
}
