/* SPDX-License-Identifier: MIT */
/* dtw_cpu.c -- the CPU twin of the dtw kernel (signal_mode.h): seed 001 §5's
 * sequential ADSM, one column of D at a time, and the host-side start of
 * a best alignment.
 *
 * The twin keeps one column D[1..m][j-1] (m int32) and sweeps the
 * reference left to right; the cell order inside a column is top to
 * bottom, so "up" and "diagonal" are two registers.  The cost kind is a
 * compile-time constant of each specialisation (the `sweep` below is
 * inlined twice), so the inner loop is three integer ops and a load.
 */
#include <stdint.h>

#include "kernels/twin.h"      /* gpuasm_dtw_cpu_pair: its declaration from kernel_list.h */
#include "search/signal_mode.h"

static inline int32_t min32(int32_t a, int32_t b) { return a < b ? a : b; }

static inline void sweep(const int16_t *x, uint32_t m, const int16_t *y, uint64_t n,
                         int32_t cost_kind, int32_t *col, int32_t *cost, uint64_t *end,
                         void (*column)(void *ctx, uint64_t j, const int32_t *col), void *ctx)
{
    for (uint32_t i = 0; i < m; i++) col[i] = GPUASM_DTW_INF;   /* column -1 */
    int32_t best = INT32_MAX;
    uint64_t bj = 0;
    for (uint64_t j = 0; j < n; j++) {
        const int32_t yj = y[j];
        int32_t diag = 0, up = 0;   /* D[0][j-1] and D[0][j] */
        for (uint32_t i = 0; i < m; i++) {
            const int32_t left = col[i];
            const int32_t v = min32(min32(left, up), diag) + gpuasm_dtw_cost(cost_kind, x[i], yj);
            diag = left;
            col[i] = v;
            up = v;
        }
        if (up < best) {   /* strict: the smallest end wins ties */
            best = up;
            bj = j;
        }
        if (column) column(ctx, j, col);
    }
    *cost = best;
    *end = bj;
}

void gpuasm_dtw_cpu_pair(const int16_t *x, uint32_t m, const int16_t *y, uint64_t n,
                         int32_t cost_kind, int32_t *work, int32_t *cost, uint64_t *end,
                         void (*column)(void *ctx, uint64_t j, const int32_t *col), void *ctx)
{
    if (cost_kind == GPUASM_COST_SQ)
        sweep(x, m, y, n, GPUASM_COST_SQ, work, cost, end, column, ctx);
    else
        sweep(x, m, y, n, GPUASM_COST_ABS, work, cost, end, column, ctx);
}

/* E[i][j] = DTW(x_i .. x_m, y_j .. y_end) over paths that end at (m, end):
 *     E[i][j] = cost(x_i, y_j) + min(E[i+1][j+1], E[i][j+1], E[i+1][j]),
 * with E[m+1][end+1] = 0 and every other cell outside the matrix +inf.
 * Columns from `end` leftwards, each from row m up.  A path from (1, s')
 * with s' < j crosses column j, so once every cell of column j exceeds
 * `cost` no start further left can give it.
 *
 * Two exact savings (the answer is only about cells <= cost, and costs
 * are >= 0, so a path's value never falls):
 *  - values are clamped at dead = cost + 1 instead of +inf: min(v, dead)
 *    commutes with the min-plus recurrence (min(a + c, dead) =
 *    min(min(a, dead) + c, dead) for c >= 0), so every cell <= cost is
 *    exact and every other one reads dead; no saturation test, no overflow
 *    (dead + one cell cost < 2^31);
 *  - only the rows that can be live are computed: a cell is live only
 *    if one of its three predecessors is, so with the live rows of column
 *    j+1 inside [top, hi), column j's rows at or below hi are dead (their
 *    predecessors are all at or below it), and above top - 1 a cell is
 *    live only through the one below it in the same column: the climb
 *    stops at the first dead cell.  Dead rows at either edge are trimmed
 *    off [top, hi) before the next column. */
int64_t gpuasm_dtw_start(const int16_t *x, uint32_t m, const int16_t *y, uint64_t end,
                         int32_t cost_kind, int32_t cost, int32_t *work)
{
    if (cost < 0 || cost >= GPUASM_DTW_INF) return -1;
    const int32_t dead = cost + 1;
    int32_t *nxt = work, *cur = work + (size_t)m + 1;   /* row i (0-based) at index i */
    /* The column right of `end`: only E[m+1][end+1] = 0 (row m here). */
    uint32_t top = m, hi = m + 1;   /* rows outside [top, hi) of nxt are dead */
    nxt[m] = 0;
    for (uint64_t jj = end + 1; jj-- > 0;) {
        const int32_t yj = y[jj];
        const uint32_t i0 = hi < m ? hi : m;   /* rows [0, i0) of this column */
        int32_t below = dead, right_below = i0 < hi ? nxt[i0] : dead;
        uint32_t i = i0;
        /* rows with their right neighbour in [top, hi) */
        for (; i > top; i--) {
            /* The chain through `below` is an add and a min; the clamp is
             * applied to the stored value only (below stays < 2^31: dead
             * plus m cells of at most 16,352). */
            const int32_t right = nxt[i - 1];
            const int32_t c = gpuasm_dtw_cost(cost_kind, x[i - 1], yj);
            const int32_t v = min32(min32(right_below, right) + c, below + c);
            cur[i - 1] = min32(v, dead);
            below = v;
            right_below = right;
        }
        /* above: the diagonal once (row top of nxt), then the climb */
        for (; i > 0; i--) {
            const int32_t v = min32(right_below, below) + gpuasm_dtw_cost(cost_kind, x[i - 1], yj);
            if (v >= dead) break;
            cur[i - 1] = v;
            below = v;
            right_below = dead;
        }
        top = i;
        hi = i0;
        while (hi > top && cur[hi - 1] == dead) hi--;
        if (hi == top) return -1;   /* every cell of the column exceeds cost */
        if (top == 0 && cur[0] == cost) return (int64_t)jj;
        while (cur[top] == dead) top++;
        int32_t *t = nxt;
        nxt = cur;
        cur = t;
    }
    return -1;
}
