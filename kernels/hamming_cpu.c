/* hamming_cpu.c -- the CPU twin of the hamming kernel (seed 004): the
 * k-mismatch problem (seed 004 Definition 3).  For every window end
 * j in [m-1, n-1], D[m][j] = #{ i : P[i] does not match T[j-m+1+i] };
 * positions j < m-1 have no window (search.h: never reported).
 *
 * The twin counts each window with an early exit once it passes k (only
 * values <= k are reported, so the exit changes no output).  The CUDA
 * kernel (hamming_cuda.cu) counts the whole window, in the paper's layouts
 * and in a packed one; every variant reports the same windows.
 */
#include <stdint.h>
#include <stdlib.h>

#include "search.h"
#include "twin.h"

typedef struct hamming_ws {
    int alphabet;
} hamming_ws;

static void *hamming_open(const gpuasm_search_opt *opt)
{
    hamming_ws *w = calloc(1, sizeof *w);
    if (w) w->alphabet = opt->alphabet;
    return w;
}

static int hamming_pair(void *ws, const gpuasm_twin_pair *p, gpuasm_emit_fn emit, void *ctx)
{
    const hamming_ws *w = ws;
    const uint32_t m = p->m;
    const int32_t k = p->k;
    if (p->n < m) return 0;
    const int byte = w->alphabet == GPUASM_ALPHABET_BYTE;
    for (uint64_t j = m - 1; j < p->n; j++) {
        const uint8_t *t = p->text + (j + 1 - m);
        int32_t d = 0;
        for (uint32_t i = 0; i < m && d <= k; i++)
            d += byte ? p->pattern[i] != t[i] : (p->pattern[i] & t[i]) == 0;
        if (d <= k) emit(ctx, j, d);
    }
    return 0;
}

static void hamming_close(void *ws) { free(ws); }

const gpuasm_twin gpuasm_twin_hamming = { "hamming", hamming_open, hamming_pair, hamming_close };
