/* SPDX-License-Identifier: MIT */
/* scan_cpu.c -- the CPU twin of the scan kernel (search.h, twin.h): Wu-Manber
 * k-differences in shift-and form, each error level computed as an INCLUSIVE
 * SCAN over the text with an associative operator (seed 002: Mitani, Ino,
 * Hagihara, "Parallelizing exact and approximate string matching via
 * inclusive scan on a GPU", TPDS 2017; supplement §8, Lemmas 1-3 and 7).
 * Patterns of 1..64 symbols (one 64-bit word; gpuasm_kernel_max_pattern()).
 *
 * The recurrence (Wu & Manber 1992, shift-and form).  Bit i of R^d_j means
 * ED(P[0..i], some suffix of T[0..j]) <= d (the empty suffix included):
 *     R^0_j = ((R^0_{j-1} << 1) | 1) & B[t_j]
 *     R^d_j = (((R^d_{j-1} << 1) | 1) & B[t_j])      match P[i] = t_j
 *             | R^{d-1}_{j-1}                         t_j inserted
 *             | (R^{d-1}_{j-1} << 1) | 1              P[i] replaced by t_j
 *             | (R^{d-1}_j << 1) | 1                  P[i] deleted
 * before the text R^d = (1 << d) - 1 (P[0..i] against the empty suffix costs
 * i+1), and D[m][j] = the least d whose R^d_j has bit m-1 (> k if none).
 * The bits only ever move up (shifts left, AND, OR), so the value of bit m-1
 * never depends on bits above it.
 *
 * Word layout: the pattern sits in the TOP m bits (P[i] is bit 64-m+i, P[m-1]
 * is bit 63).  "| 1" becomes "| low" with low = 1 << (64-m); the initial
 * states are ((1 << d) - 1) << (64-m).  Then every state has zero bits below
 * 64-m (B has none, and shifts move bits up), D is read from the sign bit,
 * and what a shift pushes past P[m-1] simply leaves the word.
 *
 * Why a scan.  Given level d-1 at every position, level d is
 *     R_j = ((R_{j-1} << 1) & A_j) | C_j,
 *     A_j = B[t_j],  C_j = (B[t_j] & low) for d = 0,
 *     C_j = Z_j = R^{d-1}_{j-1} | ((R^{d-1}_{j-1} | R^{d-1}_j) << 1) | low for d >= 1
 * (the match term's "| 1" is B & low, already inside Z for d >= 1).  Maps
 * x -> ((x << u) & A) | C are closed under composition: applying (u1,A1,C1)
 * and then (u2,A2,C2) gives
 *     (u1 + u2,  (A1 << u2) & A2,  ((C1 << u2) & A2) | C2)
 * by Lemma 1 ((x << u) << v = x << (u+v)), Lemma 3 (<< distributes over |;
 * it distributes over & the same way) and the associativity of & and |
 * (Lemma 2).  The operator is function composition, hence associative, so
 * the states of a level are one inclusive scan of the per-position maps
 * (1, A_j, C_j) applied to the state before the text.  Shift counts >= 64
 * give 0 (u saturates at 64 here).  Seed 002's Lemma 7 operator
 *     <x1,y1> (+) <x2,y2> = <x1 | x2, (y1 & ~x2) | y2>
 * is the one-bit, shift-free case: <x,y> is the map b -> (b & ~x) | y, i.e.
 * (u, A, C) = (0, ~x, y), and our composition gives A = ~x1 & ~x2 =
 * ~(x1 | x2), C = (y1 & ~x2) | y2, exactly Lemma 7.
 *
 * The twin uses that formulation (so CI tests the operator the CUDA kernel
 * relies on), not a plain sequential Wu-Manber: the text goes in blocks of
 * SCAN_RUNS runs of SCAN_RUN positions; per level, each run's aggregate map
 * is composed from its per-position maps, the aggregates are scanned
 * (exclusive prefix, identity first), the prefix of each run is applied to
 * the level's state before the block and the run is re-walked from there.
 * Between blocks each level keeps its last state (the scan's carry).
 * Level d needs level d-1 at j-1, so each block keeps the previous level's
 * state before the block too.
 *
 * D from the levels: bit m-1 set at level d implies it at every level > d
 * (an edit distance <= d is <= d+1), so D = k + 1 - (number of levels
 * 0..k with bit m-1 set).  Every j with D <= k is emitted, increasing j.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "search/search.h"
#include "kernels/twin.h"

enum {
    SCAN_RUN = 16,      /* positions per run: a run's map has u = 16, so both
                         * unsaturated (u < 64) and saturated compositions occur */
    SCAN_RUNS = 256,    /* runs per block */
    SCAN_BLOCK = SCAN_RUN * SCAN_RUNS,
    SCAN_MAX_LEVELS = 64   /* k < m <= 64 */
};

/* x -> ((x << u) & a) | c; u saturates at 64 (x << 64 is taken as 0). */
typedef struct scan_map {
    uint32_t u;
    uint64_t a, c;
} scan_map;

static inline uint64_t shl_sat(uint64_t x, uint32_t u) { return u >= 64 ? 0 : x << u; }

static inline uint64_t map_apply(scan_map f, uint64_t x) { return (shl_sat(x, f.u) & f.a) | f.c; }

/* f first, then g (see the header for the algebra). */
static inline scan_map map_then(scan_map f, scan_map g)
{
    scan_map h;
    h.u = f.u + g.u >= 64 ? 64 : f.u + g.u;
    h.a = shl_sat(f.a, g.u) & g.a;
    h.c = (shl_sat(f.c, g.u) & g.a) | g.c;
    return h;
}

static const scan_map map_identity = { 0, ~(uint64_t)0, 0 };

/* One pattern's B table: bit 64-m+i of tbl[c] iff P[i] matches symbol c. */
typedef struct scan_tbl {
    uint64_t tbl[256];
} scan_tbl;

typedef struct scan_ws {
    int alphabet;
    scan_tbl tbl[3];          /* [0], [1]: read strand 0 / 1; [2]: target (as myers_cpu.c) */
    uint64_t key[3];          /* pattern_key held, UINT64_MAX: none */
    uint64_t b[SCAN_BLOCK];   /* B[t_j] of the block */
    uint64_t st[SCAN_BLOCK];  /* level d-1 states, then Z (C_j), then level d states */
    uint8_t cnt[SCAN_BLOCK];  /* levels with bit m-1 set */
    scan_map agg[SCAN_RUNS];  /* run aggregates */
} scan_ws;

static void build_tbl(scan_tbl *t, const uint8_t *pattern, uint32_t m, int alphabet)
{
    const unsigned sh = 64 - m;
    memset(t->tbl, 0, sizeof t->tbl);
    for (uint32_t i = 0; i < m; i++) {
        const uint64_t bit = (uint64_t)1 << (sh + i);
        if (alphabet == GPUASM_ALPHABET_BYTE) {
            t->tbl[pattern[i]] |= bit;
        } else {
            for (unsigned c = 0; c < 16; c++)
                if (gpuasm_sym_match(alphabet, pattern[i] & 15, (uint8_t)c)) t->tbl[c] |= bit;
        }
    }
}

static void *scan_open(const gpuasm_search_opt *opt)
{
    scan_ws *w = malloc(sizeof *w);
    if (!w) return NULL;
    w->alphabet = opt->alphabet;
    for (int i = 0; i < 3; i++) w->key[i] = UINT64_MAX;
    return w;
}

/* One level of one block: st[] holds level d-1 (d >= 1; ignored for d = 0)
 * and is overwritten with level d.  *carry is the level's state before the
 * block (updated to its state at the block's end); prev_carry is level d-1's
 * state before the block. */
static void scan_level(scan_ws *w, uint32_t len, int32_t d, uint64_t low,
                       uint64_t *carry, uint64_t prev_carry)
{
    uint64_t *st = w->st;
    const uint64_t *b = w->b;
    /* C_j of every position (in place: Z_j needs level d-1 at j-1 and j). */
    if (d == 0) {
        for (uint32_t j = 0; j < len; j++) st[j] = b[j] & low;
    } else {
        uint64_t pm1 = prev_carry;
        for (uint32_t j = 0; j < len; j++) {
            const uint64_t p = st[j];
            st[j] = pm1 | ((pm1 | p) << 1) | low;
            pm1 = p;
        }
    }
    /* Run aggregates: the composition of the runs' per-position maps. */
    const uint32_t nruns = (len + SCAN_RUN - 1) / SCAN_RUN;
    for (uint32_t r = 0; r < nruns; r++) {
        scan_map f = map_identity;
        const uint32_t e = (r + 1) * SCAN_RUN < len ? (r + 1) * SCAN_RUN : len;
        for (uint32_t j = r * SCAN_RUN; j < e; j++) {
            const scan_map s = { 1, b[j], st[j] };
            f = map_then(f, s);
        }
        w->agg[r] = f;
    }
    /* Exclusive scan of the aggregates; each run's prefix applied to the
     * state before the block gives the state entering the run, from which
     * the run is re-walked. */
    const uint64_t x0 = *carry;
    scan_map pre = map_identity;
    for (uint32_t r = 0; r < nruns; r++) {
        uint64_t x = map_apply(pre, x0);
        const uint32_t e = (r + 1) * SCAN_RUN < len ? (r + 1) * SCAN_RUN : len;
        for (uint32_t j = r * SCAN_RUN; j < e; j++) {
            x = ((x << 1) & b[j]) | st[j];
            st[j] = x;
            w->cnt[j] += (uint8_t)(x >> 63);
        }
        pre = map_then(pre, w->agg[r]);
    }
    *carry = st[len - 1];
}

static int scan_pair(void *ws, const gpuasm_twin_pair *p, gpuasm_emit_fn emit, void *ctx)
{
    scan_ws *w = ws;
    const uint32_t m = p->m;
    const int32_t k = p->k;
    /* twin.h guarantees 1 <= m, 0 <= k < m, m <= 64 (the kernel's limit). */
    if (m == 0 || m > 64 || k < 0 || (uint32_t)k >= m || p->n == 0) return 0;
    int slot = (p->pattern_key & 1) ? (int)((p->pattern_key >> 1) & 1) : 2;
    if (w->key[slot] != p->pattern_key) {
        build_tbl(&w->tbl[slot], p->pattern, m, w->alphabet);
        w->key[slot] = p->pattern_key;
    }
    const uint64_t *tbl = w->tbl[slot].tbl;
    const unsigned sym_mask = w->alphabet == GPUASM_ALPHABET_BYTE ? 255 : 15;
    const unsigned sh = 64 - m;
    const uint64_t low = (uint64_t)1 << sh;

    uint64_t carry[SCAN_MAX_LEVELS];
    for (int32_t d = 0; d <= k; d++) carry[d] = (((uint64_t)1 << d) - 1) << sh;

    for (uint64_t j0 = 0; j0 < p->n; j0 += SCAN_BLOCK) {
        const uint32_t len = p->n - j0 < SCAN_BLOCK ? (uint32_t)(p->n - j0) : SCAN_BLOCK;
        for (uint32_t j = 0; j < len; j++) w->b[j] = tbl[p->text[j0 + j] & sym_mask];
        memset(w->cnt, 0, len);
        uint64_t prev_carry = 0;
        for (int32_t d = 0; d <= k; d++) {
            const uint64_t before = carry[d];
            scan_level(w, len, d, low, &carry[d], prev_carry);
            prev_carry = before;
        }
        for (uint32_t j = 0; j < len; j++)
            if (w->cnt[j]) emit(ctx, j0 + j, k + 1 - (int32_t)w->cnt[j]);
    }
    return 0;
}

static void scan_close(void *ws) { free(ws); }

const gpuasm_twin gpuasm_twin_scan = { "scan", scan_open, scan_pair, scan_close };
