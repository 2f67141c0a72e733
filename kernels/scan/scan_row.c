/* SPDX-License-Identifier: MIT */
/* scan_row.c -- the scan kernel's row (registry.h): seed 002's bit-parallel
 * Wu-Manber recast as inclusive scans, patterns of at most 64 bases. */
#include "kernels/row.h"

const gpuasm_kernel_desc gpuasm_row_scan = {
    .name = "scan", .mode = GPUASM_MODE_EDIT,
    .summary = "seed 002 scans, m <= 64 bases",
    .source = "seed 002 (Wu-Manber as inclusive scans)",
    .max_pattern = { 64, 64 }, .caps = 0,
    .twin = &gpuasm_twin_scan,
    .cuda = GPUASM_CUDA_SIDE(gpuasm_scan_cuda_launch, NULL),
};
