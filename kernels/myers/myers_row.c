/* SPDX-License-Identifier: MIT */
/* myers_row.c -- the myers kernel's row (registry.h): bit-parallel Myers
 * 1999 (seed 003), the default of --mode edit.
 *
 * Its CPU twin runs scalar or in SIMD lanes behind exact filters
 * (walk/cpu_grouped.c, myers_lanes.h, walk/prefilter.h): a property of the
 * machine, never of the hits, so no rows of their own (kernels/README.md).
 */
#include "kernels/row.h"

const gpuasm_kernel_desc gpuasm_row_myers = {
    .name = "myers", .mode = GPUASM_MODE_EDIT,
    .summary = "bit-parallel Myers 1999",
    .source = "seed 003; Myers 1999; Hyyro 2001 blocks",
    .max_pattern = { 0, 64 },
    .caps = GPUASM_CAP_DEFAULT | GPUASM_CAP_LONG_ENDS | GPUASM_CAP_LANES | GPUASM_CAP_CPU_FILTER |
            GPUASM_CAP_GPU_FILTER,
    .twin = &gpuasm_twin_myers,
    .cuda = GPUASM_CUDA_SIDE(gpuasm_myers_cuda_launch, gpuasm_myers_cuda_free_state),
};
