/* SPDX-License-Identifier: MIT */
/* test_bands.c -- the Myers twin's band-by-band search of long patterns
 * (kernels/myers/myers_bands.c) against the naive DP: the same end
 * columns with the same distances, in the same order, for patterns of 65 to
 * 4,700 bases (2 to 74 words: a single band, full bands and a partial last
 * band, last bands of 1 to 64 rows), texts shorter and longer than the
 * pattern holding mutated copies of it (so that hits exist) or unrelated
 * or periodic bases, k from 0 to past m (bands entered at the fresh
 * column), IUPAC codes in the pattern and N (code 0) in the text.  Also
 * the twin's entry point gpuasm_myers_run_nt16() for those long enough
 * to take the bands.  Each case also runs as a wavefront on 1 + 3 threads
 * (kernels/bands.h, with its size threshold off), with bands of 4 and of 8
 * blocks in turn (the AVX2 and AVX-512 waves): the same hits.  Counts
 * the cases with hits, so that "none" alone cannot pass.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/bands.h"
#include "kernels/myers/myers_cpu.h"
#include "tap.h"

static const uint8_t acgt[4] = { 1, 2, 4, 8 };

typedef struct hitlist {
    uint64_t *j;
    int32_t *d;
    size_t n, cap;
} hitlist;

static void collect(void *ctx, uint64_t j, int32_t d)
{
    hitlist *h = ctx;
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 1024;
        h->j = xrealloc(h->j, h->cap * sizeof(*h->j));
        h->d = xrealloc(h->d, h->cap * sizeof(*h->d));
    }
    h->j[h->n] = j;
    h->d[h->n] = d;
    h->n++;
}

/* Semi-global edit distance, free start in the text: D[m][j] <= k for
 * each j, in increasing j (nt16: codes match when they share a base). */
static void naive(const uint8_t *p, uint32_t m, const uint8_t *t, uint32_t n, int32_t k, hitlist *out)
{
    int32_t *col = xmalloc((m + 1) * sizeof(int32_t));
    for (uint32_t i = 0; i <= m; i++) col[i] = (int32_t)i;
    for (uint32_t j = 0; j < n; j++) {
        int32_t diag = 0;   /* D[i-1][j-1], row 0 = 0 */
        col[0] = 0;
        for (uint32_t i = 1; i <= m; i++) {
            const int32_t up = col[i - 1] + 1, left = col[i] + 1;
            const int32_t dg = diag + ((p[i - 1] & t[j]) ? 0 : 1);
            diag = col[i];
            col[i] = dg < up ? (dg < left ? dg : left) : (up < left ? up : left);
        }
        if (col[m] <= k) collect(out, j, col[m]);
    }
    free(col);
}

static int same(const hitlist *a, const hitlist *b)
{
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->j[i] != b->j[i] || a->d[i] != b->d[i]) return 0;
    return 1;
}

int main(void)
{
    rng_seed_from_env();
    enum { MAXM = 4800, MAXN = 12000 };
    static uint8_t pat[MAXM], txt[MAXN], tmp[2 * MAXM];
    uint64_t *peq = xmalloc(gpuasm_myers_peq_words(MAXM) * sizeof(uint64_t));
    gpuasm_myers_cols cols;
    memset(&cols, 0, sizeof cols);
    hitlist want = { 0 }, got = { 0 }, twin = { 0 }, piped = { 0 };
    int ok = 1, cases = 0, with_hits = 0, twin_cases = 0, piped_ok = 1;
    for (int c = 0; c < 260 && ok; c++) {
        uint32_t m;
        if (c % 10 == 9)
            m = 64u * GPUASM_MYERS_BANDS_MIN_WORDS - 63u + (uint32_t)below(700);   /* the twin's bands */
        else
            m = 65u + (uint32_t)below(c % 3 ? 1100 : 2400);
        if (c % 7 == 0) m = 64u * (1u + (uint32_t)below(40)) + (uint32_t)below(2);   /* last band of 64 or 1 row */
        if (m < 65) m = 65;
        const int periodic = c % 5 == 4;
        for (uint32_t i = 0; i < m; i++) pat[i] = periodic ? acgt[(i % 3) & 3] : acgt[rnd() & 3];
        if (chance(0.3)) pat[below(m)] = 5;    /* R */
        if (chance(0.2)) pat[below(m)] = 15;   /* N */
        uint32_t n = 1u + (uint32_t)below(m < 3000 ? 3 * m : 7000);
        for (uint32_t j = 0; j < n; j++) txt[j] = periodic ? acgt[(j % 3 + (j > n / 2)) & 3] : acgt[rnd() & 3];
        /* mutated copies of the pattern, so that the last band is reached */
        for (int r = 0; r < 2 && !periodic; r++) {
            const uint32_t l = mutate_nt16(pat, m, 0.02 + 0.1 * (double)(rnd() % 3), tmp);
            if (n + l > MAXN) break;
            const uint32_t at = (uint32_t)below(n + 1);
            memmove(txt + at + l, txt + at, n - at);
            memcpy(txt + at, tmp, l);
            n += l;
        }
        if (chance(0.3)) txt[below(n)] = 0;   /* a read's N */
        int32_t k;
        switch (c % 4) {
        case 0: k = (int32_t)below(m / 20 + 1); break;
        case 1: k = (int32_t)(m / 10); break;
        case 2: k = (int32_t)below(m / 2 + 1); break;
        default: k = (int32_t)(m + below(64)); break;   /* every band at the fresh column */
        }
        gpuasm_myers_peq_nt16(peq, pat, m);
        want.n = got.n = twin.n = piped.n = 0;
        naive(pat, m, txt, n, k, &want);
        if (gpuasm_myers_run_bands(peq, 4, m, txt, n, k, collect, &got, &cols) < 0) {
            diag("case %d: out of memory", c);
            ok = 0;
            break;
        }
        cases++;
        with_hits += want.n > 0;
        if (!same(&want, &got)) {
            diag("case %d: m %u n %u k %d%s: naive %zu hits, bands %zu", c, m, n, k, periodic ? " periodic" : "",
                 want.n, got.n);
            ok = 0;
        }
        gpuasm_bands_set_helpers(3, 1);
        gpuasm_bands_set_blocks(c % 2 ? 8 : 4);   /* both band sizes, wherever this runs */
        if (gpuasm_myers_run_bands(peq, 4, m, txt, n, k, collect, &piped, &cols) < 0 || !same(&want, &piped)) {
            diag("case %d: m %u n %u k %d: the wavefront (%d-block bands) differs (%zu hits)", c, m, n, k,
                 gpuasm_bands_blocks(), piped.n);
            piped_ok = ok = 0;
        }
        gpuasm_bands_set_helpers(0, 0);
        gpuasm_bands_set_blocks(0);
        if ((m + 63u) / 64u >= GPUASM_MYERS_BANDS_MIN_WORDS) {
            if (gpuasm_myers_run_nt16(peq, m, txt, n, k, collect, &twin, &cols) < 0 || !same(&want, &twin)) {
                diag("case %d: m %u n %u k %d: the twin's entry point differs (%zu hits)", c, m, n, k, twin.n);
                ok = 0;
            }
            twin_cases++;
        }
    }
    tap(ok && with_hits > cases / 3 && twin_cases > 10,
        "bands = the naive DP (%d cases, %d with hits; %d through gpuasm_myers_run_nt16)", cases, with_hits,
        twin_cases);
    tap(piped_ok && cases > 200, "the bands as a wavefront on 4 threads, bands of 4 and 8 blocks = alone (%d cases)",
        cases);
    free(want.j); free(want.d); free(got.j); free(got.d); free(twin.j); free(twin.d); free(piped.j); free(piped.d);
    gpuasm_myers_cols_free(&cols);
    free(peq);
    return tap_done();
}
