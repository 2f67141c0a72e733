/* SPDX-License-Identifier: MIT */
/* reference_out.c -- --write-reference (see reference_out.h). */
#define _XOPEN_SOURCE 700   /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <htslib/faidx.h>
#include <htslib/hts.h>
#include <htslib/kstring.h>

#include "util/output_file.h"
#include "io/reference_out.h"

#define LINE 60   /* bases per FASTA line, as samtools faidx writes them */

char *gpuasm_reference_fai_name(const char *path)
{
    const size_t n = strlen(path) + 5;
    char *f = malloc(n);
    if (f) snprintf(f, n, "%s.fai", path);
    return f;
}

char *gpuasm_reference_dict_name(const char *path)
{
    static const char *const ext[] = { ".fa", ".fasta", ".fna" };
    const size_t n = strlen(path);
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        const size_t e = strlen(ext[i]);
        if (n > e && !strcasecmp(path + n - e, ext[i])) {
            char *d = malloc(n - e + 6);
            if (d) snprintf(d, n - e + 6, "%.*s.dict", (int)(n - e), path);
            return d;
        }
    }
    char *d = malloc(n + 6);
    if (d) snprintf(d, n + 6, "%s.dict", path);
    return d;
}

/* One target's bases as letters, into ks. */
static int letters(const gpuasm_targets *t, uint32_t i, kstring_t *ks)
{
    const uint64_t len = gpuasm_target_len(t, i);
    ks->l = 0;
    if (ks_resize(ks, len + 1) < 0) return -1;
    const uint8_t *c = t->code + t->off[i];
    for (uint64_t k = 0; k < len; k++) ks->s[k] = seq_nt16_str[c[k] & 15];
    ks->s[len] = 0;
    ks->l = len;
    return 0;
}

static int write_fasta(const gpuasm_targets *t, FILE *fp, kstring_t *ks)
{
    for (uint32_t i = 0; i < t->n; i++) {
        if (letters(t, i, ks) < 0) return -1;
        if (fprintf(fp, ">%s\n", t->name[i]) < 0) return -1;
        for (size_t k = 0; k < ks->l; k += LINE) {
            const size_t m = ks->l - k < LINE ? ks->l - k : LINE;
            if (fwrite(ks->s + k, 1, m, fp) != m || fputc('\n', fp) == EOF) return -1;
        }
    }
    return 0;
}

static int write_dict(const gpuasm_targets *t, FILE *fp, const char *fasta_abs, kstring_t *ks)
{
    hts_md5_context *md5 = hts_md5_init();
    if (!md5) return -1;
    int bad = fputs("@HD\tVN:1.6\tSO:unsorted\n", fp) == EOF;
    for (uint32_t i = 0; !bad && i < t->n; i++) {
        unsigned char digest[16];
        char hex[33];
        bad = letters(t, i, ks) < 0;
        if (bad) break;
        hts_md5_reset(md5);
        hts_md5_update(md5, ks->s, (unsigned long)ks->l);
        hts_md5_final(digest, md5);
        hts_md5_hex(hex, digest);
        bad = fprintf(fp, "@SQ\tSN:%s\tLN:%llu\tM5:%s\tUR:file:%s\n", t->name[i],
                      (unsigned long long)ks->l, hex, fasta_abs) < 0;
    }
    hts_md5_destroy(md5);
    return bad ? -1 : 0;
}

/* Write one file through a temporary file: fn(t, fp, arg, ks).  0 or -1. */
static int write_one(const char *path, const gpuasm_targets *t, const char *arg, kstring_t *ks,
                     int (*fasta)(const gpuasm_targets *, FILE *, kstring_t *),
                     int (*dict)(const gpuasm_targets *, FILE *, const char *, kstring_t *),
                     char *err, size_t errlen)
{
    gpuasm_outfile of;
    memset(&of, 0, sizeof of);
    char why[1024];
    if (gpuasm_outfile_begin(&of, path, why, sizeof why) < 0) {
        snprintf(err, errlen, "--write-reference %s", why);
        return -1;
    }
    errno = 0;
    FILE *fp = fopen(gpuasm_outfile_name(&of), "w");
    int bad = !fp;
    if (!bad) bad = fasta ? fasta(t, fp, ks) < 0 : dict(t, fp, arg, ks) < 0;
    if (fp && fclose(fp) != 0) bad = 1;
    if (bad) {
        snprintf(err, errlen, "--write-reference %s: write failed: %s", path,
                 strerror(errno ? errno : EIO));
        gpuasm_outfile_abort(&of);
        gpuasm_outfile_free(&of);
        return -1;
    }
    if (gpuasm_outfile_commit(&of, why, sizeof why) < 0) {
        snprintf(err, errlen, "--write-reference %s", why);
        gpuasm_outfile_free(&of);
        return -1;
    }
    gpuasm_outfile_free(&of);
    return 0;
}

int gpuasm_reference_write(const gpuasm_targets *t, const char *path,
                           const char *const *inputs, size_t n_inputs, char *err, size_t errlen)
{
    const size_t n = strlen(path);
    if (!strcmp(path, "-") || (n > 3 && !strcasecmp(path + n - 3, ".gz"))) {
        snprintf(err, errlen, "--write-reference %s: give a plain FASTA file name (FILE.fa): its "
                 ".fai and .dict are written beside it", path);
        return -1;
    }
    char *dict = gpuasm_reference_dict_name(path), *fai = gpuasm_reference_fai_name(path);
    kstring_t ks = KS_INITIALIZE;
    int ret = -1;
    if (!dict || !fai) {
        snprintf(err, errlen, "--write-reference %s: out of memory", path);
        goto out;
    }
    const char *outs[] = { path, fai, dict };
    for (size_t k = 0; k < 3; k++) {
        int i = gpuasm_output_is_input(outs[k], inputs, n_inputs);
        if (i >= 0) {
            snprintf(err, errlen, "--write-reference %s: %s is the input %s (the same file): "
                     "refusing to overwrite an input", path, outs[k], inputs[i]);
            goto out;
        }
    }
    if (write_one(path, t, NULL, &ks, write_fasta, NULL, err, errlen) < 0) goto out;
    /* The index of the file just written (htslib's own, as samtools faidx). */
    if (fai_build(path) < 0) {
        snprintf(err, errlen, "--write-reference %s: cannot write its index %s", path, fai);
        goto out;
    }
    char abs[PATH_MAX];
    if (!realpath(path, abs)) snprintf(abs, sizeof abs, "%s", path);
    if (write_one(dict, t, abs, &ks, NULL, write_dict, err, errlen) < 0) goto out;
    ret = 0;
out:
    free(dict);
    free(fai);
    ks_free(&ks);
    return ret;
}
