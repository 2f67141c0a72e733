/* SPDX-License-Identifier: MIT */
/* sam_out.c -- SAM/BAM/CRAM output (see sam_out.h). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <htslib/bgzf.h>
#include <htslib/cram.h>
#include <htslib/hfile.h>
#include <htslib/sam.h>
#include <htslib/hts.h>
#include <htslib/kstring.h>

#include "search/nt16.h"
#include "util/output_file.h"
#include "io/sam_out.h"
#include "util/thread_error.h"
#include "util/write_guard.h"

struct gpuasm_writer {
    samFile *out;
    sam_hdr_t *hdr;
    gpuasm_outfile of;  /* -o through a temporary file (util/output_file.h) */
    gpuasm_write_guard *guard;  /* CRAM: written through a pipe (util/write_guard.h) */
    const char *shown;  /* the name messages use: -o's, or "standard output" */
    int header_due;     /* opened with header_later, header not written yet */
};

/* The errno of the failed write, where htslib keeps it: in the hFILE under
 * the BGZF, CRAM or text layer (errno itself may be stale by the time
 * sam_write1 returns, or set in another thread: a multi-threaded BGZF
 * writer).  0 when none is known. */
static int output_errno(samFile *f)
{
    hFILE *h = f->is_bgzf ? f->fp.bgzf->fp : f->is_cram ? cram_fd_get_fp(f->fp.cram)
             : f->fp.hfile;
    return h && herrno(h) ? herrno(h) : errno;
}

/* ": reason" for a failed write, into buf. */
static const char *write_reason(samFile *f, char *buf, size_t len)
{
    int e = f ? output_errno(f) : errno;
    snprintf(buf, len, ": %s", e ? strerror(e) : "htslib's message above says why");
    return buf;
}

/* The ID of an @RG line held in `line` (tab-separated fields), into id. */
static int rg_line_id(const char *line, kstring_t *id)
{
    for (const char *p = line; p && *p; p = strchr(p, '\t')) {
        if (*p == '\t') p++;
        if (!strncmp(p, "ID:", 3)) {
            id->l = 0;
            size_t n = strcspn(p + 3, "\t");
            return kputsn(p + 3, n, id) < 0 ? -1 : 0;
        }
    }
    return -1;
}

int gpuasm_rg_line(const char *spec, kstring_t *line, kstring_t *id, char *err, size_t errlen)
{
    line->l = 0;
    /* bwa -R: "\t" stands for a tab (shells do not make one of it). */
    if (strncmp(spec, "@RG", 3) && kputs("@RG\t", line) < 0) goto oom;
    for (const char *p = spec; *p; p++) {
        if (p[0] == '\\' && p[1] == 't') {
            if (kputc('\t', line) < 0) goto oom;
            p++;
        } else if (p[0] == '\\' && p[1] == '\\') {
            if (kputc('\\', line) < 0) goto oom;
            p++;
        } else if (kputc(*p, line) < 0) {
            goto oom;
        }
    }
    if (strpbrk(line->s, "\n\r")) {
        snprintf(err, errlen, "read group line has a line break");
        return -1;
    }
    if (line->l < 4 || strncmp(line->s, "@RG\t", 4)) {
        snprintf(err, errlen, "read group line '%s' does not start with @RG and a tab", spec);
        return -1;
    }
    /* Fields: TAG:VALUE, a two-character tag, each once; ID required. */
    int n_id = 0;
    for (const char *f = line->s + 4; ; ) {
        size_t n = strcspn(f, "\t");
        if (n < 4 || f[2] != ':' || !isalpha((unsigned char)f[0]) ||
            !isalnum((unsigned char)f[1])) {
            snprintf(err, errlen, "read group line '%s': field '%.*s' is not TAG:VALUE", spec,
                     (int)n, f);
            return -1;
        }
        for (const char *g = line->s + 4; g < f; g += strcspn(g, "\t") + 1)
            if (!strncmp(g, f, 3)) {
                snprintf(err, errlen, "read group line '%s': tag %.2s given twice", spec, f);
                return -1;
            }
        if (!strncmp(f, "ID:", 3)) n_id++;
        if (!f[n]) break;
        f += n + 1;
    }
    if (!n_id) {
        snprintf(err, errlen, "read group line '%s' has no ID:", spec);
        return -1;
    }
    if (rg_line_id(line->s, id) < 0) goto oom;
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* Copy the input's @RG lines, except one whose ID is skip_id. */
static int copy_rg_lines(sam_hdr_t *dst, const sam_hdr_t *src, const char *skip_id)
{
    /* sam_hdr_str is not const-correct; the header is not modified. */
    sam_hdr_t *s = (sam_hdr_t *)src;
    int n = sam_hdr_count_lines(s, "RG"), ret = 0;
    kstring_t ks = KS_INITIALIZE, id = KS_INITIALIZE;
    for (int i = 0; i < n && ret == 0; i++) {
        if (sam_hdr_find_line_pos(s, "RG", i, &ks) < 0) { ret = -1; break; }
        if (skip_id && rg_line_id(ks.s, &id) == 0 && !strcmp(id.s, skip_id)) continue;
        if (sam_hdr_add_lines(dst, ks.s, ks.l) < 0) ret = -1;
    }
    ks_free(&ks);
    ks_free(&id);
    return ret;
}

/* Do the format options say how to find the CRAM reference? */
static int names_reference(const htsFormat *f)
{
    for (const hts_opt *o = f->specific; o; o = o->next)
        if (o->opt == CRAM_OPT_REFERENCE || o->opt == CRAM_OPT_NO_REF || o->opt == CRAM_OPT_EMBED_REF)
            return 1;
    return 0;
}

static int header_due_write(gpuasm_writer *w, char *err, size_t errlen);

int gpuasm_writer_open(const gpuasm_writer_opt *o, const gpuasm_targets *t,
                       gpuasm_writer **out, char *err, size_t errlen)
{
    const char *shown = (o->path && strcmp(o->path, "-")) ? o->path : "standard output";
    kstring_t rg_id = KS_INITIALIZE;
    gpuasm_writer *w = calloc(1, sizeof(*w));
    if (!w) goto oom;
    w->shown = shown;
    if (gpuasm_outfile_begin(&w->of, o->path, err, errlen) < 0) {
        free(w);
        return -1;
    }

    const htsFormat *f = o->format;
    const char *mode = f->format == bam ? "wb" : f->format == cram ? "wc"
                     : f->compression == bgzf ? "wz" : "w";
    const char *name = gpuasm_outfile_name(&w->of);
    /* CRAM behind a guard: htslib's CRAM writer crashes on a full disk
     * (util/write_guard.h).  Not BAM or SAM.gz: their writer only leaks
     * its handle after a failed write (the run then ends), and the pipe
     * cost 12% of a BAM-output-bound run (NOTES.md). */
    if (f->format == cram && gpuasm_write_guard_open(name, &w->guard, &name, err, errlen) < 0) {
        gpuasm_outfile_abort(&w->of);
        gpuasm_outfile_free(&w->of);
        free(w);
        return -1;
    }
    /* A reference=FILE that cannot be read makes htslib fail the open
     * with its own path (/dev/fd/N behind the guard) and errno ENOENT:
     * "cannot open for writing" would blame the output (issue #31). */
    for (const hts_opt *ho = f->specific; f->format == cram && ho; ho = ho->next) {
        if (ho->opt != CRAM_OPT_REFERENCE || !ho->val.s) continue;
        FILE *rf = fopen(ho->val.s, "r");
        if (!rf) {
            snprintf(err, errlen, "%s: the CRAM reference %s (reference=) cannot be read: %s "
                     "(give the FASTA the reads were aligned to)", shown, ho->val.s,
                     strerror(errno ? errno : ENOENT));
            goto fail;
        }
        fclose(rf);
    }
    errno = 0;
    /* sam_open_format applies the format options (hts_opt_apply). */
    w->out = sam_open_format(name, mode, f);
    if (w->guard) gpuasm_write_guard_opened(w->guard);
    if (!w->out) {
        snprintf(err, errlen, "%s: cannot open for writing%s%s", shown,
                 errno ? ": " : " (see htslib's message above)", errno ? strerror(errno) : "");
        goto fail;
    }
    if (f->format == cram && !names_reference(f) && hts_set_opt(w->out, CRAM_OPT_NO_REF, 1) < 0) {
        snprintf(err, errlen, "%s: cannot set CRAM options", shown);
        goto fail;
    }
    /* Compression threads.  Not htslib's threaded SAM text writer: in
     * htslib 1.16 its dispatcher thread stops on a write error (a full
     * disk, a closed pipe) while sam_write1 keeps queueing records for it,
     * and the run hangs (issue #12).  SAM text is formatted here, and only
     * the BGZF compression of .sam.gz runs in threads (as for BAM). */
    if (o->n_threads > 1) {
        int r = f->format == bam || f->format == cram ? hts_set_threads(w->out, o->n_threads)
              : f->compression == bgzf ? bgzf_mt(w->out->fp.bgzf, o->n_threads, 256) : 0;
        if (r < 0) {
            char what[64], tw[600];
            snprintf(what, sizeof what, "cannot start %d compression threads", o->n_threads);
            snprintf(err, errlen, "%s: %s", shown, gpuasm_thread_error(what, errno, tw, sizeof tw));
            goto fail;
        }
    }

    if (!(w->hdr = sam_hdr_init())) goto oom;
    if (sam_hdr_add_line(w->hdr, "HD", "VN", "1.6", "SO", "unsorted", "GO", "query", NULL) < 0)
        goto oom;
    for (uint32_t i = 0; i < t->n; i++) {
        char len[32];
        snprintf(len, sizeof len, "%llu", (unsigned long long)gpuasm_target_len(t, i));
        int r = t->desc[i]
              ? sam_hdr_add_line(w->hdr, "SQ", "SN", t->name[i], "LN", len, "DS", t->desc[i], NULL)
              : sam_hdr_add_line(w->hdr, "SQ", "SN", t->name[i], "LN", len, NULL);
        if (r < 0) goto oom;
    }
    if (o->rg_line && rg_line_id(o->rg_line, &rg_id) < 0) goto oom;
    if (o->copy_rg && o->input && copy_rg_lines(w->hdr, o->input, o->rg_line ? rg_id.s : NULL) < 0)
        goto oom;
    if (o->rg_line && sam_hdr_add_lines(w->hdr, o->rg_line, 0) < 0) {
        snprintf(err, errlen, "%s: cannot add the read group line '%s'", shown, o->rg_line);
        goto fail;
    }
    if (o->pg_cl &&
        sam_hdr_add_pg(w->hdr, "gpuasm-scan", "PN", "gpuasm-scan", "VN", o->version,
                       "CL", o->pg_cl, NULL) < 0)
        goto oom;
    if (o->comment) {
        kstring_t co = KS_INITIALIZE;
        const int bad = ksprintf(&co, "@CO\t%s", o->comment) < 0 || sam_hdr_add_lines(w->hdr, co.s, co.l) < 0;
        ks_free(&co);
        if (bad) goto oom;
    }
    w->header_due = 1;
    if (!o->header_later && header_due_write(w, err, errlen) < 0) goto fail;
    ks_free(&rg_id);
    *out = w;
    return 0;
oom:
    snprintf(err, errlen, "%s: out of memory", shown);
fail:
    ks_free(&rg_id);
    if (w) {
        if (w->out) sam_close(w->out);
        if (w->guard) gpuasm_write_guard_close(w->guard);
        gpuasm_outfile_abort(&w->of);
        gpuasm_outfile_free(&w->of);
        if (w->hdr) sam_hdr_destroy(w->hdr);
        free(w);
    }
    return -1;
}

/* Write the header if it is still due (opened with header_later).  0, or
 * -1 with err. */
static int header_due_write(gpuasm_writer *w, char *err, size_t errlen)
{
    char why[256];
    if (!w->header_due) return 0;
    w->header_due = 0;
    errno = 0;
    if (sam_hdr_write(w->out, w->hdr) < 0) {
        snprintf(err, errlen, "%s: cannot write the header%s", w->shown,
                 write_reason(w->out, why, sizeof why));
        return -1;
    }
    return 0;
}

int gpuasm_writer_write(gpuasm_writer *w, const bam1_t *rec, char *err, size_t errlen)
{
    if (w->header_due && header_due_write(w, err, errlen) < 0) return -1;
    errno = 0;
    if (w->guard && gpuasm_write_guard_error(w->guard)) {
        snprintf(err, errlen, "%s: write failed: %s", w->shown,
                 strerror(gpuasm_write_guard_error(w->guard)));
        return -1;
    }
    if (sam_write1(w->out, w->hdr, rec) < 0) {
        char why[256];
        snprintf(err, errlen, "%s: write failed%s", w->shown, write_reason(w->out, why, sizeof why));
        return -1;
    }
    return 0;
}

int gpuasm_writer_is_text(const gpuasm_writer *w)
{
    /* "w" and "wz" opened SAM text; htslib's threaded SAM writer is never
     * attached (gpuasm_writer_open says why), so sam_write1 would format
     * and write in the calling thread, which is what the pair below does
     * in two threads. */
    return w->out->format.format == sam && !w->out->state;
}

int gpuasm_writer_format(const gpuasm_writer *w, const bam1_t *rec, kstring_t *line,
                         kstring_t *text)
{
    /* sam_format1 starts its string afresh, hence the line in between. */
    if (sam_format1(w->hdr, rec, line) < 0) return -1;
    if (kputsn(line->s, line->l, text) < 0 || kputc('\n', text) < 0) return -1;
    return 0;
}

int gpuasm_writer_write_text(gpuasm_writer *w, const char *s, size_t n, char *err, size_t errlen)
{
    if (w->header_due && header_due_write(w, err, errlen) < 0) return -1;
    errno = 0;
    samFile *f = w->out;
    if (!f->is_bgzf) {
        if (n && hwrite(f->fp.hfile, s, n) != (ssize_t)n) goto fail;
        return 0;
    }
    /* .sam.gz: record by record, as sam_write1 does, so that a record never
     * spans two BGZF blocks (bgzf_flush_try) and the blocks, hence the
     * bytes, are the same. */
    for (const char *end = s + n; s < end;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t len = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);
        if (bgzf_flush_try(f->fp.bgzf, (ssize_t)len) < 0 ||
            bgzf_write(f->fp.bgzf, s, len) != (ssize_t)len)
            goto fail;
        s += len;
    }
    return 0;
fail:;
    char why[256];
    snprintf(err, errlen, "%s: write failed%s", w->shown, write_reason(f, why, sizeof why));
    return -1;
}

int gpuasm_writer_close(gpuasm_writer *w, int ok, char *err, size_t errlen)
{
    int ret = 0;
    char why[256];
    /* A run that succeeded without writing a record still has its header. */
    if (ok && header_due_write(w, err, errlen) < 0) {
        ret = -1;
        ok = 0;
    }
    /* The reason is taken before sam_close frees the file. */
    errno = 0;
    if (ok && (w->out->is_bgzf ? bgzf_flush(w->out->fp.bgzf) < 0 : 0)) {
        snprintf(err, errlen, "%s: write failed%s", w->shown, write_reason(w->out, why, sizeof why));
        ret = -1;
        ok = 0;
    }
    errno = 0;
    if (sam_close(w->out) < 0 && ok) {
        snprintf(err, errlen, "%s: closing failed%s", w->shown, write_reason(NULL, why, sizeof why));
        ret = -1;
    }
    if (w->guard) {
        int e = gpuasm_write_guard_close(w->guard);
        if (e && ok && ret == 0) {
            snprintf(err, errlen, "%s: write failed: %s", w->shown, strerror(e));
            ret = -1;
        }
    }
    if (ok && ret == 0 && gpuasm_outfile_commit(&w->of, err, errlen) < 0) ret = -1;
    if (!ok || ret < 0) gpuasm_outfile_abort(&w->of);
    gpuasm_outfile_free(&w->of);
    sam_hdr_destroy(w->hdr);
    free(w);
    return ret;
}

/* Bytes of one aux value, type byte included (t points at the type), or
 * 0 when it runs past end.  htslib 1.16 has no public aux iterator. */
static size_t aux_value_size(const uint8_t *t, const uint8_t *end)
{
    switch (t[0]) {
    case 'A': case 'c': case 'C': return 2;
    case 's': case 'S': return 3;
    case 'i': case 'I': case 'f': return 5;
    case 'd': return 9;
    case 'Z': case 'H': {
        const uint8_t *z = memchr(t + 1, 0, (size_t)(end - t - 1));
        return z ? (size_t)(z - t) + 1 : 0;
    }
    case 'B': {
        if (end - t < 6) return 0;
        size_t w = t[1] == 'c' || t[1] == 'C' ? 1 : t[1] == 's' || t[1] == 'S' ? 2 : 4;
        uint32_t cnt;
        memcpy(&cnt, t + 2, 4);
        size_t sz = 6 + w * cnt;
        return sz <= (size_t)(end - t) ? sz : 0;
    }
    default: return 0;
    }
}

/* SEQ as letters and QUAL as raw values of read in output orientation,
 * in scratch: [seq n][0][qual n][0][the read's address][reverse], with
 * scratch->l the bytes used.  A read's records come one after another,
 * most of an adapter screen's reads with several (one a target of a kit):
 * the letters of the record before are reused when they are this read's
 * in this orientation.  gpuasm_sam_seq_forget() (scratch->l = 0) before
 * a read whose bam1_t may sit where another's was.  0, or -1 out of
 * memory. */
static int seq_letters(kstring_t *scratch, const bam1_t *read, int reverse, char **seq, char **qual)
{
    const int32_t n = read->core.l_qseq;
    const size_t key = (size_t)2 * (size_t)n + 2, used = key + sizeof read + 1;
    if (scratch->l == used && !memcmp(scratch->s + key, &read, sizeof read) &&
        scratch->s[key + sizeof read] == (char)!!reverse) {
        *seq = scratch->s;
        *qual = scratch->s + n + 1;
        return 0;
    }
    scratch->l = 0;
    if (ks_resize(scratch, used) < 0) return -1;
    const uint8_t *s = bam_get_seq(read), *q = bam_get_qual(read);
    char *sq = scratch->s, *ql = scratch->s + n + 1;
    if (reverse) {
        for (int32_t i = 0; i < n; i++) {
            sq[i] = seq_nt16_str[gpuasm_nt16_comp((uint8_t)bam_seqi(s, n - 1 - i))];
            ql[i] = (char)q[n - 1 - i];
        }
    } else {
        for (int32_t i = 0; i < n; i++) sq[i] = seq_nt16_str[bam_seqi(s, i)];
        memcpy(ql, q, (size_t)n);
    }
    sq[n] = ql[n] = 0;
    memcpy(scratch->s + key, &read, sizeof read);
    scratch->s[key + sizeof read] = (char)!!reverse;
    scratch->l = used;
    *seq = sq;
    *qual = ql;
    return 0;
}

void gpuasm_sam_seq_forget(kstring_t *scratch)
{
    scratch->l = 0;
}

int gpuasm_sam_set_record(bam1_t *dst, const bam1_t *read, const gpuasm_sam_fields *f,
                          kstring_t *scratch)
{
    int32_t n = read->core.l_qseq;
    const uint8_t *q = bam_get_qual(read);
    char *seq, *qual;
    if (seq_letters(scratch, read, f->reverse, &seq, &qual) < 0) return -1;
    int has_qual = n > 0 && q[0] != 0xff;
    size_t l_aux = (f->keep_tags ? (size_t)bam_get_l_aux((bam1_t *)read) : 0) + 64 +
                   (f->md ? strlen(f->md) : 0) + (f->rg ? strlen(f->rg) + 4 : 0);
    if (bam_set1(dst, read->core.l_qname - read->core.l_extranul - 1, bam_get_qname(read),
                 f->flag, f->tid, f->pos, f->mapq, f->n_cigar, f->cigar,
                 f->mtid, f->mpos, 0, (size_t)n, seq, has_qual ? qual : NULL, l_aux) < 0)
        return -1;
    if (f->nm >= 0) {
        if (bam_aux_update_int(dst, "NM", f->nm) < 0) return -1;
        if (f->md && bam_aux_append(dst, "MD", 'Z', (int)strlen(f->md) + 1, (const uint8_t *)f->md) < 0)
            return -1;
        if (bam_aux_update_int(dst, "AS", f->as) < 0) return -1;
        if (f->has_xs && bam_aux_update_int(dst, "XS", f->xs) < 0) return -1;
        if (f->dist != f->nm && bam_aux_update_int(dst, "XD", f->dist) < 0) return -1;
        if (f->partial && bam_aux_append(dst, "XP", 'Z', (int)strlen(f->partial) + 1,
                                         (const uint8_t *)f->partial) < 0)
            return -1;
        if (!isnan(f->chance) && bam_aux_update_float(dst, "XE", (float)f->chance) < 0) return -1;
    }
    if (f->rg && bam_aux_append(dst, "RG", 'Z', (int)strlen(f->rg) + 1, (const uint8_t *)f->rg) < 0)
        return -1;
    if (f->keep_tags) {
        /* Copy the input's tags after ours, skipping the ones we set so that
         * no tag appears twice. */
        bam1_t *r = (bam1_t *)read;
        const uint8_t *a = bam_get_aux(r), *end = r->data + r->l_data;
        while (a + 3 <= end) {
            size_t sz = aux_value_size(a + 2, end);
            if (sz == 0) break;  /* damaged block: copy no further */
            if (memcmp(a, "NM", 2) && memcmp(a, "MD", 2) && memcmp(a, "AS", 2) &&
                memcmp(a, "XS", 2) && memcmp(a, "XD", 2) && memcmp(a, "XP", 2) &&
                memcmp(a, "XE", 2) &&
                (!f->rg || memcmp(a, "RG", 2)) &&
                bam_aux_append(dst, (const char *)a, (char)a[2], (int)(sz - 1), a + 3) < 0)
                return -1;
            a += 2 + sz;
        }
    }
    return 0;
}
