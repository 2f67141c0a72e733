/* SPDX-License-Identifier: MIT */
/* test_chance.c -- the chance model of align/chance.h (issue #26):
 *
 *  (a) one source: the bound pi(q, d) against the exact probability,
 *      found by enumerating every text, that a random text end holds an
 *      alignment of a q-base pattern prefix with at most d edits (free
 *      start); Hamming's formula is exact;
 *  (b) the floors of the scale: exact end matches (-k 0) with
 *      alpha = 0.01 start at 4 bases for one adapter on one end, 9 for
 *      158 adapters on both ends and strands, 12 for 10,000 primers; one
 *      edit allowed (-e 0.1) needs more;
 *  (c) E_partial is non-increasing in the score and the floor is the least
 *      score with E <= alpha;
 *  (d) a simulation: random reads against random targets through the CPU
 *      scan with the floor: the partial end hits per read agree with
 *      E_partial(floor), and with no floor (cutadapt's -O 3) with E(-inf).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "align/chance.h"
#include "kernels/registry.h"
#include "search/search.h"
#include "tap.h"

static const uint8_t ACGT[4] = { 1, 2, 4, 8 };

/* Exact P(min over suffixes of ED(x, suffix) <= d) for a random text end,
 * x of q codes: every text of q + d bases (an alignment with <= d edits
 * covers at most q + d of them). */
static double exact_end(const uint8_t *x, uint32_t q, int32_t d)
{
    const uint32_t L = q + (uint32_t)d;
    uint64_t hit = 0, total = (uint64_t)1 << (2 * L);
    int32_t col[16], prev[16];
    uint8_t t[16];
    for (uint64_t v = 0; v < total; v++) {
        for (uint32_t j = 0; j < L; j++) t[j] = ACGT[(v >> (2 * j)) & 3];
        for (uint32_t i = 0; i <= q; i++) col[i] = (int32_t)i;
        for (uint32_t j = 0; j < L; j++) {
            memcpy(prev, col, sizeof col);
            col[0] = 0;   /* free start in the text */
            for (uint32_t i = 1; i <= q; i++) {
                int32_t best = prev[i - 1] + !(x[i - 1] & t[j]);
                if (prev[i] + 1 < best) best = prev[i] + 1;
                if (col[i - 1] + 1 < best) best = col[i - 1] + 1;
                col[i] = best;
            }
        }
        hit += col[q] <= d;
    }
    return (double)hit / (double)total;
}

static void test_one_source(void)
{
    double worst[3] = { 0, 0, 0 };
    int all_bounded = 1, n = 0;
    for (uint32_t q = 2; q <= 6; q++)
        for (int32_t d = 0; d <= 2 && q + (uint32_t)d <= 8; d++)
            for (int rep = 0; rep < 12; rep++) {
                uint8_t x[16];
                for (uint32_t i = 0; i < q; i++)
                    x[i] = rep == 0 ? 1 : rep == 1 ? ACGT[i & 1] : ACGT[below(4)];   /* AAAA, ACAC, random */
                const double ex = exact_end(x, q, d);
                double pi = exp(gpuasm_chance_log_transcripts(0, q, d) - q * log(4.0));
                if (pi > 1) pi = 1;
                const int ok = ex <= pi * (1 + 1e-12);
                all_bounded &= ok;
                if (!ok) diag("q=%u d=%d pattern %d: exact %.6g > bound %.6g", q, d, rep, ex, pi);
                if (rep >= 2 && ex > 0 && pi < 1 && pi / ex > worst[d]) worst[d] = pi / ex;
                n++;
            }
    tap(all_bounded, "the edit bound pi(q, d) is at least the exact chance of a text end (%d patterns, "
        "q 2-6, d 0-2, homopolymers included)", n);
    /* How loose it is on random patterns: exact at d = 0, then a factor
     * that grows with d (transcripts that give the same text: a deletion
     * in a run, an insertion beside an equal base); at these short q the
     * worst, longer patterns are closer (the simulation below). */
    tap(worst[0] <= 1 + 1e-12 && worst[1] < 3.0 && worst[2] < 6.0,
        "the bound over the exact chance on random patterns: at most %.3f (d=0), %.3f (d=1), %.3f (d=2)",
        worst[0], worst[1], worst[2]);
    /* Hamming: sum over s <= d of C(q, s) 3^s / 4^q exactly. */
    int ham = 1;
    for (uint32_t q = 1; q <= 40; q++)
        for (int32_t d = 0; d <= 5; d++) {
            double want = 0, c = 1;
            for (int32_t s = 0; s <= d && (uint32_t)s <= q; s++) {
                want += c * pow(3.0, s);
                c = c * (double)(q - (uint32_t)s) / (double)(s + 1);
            }
            const double got = exp(gpuasm_chance_log_transcripts(1, q, d));
            ham &= fabs(got - want) <= 1e-9 * want;
        }
    tap(ham, "Hamming: N(q, d) = sum over s <= d of C(q, s) 3^s (q 1-40, d 0-5)");
}

/* n random targets of len bases into a seqset (owned buffers). */
typedef struct {
    uint64_t *off;
    uint8_t *code;
    gpuasm_seqset set;
} tset;

static void random_targets(tset *t, uint32_t n, uint32_t len)
{
    t->off = xmalloc(((size_t)n + 1) * sizeof(uint64_t));
    t->code = xmalloc((size_t)n * len);
    for (uint32_t i = 0; i <= n; i++) t->off[i] = (uint64_t)i * len;
    for (size_t i = 0; i < (size_t)n * len; i++) t->code[i] = ACGT[below(4)];
    t->set = (gpuasm_seqset){ n, t->off, t->code };
}

/* Targets whose first and last 4 bases (the shortest aligned length the
 * simulation counts) are all distinct: E counts a
 * sequence shared by several targets once (a read end that matches one
 * matches all, one event), while the scan reports a hit for each; with
 * distinct ends events and hits are the same count. */
static void distinct_ends(tset *t, uint32_t len)
{
    for (uint32_t i = 0; i < t->set.n; i++)
        for (uint32_t j = 0; j < i; j++)
            if (!memcmp(t->code + (size_t)i * len, t->code + (size_t)j * len, 4) ||
                !memcmp(t->code + (size_t)i * len + len - 4, t->code + (size_t)j * len + len - 4, 4)) {
                for (uint32_t x = 0; x < len; x++) t->code[(size_t)i * len + x] = ACGT[below(4)];
                i--;   /* check target i again */
                break;
            }
}

static void tset_free(tset *t)
{
    free(t->off);
    free(t->code);
}

static gpuasm_search_opt partial_opt(int32_t k, double e, int forward_3only)
{
    gpuasm_search_opt o;
    memset(&o, 0, sizeof o);
    o.max_diffs = k;
    o.error_rate = e;
    o.pattern_side = GPUASM_PATTERN_SHORTER;
    o.kernel = GPUASM_KERNEL_MYERS;
    o.strand = forward_3only ? GPUASM_STRAND_FORWARD : GPUASM_STRAND_BOTH;
    o.partial_ends = forward_3only ? GPUASM_END_3 : GPUASM_END_3 | GPUASM_END_5;
    o.overlap_min = 1;
    o.read_overlap_min = -1;
    return o;
}

static int32_t floor_of(uint32_t n, uint32_t len, int32_t k, double e, int forward_3only)
{
    tset t;
    random_targets(&t, n, len);
    gpuasm_search_opt o = partial_opt(k, e, forward_3only);
    gpuasm_chance *c;
    if (gpuasm_chance_build(&c, &t.set, &o, 0.01) < 0) abort();
    const int32_t f = gpuasm_chance_floor(c, 0);
    gpuasm_chance_free(c);
    tset_free(&t);
    return f;
}

static void test_floors(void)
{
    int32_t f1 = floor_of(1, 34, 0, 0, 1), f158 = floor_of(158, 34, 0, 0, 0);
    int32_t f10k = floor_of(10000, 25, 0, 0, 0);
    tap(f1 == 4, "one adapter, one end, exact matches: the floor is %d bases (4: about cutadapt's -O 3)", f1);
    tap(f158 == 9, "158 adapters, both ends and strands, exact: %d bases (9)", f158);
    tap(f10k == 12, "10,000 primers of 25 bases, both ends and strands, exact: %d bases (12)", f10k);
    int32_t e158 = floor_of(158, 34, -1, 0.1, 0);
    tap(e158 > f158 && e158 <= f158 + 4,
        "158 adapters at -e 0.1 (one edit from 10 aligned bases): a floor of score %d, a few above %d", e158, f158);
}

static void test_monotone(void)
{
    tset t;
    random_targets(&t, 300, 40);
    const double alphas[3] = { 0.001, 0.01, 0.1 };
    int ok = 1;
    for (int a = 0; a < 3; a++)
        for (int v = 0; v < 3; v++) {
            gpuasm_search_opt o = partial_opt(v == 0 ? -1 : 3, v == 2 ? 0.2 : 0.1, 0);
            if (v == 2) o.max_diffs = -1;
            gpuasm_chance *c;
            if (gpuasm_chance_build(&c, &t.set, &o, alphas[a]) < 0) abort();
            const int32_t f = gpuasm_chance_floor(c, 0);
            for (int64_t s = -60; s < 80; s++)
                ok &= gpuasm_chance_partial(c, 0, s + 1) <= gpuasm_chance_partial(c, 0, s);
            ok &= f > 0 && gpuasm_chance_partial(c, 0, f) <= alphas[a] &&
                  gpuasm_chance_partial(c, 0, f - 1) > alphas[a];
            gpuasm_chance_free(c);
        }
    tset_free(&t);
    tap(ok, "E_partial never grows with the score; the floor is the least score with E <= alpha "
        "(alpha 0.001-0.1, -e 0.1, -k 3, -e 0.2)");
}

/* Reads of random bases; the partial end hits of a CPU scan per read,
 * against E_partial at the floor in effect. */
static void test_simulation(void)
{
    const uint32_t NR = 40000, RL = 100, NT = 60, TL = 30;
    tset t;
    random_targets(&t, NT, TL);
    distinct_ends(&t, TL);
    uint64_t *roff = xmalloc(((size_t)NR + 1) * sizeof(uint64_t));
    uint8_t *rc = xmalloc((size_t)NR * RL);
    for (uint32_t i = 0; i <= NR; i++) roff[i] = (uint64_t)i * RL;
    for (size_t i = 0; i < (size_t)NR * RL; i++) rc[i] = ACGT[below(4)];
    gpuasm_seqset reads = { NR, roff, rc };
    for (int v = 0; v < 3; v++) {
        /* v 0: the floor (alpha 0.05, so that enough chance hits occur to
         * count); 1: -e 0.2 with it; 2: no floor from 4 bases (-O 4) */
        gpuasm_search_opt o = partial_opt(-1, v == 1 ? 0.2 : 0.1, 0);
        if (v == 2) o.overlap_min = 4;
        gpuasm_chance *c;
        if (gpuasm_chance_build(&c, &t.set, &o, 0.05) < 0) abort();
        if (v < 2) o.partial_floor = gpuasm_chance_floor(c, 0);
        const double e = gpuasm_chance_partial(c, 0, v < 2 ? o.partial_floor : INT32_MIN);
        gpuasm_hits h = { 0 };
        gpuasm_err err;
        if (gpuasm_cpu_scan(&reads, 0, NR, &t.set, &o, &h, &err) < 0) {
            tap(0, "simulation %d: scan failed: %s", v, err.msg);
            continue;
        }
        uint64_t partial = 0;
        for (size_t i = 0; i < h.n; i++) partial += h.hit[i].kind != GPUASM_HIT_FULL;
        const double want = e * NR, got = (double)partial;
        /* E is the union bound: exact where exact matches dominate (-O 4),
         * a little above at -e 0.1, where one edit dominates, and about 3x
         * at -e 0.2, where 2-4 edits do (each text has many transcripts).
         * The count is Poisson-like: 4 sigma of noise. */
        const double sigma = sqrt(want > 1 ? want : 1);
        const double lo = v == 1 ? 0.25 : 0.7;
        const int ok = got <= want + 4 * sigma && got >= lo * want - 4 * sigma;
        tap(ok, "simulation %s: %llu partial hits in %u random reads of %u bases against %u random "
            "%u-mers, E = %.4g per read predicts %.1f (ratio %.3f)",
            v == 0 ? "-e 0.1 at the floor" : v == 1 ? "-e 0.2 at the floor" : "-e 0.1 --overlap 4",
            (unsigned long long)partial, NR, RL, NT, TL, e, want, want > 0 ? got / want : 0.0);
        gpuasm_hits_free(&h);
        gpuasm_chance_free(c);
    }
    free(roff);
    free(rc);
    tset_free(&t);
}

int main(void)
{
    rng_seed_from_env();
    test_one_source();
    test_floors();
    test_monotone();
    test_simulation();
    return tap_done();
}
