/* SPDX-License-Identifier: MIT */
/* test_keep_cuda.cu -- the keep rule on the device (engine/keep_cuda.cuh)
 * against its CPU twin (search/hits.c gpuasm_hits_keep_reported): random
 * end-hit lists, shuffled as the kernels' atomic appends leave them, must
 * keep exactly the twin's hits (after gpuasm_hits_sort): runs of one
 * (read, target, strand) that are dense (an end every 1-8 columns at a
 * few distances, as a period-8 target gives), sparse, with partial hits
 * among them, one hit alone; reads of 20-400 bases (L from each read's
 * length and k); a run with a distance of 64 or more is kept whole on
 * the device (checked apart).  Needs a GPU: exits 77 (skip) without one.
 * GPUASM_TEST_SEED varies the cases.  TAP output.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "engine/keep_cuda.cuh"
#include "tap.h"

/* One random hit list over n_reads reads of the given lengths. */
static std::vector<gpuasm_endhit> random_hits(const std::vector<uint64_t> &off, uint32_t n_targets, int32_t kmax,
                                              int big_dist)
{
    std::vector<gpuasm_endhit> h;
    const uint32_t n_reads = (uint32_t)off.size() - 1;
    for (uint32_t r = 0; r < n_reads; r++)
        for (uint32_t t = 0; t < n_targets; t++)
            for (uint32_t s = 0; s < 2; s++) {
                if (chance(0.3)) continue;
                const int dense = chance(0.5);
                const uint32_t n = dense ? 50 + (uint32_t)below(1500) : 1 + (uint32_t)below(30);
                uint32_t end = (uint32_t)below(200);
                for (uint32_t i = 0; i < n; i++) {
                    gpuasm_endhit e;
                    memset(&e, 0, sizeof e);
                    e.read = r;
                    e.target = t;
                    e.strand = (uint16_t)s;
                    e.end = end;
                    e.kind = GPUASM_HIT_FULL;
                    e.dist = dense ? (int32_t)below(3) + (chance(0.05) ? (int32_t)below((uint64_t)kmax + 1) : 0)
                                   : (int32_t)below((uint64_t)kmax + 1);
                    if (big_dist && chance(0.01)) e.dist = 64 + (int32_t)below(40);
                    if (chance(0.03)) {   /* a partial hit at this end */
                        e.kind = chance(0.5) ? GPUASM_HIT_TEXT_END : GPUASM_HIT_TEXT_START;
                        e.plen = 10 + (uint32_t)below(50);
                    }
                    h.push_back(e);
                    end += dense ? 1 + (uint32_t)below(8) : 1 + (uint32_t)below(400);
                }
            }
    return h;
}

static bool same_hit(const gpuasm_endhit &a, const gpuasm_endhit &b)
{
    return a.read == b.read && a.target == b.target && a.strand == b.strand && a.end == b.end &&
           a.dist == b.dist && a.kind == b.kind && a.plen == b.plen;
}

static bool same_run(const gpuasm_endhit &a, const gpuasm_endhit &b)
{
    return a.read == b.read && a.target == b.target && a.strand == b.strand;
}

/* The device's kept hits, sorted; or false when a CUDA call failed. */
static bool device_keep(const gpuasm_batch_view &host, const std::vector<gpuasm_endhit> &in,
                        std::vector<gpuasm_endhit> &out, kit_scratch *scratch, int *rc_out)
{
    gpuasm_batch_view dev = host;
    uint64_t *d_off = NULL;
    gpuasm_endhit *d_hit = NULL;
    const size_t n_off = (size_t)host.reads.n + 1;
    if (cudaMalloc(&d_off, n_off * 8) != cudaSuccess) return false;
    if (cudaMalloc(&d_hit, (in.size() + 1) * sizeof(gpuasm_endhit)) != cudaSuccess) return false;
    cudaMemcpy(d_off, host.reads.off, n_off * 8, cudaMemcpyHostToDevice);
    cudaMemcpy(d_hit, in.data(), in.size() * sizeof(gpuasm_endhit), cudaMemcpyHostToDevice);
    dev.reads.off = d_off;
    dev.reads.code = NULL;
    cudaStream_t st;
    cudaStreamCreate(&st);
    gpuasm_err err;
    memset(&err, 0, sizeof err);
    size_t kept = 0;
    *rc_out = gpuasm_keep_cuda(scratch, st, &dev, d_hit, in.size(), &kept, &err);
    if (*rc_out < 0) diag("gpuasm_keep_cuda: %s", err.msg);
    out.resize(kept);
    cudaMemcpy(out.data(), d_hit, kept * sizeof(gpuasm_endhit), cudaMemcpyDeviceToHost);
    cudaStreamDestroy(st);
    cudaFree(d_off);
    cudaFree(d_hit);
    gpuasm_hits h = { out.data(), out.size(), out.size(), 0 };
    gpuasm_hits_sort(&h);
    return *rc_out >= 0;
}

int main(void)
{
    int n_dev = 0;
    if (cudaGetDeviceCount(&n_dev) != cudaSuccess || n_dev == 0) {
        printf("1..0 # SKIP no CUDA device\n");
        return 77;
    }
    rng_seed_from_env();
    kit_scratch scratch[KIT_SCRATCH_SLOTS];
    memset(scratch, 0, sizeof scratch);
    for (int big = 0; big < 2; big++) {
        int ok = 1;
        size_t total = 0, kept_total = 0;
        for (int c = 0; c < 12 && ok; c++) {
            const uint32_t n_reads = 1 + (uint32_t)below(40), n_targets = 1 + (uint32_t)below(5);
            std::vector<uint64_t> off{ 0 };
            for (uint32_t r = 0; r < n_reads; r++) off.push_back(off.back() + 20 + below(380));
            gpuasm_batch_view v;
            memset(&v, 0, sizeof v);
            v.reads = gpuasm_seqset{ n_reads, off.data(), NULL };
            v.targets = gpuasm_seqset{ n_targets, NULL, NULL };
            v.opt.max_diffs = c % 3 == 0 ? (int32_t)below(20) : -1;
            v.opt.error_rate = 0.02 + 0.03 * (double)below(6);
            v.opt.keep = GPUASM_KEEP_REPORTED;
            std::vector<gpuasm_endhit> h = random_hits(off, n_targets, 40, big);
            total += h.size();
            /* the twin, in gpuasm_hits_sort order */
            std::vector<gpuasm_endhit> want(h);
            gpuasm_hits hw = { want.data(), want.size(), want.size(), 0 };
            gpuasm_hits_sort(&hw);
            std::vector<gpuasm_endhit> all(want);
            if (gpuasm_hits_keep_reported(&hw, 0, &v.reads, &v.opt) < 0) abort();
            want.resize(hw.n);
            /* the device, from a shuffled list */
            for (size_t i = h.size(); i > 1; i--) std::swap(h[i - 1], h[below(i)]);
            std::vector<gpuasm_endhit> got;
            int rc = 0;
            if (!device_keep(v, h, got, scratch, &rc) || rc != 0) {
                diag("case %d: rc %d", c, rc);
                ok = 0;
                break;
            }
            kept_total += got.size();
            if (!big) {
                ok = got.size() == want.size() && std::equal(got.begin(), got.end(), want.begin(), same_hit);
                if (!ok) diag("case %d: %zu hits kept on the device, %zu by the twin (of %zu)", c, got.size(),
                              want.size(), all.size());
                continue;
            }
            /* runs with a distance >= 64: whole on the device; the others
             * as the twin keeps them */
            std::vector<gpuasm_endhit> exp;
            size_t w = 0;   /* want's cursor: both lists are in gpuasm_hits_sort order */
            for (size_t i = 0, j; i < all.size(); i = j) {
                bool wide = false;
                for (j = i; j < all.size() && same_run(all[j], all[i]); j++)
                    wide |= all[j].kind == GPUASM_HIT_FULL && all[j].dist >= 64;
                for (; w < want.size() && same_run(want[w], all[i]); w++)
                    if (!wide) exp.push_back(want[w]);
                if (wide) exp.insert(exp.end(), all.begin() + (long)i, all.begin() + (long)j);
            }
            ok = got.size() == exp.size() && std::equal(got.begin(), got.end(), exp.begin(), same_hit);
            if (!ok) diag("case %d (distances >= 64): %zu kept on the device, %zu expected", c, got.size(),
                          exp.size());
        }
        tap(ok && kept_total < total,
            big ? "keep rule on the device: runs with a distance >= 64 kept whole, the rest as the CPU twin "
                  "(%zu of %zu hits kept)"
                : "keep rule on the device = its CPU twin on 12 random shuffled hit lists (%zu of %zu hits kept)",
            kept_total, total);
    }
    for (int i = 0; i < KIT_SCRATCH_SLOTS; i++)
        if (scratch[i].p) cudaFree(scratch[i].p);
    return tap_done();
}
