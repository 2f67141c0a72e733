/* cuda_kit.cuh -- what the CUDA handle (myers_cuda.cu) gives every kernel
 * file: the hit output, the batch on the device, grow-only scratch, and the
 * launcher signature of the seed kernels (dp, scan, hamming, and Myers on
 * the byte alphabet).  C++ for .cu files only.
 *
 * The handle owns the stream, the device copies of reads and targets, the
 * hit buffer and its counter.  A launcher only plans and launches kernels on
 * b.stream that call out.emit() for every end hit of search.h's contract
 * (local minima of D[m][.] <= k; the order does not matter).  The handle may
 * call a launcher twice for one batch (when the hit buffer overflowed it
 * grows it and runs again), so a launcher must be deterministic and must not
 * keep state between calls other than scratch capacity.
 */
#ifndef GPUASM_CUDA_KIT_CUH
#define GPUASM_CUDA_KIT_CUH

#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "search.h"
#include "myers_cuda_core.cuh"   /* HD, gcore::pair_k / read_is_pattern / searched / lmin / window */

/* Hits into a device array; an index past cap is counted, not written.
 * Warp-aggregated: one atomicAdd per converged set of lanes. */
struct dev_out {
    gpuasm_endhit *hit;
    unsigned long long *count;
    unsigned long long cap;
    HD void emit(uint32_t r, uint32_t t, uint32_t j, int32_t d, uint32_t s)
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
            e.strand = s;
            hit[i] = e;
        }
#else
        (void)r; (void)t; (void)j; (void)d; (void)s;
#endif
    }
};

/* Grow-only device memory owned by the handle. */
struct kit_scratch {
    void *p;
    size_t cap;   /* bytes */
};
enum { KIT_SCRATCH_SLOTS = 4 };

/* One batch as a launcher sees it. */
struct kit_batch {
    /* host views (for planning) */
    uint32_t nreads;
    const uint64_t *h_roff;       /* [nreads + 1] read offsets (bases) */
    const uint8_t *h_rcode;       /* read codes (host) */
    uint32_t ntargets;
    const uint64_t *h_toff;       /* [ntargets + 1] target offsets */
    const uint8_t *h_tcode;       /* target codes (host) */
    /* device copies */
    const uint8_t *d_rcode;
    const uint64_t *d_roff;
    const uint8_t *d_tcode;
    const uint64_t *d_toff;
    gpuasm_search_opt opt;
    cudaStream_t stream;
    int sm_count;
    kit_scratch *scratch;         /* [KIT_SCRATCH_SLOTS] */
};

/* "CUDA: <call>: <error string>" into err; returns -1. */
static inline int kit_fail(char *err, size_t errlen, const char *call, cudaError_t e)
{
    if (err && errlen)
        snprintf(err, errlen, "CUDA: %.*s: %s", (int)strcspn(call, "("), call,
                 cudaGetErrorString(e));
    return -1;
}

#define KIT_CK(call) do {                                                 \
        cudaError_t kit_e_ = (call);                                      \
        if (kit_e_ != cudaSuccess) return kit_fail(err, errlen, #call, kit_e_); \
    } while (0)

/* After a launch (launch errors show now, execution errors at the next sync). */
#define KIT_CK_LAUNCH(name) do {                                          \
        cudaError_t kit_e_ = cudaGetLastError();                          \
        if (kit_e_ != cudaSuccess) return kit_fail(err, errlen, name, kit_e_); \
    } while (0)

/* Make scratch slot `slot` hold at least `bytes` (contents not kept; the
 * stream is synchronised first when it must grow).  0 or -1 with err. */
static inline int kit_grow(const kit_batch &b, int slot, size_t bytes, void **out,
                           char *err, size_t errlen)
{
    kit_scratch *s = &b.scratch[slot];
    if (bytes > s->cap || !s->p) {
        KIT_CK(cudaStreamSynchronize(b.stream));
        if (s->p) KIT_CK(cudaFree(s->p));
        s->p = NULL;
        s->cap = 0;
        size_t want = bytes + bytes / 4;
        if (want < bytes) want = bytes;
        if (want == 0) want = 1;
        KIT_CK(cudaMalloc(&s->p, want));
        s->cap = want;
    }
    *out = s->p;
    return 0;
}

/* The seed kernels' launchers (one file each).  Each emits exactly the end
 * hits of its CPU twin (twin.h via gpuasm_cpu_scan) for every searched
 * (read, target, strand) of the batch; pairs beyond
 * gpuasm_kernel_max_pattern() never reach them (the handle refuses the
 * batch first).  0, or -1 with a one-line reason in err. */
int gpuasm_dp_cuda_launch(const kit_batch &b, dev_out out, char *err, size_t errlen);
int gpuasm_scan_cuda_launch(const kit_batch &b, dev_out out, char *err, size_t errlen);
int gpuasm_hamming_cuda_launch(const kit_batch &b, dev_out out, char *err, size_t errlen);
int gpuasm_myers_byte_cuda_launch(const kit_batch &b, dev_out out, char *err, size_t errlen);

#endif
