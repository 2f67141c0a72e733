/* SPDX-License-Identifier: MIT */
/* defaults.c -- the defaults of every entry point (see defaults.h). */
#include <string.h>

#include "engine/defaults.h"
#include "kernels/registry.h"

void gpuasm_defaults_init(gpuasm_defaults *d)
{
    memset(d, 0, sizeof *d);
    d->device = "auto";
    d->n_threads = 1;
    d->verbosity = 3;
    d->search.max_diffs = -1;
    d->search.error_rate = 0.1;
    d->search.pattern_side = GPUASM_PATTERN_SHORTER;
    d->search.kernel = gpuasm_mode_default_kernel(GPUASM_MODE_EDIT);
    d->search.alphabet = GPUASM_ALPHABET_NT16;
    d->search.variant = GPUASM_VARIANT_BEST;
    d->search.strand = GPUASM_STRAND_BOTH;
    d->search.overlap_min = 1;
    d->search.read_overlap_min = -1;
    d->search.partial_ends = GPUASM_END_3 | GPUASM_END_5;
    d->search.filter = GPUASM_FILTER_AUTO;
    d->max_chance = 0.01;
    d->signal.kernel = gpuasm_mode_default_kernel(GPUASM_MODE_SIGNAL);
    d->signal.cost = GPUASM_COST_ABS;
    d->signal.variant = GPUASM_VARIANT_BEST;
    d->signal.segments = 0;
}
