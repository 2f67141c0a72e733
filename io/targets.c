/* targets.c -- load the target set through htslib (see targets.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/sam.h>
#include <htslib/khash.h>

#include "diagnose.h"
#include "grow.h"
#include "targets.h"

KHASH_MAP_INIT_STR(name2idx, uint32_t)

/* Grow *p (element size sz) to hold at least want elements. */
int gpuasm_targets_load(const char *path, gpuasm_targets *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof(*t));
    int ret = -1;
    samFile *in = NULL;
    sam_hdr_t *hdr = NULL;
    bam1_t *b = bam_init1();
    khash_t(name2idx) *seen = kh_init(name2idx);
    size_t m_name = 0, m_off = 0, m_code = 0;
    uint64_t n_rec = 0;

    if (!b || !seen) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto out;
    }
    in = sam_open(path, "r");
    if (!in) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno ? errno : ENOENT));
        goto out;
    }
    hdr = sam_hdr_read(in);
    if (!hdr) {
        if (hts_get_format(in)->format == empty_format)
            snprintf(err, errlen, "%s: empty target file", path);
        else
            snprintf(err, errlen, "%s: not a FASTA/FASTQ/SAM/BAM/CRAM file", path);
        goto out;
    }
    if (gpuasm_grow((void **)&t->off, &m_off, 1, sizeof(*t->off)) < 0) goto oom;
    t->off[0] = 0;

    int r;
    while ((r = sam_read1(in, hdr, b)) >= 0) {
        n_rec++;
        const char *name = bam_get_qname(b);
        uint32_t len = (uint32_t)b->core.l_qseq;
        if (len == 0) {
            snprintf(err, errlen, "%s: record %llu (%s): target has no bases",
                     path, (unsigned long long)n_rec, name);
            goto out;
        }
        int absent;
        khint_t k = kh_put(name2idx, seen, name, &absent);
        if (absent < 0) goto oom;
        if (!absent) {
            snprintf(err, errlen, "%s: record %llu (%s): duplicate target name (first seen as record %u)",
                     path, (unsigned long long)n_rec, name, kh_val(seen, k) + 1);
            goto out;
        }
        if (gpuasm_grow((void **)&t->name, &m_name, t->n + 1, sizeof(*t->name)) < 0) goto oom;
        if (!(t->name[t->n] = strdup(name))) goto oom;
        kh_key(seen, k) = t->name[t->n];   /* the hash must not keep b's buffer */
        kh_val(seen, k) = t->n;
        if (gpuasm_grow((void **)&t->off, &m_off, t->n + 2, sizeof(*t->off)) < 0) goto oom;
        uint64_t o = t->off[t->n];
        if (gpuasm_grow((void **)&t->code, &m_code, o + len, 1) < 0) goto oom;
        const uint8_t *s = bam_get_seq(b);
        for (uint32_t i = 0; i < len; i++) t->code[o + i] = (uint8_t)bam_seqi(s, i);
        t->off[t->n + 1] = o + len;
        if (t->n == 0 || len > t->max_len) t->max_len = len;
        if (t->n == 0 || len < t->min_len) t->min_len = len;
        t->n++;
    }
    if (r < -1) {
        char what[512];
        enum htsExactFormat f = hts_get_format(in)->format;
        gpuasm_diagnose_record(path, f == fastq_format || f == fasta_format, n_rec + 1,
                               what, sizeof what);
        snprintf(err, errlen, "%s: %s", path, what);
        goto out;
    }
    if (t->n == 0) {
        snprintf(err, errlen, "%s: empty target file", path);
        goto out;
    }
    t->set.n = t->n;
    t->set.off = t->off;
    t->set.code = t->code;
    ret = 0;
    goto out;
oom:
    snprintf(err, errlen, "%s: out of memory", path);
out:
    if (seen) kh_destroy(name2idx, seen);
    if (b) bam_destroy1(b);
    if (hdr) sam_hdr_destroy(hdr);
    if (in) sam_close(in);
    if (ret < 0) gpuasm_targets_free(t);
    return ret;
}

void gpuasm_targets_free(gpuasm_targets *t)
{
    for (uint32_t i = 0; i < t->n; i++) free(t->name[i]);
    free(t->name);
    free(t->off);
    free(t->code);
    memset(t, 0, sizeof(*t));
}
