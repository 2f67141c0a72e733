/* SPDX-License-Identifier: MIT */
/* test_verify_cuda.cu -- the host harness of the CUDA verification of the
 * filters' candidate windows (issue #16): the plan (walk/filter_plan.c,
 * the host side the CUDA backend runs) and the very per-thread code of
 * walk/verify_cuda_core.cuh (what each thread of k_verify runs), run
 * here on the CPU window by window, must give exactly the end hits of the
 * CPU backend's walk without any filter (gpuasm_cpu_scan_cfg, --filter
 * off), for every --filter value that plans windows: reads as patterns of
 * longer targets (the index: IUPAC codes and N runs in the targets, N in
 * reads, both strands, -k and -e) and targets as patterns of reads (the
 * pieces filter: primers, some too short to cut, some with IUPAC codes).
 * Built by nvcc as host code in CUDA builds (no GPU needed); TAP output.
 * GPUASM_TEST_SEED varies the random cases.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "walk/cpu_scan.h"
#include "walk/filter_plan.h"
#include "kernels/registry.h"
#include "tap.h"
#include "walk/verify_cuda_core.cuh"

static const uint8_t ACGT[4] = { 1, 2, 4, 8 };


/* A growable nt16 sequence set. */
struct seqs {
    std::vector<uint64_t> off{ 0 };
    std::vector<uint8_t> code;
    void add(const std::vector<uint8_t> &s)
    {
        code.insert(code.end(), s.begin(), s.end());
        off.push_back(code.size());
    }
    gpuasm_seqset view() { return gpuasm_seqset{ (uint32_t)(off.size() - 1), off.data(), code.data() }; }
};

static std::vector<uint8_t> random_seq(uint64_t n)
{
    std::vector<uint8_t> s(n);
    for (auto &c : s) c = ACGT[rnd() & 3];
    return s;
}

/* Substitutions, insertions and deletions at rate r. */
static std::vector<uint8_t> mutate(const std::vector<uint8_t> &s, double r)
{
    std::vector<uint8_t> o;
    for (uint8_t c : s) {
        if (!chance(r)) { o.push_back(c); continue; }
        switch (rnd() % 3) {
        case 0: o.push_back(ACGT[rnd() & 3]); break;
        case 1: break;
        default: o.push_back(c); o.push_back(ACGT[rnd() & 3]); break;
        }
    }
    return o;
}

static std::vector<uint8_t> revcomp(const std::vector<uint8_t> &s)
{
    std::vector<uint8_t> o(s.rbegin(), s.rend());
    for (auto &c : o) c = gpuasm_nt16_comp(c);
    return o;
}

/* Collects a window's hits (the host's stand-in for dev_out; __host__
 * __device__ only so that nvcc's device pass accepts the HD templates
 * that call it: it runs on the host only). */
struct host_emit {
    std::vector<gpuasm_endhit> *v;
    uint32_t r, t, s;
    __host__ __device__ void operator()(uint32_t j, int32_t d)
    {
#ifndef __CUDA_ARCH__
        gpuasm_endhit e;
        memset(&e, 0, sizeof e);
        e.read = r;
        e.target = t;
        e.end = j;
        e.dist = d;
        e.strand = (uint16_t)s;
        v->push_back(e);
#else
        (void)j;
        (void)d;
#endif
    }
};

static bool hit_less(const gpuasm_endhit &a, const gpuasm_endhit &b)
{
    if (a.read != b.read) return a.read < b.read;
    if (a.target != b.target) return a.target < b.target;
    if (a.strand != b.strand) return a.strand < b.strand;
    if (a.end != b.end) return a.end < b.end;
    return a.dist < b.dist;
}

/* The plan's windows through verify_window<W> on the host. */
static std::vector<gpuasm_endhit> run_plan(const gpuasm_plan &plan, gpuasm_seqset reads, gpuasm_seqset tg,
                                           const gpuasm_search_opt &opt)
{
    gpuasm_batch_view v;
    memset(&v, 0, sizeof v);
    v.reads = reads;
    v.targets = tg;
    v.opt = opt;
    std::vector<gpuasm_endhit> out;
    for (int c = 0; c < 4; c++)
        for (size_t i = 0; i < plan.n[c]; i++) {
            const gpuasm_vwin &w = plan.win[c][i];
            host_emit e{ &out, w.read, w.target, w.strand };
            switch (c) {
            case 0: vcore::verify_window<1>(v, w, e); break;
            case 1: vcore::verify_window<2>(v, w, e); break;
            case 2: vcore::verify_window<3>(v, w, e); break;
            default: vcore::verify_window<4>(v, w, e); break;
            }
        }
    std::sort(out.begin(), out.end(), hit_less);
    return out;
}

/* One case: every --filter value that plans, against the CPU walk without
 * a filter.  Returns 1 when equal; counts windows and hits. */
static int one_case(seqs &reads, seqs &tg, gpuasm_search_opt opt, const char *what, size_t *windows,
                    size_t *hits, size_t *filtered)
{
    gpuasm_seqset rv = reads.view(), tv = tg.view();
    gpuasm_cpu_cfg cfg;
    gpuasm_cpu_cfg_default(&cfg);
    gpuasm_err err;
    memset(&err, 0, sizeof err);
    gpuasm_hits ref;
    memset(&ref, 0, sizeof ref);
    opt.filter = GPUASM_FILTER_OFF;
    if (gpuasm_cpu_scan_cfg(&cfg, NULL, &rv, 0, rv.n, &tv, &opt, &ref, NULL, &err) < 0) abort();
    std::vector<gpuasm_endhit> want(ref.hit, ref.hit + ref.n);
    for (auto &e : want) { e.kind = 0; e.plen = 0; }
    std::sort(want.begin(), want.end(), hit_less);
    gpuasm_hits_free(&ref);
    int ok = 1;
    const int32_t filters[] = { GPUASM_FILTER_AUTO, GPUASM_FILTER_ON, GPUASM_FILTER_PIECES, GPUASM_FILTER_INDEX };
    for (int32_t f : filters) {
        opt.filter = f;
        if (!gpuasm_plan_applies(&rv, &tv, &opt)) {
            diag("%s: the plan does not apply", what);
            return 0;
        }
        gpuasm_cpu_prep *prep = NULL;
        if (gpuasm_cpu_prep_build(&tv, &opt, &cfg, &prep, &err) < 0) abort();
        gpuasm_plan plan;
        memset(&plan, 0, sizeof plan);
        if (gpuasm_plan_build(&plan, prep, &rv, &tv, &opt, 1 + (int)(rnd() % 3), &err) < 0) abort();
        const std::vector<gpuasm_endhit> got = run_plan(plan, rv, tv, opt);
        for (int c = 0; c < 4; c++) *windows += plan.n[c];
        *filtered += plan.counts.index_strands + plan.counts.pieces_dropped;
        *hits += got.size();
        if (got.size() != want.size() ||
            !std::equal(got.begin(), got.end(), want.begin(), [](const gpuasm_endhit &a, const gpuasm_endhit &b) {
                return a.read == b.read && a.target == b.target && a.strand == b.strand && a.end == b.end &&
                       a.dist == b.dist;
            })) {
            diag("%s, --filter %s: %zu hits, the CPU walk has %zu", what, gpuasm_filter_name(f), got.size(),
                 want.size());
            for (size_t i = 0; i < got.size() && i < want.size(); i++)
                if (got[i].read != want[i].read || got[i].target != want[i].target || got[i].end != want[i].end ||
                    got[i].strand != want[i].strand || got[i].dist != want[i].dist) {
                    diag("  first difference at %zu: got r%u t%u s%u end %u d%d, want r%u t%u s%u end %u d%d", i,
                         got[i].read, got[i].target, got[i].strand, got[i].end, got[i].dist, want[i].read,
                         want[i].target, want[i].strand, want[i].end, want[i].dist);
                    break;
                }
            ok = 0;
        }
        gpuasm_plan_free(&plan);
        gpuasm_cpu_prep_free(prep);
    }
    return ok;
}

static gpuasm_search_opt base_opt(void)
{
    gpuasm_search_opt o;
    memset(&o, 0, sizeof o);
    o.max_diffs = -1;
    o.error_rate = 0.1;
    o.kernel = GPUASM_KERNEL_MYERS;
    o.alphabet = GPUASM_ALPHABET_NT16;
    o.strand = GPUASM_STRAND_BOTH;
    return o;
}

int main(void)
{
    const char *seed_s = getenv("GPUASM_TEST_SEED");
    rng = seed_s && *seed_s ? strtoull(seed_s, NULL, 0) : 16160;
    printf("# seed %llu\n", (unsigned long long)rng);
    /* (a) reads as patterns of genome-like targets: the index. */
    int ok = 1;
    size_t windows = 0, hits = 0, filtered = 0, cases = 0;
    for (int c = 0; c < 40 && ok; c++) {
        seqs tg, reads;
        const uint32_t nt = 1 + (uint32_t)below(4);
        std::vector<std::vector<uint8_t>> g;
        for (uint32_t t = 0; t < nt; t++) {
            std::vector<uint8_t> s = random_seq(300 + below(5000));
            if (chance(0.5)) s[below(s.size())] = (uint8_t)(1 + below(15));   /* an IUPAC code */
            if (chance(0.3)) {                                                 /* an N run */
                const uint64_t a = below(s.size());
                for (uint64_t i = a; i < a + 1 + below(40) && i < s.size(); i++) s[i] = 15;
            }
            g.push_back(s);
            tg.add(s);
        }
        for (int r = 0; r < 30; r++) {
            const std::vector<uint8_t> &src = g[below(nt)];
            const uint64_t m = 30 + below(227);
            std::vector<uint8_t> s;
            if (chance(0.85) && src.size() > m) {
                const uint64_t a = below(src.size() - m);
                s.assign(src.begin() + (long)a, src.begin() + (long)(a + m));
                for (auto &x : s)
                    if (x != 1 && x != 2 && x != 4 && x != 8) x = ACGT[rnd() & 3];
                s = mutate(s, 0.01 + 0.1 * (double)(rnd() % 100) / 100.0);
                if (s.size() > 256) s.resize(256);
                if (chance(0.5)) s = revcomp(s);
            } else {
                s = random_seq(m);
            }
            if (chance(0.2) && !s.empty()) s[below(s.size())] = 0;   /* N in the read */
            reads.add(s);
        }
        gpuasm_search_opt o = base_opt();
        if (c % 3 == 1) o.error_rate = 0.05;
        if (c % 3 == 2) o.max_diffs = (int32_t)(1 + below(8));
        if (c % 5 == 4) o.strand = GPUASM_STRAND_FORWARD;
        char what[64];
        snprintf(what, sizeof what, "genomes case %d", c);
        ok &= one_case(reads, tg, o, what, &windows, &hits, &filtered);
        cases++;
    }
    tap(ok && filtered > 0, "reads vs genomes (index): %zu cases, %zu windows, %zu end hits equal the CPU "
        "walk's for auto/on/pieces/index (%zu read strands or patterns filtered)", cases, windows, hits, filtered);
    /* (b) targets as patterns of reads: primers and the pieces filter. */
    ok = 1;
    windows = hits = filtered = cases = 0;
    for (int c = 0; c < 30 && ok; c++) {
        seqs tg, reads;
        std::vector<std::vector<uint8_t>> pr;
        for (int i = 0; i < 200; i++) {
            std::vector<uint8_t> s = random_seq(i % 10 ? 16 + below(15) : 5 + below(8));
            if (i % 7 == 0) s[below(s.size())] = (uint8_t)(1 + below(15));
            pr.push_back(s);
            tg.add(s);
        }
        for (int r = 0; r < 60; r++) {
            std::vector<uint8_t> s = random_seq(60 + below(100));
            for (uint64_t x = below(3); x > 0; x--) {
                std::vector<uint8_t> p = pr[below(pr.size())];
                for (auto &y : p)
                    if (y != 1 && y != 2 && y != 4 && y != 8) y = ACGT[rnd() & 3];
                p = mutate(p, 0.1 * (double)(rnd() % 100) / 100.0);
                if (chance(0.5)) p = revcomp(p);
                if (p.size() < s.size()) {
                    const uint64_t a = below(s.size() - p.size());
                    std::copy(p.begin(), p.end(), s.begin() + (long)a);
                }
            }
            if (chance(0.15)) s[below(s.size())] = 0;
            reads.add(s);
        }
        gpuasm_search_opt o = base_opt();
        if (c % 2) o.max_diffs = (int32_t)below(3);
        char what[64];
        snprintf(what, sizeof what, "primers case %d", c);
        ok &= one_case(reads, tg, o, what, &windows, &hits, &filtered);
        cases++;
    }
    tap(ok && filtered > 0, "reads vs primers (pieces): %zu cases, %zu windows, %zu end hits equal the CPU "
        "walk's for auto/on/pieces/index (%zu patterns dropped)", cases, windows, hits, filtered);
    return tap_done();
}
