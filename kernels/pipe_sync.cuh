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

/* An info word's parts: entered (else never), its column, D above it. */
static __device__ __forceinline__ bool pipe_info_entered(unsigned long long v) { return (v >> 32) != PIPE_NEVER; }
static __device__ __forceinline__ uint32_t pipe_info_c0(unsigned long long v) { return (uint32_t)(v >> 32) - 2u; }
static __device__ __forceinline__ int32_t pipe_info_base(unsigned long long v) { return (int32_t)(uint32_t)v; }

/* Strip s's info word, set by lane 0: entered at c0 from base, or never. */
static __device__ __forceinline__ void pipe_publish_info(unsigned long long *info, bool entered, uint32_t c0,
                                                         int32_t base, uint32_t lane)
{
    if (lane == 0)
        *(volatile unsigned long long *)info = entered ? pipe_entry(c0, base) : (unsigned long long)PIPE_NEVER << 32;
}

/* Strip s's entry (every lane): strip 0 at column 0 from D = 0; strip s
 * from the info of strip s - 1 (*above: it was entered) and, if it was,
 * find(c0_above, base_above, first, first_d), which scans its record
 * (first = UINT32_MAX: none).  True when strip s is entered, at *c0 from
 * *base. */
template <class Find>
static __device__ __forceinline__ bool pipe_enter(const unsigned long long *info, uint32_t s, uint32_t *c0,
                                                  int32_t *base, bool *above, const Find &find)
{
    *c0 = 0;
    *base = 0;
    *above = true;
    if (s == 0) return true;
    const unsigned long long up = pipe_info(info + s - 1u);
    *above = pipe_info_entered(up);
    if (!*above) return false;
    uint32_t first;
    int32_t first_d;
    find(pipe_info_c0(up), pipe_info_base(up), first, first_d);
    if (first == UINT32_MAX) return false;
    *c0 = first;
    *base = first_d;
    return true;
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
