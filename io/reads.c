/* reads.c -- stream reads into batches (see reads.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/sam.h>
#include <htslib/hts.h>
#include <htslib/thread_pool.h>

#include "diagnose.h"
#include "reads.h"

struct gpuasm_reader {
    samFile *in;
    sam_hdr_t *hdr;
    char *path;
    hts_tpool *pool;
    htsThreadPool tp;
    int wildcards;
    uint64_t n_read;     /* records read so far (all, skipped ones included) */
    bam1_t *pending;     /* a record read ahead, or NULL */
    uint64_t pending_no; /* its 1-based record number */
    int eof;
};

int gpuasm_reader_open(const char *path, const char *reference, int n_threads,
                       int wildcards, gpuasm_reader **out, char *err, size_t errlen)
{
    gpuasm_reader *r = calloc(1, sizeof(*r));
    if (!r || !(r->path = strdup(path))) {
        snprintf(err, errlen, "%s: out of memory", path);
        free(r);
        return -1;
    }
    r->wildcards = wildcards;
    errno = 0;
    r->in = sam_open(path, "r");
    if (!r->in) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno ? errno : ENOENT));
        goto fail;
    }
    if (reference && hts_set_fai_filename(r->in, reference) < 0) {
        snprintf(err, errlen, "%s: cannot use reference %s", path, reference);
        goto fail;
    }
    if (n_threads > 1) {
        if (!(r->pool = hts_tpool_init(n_threads))) {
            snprintf(err, errlen, "%s: cannot start %d threads", path, n_threads);
            goto fail;
        }
        r->tp.pool = r->pool;
        hts_set_thread_pool(r->in, &r->tp);
    }
    r->hdr = sam_hdr_read(r->in);
    if (!r->hdr) {
        if (hts_get_format(r->in)->format == empty_format) {
            /* An empty read file is an empty read set, as in samtools. */
            r->hdr = sam_hdr_init();
            r->eof = 1;
            if (!r->hdr) { snprintf(err, errlen, "%s: out of memory", path); goto fail; }
        } else {
            snprintf(err, errlen, "%s: not a FASTQ/FASTA/SAM/BAM/CRAM file or cannot read its header", path);
            goto fail;
        }
    }
    *out = r;
    return 0;
fail:
    gpuasm_reader_close(r);
    return -1;
}

const sam_hdr_t *gpuasm_reader_header(const gpuasm_reader *r) { return r->hdr; }

void gpuasm_reader_close(gpuasm_reader *r)
{
    if (!r) return;
    if (r->pending) bam_destroy1(r->pending);
    if (r->hdr) sam_hdr_destroy(r->hdr);
    if (r->in) sam_close(r->in);
    if (r->pool) hts_tpool_destroy(r->pool);
    free(r->path);
    free(r);
}

void gpuasm_batch_init(gpuasm_batch *b, gpuasm_alloc mem)
{
    memset(b, 0, sizeof(*b));
    b->mem = mem;
}

void gpuasm_batch_free(gpuasm_batch *b)
{
    for (size_t i = 0; i < b->m_rec; i++) bam_destroy1(b->rec[i]);
    free(b->rec);
    if (b->off) b->mem.free(b->mem.ctx, b->off);
    if (b->code) b->mem.free(b->mem.ctx, b->code);
    memset(b, 0, sizeof(*b));
}

/* Grow a buffer from the batch's allocator, keeping its contents. */
static int grow_pinned(gpuasm_batch *b, void **p, size_t *cap, size_t want, size_t sz)
{
    if (want <= *cap) return 0;
    size_t c = *cap ? *cap : 4096;
    while (c < want) c *= 2;
    void *q = b->mem.alloc(b->mem.ctx, c * sz);
    if (!q) return -1;
    if (*p) {
        memcpy(q, *p, *cap * sz);
        b->mem.free(b->mem.ctx, *p);
    }
    *p = q;
    *cap = c;
    return 0;
}

/* Turn a FLAG 0x10 record back to sequencing orientation, in place. */
static void to_sequencing_orientation(bam1_t *rec)
{
    uint8_t *s = bam_get_seq(rec), *q = bam_get_qual(rec);
    int32_t n = rec->core.l_qseq;
    for (int32_t i = 0, j = n - 1; i <= j; i++, j--) {
        uint8_t a = (uint8_t)bam_seqi(s, i), z = (uint8_t)bam_seqi(s, j);
        bam_set_seqi(s, i, gpuasm_nt16_comp(z));
        bam_set_seqi(s, j, gpuasm_nt16_comp(a));
        uint8_t t = q[i]; q[i] = q[j]; q[j] = t;
    }
    rec->core.flag &= ~BAM_FREVERSE;
}

/* Read the next primary record into *dst (a reused bam1_t).
 * 1: got one; 0: end of input; -1: error (err filled). */
static int next_record(gpuasm_reader *r, bam1_t *dst, uint64_t *rec_no, char *err, size_t errlen)
{
    if (r->pending) {
        bam1_t *p = r->pending;
        r->pending = NULL;
        *rec_no = r->pending_no;
        int ok = bam_copy1(dst, p) != NULL;
        bam_destroy1(p);
        if (!ok) {
            snprintf(err, errlen, "%s: out of memory", r->path);
            return -1;
        }
        return 1;
    }
    if (r->eof) return 0;
    for (;;) {
        int ret = sam_read1(r->in, r->hdr, dst);
        if (ret == -1) { r->eof = 1; return 0; }
        if (ret < -1) {
            char what[512];
            enum htsExactFormat f = hts_get_format(r->in)->format;
            gpuasm_diagnose_record(r->path, f == fastq_format || f == fasta_format,
                                   r->n_read + 1, what, sizeof what);
            snprintf(err, errlen, "%s: %s", r->path, what);
            return -1;
        }
        r->n_read++;
        if (dst->core.flag & (BAM_FSECONDARY | BAM_FSUPPLEMENTARY)) continue;
        if (dst->core.l_qseq == 0 && !(dst->core.flag & BAM_FUNMAP) && dst->core.n_cigar) {
            /* SEQ '*' on a primary record: nothing to search, and nothing
             * to write back; refuse rather than report a read silently lost. */
            snprintf(err, errlen, "%s: record %llu (%s): no sequence (SEQ is '*')",
                     r->path, (unsigned long long)r->n_read, bam_get_qname(dst));
            return -1;
        }
        if (dst->core.flag & BAM_FREVERSE) to_sequencing_orientation(dst);
        *rec_no = r->n_read;
        return 1;
    }
}

int gpuasm_reader_next(gpuasm_reader *r, gpuasm_batch *b, uint64_t max_bases,
                       char *err, size_t errlen)
{
    uint64_t bases = 0;
    b->n = 0;
    if (grow_pinned(b, (void **)&b->off, &b->m_off, 1, sizeof(*b->off)) < 0) goto oom;
    b->off[0] = 0;
    for (;;) {
        if (b->n == b->m_rec) {
            size_t c = b->m_rec ? b->m_rec * 2 : 256;
            bam1_t **q = realloc(b->rec, c * sizeof(*q));
            if (!q) goto oom;
            b->rec = q;
            for (size_t i = b->m_rec; i < c; i++)
                if (!(b->rec[i] = bam_init1())) { b->m_rec = i; goto oom; }
            b->m_rec = c;
        }
        bam1_t *rec = b->rec[b->n];
        uint64_t rec_no;
        int got = next_record(r, rec, &rec_no, err, errlen);
        if (got < 0) return -1;
        if (got == 0) break;
        if (b->n == 0) b->first_record = rec_no;
        uint32_t len = (uint32_t)rec->core.l_qseq;
        if (grow_pinned(b, (void **)&b->code, &b->m_code, bases + len + 1, 1) < 0 ||
            grow_pinned(b, (void **)&b->off, &b->m_off, b->n + 2, sizeof(*b->off)) < 0)
            goto oom;
        const uint8_t *s = bam_get_seq(rec);
        uint8_t *c = b->code + bases;
        for (uint32_t i = 0; i < len; i++)
            c[i] = gpuasm_read_code((uint8_t)bam_seqi(s, i), r->wildcards);
        bases += len;
        b->n++;
        b->off[b->n] = bases;
        if (bases >= max_bases && b->n > 0) {
            /* Keep a first mate with its mate when the two are adjacent:
             * read one record ahead and take it only if it is that mate. */
            uint16_t f = rec->core.flag;
            if ((f & BAM_FPAIRED) && (f & BAM_FREAD1) && !(f & BAM_FREAD2)) {
                bam1_t *la = bam_init1();
                uint64_t la_no;
                if (!la) goto oom;
                int g2 = next_record(r, la, &la_no, err, errlen);
                if (g2 < 0) { bam_destroy1(la); return -1; }
                if (g2 == 1) {
                    r->pending = la;
                    r->pending_no = la_no;
                    if ((la->core.flag & BAM_FREAD2) &&
                        strcmp(bam_get_qname(la), bam_get_qname(rec)) == 0)
                        continue;  /* the mate goes into this batch */
                } else {
                    bam_destroy1(la);
                }
            }
            break;
        }
    }
    b->set.n = b->n;
    b->set.off = b->off;
    b->set.code = b->code;
    return (int)b->n;
oom:
    snprintf(err, errlen, "%s: out of memory", r->path);
    return -1;
}
