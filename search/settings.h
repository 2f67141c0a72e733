/* SPDX-License-Identifier: MIT */
/* settings.h -- the tuning knobs of the search, read once, in one place.
 *
 * Knobs never change a result: they only choose which code path runs and
 * how work is cut (segment lengths, chunk sizes, buffer sizes), so the GPU
 * suite (tests/gpu/run) can force every path on small inputs and check that
 * each gives the CPU's bytes.  They come from the environment, read by
 * gpuasm_settings_read() when an engine opens (engine/engine.c), and reach
 * the kernels as a plain struct; nothing else in kernels/ calls getenv().
 *
 * The list (name, range, what it forces; "unset" = the kernel's own choice):
 *
 *   GPUASM_CUDA_HIT_CAP=N      1..2^40  initial hit-buffer entries of a CUDA lane
 *                                       (default 1 Mi; 1 makes every scan overflow
 *                                       and re-run once, cuda_backend.cu)
 *   GPUASM_CUDA_MEM_LIMIT=B    0..2^50  device memory (bytes) a lane leaves free for
 *                                       itself at open; the rest is held back, so
 *                                       cudaMalloc runs out as on a small GPU (the
 *                                       pipeline then scans fewer reads at a time;
 *                                       tests/gpu/run's out-of-memory case)
 *   GPUASM_CUDA_SIMPLE=B       0|1      myers: every pair through the first, simple
 *                                       kernel (A/B runs)
 *   GPUASM_CUDA_FORCE_GLOBAL=B 0|1      myers: the simple kernel keeps every pattern
 *                                       in global scratch
 *   GPUASM_CUDA_FORCE_WARP=B   0|1      myers: every pair with m <= 4096 through the
 *                                       warp wavefront
 *   GPUASM_CUDA_NO_WARP=B      0|1      myers: long patterns through the simple kernel
 *   GPUASM_CUDA_LONG=N         0..3     myers: the LONG path (strips with Ukkonen's cut-off,
 *                                       myers_long_core.cuh): 0 off (the simple
 *                                       kernel for patterns over 4096), 1 for
 *                                       patterns over 4096 and those of 1024..4096
 *                                       bases whose cut-off band is at most half
 *                                       of them (default; myers_cuda_core.cuh,
 *                                       route()), 2 also for every pair of the
 *                                       warp path, 3 only over 4096 (the rule
 *                                       before issue #30; A/B runs)
 *   GPUASM_CUDA_LONG_RMAX=N    1..6     myers LONG path: widest strip, in 32-bit words per
 *                                       lane (32 x 32 N rows) [6]; 4 is the widest
 *                                       before the R = 5, 6 shapes (A/B runs)
 *   GPUASM_CUDA_LONG_ENDS=B    0|1      myers LONG path: the text-end partials of its
 *                                       pairs from the search's own column n - 2
 *                                       (myers_long_core.cuh) [1]; 0: the ends pass
 *                                       computes them (A/B runs, the GPU suite)
 *   GPUASM_CUDA_LONG_PAD=N     0..65536 myers LONG path: rows of margin over 2.5 k that the first
 *                                       strip's shape must hold (long_band_rows(),
 *                                       myers_cuda_core.cuh) [64]; the routing to the
 *                                       LONG path keeps 64 (A/B runs of P1's shape)
 *   GPUASM_CUDA_LONG_PIPE=N    0..2     myers LONG path: strips of one item on many warps, each
 *                                       following the strip above (myers_pipe_cuda.cu; the ends pass's
 *                                       warp path too, partial_cuda.cu): 0 never, 1 when a chunk's
 *                                       long items are too few to fill the GPU [default], 2 every one
 *                                       (tests)
 *   GPUASM_CUDA_PIPE_R=N       1..2     the piped strips' words per lane (1024 or 2048 rows; default 1)
 *   GPUASM_CUDA_ENDS_PIPE=N    0..2     the ends pass's piped strips alone (default: as
 *                                       GPUASM_CUDA_LONG_PIPE; A/B runs)
 *   GPUASM_CUDA_WARP_LANES=N   1..32    myers: most lanes per warp group (rounded down
 *                                       to a power of 2; small N gives R > 1 words/lane)
 *   GPUASM_CUDA_GROUP=N        1..64    myers: reads per read-as-pattern group
 *   GPUASM_CUDA_SEG_MIN=N      1..2^31  myers, scan: text segment length of every path
 *                                       (at least m + k where a path needs it)
 *   GPUASM_CUDA_PAIR_CHUNK=N   1..2^30  myers, scan: pairs per enumeration chunk
 *   GPUASM_CUDA_SCAN_RUN=N     8|16     scan: text positions per lane per chunk
 *   GPUASM_CUDA_LANES=N        1..8     lanes (streams, each fed by its own scan thread)
 *                                       per CUDA device (default 1, measured; A/B of issue #14:
 *                                       more lanes overlap one batch's copies and
 *                                       launches with others' kernels)
 *   GPUASM_CUDA_FILTER_MIN_BASES=N 0..2^50 --filter auto on CUDA: the exact filters run
 *                                       only when the targets hold at least N bases
 *                                       [1,000,000; 100,000 when every target is the
 *                                       pattern of its pairs: primers, issue #26]; below,
 *                                       the exhaustive kernel (on a GPU it beats the
 *                                       planned windows there: issue #14)
 *   GPUASM_AUTO_CPU_CELLS=N    0..2^62  --device auto: cells per CPU thread under which an
 *                                       input stays on the CPU (cli/auto_device.h;
 *                                       0: always try CUDA)
 *   GPUASM_AUTO_GO_MS=N        0..2^31  --device auto: CUDA starts opening once the CPU
 *                                       alone would take at least N ms for the whole
 *                                       input (predicted from its calls after the first and
 *                                       the file sizes; spent, for a pipe) [500]; 0: at once
 *   GPUASM_AUTO_HUGE_CELLS=N   0..2^62  --device auto and cuda's CPU start: a read of at least N
 *                                       cells (read x target bases x 2) waits for CUDA instead of
 *                                       running on the CPU while it starts [1e11]
 *   GPUASM_AUTO_MOVE=B         0|1      --device auto: 1 (default) scans on the CPU while
 *                                       CUDA starts and moves to it once ready
 *                                       (cli/auto_move.h); 0 waits for CUDA first,
 *                                       as before issue #14 (A/B runs)
 *   GPUASM_CUDA_CPU_START=B    0|1      --device cuda (gpuasm-scan): 1 (default) scans on the
 *                                       CPU while CUDA starts, every read after that on
 *                                       CUDA (the move of --device auto without its
 *                                       fallback: cli/auto_move.h, issue #30); 0 waits
 *                                       for CUDA before the first scan (the GPU suite's
 *                                       CUDA = CPU checks)
 *   GPUASM_AUTO_CHUNK_BASES=N  1..2^40  --device auto: read bases per CPU scan call while
 *                                       CUDA starts (default: about 20 ms a call, adapted;
 *                                       the move waits for the call under way)
 *   GPUASM_AUTO_TEST_MOVE=N    0..2^40  --device auto or cuda, tests: the engine moved to is a
 *                                       second CPU engine (no CUDA needed), and the move
 *                                       waits for it at the Nth CPU scan call (0: off)
 *   GPUASM_AUTO_TEST_DELAY_MS=N 0..600000 --device auto, tests: the engine moved to
 *                                       starts opening after N ms (a slow CUDA start)
 *   GPUASM_AUTO_BACK=B         0|1      --device auto: 1 (default) goes back to the CPU when
 *                                       the engine moved to scans fewer bases a second
 *                                       than the CPU did (cli/auto_device.c, auto_back);
 *                                       0 stays on it (A/B runs)
 *   GPUASM_AUTO_BACK_MS=N      0..2^31  --device auto: the calls on the engine moved to
 *                                       (after its first) timed before the CPU's probe
 *                                       round decides [1000]
 *   GPUASM_AUTO_TEST_BACK=N    0..2^40  --device auto, tests: go back to the CPU after
 *                                       the Nth scan call on the engine moved to, whatever
 *                                       the rates (0: off)
 *   GPUASM_CUDA_ENDS_WARP_MIN=N 257..2^32 the ends pass (partial_cuda.cu), edit mode on
 *                                       nt16: patterns of at least N bases run a warp
 *                                       per item (partial_warp.cuh) [257: every pattern
 *                                       over 256 bases]; those of 257 .. N-1 bases a
 *                                       thread per item (A/B runs, tests)
 *   GPUASM_CUDA_LONG_ORDER_ITEMS=N 0..2^40 myers LONG path: a launch with at most N items
 *                                       hands them to its work queue longest first
 *                                       [1,048,576]; 0: in item order (the GPU suite's
 *                                       long-noorder run)
 *   GPUASM_CUDA_HAMMING_SMEM_M=N 0..2^31 hamming: longest pattern of the shared-memory
 *                                       layouts (0: everything through THREAD)
 *   GPUASM_DP_ROWS=H           1..8     dp BEST: at least H rows per thread (1, 2, 4, 8)
 *   GPUASM_DP_THREADS=N        1..1024  dp: every pair through the memory-backed
 *                                       program of its variant, <= N threads a block
 *   GPUASM_DP_FORCE_GLOBAL=B   0|1      dp: the same with ring / rows in global scratch
 *   GPUASM_DP_PAIR_CHUNK=N     1..2^30  dp: pairs per plan chunk (default 256 Ki)
 *   GPUASM_DTW_ROWS=R          4..64    dtw BEST: at most R rows per lane (rounded down to
 *                                       a power of 2; small R gives queries of several
 *                                       bands of 32 R rows)
 *   GPUASM_DTW_SETS=N          0..8     dtw BEST: at most N sets of rows per lane on the
 *                                       sets path (dtw_cuda.cu; default 8); 0 turns it
 *                                       off (every query through the band path);
 *                                       GPUASM_DTW_ROWS caps the rows of a set
 *   GPUASM_DTW_FORCE_GLOBAL=B  0|1      dtw PAPER: the ring in global scratch
 *   GPUASM_DTW_CHUNK=N         1..2^30  dtw: BEST items per wave of a multi-band bucket,
 *                                       PAPER blocks per chunk (default: from a 256 MiB
 *                                       budget)
 *   GPUASM_CPU_SIMD=N          0..3     CPU: the highest SIMD level used (0 scalar,
 *                                       1 SSE4.1, 2 AVX2, 3 AVX-512; cpu_simd.h), at
 *                                       most the processor's
 *   GPUASM_CPU_PREFILTER=N     0..2     CPU, myers: the pigeonhole filters (prefilter.h)
 *                                       under --filter auto: 0 off, 1 on where they
 *                                       save work (default), 2 on wherever they apply
 *   GPUASM_CPU_LANE_MIN=N      1..2^40  CPU, myers: least text bases per text lane
 *                                       (default 8 (m + k); 1 puts every read-as-
 *                                       pattern pair with k < 64 through text lanes)
 *   GPUASM_CPU_INDEX_MAX=N     1..2^32  CPU: most windows (6 bytes each) of the targets'
 *                                       q-gram index (default 2^28, 1 GiB); past it
 *                                       --filter auto scans without the index and
 *                                       --filter index refuses the run
 *   GPUASM_CPU_ENDS_FILTER=B   0|1      CPU: the ends filter (ends_filter.h) as --filter
 *                                       says (1, default), or never (0: the ends pass
 *                                       for every item, the benchmarks' "before" rows)
 *   GPUASM_CPU_ENDS_CLASSES=B  0|1      CPU: adapter families' ends candidates settled by one
 *                                       DP where it proves them empty (walk/ends_classes.h;
 *                                       1, default), or each run (0: the same bytes, for
 *                                       tests and benchmarks)
 *   GPUASM_CPU_PERIODIC=B      0|1      CPU: a declined read strand's search leaves out
 *                                       the repeating columns of the targets' periodic
 *                                       runs (walk/periodic.h; 1, default), or runs
 *                                       them all (0: the same bytes, for tests)
" *   GPUASM_KEEP_ALL=B          0|1      every backend returns every local minimum even
 *                                       where the report uses fewer (1; search.h's
 *                                       GPUASM_KEEP_REPORTED, the default without
 *                                       --all, is then off: A/B runs and the test that
 *                                       the rule gives the same SAM)
 *   GPUASM_CUDA_ENDS_PLAN=N    0..2     CUDA: the ends pass over the ends filter's items,
 *                                       listed on the host (walk/ends_plan.h) where it
 *                                       applies and --filter is not off: 1 (default) for
 *                                       at least 1,000 filtered targets, 2 always, 0 never
 *                                       (the dense pass over every item)
 *   GPUASM_CUDA_ENDS_SHARED=0  0..1     CUDA: the dense ends pass reads the targets' Eq
 *                                       tables from global memory (k_partial_small), not
 *                                       from shared memory where they fit (1, default:
 *                                       k_partial_shared; A/B runs)
 *   GPUASM_CUDA_PLAN_PINNED=0  0..1     CUDA, --filter: the planned windows in pageable
 *                                       memory, whose copy waits behind the GPU's
 *                                       verification, not pinned (1, default:
 *                                       engine/plan_upload.cuh; A/B runs)
 *   GPUASM_CUDA_PLAN_CHUNK=N   1..2^31  CUDA, --filter: reads planned at a time (default
 *                                       256 per -@ thread, 1,024..8,192)
 *   GPUASM_CUDA_PIECES_GPU=0   0..1     CUDA, --filter: the pieces filter's windows
 *                                       planned on the host threads (filter_plan.c),
 *                                       not on the GPU (1, default where it applies:
 *                                       walk/pieces_cuda.cuh; A/B runs)
 *
 * A set knob that is not an integer in its range is an error
 * (GPUASM_ERR_BAD_OPTION naming it): a typo must not run the default path
 * while a test believes it forced another one.
 */
#ifndef GPUASM_SETTINGS_H
#define GPUASM_SETTINGS_H

#include <stdint.h>
#include "search/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every field: the knob's value, or -1 when it is unset. */
typedef struct gpuasm_settings {
    int64_t cuda_hit_cap, cuda_mem_limit;
    int64_t cuda_simple, cuda_force_global, cuda_force_warp, cuda_no_warp, cuda_long;
    int64_t cuda_warp_lanes, cuda_group, cuda_seg_min, cuda_pair_chunk;
    int64_t cuda_scan_run, cuda_lanes, cuda_filter_min_bases, auto_cpu_cells;
    int64_t auto_move, cuda_cpu_start, auto_go_ms, auto_huge_cells, auto_chunk_bases, auto_test_move, auto_test_delay_ms;
    int64_t cuda_hamming_smem_m, cuda_ends_warp_min, cuda_long_order_items, cuda_long_rmax, cuda_long_ends,
        cuda_long_pad, cuda_long_pipe, cuda_pipe_r, cuda_ends_pipe;
    int64_t dp_rows, dp_threads, dp_force_global, dp_pair_chunk;
    int64_t dtw_rows, dtw_sets, dtw_force_global, dtw_chunk;
    int64_t cpu_simd, cpu_prefilter, cpu_lane_min, cpu_index_max, cpu_ends_filter, cpu_periodic;
    int64_t cpu_ends_classes;
    int64_t cuda_ends_plan, cuda_ends_shared, cuda_plan_pinned, cuda_plan_chunk, cuda_pieces_gpu, keep_all, auto_back, auto_test_back, auto_back_ms;
} gpuasm_settings;

/* Every knob unset. */
void gpuasm_settings_init(gpuasm_settings *s);

/* Read every knob from the environment.  0, or GPUASM_ERR_BAD_OPTION with
 * err naming the knob and its range. */
int gpuasm_settings_read(gpuasm_settings *s, gpuasm_err *err);

/* A knob's value, or dflt when it is unset. */
static inline int64_t gpuasm_knob(int64_t value, int64_t dflt) { return value < 0 ? dflt : value; }

#ifdef __cplusplus
}
#endif
#endif
