/* SPDX-License-Identifier: MIT */
/* diagnose.c -- say what is wrong with an input htslib refused (see
 * diagnose.h).  Everything here runs only after a read failed. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include <htslib/hts.h>
#include <htslib/kseq.h>
#include <htslib/sam.h>

#include "io/diagnose.h"
#include "util/printable.h"

KSEQ_INIT(gzFile, gzread)

/* SAM's QNAME is at most 254 characters (bam_set1 refuses longer ones). */
#define QNAME_MAX 254

int gpuasm_rereadable(const char *path)
{
    struct stat st;
    return path && strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- the compressed layer ------------------------------------------------------ */

int gpuasm_gz_check(const char *path, gpuasm_gz_report *r)
{
    memset(r, 0, sizeof(*r));
    r->kind = GPUASM_GZ_UNKNOWN;
    if (!gpuasm_rereadable(path)) return r->kind;
    FILE *fp = fopen(path, "rb");
    if (!fp) return r->kind;
    struct stat st;
    if (fstat(fileno(fp), &st) == 0) r->size = (long long)st.st_size;
    enum { BUF = 1 << 16 };
    unsigned char *in = malloc(BUF), *out = malloc(BUF);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    /* 16 + 15: gzip members only, with their CRC32 and length checked. */
    if (!in || !out || inflateInit2(&zs, 16 + 15) != Z_OK) {
        free(in);
        free(out);
        fclose(fp);
        return r->kind;
    }
    long long pos = 0;          /* bytes of the file consumed by zlib */
    long long member = 0;       /* where the current member starts */
    int in_member = 0, kind = GPUASM_GZ_OK;
    for (;;) {
        /* Keep at least two bytes in view (a member's magic number). */
        if (zs.avail_in < 2 && !feof(fp)) {
            if (zs.avail_in) memmove(in, zs.next_in, zs.avail_in);
            size_t got = fread(in + zs.avail_in, 1, BUF - zs.avail_in, fp);
            zs.next_in = in;
            zs.avail_in += (uInt)got;
            if (ferror(fp)) { kind = GPUASM_GZ_UNKNOWN; break; }
        }
        if (!in_member) {
            if (zs.avail_in == 0) break;   /* the end, after a whole member */
            if (zs.avail_in < 2 || zs.next_in[0] != 0x1f || zs.next_in[1] != 0x8b) {
                kind = GPUASM_GZ_TRAILING;
                r->offset = pos;
                break;
            }
            in_member = 1;
            member = pos;
            inflateReset(&zs);
        }
        if (zs.avail_in == 0) {   /* inside a member, and the file has ended */
            kind = GPUASM_GZ_TRUNCATED;
            r->offset = pos;
            break;
        }
        zs.next_out = out;
        zs.avail_out = BUF;
        uInt before = zs.avail_in;
        int ret = inflate(&zs, Z_NO_FLUSH);
        pos += before - zs.avail_in;
        if (ret == Z_STREAM_END) {
            in_member = 0;
        } else if (ret == Z_DATA_ERROR || ret == Z_NEED_DICT) {
            kind = GPUASM_GZ_CORRUPT;
            r->offset = member;
            snprintf(r->zmsg, sizeof r->zmsg, "%s", zs.msg ? zs.msg : "invalid compressed data");
            break;
        } else if (ret == Z_MEM_ERROR || ret == Z_STREAM_ERROR) {
            kind = GPUASM_GZ_UNKNOWN;
            break;
        } else if (ret == Z_BUF_ERROR && feof(fp)) {
            /* No progress and nothing more to read: the member is cut. */
            kind = GPUASM_GZ_TRUNCATED;
            r->offset = pos;
            break;
        }
    }
    inflateEnd(&zs);
    free(in);
    free(out);
    fclose(fp);
    r->kind = kind;
    return kind;
}

void gpuasm_gz_describe(const gpuasm_gz_report *r, char *out, size_t outlen)
{
    switch (r->kind) {
    case GPUASM_GZ_TRUNCATED:
        snprintf(out, outlen, "truncated file: the compressed data stops mid-stream at byte %lld "
                 "(the end of the file)", r->size);
        break;
    case GPUASM_GZ_CORRUPT:
        snprintf(out, outlen, "corrupt compressed data (zlib: %s, in the gzip member that starts "
                 "at byte %lld)", r->zmsg, r->offset);
        break;
    case GPUASM_GZ_TRAILING:
        snprintf(out, outlen, "the %lld bytes from byte %lld on are not gzip data (trailing "
                 "garbage after the end of the compressed data)", r->size - r->offset, r->offset);
        break;
    default:
        snprintf(out, outlen, "truncated or corrupt compressed data");
        break;
    }
}

const char *gpuasm_bgzf_error_words(const BGZF *bz)
{
    if (!bz || !bz->errcode) return NULL;
    unsigned e = bz->errcode;
    if (e & BGZF_ERR_CRC) return "corrupt compressed data (a block's CRC32 does not match)";
    if (e & BGZF_ERR_ZLIB) return "truncated or corrupt compressed data (a block does not inflate)";
    if (e & BGZF_ERR_IO) return "truncated file: a compressed block is cut short";
    if ((e & BGZF_ERR_HEADER) && bz->last_block_eof)
        return "data after the BGZF end-of-file block is not BGZF (trailing garbage)";
    if (e & BGZF_ERR_HEADER) return "truncated or corrupt compressed data (not a BGZF/gzip block header)";
    return "truncated or corrupt compressed data";
}

/* ---- records --------------------------------------------------------------------- */

/* Records htslib reads from `path` on its own, without threads, before it
 * stops (at the end or on an error): what a run with -@ 1 would count. */
static uint64_t count_records(const char *path)
{
    uint64_t n = 0;
    int level = hts_get_log_level();
    hts_set_log_level(HTS_LOG_OFF);   /* htslib has spoken once already */
    samFile *in = sam_open(path, "r");
    sam_hdr_t *h = in ? sam_hdr_read(in) : NULL;
    bam1_t *b = bam_init1();
    if (in && h && b)
        while (sam_read1(in, h, b) >= 0) n++;
    bam_destroy1(b);
    if (h) sam_hdr_destroy(h);
    if (in) sam_close(in);
    hts_set_log_level(level);
    return n;
}

/* FASTQ/FASTA record rec_no read again with htslib's kseq.h parser (which
 * takes more than htslib's reader does), to name it and the fault.  Fills
 * out and returns 1; 0 when the file ends before record rec_no. */
static int describe_seq_record(const char *path, uint64_t rec_no, int at_end, char *out,
                               size_t outlen)
{
    char nm[GPUASM_PRINTABLE_BUF];
    snprintf(out, outlen, "record %llu: truncated file or malformed record",
             (unsigned long long)rec_no);
    gzFile fp = gzopen(path, "r");
    if (!fp) return 1;
    kseq_t *ks = kseq_init(fp);
    if (!ks) {
        gzclose(fp);
        return 1;
    }
    /* Is the file FASTQ? htslib reads one kind per file, kseq both.  hdr:
     * the header character of the record read last ('>' or '@'). */
    int fastq = -1, r = 0, ret = 1, hdr = 0;
    uint64_t i;
    for (i = 1; i <= rec_no; i++) {
        if (ks->last_char == 0) {
            /* kseq would look for the next header line itself (after a
             * FASTQ record it keeps none): look here, to see its kind. */
            int c;
            while ((c = ks_getc(ks->f)) != -1 && c != '>' && c != '@') {}
            if (c == -1) {
                r = -1;
                break;
            }
            ks->last_char = c;
        }
        hdr = ks->last_char;
        if ((r = kseq_read(ks)) < 0) break;
        if (fastq < 0) fastq = ks->qual.l > 0 || ks->seq.l == 0 ? 1 : 0;
    }
    const char *name = gpuasm_printable(ks->name.s, nm, sizeof nm);
    if (i == rec_no && r == -2) {
        if (ks->qual.l == 0)
            snprintf(out, outlen, "record %llu (%s): no quality string", (unsigned long long)rec_no, name);
        else
            snprintf(out, outlen, "record %llu (%s): quality length %zu != sequence length %zu",
                     (unsigned long long)rec_no, name, ks->qual.l, ks->seq.l);
    } else if (i > rec_no && ks->name.l > QNAME_MAX) {
        snprintf(out, outlen, "record %llu (%s): read name of %zu characters, longer than SAM "
                 "allows (%d)", (unsigned long long)rec_no, name, ks->name.l, QNAME_MAX);
    } else if (i > rec_no && fastq == 1 && rec_no > 1 && ks->qual.l == 0 && hdr == '>') {
        snprintf(out, outlen, "record %llu (%s): a FASTA record ('>') in a FASTQ file",
                 (unsigned long long)rec_no, name);
    } else if (i > rec_no && fastq == 1 && ks->qual.l == 0 && ks->seq.l > 0) {
        snprintf(out, outlen, "record %llu (%s): no '+' line before the qualities",
                 (unsigned long long)rec_no, name);
    } else if (i > rec_no) {
        /* kseq accepts what htslib refused: at least name the record. */
        snprintf(out, outlen, "record %llu (%s): malformed record", (unsigned long long)rec_no, name);
    } else if (i == rec_no && r == -1) {
        if (at_end) ret = 0;   /* the file ends here: htslib's -1 was the end */
        else
            snprintf(out, outlen, "record %llu: malformed record (no FASTQ/FASTA header line)",
                     (unsigned long long)rec_no);
    }
    kseq_destroy(ks);
    gzclose(fp);
    return ret;
}

/* Does the file (inflated) have CRs and no LF in its first 64 KiB? */
static int cr_only(const char *path)
{
    gzFile fp = gzopen(path, "r");
    if (!fp) return 0;
    static char buf[65536];
    const int n = gzread(fp, buf, sizeof buf);
    gzclose(fp);
    return n > 0 && memchr(buf, '\r', (size_t)n) && !memchr(buf, '\n', (size_t)n);
}

int gpuasm_diagnose_reads(const char *path, int seqfile, int compressed, int recount,
                          const BGZF *live, uint64_t rec_no, int at_end,
                          char *out, size_t outlen)
{
    if (!gpuasm_rereadable(path)) {
        const char *w = gpuasm_bgzf_error_words(live);
        snprintf(out, outlen, "record %llu: %s%s", (unsigned long long)rec_no,
                 w ? w : seqfile ? "truncated file or malformed record"
                             : "truncated file or malformed record (htslib's message above says why)",
                 recount ? " (the record number is approximate: input read with threads)" : "");
        return 1;
    }
    if (recount) rec_no = count_records(path) + 1;
    if (compressed) {
        gpuasm_gz_report gz;
        if (gpuasm_gz_check(path, &gz) != GPUASM_GZ_OK && gz.kind != GPUASM_GZ_UNKNOWN) {
            char what[256];
            gpuasm_gz_describe(&gz, what, sizeof what);
            snprintf(out, outlen, "record %llu: %s%s", (unsigned long long)rec_no,
                     gz.kind == GPUASM_GZ_TRAILING ? "htslib stops here: " : "", what);
            return 1;
        }
        /* Issue #31: the gzip data is whole (zcat reads it) and yet htslib's
         * BGZF reader failed: it reads a BGZF file block by block as each
         * block's BSIZE field says, and one says a wrong size. */
        if (live && live->errcode && live->is_compressed && !live->is_gzip) {
            snprintf(out, outlen, "record %llu: htslib stops at a BGZF block whose size field "
                     "(BSIZE) does not match its gzip member, though the compressed data is whole "
                     "(zcat reads it): a damaged or badly written BGZF file; recompress it "
                     "(zcat FILE | bgzip > NEW.gz)", (unsigned long long)rec_no);
            return 1;
        }
    }
    if (seqfile && cr_only(path)) {
        /* Issue #31: htslib reads such a file as one long line. */
        snprintf(out, outlen, "record %llu: the file's lines end in CR alone (old Mac line ends), "
                 "not LF or CR LF: htslib sees one long line; convert them (tr '\\r' '\\n')",
                 (unsigned long long)rec_no);
        return 1;
    }
    if (seqfile) return describe_seq_record(path, rec_no, at_end, out, outlen);
    snprintf(out, outlen, "record %llu: malformed %s record (htslib's message above says why)",
             (unsigned long long)rec_no, compressed ? "BAM or SAM" : "SAM");
    return 1;
}
