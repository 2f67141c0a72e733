/* SPDX-License-Identifier: MIT */
/* keep_cuda.cu -- search.h's keep rule on the device (keep_cuda.cuh).
 *
 * Five steps on the lane's stream, no host synchronisation before the
 * last count:
 *   1. two stable radix sorts (CUB) of hit indices: by end, then by the
 *      packed (read, target, strand), so each run of one (read, target,
 *      strand) is contiguous and in increasing end, as the CPU walk meets
 *      it;
 *   2. the hits gathered in that order, run heads flagged;
 *   3. the run heads listed (CUB select);
 *   4. one thread a run applies the rule (search.h) as the CPU twin does
 *      hit by hit (search/hits.c gpuasm_keep_hit), with its state in
 *      registers and local memory: the first end of each distance < 64,
 *      two 64-bit masks;
 *   5. the kept hits selected back into the hit buffer (CUB select).
 */
#include <cub/cub.cuh>

#include "engine/keep_cuda.cuh"

namespace {

enum { S_KEY_A, S_KEY_B, S_VAL_A, S_VAL_B, S_SORTED, S_FLAGS, S_RUNS, S_CUB };
static_assert((int)S_CUB < (int)KIT_SCRATCH_SLOTS, "keep_cuda: more slots than the lane holds");
enum { KEEP_LEVELS = 64 };   /* distances the per-run state holds */

__global__ void end_keys(const gpuasm_endhit *h, uint32_t n, uint32_t *key, uint32_t *idx)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        key[i] = h[i].end;
        idx[i] = i;
    }
}

__global__ void run_keys(const gpuasm_endhit *h, const uint32_t *perm, uint32_t n, int tshift, uint64_t *key)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const gpuasm_endhit e = h[perm[i]];
        key[i] = (uint64_t)e.read << tshift | (uint64_t)e.target << 1 | (uint64_t)(e.strand & 1);
    }
}

/* sorted[i] = h[perm[i]]; head[i]: a run starts at i; idx[i] = i. */
__global__ void gather_heads(const gpuasm_endhit *h, const uint32_t *perm, const uint64_t *key, uint32_t n,
                             gpuasm_endhit *sorted, uint8_t *head, uint32_t *idx)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        sorted[i] = h[perm[i]];
        head[i] = i == 0 || key[i] != key[i - 1];
        idx[i] = i;
    }
}

/* One thread a run [start[r], start[r + 1]) of sorted: keep[i] as
 * gpuasm_keep_hit decides (search/hits.c; a run's ends only increase). */
__global__ void keep_runs(const gpuasm_endhit *sorted, uint32_t n, const uint32_t *start,
                          const unsigned long long *n_runs, gpuasm_batch_view dev, uint8_t *keep)
{
    const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t nr = (uint32_t)*n_runs;
    if (r >= nr) return;
    const uint32_t a = start[r], b = r + 1 < nr ? start[r + 1] : n;
    const uint32_t read = sorted[a].read;
    const uint64_t len = dev.reads.off[read + 1] - dev.reads.off[read];
    const int32_t k = gpuasm_pair_k(&dev.opt, len);
    const uint64_t window = 2 * (len + (uint64_t)(k > 0 ? k : 0)) - 2;   /* 2L - 2 */
    for (uint32_t i = a; i < b; i++)
        if (sorted[i].kind == GPUASM_HIT_FULL && (sorted[i].dist < 0 || sorted[i].dist >= KEEP_LEVELS)) {
            for (uint32_t j = a; j < b; j++) keep[j] = 1;   /* a superset: the same report */
            return;
        }
    uint32_t first[KEEP_LEVELS];
    uint64_t used = 0, done = 0;
    int32_t closed = KEEP_LEVELS;
    for (uint32_t i = a; i < b; i++) {
        const gpuasm_endhit e = sorted[i];
        uint8_t kp = 1;
        if (e.kind == GPUASM_HIT_FULL) {
            const int32_t d = e.dist;
            const uint64_t bit = (uint64_t)1 << d;
            if (d > closed) {
                kp = 0;
            } else if (!(used & bit)) {
                used |= bit;
                first[d] = e.end;
            } else if ((uint64_t)e.end > (uint64_t)first[d] + window) {
                if (done & bit) {
                    kp = 0;
                } else {
                    done |= bit;
                    if (d < closed) closed = d;
                }
            }
        }
        keep[i] = kp;
    }
}

int grow(kit_scratch *s, cudaStream_t stream, size_t bytes, gpuasm_err *err)
{
    return kit_grow_buf(stream, &s->p, &s->cap, bytes, err);
}

}  /* namespace */

int gpuasm_keep_cuda(kit_scratch *scratch, cudaStream_t stream, const gpuasm_batch_view *dev,
                     gpuasm_endhit *d_hit, size_t n, size_t *n_kept, gpuasm_err *err)
{
    *n_kept = n;
    if (n < 2) return 0;
    const uint64_t nr = dev->reads.n, nt = dev->targets.n;
    const int rbits = nr > 1 ? 64 - __builtin_clzll(nr - 1) : 1;
    const int tbits = nt > 1 ? 64 - __builtin_clzll(nt - 1) : 1;
    if (n >= ((size_t)1 << 31) || rbits + tbits + 1 > 64) return 1;
    const uint32_t un = (uint32_t)n;
    const int kbits = rbits + tbits + 1;
    int rc;
    if ((rc = grow(&scratch[S_KEY_A], stream, n * 8, err)) < 0 ||
        (rc = grow(&scratch[S_KEY_B], stream, n * 8, err)) < 0 ||
        (rc = grow(&scratch[S_VAL_A], stream, n * 4, err)) < 0 ||
        (rc = grow(&scratch[S_VAL_B], stream, n * 4, err)) < 0 ||
        (rc = grow(&scratch[S_SORTED], stream, n * sizeof(gpuasm_endhit), err)) < 0 ||
        (rc = grow(&scratch[S_FLAGS], stream, 16 + n, err)) < 0 ||
        (rc = grow(&scratch[S_RUNS], stream, n * 4, err)) < 0)
        return rc;
    uint32_t *k32a = (uint32_t *)scratch[S_KEY_A].p, *k32b = (uint32_t *)scratch[S_KEY_B].p;
    uint64_t *k64a = (uint64_t *)scratch[S_KEY_A].p, *k64b = (uint64_t *)scratch[S_KEY_B].p;
    uint32_t *va = (uint32_t *)scratch[S_VAL_A].p, *vb = (uint32_t *)scratch[S_VAL_B].p;
    gpuasm_endhit *sorted = (gpuasm_endhit *)scratch[S_SORTED].p;
    unsigned long long *counts = (unsigned long long *)scratch[S_FLAGS].p;   /* [0] runs, [1] kept */
    uint8_t *flags = (uint8_t *)scratch[S_FLAGS].p + 16;
    uint32_t *runs = (uint32_t *)scratch[S_RUNS].p;
    /* CUB's temporary storage: the largest of its four calls. */
    size_t need = 0, b1 = 0;
    KIT_CK(cub::DeviceRadixSort::SortPairs(NULL, b1, k32a, k32b, va, vb, (int)un, 0, 32, stream));
    need = b1 > need ? b1 : need;
    KIT_CK(cub::DeviceRadixSort::SortPairs(NULL, b1, k64a, k64b, vb, va, (int)un, 0, kbits, stream));
    need = b1 > need ? b1 : need;
    KIT_CK(cub::DeviceSelect::Flagged(NULL, b1, vb, flags, runs, counts, (int)un, stream));
    need = b1 > need ? b1 : need;
    KIT_CK(cub::DeviceSelect::Flagged(NULL, b1, sorted, flags, d_hit, counts + 1, (int)un, stream));
    need = b1 > need ? b1 : need;
    if ((rc = grow(&scratch[S_CUB], stream, need, err)) < 0) return rc;
    void *tmp = scratch[S_CUB].p;
    size_t tb = scratch[S_CUB].cap;
    const int threads = 256;
    const int blocks = (int)((n + threads - 1) / threads < 65535 ? (n + threads - 1) / threads : 65535);
    KIT_CLEAR_ERR();
    end_keys<<<blocks, threads, 0, stream>>>(d_hit, un, k32a, va);
    KIT_CK_LAUNCH("keep_cuda end_keys");
    KIT_CK(cub::DeviceRadixSort::SortPairs(tmp, tb, k32a, k32b, va, vb, (int)un, 0, 32, stream));
    run_keys<<<blocks, threads, 0, stream>>>(d_hit, vb, un, tbits + 1, k64a);
    KIT_CK_LAUNCH("keep_cuda run_keys");
    KIT_CK(cub::DeviceRadixSort::SortPairs(tmp, tb, k64a, k64b, vb, va, (int)un, 0, kbits, stream));
    gather_heads<<<blocks, threads, 0, stream>>>(d_hit, va, k64b, un, sorted, flags, vb);
    KIT_CK_LAUNCH("keep_cuda gather_heads");
    KIT_CK(cub::DeviceSelect::Flagged(tmp, tb, vb, flags, runs, counts, (int)un, stream));
    keep_runs<<<(unsigned)((n + threads - 1) / threads), threads, 0, stream>>>(sorted, un, runs, counts, *dev,
                                                                            flags);
    KIT_CK_LAUNCH("keep_cuda keep_runs");
    KIT_CK(cub::DeviceSelect::Flagged(tmp, tb, sorted, flags, d_hit, counts + 1, (int)un, stream));
    unsigned long long kept = 0;
    KIT_CK(cudaMemcpyAsync(&kept, counts + 1, sizeof kept, cudaMemcpyDeviceToHost, stream));
    KIT_CK(cudaStreamSynchronize(stream));
    *n_kept = (size_t)kept;
    return 0;
}
