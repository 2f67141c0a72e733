/* SPDX-License-Identifier: MIT */
/* dp_row.c -- the dp kernel's row (registry.h): seed 000's anti-diagonal
 * wavefront DP (and seed 001 §6-8's ring), with its segments. */
#include "kernels/row.h"

const gpuasm_kernel_desc gpuasm_row_dp = {
    .name = "dp", .mode = GPUASM_MODE_EDIT,
    .summary = "seed 000 wavefront DP",
    .source = "seed 000 §IV-V; seed 001 §6-8",
    .max_pattern = { 0, 0 }, .caps = GPUASM_CAP_PAPER | GPUASM_CAP_SEGMENTS,
    .twin = &gpuasm_twin_dp,
    .cuda = GPUASM_CUDA_SIDE(gpuasm_dp_cuda_launch, NULL),
};
