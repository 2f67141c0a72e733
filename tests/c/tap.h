/* tap.h -- what the C tests (test_kernels.c, test_lanes.c) share: TAP
 * lines, bounded diagnostics, allocation that aborts, and the seeded
 * generator (splitmix64; GPUASM_TEST_SEED sets rng). */
#ifndef GPUASM_TEST_TAP_H
#define GPUASM_TEST_TAP_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int n_tests, n_failed;

static inline int tap(int ok, const char *fmt, ...)
{
    va_list ap;
    n_tests++;
    if (!ok) n_failed++;
    printf("%s %d - ", ok ? "ok" : "not ok", n_tests);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    return ok;
}

/* Diagnostics: at most a few per test so a broken kernel stays readable. */
static int n_diag;
static inline void diag(const char *fmt, ...)
{
    va_list ap;
    if (n_diag++ >= 20) return;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "tests: out of memory\n");
        abort();
    }
    return p;
}

static inline void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "tests: out of memory\n");
        abort();
    }
    return p;
}

static uint64_t rng;

static inline uint64_t rnd(void)   /* splitmix64 */
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }
static inline int chance(double p) { return (double)(rnd() >> 11) * 0x1.0p-53 < p; }

#endif
