/* SPDX-License-Identifier: MIT */
/* test_dtw_cuda.cu -- the host harness of the CUDA dtw kernel: the very
 * per-lane and per-thread code of kernels/dtw/dtw_cuda_core.cuh (the functions
 * the kernels of dtw_cuda.cu call between their shuffles and barriers), run
 * on the CPU lane by lane and thread by thread, phase by phase, against the
 * CPU twin.  Built by nvcc as host code in CUDA builds (no GPU needed);
 * output is TAP.
 *
 *   BEST: a warp emulated as 32 lanes in lockstep (step t of every lane,
 *     then each lane's result handed to the next: __shfl_up_sync), every
 *     rows-per-lane template R = 4 .. 64, ALIGNED where R divides m, queries
 *     of one and of several bands (the global row buffer between them);
 *   PAPER: pass 1 (a block per segment: paper_init, then paper_step of every
 *     thread per anti-diagonal) and pass 2 (k_paper_fix's walk: compare,
 *     keep or recompute from the exact column), blockDim 32, 64 and m
 *     rounded up, many segment counts;
 *   seed 001 §8 for DTW: a query whose only zero-cost alignment spans the
 *     whole reference.  §8's fresh segments alone (the minimum over pass 1)
 *     miss it; with pass 2 the result is the twin's;
 *   BEST "sets" (S sets of R0 rows a lane, one pass): the lanes in
 *     lockstep with the rotate shuffle between steps, every (R0, S)
 *     instance of dtw_cuda.cu on queries of S sets (the last partly idle),
 *     sets_choose's routing, 2,000-sample queries and a long reference;
 *   Fig. 4 through both layouts; random pairs with both costs; long queries
 *   (4,099 and 4,100 samples) and a long reference.
 * The harness pads references to whole tiles as dtw_cuda.cu's
 * upload_targets() does.  GPUASM_TEST_SEED varies the random cases.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "kernels/dtw/dtw_cuda_core.cuh"
#include "kernels/twin.h"      /* gpuasm_dtw_cpu_pair */
#include "tap.h"

using namespace dtwk;

/* The CPU twin's key of a pair. */
static uint64_t twin_key(const int16_t *x, uint32_t m, const int16_t *y, uint32_t n, int cost)
{
    std::vector<int32_t> work(m + 1);
    int32_t c;
    uint64_t e;
    gpuasm_dtw_cpu_pair(x, m, y, n, cost, work.data(), &c, &e, NULL, NULL);
    return key_of(c, (uint32_t)e);
}

/* ---- BEST: one warp, lanes in lockstep -------------------------------------- */

/* An item of query x against y, y padded in yp to whole tiles plus one
 * (upload_targets()). */
static best_item padded_item(const int16_t *x, uint32_t m, const int16_t *y, uint32_t n,
                             std::vector<int16_t> &yp)
{
    yp.assign((n + DTW_TILE - 1) / DTW_TILE * DTW_TILE + DTW_TILE, 0);
    memcpy(yp.data(), y, n * sizeof(int16_t));
    best_item it;
    it.x = x;
    it.m = m;
    it.y = yp.data();
    it.n = n;
    it.ntiles = (n + DTW_TILE - 1) / DTW_TILE;
    return it;
}

template <int R, int COST, int ALIGNED>
static uint64_t best_warp(const int16_t *x, uint32_t m, const int16_t *y, uint32_t n)
{
    std::vector<int16_t> yp;
    const best_item it = padded_item(x, m, y, n, yp);
    std::vector<int32_t> bnd((size_t)it.ntiles * DTW_TILE + DTW_TILE, 0x5a5a5a5a);
    best_lane<R> s[32];
    int4 above[32], out[32];
    const uint32_t nb = best_bands(m, R), nsteps = best_nsteps(it);
    for (uint32_t band = 0; band < nb; ++band) {
        const int last = band + 1 == nb;
        for (uint32_t L = 0; L < 32; ++L) {
            best_band_init<R>(s[L], it, band, L);
            above[L] = L == 0 ? best_top(bnd.data(), band, 0, it.ntiles)
                              : make_int4(DTW_INF, DTW_INF, DTW_INF, DTW_INF);
        }
        for (uint32_t t = 0; t < nsteps; ++t) {
            for (uint32_t L = 0; L < 32; ++L)
                out[L] = best_band_step<R, COST, ALIGNED>(s[L], it, L, t, above[L], bnd.data(), last);
            above[0] = best_top(bnd.data(), band, t + 1, it.ntiles);
            for (uint32_t L = 1; L < 32; ++L) above[L] = out[L - 1];
        }
    }
    for (uint32_t L = 0; L < 32; ++L)
        if (s[L].hl >= 0) return key_of(s[L].best, s[L].bestj);
    return KEY_NONE;
}

template <int COST>
static uint64_t best_any(uint32_t R, int aligned, const int16_t *x, uint32_t m, const int16_t *y,
                         uint32_t n)
{
#define B_(r) (aligned ? best_warp<r, COST, 1>(x, m, y, n) : best_warp<r, COST, 0>(x, m, y, n))
    switch (R) {
    case 4: return B_(4);
    case 8: return B_(8);
    case 16: return B_(16);
    case 32: return B_(32);
    default: return B_(64);
    }
#undef B_
}

static uint64_t best_key(uint32_t R, int aligned, int cost, const int16_t *x, uint32_t m,
                         const int16_t *y, uint32_t n)
{
    return cost == GPUASM_COST_SQ ? best_any<GPUASM_COST_SQ>(R, aligned, x, m, y, n)
                                  : best_any<GPUASM_COST_ABS>(R, aligned, x, m, y, n);
}

/* ---- BEST, sets: one warp, S sets a lane, the rotate shuffle ------------------ */

/* k_sets of dtw_cuda.cu lane by lane: sets_above, sets_step of every lane
 * in lockstep, then rot[L][s] = out[(L + 31) & 31][s] (__shfl_sync from
 * lane (L + 31) & 31), and sets_key of the lane of row m - 1. */
template <int R0, int S, int COST>
static uint64_t sets_warp(const int16_t *x, uint32_t m, const int16_t *y, uint32_t n)
{
    std::vector<int16_t> yp;
    const best_item it = padded_item(x, m, y, n, yp);
    std::vector<sets_lane<R0, S> > w(32);
    int4 in[32][S], out[32][S], rot[32][S];
    for (uint32_t L = 0; L < 32; ++L) {
        sets_init<R0, S>(w[L], it, L);
        for (int s = 0; s < S; ++s) rot[L][s] = make_int4(DTW_INF, DTW_INF, DTW_INF, DTW_INF);
    }
    const uint32_t nsteps = sets_nsteps(it, R0);
    for (uint32_t t = 0; t < nsteps; ++t) {
        for (uint32_t L = 0; L < 32; ++L) {
            sets_above<S>(in[L], rot[L], L, t, it.ntiles);
            sets_step<R0, S, COST>(w[L], it, L, t, in[L], out[L]);
        }
        for (uint32_t L = 0; L < 32; ++L)
            for (int s = 0; s < S; ++s) rot[L][s] = out[(L + 31) & 31][s];
    }
    uint64_t key = KEY_NONE;
    int holders = 0;
    for (uint32_t L = 0; L < 32; ++L) holders += sets_key<R0, S>(w[L], &key);
    return holders == 1 ? key : KEY_NONE - 1;   /* exactly one lane holds row m - 1 */
}

/* The instance (R0, S) of dtw_cuda.cu's sets_kernel(), S <= sets_max(R0). */
template <int COST, int R0, int S>
static uint64_t sets_s(uint32_t s, const int16_t *x, uint32_t m, const int16_t *y, uint32_t n)
{
    if (S > 1 && s < (uint32_t)S) return sets_s<COST, R0, (S > 1 ? S - 1 : 1)>(s, x, m, y, n);
    return sets_warp<R0, S, COST>(x, m, y, n);
}

static uint64_t sets_key_of(uint32_t R0, uint32_t S, int cost, const int16_t *x, uint32_t m,
                            const int16_t *y, uint32_t n)
{
#define S_(c) (R0 == 4 ? sets_s<c, 4, sets_max(4)>(S, x, m, y, n)        \
               : R0 == 8 ? sets_s<c, 8, sets_max(8)>(S, x, m, y, n)     \
                         : sets_s<c, 16, sets_max(16)>(S, x, m, y, n))
    return cost == GPUASM_COST_SQ ? S_(GPUASM_COST_SQ) : S_(GPUASM_COST_ABS);
#undef S_
}

/* The (R0, S) the launcher picks for m (sets_choose, default knobs); the
 * query runs through the sets kernel. 0: not a sets query. */
static int sets_auto(int cost, const int16_t *x, uint32_t m, const int16_t *y, uint32_t n, uint64_t *key)
{
    uint32_t R0, S;
    if (!sets_choose(m, DTW_SETS_MAX, DTW_R_MAX, &R0, &S)) return 0;
    *key = sets_key_of(R0, S, cost, x, m, y, n);
    return 1;
}

/* ---- PAPER: blocks of B threads, phase by phase ------------------------------- */

struct paper_run {
    uint64_t key;          /* with pass 2 */
    uint64_t pass1_key;    /* the minimum over pass 1's fresh segments (seed 001 §8 alone) */
    uint32_t recomputed;   /* segments pass 2 recomputed */
};

/* One block sweeping `it` from `bnd` (NULL: fresh); chk/last as k_paper. */
template <int COST>
static uint64_t paper_block(const paper_item &it, uint32_t B, const int32_t *bnd, int32_t *chk,
                            int32_t *last)
{
    const uint32_t LD = wave::ring_ld(it.m);
    std::vector<int32_t> ring((size_t)3 * LD, 0x5a5a5a5a);   /* garbage: init must set what is read */
    std::vector<paper_st> st(B);
    for (uint32_t g = 0; g < B; ++g) paper_init(st[g], ring.data(), LD, it.m, g, B, bnd);
    const uint32_t nsteps = paper_nsteps(it);
    for (uint32_t t = 0; t < nsteps; ++t)
        for (uint32_t g = 0; g < B; ++g) paper_step<COST>(st[g], it, ring.data(), LD, g, B, t, chk, last);
    for (uint32_t g = 0; g < B; ++g)
        if (paper_has_last_row(it, g, B)) return key_of(st[g].best, st[g].bestj);
    return KEY_NONE;
}

template <int COST>
static paper_run paper_pair(const int16_t *x, uint32_t m, const int16_t *y, uint32_t n, uint32_t B,
                            int32_t segments)
{
    const uint32_t nseg = paper_nseg(m, n, segments);
    std::vector<int32_t> chk((size_t)nseg * m), last((size_t)nseg * m), fix((size_t)2 * m);
    std::vector<uint64_t> segkey(nseg);
    paper_run run;
    run.pass1_key = KEY_NONE;
    run.recomputed = 0;
    /* Pass 1 (k_paper): a block per segment, fresh start. */
    for (uint32_t seg = 0; seg < nseg; ++seg) {
        const paper_item it = paper_item_of(x, m, y, n, seg, nseg, 0);
        segkey[seg] = paper_block<COST>(it, B, NULL, seg ? &chk[(size_t)seg * m] : NULL,
                                        &last[(size_t)seg * m]);
        run.pass1_key = segkey[seg] < run.pass1_key ? segkey[seg] : run.pass1_key;
    }
    /* Pass 2 (k_paper_fix): the segments in order against the exact column. */
    const int32_t *exact = &last[0];
    uint64_t best = segkey[0];
    for (uint32_t seg = 1; seg < nseg; ++seg) {
        int same = 1;
        for (uint32_t i = 0; i < m; ++i) same &= chk[(size_t)seg * m + i] == exact[i];
        if (same) {
            exact = &last[(size_t)seg * m];
            best = segkey[seg] < best ? segkey[seg] : best;
            continue;
        }
        run.recomputed++;
        int32_t *f = &fix[(size_t)(seg & 1) * m];
        const paper_item it = paper_item_of(x, m, y, n, seg, nseg, 1);
        const uint64_t k = paper_block<COST>(it, B, exact, NULL, f);
        best = k < best ? k : best;
        exact = f;
    }
    run.key = best;
    return run;
}

static paper_run paper_key(int cost, const int16_t *x, uint32_t m, const int16_t *y, uint32_t n,
                           uint32_t B, int32_t segments)
{
    return cost == GPUASM_COST_SQ ? paper_pair<GPUASM_COST_SQ>(x, m, y, n, B, segments)
                                  : paper_pair<GPUASM_COST_ABS>(x, m, y, n, B, segments);
}

/* ---- cases ----------------------------------------------------------------------- */

static void rnd_vals(int16_t *v, uint32_t n, int kind)
{
    for (uint32_t i = 0; i < n; i++)
        v[i] = kind == 0 ? (int16_t)((int)below(1024) - 512)
             : kind == 1 ? (int16_t)(64 * ((int)below(5) - 2)) : (int16_t)(below(4) ? 0 : 64);
}

/* A long reference: yl = 200,000 samples of kind 1, then x[0, m) of kind
 * 1; the twin's squared-cost key of x[0, m) against yl[0, n). */
static uint64_t long_reference(std::vector<int16_t> &yl, int16_t *x, uint32_t m, uint32_t n)
{
    yl.assign(200000, 0);
    rnd_vals(yl.data(), 200000, 1);
    rnd_vals(x, m, 1);
    return twin_key(x, m, yl.data(), n, GPUASM_COST_SQ);
}

static void test_fig4(void)
{
    const int16_t X[5] = { 1, 3, 5, 3, 1 }, Y[8] = { 1, 2, 3, 4, 4, 2, 1, 2 };
    const uint64_t want = twin_key(X, 5, Y, 8, GPUASM_COST_ABS);
    int ok = (want >> 32) == 4;
    for (uint32_t R = 4; R <= 64; R *= 2) ok &= best_key(R, 0, GPUASM_COST_ABS, X, 5, Y, 8) == want;
    tap(ok, "Fig. 4 through BEST (every R): ADSM 4 at the twin's end");
    ok = 1;
    for (int seg = 1; seg <= 8; seg++) ok &= paper_key(GPUASM_COST_ABS, X, 5, Y, 8, 32, seg).key == want;
    tap(ok, "Fig. 4 through PAPER (1 to 8 segments): ADSM 4 at the twin's end");
}

static void test_random(void)
{
    int bad_best = 0, bad_paper = 0, n_best = 0, n_paper = 0;
    std::vector<int16_t> x(700), y(3000);
    for (int rep = 0; rep < 160; rep++) {
        const int kind = rep % 3, cost = (rep / 3) % 2;
        const uint32_t m = 1 + (uint32_t)below(rep % 4 == 0 ? 700 : 140);
        const uint32_t n = 1 + (uint32_t)below(rep % 5 == 0 ? 3000 : 300);
        rnd_vals(x.data(), m, kind);
        rnd_vals(y.data(), n, kind);
        const uint64_t want = twin_key(x.data(), m, y.data(), n, cost);
        for (uint32_t R = 4; R <= 64; R *= 2) {
            for (int aligned = 0; aligned <= (m % R == 0); aligned++) {
                const uint64_t k = best_key(R, aligned, cost, x.data(), m, y.data(), n);
                n_best++;
                if (k != want && bad_best++ < 5)
                    diag("BEST R %u aligned %d m %u n %u cost %d: key %llx, twin %llx", R, aligned, m, n,
                         cost, (unsigned long long)k, (unsigned long long)want);
            }
        }
        const uint32_t Bs[3] = { 32, 64, (m + 31) / 32 * 32 > 1024 ? 1024 : (m + 31) / 32 * 32 };
        for (int b = 0; b < 3; b++) {
            const int32_t seg = (int32_t)(below(3) ? 1 + below(30) : 0);
            const paper_run pr = paper_key(cost, x.data(), m, y.data(), n, Bs[b], seg);
            n_paper++;
            if (pr.key != want && bad_paper++ < 5)
                diag("PAPER B %u segments %d m %u n %u cost %d: key %llx, twin %llx", Bs[b], seg, m, n, cost,
                     (unsigned long long)pr.key, (unsigned long long)want);
        }
    }
    tap(bad_best == 0, "BEST lanes = CPU twin on %d (pair, R, aligned) runs: one band and several, "
        "both costs (%d differ)", n_best, bad_best);
    tap(bad_paper == 0, "PAPER blocks + check pass = CPU twin on %d (pair, blockDim, segments) runs "
        "(%d differ)", n_paper, bad_paper);
}

static void test_sets_choose(void)
{
    struct { uint32_t m, smax, rmax, ok, R0, S; } c[] = {
        { 2000, 8, 64, 1, 16, 4 },   /* 125 virtual lanes of 16 rows; 8 x 8 issues more */
        { 2000, 8, 8, 1, 8, 8 },     /* GPUASM_DTW_ROWS=8 */
        { 2000, 3, 64, 0, 0, 0 },    /* GPUASM_DTW_SETS=3: the band path */
        { 2000, 0, 64, 0, 0, 0 },    /* GPUASM_DTW_SETS=0 */
        { 256, 8, 64, 1, 8, 1 },     /* 32 lanes of 8 rows beat 16 of 16 */
        { 512, 8, 64, 1, 16, 1 },
        { 4, 8, 64, 1, 4, 1 },
        { 1020, 8, 64, 1, 4, 8 },    /* 4 x 255 */
        { 1028, 8, 64, 0, 0, 0 },    /* 4 x 257: 9 sets of 4 */
        { 2001, 8, 64, 0, 0, 0 },
        { 2048, 8, 64, 1, 16, 4 },
        { 2064, 8, 64, 0, 0, 0 },    /* 16 x 129: 5 sets of 16 */
    };
    int ok = 1;
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        uint32_t R0 = 0, S = 0;
        const int got = sets_choose(c[i].m, c[i].smax, c[i].rmax, &R0, &S);
        if (got != (int)c[i].ok || (got && (R0 != c[i].R0 || S != c[i].S))) {
            ok = 0;
            diag("sets_choose(m %u, smax %u, rmax %u): %d, R0 %u, S %u", c[i].m, c[i].smax, c[i].rmax, got, R0, S);
        }
    }
    /* Every m: a choice is a valid instance covering the query. */
    for (uint32_t m = 1; m <= 2100; m++) {
        uint32_t R0, S;
        if (!sets_choose(m, DTW_SETS_MAX, DTW_R_MAX, &R0, &S)) continue;
        if (m % R0 || S != (m / R0 + 31) / 32 || S < 1 || S > (uint32_t)sets_max((int)R0)) {
            ok = 0;
            diag("sets_choose(m %u): R0 %u, S %u", m, R0, S);
        }
    }
    tap(ok, "sets_choose: R0 in {16, 8, 4} dividing m, S = ceil(m / 32 R0) within the caps, "
        "the knobs' caps, 2,000 samples -> 4 sets of 16 rows");
}

/* Every (R0, S) instance on random queries of m = R0 k samples, k in
 * (32 (S - 1), 32 S] (so S sets, the last one partly idle), references of
 * any length (most not whole tiles), both costs. */
static void test_sets_random(void)
{
    std::vector<int16_t> x(2048), y(1200);
    int runs = 0, bad = 0;
    for (uint32_t R0 = 4; R0 <= 16; R0 *= 2)
        for (uint32_t S = 1; S <= (uint32_t)sets_max((int)R0); S++)
            for (int rep = 0; rep < 10; rep++) {
                const int kind = rep % 3, cost = rep % 2;
                const uint32_t k = 32 * (S - 1) + 1 + (uint32_t)below(32), m = R0 * k;
                const uint32_t n = rep == 5 ? 1 + (uint32_t)below(7) : 1 + (uint32_t)below(1200);
                rnd_vals(x.data(), m, kind);
                rnd_vals(y.data(), n, kind);
                const uint64_t want = twin_key(x.data(), m, y.data(), n, cost);
                const uint64_t got = sets_key_of(R0, S, cost, x.data(), m, y.data(), n);
                runs++;
                if (got != want && bad++ < 5)
                    diag("sets R0 %u S %u m %u n %u cost %d: key %llx, twin %llx", R0, S, m, n, cost,
                         (unsigned long long)got, (unsigned long long)want);
            }
    tap(bad == 0, "sets lanes (rotate shuffle) = CPU twin on %d runs: every (R0, S) of R0 = 4, 8, 16 "
        "and S = 1 .. %d, both costs (%d differ)", runs, (int)DTW_SETS_MAX, bad);
}

static void test_sets_cases(void)
{
    /* Fig. 4's query (m = 5) is no sets query; with each of its samples
     * repeated 4 times (m = 20, R0 = 4) it is. */
    const int16_t X[5] = { 1, 3, 5, 3, 1 }, Y[8] = { 1, 2, 3, 4, 4, 2, 1, 2 };
    int16_t X4[20];
    for (int i = 0; i < 20; i++) X4[i] = X[i / 4];
    uint64_t k5 = 0, k20 = 0;
    const uint64_t want = twin_key(X4, 20, Y, 8, GPUASM_COST_ABS);
    tap(!sets_auto(GPUASM_COST_ABS, X, 5, Y, 8, &k5) && sets_auto(GPUASM_COST_ABS, X4, 20, Y, 8, &k20) &&
            k20 == want,
        "Fig. 4: m = 5 goes to the band path; its query with samples repeated 4 times "
        "(m = 20: one set of 4 rows) = twin (%llu)", (unsigned long long)(want >> 32));

    /* 2,000 samples (the benchmark's queries: 4 sets of 16 rows) in a long
     * reference, planted and warped; 1,024 against 200,000 (squared). */
    std::vector<int16_t> x(2048), y(20000);
    rnd_vals(x.data(), 2048, 0);
    rnd_vals(y.data(), 20000, 0);
    for (uint32_t i = 0; i < 2000; i++) y[9000 + i + i / 9] = x[i];
    uint64_t k = 0;
    int ok = 1;
    for (int cost = 0; cost <= 1; cost++) {
        const uint64_t w = twin_key(x.data(), 2000, y.data(), 19999, cost);
        ok &= sets_auto(cost, x.data(), 2000, y.data(), 19999, &k) && k == w;
        ok &= sets_key_of(8, 8, cost, x.data(), 2000, y.data(), 19999) == w;
    }
    tap(ok, "2,000-sample queries vs 19,999 samples (a warped copy planted): 4 sets of 16 and "
        "8 of 8 rows = twin, both costs");
    std::vector<int16_t> yl;
    const uint64_t w = long_reference(yl, x.data(), 1024, 199997);
    tap(sets_auto(GPUASM_COST_SQ, x.data(), 1024, yl.data(), 199997, &k) && k == w,
        "a 1,024-sample query vs 199,997 samples (squared cost) through sets = twin");
}

static void test_seed8(void)
{
    /* X = 0, 5, 10 (x 32 units) and Y = 0, 5 x 100, 10: DTW 0 only for the
     * whole of Y, which no window of §8's 3 m = 9 samples holds. */
    const int16_t X[3] = { 0, 160, 320 };
    std::vector<int16_t> Y(102, 160);
    Y[0] = 0;
    Y[101] = 320;
    const uint64_t want = twin_key(X, 3, Y.data(), 102, GPUASM_COST_ABS);
    const paper_run pr = paper_key(GPUASM_COST_ABS, X, 3, Y.data(), 102, 32, 20);
    tap((want >> 32) == 0 && (pr.pass1_key >> 32) > 0,
        "seed 001 §8 for DTW: fresh overlapping segments alone give %llu, the ADSM is %llu "
        "(a cheap path may span any length of the reference)", (unsigned long long)(pr.pass1_key >> 32),
        (unsigned long long)(want >> 32));
    tap(pr.key == want && pr.recomputed > 0,
        "PAPER's check pass recomputes %u of 20 segments from the exact column and gives the twin's "
        "result", pr.recomputed);
}

static void test_long(void)
{
    std::vector<int16_t> x(4100), y(20000);
    rnd_vals(x.data(), 4100, 0);
    rnd_vals(y.data(), 20000, 0);
    for (uint32_t i = 0; i < 4000; i++) y[9000 + i + i / 9] = x[i];   /* planted, warped */
    int ok = 1;
    for (uint32_t m = 4099; m <= 4100; m++) {
        const uint64_t want = twin_key(x.data(), m, y.data(), 20000, GPUASM_COST_ABS);
        ok &= best_key(64, 0, GPUASM_COST_ABS, x.data(), m, y.data(), 20000) == want;     /* 3 bands */
        if (m % 4 == 0) ok &= best_key(4, 1, GPUASM_COST_ABS, x.data(), m, y.data(), 20000) == want;
        ok &= paper_key(GPUASM_COST_ABS, x.data(), m, y.data(), 20000, 1024, 0).key == want;
    }
    tap(ok, "long queries (4,099, 4,100 samples: 3 bands of 2,048 rows, 33 of 128) vs 20,000 samples: "
        "BEST and PAPER = twin");
    std::vector<int16_t> yl;
    const uint64_t want = long_reference(yl, x.data(), 150, 200000);
    tap(best_key(8, 0, GPUASM_COST_SQ, x.data(), 150, yl.data(), 200000) == want &&
            paper_key(GPUASM_COST_SQ, x.data(), 150, yl.data(), 200000, 160, 0).key == want,
        "a 150-sample query vs a 200,000-sample reference (squared cost): BEST and PAPER = twin");
}

int main(void)
{
    rng_seed_from_env();
    test_fig4();
    test_random();
    test_seed8();
    test_long();
    test_sets_choose();
    test_sets_random();
    test_sets_cases();
    return tap_done();
}
