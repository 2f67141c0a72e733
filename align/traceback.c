/* SPDX-License-Identifier: MIT */
/* traceback.c -- end hit -> alignment (traceback.h).
 *
 * The tie rule.  Cell (i, x) = pattern[0..i) aligned to text[s..x) (x
 * counts text bases, 0..end+1) and F(i, x) its cost with a free start s
 * (row 0 costs 0 everywhere).  The hit's cell is (m, end+1).  Walking back
 * from it, each step goes to the first predecessor, in the order
 *   diagonal (i-1, x-1)   MATCH (cost 0) or SUBST (cost 1)
 *   up       (i-1, x)     PGAP: pattern base vs nothing (cost 1)
 *   left     (i, x-1)     TGAP: text base vs nothing (cost 1)
 * whose F plus the step's cost is F of the current cell; the start is
 * where that greedy walk reaches row 0.  So a mismatch is preferred to a
 * pair of gaps or to a gap at the start (a leading N is "1X", not "1I").
 * The walk only visits "optimal" cells (on some alignment of cost dist
 * ending at the hit), and a predecessor passes the test only when it is
 * optimal too, so any method that gets F exactly on optimal cells, and
 * never below the true F elsewhere, walks the same path.  The start is
 * not an extreme of the possible starts ("AT" in "AGT" ending at T: starts
 * 0, 1 and 2 all cost 1; the walk takes XM from 1), which is why the
 * linear method still walks F forward instead of aligning from a start
 * found first.
 *
 * Banded (short patterns).  Ukkonen 1985: an alignment of the whole
 * pattern that ends on diagonal e = end+1-m (diagonal = x - i) with d
 * differences has at most d gap columns, and every gap moves the path one
 * diagonal, so the whole path lies within diagonals e-d .. e+d.  The DP
 * runs forward over that band with one 2-bit direction per cell (the first
 * optimal predecessor in the order above) and walks the records back.
 * Cells costing more than `dist` cannot be on an optimal path and are kept
 * as "infinite", which bounds the numbers and prunes nothing that matters.
 *
 * Linear (long patterns): traceback_linear.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "search/nt16.h"
#include "align/traceback.h"
#include "align/traceback_int.h"

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

static int traceback_banded(const uint8_t *pattern, uint32_t m, const uint8_t *text,
                            uint64_t end, int32_t dist, gpuasm_tb_work *w, gpuasm_aln *out)
{
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
    if (gpuasm_aln_grow(out, (size_t)m + (size_t)d + 1) < 0) return -1;
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
    gpuasm_ops_reverse(out->op, k);
    out->n_op = k;
    out->tstart = (uint64_t)tstart;
    out->tend = end;
    out->dist = ndiff;
    return ndiff == dist ? 0 : -2;
}

/* AUTO picks the banded method while the band is at most BANDED_MAX_WIDTH
 * diagonals (and its bits at most BANDED_MAX_CELLS / 4 bytes): it costs
 * ~2 ns per cell, the linear one ~35-45 ns per pattern base while the band
 * fits a word or two, so they cross near 2d+1 = 15-17 whatever m
 * (tests/bench/bench_traceback on the 2-core dev machine: m = 150: d 7
 * banded 4.7 us, linear 5.3; d 9 6.0, 5.4.  m = 10,000: d 7 464, 428 us;
 * d 12 770, 435 us.  m = 100,000: d 20 17.3 ms, 5.1 ms). */
#define BANDED_MAX_WIDTH 15
#define BANDED_MAX_CELLS (1u << 24)

int gpuasm_traceback(const uint8_t *pattern, uint32_t m,
                     const uint8_t *text, uint64_t n,
                     uint64_t end, int32_t dist,
                     gpuasm_tb_work *w, gpuasm_aln *out)
{
    if (m == 0 || dist < 0 || end >= n) return -2;
    int method = w->method;
    if (method == GPUASM_TB_AUTO) {
        uint64_t width = 2 * (uint64_t)dist + 1;
        method = width <= BANDED_MAX_WIDTH && (uint64_t)m * width <= BANDED_MAX_CELLS
                 ? GPUASM_TB_BANDED : GPUASM_TB_LINEAR;
    }
    return method == GPUASM_TB_BANDED ? traceback_banded(pattern, m, text, end, dist, w, out)
                                      : gpuasm_tb_linear(pattern, m, text, n, end, dist, w, out);
}

void gpuasm_tb_work_free(gpuasm_tb_work *w)
{
    free(w->bits);
    free(w->col);
    gpuasm_tb_lin_free(w->lin);
    w->bits = NULL;
    w->col = NULL;
    w->lin = NULL;
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
    if (gpuasm_aln_grow(out, m) < 0) return -1;
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
