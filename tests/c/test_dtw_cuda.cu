/* test_dtw_cuda.cu -- the host harness of the CUDA dtw kernel: the very
 * per-lane and per-thread code of kernels/dtw_cuda_core.cuh (the functions
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

#include "dtw_cuda_core.cuh"
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

template <int R, int COST, int ALIGNED>
static uint64_t best_warp(const int16_t *x, uint32_t m, const int16_t *y, uint32_t n)
{
    /* The reference padded to whole tiles plus one (upload_targets()). */
    std::vector<int16_t> yp((n + DTW_TILE - 1) / DTW_TILE * DTW_TILE + DTW_TILE, 0);
    memcpy(yp.data(), y, n * sizeof(int16_t));
    best_item it;
    it.x = x;
    it.m = m;
    it.y = yp.data();
    it.n = n;
    it.ntiles = (n + DTW_TILE - 1) / DTW_TILE;
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
    const uint32_t LD = dpk::ring_ld(it.m);
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
    std::vector<int16_t> yl(200000);
    rnd_vals(yl.data(), 200000, 1);
    rnd_vals(x.data(), 150, 1);
    const uint64_t want = twin_key(x.data(), 150, yl.data(), 200000, GPUASM_COST_SQ);
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
    return tap_done();
}
