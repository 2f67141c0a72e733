/* SPDX-License-Identifier: MIT */
/* reads_out.c -- --matched / --unmatched-reads through htslib (reads_out.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/bgzf.h>
#include <htslib/hfile.h>
#include <htslib/hts.h>
#include <htslib/kstring.h>
#include <htslib/sam.h>

#include "util/output_file.h"
#include "io/reads_out.h"

typedef struct {
    gpuasm_outfile of;
    samFile *fp;
    int begun;
    int fastx;              /* FASTQ or FASTA: names as read, empty records (below) */
    int fasta;              /* FASTA */
    int interleaved;        /* both mates of a pair go here: /1 /2 as samtools fastq */
} out_t;

struct gpuasm_reads_out {
    const char *flag;
    out_t f[2];             /* [1] only with path2 */
    int split;              /* R2s to f[1] */
    sam_hdr_t *hdr;
    bam1_t *b;              /* the record written, reused */
    kstring_t seq;          /* its bases, reused */
    kstring_t line;         /* an empty record's text, reused */
};

/* An unaligned BAM header: @HD, and the input's @RG lines (records keep RG). */
static sam_hdr_t *make_header(const sam_hdr_t *in)
{
    kstring_t t = KS_INITIALIZE;
    kputs("@HD\tVN:1.6\tSO:unsorted\n", &t);
    const char *s = in ? sam_hdr_str((sam_hdr_t *)in) : NULL;
    while (s && *s) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) + 1 : strlen(s);
        if (!strncmp(s, "@RG\t", 4)) kputsn(s, n, &t);
        s += n;
    }
    sam_hdr_t *h = sam_hdr_parse(t.l, t.s);
    ks_free(&t);
    return h;
}

/* The mode letters of a reads output ("f", "fz", "b", "" ...): fmt (the
 * --reads-fmt value) when given, else the name's extension as samtools
 * picks it (sam_open_mode); FASTQ for "-" (as samtools fastq writes).
 * 0, or -1 with err. */
int gpuasm_reads_out_mode(const char *flag, const char *path, const char *fmt, char *mode,
                          char *err, size_t errlen)
{
    const char *f = fmt ? fmt : !strcmp(path, "-") ? "fastq" : NULL;
    if (sam_open_mode(mode, path, f) == 0) return 0;
    if (fmt)
        snprintf(err, errlen, "invalid --reads-fmt '%s' (expected fastq, fasta, sam, bam or cram; "
                 "fastq.gz, fasta.gz, sam.gz compressed)", fmt);
    else
        snprintf(err, errlen, "%s %s: cannot tell the format from the name (name it .fq, .fastq, "
                 ".fa, .fasta, optionally .gz, or .bam, .sam, .sam.gz, .cram; or give --reads-fmt)",
                 flag, path);
    return -1;
}

static int open_one(gpuasm_reads_out *w, out_t *o, const char *path, const char *fmt,
                    int interleaved, int n_threads, char *err, size_t errlen)
{
    char mode[16] = "w";
    if (gpuasm_reads_out_mode(w->flag, path, fmt, mode + 1, err, errlen) < 0) return -1;
    if (gpuasm_outfile_begin(&o->of, path, err, errlen) < 0) return -1;
    o->begun = 1;
    if (!(o->fp = sam_open(gpuasm_outfile_name(&o->of), mode))) {
        snprintf(err, errlen, "%s %s: cannot open for writing: %s", w->flag, path,
                 strerror(errno ? errno : EIO));
        return -1;
    }
    if (n_threads > 1) hts_set_threads(o->fp, n_threads);
    o->fastx = mode[1] == 'f' || mode[1] == 'F';
    o->fasta = mode[1] == 'F';
    o->interleaved = interleaved;
    /* FASTQ/FASTA names get their /1 /2 from the flags of the record
     * written: both mates in one file (samtools fastq's interleaved form),
     * or the suffix the input's name had (reads.h: names as read). */
    if (o->fastx && hts_set_opt(o->fp, FASTQ_OPT_RNUM, 1) < 0) {
        snprintf(err, errlen, "%s %s: cannot set FASTQ options", w->flag, path);
        return -1;
    }
    if (sam_hdr_write(o->fp, w->hdr) < 0) {
        snprintf(err, errlen, "%s %s: cannot write the header", w->flag, path);
        return -1;
    }
    return 0;
}

int gpuasm_reads_out_open(const char *flag, const char *path, const char *path2, const char *fmt,
                          const sam_hdr_t *in_hdr, int n_threads, gpuasm_reads_out **out,
                          char *err, size_t errlen)
{
    gpuasm_reads_out *w = calloc(1, sizeof(*w));
    *out = w;
    if (!w || !(w->b = bam_init1()) || !(w->hdr = make_header(in_hdr))) {
        snprintf(err, errlen, "%s %s: out of memory", flag, path);
        return -1;
    }
    w->flag = flag;
    w->split = path2 != NULL;
    if (open_one(w, &w->f[0], path, fmt, !w->split, n_threads, err, errlen) < 0) return -1;
    if (path2 && open_one(w, &w->f[1], path2, fmt, 0, n_threads, err, errlen) < 0) return -1;
    return 0;
}

/* htslib's FASTQ/FASTA writer (1.16) drops a record without bases and
 * returns success, which would lose the read and split its pair; cutadapt
 * writes such a read as an empty record.  So does this, on the stream
 * htslib writes to (BGZF or plain), in its place among htslib's records:
 * the name line htslib would write (with the /1 /2 of FASTQ_OPT_RNUM),
 * then empty sequence (and quality) lines. */
static int write_empty(gpuasm_reads_out *w, out_t *o, const char *name, uint16_t flag)
{
    w->line.l = 0;
    const char *rnum = flag & BAM_FREAD1 ? "/1" : flag & BAM_FREAD2 ? "/2" : "";
    if (ksprintf(&w->line, "%c%s%s\n%s", o->fasta ? '>' : '@', name, rnum,
                 o->fasta ? "\n" : "\n+\n\n") < 0)
        return -1;
    samFile *fp = o->fp;
    ssize_t n = fp->is_bgzf ? bgzf_write(fp->fp.bgzf, w->line.s, w->line.l)
                            : hwrite(fp->fp.hfile, w->line.s, w->line.l);
    return n == (ssize_t)w->line.l ? 0 : -1;
}

int gpuasm_reads_out_write(gpuasm_reads_out *w, const bam1_t *read, int64_t keep,
                           char *err, size_t errlen)
{
    const int32_t len = read->core.l_qseq;
    const int32_t n = keep >= 0 && keep < len ? (int32_t)keep : len;
    const uint8_t *s = bam_get_seq(read);
    w->seq.l = 0;
    if (ks_resize(&w->seq, (size_t)n + 2) < 0) goto oom;
    for (int32_t i = 0; i < n; i++) w->seq.s[i] = seq_nt16_str[bam_seqi(s, i)];
    w->seq.s[n] = 0;
    const uint16_t pair = read->core.flag & (BAM_FPAIRED | BAM_FREAD1 | BAM_FREAD2);
    out_t *o = &w->f[w->split && (pair & BAM_FREAD2) ? 1 : 0];
    uint16_t flag;
    if (o->fastx) {
        /* Only the /1 /2 of the name matter here (FASTQ_OPT_RNUM): a pair's
         * in one interleaved file, else the suffix the name was read with
         * (reads.h; one that htslib did not tell apart is left off). */
        const uint16_t as_read = (uint16_t)(read->id & (BAM_FREAD1 | BAM_FREAD2));
        flag = BAM_FUNMAP | (o->interleaved && (pair & BAM_FPAIRED) ? pair
                             : as_read == BAM_FREAD1 || as_read == BAM_FREAD2
                             ? BAM_FPAIRED | as_read : 0);   /* RNUM needs 0x1 too */
    } else {
        flag = pair | BAM_FUNMAP | (pair & BAM_FPAIRED ? BAM_FMUNMAP : 0);
    }
    if (n == 0 && o->fastx) {
        if (write_empty(w, o, bam_get_qname(read), flag) < 0) goto bad_write;
        return 0;
    }
    const uint8_t *q = bam_get_qual(read);
    const size_t l_aux = (size_t)bam_get_l_aux((bam1_t *)read);
    if (bam_set1(w->b, strlen(bam_get_qname(read)), bam_get_qname(read), flag, -1, -1, 0, 0,
                 NULL, -1, -1, 0, (size_t)n, w->seq.s,
                 n > 0 && q[0] == 0xff ? NULL : (const char *)q, l_aux) < 0)
        goto oom;
    memcpy(w->b->data + w->b->l_data, bam_get_aux((bam1_t *)read), l_aux);
    w->b->l_data += (int)l_aux;
    if (sam_write1(o->fp, w->hdr, w->b) < 0) goto bad_write;
    return 0;
bad_write:
    snprintf(err, errlen, "%s %s: write failed: %s", w->flag, o->of.path,
             strerror(errno ? errno : EIO));
    return -1;
oom:
    snprintf(err, errlen, "%s: out of memory", w->flag);
    return -1;
}

int gpuasm_reads_out_close(gpuasm_reads_out *w, int ok, char *err, size_t errlen)
{
    if (!w) return 0;
    int ret = 0;
    for (int k = 0; k < 2; k++) {
        out_t *o = &w->f[k];
        if (o->fp && sam_close(o->fp) < 0 && ok) {
            snprintf(err, errlen, "%s %s: write failed: %s", w->flag, o->of.path,
                     strerror(errno ? errno : EIO));
            ok = 0;
            ret = -1;
        }
    }
    for (int k = 0; k < 2; k++) {
        out_t *o = &w->f[k];
        if (!o->begun) continue;
        if (ok && gpuasm_outfile_commit(&o->of, err, errlen) < 0) {
            ok = 0;
            ret = -1;
        }
        if (!ok) gpuasm_outfile_abort(&o->of);
        gpuasm_outfile_free(&o->of);
    }
    if (w->hdr) sam_hdr_destroy(w->hdr);
    if (w->b) bam_destroy1(w->b);
    ks_free(&w->seq);
    ks_free(&w->line);
    free(w);
    return ret;
}
