/* SPDX-License-Identifier: MIT */
/* pipeline.h -- the ordered read -> scan -> report -> write pipeline behind
 * gpuasm-scan.
 *
 * Threads: one reader (fills batches of about batch_bases read bases), one
 * scan thread per engine lane (engine.h: one per CUDA device unless
 * GPUASM_CUDA_LANES says more, one for the CPU), a pool of report threads (traceback and SAM record building, one
 * per -@ thread) and the writer (the calling thread), which writes batches
 * strictly in input order.  A fixed set of 4 x lanes + 4 batches circulates
 * between them, and a batch whose reads hit too often is scanned and written
 * in rounds of fewer reads, so memory stays within --max-memory whatever the
 * input and its hit density (pipeline.c: the memory bound).  The output is
 * byte-identical for any lanes, threads, batch size and memory bound.
 */
#ifndef GPUASM_PIPELINE_H
#define GPUASM_PIPELINE_H

#include <stddef.h>
#include <stdint.h>
#include <htslib/hts.h>
#include "align/report.h"
#include "cli/screen.h"
#include "cli/shard.h"

typedef struct gpuasm_scan_opt {
    const char *reads_path;    /* FASTQ/FASTA/SAM/BAM/CRAM or "-"; R1 of paired files */
    const char *reads_path2;   /* R2 of paired FASTQ files (-2, or a second reads argument), or NULL */
    const char *targets_path;  /* FASTA */
    int strict_names;          /* --strict-names: duplicate or SAM-invalid target names are errors */
    const char *out_path;      /* NULL or "-": stdout */
    const htsFormat *out_format; /* sam/sam.gz/bam/cram and its htslib options (-O, --output-fmt-option) */
    const char *rg_line;       /* -R/--rg: the @RG line (gpuasm_rg_line), or NULL */
    const char *rg_id;         /* its ID */
    const char *reference;     /* -T: reference for CRAM input, or NULL */
    const char *device;        /* auto | cpu | cuda | cuda:N | cuda:N,M,... | cuda:all */
    int n_threads;             /* -@ (0 counts as 1) */
    uint64_t batch_bases;      /* 0: gpuasm_engine_suggest_batch_bases(), within max_memory */
    uint64_t max_memory;       /* --max-memory: bytes for batches, hits and records in
                                * flight; 0: gpuasm_default_max_memory() */
    gpuasm_search_opt search;  /* what to search for: -k/-e, --mode, --kernel, --pattern;
                                * the run sets its floors (below) */
    double max_chance;         /* --max-chance: alpha of the significance floors (align/chance.h) */
    int overlap_auto;          /* --overlap auto (the default): the targets' floor from the
                                * chance model; else none (cutadapt's -O semantics) */
    int read_overlap_auto;     /* --read-overlap half (the default): the reads' floor too */
    gpuasm_report_opt report;  /* what to report: --all, --best, --eqx */
    int unmatched;             /* --unmatched */
    int keep_tags;             /* --keep-tags */
    int wildcards;             /* --match-read-wildcards */
    int verbosity;             /* --verbosity (htslib's log level; 3 = warnings, the default) */
    int quiet;                 /* --quiet: no progress line, no warnings */
    int progress;              /* --progress: progress line even when stderr is no terminal */
    const char *stats_path;    /* --stats FILE (JSON, io/stats_json.h), or NULL */
    const char *pg_cl;         /* @PG CL, NULL for --no-PG */
    const char *version;
    gpuasm_screen_opt screen;  /* --report, --multiqc, --sample, --matched, --unmatched-reads,
                               * --trim, the summary (cli/screen.h) */
    gpuasm_shard shard;        /* --shard I/N (cli/shard.h); n == 0: every read */
    const char *write_reference; /* --write-reference FILE.fa (io/reference_out.h), or NULL */
} gpuasm_scan_opt;

/* --max-memory's default for n_slots batches in flight: 1 GiB, or 64 MiB
 * per slot when that is more (pipeline.c says what the bound covers). */
uint64_t gpuasm_default_max_memory(size_t n_slots);

/* Run a whole scan.  Warnings go to stderr prefixed with `prog` (at
 * verbosity >= 3, not with quiet); so does the progress line (stderr a
 * terminal or o->progress, and not o->quiet):
 * "PROG: N reads read, D done, R reads/s, H hits" rewritten in place with \r
 * about twice a second, ended with a newline.  N counts reads as the reader
 * reads them (so it moves before the first batch is scanned), D the reads
 * written out, R is D per second, H counts hit records (not FLAG 4 ones).
 * Returns 0, or -1 with one line in err ("FILE: record N (NAME): what");
 * -o and --stats are written through temporary files moved into place
 * only on success (util/output_file.h), and refused when they are one of
 * the inputs.  The first error of any thread wins; the others stop. */
int gpuasm_scan_run(const char *prog, const gpuasm_scan_opt *o, char *err, size_t errlen);

/* Stop a run from another thread (gpuasm-scan's signal watcher): the
 * current gpuasm_scan_run() -- or the next, if none runs yet -- fails with
 * `why` as its message, as soon as its threads notice (between batches;
 * a read blocked on a pipe or a scan in progress finishes first), and
 * removes its -o and --stats files as any failed run does. */
void gpuasm_scan_interrupt(const char *why);

#endif
