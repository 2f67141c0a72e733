/* SPDX-License-Identifier: MIT */
/* pore_model.c -- read a k-mer pore model TSV (see pore_model.h) with
 * htslib's BGZF and kstring. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/bgzf.h>
#include <htslib/kstring.h>

#include "io/pore_model.h"

enum { MAX_K = 12 };

static int base2(char c)
{
    switch (c) {
    case 'A': case 'a': return 0;
    case 'C': case 'c': return 1;
    case 'G': case 'g': return 2;
    case 'T': case 't': return 3;
    default: return -1;
    }
}

/* Field `i` of the tab-split line (fields[] points into it). */
static int split_tabs(char *s, char **fields, int max)
{
    int n = 0;
    for (char *p = s;; p++) {
        if (n < max) fields[n] = p;
        n++;
        p = strchr(p, '\t');
        if (!p) break;
        *p = 0;
    }
    return n;
}

/* The header line's fields f[0 .. nf): the columns kmer, level_mean_pA
 * and level_stdv_pA (-1: absent), each once (issue #31: with
 * level_mean_pA twice the last one was taken, whichever was meant).
 * 0, or -1 with err naming path and lineno. */
static int read_header(char **f, int nf, const char *path, uint64_t lineno, int *col_kmer,
                       int *col_mean, int *col_stdv, char *err, size_t errlen)
{
    int other_mean = -1;
    for (int i = 0; i < nf && i < 64; i++) {
        int *col = !strcmp(f[i], "kmer") ? col_kmer : !strcmp(f[i], "level_mean_pA") ? col_mean
                 : !strcmp(f[i], "level_stdv_pA") ? col_stdv : NULL;
        if (!strcmp(f[i], "level_mean") || !strcmp(f[i], "mean")) other_mean = i;
        if (!col) continue;
        if (*col >= 0) {
            snprintf(err, errlen, "%s: line %llu: the header has the column %s twice (columns "
                     "%d and %d): keep the one meant", path, (unsigned long long)lineno, f[i],
                     *col + 1, i + 1);
            return -1;
        }
        *col = i;
    }
    if (*col_kmer < 0 || *col_mean < 0) {
        snprintf(err, errlen, "%s: line %llu: the header needs the columns kmer and "
                 "level_mean_pA (tab-separated)%s", path, (unsigned long long)lineno,
                 *col_mean < 0 && other_mean >= 0 ? "; this one has a level mean column in "
                 "other units: give its levels in pA as level_mean_pA" : "");
        *col_kmer = -1;   /* not a header yet */
        return -1;
    }
    return 0;
}

int gpuasm_pore_model_load(const char *path, gpuasm_pore_model *pm, char *err, size_t errlen)
{
    memset(pm, 0, sizeof(*pm));
    errno = 0;
    BGZF *fp = bgzf_open(path, "r");
    if (!fp) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno ? errno : EIO));
        return -1;
    }
    kstring_t line = KS_INITIALIZE;
    uint64_t lineno = 0, rows = 0;
    int col_kmer = -1, col_mean = -1, col_stdv = -1, rc;
    size_t nk = 0;
    uint8_t *seen = NULL;
    char *f[64];
    while ((rc = bgzf_getline(fp, '\n', &line)) >= 0) {
        lineno++;
        if (line.l && line.s[line.l - 1] == '\r') line.s[--line.l] = 0;
        if (line.l == 0 || line.s[0] == '#') continue;
        const int nf = split_tabs(line.s, f, 64);
        if (col_kmer < 0) {   /* the header */
            if (read_header(f, nf, path, lineno, &col_kmer, &col_mean, &col_stdv, err, errlen) < 0)
                goto fail;
            continue;
        }
        if (nf <= col_kmer || nf <= col_mean || (col_stdv >= 0 && nf <= col_stdv)) {
            snprintf(err, errlen, "%s: line %llu: %d fields, fewer than the header's", path,
                     (unsigned long long)lineno, nf);
            goto fail;
        }
        const char *km = f[col_kmer];
        const size_t k = strlen(km);
        if (pm->k == 0) {
            if (k < 1 || k > MAX_K) {
                snprintf(err, errlen, "%s: line %llu: k-mer '%.20s' of length %zu (1 to %d taken)",
                         path, (unsigned long long)lineno, km, k, MAX_K);
                goto fail;
            }
            pm->k = (uint32_t)k;
            nk = (size_t)1 << (2 * k);
            pm->mean = calloc(nk, sizeof(float));
            pm->stdv = calloc(nk, sizeof(float));
            seen = calloc(nk, 1);
            if (!pm->mean || !pm->stdv || !seen) {
                snprintf(err, errlen, "%s: out of memory", path);
                goto fail;
            }
        }
        if (k != pm->k) {
            snprintf(err, errlen, "%s: line %llu: k-mer '%.20s' is not %u long like the first",
                     path, (unsigned long long)lineno, km, pm->k);
            goto fail;
        }
        size_t code = 0;
        for (size_t i = 0; i < k; i++) {
            const int b = base2(km[i]);
            if (b < 0) {
                snprintf(err, errlen, "%s: line %llu: k-mer '%s' has a letter other than A, C, G, T",
                         path, (unsigned long long)lineno, km);
                goto fail;
            }
            code = code << 2 | (size_t)b;
        }
        if (seen[code]) {
            snprintf(err, errlen, "%s: line %llu: k-mer %s twice", path, (unsigned long long)lineno, km);
            goto fail;
        }
        char *end;
        const double mean = strtod(f[col_mean], &end);
        const int bad_mean = end == f[col_mean] || *end || !isfinite(mean);
        double stdv = 0;
        int bad_stdv = 0;
        if (col_stdv >= 0) {
            stdv = strtod(f[col_stdv], &end);
            bad_stdv = end == f[col_stdv] || *end || !isfinite(stdv) || stdv < 0;
        }
        if (bad_mean || bad_stdv) {
            snprintf(err, errlen, "%s: line %llu: %s of %s is not a %snumber", path,
                     (unsigned long long)lineno, bad_mean ? "level_mean_pA" : "level_stdv_pA", km,
                     bad_mean ? "" : "non-negative ");
            goto fail;
        }
        seen[code] = 1;
        pm->mean[code] = (float)mean;
        pm->stdv[code] = (float)stdv;
        pm->mean_all += mean;
        rows++;
    }
    if (rc < -1) {
        snprintf(err, errlen, "%s: line %llu: read error (truncated or corrupt compressed data?)",
                 path, (unsigned long long)lineno + 1);
        goto fail;
    }
    if (col_kmer < 0 || pm->k == 0) {
        snprintf(err, errlen, "%s: no k-mers (a TSV with a kmer and a level_mean_pA column)", path);
        goto fail;
    }
    if (rows != nk) {
        size_t miss = 0;
        while (seen[miss]) miss++;
        char km[MAX_K + 1];
        for (uint32_t i = 0; i < pm->k; i++) km[i] = "ACGT"[(miss >> (2 * (pm->k - 1 - i))) & 3];
        km[pm->k] = 0;
        snprintf(err, errlen, "%s: %llu of the %zu %u-mers, %s the first missing", path,
                 (unsigned long long)rows, nk, pm->k, km);
        goto fail;
    }
    /* Levels that vary: a model with one level for every k-mer turns every
     * genome into a flat signal, which matches any flat read. */
    size_t lo = 0, hi = 0;
    for (size_t i = 1; i < nk; i++) {
        if (pm->mean[i] < pm->mean[lo]) lo = i;
        if (pm->mean[i] > pm->mean[hi]) hi = i;
    }
    if (!(pm->mean[hi] > pm->mean[lo])) {
        snprintf(err, errlen, "%s: every k-mer has the same level_mean_pA (%g): such a model cannot "
                 "tell one k-mer from another", path, (double)pm->mean[lo]);
        goto fail;
    }
    pm->mean_all /= (double)rows;
    free(seen);
    ks_free(&line);
    bgzf_close(fp);
    return 0;
fail:
    free(seen);
    ks_free(&line);
    bgzf_close(fp);
    gpuasm_pore_model_free(pm);
    return -1;
}

void gpuasm_pore_model_free(gpuasm_pore_model *pm)
{
    free(pm->mean);
    free(pm->stdv);
    memset(pm, 0, sizeof(*pm));
}
