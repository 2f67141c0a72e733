/* SPDX-License-Identifier: MIT */
/* bench_traceback -- time per hit of gpuasm_traceback()'s two methods and
 * of gpuasm_hit_starts(), for choosing the banded/linear switch
 * (BANDED_MAX_CELLS in align/traceback.c) and for NOTES.md.
 *
 *   bench_traceback M RATE [REPS [MEM_BYTES]]
 *       A random pattern of M bases and a copy with RATE random edits
 *       (substitution, insertion, deletion, 1/3 each) between 100-base
 *       random flanks; the hit is the copy's end with its exact distance
 *       (from gpuasm_myers_cpu_pair).  Prints the median microseconds of
 *       REPS calls [0 = auto: about 0.3 s per method] for banded, linear
 *       (with a budget of MEM_BYTES [0 = the default]) and hit_starts, and
 *       m * (2d + 1).  Both methods' alignments are compared (exit 1 when
 *       they differ).  The banded method is skipped (-1) past 2^28 cells
 *       (its bits would take more than 64 MiB).
 *
 * Timings are for NOTES.md, never a test.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "search/search.h"
#include "align/traceback.h"

typedef struct { uint64_t j; int32_t d; } best_t;

static void keep_best(void *ctx, uint64_t j, int32_t d)
{
    best_t *b = ctx;
    if (d < b->d) { b->d = d; b->j = j; }
}

static uint8_t base(void) { return (uint8_t)(1u << (rnd() & 3)); }

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_traceback M RATE [REPS]\n");
        return 1;
    }
    uint32_t m = (uint32_t)strtoul(argv[1], NULL, 10);
    double rate = strtod(argv[2], NULL);
    int reps = argc > 3 ? atoi(argv[3]) : 0;
    size_t mem = argc > 4 ? (size_t)strtoull(argv[4], NULL, 10) : 0;
    uint8_t *p = malloc(m), *t = malloc(2 * (size_t)m + 200);
    if (!p || !t || m == 0) return 1;
    for (uint32_t i = 0; i < m; i++) p[i] = base();
    uint64_t n = 0;
    for (int i = 0; i < 100; i++) t[n++] = base();
    for (uint32_t i = 0; i < m; i++) {
        double u = (double)(rnd() >> 11) * 0x1.0p-53;
        if (u >= rate) { t[n++] = p[i]; continue; }
        switch (rnd() % 3) {
        case 0: t[n++] = base(); break;
        case 1: t[n++] = base(); t[n++] = p[i]; break;
        default: break;
        }
    }
    for (int i = 0; i < 100; i++) t[n++] = base();
    best_t b = { 0, INT32_MAX };
    int32_t k = (int32_t)(2 * rate * m) + 2;
    if (k >= (int32_t)m) k = (int32_t)m - 1;
    if (gpuasm_myers_cpu_pair(p, m, t, n, k, keep_best, &b) < 0 || b.d == INT32_MAX) {
        fprintf(stderr, "bench_traceback: no hit\n");
        return 1;
    }
    gpuasm_tb_work wb = { .method = GPUASM_TB_BANDED };
    gpuasm_tb_work wl = { .method = GPUASM_TB_LINEAR, .mem_bytes = mem };
    gpuasm_aln ab = {0}, al = {0};
    int banded = (uint64_t)m * (2 * (uint64_t)b.d + 1) <= ((uint64_t)1 << 28);
    if (gpuasm_traceback(p, m, t, n, b.j, b.d, &wl, &al) ||
        (banded && (gpuasm_traceback(p, m, t, n, b.j, b.d, &wb, &ab) || ab.tstart != al.tstart ||
                    ab.n_op != al.n_op || memcmp(ab.op, al.op, ab.n_op)))) {
        fprintf(stderr, "bench_traceback: the methods disagree\n");
        return 1;
    }
    if (reps <= 0) {
        double t0 = now();
        gpuasm_traceback(p, m, t, n, b.j, b.d, &wl, &al);
        double one = now() - t0;
        reps = one > 0 ? (int)(0.3 / one) : 1000;
        if (reps < 3) reps = 3;
        if (reps > 20001) reps = 20001;
    }
    double *sb = malloc(sizeof(double) * (size_t)reps), *sl = malloc(sizeof(double) * (size_t)reps),
           *ss = malloc(sizeof(double) * (size_t)reps);
    uint64_t lo, hi;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        if (banded) gpuasm_traceback(p, m, t, n, b.j, b.d, &wb, &ab);
        double t1 = now();
        gpuasm_traceback(p, m, t, n, b.j, b.d, &wl, &al);
        double t2 = now();
        gpuasm_hit_starts(p, m, t, n, b.j, b.d, &wl, &lo, &hi);
        double t3 = now();
        sb[r] = banded ? t1 - t0 : -1e-6;
        sl[r] = t2 - t1;
        ss[r] = t3 - t2;
    }
    printf("m %u rate %.3f d %d cells %" PRIu64 " reps %d: banded %.2f us, linear %.2f us, "
           "hit_starts %.2f us\n", m, rate, b.d, (uint64_t)m * (2 * (uint64_t)b.d + 1), reps,
           1e6 * median(sb, reps), 1e6 * median(sl, reps), 1e6 * median(ss, reps));
    gpuasm_tb_work_free(&wb);
    gpuasm_tb_work_free(&wl);
    gpuasm_aln_free(&ab);
    gpuasm_aln_free(&al);
    free(p); free(t); free(sb); free(sl); free(ss);
    return 0;
}
