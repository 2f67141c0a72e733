/* SPDX-License-Identifier: MIT */
/* test_tb_seeds -- the traceback's seeds bound (align/tb_seeds.h) against a
 * naive count: for each 16-base seed of the pattern, a DP at every text
 * position of its diagonal window.  Periodic sequences put
 * occurrences on the window's edges (a window one diagonal too narrow
 * shows); N in the pattern makes its seed present, N in the text gives up
 * (1).  A seed's cost (0, 1 or 2) must be at most the least edit distance
 * of the seed to a substring on a diagonal of the window, and mostly equal
 * to it.  The bound's use (the traceback walks the same path with
 * it) is test_kernels' (c).  TAP; exit 1 when a check fails. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "align/tb_seeds.h"

#define L GPUASM_TB_SEED_LEN

static int gpuasm_base2_of(uint8_t c) { return c == 1 ? 0 : c == 2 ? 1 : c == 4 ? 2 : 3; }

/* The edit distance of the seed p[0..16) to text[s .. t), least over t in
 * [s, min(e1, s + 18)): a plain DP anchored at s. */
static int least_ed(const uint8_t *p, const uint8_t *t, uint64_t s, uint64_t e1)
{
    int D[L + 1][19];
    const uint64_t w = e1 - s < 18 ? e1 - s : 18;
    for (int i = 0; i <= L; i++) D[i][0] = i;
    for (uint64_t x = 1; x <= w; x++) D[0][x] = (int)x;
    int best = D[L][0];
    for (uint64_t x = 1; x <= w; x++) {
        for (int i = 1; i <= L; i++) {
            int v = D[i - 1][x - 1] + (p[i - 1] != t[s + x - 1]);
            if (D[i - 1][x] + 1 < v) v = D[i - 1][x] + 1;
            if (D[i][x - 1] + 1 < v) v = D[i][x - 1] + 1;
            D[i][x] = v;
        }
        if (D[L][x] < best) best = D[L][x];
    }
    return best;
}

/* What a seed's rows cost an alignment of use at least, capped at 2 (the
 * bound's): the least edit distance of the seed to a substring of the
 * text starting at s >= x0 on a diagonal s - 16 j in e - d .. e + d.
 * cnt[j]: the sum over seeds j' >= j.  1 where gpuasm_tb_seeds() gives up. */
static int naive(const uint8_t *p, uint32_t m, const uint8_t *t, uint64_t x0, uint64_t e1, int64_t d,
                 uint32_t *cnt)
{
    for (uint64_t x = x0; x < e1; x++)
        if (t[x] != 1 && t[x] != 2 && t[x] != 4 && t[x] != 8) return 1;
    const size_t ns = m / L;
    if (ns == 0 || e1 < x0 + L) return 1;
    const int64_t e = (int64_t)e1 - (int64_t)m;
    cnt[ns] = 0;
    for (size_t j = ns; j-- > 0;) {
        int cost = 2;
        for (int y = 0; y < L; y++) {
            const uint8_t c = p[j * L + (size_t)y];
            if (c != 1 && c != 2 && c != 4 && c != 8) cost = 0;
        }
        for (int64_t q = (int64_t)x0; cost > 0 && q <= (int64_t)e1; q++) {
            const int64_t dg = q - (int64_t)(j * L);
            if (dg < e - d || dg > e + d) continue;
            const int c = least_ed(p + j * L, t, (uint64_t)q, e1);
            if (c < cost) cost = c;
        }
        cnt[j] = cnt[j + 1] + (uint32_t)cost;
    }
    return 0;
}

/* A periodic sequence of n bases (period per) with substitutions at rate r. */
static void periodic(uint8_t *s, uint64_t n, int per, double r)
{
    static const uint8_t acgt[4] = { 1, 2, 4, 8 };
    uint8_t unit[8];
    for (int i = 0; i < per; i++) unit[i] = acgt[below(4)];
    for (uint64_t i = 0; i < n; i++) s[i] = chance(r) ? acgt[below(4)] : unit[i % (uint64_t)per];
}

int main(void)
{
    uint32_t *c = NULL, *want = xmalloc(1024 * sizeof *want);
    size_t m_c = 0;
    int bad = 0, edge = 0, gave_up = 0, n_missing = 0;
    long n_seeds = 0, n_equal = 0;
    for (int rep = 0; rep < 2000; rep++) {
        const uint32_t m = 16 + (uint32_t)below(400);
        const uint64_t n = 16 + below(500);
        uint8_t p[416], t[516];
        /* periodic, or (odd reps) random with seeds copied onto the
         * window's edges */
        const int per = rep & 1 ? 8 : 1 + (int)below(8);
        periodic(p, m, per, rep & 1 ? 0.75 : below(3) * 0.02);
        periodic(t, n, per, rep & 1 ? 0.75 : below(3) * 0.02);
        const uint64_t e1 = 1 + below(n), x0 = below(e1);
        const int64_t d = (int64_t)below(40), e = (int64_t)e1 - (int64_t)m;
        for (size_t j = 0; rep & 1 && j < m / L; j++) {
            const int64_t q = (int64_t)(j * L) + e + (below(2) ? d : -d);
            if (q < (int64_t)x0 || q + L + 1 > (int64_t)e1 || !chance(0.5)) continue;
            /* the seed, or (half the time) the seed with one edit at a
             * random place: a substitution, a deletion, an insertion */
            uint8_t cp[L + 1];
            size_t len = L;
            memcpy(cp, p + j * L, L);
            if (chance(0.5)) {
                const size_t at = (size_t)below(L);
                const int kind = (int)below(3);
                static const uint8_t acgt[4] = { 1, 2, 4, 8 };
                if (kind == 0) cp[at] = acgt[(gpuasm_base2_of(cp[at]) + 1 + below(3)) & 3];
                else if (kind == 1) { memmove(cp + at, cp + at + 1, L - at - 1); len = L - 1; }
                else { memmove(cp + at + 1, cp + at, L - at); cp[at] = acgt[below(4)]; len = L + 1; }
            }
            memcpy(t + q, cp, len);
        }
        if (rep % 50 == 7) p[below(m)] = 15;   /* N in a seed */
        if (rep % 97 == 5) t[below(n)] = 15;   /* N in the text */
        const int rn = naive(p, m, t, x0, e1, d, want);
        for (size_t i = 0; i < m_c; i++) c[i] = 0xdeadbeef;
        const int rg = gpuasm_tb_seeds(p, m, t, x0, e1, d, &c, &m_c);
        if (rg < 0) {
            bad++;
            diag("rep %d: out of memory", rep);
            continue;
        }
        if (rn != rg) {
            if (bad++ < 10) diag("rep %d: m %u n %lu x0 %lu e1 %lu d %ld: returns %d, naive %d", rep, m,
                                 (unsigned long)n, (unsigned long)x0, (unsigned long)e1, (long)d, rg, rn);
            continue;
        }
        if (rn) {
            gave_up++;
            continue;
        }
        n_missing += (int)want[0];
        /* a lower bound, seed by seed (c[j] - c[j+1] <= the naive cost),
         * and mostly the naive cost itself */
        for (size_t j = 0; j < m / L; j++) {
            const uint32_t got = c[j] - c[j + 1], ref = want[j] - want[j + 1];
            n_seeds++;
            n_equal += got == ref;
            if (got > ref && bad++ < 10)
                diag("rep %d: m %u x0 %lu e1 %lu d %ld: seed %zu costs %u, more than the naive %u", rep, m,
                     (unsigned long)x0, (unsigned long)e1, (long)d, j, got, ref);
        }
        /* did a window edge decide a seed?  (the naive count with d - 1) */
        uint32_t narrower[1024];
        if (d > 0 && naive(p, m, t, x0, e1, d - 1, narrower) == 0 && narrower[0] != want[0]) edge++;
    }
    tap(bad == 0, "gpuasm_tb_seeds' cost of every seed is at most the naive one (the least edit "
        "distance in the window, capped at 2) on 2000 cases, periodic or with seeds (exact or one edit) "
        "copied onto the window's edges (%d gave up: an N in the text or no seed; %d in all)", gave_up, n_missing);
    tap(n_equal * 100 >= n_seeds * 97, "and equals it for %ld of %ld seeds", n_equal, n_seeds);
    tap(edge > 100, "the cases test the window's edges: in %d a seed's cost depends on diagonal e +- d", edge);
    free(c);
    free(want);
    return tap_done();
}
