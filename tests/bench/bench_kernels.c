/* SPDX-License-Identifier: MIT */
/* bench_kernels -- time the search engine alone (no I/O, no traceback).
 *
 *   bench_kernels DEVICE p1 M N K REPS          one random pattern of M bases
 *       (the target) against one random text of N bases (the read),
 *       both strands; seed 000 Table I's case with M = 32..1024, N = 4 Mi.
 *   bench_kernels DEVICE p2 GENOMES.fa READS LEN RATE REPS   READS reads of
 *       LEN bases, half copies of random places of the genomes with RATE
 *       edits per base (either strand), half random; -e 0.1; the read is
 *       the pattern.
 *
 * Prints one line per case: device, case, median seconds of
 * gpuasm_engine_scan over REPS runs (after one warm-up), cells (both
 * strands: 2 x m x n per pair searched) and TCUPS = cells / s / 1e12, the
 * number of end hits, and the median kernel time of one call (kernel_s:
 * the engine's CUDA-event time of the search kernels, issue #14 P1; the
 * call time minus it is the per-call overhead: upload, plan, hits back).
 * The knobs of search/settings.h choose the path (GPUASM_CUDA_LONG=2: P1
 * through the LONG path).  Timings are for BENCHMARKS.md, never a test.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "io/targets.h"

#include "bench_common.h"
static uint8_t rnd_base(void) { return (uint8_t)(1u << (rnd() & 3)); }


/* Median seconds of reps scans (after one warm-up); hits of the last;
 * *kernel_s: the median device time of the search kernels of one scan (the
 * engine's kernel_s: CUDA events on a GPU, = the call on the CPU). */
static double time_scan(gpuasm_engine *e, const gpuasm_seqset *reads,
                        const gpuasm_search_opt *opt, int reps, size_t *n_hits, double *kernel_s)
{
    gpuasm_hits h = { 0 };
    gpuasm_err err;
    double *t = calloc((size_t)reps, sizeof(double));
    double *kt = calloc((size_t)reps, sizeof(double));
    for (int r = -1; r < reps; r++) {
        gpuasm_scan_stats before, after;
        gpuasm_engine_stats(e, &before);
        double t0 = now();
        if (gpuasm_engine_scan(e, reads, opt, &h, &err) < 0) {
            fprintf(stderr, "bench_kernels: %s\n", err.msg);
            exit(1);
        }
        if (r >= 0) t[r] = now() - t0;
        gpuasm_engine_stats(e, &after);
        if (r >= 0) kt[r] = after.kernel_s - before.kernel_s;
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_d);
    qsort(kt, (size_t)reps, sizeof(double), cmp_d);
    double med = t[reps / 2];
    *kernel_s = kt[reps / 2];
    *n_hits = h.n;
    gpuasm_hits_free(&h);
    free(t);
    free(kt);
    return med;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: see the comment at the top of tests/bench/bench_kernels.c\n");
        return 1;
    }
    const char *device = argv[1], *mode = argv[2];
    gpuasm_err err, warn;
    gpuasm_engine *e;
    if (gpuasm_engine_open(device, 16, &e, &err, &warn) < 0) {
        fprintf(stderr, "bench_kernels: %s\n", err.msg);
        return 1;
    }
    if (!strcmp(mode, "p1") && argc == 7) {
        uint64_t m = strtoull(argv[3], NULL, 10), n = strtoull(argv[4], NULL, 10);
        int k = atoi(argv[5]), reps = atoi(argv[6]);
        uint8_t *p = malloc(m), *t = gpuasm_engine_host_alloc(e, n);
        for (uint64_t i = 0; i < m; i++) p[i] = rnd_base();
        for (uint64_t i = 0; i < n; i++) t[i] = rnd_base();
        uint64_t poff[2] = { 0, m }, toff[2] = { 0, n };
        gpuasm_seqset tg = { 1, poff, p }, rd = { 1, toff, t };
        gpuasm_search_opt opt = { .max_diffs = k, .error_rate = 0, .pattern_side = GPUASM_PATTERN_TARGET };
        if (gpuasm_engine_set_targets(e, &tg, &err) < 0) {
            fprintf(stderr, "bench_kernels: %s\n", err.msg);
            return 1;
        }
        size_t nh;
        double ks;
        double s = time_scan(e, &rd, &opt, reps, &nh, &ks);
        double cells = 2.0 * (double)m * (double)n;
        printf("%s\tp1\tm=%llu n=%llu k=%d\t%.6f s\t%.3e cells\t%.3f TCUPS\t%zu hits"
               "\t%.6f kernel_s\t%.3f kernel TCUPS\n",
               gpuasm_engine_describe(e), (unsigned long long)m, (unsigned long long)n, k, s,
               cells, cells / s / 1e12, nh, ks, ks > 0 ? cells / ks / 1e12 : 0.0);
        return 0;
    }
    if (!strcmp(mode, "p2") && argc == 8) {
        gpuasm_targets tg;
        if (gpuasm_targets_load(argv[3], 0, &tg, err.msg, sizeof err.msg) < 0) {
            fprintf(stderr, "bench_kernels: %s\n", err.msg);
            return 1;
        }
        uint32_t nr = (uint32_t)strtoul(argv[4], NULL, 10), len = (uint32_t)atoi(argv[5]);
        double rate = atof(argv[6]);
        int reps = atoi(argv[7]);
        uint64_t *off = gpuasm_engine_host_alloc(e, ((size_t)nr + 1) * sizeof(uint64_t));
        uint8_t *code = gpuasm_engine_host_alloc(e, (size_t)nr * (len + len / 2 + 8));
        uint64_t at = 0, glen = tg.off[tg.n];
        off[0] = 0;
        for (uint32_t r = 0; r < nr; r++) {
            uint8_t *o = code + at;
            uint32_t l = 0;
            if (r & 1) {
                for (; l < len; l++) o[l] = rnd_base();
            } else {
                uint64_t s = rnd() % (glen - 2 * len);   /* may straddle two genomes: fine */
                int rev = (int)(rnd() & 1);
                uint8_t buf[4096];
                uint32_t b = 0;
                for (uint64_t i = s; b < len && b < sizeof buf - 2; i++) {
                    double u = (double)(rnd() >> 11) * 0x1.0p-53;
                    if (u < rate / 3) continue;                        /* deletion */
                    if (u < 2 * rate / 3) buf[b++] = rnd_base();       /* insertion */
                    buf[b++] = u < rate ? rnd_base() : tg.code[i];     /* substitution */
                }
                for (l = 0; l < b && l < len; l++)
                    o[l] = rev ? gpuasm_nt16_comp(buf[b - 1 - l]) : buf[l];
            }
            at += l;
            off[r + 1] = at;
        }
        gpuasm_seqset rd = { nr, off, code };
        gpuasm_search_opt opt = { .max_diffs = -1, .error_rate = 0.1, .pattern_side = GPUASM_PATTERN_SHORTER };
        if (gpuasm_engine_set_targets(e, &tg.set, &err) < 0) {
            fprintf(stderr, "bench_kernels: %s\n", err.msg);
            return 1;
        }
        size_t nh;
        double ks;
        double s = time_scan(e, &rd, &opt, reps, &nh, &ks);
        double cells = 0;
        for (uint32_t r = 0; r < nr; r++) cells += 2.0 * (double)(off[r + 1] - off[r]) * (double)glen;
        printf("%s\tp2\t%u reads of %u bp vs %llu bp\t%.6f s\t%.3e cells\t%.3f TCUPS\t%zu hits"
               "\t%.0f reads/s\t%.6f kernel_s\n", gpuasm_engine_describe(e), nr, len,
               (unsigned long long)glen, s, cells, cells / s / 1e12, nh, nr / s, ks);
        return 0;
    }
    fprintf(stderr, "bench_kernels: bad arguments (see the comment at the top of the file)\n");
    return 1;
}
