/* tap.h -- TAP output and a seeded generator for the signal-mode tests
 * (test_dtw.c, and test_dtw_cuda.cu compiled by nvcc).  Header-only. */
#ifndef GPUASM_TEST_TAP_H
#define GPUASM_TEST_TAP_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed, tap_ndiag;

static int tap(int ok, const char *fmt, ...)
{
    va_list ap;
    tap_n++;
    if (!ok) tap_failed++;
    printf("%s %d - ", ok ? "ok" : "not ok", tap_n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    return ok;
}

/* At most 30 diagnostic lines, so a broken kernel stays readable. */
static void diag(const char *fmt, ...)
{
    va_list ap;
    if (tap_ndiag++ >= 30) return;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* Print the plan and return the exit status. */
static int tap_done(void)
{
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}

static uint64_t rng_state = 15;

static uint64_t rnd(void)   /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }

/* GPUASM_TEST_SEED, else the fixed default. */
static void rng_seed_from_env(void)
{
    const char *s = getenv("GPUASM_TEST_SEED");
    if (s && *s) rng_state = strtoull(s, NULL, 10);
    printf("# seed %llu\n", (unsigned long long)rng_state);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        abort();
    }
    return p;
}

#endif
