/* SPDX-License-Identifier: MIT */
/* wavefront.cuh -- what the two anti-diagonal wavefront kernels share: the
 * dp kernel (kernels/dp: seed 000's ASM) and the dtw kernel (kernels/dtw:
 * seed 001's ADSM) sweep a DP matrix by anti-diagonals, the PAPER layouts
 * through a ring of three of them in shared or global memory (seed 000
 * §IV, seed 001 §6-8), the BEST layouts through register tiles of rows x
 * 4 columns.  Their cells differ (edit distance, signal cost); the ring's
 * geometry, a tile row's sweep and the search of a launch's work list do
 * not.  __host__ __device__, so that the kernels'
 * host harnesses run it too.  C++ for .cu files only.
 */
#ifndef GPUASM_WAVEFRONT_CUH
#define GPUASM_WAVEFRONT_CUH

#include <stdint.h>

#include "kernels/cuda_device.cuh"   /* HD */

namespace wave {

/* The leading dimension of a ring row for patterns (queries) of m rows:
 * m + 1 cells (row 0 included), padded to 32. */
HD uint32_t ring_ld(uint32_t m) { return (m + 1u + 31u) & ~31u; }

/* Ring rows of step t: written, t-1, t-2. */
struct ring_rows {
    uint32_t w, p1, p2;
};

HD ring_rows ring_rows_of(uint32_t t)
{
    ring_rows r;
    r.w = t % 3u;
    r.p1 = (t + 2u) % 3u;
    r.p2 = (t + 1u) % 3u;
    return r;
}

/* One row of a register tile of the sweep (dp's BEST layouts, dtw's
 * BEST): W columns left to right, each cell(c, diag, up, left) of the
 * kernel's own recurrence.  up[] holds the row above on entry and this
 * row on return; left is the row's value left of the tile (its last
 * column on return); diag the row above's value left of the tile. */
template <int W, class Cell>
HD void tile_row(int32_t (&up)[W], int32_t &left, int32_t diag, const Cell &cell)
{
    DEV_UNROLL
    for (int c = 0; c < W; ++c) {
        const int32_t v = cell(c, diag, up[c], left);
        diag = up[c];
        up[c] = v;
        left = v;
    }
}

/* Index of the plan entry holding item (entries sorted by their first item,
 * first(e[0]) == 0): the launches' work lists (dp's items, dtw's PAPER
 * blocks). */
template <class E, class K, class First>
HD uint32_t find_entry(const E *e, uint32_t ne, K item, First first)
{
    uint32_t lo = 0, hi = ne;
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (first(e[mid]) <= item) lo = mid;
        else hi = mid;
    }
    return lo;
}

}  /* namespace wave */

#endif
