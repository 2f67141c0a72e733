/* target_report.h -- the per-target report of gpuasm-scan (issue #10):
 * which targets the reads hit, how, and how well.
 *
 * One row per target (file order), then two rows of totals:
 *   (any)   reads with a hit on any target, classified by their best record
 *   (none)  reads without a hit
 * (names SAM cannot have: '(' and ')' become '_' in target names, README
 * "Targets"), so reads = (any) + (none) and percent is of that sum.
 *
 * A read counts once per target it hits, by its best record on that target
 * (the first: records are best first within a target, plugin/report.h):
 *   reads           reads with a hit on the target (mates count one each,
 *                   as samtools flagstat counts reads)
 *   reads_forward / reads_reverse   the best record's strand (FLAG 0x10)
 *   reads_full / reads_partial      the best record is a whole occurrence,
 *                   or a partial one (XP:Z, README "Partial occurrences")
 *   records         hit records on the target (all, with --all)
 *   percent         100 x reads / all reads, two decimals
 *   best_distance   histogram of the best record's search distance (-AS):
 *                   counts for distance 0, 1, 2, ... comma-separated, no
 *                   trailing zeros ("." when empty)
 * So reads = reads_forward + reads_reverse = reads_full + reads_partial.
 *
 * Formats: TSV with a header line (--report), a "sample"/"targets" part of
 * the --stats JSON, a MultiQC custom-content bar graph (--multiqc, name it
 * *_mqc.json), the stderr summary, and the sum of several TSV reports of
 * the same targets (--merge-reports: the shards of one sample).
 */
#ifndef GPUASM_TARGET_REPORT_H
#define GPUASM_TARGET_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <htslib/sam.h>

typedef struct gpuasm_target_count {
    uint64_t reads, fwd, rev, full, partial, records;
    uint64_t *hist;        /* [n_hist] reads by best distance */
    size_t n_hist;
} gpuasm_target_count;

typedef struct gpuasm_target_report {
    char *sample;
    uint32_t n;            /* targets */
    char **name;           /* [n] */
    uint64_t *len;         /* [n] bases */
    gpuasm_target_count *c;   /* [n + 1]: targets, then (any) */
    uint64_t reads;        /* all reads */
} gpuasm_target_report;

/* An empty report of n targets (names and lengths copied).  0, or -1 out of
 * memory. */
int gpuasm_target_report_init(gpuasm_target_report *r, const char *sample, uint32_t n,
                              char *const *name, const uint64_t *len);
void gpuasm_target_report_free(gpuasm_target_report *r);

/* Count one read: rec[0..n) its output records in output order (none, a
 * FLAG 0x4 one, or hits); best: index in rec of its best hit record (the
 * (any) row), -1 when it has none.  0, or -1 out of memory. */
int gpuasm_target_report_read(gpuasm_target_report *r, bam1_t *const *rec, size_t n, long best);

/* Add b to a (same targets; 0) or -1 when the targets differ. */
int gpuasm_target_report_add(gpuasm_target_report *a, const gpuasm_target_report *b);

/* The TSV report: header line and rows.  0, or -1 when writing failed. */
int gpuasm_target_report_tsv(FILE *fp, const gpuasm_target_report *r);

/* Read a TSV report written by gpuasm_target_report_tsv (one sample).
 * 0, or -1 with "FILE: line N: reason" in err. */
int gpuasm_target_report_read_tsv(const char *path, gpuasm_target_report *r,
                                  char *err, size_t errlen);

/* The --stats JSON part: ,"sample":...,"reads_without_hits":N,"targets":[...]
 * (a leading comma; the caller writes the braces).  0, or -1. */
int gpuasm_target_report_json(FILE *fp, const gpuasm_target_report *r);

/* MultiQC custom content (bar graph of reads per target and without a hit,
 * {sample: {target: reads}}; MultiQC merges files of the same id).  0 or -1. */
int gpuasm_target_report_multiqc(FILE *fp, const gpuasm_target_report *r);

/* The summary cutadapt-style on fp: reads, with a hit, and the top `top`
 * targets by reads, each line starting with "prog: ". */
void gpuasm_target_report_summary(FILE *fp, const char *prog, const gpuasm_target_report *r,
                                  int top);

/* The sample name for a reads file: its base name without directory,
 * .gz/.bgz/.bz2 and then .fastq/.fq/.fasta/.fa/.bam/.cram/.sam, and a
 * trailing _R1/_1/_R1_001 left as it is ("-": "stdin").  Writes into buf. */
void gpuasm_sample_from_path(const char *path, char *buf, size_t len);

#endif
