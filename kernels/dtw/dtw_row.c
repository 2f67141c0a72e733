/* SPDX-License-Identifier: MIT */
/* dtw_row.c -- the dtw kernel's row (registry.h): seed 001's approximate
 * discrete signal matching (subsequence DTW), the signal mode's kernel
 * (gpuasm-signal).  Signals, not nt16 codes: no twin, no sequence
 * launcher, its sides in .signal (registry.h: gpuasm_signal_kernel). */
#include "kernels/row.h"

static const gpuasm_signal_kernel dtw_signal = {
    .cpu_pair = gpuasm_dtw_cpu_pair,
    .cuda = GPUASM_CUDA_SIDE(gpuasm_dtw_cuda_launch, gpuasm_dtw_cuda_free_state),
};

const gpuasm_kernel_desc gpuasm_row_dtw = {
    .name = "dtw", .mode = GPUASM_MODE_SIGNAL,
    .summary = "seed 001 ADSM (gpuasm-signal)",
    .source = "seed 001 §5, §6-8, §10",
    .max_pattern = { GPUASM_DTW_MAX_QUERY, GPUASM_DTW_MAX_QUERY },
    .caps = GPUASM_CAP_DEFAULT | GPUASM_CAP_PAPER | GPUASM_CAP_SEGMENTS,
    .twin = NULL,
    .cuda = GPUASM_CUDA_SIDE(NULL, NULL),
    .signal = &dtw_signal,
};
