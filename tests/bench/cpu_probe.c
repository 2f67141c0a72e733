/* SPDX-License-Identifier: MIT */
/* cpu_probe -- what the host's cores give to independent register-only work
 * (tests/bench/threads, issue #13).
 *
 *   cpu_probe [ITERATIONS]
 *
 * Runs four independent xorshift64 chains (Marsaglia 2003, shifts 13/7/17)
 * for ITERATIONS steps (default 400,000,000): integer shifts and xors only,
 * no memory traffic beyond the stack, so its speed depends on the core
 * alone (clock, and any sharing of the physical core the hypervisor does).
 * tests/bench/threads starts one copy alone, then T copies at once: if the
 * T copies take longer than the one, the host cannot give T-fold speed-up
 * even to work that shares nothing, and no threaded program can.
 * Prints "cpu_probe <seconds> <checksum bit>"; exit 0, or 1 on a bad
 * argument.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t xorshift64(uint64_t x)
{
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

int main(int argc, char **argv)
{
    long iters = 400000000L;
    if (argc > 2 || (argc == 2 && (iters = strtol(argv[1], NULL, 10)) <= 0)) {
        fprintf(stderr, "usage: cpu_probe [ITERATIONS > 0]\n");
        return 1;
    }
    /* Four chains so the core's ALUs stay busy despite each chain's
     * dependencies; the checksum keeps the compiler from dropping them. */
    uint64_t a = 1, b = 2, c = 3, d = 4;
    const double t0 = now();
    for (long i = 0; i < iters; i++) {
        a = xorshift64(a);
        b = xorshift64(b);
        c = xorshift64(c);
        d = xorshift64(d);
    }
    const double t = now() - t0;
    printf("cpu_probe\t%.3f\t%u\n", t, (unsigned)((a ^ b ^ c ^ d) & 1u));
    return 0;
}
