/* SPDX-License-Identifier: MIT */
/* test_partial_cut.c -- the CPU ends pass with Ukkonen's cut-off
 * (kernels/ends/partial_cut.h) against the full one (kernels/partial.h
 * gpuasm_partial_best, the GPU's per-item code too): the same best partial
 * occurrence (aligned length and distance) at both ends, for patterns of
 * 65 to 3,000 bases (one to 47 words), texts shorter and longer than the
 * window, texts whose end holds a mutated prefix (or whose start a mutated
 * suffix) of the pattern and unrelated ones, -k and -e, significance
 * floors, the given omin, IUPAC codes in the pattern, N (code 0) in the
 * text, the pattern reverse-complemented; and the cut-off's bands run as a
 * wavefront on 1 + 3 threads (kernels/bands.h), bands of 4 and 8 blocks in
 * turn: the same answer.  Counts
 * how many cases have an occurrence, so that the test cannot pass on
 * "none" alone.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/defaults.h"
#include "kernels/bands.h"
#include "kernels/ends/partial_cut.h"
#include "kernels/myers/myers_cpu.h"
#include "kernels/partial.h"
#include "search/search.h"
#include "tap.h"

static const uint8_t acgt[4] = { 1, 2, 4, 8 };

/* The defaults with -k below(kbound) (30%) or -e in [0.02, 0.02 + espan). */
static gpuasm_search_opt random_opt(uint32_t kbound, double espan)
{
    gpuasm_defaults d;
    gpuasm_defaults_init(&d);
    gpuasm_search_opt o = d.search;
    if (chance(0.3)) {
        o.max_diffs = (int32_t)below(kbound);
    } else {
        o.max_diffs = -1;
        o.error_rate = 0.02 + espan * (double)(rnd() % 1000) / 1000.0;
    }
    return o;
}

static void drop_hit(void *ctx, uint64_t j, int32_t d)
{
    (void)ctx;
    (void)j;
    (void)d;
}

/* The text end's answer from the whole-text band search's last column
 * (myers_cpu.h's want_end, gpuasm_partial_cut_rows: what the CPU walk uses
 * for patterns of 64 words or more) = the ends pass's own window, at the
 * search's k >= kmax; patterns of 4,033 to 4,800 bases, texts that end in
 * a mutated prefix or not, -e and -k; every other case as a wavefront,
 * bands of 4 and 8 blocks. */
static void search_end_cases(void)
{
    enum { MAXM = 4800, MAXN = 14000 };
    static uint8_t pat[MAXM], txt[MAXN], tmp[2 * MAXM];
    uint64_t *ws_cut = xmalloc(gpuasm_partial_cut_ws_words(MAXM) * sizeof(uint64_t));
    uint64_t *peq = xmalloc(gpuasm_myers_peq_words(MAXM) * sizeof(uint64_t));
    gpuasm_myers_cols cols;
    memset(&cols, 0, sizeof cols);
    int ok = 1, cases = 0, found = 0;
    for (int c = 0; c < 40 && ok; c++) {
        const uint32_t m = 4033u + (uint32_t)below(MAXM - 4033);
        for (uint32_t i = 0; i < m; i++) pat[i] = acgt[rnd() & 3];
        if (chance(0.3)) pat[below(m)] = 5;
        const gpuasm_search_opt o = random_opt(m / 5 + 1, 0.2);
        const int32_t sfloor = chance(0.5) ? 0 : 5 + (int32_t)below(20);
        const uint32_t omin = 1u + (uint32_t)below(chance(0.5) ? 20 : m - 1);
        uint32_t n = (uint32_t)below(6000);
        for (uint32_t j = 0; j < n; j++) txt[j] = acgt[rnd() & 3];
        if (chance(0.7)) {
            const uint32_t p = omin + (uint32_t)below(m - omin);
            const uint32_t l = mutate_nt16(pat, p, chance(0.5) ? 0.01 : 0.06, tmp);
            memcpy(txt + n, tmp, l);
            n += l;
        }
        if (n == 0) txt[n++] = 1;
        const int32_t kmax = gpuasm_partial_kf(&o, sfloor, m - 1u, m);
        const int32_t k = kmax < 0 ? 0 : kmax + (int32_t)below(50);   /* the search's k >= kmax */
        const gpuasm_seqview pv = { pat, m, 0 }, tv = { txt, n, 0 };
        const gpuasm_partial want = gpuasm_partial_best_cut(&o, omin, sfloor, &pv, &tv, 0, ws_cut);
        gpuasm_myers_peq_nt16(peq, pat, m);
        cols.want_end = 1;
        if (c % 2) gpuasm_bands_set_helpers(3, 1);   /* every other case as a wavefront */
        gpuasm_bands_set_blocks(c % 4 < 2 ? 8 : 4);
        const int rc = gpuasm_myers_run_nt16(peq, m, txt, n, k, drop_hit, NULL, &cols);
        gpuasm_bands_set_helpers(0, 0);
        gpuasm_bands_set_blocks(0);
        if (rc < 0 || !cols.end_ok) {
            diag("case %d: the search left no end state", c);
            ok = 0;
            break;
        }
        const size_t W = (m + 63u) / 64u;
        const uint64_t *e = cols.end_w;
        const gpuasm_partial got = kmax < 0 ? (gpuasm_partial){ 0, 0 }
                                            : gpuasm_partial_cut_rows(&o, omin, sfloor, &pv, &tv, 0, kmax, cols.end_rows,
                                                                      e, e + W, e + 2 * W, e + 3 * W, e + 4 * W);
        cases++;
        found += want.plen > 0;
        if (got.plen != want.plen || got.dist != want.dist) {
            diag("case %d: m %u n %u omin %u k %d kmax %d: window (%u, %d), search (%u, %d)", c, m, n, omin, k, kmax,
                 want.plen, want.dist, got.plen, got.dist);
            ok = 0;
        }
    }
    tap(ok && found > cases / 4, "the text end from the search's last column = the ends pass (%d cases, %d with one)",
        cases, found);
    gpuasm_myers_cols_free(&cols);
    free(peq);
    free(ws_cut);
}

int main(void)
{
    rng_seed_from_env();
    static uint8_t pat[3100], txt[9000], tmp[9000];
    uint64_t *ws_full = xmalloc(gpuasm_partial_ws_words(3100) * sizeof(uint64_t));
    uint64_t *ws_cut = xmalloc(gpuasm_partial_cut_ws_words(3100) * sizeof(uint64_t));
    static const uint32_t lens[] = { 65, 100, 128, 129, 150, 200, 300, 640, 1000, 3000 };
    int ok = 1, cases = 0, found = 0;
    for (int c = 0; c < 1500 && ok; c++) {
        const uint32_t m = lens[rnd() % (sizeof lens / sizeof lens[0])] + (uint32_t)below(20);
        for (uint32_t i = 0; i < m; i++) pat[i] = acgt[rnd() & 3];
        if (chance(0.2)) pat[below(m)] = 5;    /* R */
        if (chance(0.1)) pat[below(m)] = 15;   /* N */
        const gpuasm_search_opt o = random_opt(m / 4 + 1, 0.28);
        const int32_t sfloor = chance(0.5) ? 0 : (int32_t)below(40);
        const uint32_t omin = 1 + (uint32_t)below(m - 1);
        const int at_start = (int)(rnd() & 1);
        /* the text: related at the end looked at, or unrelated */
        uint32_t n = 0;
        const uint32_t ntx = (uint32_t)below(2 * m + 200) + 1;
        for (uint32_t i = 0; i < ntx; i++) txt[i] = acgt[rnd() & 3];
        n = ntx;
        if (chance(0.7)) {
            const uint32_t p = omin + (uint32_t)below(m - omin);   /* aligned bases */
            const uint32_t l = mutate_nt16(at_start ? pat + (m - p) : pat, p, chance(0.5) ? 0.01 : 0.08, tmp);
            if (l < 9000 - ntx) {
                if (at_start) {   /* the suffix at the text's start */
                    memmove(txt + l, txt, ntx);
                    memcpy(txt, tmp, l);
                } else {
                    memcpy(txt + ntx, tmp, l);
                }
                n = ntx + l;
            }
        }
        if (chance(0.2)) txt[below(n)] = 0;   /* a read's N */
        const int rc = chance(0.3);
        const gpuasm_seqview pv = { pat, m, rc }, tv = { txt, n, 0 };
        const gpuasm_partial a = gpuasm_partial_best(&o, omin, sfloor, &pv, &tv, at_start, 0, ws_full);
        const gpuasm_partial b = gpuasm_partial_best_cut(&o, omin, sfloor, &pv, &tv, at_start, ws_cut);
        gpuasm_bands_set_helpers(3, 1);
        gpuasm_bands_set_blocks(c % 2 ? 8 : 4);   /* both band sizes, wherever this runs */
        const gpuasm_partial bw = gpuasm_partial_best_cut(&o, omin, sfloor, &pv, &tv, at_start, ws_cut);
        gpuasm_bands_set_helpers(0, 0);
        gpuasm_bands_set_blocks(0);
        if (bw.plen != b.plen || bw.dist != b.dist) {
            diag("case %d: m %u n %u: the wavefront (%u, %d) differs from one thread (%u, %d)", c, m, n, bw.plen,
                 bw.dist, b.plen, b.dist);
            ok = 0;
        }
        cases++;
        found += a.plen > 0;
        if (a.plen != b.plen || a.dist != b.dist) {
            diag("case %d: m %u n %u omin %u k %d e %.3f floor %d %s%s: full (%u, %d), cut (%u, %d)", c, m, n, omin,
                 o.max_diffs, o.error_rate, sfloor, at_start ? "text start" : "text end", rc ? ", rc" : "", a.plen,
                 a.dist, b.plen, b.dist);
            ok = 0;
        }
    }
    tap(ok && found > cases / 4, "the ends pass with the cut-off = without it (%d cases, %d with an occurrence)", cases,
        found);
    free(ws_full);
    free(ws_cut);
    search_end_cases();
    return tap_done();
}
