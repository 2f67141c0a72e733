/* SPDX-License-Identifier: MIT */
/* test_lanes.c -- seeded random differential tests of the CPU's SIMD lanes
 * (kernels/myers/myers_lanes.h) and the pigeonhole filter (walk/prefilter.h).
 * Output is TAP.
 *
 *   (a) text lanes at every SIMD level this processor has: one pattern
 *       (m = 1..300, the word boundaries, k from 0 to 63) against lists of
 *       texts whose total is cut into lane pieces; occurrences are planted
 *       across the piece boundaries, where a lane's lead-in must be right.
 *       Every (text, j, D) must equal gpuasm_myers_cpu_pair()'s (the scalar
 *       twin) text by text, and on small cases the naive DP.
 *   (b) pattern lanes: 1..40 patterns of 1..128 bases, each its own k,
 *       against one text with planted copies: every (pattern, j, D) equals
 *       the scalar twin's, and on small cases the naive DP.
 *   (c) the filter: every target with an end hit in a text (naive DP) is a
 *       candidate of gpuasm_qfilter_mark(), and on random texts most
 *       filtered targets are not (the filter does drop work).
 *   (d) the targets' window index (reads as patterns): every end with
 *       D <= k (naive DP; naive Hamming count in hamming mode) lies in one
 *       of the end ranges, with IUPAC and N runs in the targets and N in
 *       the reads; and the ranges cover little of random text.
 *   (e) the levels the processor lacks are reported as skipped.
 *
 * GPUASM_TEST_SEED varies the cases.  Exit status 0 when all passed.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/cpu_simd.h"
#include "kernels/myers/myers_cpu.h"
#include "kernels/myers/myers_lanes.h"
#include "naive_dp.h"
#include "search/nt16.h"
#include "walk/prefilter.h"
#include "search/search.h"
#include "tap.h"
#include "io/targets.h"

/* TAP, diagnostics, allocation and the generator: tap.h */

/* Alphabets: single bases; some 0 (N in a read); any IUPAC code; two bases. */
static uint8_t rnd_base(int al)
{
    static const uint8_t acgt[4] = { 1, 2, 4, 8 };
    switch (al) {
    case 1: return chance(0.08) ? 0 : acgt[rnd() & 3];
    case 2: return chance(0.15) ? (uint8_t)below(16) : acgt[rnd() & 3];
    case 3: return (uint8_t)(1 + (rnd() & 1));
    default: return acgt[rnd() & 3];
    }
}
static void rnd_seq(uint8_t *s, uint64_t n, int al)
{
    for (uint64_t i = 0; i < n; i++) s[i] = rnd_base(al);
}

/* dst <- src with about rate*len edits; dst has room for 2 len. */
static uint64_t mutate(const uint8_t *src, uint64_t len, double rate, int al, uint8_t *dst)
{
    uint64_t o = 0;
    for (uint64_t i = 0; i < len; i++) {
        if (!chance(rate)) { dst[o++] = src[i]; continue; }
        switch (below(3)) {
        case 0: dst[o++] = rnd_base(al); break;
        case 1: dst[o++] = rnd_base(al); dst[o++] = src[i]; break;
        default: break;
        }
    }
    return o;
}

/* Write a mutated copy of p over t at position at (clipped to n). */
static void plant(uint8_t *t, uint64_t n, uint64_t at, const uint8_t *p, uint32_t m, double rate, int al)
{
    uint8_t *buf = xmalloc(2 * (size_t)m + 2);
    uint64_t l = mutate(p, m, rate, al, buf);
    for (uint64_t i = 0; i < l && at + i < n; i++) t[at + i] = buf[i];
    free(buf);
}

/* ---- collecting (j, D) streams ---------------------------------------------- */

typedef struct { uint64_t j; int32_t d; } jd;
typedef struct { jd *a; size_t n, cap; } jd_list;

static void collect(void *ctx, uint64_t j, int32_t d)
{
    jd_list *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->a = realloc(l->a, l->cap * sizeof(jd));
        if (!l->a) abort();
    }
    l->a[l->n].j = j;
    l->a[l->n].d = d;
    l->n++;
}

/* Do the lane hits with id `id` (a run of ws->hit from *pos) equal the
 * reference list?  Advances *pos past them. */
static int same_stream(const gpuasm_lanes_ws *ws, size_t *pos, uint32_t id, const jd_list *ref,
                       const char *what)
{
    size_t i = *pos, r = 0;
    int ok = 1;
    for (; i < ws->n_hit && ws->hit[i].id == id; i++, r++) {
        if (r >= ref->n || ws->hit[i].j != ref->a[r].j || ws->hit[i].d != ref->a[r].d) {
            diag("%s: id %u hit %zu: lanes j=%" PRIu64 " d=%d, reference %s j=%" PRIu64 " d=%d", what,
                 id, r, ws->hit[i].j, ws->hit[i].d, r < ref->n ? "" : "(none)",
                 r < ref->n ? ref->a[r].j : 0, r < ref->n ? ref->a[r].d : 0);
            ok = 0;
            break;
        }
    }
    if (ok && r != ref->n) {
        diag("%s: id %u: lanes have %zu hits, the reference %zu", what, id, r, ref->n);
        ok = 0;
    }
    while (i < ws->n_hit && ws->hit[i].id == id) i++;
    *pos = i;
    return ok;
}

/* The naive DP's positions with D <= k. */
static void naive_list(const uint8_t *p, uint32_t m, const uint8_t *t, uint64_t n, int32_t k, jd_list *out)
{
    int32_t *last = xmalloc(((size_t)n + 1) * sizeof(int32_t));
    if (gpuasm_naive_dp(p, m, t, n, last) < 0) abort();
    out->n = 0;
    for (uint64_t j = 0; j < n; j++)
        if (last[j] <= k) collect(out, j, last[j]);
    free(last);
}

static int same_list(const jd_list *a, const jd_list *b)
{
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->a[i].j != b->a[i].j || a->a[i].d != b->a[i].d) return 0;
    return 1;
}

/* ---- (a) text lanes ----------------------------------------------------------- */

/* One case: pattern m, k, n_texts texts; occurrences planted at the lane
 * piece boundaries.  Returns 1 when the lanes equal the scalar twin (and
 * the naive DP when `naive`).  *hits counts the positions compared. */
static int text_case_as(int level, gpuasm_lanes_ws *ws, uint32_t m, int32_t k, uint32_t n_texts,
                        uint64_t max_len, int naive, size_t *hits, int full, uint32_t period);

/* The local minima of a (j, d) stream in increasing j, by the walk's rule
 * written out here (walk/cpu_walk.h): j stays when j - 1 is absent or has a
 * larger d, and j + 1 is absent or has a d at least as large. */
static void minima_of(jd_list *l)
{
    size_t u = 0;
    for (size_t i = 0; i < l->n; i++) {
        const int left = i == 0 || l->a[i - 1].j + 1 != l->a[i].j || l->a[i - 1].d > l->a[i].d;
        const int right = i + 1 == l->n || l->a[i + 1].j != l->a[i].j + 1 || l->a[i + 1].d >= l->a[i].d;
        if (left && right) l->a[u++] = l->a[i];
    }
    l->n = u;
}

static int text_case(int level, gpuasm_lanes_ws *ws, uint32_t m, int32_t k, uint32_t n_texts,
                     uint64_t max_len, int naive, size_t *hits)
{
    return text_case_as(level, ws, m, k, n_texts, max_len, naive, hits, 0, 0);
}

/* full: gpuasm_text_lanes_full() instead (2: with minima, against the
 * local minima of the scalar twin's stream); period > 0: the pattern and
 * every text repeat one random unit of that many bases (a few
 * substitutions in the pattern), so the pattern matches nearly
 * everywhere (issue #28's periodic case). */
static int text_case_as(int level, gpuasm_lanes_ws *ws, uint32_t m, int32_t k, uint32_t n_texts,
                        uint64_t max_len, int naive, size_t *hits, int full, uint32_t period)
{
    const int L = gpuasm_simd_lanes(level);
    const int al_p = (int)below(4), al_t = (int)below(4);
    uint8_t *p = xmalloc(m);
    rnd_seq(p, m, al_p);
    uint8_t unit[64];
    if (period) {
        rnd_seq(unit, period, 0);
        for (uint32_t i = 0; i < m; i++) p[i] = chance(0.03) ? (uint8_t)(1u << below(4)) : unit[i % period];
    }
    gpuasm_lane_text *tx = xmalloc(n_texts * sizeof *tx);
    uint8_t **buf = xmalloc(n_texts * sizeof *buf);
    uint64_t total = 0;
    for (uint32_t t = 0; t < n_texts; t++) {
        uint64_t n = 1 + below(max_len);
        buf[t] = xmalloc(n);
        rnd_seq(buf[t], n, al_t);
        if (period)
            for (uint64_t i = 0; i < n; i++) buf[t][i] = unit[(i + t) % period];
        for (int c = 0; c < 3; c++)
            if (chance(0.6)) plant(buf[t], n, below(n), p, m, 0.15 * chance(0.8), al_t);
        tx[t].code = buf[t];
        tx[t].n = n;
        total += n;
    }
    /* Occurrences ending just before, at and after each lane boundary. */
    const uint64_t share = total / (uint64_t)L + (total % (uint64_t)L != 0);
    for (int l = 1; l < L; l++) {
        uint64_t gpos = (uint64_t)l * share, g = 0;
        for (uint32_t t = 0; t < n_texts; t++) {
            if (gpos < g + tx[t].n) {
                uint64_t at = gpos - g, back = below((uint64_t)m + (uint64_t)k + 3);
                plant(buf[t], tx[t].n, at > back ? at - back : 0, p, m, 0.1 * chance(0.7), al_t);
                break;
            }
            g += tx[t].n;
        }
    }
    uint64_t *peq = xmalloc(gpuasm_myers_peq_words(m) * sizeof(uint64_t));
    gpuasm_myers_peq_nt16(peq, p, m);
    int ok = (full ? gpuasm_text_lanes_full(level, ws, peq, m, k, tx, n_texts, full == 2)
                   : gpuasm_text_lanes(level, ws, peq, m, k, tx, n_texts)) == 0;
    if (!ok) diag("text lanes%s returned an error (m=%u k=%d)", full ? " (full)" : "", m, k);
    size_t pos = 0;
    jd_list ref = {0}, nv = {0};
    for (uint32_t t = 0; t < n_texts && ok; t++) {
        ref.n = 0;
        if (gpuasm_myers_cpu_pair(p, m, tx[t].code, tx[t].n, k, collect, &ref) < 0) abort();
        if (naive && full == 2) {   /* before the minima: the naive DP gives every position */
            naive_list(p, m, tx[t].code, tx[t].n, k, &nv);
            if (!same_list(&ref, &nv)) {
                diag("m=%u k=%d text %u: the scalar twin differs from the naive DP", m, k, t);
                ok = 0;
            }
        }
        if (full == 2) minima_of(&ref);
        *hits += ref.n;
        char what[112];
        snprintf(what, sizeof what, "%s text lanes%s m=%u k=%d text %u/%u n=%" PRIu64 "%s",
                 gpuasm_simd_name(level), full == 2 ? " (full, minima)" : full ? " (full)" : "", m, k, t,
                 n_texts, tx[t].n, period ? " periodic" : "");
        ok = ok && same_stream(ws, &pos, t, &ref, what);
        if (ok && naive && full != 2) {
            naive_list(p, m, tx[t].code, tx[t].n, k, &nv);
            if (!same_list(&ref, &nv)) {
                diag("%s: the scalar twin differs from the naive DP", what);
                ok = 0;
            }
        }
    }
    if (ok && pos != ws->n_hit) {
        diag("text lanes m=%u k=%d: %zu hits with ids out of order or range", m, k, ws->n_hit - pos);
        ok = 0;
    }
    free(ref.a);
    free(nv.a);
    for (uint32_t t = 0; t < n_texts; t++) free(buf[t]);
    free(buf);
    free(tx);
    free(peq);
    free(p);
    return ok;
}

static void test_text_lanes(int level, gpuasm_lanes_ws *ws)
{
    const char *ln = gpuasm_simd_name(level);
    /* Every m up to 140 (one and three words), a few k each. */
    int ok = 1;
    size_t hits = 0, cases = 0;
    for (uint32_t m = 1; m <= 140 && ok; m++) {
        const int32_t ks[4] = { 0, 1, (int32_t)(m / 10), (int32_t)below(m < 64 ? m : 64) };
        for (int q = 0; q < 4 && ok; q++) {
            if (ks[q] >= (int32_t)m) continue;
            ok = text_case(level, ws, m, ks[q], 1 + (uint32_t)below(5), 600, m <= 70, &hits);
            cases++;
        }
    }
    tap(ok, "%s text lanes m=1..140: %zu cases, %zu positions equal the scalar twin (and the naive "
        "DP for m <= 70)", ln, cases, hits);
    static const uint32_t edge[] = { 63, 64, 65, 127, 128, 129, 191, 192, 193, 255, 256, 257, 300 };
    ok = 1;
    hits = cases = 0;
    for (size_t e = 0; e < sizeof edge / sizeof edge[0] && ok; e++) {
        for (int c = 0; c < 12 && ok; c++) {
            const uint32_t m = edge[e];
            const int32_t k = c < 4 ? (int32_t)below(64) : c < 8 ? (int32_t)(m / 10) : 63;
            ok = text_case(level, ws, m, k, 1 + (uint32_t)below(9), 3000, c < 2, &hits);
            cases++;
        }
    }
    tap(ok, "%s text lanes at word boundaries (m = 63 .. 300, k up to 63): %zu cases, %zu positions "
        "equal the scalar twin", ln, cases, hits);
    /* Many texts, some shorter than the lead-in, and one long text. */
    ok = 1;
    hits = cases = 0;
    for (int c = 0; c < 40 && ok; c++) {
        const uint32_t m = 20 + (uint32_t)below(130);
        ok = text_case(level, ws, m, (int32_t)(m / 10), 1 + (uint32_t)below(60), c % 2 ? 40 : 400,
                       c < 10, &hits);
        cases++;
    }
    for (int c = 0; c < 4 && ok; c++) {
        const uint32_t m = 101 + (uint32_t)below(50);
        ok = text_case(level, ws, m, (int32_t)(m / 10), 1, 50000, 0, &hits);
        cases++;
    }
    tap(ok, "%s text lanes, 1..60 texts of 1..400 bases and single 50 kb texts: %zu cases, %zu "
        "positions equal the scalar twin", ln, cases, hits);
}

/* Every block in the vector (gpuasm_text_lanes_full): every m up to 256,
 * k up to m - 1 (past 63 too: no cut-off to rely on), random and periodic
 * texts, many short texts and long ones. */
static void test_text_lanes_full(int level, gpuasm_lanes_ws *ws)
{
    const char *ln = gpuasm_simd_name(level);
    int ok = 1;
    size_t hits = 0, cases = 0;
    for (uint32_t m = 1; m <= GPUASM_LANES_FULL_M && ok; m++) {
        const int32_t ks[3] = { 0, (int32_t)(m / 10), (int32_t)below(m) };
        for (int q = 0; q < 3 && ok; q++) {
            for (int mode = 1; mode <= 2 && ok; mode++) {
                ok = text_case_as(level, ws, m, ks[q], 1 + (uint32_t)below(5), m > 128 ? 800 : 500,
                                  m <= 70 && q < 2, &hits, mode, q == 2 && m % 3 == 0 ? 1 + (uint32_t)below(12) : 0);
                cases++;
            }
        }
    }
    tap(ok, "%s text lanes (full; all positions, then local minima) m=1..%d, k up to m - 1, some periodic: "
        "%zu cases, %zu positions equal the scalar twin's (and the naive DP for m <= 70)", ln,
        GPUASM_LANES_FULL_M, cases, hits);
    ok = 1;
    hits = cases = 0;
    for (int c = 0; c < 24 && ok; c++) {
        const uint32_t m = c % 3 == 0 ? 150 : 20 + (uint32_t)below(237);
        for (int mode = 1; mode <= 2 && ok; mode++) {
            ok = text_case_as(level, ws, m, (int32_t)(m / 10), c % 4 ? 1 + (uint32_t)below(40) : 1,
                              c % 4 ? 300 : 20000, 0, &hits, mode, c % 2 ? 0 : 8);
            cases++;
        }
    }
    tap(ok, "%s text lanes (full; all, then minima), many short texts and 20 kb ones, periodic (8) and "
        "random: %zu cases, %zu positions equal the scalar twin's", ln, cases, hits);
    /* where the kernel must refuse */
    uint64_t peq[16 * 5] = { 0 };
    const gpuasm_lane_text one = { (const uint8_t *)"\x01", 1 };
    tap(gpuasm_text_lanes_full(level, ws, peq, GPUASM_LANES_FULL_M + 1, 1, &one, 1, 0) == -1 &&
            gpuasm_text_lanes_full(level, ws, peq, 10, 10, &one, 1, 1) == -1,
        "%s text lanes (full) refuse m > %d and k >= m", ln, GPUASM_LANES_FULL_M);
}

/* ---- (b) pattern lanes ------------------------------------------------------- */

static int pattern_case(int level, gpuasm_lanes_ws *ws, uint32_t n_pat, uint64_t n, int naive,
                        size_t *hits)
{
    const int al = (int)below(4);
    gpuasm_lane_pattern *pl = xmalloc(n_pat * sizeof *pl);
    uint8_t **pat = xmalloc(n_pat * sizeof *pat);
    uint64_t *peq = xmalloc((size_t)n_pat * 32 * sizeof(uint64_t));
    uint8_t *t = xmalloc(n);
    rnd_seq(t, n, (int)below(4));
    /* One-word patterns first, then two-word ones (65..128 bases), as the
     * kernel takes them; the word boundaries often. */
    const uint32_t n_narrow = (uint32_t)below(n_pat + 1);
    for (uint32_t i = 0; i < n_pat; i++) {
        const uint32_t m = i < n_narrow ? (chance(0.2) ? 64 - (uint32_t)below(3) : 1 + (uint32_t)below(64))
                                        : (chance(0.2) ? 65 + (uint32_t)below(2) + 62 * (uint32_t)below(2)
                                                       : 65 + (uint32_t)below(64));
        pat[i] = xmalloc(m);
        rnd_seq(pat[i], m, al);
        if (chance(0.5)) plant(t, n, below(n), pat[i], m, 0.1 * chance(0.7), al);
        gpuasm_myers_peq_nt16(peq + 32 * (size_t)i, pat[i], m);
        pl[i].peq = peq + 32 * (size_t)i;
        pl[i].m = m;
        pl[i].k = (int32_t)(chance(0.3) ? below(m) : m / 10);
    }
    int ok = gpuasm_pattern_lanes(level, ws, pl, n_pat, t, n) == 0;
    if (!ok) diag("pattern lanes returned an error");
    size_t pos = 0;
    jd_list ref = {0}, nv = {0};
    for (uint32_t i = 0; i < n_pat && ok; i++) {
        ref.n = 0;
        if (gpuasm_myers_cpu_pair(pat[i], pl[i].m, t, n, pl[i].k, collect, &ref) < 0) abort();
        *hits += ref.n;
        char what[96];
        snprintf(what, sizeof what, "%s pattern lanes pattern %u/%u m=%u k=%d n=%" PRIu64,
                 gpuasm_simd_name(level), i, n_pat, pl[i].m, pl[i].k, n);
        ok = same_stream(ws, &pos, i, &ref, what);
        if (ok && naive) {
            naive_list(pat[i], pl[i].m, t, n, pl[i].k, &nv);
            if (!same_list(&ref, &nv)) {
                diag("%s: the scalar twin differs from the naive DP", what);
                ok = 0;
            }
        }
    }
    if (ok && pos != ws->n_hit) {
        diag("pattern lanes: %zu hits with ids out of order or range", ws->n_hit - pos);
        ok = 0;
    }
    free(ref.a);
    free(nv.a);
    for (uint32_t i = 0; i < n_pat; i++) free(pat[i]);
    free(pat);
    free(pl);
    free(peq);
    free(t);
    return ok;
}

static void test_pattern_lanes(int level, gpuasm_lanes_ws *ws)
{
    int ok = 1;
    size_t hits = 0, cases = 0;
    for (int c = 0; c < 400 && ok; c++) {
        ok = pattern_case(level, ws, 1 + (uint32_t)below(40), 1 + below(c % 4 ? 300 : 3000), c < 100,
                          &hits);
        cases++;
    }
    tap(ok, "%s pattern lanes: %zu cases of 1..40 patterns (m 1..128, own k), %zu positions equal "
        "the scalar twin (and the naive DP on 100)", gpuasm_simd_name(level), cases, hits);
}

/* ---- (c) the filter ------------------------------------------------------------ */

static void test_filter(void)
{
    int ok = 1, ok_seeds = 1;
    size_t needed = 0, marked_filtered = 0, filtered = 0, texts = 0, windows = 0;
    gpuasm_seed *seeds = NULL;
    size_t seed_cap = 0;
    for (int c = 0; c < 60 && ok; c++) {
        /* 40 targets (some with IUPAC codes, some short) as patterns. */
        const uint32_t nt = 40;
        uint64_t *off = xmalloc((nt + 1) * sizeof(uint64_t));
        uint8_t *code = xmalloc(nt * 130);
        off[0] = 0;
        for (uint32_t t = 0; t < nt; t++) {
            const uint64_t m = 4 + below(120);
            rnd_seq(code + off[t], m, chance(0.2) ? 2 : 0);
            off[t + 1] = off[t] + m;
        }
        gpuasm_seqset tg = { nt, off, code };
        gpuasm_search_opt opt = { .max_diffs = c % 3 ? -1 : (int32_t)below(6), .error_rate = 0.05 + 0.1 * (c % 2) };
        gpuasm_qfilter f;
        if (gpuasm_qfilter_build(&f, &tg, &opt) < 0) abort();
        uint32_t *mark = calloc(nt, sizeof(uint32_t));
        for (int x = 0; x < 20 && ok; x++) {
            /* A read: random (N sometimes) with mutated copies of targets. */
            const uint64_t n = 50 + below(250);
            uint8_t *t = xmalloc(n);
            rnd_seq(t, n, x % 5 == 4 ? 2 : 1);
            for (int q = 0; q < 3; q++) {
                const uint32_t tt = (uint32_t)below(nt);
                plant(t, n, below(n), code + off[tt], (uint32_t)(off[tt + 1] - off[tt]), 0.08, 1);
            }
            const uint32_t stamp = (uint32_t)(c * 100 + x + 1);
            const int all = gpuasm_qfilter_mark(&f, t, n, mark, stamp);
            const int64_t ns = gpuasm_qfilter_seeds(&f, t, n, &seeds, &seed_cap);
            if (ns == -1) abort();
            if ((ns == -2) != all) {
                diag("filter: mark says %sfilterable, seeds say %sfilterable", all ? "un" : "", ns == -2 ? "un" : "");
                ok_seeds = 0;
            }
            texts++;
            /* Hamming: every window with <= k mismatches of a filtered
             * target is a seed (target, start). */
            for (uint32_t tt = 0; tt < nt && ok_seeds && ns >= 0; tt++) {
                const uint32_t m = (uint32_t)(off[tt + 1] - off[tt]);
                const int32_t k = gpuasm_pair_k(&opt, m);
                if (!gpuasm_pair_searched(m, k, n) || f.always[tt] || n < m) continue;
                int32_t *last = xmalloc(n * sizeof(int32_t));
                gpuasm_naive_hamming(code + off[tt], m, t, n, 0, last);
                for (uint64_t j = m - 1; j < n && ok_seeds; j++) {
                    if (last[j] > k) continue;
                    windows++;
                    const int64_t st = (int64_t)j + 1 - (int64_t)m;
                    int found = 0;
                    for (int64_t q = 0; q < ns && !found; q++) found = seeds[q].target == tt && seeds[q].start == st;
                    if (!found) {
                        diag("filter: target %u (m=%u k=%d) window at %" PRId64 " has %d mismatches but is no seed",
                             tt, m, k, st, last[j]);
                        ok_seeds = 0;
                    }
                }
                free(last);
            }
            for (uint32_t tt = 0; tt < nt && ok; tt++) {
                const uint32_t m = (uint32_t)(off[tt + 1] - off[tt]);
                const int32_t k = gpuasm_pair_k(&opt, m);
                if (!gpuasm_pair_searched(m, k, n)) continue;
                const int cand = all || f.always[tt] || mark[tt] == stamp;
                if (!f.always[tt] && !all) {
                    filtered++;
                    marked_filtered += mark[tt] == stamp;
                }
                int32_t *last = xmalloc(n * sizeof(int32_t));
                if (gpuasm_naive_dp(code + off[tt], m, t, n, last) < 0) abort();
                int has = 0;
                for (uint64_t j = 0; j < n; j++) has |= last[j] <= k;
                free(last);
                needed += has;
                if (has && !cand) {
                    diag("filter: target %u (m=%u k=%d) has a hit but is not a candidate", tt, m, k);
                    ok = 0;
                }
            }
            free(t);
        }
        free(mark);
        gpuasm_qfilter_free(&f);
        free(off);
        free(code);
    }
    tap(ok, "pigeonhole filter: every one of %zu (target, text) pairs with a hit is a candidate "
        "(%zu texts)", needed, texts);
    tap(ok && filtered > 0 && marked_filtered * 2 < filtered,
        "pigeonhole filter drops work: %zu of %zu filtered pairs are candidates", marked_filtered,
        filtered);
    tap(ok_seeds && windows > 0, "pigeonhole filter, hamming: all %zu windows with <= k mismatches are "
        "seeds", windows);
    free(seeds);
}

/* ---- (d) the targets' window index -------------------------------------------- */

/* One text tx[0 .. n) as the only target: its index (built on threads
 * threads), the end ranges of pattern p (m bases, k; edit distance) in
 * *rg, and the naive DP's last row in a new *last.  Returns the ranges'
 * count (or gpuasm_tindex_ranges's negative answer). */
static int64_t one_text_ranges_max(uint8_t *tx, uint64_t n, const uint8_t *p, uint32_t m, int32_t k,
                                   int threads, uint64_t max_hits, gpuasm_end_range **rg, int32_t **last)
{
    uint64_t off[2] = { 0, n };
    gpuasm_seqset tg = { 1, off, tx };
    gpuasm_tindex x;
    if (gpuasm_tindex_build(&x, &tg, (uint64_t)1 << 30, threads) != 0) abort();
    uint32_t in = 1;
    size_t cap = 0;
    *rg = NULL;
    const int64_t nr = gpuasm_tindex_ranges(&x, &tg, p, m, k, 0, &in, 1, max_hits, rg, &cap);
    gpuasm_tindex_free(&x);
    *last = xmalloc(n * sizeof(int32_t));
    if (gpuasm_naive_dp(p, m, tx, n, *last) < 0) abort();
    return nr;
}

static int64_t one_text_ranges(uint8_t *tx, uint64_t n, const uint8_t *p, uint32_t m, int32_t k, int threads,
                               gpuasm_end_range **rg, int32_t **last)
{
    return one_text_ranges_max(tx, n, p, m, k, threads, 0, rg, last);
}

/* --filter auto's hit bound (gpuasm_tindex_max_hits): a read of a period-8
 * text has thousands of piece hits in it and is declined (-2); a read of
 * a random text gets the same ranges as without the bound. */
static void test_tindex_hit_bound(void)
{
    const uint64_t n = 10000;
    const uint32_t m = 150;
    const int32_t k = 15;
    uint8_t *tx = xmalloc(n), *p = xmalloc(m);
    const uint8_t unit[8] = { 1, 2, 4, 8, 8, 4, 2, 1 };
    for (uint64_t i = 0; i < n; i++) tx[i] = unit[i % 8];
    memcpy(p, tx + 1003, m);
    p[40] = p[40] == 1 ? 2 : 1;
    gpuasm_end_range *rg, *rg0;
    int32_t *last, *last0;
    const int64_t per = one_text_ranges_max(tx, n, p, m, k, 1, gpuasm_tindex_max_hits(n, 1), &rg, &last);
    const int64_t per0 = one_text_ranges_max(tx, n, p, m, k, 1, 0, &rg0, &last0);
    tap(per == -2 && per0 > 0, "window index hit bound: a period-8 read in 10 kb of period 8 is declined "
        "(%" PRId64 ") at --filter auto, ranged without the bound (%" PRId64 " ranges)", per, per0);
    free(rg); free(rg0); free(last); free(last0);
    int ok = 1;
    for (int c = 0; c < 20 && ok; c++) {
        rnd_seq(tx, n, 0);
        memcpy(p, tx + below(n - m), m);
        const int64_t a = one_text_ranges_max(tx, n, p, m, k, 1, gpuasm_tindex_max_hits(n, 1), &rg, &last);
        const int64_t b = one_text_ranges_max(tx, n, p, m, k, 1, 0, &rg0, &last0);
        ok = a == b && a > 0 && !memcmp(rg, rg0, (size_t)a * sizeof *rg);
        free(rg); free(rg0); free(last); free(last0);
    }
    tap(ok, "window index hit bound: reads of random 10 kb texts get the same ranges with the bound");
    free(tx);
    free(p);
}

/* The pattern p (m bases, cut into `pieces`) written into tx with one
 * operation in each piece q at base at[q]: op[q] 0 a substitution, 1 a
 * random base inserted before it, 2 its deletion, -1 none (intact).  The
 * bases written. */
static uint64_t plant_ops(uint8_t *tx, const uint8_t *p, uint32_t m, uint32_t pieces, const int *op,
                          const uint32_t *at)
{
    uint64_t o = 0;
    for (uint32_t q = 0; q < pieces; q++)
        for (uint32_t i = q * m / pieces; i < (q + 1) * m / pieces; i++) {
            if (i == at[q] && op[q] == 0) { tx[o++] = p[i] == 1 ? 2 : 1; continue; }
            if (i == at[q] && op[q] == 1) tx[o++] = (uint8_t)(1u << (rnd() & 3));   /* inserted */
            if (i == at[q] && op[q] == 2) continue;                                 /* deleted */
            tx[o++] = p[i];
        }
    return o;
}

/* Does every end j < n with last[j] <= k lie in one of the nr ranges?  1,
 * or 0 with the first that does not in *bad. */
static int ends_in_ranges(const int32_t *last, uint64_t n, int32_t k, const gpuasm_end_range *rg, int64_t nr,
                          uint64_t *bad)
{
    for (uint64_t j = 0; j < n; j++) {
        if (last[j] > k) continue;
        int in_range = 0;
        for (int64_t q = 0; q < nr; q++) in_range |= rg[q].lo <= j && j <= rg[q].hi;
        if (!in_range) {
            *bad = j;
            return 0;
        }
    }
    return 1;
}

static void test_tindex(void)
{
    int ok = 1;
    size_t ends = 0, cases = 0, unfiltered = 0;
    uint64_t covered = 0, text_total = 0;
    for (int c = 0; c < 50 && ok; c++) {
        /* 1..6 targets of up to 6 kb, some with IUPAC codes and N runs. */
        const uint32_t nt = 1 + (uint32_t)below(6);
        uint64_t *off = xmalloc((nt + 1) * sizeof(uint64_t));
        uint8_t *code = xmalloc((size_t)nt * 6000);
        off[0] = 0;
        for (uint32_t t = 0; t < nt; t++) {
            const uint64_t n = 1 + below(6000);
            rnd_seq(code + off[t], n, chance(0.3) ? 2 : 0);
            if (chance(0.3)) {   /* an N run */
                const uint64_t a = below(n), l = 1 + below(40);
                for (uint64_t i = a; i < a + l && i < n; i++) code[off[t] + i] = 15;
            }
            off[t + 1] = off[t] + n;
        }
        gpuasm_seqset tg = { nt, off, code };
        gpuasm_tindex x;
        if (gpuasm_tindex_build(&x, &tg, (uint64_t)1 << 30, 1 + (int)below(8)) != 0) abort();
        if (c % 2) x.nb_min_row = 0;   /* the neighbour rule where it applies, else the pairing */
        x.simd = c % 4 == 1 ? gpuasm_simd_detect() : 0;   /* its row scan in SIMD or scalar */
        uint32_t *in = xmalloc(nt * sizeof(uint32_t));
        for (uint32_t t = 0; t < nt; t++) in[t] = 7;
        gpuasm_end_range *rg = NULL;
        size_t cap = 0;
        for (int r = 0; r < 15 && ok; r++) {
            /* A read: a mutated piece of a target (often over an N run or
             * an end), or random; N in it sometimes. */
            const uint32_t m = 20 + (uint32_t)below(280);
            uint8_t *p = xmalloc(2 * (size_t)m + 2);
            const uint32_t t0 = (uint32_t)below(nt);
            const uint64_t n0 = off[t0 + 1] - off[t0];
            if (chance(0.8) && n0 > 1) {
                const uint64_t a = below(n0);
                uint8_t *src = xmalloc(m);
                for (uint32_t i = 0; i < m; i++) {
                    const uint8_t b = code[off[t0] + (a + i) % n0];
                    src[i] = (b == 1 || b == 2 || b == 4 || b == 8) ? b : (uint8_t)(1u << (rnd() & 3));
                }
                uint64_t l = mutate(src, m, 0.02 + 0.06 * chance(0.5), 0, p);
                free(src);
                while (l < m) p[l++] = 1;
            } else {
                rnd_seq(p, m, 0);
            }
            if (chance(0.3)) p[below(m)] = 0;   /* an N in the read */
            const int hamming = r % 3 == 2;
            const int32_t k = chance(0.5) ? (int32_t)(m / 10) : (int32_t)below(m / 9 + 1);
            const int64_t nr = gpuasm_tindex_ranges(&x, &tg, p, m, k, hamming, in, 7, 0, &rg, &cap);
            cases++;
            if (nr == -2) { unfiltered++; free(p); continue; }
            if (nr < 0) abort();
            for (uint32_t t = 0; t < nt && ok; t++) {
                const uint64_t n = off[t + 1] - off[t];
                int32_t *last = xmalloc(n * sizeof(int32_t));
                if (hamming) gpuasm_naive_hamming(p, m, code + off[t], n, 0, last);
                else if (gpuasm_naive_dp(p, m, code + off[t], n, last) < 0) abort();
                if (!x.n_amb) text_total += n;   /* the coverage of targets without IUPAC codes */
                int64_t q = 0;
                for (uint64_t j = 0; j < n && ok; j++) {
                    if (last[j] > k) continue;
                    ends++;
                    while (q < nr && (rg[q].target < t || (rg[q].target == t && rg[q].hi < j))) q++;
                    if (q >= nr || rg[q].target != t || rg[q].lo > j) {
                        diag("window index: %s m=%u k=%d target %u end %" PRIu64 " D=%d is in no range",
                             hamming ? "hamming" : "edit", m, k, t, j, last[j]);
                        ok = 0;
                    }
                }
                free(last);
            }
            for (int64_t q = 0; q < nr && !x.n_amb; q++) covered += rg[q].hi - rg[q].lo + 1;
            free(p);
        }
        free(rg);
        free(in);
        gpuasm_tindex_free(&x);
        free(off);
        free(code);
    }
    tap(ok, "targets' window index: all %zu ends with D <= k lie in the end ranges (%zu reads, %zu "
        "not filterable)", ends, cases, unfiltered);
    /* Hand-made: the only intact piece lies over an N run (not indexed),
     * every other piece has one substitution, so only the ambiguity zone
     * can find the occurrence; the piece first, in the middle, last. */
    int ok2 = 1;
    for (int c = 0; c < 60 && ok2; c++) {
        const uint32_t m = 60 + (uint32_t)below(200);
        const int32_t k = (int32_t)(m / 10);
        const uint32_t pieces = (uint32_t)k + 1;
        const uint32_t keep = c % 3 == 0 ? 0 : c % 3 == 1 ? pieces / 2 : pieces - 1;
        const uint64_t pre = 500 + below(500), n = pre + m + 500;
        uint8_t *tx = xmalloc(n), *p = xmalloc(m);
        rnd_seq(tx, n, 0);
        memcpy(p, tx + pre, m);
        const uint32_t a = keep * m / pieces, b = (keep + 1) * m / pieces;
        for (uint32_t i = a; i < b; i++) tx[pre + i] = 15;   /* N under the kept piece */
        for (uint32_t q = 0; q < pieces; q++) {
            if (q == keep) continue;
            const uint32_t i = q * m / pieces + (uint32_t)below((q + 1) * m / pieces - q * m / pieces);
            p[i] = (uint8_t)(p[i] == 1 ? 2 : 1);
        }
        gpuasm_end_range *rg;
        int32_t *last;
        const int64_t nr = one_text_ranges(tx, n, p, m, k, 1 + (int)below(8), &rg, &last);
        const uint64_t j = pre + m - 1;
        int in_range = 0;
        for (int64_t q = 0; q < nr; q++) in_range |= rg[q].lo <= j && j <= rg[q].hi;
        if (last[j] > k || !in_range) {
            diag("window index, piece %u of %u over N: end %" PRIu64 " D=%d (k %d) %s", keep, pieces, j,
                 last[j], k, in_range ? "in a range" : "in no range");
            ok2 = 0;
        }
        free(last);
        free(rg);
        free(tx);
        free(p);
    }
    tap(ok2, "targets' window index: 60 occurrences whose only intact piece lies over N are in the "
        "ambiguity zones");
    /* Hand-made, the two-piece rule (prefilter.h): k + 2 pieces, exactly
     * two of them intact (any two, near or far apart), one edit in each
     * other (substitution, insertion or deletion), so the occurrence has
     * k edits and two intact pieces whose ends disagree by the indels
     * between them; random text around it. */
    int ok3 = 1;
    size_t two_cases = 0;
    for (int c = 0; c < 200 && ok3; c++) {
        const int32_t k = 1 + (int32_t)below(16);
        const uint32_t m = (uint32_t)(k + 2) * (8 + (uint32_t)below(4)) + (uint32_t)below((uint64_t)k + 2);
        const uint32_t pieces = (uint32_t)k + 2;
        const uint32_t i1 = (uint32_t)below(pieces), i2 = (i1 + 1 + (uint32_t)below(pieces - 1)) % pieces;
        const uint64_t pre = 300 + below(300), n = pre + 2 * (uint64_t)m + 300;
        uint8_t *tx = xmalloc(n), *p = xmalloc(m);
        rnd_seq(p, m, 0);
        /* the text: the pattern with the edits, at pre */
        rnd_seq(tx, n, 0);
        int op[64];
        uint32_t at[64];
        for (uint32_t q = 0; q < pieces; q++) {
            at[q] = q * m / pieces + (uint32_t)below((q + 1) * m / pieces - q * m / pieces);
            op[q] = q == i1 || q == i2 ? -1 : (int)below(3);
        }
        const uint64_t o = plant_ops(tx + pre, p, m, pieces, op, at);
        gpuasm_end_range *rg;
        int32_t *last;
        const int64_t nr = one_text_ranges(tx, n, p, m, k, 1, &rg, &last);
        if (nr < 0) {
            diag("two pieces: m=%u k=%d not filtered (%" PRId64 ")", m, k, nr);
            ok3 = 0;
        }
        uint64_t j;
        if (ok3 && !ends_in_ranges(last, n, k, rg, nr, &j)) {
            diag("two pieces: m=%u k=%d intact %u and %u: end %" PRIu64 " D=%d in no range", m, k, i1, i2, j,
                 last[j]);
            ok3 = 0;
        }
        two_cases += last[pre + o - 1] <= k;
        free(last);
        free(rg);
        free(tx);
        free(p);
    }
    tap(ok3 && two_cases >= 150, "targets' window index, k + 2 pieces with exactly two intact: every end with "
        "D <= k lies in a range (200 cases, %zu with the planted end at D <= k)", two_cases);
    /* Hand-made, the neighbour rule (prefilter.h): k + 2 pieces of 8 to 10
     * bases, piece j intact and piece j + 1 with one operation (anywhere
     * in it, a text insertion before its first base too), the last piece
     * intact, one operation in every other piece: k operations, and j the
     * only intact piece with a neighbour of at most one (the last has
     * none), so only the rule's own witness finds it; hamming (mismatches
     * only) in a third of the cases. */
    int ok4 = 1;
    size_t nb_cases = 0;
    for (int c = 0; c < 300 && ok4; c++) {
        const int32_t k = 2 + (int32_t)below(15);
        const uint32_t pieces = (uint32_t)k + 2;
        const uint32_t m = pieces * (8 + (uint32_t)below(3)) + (uint32_t)below(pieces);
        const uint32_t jw = (uint32_t)below(pieces - 2);   /* the witness: jw + 1 < pieces - 1 */
        const int hamming = c % 3 == 2;
        const uint64_t pre = 300 + below(300), n = pre + 2 * (uint64_t)m + 300;
        uint8_t *tx = xmalloc(n), *p = xmalloc(m);
        rnd_seq(p, m, 0);
        rnd_seq(tx, n, 0);
        /* 24 copies of the witness piece before the occurrence, so that its
         * row holds more entries than the rule's SIMD scan takes a step
         * (the true one among them) */
        const uint32_t wa = jw * m / pieces, wb = (jw + 1) * m / pieces;
        for (int d = 0; d < 24; d++) memcpy(tx + below(pre - (wb - wa)), p + wa, wb - wa);
        int op[64];
        uint32_t at[64];
        for (uint32_t q = 0; q < pieces; q++) {
            const uint32_t a = q * m / pieces, b = (q + 1) * m / pieces;
            /* the neighbour's operation near its start half of the time */
            at[q] = q == jw + 1 && chance(0.5) ? a + (uint32_t)below(2) : a + (uint32_t)below(b - a);
            op[q] = q == jw || q == pieces - 1 ? -1 : hamming ? 0 : (int)below(3);
        }
        const uint64_t o = plant_ops(tx + pre, p, m, pieces, op, at);
        uint64_t off[2] = { 0, n };
        gpuasm_seqset tg = { 1, off, tx };
        gpuasm_tindex x;
        if (gpuasm_tindex_build(&x, &tg, (uint64_t)1 << 30, 1) != 0) abort();
        x.nb_min_row = 0;   /* the rule in this small text too */
        x.simd = c % 2 ? gpuasm_simd_detect() : 0;   /* its row scan in SIMD or scalar */
        uint32_t in = 1;
        size_t cap = 0;
        gpuasm_end_range *rg = NULL;
        const int64_t nr = gpuasm_tindex_ranges(&x, &tg, p, m, k, hamming, &in, 1, 0, &rg, &cap);
        gpuasm_tindex_free(&x);
        int32_t *last = xmalloc(n * sizeof(int32_t));
        if (hamming) gpuasm_naive_hamming(p, m, tx, n, 0, last);
        else if (gpuasm_naive_dp(p, m, tx, n, last) < 0) abort();
        if (nr < 0) {
            diag("neighbour rule: m=%u k=%d not filtered (%" PRId64 ")", m, k, nr);
            ok4 = 0;
        }
        uint64_t j;
        if (ok4 && !ends_in_ranges(last, n, k, rg, nr, &j)) {
            diag("neighbour rule: %s m=%u k=%d witness %u: end %" PRIu64 " D=%d in no range",
                 hamming ? "hamming" : "edit", m, k, jw, j, last[j]);
            ok4 = 0;
        }
        nb_cases += last[pre + o - 1] <= k;
        free(last);
        free(rg);
        free(tx);
        free(p);
    }
    tap(ok4 && nb_cases >= 250, "targets' window index, k + 2 pieces whose only witness of the neighbour rule "
        "is one intact piece before a piece of one operation: every end with D <= k lies in a range (300 "
        "cases, %zu with the planted end at D <= k)", nb_cases);
    tap(ok && text_total && covered * 4 < text_total,
        "targets' window index: the ranges cover %.1f%% of the text of targets without IUPAC codes",
        text_total ? 100.0 * (double)covered / (double)text_total : 0.0);
}


/* ---- (e) the index built on threads = the naive index ------------------------- */

/* The index as prefilter.h defines it, naively: every window of Q single
 * bases inside one target, keyed by its bases, a row per key sorted by
 * (the EXT codes after it, 4 bits each, 4 for a non-single code or past
 * the buffer; position); the runs of ambiguous codes inside a target. */
typedef struct { uint32_t key; uint32_t ext; uint32_t pos; } naive_win;

static int cmp_naive_win(const void *a, const void *b)
{
    const naive_win *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->ext != y->ext) return x->ext < y->ext ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int single2(uint8_t c)
{
    return c == 1 ? 0 : c == 2 ? 1 : c == 4 ? 2 : c == 8 ? 3 : -1;
}

/* 0 when x is the naive index of tg; else 1 with a diagnostic. */
static int tindex_is_naive(const gpuasm_tindex *x, const gpuasm_seqset *tg, const char *what)
{
    const uint64_t total = tg->off[tg->n];
    const uint32_t n_keys = (uint32_t)1 << (2 * GPUASM_QF_Q);
    naive_win *w = xmalloc((total ? total : 1) * sizeof *w);
    uint64_t nw = 0, n_amb = 0;
    int bad = 0;
    for (uint32_t t = 0; t < tg->n; t++) {
        for (uint64_t g = tg->off[t]; g < tg->off[t + 1]; g++) {
            const int amb = single2(tg->code[g]) < 0;
            if (amb && (g == tg->off[t] || single2(tg->code[g - 1]) >= 0)) {   /* a run starts */
                uint64_t e = g;
                while (e + 1 < tg->off[t + 1] && single2(tg->code[e + 1]) < 0) e++;
                if (n_amb >= x->n_amb || x->amb[2 * n_amb] != g || x->amb[2 * n_amb + 1] != e) bad = 1;
                n_amb++;
            }
            if (g + GPUASM_QF_Q > tg->off[t + 1]) continue;
            uint32_t key = 0, ext = 0;
            int ok = 1;
            for (int i = 0; i < GPUASM_QF_Q && ok; i++) {
                const int b = single2(tg->code[g + (uint64_t)i]);
                ok = b >= 0;
                key = key << 2 | (uint32_t)(b & 3);
            }
            if (!ok) continue;
            for (int i = 0; i < GPUASM_QF_EXT; i++) {
                const uint64_t y = g + GPUASM_QF_Q + (uint64_t)i;
                const int b = y < total ? single2(tg->code[y]) : -1;
                ext = ext << 4 | (uint32_t)(b < 0 ? 4 : b);
            }
            w[nw].key = key;
            w[nw].ext = ext;
            w[nw++].pos = (uint32_t)g;
        }
    }
    qsort(w, nw, sizeof *w, cmp_naive_win);
    if (n_amb != x->n_amb || nw != x->n_pos || x->total != total || x->start[0] != 0 ||
        x->start[n_keys] != nw)
        bad = 1;
    for (uint64_t i = 0; i < nw && !bad; i++) {
        if (x->pos[i] != w[i].pos || x->start[w[i].key] > i || x->start[w[i].key + 1] <= i) bad = 1;
        if (x->ext4[i] != (uint16_t)(w[i].ext >> 16)) bad = 1;   /* the first 4 extension codes */
        uint16_t e8 = 0;   /* all 8, 2 bits each, a 4 (no single base) as 0 */
        for (int c = GPUASM_QF_EXT - 1; c >= 0; c--) {
            const uint32_t d = w[i].ext >> (4 * c) & 15;
            e8 = (uint16_t)(e8 << 2 | (d < 4 ? d : 0));
        }
        if (x->ext8[i] != e8) bad = 1;
    }
    /* sub[4 key + v - 1]: the row's first window whose first extension
     * code is >= v; tof: the target of every 4,096th buffer position */
    for (uint32_t k = 0; k < n_keys && !bad; k++)
        for (uint32_t v = 1; v <= 4 && !bad; v++) {
            uint64_t i = x->start[k];
            while (i < x->start[k + 1] && w[i].ext >> 28 < v) i++;
            if (x->sub[4 * (size_t)k + v - 1] != i) bad = 1;
        }
    for (uint64_t g = 0; g < total && !bad; g += 4096) {
        uint32_t t = 0;
        while (tg->off[t + 1] <= g) t++;
        if (x->tof[g >> 12] != t) bad = 1;
    }
    for (uint32_t k = 0; k < n_keys && !bad; k++)
        if (x->start[k] > x->start[k + 1]) bad = 1;
    if (bad)
        diag("%s: the index (%" PRIu64 " windows, %zu ambiguous runs) is not the naive one (%" PRIu64
             " windows, %" PRIu64 " runs)", what, x->n_pos, x->n_amb, nw, n_amb);
    free(w);
    return bad;
}

/* Two indexes equal byte for byte. */
static int tindex_same(const gpuasm_tindex *a, const gpuasm_tindex *b)
{
    const size_t rows = ((size_t)1 << (2 * GPUASM_QF_Q)) + 1;
    return a->n_pos == b->n_pos && a->total == b->total && a->n_amb == b->n_amb &&
           !memcmp(a->start, b->start, rows * sizeof(uint32_t)) &&
           (!a->n_pos || !memcmp(a->pos, b->pos, a->n_pos * sizeof(uint32_t))) &&
           (!a->n_pos || !memcmp(a->ext4, b->ext4, a->n_pos * sizeof(uint16_t))) &&
           (!a->n_pos || !memcmp(a->ext8, b->ext8, a->n_pos * sizeof(uint16_t))) &&
           !memcmp(a->sub, b->sub, (rows - 1) * 4 * sizeof(uint32_t)) &&
           (!a->n_amb || !memcmp(a->amb, b->amb, a->n_amb * 2 * sizeof(uint64_t)));
}

/* Build tg's index on 1 thread and on each of threads[]: every build is
 * the naive index.  Returns the number of builds that were not. */
static int tindex_threads_case(const gpuasm_seqset *tg, const char *what, size_t *builds)
{
    static const int threads[] = { 2, 3, 4, 7, 16, 64 };
    gpuasm_tindex one;
    if (gpuasm_tindex_build(&one, tg, (uint64_t)1 << 30, 1) != 0) abort();
    int bad = tindex_is_naive(&one, tg, what);
    (*builds)++;
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
        gpuasm_tindex x;
        if (gpuasm_tindex_build(&x, tg, (uint64_t)1 << 30, threads[i]) != 0) abort();
        if (!tindex_same(&one, &x)) {
            diag("%s: the index built on %d threads differs from the one-thread build", what, threads[i]);
            bad++;
        }
        (*builds)++;
        gpuasm_tindex_free(&x);
    }
    gpuasm_tindex_free(&one);
    return bad;
}

static void test_tindex_threads(void)
{
    /* Random target sets: many short targets (window and run boundaries
     * at every share boundary sooner or later), empty ones, IUPAC codes,
     * N runs, up to ~300 kb (shares of GPUASM_TINDEX_MIN_SHARE bases for
     * up to ~70 threads). */
    int bad = 0;
    size_t builds = 0, sets = 0;
    for (int c = 0; c < 40 && !bad; c++) {
        const uint32_t nt = 1 + (uint32_t)below(c % 4 == 0 ? 400 : 8);
        const uint64_t maxlen = c % 4 == 0 ? 800 : 40000;
        uint64_t *off = xmalloc((nt + 1) * sizeof(uint64_t));
        uint8_t *code = xmalloc((size_t)(nt * maxlen) + 1);
        off[0] = 0;
        for (uint32_t t = 0; t < nt; t++) {
            const uint64_t n = chance(0.05) ? 0 : below(maxlen + 1);
            rnd_seq(code + off[t], n, chance(0.3) ? 2 : 0);
            for (int r = 0; r < 3 && n; r++) {
                if (!chance(0.3)) continue;   /* an N run */
                const uint64_t a = below(n), l = 1 + below(30);
                for (uint64_t i = a; i < a + l && i < n; i++) code[off[t] + i] = 15;
            }
            off[t + 1] = off[t] + n;
        }
        gpuasm_seqset tg = { nt, off, code };
        char what[80];
        snprintf(what, sizeof what, "random set %d (%u targets, %" PRIu64 " bases)", c, nt, off[nt]);
        bad += tindex_threads_case(&tg, what, &builds);
        sets++;
        free(off);
        free(code);
    }
    tap(!bad, "targets' index on 2-64 threads: byte for byte the one-thread build, and both the naive "
        "index (%zu sets with IUPAC codes, N runs, empty targets; %zu builds)", sets, builds);
    /* Real genomes: the four of the shared data (skipped without them). */
    const char *data = getenv("GPUASM_SHARED_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/genomes/lambda_NC_001416.1.fasta", data && *data ? data : "../shared/data");
    FILE *fp = fopen(path, "r");
    if (!fp) {
        tap(1, "# SKIP targets' index on threads, real genomes: no %s", path);
        return;
    }
    fclose(fp);
    static const char *genomes[] = { "phiX174_NC_001422.1.fasta", "lambda_NC_001416.1.fasta",
                                     "measles_K01711.1.fasta", "ebola_G5012.3_consensus.fasta" };
    /* One set of the four: their codes in one buffer. */
    uint64_t off[5] = { 0 };
    uint8_t *code = NULL;
    for (int g = 0; g < 4; g++) {
        gpuasm_targets t;
        char err[512];
        snprintf(path, sizeof path, "%s/genomes/%s", data && *data ? data : "../shared/data", genomes[g]);
        if (gpuasm_targets_load(path, 0, &t, err, sizeof err) < 0) {
            diag("%s", err);
            tap(0, "targets' index on threads, real genomes: %s loads", path);
            free(code);
            return;
        }
        const uint64_t n = t.off[t.n];
        code = realloc(code, off[g] + n + 1);
        if (!code) abort();
        memcpy(code + off[g], t.code, n);
        off[g + 1] = off[g] + n;
        gpuasm_targets_free(&t);
    }
    gpuasm_seqset tg = { 4, off, code };
    builds = 0;
    int bad_real = tindex_threads_case(&tg, "the four genomes", &builds);
    /* With IUPAC codes and N runs written into them. */
    for (uint64_t i = 0; i < off[4]; i += 1 + below(2000)) code[i] = chance(0.5) ? 15 : (uint8_t)(1 + below(15));
    bad_real += tindex_threads_case(&tg, "the four genomes with IUPAC codes", &builds);
    tap(!bad_real, "targets' index on 2-64 threads, the four genomes (%" PRIu64 " bases; as they are and "
        "with IUPAC codes and N written in): the one-thread build and the naive index (%zu builds)",
        off[4], builds);
    free(code);
}

int main(void)
{
    const char *seed_s = getenv("GPUASM_TEST_SEED");
    const uint64_t seed = seed_s && *seed_s ? strtoull(seed_s, NULL, 0) : 20251124;
    const int have = gpuasm_simd_detect();
    printf("# seed %" PRIu64 ", this processor: %s\n", seed, gpuasm_simd_name(have));
    gpuasm_lanes_ws ws;
    memset(&ws, 0, sizeof ws);
    for (int level = GPUASM_SIMD_SSE41; level < GPUASM_N_SIMD; level++) {
        if (level > have) {
            tap(1, "# SKIP %s: this processor does not have it", gpuasm_simd_name(level));
            continue;
        }
        rng = seed ^ (uint64_t)level;
        test_text_lanes(level, &ws);
        test_text_lanes_full(level, &ws);
        test_pattern_lanes(level, &ws);
    }
    rng = seed ^ 0xf117;
    test_filter();
    rng = seed ^ 0x7d3;
    test_tindex();
    test_tindex_hit_bound();
    rng = seed ^ 0x7e4;
    test_tindex_threads();
    gpuasm_lanes_ws_free(&ws);
    printf("1..%d\n", n_tests);
    printf("# %d of %d failed\n", n_failed, n_tests);
    return n_failed ? 1 : 0;
}
