/* SPDX-License-Identifier: MIT */
/* registry.h -- the kernel table: one row per search kernel.
 *
 * A kernel is a way of computing D[m][j] for search.h's contract, in one
 * mode (edit distance or mismatches only), or, in the signal mode, D of
 * signal_mode.h's contract (subsequence DTW of numeric signals).  Its row
 * (kernels/NAME/NAME_row.c) names it (--kernel), says which seed paper it
 * follows, what it takes (longest pattern per alphabet, variants,
 * segments), what the shared code may do with it (its capability bits:
 * the walks and backends test these, never a kernel's name) and points at
 * its CPU twin (twin.h; the fallback and the oracle) and its CUDA launcher
 * (cuda_kit.cuh).  The rows and their order come from one list,
 * kernel_list.h.  Every place that needs to know the kernels reads this
 * table: the command line and its --help text, the engine and its backends
 * (the CPU pair walk, the CUDA dispatch), the test driver.  How to add a
 * kernel: kernels/README.md.
 */
#ifndef GPUASM_REGISTRY_H
#define GPUASM_REGISTRY_H

#include <stddef.h>
#include <stdint.h>
#include "search/search.h"
#include "search/signal_mode.h"
#include "search/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What D means. */
enum gpuasm_mode {
    GPUASM_MODE_EDIT    = 0,   /* Levenshtein distance, free start in the text (seed 000 §IV) */
    GPUASM_MODE_HAMMING = 1,   /* mismatches of a full-length window (seed 004 Definition 3) */
    GPUASM_MODE_SIGNAL  = 2,   /* ADSM: subsequence DTW of numeric signals (seed 001 §5;
                                * signal_mode.h).  Its rows run through the signal entry
                                * points (signal_mode.h, gpuasm_engine_scan_signals), never
                                * gpuasm_cpu_scan */
    GPUASM_N_MODES
};

/* The rows of the table (gpuasm_search_opt.kernel), in kernel_list.h's
 * order: GPUASM_KERNEL_MYERS, ..._DP, ..._SCAN, ..._HAMMING, ..._DTW. */
enum gpuasm_kernel {
#define GPUASM_KERNEL(ID, NAME, KIND) GPUASM_KERNEL_##ID,
#include "kernels/kernel_list.h"
    GPUASM_N_KERNELS
};

/* Capabilities of a row (gpuasm_kernel_desc.caps).  Shared code (the
 * walks, the backends) asks these, never which kernel a row is. */
enum {
    GPUASM_CAP_DEFAULT  = 1u << 0, /* the default kernel of its mode */
    GPUASM_CAP_PAPER    = 1u << 1, /* has the seed paper's layout (GPUASM_VARIANT_PAPER) */
    GPUASM_CAP_THREAD   = 1u << 2, /* has a thread-per-position layout (GPUASM_VARIANT_THREAD) */
    GPUASM_CAP_SEGMENTS = 1u << 3, /* honours gpuasm_search_opt.segments (seed 000's D) */
    GPUASM_CAP_LONG_ENDS = 1u << 4, /* its CUDA launcher takes the text-end partials of the
                                       pairs gcore::long_end_omin() names
                                       (kernels/myers/myers_long_core.cuh), which the ends
                                       pass then leaves alone */
    GPUASM_CAP_LANES    = 1u << 5, /* on nt16 its CPU twin runs in SIMD lanes: the CPU walk
                                    * takes a read's pairs in groups (walk/cpu_grouped.c:
                                    * Myers' bit-vectors, kernels/myers/myers_lanes.h)
                                    * and the ends pass of targets of <= 64 bases from
                                    * per-run word tables */
    GPUASM_CAP_CPU_FILTER = 1u << 6, /* on nt16 the CPU walk may run it behind the exact
                                      * pigeonhole filters (walk/prefilter.h; --filter) */
    GPUASM_CAP_GPU_FILTER = 1u << 7  /* on nt16 the CUDA backend may verify the filters'
                                      * planned windows (walk/filter_plan.h,
                                      * walk/verify_cuda.cu) instead of its launcher */
};

typedef struct gpuasm_twin gpuasm_twin;             /* twin.h */
typedef struct gpuasm_cuda_batch gpuasm_cuda_batch; /* cuda_kit.cuh */
typedef struct gpuasm_signal_batch gpuasm_signal_batch; /* cuda_kit.cuh */

/* A kernel's CUDA side.  launch() queues the kernel for one batch on the
 * batch's stream (cuda_kit.cuh says what it may and must do); state is
 * the lane's per-kernel state (e.g. tables derived from the targets),
 * freed with free_state when the lane closes. */
typedef struct gpuasm_cuda_kernel {
    int (*launch)(const gpuasm_cuda_batch *b, gpuasm_err *err);
    void (*free_state)(void *state);
} gpuasm_cuda_kernel;

/* A signal-mode kernel's sides (signal_mode.h).  Signals are int16 values,
 * not nt16 codes, and a pair gives one best (cost, end) instead of end
 * hits, so the CPU twin and the CUDA launcher have signatures of their own:
 *   cpu_pair   one (query, reference) pair: gpuasm_signal_pair_fn's contract;
 *   cuda       queues the kernels for one batch of signals and the copy of
 *              its results into s->out (cuda_kit.cuh: gpuasm_signal_batch),
 *              under the launcher contract of cuda_kit.cuh; launch == NULL:
 *              built without CUDA. */
typedef struct gpuasm_signal_kernel {
    gpuasm_signal_pair_fn *cpu_pair;
    struct {
        int (*launch)(const gpuasm_cuda_batch *b, gpuasm_signal_batch *s, gpuasm_err *err);
        void (*free_state)(void *state);
    } cuda;
} gpuasm_signal_kernel;

typedef struct gpuasm_kernel_desc {
    const char *name;          /* --kernel NAME */
    int32_t mode;              /* enum gpuasm_mode */
    const char *summary;       /* what it is, for --help (<= 31 characters) */
    const char *source;        /* seed paper and section */
    uint64_t max_pattern[2];   /* [enum gpuasm_alphabet] longest pattern taken (bases); 0: any */
    uint32_t caps;             /* GPUASM_CAP_* */
    const gpuasm_twin *twin;   /* the CPU twin (sequence modes; NULL in the signal mode) */
    gpuasm_cuda_kernel cuda;   /* launch == NULL: built without CUDA (or the signal mode) */
    const gpuasm_signal_kernel *signal; /* the signal mode's sides; NULL in the sequence modes */
} gpuasm_kernel_desc;

/* The rows (kernels/NAME/NAME_row.c), declared from kernel_list.h.  Read
 * them through gpuasm_kernel_get(). */
#define GPUASM_KERNEL(ID, NAME, KIND) extern const gpuasm_kernel_desc gpuasm_row_##NAME;
#include "kernels/kernel_list.h"

/* Row `kernel`, or NULL when there is no such row. */
const gpuasm_kernel_desc *gpuasm_kernel_get(int32_t kernel);

/* The row named `name` (exact, case-sensitive), or -1. */
int32_t gpuasm_kernel_find(const char *name);

/* The names of the rows that have every capability bit of caps (and,
 * with sequence_only, compare sequences), in table order, as a message
 * lists them: "a", "a or b", "a, b or c".  Into buf (len bytes, cut to
 * fit); returns the number of rows named. */
int gpuasm_kernel_names(uint32_t caps, int sequence_only, char *buf, size_t len);

/* The default kernel of a mode (its row has GPUASM_CAP_DEFAULT), or -1. */
int32_t gpuasm_mode_default_kernel(int32_t mode);

/* "edit", "hamming", "signal"; NULL for an unknown mode.  gpuasm_mode_find: the
 * inverse, -1 for an unknown name. */
const char *gpuasm_mode_name(int32_t mode);
int32_t gpuasm_mode_find(const char *name);

/* --filter's names (enum gpuasm_filter: "auto", "off", "on", "pieces",
 * "index"); NULL for an unknown value.  gpuasm_filter_parse: the inverse,
 * -1 for an unknown name. */
const char *gpuasm_filter_name(int32_t filter);
int32_t gpuasm_filter_parse(const char *name);

/* The mode of opt->kernel (GPUASM_MODE_EDIT for an unknown kernel: check
 * with gpuasm_search_check first). */
int32_t gpuasm_search_mode(const gpuasm_search_opt *opt);

/* Longest pattern opt->kernel takes on opt->alphabet (bases), 0 for any.
 * The same on every backend, so outputs never differ by backend. */
uint64_t gpuasm_kernel_max_pattern(const gpuasm_search_opt *opt);

/* Is opt a search the table can run?  0, or GPUASM_ERR_BAD_OPTION when the
 * kernel, the alphabet or the filter is unknown, or the kernel compares signals (the
 * signal mode has its own entry points: signal_mode.h).  (A variant a kernel does not have
 * runs its best layout: variants never change hits.) */
int gpuasm_search_check(const gpuasm_search_opt *opt, gpuasm_err *err);

#ifdef __cplusplus
}
#endif
#endif
