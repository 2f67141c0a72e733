/* SPDX-License-Identifier: MIT */
/* test_dtw.c -- the signal mode (search/signal_mode.h) against the naive O(mn)
 * DTW of tests/c/naive_dtw.h.  Output is TAP.
 *
 *   (a) seed 001 Fig. 4: X = 1,3,5,3,1, Y = 1,2,3,4,4,2,1,2 gives 4; the
 *       twin's whole matrix (column by column) equals the oracle's, and
 *       is compared cell by cell with the figure as printed (below);
 *   (b) the CPU twin vs the oracle on random series: both costs, wide
 *       values, few values (ties everywhere), constant runs;
 *   (c) gpuasm_dtw_start(): the start it gives has DTW(X, Y[s..end]) equal
 *       to the cost (the oracle's global DTW), and no later start does;
 *   (c') the same with every end of a pair and costs next to the true
 *       one, against the search without its pruning (the contract);
 *   (d) the engine (gpuasm_engine_scan_signals_lane: CPU, or the device of
 *       GPUASM_TEST_DEVICE) on random batches, empty reads and references
 *       included, in both layouts (GPUASM_TEST_VARIANT forces one;
 *       GPUASM_TEST_SEGMENTS the paper layout's segments), every pair
 *       against the oracle; the checks of gpuasm_signal_check();
 *   (e) long queries (4,099 and 4,100 samples) and long references
 *       (300,000 samples) through the engine against the oracle;
 *   (f) real signals (GPUASM_SIGNAL_READS: a SLOW5/text file of the chr22
 *       reads, tests/data/signal.bats makes it; skipped without): a
 *       segment of one read, time-warped and with noise added, against the
 *       other reads concatenated, and against them with the segment
 *       spliced in (the alignment must land on it).
 * Environment: GPUASM_TEST_SEED, GPUASM_TEST_DEVICE (default cpu; cuda
 * without a device: skip, exit 77), GPUASM_TEST_ONLY=real: (f) alone
 * (tests/data/signal.bats runs it so).
 *
 * Seed 001's Fig. 4 as printed (our transcription, seeds/001) does not
 * follow its own equation in three cells: d[1][1] is printed 1, but
 * min(d[1][0], d[0][1], d[0][0]) + |1 - 1| = min(inf, 0, inf) + 0 = 0
 * (and the printed cells below it in columns 1 and 2 follow from that 1),
 * d[5][6] is printed 5 where its printed neighbours give 1 + min(6, 4, 3)
 * = 4, and d[5][8] 6 where they give 1 + min(4, 5, 6) = 5.  The test checks
 * exactly that: every other printed cell equals the recurrence applied to
 * its printed neighbours, our matrix equals the figure in the 29 cells
 * those three misprints do not reach and differs in the 11 they do, and
 * both give ADSM = 4.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "naive_dtw.h"
#include "kernels/registry.h"
#include "kernels/twin.h"      /* gpuasm_dtw_cpu_pair */
#include "search/signal_mode.h"
#include "io/signal_norm.h"
#include "io/signal_reads.h"
#include "tap.h"

/* ---- (a) Fig. 4 ---------------------------------------------------------- */

static const int16_t FX[5] = { 1, 3, 5, 3, 1 };
static const int16_t FY[8] = { 1, 2, 3, 4, 4, 2, 1, 2 };
/* d[1..5][1..8] as printed in seed 001, Fig. 4. */
static const int FIG4[5][8] = {
    { 1, 1, 2, 3, 3, 1, 0, 1 },
    { 3, 2, 1, 2, 3, 2, 2, 1 },
    { 7, 5, 3, 2, 3, 5, 6, 4 },
    { 9, 6, 3, 3, 3, 4, 6, 5 },
    { 9, 7, 5, 6, 6, 5, 4, 6 },
};

typedef struct { int32_t d[5][8]; int cols; } fig_cols;

static void fig_column(void *ctx, uint64_t j, const int32_t *col)
{
    fig_cols *f = ctx;
    for (int i = 0; i < 5; i++) f->d[i][j] = col[i];
    f->cols++;
}

static void test_fig4(void)
{
    int32_t work[8], cost;
    uint64_t end;
    fig_cols f = { .cols = 0 };
    gpuasm_dtw_cpu_pair(FX, 5, FY, 8, GPUASM_COST_ABS, work, &cost, &end, fig_column, &f);
    tap(cost == 4, "Fig. 4: ADSM(X, Y) = 4 (twin: %d, ends at Y[%llu])", (int)cost,
        (unsigned long long)end + 1);
    /* the oracle's row i is its row m of the query's first i values */
    int same = f.cols == 8;
    for (int i = 0; i < 5; i++) {
        double *row = naive_dtw_row(FX, (uint32_t)i + 1, FY, 8, GPUASM_COST_ABS, 1);
        for (int j = 0; j < 8; j++) same &= (double)f.d[i][j] == row[j + 1];
        free(row);
    }
    tap(same, "Fig. 4: the twin's matrix, column by column, equals the oracle's");
    /* The figure against its own neighbours. */
    int bad[3][2], nbad = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 8; j++) {
            const double l = j ? FIG4[i][j - 1] : INFINITY;
            const double u = i ? FIG4[i - 1][j] : 0.0;
            const double g = i ? (j ? FIG4[i - 1][j - 1] : INFINITY) : (j ? 0.0 : INFINITY);
            const double v = fmin(fmin(l, u), g) + abs(FX[i] - FY[j]);
            if (v != FIG4[i][j] && nbad < 3) {
                bad[nbad][0] = i + 1;
                bad[nbad][1] = j + 1;
                nbad++;
            } else if (v != FIG4[i][j]) {
                nbad++;
            }
        }
    tap(nbad == 3 && bad[0][0] == 1 && bad[0][1] == 1 && bad[1][0] == 5 && bad[1][1] == 6 &&
            bad[2][0] == 5 && bad[2][1] == 8,
        "Fig. 4 as printed: every cell follows §5's recurrence from its printed neighbours but "
        "d[1][1], d[5][6], d[5][8] (%d cells do not)", nbad);
    /* Ours against the printed figure: equal outside the misprints' reach. */
    static const int reach[11][2] = { { 1, 1 }, { 2, 1 }, { 3, 1 }, { 4, 1 }, { 5, 1 }, { 2, 2 },
                                      { 3, 2 }, { 4, 2 }, { 5, 2 }, { 5, 6 }, { 5, 8 } };
    int ndiff = 0, outside = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 8; j++) {
            if (f.d[i][j] == FIG4[i][j]) continue;
            ndiff++;
            int in = 0;
            for (int r = 0; r < 11; r++) in |= reach[r][0] == i + 1 && reach[r][1] == j + 1;
            if (!in) outside++;
        }
    tap(ndiff == 11 && outside == 0,
        "Fig. 4: our matrix equals the printed one in 29 of 40 cells, and differs only where the "
        "three misprints reach (%d differ, %d elsewhere)", ndiff, outside);
    int fmin_row = 99;
    for (int j = 0; j < 8; j++) fmin_row = FIG4[4][j] < fmin_row ? FIG4[4][j] : fmin_row;
    tap(fmin_row == 4 && cost == 4, "Fig. 4: the printed last row's minimum is 4 too");
}

/* ---- random series --------------------------------------------------------- */

enum { VAL_WIDE, VAL_FEW, VAL_RUNS, VAL_KINDS };

static int16_t rnd_val(int kind)
{
    switch (kind) {
    case VAL_FEW: return (int16_t)(64 * ((int)below(5) - 2));
    case VAL_RUNS: return (int16_t)(below(4) ? 0 : 64);
    default: return (int16_t)((int)below(1024) - 512);
    }
}

static void rnd_signal(int16_t *s, uint64_t n, int kind)
{
    for (uint64_t i = 0; i < n; i++) s[i] = rnd_val(kind);
}

/* ---- (b), (c) the twin and the start ------------------------------------------ */

/* Random pair number rep of `half` small ones (m <= ms, n <= ns) then
 * larger ones (m <= mb, n <= nb): values of kind rep % VAL_KINDS, the
 * cost kind alternating every VAL_KINDS pairs. */
static void rnd_pair(int rep, int half, uint32_t ms, uint64_t ns, uint32_t mb, uint64_t nb,
                     int16_t *x, uint32_t *m, int16_t *y, uint64_t *n, int *ck)
{
    const int kind = rep % VAL_KINDS;
    *ck = (rep / VAL_KINDS) % 2;
    *m = 1 + (uint32_t)below(rep < half ? ms : mb);
    *n = 1 + below(rep < half ? ns : nb);
    rnd_signal(x, *m, kind);
    rnd_signal(y, *n, kind);
}

static void test_twin(void)
{
    int fails = 0, sfails = 0, pairs = 0;
    int16_t *x = xmalloc(200 * sizeof(int16_t)), *y = xmalloc(700 * sizeof(int16_t));
    int32_t *work = xmalloc(2 * 201 * sizeof(int32_t));
    for (int rep = 0; rep < 600; rep++) {
        uint32_t m;
        uint64_t n;
        int ck;
        rnd_pair(rep, 300, 12, 20, 200, 700, x, &m, y, &n, &ck);
        int32_t c;
        uint64_t e, ne = 0;
        gpuasm_dtw_cpu_pair(x, m, y, n, ck, work, &c, &e, NULL, NULL);
        const double nc = naive_adsm(x, m, y, n, ck, &ne);
        pairs++;
        if ((double)c != nc || e != ne) {
            if (fails++ < 5) diag("m %u n %llu cost kind %d: twin %d at %llu, oracle %.0f at %llu", m,
                                  (unsigned long long)n, ck, (int)c, (unsigned long long)e, nc,
                                  (unsigned long long)ne);
            continue;
        }
        if (rep >= 300 && rep % 4) continue;   /* the start check is O(m n^2) */
        const int64_t s = gpuasm_dtw_start(x, m, y, e, ck, c, work);
        int ok = s >= 0 && naive_dtw(x, m, y + s, e - (uint64_t)s + 1, ck) == (double)c;
        for (uint64_t s2 = (uint64_t)(s + 1); ok && s2 <= e; s2++)
            ok = naive_dtw(x, m, y + s2, e - s2 + 1, ck) > (double)c;
        if (!ok && sfails++ < 5) diag("start: m %u n %llu end %llu cost %d: start %lld", m,
                                      (unsigned long long)n, (unsigned long long)e, (int)c, (long long)s);
    }
    tap(fails == 0, "CPU twin = oracle (cost and smallest end) on %d random pairs, both costs, "
        "wide/few/run values (%d differ)", pairs, fails);
    tap(sfails == 0, "gpuasm_dtw_start: DTW(X, Y[s..end]) = the cost, and no later start gives it "
        "(%d wrong)", sfails);
    free(x);
    free(y);
    free(work);
}

/* gpuasm_dtw_start() with nothing pruned: every row of every column from
 * `end` leftwards, +inf saturated, the first column whose full-query cell
 * equals cost (the contract; stops when a column has no cell <= cost). */
static int64_t plain_start(const int16_t *x, uint32_t m, const int16_t *y, uint64_t end, int ck,
                           int32_t cost)
{
    const int64_t INF = INT64_MAX / 4;
    int64_t *nxt = xmalloc((m + 1) * sizeof(int64_t)), *cur = xmalloc((m + 1) * sizeof(int64_t));
    int64_t found = -1;
    for (uint32_t i = 0; i <= m; i++) nxt[i] = INF;
    for (uint64_t jj = end + 1; jj-- > 0;) {
        nxt[m] = jj == end ? 0 : INF;
        cur[m] = INF;
        int64_t colmin = INF;
        for (uint32_t i = m; i-- > 0;) {
            int64_t v = nxt[i + 1] < nxt[i] ? nxt[i + 1] : nxt[i];
            if (cur[i + 1] < v) v = cur[i + 1];
            cur[i] = v >= INF ? INF : v + gpuasm_dtw_cost(ck, x[i], y[jj]);
            if (cur[i] < colmin) colmin = cur[i];
        }
        if (cur[0] == cost) { found = (int64_t)jj; break; }
        if (colmin > cost) break;
        int64_t *t = nxt;
        nxt = cur;
        cur = t;
    }
    free(nxt);
    free(cur);
    return found;
}

/* The last row D[m][j] of a twin run (gpuasm_dtw_cpu_pair's column hook). */
typedef struct last_row { uint32_t m; int32_t *row; } last_row;
static void keep_last(void *ctx, uint64_t j, const int32_t *col)
{
    last_row *l = ctx;
    l->row[j] = col[l->m - 1];
}

/* (c') the pruned search (clamped at cost + 1, rows trimmed to the live
 * band) = plain_start at EVERY end j with cost D[m][j] (a start exists),
 * and with D[m][j] - 1 (none may: -1) and D[m][j] + 1 (whatever the plain
 * sweep gives, -1 or a start). */
static void test_start_pruned(void)
{
    int wrong = 0, cases = 0;
    int16_t *x = xmalloc(300 * sizeof(int16_t)), *y = xmalloc(400 * sizeof(int16_t));
    int32_t *work = xmalloc(2 * 301 * sizeof(int32_t)), *row = xmalloc(400 * sizeof(int32_t));
    for (int rep = 0; rep < 160; rep++) {
        uint32_t m;
        uint64_t n;
        int ck;
        rnd_pair(rep, 80, 10, 16, 300, 400, x, &m, y, &n, &ck);
        int32_t c;
        uint64_t e;
        last_row l = { m, row };
        gpuasm_dtw_cpu_pair(x, m, y, n, ck, work, &c, &e, keep_last, &l);
        for (uint64_t j = 0; j < n; j++) {
            for (int d = -1; d <= 1; d++) {
                const int32_t cost = row[j] + d;
                if (cost < 0) continue;
                const int64_t got = gpuasm_dtw_start(x, m, y, j, ck, cost, work);
                const int64_t want = plain_start(x, m, y, j, ck, cost);
                cases++;
                if (got != want && wrong++ < 5)
                    diag("pruned start: m %u end %llu cost %d (D %d) kind %d: %lld, plain %lld", m,
                         (unsigned long long)j, (int)cost, (int)row[j], ck, (long long)got,
                         (long long)want);
            }
        }
    }
    tap(wrong == 0, "gpuasm_dtw_start = the unpruned sweep at every end, cost D[m][end] and +-1 "
        "(%d cases, %d differ)", cases, wrong);
    free(x);
    free(y);
    free(work);
    free(row);
}

/* ---- (d), (e) the engine ---------------------------------------------------------- */

typedef struct {
    uint32_t n;
    uint64_t *off;
    int16_t *val;
    gpuasm_sigset set;
} sigs;

static void sigs_make(sigs *s, uint32_t n, const uint64_t *len, int kind)
{
    s->n = n;
    s->off = xmalloc(((size_t)n + 1) * sizeof(uint64_t));
    s->off[0] = 0;
    for (uint32_t i = 0; i < n; i++) s->off[i + 1] = s->off[i] + len[i];
    s->val = xmalloc((size_t)(s->off[n] ? s->off[n] : 1) * sizeof(int16_t));
    rnd_signal(s->val, s->off[n], kind);
    s->set.n = n;
    s->set.off = s->off;
    s->set.val = s->val;
}

static void sigs_free(sigs *s)
{
    free(s->off);
    free(s->val);
}

static const char *g_device = "cpu";
static int g_variant = -1;      /* GPUASM_TEST_VARIANT, -1: both */

/* The layouts the long and real cases run: both on a GPU; on the CPU the
 * layout picks no code (one twin), so one run says all. */
static int skip_variant(int variant)
{
    if (g_variant >= 0) return variant != g_variant;
    return !strcmp(g_device, "cpu") && variant != GPUASM_VARIANT_BEST;
}
static int g_segments = -1;     /* GPUASM_TEST_SEGMENTS, -1: random */

/* One engine scan of reads x refs checked pair by pair; returns the
 * number of wrong pairs. */
static int engine_check(gpuasm_engine *eng, const sigs *reads, const sigs *refs,
                        const gpuasm_signal_opt *o, const char *what)
{
    gpuasm_err err;
    gpuasm_adsm_hit *hit = xmalloc((size_t)reads->n * refs->n * sizeof(*hit) + 1);
    if (gpuasm_engine_set_signal_targets(eng, &refs->set, o, &err) < 0 ||
        gpuasm_engine_scan_signals_lane(eng, 0, &reads->set, o, hit, &err) < 0) {
        diag("%s: engine failed: %s", what, err.msg);
        free(hit);
        return 1;
    }
    int wrong = 0;
    for (uint32_t r = 0; r < reads->n; r++)
        for (uint32_t t = 0; t < refs->n; t++) {
            const gpuasm_adsm_hit *h = &hit[(size_t)r * refs->n + t];
            const uint64_t m = reads->off[r + 1] - reads->off[r], n = refs->off[t + 1] - refs->off[t];
            int ok = h->read == r && h->target == t;
            if (m == 0 || n == 0) {
                ok &= h->cost == -1 && h->end == UINT32_MAX;
            } else {
                uint64_t ne = 0;
                const double nc = naive_adsm(reads->val + reads->off[r], (uint32_t)m,
                                             refs->val + refs->off[t], n, o->cost, &ne);
                ok &= (double)h->cost == nc && h->end == ne;
                if (!ok && wrong < 3)
                    diag("%s: read %u (m %llu) ref %u (n %llu): got %d at %u, oracle %.0f at %llu", what,
                         r, (unsigned long long)m, t, (unsigned long long)n, (int)h->cost, h->end, nc,
                         (unsigned long long)ne);
            }
            wrong += !ok;
        }
    free(hit);
    return wrong;
}

static gpuasm_signal_opt opt_of(int variant, int cost, int segments)
{
    gpuasm_signal_opt o = { .kernel = GPUASM_KERNEL_DTW, .cost = cost, .variant = variant,
                            .segments = segments };
    return o;
}

static void test_engine(gpuasm_engine *eng)
{
    for (int variant = GPUASM_VARIANT_BEST; variant <= GPUASM_VARIANT_PAPER; variant++) {
        if (g_variant >= 0 && variant != g_variant) continue;
        const char *vn = variant == GPUASM_VARIANT_PAPER ? "paper" : "best";
        int wrong = 0, batches = 0, pairs = 0;
        for (int rep = 0; rep < 40; rep++) {
            const uint32_t nr = 1 + (uint32_t)below(12), nt = 1 + (uint32_t)below(4);
            uint64_t rl[12], tl[4];
            for (uint32_t i = 0; i < nr; i++) {
                const uint64_t sizes[] = { 0, 1, 3, 8, 31, 64, 100, 129, 257, 400, 515, 1024, 2000 };
                rl[i] = below(3) ? sizes[below(13)] : below(600);
            }
            for (uint32_t i = 0; i < nt; i++) tl[i] = below(8) ? 1 + below(3000) : below(3);
            sigs reads, refs;
            const int kind = rep % VAL_KINDS;
            sigs_make(&reads, nr, rl, kind);
            sigs_make(&refs, nt, tl, kind);
            const int seg = g_segments >= 0 ? g_segments : (int)(rep % 3 == 0 ? 1 + below(40) : 0);
            const gpuasm_signal_opt o = opt_of(variant, rep % 2, seg);
            wrong += engine_check(eng, &reads, &refs, &o, vn);
            batches++;
            pairs += (int)(nr * nt);
            sigs_free(&reads);
            sigs_free(&refs);
        }
        tap(wrong == 0, "engine (%s, layout %s): %d random batches, %d pairs = oracle (%d wrong)",
            g_device, vn, batches, pairs, wrong);
    }
    /* What every backend refuses. */
    gpuasm_err err;
    uint64_t len1[1] = { 5 }, lenl[1] = { GPUASM_DTW_MAX_QUERY + 1 };
    sigs ok, big;
    sigs_make(&ok, 1, len1, VAL_WIDE);
    sigs_make(&big, 1, lenl, VAL_WIDE);
    gpuasm_signal_opt o = opt_of(GPUASM_VARIANT_BEST, GPUASM_COST_ABS, 0);
    gpuasm_adsm_hit hit[1];
    int rc_long = -99, rc_val = -99, rc_kernel = -99, rc_cost = -99;
    if (gpuasm_engine_set_signal_targets(eng, &ok.set, &o, &err) == 0) {
        rc_long = gpuasm_engine_scan_signals_lane(eng, 0, &big.set, &o, hit, &err);
        tap(rc_long == GPUASM_ERR_TOO_LONG && err.read == 0 && err.length == GPUASM_DTW_MAX_QUERY + 1,
            "a read of %u samples: GPUASM_ERR_TOO_LONG about read 0 (%d)", GPUASM_DTW_MAX_QUERY + 1,
            rc_long);
        ok.val[2] = GPUASM_SIG_QMAX + 1;
        rc_val = gpuasm_engine_scan_signals_lane(eng, 0, &ok.set, &o, hit, &err);
        tap(rc_val == GPUASM_ERR_BAD_OPTION && err.read == 0,
            "a value past GPUASM_SIG_QMAX: GPUASM_ERR_BAD_OPTION about read 0 (%d: %s)", rc_val, err.msg);
        ok.val[2] = 0;
        gpuasm_signal_opt bad = o;
        bad.kernel = GPUASM_KERNEL_MYERS;
        rc_kernel = gpuasm_engine_scan_signals_lane(eng, 0, &ok.set, &bad, hit, &err);
        bad = o;
        bad.cost = 7;
        rc_cost = gpuasm_engine_scan_signals_lane(eng, 0, &ok.set, &bad, hit, &err);
        tap(rc_kernel == GPUASM_ERR_BAD_OPTION && rc_cost == GPUASM_ERR_BAD_OPTION,
            "a sequence kernel or an unknown cost: GPUASM_ERR_BAD_OPTION (%d, %d)", rc_kernel, rc_cost);
        gpuasm_search_opt so = { .max_diffs = 1, .kernel = GPUASM_KERNEL_DTW };
        tap(gpuasm_search_check(&so, &err) == GPUASM_ERR_BAD_OPTION,
            "gpuasm_search_check: the dtw kernel is no sequence kernel (%s)", err.msg);
    } else {
        tap(0, "set_signal_targets failed: %s", err.msg);
    }
    sigs_free(&ok);
    sigs_free(&big);
}

static void test_long(gpuasm_engine *eng)
{
    const uint64_t rl[3] = { 4099, 4100, 300 }, tl[2] = { 30000, 300000 };
    sigs reads, refs;
    sigs_make(&reads, 2, rl, VAL_WIDE);
    sigs_make(&refs, 1, tl, VAL_WIDE);
    /* A long query planted in the reference (its copy, a bit warped), so
     * the best alignment is a real one and not just noise. */
    for (uint64_t i = 0; i < 4000; i++) refs.val[12000 + i + i / 7] = reads.val[i];
    for (int variant = GPUASM_VARIANT_BEST; variant <= GPUASM_VARIANT_PAPER; variant++) {
        if (skip_variant(variant)) continue;
        const gpuasm_signal_opt o = opt_of(variant, GPUASM_COST_ABS, g_segments > 0 ? g_segments : 0);
        const int wrong = engine_check(eng, &reads, &refs, &o, "long query");
        tap(wrong == 0, "long queries (4,099 and 4,100 samples) vs a 30,000-sample reference, layout "
            "%s: = oracle", variant == GPUASM_VARIANT_PAPER ? "paper" : "best");
    }
    sigs_free(&reads);
    sigs_free(&refs);
    sigs_make(&reads, 1, rl + 2, VAL_FEW);
    sigs_make(&refs, 1, tl + 1, VAL_FEW);
    for (int variant = GPUASM_VARIANT_BEST; variant <= GPUASM_VARIANT_PAPER; variant++) {
        if (skip_variant(variant)) continue;
        const gpuasm_signal_opt o = opt_of(variant, GPUASM_COST_SQ, g_segments > 0 ? g_segments : 0);
        const int wrong = engine_check(eng, &reads, &refs, &o, "long text");
        tap(wrong == 0, "a 300-sample query vs a 300,000-sample reference (squared cost), layout %s: "
            "= oracle", variant == GPUASM_VARIANT_PAPER ? "paper" : "best");
    }
    sigs_free(&reads);
    sigs_free(&refs);
}

/* ---- (f) real signals ------------------------------------------------------------- */

static double gauss(void)
{
    const double u = ((double)(rnd() >> 11) + 0.5) * 0x1.0p-53, v = ((double)(rnd() >> 11) + 0.5) * 0x1.0p-53;
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

static int16_t clampq(double v)
{
    v = rint(v);
    return (int16_t)(v < GPUASM_SIG_QMIN ? GPUASM_SIG_QMIN : v > GPUASM_SIG_QMAX ? GPUASM_SIG_QMAX : v);
}

static void test_real(gpuasm_engine *eng)
{
    const char *path = getenv("GPUASM_SIGNAL_READS");
    if (!path || !*path) {
        printf("ok %d # SKIP real signals: GPUASM_SIGNAL_READS not set\n", ++n_tests);
        return;
    }
    char err[512];
    gpuasm_sigreader *rd;
    gpuasm_sigbatch b;
    gpuasm_sigbatch_init(&b);
    const gpuasm_sigread_opt ro = { .skip = 0, .prefix = 0, .norm = GPUASM_NORM_MAD };
    if (gpuasm_sigreader_open(path, &rd, err, sizeof err) < 0 ||
        gpuasm_sigreader_next(rd, &ro, &b, UINT64_MAX, err, sizeof err) < 2) {
        tap(0, "real signals: cannot read %s: %s", path, err);
        return;
    }
    tap(b.n == 10, "real signals: %s (%s) holds the 10 chr22 reads (%u)", path,
        gpuasm_sigreader_format(rd), b.n);
    /* Query: 1,000 samples of read 0 from sample 2,000, each kept 0, 1 or 2
     * times (probabilities 0.1, 0.7, 0.2: a time warp), plus noise of 0.1
     * normalised units. */
    const uint64_t a = 2000, qn = 1000;
    int16_t *q = xmalloc(2 * qn * sizeof(int16_t));
    uint64_t m = 0;
    for (uint64_t i = 0; i < qn; i++) {
        const uint64_t u = below(10), times = u == 0 ? 0 : u <= 7 ? 1 : 2;
        for (uint64_t t = 0; t < times; t++)
            q[m++] = clampq(b.val[b.off[0] + a + i] + 0.1 * GPUASM_SIG_SCALE * gauss());
    }
    /* Text 1: reads 1 .. 9 (their first 120,000 samples); text 2: the same
     * with read 0's samples [a, a + qn) spliced in at 60,000. */
    const uint64_t tn = 120000, at = 60000;
    sigs reads, refs;
    uint64_t roff[2] = { 0, m }, toff[3] = { 0, tn, 2 * tn + qn };
    int16_t *tv = xmalloc((2 * tn + qn) * sizeof(int16_t));
    const int16_t *others = b.val + b.off[1];
    memcpy(tv, others, tn * sizeof(int16_t));
    memcpy(tv + tn, others, at * sizeof(int16_t));
    memcpy(tv + tn + at, b.val + b.off[0] + a, qn * sizeof(int16_t));
    memcpy(tv + tn + at + qn, others + at, (tn - at) * sizeof(int16_t));
    reads.n = 1; reads.off = roff; reads.val = q;
    reads.set = (gpuasm_sigset){ 1, roff, q };
    refs.n = 2; refs.off = toff; refs.val = tv;
    refs.set = (gpuasm_sigset){ 2, toff, tv };
    for (int variant = GPUASM_VARIANT_BEST; variant <= GPUASM_VARIANT_PAPER; variant++) {
        if (skip_variant(variant)) continue;
        const gpuasm_signal_opt o = opt_of(variant, GPUASM_COST_ABS, g_segments > 0 ? g_segments : 0);
        const int wrong = engine_check(eng, &reads, &refs, &o, "real");
        tap(wrong == 0, "real signals, layout %s: a warped, noisy %llu-sample segment of one read vs "
            "the others concatenated (120,000 samples), with and without the segment: = oracle",
            variant == GPUASM_VARIANT_PAPER ? "paper" : "best", (unsigned long long)m);
    }
    gpuasm_err e;
    gpuasm_adsm_hit hit[2];
    const gpuasm_signal_opt o = opt_of(GPUASM_VARIANT_BEST, GPUASM_COST_ABS, 0);
    int32_t *work = xmalloc(2 * (m + 1) * sizeof(int32_t));
    if (gpuasm_engine_set_signal_targets(eng, &refs.set, &o, &e) == 0 &&
        gpuasm_engine_scan_signals_lane(eng, 0, &reads.set, &o, hit, &e) == 0) {
        const int64_t s = gpuasm_dtw_start(q, (uint32_t)m, tv + tn, hit[1].end, GPUASM_COST_ABS,
                                           hit[1].cost, work);
        const double per0 = hit[0].cost / 64.0 / (double)m, per1 = hit[1].cost / 64.0 / (double)m;
        tap(s >= (int64_t)at - 20 && hit[1].end <= at + qn + 20 && per1 < 0.5 * per0,
            "real signals: with the segment spliced in at %llu the alignment is [%lld, %u] and costs "
            "%.3f per sample, without it %.3f", (unsigned long long)at, (long long)s, hit[1].end, per1,
            per0);
    } else {
        tap(0, "real signals: engine failed: %s", e.msg);
    }
    free(work);
    free(q);
    free(tv);
    gpuasm_sigbatch_free(&b);
    gpuasm_sigreader_close(rd);
}

int main(void)
{
    rng_seed_from_env();
    const char *d = getenv("GPUASM_TEST_DEVICE");
    if (d && *d) g_device = d;
    const char *v = getenv("GPUASM_TEST_VARIANT");
    if (v && *v) g_variant = !strcmp(v, "paper") ? GPUASM_VARIANT_PAPER : GPUASM_VARIANT_BEST;
    const char *s = getenv("GPUASM_TEST_SEGMENTS");
    if (s && *s) g_segments = atoi(s);
    gpuasm_engine *eng;
    gpuasm_err err, fb;
    if (gpuasm_engine_open(g_device, 2, &eng, &err, &fb) < 0) {
        if (err.status == GPUASM_ERR_NO_DEVICE) {
            printf("1..0 # SKIP %s: %s\n", g_device, err.msg);
            return 77;
        }
        tap(0, "engine %s: %s", g_device, err.msg);
        return tap_done();
    }
    const char *only = getenv("GPUASM_TEST_ONLY");
    if (!only || strcmp(only, "real")) {
        test_fig4();
        test_twin();
        test_start_pruned();
        test_engine(eng);
        test_long(eng);
    }
    test_real(eng);
    gpuasm_engine_close(eng);
    return tap_done();
}
