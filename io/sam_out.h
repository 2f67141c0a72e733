/* SPDX-License-Identifier: MIT */
/* sam_out.h -- SAM/BAM/CRAM output through htslib: the header (@HD, @SQ,
 * @PG via sam_hdr_add_pg) and one record per hit (bam_set1, sam_write1). */
#ifndef GPUASM_SAM_OUT_H
#define GPUASM_SAM_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <htslib/sam.h>
#include <htslib/kstring.h>
#include "io/targets.h"

typedef struct gpuasm_writer gpuasm_writer;

typedef struct gpuasm_writer_opt {
    const char *path;       /* NULL or "-": stdout */
    const htsFormat *format;/* sam (compression bgzf: sam.gz), bam or cram, with its
                             * htslib options (hts_opt list in ->specific:
                             * -O FMT,OPT=VAL and --output-fmt-option) */
    int n_threads;          /* > 1: htslib compression threads (BAM, CRAM, .sam.gz) */
    const char *pg_cl;      /* @PG CL; NULL: no @PG (--no-PG) */
    const char *version;    /* @PG VN */
    const sam_hdr_t *input; /* input header: its @RG lines are copied when copy_rg */
    int copy_rg;
    const char *rg_line;    /* -R/--rg: one @RG header line (no newline), or NULL */
    const char *comment;    /* one @CO line's text (the floors in effect), or NULL */
    int header_later;       /* 1: the header is written with the first record (or at
                             * a successful close), not at open: a run that may
                             * still fail before its first record (--device cuda
                             * while CUDA starts) writes nothing to a stream */
} gpuasm_writer_opt;

/* Open the output and write the header: @HD VN:1.6 SO:unsorted GO:query,
 * one @SQ per target in file order (SN, LN, and DS where the target was
 * renamed: targets.h), @RG from the input when asked (except one with the
 * ID of rg_line), rg_line, @PG, @CO comment.  CRAM is written without a reference (the
 * targets are in memory, and a reference file would need a .fai beside it)
 * unless the format options name one (reference=, no_ref=0, embed_ref=).
 * 0, or -1 with err ("FILE: reason"; a bad rg_line or format option). */
int gpuasm_writer_open(const gpuasm_writer_opt *o, const gpuasm_targets *t,
                       gpuasm_writer **out, char *err, size_t errlen);

/* The @RG header line of -R/--rg: spec is a line as bwa -R takes it
 * ("@RG\tID:x\tSM:y", a backslash-t standing for a tab, "\\" for a
 * backslash) or its fields alone ("ID:x\tSM:y", as samtools addreplacerg
 * -r).  Fields must be TAG:VALUE (two-character tags), each tag once, ID
 * among them.  Fills line (no newline) and id (its ID value).  0, or -1
 * with a reason in err that quotes spec. */
int gpuasm_rg_line(const char *spec, kstring_t *line, kstring_t *id, char *err, size_t errlen);

int gpuasm_writer_write(gpuasm_writer *w, const bam1_t *rec, char *err, size_t errlen);

/* SAM text output (plain or .sam.gz)?  Then the records may be formatted
 * by other threads (gpuasm_writer_format) and written as bytes
 * (gpuasm_writer_write_text), which gives the bytes gpuasm_writer_write
 * gives, and leaves the writing thread only the writing (issue #14). */
int gpuasm_writer_is_text(const gpuasm_writer *w);

/* Append rec's SAM line and a newline to text (sam_format1 with the
 * output's header).  line: work space.  Any thread, while the writer is
 * open.  0, or -1 (out of memory, a record htslib cannot format). */
int gpuasm_writer_format(const gpuasm_writer *w, const bam1_t *rec, kstring_t *line,
                         kstring_t *text);

/* Write n bytes of whole lines made by gpuasm_writer_format.  0, or -1
 * with err as gpuasm_writer_write's. */
int gpuasm_writer_write_text(gpuasm_writer *w, const char *s, size_t n, char *err, size_t errlen);

/* Close.  A file given with -o is written through a temporary file
 * (util/output_file.h): ok != 0 (the run succeeded) and a clean flush move
 * it into place; ok == 0, or a failed flush, remove it, so nothing
 * half-written looks like a result (and an existing file of that name is
 * left as it was).  Returns 0, or -1 with err when flushing, closing or the
 * move failed (a full disk: "FILE: write failed: No space left on device";
 * the reason comes from the hFILE under htslib, errno may be stale). */
int gpuasm_writer_close(gpuasm_writer *w, int ok, char *err, size_t errlen);

/* What one output record says besides the read itself. */
typedef struct gpuasm_sam_fields {
    uint16_t flag;          /* full FLAG */
    int32_t tid;            /* target index, -1 for none */
    int64_t pos;            /* 0-based leftmost target base, -1 for none */
    uint8_t mapq;
    const uint32_t *cigar;  /* BAM-encoded CIGAR, n_cigar ops */
    size_t n_cigar;
    int32_t mtid;           /* mate's target, -1 */
    int64_t mpos;           /* mate's 0-based position, -1 */
    int reverse;            /* write SEQ reverse-complemented, QUAL reversed */
    int32_t nm;             /* NM:i (SAM's edit distance); < 0: no NM/MD/AS/XS/XD/XE */
    int32_t dist;           /* the search distance: XD:i = dist when != nm */
    int64_t as;             /* AS:i, the score (align/report.h) */
    const char *md;         /* MD:Z */
    int has_xs;             /* XS:i = xs, the second whole occurrence's score */
    int64_t xs;
    double chance;          /* XE:f (align/chance.h); NaN: none */
    const char *partial;    /* XP:Z: where a partial occurrence ran off (read3, read5,
                             * target3, target5), or NULL for a full one */
    const char *rg;         /* RG:Z, or NULL */
    int keep_tags;          /* copy the read's aux tags after ours */
} gpuasm_sam_fields;

/* Build record `dst` for read `read` (sequencing orientation).  Reuses dst's
 * memory.  scratch keeps the read's SEQ letters and QUAL for its next
 * record (the same read at the same address, same orientation);
 * gpuasm_sam_seq_forget(scratch) before each new read.  0, or -1 on out of
 * memory. */
int gpuasm_sam_set_record(bam1_t *dst, const bam1_t *read, const gpuasm_sam_fields *f,
                          kstring_t *scratch);
void gpuasm_sam_seq_forget(kstring_t *scratch);

#endif
