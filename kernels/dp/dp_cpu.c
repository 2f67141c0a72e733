/* SPDX-License-Identifier: MIT */
/* dp_cpu.c -- the CPU twin of the dp kernel (seed 000 HMM ASM; seed 001
 * §6-8): the plain edit-distance DP of approximate string matching,
 *     D[0][j] = 0, D[i][-1] = i,
 *     D[i][j] = min(D[i-1][j-1] + (P[i-1] != T[j]), D[i-1][j] + 1, D[i][j-1] + 1),
 * one cell at a time.  The CUDA kernel (dp_cuda.cu) sweeps the same matrix
 * by anti-diagonals over text segments; the order of evaluation does not
 * change any D, so the twin goes column by column.
 *
 * Ukkonen's cut-off (Ukkonen 1985): only rows 1 .. lact are computed, lact
 * being one past the last row <= k of the previous column.  Invariant: a
 * computed cell is <= k iff its true value is, and then equals it; a cell
 * that may be > k is only ever combined through min and +0/+1, so it stays
 * > k.  A row re-entering the band gets k + 1 for its previous column (its
 * true value there is > k), which keeps the invariant.  Every D[m][j] <= k
 * is therefore exact, which is all search.h reports.
 */
#include <stdint.h>
#include <stdlib.h>

#include "search/search.h"
#include "kernels/twin.h"

typedef struct dp_ws {
    int alphabet;
    int32_t *col;      /* [m + 1] one DP column */
    size_t cap;
} dp_ws;

static void *dp_open(const gpuasm_search_opt *opt)
{
    dp_ws *w = calloc(1, sizeof *w);
    if (w) w->alphabet = opt->alphabet;
    return w;
}

static int dp_pair(void *ws, const gpuasm_twin_pair *p, gpuasm_emit_fn emit, void *ctx)
{
    dp_ws *w = ws;
    const uint32_t m = p->m;
    const int32_t k = p->k;
    if ((size_t)m + 1 > w->cap) {
        int32_t *c = realloc(w->col, ((size_t)m + 1) * sizeof *c);
        if (!c) return -1;
        w->col = c;
        w->cap = (size_t)m + 1;
    }
    int32_t *C = w->col;
    for (uint32_t i = 0; i <= m; i++) C[i] = (int32_t)i;   /* column -1 */
    uint32_t lact = (uint32_t)k < m ? (uint32_t)k + 1 : m;  /* rows <= k, plus one */
    const int byte = w->alphabet == GPUASM_ALPHABET_BYTE;
    for (uint64_t j = 0; j < p->n; j++) {
        const uint8_t c = p->text[j];
        int32_t diag = 0;   /* D[i-1][j-1], starting with row 0 */
        int32_t up = 0;     /* D[i-1][j] */
        for (uint32_t i = 1; i <= lact; i++) {
            const uint8_t pc = p->pattern[i - 1];
            const int match = byte ? pc == c : (pc & c) != 0;
            int32_t v = diag + !match;
            if (up + 1 < v) v = up + 1;
            if (C[i] + 1 < v) v = C[i] + 1;
            diag = C[i];
            C[i] = v;
            up = v;
        }
        while (lact > 0 && C[lact] > k) lact--;
        if (lact == m) {
            emit(ctx, j, C[m]);
        } else {
            lact++;
            C[lact] = k + 1;   /* its true value in column j is > k */
        }
    }
    return 0;
}

static void dp_close(void *ws)
{
    dp_ws *w = ws;
    if (!w) return;
    free(w->col);
    free(w);
}

const gpuasm_twin gpuasm_twin_dp = { "dp", dp_open, dp_pair, dp_close };
