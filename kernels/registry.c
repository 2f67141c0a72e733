/* SPDX-License-Identifier: MIT */
/* registry.c -- the kernel table (see registry.h): its rows in the order
 * of kernel_list.h, each kernel's own in kernels/NAME/NAME_row.c, and what
 * the rest of the tree asks of them.  Adding a kernel: kernels/README.md.
 */
#include <stdio.h>
#include <string.h>

#include "kernels/registry.h"

static const gpuasm_kernel_desc *const table[GPUASM_N_KERNELS] = {
#define GPUASM_KERNEL(ID, NAME, KIND) [GPUASM_KERNEL_##ID] = &gpuasm_row_##NAME,
#include "kernels/kernel_list.h"
};

static const char *const mode_names[GPUASM_N_MODES] = {
    [GPUASM_MODE_EDIT] = "edit",
    [GPUASM_MODE_HAMMING] = "hamming",
    [GPUASM_MODE_SIGNAL] = "signal",
};

const gpuasm_kernel_desc *gpuasm_kernel_get(int32_t kernel)
{
    return kernel >= 0 && kernel < GPUASM_N_KERNELS ? table[kernel] : NULL;
}

int32_t gpuasm_kernel_find(const char *name)
{
    for (int32_t i = 0; i < GPUASM_N_KERNELS; i++)
        if (!strcmp(table[i]->name, name)) return i;
    return -1;
}

/* Is row d one that gpuasm_kernel_names() lists? */
static int named(const gpuasm_kernel_desc *d, uint32_t caps, int sequence_only)
{
    return (d->caps & caps) == caps && !(sequence_only && d->mode == GPUASM_MODE_SIGNAL);
}

int gpuasm_kernel_names(uint32_t caps, int sequence_only, char *buf, size_t len)
{
    int n = 0, i = 0;
    for (int32_t k = 0; k < GPUASM_N_KERNELS; k++) n += named(table[k], caps, sequence_only);
    size_t at = 0;
    if (len) buf[0] = 0;
    for (int32_t k = 0; k < GPUASM_N_KERNELS && len; k++) {
        if (!named(table[k], caps, sequence_only)) continue;
        const int w = snprintf(buf + at, len - at, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " or ",
                               table[k]->name);
        if (w < 0 || (size_t)w >= len - at) break;
        at += (size_t)w;
        i++;
    }
    return n;
}

int32_t gpuasm_mode_default_kernel(int32_t mode)
{
    for (int32_t i = 0; i < GPUASM_N_KERNELS; i++)
        if (table[i]->mode == mode && (table[i]->caps & GPUASM_CAP_DEFAULT)) return i;
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
    if (opt->keep != GPUASM_KEEP_ALL && opt->keep != GPUASM_KEEP_REPORTED)
        return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION, "unknown keep rule %d", (int)opt->keep);
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
