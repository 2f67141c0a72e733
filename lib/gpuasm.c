/* SPDX-License-Identifier: MIT */
/* gpuasm.c -- the public library call (gpuasm.h) over the engine and the
 * report of gpuasm-scan: the same search and the same choice of
 * occurrences, without files or SAM. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/hts.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "engine/defaults.h"
#include "engine/engine.h"
#include "lib/gpuasm.h"
#include "search/nt16.h"
#include "kernels/registry.h"
#include "align/report.h"
#include "search/search.h"
#include "io/targets.h"

#define EXPORT __attribute__((visibility("default")))

/* The defaults of both commands (engine/defaults.h), as the library's
 * configuration. */
EXPORT gpuasm_config gpuasm_config_default(void)
{
    gpuasm_defaults d;
    gpuasm_defaults_init(&d);
    return (gpuasm_config){ .k = d.search.max_diffs, .error_rate = d.search.error_rate,
                            .mode = GPUASM_EDIT, .forward_only = d.search.strand == GPUASM_STRAND_FORWARD,
                            .all = 0, .device = d.device, .threads = d.n_threads };
}

EXPORT const char *gpuasm_library_version(void) { return PACKAGE_VERSION; }

static gpuasm_result failure(gpuasm_status_code st, const char *what)
{
    gpuasm_result r;
    memset(&r, 0, sizeof r);
    r.status = st;
    snprintf(r.error, sizeof r.error, "%s", what);
    return r;
}

/* Codes of n strings as one set; read: N and other ambiguity codes match
 * nothing (gpuasm_read_code), targets keep them.  0, or -1 with r->error. */
static int encode(const char *const *s, size_t n, int read, uint64_t **off, uint8_t **code,
                  const char *what, gpuasm_result *r)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (!s[i]) {
            snprintf(r->error, sizeof r->error, "%s %zu is NULL", what, i);
            return -1;
        }
        total += strlen(s[i]);
    }
    *off = malloc((n + 1) * sizeof(**off));
    *code = malloc(total ? total : 1);
    if (!*off || !*code) {
        r->status = GPUASM_STATUS_NOMEM;
        snprintf(r->error, sizeof r->error, "out of memory");
        return -1;
    }
    uint64_t at = 0;
    for (size_t i = 0; i < n; i++) {
        (*off)[i] = at;
        for (const unsigned char *p = (const unsigned char *)s[i]; *p; p++) {
            uint8_t c = (*p == 'U' || *p == 'u') ? 8 : (uint8_t)seq_nt16_table[*p];
            if (c == 15 && *p != 'N' && *p != 'n') {
                snprintf(r->error, sizeof r->error, "%s %zu: '%c' at %llu is not an IUPAC base",
                         what, i, *p >= 32 && *p < 127 ? *p : '?',
                         (unsigned long long)(p - (const unsigned char *)s[i]));
                return -1;
            }
            (*code)[at++] = read ? gpuasm_read_code(c, 0) : c;
        }
        if (!read && at == (*off)[i]) {
            snprintf(r->error, sizeof r->error, "%s %zu is empty", what, i);
            return -1;
        }
    }
    (*off)[n] = at;
    return 0;
}

/* Append occurrence oc of read `read` to r. */
static int add_hit(gpuasm_result *r, size_t *cap, const gpuasm_report *rep, const gpuasm_occ *oc,
                   uint32_t read, uint64_t read_len)
{
    if (r->n_hits == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        gpuasm_hit *h = realloc(r->hits, c * sizeof(*h));
        if (!h) return -1;
        r->hits = h;
        *cap = c;
    }
    gpuasm_hit *h = &r->hits[r->n_hits];
    memset(h, 0, sizeof(*h));
    const uint32_t *cg = rep->cigar + oc->cigar_off;
    int64_t tlen = 0, lead = 0, trail = 0;
    char *s = malloc(oc->n_cigar * 12 + 1), *p = s;
    if (!s) return -1;
    for (size_t i = 0; i < oc->n_cigar; i++) {
        const uint32_t op = cg[i] & 15, len = cg[i] >> 4;
        p += sprintf(p, "%u%c", len, "MIDNSHP=X"[op < 9 ? op : 0]);
        if (op == 0 || op == 2 || op == 3 || op == 7 || op == 8) tlen += len;
        if (op == 4) {
            if (i == 0) lead = len; else trail = len;
        }
    }
    *p = 0;
    h->read = read;
    h->target = oc->target;
    h->reverse = (int)oc->strand;
    h->distance = oc->dist;
    h->target_start = oc->pos;
    h->target_end = oc->pos + tlen;
    h->read_start = lead;
    h->read_end = (int64_t)read_len - trail;
    h->cigar = s;
    r->n_hits++;
    return 0;
}

EXPORT gpuasm_result gpuasm_align_batch(const char *const *reads, size_t n_reads,
                                        const char *const *targets, size_t n_targets,
                                        gpuasm_config cfg)
{
    gpuasm_result r;
    memset(&r, 0, sizeof r);
    if (n_targets == 0) return failure(GPUASM_STATUS_ERROR, "no targets");
    if (n_reads > UINT32_MAX || n_targets > UINT32_MAX)
        return failure(GPUASM_STATUS_ERROR, "more than 2^32 - 1 sequences in one call");
    if (cfg.mode != GPUASM_EDIT && cfg.mode != GPUASM_HAMMING)
        return failure(GPUASM_STATUS_ERROR, "mode must be GPUASM_EDIT or GPUASM_HAMMING");
    if (cfg.k < 0 && !(cfg.error_rate >= 0.0 && cfg.error_rate < 1.0))
        return failure(GPUASM_STATUS_ERROR, "error_rate must be in [0, 1)");
    /* The commands' search (engine/defaults.h) with the caller's k, mode
     * and strands, whole occurrences only (gpuasm.h: no partial ones). */
    gpuasm_defaults d;
    gpuasm_defaults_init(&d);
    gpuasm_search_opt so = d.search;
    so.max_diffs = cfg.k;
    so.error_rate = cfg.error_rate;
    so.kernel = gpuasm_mode_default_kernel(cfg.mode == GPUASM_HAMMING ? GPUASM_MODE_HAMMING
                                                                      : GPUASM_MODE_EDIT);
    so.strand = cfg.forward_only ? GPUASM_STRAND_FORWARD : GPUASM_STRAND_BOTH;
    so.overlap_min = 0;
    so.read_overlap_min = 0;
    so.partial_ends = 0;
    so.keep = cfg.all ? GPUASM_KEEP_ALL : GPUASM_KEEP_REPORTED;   /* search.h */
    gpuasm_report_opt ro = { .all = cfg.all };
    gpuasm_targets t;
    memset(&t, 0, sizeof t);
    uint64_t *roff = NULL;
    uint8_t *rcode = NULL;
    gpuasm_engine *eng = NULL;
    gpuasm_hits hits;
    memset(&hits, 0, sizeof hits);
    gpuasm_report rep;
    memset(&rep, 0, sizeof rep);
    gpuasm_err why, fallback;
    size_t cap = 0;
    char msg[400];

    if (encode(targets, n_targets, 0, &t.off, &t.code, "target", &r) < 0 ||
        encode(reads, n_reads, 1, &roff, &rcode, "read", &r) < 0) {
        if (!r.status) r.status = GPUASM_STATUS_ERROR;
        goto out;
    }
    t.n = (uint32_t)n_targets;
    if (!(t.name = calloc(n_targets, sizeof(*t.name)))) goto nomem;
    for (uint32_t i = 0; i < t.n; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "t%u", i);
        if (!(t.name[i] = strdup(nm))) goto nomem;
        uint64_t len = t.off[i + 1] - t.off[i];
        if (cfg.k >= 0 && len <= (uint64_t)cfg.k) {
            r.status = GPUASM_STATUS_ERROR;
            snprintf(r.error, sizeof r.error, "target %u: k = %d is not smaller than its length "
                     "(%llu): every position would match", i, cfg.k, (unsigned long long)len);
            goto out;
        }
        if (i == 0 || len > t.max_len) t.max_len = len;
        if (i == 0 || len < t.min_len) t.min_len = len;
    }
    t.set = (gpuasm_seqset){ t.n, t.off, t.code };
    if (gpuasm_engine_open(cfg.device ? cfg.device : "auto", cfg.threads < 1 ? 1 : cfg.threads,
                           &eng, &why, &fallback) < 0 ||
        gpuasm_engine_set_targets(eng, &t.set, &why) < 0) {
        r.status = why.status == GPUASM_ERR_NO_DEVICE ? GPUASM_STATUS_NO_DEVICE
                 : why.status == GPUASM_ERR_NOMEM ? GPUASM_STATUS_NOMEM : GPUASM_STATUS_ERROR;
        snprintf(r.error, sizeof r.error, "%s", why.msg);
        goto out;
    }
    gpuasm_seqset rs = { (uint32_t)n_reads, roff, rcode };
    if (gpuasm_engine_scan(eng, &rs, &so, &hits, &why) < 0) {
        r.status = why.status == GPUASM_ERR_NOMEM ? GPUASM_STATUS_NOMEM : GPUASM_STATUS_ERROR;
        snprintf(r.error, sizeof r.error, "%s", why.msg);
        goto out;
    }
    /* Hits are sorted by read (gpuasm_hits_sort): one slice per read. */
    for (size_t h = 0, i = 0; i < n_reads; i++) {
        size_t h0 = h;
        while (h < hits.n && hits.hit[h].read == i) h++;
        uint64_t len = roff[i + 1] - roff[i];
        if (gpuasm_report_read(&rep, &so, &ro, rcode + roff[i], (uint32_t)len, &t,
                               hits.hit + h0, h - h0, msg, sizeof msg) < 0) {
            r.status = GPUASM_STATUS_ERROR;
            snprintf(r.error, sizeof r.error, "read %zu: %s", i, msg);
            goto out;
        }
        for (size_t k = 0; k < rep.n_occ; k++)
            if (add_hit(&r, &cap, &rep, &rep.occ[k], (uint32_t)i, len) < 0) goto nomem;
    }
    goto out;
nomem:
    r.status = GPUASM_STATUS_NOMEM;
    snprintf(r.error, sizeof r.error, "out of memory");
out:
    gpuasm_report_free(&rep);
    gpuasm_hits_free(&hits);
    if (eng) gpuasm_engine_close(eng);
    for (uint32_t i = 0; t.name && i < t.n; i++) free(t.name[i]);
    free(t.name);
    free(t.off);
    free(t.code);
    free(roff);
    free(rcode);
    if (r.status != GPUASM_STATUS_OK) {
        for (size_t i = 0; i < r.n_hits; i++) free(r.hits[i].cigar);
        free(r.hits);
        r.hits = NULL;
        r.n_hits = 0;
    }
    return r;
}

EXPORT void gpuasm_result_free(gpuasm_result *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->n_hits; i++) free(r->hits[i].cigar);
    free(r->hits);
    r->hits = NULL;
    r->n_hits = 0;
}
