/* SPDX-License-Identifier: MIT */
/* signal_ref.c -- reference signals from a genome and a pore model, or
 * from a signal file (see signal_ref.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/nt16.h"
#include "io/pore_model.h"
#include "io/signal_norm.h"
#include "io/signal_reads.h"
#include "io/signal_ref.h"
#include "io/targets.h"

enum { MAX_EXPANSIONS = 4096 };

/* 2-bit code of a single-base nt16 code, -1 for anything else. */
static int code2(uint8_t c)
{
    switch (c) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    default: return -1;
    }
}

/* Sum of the levels of every k-mer that s[0 .. k) (nt16 sets) stands for,
 * and their number, from position i on with the code so far. */
static void expand(const gpuasm_pore_model *pm, const uint8_t *s, uint32_t i, size_t code,
                   double *sum, uint64_t *count)
{
    if (i == pm->k) {
        *sum += pm->mean[code];
        (*count)++;
        return;
    }
    for (int b = 0; b < 4; b++)
        if (s[i] & (1u << b)) expand(pm, s, i + 1, code << 2 | (size_t)b, sum, count);
}

/* Level of the k-mer s[0 .. k). */
static float level_of(const gpuasm_pore_model *pm, const uint8_t *s)
{
    size_t code = 0;
    uint64_t ways = 1;
    int plain = 1;
    for (uint32_t i = 0; i < pm->k; i++) {
        const int b = code2(s[i]);
        if (b < 0) {
            plain = 0;
            ways *= (uint64_t)__builtin_popcount(s[i] & 15u);
            if (ways > MAX_EXPANSIONS) return (float)pm->mean_all;
        }
        code = code << 2 | (size_t)(b < 0 ? 0 : b);
    }
    if (plain) return pm->mean[code];
    if (ways == 0) return (float)pm->mean_all;   /* a code standing for no base */
    double sum = 0;
    uint64_t count = 0;
    expand(pm, s, 0, 0, &sum, &count);
    return (float)(sum / (double)count);
}

static int alloc_ref(gpuasm_sigref *ref, uint32_t n_targets, uint32_t n, uint64_t nval)
{
    ref->n_targets = n_targets;
    ref->n = n;
    ref->tname = calloc(n_targets ? n_targets : 1, sizeof(char *));
    ref->tlen = calloc(n_targets ? n_targets : 1, sizeof(uint64_t));
    ref->target = calloc(n ? n : 1, sizeof(uint32_t));
    ref->strand = calloc(n ? n : 1, 1);
    ref->off = calloc((size_t)n + 1, sizeof(uint64_t));
    ref->val = malloc((size_t)(nval ? nval : 1) * sizeof(int16_t));
    return ref->tname && ref->tlen && ref->target && ref->strand && ref->off && ref->val ? 0 : -1;
}

static void set_view(gpuasm_sigref *ref)
{
    ref->set.n = ref->n;
    ref->set.off = ref->off;
    ref->set.val = ref->val;
}

/* Normalise and quantise x[0 .. len) into reference signal i.  0, or -1
 * with err when a level is outside the range of --norm none. */
static int put_signal(gpuasm_sigref *ref, uint32_t i, const float *x, uint64_t len, int norm,
                      float *work, const char *path, char *err, size_t errlen)
{
    double loc, scale;
    gpuasm_norm_stats(x, (size_t)len, norm, work, &loc, &scale);
    ref->off[i + 1] = ref->off[i] + len;
    const int64_t c = gpuasm_norm_quantise(x, (size_t)len, norm, loc, scale, ref->val + ref->off[i]);
    if (c < 0) {
        const uint64_t j = (uint64_t)(-1 - c);
        snprintf(err, errlen, "%s: %s, strand %c: expected level %g at k-mer %llu is outside [%g, %g], "
                 "the range of --norm none (pore models are in pA: normalise, --norm mad)", path,
                 ref->tname[ref->target[i]], ref->strand[i], (double)x[j], (unsigned long long)j,
                 (double)GPUASM_SIG_QMIN / GPUASM_SIG_SCALE, (double)GPUASM_SIG_QMAX / GPUASM_SIG_SCALE);
        return -1;
    }
    ref->clamped += (uint64_t)c;
    return 0;
}

int gpuasm_sigref_from_fasta(const char *fasta, const char *model, int norm, gpuasm_sigref *ref,
                             char *err, size_t errlen)
{
    memset(ref, 0, sizeof(*ref));
    gpuasm_pore_model pm;
    gpuasm_targets t;
    if (gpuasm_pore_model_load(model, &pm, err, errlen) < 0) return -1;
    if (gpuasm_targets_load(fasta, 0, &t, err, errlen) < 0) {
        gpuasm_pore_model_free(&pm);
        return -1;
    }
    uint64_t nval = 0;
    for (uint32_t i = 0; i < t.n; i++) {
        const uint64_t L = gpuasm_target_len(&t, i);
        nval += 2 * (L >= pm.k ? L - pm.k + 1 : 0);
    }
    float *x = NULL, *work = NULL;
    uint8_t *rc = NULL;
    int ret = -1;
    if (alloc_ref(ref, t.n, 2 * t.n, nval) < 0 ||
        !(x = malloc((size_t)(t.max_len + 1) * sizeof(float))) ||
        !(work = malloc((size_t)(t.max_len + 1) * sizeof(float))) ||
        !(rc = malloc((size_t)t.max_len + 1))) {
        snprintf(err, errlen, "%s: out of memory", fasta);
        goto out;
    }
    ref->k = pm.k;
    for (uint32_t i = 0; i < t.n; i++) {
        const uint64_t L = gpuasm_target_len(&t, i);
        const uint8_t *s = t.code + t.off[i];
        if (!(ref->tname[i] = strdup(t.name[i]))) {
            snprintf(err, errlen, "%s: out of memory", fasta);
            goto out;
        }
        ref->tlen[i] = L;
        for (uint64_t j = 0; j < L; j++) rc[j] = gpuasm_nt16_comp(s[L - 1 - j]);
        for (int strand = 0; strand < 2; strand++) {
            const uint8_t *q = strand ? rc : s;
            const uint64_t nk = L >= pm.k ? L - pm.k + 1 : 0;
            for (uint64_t j = 0; j < nk; j++) x[j] = level_of(&pm, q + j);
            const uint32_t ri = 2 * i + (uint32_t)strand;
            ref->target[ri] = i;
            ref->strand[ri] = strand ? '-' : '+';
            if (put_signal(ref, ri, x, nk, norm, work, fasta, err, errlen) < 0) goto out;
        }
    }
    set_view(ref);
    ret = 0;
out:
    free(x);
    free(work);
    free(rc);
    gpuasm_targets_free(&t);
    gpuasm_pore_model_free(&pm);
    if (ret < 0) gpuasm_sigref_free(ref);
    return ret;
}

int gpuasm_sigref_from_signals(const char *path, int norm, gpuasm_sigref *ref, char *err,
                               size_t errlen)
{
    memset(ref, 0, sizeof(*ref));
    gpuasm_sigreader *rd;
    if (gpuasm_sigreader_open(path, &rd, err, errlen) < 0) return -1;
    /* The whole file as one batch: references are read once, kept whole. */
    gpuasm_sigbatch b;
    gpuasm_sigbatch_init(&b);
    const gpuasm_sigread_opt o = { .skip = 0, .prefix = 0, .norm = norm };
    int ret = -1, n = gpuasm_sigreader_next(rd, &o, &b, UINT64_MAX, err, errlen);
    if (n < 0) goto out;
    if (n == 0) {
        snprintf(err, errlen, "%s: no signals", path);
        goto out;
    }
    if (alloc_ref(ref, b.n, b.n, b.off[b.n]) < 0) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto out;
    }
    ref->k = 0;
    ref->clamped = b.clamped;
    memcpy(ref->off, b.off, ((size_t)b.n + 1) * sizeof(uint64_t));
    memcpy(ref->val, b.val, (size_t)b.off[b.n] * sizeof(int16_t));
    for (uint32_t i = 0; i < b.n; i++) {
        ref->tname[i] = b.name[i];
        b.name[i] = NULL;
        ref->tlen[i] = b.len[i];
        ref->target[i] = i;
        ref->strand[i] = '+';
    }
    set_view(ref);
    ret = 0;
out:
    gpuasm_sigbatch_free(&b);
    gpuasm_sigreader_close(rd);
    if (ret < 0) gpuasm_sigref_free(ref);
    return ret;
}

void gpuasm_sigref_interval(const gpuasm_sigref *ref, uint32_t i, uint64_t ks, uint64_t ke,
                            uint64_t *ts, uint64_t *te)
{
    const uint64_t span_end = ke - 1 + (ref->k ? ref->k : 1);   /* bases (or samples) past the last */
    if (ref->strand[i] == '-') {
        const uint64_t L = ref->tlen[ref->target[i]];
        *ts = L - span_end;
        *te = L - ks;
    } else {
        *ts = ks;
        *te = span_end;
    }
}

void gpuasm_sigref_free(gpuasm_sigref *ref)
{
    if (ref->tname)
        for (uint32_t i = 0; i < ref->n_targets; i++) free(ref->tname[i]);
    free(ref->tname);
    free(ref->tlen);
    free(ref->target);
    free(ref->strand);
    free(ref->off);
    free(ref->val);
    memset(ref, 0, sizeof(*ref));
}
