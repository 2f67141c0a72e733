/* SPDX-License-Identifier: MIT */
/* reads_source.c -- one input file of the reader opened and closed (see
 * reads_int.h): sam_open() in steps, every way it can fail said in
 * words, and then its records handed to the chunked FASTQ/FASTA reader
 * (io/fastx_chunks.h) or htslib's decoding threads attached. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <htslib/bgzf.h>
#include <htslib/hfile.h>
#include <htslib/hts.h>
#include <htslib/hts_log.h>
#include <htslib/sam.h>
#include <htslib/thread_pool.h>
#include <zlib.h>

#include "io/diagnose.h"
#include "io/fastx_chunks.h"
#include "io/reads_int.h"
#include "util/thread_error.h"

/* Consume the empty gzip members at the start of h: 0, or -1 on a read
 * error.  htslib 1.16 decides a file's format from the start of its first
 * gzip member alone (hts_detect_format2 peeks at what that member
 * inflates to): an empty first member -- what `cat empty.fq.gz
 * reads.fq.gz` makes, or a BGZF end-of-file block at the start of a BAM
 * or bgzip file -- inflates to nothing, which htslib takes for an empty
 * file: 0 reads and exit 0 where zcat reads them all.  Later members,
 * empty or not, bgzf reads whole.  So a member here is skipped only when
 * it is whole and empty: a valid header, a deflate stream that ends
 * without a byte of output, and its trailer (CRC 0, length 0); anything
 * else (data, a member cut short, damage) is left to htslib, which reads
 * or reports it as before. */
static int skip_empty_members(hFILE *h)
{
    unsigned char buf[4096];
    for (;;) {
        const ssize_t got = hpeek(h, buf, sizeof buf);
        if (got < 0) return -1;
        const size_t n = (size_t)got;
        if (n < 18 || buf[0] != 0x1f || buf[1] != 0x8b || buf[2] != 8 || (buf[3] & 0xe0)) return 0;
        size_t at = 10;
        if (buf[3] & 4) {                       /* FEXTRA */
            at += 2 + (size_t)(buf[10] | buf[11] << 8);
        }
        for (int flag = 8; flag <= 16; flag <<= 1) {   /* FNAME, FCOMMENT: NUL-terminated */
            if (!(buf[3] & flag)) continue;
            const unsigned char *z = at < n ? memchr(buf + at, 0, n - at) : NULL;
            if (!z) return 0;
            at = (size_t)(z - buf) + 1;
        }
        if (buf[3] & 2) at += 2;                /* FHCRC */
        if (at >= n) return 0;
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        if (inflateInit2(&zs, -15) != Z_OK) return 0;
        unsigned char out[1];
        zs.next_in = buf + at;
        zs.avail_in = (uInt)(n - at);
        zs.next_out = out;
        zs.avail_out = sizeof out;
        const int zr = inflate(&zs, Z_FINISH);
        const size_t used = (size_t)(zs.next_in - buf), produced = sizeof out - zs.avail_out;
        inflateEnd(&zs);
        if (zr != Z_STREAM_END || produced || used + 8 > n) return 0;
        static const unsigned char zeros[8];
        if (memcmp(buf + used, zeros, 8)) return 0;   /* CRC32 and ISIZE of nothing */
        if (hread(h, buf, used + 8) != (ssize_t)(used + 8)) return -1;
    }
}

/* The chunked FASTQ/FASTA reader's knobs, from the environment (tests
 * and benchmarks, not options): GPUASM_READ_CHUNK, text bytes per chunk
 * (the output must not depend on it); GPUASM_READ_SERIAL=1, htslib's
 * reader alone, record after record (the reader before issue #30). */
static size_t chunk_bytes(void)
{
    const char *v = getenv("GPUASM_READ_CHUNK");
    char *end;
    const unsigned long long n = v && *v ? strtoull(v, &end, 10) : 0;
    return v && *v && !*end && n > 0 && n <= (1ull << 30) ? (size_t)n : 0;
}

static int chunks_off(void)
{
    const char *v = getenv("GPUASM_READ_SERIAL");
    return v && !strcmp(v, "1");
}

/* Is the input a stream (a pipe, a FIFO, a terminal: not a regular
 * file)?  Those are read record by record, as htslib reads them: the
 * chunked reader gathers a megabyte before it parses, so a slow
 * producer's records would reach the batches (and --progress) only in
 * megabytes, where they are wanted as they come. */
static int streaming(const char *path)
{
    struct stat st;
    const int r = strcmp(path, "-") ? stat(path, &st) : fstat(STDIN_FILENO, &st);
    return r == 0 && !S_ISREG(st.st_mode);
}

/* -T's reference for a CRAM input (hts_set_fai_filename).  Issue #31:
 * say why it fails (htslib's [E::] line names only the file); one that
 * cannot be opened is told before htslib tries, as its failed load of a
 * CRAM reference leaks (htslib 1.16, LeakSanitizer).  0, or -1 with err. */
static int use_reference(htsFile *in, const char *path, const char *reference, char *err, size_t errlen)
{
    FILE *rf = fopen(reference, "r");
    const int e = rf ? 0 : errno;
    if (rf) fclose(rf);
    if (!e && hts_set_fai_filename(in, reference) == 0) return 0;
    snprintf(err, errlen, "%s: the reference %s (-T) %s%s%s (give the FASTA the CRAM file was "
             "written against)", path, reference, e ? "cannot be read: " : "cannot be used: ",
             e ? strerror(e) : "htslib cannot index it", e ? "" : " (a FASTA? plain or bgzip?)");
    return -1;
}

/* hts_hopen() gave no file (h: the bytes it was given, or NULL; e: its
 * errno): why, in words.  -1 with err. */
static int open_failed(hFILE *h, int e, const char *path, char *err, size_t errlen)
{
    /* Compressions htslib 1.16 does not read, told by their magic. */
    unsigned char m[6] = { 0 };
    const char *packed = NULL;
    if (h && hpeek(h, m, sizeof m) >= 4)
        packed = !memcmp(m, "BZh", 3) ? "bzip2" : !memcmp(m, "\x28\xb5\x2f\xfd", 4) ? "zstd"
               : !memcmp(m, "PK\3\4", 4) ? "zip" : !memcmp(m, "\xfd" "7zXZ", 5) ? "xz" : NULL;
    if (h) hclose_abruptly(h);
    if (packed) {
        snprintf(err, errlen, "%s: %s-compressed data: htslib reads plain, gzip and BGZF files "
                 "only; decompress it first (e.g. %s FILE | gpuasm-scan - TARGETS)", path, packed,
                 !strcmp(packed, "zip") ? "unzip -p" : !strcmp(packed, "bzip2") ? "bzip2 -dc"
                 : !strcmp(packed, "zstd") ? "zstd -dc" : "xz -dc");
        return -1;
    }
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

/* sam_hdr_read() gave no header (f: the format htslib detected): an
 * empty file is an empty read set (0), anything else is told (-1 with
 * err). */
static int no_header(source_t *s, enum htsExactFormat f, const char *path, char *err, size_t errlen)
{
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
    return 0;
}

/* The records' way in, once the header is read: the chunked reader for
 * FASTQ/FASTA, else htslib's decoding threads on the file.  0, or -1
 * with err. */
static int start_reading(source_t *s, const char *path, htsThreadPool *tp,
                         const gpuasm_fastx_hooks *hooks, char *err, size_t errlen)
{
    /* The decoding threads join only now, after the header (issue #12):
     * htslib 1.16's bgzf_check_EOF(), which bam_hdr_read() calls, waits
     * forever for a multi-threaded reader that already stopped on a
     * truncated or corrupt block (samtools view -@ hangs the same way).
     * Attached after the header, the pool starts at the first record. */
    if (s->seqfile && !s->eof && !chunks_off() && !streaming(path)) {
        /* FASTQ/FASTA (issue #30): read in chunks, parsed by htslib on
         * the pool's threads (io/fastx_chunks.h); the pool also inflates
         * a BGZF file's blocks.  A plain gzip file is inflated by ISA-L
         * (io/inflate.h), not through htslib's BGZF handle: no pool there. */
        const BGZF *bz = bgzf_of(s->in);
        if (tp && bz && bz->is_compressed && !bz->is_gzip) {
            if (hts_set_thread_pool(s->in, tp) < 0) {
                snprintf(err, errlen, "%s: cannot start the decoding threads", path);
                return -1;
            }
            s->pooled = 1;
        }
        const int n_chunks = tp ? 2 * hts_tpool_size(tp->pool) + 2 : 3;
        errno = 0;
        if (gpuasm_fastx_open(s->in, s->fastq, tp ? tp->pool : NULL, chunk_bytes(), n_chunks,
                              hooks, &s->fx) < 0) {
            char why[600];
            snprintf(err, errlen, "%s: %s", path,
                     errno == ENOMEM ? "out of memory"
                     : gpuasm_thread_error("cannot start the reading thread", errno, why, sizeof why));
            return -1;
        }
        return 0;
    }
    if (tp && !s->eof) {
        if (hts_set_thread_pool(s->in, tp) < 0) {
            snprintf(err, errlen, "%s: cannot start the decoding threads", path);
            return -1;
        }
        s->pooled = 1;
    }
    return 0;
}

int gpuasm_source_open(source_t *s, const char *path, const char *reference, htsThreadPool *tp,
                       const gpuasm_fastx_hooks *hooks, char *err, size_t errlen)
{
    if (!(s->path = strdup(path))) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    errno = 0;
    /* sam_open(path, "r") in two steps, to skip the empty gzip members at
     * the start first (skip_empty_members). */
    hFILE *h = hopen(path, "r");
    if (!h) {
        /* htslib's own line, as sam_open() prints it (samtools shows it). */
        const int e = errno;
        hts_log(HTS_LOG_ERROR, "hts_open_format", "Failed to open file \"%s\"%s%s", path,
                e ? " : " : "", e ? strerror(e) : "");
        errno = e;
    }
    if (h && skip_empty_members(h) < 0) {
        const int e = errno ? errno : EIO;
        hclose_abruptly(h);
        h = NULL;
        errno = e;
    }
    s->in = h ? hts_hopen(h, path, "r") : NULL;
    if (!s->in) return open_failed(h, errno, path, err, errlen);
    if (reference && use_reference(s->in, path, reference, err, errlen) < 0) return -1;
    const htsFormat *fmt = hts_get_format(s->in);
    enum htsExactFormat f = fmt->format;
    if (fmt->compression == xz_compression || fmt->compression == bzip2_compression ||
        fmt->compression == zstd_compression || fmt->compression == razf_compression) {
        /* Issue #31: htslib 1.16 knows xz, bzip2 and zstd by their magic
         * but cannot read them; sam_read1() abort()ed on an xz file. */
        char *d = hts_format_description(fmt);
        snprintf(err, errlen, "%s: %s: htslib reads plain, gzip and BGZF files only; decompress "
                 "it first (e.g. xz -dc FILE | gpuasm-scan - TARGETS)", path, d ? d : "compressed data");
        free(d);
        return -1;
    }
    s->seqfile = f == fastq_format || f == fasta_format;
    s->fastq = f == fastq_format;
    s->cram = f == cram;
    s->compressed = fmt->compression != no_compression;
    s->hdr = sam_hdr_read(s->in);
    if (!s->hdr && no_header(s, f, path, err, errlen) < 0) return -1;
    return start_reading(s, path, tp, hooks, err, errlen);
}

void gpuasm_source_close(source_t *s)
{
    gpuasm_fastx_close(s->fx);   /* its feeder reads s->in: first */
    if (s->hdr) sam_hdr_destroy(s->hdr);
    if (s->in) sam_close(s->in);
    free(s->path);
}
