/* SPDX-License-Identifier: MIT */
/* hamming_cpu.c -- the CPU twin of the hamming kernel (seed 004): the
 * k-mismatch problem (seed 004 Definition 3).  For every window end
 * j in [m-1, n-1], D[m][j] = #{ i : P[i] does not match T[j-m+1+i] };
 * positions j < m-1 have no window (search.h: never reported).
 *
 * Patterns of at most 64 bases (nt16) are counted bit-parallel, all rows
 * at once (Baeza-Yates & Gonnet's shift-add, 1992, with the counters in
 * bit planes): plane p holds bit p of the count of every row i, where row
 * i at text position j counts the mismatches of P[0..i] against
 * T[j-i..j]; a column shifts every plane up one row and adds the rows'
 * mismatch bits (~PEq of the text code) with a ripple carry; counts that
 * reach 2^planes > k stay flagged in an overflow plane.  Row m-1 is the
 * window ending at j.  Longer patterns and the byte alphabet count each
 * window with an early exit once it passes k (only values <= k are
 * reported, so the exit changes no output).  The CUDA kernel
 * (hamming_cuda.cu) counts the whole window, in the paper's layouts and in
 * a packed one; every variant reports the same windows.
 */
#include <stdint.h>
#include <stdlib.h>

#include "search/search.h"
#include "kernels/twin.h"

/* The mismatch words of a pattern, kept per pattern_key (twin.h): the
 * read's two strands in two slots, targets (adapters against every read)
 * by index. */
typedef struct mis_tab {
    uint64_t key;        /* pattern_key held; UINT64_MAX: none */
    uint64_t mis[16];    /* bit i: P[i] does not match the code */
} mis_tab;

typedef struct hamming_ws {
    int alphabet;
    mis_tab read[2];
    mis_tab *tgt;        /* [n_tgt], key UINT64_MAX until built */
    size_t n_tgt;
} hamming_ws;

static void *hamming_open(const gpuasm_search_opt *opt)
{
    hamming_ws *w = calloc(1, sizeof *w);
    if (w) {
        w->alphabet = opt->alphabet;
        w->read[0].key = w->read[1].key = UINT64_MAX;
    }
    return w;
}

/* The pattern's mismatch words (m <= 64): cached, or NULL (no memory). */
static const uint64_t *mis_of(hamming_ws *w, const gpuasm_twin_pair *p)
{
    mis_tab *tab;
    if (p->pattern_key & 1) {
        tab = &w->read[(p->pattern_key >> 1) & 1];
    } else {
        const uint64_t t = p->pattern_key >> 2;
        if (t >= w->n_tgt) {
            size_t n = w->n_tgt ? w->n_tgt : 64;
            while (n <= t) n *= 2;
            mis_tab *q = realloc(w->tgt, n * sizeof *q);
            if (!q) return NULL;
            for (size_t i = w->n_tgt; i < n; i++) q[i].key = UINT64_MAX;
            w->tgt = q;
            w->n_tgt = n;
        }
        tab = &w->tgt[t];
    }
    if (tab->key != p->pattern_key) {
        for (unsigned c = 0; c < 16; c++) {
            uint64_t eq = 0;
            for (uint32_t i = 0; i < p->m; i++) eq |= (uint64_t)((p->pattern[i] & c) != 0) << i;
            tab->mis[c] = ~eq;
        }
        tab->key = p->pattern_key;
    }
    return tab->mis;
}

/* Shift-add in bit planes for m <= 64 (nt16), k < m. */
static void count_planes(const gpuasm_twin_pair *p, const uint64_t *mis, gpuasm_emit_fn emit, void *ctx)
{
    const uint32_t m = p->m;
    const int32_t k = p->k;
    int planes = 1;   /* 2^planes > k */
    while (planes < 7 && ((int64_t)1 << planes) <= k) planes++;
    uint64_t s[7] = { 0 }, over = 0;
    const unsigned top = m - 1;
    for (uint64_t j = 0; j < p->n; j++) {
        uint64_t carry = mis[p->text[j] & 15];
        over <<= 1;
        for (int q = 0; q < planes; q++) {
            const uint64_t x = s[q] << 1;
            s[q] = x ^ carry;
            carry &= x;
        }
        over |= carry;
        if (j < top || (over >> top & 1)) continue;
        int32_t d = 0;
        for (int q = 0; q < planes; q++) d |= (int32_t)((s[q] >> top) & 1) << q;
        if (d <= k) emit(ctx, j, d);
    }
}

static int hamming_pair(void *ws, const gpuasm_twin_pair *p, gpuasm_emit_fn emit, void *ctx)
{
    hamming_ws *w = ws;
    const uint32_t m = p->m;
    const int32_t k = p->k;
    if (p->n < m) return 0;
    const int byte = w->alphabet == GPUASM_ALPHABET_BYTE;
    if (!byte && m <= 64) {
        const uint64_t *mis = mis_of(w, p);
        if (!mis) return -1;
        count_planes(p, mis, emit, ctx);
        return 0;
    }
    for (uint64_t j = m - 1; j < p->n; j++) {
        const uint8_t *t = p->text + (j + 1 - m);
        int32_t d = 0;
        for (uint32_t i = 0; i < m && d <= k; i++)
            d += byte ? p->pattern[i] != t[i] : (p->pattern[i] & t[i]) == 0;
        if (d <= k) emit(ctx, j, d);
    }
    return 0;
}

static void hamming_close(void *ws)
{
    hamming_ws *w = ws;
    if (w) free(w->tgt);
    free(w);
}

const gpuasm_twin gpuasm_twin_hamming = { "hamming", hamming_open, hamming_pair, hamming_close };
