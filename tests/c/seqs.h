/* SPDX-License-Identifier: MIT */
/* seqs.h -- a set of nt16 sequences grown one at a time, and the CPU
 * walk's per-run tables of a target set, for the C tests that build
 * batches by hand (test_filter_plan.c, test_pieces_plan.c).  Needs tap.h
 * first (xrealloc). */
#ifndef GPUASM_TEST_SEQS_H
#define GPUASM_TEST_SEQS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "search/search.h"
#include "walk/cpu_scan.h"

typedef struct {
    uint8_t *code;
    uint64_t *off;
    uint32_t n;
    size_t cap_code, cap_off;
} seqs;

static inline void seqs_add(seqs *s, const uint8_t *c, uint64_t len)
{
    if (s->n + 2 > s->cap_off) {
        s->cap_off = 2 * (s->n + 2);
        s->off = xrealloc(s->off, s->cap_off * sizeof *s->off);
    }
    if (!s->n) s->off[0] = 0;
    const uint64_t at = s->off[s->n];
    if (at + len > s->cap_code) {
        s->cap_code = 2 * (at + len) + 64;
        s->code = xrealloc(s->code, s->cap_code);
    }
    if (len) memcpy(s->code + at, c, len);
    s->off[++s->n] = at + len;
}

static inline gpuasm_seqset seqs_view(const seqs *s) { return (gpuasm_seqset){ s->n, s->off, s->code }; }

static inline void seqs_free(seqs *s)
{
    free(s->code);
    free(s->off);
    memset(s, 0, sizeof *s);
}

/* The filters and tables the CPU engine builds for targets and opt (its
 * default configuration); aborts on failure. */
static inline gpuasm_cpu_prep *seqs_prep(const gpuasm_seqset *targets, const gpuasm_search_opt *opt)
{
    gpuasm_cpu_cfg cfg;
    gpuasm_cpu_cfg_default(&cfg);
    gpuasm_err err;
    memset(&err, 0, sizeof err);
    gpuasm_cpu_prep *prep = NULL;
    if (gpuasm_cpu_prep_build(targets, opt, &cfg, &prep, &err) < 0) abort();
    return prep;
}

#endif
