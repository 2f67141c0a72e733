/* SPDX-License-Identifier: MIT */
/* defaults.h -- what a run does when nothing is said: the defaults of the
 * options gpuasm-scan, gpuasm-signal and the library (lib/gpuasm.c) share,
 * in one place, as minimap2's mm_mapopt_init() holds its mapper's.  Each
 * entry point starts from gpuasm_defaults_init() and changes only what its
 * user said (the library: whole occurrences only, below).
 *
 * Here rather than in search/: the default kernels are rows of the table
 * (kernels/registry.h), and the device list is the engine's (engine.h).
 */
#ifndef GPUASM_DEFAULTS_H
#define GPUASM_DEFAULTS_H

#include "search/search.h"
#include "search/signal_mode.h"

typedef struct gpuasm_defaults {
    const char *device;        /* --device: "auto" (engine.h: the CPU at once, CUDA once started) */
    int n_threads;             /* -@: 1 */
    int verbosity;             /* --verbosity: 3, warnings (htslib's HTS_LOG_WARNING) */
    gpuasm_search_opt search;  /* a sequence search: -e 0.1 (max_diffs -1), the shorter
                                * sequence the pattern, both strands, partial occurrences at
                                * both ends from 1 aligned base of a target and half a read
                                * (the run sets their significance floors), the edit mode's
                                * default kernel, --filter auto */
    double max_chance;         /* --max-chance: 0.01 (align/chance.h) */
    gpuasm_signal_opt signal;  /* the signal mode's default kernel, |x - y| cells, the BEST
                                * layout, segments chosen by the kernel */
} gpuasm_defaults;

/* *d = the defaults above. */
void gpuasm_defaults_init(gpuasm_defaults *d);

#endif
