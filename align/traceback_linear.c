/* SPDX-License-Identifier: MIT */
/* traceback_linear.c -- the linear-memory traceback of long patterns
 * (traceback.h's "linear"), and gpuasm_hit_starts().  The tie rule is
 * traceback.c's; this method walks the same path.
 *
 * 1. Every alignment of cost d ending at
 * (m, end+1) starts at x0 = end+1 - m - d or later and stays within
 * diagonals e - d .. e + d (e = end+1 - m, the end's diagonal; diagonal =
 * x - i), so F is computed from column x0, in that band, with Myers'
 * bit-vectors: blocks of 64 pattern rows, one word step per block and
 * text column (Hyyro 2001; edlib's calculateBlock).  2. A cell is of use
 * (can be optimal) only when F(i, x) + max(|x - i - e|, seeds) <= d: the
 * gaps back to e, and the pattern's 16-base seeds ahead that the text
 * lacks (tb_seeds.h, A*PA's seed heuristic), are lower bounds of what the
 * alignment still costs.  (Before, a reverse search found the starts and
 * the band came from them.  A real 1 Mb pair at 1.2%, one thread of the
 * development VM: 1.82 s before, 0.98 s with the gaps' bound, 0.37 s
 * with the seeds': 106 -> 52 -> 38 blocks a column.)  Blocks whose cells
 * are all of no use leave (tb_band.c's block_least), from the bottom, or
 * from the top when every row above is gone; the band moves down one row
 * per column.  The row above the top block then counts +1 per column, an
 * over-estimate, as edlib's NW mode does, and a block below enters
 * (tb_band.c's may_enter) with the over-estimate "one more per row"
 * (Myers' column 0).  Over-estimates never reach an optimal cell, whose
 * optimal path keeps to cells of use, so the rule above holds.  3. The
 * walk needs F near its cells only: F(i-1, x) = F(i, x) - Pv/Mv bit of row
 * i, F(i, x-1) = F(i, x) - Ph/Mh bit of row i (the horizontal deltas
 * before the shift), so a column kept as four words per block answers
 * every test of a step.  4. Keeping every column is m * d / 16 bytes (5 GB
 * for 1 Mb at 1%), so columns are kept for one "leaf" range at a time:
 * the forward pass stores checkpoints (the running column) at K cuts, then
 * the ranges are redone right to left, each from its checkpoint, and the
 * walk goes through them (Hirschberg's linear space, with checkpoints
 * instead of a middle row: each level costs one more forward pass, and
 * ranges too long for the budget, by the widest column the pass above
 * measured in them, are cut again).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/thread_pool.h>

#include "util/grow.h"
#include "search/nt16.h"
#include "align/traceback.h"
#include "align/traceback_int.h"
#include "align/tb_seeds.h"
#include "align/tb_band.h"

/* ---- linear memory: Myers' bit-vectors in a band, divide and conquer ---- */

#define WB GPUASM_TB_WB
typedef gpuasm_tb_band band;
#define DEFAULT_MEM_BYTES ((size_t)16 << 20)
/* gpuasm_tb_work.n_threads is used from this many blocks x columns of the
 * band on (a 10 kb read at 20% has ~0.7 M: one thread) */
#define THREADS_MIN_CELLS ((uint64_t)1 << 25)
/* the seeds' bound (tb_seeds.h) from this many on */
#define SEEDS_MIN_CELLS ((uint64_t)1 << 20)

/* One kept column of a leaf range: blocks fb..lb, their words at off. */
typedef struct leafcol {
    int64_t fb, lb;
    size_t off;
} leafcol;

/* Buffers of the linear method, grown and reused from hit to hit. */
struct gpuasm_tb_lin {
    uint64_t *peq;  size_t m_peq;                 /* [16 * W]: symbol-major Peq */
    uint64_t *pv, *mv; int64_t *sc; size_t m_run; /* the running column, by block */
    uint64_t *ck;   size_t n_ck, m_ck;            /* checkpoint stack, words */
    size_t *cko;    size_t n_cko, m_cko;          /* offsets of checkpoints in ck */
    uint64_t *leaf; size_t m_leaf;                /* kept columns: pv, mv, ph, mh per block */
    leafcol *lc;    size_t m_lc;
    int64_t *wmx;   size_t m_wmx;                 /* blocks a column at most, by range */
    uint32_t *hs;   size_t m_hs;                  /* gpuasm_tb_seeds()'s counts */
    struct tb_range *rng; size_t m_rng;           /* threads: the ranges of the top pass */
    struct tb_leaf *lv; size_t n_lv;              /* threads: one leaf each */
    hts_tpool *pool; int pool_n;                  /* threads: the others (pool_n of them) */
    hts_tpool_process *q;
};

static struct gpuasm_tb_lin *lin_of(gpuasm_tb_work *w)
{
    if (!w->lin) w->lin = calloc(1, sizeof *w->lin);
    return w->lin;
}

/* A running column of W blocks (Pv, Mv, sc), grown; *m_run: its blocks.
 * 0, or -1 out of memory. */
static int run_grow(uint64_t **pv, uint64_t **mv, int64_t **sc, size_t *m_run, size_t W)
{
    if (W <= *m_run) return 0;
    uint64_t *p = realloc(*pv, W * sizeof *p);
    if (!p) return -1;
    *pv = p;
    uint64_t *q = realloc(*mv, W * sizeof *q);
    if (!q) return -1;
    *mv = q;
    int64_t *c = realloc(*sc, W * sizeof *c);
    if (!c) return -1;
    *sc = c;
    *m_run = W;
    return 0;
}

/* Size the running column and Peq for a pattern of m bases. */
static int band_alloc(struct gpuasm_tb_lin *L, band *bd, uint32_t m)
{
    bd->m = m;
    bd->W = ((int64_t)m + WB - 1) / WB;
    size_t W = (size_t)bd->W;
    if (gpuasm_grow((void **)&L->peq, &L->m_peq, 16 * W, sizeof(uint64_t)) < 0 ||
        run_grow(&L->pv, &L->mv, &L->sc, &L->m_run, W) < 0)
        return -1;
    bd->peq = L->peq;
    bd->pv = L->pv;
    bd->mv = L->mv;
    bd->sc = L->sc;
    return 0;
}

int gpuasm_hit_starts(const uint8_t *pattern, uint32_t m,
                      const uint8_t *text, uint64_t n,
                      uint64_t end, int32_t dist,
                      gpuasm_tb_work *w, uint64_t *s_lo, uint64_t *s_hi)
{
    if (m == 0 || dist < 0 || end >= n) return -2;
    struct gpuasm_tb_lin *L = lin_of(w);
    band bd = { 0 };
    if (!L || band_alloc(L, &bd, m) < 0) return -1;
    const int64_t d = dist, e1 = (int64_t)end + 1;
    gpuasm_tb_peq(L->peq, pattern, m, bd.W, 1);
    /* Reverse pass: column y reads text[end + 1 - y]; D(i, y) aligns the
     * last i pattern bases with the last y window bases, anchored at the
     * end (row 0 is y: hin0 = 1).  Costs <= d stay within d diagonals. */
    bd.dlo = -d;
    bd.dhi = d;
    bd.hin0 = 1;
    bd.k = d;
    bd.row0_over_k = (uint64_t)d;
    bd.text = text;
    bd.t0 = e1;
    bd.tstep = -1;
    const int64_t Y = e1 < (int64_t)m + d ? e1 : (int64_t)m + d;
    int64_t ylo = -1, yhi = -1;
    gpuasm_tb_band_init(&bd, 0);
    if ((int64_t)m <= d) {   /* the empty window (only when dist >= m) */
        if ((int64_t)m < d) return -2;
        ylo = yhi = 0;
    }
    for (int64_t y = 1; y <= Y; y++) {
        gpuasm_tb_band_step(&bd, NULL);
        if (y < (int64_t)m - d) continue;
        /* D(m, y) = ED(pattern, text[e1-y .. end]); past k when not computed */
        int64_t v = bd.slb == bd.W - 1 ? bd.sc[bd.W - 1] : d + 1;
        if (v < d) return -2;         /* a better alignment ends here: not the hit's d */
        if (v == d) {
            if (ylo < 0) ylo = y;
            yhi = y;
        }
    }
    if (ylo < 0) return -2;
    *s_lo = (uint64_t)(e1 - yhi);
    *s_hi = (uint64_t)(e1 - ylo);
    return 0;
}

/* The walk: cell (i, x) with F = cur; ops last column first. */
typedef struct walk {
    int64_t i;
    uint64_t x;
    int64_t cur;
    uint8_t *op;
    size_t n_op, cap;
    int32_t ndiff;
} walk;

typedef struct lin_run {
    band bd;
    struct gpuasm_tb_lin *L;
    const uint8_t *pattern, *text;
    uint64_t x1;            /* end + 1: the hit's column */
    int32_t d;
    int64_t wpc;            /* at most this many blocks in a column (the band) */
    size_t mem;             /* the budget, bytes (gpuasm_tb_work.mem_bytes) */
    walk w;
} lin_run;

/* Push the running column as a checkpoint; its offset in *off. */
static int ck_push(lin_run *r, size_t *off)
{
    struct gpuasm_tb_lin *L = r->L;
    const band *bd = &r->bd;
    size_t nb = (size_t)(bd->lb - bd->fb + 1);
    if (gpuasm_grow((void **)&L->ck, &L->m_ck, L->n_ck + 3 + 3 * nb, sizeof(uint64_t)) < 0) return -1;
    uint64_t *c = L->ck + L->n_ck;
    c[0] = bd->x;
    c[1] = (uint64_t)bd->fb;
    c[2] = (uint64_t)bd->lb;
    memcpy(c + 3, bd->pv + bd->fb, nb * sizeof(uint64_t));
    memcpy(c + 3 + nb, bd->mv + bd->fb, nb * sizeof(uint64_t));
    memcpy(c + 3 + 2 * nb, bd->sc + bd->fb, nb * sizeof(uint64_t));
    *off = L->n_ck;
    L->n_ck += 3 + 3 * nb;
    return 0;
}

static void ck_load_to(const struct gpuasm_tb_lin *L, band *bd, size_t off)
{
    const uint64_t *c = L->ck + off;
    bd->x = c[0];
    bd->fb = (int64_t)c[1];
    bd->lb = (int64_t)c[2];
    size_t nb = (size_t)(bd->lb - bd->fb + 1);
    memcpy(bd->pv + bd->fb, c + 3, nb * sizeof(uint64_t));
    memcpy(bd->mv + bd->fb, c + 3 + nb, nb * sizeof(uint64_t));
    memcpy(bd->sc + bd->fb, c + 3 + 2 * nb, nb * sizeof(uint64_t));
}

static inline int delta(const uint64_t *q, int64_t i, int which)
{
    unsigned s = (unsigned)((i - 1) & 63);
    return (int)((q[which] >> s) & 1) - (int)((q[which + 1] >> s) & 1);
}

/* Walk back through the kept columns a+1 .. a+len (lc, leaf) while the walk
 * is right of column a.  0, or -2 when a step has no consistent
 * predecessor (cannot happen for a consistent hit). */
static int leaf_walk(lin_run *r, uint64_t a, const leafcol *lc, const uint64_t *leaf)
{
    const int64_t m = r->bd.m;
    walk *w = &r->w;
    while (w->i > 0 && w->x > a) {
        const leafcol *c = &lc[w->x - a - 1];
        const int64_t i = w->i, top = c->fb * WB + 1;
        int64_t bot = (c->lb + 1) * WB;
        if (bot > m) bot = m;
        if (i < top || i > bot) return -2;
        const uint64_t *q = leaf + c->off + 4 * (size_t)((i - 1) / WB - c->fb);
        int vd = delta(q, i, 0), hd = delta(q, i, 2), hd_up;
        if (i == 1) {
            hd_up = r->bd.hin0;                 /* row 0 */
        } else if (i - 1 < top) {
            hd_up = 1;                          /* the row above a dropped block */
        } else {
            const uint64_t *q1 = leaf + c->off + 4 * (size_t)((i - 2) / WB - c->fb);
            hd_up = delta(q1, i - 1, 2);
        }
        const int64_t up = w->cur - vd, diag = up - hd_up, left = w->cur - hd;
        const int match = gpuasm_nt16_match(r->pattern[i - 1], r->text[w->x - 1]);
        uint8_t op;
        if (diag + !match == w->cur) {
            op = match ? GPUASM_OP_MATCH : GPUASM_OP_SUBST;
            w->i--;
            w->x--;
            w->cur = diag;
        } else if (up + 1 == w->cur) {
            op = GPUASM_OP_PGAP;
            w->i--;
            w->cur = up;
        } else if (left + 1 == w->cur) {
            op = GPUASM_OP_TGAP;
            w->x--;
            w->cur = left;
        } else {
            return -2;
        }
        w->ndiff += op != GPUASM_OP_MATCH;
        if (w->n_op == w->cap || w->ndiff > r->d) return -2;
        w->op[w->n_op++] = op;
    }
    return 0;
}

/* Columns 1 .. cols after bd's running column, all kept (wmax blocks a
 * column at most) in *leaf, their records in *lc.  0, or -1 out of memory. */
static int fill_leaf(band *bd, uint64_t cols, int64_t wmax, uint64_t **leaf, size_t *m_leaf,
                     leafcol **lc, size_t *m_lc)
{
    if (gpuasm_grow((void **)lc, m_lc, (size_t)cols, sizeof(leafcol)) < 0 ||
        gpuasm_grow((void **)leaf, m_leaf, (size_t)cols * (size_t)wmax * 4, sizeof(uint64_t)) < 0)
        return -1;
    size_t off = 0;
    for (uint64_t c = 0; c < cols; c++) {
        /* wmax is the widest column of the pass that measured the range;
         * one column computes at most lb - fb + 2 blocks, so the words are
         * there whatever that pass kept (band_step2 keeps a superset) */
        if (gpuasm_grow((void **)leaf, m_leaf, off + 4 * (size_t)(bd->lb - bd->fb + 2), sizeof(uint64_t)) < 0)
            return -1;
        gpuasm_tb_band_step(bd, *leaf + off);
        (*lc)[c] = (leafcol){ bd->sfb, bd->slb, off };
        off += 4 * (size_t)(bd->slb - bd->sfb + 1);
    }
    return 0;
}

/* F(m, end+1), in the running column at the hit's, must be its distance. */
static int end_ok(const lin_run *r, const band *bd)
{
    return bd->slb == bd->W - 1 && bd->sc[bd->W - 1] == r->d;
}

/* Columns a+1 .. b from the checkpoint at ck (column a), all kept, then
 * the walk through them. */
static int leaf(lin_run *r, uint64_t a, uint64_t b, size_t ck, int64_t wmax)
{
    struct gpuasm_tb_lin *L = r->L;
    ck_load_to(L, &r->bd, ck);
    if (fill_leaf(&r->bd, b - a, wmax, &L->leaf, &L->m_leaf, &L->lc, &L->m_lc) < 0) return -1;
    if (b == r->x1 && !end_ok(r, &r->bd)) return -2;
    return leaf_walk(r, a, L->lc, L->leaf);
}

/* Two columns of a pass that keeps none (one where only one is left
 * before end); the wider one's block count. */
static int64_t band_advance(band *bd, uint64_t end)
{
    if (end - bd->x >= 2) return gpuasm_tb_band_step2(bd);
    gpuasm_tb_band_step(bd, NULL);
    return bd->slb - bd->sfb + 1;
}

/* Half the budget for the kept columns of a leaf (4 words per block plus
 * the column's record), a quarter per level of checkpoints; wmax blocks a
 * column at most. */
static uint64_t leaf_cols_of(const lin_run *r, int64_t wmax)
{
    const size_t col_bytes = (size_t)wmax * 4 * sizeof(uint64_t) + sizeof(leafcol);
    const uint64_t n = r->mem / 2 / col_bytes;
    return n ? n : 1;
}

static uint64_t kmax_of(const lin_run *r, int64_t wmax)
{
    const uint64_t n = r->mem / 4 / (((size_t)wmax * 3 + 3) * sizeof(uint64_t));
    return n < 2 ? 2 : n;
}

/* The walk through columns a+1 .. b, the running column at a being the
 * checkpoint at ck and no column of the range holding more than wmax
 * blocks: one leaf, or K ranges from checkpoints taken on one forward
 * pass, right to left (each cut again when too long).  The pass goes on
 * to b and measures each range's widest column, so a range of a narrow
 * stretch of the band is kept whole as one leaf (the band's width, 2d/64
 * blocks, is what a column may hold, not what it holds). */
static int solve(lin_run *r, uint64_t a, uint64_t b, size_t ck, int64_t wmax)
{
    struct gpuasm_tb_lin *L = r->L;
    const uint64_t cols = b - a, leaf_cols = leaf_cols_of(r, wmax);
    if (cols <= leaf_cols) return leaf(r, a, b, ck, wmax);
    uint64_t K = (cols + leaf_cols - 1) / leaf_cols, kmax = kmax_of(r, wmax);
    if (K > kmax) K = kmax;
    const size_t n_ck0 = L->n_ck, n_cko0 = L->n_cko;
    if (gpuasm_grow((void **)&L->cko, &L->m_cko, n_cko0 + (size_t)K, sizeof(size_t)) < 0 ||
        gpuasm_grow((void **)&L->wmx, &L->m_wmx, n_cko0 + (size_t)K, sizeof(int64_t)) < 0)
        return -1;
    ck_load_to(r->L, &r->bd, ck);
    for (uint64_t p = 0; p < K; p++) {
        const uint64_t cut = a + cols * (p + 1) / K;
        int64_t w = 1;
        while (r->bd.x < cut) {
            const int64_t wc = band_advance(&r->bd, cut);
            if (wc > w) w = wc;
        }
        L->wmx[n_cko0 + p] = w;
        if (p + 1 < K && ck_push(r, &L->cko[n_cko0 + p]) < 0) return -1;
    }
    L->n_cko = n_cko0 + (size_t)K - 1;
    for (uint64_t p = K; p-- > 0 && r->w.i > 0;) {
        const uint64_t lo = a + cols * p / K, hi = a + cols * (p + 1) / K;
        int rc = solve(r, lo, hi, p ? L->cko[n_cko0 + p - 1] : ck, L->wmx[n_cko0 + p]);
        if (rc < 0) return rc;
    }
    L->n_ck = n_ck0;
    L->n_cko = n_cko0;
    return 0;
}

/* ---- leaf ranges on threads ---------------------------------------- */

/* A range of the threaded top pass: columns lo+1 .. hi from the
 * checkpoint at ck, at most w blocks a column. */
struct tb_range {
    uint64_t lo, hi;
    size_t ck;
    int64_t w;
};

/* One thread's leaf: its band (the run's, with a running column of its
 * own), its kept columns, and its job. */
struct tb_leaf {
    band bd;
    uint64_t *pv, *mv; int64_t *sc; size_t m_run;
    uint64_t *leaf; size_t m_leaf;
    leafcol *lc; size_t m_lc;
    const struct gpuasm_tb_lin *L;
    const struct tb_range *g;
    int rc;                 /* 0, -1 out of memory */
};

static void *leaf_job(void *arg)
{
    struct tb_leaf *v = arg;
    ck_load_to(v->L, &v->bd, v->g->ck);
    v->rc = fill_leaf(&v->bd, v->g->hi - v->g->lo, v->g->w, &v->leaf, &v->m_leaf, &v->lc, &v->m_lc);
    return v;
}

/* The pool of T threads (kept for the next hit), its queue of results in
 * the order sent, and LEAF_SLOTS(T) leaves, each with a running column of
 * W blocks and a copy of the run's band.  0; 1 when the pool cannot start
 * (the parts then run on this thread, one leaf); -1 out of memory. */
#define LEAF_SLOTS(T) (2 * (size_t)(T))
static int threads_ready(lin_run *r, int T)
{
    struct gpuasm_tb_lin *L = r->L;
    int alone = 0;
    if (L->pool_n != T) {
        if (L->q) hts_tpool_process_destroy(L->q);
        if (L->pool) hts_tpool_destroy(L->pool);
        L->q = NULL;
        L->pool = NULL;
        L->pool_n = 0;
        if ((L->pool = hts_tpool_init(T)) && (L->q = hts_tpool_process_init(L->pool, 2 * (int)LEAF_SLOTS(T), 0)))
            L->pool_n = T;
        else
            alone = 1;
    }
    const size_t S = alone ? 1 : LEAF_SLOTS(T);
    if (S > L->n_lv) {
        struct tb_leaf *v = realloc(L->lv, S * sizeof *v);
        if (!v) return -1;
        memset(v + L->n_lv, 0, (S - L->n_lv) * sizeof *v);
        L->lv = v;
        L->n_lv = S;
    }
    const size_t W = (size_t)r->bd.W;
    for (size_t j = 0; j < S; j++) {
        struct tb_leaf *v = &L->lv[j];
        if (run_grow(&v->pv, &v->mv, &v->sc, &v->m_run, W) < 0) return -1;
        v->bd = r->bd;
        v->bd.pv = v->pv;
        v->bd.mv = v->mv;
        v->bd.sc = v->sc;
        v->L = L;
    }
    return alone;
}

/* Does range g keep all its columns within a thread's share? */
static int range_fits(const struct tb_range *g, size_t budget)
{
    return (g->hi - g->lo) * ((size_t)g->w * 4 * sizeof(uint64_t) + sizeof(leafcol)) <= budget;
}

/* Take the results of the n jobs still sent (an early end or an error:
 * their leaves are not walked). */
static void drain(struct gpuasm_tb_lin *L, size_t n)
{
    for (; n > 0; n--) {
        hts_tpool_result *res = hts_tpool_next_result_wait(L->q);
        if (!res) return;
        hts_tpool_delete_result(res, 0);
    }
}

/* The walk through columns a+1 .. b on T threads.  One pass cuts the range
 * where the next column could take the part since the last cut past a
 * leaf's share of the budget (mem / 32; a column gains at most one block, so
 * every part fits), with checkpoints within mem / 2; then the parts, right
 * to left, are kept on the pool, up to 2 T sent ahead of the walk, and
 * walked on this thread as their results come, in the order sent.  Before,
 * T parts at a time were kept and then walked, the pool waited for at each
 * round: a part is ~0.1 ms of work, and the rounds' waits took much of
 * the threads' gain (1 Mb pair on 16 threads: 0.28 -> 0.23 s of report;
 * NOTES.md, 2026-12-07).  A
 * part longer than its share (the checkpoints ran out) is solve()'s, on
 * this thread, sent nothing past it until it is walked (solve() pushes
 * checkpoints that the jobs read).  The same F, hence the same walk, as
 * solve(). */
static int solve_threads(lin_run *r, uint64_t a, uint64_t b, size_t ck, int T)
{
    struct gpuasm_tb_lin *L = r->L;
    const size_t leaf_budget = r->mem / 32, ck_budget = r->mem / 2;
    const size_t col0 = sizeof(leafcol);
    size_t n = 0, ck_bytes = 0, ck_lo = ck;
    uint64_t lo = a;
    int64_t mw = 1;
    ck_load_to(L, &r->bd, ck);
    while (r->bd.x < b) {
        const int64_t w = band_advance(&r->bd, b);
        if (w > mw) mw = w;
        const uint64_t x = r->bd.x;
        const size_t ck_next = ((size_t)(r->bd.lb - r->bd.fb + 1) * 3 + 3) * sizeof(uint64_t);
        /* cut where the next two columns (a column gains at most one
         * block) could take the part past its share */
        if (x < b && (x - lo + 2) * ((size_t)(mw + 2) * 4 * sizeof(uint64_t) + col0) > leaf_budget &&
            ck_bytes + ck_next <= ck_budget) {
            if (gpuasm_grow((void **)&L->rng, &L->m_rng, n + 1, sizeof *L->rng) < 0) return -1;
            L->rng[n++] = (struct tb_range){ lo, x, ck_lo, mw };
            if (ck_push(r, &ck_lo) < 0) return -1;
            ck_bytes += ck_next;
            lo = x;
            mw = 1;
        }
    }
    if (gpuasm_grow((void **)&L->rng, &L->m_rng, n + 1, sizeof *L->rng) < 0) return -1;
    L->rng[n++] = (struct tb_range){ lo, b, ck_lo, mw };
    const int ready = threads_ready(r, T);
    if (ready < 0) return -1;
    /* Part k of the walk is rng[n - 1 - k]; kd parts sent (or left to
     * solve()), kw walked, `out` sent and not yet taken. */
    const size_t S = ready ? 1 : LEAF_SLOTS(T);
    size_t kd = 0, kw = 0, out = 0;
    int rc = 0;
    while (kw < n && r->w.i > 0) {
        while (!ready && kd < n && kd - kw < S) {
            struct tb_range *g = &L->rng[n - 1 - kd];
            if (!range_fits(g, leaf_budget)) break;   /* solve()'s, once the walk is there */
            struct tb_leaf *v = &L->lv[kd % S];
            v->g = g;
            if (hts_tpool_dispatch(L->pool, L->q, leaf_job, v) < 0) {
                drain(L, out);
                return -1;
            }
            out++;
            kd++;
        }
        const struct tb_range *g = &L->rng[n - 1 - kw];
        if (!range_fits(g, leaf_budget)) {   /* nothing sent is left (the loop above) */
            if ((rc = solve(r, g->lo, g->hi, g->ck, g->w)) < 0) return rc;
            kd = ++kw;
            continue;
        }
        struct tb_leaf *v;
        if (ready) {   /* no pool: this thread, one part at a time */
            v = &L->lv[0];
            v->g = g;
            leaf_job(v);
        } else {
            hts_tpool_result *res = hts_tpool_next_result_wait(L->q);
            if (!res) {
                drain(L, out - 1);
                return -1;
            }
            v = hts_tpool_result_data(res);
            hts_tpool_delete_result(res, 0);
            out--;
        }
        kw++;
        if (v->rc < 0) rc = v->rc;
        else if (v->g != g) rc = -2;   /* results come in the order sent */
        else if (v->g->hi == r->x1 && !end_ok(r, &v->bd)) rc = -2;
        else rc = leaf_walk(r, v->g->lo, v->lc, v->leaf);
        if (rc < 0) {
            drain(L, out);
            return rc;
        }
    }
    drain(L, out);   /* the walk reached row 0 before the parts' end */
    return 0;
}

int gpuasm_tb_linear(const uint8_t *pattern, uint32_t m, const uint8_t *text, uint64_t n,
                            uint64_t end, int32_t dist, gpuasm_tb_work *w, gpuasm_aln *out)
{
    (void)n;
    lin_run r;
    memset(&r, 0, sizeof r);
    r.L = lin_of(w);
    if (!r.L || band_alloc(r.L, &r.bd, m) < 0) return -1;
    gpuasm_tb_peq(r.L->peq, pattern, m, r.bd.W, 0);
    /* Every alignment of cost d ending at the hit starts at x0 or later
     * and keeps to diagonals e - d .. e + d; a cell is of use only when F
     * plus the gaps back to e is at most d (to_end). */
    const int64_t d = dist, e = (int64_t)end + 1 - (int64_t)m;   /* the hit's diagonal */
    const uint64_t x0 = e - d > 0 ? (uint64_t)(e - d) : 0;
    r.bd.dlo = e - d;
    r.bd.dhi = e + d;
    r.bd.hin0 = 0;
    r.bd.k = d;
    r.bd.to_end = 1;
    r.bd.ediag = e;
    /* row 0 (F = 0, the free start) is of use while |x - e| <= d */
    r.bd.row0_over_k = e + d + 1 > 0 ? (uint64_t)(e + d + 1) : 0;
    r.bd.text = text;
    r.bd.t0 = -1;
    r.bd.tstep = 1;
    r.pattern = pattern;
    r.text = text;
    r.x1 = end + 1;
    r.d = dist;
    r.wpc = (r.bd.dhi - r.bd.dlo) / WB + 3;
    if (r.wpc > r.bd.W) r.wpc = r.bd.W;
    r.mem = w->mem_bytes ? w->mem_bytes : DEFAULT_MEM_BYTES;
    /* The seeds' bound where the band is worth it: its sort costs ~40 ns a
     * text base, a block step ~4 ns. */
    const uint64_t smin = w->seeds_min_cells ? w->seeds_min_cells : SEEDS_MIN_CELLS;
    if ((end + 1 - x0) * (uint64_t)r.wpc >= smin) {
        const int rs = gpuasm_tb_seeds(pattern, m, text, x0, end + 1, d, &r.L->hs, &r.L->m_hs);
        if (rs < 0) return -1;
        if (rs == 0) {
            r.bd.hs = r.L->hs;
            r.bd.n_hs = m / GPUASM_TB_SEED_LEN;
        }
    }

    if (gpuasm_aln_grow(out, (size_t)m + (size_t)dist + 1) < 0) return -1;
    r.w = (walk){ .i = m, .x = end + 1, .cur = dist, .op = out->op, .cap = out->m_op };
    r.L->n_ck = r.L->n_cko = 0;
    gpuasm_tb_band_init(&r.bd, x0);
    size_t ck0;
    if (ck_push(&r, &ck0) < 0) return -1;
    /* Threads for a long run only: a part is ~0.1 ms of work at the
     * least, the pool's start ~T x 20 us. */
    const int T = w->n_threads > 64 ? 64 : w->n_threads;
    const uint64_t tmin = w->threads_min_cells ? w->threads_min_cells : THREADS_MIN_CELLS;
    const int threaded = T > 1 && (end + 1 - x0) * (uint64_t)r.wpc >= tmin;
    int rc = threaded ? solve_threads(&r, x0, end + 1, ck0, T) : solve(&r, x0, end + 1, ck0, r.wpc);
    if (rc < 0) return rc;
    /* Column x0 is F(i, x0) = i: only pattern gaps are left. */
    if (r.w.i > 0 && (r.w.x != x0 || r.w.cur != r.w.i)) return -2;
    for (; r.w.i > 0; r.w.i--) {
        if (r.w.n_op == r.w.cap) return -2;
        r.w.op[r.w.n_op++] = GPUASM_OP_PGAP;
        r.w.ndiff++;
    }
    if (r.w.ndiff != dist) return -2;
    gpuasm_ops_reverse(out->op, r.w.n_op);
    out->n_op = r.w.n_op;
    out->tstart = r.w.x;
    out->tend = end;
    out->dist = dist;
    return 0;
}

void gpuasm_tb_lin_free(struct gpuasm_tb_lin *L)
{
    if (!L) return;
    free(L->peq);
    free(L->pv);
    free(L->mv);
    free(L->sc);
    free(L->ck);
    free(L->cko);
    free(L->leaf);
    free(L->lc);
    free(L->wmx);
    free(L->rng);
    free(L->hs);
    if (L->q) hts_tpool_process_destroy(L->q);
    if (L->pool) hts_tpool_destroy(L->pool);
    for (size_t j = 0; j < L->n_lv; j++) {
        free(L->lv[j].pv);
        free(L->lv[j].mv);
        free(L->lv[j].sc);
        free(L->lv[j].leaf);
        free(L->lv[j].lc);
    }
    free(L->lv);
    free(L);
}
