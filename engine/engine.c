/* SPDX-License-Identifier: MIT */
/* engine.c -- a device list -> lanes of backends (see engine.h).
 *
 * Each lane keeps its own statistics, touched only by the one thread that
 * drives the lane; totals are summed under a lock.
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
#include "engine/backend.h"
#include "util/clock.h"
#include "engine/engine.h"
#include "kernels/registry.h"
#include "search/settings.h"

/* The CUDA backend exists only in a CUDA build (engine/cuda_backend.cu). */
#ifdef HAVE_CUDA
const gpuasm_backend_ops *gpuasm_backend_cuda_ops(void) { return &gpuasm_backend_cuda; }
#else
const gpuasm_backend_ops *gpuasm_backend_cuda_ops(void) { return NULL; }
#endif

/* Devices one list may name; more than any host has. */
#define MAX_DEVICES 64
/* CUDA lanes (streams) per device: one.  Two were meant to let one batch's
 * copies overlap another's kernels, but the A/B of issue #14 on an H100
 * measured 1 lane faster on P2 and P3: two batches' kernels share the SMs
 * (BENCHMARKS.md, "Measurements behind the code").  GPUASM_CUDA_LANES
 * (settings.h) sets 1..MAX_LANES. */
#define LANES_PER_DEVICE 1
#define MAX_LANES_PER_DEVICE 8

typedef struct {
    const gpuasm_backend_ops *ops;
    void *self;
    int device;                /* CUDA device number, -1 for the CPU */
    gpuasm_scan_stats stats;   /* this lane's totals */
} lane_t;

struct gpuasm_engine {
    gpuasm_settings settings;
    int n_lanes;
    lane_t *lane;
    int is_cuda;
    int n_threads;              /* -@: CPU workers; CUDA lanes' host threads (index, planning) */
    const gpuasm_sigset *sig_targets;   /* signal mode: the reference signals */
    pthread_mutex_t stats_lock; /* lane stats are added and summed under it */
    char desc[1024];
};

/* ---- the device list ------------------------------------------------------ */

typedef struct {
    int kind;                  /* 0 cpu, 1 cuda (must), -1 auto (cuda if any) */
    int all;                   /* cuda:all, or auto */
    int n;                     /* devices listed (when !all); 0 with kind 1: device 0 */
    int dev[MAX_DEVICES];
} device_spec;

static int bad_list(const char *spec, gpuasm_err *err)
{
    return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION,
                          "'%s' (expected auto, cpu, cuda, cuda:N, cuda:N,M,... or cuda:all)",
                          spec);
}

/* Parse a device list.  0, or GPUASM_ERR_BAD_OPTION. */
static int parse_device(const char *spec, device_spec *d, gpuasm_err *err)
{
    memset(d, 0, sizeof(*d));
    if (!strcmp(spec, "cpu")) return 0;
    if (!strcmp(spec, "auto")) {
        d->kind = -1;
        d->all = 1;
        return 0;
    }
    d->kind = 1;
    if (!strcmp(spec, "cuda")) return 0;
    if (strncmp(spec, "cuda:", 5) != 0) return bad_list(spec, err);
    const char *p = spec + 5;
    if (!strcmp(p, "all")) {
        d->all = 1;
        return 0;
    }
    /* A comma list of device numbers: digits only (strtol alone would take
     * signs and spaces), no empty items, no repeats. */
    for (;;) {
        if (!isdigit((unsigned char)*p)) return bad_list(spec, err);
        long v = 0;
        while (isdigit((unsigned char)*p)) {
            v = v * 10 + (*p++ - '0');
            if (v > 1024) return bad_list(spec, err);
        }
        for (int i = 0; i < d->n; i++)
            if (d->dev[i] == (int)v)
                return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION, "'%s': device %ld listed twice",
                                      spec, v);
        if (d->n == MAX_DEVICES)
            return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION, "'%s': more than %d devices", spec,
                                  MAX_DEVICES);
        d->dev[d->n++] = (int)v;
        if (*p == 0) return 0;
        if (*p++ != ',') return bad_list(spec, err);
    }
}

/* ---- open / close --------------------------------------------------------- */

static int add_lane(gpuasm_engine *e, const gpuasm_backend_ops *ops, const gpuasm_backend_cfg *cfg,
                    gpuasm_err *err)
{
    lane_t *l = &e->lane[e->n_lanes];
    int rc = ops->open(cfg, &l->self, err);
    if (rc < 0) return rc;
    l->ops = ops;
    l->device = ops == &gpuasm_backend_cpu ? -1 : cfg->device;
    e->n_lanes++;
    return 0;
}

static void close_lanes(gpuasm_engine *e)
{
    for (int i = 0; i < e->n_lanes; i++) e->lane[i].ops->close(e->lane[i].self);
    e->n_lanes = 0;
    e->desc[0] = 0;
}

/* GPUASM_CUDA_LANES (default LANES_PER_DEVICE) CUDA lanes on every device of d.  0, or a status (every
 * lane opened so far is closed again). */
static int open_cuda_lanes(gpuasm_engine *e, const device_spec *d, gpuasm_err *err)
{
    const gpuasm_backend_ops *cuda = gpuasm_backend_cuda_ops();
    if (!cuda) return gpuasm_err_set(err, GPUASM_ERR_NO_DEVICE, "this gpuasm was built without CUDA");
    int count = cuda->device_count();
    int devs[MAX_DEVICES], n = 0;
    if (count <= 0) return gpuasm_err_set(err, GPUASM_ERR_NO_DEVICE, "no CUDA device found");
    if (d->all) {
        for (int i = 0; i < count && i < MAX_DEVICES; i++) devs[n++] = i;
    } else if (d->n == 0) {
        devs[n++] = 0;
    } else {
        for (int i = 0; i < d->n; i++) {
            if (d->dev[i] >= count)
                return gpuasm_err_set(err, GPUASM_ERR_NO_DEVICE, "CUDA device %d not found (%d present)",
                                      d->dev[i], count);
            devs[n++] = d->dev[i];
        }
    }
    size_t dl = 0;
    for (int i = 0; i < n; i++) {
        gpuasm_backend_cfg cfg = { .device = devs[i], .n_threads = e->n_threads, .settings = &e->settings };
        const int per_dev = (int)gpuasm_knob(e->settings.cuda_lanes, LANES_PER_DEVICE);
        for (int s = 0; s < per_dev; s++) {
            int rc = add_lane(e, cuda, &cfg, err);
            if (rc < 0) {
                char why[sizeof err->msg];
                snprintf(why, sizeof why, "%s", err->msg);
                gpuasm_err_set(err, rc, "CUDA device %d: %s", devs[i], why);
                close_lanes(e);
                return rc;
            }
        }
        /* "cuda:0 NAME" for one device, "cuda:0 NAME, cuda:1 NAME" for more. */
        if (dl < sizeof e->desc)
            dl += (size_t)snprintf(e->desc + dl, sizeof e->desc - dl, "%scuda:%d %s", i ? ", " : "",
                                   devs[i], cuda->describe(e->lane[e->n_lanes - 1].self));
    }
    e->is_cuda = 1;
    return 0;
}

int gpuasm_engine_open(const char *device, int n_threads, gpuasm_engine **out,
                       gpuasm_err *err, gpuasm_err *fallback)
{
    device_spec d;
    gpuasm_err why;   /* why "auto" fell back to the CPU */
    *out = NULL;
    gpuasm_err_set(&why, GPUASM_OK, "no fallback");
    if (fallback) *fallback = why;
    int rc = parse_device(device, &d, err);
    if (rc < 0) return rc;
    gpuasm_engine *e = calloc(1, sizeof(*e));
    if (!e) return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&e->stats_lock, NULL);
    e->n_threads = n_threads < 1 ? 1 : n_threads;
    if ((rc = gpuasm_settings_read(&e->settings, err)) < 0) goto fail;
    /* Room for the largest lane count a list can ask for. */
    if (!(e->lane = calloc((size_t)MAX_DEVICES * MAX_LANES_PER_DEVICE, sizeof(*e->lane)))) {
        rc = gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (d.kind) {
        rc = open_cuda_lanes(e, &d, d.kind > 0 ? err : &why);
        if (rc == 0) {
            *out = e;
            return 0;
        }
        if (d.kind > 0) goto fail;
        if (rc == GPUASM_ERR_NOMEM) {   /* not a CUDA problem: no fallback */
            *err = why;
            goto fail;
        }
        if (fallback) *fallback = why;
    }
    gpuasm_backend_cfg cfg = { .device = -1, .n_threads = n_threads < 1 ? 1 : n_threads,
                               .settings = &e->settings };
    if ((rc = add_lane(e, &gpuasm_backend_cpu, &cfg, err)) < 0) goto fail;
    snprintf(e->desc, sizeof e->desc, "%s", gpuasm_backend_cpu.describe(e->lane[0].self));
    *out = e;
    return 0;
fail:
    gpuasm_engine_close(e);
    return rc;
}

void gpuasm_engine_close(gpuasm_engine *e)
{
    if (!e) return;
    if (e->lane) close_lanes(e);
    free(e->lane);
    pthread_mutex_destroy(&e->stats_lock);
    free(e);
}

const char *gpuasm_engine_describe(const gpuasm_engine *e) { return e->desc; }

const char *gpuasm_engine_simd(const gpuasm_engine *e)
{
    for (int i = 0; i < e->n_lanes; i++)
        if (e->lane[i].ops == &gpuasm_backend_cpu) return gpuasm_cpu_backend_simd(e->lane[i].self);
    return NULL;
}

const char *gpuasm_engine_filter(const gpuasm_engine *e)
{
    for (int i = 0; i < e->n_lanes; i++) {
        const char *d = e->lane[i].ops->filter_desc ? e->lane[i].ops->filter_desc(e->lane[i].self) : NULL;
        if (d) return d;
    }
    return NULL;
}

int gpuasm_engine_is_cuda(const gpuasm_engine *e) { return e->is_cuda; }

int gpuasm_engine_lanes(const gpuasm_engine *e) { return e->n_lanes; }

int gpuasm_engine_set_targets(gpuasm_engine *e, const gpuasm_seqset *targets, gpuasm_err *err)
{
    for (int i = 0; i < e->n_lanes; i++) {
        int rc = e->lane[i].ops->set_targets(e->lane[i].self, targets, err);
        if (rc < 0) return rc;
    }
    return 0;
}

uint64_t gpuasm_engine_suggest_batch_bases(const gpuasm_engine *e)
{
    /* Every lane must take any batch: the smallest suggestion wins. */
    uint64_t best = 0;
    for (int i = 0; i < e->n_lanes; i++) {
        uint64_t s = e->lane[i].ops->suggest_batch_bases(e->lane[i].self);
        if (s > 0 && (best == 0 || s < best)) best = s;
    }
    return best;
}

/* ---- scans ---------------------------------------------------------------- */

void gpuasm_scan_stats_add(gpuasm_scan_stats *to, const gpuasm_scan_stats *s)
{
    to->kernel_s += s->kernel_s;
    to->scan_s += s->scan_s;
    to->cells += s->cells;
    to->end_hits += s->end_hits;
    to->scans += s->scans;
    to->index_strands += s->index_strands;
    to->index_declined += s->index_declined;
    to->pieces_kept += s->pieces_kept;
    to->pieces_dropped += s->pieces_dropped;
    to->ends_run += s->ends_run;
    to->ends_skipped += s->ends_skipped;
    to->ends_settled += s->ends_settled;
    to->periodic_cols += s->periodic_cols;
    to->index_build_s += s->index_build_s;
    to->tables_bytes += s->tables_bytes;
    to->plan_s += s->plan_s;
    to->ends_kernel_s += s->ends_kernel_s;
    to->ends_cells += s->ends_cells;
}

int gpuasm_engine_scan_lane(gpuasm_engine *e, int lane, const gpuasm_seqset *reads,
                            const gpuasm_search_opt *opt, gpuasm_hits *out, gpuasm_err *err)
{
    if (lane < 0 || lane >= e->n_lanes)
        return gpuasm_err_set(err, GPUASM_ERR_INTERNAL, "no lane %d (%d lanes)", lane, e->n_lanes);
    int rc = gpuasm_search_check(opt, err);
    if (rc < 0) return rc;
    lane_t *l = &e->lane[lane];
    gpuasm_scan_stats s = { 0 };
    double t0 = gpuasm_now_s();
    out->n = 0;
    out->scanned = 0;
    gpuasm_search_opt all;
    if (opt->keep != GPUASM_KEEP_ALL && e->settings.keep_all == 1) {
        all = *opt;
        all.keep = GPUASM_KEEP_ALL;
        opt = &all;
    }
    rc = l->ops->scan(l->self, reads, opt, out, &s, err);
    /* A scan stopped at the hit limit that kept its first reads' hits
     * (gpuasm_hits.scanned) counts: the caller keeps them */
    if (rc < 0 && !(rc == GPUASM_ERR_HIT_LIMIT && out->scanned > 0)) {
        out->scanned = 0;
        return rc;
    }
    if (rc == 0) out->scanned = reads->n;
    s.scan_s = gpuasm_now_s() - t0;   /* wall time of the whole call */
    if (s.kernel_s < 0) s.kernel_s = s.scan_s;
    s.end_hits = out->n;
    s.scans = 1;
    pthread_mutex_lock(&e->stats_lock);
    gpuasm_scan_stats_add(&l->stats, &s);
    pthread_mutex_unlock(&e->stats_lock);
    return rc;
}

int gpuasm_engine_scan(gpuasm_engine *e, const gpuasm_seqset *reads,
                       const gpuasm_search_opt *opt, gpuasm_hits *out, gpuasm_err *err)
{
    return gpuasm_engine_scan_lane(e, 0, reads, opt, out, err);
}

int gpuasm_engine_set_signal_targets(gpuasm_engine *e, const gpuasm_sigset *targets,
                                     const gpuasm_signal_opt *opt, gpuasm_err *err)
{
    int rc = gpuasm_signal_check(NULL, targets, opt, err);
    for (int i = 0; rc == 0 && i < e->n_lanes; i++)
        rc = e->lane[i].ops->set_signal_targets(e->lane[i].self, targets, err);
    if (rc == 0) e->sig_targets = targets;
    return rc;
}

int gpuasm_engine_scan_signals_lane(gpuasm_engine *e, int lane, const gpuasm_sigset *reads,
                                    const gpuasm_signal_opt *opt, gpuasm_adsm_hit *out,
                                    gpuasm_err *err)
{
    if (lane < 0 || lane >= e->n_lanes)
        return gpuasm_err_set(err, GPUASM_ERR_INTERNAL, "no lane %d (%d lanes)", lane, e->n_lanes);
    if (!e->sig_targets) return gpuasm_err_set(err, GPUASM_ERR_INTERNAL, "no signal targets set");
    int rc = gpuasm_signal_check(reads, NULL, opt, err);
    if (rc < 0) return rc;
    lane_t *l = &e->lane[lane];
    gpuasm_scan_stats s = { 0 };
    double t0 = gpuasm_now_s();
    if (reads->n && e->sig_targets->n &&
        (rc = l->ops->scan_signals(l->self, reads, opt, out, &s, err)) < 0)
        return rc;
    s.scan_s = gpuasm_now_s() - t0;
    if (s.kernel_s < 0) s.kernel_s = s.scan_s;
    s.end_hits = (uint64_t)reads->n * e->sig_targets->n;
    s.scans = 1;
    pthread_mutex_lock(&e->stats_lock);
    gpuasm_scan_stats_add(&l->stats, &s);
    pthread_mutex_unlock(&e->stats_lock);
    return 0;
}

void gpuasm_engine_stats(gpuasm_engine *e, gpuasm_scan_stats *total)
{
    memset(total, 0, sizeof(*total));
    pthread_mutex_lock(&e->stats_lock);
    for (int i = 0; i < e->n_lanes; i++) gpuasm_scan_stats_add(total, &e->lane[i].stats);
    pthread_mutex_unlock(&e->stats_lock);
}

/* ---- host memory ------------------------------------------------------------ */

void *gpuasm_engine_host_alloc(gpuasm_engine *e, size_t bytes)
{
    return e->lane[0].ops->host_alloc(bytes);
}

void gpuasm_engine_host_free(gpuasm_engine *e, void *p)
{
    e->lane[0].ops->host_free(p);
}
