/* SPDX-License-Identifier: MIT */
/* kernel_list.h -- every kernel, one line each, in the table's order (the
 * order of --help and of the messages that list kernels).
 *
 * A kernel NAME lives in kernels/NAME/ (kernels/README.md: adding one) and
 * gives what its line here declares for the rest of the tree:
 *   gpuasm_row_NAME              its row of the table (kernels/NAME/NAME_row.c)
 *   gpuasm_twin_NAME             its CPU twin (SEQ kernels: twin.h), or
 *   gpuasm_NAME_cpu_pair         its one-pair CPU side (SIGNAL kernels: signal_mode.h)
 *   gpuasm_NAME_cuda_launch      its CUDA launcher (cuda_launch.h; the signature of its kind)
 *   gpuasm_NAME_cuda_free_state  its per-lane state's free, where it keeps one
 * and the enum value GPUASM_KERNEL_ID (registry.h).  KIND is SEQ (a
 * sequence kernel: end hits, search.h) or SIGNAL (signal_mode.h).
 *
 * An X-macro: define GPUASM_KERNEL(ID, NAME, KIND), then include this file
 * (no include guard; it undefines GPUASM_KERNEL at its end).
 */
GPUASM_KERNEL(MYERS,   myers,   SEQ)     /* edit: bit-parallel Myers 1999 (seed 003) */
GPUASM_KERNEL(DP,      dp,      SEQ)     /* edit: anti-diagonal wavefront DP (seed 000, seed 001 §6-8) */
GPUASM_KERNEL(SCAN,    scan,    SEQ)     /* edit: Wu-Manber as inclusive scans (seed 002), m <= 64 */
GPUASM_KERNEL(HAMMING, hamming, SEQ)     /* hamming: k-mismatch (seed 004) */
GPUASM_KERNEL(DTW,     dtw,     SIGNAL)  /* signal: ADSM, anti-diagonal wavefront (seed 001 §5-8, §10) */
#undef GPUASM_KERNEL
