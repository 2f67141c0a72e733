/* engine.c -- pick a backend and run batches on it (see engine.h).
 *
 * A "lane" is one queue of scans that can run beside the others: on CUDA
 * one gpuasm_cuda handle (one stream), two per device so that one batch's
 * copies and hit return overlap the other's kernels; on the CPU a single
 * lane whose scans spread over n_threads threads.  Each lane keeps its own
 * statistics, touched only by the one thread that drives the lane; the
 * totals are summed under a lock.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "clock.h"
#include "engine.h"
#ifdef HAVE_CUDA
#include "myers_cuda.h"
#endif

/* Devices one --device list may name; more than any host has. */
#define MAX_DEVICES 64
/* CUDA handles (streams) per device: two let copies overlap kernels. */
#define LANES_PER_DEVICE 2
/* CPU batches: enough bases that n_threads x 16 chunks stay large, small
 * enough that the pipeline's few batches in flight stay modest in memory. */
#define CPU_BATCH_BASES_PER_THREAD (4ull << 20)
#define CPU_BATCH_BASES_MAX (64ull << 20)

typedef struct {
    gpuasm_scan_stats stats;   /* this lane's totals */
#ifdef HAVE_CUDA
    gpuasm_cuda *cuda;         /* NULL on the CPU lane */
    int device;
#endif
} lane_t;

struct gpuasm_engine {
    int n_threads;
    const gpuasm_seqset *targets;
    gpuasm_hits *thread_hits;   /* [n_threads] per-thread CPU results, reused */
    int n_lanes;
    lane_t *lane;
    int is_cuda;
    pthread_mutex_t stats_lock; /* lane stats are added and summed under it */
    char desc[1024];
};

/* ---- --device ------------------------------------------------------------ */

typedef struct {
    int kind;                  /* 0 cpu, 1 cuda (must), -1 auto (cuda if any) */
    int all;                   /* cuda:all, or auto */
    int n;                     /* devices listed (when !all) */
    int dev[MAX_DEVICES];
} device_spec;

/* Parse --device.  Returns 0, or -1 with a one-line reason. */
static int parse_device(const char *spec, device_spec *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof(*d));
    if (!strcmp(spec, "cpu")) return 0;
    if (!strcmp(spec, "auto")) {
        d->kind = -1;
        d->all = 1;
        return 0;
    }
    d->kind = 1;
    if (!strcmp(spec, "cuda")) {
        d->n = 1;
        return 0;
    }
    if (strncmp(spec, "cuda:", 5) != 0) goto bad;
    const char *p = spec + 5;
    if (!strcmp(p, "all")) {
        d->all = 1;
        return 0;
    }
    /* A comma list of device numbers: digits only (strtol alone would take
     * signs and spaces), no empty items, no repeats. */
    for (;;) {
        if (!isdigit((unsigned char)*p)) goto bad;
        long v = 0;
        while (isdigit((unsigned char)*p)) {
            v = v * 10 + (*p++ - '0');
            if (v > 1024) goto bad;
        }
        for (int i = 0; i < d->n; i++)
            if (d->dev[i] == (int)v) {
                snprintf(err, errlen, "invalid --device '%s': device %ld listed twice", spec, v);
                return -1;
            }
        if (d->n == MAX_DEVICES) {
            snprintf(err, errlen, "invalid --device '%s': more than %d devices", spec, MAX_DEVICES);
            return -1;
        }
        d->dev[d->n++] = (int)v;
        if (*p == 0) return 0;
        if (*p++ != ',') goto bad;
    }
bad:
    snprintf(err, errlen, "invalid --device '%s' (expected auto, cpu, cuda, cuda:N, "
             "cuda:N,M,... or cuda:all)", spec);
    return -1;
}

/* ---- open / close ------------------------------------------------------- */

static gpuasm_engine *engine_new(int n_threads)
{
    gpuasm_engine *e = calloc(1, sizeof(*e));
    if (!e) return NULL;
    e->n_threads = n_threads < 1 ? 1 : n_threads;
    e->thread_hits = calloc((size_t)e->n_threads, sizeof(*e->thread_hits));
    pthread_mutex_init(&e->stats_lock, NULL);
    if (!e->thread_hits) {
        gpuasm_engine_close(e);
        return NULL;
    }
    return e;
}

#ifdef HAVE_CUDA
/* Open LANES_PER_DEVICE handles on every device of d.  0, or -1 with why
 * (every handle opened so far is closed again). */
static int open_cuda_lanes(gpuasm_engine *e, const device_spec *d, char *why, size_t whylen)
{
    int count = gpuasm_cuda_device_count();
    int devs[MAX_DEVICES], n = 0;
    if (count <= 0) {
        snprintf(why, whylen, "no CUDA device found");
        return -1;
    }
    if (d->all || d->kind < 0) {
        for (int i = 0; i < count && i < MAX_DEVICES; i++) devs[n++] = i;
    } else if (d->n == 0) {
        devs[n++] = 0;                      /* "cuda" */
    } else {
        for (int i = 0; i < d->n; i++) {
            if (d->dev[i] >= count) {
                snprintf(why, whylen, "CUDA device %d not found (%d present)", d->dev[i], count);
                return -1;
            }
            devs[n++] = d->dev[i];
        }
    }
    if (!(e->lane = calloc((size_t)n * LANES_PER_DEVICE, sizeof(*e->lane)))) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    size_t dl = 0;
    for (int i = 0; i < n; i++) {
        for (int s = 0; s < LANES_PER_DEVICE; s++) {
            lane_t *l = &e->lane[e->n_lanes];
            char cerr[512];
            if (gpuasm_cuda_open(devs[i], &l->cuda, cerr, sizeof cerr) < 0) {
                snprintf(why, whylen, "CUDA device %d: %s", devs[i], cerr);
                goto fail;
            }
            l->device = devs[i];
            e->n_lanes++;
        }
        /* "cuda:0 NAME" for one device, "cuda:0 NAME, cuda:1 NAME" for more. */
        if (dl < sizeof e->desc)
            dl += (size_t)snprintf(e->desc + dl, sizeof e->desc - dl, "%scuda:%d %s",
                                   i ? ", " : "", devs[i],
                                   gpuasm_cuda_describe(e->lane[e->n_lanes - 1].cuda));
    }
    e->is_cuda = 1;
    return 0;
fail:
    for (int i = 0; i < e->n_lanes; i++) gpuasm_cuda_close(e->lane[i].cuda);
    free(e->lane);
    e->lane = NULL;
    e->n_lanes = 0;
    e->desc[0] = 0;
    return -1;
}
#endif

int gpuasm_engine_open(const char *device, int n_threads, gpuasm_engine **out,
                       char *err, size_t errlen, char *warn, size_t warnlen)
{
    device_spec d;
    if (warnlen) warn[0] = 0;
    if (parse_device(device, &d, err, errlen) < 0) return -1;
    gpuasm_engine *e = engine_new(n_threads);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (d.kind) {
#ifdef HAVE_CUDA
        char why[768];
        if (open_cuda_lanes(e, &d, why, sizeof why) == 0) {
            *out = e;
            return 0;
        }
        if (d.kind > 0) {
            snprintf(err, errlen, "--device %s: %s", device, why);
            gpuasm_engine_close(e);
            return -1;
        }
        snprintf(warn, warnlen, "%s; using the CPU", why);
#else
        if (d.kind > 0) {
            snprintf(err, errlen, "--device %s: this gpuasm was built without CUDA", device);
            gpuasm_engine_close(e);
            return -1;
        }
#endif
    }
    /* The CPU: one lane. */
    if (!(e->lane = calloc(1, sizeof(*e->lane)))) {
        gpuasm_engine_close(e);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    e->n_lanes = 1;
    snprintf(e->desc, sizeof e->desc, "cpu (%d thread%s)", e->n_threads, e->n_threads > 1 ? "s" : "");
    *out = e;
    return 0;
}

void gpuasm_engine_close(gpuasm_engine *e)
{
    if (!e) return;
#ifdef HAVE_CUDA
    for (int i = 0; i < e->n_lanes; i++)
        if (e->lane[i].cuda) gpuasm_cuda_close(e->lane[i].cuda);
#endif
    free(e->lane);
    if (e->thread_hits)
        for (int i = 0; i < e->n_threads; i++) gpuasm_hits_free(&e->thread_hits[i]);
    free(e->thread_hits);
    pthread_mutex_destroy(&e->stats_lock);
    free(e);
}

const char *gpuasm_engine_describe(const gpuasm_engine *e) { return e->desc; }

int gpuasm_engine_lanes(const gpuasm_engine *e) { return e->n_lanes; }

int gpuasm_engine_set_targets(gpuasm_engine *e, const gpuasm_seqset *targets,
                              char *err, size_t errlen)
{
    e->targets = targets;
#ifdef HAVE_CUDA
    /* Every handle gets its own device copy (uploaded once, here). */
    for (int i = 0; i < e->n_lanes; i++)
        if (e->lane[i].cuda && gpuasm_cuda_set_targets(e->lane[i].cuda, targets, err, errlen) < 0)
            return -1;
#else
    (void)err;
    (void)errlen;
#endif
    return 0;
}

uint64_t gpuasm_engine_suggest_batch_bases(const gpuasm_engine *e)
{
#ifdef HAVE_CUDA
    if (e->is_cuda) {
        /* Every lane must take any batch: the smallest suggestion wins. */
        uint64_t best = 0;
        for (int i = 0; i < e->n_lanes; i++) {
            uint64_t s = gpuasm_cuda_suggest_batch_bases(e->lane[i].cuda);
            if (s > 0 && (best == 0 || s < best)) best = s;
        }
        if (best) return best;
    }
#endif
    uint64_t b = CPU_BATCH_BASES_PER_THREAD * (uint64_t)e->n_threads;
    return b < CPU_BATCH_BASES_MAX ? b : CPU_BATCH_BASES_MAX;
}

/* ---- the CPU lane --------------------------------------------------------- */

/* Threads take chunks of reads from a shared cursor, so a batch with a few
 * long reads still spreads over every thread. */
typedef struct {
    gpuasm_engine *e;
    const gpuasm_seqset *reads;
    const gpuasm_search_opt *opt;
    pthread_mutex_t lock;
    uint32_t next, chunk;
    int failed;
    char err[512];     /* the first failure's reason */
} cpu_job;

typedef struct {
    cpu_job *job;
    gpuasm_hits *hits;
    double cells;     /* this worker's share, summed after the join */
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
        char why[512];
        if (gpuasm_cpu_scan(j->reads, first, count, j->e->targets, j->opt, w->hits,
                            why, sizeof why) < 0) {
            pthread_mutex_lock(&j->lock);
            if (!j->failed) snprintf(j->err, sizeof j->err, "%s", why);
            j->failed = 1;
            pthread_mutex_unlock(&j->lock);
            break;
        }
        w->cells += gpuasm_scan_cells(j->reads, first, count, j->e->targets, j->opt);
    }
    return NULL;
}

static int cpu_scan(gpuasm_engine *e, const gpuasm_seqset *reads, const gpuasm_search_opt *opt,
                    gpuasm_hits *out, double *cells, char *err, size_t errlen)
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
    double c = 0;
    for (int i = 0; w && i < nt; i++) c += w[i].cells;
    *cells = c;
    free(w);
    free(tid);
    if (job.failed) {
        snprintf(err, errlen, "%s", job.err[0] ? job.err : "CPU scan: out of memory or cannot start threads");
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

/* ---- scans ---------------------------------------------------------------- */


static void stats_add(gpuasm_scan_stats *to, const gpuasm_scan_stats *s)
{
    to->kernel_s += s->kernel_s;
    to->scan_s += s->scan_s;
    to->cells += s->cells;
    to->end_hits += s->end_hits;
    to->scans += s->scans;
}

int gpuasm_engine_scan_lane(gpuasm_engine *e, int lane, const gpuasm_seqset *reads,
                            const gpuasm_search_opt *opt, gpuasm_hits *out,
                            char *err, size_t errlen)
{
    if (lane < 0 || lane >= e->n_lanes) {
        snprintf(err, errlen, "engine: no lane %d (%d lanes)", lane, e->n_lanes);
        return -1;
    }
    lane_t *l = &e->lane[lane];
    gpuasm_scan_stats s = { 0 };
    double t0 = gpuasm_now_s();
    int r;
    out->n = 0;
#ifdef HAVE_CUDA
    if (l->cuda) {
        r = gpuasm_cuda_scan(l->cuda, reads, opt, out, err, errlen);
        if (r == 0) {
            gpuasm_cuda_last_stats(l->cuda, &s);
            gpuasm_hits_sort(out);
        }
    } else
#endif
    {
        double cells = 0;
        r = cpu_scan(e, reads, opt, out, &cells, err, errlen);
        if (r == 0) {
            gpuasm_hits_sort(out);
            s.cells = cells;
        }
    }
    if (r < 0) return -1;
    /* Wall time of the whole call, sort and reduction included; the CPU has
     * no separate kernel clock, so its kernel time is the same wall time. */
    s.scan_s = gpuasm_now_s() - t0;
#ifdef HAVE_CUDA
    if (!l->cuda)
#endif
        s.kernel_s = s.scan_s;
    s.end_hits = out->n;
    s.scans = 1;
    pthread_mutex_lock(&e->stats_lock);
    stats_add(&l->stats, &s);
    pthread_mutex_unlock(&e->stats_lock);
    return 0;
}

int gpuasm_engine_scan(gpuasm_engine *e, const gpuasm_seqset *reads,
                       const gpuasm_search_opt *opt, gpuasm_hits *out,
                       char *err, size_t errlen)
{
    return gpuasm_engine_scan_lane(e, 0, reads, opt, out, err, errlen);
}

void gpuasm_engine_stats(gpuasm_engine *e, gpuasm_scan_stats *total)
{
    memset(total, 0, sizeof(*total));
    pthread_mutex_lock(&e->stats_lock);
    for (int i = 0; i < e->n_lanes; i++) stats_add(total, &e->lane[i].stats);
    pthread_mutex_unlock(&e->stats_lock);
}

/* ---- host memory ---------------------------------------------------------- */

void *gpuasm_engine_host_alloc(gpuasm_engine *e, size_t bytes)
{
#ifdef HAVE_CUDA
    if (e->is_cuda) return gpuasm_cuda_host_alloc(bytes);
#else
    (void)e;
#endif
    return malloc(bytes);
}

void gpuasm_engine_host_free(gpuasm_engine *e, void *p)
{
#ifdef HAVE_CUDA
    if (e->is_cuda) {
        gpuasm_cuda_host_free(p);
        return;
    }
#else
    (void)e;
#endif
    free(p);
}
