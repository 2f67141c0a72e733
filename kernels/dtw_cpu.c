/* dtw_cpu.c -- the CPU twin of the dtw kernel (signal.h): seed 001 §5's
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

#include "signal.h"

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
 * Columns from `end` leftwards, each from row m up; values saturate at
 * GPUASM_DTW_INF (a long run along row m would pass 2^31), which cannot
 * hide a start: the value looked for is finite.  A path from (1, s') with
 * s' < j crosses column j, so once every cell of column j exceeds `cost`
 * no start further left can give it. */
int64_t gpuasm_dtw_start(const int16_t *x, uint32_t m, const int16_t *y, uint64_t end,
                         int32_t cost_kind, int32_t cost, int32_t *work)
{
    int32_t *nxt = work, *cur = work + (size_t)m + 1;   /* [1 .. m+1], index i - 1 */
    for (uint32_t i = 0; i <= m; i++) nxt[i] = GPUASM_DTW_INF;
    for (uint64_t jj = end + 1; jj-- > 0;) {
        const int32_t yj = y[jj];
        /* E[m+1][j+1] (the diagonal into row m) is 0 only at the end cell. */
        nxt[m] = jj == end ? 0 : GPUASM_DTW_INF;
        cur[m] = GPUASM_DTW_INF;
        int32_t colmin = GPUASM_DTW_INF;
        for (uint32_t i = m; i-- > 0;) {
            int32_t v = min32(min32(nxt[i + 1], nxt[i]), cur[i + 1]);
            v = v >= GPUASM_DTW_INF ? GPUASM_DTW_INF
                                    : min32(v + gpuasm_dtw_cost(cost_kind, x[i], yj), GPUASM_DTW_INF);
            cur[i] = v;
            colmin = min32(colmin, v);
        }
        if (cur[0] == cost) return (int64_t)jj;
        if (colmin > cost) return -1;
        int32_t *t = nxt;
        nxt = cur;
        cur = t;
    }
    return -1;
}
