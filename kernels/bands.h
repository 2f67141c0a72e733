/* SPDX-License-Identifier: MIT */
/* bands.h -- a long pattern's bands over the text, one after the other or
 * pipelined on threads (internal to kernels/; issue #28: "a single huge
 * pair uses the whole machine").
 *
 * The Myers searches of long patterns on the CPU (kernels/myers/
 * myers_bands.c, the search; kernels/ends/partial_cut.c, the ends pass)
 * cut the pattern into bands of GPUASM_BAND_BLOCKS 64-row blocks; band b
 * reads the horizontal deltas that band b - 1 left for each column and
 * leaves its own (one byte a column, rewritten in place), and starts at
 * the column where band b - 1's bottom row first reached <= k (Ukkonen's
 * cut-off at band granularity; myers_bands.c has the argument).  So band b
 * needs, for columns [j0, j1), only band b - 1's deltas there, and bands
 * run as a wavefront: thread t takes bands t, t + T, ... and follows the
 * band above by chunks of columns (seed 000's strips, over the threads
 * instead of a warp's lanes).  The last band runs on the caller's thread
 * (it may emit hits).  The same bytes for any number of threads: each
 * band's columns are computed from the same inputs in the same order.
 *
 * Threads: the process has a pool of helper slots (gpuasm_bands_set_helpers,
 * set by the CPU backend to its -@ threads - 1); a pipelined run takes what
 * is free, and runs alone when nothing is or when its work is small.
 */
#ifndef GPUASM_KERNELS_BANDS_H
#define GPUASM_KERNELS_BANDS_H

#include <stddef.h>
#include <stdint.h>

/* Blocks a band at most; gpuasm_bands_blocks() says how many a run takes. */
#define GPUASM_BAND_BLOCKS 8

/* A band's running state, kept by its thread between chunks. */
typedef struct gpuasm_band_state {
    uint64_t pv[GPUASM_BAND_BLOCKS], mv[GPUASM_BAND_BLOCKS];
    int64_t bottom;     /* D of the band's bottom row at the last column run */
    int64_t exit_f;     /* first column with bottom <= k (INT64_MAX: none yet) */
    int64_t exit_d;     /* D there */
    int64_t start_f;    /* the column the band was entered at (set by the driver) */
    uint64_t cp[GPUASM_BAND_BLOCKS], cn[GPUASM_BAND_BLOCKS];   /* band_wave.h's skewed carries */
} gpuasm_band_state;

/* What a kernel gives the driver.  Columns are 0-based; -1 is the fresh
 * column D[i] = i before the first. */
typedef struct gpuasm_band_ops {
    void *ctx;
    size_t n_bands;
    int64_t n_cols;
    /* The pattern's rows, its bands' blocks (all but the last band hold
     * 64 x blocks rows) and the cut-off's k.  The driver starts band b at
     * column f (>= -1) with D = top in the row above its first: Pv all
     * ones, Mv 0, bottom = top + the band's rows, exit_f = f when that is
     * <= k and b is not the last band (else INT64_MAX). */
    uint32_t m, blocks;
    int64_t k;
    /* Columns [j0, j1) of band b's top: reads hb[j] (b > 0), writes
     * hb[j] (unless b is the last band), sets st->exit_* at the first
     * column whose bottom is <= k; the last band emits.  Returns the first
     * column whose hb is not final yet (j1, or less for a skewed kernel:
     * band_wave.h; n_cols at the last chunk), or -1 to stop. */
    int64_t (*run)(void *ctx, size_t b, gpuasm_band_state *st, int64_t j0, int64_t j1);
    /* After band b's last column (or at once when it is never entered,
     * with st NULL): where the kernel keeps a band's final state. */
    void (*finish)(void *ctx, size_t b, const gpuasm_band_state *st);
} gpuasm_band_ops;

/* Run every band of ops (band 0 from column -1 with top 0, band b + 1
 * from band b's exit; bands below one without exit are never entered),
 * on this thread and up to `helpers` helper threads taken from the pool
 * (0: this thread alone; fewer when the pool has fewer free).  Returns
 * the number E of bands entered (they are [0, E): bands are entered in
 * order), with band E - 1's start column in *last_start (-1 when E = 0),
 * or -1 when run() stopped (then nothing is complete). */
long gpuasm_bands_run(const gpuasm_band_ops *ops, int helpers, int64_t *last_start);

/* The process's helper slots (threads that pipelined runs may add to
 * their caller's): n >= 0; runs of less than min_work block-columns run
 * alone (0: the default, 2^27, ~0.1 s of one thread, under which a
 * thread's start and the wavefront's lead-in cost more than they give).
 * Call it while no run is going on: the CPU backend sets n = -@ - 1 at
 * open, tests other values. */
void gpuasm_bands_set_helpers(int n, uint64_t min_work);

/* How many helpers a run of `work` block-columns asks for: 0 under the
 * pool's min_work, else the pool's size. */
int gpuasm_bands_helpers_for(uint64_t work);

/* Blocks a band (band_wave.h's lanes): 8 where the processor has AVX-512F
 * (one register of eight 64-bit lanes), else 4 (AVX2's four; eight spill
 * there).  Any band size gives the same bytes (myers_bands.c's argument
 * holds for every size).  gpuasm_bands_set_blocks(4 or 8) forces one, for
 * tests; 0 goes back to the processor's. */
int gpuasm_bands_blocks(void);
void gpuasm_bands_set_blocks(int blocks);

#endif
