/* SPDX-License-Identifier: MIT */
/* test_partial_cuda.cu -- the host harness of the CUDA ends pass for long
 * patterns (issue #11): the very per-lane code of kernels/ends/partial_warp.cuh
 * (what k_partial_warp of partial_cuda.cu calls between its shuffles), run
 * on the CPU as one warp of 32 lanes in lockstep (step t of every lane, then
 * each lane's returned delta and text code handed to the next lane:
 * __shfl_up_sync; lane 0 reads the record of the strip above), strip after
 * strip (entered at the cut-off's column, or skipped), then the lanes' sums
 * scanned, the rows walked and the lanes' bests merged, against partial.h's gpuasm_partial_best() (the CPU twin): the
 * same (plen, dist) for every item, and every R (1..4 words per lane), not
 * only the one partial_cuda.cu picks.
 *
 * Cases: patterns of 300 .. 20,000 bases (random, or a mutated copy of the
 * text's end so that long partial occurrences exist), k_p from -e 0.05 ..
 * 0.25 or an absolute k (m / 10, and 0 and 3 with exact or nearly exact
 * pieces: the cut-off's entry column exactly where the path crosses into a
 * strip), both ends, IUPAC codes and N in pattern and text,
 * the pattern reverse-complemented or not, texts shorter and longer than
 * W = m - 1 + k_{m-1}, omin from 1 to m - 1.  Built by nvcc as host code
 * in CUDA builds (no GPU needed); output is TAP.  GPUASM_TEST_SEED varies
 * the random cases.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "kernels/myers/myers_long_core.cuh"
#include "kernels/ends/partial_warp.cuh"
#include "tap.h"

using namespace gcore;

static uint32_t rnd32(void) { return (uint32_t)(rnd() >> 32); }

static const uint8_t BASES[4] = { 1, 2, 4, 8 };

/* A random base; with probability iupac/1000 an IUPAC set or N (15). */
static uint8_t rnd_code(uint32_t iupac)
{
    if (iupac && rnd32() % 1000 < iupac) {
        static const uint8_t odd[] = { 15, 15, 3, 5, 6, 9, 10, 12, 7, 11, 13, 14 };
        return odd[rnd32() % sizeof odd];
    }
    return BASES[rnd32() & 3];
}

/* Append a copy of p[lo .. hi) with about rate/1000 edits (substitution,
 * insertion, deletion in equal parts). */
static void mutate_into(std::vector<uint8_t> &t, const std::vector<uint8_t> &p, size_t lo, size_t hi,
                        uint32_t rate)
{
    for (size_t i = lo; i < hi; ++i) {
        if (rnd32() % 1000 < rate) {
            switch (rnd32() % 3) {
            case 0: t.push_back(BASES[rnd32() & 3]); break;
            case 1: t.push_back(p[i]); t.push_back(BASES[rnd32() & 3]); break;
            default: break;
            }
        } else {
            t.push_back(p[i]);
        }
    }
}

/* Runs that skipped the strips below one (the cut-off), and strips entered
 * after column 0: the cases must exercise both. */
static long runs_skipping, runs_late_entry;

/* One item through the warp code with R words per lane: 32 lanes in
 * lockstep, as k_partial_warp runs them, strips entered and skipped by
 * the cut-off (partial_warp.cuh). */
template <int R>
static gpuasm_partial run_item(const pw_item &it, const gpuasm_search_opt *o)
{
    std::vector<uint32_t> peq((size_t)16 * R * 32);
    pw_lane<R> L[PW_LANES];
    uint32_t hprev[PW_LANES], hnew[PW_LANES];
    std::vector<uint8_t> rec[2];
    rec[0].assign(it.W + 1, 0x55);
    rec[1].assign(it.W + 1, 0x55);
    gpuasm_partial best[PW_LANES];
    for (uint32_t g = 0; g < PW_LANES; ++g) best[g].plen = 0, best[g].dist = 0;
    int32_t base_e = 0;
    const uint32_t ns = pw_strips(it.w32, R);
    uint32_t col0 = 0;
    int32_t base = 0;
    for (uint32_t s = 0; s < ns; ++s) {
        const pw_strip sp = pw_strip_of(it, R, s, col0, base);
        const uint8_t *rin = s ? rec[(s - 1) & 1].data() : NULL;
        uint8_t *rout = rec[s & 1].data();
        for (uint32_t g = 0; g < PW_LANES; ++g) {
            pw_build_peq<R>(peq.data(), g, it, sp);
            pw_begin<R>(L[g]);
            hprev[g] = 0;
        }
        for (uint32_t t = 0; t < sp.steps; ++t) {
            for (uint32_t g = 0; g < PW_LANES; ++g) {
                const uint32_t in = g == 0 ? pw_in0(it, rin, col0 + t) : hprev[g - 1];
                hnew[g] = pw_step<R>(L[g], peq.data(), g, it, sp, t, in, rout);
            }
            memcpy(hprev, hnew, sizeof hprev);
        }
        /* The walk: exclusive scan of the lanes' sums, then each lane. */
        const uint32_t lc = pw_code(it, it.W - 1u);
        int32_t e0 = base_e;
        for (uint32_t g = 0; g < PW_LANES; ++g) {
            pw_walk<R>(L[g], peq.data(), g, it, sp, o, lc, e0, best[g]);
            e0 += pw_sum<R>(L[g], it, sp, g);
        }
        base_e = e0;
        /* The next strip's entry, from the strip's record (the cut-off). */
        if (sp.last) break;
        uint32_t first;
        int32_t first_d;
        strip_entry_seq(rout, col0, it.W, pw_entry_d0(sp), it.kmax, pw_entry_slope(it, sp), first, first_d);
        if (first == PW_NONE) {
            ++runs_skipping;
            break;
        }
        runs_late_entry += first > 0;
        col0 = first;
        base = first_d;
    }
    /* Merge the lanes' bests as the warp does (a butterfly). */
    for (uint32_t off = PW_LANES / 2; off; off >>= 1) {
        gpuasm_partial nb[PW_LANES];
        for (uint32_t g = 0; g < PW_LANES; ++g) {
            nb[g] = best[g];
            pw_merge(nb[g], best[g ^ off]);
        }
        memcpy(best, nb, sizeof best);
    }
    return best[0];
}

/* Options of the cases: reads as patterns, nt16, error rate e. */
static gpuasm_search_opt read_opt(double e)
{
    gpuasm_search_opt o;
    memset(&o, 0, sizeof o);
    o.max_diffs = -1;
    o.error_rate = e;
    o.pattern_side = GPUASM_PATTERN_READ;
    o.alphabet = GPUASM_ALPHABET_NT16;
    return o;
}

static gpuasm_partial run_r(uint32_t R, const pw_item &it, const gpuasm_search_opt *o)
{
    switch (R) {
    case 1: return run_item<1>(it, o);
    case 2: return run_item<2>(it, o);
    case 3: return run_item<3>(it, o);
    case 4: return run_item<4>(it, o);
    case 5: return run_item<5>(it, o);
    default: return run_item<6>(it, o);
    }
}

int main(void)
{
    const char *seed_s = getenv("GPUASM_TEST_SEED");
    const uint64_t seed = seed_s && *seed_s ? strtoull(seed_s, NULL, 0) : 20261124;
    rng = seed;
    printf("# seed %llu\n", (unsigned long long)seed);
    static const uint32_t lens[] = { 300, 511, 1024, 2000, 4097, 10000, 20000 };
    const size_t nlen = sizeof lens / sizeof lens[0];
    int cases = 0, with_hit = 0;
    for (size_t li = 0; li < nlen; ++li)
        for (int v = 0; v < 6; ++v) {
            const uint32_t m = lens[li] + (v ? rnd32() % 97u : 0u);
            gpuasm_search_opt o = read_opt(0.05 + 0.05 * (double)(rnd32() % 5));   /* e 0.05 .. 0.25 */
            if (v >= 3) {
                /* An absolute k; v 4 and 5: k_{m-1} = 0 and 2 with exact or
                 * nearly exact planted pieces, where the cut-off's entry
                 * column is the very column an optimal path crosses the
                 * strip's top (a strip entered one column late misses it). */
                o.max_diffs = v == 3 ? (int32_t)(m / 10u) : v == 4 ? 0 : 3;
                o.error_rate = 0;
            }
            /* A third of the items with a significance floor (search.h's
             * gpuasm_partial_kf): the score p - 2 D_p at least F. */
            if (rnd32() % 3u == 0) o.partial_floor = (int32_t)(m / 3u + rnd32() % (m / 2u + 1u));
            const uint32_t iupac = v == 2 ? 20u : 0u;
            std::vector<uint8_t> pat(m);
            for (uint32_t i = 0; i < m; ++i) pat[i] = rnd_code(iupac);
            const int32_t kmax = gpuasm_partial_kf(&o, o.partial_floor, m - 1u, m);
            const uint64_t W = (uint64_t)m - 1u + (uint64_t)(kmax > 0 ? kmax : 0);
            /* Texts shorter than W (v odd) and longer. */
            const uint64_t n = (v & 1) ? 50u + rnd32() % (uint32_t)W : W + 1u + rnd32() % (m + 1u);
            for (int at_start = 0; at_start < 2; ++at_start)
                for (int rc = 0; rc < 2; ++rc) {
                    /* Text: random, with a mutated piece of the oriented
                     * pattern at the end asked for (a partial occurrence). */
                    std::vector<uint8_t> t;
                    std::vector<uint8_t> op(m);   /* the pattern as searched */
                    for (uint32_t i = 0; i < m; ++i)
                        op[i] = rc ? gpuasm_nt16_comp(pat[m - 1u - i]) : pat[i];
                    const uint32_t omin = (rnd32() & 1) ? (m + 1u) / 2u : 1u + rnd32() % (m - 1u);
                    /* Bases of P planted: at least omin (most items have a
                     * candidate), edits at up to 0.6 e (IUPAC aside). */
                    const uint32_t plant = omin + (uint32_t)(rnd32() % (m - omin));
                    const double e = o.max_diffs >= 0 ? 0.1 : o.error_rate;
                    const uint32_t rate = v == 4 ? 0u : v == 5 ? rnd32() % 2u
                                                                : 1u + rnd32() % (1u + (uint32_t)(600.0 * e));
                    std::vector<uint8_t> piece;
                    if (at_start) mutate_into(piece, op, m - plant, m, rate);
                    else mutate_into(piece, op, 0, plant, rate);
                    if (piece.size() > n) piece.resize(n);
                    const size_t rest = n - piece.size();
                    if (at_start) {
                        t = piece;
                        for (size_t i = 0; i < rest; ++i) t.push_back(rnd_code(iupac));
                    } else {
                        for (size_t i = 0; i < rest; ++i) t.push_back(rnd_code(iupac));
                        t.insert(t.end(), piece.begin(), piece.end());
                    }
                    gpuasm_seqview pv, tv;
                    pv.p = pat.data();
                    pv.len = m;
                    pv.rc = rc;
                    tv.p = t.data();
                    tv.len = (uint32_t)t.size();
                    tv.rc = 0;
                    std::vector<uint64_t> ws(gpuasm_partial_ws_words(m));
                    const gpuasm_partial want = gpuasm_partial_best(&o, omin, o.partial_floor, &pv, &tv, at_start, 0, ws.data());
                    pw_item it;
                    const int live = pw_setup(it, &o, omin, o.partial_floor, pv, tv, at_start);
                    const uint32_t picked = pw_pick_r(m, kmax);
                    int ok = 1;
                    char got_s[200] = "";
                    for (uint32_t R = 1; R <= PW_RMAX; ++R) {
                        /* Every R for patterns up to 4,097 bases; the picked
                         * one and R = 1 (most strips) beyond. */
                        if (m > 4200 && R != picked && R != 1) continue;
                        gpuasm_partial got;
                        got.plen = 0;
                        got.dist = 0;
                        if (live) got = run_r(R, it, &o);
                        if (got.plen != want.plen || (want.plen && got.dist != want.dist)) {
                            ok = 0;
                            snprintf(got_s, sizeof got_s, " R=%u got (%u, %d)", R, got.plen, got.dist);
                        }
                    }
                    ++cases;
                    with_hit += want.plen != 0;
                    tap(ok, "m=%u n=%u %s%s e=%.2f k=%d omin=%u floor=%d W=%u (%s) R %u picked: (plen, dist) "
                        "= partial.h's (%u, %d)%s",
                        m, tv.len, at_start ? "start" : "end", rc ? " rc" : "", o.error_rate, o.max_diffs,
                        omin, o.partial_floor, it.W, (uint64_t)m - 1u + (uint64_t)kmax > tv.len ? "text shorter than m-1+k: W = n" : "text longer",
                        picked, want.plen, want.dist, got_s);
                }
        }
    /* The tighter entry bound (partial_warp.cuh, "TIGHTER ENTRY") where it
     * is attained: the text's end (start) is P[0 .. m-1) (its reverse's
     * suffix) with kmax random bases inserted between pattern rows b/2 and
     * b, b the bottom row of the first strip of R words a lane.  The best
     * partial is p = m - 1 with kmax insertions, and its path leaves row b
     * at column f = b - 1 + kmax with D[b][f] = kmax = f + kmax + m - W -
     * b: a bound one tighter enters the second strip past it. */
    for (uint32_t R = 1; R <= PW_RMAX; ++R)
        for (int at_start = 0; at_start < 2; ++at_start) {
            const uint32_t b = 32u * 32u * R, m = b + 300u + rnd32() % 700u;
            const gpuasm_search_opt o = read_opt(0.02);
            const int32_t kmax = gpuasm_partial_kf(&o, o.partial_floor, m - 1u, m);
            std::vector<uint8_t> pat(m);
            for (uint32_t i = 0; i < m; ++i) pat[i] = rnd_code(0);
            /* The pattern as the walk reads it (reversed at the start). */
            std::vector<uint8_t> op(m);
            for (uint32_t i = 0; i < m; ++i) op[i] = at_start ? pat[m - 1u - i] : pat[i];
            std::vector<uint32_t> at((size_t)kmax);
            for (auto &x : at) x = b / 2u + rnd32() % (b / 2u);
            std::sort(at.begin(), at.end());
            std::vector<uint8_t> piece;
            size_t next = 0;
            for (uint32_t i = 0; i + 1u < m; ++i) {
                while (next < at.size() && at[next] == i) {
                    piece.push_back(rnd_code(0));
                    ++next;
                }
                piece.push_back(op[i]);
            }
            std::vector<uint8_t> t;
            for (uint32_t i = 0; i < 200u; ++i) t.push_back(rnd_code(0));
            t.insert(t.end(), piece.begin(), piece.end());
            if (at_start) std::reverse(t.begin(), t.end());
            gpuasm_seqview pv, tv;
            pv.p = pat.data();
            pv.len = m;
            pv.rc = 0;
            tv.p = t.data();
            tv.len = (uint32_t)t.size();
            tv.rc = 0;
            const uint32_t omin = m / 2u;
            std::vector<uint64_t> ws(gpuasm_partial_ws_words(m));
            const gpuasm_partial want = gpuasm_partial_best(&o, omin, o.partial_floor, &pv, &tv, at_start, 0, ws.data());
            pw_item it;
            gpuasm_partial got;
            got.plen = 0;
            got.dist = 0;
            if (pw_setup(it, &o, omin, o.partial_floor, pv, tv, at_start)) got = run_r(R, it, &o);
            tap(want.plen == m - 1u && want.dist == kmax && got.plen == want.plen && got.dist == want.dist,
                "tight entry, R=%u %s m=%u kmax=%d: partial.h (%u, %d), expected (%u, %d), warp (%u, %d)", R,
                at_start ? "start" : "end", m, kmax, want.plen, want.dist, m - 1u, kmax, got.plen, got.dist);
        }
    /* The cases must exercise the rule, not only "none" (a test that
     * cannot fail otherwise). */
    tap(with_hit * 2 >= cases, "%d of %d items have a partial occurrence", with_hit, cases);
    tap(runs_skipping > 0 && runs_late_entry > 0,
        "the cut-off skipped the strips below one in %ld runs and entered a strip after column 0 in %ld",
        runs_skipping, runs_late_entry);
    printf("1..%d\n", n_tests);
    return n_failed ? 1 : 0;
}
