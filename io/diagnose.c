/* diagnose.c -- name a bad FASTQ/FASTA record (see diagnose.h). */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include <htslib/kseq.h>

#include "diagnose.h"

KSEQ_INIT(gzFile, gzread)

/* Did zlib stop on an error (truncated or corrupt compressed data)? */
static int gz_failed(gzFile fp)
{
    int errnum = Z_OK;
    gzerror(fp, &errnum);
    return errnum != Z_OK && errnum != Z_STREAM_END;
}

void gpuasm_diagnose_record(const char *path, int can_reread, uint64_t rec_no,
                            char *out, size_t outlen)
{
    snprintf(out, outlen, "record %llu: truncated file or malformed record",
             (unsigned long long)rec_no);
    if (!can_reread || !strcmp(path, "-")) return;
    gzFile fp = gzopen(path, "r");
    if (!fp) return;
    kseq_t *ks = kseq_init(fp);
    if (!ks) {
        gzclose(fp);
        return;
    }
    int r = 0;
    uint64_t i;
    for (i = 1; i <= rec_no; i++)
        if ((r = kseq_read(ks)) < 0) break;
    if (gz_failed(fp)) {
        snprintf(out, outlen, "record %llu: truncated or corrupt compressed data",
                 (unsigned long long)rec_no);
    } else if (i == rec_no && r == -2) {
        if (ks->qual.l == 0)
            snprintf(out, outlen, "record %llu (%s): no quality string",
                     (unsigned long long)rec_no, ks->name.s);
        else
            snprintf(out, outlen, "record %llu (%s): quality length %zu != sequence length %zu",
                     (unsigned long long)rec_no, ks->name.s, ks->qual.l, ks->seq.l);
    } else if (i > rec_no) {
        /* kseq accepts what htslib refused: at least name the record. */
        snprintf(out, outlen, "record %llu (%s): malformed record",
                 (unsigned long long)rec_no, ks->name.s);
    } else if (i == rec_no && r == -1) {
        snprintf(out, outlen, "record %llu: malformed record (no FASTQ/FASTA header line)",
                 (unsigned long long)rec_no);
    }
    kseq_destroy(ks);
    gzclose(fp);
}

int gpuasm_gzip_complete(const char *path)
{
    if (!strcmp(path, "-")) return 1;
    gzFile fp = gzopen(path, "r");
    if (!fp) return 1;
    char buf[4096];
    while (gzread(fp, buf, sizeof buf) > 0) {}
    int ok = !gz_failed(fp);
    gzclose(fp);
    return ok;
}
