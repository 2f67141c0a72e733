/* SPDX-License-Identifier: MIT */
/* plan_upload.cu -- planned windows built on the host in pinned memory,
 * two plans alternating (plan_upload.cuh says why). */
#include "engine/plan_upload.cuh"

#include "util/clock.h"

#define CK KIT_CK

int gpuasm_plan_upload_open(gpuasm_plan_upload *u, int pinned, gpuasm_err *err)
{
    for (int i = 0; i < 2; i++) {
        if (pinned) {
            u->plan[i].host_alloc = kit_host_alloc;
            u->plan[i].host_free = kit_host_free;
            u->plan[i].parts = 1;   /* each thread's windows copied from where it wrote them */
        }
        CK(cudaEventCreateWithFlags(&u->copied[i], cudaEventDisableTiming));
    }
    return 0;
}

int gpuasm_plan_upload_chunk(gpuasm_plan_upload *u, cudaStream_t stream, const gpuasm_cpu_prep *prep,
                             const gpuasm_seqset *reads, uint32_t first, uint32_t n,
                             const gpuasm_seqset *targets, const gpuasm_search_opt *opt, int n_threads,
                             const gpuasm_plan **out, double *plan_s, gpuasm_err *err)
{
    const int i = u->next;
    gpuasm_plan *plan = &u->plan[i];
    /* the copy out of this plan two chunks ago must be done before it is
     * planned into again (an event never recorded is done) */
    CK(cudaEventSynchronize(u->copied[i]));
    u->next = i ^ 1;
    /* the chunk as a set of its own (offsets stay absolute), its windows'
     * reads numbered from the batch's first */
    const gpuasm_seqset chunk = { n, reads->off + first, reads->code };
    plan->read_base = first;
    const double t0 = gpuasm_now_s();
    int rc = gpuasm_plan_build(plan, prep, &chunk, targets, opt, n_threads, err);
    *plan_s += gpuasm_now_s() - t0;
    if (rc < 0) return rc;
    for (int c = 0; c < 4; c++) {
        const size_t bytes = plan->n[c] * sizeof(gpuasm_vwin);
        if (!bytes) continue;
        if ((rc = kit_grow_buf(stream, (void **)&u->d_win[c], &u->win_cap[c], bytes, err)) < 0) return rc;
        if (!plan->parts) {
            CK(cudaMemcpyAsync(u->d_win[c], plan->win[c], bytes, cudaMemcpyHostToDevice, stream));
            continue;
        }
        size_t at = 0;   /* the parts end to end: read order */
        for (int p = 0; p < plan->n_parts; p++) {
            size_t n = 0;
            const gpuasm_vwin *w = gpuasm_plan_part(plan, p, c, &n);
            if (n) CK(cudaMemcpyAsync(u->d_win[c] + at, w, n * sizeof(gpuasm_vwin), cudaMemcpyHostToDevice, stream));
            at += n;
        }
    }
    CK(cudaEventRecord(u->copied[i], stream));
    *out = plan;
    return 0;
}

void gpuasm_plan_upload_close(gpuasm_plan_upload *u)
{
    if (!u) return;
    for (int i = 0; i < 2; i++) {
        if (u->copied[i]) (void)cudaEventSynchronize(u->copied[i]);
        gpuasm_plan_free(&u->plan[i]);
        if (u->copied[i]) (void)cudaEventDestroy(u->copied[i]);
        u->copied[i] = NULL;
    }
    for (int c = 0; c < 4; c++) {
        if (u->d_win[c]) (void)cudaFree(u->d_win[c]);
        u->d_win[c] = NULL;
        u->win_cap[c] = 0;
    }
    (void)cudaGetLastError();
}
