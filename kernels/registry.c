/* registry.c -- the kernel table (see registry.h).
 *
 * Adding a kernel (kernels/README.md): its CPU twin (kernels/NAME_cpu.c,
 * a gpuasm_twin), its CUDA launcher (kernels/NAME_cuda.cu), one enum value
 * in registry.h and one row below, the two files in Makefile.am, and its
 * tests (a tests/c/kernel-NAME wrapper that runs test_kernels on it).
 */
#include <string.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "kernels/registry.h"
#include "search/signal_mode.h"
#include "kernels/twin.h"

/* The CUDA column exists only in a CUDA build: this is the one place in
 * kernels/ (C files) that knows whether CUDA was compiled in (the engine's
 * gpuasm_backend_cuda_ops() is the other, engine/engine.c). */
#ifdef HAVE_CUDA
#include "kernels/cuda_launch.h"
#define CUDA_KERNEL(launch, free_state) { launch, free_state }
#else
#define CUDA_KERNEL(launch, free_state) { NULL, NULL }
#endif

/* The dtw row's sides: signals, not nt16 codes (registry.h). */
static const gpuasm_signal_kernel dtw_signal = {
    .cpu_pair = gpuasm_dtw_cpu_pair,
    .cuda = CUDA_KERNEL(gpuasm_dtw_cuda_launch, gpuasm_dtw_cuda_free_state),
};

static const gpuasm_kernel_desc table[GPUASM_N_KERNELS] = {
    /* Its CPU twin runs scalar or in SIMD lanes behind exact filters
     * (cpu_scan.c, myers_lanes.h, prefilter.h): a property of the machine,
     * never of the hits, so no rows of their own (kernels/README.md). */
    [GPUASM_KERNEL_MYERS] = {
        .name = "myers", .mode = GPUASM_MODE_EDIT,
        .summary = "bit-parallel Myers 1999",
        .source = "seed 003; Myers 1999; Hyyro 2001 blocks",
        .max_pattern = { 0, 64 }, .caps = GPUASM_CAP_DEFAULT | GPUASM_CAP_LONG_ENDS,
        .twin = &gpuasm_twin_myers,
        .cuda = CUDA_KERNEL(gpuasm_myers_cuda_launch, gpuasm_myers_cuda_free_state),
    },
    [GPUASM_KERNEL_DP] = {
        .name = "dp", .mode = GPUASM_MODE_EDIT,
        .summary = "seed 000 wavefront DP",
        .source = "seed 000 §IV-V; seed 001 §6-8",
        .max_pattern = { 0, 0 }, .caps = GPUASM_CAP_PAPER | GPUASM_CAP_SEGMENTS,
        .twin = &gpuasm_twin_dp,
        .cuda = CUDA_KERNEL(gpuasm_dp_cuda_launch, NULL),
    },
    [GPUASM_KERNEL_SCAN] = {
        .name = "scan", .mode = GPUASM_MODE_EDIT,
        .summary = "seed 002 scans, m <= 64 bases",
        .source = "seed 002 (Wu-Manber as inclusive scans)",
        .max_pattern = { 64, 64 }, .caps = 0,
        .twin = &gpuasm_twin_scan,
        .cuda = CUDA_KERNEL(gpuasm_scan_cuda_launch, NULL),
    },
    [GPUASM_KERNEL_HAMMING] = {
        .name = "hamming", .mode = GPUASM_MODE_HAMMING,
        .summary = "seed 004 k-mismatch",
        .source = "seed 004 §IV (thread, OPT-block-thread); bit planes",
        .max_pattern = { 0, 0 },
        .caps = GPUASM_CAP_DEFAULT | GPUASM_CAP_PAPER | GPUASM_CAP_THREAD,
        .twin = &gpuasm_twin_hamming,
        .cuda = CUDA_KERNEL(gpuasm_hamming_cuda_launch, NULL),
    },
    [GPUASM_KERNEL_DTW] = {
        .name = "dtw", .mode = GPUASM_MODE_SIGNAL,
        .summary = "seed 001 ADSM (gpuasm-signal)",
        .source = "seed 001 §5, §6-8, §10",
        .max_pattern = { GPUASM_DTW_MAX_QUERY, GPUASM_DTW_MAX_QUERY },
        .caps = GPUASM_CAP_DEFAULT | GPUASM_CAP_PAPER | GPUASM_CAP_SEGMENTS,
        .twin = NULL,
        .cuda = CUDA_KERNEL(NULL, NULL),
        .signal = &dtw_signal,
    },
};

static const char *const mode_names[GPUASM_N_MODES] = {
    [GPUASM_MODE_EDIT] = "edit",
    [GPUASM_MODE_HAMMING] = "hamming",
    [GPUASM_MODE_SIGNAL] = "signal",
};

const gpuasm_kernel_desc *gpuasm_kernel_get(int32_t kernel)
{
    return kernel >= 0 && kernel < GPUASM_N_KERNELS ? &table[kernel] : NULL;
}

int32_t gpuasm_kernel_find(const char *name)
{
    for (int32_t i = 0; i < GPUASM_N_KERNELS; i++)
        if (!strcmp(table[i].name, name)) return i;
    return -1;
}

int32_t gpuasm_mode_default_kernel(int32_t mode)
{
    for (int32_t i = 0; i < GPUASM_N_KERNELS; i++)
        if (table[i].mode == mode && (table[i].caps & GPUASM_CAP_DEFAULT)) return i;
    return -1;
}

const char *gpuasm_mode_name(int32_t mode)
{
    return mode >= 0 && mode < GPUASM_N_MODES ? mode_names[mode] : NULL;
}

int32_t gpuasm_mode_find(const char *name)
{
    for (int32_t i = 0; i < GPUASM_N_MODES; i++)
        if (!strcmp(mode_names[i], name)) return i;
    return -1;
}

int32_t gpuasm_search_mode(const gpuasm_search_opt *opt)
{
    const gpuasm_kernel_desc *k = gpuasm_kernel_get(opt->kernel);
    return k ? k->mode : GPUASM_MODE_EDIT;
}

uint64_t gpuasm_kernel_max_pattern(const gpuasm_search_opt *opt)
{
    const gpuasm_kernel_desc *k = gpuasm_kernel_get(opt->kernel);
    int a = opt->alphabet == GPUASM_ALPHABET_BYTE ? 1 : 0;
    return k ? k->max_pattern[a] : 0;
}

int gpuasm_search_check(const gpuasm_search_opt *opt, gpuasm_err *err)
{
    const gpuasm_kernel_desc *k = gpuasm_kernel_get(opt->kernel);
    if (!k)
        return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION, "no kernel %d in the table",
                              (int)opt->kernel);
    if (!k->twin)
        return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION,
                              "kernel %s compares signals, not sequences", k->name);
    if (opt->alphabet != GPUASM_ALPHABET_NT16 && opt->alphabet != GPUASM_ALPHABET_BYTE)
        return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION, "unknown alphabet %d",
                              (int)opt->alphabet);
    if (opt->filter < 0 || opt->filter >= GPUASM_FILTER_N)
        return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION, "unknown filter %d", (int)opt->filter);
    return 0;
}

static const char *const filter_names[GPUASM_FILTER_N] = { "auto", "off", "on", "pieces", "index" };

const char *gpuasm_filter_name(int32_t filter)
{
    return filter >= 0 && filter < GPUASM_FILTER_N ? filter_names[filter] : NULL;
}

int32_t gpuasm_filter_parse(const char *name)
{
    for (int32_t i = 0; i < GPUASM_FILTER_N; i++)
        if (!strcmp(name, filter_names[i])) return i;
    return -1;
}
