/* SPDX-License-Identifier: MIT */
/* test_periodic.c -- walk/periodic.h: the runs gpuasm_period_runs() finds
 * (each a run of its period, maximal, disjoint, in order, and the planted
 * ones found), the claim the walk's skips rest on (D[m][j] = D[m][j - p]
 * from a = s + p + 2m - 1 on, checked with the naive DP, tests/c/naive_dp.h,
 * for patterns that match the run and ones that do not), and the pieces
 * (they cover the target in order, each skip inside the part of its run
 * where the claim holds, each later piece with m + k columns of lead-in).
 * Output is TAP; GPUASM_TEST_SEED varies the cases.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "naive_dp.h"
#include "tap.h"
#include "walk/periodic.h"

static const uint8_t acgt[4] = { 1, 2, 4, 8 };

/* A text of random flanks and planted runs (periods 1 .. 64, some with a
 * point change inside); the planted runs' [s, e) and periods in pl. */
typedef struct {
    uint64_t s, e;
    uint32_t p;
} planted;

static uint64_t make_text(uint8_t *t, uint64_t cap, planted *pl, int *npl)
{
    uint64_t n = 0;
    *npl = 0;
    while (n + 6000 < cap) {
        const uint64_t flank = 20 + below(600);
        for (uint64_t i = 0; i < flank; i++) t[n++] = acgt[below(4)];
        const uint32_t p = 1 + (uint32_t)below(GPUASM_PERIOD_MAX);
        const uint64_t len = 1200 + below(4000);
        uint8_t unit[GPUASM_PERIOD_MAX];
        for (uint32_t i = 0; i < p; i++) unit[i] = acgt[below(4)];
        const uint64_t s = n;
        for (uint64_t i = 0; i < len; i++) t[n++] = unit[i % p];
        pl[*npl] = (planted){ s, n, p };
        ++*npl;
    }
    return n;
}

/* text[y] == text[y - p] for y in [s + p, e)? */
static int is_run(const uint8_t *t, uint64_t s, uint64_t e, uint32_t p)
{
    for (uint64_t y = s + p; y < e; y++)
        if (t[y] != t[y - p]) return 0;
    return 1;
}

static void check_runs(int round)
{
    enum { CAP = 60000 };
    uint8_t *t = xmalloc(CAP);
    planted pl[64];
    int npl;
    const uint64_t n = make_text(t, CAP, pl, &npl);
    gpuasm_period_run *r = NULL;
    size_t cap = 0;
    const int64_t nr = gpuasm_period_runs(t, n, &r, &cap);
    int ok = nr >= 0, ordered = 1, maximal = 1, found = 1;
    for (int64_t i = 0; ok && i < nr; i++) {
        const gpuasm_period_run *x = &r[i];
        if (!(x->p >= 1 && x->p <= GPUASM_PERIOD_MAX && x->e <= n && x->e - x->s >= GPUASM_PERIOD_RUN_MIN &&
              is_run(t, x->s, x->e, x->p))) {
            diag("round %d: run %lld [%llu, %llu) p %u is not a run", round, (long long)i,
                 (unsigned long long)x->s, (unsigned long long)x->e, x->p);
            ok = 0;
        }
        if (i && x->s < r[i - 1].e) ordered = 0;
        /* grown as far as the period holds (the left edge may stop at the
         * run before) */
        if (x->e < n && t[x->e] == t[x->e - x->p]) maximal = 0;
        if (x->s > (i ? r[i - 1].e : 0) && t[x->s - 1] == t[x->s - 1 + x->p]) maximal = 0;
    }
    /* a planted run of >= 1,600 bases holds a sample and its window: some
     * run found covers its middle */
    for (int i = 0; i < npl; i++) {
        if (pl[i].e - pl[i].s < 1600) continue;
        const uint64_t mid = (pl[i].s + pl[i].e) / 2;
        int cov = 0;
        for (int64_t j = 0; j < nr && !cov; j++) cov = r[j].s <= mid && mid < r[j].e;
        if (!cov) {
            diag("round %d: planted [%llu, %llu) p %u not found", round, (unsigned long long)pl[i].s,
                 (unsigned long long)pl[i].e, pl[i].p);
            found = 0;
        }
    }
    tap(ok, "round %d: %lld runs, each a run of its period of >= %u bases", round, (long long)nr,
        GPUASM_PERIOD_RUN_MIN);
    tap(ordered, "round %d: runs disjoint and in order", round);
    tap(maximal, "round %d: runs maximal", round);
    tap(found, "round %d: the planted runs of >= 1,600 bases found", round);
    free(r);
    free(t);
}

/* E(j) = min(D[m][j], k + 1) = E(j - p) for j in [a, e), a = s + p + m + k
 * - 1, for a pattern drawn from the run (it matches at every period) with
 * edits, and a random one, at several k. */
static void check_claim(int round)
{
    enum { N = 7000 };
    uint8_t *t = xmalloc(N), pat[600], pm[1200];
    int32_t *d = xmalloc(N * sizeof(int32_t));
    const uint32_t p = 1 + (uint32_t)below(GPUASM_PERIOD_MAX);
    uint8_t unit[GPUASM_PERIOD_MAX];
    for (uint32_t i = 0; i < p; i++) unit[i] = acgt[below(4)];
    const uint64_t s = 300 + below(500), e = s + 3000 + below(2000);
    for (uint64_t i = 0; i < N; i++) t[i] = i >= s && i < e ? unit[(i - s) % p] : acgt[below(4)];
    int ok = 1;
    for (int kind = 0; kind < 2; kind++) {
        const uint32_t m = 20 + (uint32_t)below(250);
        for (uint32_t i = 0; i < m; i++) pat[i] = kind ? acgt[below(4)] : t[s + 7 + i];
        const uint32_t mm = kind ? m : mutate_nt16(pat, m, 0.05, pm);
        const uint8_t *pp = kind ? pat : pm;
        if (gpuasm_naive_dp(pp, mm, t, N, d) < 0) abort();
        for (int32_t k = 0; k <= (int32_t)mm / 2 && ok; k += 1 + (int32_t)below(mm / 8 + 1)) {
            const uint64_t a = s + p + (uint64_t)mm + (uint64_t)k - 1;
            for (uint64_t j = a; j < e && ok; j++) {
                const int32_t x = d[j] < k + 1 ? d[j] : k + 1, y = d[j - p] < k + 1 ? d[j - p] : k + 1;
                if (x != y) {
                    diag("round %d: m %u k %d p %u: E(%llu) = %d, E(%llu) = %d", round, mm, k, p,
                         (unsigned long long)j, x, (unsigned long long)(j - p), y);
                    ok = 0;
                }
            }
        }
    }
    tap(ok, "round %d: min(D[m][j], k + 1) = that of j - p from s + p + m + k - 1 to the run's end (p %u)",
        round, p);
    free(d);
    free(t);
}

/* The pieces of random runs: in order, covering [0, n), each skip inside
 * [a + p + 1, e - 1) of its run, later pieces with m + k columns of lead-in. */
static void check_pieces(int round)
{
    gpuasm_period_run runs[8];
    int nr = 0;
    uint64_t at = below(3000);
    for (int i = 0; i < 8; i++) {
        const uint64_t len = below(4) ? 1024 + below(8000) : 1024 + below(200);
        runs[nr++] = (gpuasm_period_run){ at, at + len, 1 + (uint32_t)below(GPUASM_PERIOD_MAX) };
        at += len + below(500);
    }
    const uint64_t n = at + below(1000);
    const uint32_t m = 20 + (uint32_t)below(237);
    const int32_t k = (int32_t)below(m / 4 + 1);
    gpuasm_text_piece *pc = NULL;
    size_t cap = 0;
    const int64_t np = gpuasm_text_pieces(7, n, runs, nr, m, k, &pc, 0, &cap);
    int ok = np >= 1 && pc[0].lo == 0 && pc[0].ws == 0 && pc[np - 1].hi == n && pc[np - 1].p == 0;
    const uint64_t lead = (uint64_t)m + (uint64_t)k;
    uint64_t skipped = 0;
    for (int64_t i = 0; ok && i < np; i++) {
        const gpuasm_text_piece *x = &pc[i];
        ok = x->target == 7 && x->lo < x->hi && x->ws <= x->lo && (x->lo == 0 || x->lo - x->ws == lead);
        if (i) ok = ok && x->lo == pc[i - 1].skip_end;
        if (!ok || !x->p) continue;
        /* the skip [hi, skip_end) lies where its run's flags repeat */
        int inside = 0;
        for (int j = 0; j < nr && !inside; j++) {
            const uint64_t a = runs[j].s + runs[j].p + lead - 1;
            inside = runs[j].p == x->p && x->hi >= a + x->p + 1 && x->skip_end <= runs[j].e - 1 &&
                     x->skip_end > x->hi;
        }
        ok = inside;
        skipped += x->skip_end - x->hi;
    }
    tap(ok, "round %d: %lld pieces of %llu bases (m %u, k %d) cover the target, skips inside their runs "
        "(%llu columns left out)", round, (long long)np, (unsigned long long)n, m, k,
        (unsigned long long)skipped);
    free(pc);
}

int main(void)
{
    const char *seed = getenv("GPUASM_TEST_SEED");
    if (seed) rng = strtoull(seed, NULL, 10);
    for (int r = 0; r < 8; r++) check_runs(r);
    for (int r = 0; r < 24; r++) check_claim(r);
    for (int r = 0; r < 40; r++) check_pieces(r);
    /* a text with no run: nothing found, one piece */
    uint8_t t[5000];
    for (int i = 0; i < 5000; i++) t[i] = acgt[below(4)];
    gpuasm_period_run *r = NULL;
    size_t cap = 0;
    const int64_t nr = gpuasm_period_runs(t, sizeof t, &r, &cap);
    tap(nr == 0, "random text: no run (%lld)", (long long)nr);
    free(r);
    return tap_done();
}
