/* SPDX-License-Identifier: MIT */
/* reads.c -- stream reads into batches (see reads.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/bgzf.h>
#include <htslib/hfile.h>
#include <htslib/sam.h>
#include <htslib/hts.h>
#include <htslib/thread_pool.h>
#include <stdatomic.h>

#include "io/diagnose.h"
#include "util/printable.h"
#include "io/reads.h"

/* One input file. */
typedef struct {
    samFile *in;
    sam_hdr_t *hdr;
    char *path;
    int seqfile;         /* FASTQ/FASTA: no pairing of its own (reads.h) */
    int cram;
    int compressed;      /* gzip or BGZF (BAM included) */
    int pooled;          /* htslib's decoding threads are attached */
    uint64_t n_read;     /* records read so far (all, skipped ones included) */
    int eof;
} source_t;

struct gpuasm_reader {
    source_t src[2];     /* R1 (or the only file), R2 */
    int paired_files;    /* src[1] is R2 */
    hts_tpool *pool;
    htsThreadPool tp;
    int wildcards;
    uint64_t n_pairs;    /* pairs read from paired files */
    bam1_t *pending;     /* a record read ahead, or NULL */
    uint64_t pending_no; /* its 1-based record number */
    bam1_t *mate;        /* paired files: R2's record being read */
    _Atomic uint64_t n_out;  /* primary records read (gpuasm_reader_count) */
    char no_eof[1024];       /* a BGZF file without its end-of-file block, or "" */
    uint64_t odd_names;      /* read names with bytes SAM's QNAME does not allow */
    char odd_first[1024];    /* the first of them: "FILE: record N (NAME)" */
    char warning[2][1280];   /* gpuasm_reader_warning() */
};

/* The BGZF layer of an open file (BAM, gzip and bgzip text), or NULL. */
static BGZF *bgzf_of(samFile *f)
{
    return f && f->is_bgzf ? f->fp.bgzf : NULL;
}

static int source_open(source_t *s, const char *path, const char *reference,
                       htsThreadPool *tp, char *err, size_t errlen)
{
    if (!(s->path = strdup(path))) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    errno = 0;
    s->in = sam_open(path, "r");
    if (!s->in) {
        const int e = errno;
        char what[128] = "";
        if (e == 0 && gpuasm_rereadable(path)) {
            /* htslib knew the format and could not read its start (a CRAM
             * file definition or header cut short or damaged): say which. */
            hFILE *h = hopen(path, "r");
            htsFormat fmt;
            if (h && hts_detect_format2(h, path, &fmt) == 0) {
                char *d = hts_format_description(&fmt);
                if (d) snprintf(what, sizeof what, "%s", d);
                free(d);
            }
            if (h) hclose_abruptly(h);
        }
        if (e == ENOEXEC)   /* htslib's word for a format it does not know */
            snprintf(err, errlen, "%s: not a FASTQ/FASTA/SAM/BAM/CRAM file (htslib does not "
                     "recognise its format)", path);
        else if (e == 0)
            snprintf(err, errlen, "%s: cannot open: %s%s%s", path, what[0] ? what : "the file",
                     what[0] ? " whose start htslib cannot read" : " cannot be read",
                     " (truncated or corrupt; htslib's message above)");
        else
            snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
        return -1;
    }
    if (reference && hts_set_fai_filename(s->in, reference) < 0) {
        snprintf(err, errlen, "%s: cannot use reference %s", path, reference);
        return -1;
    }
    const htsFormat *fmt = hts_get_format(s->in);
    enum htsExactFormat f = fmt->format;
    s->seqfile = f == fastq_format || f == fasta_format;
    s->cram = f == cram;
    s->compressed = fmt->compression != no_compression;
    s->hdr = sam_hdr_read(s->in);
    if (!s->hdr) {
        BGZF *bz = bgzf_of(s->in);
        if (f == empty_format && s->compressed) {
            /* Nothing came out of the compressed data: an empty file
             * compressed, or one cut short (htslib's format detection
             * does not tell, a read does). */
            char c, what[256];
            gpuasm_gz_report gz;
            int bad = bz && bgzf_read(bz, &c, 1) < 0;
            int k = gpuasm_gz_check(path, &gz);
            if (bad || (k != GPUASM_GZ_OK && k != GPUASM_GZ_UNKNOWN)) {
                if (k == GPUASM_GZ_OK || k == GPUASM_GZ_UNKNOWN)
                    snprintf(what, sizeof what, "%s", gpuasm_bgzf_error_words(bz)
                             ? gpuasm_bgzf_error_words(bz) : "truncated or corrupt compressed data");
                else
                    gpuasm_gz_describe(&gz, what, sizeof what);
                snprintf(err, errlen, "%s: record 1: %s", path, what);
                return -1;
            }
        }
        if (f == empty_format) {
            /* An empty read file is an empty read set, as in samtools. */
            s->hdr = sam_hdr_init();
            s->eof = 1;
            if (!s->hdr) { snprintf(err, errlen, "%s: out of memory", path); return -1; }
        } else if (f == bam || f == cram || f == sam) {
            /* The format is known: the header itself is cut or broken. */
            char what[256] = "";
            gpuasm_gz_report gz;
            int k = s->compressed ? gpuasm_gz_check(path, &gz) : GPUASM_GZ_UNKNOWN;
            if (k != GPUASM_GZ_OK && k != GPUASM_GZ_UNKNOWN)
                gpuasm_gz_describe(&gz, what, sizeof what);
            else if (gpuasm_bgzf_error_words(bz))
                snprintf(what, sizeof what, "%s", gpuasm_bgzf_error_words(bz));
            snprintf(err, errlen, "%s: cannot read the %s header: %s", path,
                     f == bam ? "BAM" : f == cram ? "CRAM" : "SAM",
                     what[0] ? what : "malformed (htslib's message above says why)");
            return -1;
        } else {
            snprintf(err, errlen, "%s: not a FASTQ/FASTA/SAM/BAM/CRAM file or cannot read its header", path);
            return -1;
        }
    }
    /* The decoding threads join only now, after the header (issue #12):
     * htslib 1.16's bgzf_check_EOF(), which bam_hdr_read() calls, waits
     * forever for a multi-threaded reader that already stopped on a
     * truncated or corrupt block (samtools view -@ hangs the same way).
     * Attached after the header, the pool starts at the first record. */
    if (tp && !s->eof) {
        if (hts_set_thread_pool(s->in, tp) < 0) {
            snprintf(err, errlen, "%s: cannot start the decoding threads", path);
            return -1;
        }
        s->pooled = 1;
    }
    return 0;
}

static void source_close(source_t *s)
{
    if (s->hdr) sam_hdr_destroy(s->hdr);
    if (s->in) sam_close(s->in);
    free(s->path);
}

int gpuasm_reader_open(const char *path, const char *path2, const char *reference,
                       int n_threads, int wildcards, gpuasm_reader **out,
                       char *err, size_t errlen)
{
    gpuasm_reader *r = calloc(1, sizeof(*r));
    if (!r) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    r->wildcards = wildcards;
    r->paired_files = path2 != NULL;
    if (n_threads > 1) {
        if (!(r->pool = hts_tpool_init(n_threads))) {
            snprintf(err, errlen, "%s: cannot start %d threads", path, n_threads);
            goto fail;
        }
        r->tp.pool = r->pool;
    }
    if (source_open(&r->src[0], path, reference, r->pool ? &r->tp : NULL, err, errlen) < 0)
        goto fail;
    if (path2) {
        if (source_open(&r->src[1], path2, reference, r->pool ? &r->tp : NULL, err, errlen) < 0)
            goto fail;
        if (!(r->mate = bam_init1())) {
            snprintf(err, errlen, "%s: out of memory", path2);
            goto fail;
        }
    }
    *out = r;
    return 0;
fail:
    gpuasm_reader_close(r);
    return -1;
}

const sam_hdr_t *gpuasm_reader_header(const gpuasm_reader *r) { return r->src[0].hdr; }

const char *gpuasm_reader_warning(gpuasm_reader *r, int i)
{
    int k = 0;
    if (r->no_eof[0] && k++ == i) {
        snprintf(r->warning[0], sizeof r->warning[0], "%s", r->no_eof);
        return r->warning[0];
    }
    if (r->odd_names && k++ == i) {
        snprintf(r->warning[1], sizeof r->warning[1], "%s: %llu read name%s with bytes SAM does "
                 "not allow in QNAME (control bytes, non-ASCII), written as they are; the first: "
                 "%s", r->src[0].path, (unsigned long long)r->odd_names,
                 r->odd_names > 1 ? "s" : "", r->odd_first);
        return r->warning[1];
    }
    return NULL;
}

uint64_t gpuasm_reader_count(const gpuasm_reader *r)
{
    return atomic_load_explicit(&((gpuasm_reader *)r)->n_out, memory_order_relaxed);
}

void gpuasm_reader_close(gpuasm_reader *r)
{
    if (!r) return;
    if (r->pending && r->pending != r->mate) bam_destroy1(r->pending);
    if (r->mate) bam_destroy1(r->mate);
    source_close(&r->src[0]);
    source_close(&r->src[1]);
    if (r->pool) hts_tpool_destroy(r->pool);
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

/* At the end of one file: a BGZF file (BAM, bgzip) without its empty
 * end-of-file block may have been cut at a block boundary, which nothing
 * else shows; htslib warns without naming the file, samtools goes on, and
 * so does gpuasm with a warning that names it (gpuasm_reader_warning). */
static void end_of_source(gpuasm_reader *r, const source_t *s)
{
    BGZF *bz = bgzf_of(s->in);
    if (!bz || !bz->is_compressed || bz->is_gzip) return;
    /* BAM's header read looked already, as does a threaded reader at the
     * end; a bgzip FASTQ/SAM read without threads is looked at here
     * (bgzf_check_EOF: 0 no block, 1 there, 2 cannot tell: a pipe). */
    if (!bz->no_eof_block && !bz->mt && hts_get_format(s->in)->format != bam &&
        bgzf_check_EOF(bz) != 0)
        return;
    if (bz->no_eof_block && !r->no_eof[0])
        snprintf(r->no_eof, sizeof r->no_eof, "%s: no BGZF end-of-file block after record %llu, "
                 "the last one read: the file may be truncated", s->path,
                 (unsigned long long)s->n_read);
}

/* SAM's QNAME is [!-?A-~]{1,254}: count names with bytes outside 0x21-0x7e
 * (htslib takes them as they are, and so does gpuasm, with one warning). */
static void check_name(gpuasm_reader *r, const source_t *s, const bam1_t *b)
{
    for (const unsigned char *p = (const unsigned char *)bam_get_qname(b); *p; p++)
        if (*p < 0x21 || *p > 0x7e) {
            if (r->odd_names++ == 0) {
                char nm[GPUASM_PRINTABLE_BUF];
                snprintf(r->odd_first, sizeof r->odd_first, "record %llu (%s)",
                         (unsigned long long)s->n_read, gpuasm_printable(bam_get_qname(b), nm, sizeof nm));
            }
            return;
        }
}

/* Read the next primary record of one file into *dst (a reused bam1_t).
 * 1: got one; 0: end of input; -1: error (err filled). */
static int next_primary(gpuasm_reader *r, source_t *s, bam1_t *dst, uint64_t *rec_no,
                        char *err, size_t errlen)
{
    if (s->eof) return 0;
    for (;;) {
        errno = 0;
        int ret = sam_read1(s->in, s->hdr, dst);
        if (ret == -1) {
            /* The end, as htslib says -- unless it is not (issue #12):
             * htslib's FASTQ/FASTA reader says "end" when bam_set1 refuses
             * a record (a name over 254 characters: errno EINVAL), and a
             * multi-threaded BGZF reader that met a bad block may have
             * given up and called that the end too (its error code stays). */
            const BGZF *bz = bgzf_of(s->in);
            int suspect = (s->seqfile && errno == EINVAL) || (bz && bz->errcode);
            char what[512];
            if (suspect && gpuasm_diagnose_reads(s->path, s->seqfile, s->compressed, s->pooled, bz,
                                                 s->n_read + 1, !(bz && bz->errcode),
                                                 what, sizeof what)) {
                snprintf(err, errlen, "%s: %s", s->path, what);
                return -1;
            }
            s->eof = 1;
            end_of_source(r, s);
            return 0;
        }
        if (ret < -1) {
            char what[512];
            if (s->cram)
                /* htslib has said why (a missing reference, most often). */
                snprintf(what, sizeof what, "record %llu: cannot decode the CRAM record (htslib's "
                         "message above says why; a CRAM file needs its reference: -T FILE)",
                         (unsigned long long)s->n_read + 1);
            else
                gpuasm_diagnose_reads(s->path, s->seqfile, s->compressed, s->pooled,
                                      bgzf_of(s->in), s->n_read + 1, 0, what, sizeof what);
            snprintf(err, errlen, "%s: %s", s->path, what);
            return -1;
        }
        s->n_read++;
        if (s->seqfile) {
            /* htslib's flags from a "/1" "/2" name suffix (reads.h): a
             * single file is single-end, paired files set their own. */
            dst->core.flag = BAM_FUNMAP;
        } else {
            if (dst->core.flag & (BAM_FSECONDARY | BAM_FSUPPLEMENTARY)) continue;
            if (dst->core.l_qseq == 0 && !(dst->core.flag & BAM_FUNMAP) && dst->core.n_cigar) {
                /* SEQ '*' on a primary record: nothing to search, and nothing
                 * to write back; refuse rather than report a read silently lost. */
                char nm[GPUASM_PRINTABLE_BUF];
                snprintf(err, errlen, "%s: record %llu (%s): no sequence (SEQ is '*')",
                         s->path, (unsigned long long)s->n_read,
                         gpuasm_printable(bam_get_qname(dst), nm, sizeof nm));
                return -1;
            }
        }
        if (dst->core.flag & BAM_FREVERSE) to_sequencing_orientation(dst);
        check_name(r, s, dst);
        *rec_no = s->n_read;
        atomic_fetch_add_explicit(&r->n_out, 1, memory_order_relaxed);
        return 1;
    }
}

/* Paired files: R1's next read into dst, R2's into r->mate, checked to be
 * mates.  1, 0 at the end of both, -1 with err. */
static int next_pair(gpuasm_reader *r, bam1_t *dst, char *err, size_t errlen)
{
    source_t *a = &r->src[0], *b = &r->src[1];
    uint64_t na = 0, nb = 0;
    int ga = next_primary(r, a, dst, &na, err, errlen);
    if (ga < 0) return -1;
    int gb = next_primary(r, b, r->mate, &nb, err, errlen);
    if (gb < 0) return -1;
    if (!ga && !gb) return 0;
    uint64_t k = r->n_pairs + 1;
    char n1[GPUASM_PRINTABLE_BUF], n2[GPUASM_PRINTABLE_BUF];
    if (!gb) {
        snprintf(err, errlen, "%s, %s: %s has more reads: its read %llu (%s) has no mate, "
                 "%s ends after %llu", a->path, b->path, a->path, (unsigned long long)k,
                 gpuasm_printable(bam_get_qname(dst), n1, sizeof n1), b->path,
                 (unsigned long long)r->n_pairs);
        return -1;
    }
    if (!ga) {
        snprintf(err, errlen, "%s, %s: %s has more reads: its read %llu (%s) has no mate, "
                 "%s ends after %llu", a->path, b->path, b->path, (unsigned long long)k,
                 gpuasm_printable(bam_get_qname(r->mate), n2, sizeof n2), a->path,
                 (unsigned long long)r->n_pairs);
        return -1;
    }
    if (strcmp(bam_get_qname(dst), bam_get_qname(r->mate)) != 0) {
        snprintf(err, errlen, "%s, %s: read %llu: mate names differ (%s in %s, %s in %s; "
                 "the files must list the mates of each pair in the same order)",
                 a->path, b->path, (unsigned long long)k,
                 gpuasm_printable(bam_get_qname(dst), n1, sizeof n1), a->path,
                 gpuasm_printable(bam_get_qname(r->mate), n2, sizeof n2), b->path);
        return -1;
    }
    r->n_pairs = k;
    /* As samtools import -1 -2 writes them: 77 and 141. */
    dst->core.flag = BAM_FPAIRED | BAM_FUNMAP | BAM_FMUNMAP | BAM_FREAD1;
    r->mate->core.flag = BAM_FPAIRED | BAM_FUNMAP | BAM_FMUNMAP | BAM_FREAD2;
    return 1;
}

/* Read the next read into *dst (a reused bam1_t): the read ahead, the next
 * primary record of the file, or from paired files R1's then R2's read.
 * 1: got one; 0: end of input; -1: error (err filled). */
static int next_record(gpuasm_reader *r, bam1_t *dst, uint64_t *rec_no, char *err, size_t errlen)
{
    int got;
    if (r->pending) {
        bam1_t *p = r->pending;
        r->pending = NULL;
        *rec_no = r->pending_no;
        int ok = bam_copy1(dst, p) != NULL;
        if (p != r->mate) bam_destroy1(p);
        if (!ok) {
            snprintf(err, errlen, "%s: out of memory", r->src[0].path);
            return -1;
        }
        got = 1;
    } else if (r->paired_files) {
        if ((got = next_pair(r, dst, err, errlen)) == 1) {
            /* R2's read comes next (copied from r->mate: no allocation). */
            r->pending = r->mate;
            r->pending_no = 2 * r->n_pairs;
            *rec_no = 2 * r->n_pairs - 1;
        }
    } else {
        got = next_primary(r, &r->src[0], dst, rec_no, err, errlen);
    }
    return got;
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
        /* Only the offsets here: the codes are made by gpuasm_batch_encode
         * on a scan thread, so that this thread (the one that cannot run in
         * parallel) does little more than htslib's parsing. */
        if (grow_pinned(b, (void **)&b->off, &b->m_off, b->n + 2, sizeof(*b->off)) < 0)
            goto oom;
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
    b->wildcards = r->wildcards;
    b->encoded = 0;
    b->set.n = b->n;
    b->set.off = b->off;
    b->set.code = NULL;   /* gpuasm_batch_encode */
    return (int)b->n;
oom:
    snprintf(err, errlen, "%s: out of memory", r->src[0].path);
    return -1;
}

/* The codes of both bases of one packed SEQ byte, as two bytes in memory
 * order (first base first), without and with wildcards. */
static uint16_t pair_code[2][256];
static pthread_once_t pair_once = PTHREAD_ONCE_INIT;

static void pair_init(void)
{
    for (int w = 0; w < 2; w++)
        for (int x = 0; x < 256; x++) {
            uint8_t two[2] = { gpuasm_read_code((uint8_t)(x >> 4), w),
                               gpuasm_read_code((uint8_t)(x & 15), w) };
            memcpy(&pair_code[w][x], two, 2);
        }
}

int gpuasm_batch_encode(gpuasm_batch *b)
{
    if (b->encoded) return 0;
    const uint64_t bases = b->n ? b->off[b->n] : 0;
    /* The old codes need not survive a growth: drop them first (no copy). */
    if (bases + 1 > b->m_code && b->code) {
        b->mem.free(b->mem.ctx, b->code);
        b->code = NULL;
        b->m_code = 0;
    }
    if (grow_pinned(b, (void **)&b->code, &b->m_code, bases + 1, 1) < 0) return -1;
    pthread_once(&pair_once, pair_init);
    const uint16_t *pair = pair_code[b->wildcards ? 1 : 0];
    for (uint32_t k = 0; k < b->n; k++) {
        const uint8_t *s = bam_get_seq(b->rec[k]);
        uint8_t *c = b->code + b->off[k];
        const uint32_t len = (uint32_t)(b->off[k + 1] - b->off[k]);
        /* Two bases per packed byte (SEQ's high nibble first). */
        for (uint32_t i = 0; i + 1 < len; i += 2) memcpy(c + i, &pair[s[i >> 1]], 2);
        if (len & 1) c[len - 1] = gpuasm_read_code((uint8_t)(s[len >> 1] >> 4), b->wildcards);
    }
    b->set.code = b->code;
    b->encoded = 1;
    return 0;
}
