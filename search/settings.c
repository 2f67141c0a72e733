/* SPDX-License-Identifier: MIT */
/* settings.c -- the one reader of the tuning knobs (see settings.h for the
 * list and why they exist). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "search/settings.h"

typedef struct {
    const char *name;
    size_t field;           /* offsetof(gpuasm_settings, ...) */
    int64_t lo, hi;         /* accepted range */
} knob_def;

#define KNOB(name, field, lo, hi) { name, offsetof(gpuasm_settings, field), lo, hi }

static const knob_def knobs[] = {
    KNOB("GPUASM_CUDA_HIT_CAP", cuda_hit_cap, 1, (int64_t)1 << 40),
    KNOB("GPUASM_CUDA_MEM_LIMIT", cuda_mem_limit, 0, (int64_t)1 << 50),
    KNOB("GPUASM_CUDA_SIMPLE", cuda_simple, 0, 1),
    KNOB("GPUASM_CUDA_FORCE_GLOBAL", cuda_force_global, 0, 1),
    KNOB("GPUASM_CUDA_FORCE_WARP", cuda_force_warp, 0, 1),
    KNOB("GPUASM_CUDA_NO_WARP", cuda_no_warp, 0, 1),
    KNOB("GPUASM_CUDA_LONG", cuda_long, 0, 3),
    KNOB("GPUASM_CUDA_WARP_LANES", cuda_warp_lanes, 1, 32),
    KNOB("GPUASM_CUDA_GROUP", cuda_group, 1, 64),
    KNOB("GPUASM_CUDA_SEG_MIN", cuda_seg_min, 1, (int64_t)1 << 31),
    KNOB("GPUASM_CUDA_PAIR_CHUNK", cuda_pair_chunk, 1, (int64_t)1 << 30),
    KNOB("GPUASM_CUDA_SCAN_RUN", cuda_scan_run, 8, 16),
    KNOB("GPUASM_CUDA_LANES", cuda_lanes, 1, 8),
    KNOB("GPUASM_CUDA_FILTER_MIN_BASES", cuda_filter_min_bases, 0, (int64_t)1 << 50),
    KNOB("GPUASM_AUTO_CPU_CELLS", auto_cpu_cells, 0, (int64_t)1 << 62),
    KNOB("GPUASM_AUTO_MOVE", auto_move, 0, 1),
    KNOB("GPUASM_CUDA_CPU_START", cuda_cpu_start, 0, 1),
    KNOB("GPUASM_AUTO_GO_MS", auto_go_ms, 0, (int64_t)1 << 31),
    KNOB("GPUASM_AUTO_HUGE_CELLS", auto_huge_cells, 0, (int64_t)1 << 62),
    KNOB("GPUASM_AUTO_CHUNK_BASES", auto_chunk_bases, 1, (int64_t)1 << 40),
    KNOB("GPUASM_AUTO_TEST_MOVE", auto_test_move, 0, (int64_t)1 << 40),
    KNOB("GPUASM_AUTO_TEST_DELAY_MS", auto_test_delay_ms, 0, 600000),
    KNOB("GPUASM_CUDA_HAMMING_SMEM_M", cuda_hamming_smem_m, 0, (int64_t)1 << 31),
    KNOB("GPUASM_CUDA_ENDS_WARP_MIN", cuda_ends_warp_min, 257, (int64_t)1 << 32),
    KNOB("GPUASM_CUDA_LONG_ORDER_ITEMS", cuda_long_order_items, 0, (int64_t)1 << 40),
    KNOB("GPUASM_CUDA_LONG_RMAX", cuda_long_rmax, 1, 6),
    KNOB("GPUASM_CUDA_LONG_ENDS", cuda_long_ends, 0, 1),
    KNOB("GPUASM_CUDA_LONG_PAD", cuda_long_pad, 0, 65536),
    KNOB("GPUASM_CUDA_LONG_PIPE", cuda_long_pipe, 0, 2),
    KNOB("GPUASM_CUDA_PIPE_R", cuda_pipe_r, 1, 2),
    KNOB("GPUASM_CUDA_ENDS_PIPE", cuda_ends_pipe, 0, 2),
    KNOB("GPUASM_DP_ROWS", dp_rows, 1, 8),
    KNOB("GPUASM_DP_THREADS", dp_threads, 1, 1024),
    KNOB("GPUASM_DP_FORCE_GLOBAL", dp_force_global, 0, 1),
    KNOB("GPUASM_DP_PAIR_CHUNK", dp_pair_chunk, 1, (int64_t)1 << 30),
    KNOB("GPUASM_DTW_ROWS", dtw_rows, 4, 64),
    KNOB("GPUASM_DTW_SETS", dtw_sets, 0, 8),
    KNOB("GPUASM_DTW_FORCE_GLOBAL", dtw_force_global, 0, 1),
    KNOB("GPUASM_DTW_CHUNK", dtw_chunk, 1, (int64_t)1 << 30),
    KNOB("GPUASM_CPU_SIMD", cpu_simd, 0, 3),
    KNOB("GPUASM_CPU_PREFILTER", cpu_prefilter, 0, 2),
    KNOB("GPUASM_CPU_LANE_MIN", cpu_lane_min, 1, (int64_t)1 << 40),
    KNOB("GPUASM_CPU_INDEX_MAX", cpu_index_max, 1, (int64_t)1 << 32),
    KNOB("GPUASM_CPU_ENDS_FILTER", cpu_ends_filter, 0, 1),
    KNOB("GPUASM_CPU_PERIODIC", cpu_periodic, 0, 1),
    KNOB("GPUASM_CPU_ENDS_CLASSES", cpu_ends_classes, 0, 1),
    KNOB("GPUASM_CUDA_ENDS_PLAN", cuda_ends_plan, 0, 2),
    KNOB("GPUASM_CUDA_ENDS_SHARED", cuda_ends_shared, 0, 1),
    KNOB("GPUASM_CUDA_PLAN_PINNED", cuda_plan_pinned, 0, 1),
    KNOB("GPUASM_CUDA_PLAN_CHUNK", cuda_plan_chunk, 1, (int64_t)1 << 31),
    KNOB("GPUASM_CUDA_PIECES_GPU", cuda_pieces_gpu, 0, 1),
    KNOB("GPUASM_KEEP_ALL", keep_all, 0, 1),
    KNOB("GPUASM_AUTO_BACK", auto_back, 0, 1),
    KNOB("GPUASM_AUTO_TEST_BACK", auto_test_back, 0, (int64_t)1 << 40),
    KNOB("GPUASM_AUTO_BACK_MS", auto_back_ms, 0, (int64_t)1 << 31),
};

void gpuasm_settings_init(gpuasm_settings *s)
{
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++)
        *(int64_t *)((char *)s + knobs[i].field) = -1;
}

int gpuasm_settings_read(gpuasm_settings *s, gpuasm_err *err)
{
    gpuasm_settings_init(s);
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) {
        const knob_def *k = &knobs[i];
        const char *v = getenv(k->name);
        if (!v || !*v) continue;
        char *end = NULL;
        errno = 0;
        long long x = isdigit((unsigned char)v[0]) ? strtoll(v, &end, 10) : -1;
        if (x < k->lo || x > k->hi || errno || !end || *end)
            return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION,
                                  "%s='%.40s': expected an integer from %lld to %lld",
                                  k->name, v, (long long)k->lo, (long long)k->hi);
        *(int64_t *)((char *)s + k->field) = x;
    }
    return 0;
}
