/* SPDX-License-Identifier: MIT */
/* target_report.h -- the per-target report of gpuasm-scan (issue #10;
 * evidence per target, issue #26): which targets the reads hit, how, how
 * well, and how that compares with chance.
 *
 * One row per target (file order), then two rows of totals:
 *   (any)   reads with a hit on any target, classified by their best record
 *   (none)  reads without a hit
 * (names SAM cannot have: '(' and ')' become '_' in target names, README
 * "Targets"), so reads = (any) + (none) and percent is of that sum.
 *
 * A read counts once per target it hits, by its best record on that target
 * (the first of that target's records: a read's records are best first,
 * align/report.h):
 *   reads           reads with a hit on the target (mates count one each,
 *                   as samtools flagstat counts reads)
 *   reads_forward / reads_reverse   the best record's strand (FLAG 0x10)
 *   reads_full / reads_partial      the best record is a whole occurrence,
 *                   or a partial one (XP:Z, README "Partial occurrences")
 *   records         hit records on the target (all, with --all)
 *   percent         100 x reads / all reads, two decimals
 *   best_distance   histogram of the best record's search distance (XD:i,
 *                   else NM:i): counts for distance 0, 1, 2, ...
 *                   comma-separated, no trailing zeros ("." when empty)
 * So reads = reads_forward + reads_reverse = reads_full + reads_partial.
 * The evidence (issue #26), over every hit record of the target:
 *   reads_expected  the hits the target expects by chance in the reads
 *                   screened: the sum over reads of align/chance.h's
 *                   gpuasm_chance_target (whole occurrences at -k, partial
 *                   ones at the floor in effect), fixed point with 9
 *                   decimals ("." without a model: the byte alphabet, or a
 *                   report merged from such)
 *   aligned_bases   target bases in the records' alignments (M, D, =, X)
 *   matching_columns / aligned_columns   alignment columns that are a
 *                   match (M, =, X, I and D columns, less NM) / all of them
 *   bases_covered   target bases inside at least one record's alignment
 *   breadth         bases_covered / length, four decimals
 *   mean_depth      aligned_bases / length, two decimals
 *   mean_identity   matching_columns / aligned_columns, four decimals
 *                   ("." without records)
 *   distinct_starts distinct POS of the records (a few repeated starts
 *                   are a repeat; many spread ones a genome that is there)
 *   same_as         the first target with the same sequence, or "."
 *   covered, starts the covered bases and the records' start positions as
 *                   1-based closed intervals "a-b,c-d" ("." for none), so
 *                   that --merge-reports merges bases_covered and
 *                   distinct_starts exactly
 * The (any) row sums reads_expected; its evidence columns are ".".
 *
 * Formats: TSV with a header line (--report), a "sample"/"targets" part of
 * the --stats JSON, MultiQC custom content (--multiqc: a bar graph of
 * reads per target, one bar for targets of the same sequence, and a
 * General Statistics column), the stderr summary, and the sum of several
 * TSV reports of the same targets (--merge-reports: the shards of one
 * sample).
 */
#ifndef GPUASM_TARGET_REPORT_H
#define GPUASM_TARGET_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <htslib/sam.h>

struct gpuasm_chance;

typedef struct gpuasm_target_count {
    uint64_t reads, fwd, rev, full, partial, records;
    uint64_t *hist;        /* [n_hist] reads by best distance */
    size_t n_hist;
    uint64_t expected;     /* reads_expected in units of 1e-9 (saturating) */
    uint64_t aligned_bases, match_cols, aln_cols;
    uint64_t *cov, *starts;   /* bitsets over the target's bases, NULL until a record */
} gpuasm_target_count;

typedef struct gpuasm_target_report {
    char *sample;
    uint32_t n;            /* targets */
    char **name;           /* [n] */
    uint64_t *len;         /* [n] bases */
    int32_t *same_as;      /* [n] first target of the same sequence, or -1 */
    gpuasm_target_count *c;   /* [n + 1]: targets, then (any) */
    uint64_t reads;        /* all reads */
    int has_expected;      /* reads_expected known (a model, or every merged report had it) */
    /* counting: the read-length histogram (for reads_expected) and the
     * targets a read already counted */
    const struct gpuasm_chance *chance;
    void *lengths;         /* khash: read length -> reads */
    uint64_t *seen;        /* [n] stamp of the last read counted per target */
    uint64_t stamp;
    int final;             /* reads_expected computed (gpuasm_target_report_finish) */
    uint64_t max_read_len; /* the longest read counted: the summary shows breadth and depth
                            * of targets longer than it (genomes) */
} gpuasm_target_report;

/* An empty report of n targets (names and lengths copied).  same_as: [n]
 * as above, or NULL (none known); chance: the run's model, or NULL (no
 * reads_expected).  0, or -1 out of memory. */
int gpuasm_target_report_init(gpuasm_target_report *r, const char *sample, uint32_t n,
                              char *const *name, const uint64_t *len, const int32_t *same_as,
                              const struct gpuasm_chance *chance);
void gpuasm_target_report_free(gpuasm_target_report *r);

/* Count one read of read_len bases: rec[0..n) its output records in output
 * order (none, a FLAG 0x4 one, or hits, best first); best: index in rec of
 * its best hit record (the (any) row), -1 when it has none.  0, or -1 out
 * of memory. */
int gpuasm_target_report_read(gpuasm_target_report *r, bam1_t *const *rec, size_t n, long best,
                              uint64_t read_len);

/* Compute reads_expected from the reads counted (once; the writers below
 * call it).  0, or -1 out of memory. */
int gpuasm_target_report_finish(gpuasm_target_report *r);

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

/* MultiQC custom content: the bar graph of reads per target and without a
 * hit ({sample: {target: reads}}; MultiQC merges files of the same id),
 * targets of one sequence shown once as "first (= second, third)" with
 * the most reads of any of them.  0 or -1. */
int gpuasm_target_report_multiqc(FILE *fp, const gpuasm_target_report *r);

/* MultiQC custom content for the General Statistics table: the sample's
 * percentage of reads with a hit (and the reads screened).  0 or -1. */
int gpuasm_target_report_multiqc_general(FILE *fp, const gpuasm_target_report *r);

/* The name --multiqc FILE gives the General Statistics part: FILE with its
 * "_mqc.json" (or ".json", or nothing) replaced by "_general_mqc.json".
 * Into buf.  0, or -1 when it does not fit. */
int gpuasm_multiqc_general_path(const char *path, char *buf, size_t len);

/* The summary cutadapt-style on fp: reads, with a hit, and the top `top`
 * targets by reads, each line starting with "prog: ". */
void gpuasm_target_report_summary(FILE *fp, const char *prog, const gpuasm_target_report *r,
                                  int top);

/* The sample name for a reads file: its base name without directory,
 * .gz/.bgz/.bz2 and then .fastq/.fq/.fasta/.fa/.bam/.cram/.sam, and a
 * trailing _R1/_1/_R1_001 left as it is ("-": "stdin").  Writes into buf. */
void gpuasm_sample_from_path(const char *path, char *buf, size_t len);

#endif
