/* SPDX-License-Identifier: MIT */
/* reads.c -- stream reads into batches (see reads.h; one file opened: reads_source.c). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/bgzf.h>
#include <htslib/sam.h>
#include <htslib/hts.h>
#include <htslib/thread_pool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/diagnose.h"
#include "io/fastx_chunks.h"
#include "io/reads.h"
#include "io/reads_int.h"
#include "util/printable.h"
#include "util/thread_error.h"

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
    const uint8_t *codes;    /* the codes of the record next_record() read, when the parse
                              * threads made them (fastx_chunks.h), else NULL */
    uint64_t longest;        /* the longest read so far, bases (gpuasm_reader_longest) */
    char longest_at[1280];   /* "FILE: record N (NAME)" */
};

/* RNA reads: U is T (issue #31), as targets have always had it and as
 * htslib itself does from 1.21 on (its commit 7f3b7589, "Convert U to T
 * instead of U to N when sam_parsing": seq_nt16_table['U'] = 8).  htslib
 * 1.16 maps U to 15 (N) in that table, which it uses everywhere it turns
 * text into bases: its format detector then refused a FASTQ whose first
 * read had a U ("not a FASTQ"), and bam_set1 read every later U as N (3
 * of 42 reads hit instead of 34).  So the one table entry is set as 1.21
 * has it, once, before htslib reads anything: htslib still parses (FASTQ,
 * FASTA, SAM SEQ alike), only its letter for U changes.  The table is
 * const, in read-only memory (the program's copy of it, or libhts's):
 * the page is made writable for the two bytes and given its protection
 * back, found in /proc/self/maps.  Where that fails, U stays N as in
 * samtools 1.16; gpuasm_reads_u_is_t() tells. */
static int u_is_t;
static void set_u_as_t(void)
{
    volatile unsigned char *t = (volatile unsigned char *)(uintptr_t)seq_nt16_table;
    if (t['U'] == 8 && t['u'] == 8) {
        u_is_t = 1;   /* htslib >= 1.21 */
        return;
    }
    const uintptr_t at = (uintptr_t)&t['U'], end = (uintptr_t)&t['u'] + 1;
    const long pg = sysconf(_SC_PAGESIZE);
    if (pg <= 0) return;
    const uintptr_t lo = at & ~(uintptr_t)(pg - 1), hi = (end + (uintptr_t)pg - 1) & ~(uintptr_t)(pg - 1);
    /* The protection of the mapping that holds the table (one mapping:
     * the two bytes are 32 apart). */
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return;
    char line[512], perm[8] = "";
    unsigned long a, b;
    while (fgets(line, sizeof line, maps))
        if (sscanf(line, "%lx-%lx %7s", &a, &b, perm) == 3 && at >= a && end <= b) break;
        else perm[0] = 0;
    fclose(maps);
    if (!perm[0]) return;
    const int prot = (perm[0] == 'r' ? PROT_READ : 0) | (perm[1] == 'w' ? PROT_WRITE : 0)
                   | (perm[2] == 'x' ? PROT_EXEC : 0);
    if (!(prot & PROT_WRITE) && mprotect((void *)lo, hi - lo, prot | PROT_WRITE) != 0) return;
    t['U'] = 8;
    t['u'] = 8;
    if (!(prot & PROT_WRITE)) mprotect((void *)lo, hi - lo, prot);
    u_is_t = t['U'] == 8;
}

int gpuasm_reads_u_is_t(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, set_u_as_t);
    return u_is_t;
}

/* Marks the parse threads give a record (fastx_hooks): what the reader
 * thread must look at; a record without is not looked at again there. */
enum { MARK_QUAL = 1, MARK_NAME = 2 };
static int32_t bad_quality(const bam1_t *b, int fastq);
static int odd_name(const bam1_t *b);
static void encode_read(const bam1_t *b, int wildcards, uint8_t *c);

static unsigned hook_mark(const bam1_t *b, void *ctx)
{
    /* bad_quality()'s answer without its early exits, so that the loop
     * vectorises (a tenth of the parse threads' time otherwise); a record
     * marked is looked at again by bad_quality() itself. */
    const source_t *s = ctx;
    const uint8_t *q = bam_get_qual(b);
    const int32_t n = b->core.l_qseq;
    uint8_t hi = 0, lo = 0xff;
    for (int32_t i = 0; i < n; i++) {
        hi = q[i] > hi ? q[i] : hi;
        lo = q[i] < lo ? q[i] : lo;
    }
    const int bad = n > 0 && (!s->fastq && q[0] == 0xff ? lo != 0xff : hi > 93);
    return (bad ? MARK_QUAL : 0) | (odd_name(b) ? MARK_NAME : 0);
}

static void hook_encode(const bam1_t *b, uint8_t *out, void *ctx)
{
    encode_read(b, ((const source_t *)ctx)->wildcards, out);
}

int gpuasm_reader_open(const char *path, const char *path2, const char *reference,
                       int n_threads, int wildcards, gpuasm_reader **out,
                       char *err, size_t errlen)
{
    gpuasm_reads_u_is_t();   /* before htslib reads anything */
    gpuasm_reader *r = calloc(1, sizeof(*r));
    if (!r) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    r->wildcards = wildcards;
    r->paired_files = path2 != NULL;
    if (n_threads > 1) {
        errno = 0;
        if (!(r->pool = hts_tpool_init(n_threads))) {
            char what[300], why[600];
            snprintf(what, sizeof what, "cannot start %d decoding threads", n_threads);
            snprintf(err, errlen, "%s: %s", path, gpuasm_thread_error(what, errno, why, sizeof why));
            goto fail;
        }
        r->tp.pool = r->pool;
    }
    r->src[0].wildcards = r->src[1].wildcards = wildcards;
    /* The quality and name checks (the marks) and, for one file, the
     * 2-bit codes are made on the parse threads of a FASTQ/FASTA file:
     * what is left here is the hand-over.  Paired files' batches are
     * encoded on the prep thread (next_pair takes no codes). */
    const gpuasm_fastx_hooks hooks1 = { hook_mark, path2 ? NULL : hook_encode, &r->src[0] },
                             hooks2 = { hook_mark, NULL, &r->src[1] };
    if (gpuasm_source_open(&r->src[0], path, reference, r->pool ? &r->tp : NULL, &hooks1, err,
                           errlen) < 0)
        goto fail;
    if (path2) {
        if (gpuasm_source_open(&r->src[1], path2, reference, r->pool ? &r->tp : NULL, &hooks2,
                               err, errlen) < 0)
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
    gpuasm_source_close(&r->src[0]);
    gpuasm_source_close(&r->src[1]);
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

void gpuasm_batch_set_alloc(gpuasm_batch *b, gpuasm_alloc mem)
{
    if (b->off) b->mem.free(b->mem.ctx, b->off);
    if (b->code) b->mem.free(b->mem.ctx, b->code);
    b->off = NULL;
    b->code = NULL;
    b->m_off = b->m_code = 0;
    b->set.off = NULL;
    b->set.code = NULL;
    b->n = 0;
    b->encoded = 0;
    b->mem = mem;
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
static int odd_name(const bam1_t *b)
{
    for (const unsigned char *p = (const unsigned char *)bam_get_qname(b); *p; p++)
        if (*p < 0x21 || *p > 0x7e) return 1;
    return 0;
}

static void check_name(gpuasm_reader *r, const source_t *s, const bam1_t *b)
{
    if (!odd_name(b)) return;
    if (r->odd_names++ == 0) {
        char nm[GPUASM_PRINTABLE_BUF];
        snprintf(r->odd_first, sizeof r->odd_first, "record %llu (%s)",
                 (unsigned long long)s->n_read, gpuasm_printable(bam_get_qname(b), nm, sizeof nm));
    }
}

/* SAM's QUAL is [!-~] (Phred + 33, values 0..93), or '*' (none: BAM's
 * first quality byte 0xff).  htslib 1.16 takes a FASTQ quality character
 * c as the value c - 33 without a look (a space or a control byte wraps
 * to 223..255, DEL and non-ASCII bytes give 94..222), and a BAM may hold
 * any byte: either way the SAM written would carry a QUAL that samtools
 * rejects.  Returns the 0-based base of the first value outside, or -1. */
static int32_t bad_quality(const bam1_t *b, int fastq)
{
    const uint8_t *q = bam_get_qual(b);
    const int32_t n = b->core.l_qseq;
    /* A FASTQ record always has qualities: a first byte 0xff is a space. */
    if (n == 0 || (q[0] == 0xff && !fastq)) {
        /* none given (FASTA, SAM '*'): all 0xff, as htslib writes it */
        for (int32_t i = 1; i < n; i++)
            if (q[i] != 0xff) return i;
        return -1;
    }
    for (int32_t i = 0; i < n; i++)
        if (q[i] > 93) return i;
    return -1;
}

/* The chunked reader met an error below the records (fastx_chunks.h):
 * every whole record before it has been read.  The words are today's, as
 * htslib's own reader gives them: a regular file is read again
 * (diagnose.h: the compressed layer checked with zlib, the records
 * counted by htslib alone, -@ 1's count), stdin is told from the error
 * code, as a BGZF handle would carry it.  -1 with err. */
static int fastx_error(const source_t *s, char *err, size_t errlen)
{
    const unsigned ec = gpuasm_fastx_errcode(s->fx);
    if (ec & GPUASM_FASTX_ERR_NOMEM) {
        snprintf(err, errlen, "%s: out of memory", s->path);
        return -1;
    }
    if (ec & GPUASM_FASTX_ERR_SPLIT) {
        snprintf(err, errlen, "%s: record %llu: the records found in a chunk of the file are not "
                 "those htslib reads from it (a bug in gpuasm's chunked reader; "
                 "GPUASM_READ_SERIAL=1 reads without it)", s->path,
                 (unsigned long long)s->n_read + 1);
        return -1;
    }
    /* The live handle htslib's reader would have: BGZF's own (its error
     * code set by the reads through it), or one that carries ISA-L's or
     * hread's error code for a plain gzip or plain file. */
    BGZF carrier;
    const BGZF *live = bgzf_of(s->in);
    if (!live || !live->errcode) {
        memset(&carrier, 0, sizeof carrier);
        carrier.errcode = ec & 0xffff;
        carrier.is_compressed = s->compressed;
        carrier.is_gzip = 1;   /* not a BGZF block size to blame */
        live = s->compressed ? &carrier : NULL;
    }
    char what[512];
    gpuasm_diagnose_reads(s->path, s->seqfile, s->compressed, gpuasm_rereadable(s->path), live,
                          s->n_read + 1, 0, what, sizeof what);
    snprintf(err, errlen, "%s: %s", s->path, what);
    return -1;
}

/* Read the next primary record of one file into *dst (a reused bam1_t).
 * 1: got one; 0: end of input; -1: error (err filled). */
static int next_primary(gpuasm_reader *r, source_t *s, bam1_t *dst, uint64_t *rec_no,
                        const uint8_t **codes, char *err, size_t errlen)
{
    if (s->eof) return 0;
    /* The chunked reader counts records exactly, threads or not: no
     * recount when it names one (diagnose.h). */
    const int recount = s->fx ? 0 : s->pooled;
    for (;;) {
        errno = 0;
        unsigned mark = ~0u;   /* sam_read1's records: every check here */
        const uint8_t *cd = NULL;
        int ret = s->fx ? gpuasm_fastx_read1(s->fx, dst, &mark, &cd) : sam_read1(s->in, s->hdr, dst);
        if (ret == -1) {
            /* The end, as htslib says -- unless it is not (issue #12):
             * htslib's FASTQ/FASTA reader says "end" when bam_set1 refuses
             * a record (a name over 254 characters: errno EINVAL), and a
             * multi-threaded BGZF reader that met a bad block may have
             * given up and called that the end too (its error code stays). */
            const BGZF *bz = bgzf_of(s->in);
            int suspect = (s->seqfile && errno == EINVAL) || (bz && bz->errcode);
            char what[512];
            if (suspect && gpuasm_diagnose_reads(s->path, s->seqfile, s->compressed, recount, bz,
                                                 s->n_read + 1, !(bz && bz->errcode),
                                                 what, sizeof what)) {
                snprintf(err, errlen, "%s: %s", s->path, what);
                return -1;
            }
            s->eof = 1;
            end_of_source(r, s);
            return 0;
        }
        if (ret < -1 && s->fx && gpuasm_fastx_errcode(s->fx))
            return fastx_error(s, err, errlen);
        if (ret < -1) {
            char what[512];
            if (s->cram)
                /* htslib has said why (a missing reference, most often). */
                snprintf(what, sizeof what, "record %llu: cannot decode the CRAM record (htslib's "
                         "message above says why; a CRAM file needs its reference: -T FILE)",
                         (unsigned long long)s->n_read + 1);
            else
                gpuasm_diagnose_reads(s->path, s->seqfile, s->compressed, recount,
                                      bgzf_of(s->in), s->n_read + 1, 0, what, sizeof what);
            snprintf(err, errlen, "%s: %s", s->path, what);
            return -1;
        }
        s->n_read++;
        if (s->seqfile) {
            /* htslib's flags from a "/1" "/2" name suffix (reads.h): a
             * single file is single-end, paired files set their own.  The
             * suffix itself is kept in id for the reads written back out
             * under their names as read (reads.h, issue #29). */
            dst->id = dst->core.flag & (BAM_FREAD1 | BAM_FREAD2);
            dst->core.flag = BAM_FUNMAP;
        } else {
            dst->id = 0;
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
        const int32_t bq = mark & MARK_QUAL ? bad_quality(dst, s->fastq) : -1;
        if (bq >= 0) {
            char nm[GPUASM_PRINTABLE_BUF];
            const unsigned v = bam_get_qual(dst)[bq];
            if (s->seqfile)
                snprintf(err, errlen, "%s: record %llu (%s): quality byte 0x%02x at base %d is "
                         "outside '!'..'~' (Phred+33, the range SAM holds): fix the file's "
                         "qualities", s->path, (unsigned long long)s->n_read,
                         gpuasm_printable(bam_get_qname(dst), nm, sizeof nm), (v + 33) & 0xff, bq + 1);
            else
                snprintf(err, errlen, "%s: record %llu (%s): quality value %u at base %d is outside "
                         "0..93, which SAM's QUAL cannot hold (fix the file's qualities)", s->path,
                         (unsigned long long)s->n_read,
                         gpuasm_printable(bam_get_qname(dst), nm, sizeof nm), v, bq + 1);
            return -1;
        }
        if (dst->core.flag & BAM_FREVERSE) to_sequencing_orientation(dst);
        if (mark & MARK_NAME) check_name(r, s, dst);
        if (codes) *codes = cd;
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
    int ga = next_primary(r, a, dst, &na, NULL, err, errlen);
    if (ga < 0) return -1;
    int gb = next_primary(r, b, r->mate, &nb, NULL, err, errlen);
    if (gb < 0) return -1;
    if (!ga && !gb) return 0;
    uint64_t k = r->n_pairs + 1;
    char n1[GPUASM_PRINTABLE_BUF], n2[GPUASM_PRINTABLE_BUF];
    /* Issue #31: say plainly how many reads the shorter file has, and
     * what R1 and R2 must be ("ends after 0" read as nothing). */
    if (!gb || !ga) {
        const source_t *more = gb ? b : a, *less = gb ? a : b;
        char counted[64];
        if (r->n_pairs == 0) snprintf(counted, sizeof counted, "has no reads at all");
        else snprintf(counted, sizeof counted, "ends after %llu read%s",
                      (unsigned long long)r->n_pairs, r->n_pairs == 1 ? "" : "s");
        snprintf(err, errlen, "%s, %s: %s %s, %s has more (its read %llu, %s, has no mate): R1 "
                 "and R2 must hold the mates of the same pairs in the same order", a->path,
                 b->path, less->path, counted, more->path, (unsigned long long)k,
                 gpuasm_printable(bam_get_qname(gb ? r->mate : dst), gb ? n2 : n1, GPUASM_PRINTABLE_BUF));
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
    r->codes = NULL;
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
        got = next_primary(r, &r->src[0], dst, rec_no, &r->codes, err, errlen);
    }
    return got;
}

uint64_t gpuasm_reader_longest(const gpuasm_reader *r, const char **where)
{
    *where = r->longest_at;
    return r->longest;
}

int gpuasm_reader_next(gpuasm_reader *r, gpuasm_batch *b, uint64_t max_bases,
                       char *err, size_t errlen)
{
    uint64_t bases = 0;
    int coded = 1;   /* every read's codes came with it (fastx_chunks.h) */
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
        if (len > r->longest) {
            char nm[GPUASM_PRINTABLE_BUF];
            r->longest = len;
            snprintf(r->longest_at, sizeof r->longest_at, "%s: record %llu (%s)",
                     r->paired_files && (rec->core.flag & BAM_FREAD2) ? r->src[1].path : r->src[0].path,
                     (unsigned long long)rec_no, gpuasm_printable(bam_get_qname(rec), nm, sizeof nm));
        }
        /* The offsets here, and the codes only when the parse threads made
         * them (a copy; gpuasm_batch_encode then has nothing to do): else
         * gpuasm_batch_encode makes them on another thread, so that this
         * one (the one that cannot run in parallel) does little more than
         * htslib's parsing. */
        if (grow_pinned(b, (void **)&b->off, &b->m_off, b->n + 2, sizeof(*b->off)) < 0)
            goto oom;
        if (coded && r->codes) {
            if (grow_pinned(b, (void **)&b->code, &b->m_code, bases + len + 1, 1) < 0) goto oom;
            memcpy(b->code + bases, r->codes, len);
        } else {
            coded = 0;
        }
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
    if (coded && grow_pinned(b, (void **)&b->code, &b->m_code, bases + 1, 1) < 0) goto oom;
    b->encoded = coded;
    b->set.n = b->n;
    b->set.off = b->off;
    b->set.code = coded ? b->code : NULL;   /* else gpuasm_batch_encode */
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

/* One read's codes into c[l_qseq]: two bases per packed byte (SEQ's high
 * nibble first).  Any thread (the parse threads' hook, the prep thread). */
static void encode_read(const bam1_t *rec, int wildcards, uint8_t *c)
{
    pthread_once(&pair_once, pair_init);
    const uint16_t *pair = pair_code[wildcards ? 1 : 0];
    const uint8_t *s = bam_get_seq(rec);
    const uint32_t len = (uint32_t)rec->core.l_qseq;
    for (uint32_t i = 0; i + 1 < len; i += 2) memcpy(c + i, &pair[s[i >> 1]], 2);
    if (len & 1) c[len - 1] = gpuasm_read_code((uint8_t)(s[len >> 1] >> 4), wildcards);
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
    for (uint32_t k = 0; k < b->n; k++) encode_read(b->rec[k], b->wildcards, b->code + b->off[k]);
    b->set.code = b->code;
    b->encoded = 1;
    return 0;
}
