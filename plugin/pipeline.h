/* pipeline.h -- the ordered read -> scan -> report -> write loop behind
 * gpuasm-scan.  Memory is bounded by the batch size, whatever the input. */
#ifndef GPUASM_PIPELINE_H
#define GPUASM_PIPELINE_H

#include <stddef.h>
#include <stdint.h>
#include "report.h"

typedef struct gpuasm_scan_opt {
    const char *reads_path;    /* FASTQ/FASTA/SAM/BAM/CRAM or "-" */
    const char *targets_path;  /* FASTA */
    const char *out_path;      /* NULL or "-": stdout */
    const char *out_format;    /* sam | bam | cram */
    const char *reference;     /* -T: reference for CRAM input, or NULL */
    const char *device;        /* auto | cpu | cuda | cuda:N */
    int n_threads;             /* -@ */
    uint64_t batch_bases;      /* 0: default for the backend */
    gpuasm_report_opt report;  /* search options, --all, --eqx */
    int unmatched;             /* --unmatched */
    int keep_tags;             /* --keep-tags */
    int wildcards;             /* --match-read-wildcards */
    const char *pg_cl;         /* @PG CL, NULL for --no-PG */
    const char *version;
} gpuasm_scan_opt;

/* Run a whole scan.  Warnings go to stderr prefixed with `prog`.
 * Returns 0, or -1 with one line in err ("FILE: record N (NAME): what");
 * on failure the -o file is removed. */
int gpuasm_scan_run(const char *prog, const gpuasm_scan_opt *o, char *err, size_t errlen);

#endif
