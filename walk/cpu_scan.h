/* SPDX-License-Identifier: MIT */
/* cpu_scan.h -- the CPU pair walk's configuration and per-run tables
 * (internal to kernels/; gpuasm_cpu_scan() in search.h is the plain entry).
 *
 * The CPU backend (cpu_backend.c) chooses a gpuasm_cpu_cfg once per run
 * (SIMD level, prefilter, from the knobs of settings.h) and builds one
 * gpuasm_cpu_prep per target set and search options, shared read-only by
 * its threads: the PEq of every target short enough to be a pattern, and
 * the pigeonhole filter (prefilter.h).  Neither changes a hit.
 */
#ifndef GPUASM_CPU_SCAN_H
#define GPUASM_CPU_SCAN_H

#include <stdint.h>

#include "search/search.h"
#include "search/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpuasm_cpu_cfg {
    int simd;            /* enum gpuasm_simd_level (cpu_simd.h) */
    int prefilter;       /* pigeonhole filters: 0 off, 1 where they pay, 2 wherever they apply */
    int64_t lane_min;    /* text lanes: least text bases per lane; <= 0: the default */
    int64_t index_max;   /* the targets' index: most windows (6 bytes each); <= 0: the default */
    int threads;         /* host threads that build the targets' index (-@); <= 0: one */
    int ends_filter;     /* the ends filter (ends_filter.h): 1 as the pieces filter's level, 0 never */
    int periodic;        /* 1: periodic runs' repeating columns left out (periodic.h), 0: run */
    int ends_classes;    /* 1: adapter families settled at once (ends_classes.h), 0: each runs */
} gpuasm_cpu_cfg;

/* The defaults: the processor's SIMD level, the filter on. */
void gpuasm_cpu_cfg_default(gpuasm_cpu_cfg *cfg);

typedef struct gpuasm_cpu_prep gpuasm_cpu_prep;

/* Tables for scanning against targets with opt (NULL-safe to free).  Only
 * the myers and hamming kernels on nt16 have any; for other searches *out
 * is an empty prep.  opt->filter (with cfg->prefilter for auto) picks the
 * filters built.  0, GPUASM_ERR_NOMEM, or GPUASM_ERR_BAD_OPTION when
 * --filter index is asked for and the targets are past the index's bound. */
int gpuasm_cpu_prep_build(const gpuasm_seqset *targets, const gpuasm_search_opt *opt,
                          const gpuasm_cpu_cfg *cfg, gpuasm_cpu_prep **out, gpuasm_err *err);

/* Was prep built for these targets and a search that has the same pair
 * rule and kernel as opt? */
int gpuasm_cpu_prep_fits(const gpuasm_cpu_prep *prep, const gpuasm_seqset *targets,
                         const gpuasm_search_opt *opt);

void gpuasm_cpu_prep_free(gpuasm_cpu_prep *prep);

/* prep's filters (prefilter.h), NULL where it has none; *level: the
 * index's level (0 off, 1 the cost model, 2 wherever it applies).  For a
 * backend that plans with them (filter_plan.h). */
struct gpuasm_qfilter;
struct gpuasm_tindex;
const struct gpuasm_qfilter *gpuasm_cpu_prep_pieces(const gpuasm_cpu_prep *prep);
const struct gpuasm_tindex *gpuasm_cpu_prep_index(const gpuasm_cpu_prep *prep, int *level);
/* The targets' end windows' index (prefilter.h), NULL where prep has none. */
struct gpuasm_ends_index;
const struct gpuasm_ends_index *gpuasm_cpu_prep_ends_index(const gpuasm_cpu_prep *prep);

/* What prep's filters are, one line: "--filter's value: the filters built"
 * (e.g. "auto: pieces (q 6-8) + index (q 8-16, 20000000 windows, 76.6 MiB,
 * 1.2 s)"); NULL for NULL. */
const char *gpuasm_cpu_prep_describe(const gpuasm_cpu_prep *prep);

/* Wall seconds that building prep's targets' index took (0 without one,
 * or for NULL). */
double gpuasm_cpu_prep_index_s(const gpuasm_cpu_prep *prep);

/* The bytes of prep's indexes (the targets' and the end windows'), 0 for
 * NULL: what a run holds for its targets whatever the reads. */
uint64_t gpuasm_cpu_prep_bytes(const gpuasm_cpu_prep *prep);

/* gpuasm_cpu_scan() with a configuration and tables (prep may be NULL:
 * the scan then builds what it needs itself); what the filters did is
 * added to counts' index_* and pieces_* fields when counts is not NULL. */
int gpuasm_cpu_scan_cfg(const gpuasm_cpu_cfg *cfg, const gpuasm_cpu_prep *prep,
                        const gpuasm_seqset *reads, uint32_t first, uint32_t count,
                        const gpuasm_seqset *targets, const gpuasm_search_opt *opt,
                        gpuasm_hits *out, gpuasm_scan_stats *counts, gpuasm_err *err);

#ifdef __cplusplus
}
#endif
#endif
