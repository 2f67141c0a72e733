/* SPDX-License-Identifier: MIT */
/* screen.c -- the per-target report and the reads out, fed by the writer
 * (see screen.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/sam.h>

#include "util/output_file.h"
#include "io/reads_out.h"
#include "cli/screen.h"
#include "io/target_report.h"

/* Targets shown in the stderr summary. */
#define SUMMARY_TOP 5

struct gpuasm_screen {
    gpuasm_screen_opt o;
    const gpuasm_targets *t;
    const gpuasm_search_opt *so;
    gpuasm_target_report rep;
    gpuasm_reads_out *matched, *unmatched;
    gpuasm_reads_out *stream;   /* --reads-out */
    gpuasm_outfile report_of, mqc_of, mqcg_of;
    int report_begun, mqc_begun;
};

/* same_as[i]: the first target with target i's sequence, or -1 (the
 * report's same_as; MultiQC shows such targets once).  Targets sorted by
 * (length, bases), equal runs found.  0, or -1 out of memory. */
static const gpuasm_targets *sort_t;
static int seq_cmp(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const uint64_t lx = gpuasm_target_len(sort_t, x), ly = gpuasm_target_len(sort_t, y);
    if (lx != ly) return lx < ly ? -1 : 1;
    const int c = memcmp(sort_t->code + sort_t->off[x], sort_t->code + sort_t->off[y], (size_t)lx);
    if (c) return c;
    return (x > y) - (x < y);
}

static int same_sequences(const gpuasm_targets *t, int32_t *same_as)
{
    uint32_t *ix = malloc((t->n ? t->n : 1) * sizeof(*ix));
    if (!ix) return -1;
    for (uint32_t i = 0; i < t->n; i++) { ix[i] = i; same_as[i] = -1; }
    sort_t = t;   /* qsort has no context argument in C11; the open is single-threaded */
    qsort(ix, t->n, sizeof(*ix), seq_cmp);
    for (uint32_t a = 0; a < t->n;) {
        uint32_t b = a + 1;
        const uint64_t la = gpuasm_target_len(t, ix[a]);
        while (b < t->n && gpuasm_target_len(t, ix[b]) == la &&
               !memcmp(t->code + t->off[ix[a]], t->code + t->off[ix[b]], (size_t)la))
            same_as[ix[b++]] = (int32_t)ix[a];   /* ix[a] is the run's smallest index */
        a = b;
    }
    free(ix);
    return 0;
}

int gpuasm_screen_wanted(const gpuasm_screen_opt *o)
{
    return o->report || o->multiqc || o->matched || o->unmatched || o->summary || o->reads_out;
}

int gpuasm_screen_open(const gpuasm_screen_opt *o, const gpuasm_targets *t,
                       const gpuasm_search_opt *so, const struct gpuasm_chance *chance,
                       const sam_hdr_t *in_hdr,
                       const char *reads_path, const char *const *inputs, size_t n_inputs,
                       int n_threads, gpuasm_screen **out, char *err, size_t errlen)
{
    gpuasm_screen *s = calloc(1, sizeof(*s));
    *out = s;
    if (!s) goto oom;
    s->o = *o;
    s->t = t;
    s->so = so;
    char sample[256];
    if (o->sample) snprintf(sample, sizeof sample, "%s", o->sample);
    else gpuasm_sample_from_path(reads_path, sample, sizeof sample);
    uint64_t *len = malloc((t->n ? t->n : 1) * sizeof(*len));
    int32_t *same = malloc((t->n ? t->n : 1) * sizeof(*same));
    if (!len || !same || same_sequences(t, same) < 0) {
        free(len);
        free(same);
        goto oom;
    }
    for (uint32_t i = 0; i < t->n; i++) len[i] = gpuasm_target_len(t, i);
    int r = gpuasm_target_report_init(&s->rep, sample, t->n, t->name, len, same, chance);
    free(len);
    free(same);
    if (r < 0) goto oom;
    /* Never over an input (issue #12's rule for -o); not over each other
     * nor over -o and --stats: scan_run.c's check_outputs. */
    const char *outs[] = { o->report, o->multiqc, o->matched, o->matched2, o->unmatched,
                           o->unmatched2, o->reads_out };
    const char *flags[] = { "--report", "--multiqc", "--matched", "--matched2",
                            "--unmatched-reads", "--unmatched-reads2", "--reads-out" };
    for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++) {
        if (!outs[k]) continue;
        /* The reads outputs may be "-" (gpuasm-scan allows it when the SAM
         * goes to -o FILE, for one output). */
        if (k < 2 && !strcmp(outs[k], "-")) {
            snprintf(err, errlen, "%s -: give a file name (standard output carries the SAM)", flags[k]);
            return -1;
        }
        int i = gpuasm_output_is_input(outs[k], inputs, n_inputs);
        if (i >= 0) {
            snprintf(err, errlen, "%s %s: this output is the input %s (the same file): refusing "
                     "to overwrite an input", flags[k], outs[k], inputs[i]);
            return -1;
        }
    }
    /* Created now (through temporary files), so a bad path fails first. */
    if (o->report) {
        if (gpuasm_outfile_begin(&s->report_of, o->report, err, errlen) < 0) return -1;
        s->report_begun = 1;
    }
    if (o->multiqc) {
        char gpath[4096];
        if (gpuasm_multiqc_general_path(o->multiqc, gpath, sizeof gpath) < 0) {
            snprintf(err, errlen, "--multiqc %s: name too long", o->multiqc);
            return -1;
        }
        if (gpuasm_outfile_begin(&s->mqc_of, o->multiqc, err, errlen) < 0) return -1;
        if (gpuasm_outfile_begin(&s->mqcg_of, gpath, err, errlen) < 0) {
            gpuasm_outfile_abort(&s->mqc_of);
            gpuasm_outfile_free(&s->mqc_of);
            return -1;
        }
        s->mqc_begun = 1;
    }
    if (o->matched && gpuasm_reads_out_open("--matched", o->matched, o->matched2, o->reads_fmt,
                                            in_hdr, n_threads, &s->matched, err, errlen) < 0)
        return -1;
    if (o->unmatched && gpuasm_reads_out_open("--unmatched-reads", o->unmatched, o->unmatched2,
                                              o->reads_fmt, in_hdr, n_threads, &s->unmatched,
                                              err, errlen) < 0)
        return -1;
    if (o->reads_out && gpuasm_reads_out_open("--reads-out", o->reads_out, NULL, o->reads_fmt,
                                              in_hdr, n_threads, &s->stream, err, errlen) < 0)
        return -1;
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

static int is_hit(const bam1_t *b) { return !(b->core.flag & BAM_FUNMAP) && b->core.tid >= 0; }

/* Bases to keep with --trim: the best forward, not 5'-partial hit's start
 * in the read (the first such record: records are best first); -1 (keep
 * all) without one. */
static int64_t trim_point(const gpuasm_screen *s, bam1_t *const *rec, size_t n)
{
    const bam1_t *best = NULL;
    for (size_t i = 0; i < n && !best; i++) {
        const bam1_t *b = rec[i];
        if (!is_hit(b) || (b->core.flag & BAM_FREVERSE)) continue;
        /* Only a target that is the pattern (an adapter) is cut off; a read
         * that is the pattern (in a genome) is not trimmed by it. */
        if (gpuasm_read_is_pattern(s->so, (uint64_t)b->core.l_qseq,
                                   gpuasm_target_len(s->t, (uint32_t)b->core.tid)))
            continue;
        const uint8_t *xp = bam_aux_get(b, "XP");
        const char *xs = xp ? bam_aux2Z(xp) : NULL;
        if (xs && !strcmp(xs, "read5")) continue;
        best = b;
    }
    if (!best) return -1;
    const uint32_t *c = bam_get_cigar(best);
    return best->core.n_cigar && bam_cigar_op(c[0]) == BAM_CSOFT_CLIP ? bam_cigar_oplen(c[0]) : 0;
}

int gpuasm_screen_part(gpuasm_screen *s, const gpuasm_batch *b, uint32_t r0, uint32_t r1,
                       const gpuasm_records *recs, char *err, size_t errlen)
{
    size_t at = 0;   /* first record of read r */
    for (uint32_t r = r0, k = 0; r < r1;) {
        const uint32_t nrd = r + 1 < r1 && gpuasm_adjacent_mates(b->rec[r], b->rec[r + 1]) ? 2 : 1;
        int any = 0;
        size_t first[2], cnt[2];
        for (uint32_t q = 0; q < nrd; q++, k++) {
            if (k >= recs->n_read) {
                snprintf(err, errlen, "internal error: records of read %s not counted",
                         bam_get_qname(b->rec[r + q]));
                return -1;
            }
            first[q] = at;
            cnt[q] = recs->per_read[k];
            at += cnt[q];
            bam1_t *const *rec = recs->rec + first[q];
            /* The first hit record is the read's best (its primary). */
            long best = -1;
            for (size_t i = 0; i < cnt[q] && best < 0; i++)
                if (is_hit(rec[i])) best = (long)i;
            any |= best >= 0;
            if (gpuasm_target_report_read(&s->rep, rec, cnt[q], best,
                                          (uint64_t)b->rec[r + q]->core.l_qseq) < 0) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
        }
        gpuasm_reads_out *w = any ? s->matched : s->unmatched;
        for (uint32_t q = 0; (w || s->stream) && q < nrd; q++) {
            int64_t keep = s->o.trim && any ? trim_point(s, recs->rec + first[q], cnt[q]) : -1;
            if (w && gpuasm_reads_out_write(w, b->rec[r + q], keep, err, errlen) < 0) return -1;
            /* --reads-out: every read, in input order (screen.h) */
            if (s->stream && gpuasm_reads_out_write(s->stream, b->rec[r + q], keep, err, errlen) < 0)
                return -1;
        }
        r += nrd;
    }
    return 0;
}

int gpuasm_screen_json(FILE *fp, const void *s)
{
    return gpuasm_target_report_json(fp, &((const gpuasm_screen *)s)->rep);
}

/* Write one report file (TSV or MultiQC) into its temporary file. */
static int write_file(gpuasm_outfile *of, const gpuasm_target_report *r,
                      int (*fn)(FILE *, const gpuasm_target_report *), char *err, size_t errlen)
{
    const char *name = gpuasm_outfile_name(of);
    errno = 0;
    FILE *fp = strcmp(name, "-") ? fopen(name, "w") : stdout;
    if (!fp) {
        snprintf(err, errlen, "%s: cannot open for writing: %s", of->path, strerror(errno));
        return -1;
    }
    int bad = fn(fp, r) < 0;
    bad |= fp == stdout ? fflush(fp) != 0 : fclose(fp) != 0;
    if (bad) {
        snprintf(err, errlen, "%s: write failed: %s", of->path, strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

int gpuasm_screen_close(gpuasm_screen *s, int ok, const char *prog, char *err, size_t errlen)
{
    if (!s) return 0;
    int ret = 0;
    if (ok && s->report_begun && write_file(&s->report_of, &s->rep, gpuasm_target_report_tsv, err, errlen) < 0)
        ok = 0, ret = -1;
    if (ok && s->mqc_begun && write_file(&s->mqc_of, &s->rep, gpuasm_target_report_multiqc, err, errlen) < 0)
        ok = 0, ret = -1;
    if (ok && s->mqc_begun &&
        write_file(&s->mqcg_of, &s->rep, gpuasm_target_report_multiqc_general, err, errlen) < 0)
        ok = 0, ret = -1;
    char e2[512];
    if (gpuasm_reads_out_close(s->matched, ok, ret ? e2 : err, ret ? sizeof e2 : errlen) < 0 && ok)
        ok = 0, ret = -1;
    if (gpuasm_reads_out_close(s->unmatched, ok, ret ? e2 : err, ret ? sizeof e2 : errlen) < 0 && ok)
        ok = 0, ret = -1;
    if (gpuasm_reads_out_close(s->stream, ok, ret ? e2 : err, ret ? sizeof e2 : errlen) < 0 && ok)
        ok = 0, ret = -1;
    if (ok && s->report_begun && gpuasm_outfile_commit(&s->report_of, err, errlen) < 0)
        ok = 0, ret = -1;
    if (ok && s->mqc_begun && gpuasm_outfile_commit(&s->mqc_of, err, errlen) < 0)
        ok = 0, ret = -1;
    if (ok && s->mqc_begun && gpuasm_outfile_commit(&s->mqcg_of, err, errlen) < 0)
        ok = 0, ret = -1;
    if (!ok) {
        if (s->report_begun) gpuasm_outfile_abort(&s->report_of);
        if (s->mqc_begun) {
            gpuasm_outfile_abort(&s->mqc_of);
            gpuasm_outfile_abort(&s->mqcg_of);
        }
    }
    if (ok && s->o.summary) gpuasm_target_report_summary(stderr, prog, &s->rep, SUMMARY_TOP);
    if (s->report_begun) gpuasm_outfile_free(&s->report_of);
    if (s->mqc_begun) {
        gpuasm_outfile_free(&s->mqc_of);
        gpuasm_outfile_free(&s->mqcg_of);
    }
    gpuasm_target_report_free(&s->rep);
    free(s);
    return ret;
}
