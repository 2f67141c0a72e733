/* SPDX-License-Identifier: MIT */
/* cpu_backend.c -- the CPU backend (backend.h): every scan spread over
 * n_threads threads, each running opt->kernel's CPU twin (cpu_scan.c; in
 * the signal mode signal_scan.c) on chunks of reads taken from a shared
 * cursor, so a batch with a few long reads still keeps every thread busy.
 * Per-thread hit arrays are kept and reused from scan to scan; the results
 * are concatenated and sorted (signal results land in place: one slot per
 * pair).  With a hit limit on the output (search.h), a scan stops once the
 * threads together found more (GPUASM_ERR_HIT_LIMIT), after at most a
 * chunk per thread too many.
 *
 * The SIMD level (cpu_simd.h) is chosen once, when the backend opens, from
 * the processor and GPUASM_CPU_SIMD, and named in describe(); the tables
 * of a target set (cpu_scan.h: target PEqs, the pigeonhole filter) are
 * built by the first scan and shared read-only by the threads.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/backend.h"
#include "kernels/bands.h"
#include "walk/cpu_scan.h"
#include "search/cpu_simd.h"
#include "search/search.h"
#include "search/signal_mode.h"
#include "util/thread_error.h"

/* CPU batches: enough bases that n_threads x 16 chunks stay large, small
 * enough that the pipeline's few batches in flight stay modest in memory. */
#define CPU_BATCH_BASES_PER_THREAD (4ull << 20)
#define CPU_BATCH_BASES_MAX (64ull << 20)

typedef struct {
    int n_threads;
    const gpuasm_seqset *targets;
    const gpuasm_sigset *sig_targets;
    gpuasm_hits *thread_hits;   /* [n_threads] per-thread results, reused */
    gpuasm_cpu_cfg cfg;         /* SIMD level, filter (the knobs, read at open) */
    gpuasm_cpu_prep *prep;      /* tables of the targets for the last opt */
    char desc[64];
} cpu_backend;

typedef struct cpu_worker cpu_worker;

/* One scan's shared state: the chunk cursor and what a chunk runs. */
typedef struct {
    cpu_backend *b;
    uint32_t n_items;           /* reads in the batch */
    /* Scan reads [first, first + count) for worker w: 0 or a status. */
    int (*chunk)(cpu_worker *w, uint32_t first, uint32_t count, gpuasm_err *why);
    const void *reads, *opt;    /* gpuasm_seqset / gpuasm_sigset and their options */
    void *out;                  /* signal mode: gpuasm_adsm_hit [n_items x targets] */
    pthread_mutex_t lock;
    uint32_t next, chunk_len;
    int n_threads;
    size_t limit;       /* the output's hit limit (0: none; search.h) */
    size_t hits_total;  /* hits found so far, all threads (lock) */
    uint64_t reads_done;/* reads scanned so far (lock) */
    int failed;
    int chunk_failed;   /* a chunk stopped with an error: reads [0, next) are not all scanned */
    gpuasm_err err;     /* the first failure */
} cpu_job;

struct cpu_worker {
    cpu_job *job;
    gpuasm_hits *hits;
    gpuasm_scan_stats counts;   /* what the filters did (index_*, pieces_*) */
};

static int seq_chunk(cpu_worker *w, uint32_t first, uint32_t count, gpuasm_err *why)
{
    const cpu_job *j = w->job;
    const gpuasm_seqset *reads = j->reads;
    const gpuasm_search_opt *opt = j->opt;
    return gpuasm_cpu_scan_cfg(&j->b->cfg, j->b->prep, reads, first, count, j->b->targets, opt,
                               w->hits, &w->counts, why);
}

static int sig_chunk(cpu_worker *w, uint32_t first, uint32_t count, gpuasm_err *why)
{
    const cpu_job *j = w->job;
    const gpuasm_sigset *t = j->b->sig_targets;
    return gpuasm_signal_cpu_scan(j->reads, first, count, t, j->opt,
                                  (gpuasm_adsm_hit *)j->out + (size_t)first * t->n, why);
}

static void *worker_run(void *arg)
{
    cpu_worker *w = arg;
    cpu_job *j = w->job;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        uint32_t first = j->next;
        int stop = j->failed || first >= j->n_items;
        uint32_t count = stop ? 0 : (j->n_items - first < j->chunk_len ? j->n_items - first : j->chunk_len);
        if (j->limit && count > 1) {
            /* Under a hit limit, chunks small enough that one per thread,
             * at the density seen so far, fits in what is left of it (the
             * first ones small until there is a density): the limit is
             * passed by at most a chunk per thread, not a whole batch. */
            const size_t left = j->limit > j->hits_total ? j->limit - j->hits_total : 0;
            const uint64_t per_read = j->reads_done ? j->hits_total / j->reads_done + 1 : 0;
            uint64_t cap = per_read ? left / (per_read * (uint64_t)j->n_threads) : 8;
            if (cap < 1) cap = 1;
            if (count > cap) count = (uint32_t)cap;
        }
        j->next += count;
        pthread_mutex_unlock(&j->lock);
        if (stop) break;
        gpuasm_err why;
        const size_t before = w->hits->n;
        if (j->chunk(w, first, count, &why) < 0) {
            pthread_mutex_lock(&j->lock);
            if (!j->failed) j->err = why;
            j->failed = 1;
            j->chunk_failed = 1;
            pthread_mutex_unlock(&j->lock);
            break;
        }
        if (!j->limit) continue;
        pthread_mutex_lock(&j->lock);
        j->hits_total += w->hits->n - before;
        j->reads_done += count;
        if (j->hits_total > j->limit && !j->failed) {
            j->failed = 1;
            gpuasm_err_set(&j->err, GPUASM_ERR_HIT_LIMIT, "more than %zu end hits", j->limit);
            gpuasm_err_about(&j->err, GPUASM_NO_INDEX, GPUASM_NO_INDEX, j->hits_total, j->limit);
        }
        const int failed = j->failed;
        pthread_mutex_unlock(&j->lock);
        if (failed) break;
    }
    return NULL;
}

/* Run job over the backend's threads (the caller's thread is worker 0);
 * 0 or the first failure's status. */
static int run_job(cpu_backend *b, cpu_job *job, gpuasm_scan_stats *counts,
                   gpuasm_err *err)
{
    int nt = b->n_threads;
    job->b = b;
    job->next = 0;
    job->failed = 0;
    job->chunk_failed = 0;
    job->n_threads = nt;
    /* Chunks small enough to balance, large enough to keep the lock cold. */
    job->chunk_len = job->n_items / ((uint32_t)nt * 16u);
    if (job->chunk_len < 1) job->chunk_len = 1;
    pthread_mutex_init(&job->lock, NULL);
    cpu_worker *w = calloc((size_t)nt, sizeof(*w));
    pthread_t *tid = calloc((size_t)nt, sizeof(*tid));
    int started = 0;
    if (!w || !tid) {
        job->failed = 1;
        gpuasm_err_set(&job->err, GPUASM_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; !job->failed && i < nt; i++) {
        b->thread_hits[i].n = 0;
        w[i].job = job;
        w[i].hits = &b->thread_hits[i];
        if (i == 0) continue;  /* the calling thread is worker 0 */
        int trc;
        if ((trc = pthread_create(&tid[i], NULL, worker_run, &w[i])) != 0) {
            char why[512];
            pthread_mutex_lock(&job->lock);
            if (!job->failed)
                gpuasm_err_set(&job->err, GPUASM_ERR_THREAD, "%s",
                               gpuasm_thread_error("cannot start a CPU scan thread", trc, why, sizeof why));
            job->failed = 1;
            pthread_mutex_unlock(&job->lock);
            break;
        }
        started = i;
    }
    if (w && tid) worker_run(&w[0]);
    for (int i = 1; i <= started; i++) pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&job->lock);
    for (int i = 0; w && counts && i < nt; i++) {
        counts->index_strands += w[i].counts.index_strands;
        counts->index_declined += w[i].counts.index_declined;
        counts->pieces_kept += w[i].counts.pieces_kept;
        counts->pieces_dropped += w[i].counts.pieces_dropped;
        counts->ends_run += w[i].counts.ends_run;
        counts->ends_skipped += w[i].counts.ends_skipped;
        counts->ends_settled += w[i].counts.ends_settled;
        counts->periodic_cols += w[i].counts.periodic_cols;
    }
    free(w);
    free(tid);
    if (job->failed) {
        *err = job->err;
        return err->status;
    }
    return 0;
}

static int cpu_device_count(void) { return 1; }

static int cpu_open(const gpuasm_backend_cfg *cfg, void **self, gpuasm_err *err)
{
    cpu_backend *b = calloc(1, sizeof(*b));
    if (b) {
        b->n_threads = cfg->n_threads < 1 ? 1 : cfg->n_threads;
        b->thread_hits = calloc((size_t)b->n_threads, sizeof(*b->thread_hits));
    }
    if (!b || !b->thread_hits) {
        free(b);
        return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
    }
    gpuasm_cpu_cfg_default(&b->cfg);
    b->cfg.threads = b->n_threads;
    /* A huge pair's bands may run on the other threads (kernels/bands.h). */
    gpuasm_bands_set_helpers(b->n_threads - 1, 0);
    if (cfg->settings) {
        b->cfg.simd = gpuasm_simd_choose(cfg->settings->cpu_simd);
        b->cfg.prefilter = (int)gpuasm_knob(cfg->settings->cpu_prefilter, 1);
        b->cfg.lane_min = cfg->settings->cpu_lane_min;
        b->cfg.index_max = cfg->settings->cpu_index_max;
        b->cfg.ends_filter = (int)gpuasm_knob(cfg->settings->cpu_ends_filter, 1);
        b->cfg.periodic = (int)gpuasm_knob(cfg->settings->cpu_periodic, 1);
        b->cfg.ends_classes = (int)gpuasm_knob(cfg->settings->cpu_ends_classes, 1);
    }
    snprintf(b->desc, sizeof b->desc, "cpu (%d thread%s, %s)", b->n_threads, b->n_threads > 1 ? "s" : "",
             gpuasm_simd_name(b->cfg.simd));
    *self = b;
    return 0;
}

static const char *cpu_describe(const void *self) { return ((const cpu_backend *)self)->desc; }

const char *gpuasm_cpu_backend_simd(const void *self)
{
    return gpuasm_simd_name(((const cpu_backend *)self)->cfg.simd);
}

static const char *cpu_filter_desc(const void *self)
{
    return gpuasm_cpu_prep_describe(((const cpu_backend *)self)->prep);
}

static int cpu_set_targets(void *self, const gpuasm_seqset *targets, gpuasm_err *err)
{
    cpu_backend *b = self;
    (void)err;
    b->targets = targets;
    gpuasm_cpu_prep_free(b->prep);   /* built again by the next scan */
    b->prep = NULL;
    return 0;
}

static int cpu_scan(void *self, const gpuasm_seqset *reads, const gpuasm_search_opt *opt,
                    gpuasm_hits *out, gpuasm_scan_stats *st, gpuasm_err *err)
{
    cpu_backend *b = self;
    if (!b->targets) return gpuasm_err_set(err, GPUASM_ERR_INTERNAL, "CPU backend: no targets set");
    /* One scan at a time per backend (backend.h), so the tables are built
     * here, before the threads start, and only read by them. */
    if (!gpuasm_cpu_prep_fits(b->prep, b->targets, opt)) {
        gpuasm_cpu_prep_free(b->prep);
        b->prep = NULL;
        int prc = gpuasm_cpu_prep_build(b->targets, opt, &b->cfg, &b->prep, err);
        if (prc < 0) return prc;
        st->index_build_s += gpuasm_cpu_prep_index_s(b->prep);
        st->tables_bytes += gpuasm_cpu_prep_bytes(b->prep);
    }
    cpu_job job = { .n_items = reads->n, .chunk = seq_chunk, .reads = reads, .opt = opt,
                    .limit = out->limit };
    int rc = run_job(b, &job, st, err);
    /* Stopped at the hit limit: every chunk taken was finished (a thread
     * checks the limit after its chunk, and takes none once it is
     * passed), so reads [0, next) are scanned and their hits are the
     * threads' arrays: returned with the status, as a round the caller
     * may keep (gpuasm_hits.scanned), not thrown away. */
    const int partial = rc == GPUASM_ERR_HIT_LIMIT && !job.chunk_failed && job.next > 0;
    if (rc < 0 && !partial) return rc;
    size_t total = 0;
    for (int i = 0; i < b->n_threads; i++) total += b->thread_hits[i].n;
    if (gpuasm_hits_reserve(out, total) < 0) return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
    for (int i = 0; i < b->n_threads; i++) {
        if (b->thread_hits[i].n)
            memcpy(out->hit + out->n, b->thread_hits[i].hit, b->thread_hits[i].n * sizeof(*out->hit));
        out->n += b->thread_hits[i].n;
    }
    gpuasm_hits_sort(out);
    out->scanned = partial ? job.next : reads->n;
    /* once for the reads scanned, not per chunk: it sorts the targets'
     * lengths (6,670 of a database: ~1% of a run when done per chunk) */
    st->cells = gpuasm_scan_cells(reads, 0, out->scanned, b->targets, opt);
    st->kernel_s = -1;   /* no separate kernel clock: the engine uses the call's wall time */
    return rc;
}

static int cpu_set_signal_targets(void *self, const gpuasm_sigset *targets, gpuasm_err *err)
{
    (void)err;
    ((cpu_backend *)self)->sig_targets = targets;
    return 0;
}

static int cpu_scan_signals(void *self, const gpuasm_sigset *reads, const gpuasm_signal_opt *opt,
                            gpuasm_adsm_hit *out, gpuasm_scan_stats *st, gpuasm_err *err)
{
    cpu_backend *b = self;
    if (!b->sig_targets)
        return gpuasm_err_set(err, GPUASM_ERR_INTERNAL, "CPU backend: no signal targets set");
    cpu_job job = { .n_items = reads->n, .chunk = sig_chunk, .reads = reads, .opt = opt, .out = out };
    int rc = run_job(b, &job, NULL, err);
    if (rc < 0) return rc;
    st->cells = gpuasm_signal_cells(reads, b->sig_targets);
    st->kernel_s = -1;
    return 0;
}

static uint64_t cpu_suggest(const void *self)
{
    uint64_t b = CPU_BATCH_BASES_PER_THREAD * (uint64_t)((const cpu_backend *)self)->n_threads;
    return b < CPU_BATCH_BASES_MAX ? b : CPU_BATCH_BASES_MAX;
}

static void *cpu_host_alloc(size_t bytes) { return malloc(bytes ? bytes : 1); }
static void cpu_host_free(void *p) { free(p); }

static void cpu_close(void *self)
{
    cpu_backend *b = self;
    if (!b) return;
    for (int i = 0; i < b->n_threads; i++) gpuasm_hits_free(&b->thread_hits[i]);
    free(b->thread_hits);
    gpuasm_cpu_prep_free(b->prep);
    free(b);
}

const gpuasm_backend_ops gpuasm_backend_cpu = {
    .name = "cpu",
    .device_count = cpu_device_count,
    .open = cpu_open,
    .describe = cpu_describe,
    .set_targets = cpu_set_targets,
    .scan = cpu_scan,
    .set_signal_targets = cpu_set_signal_targets,
    .scan_signals = cpu_scan_signals,
    .filter_desc = cpu_filter_desc,
    .suggest_batch_bases = cpu_suggest,
    .host_alloc = cpu_host_alloc,
    .host_free = cpu_host_free,
    .close = cpu_close,
};
