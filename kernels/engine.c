/* engine.c -- pick a backend and run batches on it (see engine.h). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "engine.h"
#ifdef HAVE_CUDA
#include "myers_cuda.h"
#endif

struct gpuasm_engine {
    int n_threads;
    const gpuasm_seqset *targets;
    gpuasm_hits *thread_hits;   /* [n_threads] per-thread results, reused */
#ifdef HAVE_CUDA
    gpuasm_cuda *cuda;          /* NULL: CPU backend */
#endif
    char desc[256];
};

/* Parse "cuda" / "cuda:N".  Returns the device number, or -1. */
static int parse_cuda_device(const char *spec)
{
    if (!strcmp(spec, "cuda")) return 0;
    if (strncmp(spec, "cuda:", 5) || !spec[5]) return -1;
    char *end;
    long d = strtol(spec + 5, &end, 10);
    return (*end || d < 0 || d > 1024) ? -1 : (int)d;
}

int gpuasm_engine_open(const char *device, int n_threads, gpuasm_engine **out,
                       char *err, size_t errlen, char *warn, size_t warnlen)
{
    int want_cuda = 0, dev = 0;
    if (warnlen) warn[0] = 0;
    if (!strcmp(device, "cpu")) {
        want_cuda = 0;
    } else if (!strcmp(device, "auto")) {
        want_cuda = -1;                 /* if possible */
    } else if ((dev = parse_cuda_device(device)) >= 0) {
        want_cuda = 1;
    } else {
        snprintf(err, errlen, "invalid --device '%s' (expected auto, cpu, cuda or cuda:N)", device);
        return -1;
    }
    gpuasm_engine *e = calloc(1, sizeof(*e));
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    e->n_threads = n_threads < 1 ? 1 : n_threads;
    if (!(e->thread_hits = calloc((size_t)e->n_threads, sizeof(*e->thread_hits)))) {
        free(e);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
#ifdef HAVE_CUDA
    if (want_cuda) {
        char why[512];
        int n = gpuasm_cuda_device_count();
        if (n <= dev) {
            snprintf(why, sizeof why, n == 0 ? "no CUDA device found" : "CUDA device %d not found (%d present)",
                     dev, n);
        } else if (gpuasm_cuda_open(dev, &e->cuda, why, sizeof why) == 0) {
            snprintf(e->desc, sizeof e->desc, "cuda:%d %s", dev, gpuasm_cuda_describe(e->cuda));
            *out = e;
            return 0;
        }
        if (want_cuda > 0) {
            snprintf(err, errlen, "--device %s: %s", device, why);
            gpuasm_engine_close(e);
            return -1;
        }
        snprintf(warn, warnlen, "%s; using the CPU", why);
    }
#else
    if (want_cuda > 0) {
        snprintf(err, errlen, "--device %s: this gpuasm was built without CUDA", device);
        gpuasm_engine_close(e);
        return -1;
    }
#endif
    snprintf(e->desc, sizeof e->desc, "cpu (%d thread%s)", e->n_threads, e->n_threads > 1 ? "s" : "");
    *out = e;
    return 0;
}

const char *gpuasm_engine_describe(const gpuasm_engine *e) { return e->desc; }

int gpuasm_engine_is_cuda(const gpuasm_engine *e)
{
#ifdef HAVE_CUDA
    return e->cuda != NULL;
#else
    (void)e;
    return 0;
#endif
}

int gpuasm_engine_set_targets(gpuasm_engine *e, const gpuasm_seqset *targets,
                              char *err, size_t errlen)
{
    e->targets = targets;
#ifdef HAVE_CUDA
    if (e->cuda) return gpuasm_cuda_set_targets(e->cuda, targets, err, errlen);
#else
    (void)err;
    (void)errlen;
#endif
    return 0;
}

/* CPU backend: threads take chunks of reads from a shared cursor, so a
 * batch with a few long reads still spreads over every thread. */
typedef struct {
    gpuasm_engine *e;
    const gpuasm_seqset *reads;
    const gpuasm_search_opt *opt;
    pthread_mutex_t lock;
    uint32_t next, chunk;
    int failed;
} cpu_job;

typedef struct {
    cpu_job *job;
    gpuasm_hits *hits;
} cpu_worker;

static void *cpu_worker_run(void *arg)
{
    cpu_worker *w = arg;
    cpu_job *j = w->job;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        uint32_t first = j->next;
        int stop = j->failed || first >= j->reads->n;
        uint32_t count = stop ? 0 : (j->reads->n - first < j->chunk ? j->reads->n - first : j->chunk);
        j->next += count;
        pthread_mutex_unlock(&j->lock);
        if (stop) break;
        if (gpuasm_myers_cpu_scan(j->reads, first, count, j->e->targets, j->opt, w->hits) < 0) {
            pthread_mutex_lock(&j->lock);
            j->failed = 1;
            pthread_mutex_unlock(&j->lock);
            break;
        }
    }
    return NULL;
}

static int cpu_scan(gpuasm_engine *e, const gpuasm_seqset *reads, const gpuasm_search_opt *opt,
                    gpuasm_hits *out, char *err, size_t errlen)
{
    int nt = e->n_threads;
    cpu_job job = { .e = e, .reads = reads, .opt = opt, .next = 0, .failed = 0 };
    /* Chunks small enough to balance, large enough to keep the lock cold. */
    job.chunk = reads->n / ((uint32_t)nt * 16u);
    if (job.chunk < 1) job.chunk = 1;
    pthread_mutex_init(&job.lock, NULL);
    cpu_worker *w = calloc((size_t)nt, sizeof(*w));
    pthread_t *tid = calloc((size_t)nt, sizeof(*tid));
    int started = 0;
    if (!w || !tid) job.failed = 1;
    for (int i = 0; !job.failed && i < nt; i++) {
        e->thread_hits[i].n = 0;
        w[i].job = &job;
        w[i].hits = &e->thread_hits[i];
        if (i == 0) continue;  /* the calling thread is worker 0 */
        if (pthread_create(&tid[i], NULL, cpu_worker_run, &w[i]) != 0) {
            pthread_mutex_lock(&job.lock);
            job.failed = 1;
            pthread_mutex_unlock(&job.lock);
            break;
        }
        started = i;
    }
    if (w && tid) cpu_worker_run(&w[0]);
    for (int i = 1; i <= started; i++) pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&job.lock);
    free(w);
    free(tid);
    if (job.failed) {
        snprintf(err, errlen, "CPU scan: out of memory or cannot start threads");
        return -1;
    }
    size_t total = 0;
    for (int i = 0; i < nt; i++) total += e->thread_hits[i].n;
    if (gpuasm_hits_reserve(out, total) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < nt; i++) {
        if (e->thread_hits[i].n)
            memcpy(out->hit + out->n, e->thread_hits[i].hit, e->thread_hits[i].n * sizeof(*out->hit));
        out->n += e->thread_hits[i].n;
    }
    return 0;
}

int gpuasm_engine_scan(gpuasm_engine *e, const gpuasm_seqset *reads,
                       const gpuasm_search_opt *opt, gpuasm_hits *out,
                       char *err, size_t errlen)
{
    out->n = 0;
    int r;
#ifdef HAVE_CUDA
    if (e->cuda)
        r = gpuasm_cuda_scan(e->cuda, reads, opt, out, err, errlen);
    else
#endif
        r = cpu_scan(e, reads, opt, out, err, errlen);
    if (r == 0) gpuasm_hits_sort(out);
#ifdef HAVE_CUDA
    /* The CUDA kernel of #2 returns every end with D <= k; reduce to the
     * contract's local minima here until it does so on the device. */
    if (r == 0 && e->cuda) gpuasm_hits_keep_local_minima(out);
#endif
    return r;
}

void *gpuasm_engine_host_alloc(gpuasm_engine *e, size_t bytes)
{
#ifdef HAVE_CUDA
    if (e->cuda) return gpuasm_cuda_host_alloc(bytes);
#else
    (void)e;
#endif
    return malloc(bytes);
}

void gpuasm_engine_host_free(gpuasm_engine *e, void *p)
{
#ifdef HAVE_CUDA
    if (e->cuda) {
        gpuasm_cuda_host_free(p);
        return;
    }
#else
    (void)e;
#endif
    free(p);
}

void gpuasm_engine_close(gpuasm_engine *e)
{
    if (!e) return;
#ifdef HAVE_CUDA
    if (e->cuda) gpuasm_cuda_close(e->cuda);
#endif
    for (int i = 0; i < e->n_threads; i++) gpuasm_hits_free(&e->thread_hits[i]);
    free(e->thread_hits);
    free(e);
}
