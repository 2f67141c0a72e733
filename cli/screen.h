/* SPDX-License-Identifier: MIT */
/* screen.h -- what a screening step hands on besides the SAM (issue #10):
 * the per-target report (io/target_report.h: --report TSV, the --stats
 * JSON's targets, --multiqc, the stderr summary) and the reads themselves
 * (io/reads_out.h: --matched, --unmatched-reads, cut with --trim).
 *
 * The pipeline's writer hands over each part of a batch after writing its
 * records (gpuasm_screen_part), in input order, so the report and the
 * reads files are deterministic like the SAM.  A read is "matched" when it
 * has a hit record; a pair goes to --matched when either mate has one (as
 * the SAM keeps pairs whole, records.h rule 3), else to --unmatched-reads.
 *
 * --reads-out (issue #29): every read once, in input order, as cutadapt -o
 * writes its output: cut as --trim says when it has a hit, whole otherwise
 * (pairs interleaved, reads_out.h).
 *
 * --trim (cutadapt -a): a read is cut before the start of its best hit on
 * the read as sequenced (records without FLAG 0x10) of a target that is the
 * pattern (an adapter, not a genome the read lies in), not a 5' partial one
 * (XP:Z:read5): the hit's first read base is the CIGAR's leading soft clip.
 * Best: the first such record, a read's records being best first
 * (align/report.h: the highest score, then the lowest distance, then the
 * longest aligned part, ...), so with --best it is the read's one record.
 * Each mate is cut at its own hit (cutadapt -a with -A).  Reads without
 * such a hit stay whole.
 */
#ifndef GPUASM_SCREEN_H
#define GPUASM_SCREEN_H

#include <stddef.h>
#include <stdint.h>
#include <htslib/sam.h>
#include "io/reads.h"
#include "io/records.h"
#include "search/search.h"
#include "io/targets.h"

struct gpuasm_chance;

typedef struct gpuasm_screen_opt {
    const char *report;        /* --report FILE (TSV), or NULL */
    const char *multiqc;       /* --multiqc FILE (MultiQC custom content JSON), or NULL */
    const char *sample;        /* --sample NAME, or NULL: from the reads file name */
    const char *matched;       /* --matched FILE [--matched2 FILE] */
    const char *matched2;
    const char *unmatched;     /* --unmatched-reads FILE [--unmatched-reads2 FILE] */
    const char *unmatched2;
    int trim;                  /* --trim */
    const char *reads_out;     /* --reads-out FILE: every read in input order, matched ones
                                * cut with --trim (cutadapt -o), or NULL; "-": stdout */
    const char *reads_fmt;     /* --reads-fmt: format of the reads outputs, or NULL (names) */
    int summary;               /* the stderr summary at the end (not with --quiet) */
} gpuasm_screen_opt;

typedef struct gpuasm_screen gpuasm_screen;

/* Set up for a run: t the targets, so the search options (pattern side),
 * chance the run's chance model (align/chance.h; NULL: no
 * reads_expected), in_hdr the reads' header, reads_path the reads (the
 * default sample name); inputs[0..n_inputs): the run's input files (NULL
 * entries skipped), which no output may be.  Files are opened now, so
 * that a bad path fails before any work.  --multiqc FILE also writes the
 * General Statistics part (gpuasm_multiqc_general_path).  0, or -1 with
 * err. */
int gpuasm_screen_open(const gpuasm_screen_opt *o, const gpuasm_targets *t,
                       const gpuasm_search_opt *so, const struct gpuasm_chance *chance,
                       const sam_hdr_t *in_hdr,
                       const char *reads_path, const char *const *inputs, size_t n_inputs,
                       int n_threads, gpuasm_screen **out, char *err, size_t errlen);

/* Reads [r0, r1) of b and their records (recs: records.h, per_read counts
 * them).  0, or -1 with err. */
int gpuasm_screen_part(gpuasm_screen *s, const gpuasm_batch *b, uint32_t r0, uint32_t r1,
                       const gpuasm_records *recs, char *err, size_t errlen);

/* The --stats JSON keys (gpuasm_run_stats.extra). */
int gpuasm_screen_json(FILE *fp, const void *s);

/* End of the run: when ok, write --report and --multiqc, move every file
 * into place and print the summary on stderr (prefixed with prog);
 * otherwise remove them.  Frees s (NULL allowed).  0, or -1 with err. */
int gpuasm_screen_close(gpuasm_screen *s, int ok, const char *prog, char *err, size_t errlen);

/* Do any of o's outputs need the per-read walk? */
int gpuasm_screen_wanted(const gpuasm_screen_opt *o);

#endif
