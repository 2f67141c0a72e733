/* SPDX-License-Identifier: MIT */
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
 *
 * PEq is stored block-major (peq[b * symbols + c]), so a column's word of
 * block b is found with shifts and adds only (no multiply by the block
 * count per column), and block 0's words are the 16 (nt16) words the SIMD
 * lanes of myers_lanes.h take.  The twin's workspace keeps the PEq of the
 * current read's two strands and of every target it has seen as a pattern
 * (a run's targets do not change), so adapters are not re-encoded for every
 * read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/myers/myers_block.h"
#include "kernels/myers/myers_cpu.h"
#include "search/nt16.h"
#include "search/search.h"
#include "kernels/twin.h"

#define WORD_BITS 64

/* Scratch memory for one pattern, grown and reused across pairs. */
typedef struct peq_buf {
    uint64_t *peq;   /* [n_words * symbols]: bit i of peq[b*symbols + c] = row 64b+i+1 matches c */
    size_t cap;      /* words allocated */
} peq_buf;

/* Symbols of an alphabet (the Peq table's rows); text codes are masked
 * with symbols - 1 (nt16 codes are 4-bit).  sym_shift = log2(symbols). */
static unsigned n_symbols(int alphabet) { return alphabet == GPUASM_ALPHABET_BYTE ? 256 : 16; }
static unsigned sym_shift_of(int alphabet) { return alphabet == GPUASM_ALPHABET_BYTE ? 8 : 4; }

typedef gpuasm_myers_cols col_buf;

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
    free(c->pv); free(c->mv); free(c->score); free(c->hb); free(c->end_w);
    c->pv = c->mv = NULL; c->score = NULL; c->cap = 0;
    c->hb = NULL; c->hb_cap = 0;
    c->end_w = NULL; c->end_cap = 0;
}

int gpuasm_myers_cols_hb(col_buf *c, uint64_t n)
{
    if (n <= c->hb_cap) return 0;
    if (n > SIZE_MAX) return -1;
    int8_t *hb = realloc(c->hb, (size_t)n);
    if (!hb) return -1;
    c->hb = hb;
    c->hb_cap = (size_t)n;
    return 0;
}

static size_t n_words_of(uint64_t m) { return (size_t)((m + WORD_BITS - 1) / WORD_BITS); }

/* PEq (seed 003 Algorithm 1, PREPROCESSINGPEQ) into peq[W * symbols].
 * nt16: a text code c matches pattern row i iff pattern[i] & c != 0, i.e.
 * iff they share one of the four bases.  So the rows holding each base (A,
 * C, G, T bit) are collected first and PEq[c] is the union over the bases
 * of c.  Code 0 (N in a read) holds no base and sets no bit.
 * Byte alphabet: PEq[c] holds the rows equal to c. */
static void fill_peq(uint64_t *peq, const uint8_t *pattern, uint64_t m, int alphabet)
{
    const size_t W = n_words_of(m);
    const unsigned symbols = n_symbols(alphabet);
    memset(peq, 0, symbols * W * sizeof(uint64_t));
    if (alphabet == GPUASM_ALPHABET_BYTE) {
        for (uint64_t i = 0; i < m; i++)
            peq[(i / WORD_BITS) * 256 + pattern[i]] |= (uint64_t)1 << (i % WORD_BITS);
        return;
    }
    for (size_t b = 0; b < W; b++) {
        uint64_t *blk = peq + b * 16;
        /* PEq[1], [2], [4], [8] are the per-base masks themselves. */
        for (uint64_t i = b * WORD_BITS; i < m && i < (b + 1) * WORD_BITS; i++) {
            const unsigned pc = pattern[i] & 15;
            const uint64_t bit = (uint64_t)1 << (i % WORD_BITS);
            if (pc & 1) blk[1] |= bit;
            if (pc & 2) blk[2] |= bit;
            if (pc & 4) blk[4] |= bit;
            if (pc & 8) blk[8] |= bit;
        }
        for (unsigned c = 3; c < 16; c++) {
            if ((c & (c - 1)) == 0) continue;   /* single bases: done */
            blk[c] = ((c & 1) ? blk[1] : 0) | ((c & 2) ? blk[2] : 0) | ((c & 4) ? blk[4] : 0) |
                     ((c & 8) ? blk[8] : 0);
        }
    }
}

static int build_peq(peq_buf *p, const uint8_t *pattern, uint64_t m, int alphabet)
{
    if (grow_peq(p, n_words_of(m), n_symbols(alphabet)) < 0) return -1;
    fill_peq(p->peq, pattern, m, alphabet);
    return 0;
}

size_t gpuasm_myers_peq_words(uint32_t m) { return 16 * n_words_of(m); }

void gpuasm_myers_peq_nt16(uint64_t *peq, const uint8_t *pattern, uint32_t m)
{
    fill_peq(peq, pattern, m, GPUASM_ALPHABET_NT16);
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
static void run_blocks(const uint64_t *peq, unsigned sym_shift, uint32_t m, size_t W, col_buf *cb,
                       const uint8_t *text, uint64_t n, int32_t k,
                       emit_fn emit, void *ctx)
{
    uint64_t *pv = cb->pv, *mv = cb->mv;
    int64_t *score = cb->score;
    const int64_t kk = k;
    const unsigned sym_mask = (1u << sym_shift) - 1;
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

    uint64_t j = 0;
    while (j < n) {
        /* Block 0 alone (the common case with k < 64: a 150-base read
         * against a genome is one word nearly everywhere): the same
         * recurrence as the general loop below with last == 0, in
         * registers, until block 0's last row reaches k and block 1 must
         * come in. */
        if (last == 0) {
            uint64_t p0 = pv[0], m0 = mv[0];
            int64_t s0 = score[0];
            while (j < n && s0 > kk) {
                const uint64_t eq = peq[text[j] & sym_mask];
                const uint64_t xv = eq | m0;
                const uint64_t xh = (((eq & p0) + p0) ^ p0) | eq;
                const uint64_t ph = m0 | ~(xh | p0);
                const uint64_t mh = p0 & xh;
                s0 += (int64_t)(ph >> 63) - (int64_t)(mh >> 63);
                const uint64_t phs = ph << 1, mhs = mh << 1;
                p0 = mhs | ~(xv | phs);
                m0 = phs & xv;
                j++;
            }
            pv[0] = p0;
            mv[0] = m0;
            score[0] = s0;
            if (j == n) break;
        }
        /* One column of the general loop. */
        const uint64_t *eqc = peq + (text[j] & sym_mask);
        int h = 0;   /* row 0: free start */
        for (size_t b = 0; b <= last; b++) {
            h = block_step(&pv[b], &mv[b], eqc[b << sym_shift], h, b + 1 < W ? hbit_full : hbit_last);
            score[b] += h;
        }
        /* score[last] - h is the last row of block `last` in column j-1. */
        if (last + 1 < W && score[last] - h <= kk) {
            size_t b = last + 1;
            pv[b] = ~(uint64_t)0;
            mv[b] = 0;
            score[b] = score[last] - h + block_rows(m, W, b);
            h = block_step(&pv[b], &mv[b], eqc[b << sym_shift], h, b + 1 < W ? hbit_full : hbit_last);
            score[b] += h;
            last = b;
        }
        while (last > 0 && score[last] >= kk + block_rows(m, W, last)) last--;
        if (last == W - 1 && score[last] <= kk) emit(ctx, j, (int32_t)score[last]);
        j++;
    }
}

/* Search one pattern (PEq built) against one text. */
static int run_pair(const uint64_t *peq, unsigned sym_shift, col_buf *cb, uint32_t m,
                    const uint8_t *text, uint64_t n, int32_t k,
                    emit_fn emit, void *ctx)
{
    if (m == 0 || k < 0 || n == 0) return 0;
    size_t W = n_words_of(m);
    if (W == 1) {
        run_one_word(peq, (1u << sym_shift) - 1, m, text, n, k, emit, ctx);
        return 0;
    }
    if (W >= GPUASM_MYERS_BANDS_MIN_WORDS)
        return gpuasm_myers_run_bands(peq, sym_shift, m, text, n, k, emit, ctx, cb);
    if (grow_col(cb, W) < 0) return -1;
    run_blocks(peq, sym_shift, m, W, cb, text, n, k, emit, ctx);
    return 0;
}

int gpuasm_myers_run_nt16(const uint64_t *peq, uint32_t m, const uint8_t *text, uint64_t n,
                          int32_t k, gpuasm_emit_fn emit, void *ctx, gpuasm_myers_cols *cols)
{
    cols->end_ok = 0;
    return run_pair(peq, 4, cols, m, text, n, k, emit, ctx);
}

void gpuasm_myers_cols_free(gpuasm_myers_cols *cols) { free_col(cols); }

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
        rc = run_pair(pb.peq, 4, &cb, m, text, n, k, emit, ctx);
    free_peq(&pb);
    free_col(&cb);
    return rc;
}

/* ---- the twin (twin.h) ------------------------------------------------- */

/* Targets whose PEq the twin keeps at most, in words (32 MiB): beyond it a
 * target's PEq is rebuilt in a scratch slot each time. */
#define TARGET_CACHE_WORDS ((size_t)4 << 20)

/* PEq caches: the read as pattern alternates strands from target to target,
 * so each strand of the current read keeps its own; targets as patterns
 * (adapters against every read) keep theirs for the whole scan, indexed by
 * target, up to TARGET_CACHE_WORDS. */
typedef struct myers_ws {
    int alphabet;
    peq_buf peq[3];         /* [0], [1]: read strand 0 / 1; [2]: scratch for a target */
    uint64_t key[3];        /* pattern_key held, UINT64_MAX: none */
    peq_buf *tgt;           /* [n_tgt] per-target PEq (cap 0: not built yet) */
    size_t n_tgt, tgt_words;
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

/* The PEq of a target pattern: from the per-target cache when it has room
 * (built on first use), else rebuilt in scratch slot 2.  NULL: no memory. */
static const uint64_t *target_peq(myers_ws *w, const gpuasm_twin_pair *p)
{
    const uint64_t t = p->pattern_key >> 2;
    const size_t words = n_words_of(p->m) * n_symbols(w->alphabet);
    if (t < ((uint64_t)1 << 32) && w->tgt_words + words <= TARGET_CACHE_WORDS) {
        if (t >= w->n_tgt) {
            size_t n = w->n_tgt ? w->n_tgt : 64;
            while (n <= t) n *= 2;
            peq_buf *q = realloc(w->tgt, n * sizeof *q);
            if (!q) return NULL;
            memset(q + w->n_tgt, 0, (n - w->n_tgt) * sizeof *q);
            w->tgt = q;
            w->n_tgt = n;
        }
        peq_buf *b = &w->tgt[t];
        if (!b->cap) {
            if (build_peq(b, p->pattern, p->m, w->alphabet) < 0) return NULL;
            w->tgt_words += b->cap;
        }
        return b->peq;
    }
    if (w->key[2] != p->pattern_key) {
        w->key[2] = UINT64_MAX;
        if (build_peq(&w->peq[2], p->pattern, p->m, w->alphabet) < 0) return NULL;
        w->key[2] = p->pattern_key;
    }
    return w->peq[2].peq;
}

static int myers_pair(void *ws, const gpuasm_twin_pair *p, gpuasm_emit_fn emit, void *ctx)
{
    myers_ws *w = ws;
    const uint64_t *peq;
    if (p->pattern_key & 1) {
        const int slot = (int)((p->pattern_key >> 1) & 1);
        if (w->key[slot] != p->pattern_key) {
            w->key[slot] = UINT64_MAX;
            if (build_peq(&w->peq[slot], p->pattern, p->m, w->alphabet) < 0) return -1;
            w->key[slot] = p->pattern_key;
        }
        peq = w->peq[slot].peq;
    } else if (!(peq = target_peq(w, p))) {
        return -1;
    }
    return run_pair(peq, sym_shift_of(w->alphabet), &w->col, p->m, p->text, p->n, p->k, emit, ctx);
}

static void myers_close(void *ws)
{
    myers_ws *w = ws;
    if (!w) return;
    for (int i = 0; i < 3; i++) free_peq(&w->peq[i]);
    for (size_t t = 0; t < w->n_tgt; t++) free_peq(&w->tgt[t]);
    free(w->tgt);
    free_col(&w->col);
    free(w);
}

const gpuasm_twin gpuasm_twin_myers = { "myers", myers_open, myers_pair, myers_close };
