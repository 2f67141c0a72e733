/* SPDX-License-Identifier: MIT */
/* pieces_core.h -- one read strand through the pieces filter (prefilter.h:
 * targets as patterns) as candidate keys, GPUASM_HD code that the CUDA
 * planner (walk/pieces_cuda.cu, a thread per read strand) and host tests
 * both run (internal to walk/).
 *
 * Its CPU twin is the host plan of filter_plan.c for a batch whose every
 * searched pair has the target as its pattern (primers, adapters): there a
 * read strand's windows are the targets its walk of prefilter.c marks
 * (walk_windows: a window of q bases some target piece has, then that
 * whole piece checked against the text), then the "always" targets (not
 * filtered), each kept when the pair is searched; a strand holding an
 * ambiguity code other than 0 takes every searched target.  This file
 * walks the same windows in the same way and gives the same targets as
 * keys, each as often as it is marked (the planner sorts and drops the
 * repeats), and turns a key into the window filter_plan.c would list for
 * it (texts of at most GPUASM_PIECES_MAX_N bases: one window a pair).
 * tests/c/test_pieces_plan holds the two to each other.
 *
 * A key: class (pattern words - 1, 2 bits) << 62 | read << 32 | strand << 31
 * | target, so that sorted keys come class by class (the verifier's
 * launches), then in read order.
 */
#ifndef GPUASM_PIECES_CORE_H
#define GPUASM_PIECES_CORE_H

#include <stdint.h>

#include "search/nt16.h"
#include "search/search.h"
#include "walk/filter_plan.h"
#include "walk/prefilter.h"

/* Reads of at most this many bases: one window a (read strand, target)
 * pair (filter_plan.c's PLAN_SEG: a text of n <= 4096 bases is one
 * segment). */
#define GPUASM_PIECES_MAX_N 4096u
/* Reads (2^30) and targets (2^31) a key holds. */
#define GPUASM_PIECES_MAX_READS ((uint32_t)1 << 30)
#define GPUASM_PIECES_MAX_TARGETS ((uint32_t)1 << 31)

/* The pieces filter's tables (gpuasm_qfilter's, in host or device memory)
 * and the targets they index. */
typedef struct gpuasm_qf_view {
    const uint64_t *present;   /* a bit per key */
    const uint32_t *start;     /* [GPUASM_QF_KEYS + 1] rows of ids/woff/pa/pb */
    const uint32_t *ids, *woff, *pa, *pb;
    const uint8_t *always;     /* [n_targets] */
    const uint32_t *always_list;   /* the always targets searched with some text (ascending) */
    uint32_t n_always, q_used;
    uint32_t n_targets;
    uint32_t n_ok;             /* targets searched with some text (the --stats count's base) */
    const uint64_t *toff;      /* [n_targets + 1] the targets' codes */
    const uint8_t *tcode;
} gpuasm_qf_view;

/* Keys of windows of GPUASM_QF_QMIN .. GPUASM_QF_Q bases (prefilter.c's
 * key space: shorter windows first). */
#define GPUASM_QF_KEYS ((((uint32_t)1 << (2 * GPUASM_QF_Q)) - ((uint32_t)1 << (2 * GPUASM_QF_QMIN))) / 3u + \
                        ((uint32_t)1 << (2 * GPUASM_QF_Q)))

/* 2-bit base of a single-base code, -1 otherwise (qkey.h's gpuasm_base2[],
 * as arithmetic: device code cannot read a host table). */
GPUASM_HD int gpuasm_pieces_base2(uint32_t c)
{
    return c == 1 ? 0 : c == 2 ? 1 : c == 4 ? 2 : c == 8 ? 3 : -1;
}

/* Base i of read strand s (1: reverse complement) of read[0 .. n). */
GPUASM_HD uint32_t gpuasm_pieces_at(const uint8_t *read, uint32_t n, uint32_t s, uint32_t i)
{
    return (s ? gpuasm_nt16_comp(read[n - 1 - i]) : read[i]) & 15u;
}

GPUASM_HD uint64_t gpuasm_pieces_key(uint64_t m, uint32_t read, uint32_t strand, uint32_t target)
{
    const uint64_t cls = (m + 63) / 64 - 1;
    return cls << 62 | (uint64_t)read << 32 | (uint64_t)strand << 31 | target;
}

/* The pattern class of a key (0..3: 1..4 words). */
GPUASM_HD uint32_t gpuasm_pieces_key_class(uint64_t key) { return (uint32_t)(key >> 62); }

/* Key `key`, if out is not NULL, at out[*n]; *n counts it either way. */
GPUASM_HD void gpuasm_pieces_put(uint64_t *out, uint32_t *n, uint64_t key)
{
    if (out) out[*n] = key;
    ++*n;
}

/* The candidate keys of read `r` (rlen bases at read[], nt16 codes as the
 * batch holds them) on strand s against the targets of f, each as often
 * as the walk marks it, then the searched always targets; with out NULL
 * only counted.  *amb: 1 when the strand holds an ambiguity code other
 * than 0 (every searched target is then a candidate, once).  Returns the
 * number of keys.  Targets are the pattern of every pair (the caller
 * checks: gpuasm_targets_are_patterns). */
GPUASM_HD uint32_t gpuasm_pieces_strand(const gpuasm_qf_view *f, const gpuasm_search_opt *opt,
                                        const uint8_t *read, uint32_t rlen, uint32_t r, uint32_t s,
                                        uint64_t *out, int *amb)
{
    uint32_t n = 0;
    *amb = 0;
    if (!rlen) return 0;   /* no pair of an empty read is searched */
    for (uint32_t j = 0; j < rlen; j++) {
        const uint32_t c = gpuasm_pieces_at(read, rlen, s, j);
        if (gpuasm_pieces_base2(c) < 0 && c != 0) *amb = 1;
    }
    if (*amb) {
        for (uint32_t t = 0; t < f->n_targets; t++) {
            const gpuasm_pair p = gpuasm_pair_of(opt, rlen, f->toff[t + 1] - f->toff[t]);
            if (p.searched) gpuasm_pieces_put(out, &n, gpuasm_pieces_key(p.m, r, s, t));
        }
        return n;
    }
    uint32_t key = 0;
    unsigned run = 0;   /* single bases in a row ending at j */
    const uint32_t key_mask = ((uint32_t)1 << (2 * GPUASM_QF_Q)) - 1;
    for (uint32_t j = 0; j < rlen; j++) {
        const int b = gpuasm_pieces_base2(gpuasm_pieces_at(read, rlen, s, j));
        if (b < 0) {   /* code 0: N in a read matches nothing */
            run = 0;
            continue;
        }
        key = ((key << 2) | (uint32_t)b) & key_mask;
        if (++run < GPUASM_QF_QMIN) continue;
        for (int q = GPUASM_QF_QMIN; q <= GPUASM_QF_Q && (unsigned)q <= run; q++) {
            if (!(f->q_used >> q & 1)) continue;
            const uint32_t qbase = (((uint32_t)1 << (2 * q)) - ((uint32_t)1 << (2 * GPUASM_QF_QMIN))) / 3u;
            const uint32_t x = qbase + (key & (((uint32_t)1 << (2 * q)) - 1));
            if (!(f->present[x / 64] >> (x % 64) & 1)) continue;
            const int64_t ws = (int64_t)j + 1 - q;
            for (uint32_t i = f->start[x]; i < f->start[x + 1]; i++) {
                /* the whole piece at its place (prefilter.c piece_occurs) */
                const int64_t st = ws - (int64_t)(f->woff[i] - f->pa[i]);
                const uint32_t len = f->pb[i] - f->pa[i];
                if (st < 0 || (uint64_t)st + len > rlen) continue;
                const uint32_t t = f->ids[i];
                const uint8_t *p = f->tcode + f->toff[t] + f->pa[i];
                uint32_t y = 0;
                while (y < len && (p[y] & gpuasm_pieces_at(read, rlen, s, (uint32_t)st + y))) y++;
                if (y < len || f->always[t]) continue;
                const gpuasm_pair pr = gpuasm_pair_of(opt, rlen, f->toff[t + 1] - f->toff[t]);
                if (pr.searched) gpuasm_pieces_put(out, &n, gpuasm_pieces_key(pr.m, r, s, t));
            }
        }
    }
    for (uint32_t a = 0; a < f->n_always; a++) {
        const uint32_t t = f->always_list[a];
        const gpuasm_pair p = gpuasm_pair_of(opt, rlen, f->toff[t + 1] - f->toff[t]);
        if (p.searched) gpuasm_pieces_put(out, &n, gpuasm_pieces_key(p.m, r, s, t));
    }
    return n;
}

/* f's tables in host memory as a view (f built for targets and opt:
 * gpuasm_qfilter_build); always_list, [f->n_targets] of the caller, gets
 * the always targets that some text is searched with (filter_plan.c's
 * b_always).  Host code only. */
static inline gpuasm_qf_view gpuasm_qf_view_host(const gpuasm_qfilter *f, const gpuasm_search_opt *opt,
                                                 uint32_t *always_list)
{
    gpuasm_qf_view v;
    v.present = f->present;
    v.start = f->start;
    v.ids = f->ids;
    v.woff = f->woff;
    v.pa = f->pa;
    v.pb = f->pb;
    v.always = f->always;
    v.always_list = always_list;
    v.n_always = 0;
    v.n_ok = 0;
    v.q_used = f->q_used;
    v.n_targets = f->n_targets;
    v.toff = f->targets->off;
    v.tcode = f->targets->code;
    for (uint32_t t = 0; t < f->n_targets; t++) {
        const uint64_t m = v.toff[t + 1] - v.toff[t];
        if (!gpuasm_pair_searched(m, gpuasm_pair_k(opt, m), 1)) continue;
        v.n_ok++;
        if (f->always[t]) always_list[v.n_always++] = t;
    }
    return v;
}

/* The pieces filter's --stats counts of a plan (filter_plan.c's
 * pieces_kept and pieces_dropped): n_keys distinct keys, of which
 * amb_keys from strands holding ambiguity codes, and `counted` non-empty
 * strands without them (each counts the targets of f->n_ok it does not
 * keep). */
GPUASM_HD void gpuasm_pieces_counts(const gpuasm_qf_view *f, uint64_t n_keys, uint64_t amb_keys, uint64_t counted,
                                    uint64_t *kept, uint64_t *dropped)
{
    *kept = n_keys;
    *dropped = counted * f->n_ok - (n_keys - amb_keys);
}

/* The window filter_plan.c lists for a key (the read's length rlen <=
 * GPUASM_PIECES_MAX_N: the whole read strand, one segment). */
GPUASM_HD gpuasm_vwin gpuasm_pieces_window(const gpuasm_search_opt *opt, uint64_t key, uint64_t rlen, uint64_t tlen)
{
    const gpuasm_pair p = gpuasm_pair_of(opt, rlen, tlen);
    gpuasm_vwin w;
    w.read = (uint32_t)(key >> 32) & (GPUASM_PIECES_MAX_READS - 1);
    w.target = (uint32_t)key & (GPUASM_PIECES_MAX_TARGETS - 1);
    w.strand = (uint16_t)(key >> 31 & 1);
    w.read_is_pattern = 0;
    w.k = p.k;
    w.j0 = 0;
    w.jend = (uint32_t)p.n;
    w.s0 = 0;
    w.s1 = (uint32_t)p.n;
    return w;
}

#endif
