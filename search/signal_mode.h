/* SPDX-License-Identifier: MIT */
/* signal_mode.h -- the signal mode of the search: approximate discrete signal
 * matching (ADSM, seed 001 §5 and §10) of numeric series, for raw nanopore
 * signal against the expected signal of a genome.
 *
 * Problem (seed 001 §5): for a query X = x_1 .. x_m (a read's samples) and
 * a reference Y = y_1 .. y_n (a genome strand's expected levels),
 *     ADSM(X, Y) = min { DTW(X, Y') | Y' a subsignal (contiguous) of Y },
 * DTW with the three moves (1,0), (0,1), (1,1) and the cost summed over
 * every cell of the warping path.  As a DP over 1 <= i <= m and the
 * 0-based reference position 0 <= j < n:
 *     D[0][j]  = 0                        (free start anywhere in Y)
 *     D[i][-1] = +inf                     (i >= 1)
 *     D[i][j]  = min(D[i][j-1], D[i-1][j], D[i-1][j-1]) + cost(x_i, y_j)
 * and the kernel returns, for every (read, reference) pair of a batch,
 *     cost = min over j of D[m][j]   and   end = the smallest such j,
 * the 0-based last reference position of a best alignment.  (Seed 001's
 * sequential pseudo-code adds 1 to the two gap moves, copied from its ASM;
 * its equation and Fig. 4 do not, and neither do we.)  The start of the
 * alignment is not a kernel output: gpuasm_dtw_start() finds it on the
 * host, the same for every backend.
 *
 * Exact integers on every backend.  Values are quantised signals: int16,
 * GPUASM_SIG_SCALE units per normalised unit (io/signal_norm.h makes
 * them), in [GPUASM_SIG_QMIN, GPUASM_SIG_QMAX].  Costs are integers:
 *     GPUASM_COST_ABS  |a - b|                       (seed 001)
 *     GPUASM_COST_SQ   (d * d + S/2) >> log2(S), d = a - b, S = the scale
 *                      (d^2 in the same units: (d/S)^2 * S, rounded)
 * so the CPU twin and the CUDA kernels compute the same D bit for bit and
 * the output is byte-identical whatever the backend.  With |a|, |b| <= 512
 * a cell costs at most 1023 (abs) or 16,352 (sq); D[i][j] <= i x that (the
 * vertical path from row 0), so m <= GPUASM_DTW_MAX_QUERY keeps every D,
 * padding rows of the CUDA layouts included, below 2^31 - 1 and every
 * finite D below GPUASM_DTW_INF.
 *
 * Which side is which: the read is always the query (the pattern), the
 * reference always the text; there are no strands here: the caller makes
 * one reference signal per genome strand (io/pore_model.h).
 */
#ifndef GPUASM_SIGNAL_MODE_H
#define GPUASM_SIGNAL_MODE_H

#include <stddef.h>
#include <stdint.h>
#include "search/nt16.h"     /* GPUASM_HD */
#include "search/search.h"   /* gpuasm_scan_stats, gpuasm_variant */
#include "search/status.h"

/* Quantisation: units per normalised unit, and the value range. */
#define GPUASM_SIG_SCALE 64
#define GPUASM_SIG_SHIFT 6            /* log2(GPUASM_SIG_SCALE) */
#define GPUASM_SIG_QMIN (-512)
#define GPUASM_SIG_QMAX 511
/* +inf of D: above every finite D (see above). */
#define GPUASM_DTW_INF 0x3fffffff
/* Longest query (samples) any backend takes. */
#define GPUASM_DTW_MAX_QUERY 32768u

/* A set of signals in one buffer: signal i is val[off[i] .. off[i+1]). */
typedef struct gpuasm_sigset {
    uint32_t n;            /* number of signals */
    const uint64_t *off;   /* [n + 1] offsets in samples; off[0] == 0 */
    const int16_t *val;    /* [off[n]] quantised values */
} gpuasm_sigset;

enum gpuasm_cost {
    GPUASM_COST_ABS = 0,   /* |a - b| (seed 001 §5) */
    GPUASM_COST_SQ = 1     /* squared difference, in signal units (above) */
};

/* What to compute.  Plain values (goes to CUDA by value). */
typedef struct gpuasm_signal_opt {
    int32_t kernel;        /* enum gpuasm_kernel: a row of mode GPUASM_MODE_SIGNAL */
    int32_t cost;          /* enum gpuasm_cost */
    int32_t variant;       /* enum gpuasm_variant: BEST, or PAPER (seed 001 §6-8) */
    int32_t segments;      /* PAPER: split each reference into this many
                            * segments (seed 001 §8); 0: the kernel chooses */
} gpuasm_signal_opt;

/* The result of one (read, reference) pair.  cost < 0 (and end =
 * UINT32_MAX) when the pair is not searched: an empty read or reference. */
typedef struct gpuasm_adsm_hit {
    uint32_t read;         /* index of the read within its batch */
    uint32_t target;       /* index of the reference signal */
    uint32_t end;          /* 0-based reference position where a best alignment ends */
    int32_t cost;          /* ADSM(X, Y) in quantised cost units */
} gpuasm_adsm_hit;

/* Cost of one cell (the DP above): host C and CUDA device code. */
GPUASM_HD int32_t gpuasm_dtw_cost(int32_t cost_kind, int32_t a, int32_t b)
{
    const int32_t d = a - b;
    return cost_kind == GPUASM_COST_SQ ? (d * d + (GPUASM_SIG_SCALE / 2)) >> GPUASM_SIG_SHIFT
                                       : (d < 0 ? -d : d);
}

#ifdef __cplusplus
extern "C" {
#endif

/* ---- a signal kernel's CPU side ------------------------------------------- */

/* One (query, reference) pair: *cost = min_j D[m][j], *end = the smallest
 * such j (the contract above).  x: m >= 1 query values, y: n >= 1 reference
 * values; work: at least m int32 of scratch.  column, when not NULL, is
 * called with every column D[1..m][j] (col[i-1] = D[i][j]) in increasing j:
 * the tests print seed 001's Fig. 4 from it.  A signal kernel NAME's is
 * gpuasm_NAME_cpu_pair (kernels/kernel_list.h declares it: the dtw
 * kernel's, kernels/dtw/dtw_cpu.c). */
typedef void gpuasm_signal_pair_fn(const int16_t *x, uint32_t m, const int16_t *y, uint64_t n,
                                   int32_t cost_kind, int32_t *work, int32_t *cost, uint64_t *end,
                                   void (*column)(void *ctx, uint64_t j, const int32_t *col),
                                   void *ctx);

/* The start of a best alignment that ends at `end` with cost `cost` (the
 * kernel's result): the largest s with DTW(X, Y[s .. end]) == cost, by a
 * DP over suffixes of X from `end` leftwards, which stops at the first
 * column whose full-query cell equals cost (O(m x (end - s + 1)) cells).
 * work: at least 2 (m + 1) int32.  Returns s, or -1 when no start gives
 * `cost` (the inputs are not a kernel's result). */
int64_t gpuasm_dtw_start(const int16_t *x, uint32_t m, const int16_t *y, uint64_t end,
                         int32_t cost_kind, int32_t cost, int32_t *work);

/* Every (read, reference) pair of reads[first .. first+count) x targets
 * with the CPU twin: out[(r - first) * targets->n + t] (count x targets->n
 * entries).  0, or a negative status with err: GPUASM_ERR_NOMEM;
 * GPUASM_ERR_TOO_LONG (a read longer than GPUASM_DTW_MAX_QUERY: err->read,
 * length, limit). */
int gpuasm_signal_cpu_scan(const gpuasm_sigset *reads, uint32_t first, uint32_t count,
                           const gpuasm_sigset *targets, const gpuasm_signal_opt *opt,
                           gpuasm_adsm_hit *out, gpuasm_err *err);

/* What every backend refuses, checked once by the engine: an unknown
 * kernel or one of another mode, an unknown cost or variant
 * (GPUASM_ERR_BAD_OPTION); a read of more than GPUASM_DTW_MAX_QUERY
 * samples (GPUASM_ERR_TOO_LONG, err->read); a signal longer than 2^31 - 1
 * samples (GPUASM_ERR_SEQ_TOO_LONG, err->read or err->target); a value
 * outside [GPUASM_SIG_QMIN, GPUASM_SIG_QMAX] (GPUASM_ERR_BAD_OPTION,
 * err->read or err->target).  targets may be NULL (not checked). */
int gpuasm_signal_check(const gpuasm_sigset *reads, const gpuasm_sigset *targets,
                        const gpuasm_signal_opt *opt, gpuasm_err *err);

/* DP cells of reads x targets: sum of m x n over searched pairs. */
double gpuasm_signal_cells(const gpuasm_sigset *reads, const gpuasm_sigset *targets);

#ifdef __cplusplus
}
#endif
#endif
