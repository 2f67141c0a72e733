/* SPDX-License-Identifier: MIT */
/* naive_dp.c -- the O(m*n) oracle; see naive_dp.h. */
#include <stdint.h>
#include <stdlib.h>

#include "naive_dp.h"
#include "search/nt16.h"

static int32_t min3(int32_t a, int32_t b, int32_t c)
{
    int32_t x = a < b ? a : b;
    return x < c ? x : c;
}

static int sym_match(int byte, uint8_t a, uint8_t b) { return byte ? a == b : gpuasm_nt16_match(a, b); }

int gpuasm_naive_dp(const uint8_t *pattern, uint32_t m,
                    const uint8_t *text, uint64_t n, int32_t *last)
{
    return gpuasm_naive_dp_alpha(pattern, m, text, n, 0, last);
}

int gpuasm_naive_dp_alpha(const uint8_t *pattern, uint32_t m,
                          const uint8_t *text, uint64_t n, int byte, int32_t *last)
{
    /* Column by column (one text base at a time), keeping D[0..m][j]. */
    int32_t *col = malloc(((size_t)m + 1) * sizeof(int32_t));
    if (!col) return -1;
    for (uint32_t i = 0; i <= m; i++) col[i] = (int32_t)i;   /* column 0 */
    for (uint64_t j = 1; j <= n; j++) {
        int32_t diag = col[0];   /* D[i-1][j-1] */
        col[0] = 0;              /* free start */
        for (uint32_t i = 1; i <= m; i++) {
            int32_t cost = sym_match(byte, pattern[i - 1], text[j - 1]) ? 0 : 1;
            int32_t left = col[i];   /* D[i][j-1] */
            int32_t v = min3(diag + cost, col[i - 1] + 1, left + 1);
            diag = left;
            col[i] = v;
        }
        last[j - 1] = col[m];
    }
    free(col);
    return 0;
}

#define INF INT32_MAX

static int32_t add1(int32_t v) { return v == INF ? INF : v + 1; }

int gpuasm_naive_dp_band(const uint8_t *pattern, uint32_t m,
                         const uint8_t *text, uint64_t n,
                         int64_t dlo, int64_t dhi, int32_t *last)
{
    for (uint64_t j = 0; j < n; j++) last[j] = INF;
    if (dhi < dlo) return 0;
    /* Band cell (i, d) with d = x - i in [dlo, dhi]; two rows. */
    size_t w = (size_t)(dhi - dlo + 1);
    int32_t *prev = malloc(w * sizeof(int32_t));
    int32_t *cur = malloc(w * sizeof(int32_t));
    if (!prev || !cur) { free(prev); free(cur); return -1; }
    for (size_t b = 0; b < w; b++) {
        int64_t x = dlo + (int64_t)b;
        prev[b] = (x >= 0 && x <= (int64_t)n) ? 0 : INF;   /* row 0 */
    }
    for (uint32_t i = 1; i <= m; i++) {
        for (size_t b = 0; b < w; b++) {
            int64_t x = (int64_t)i + dlo + (int64_t)b;
            if (x < 0 || x > (int64_t)n) { cur[b] = INF; continue; }
            int32_t best = INF;
            /* diagonal: (i-1, x-1), same d */
            if (x >= 1 && prev[b] != INF) {
                int32_t cost = gpuasm_nt16_match(pattern[i - 1], text[x - 1]) ? 0 : 1;
                if (prev[b] + cost < best) best = prev[b] + cost;
            }
            /* up: (i-1, x), d + 1 */
            if (b + 1 < w && add1(prev[b + 1]) < best) best = add1(prev[b + 1]);
            /* left: (i, x-1), d - 1 */
            if (b >= 1 && add1(cur[b - 1]) < best) best = add1(cur[b - 1]);
            cur[b] = best;
        }
        int32_t *t = prev; prev = cur; cur = t;
    }
    for (size_t b = 0; b < w; b++) {
        int64_t x = (int64_t)m + dlo + (int64_t)b;
        if (x >= 1 && x <= (int64_t)n) last[x - 1] = prev[b];
    }
    free(prev);
    free(cur);
    return 0;
}

void gpuasm_naive_hamming(const uint8_t *pattern, uint32_t m,
                          const uint8_t *text, uint64_t n, int byte, int32_t *last)
{
    for (uint64_t j = 0; j < n; j++) {
        if (j + 1 < m) {
            last[j] = INT32_MAX;
            continue;
        }
        int32_t d = 0;
        for (uint32_t i = 0; i < m; i++) d += !sym_match(byte, pattern[i], text[j + 1 - m + i]);
        last[j] = d;
    }
}
