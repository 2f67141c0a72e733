/* SPDX-License-Identifier: MIT */
/* pieces_cuda.cu -- the pieces filter's windows planned on the GPU
 * (pieces_cuda.cuh says why and what).
 *
 * Six steps on the lane's stream, two host synchronisations a batch (the
 * keys' count, to size their buffers; the windows' class bounds, to size
 * the verifier's launches):
 *   1. k_count: a thread per read strand counts its keys (pieces_core.h);
 *   2. their offsets (CUB exclusive sum);
 *   3. k_emit: each thread writes its keys there;
 *   4. the keys sorted (CUB radix sort) and their repeats dropped (CUB
 *      unique): class by class, then (read, strand, target);
 *   5. k_windows: a thread per key writes its window and the class bounds;
 *   6. the bounds and counts copied back.
 */
#include <cub/cub.cuh>

#include <string.h>

#include <vector>

#include "walk/ends_plan.h"
#include "walk/pieces_cuda.cuh"

#define CK KIT_CK

namespace {

enum { PTHREADS = 128 };
/* Keys of one batch at most (8 bytes each, twice, and a window of 28 per
 * distinct key): past it the host plans the batch. */
const uint64_t MAX_KEYS = (uint64_t)1 << 28;

enum { C_UNIQUE, C_AMB_KEYS, C_COUNTED, C_BOUND };   /* d_ctr: [C_BOUND + c], c = 0..4 */

__global__ void __launch_bounds__(PTHREADS)
k_count(gpuasm_batch_view v, gpuasm_qf_view f, uint32_t strands, uint32_t n_strands, uint64_t *cnt,
        unsigned long long *ctr)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_strands) return;
    const uint32_t r = i / strands, s = i % strands;
    const uint64_t a = v.reads.off[r];
    const uint32_t rlen = (uint32_t)(v.reads.off[r + 1] - a);
    int amb = 0;
    const uint32_t c = gpuasm_pieces_strand(&f, &v.opt, v.reads.code + a, rlen, r, s, NULL, &amb);
    cnt[i] = c;
    if (amb) atomicAdd(&ctr[C_AMB_KEYS], (unsigned long long)c);
    else if (rlen) atomicAdd(&ctr[C_COUNTED], 1ull);
}

__global__ void __launch_bounds__(PTHREADS)
k_emit(gpuasm_batch_view v, gpuasm_qf_view f, uint32_t strands, uint32_t n_strands, const uint64_t *off,
       uint64_t *key)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_strands) return;
    const uint32_t r = i / strands, s = i % strands;
    const uint64_t a = v.reads.off[r];
    int amb = 0;
    (void)gpuasm_pieces_strand(&f, &v.opt, v.reads.code + a, (uint32_t)(v.reads.off[r + 1] - a), r, s,
                               key + off[i], &amb);
}

/* Key i's window; the first key of each class sets that class's bound
 * (and those of empty classes before it), the last key the bounds after
 * its class. */
__global__ void k_windows(gpuasm_batch_view v, const uint64_t *key, uint64_t total, gpuasm_vwin *win,
                          unsigned long long *ctr)
{
    const uint64_t nu = ctr[C_UNIQUE];
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nu && i < total;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t k = key[i];
        const uint32_t r = (uint32_t)(k >> 32) & (GPUASM_PIECES_MAX_READS - 1);
        const uint32_t t = (uint32_t)k & (GPUASM_PIECES_MAX_TARGETS - 1);
        win[i] = gpuasm_pieces_window(&v.opt, k, v.reads.off[r + 1] - v.reads.off[r],
                                      v.targets.off[t + 1] - v.targets.off[t]);
        const int cl = (int)gpuasm_pieces_key_class(k);
        const int before = i ? (int)gpuasm_pieces_key_class(key[i - 1]) : -1;
        for (int c = before + 1; c <= cl; c++) ctr[C_BOUND + c] = i;
        if (i + 1 == nu)
            for (int c = cl + 1; c <= 4; c++) ctr[C_BOUND + c] = nu;
    }
}

/* n bytes of a table at *at in the one allocation (256-byte aligned). */
size_t place(size_t *at, size_t bytes)
{
    const size_t here = *at;
    *at += (bytes + 255) & ~(size_t)255;
    return here;
}

}  /* namespace */

int gpuasm_pieces_cuda_applies(const gpuasm_qfilter *qf, const gpuasm_seqset *reads, const gpuasm_seqset *targets,
                               const gpuasm_search_opt *opt)
{
    if (!qf || !reads->n || reads->n >= GPUASM_PIECES_MAX_READS || targets->n >= GPUASM_PIECES_MAX_TARGETS ||
        qf->n_targets != targets->n)
        return 0;
    for (uint32_t r = 0; r < reads->n; r++)
        if (reads->off[r + 1] - reads->off[r] > GPUASM_PIECES_MAX_N) return 0;
    if (!gpuasm_targets_are_patterns(reads, targets, opt)) return 0;
    uint32_t n_always = 0;
    for (uint32_t t = 0; t < targets->n; t++) {
        const uint64_t m = targets->off[t + 1] - targets->off[t];
        if (qf->always[t] && gpuasm_pair_searched(m, gpuasm_pair_k(opt, m), 1)) n_always++;
    }
    return n_always <= GPUASM_PIECES_CUDA_MAX_ALWAYS;
}

/* The filter's tables to the device (pc->dev), once per prep. */
static int upload(gpuasm_pieces_cuda *pc, const void *prep, const gpuasm_qfilter *qf, const gpuasm_search_opt *opt,
                  cudaStream_t stream, gpuasm_err *err)
{
    if (pc->prep == prep && pc->d_tab) return 0;
    pc->prep = NULL;
    std::vector<uint32_t> always(qf->n_targets ? qf->n_targets : 1);
    const gpuasm_qf_view h = gpuasm_qf_view_host(qf, opt, always.data());
    const size_t n_present = GPUASM_QF_KEYS / 64 + 1, n_start = (size_t)GPUASM_QF_KEYS + 1;
    const size_t ne = qf->start[GPUASM_QF_KEYS];
    size_t at = 0;
    const size_t o_present = place(&at, n_present * 8), o_start = place(&at, n_start * 4);
    const size_t o_ids = place(&at, ne * 4), o_woff = place(&at, ne * 4), o_pa = place(&at, ne * 4),
                 o_pb = place(&at, ne * 4), o_always = place(&at, qf->n_targets),
                 o_list = place(&at, (size_t)h.n_always * 4);
    if (pc->d_tab) CK(cudaFree(pc->d_tab));
    pc->d_tab = NULL;
    CK(cudaMalloc(&pc->d_tab, at ? at : 256));
    char *d = (char *)pc->d_tab;
    /* synchronous copies: once per filter, from pageable memory */
    CK(cudaMemcpy(d + o_present, qf->present, n_present * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d + o_start, qf->start, n_start * 4, cudaMemcpyHostToDevice));
    if (ne) {
        CK(cudaMemcpy(d + o_ids, qf->ids, ne * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d + o_woff, qf->woff, ne * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d + o_pa, qf->pa, ne * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d + o_pb, qf->pb, ne * 4, cudaMemcpyHostToDevice));
    }
    if (qf->n_targets) CK(cudaMemcpy(d + o_always, qf->always, qf->n_targets, cudaMemcpyHostToDevice));
    if (h.n_always) CK(cudaMemcpy(d + o_list, always.data(), (size_t)h.n_always * 4, cudaMemcpyHostToDevice));
    pc->dev = h;
    pc->dev.present = (const uint64_t *)(d + o_present);
    pc->dev.start = (const uint32_t *)(d + o_start);
    pc->dev.ids = (const uint32_t *)(d + o_ids);
    pc->dev.woff = (const uint32_t *)(d + o_woff);
    pc->dev.pa = (const uint32_t *)(d + o_pa);
    pc->dev.pb = (const uint32_t *)(d + o_pb);
    pc->dev.always = (const uint8_t *)(d + o_always);
    pc->dev.always_list = (const uint32_t *)(d + o_list);
    if (!pc->h_ctr) CK(cudaMallocHost((void **)&pc->h_ctr, 8 * sizeof(unsigned long long)));
    if (!pc->d_ctr) CK(cudaMalloc((void **)&pc->d_ctr, 8 * sizeof(unsigned long long)));
    (void)stream;
    pc->prep = prep;
    return 0;
}

int gpuasm_pieces_cuda_plan(gpuasm_pieces_cuda *pc, const void *prep, const gpuasm_qfilter *qf,
                            const gpuasm_cuda_batch *b, gpuasm_vwin *d_win[4], size_t n[4], uint64_t *kept,
                            uint64_t *dropped, gpuasm_err *err)
{
    cudaStream_t st = b->stream;
    int rc = upload(pc, prep, qf, &b->host.opt, st, err);
    if (rc < 0) return rc;
    gpuasm_qf_view f = pc->dev;
    f.toff = b->dev.targets.off;
    f.tcode = b->dev.targets.code;
    const uint32_t strands = (uint32_t)gpuasm_strands(&b->host.opt);
    const uint32_t ns = b->host.reads.n * strands;
    /* counts [0, ns] (the last 0), offsets [ns + 1, 2 ns + 2) */
    if ((rc = kit_grow_buf(st, (void **)&pc->d_cnt, &pc->cnt_cap, 2 * ((size_t)ns + 1) * 8, err)) < 0) return rc;
    uint64_t *cnt = pc->d_cnt, *off = pc->d_cnt + ns + 1;
    size_t need = 0, nb = 0;
    CK(cub::DeviceScan::ExclusiveSum(NULL, nb, cnt, off, (int)ns + 1, st));
    need = nb;
    if ((rc = kit_grow_buf(st, &pc->d_cub, &pc->cub_cap, need, err)) < 0) return rc;
    CK(cudaMemsetAsync(pc->d_ctr, 0, 8 * sizeof(unsigned long long), st));
    CK(cudaMemsetAsync(cnt + ns, 0, 8, st));
    const unsigned blocks = (ns + PTHREADS - 1) / PTHREADS;
    KIT_CLEAR_ERR();
    k_count<<<blocks, PTHREADS, 0, st>>>(b->dev, f, strands, ns, cnt, pc->d_ctr);
    KIT_CK_LAUNCH("pieces k_count");
    size_t tb = pc->cub_cap;
    CK(cub::DeviceScan::ExclusiveSum(pc->d_cub, tb, cnt, off, (int)ns + 1, st));
    CK(cudaMemcpyAsync(pc->h_ctr, off + ns, 8, cudaMemcpyDeviceToHost, st));
    CK(cudaStreamSynchronize(st));
    const uint64_t total = pc->h_ctr[0];
    if (total > MAX_KEYS) return 1;
    for (int c = 0; c < 4; c++) n[c] = 0, d_win[c] = NULL;
    *kept = *dropped = 0;
    if (!total) {
        CK(cudaMemcpyAsync(pc->h_ctr, pc->d_ctr, 8 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, st));
        CK(cudaStreamSynchronize(st));
        gpuasm_pieces_counts(&f, 0, pc->h_ctr[C_AMB_KEYS], pc->h_ctr[C_COUNTED], kept, dropped);
        return 0;
    }
    if ((rc = kit_grow_buf(st, (void **)&pc->d_key[0], &pc->key_cap[0], total * 8, err)) < 0 ||
        (rc = kit_grow_buf(st, (void **)&pc->d_key[1], &pc->key_cap[1], total * 8, err)) < 0 ||
        (rc = kit_grow_buf(st, (void **)&pc->d_win, &pc->win_cap, total * sizeof(gpuasm_vwin), err)) < 0)
        return rc;
    nb = 0;
    CK(cub::DeviceRadixSort::SortKeys(NULL, nb, pc->d_key[0], pc->d_key[1], (int)total, 0, 64, st));
    need = nb > need ? nb : need;
    CK(cub::DeviceSelect::Unique(NULL, nb, pc->d_key[1], pc->d_key[0], pc->d_ctr + C_UNIQUE, (int)total, st));
    need = nb > need ? nb : need;
    if ((rc = kit_grow_buf(st, &pc->d_cub, &pc->cub_cap, need, err)) < 0) return rc;
    tb = pc->cub_cap;
    k_emit<<<blocks, PTHREADS, 0, st>>>(b->dev, f, strands, ns, off, pc->d_key[0]);
    KIT_CK_LAUNCH("pieces k_emit");
    CK(cub::DeviceRadixSort::SortKeys(pc->d_cub, tb, pc->d_key[0], pc->d_key[1], (int)total, 0, 64, st));
    CK(cub::DeviceSelect::Unique(pc->d_cub, tb, pc->d_key[1], pc->d_key[0], pc->d_ctr + C_UNIQUE, (int)total, st));
    uint64_t wb = (total + 255) / 256;
    const uint64_t most = (uint64_t)b->sm_count * KIT_GRID_PER_SM;
    if (wb > most) wb = most;
    k_windows<<<(unsigned)wb, 256, 0, st>>>(b->dev, pc->d_key[0], total, pc->d_win, pc->d_ctr);
    KIT_CK_LAUNCH("pieces k_windows");
    CK(cudaMemcpyAsync(pc->h_ctr, pc->d_ctr, 8 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, st));
    CK(cudaStreamSynchronize(st));
    const unsigned long long *h = pc->h_ctr;
    for (int c = 0; c < 4; c++) {
        n[c] = (size_t)(h[C_BOUND + c + 1] - h[C_BOUND + c]);
        d_win[c] = pc->d_win + h[C_BOUND + c];
    }
    gpuasm_pieces_counts(&f, h[C_UNIQUE], h[C_AMB_KEYS], h[C_COUNTED], kept, dropped);
    return 0;
}

void gpuasm_pieces_cuda_close(gpuasm_pieces_cuda *pc)
{
    if (!pc) return;
    if (pc->d_tab) (void)cudaFree(pc->d_tab);
    if (pc->d_cnt) (void)cudaFree(pc->d_cnt);
    for (int i = 0; i < 2; i++)
        if (pc->d_key[i]) (void)cudaFree(pc->d_key[i]);
    if (pc->d_win) (void)cudaFree(pc->d_win);
    if (pc->d_ctr) (void)cudaFree(pc->d_ctr);
    if (pc->h_ctr) (void)cudaFreeHost(pc->h_ctr);
    if (pc->d_cub) (void)cudaFree(pc->d_cub);
    memset(pc, 0, sizeof *pc);
    (void)cudaGetLastError();
}
