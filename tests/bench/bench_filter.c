/* SPDX-License-Identifier: MIT */
/* bench_filter -- the host side of the exact filter (issue #16), apart:
 * the targets' index build (prefilter.h) on 1 and on T threads, and the
 * CUDA backend's planning of candidate windows (filter_plan.h) per read,
 * on the CPU alone (no GPU needed).
 *
 *   bench_filter [-@ T] [-e E] [--chunk N] [--plan-only 1] reads.fq targets.fa
 *
 * Prints TSV lines "what  threads  seconds  detail" on stdout:
 *   index_build    1 and T: wall seconds of gpuasm_tindex_build (best of
 *                  3), and whether the T-thread index equals the one-thread
 *                  one byte for byte;
 *   prep_build     T: gpuasm_cpu_prep_build (PEq, pieces filter, index);
 *   plan           1 and T: gpuasm_plan_build over the reads in chunks of
 *                  N reads (cuda_backend.cu's chunk, default 1024), wall
 *                  seconds, per read, and windows per read.
 *
 *   bench_filter --ends 1 [-e E] reads.fq targets.fa
 *
 * times the ends filter alone (walk/ends_filter.h) as gpuasm-scan's
 * defaults run it (--overlap auto: the floor of align/chance.h, both
 * ends, both strands): build seconds, then gpuasm_efilter_mark over every
 * read strand, one thread, best of 5 ("ends_mark  1  seconds  marks").
 *
 *   bench_filter --ends 2 [-@ T] [-e E] [--chunk N] reads.fq targets.fa
 *
 * times the CUDA lane's host listing of the ends of reads as patterns
 * (walk/ends_plan.h, gpuasm_ends_plan_build_reads: the ends index's marks
 * of every read strand) with the screen's default partial occurrences
 * (--overlap 3, both ends, the reads' floor 13 that a 200 Mb database
 * gets), on T threads, over the reads in chunks of N ("ends_plan  T
 * seconds  items").
 * A benchmark, never a test: nothing here passes or fails on time.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "walk/cpu_scan.h"
#include "walk/filter_plan.h"
#include "walk/prefilter.h"
#include "search/search.h"
#include "io/targets.h"
#include "align/chance.h"
#include "walk/ends_filter.h"
#include "walk/ends_plan.h"
#include "search/nt16.h"

static int same_index(const gpuasm_tindex *a, const gpuasm_tindex *b)
{
    const size_t rows = ((size_t)1 << (2 * GPUASM_QF_Q)) + 1;
    return a->n_pos == b->n_pos && a->n_amb == b->n_amb &&
           !memcmp(a->start, b->start, rows * sizeof(uint32_t)) &&
           (!a->n_pos || (!memcmp(a->pos, b->pos, a->n_pos * sizeof(uint32_t)) &&
                          !memcmp(a->ext4, b->ext4, a->n_pos * sizeof(uint16_t)))) &&
           (!a->n_amb || !memcmp(a->amb, b->amb, a->n_amb * 2 * sizeof(uint64_t)));
}

/* Best of 3 builds on n threads; the last index is kept in *x. */
static double time_build(gpuasm_tindex *x, const gpuasm_seqset *tg, int n)
{
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        if (r) gpuasm_tindex_free(x);
        const double t0 = gpuasm_now_s();
        if (gpuasm_tindex_build(x, tg, (uint64_t)1 << 30, n) != 0) {
            fprintf(stderr, "bench_filter: index build failed\n");
            exit(1);
        }
        const double dt = gpuasm_now_s() - t0;
        if (dt < best) best = dt;
    }
    return best;
}

/* FNV-1a of the plan's windows, in their order: two trees' plans compare
 * by it (the checksum column). */
static uint64_t windows_sum(const gpuasm_plan *plan, uint64_t h)
{
    for (int c = 0; c < 4; c++) {
        const unsigned char *b = (const unsigned char *)plan->win[c];
        for (size_t i = 0; i < plan->n[c] * sizeof(gpuasm_vwin); i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    }
    return h;
}

static double time_plan(const gpuasm_cpu_prep *prep, const gpuasm_seqset *reads, const gpuasm_seqset *tg,
                        const gpuasm_search_opt *opt, int threads, uint32_t chunk, size_t *windows,
                        uint64_t *sum)
{
    double spent = 0;
    gpuasm_plan plan;
    memset(&plan, 0, sizeof plan);
    gpuasm_err err;
    *windows = 0;
    *sum = 0xcbf29ce484222325ULL;
    for (uint32_t first = 0; first < reads->n; first += chunk) {
        const uint32_t n = reads->n - first < chunk ? reads->n - first : chunk;
        const gpuasm_seqset part = { n, reads->off + first, reads->code };
        const double t0 = gpuasm_now_s();
        if (gpuasm_plan_build(&plan, prep, &part, tg, opt, threads, &err) < 0) {
            fprintf(stderr, "bench_filter: %s\n", err.msg);
            exit(1);
        }
        spent += gpuasm_now_s() - t0;
        for (int c = 0; c < 4; c++) *windows += plan.n[c];
        *sum = windows_sum(&plan, *sum);
    }
    gpuasm_plan_free(&plan);
    return spent;
}

/* --ends 1: the ends filter of the defaults alone (the top of this file). */
static int bench_ends(const gpuasm_seqset *reads, const gpuasm_seqset *tg, double e)
{
    gpuasm_search_opt opt;
    memset(&opt, 0, sizeof opt);
    opt.error_rate = e;
    opt.max_diffs = -1;
    opt.overlap_min = 1;
    opt.partial_ends = GPUASM_END_3 | GPUASM_END_5;
    gpuasm_chance *model = NULL;
    if (gpuasm_chance_build(&model, tg, &opt, 0.01) < 0) return -1;
    opt.partial_floor = gpuasm_chance_floor(model, 0);
    gpuasm_chance_free(model);
    gpuasm_efilter f;
    double t0 = gpuasm_now_s();
    if (gpuasm_efilter_build(&f, tg, &opt) < 0) return -1;
    printf("ends_build\t1\t%.4f\tfloor %d, %u targets filtered, %llu keys\n", gpuasm_now_s() - t0,
           opt.partial_floor, f.n_filtered, (unsigned long long)f.n_entries);
    uint32_t *mark[2], *reach[2], *list = NULL, stamp = 0;
    size_t cap = 0;
    for (int k = 0; k < 2; k++) {
        mark[k] = calloc(tg->n ? tg->n : 1, sizeof(uint32_t));
        reach[k] = calloc(tg->n ? tg->n : 1, sizeof(uint32_t));
        if (!mark[k] || !reach[k]) return -1;
    }
    gpuasm_ef_ws ws;
    memset(&ws, 0, sizeof ws);
    uint8_t *rc = NULL;
    size_t cap_rc = 0;
    double best = 1e30;
    unsigned long long marks = 0;
    for (int rep = 0; rep < 5; rep++) {
        marks = 0;
        t0 = gpuasm_now_s();
        for (uint32_t r = 0; r < reads->n; r++) {
            const uint64_t n = reads->off[r + 1] - reads->off[r];
            const uint8_t *read = reads->code + reads->off[r];
            if (n > cap_rc) {
                free(rc);
                cap_rc = n;
                if (!(rc = malloc(n))) return -1;
            }
            gpuasm_nt16_revcomp(rc, read, n);
            for (int s = 0; s < 2; s++) {
                if (++stamp == 0) {
                    for (int k = 0; k < 2; k++) memset(mark[k], 0, tg->n * sizeof(uint32_t));
                    stamp = 1;
                }
                const int64_t nm = gpuasm_efilter_mark(&f, s ? rc : read, n, 3u, mark, stamp, reach, &list,
                                                       &cap, &ws);
                if (nm == -1) return -1;
                if (nm > 0) marks += (unsigned long long)nm;
            }
        }
        const double dt = gpuasm_now_s() - t0;
        if (dt < best) best = dt;
    }
    printf("ends_mark\t1\t%.4f\t%u reads: %.2f us/read, %llu targets marked\n", best, reads->n,
           1e6 * best / (reads->n ? reads->n : 1), marks);
    gpuasm_ef_ws_free(&ws);
    gpuasm_efilter_free(&f);
    for (int k = 0; k < 2; k++) {
        free(mark[k]);
        free(reach[k]);
    }
    free(list);
    free(rc);
    return 0;
}

int main(int argc, char **argv)
{
    int threads = 2;
    double e = 0.05;
    uint32_t chunk = 1024;
    int plan_only = 0;   /* --plan-only 1: no index build timings (for a profile of the planning) */
    int ends = 0;        /* --ends 1: the ends filter alone */
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "-@")) threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-e")) e = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--chunk")) chunk = (uint32_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--plan-only")) plan_only = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--ends")) ends = atoi(argv[i + 1]);
        else break;
    }
    if (argc - i != 2 || threads < 1 || chunk < 1) {
        fprintf(stderr, "usage: bench_filter [-@ T] [-e E] [--chunk N] [--plan-only 1] [--ends 1|2] reads.fq targets.fa\n");
        return 1;
    }
    gpuasm_targets reads, tg;
    char msg[512];
    if (gpuasm_targets_load(argv[i], 0, &reads, msg, sizeof msg) < 0 ||
        gpuasm_targets_load(argv[i + 1], 0, &tg, msg, sizeof msg) < 0) {
        fprintf(stderr, "bench_filter: %s\n", msg);
        return 1;
    }
    if (ends == 1) {
        const int rc = bench_ends(&reads.set, &tg.set, e);
        gpuasm_targets_free(&reads);
        gpuasm_targets_free(&tg);
        if (rc < 0) fprintf(stderr, "bench_filter: out of memory\n");
        return rc < 0 ? 1 : 0;
    }
    gpuasm_search_opt opt;
    memset(&opt, 0, sizeof opt);   /* the defaults (search.h), as gpuasm-scan -e E */
    opt.error_rate = e;
    opt.max_diffs = -1;
    if (ends == 2) {   /* gpuasm-scan's partial occurrences against a database */
        opt.partial_ends = GPUASM_END_3 | GPUASM_END_5;
        opt.overlap_min = 3;
        opt.read_overlap_min = -1;
        opt.partial_floor = opt.read_partial_floor = 13;
        goto plan;
    }

    gpuasm_tindex one, many;
    if (plan_only) goto plan;
    const double t1 = time_build(&one, &tg.set, 1);
    const double tn = time_build(&many, &tg.set, threads);
    printf("index_build\t1\t%.4f\t%llu windows, %llu target bases\n", t1, (unsigned long long)one.n_pos,
           (unsigned long long)tg.off[tg.n]);
    printf("index_build\t%d\t%.4f\tsame as one thread: %s\n", threads, tn, same_index(&one, &many) ? "yes" : "NO");
    gpuasm_tindex_free(&one);
    gpuasm_tindex_free(&many);
plan:;
    gpuasm_cpu_cfg cfg;
    gpuasm_cpu_cfg_default(&cfg);
    cfg.threads = threads;
    gpuasm_cpu_prep *prep = NULL;
    gpuasm_err err;
    double t0 = gpuasm_now_s();
    if (gpuasm_cpu_prep_build(&tg.set, &opt, &cfg, &prep, &err) < 0) {
        fprintf(stderr, "bench_filter: %s\n", err.msg);
        return 1;
    }
    printf("prep_build\t%d\t%.4f\t%s\n", threads, gpuasm_now_s() - t0, gpuasm_cpu_prep_describe(prep));
    if (ends == 2) {
        gpuasm_ends_plan ep;
        memset(&ep, 0, sizeof ep);
        size_t items = 0;
        t0 = gpuasm_now_s();
        for (uint32_t first = 0; first < reads.n; first += chunk) {
            const uint32_t n = reads.n - first < chunk ? reads.n - first : chunk;
            const gpuasm_seqset part = { n, reads.off + first, reads.code };
            if (gpuasm_ends_plan_build_reads(&ep, prep, &part, &tg.set, &opt, threads, &err) < 0) {
                fprintf(stderr, "bench_filter: %s\n", err.msg);
                return 1;
            }
            items += ep.n;
        }
        const double dt = gpuasm_now_s() - t0;
        printf("ends_plan\t%d\t%.4f\t%u reads: %.1f us/read, %.2f items/read\n", threads, dt, reads.n,
               1e6 * dt / reads.n, (double)items / reads.n);
        gpuasm_ends_plan_free(&ep);
    }
    const int tries[2] = { 1, threads };
    for (int k = 0; k < (threads > 1 ? 2 : 1); k++) {
        size_t windows = 0;
        uint64_t sum = 0;
        const double dt = time_plan(prep, &reads.set, &tg.set, &opt, tries[k], chunk, &windows, &sum);
        printf("plan\t%d\t%.4f\t%u reads, e %.3g: %.1f us/read, %.0f windows/read, checksum %016llx\n", tries[k],
               dt, reads.n, e, 1e6 * dt / reads.n, (double)windows / reads.n, (unsigned long long)sum);
    }
    gpuasm_cpu_prep_free(prep);
    gpuasm_targets_free(&reads);
    gpuasm_targets_free(&tg);
    return 0;
}
