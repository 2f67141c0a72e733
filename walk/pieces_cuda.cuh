/* SPDX-License-Identifier: MIT */
/* pieces_cuda.cuh -- the pieces filter's windows (filter_plan.h) planned
 * on the GPU, for the CUDA backend (engine/cuda_backend.cu) on batches
 * whose every pair has the target as its pattern (primers, adapters).
 * C++ for .cu files only.
 *
 * Why: on the 10,000-primer screen (issue #26) the host plan was the
 * CPU engine's own filter walk (walk_windows, 0.35 s on 16 threads for
 * 200,000 reads), so CUDA did the CPU's filtering and then only the
 * CPU's cheap verification: slower than the CPU.  Here a thread per read
 * strand runs walk/pieces_core.h (the host plan's twin, held to it by
 * tests/c/test_pieces_plan): the keys are counted, scanned, written,
 * sorted and made unique (CUB), and turned into the windows that
 * walk/verify_cuda.cu verifies, class by class, with no host work per
 * read.
 */
#ifndef GPUASM_PIECES_CUDA_CUH
#define GPUASM_PIECES_CUDA_CUH

#include <stddef.h>
#include <stdint.h>

#include "kernels/cuda_kit.cuh"
#include "search/search.h"
#include "search/status.h"
#include "walk/pieces_core.h"

/* Always targets a read strand may add at most (each is a window of every
 * strand: a filter of mostly uncut targets plans on the host). */
#define GPUASM_PIECES_CUDA_MAX_ALWAYS 64u

typedef struct gpuasm_pieces_cuda {
    const void *prep;          /* the filter uploaded (gpuasm_cpu_prep), NULL: none */
    gpuasm_qf_view dev;        /* its tables on the device (toff/tcode: the lane's targets) */
    void *d_tab;               /* one allocation for every table */
    /* per batch, grow-only */
    uint64_t *d_cnt;           /* [strands + 1] keys per strand, then their offsets */
    size_t cnt_cap;
    uint64_t *d_key[2];        /* the keys, sorted into the other */
    size_t key_cap[2];
    gpuasm_vwin *d_win;        /* the windows, class after class */
    size_t win_cap;
    unsigned long long *d_ctr; /* [8]: unique keys, amb keys, counted strands, class bounds [3..7] */
    unsigned long long *h_ctr; /* pinned copy */
    void *d_cub;
    size_t cub_cap;
} gpuasm_pieces_cuda;

/* Can the batch plan here: the prep's pieces filter (qf, built for targets
 * and opt), every pair with the target as the pattern, reads of at most
 * GPUASM_PIECES_MAX_N bases, few enough reads, targets and always
 * targets?  Host code. */
int gpuasm_pieces_cuda_applies(const gpuasm_qfilter *qf, const gpuasm_seqset *reads, const gpuasm_seqset *targets,
                               const gpuasm_search_opt *opt);

/* The windows of every read strand of batch b (b->dev: reads and targets
 * on the device) through the filter qf of prep (uploaded on first use,
 * again when prep changes), into d_win[c] (n[c] windows of class c, valid
 * until the next call), on b->stream; the --stats counts into *kept and
 * *dropped.  0; 1 when the keys would not fit (nothing done: the host
 * plans the batch); or a negative status with err (GPUASM_ERR_NOMEM for
 * device memory, GPUASM_ERR_CUDA). */
int gpuasm_pieces_cuda_plan(gpuasm_pieces_cuda *pc, const void *prep, const gpuasm_qfilter *qf,
                            const gpuasm_cuda_batch *b, gpuasm_vwin *d_win[4], size_t n[4], uint64_t *kept,
                            uint64_t *dropped, gpuasm_err *err);

/* Free what pc holds (best effort; the device must be current). */
void gpuasm_pieces_cuda_close(gpuasm_pieces_cuda *pc);

#endif
