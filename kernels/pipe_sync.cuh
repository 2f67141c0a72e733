/* SPDX-License-Identifier: MIT */
/* pipe_sync.cuh -- how piped strips wait for each other on the GPU
 * (internal to kernels/; .cu files only): the words a strip publishes
 * (its entry, its record's progress, its end) and the warp-wide waits on
 * them.  kernels/myers/myers_pipe_cuda.cu (the search's LONG path) and
 * kernels/ends/partial_cuda.cu (the ends pass's warp path) run an item's
 * strips on warps of their own, each behind the strip above, as
 * kernels/bands.c's threads do on the CPU.
 *
 * A writer makes its stores visible with __threadfence() before the word
 * that announces them (a volatile store); a reader reads the word with
 * every lane (volatile loads, not cached in L1), fences, and then reads
 * the announced data through L2 (__ldcg): an L1 line read earlier on the
 * reader's SM could hide the writer's stores from another SM.
 */
#ifndef GPUASM_KERNELS_PIPE_SYNC_CUH
#define GPUASM_KERNELS_PIPE_SYNC_CUH

#include <stdint.h>

enum : uint32_t {
    PIPE_CHUNK = 128,     /* steady steps between hooks (a multiple of 32) */
    PIPE_PUBLISH = 128,   /* columns between a strip's publications */
    PIPE_NEVER = 1,       /* info's high word: never entered */
};

/* Wait, with every lane of the warp, until *p >= need (a strip's done
 * word); *seen: the last value seen (uniform).  Each lane reads the word
 * itself and fences after, so its later L2 reads (ld.cg) see what the
 * writer published before it. */
static __device__ __forceinline__ void pipe_wait(const uint32_t *p, uint32_t need, uint32_t &seen)
{
    if (need <= seen) return;
    uint32_t v;
    for (;;) {
        v = *(const volatile uint32_t *)p;
        if (__all_sync(0xffffffffu, v >= need)) break;
        __nanosleep(256);
    }
    __threadfence();
    seen = __reduce_min_sync(0xffffffffu, v);
}

/* A strip's info word, once it is set (every lane). */
static __device__ __forceinline__ unsigned long long pipe_info(const unsigned long long *p)
{
    unsigned long long v;
    for (;;) {
        v = *(const volatile unsigned long long *)p;
        if (__all_sync(0xffffffffu, v != 0)) break;
        __nanosleep(256);
    }
    __threadfence();
    return __shfl_sync(0xffffffffu, v, 0);
}

/* The info word of an entry at column c0 with D = base above the strip. */
static __device__ __forceinline__ unsigned long long pipe_entry(uint32_t c0, int32_t base)
{
    return ((unsigned long long)(c0 + 2u) << 32) | (uint32_t)base;
}

/* Every strip above s of an item has set fin (every lane). */
static __device__ __forceinline__ void pipe_wait_fin(const uint32_t *fin, uint32_t s, uint32_t lane)
{
    for (uint32_t a = lane; a < s; a += 32u)
        while (*(const volatile uint32_t *)(fin + a) == 0) __nanosleep(256);
    __threadfence();
    __syncwarp();
}

#endif
