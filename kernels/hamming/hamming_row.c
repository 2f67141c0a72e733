/* SPDX-License-Identifier: MIT */
/* hamming_row.c -- the hamming kernel's row (registry.h): seed 004's
 * k-mismatch search, the default of --mode hamming.  On nt16 its twin runs
 * behind the pigeonhole filters without shifts (with k mismatches, one of
 * k + 1 pieces is intact at its own offset: walk/prefilter.h). */
#include "kernels/row.h"

const gpuasm_kernel_desc gpuasm_row_hamming = {
    .name = "hamming", .mode = GPUASM_MODE_HAMMING,
    .summary = "seed 004 k-mismatch",
    .source = "seed 004 §IV (thread, OPT-block-thread); bit planes",
    .max_pattern = { 0, 0 },
    .caps = GPUASM_CAP_DEFAULT | GPUASM_CAP_PAPER | GPUASM_CAP_THREAD | GPUASM_CAP_CPU_FILTER,
    .twin = &gpuasm_twin_hamming,
    .cuda = GPUASM_CUDA_SIDE(gpuasm_hamming_cuda_launch, NULL),
};
