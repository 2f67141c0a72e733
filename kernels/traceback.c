/* traceback.c -- end hit -> alignment (traceback.h).
 *
 * Banded DP (Ukkonen 1985, "Algorithms for approximate string matching"):
 * an alignment of the whole pattern that ends on text diagonal e with d
 * differences has at most d gap columns, and every gap moves the path one
 * diagonal, so the whole path lies within diagonals e-d .. e+d.  The DP is
 * run forward over that band of 2d+1 diagonals, with one 2-bit direction
 * per cell kept for the walk back.
 *
 * Coordinates: cell (i, x) = pattern[0..i) aligned to text[s..x) (x counts
 * text bases, 0..end+1); its diagonal is x - i.  The hit's cell is
 * (m, end+1) on diagonal e = end+1-m.  Band index b = x - i - (e - d), so the
 * end cell has b = d.  Moves into (i, x):
 *   diagonal (i-1, x-1) same b      MATCH (cost 0) or SUBST (cost 1)
 *   up       (i-1, x)   b+1         PGAP: pattern base vs nothing (cost 1)
 *   left     (i, x-1)   b-1         TGAP: text base vs nothing (cost 1)
 * Row 0 costs 0 anywhere (free start) and starts the path at s = x.
 *
 * Ties.  Each cell records its first optimal predecessor in the order
 * diagonal, up, left, and the walk back from (m, end+1) follows the
 * records.  So, walking back from the end, every column is MATCH/SUBST when
 * that can still complete an alignment with `dist` differences, else PGAP,
 * else TGAP: a mismatch is preferred to a pair of gaps or to a gap at the
 * start (a leading N is "1X", not "1I"), and the start is wherever that
 * greedy walk reaches row 0.  Every optimal path lies inside the band, so
 * the banded records agree with an unbanded DP on every cell of the walk.
 *
 * Cells costing more than `dist` cannot be on an optimal path and are kept
 * as "infinite", which bounds the numbers and prunes nothing that matters.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nt16.h"
#include "traceback.h"

enum { DIR_DIAG = 0, DIR_UP = 1, DIR_LEFT = 2 };

#define INF INT32_MAX

/* Work layout: bits has m * (2d+1) 2-bit directions, row i (1..m) first
 * (m_bits in bytes); col has two band rows of int32 costs (m_col in
 * int32s): the previous and the current pattern row. */
static int tb_grow(gpuasm_tb_work *w, size_t n_bits_bytes, size_t n_col)
{
    if (n_bits_bytes > w->m_bits) {
        uint8_t *p = realloc(w->bits, n_bits_bytes);
        if (!p) return -1;
        w->bits = p;
        w->m_bits = n_bits_bytes;
    }
    if (n_col > w->m_col) {
        int32_t *p = realloc(w->col, n_col * sizeof(int32_t));
        if (!p) return -1;
        w->col = p;
        w->m_col = n_col;
    }
    return 0;
}

static int aln_grow(gpuasm_aln *a, size_t n)
{
    if (n <= a->m_op) return 0;
    uint8_t *p = realloc(a->op, n);
    if (!p) return -1;
    a->op = p;
    a->m_op = n;
    return 0;
}

int gpuasm_traceback(const uint8_t *pattern, uint32_t m,
                     const uint8_t *text, uint64_t n,
                     uint64_t end, int32_t dist,
                     gpuasm_tb_work *w, gpuasm_aln *out)
{
    if (m == 0 || dist < 0 || end >= n) return -2;

    const int64_t d = dist;
    const size_t bw = (size_t)(2 * d + 1);           /* band width */
    if ((uint64_t)m > SIZE_MAX / 4 / bw) return -1;
    const size_t n_cells = (size_t)m * bw;
    const size_t n_bytes = n_cells / 4 + 1;
    if (bw > SIZE_MAX / sizeof(int32_t) / 2) return -1;
    if (tb_grow(w, n_bytes, 2 * bw) < 0) return -1;
    memset(w->bits, 0, n_bytes);

    int32_t *cost_prev = w->col, *cost_cur = w->col + bw;
    /* x of band cell (i, b) is i + base + b. */
    const int64_t base = (int64_t)end + 1 - (int64_t)m - d;
    const int64_t xmax = (int64_t)end + 1;

    for (size_t b = 0; b < bw; b++) {        /* row 0: free start at x */
        int64_t x = base + (int64_t)b;
        int ok = x >= 0 && x <= xmax;
        cost_prev[b] = ok ? 0 : INF;
    }

    for (uint32_t i = 1; i <= m; i++) {
        const uint8_t pc = pattern[i - 1];
        size_t rowcell = (size_t)(i - 1) * bw;
        for (size_t b = 0; b < bw; b++) {
            int64_t x = (int64_t)i + base + (int64_t)b;
            int32_t bc = INF;
            unsigned dir = DIR_DIAG;
            if (x >= 0 && x <= xmax) {
                /* Candidates in order of preference; a later one wins only
                 * when strictly cheaper. */
                if (x >= 1 && cost_prev[b] != INF) {
                    bc = cost_prev[b] + (gpuasm_nt16_match(pc, text[x - 1]) ? 0 : 1);
                    dir = DIR_DIAG;
                }
                if (b + 1 < bw && cost_prev[b + 1] != INF && cost_prev[b + 1] + 1 < bc) {
                    bc = cost_prev[b + 1] + 1;
                    dir = DIR_UP;
                }
                if (b >= 1 && cost_cur[b - 1] != INF && cost_cur[b - 1] + 1 < bc) {
                    bc = cost_cur[b - 1] + 1;
                    dir = DIR_LEFT;
                }
                if (bc > dist) bc = INF;
            }
            cost_cur[b] = bc;
            size_t cell = rowcell + b;
            w->bits[cell >> 2] |= (uint8_t)(dir << ((cell & 3) * 2));
        }
        int32_t *t = cost_prev;
        cost_prev = cost_cur;
        cost_cur = t;
    }

    /* The end cell (m, end+1) has b = d. */
    if (cost_prev[d] != dist) return -2;

    /* Walk back; ops come out last column first. */
    if (aln_grow(out, (size_t)m + (size_t)d + 1) < 0) return -1;
    size_t k = 0;
    uint32_t i = m;
    size_t b = (size_t)d;
    int32_t ndiff = 0;
    while (i > 0) {
        size_t cell = (size_t)(i - 1) * bw + b;
        unsigned dir = (w->bits[cell >> 2] >> ((cell & 3) * 2)) & 3;
        int64_t x = (int64_t)i + base + (int64_t)b;
        uint8_t op;
        if (dir == DIR_DIAG) {
            op = gpuasm_nt16_match(pattern[i - 1], text[x - 1]) ? GPUASM_OP_MATCH : GPUASM_OP_SUBST;
            i--;
        } else if (dir == DIR_UP) {
            op = GPUASM_OP_PGAP;
            i--;
            b++;
        } else {
            op = GPUASM_OP_TGAP;
            b--;
        }
        if (op != GPUASM_OP_MATCH) ndiff++;
        /* Cannot happen for a path of cost dist; guards the buffer. */
        if (k == out->m_op || ndiff > dist) return -2;
        out->op[k++] = op;
    }
    const int64_t tstart = base + (int64_t)b;   /* row 0 reached at x = tstart */
    /* Reverse into first-column-first order. */
    for (size_t a = 0, z = k; a + 1 < z; a++, z--) {
        uint8_t t = out->op[a];
        out->op[a] = out->op[z - 1];
        out->op[z - 1] = t;
    }
    out->n_op = k;
    out->tstart = (uint64_t)tstart;
    out->tend = end;
    out->dist = ndiff;
    return ndiff == dist ? 0 : -2;
}

void gpuasm_tb_work_free(gpuasm_tb_work *w)
{
    free(w->bits);
    free(w->col);
    w->bits = NULL;
    w->col = NULL;
    w->m_bits = w->m_col = 0;
}

void gpuasm_aln_free(gpuasm_aln *a)
{
    free(a->op);
    a->op = NULL;
    a->n_op = a->m_op = 0;
}

int gpuasm_hamming_alignment(const uint8_t *pattern, uint32_t m,
                             const uint8_t *text, uint64_t n,
                             uint64_t end, int32_t dist, gpuasm_aln *out)
{
    if (m == 0 || end >= n || end + 1 < m) return -2;
    if (aln_grow(out, m) < 0) return -1;
    const uint64_t start = end + 1 - m;
    int32_t d = 0;
    for (uint32_t i = 0; i < m; i++) {
        const int match = gpuasm_nt16_match(pattern[i], text[start + i]);
        out->op[i] = match ? GPUASM_OP_MATCH : GPUASM_OP_SUBST;
        d += !match;
    }
    if (d != dist) return -2;
    out->n_op = m;
    out->tstart = start;
    out->tend = end;
    out->dist = d;
    return 0;
}
