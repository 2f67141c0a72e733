/* myers_cpu.c -- the CPU twin of the Myers kernel (search.h).
 *
 * Myers' bit-vector algorithm (Myers 1999; seed 003 §2.2, whose names are
 * used below: PEq, VP/VN = Pv/Mv, HP/HN = Ph/Mh, HX = Xh, VX = Xv) with
 * 64-bit words.  Patterns longer than one word are cut into blocks of 64
 * rows; each block is advanced one text column at a time with the horizontal
 * delta of its top row as input (hin) and of its last row as output (hout),
 * exactly as in Hyyrö's block formulation ("Explaining and extending the
 * bit-parallel approximate string matching algorithm of Myers", 2001, seed
 * 003 ref. [2]) and edlib's calculateBlock().
 *
 * Approximate matching (free start): row 0 of the DP is 0 in every column,
 * so the top block gets hin = 0; column 0 is D[i][0] = i, i.e. Pv = all ones,
 * Mv = 0, score = m.
 *
 * Bit i of a block word is pattern row 64*b + i + 1.  The last block may have
 * padding bits above row m: their PEq bits are 0 and, since carries of the
 * addition and the shifts only move information upwards, they never change
 * the bits of real rows.  That is why the score is read from the bit of the
 * block's last real row, never from the word's high bit.
 *
 * Ukkonen's cut-off (as in edlib, Hyyrö 2003): only blocks 0..last are
 * computed, where every cell below block `last` is known to be > k.  This is
 * exact (bit-identical hits); run_blocks() gives the argument.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "myers_block.h"
#include "nt16.h"
#include "search.h"
#include "twin.h"

#define WORD_BITS 64

/* Scratch memory for one pattern, grown and reused across pairs. */
typedef struct peq_buf {
    uint64_t *peq;   /* [symbols * n_words]: bit i of peq[c*W + b] = row 64b+i+1 matches c */
    size_t cap;      /* words allocated */
} peq_buf;

/* Symbols of an alphabet (the Peq table's rows); text codes are masked
 * with symbols - 1 (nt16 codes are 4-bit). */
static unsigned n_symbols(int alphabet) { return alphabet == GPUASM_ALPHABET_BYTE ? 256 : 16; }

/* Column state of the block algorithm, grown and reused across pairs. */
typedef struct col_buf {
    uint64_t *pv, *mv;   /* [n_words] vertical +1 / -1 deltas (VP, VN) */
    int64_t *score;      /* [n_words] D[last real row of block b][j] */
    size_t cap;          /* blocks allocated */
} col_buf;

typedef void (*emit_fn)(void *ctx, uint64_t j, int32_t d);

static int grow_peq(peq_buf *p, size_t n_words, unsigned symbols)
{
    if (n_words > SIZE_MAX / sizeof(uint64_t) / symbols) return -1;
    size_t need = symbols * n_words;
    if (need <= p->cap) return 0;
    uint64_t *q = realloc(p->peq, need * sizeof(uint64_t));
    if (!q) return -1;
    p->peq = q;
    p->cap = need;
    return 0;
}

static int grow_col(col_buf *c, size_t n_words)
{
    if (n_words <= c->cap) return 0;
    if (n_words > SIZE_MAX / sizeof(uint64_t)) return -1;
    uint64_t *pv = realloc(c->pv, n_words * sizeof(uint64_t));
    if (!pv) return -1;
    c->pv = pv;
    uint64_t *mv = realloc(c->mv, n_words * sizeof(uint64_t));
    if (!mv) return -1;
    c->mv = mv;
    int64_t *sc = realloc(c->score, n_words * sizeof(int64_t));
    if (!sc) return -1;
    c->score = sc;
    c->cap = n_words;
    return 0;
}

static void free_peq(peq_buf *p) { free(p->peq); p->peq = NULL; p->cap = 0; }

static void free_col(col_buf *c)
{
    free(c->pv); free(c->mv); free(c->score);
    c->pv = c->mv = NULL; c->score = NULL; c->cap = 0;
}

static size_t n_words_of(uint64_t m) { return (size_t)((m + WORD_BITS - 1) / WORD_BITS); }

/* PEq (seed 003 Algorithm 1, PREPROCESSINGPEQ).
 * nt16: a text code c matches pattern row i iff pattern[i] & c != 0, i.e.
 * iff they share one of the four bases.  So the rows holding each base (A,
 * C, G, T bit) are collected first and PEq[c] is the union over the bases
 * of c.  Code 0 (N in a read) holds no base and sets no bit.
 * Byte alphabet: PEq[c] holds the rows equal to c. */
static int build_peq(peq_buf *p, const uint8_t *pattern, uint64_t m, int alphabet)
{
    size_t W = n_words_of(m);
    unsigned symbols = n_symbols(alphabet);
    if (grow_peq(p, W, symbols) < 0) return -1;
    uint64_t *peq = p->peq;
    memset(peq, 0, symbols * W * sizeof(uint64_t));
    if (alphabet == GPUASM_ALPHABET_BYTE) {
        for (uint64_t i = 0; i < m; i++)
            peq[(size_t)pattern[i] * W + i / WORD_BITS] |= (uint64_t)1 << (i % WORD_BITS);
        return 0;
    }
    /* PEq[1], [2], [4], [8] are the per-base masks themselves. */
    for (uint64_t i = 0; i < m; i++) {
        unsigned pc = pattern[i] & 15;
        size_t b = (size_t)(i / WORD_BITS);
        uint64_t bit = (uint64_t)1 << (i % WORD_BITS);
        if (pc & 1) peq[1 * W + b] |= bit;
        if (pc & 2) peq[2 * W + b] |= bit;
        if (pc & 4) peq[4 * W + b] |= bit;
        if (pc & 8) peq[8 * W + b] |= bit;
    }
    for (unsigned c = 3; c < 16; c++) {
        if ((c & (c - 1)) == 0) continue;   /* single bases: done */
        uint64_t *dst = peq + c * W;
        for (size_t b = 0; b < W; b++)
            dst[b] = ((c & 1) ? peq[1 * W + b] : 0) | ((c & 2) ? peq[2 * W + b] : 0) |
                     ((c & 4) ? peq[4 * W + b] : 0) | ((c & 8) ? peq[8 * W + b] : 0);
    }
    return 0;
}

/* Advance one block by one text column (myers_block.h). */
static inline int block_step(uint64_t *pv_io, uint64_t *mv_io, uint64_t eq,
                             int hin, uint64_t hbit)
{
    uint64_t ph, mh;
    return gpuasm_myers_block_step(pv_io, mv_io, eq, hin, hbit, &ph, &mh);
}

/* One word: no blocks, no cut-off (there is nothing to cut). */
static void run_one_word(const uint64_t *peq, unsigned sym_mask, uint32_t m, const uint8_t *text,
                         uint64_t n, int32_t k, emit_fn emit, void *ctx)
{
    const uint64_t hbit = (uint64_t)1 << (m - 1);
    uint64_t pv = ~(uint64_t)0, mv = 0;
    int64_t score = m;
    for (uint64_t j = 0; j < n; j++) {
        uint64_t eq = peq[text[j] & sym_mask];
        uint64_t xv = eq | mv;
        uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
        uint64_t ph = mv | ~(xh | pv);
        uint64_t mh = pv & xh;
        score += (int64_t)((ph & hbit) != 0) - (int64_t)((mh & hbit) != 0);
        /* hin = 0: row 0 is 0 in every column (free start). */
        ph <<= 1;
        mh <<= 1;
        pv = mh | ~(xv | ph);
        mv = ph & xv;
        if (score <= k) emit(ctx, j, (int32_t)score);
    }
}

/* Rows of block b of an m-row pattern with W blocks. */
static inline int64_t block_rows(uint32_t m, size_t W, size_t b)
{
    return b + 1 < W ? WORD_BITS : (int64_t)m - (int64_t)(W - 1) * WORD_BITS;
}

/* Several words, with the cut-off.  Invariant I(j): after column j every
 * cell of every block > last is > k (true DP values); every computed cell
 * whose true value is <= k equals it, and every other computed cell is >=
 * its true value (so "computed <= k" means "true <= k", with equal values).
 *
 * Why one extension per column suffices: D[i][j] <= k needs a predecessor
 * <= k.  Take row i below block `last`.  Left: D[i][j-1] > k by I(j-1).  Up:
 * D[i-1][j] >= D[i-1][j-1] - 1 >= k when row i-1 is below `last` too, so
 * D[i-1][j] + 1 > k.  That leaves the diagonal, D[i-1][j-1] <= k, with row
 * i-1 inside block `last`: only the first row of block last+1 can be <= k,
 * and only when the last row of block `last` was <= k in column j-1.
 * A block brought (back) in starts from the column "last row of the block
 * above + 1 per row", an over-estimate of the true column with valid
 * deltas, so I(j) keeps holding.
 *
 * Dropping: a block whose last-row score is >= k + rows has every cell > k
 * (vertical deltas are >= -1), so it may leave the active set.  Block 0
 * always stays.  Needs k >= 0 (run_pair() returns before otherwise). */
static void run_blocks(const uint64_t *peq, unsigned sym_mask, uint32_t m, size_t W, col_buf *cb,
                       const uint8_t *text, uint64_t n, int32_t k,
                       emit_fn emit, void *ctx)
{
    uint64_t *pv = cb->pv, *mv = cb->mv;
    int64_t *score = cb->score;
    const int64_t kk = k;
    const uint64_t hbit_full = (uint64_t)1 << (WORD_BITS - 1);
    const uint64_t hbit_last = (uint64_t)1 << ((m - 1) % WORD_BITS);

    /* Column 0: D[i][0] = i.  Rows <= k live in blocks 0 .. k/64. */
    size_t last = W - 1;
    if ((uint64_t)kk / WORD_BITS < W - 1) last = (size_t)((uint64_t)kk / WORD_BITS);
    for (size_t b = 0; b <= last; b++) {
        pv[b] = ~(uint64_t)0;
        mv[b] = 0;
        score[b] = (int64_t)(b * WORD_BITS) + block_rows(m, W, b);
    }

    for (uint64_t j = 0; j < n; j++) {
        const uint64_t *eqc = peq + (size_t)(text[j] & sym_mask) * W;
        int h = 0;   /* row 0: free start */
        for (size_t b = 0; b <= last; b++) {
            h = block_step(&pv[b], &mv[b], eqc[b], h, b + 1 < W ? hbit_full : hbit_last);
            score[b] += h;
        }
        /* score[last] - h is the last row of block `last` in column j-1. */
        if (last + 1 < W && score[last] - h <= kk) {
            size_t b = last + 1;
            pv[b] = ~(uint64_t)0;
            mv[b] = 0;
            score[b] = score[last] - h + block_rows(m, W, b);
            h = block_step(&pv[b], &mv[b], eqc[b], h, b + 1 < W ? hbit_full : hbit_last);
            score[b] += h;
            last = b;
        }
        while (last > 0 && score[last] >= kk + block_rows(m, W, last)) last--;
        if (last == W - 1 && score[last] <= kk) emit(ctx, j, (int32_t)score[last]);
    }
}

/* Search one pattern (PEq built) against one text. */
static int run_pair(const peq_buf *pb, unsigned sym_mask, col_buf *cb, uint32_t m,
                    const uint8_t *text, uint64_t n, int32_t k,
                    emit_fn emit, void *ctx)
{
    if (m == 0 || k < 0 || n == 0) return 0;
    size_t W = n_words_of(m);
    if (W == 1) {
        run_one_word(pb->peq, sym_mask, m, text, n, k, emit, ctx);
        return 0;
    }
    if (grow_col(cb, W) < 0) return -1;
    run_blocks(pb->peq, sym_mask, m, W, cb, text, n, k, emit, ctx);
    return 0;
}

int gpuasm_myers_cpu_pair(const uint8_t *pattern, uint32_t m,
                          const uint8_t *text, uint64_t n, int32_t k,
                          void (*emit)(void *ctx, uint64_t j, int32_t d), void *ctx)
{
    if (m == 0) {
        /* Outside the contract (m >= 1); the empty pattern is at distance 0
         * everywhere, which is what the definition gives. */
        if (k >= 0)
            for (uint64_t j = 0; j < n; j++) emit(ctx, j, 0);
        return 0;
    }
    peq_buf pb = {0};
    col_buf cb = {0};
    int rc = -1;
    if (build_peq(&pb, pattern, m, GPUASM_ALPHABET_NT16) == 0)
        rc = run_pair(&pb, 15, &cb, m, text, n, k, emit, ctx);
    free_peq(&pb);
    free_col(&cb);
    return rc;
}

/* ---- the twin (twin.h) ------------------------------------------------- */

/* PEq caches: the read as pattern alternates strands from target to target,
 * so each strand of the current read keeps its own; a target as pattern
 * keeps one. */
typedef struct myers_ws {
    int alphabet;
    peq_buf peq[3];         /* [0], [1]: read strand 0 / 1; [2]: target */
    uint64_t key[3];        /* pattern_key held, UINT64_MAX: none */
    col_buf col;
} myers_ws;

static void *myers_open(const gpuasm_search_opt *opt)
{
    myers_ws *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->alphabet = opt->alphabet;
    for (int i = 0; i < 3; i++) w->key[i] = UINT64_MAX;
    return w;
}

static int myers_pair(void *ws, const gpuasm_twin_pair *p, gpuasm_emit_fn emit, void *ctx)
{
    myers_ws *w = ws;
    int slot = (p->pattern_key & 1) ? (int)((p->pattern_key >> 1) & 1) : 2;
    if (w->key[slot] != p->pattern_key) {
        w->key[slot] = UINT64_MAX;
        if (build_peq(&w->peq[slot], p->pattern, p->m, w->alphabet) < 0) return -1;
        w->key[slot] = p->pattern_key;
    }
    return run_pair(&w->peq[slot], n_symbols(w->alphabet) - 1, &w->col, p->m,
                    p->text, p->n, p->k, emit, ctx);
}

static void myers_close(void *ws)
{
    myers_ws *w = ws;
    if (!w) return;
    for (int i = 0; i < 3; i++) free_peq(&w->peq[i]);
    free_col(&w->col);
    free(w);
}

const gpuasm_twin gpuasm_twin_myers = { "myers", myers_open, myers_pair, myers_close };
