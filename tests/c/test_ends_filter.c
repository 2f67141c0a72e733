/* SPDX-License-Identifier: MIT */
/* test_ends_filter.c -- the ends filter (walk/ends_filter.h) against
 * the ends pass itself (gpuasm_partial_best, kernels/partial.h) on seeded
 * random cases.  Output is TAP.
 *
 * For each option set (edit and hamming; k = 0..3 and error rates; the
 * minimum overlap 1, 2, 3, 5, 10), a panel of target patterns (4-48
 * bases, some with IUPAC codes or N, some long enough to be cut into
 * pieces) and reads (0-120 bases, N in some) with prefixes and suffixes of
 * the patterns planted, mutated, at both ends: for every (read, target,
 * end) that partial_best() gives an end hit, the filter must list the
 * target at that end (or have it "always").  The counts of items kept and
 * dropped are printed, and on every option set with pieces to cut the
 * filter must drop some (so the check is not the trivial one of a filter
 * that keeps everything).  Reads with wildcard codes (--match-read-
 * wildcards) must not be filtered (-2) when such a code is in a window the
 * rules look at, and must still be exact otherwise.
 *
 * GPUASM_TEST_SEED varies the cases.  Exit status 0 when all passed.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "walk/ends_filter.h"
#include "kernels/ends/ends_lanes.h"
#include "kernels/ends/ends_word.h"
#include "search/cpu_simd.h"
#include "search/nt16.h"
#include "kernels/partial.h"
#include "kernels/registry.h"
#include "search/search.h"
#include "tap.h"

static const uint8_t acgt[4] = { 1, 2, 4, 8 };

/* A target base: single bases, now and then an IUPAC code or N. */
static uint8_t target_base(double iupac)
{
    return chance(iupac) ? (uint8_t)(1 + below(15)) : acgt[rnd() & 3];
}

/* A read base as gpuasm_read_code() leaves it: single bases, N as 0, and
 * with wildcards on, any code. */
static uint8_t read_base(double n_rate, int wildcards)
{
    if (chance(n_rate)) return wildcards ? (uint8_t)(1 + below(15)) : 0;
    return acgt[rnd() & 3];
}

/* A read base matching pattern code c (one of its bases). */
static uint8_t match_base(uint8_t c)
{
    if (!c) return acgt[rnd() & 3];
    uint8_t b;
    do b = acgt[rnd() & 3]; while (!(b & c));
    return b;
}

/* out <- in with about `edits` random edits (substitution, insertion,
 * deletion); returns the length (out has room for len + edits). */
static uint32_t mutate(uint8_t *out, const uint8_t *in, uint32_t len, uint32_t edits, int subs_only)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < len; i++) {
        if (edits && chance((double)edits / (len + 1))) {
            edits--;
            const int kind = subs_only ? 0 : (int)below(3);
            if (kind == 0) out[n++] = acgt[rnd() & 3];
            else if (kind == 1) { out[n++] = acgt[rnd() & 3]; out[n++] = match_base(in[i]); }
            /* kind 2: deleted */
            continue;
        }
        out[n++] = match_base(in[i]);
    }
    return n;
}

typedef struct {
    const char *name;
    int32_t max_diffs;
    double error_rate;
    int32_t overlap;
    int hamming;
    int32_t floor;    /* significance floor (search.h's gpuasm_partial_kf), 0: none */
} optset;

/* The ends_word step on patterns of up to EW_MAX bases (one to four
 * words: a short read as the pattern of genome ends), with the floors and
 * omin of both sides, on both strands of the text: gpuasm_ends_word_view
 * = gpuasm_partial_best, pattern by pattern. */
static void long_patterns(void)
{
    typedef struct { const char *name; int32_t k; double e; int32_t o, ro, f, rf; } lset;
    const lset sets[] = {
        { "e=0.1 -O 3 --read-overlap half", -1, 0.1, 3, -1, 0, 0 },
        { "e=0.1 floors 12 / 12", -1, 0.1, 1, 1, 12, 12 },
        { "k=3 -O 1 --read-overlap 20", 3, 0, 1, 20, 0, 0 },
        { "e=0.2 floor 9 / 15", -1, 0.2, 1, 1, 9, 15 },
    };
    uint64_t *ws = xmalloc(gpuasm_partial_ws_words(EW_MAX) * sizeof(uint64_t));
    uint8_t *pat = xmalloc(EW_MAX), *text = xmalloc(600), *tmp = xmalloc(600);
    ends_word *e = xmalloc(sizeof *e);
    for (size_t si = 0; si < sizeof sets / sizeof *sets; si++) {
        gpuasm_search_opt opt;
        memset(&opt, 0, sizeof opt);
        opt.max_diffs = sets[si].k;
        opt.error_rate = sets[si].e;
        opt.kernel = GPUASM_KERNEL_MYERS;
        opt.overlap_min = sets[si].o;
        opt.read_overlap_min = sets[si].ro;
        opt.partial_floor = sets[si].f;
        opt.read_partial_floor = sets[si].rf;
        opt.partial_ends = GPUASM_END_3 | GPUASM_END_5;
        uint64_t items = 0, hits = 0, bad = 0, words[5] = { 0 }, items1 = 0;
        ends_word1 w1;
        for (int rep = 0; rep < 400; rep++) {
            const uint32_t m = 1 + (uint32_t)below(EW_MAX);
            for (uint32_t i = 0; i < m; i++) pat[i] = target_base(rep % 4 == 0 ? 0.02 : 0);
            const int ris = rep & 1;
            const uint32_t omin = gpuasm_pair_overlap_min(&opt, ris, m);
            if (!omin) continue;
            gpuasm_ends_word_build(e, &opt, pat, m, omin, ris);
            words[e->nw]++;
            /* the GPU's compact form of one-word patterns (shared memory) */
            const int one = gpuasm_ends_word1_of(e, &w1);
            for (int tr = 0; tr < 6; tr++) {
                uint32_t n = (uint32_t)below(420);
                for (uint32_t i = 0; i < n; i++) text[i] = read_base(0.01, tr & 1);
                if (n > 4 && chance(0.8)) {   /* a prefix at the end, a suffix at the start */
                    const uint32_t p = 1 + (uint32_t)below(m);
                    uint32_t len = mutate(tmp, pat, p, (uint32_t)below(1 + p / 10), 0);
                    if (len > n) len = n;
                    memcpy(text + n - len, tmp, len);
                    const uint32_t q = 1 + (uint32_t)below(m);
                    len = mutate(tmp, pat + m - q, q, (uint32_t)below(1 + q / 10), 0);
                    if (len > n) len = n;
                    memcpy(text, tmp, len);
                }
                const gpuasm_seqview pv = { pat, m, 0 };
                for (int rc = 0; rc < 2; rc++) {
                    const gpuasm_seqview tv = { text, n, rc };
                    for (int end = 0; end < 2; end++) {
                        const gpuasm_partial b = gpuasm_partial_best(&opt, omin, gpuasm_pair_partial_floor(&opt, ris),
                                                                     &pv, &tv, end, 0, ws);
                        const gpuasm_partial v = gpuasm_ends_word_view(e, text, n, rc, end, UINT32_MAX);
                        items++;
                        if (b.plen) hits++;
                        if (v.plen != b.plen || (b.plen && v.dist != b.dist)) {
                            bad++;
                            diag("%s: m %u (read %d) n %u rc %d end %d: view (%u, %d), partial_best (%u, %d)",
                                 sets[si].name, m, ris, n, rc, end, v.plen, v.dist, b.plen, b.dist);
                        }
                        if (one) {
                            const gpuasm_partial v1 = gpuasm_ends_word1_view(&w1, text, n, rc, end);
                            items1++;
                            if (v1.plen != b.plen || (b.plen && v1.dist != b.dist)) {
                                bad++;
                                diag("%s: m %u (read %d) n %u rc %d end %d: ends_word1 (%u, %d), partial_best "
                                     "(%u, %d)", sets[si].name, m, ris, n, rc, end, v1.plen, v1.dist, b.plen, b.dist);
                            }
                        }
                    }
                }
            }
        }
        tap(bad == 0 && hits > 0 && words[3] > 0 && words[4] > 0 && items1 > 0,
            "patterns of 1-%d bases, %s: ends_word (and ends_word1 on %llu items of one word) = gpuasm_partial_best "
            "(%llu items, %llu hits; %llu/%llu/%llu/%llu patterns of 1/2/3/4 words)", EW_MAX, sets[si].name,
            (unsigned long long)items1, (unsigned long long)items,
            (unsigned long long)hits, (unsigned long long)words[1], (unsigned long long)words[2],
            (unsigned long long)words[3], (unsigned long long)words[4]);
    }
    free(ws);
    free(pat);
    free(text);
    free(tmp);
    free(e);
}

/* gpuasm_nt16_revcomp() (eight codes a step; the walk's and the plans'
 * reverse complement of a read strand) = gpuasm_nt16_comp() code by code,
 * on every length 0 .. 70 and bytes with high bits set as well. */
static void test_revcomp(void)
{
    uint8_t src[80], got[80];
    uint64_t bad = 0;
    for (uint32_t n = 0; n <= 70; n++)
        for (int rep = 0; rep < 20; rep++) {
            for (uint32_t i = 0; i < n; i++) src[i] = (uint8_t)(rep < 10 ? 1 + below(15) : below(256));
            memset(got, 0xee, sizeof got);
            gpuasm_nt16_revcomp(got, src, n);
            for (uint32_t i = 0; i < n; i++) bad += got[i] != gpuasm_nt16_comp(src[n - 1 - i]);
            bad += got[n] != 0xee;   /* nothing written past n */
        }
    tap(bad == 0, "gpuasm_nt16_revcomp = gpuasm_nt16_comp code by code (lengths 0-70, %llu wrong)",
        (unsigned long long)bad);
}

int main(void)
{
    rng_seed_from_env();
    test_revcomp();
    const optset sets[] = {
        { "k=0 O=3", 0, 0, 3, 0, 0 },       { "k=1 O=3", 1, 0, 3, 0, 0 },       { "k=2 O=3", 2, 0, 3, 0, 0 },
        { "k=3 O=3", 3, 0, 3, 0, 0 },       { "k=2 O=1", 2, 0, 1, 0, 0 },       { "k=3 O=10", 3, 0, 10, 0, 0 },
        { "e=0.1 O=3", -1, 0.1, 3, 0, 0 },  { "e=0.05 O=1", -1, 0.05, 1, 0, 0 }, { "e=0.15 O=5", -1, 0.15, 5, 0, 0 },
        { "e=0.2 O=3", -1, 0.2, 3, 0, 0 },  { "e=0.1 O=10", -1, 0.1, 10, 0, 0 }, { "e=0.3 O=2", -1, 0.3, 2, 0, 0 },
        { "hamming k=2 O=3", 2, 0, 3, 1, 0 }, { "hamming e=0.1 O=3", -1, 0.1, 3, 1, 0 },
        { "hamming k=0 O=1", 0, 0, 1, 1, 0 }, { "hamming e=0.2 O=10", -1, 0.2, 10, 1, 0 },
        /* the significance floor (issue #26): fewer candidates per end */
        { "e=0.1 O=1 floor 9", -1, 0.1, 1, 0, 9 },  { "k=3 O=1 floor 12", 3, 0, 1, 0, 12 },
        { "e=0.2 O=1 floor 6", -1, 0.2, 1, 0, 6 },  { "hamming e=0.1 O=1 floor 10", -1, 0.1, 1, 1, 10 },
    };
    const uint32_t NT = 300, NR = 150;
    uint64_t all_kept = 0, all_dropped = 0, all_hits = 0, all_simd_marks = 0;
    for (size_t si = 0; si < sizeof sets / sizeof *sets; si++) {
        const optset *os = &sets[si];
        gpuasm_search_opt opt;
        memset(&opt, 0, sizeof opt);
        opt.max_diffs = os->max_diffs;
        opt.error_rate = os->error_rate;
        opt.kernel = os->hamming ? GPUASM_KERNEL_HAMMING : GPUASM_KERNEL_MYERS;
        opt.overlap_min = os->overlap;
        opt.partial_floor = os->floor;
        opt.partial_ends = GPUASM_END_3 | GPUASM_END_5;
        for (int wildcards = 0; wildcards < 2; wildcards++) {
            /* targets: 4..48 bases; a third with some IUPAC codes */
            uint64_t *off = xmalloc((NT + 1) * sizeof *off);
            uint8_t *code = xmalloc((size_t)NT * 48);
            off[0] = 0;
            for (uint32_t t = 0; t < NT; t++) {
                const uint32_t m = 4 + (uint32_t)below(45);
                const double iu = t % 3 == 0 ? 0.04 : 0;
                for (uint32_t i = 0; i < m; i++) code[off[t] + i] = target_base(iu);
                /* families, as adapters of one kit: a prefix of the target
                 * before, a suffix of the one before that, or a copy of it
                 * whole (the filter's rules of several targets in one group) */
                if (t % 5 == 1 || t % 5 == 2 || t % 5 == 4) {
                    const uint32_t u = t % 5 == 2 ? t - 2 : t - 1, mu = (uint32_t)(off[u + 1] - off[u]);
                    uint32_t sh = m < mu ? m : mu;
                    if (t % 5 != 4) sh -= (uint32_t)below(sh / 2 + 1);
                    if (t % 5 == 2) memcpy(code + off[t] + m - sh, code + off[u] + mu - sh, sh);
                    else memcpy(code + off[t], code + off[u], sh);
                }
                /* a near copy: the one before, one base changed (the lanes'
                 * copies must tell it from its model up to the last row) */
                if (t % 5 == 3) {
                    const uint32_t mu = (uint32_t)(off[t] - off[t - 1]), sh = m < mu ? m : mu;
                    memcpy(code + off[t], code + off[t - 1], sh);
                    const uint32_t x = (uint32_t)below(sh);
                    code[off[t] + x] = code[off[t] + x] == 1 ? 2 : 1;
                }
                off[t + 1] = off[t] + m;
            }
            gpuasm_seqset targets = { NT, off, code };
            gpuasm_efilter f;
            if (gpuasm_efilter_build(&f, &targets, &opt) < 0) {
                tap(0, "%s: build", os->name);
                return tap_done();
            }
            uint32_t *mark[2] = { xmalloc(NT * sizeof(uint32_t)), xmalloc(NT * sizeof(uint32_t)) };
            uint32_t *reach[2] = { xmalloc(NT * sizeof(uint32_t)), xmalloc(NT * sizeof(uint32_t)) };
            /* the CPU ends pass of each target (edit mode), to hold its
             * reach-restricted window to gpuasm_partial_best() */
            ends_word *ew = xmalloc(NT * sizeof(ends_word));
            for (uint32_t t = 0; t < NT; t++) {
                const uint32_t m = (uint32_t)(off[t + 1] - off[t]);
                const uint32_t omin = gpuasm_pair_overlap_min(&opt, 0, m);
                ew[t].m = 0;
                if (!os->hamming && omin) gpuasm_ends_word_build(&ew[t], &opt, code + off[t], m, omin, 0);
            }
            uint64_t reach_bad = 0, reach_cut = 0, reach_items = 0, view_bad = 0, view_items = 0;
            uint64_t lanes_bad = 0, lanes_items = 0, lanes_hits = 0;
            const ends_word **el_ew = xmalloc(NT * sizeof(*el_ew));
            uint32_t *el_reach = xmalloc(NT * sizeof(uint32_t));
            gpuasm_partial *el_out = xmalloc(NT * sizeof(gpuasm_partial));
            memset(mark[0], 0, NT * sizeof(uint32_t));
            memset(mark[1], 0, NT * sizeof(uint32_t));
            uint32_t *list = NULL;
            size_t cap = 0;
            gpuasm_ef_ws ws;
            memset(&ws, 0, sizeof ws);
            /* the same marks from the SIMD window scan (ws.simd 0: scalar) */
            gpuasm_ef_ws ws_simd;
            memset(&ws_simd, 0, sizeof ws_simd);
            ws_simd.simd = gpuasm_simd_detect();
            uint32_t *smark[2] = { xmalloc(NT * sizeof(uint32_t)), xmalloc(NT * sizeof(uint32_t)) };
            uint32_t *sreach[2] = { xmalloc(NT * sizeof(uint32_t)), xmalloc(NT * sizeof(uint32_t)) };
            memset(smark[0], 0, NT * sizeof(uint32_t));
            memset(smark[1], 0, NT * sizeof(uint32_t));
            uint32_t *slist = NULL;
            size_t scap = 0;
            uint64_t simd_bad = 0, simd_marks = 0;
            uint64_t *pws = xmalloc(gpuasm_partial_ws_words(48) * sizeof(uint64_t));
            uint64_t kept = 0, dropped = 0, hits = 0, lost = 0, unfiltered = 0, bad_wild = 0;
            uint8_t *read = xmalloc(400), *tmp = xmalloc(200);
            for (uint32_t r = 0; r < NR; r++) {
                /* a random read, then a planted prefix at its end and a
                 * planted suffix at its start (mutated), from random targets */
                uint32_t n = (uint32_t)below(121);
                const double nr = r % 4 == 0 ? 0.05 : 0;
                for (uint32_t i = 0; i < n; i++) read[i] = read_base(nr, wildcards);
                if (n >= 8 && chance(0.8)) {
                    const uint32_t t = (uint32_t)below(NT), m = (uint32_t)(off[t + 1] - off[t]);
                    const uint32_t p = 1 + (uint32_t)below(m);
                    uint32_t len = mutate(tmp, code + off[t], p, (uint32_t)below(4), os->hamming);
                    if (len > n) len = n;
                    memcpy(read + n - len, tmp, len);
                }
                if (n >= 8 && chance(0.8)) {
                    const uint32_t t = (uint32_t)below(NT), m = (uint32_t)(off[t + 1] - off[t]);
                    const uint32_t p = 1 + (uint32_t)below(m);
                    uint32_t len = mutate(tmp, code + off[t] + (m - p), p, (uint32_t)below(4), os->hamming);
                    if (len > n) len = n;
                    memcpy(read, tmp, len);
                }
                if (!wildcards)
                    for (uint32_t i = 0; i < n; i++) read[i] = gpuasm_read_code(read[i], 0);
                const uint32_t stamp = r + 1;
                const int64_t nm = gpuasm_efilter_mark(&f, read, n, 3u, mark, stamp, reach, &list, &cap, &ws);
                const int64_t snm = gpuasm_efilter_mark(&f, read, n, 3u, smark, stamp, sreach, &slist, &scap,
                                                        &ws_simd);
                if (snm != nm) simd_bad++;
                for (int64_t i = 0; nm > 0 && snm == nm && i < nm; i++) simd_bad += slist[i] != list[i];
                for (uint32_t t = 0; nm >= 0 && t < NT; t++)
                    for (int e = 0; e < 2; e++) {
                        const int a = mark[e][t] == stamp, b = smark[e][t] == stamp;
                        simd_marks += (uint64_t)a;
                        simd_bad += a != b || (a && reach[e][t] != sreach[e][t]);
                    }
                if (nm == -1) {
                    tap(0, "%s: out of memory", os->name);
                    return tap_done();
                }
                if (nm == -2) {
                    unfiltered++;
                    int wild = 0;
                    for (uint32_t i = 0; i < n; i++) wild |= __builtin_popcount(read[i] & 15u) > 1;
                    if (!wild) bad_wild++;   /* -2 only for a code that matches several bases */
                }
                /* the listed targets, each once */
                for (int64_t i = 0; i < nm; i++)
                    for (int64_t j = 0; j < i; j++)
                        if (list[i] == list[j]) bad_wild++;
                /* the candidates' ends pass in lanes = one by one, end by
                 * end: the filter's candidates within their reach, and every
                 * target over its whole window */
                for (int e = 0; e < 2 && !os->hamming; e++)
                    for (int whole = 0; whole < 2; whole++) {
                        uint32_t ni = 0;
                        for (uint32_t t = 0; t < NT; t++) {
                            if (!ew[t].m || ew[t].nw != 1) continue;
                            if (!whole && (nm < 0 || (f.always[t] >> e & 1) || mark[e][t] != stamp)) continue;
                            el_ew[ni] = &ew[t];
                            el_reach[ni] = whole ? UINT32_MAX : reach[e][t];
                            ni++;
                        }
                        gpuasm_ends_lanes_best(el_ew, el_reach, ni, read, n, e, el_out);
                        for (uint32_t i = 0; i < ni; i++) {
                            const gpuasm_partial one = gpuasm_ends_word_best(el_ew[i], read, n, e, el_reach[i]);
                            lanes_items++;
                            if (one.plen != el_out[i].plen || (one.plen && one.dist != el_out[i].dist)) {
                                lanes_bad++;
                                diag("%s: read %u end %d item %u of %u: lanes (%u, %d), alone (%u, %d)", os->name, r,
                                     e, i, ni, el_out[i].plen, el_out[i].dist, one.plen, one.dist);
                            }
                            if (one.plen) lanes_hits++;
                        }
                    }
                const gpuasm_seqview tv = { read, n, 0 };
                for (uint32_t t = 0; t < NT; t++) {
                    const uint64_t m = off[t + 1] - off[t];
                    const int32_t k = gpuasm_pair_k(&opt, m);
                    if (!gpuasm_pair_searched(m, k, n)) continue;
                    const uint32_t omin = gpuasm_pair_overlap_min(&opt, 0, m);
                    const gpuasm_seqview pv = { code + off[t], (uint32_t)m, 0 };
                    for (int e = 0; e < 2; e++) {
                        const gpuasm_partial b = omin ? gpuasm_partial_best(&opt, omin, opt.partial_floor, &pv, &tv, e, os->hamming, pws)
                                                      : (gpuasm_partial){ 0, 0 };
                        const int cand = nm == -2 || (f.always[t] >> e & 1) || mark[e][t] == stamp;
                        if (b.plen) hits++;
                        if (cand) kept++; else dropped++;
                        /* a candidate by its rules alone: the ends pass over
                         * the last reach bases gives the same answer */
                        /* the GPU's form: the same ends pass on the read's
                         * reverse complement, read from the read itself */
                        if (ew[t].m) {
                            const gpuasm_seqview tvr = { read, n, 1 };
                            const gpuasm_partial bw = omin ? gpuasm_partial_best(&opt, omin, opt.partial_floor, &pv, &tvr, e, 0, pws)
                                                           : (gpuasm_partial){ 0, 0 };
                            const gpuasm_partial vw = gpuasm_ends_word_view(&ew[t], read, n, 1, e, UINT32_MAX);
                            view_items++;
                            if (vw.plen != bw.plen || (bw.plen && vw.dist != bw.dist)) {
                                view_bad++;
                                diag("%s: read %u target %u end %d, reverse complement: view (%u, %d), "
                                     "partial_best (%u, %d)", os->name, r, t, e, vw.plen, vw.dist, bw.plen, bw.dist);
                            }
                        }
                        if (ew[t].m && nm >= 0 && !(f.always[t] >> e & 1) && mark[e][t] == stamp) {
                            const gpuasm_partial rb = gpuasm_ends_word_best(&ew[t], read, n, e, reach[e][t]);
                            reach_items++;
                            if (reach[e][t] < n) reach_cut++;
                            if (rb.plen != b.plen || (b.plen && rb.dist != b.dist)) {
                                reach_bad++;
                                diag("%s: read %u (n %u) target %u end %d reach %u: (%u, %d) where the whole "
                                     "window gives (%u, %d)", os->name, r, n, t, e, reach[e][t], rb.plen,
                                     rb.dist, b.plen, b.dist);
                            }
                        }
                        if (b.plen && !cand) {
                            lost++;
                            diag("%s: read %u (n %u) target %u (m %llu) end %d: plen %u dist %d dropped", os->name,
                                 r, n, t, (unsigned long long)m, e, b.plen, b.dist);
                        }
                    }
                }
            }
            tap(lost == 0, "%s%s: no dropped item has a partial occurrence (%llu hits; %llu items kept, "
                "%llu dropped; %llu read strands unfiltered)", os->name, wildcards ? " wildcards" : "",
                (unsigned long long)hits, (unsigned long long)kept, (unsigned long long)dropped,
                (unsigned long long)unfiltered);
            tap(bad_wild == 0, "%s%s: -2 only for wildcard codes, each target listed once", os->name,
                wildcards ? " wildcards" : "");
            tap(simd_bad == 0,
                "%s%s: the window scan at SIMD level %s = the scalar scan (the same list, marks and reach; "
                "%llu marks)", os->name, wildcards ? " wildcards" : "", gpuasm_simd_name(ws_simd.simd),
                (unsigned long long)simd_marks);
            all_simd_marks += simd_marks;
            gpuasm_ef_ws_free(&ws_simd);
            free(slist);
            for (int e = 0; e < 2; e++) {
                free(smark[e]);
                free(sreach[e]);
            }
            if (!os->hamming)
                tap(view_bad == 0 && view_items > 0,
                    "%s%s: the ends pass on the reverse-complement view = gpuasm_partial_best (%llu items)",
                    os->name, wildcards ? " wildcards" : "", (unsigned long long)view_items);
            if (!os->hamming)
                tap(reach_bad == 0 && (wildcards || reach_cut > 0),
                    "%s%s: the ends pass within the filter's reach = the whole window (%llu items, %llu of "
                    "them cut short)", os->name, wildcards ? " wildcards" : "", (unsigned long long)reach_items,
                    (unsigned long long)reach_cut);
            if (!os->hamming)
                tap(lanes_bad == 0 && lanes_hits > 0,
                    "%s%s: the ends pass in lanes = one item at a time (%llu items, %llu with a hit)", os->name,
                    wildcards ? " wildcards" : "", (unsigned long long)lanes_items, (unsigned long long)lanes_hits);
            free(el_ew);
            free(el_reach);
            free(el_out);
            /* the filter must do something where it can cut: pieces of 4+
             * bases (k_p runs of the longer targets), or exact prefixes */
            if (!wildcards) tap(dropped > 0, "%s: the filter drops items (%llu of %llu)", os->name,
                                (unsigned long long)dropped, (unsigned long long)(kept + dropped));
            all_kept += kept;
            all_dropped += dropped;
            all_hits += hits;
            free(read);
            free(tmp);
            free(pws);
            free(list);
            free(mark[0]);
            free(mark[1]);
            free(reach[0]);
            free(reach[1]);
            free(ew);
            gpuasm_ef_ws_free(&ws);
            gpuasm_efilter_free(&f);
            free(off);
            free(code);
        }
    }
    /* the SIMD scan's checks compared something: marks in the option sets */
    tap(all_simd_marks > 0, "the window scan's checks compared %llu marks in all",
        (unsigned long long)all_simd_marks);
    long_patterns();
    printf("# all: %llu partial hits, %llu items kept, %llu dropped\n", (unsigned long long)all_hits,
           (unsigned long long)all_kept, (unsigned long long)all_dropped);
    return tap_done();
}
