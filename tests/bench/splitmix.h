/* splitmix.h -- the benchmarks' random generator (splitmix64, fixed start),
 * shared so that bench_kernels and edlib_hw draw the same P1 pattern and
 * text. */
#ifndef GPUASM_BENCH_SPLITMIX_H
#define GPUASM_BENCH_SPLITMIX_H
#include <stdint.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static inline uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
#endif
