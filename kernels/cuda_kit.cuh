/* SPDX-License-Identifier: MIT */
/* cuda_kit.cuh -- what the CUDA backend (cuda_backend.cu) gives every
 * kernel's launcher: the batch on the device, where hits go, grow-only
 * scratch memory, per-lane kernel state, the knobs, and CUDA error checks.
 * C++ for .cu files only.
 *
 * The contract of a launcher (a row's .cuda.launch in registry.c):
 *   - it plans on the host from b->host (lengths, options; never device
 *     memory), uploads what it planned, calls kit_begin_kernels(*b) once
 *     (the device time from there to its return is the scan's kernel_s, so
 *     host planning is not counted), and queues kernels on b->stream that
 *     call b->out.emit() for
 *     every end hit of search.h's contract (the local minima of D[m][.]
 *     <= k of every searched (read, target, strand); any order);
 *   - it reads and writes only b->dev, b->out, b->scratch and its own
 *     *b->state; it must not synchronise the device (streams of other
 *     lanes run beside it), only b->stream;
 *   - it may be called twice for one batch (when the hit buffer overflowed
 *     the backend grows it and calls again), so it must be deterministic
 *     and keep nothing between calls but capacity and target-derived state
 *     (rebuild that when b->targets_version changes);
 *   - pairs whose pattern is longer than the row's max_pattern never reach
 *     it (the backend refuses the batch first, as the CPU twins do);
 *   - it returns 0, or a negative status with err (KIT_CK does this for
 *     CUDA calls); C++ exceptions are caught by the backend.
 */
#ifndef GPUASM_CUDA_KIT_CUH
#define GPUASM_CUDA_KIT_CUH

#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/cuda_device.cuh"
#include "kernels/cuda_launch.h"
#include "kernels/registry.h"
#include "search/search.h"
#include "search/settings.h"
#include "search/signal_mode.h"
#include "search/status.h"

/* Hits into a device array; an index past cap is counted, not written.
 * Warp-aggregated: one atomicAdd per converged set of lanes. */
struct dev_out {
    gpuasm_endhit *hit;
    unsigned long long *count;
    unsigned long long cap;
    HD void emit(uint32_t r, uint32_t t, uint32_t j, int32_t d, uint32_t s)
    {
        emit_kind(r, t, j, d, s, GPUASM_HIT_FULL, 0);
    }
    /* A hit of any kind (search.h: partial hits carry kind and plen). */
    HD void emit_kind(uint32_t r, uint32_t t, uint32_t j, int32_t d, uint32_t s, uint32_t kind,
                      uint32_t plen)
    {
#ifdef __CUDA_ARCH__
        namespace cg = cooperative_groups;
        cg::coalesced_group grp = cg::coalesced_threads();
        unsigned long long base = 0;
        if (grp.thread_rank() == 0) base = atomicAdd(count, (unsigned long long)grp.size());
        base = grp.shfl(base, 0);
        const unsigned long long i = base + grp.thread_rank();
        if (i < cap) {
            gpuasm_endhit e;
            e.read = r;
            e.target = t;
            e.end = j;
            e.dist = d;
            e.strand = (uint16_t)s;
            e.kind = (uint16_t)kind;
            e.plen = plen;
            hit[i] = e;
        }
#else
        (void)r; (void)t; (void)j; (void)d; (void)s; (void)kind; (void)plen;
#endif
    }
};

/* emit(j, d) of one (read, target, strand). */
template <class Out> struct emitter {
    Out *out;
    uint32_t r, t, s;
    HD void operator()(uint32_t j, int32_t d) { out->emit(r, t, j, d, s); }
};

/* Grow-only device memory owned by the lane.  A lane has two arrays of
 * KIT_SCRATCH_SLOTS slots: one the search kernels share (one kernel runs
 * per scan: each names its slots in an enum of its own, e.g.
 * kernels/myers/myers_slots.h, with a static_assert against
 * KIT_SCRATCH_SLOTS), and one for the ends pass, which runs beside the
 * kernel on a stream of its own (kernels/ends/partial_cuda.cu). */
struct kit_scratch {
    void *p;
    size_t cap;   /* bytes */
};
enum { KIT_SCRATCH_SLOTS = 8 };

/* One batch as a launcher sees it (the C name is in registry.h). */
struct gpuasm_cuda_batch {
    gpuasm_batch_view host;        /* reads and targets in host memory, and the options */
    gpuasm_batch_view dev;         /* the same sequences on the device (same opt) */
    dev_out out;                   /* where end hits go */
    cudaStream_t stream;           /* the lane's stream: every launch and copy goes here */
    int device, sm_count;
    size_t smem_optin;             /* opt-in shared memory per block (bytes) */
    const gpuasm_settings *settings;
    kit_scratch *scratch;          /* [KIT_SCRATCH_SLOTS]: the kernel's (the ends pass: its own) */
    void **state;                  /* this kernel's per-lane state (NULL at first) */
    uint64_t targets_version;      /* changes whenever the targets change */
    cudaEvent_t ev_begin;          /* recorded by kit_begin_kernels() */
    int *began;                    /* set by kit_begin_kernels() */
};

/* A batch of the signal mode (registry.h's second launcher signature):
 * what a signal launcher gets beside the lane's gpuasm_cuda_batch (whose
 * stream, scratch, state, settings and ev_begin it uses; its sequence
 * views are empty).  The launcher uploads the signals itself (the
 * references once per targets_version, into its state), queues its
 * kernels, records ev_end after the last of them, and writes every
 * (read, reference) result into out (host memory, reads.n x targets.n,
 * signal_mode.h's order), waiting for b->stream only; kernel_ms: device time
 * from ev_begin to ev_end. */
struct gpuasm_signal_batch {
    gpuasm_sigset reads;           /* host */
    gpuasm_sigset targets;         /* host */
    gpuasm_signal_opt opt;
    gpuasm_adsm_hit *out;          /* host: [reads.n x targets.n] */
    cudaEvent_t ev_end;
    float kernel_ms;               /* set by the launcher */
};

/* "CUDA: <call>: <error string>" into err; returns GPUASM_ERR_CUDA, or
 * GPUASM_ERR_NOMEM for device memory exhausted (not sticky: the caller may
 * retry with a smaller batch, as the pipeline does). */
static inline int kit_fail(gpuasm_err *err, const char *call, cudaError_t e)
{
    const int status = e == cudaErrorMemoryAllocation ? GPUASM_ERR_NOMEM : GPUASM_ERR_CUDA;
    if (status == GPUASM_ERR_NOMEM) (void)cudaGetLastError();   /* clear it */
    return gpuasm_err_set(err, status, "CUDA: %.*s: %s", (int)strcspn(call, "("), call,
                          cudaGetErrorString(e));
}

#define KIT_CK(call) do {                                                 \
        cudaError_t kit_e_ = (call);                                      \
        if (kit_e_ != cudaSuccess) return kit_fail(err, #call, kit_e_);   \
    } while (0)

/* After a launch (launch errors show now, execution errors at the next sync). */
#define KIT_CK_LAUNCH(name) do {                                          \
        cudaError_t kit_e_ = cudaGetLastError();                          \
        if (kit_e_ != cudaSuccess) return kit_fail(err, name, kit_e_);    \
    } while (0)

/* Before a launch: forget an earlier error that was already reported, so
 * that KIT_CK_LAUNCH sees this launch's own. */
#define KIT_CLEAR_ERR() ((void)cudaGetLastError())

/* Pinned host memory (cudaHostAlloc), or NULL; NULL is freed as nothing.
 * The backend's batch buffers and the planned windows (plan_upload.cuh):
 * the device copies them asynchronously. */
static inline void *kit_host_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocDefault) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

static inline void kit_host_free(void *p)
{
    if (p) (void)cudaFreeHost(p);
}

/* Make *p hold at least `bytes` bytes of device memory, capacity in *cap
 * (contents not kept; 25% slack so that slowly growing batches do not
 * reallocate every time; the stream is synchronised first when it must
 * grow, since cudaFree would wait for the device anyway).  0 or a status. */
static inline int kit_grow_buf(cudaStream_t stream, void **p, size_t *cap, size_t bytes,
                               gpuasm_err *err)
{
    if (bytes <= *cap && *p) return 0;
    if (*p) {
        KIT_CK(cudaStreamSynchronize(stream));
        KIT_CK(cudaFree(*p));
    }
    *p = NULL;
    *cap = 0;
    size_t want = bytes + bytes / 4;
    if (want < bytes) want = bytes;
    if (want == 0) want = 1;
    KIT_CK(cudaMalloc(p, want));
    *cap = want;
    return 0;
}

/* Scratch slot `slot` of the batch's lane, at least `bytes` bytes. */
static inline int kit_grow(const gpuasm_cuda_batch &b, int slot, size_t bytes, void **out,
                           gpuasm_err *err)
{
    kit_scratch *s = &b.scratch[slot];
    int rc = kit_grow_buf(b.stream, &s->p, &s->cap, bytes, err);
    *out = s->p;
    return rc;
}

/* Mark the start of the device work of a scan (see the contract above).
 * Calling it again does nothing.  0 or GPUASM_ERR_CUDA. */
static inline int kit_begin_kernels(const gpuasm_cuda_batch &b, gpuasm_err *err)
{
    if (*b.began) return 0;
    KIT_CK(cudaEventRecord(b.ev_begin, b.stream));
    *b.began = 1;
    return 0;
}

/* Launches at once beside one another (the LONG path's shapes, the ends
 * pass's widths): launch i of n runs on kit_fork_stream(f, i), launch 0 on
 * the main stream, the others on side streams that start after the work
 * queued on main so far; kit_fork_join() makes main wait for all of them.
 * CUDA releases the streams and events once their work is done. */
enum { KIT_FORK_MAX = 8 };
struct kit_fork {
    cudaStream_t main;
    cudaEvent_t ready;
    cudaStream_t side[KIT_FORK_MAX];
    cudaEvent_t done[KIT_FORK_MAX];
    size_t n;
};

static inline int kit_fork_open(kit_fork &f, cudaStream_t main, size_t n, gpuasm_err *err)
{
    f.main = main;
    f.ready = NULL;
    f.n = n < KIT_FORK_MAX ? n : KIT_FORK_MAX;
    for (size_t i = 0; i < KIT_FORK_MAX; ++i) {
        f.side[i] = main;
        f.done[i] = NULL;
    }
    if (f.n < 2) return 0;
    KIT_CK(cudaEventCreateWithFlags(&f.ready, cudaEventDisableTiming));
    KIT_CK(cudaEventRecord(f.ready, main));
    for (size_t i = 1; i < f.n; ++i) {
        KIT_CK(cudaStreamCreateWithFlags(&f.side[i], cudaStreamNonBlocking));
        KIT_CK(cudaEventCreateWithFlags(&f.done[i], cudaEventDisableTiming));
        KIT_CK(cudaStreamWaitEvent(f.side[i], f.ready, 0));
    }
    return 0;
}

/* The stream of launch i (beyond KIT_FORK_MAX - 1: main). */
static inline cudaStream_t kit_fork_stream(const kit_fork &f, size_t i) { return i < f.n ? f.side[i] : f.main; }

static inline int kit_fork_join(kit_fork &f, gpuasm_err *err)
{
    for (size_t i = 1; i < f.n; ++i) {
        KIT_CK(cudaEventRecord(f.done[i], f.side[i]));
        KIT_CK(cudaStreamWaitEvent(f.main, f.done[i], 0));
        KIT_CK(cudaEventDestroy(f.done[i]));
        KIT_CK(cudaStreamDestroy(f.side[i]));
    }
    if (f.ready) KIT_CK(cudaEventDestroy(f.ready));
    f.n = 0;
    f.ready = NULL;
    return 0;
}

/* Blocks per SM for grid-stride kernels that do not ask the occupancy API. */
enum { KIT_GRID_PER_SM = 16 };

#endif
