/* SPDX-License-Identifier: MIT */
/* test_ends_classes.c -- the family settle of the ends pass
 * (walk/ends_classes.h) against the ends pass itself
 * (gpuasm_ends_word_best, kernels/ends/ends_word.h) on seeded random
 * cases.  Output is TAP.
 *
 * Each case: a panel of adapter-like families (members of 13-65 bases that
 * share a random stem of 12-40 bases, then differ) and random targets, and
 * reads of 20-150 bases, some with a member's prefix (or suffix) planted
 * at their end (start), mutated, some with a stem inside.  Every target
 * is a candidate of every read at both ends with a random reach (UINT32_MAX
 * now and then).  A candidate the settle sets to reach 0 must be one whose
 * ends pass returns none; the settle must take some (so the check is not
 * the trivial one of a settle that takes nothing), and leave the planted
 * hits.  Option sets: e = 0.1 with the floors 8 and 3, k = 2, e = 0.2.
 * Then gpuasm_ends_word_none() (one long pattern, 66-256 bases, its own
 * class) the same way: none => gpuasm_ends_word_best() none, on reads of
 * 20-400 bases with planted prefixes and suffixes, and some proven.
 *
 * GPUASM_TEST_SEED varies the cases.  Exit status 0 when all passed.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "walk/ends_classes.h"
#include "kernels/ends/ends_word.h"
#include "kernels/registry.h"
#include "search/search.h"
#include "tap.h"

static const uint8_t acgt[4] = { 1, 2, 4, 8 };

/* Edit mode, both ends, overlap 1, k or rate e, the floor. */
static gpuasm_search_opt opt_of(int32_t k, double e, uint32_t floor)
{
    gpuasm_search_opt opt;
    memset(&opt, 0, sizeof opt);
    opt.max_diffs = k;
    opt.error_rate = e;
    opt.kernel = GPUASM_KERNEL_MYERS;
    opt.overlap_min = 1;
    opt.partial_floor = floor;
    opt.partial_ends = GPUASM_END_3 | GPUASM_END_5;
    return opt;
}

int main(void)
{
    rng_seed_from_env();
    struct { const char *name; int32_t k; double e; uint32_t floor; } sets[] = {
        { "e=0.1 floor 8", -1, 0.1, 8 },
        { "e=0.1 floor 3", -1, 0.1, 3 },
        { "k=2 floor 5", 2, 0, 5 },
        { "e=0.2 floor 6", -1, 0.2, 6 },
    };
    enum { NF = 6, PER = 8, NRAND = 12, NT = NF * PER + NRAND, NR = 400 };
    uint64_t off[NT + 1];
    uint8_t *code = xmalloc((size_t)NT * 65);
    uint8_t text[200], tmp[200];
    ends_word *ew = xmalloc(NT * sizeof *ew);
    uint32_t list[NT], reach[NT];
    for (size_t si = 0; si < sizeof sets / sizeof *sets; si++) {
        const gpuasm_search_opt opt = opt_of(sets[si].k, sets[si].e, sets[si].floor);
        uint64_t settled = 0, wrong = 0, items = 0, hits = 0, classes = 0;
        for (int rep = 0; rep < 6; rep++) {
            /* families: a stem, then each member's own bases */
            off[0] = 0;
            uint32_t t = 0;
            for (uint32_t f = 0; f < NF; f++) {
                uint8_t stem[40];
                const uint32_t ls = 12 + (uint32_t)below(29);
                for (uint32_t i = 0; i < ls; i++) stem[i] = acgt[rnd() & 3];
                for (uint32_t j = 0; j < PER; j++, t++) {
                    const uint32_t m = ls + 1 + (uint32_t)below(65 - ls);
                    uint8_t *p = code + off[t];
                    /* half the families share their end instead (the text's start) */
                    for (uint32_t i = 0; i < m; i++) p[i] = acgt[rnd() & 3];
                    for (uint32_t i = 0; i < ls; i++) p[f & 1 ? m - 1 - i : i] = stem[i];
                    off[t + 1] = off[t] + m;
                }
            }
            for (; t < NT; t++) {
                const uint32_t m = 13 + (uint32_t)below(53);
                for (uint32_t i = 0; i < m; i++) code[off[t] + i] = acgt[rnd() & 3];
                off[t + 1] = off[t] + m;
            }
            const gpuasm_seqset ts = { NT, off, code };
            for (uint32_t x = 0; x < NT; x++) {
                const uint32_t m = (uint32_t)(off[x + 1] - off[x]);
                memset(&ew[x], 0, sizeof ew[x]);
                const uint32_t omin = gpuasm_pair_overlap_min(&opt, 0, m);
                if (omin) gpuasm_ends_word_build(&ew[x], &opt, code + off[x], m, omin, 0);
            }
            gpuasm_ends_classes c;
            if (gpuasm_ends_classes_build(&c, &ts, ew) < 0) return 1;
            classes += c.n_cls[0] + c.n_cls[1];
            gpuasm_ec_ws ws;
            memset(&ws, 0, sizeof ws);
            for (uint32_t r = 0; r < NR; r++) {
                const uint32_t n = 20 + (uint32_t)below(131);
                for (uint32_t i = 0; i < n; i++) text[i] = acgt[rnd() & 3];
                /* plant a member's prefix at the end or its suffix at the
                 * start, mutated, or its first bases inside the read */
                const uint32_t pt = (uint32_t)below(NF * PER), m = (uint32_t)(off[pt + 1] - off[pt]);
                const uint32_t p = 1 + (uint32_t)below(m), kind = (uint32_t)below(4);
                const uint32_t lm = mutate_nt16(kind == 1 ? code + off[pt] + m - p : code + off[pt], p,
                                                chance(0.5) ? 0.05 : 0, tmp);
                if (lm <= n && kind == 0) memcpy(text + n - lm, tmp, lm);
                if (lm <= n && kind == 1) memcpy(text, tmp, lm);
                if (lm + 10 <= n && kind == 2) memcpy(text + n - lm - 10, tmp, lm);
                for (int e = 0; e < 2; e++) {
                    for (uint32_t i = 0; i < NT; i++) {
                        list[i] = i;
                        reach[i] = !ew[i].m ? 0 : chance(0.2) ? UINT32_MAX : 1 + (uint32_t)below(80);
                    }
                    uint32_t before[NT];
                    memcpy(before, reach, sizeof before);
                    if (gpuasm_ends_classes_settle(&c, &ws, ew, list, NT, reach, text, n, e) < 0) return 1;
                    for (uint32_t i = 0; i < NT; i++) {
                        if (!before[i]) continue;
                        items++;
                        const gpuasm_partial b = gpuasm_ends_word_best(&ew[i], text, n, e, before[i]);
                        hits += b.plen > 0;
                        if (reach[i]) continue;
                        settled++;
                        if (b.plen) {
                            if (wrong++ < 5)
                                diag("%s: target %u end %d reach %u settled but has p %u d %d", sets[si].name, i, e,
                                     before[i], b.plen, b.dist);
                        }
                    }
                }
            }
            gpuasm_ec_ws_free(&ws);
            gpuasm_ends_classes_free(&c);
        }
        tap(wrong == 0 && settled > 0 && hits > 0,
            "%s: %" PRIu64 " of %" PRIu64 " items settled, none with an occurrence (%" PRIu64 " wrong; %" PRIu64
            " with one; %" PRIu64 " classes)", sets[si].name, settled, items, wrong, hits, classes);
    }
    /* one long pattern at a time */
    uint8_t *pat = xmalloc(EW_MAX), *lt = xmalloc(420), *lm = xmalloc(420);
    ends_word *one = xmalloc(sizeof *one);
    for (size_t si = 0; si < sizeof sets / sizeof *sets; si++) {
        const gpuasm_search_opt opt = opt_of(sets[si].k, sets[si].e, sets[si].floor);
        uint64_t none = 0, wrong = 0, items = 0, hits = 0;
        for (int rep = 0; rep < 300; rep++) {
            const uint32_t m = 66 + (uint32_t)below(EW_MAX - 65);
            for (uint32_t i = 0; i < m; i++) pat[i] = acgt[rnd() & 3];
            const uint32_t omin = gpuasm_pair_overlap_min(&opt, 0, m);
            if (!omin) continue;
            gpuasm_ends_word_build(one, &opt, pat, m, omin, 0);
            for (int r = 0; r < 20; r++) {
                const uint32_t n = 20 + (uint32_t)below(381);
                for (uint32_t i = 0; i < n; i++) lt[i] = acgt[rnd() & 3];
                const uint32_t p = 1 + (uint32_t)below(m), kind = (uint32_t)below(3);
                const uint32_t l = mutate_nt16(kind == 1 ? pat + m - p : pat, p, chance(0.5) ? 0.04 : 0, lm);
                if (l <= n && kind == 0) memcpy(lt + n - l, lm, l);
                if (l <= n && kind == 1) memcpy(lt, lm, l);
                for (int e = 0; e < 2; e++) {
                    const uint32_t reach = chance(0.3) ? UINT32_MAX : 1 + (uint32_t)below(m + 20);
                    const gpuasm_partial b = gpuasm_ends_word_best(one, lt, n, e, reach);
                    items++;
                    hits += b.plen > 0;
                    if (!gpuasm_ends_word_none(one, lt, n, e, reach)) continue;
                    none++;
                    if (b.plen && wrong++ < 5)
                        diag("%s: m %u end %d reach %u proven none but has p %u d %d", sets[si].name, m, e, reach,
                             b.plen, b.dist);
                }
            }
        }
        tap(wrong == 0 && none > 0 && hits > 0,
            "%s, one long pattern: %" PRIu64 " of %" PRIu64 " items proven none, none with an occurrence (%" PRIu64
            " wrong; %" PRIu64 " with one)", sets[si].name, none, items, wrong, hits);
    }
    free(one);
    free(lm);
    free(lt);
    free(pat);
    free(ew);
    free(code);
    return tap_done();
}
