/* SPDX-License-Identifier: MIT */
/* signal_run.h -- the run behind gpuasm-signal: read signals in batches,
 * compare each read's window with every reference strand (the engine's
 * signal mode, search/signal_mode.h), write a line per (read, strand)
 * (signal_report.h).
 *
 * One batch at a time on the engine's first lane (reading and writing are
 * small next to the O(m n) search); memory is bounded by the batch size
 * and the references, whatever the input size.  The output is the same
 * for every device, thread count and batch size.
 */
#ifndef GPUASM_SIGNAL_RUN_H
#define GPUASM_SIGNAL_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "search/signal_mode.h"
#include "io/signal_reads.h"
#include "io/signal_report.h"

typedef struct gpuasm_signal_run_opt {
    const char *reads_path;     /* SLOW5/BLOW5 or text signals, "-" for text on stdin */
    const char *ref_path;       /* FASTA (with model_path) or a signal file */
    const char *model_path;     /* -p: pore model TSV, or NULL */
    const char *out_path;       /* NULL or "-": stdout */
    const char *device;
    int n_threads;
    uint64_t batch_samples;     /* 0: the default (signal_run.c) */
    gpuasm_sigread_opt read;    /* --signal-skip, --signal-prefix, --norm */
    gpuasm_signal_opt search;   /* kernel, --cost, --layout, --segments */
    gpuasm_sigreport_opt report;/* --tsv, --threshold */
    int quiet, progress;
    int verbosity;              /* 3: warnings; 4: also notes (the CPU fallback) */
    const char *stats_path;     /* --stats FILE, or NULL */
    const char *version;
} gpuasm_signal_run_opt;

/* The whole run.  Returns 0, or -1 with one line in err ("FILE: record N
 * (NAME): what"); on failure the output and --stats files are removed. */
int gpuasm_signal_run(const char *prog, const gpuasm_signal_run_opt *o, char *err, size_t errlen);

#endif
