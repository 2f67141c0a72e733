/* SPDX-License-Identifier: MIT */
/* backend.h -- the interface every search backend implements: open, take
 * the targets, scan a batch, say what it did, close.
 *
 * One backend instance is one "lane": a queue of scans driven by one host
 * thread at a time (the engine, engine.h, opens as many as the device list
 * asks for and runs them side by side).  The CPU backend (cpu_backend.c)
 * spreads each scan over its threads; the CUDA backend (cuda_backend.cu)
 * owns one device's stream, buffers and uploads, and runs the row of the
 * kernel table (registry.h) that opt->kernel names.  Whatever the backend,
 * scan() returns exactly the end hits of search.h's contract, sorted
 * (gpuasm_hits_sort), so everything after it is backend-independent.
 */
#ifndef GPUASM_BACKEND_H
#define GPUASM_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include "search/search.h"
#include "search/settings.h"
#include "search/signal_mode.h"
#include "search/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpuasm_backend_cfg {
    int device;                        /* CUDA: 0-based device number; CPU: unused */
    int n_threads;                     /* CPU: worker threads (>= 1); CUDA: host threads that build
                                        * the targets' index and plan the filters' windows (>= 1) */
    const gpuasm_settings *settings;   /* knobs (settings.h); outlives the backend */
} gpuasm_backend_cfg;

typedef struct gpuasm_backend_ops {
    const char *name;                  /* "cpu", "cuda" */
    /* Usable devices of this kind (the CPU: 1; CUDA: 0 when there is no
     * GPU or no driver). */
    int (*device_count)(void);
    /* A new instance in *self.  0 or a status (NO_DEVICE, CUDA, NOMEM). */
    int (*open)(const gpuasm_backend_cfg *cfg, void **self, gpuasm_err *err);
    /* One line, e.g. "cpu (4 threads)" or "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79 GiB)". */
    const char *(*describe)(const void *self);
    /* The targets of every later scan (kept by pointer: they must outlive
     * the instance; a device copy is made once, here).  0 or a status. */
    int (*set_targets)(void *self, const gpuasm_seqset *targets, gpuasm_err *err);
    /* Append the end hits of reads x targets to out (which the caller
     * cleared), sorted, and set st->cells and st->kernel_s (device time of
     * the search kernels, or -1 for a backend without a separate kernel
     * clock: the engine then takes the call's wall time) of this call.  0 or a
     * status; a failure about one pair sets err->read (batch index) and
     * err->target.  With out->limit set (search.h), a scan that finds more
     * end hits stops with GPUASM_ERR_HIT_LIMIT instead of holding them
     * (the caller scans fewer reads: the memory bound of issue #12); device
     * memory running out in a scan is GPUASM_ERR_NOMEM (the same answer). */
    int (*scan)(void *self, const gpuasm_seqset *reads, const gpuasm_search_opt *opt,
                gpuasm_hits *out, gpuasm_scan_stats *st, gpuasm_err *err);
    /* The signal mode (signal_mode.h).  set_signal_targets: the reference
     * signals of later scan_signals calls (kept by pointer, like
     * set_targets).  scan_signals: out[r * targets->n + t] for every (read,
     * reference) pair of the batch (the caller checked the batch with
     * gpuasm_signal_check), st->cells and st->kernel_s as scan().  0 or a
     * status. */
    int (*set_signal_targets)(void *self, const gpuasm_sigset *targets, gpuasm_err *err);
    int (*scan_signals)(void *self, const gpuasm_sigset *reads, const gpuasm_signal_opt *opt,
                        gpuasm_adsm_hit *out, gpuasm_scan_stats *st, gpuasm_err *err);
    /* What the exact filters (--filter) did in the last scan, one line
     * (e.g. "auto: pieces (q 6-8) + index (...)"), or NULL before it. */
    const char *(*filter_desc)(const void *self);
    /* Read bases per batch suited to this instance (> 0). */
    uint64_t (*suggest_batch_bases)(const void *self);
    /* Host memory for batch buffers (CUDA: pinned, for fast copies); NULL
     * when out of memory.  Any host memory may be passed to scan(). */
    void *(*host_alloc)(size_t bytes);
    void (*host_free)(void *p);
    void (*close)(void *self);
} gpuasm_backend_ops;

/* The CPU backend (always there). */
extern const gpuasm_backend_ops gpuasm_backend_cpu;

/* The SIMD level a CPU backend instance runs ("avx512", "avx2", "sse4.1",
 * "scalar"; cpu_simd.h), chosen when it opened. */
const char *gpuasm_cpu_backend_simd(const void *self);

/* The CUDA backend, or NULL in a build without CUDA. */
const gpuasm_backend_ops *gpuasm_backend_cuda_ops(void);

/* The CUDA backend itself (engine/cuda_backend.cu; only in a CUDA build). */
extern const gpuasm_backend_ops gpuasm_backend_cuda;

#ifdef __cplusplus
}
#endif
#endif
