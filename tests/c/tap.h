/* SPDX-License-Identifier: MIT */
/* tap.h -- what the C tests share: TAP output, a seeded splitmix64
 * generator, allocation that aborts.  Header-only (static inline), for
 * test_kernels.c, test_lanes.c, test_dtw.c and the nvcc-compiled
 * test_dtw_cuda.cu. */
#ifndef GPUASM_TEST_TAP_H
#define GPUASM_TEST_TAP_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int n_tests, n_failed, n_diag;

/* One TAP line; returns ok. */
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

/* Diagnostics: at most 20 lines, so a broken kernel stays readable. */
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

/* The plan line; the exit status (1 when a test failed). */
static inline int tap_done(void)
{
    printf("1..%d\n", n_tests);
    return n_failed ? 1 : 0;
}

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        abort();
    }
    return p;
}

static inline void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        abort();
    }
    return p;
}

/* ---- random numbers ------------------------------------------------------ */

static uint64_t rng = 15;

static inline uint64_t rnd(void)   /* splitmix64 */
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }
static inline int chance(double p) { return (double)(rnd() >> 11) * 0x1.0p-53 < p; }

/* nt16 s[0 .. n) with edits at rate r (each a substitution by a random
 * base, a deletion, or a random base inserted after it, 1/3 each) into out
 * (room for 2 n); returns its length. */
static inline uint32_t mutate_nt16(const uint8_t *s, uint32_t n, double r, uint8_t *out)
{
    static const uint8_t acgt[4] = { 1, 2, 4, 8 };
    uint32_t o = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!chance(r)) {
            out[o++] = s[i];
            continue;
        }
        switch (rnd() % 3) {
        case 0: out[o++] = acgt[rnd() & 3]; break;
        case 1: break;
        default: out[o++] = s[i]; out[o++] = acgt[rnd() & 3]; break;
        }
    }
    return o;
}

/* GPUASM_TEST_SEED, else the fixed default; printed as a TAP comment. */
static inline void rng_seed_from_env(void)
{
    const char *s = getenv("GPUASM_TEST_SEED");
    if (s && *s) rng = strtoull(s, NULL, 10);
    printf("# seed %llu\n", (unsigned long long)rng);
}

#endif
