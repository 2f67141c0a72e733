/* SPDX-License-Identifier: MIT */
/* dtw_cuda_core.cuh -- the per-thread and per-lane logic of the CUDA dtw
 * kernel (dtw_cuda.cu has the design in its header comment): the BEST warp
 * wavefront and the PAPER ring wavefront with its segments and their
 * check, as __host__ __device__ functions, so that a host harness
 * (tests/c/test_dtw_cuda.cu) runs the very same code lane by lane and
 * thread by thread, phase by phase, against the CPU twin.  Only dtw_cuda.cu
 * and that harness include it.  C++ for .cu files only.
 *
 * Rows here are 0-based query positions p = 0 .. m-1 (D[p+1][.] of
 * signal_mode.h); "row -1" is D[0][.] = 0.  Columns are reference positions.
 */
#ifndef GPUASM_DTW_CUDA_CORE_CUH
#define GPUASM_DTW_CUDA_CORE_CUH

#include <stdint.h>

#include "kernels/cuda_kit.cuh"
#include "kernels/wavefront.cuh"      /* wave::ring_ld, wave::ring_rows_of: the 3-row ring of seed 000/001 */
#include "search/signal_mode.h"

namespace dtwk {

enum {
    DTW_INF = GPUASM_DTW_INF,
    DTW_R_MAX = 64,            /* BEST: most rows per lane (a band is 32 R rows) */
    DTW_TILE = 4,              /* BEST: reference columns per step */
    DTW_WARPS = 4,             /* BEST: warps (items) per block */
    DTW_MAX_THREADS = 1024     /* PAPER: most threads per block */
};

/* Key of a result: cost in the high word, end in the low one, so that the
 * smallest key is the smallest cost and, among equal costs, the smallest
 * end: signal_mode.h's tie rule, and atomicMin-able.  No result: all ones. */
HD uint64_t key_of(int32_t cost, uint32_t end) { return ((uint64_t)(uint32_t)cost << 32) | end; }
const uint64_t KEY_NONE = ~(uint64_t)0;

/* The cell of signal_mode.h: min of the three neighbours (one Hopper DPX
 * instruction, VIMNMX3; CUDA's headers emulate it on the host) plus the
 * cost.  On the device the |x - y| cost and the add are one instruction:
 * __sad(x, y, z) = |x - y| + z compiles to VABSDIFF with its accumulate
 * operand on sm_90 (checked with cuobjdump -sass: VIMNMX3 + VABSDIFF, where
 * gpuasm_dtw_cost() and an add gave IADD3 + IABS + VIMNMX3 + IADD3), so an
 * abs-cost cell is 2 instructions instead of 4.  The same value: the min is
 * in [0, GPUASM_DTW_INF] and |x - y| < 2^16 (int16 samples), so the
 * unsigned sum fits an int32. */
template <int COST> HD int32_t cell(int32_t left, int32_t up, int32_t diag, int32_t x, int32_t y)
{
    const int32_t mn = __vimin3_s32(left, up, diag);
#ifdef __CUDA_ARCH__
    if (COST == GPUASM_COST_ABS) return (int32_t)__sad(x, y, (unsigned)mn);
#endif
    return mn + gpuasm_dtw_cost(COST, x, y);
}

/* What a launch reads: the batch on the device (reference signals padded to
 * multiples of DTW_TILE samples with zeros, so a tile is one 8-byte load). */
struct dtw_dev {
    const int16_t *rval;       /* read values */
    const uint64_t *roff;      /* [nreads + 1] */
    const int16_t *tval;       /* reference values, padded */
    const uint64_t *toff;      /* [ntargets + 1] padded offsets (multiples of DTW_TILE) */
    const uint32_t *tlen;      /* [ntargets] true lengths */
    uint32_t ntargets;
};

/* ======================================================================
 * BEST: one warp per (read, reference) item; lane L holds R consecutive
 * rows of a band of 32 R rows in registers and, at step t, the tile of
 * DTW_TILE columns q = t - L; the tile's bottom row goes to lane L + 1
 * (a shuffle) for step t + 1.  A query longer than a band runs band after
 * band, the last row of band b reaching band b + 1 through a global row
 * buffer (bnd: written by lane 31 at tile q, read by lane 0 of the next
 * band at tile q; lane 31 writes tile t - 31 at step t, after lane 0 read
 * it at step t - 31, so one buffer serves in place).
 * ====================================================================== */

struct best_item {
    const int16_t *x;          /* query */
    const int16_t *y;          /* reference (padded to whole tiles) */
    uint32_t m, n, ntiles;
};

HD best_item best_item_of(const dtw_dev &d, uint32_t r, uint32_t t)
{
    best_item it;
    it.x = d.rval + d.roff[r];
    it.m = (uint32_t)(d.roff[r + 1] - d.roff[r]);
    it.y = d.tval + d.toff[t];
    it.n = d.tlen[t];
    it.ntiles = (it.n + DTW_TILE - 1) / DTW_TILE;
    return it;
}

/* Bands of a query of m rows with R rows per lane. */
HD uint32_t best_bands(uint32_t m, uint32_t R) { return (m + 32 * R - 1) / (32 * R); }
HD uint32_t best_nsteps(const best_item &it) { return it.ntiles + 31; }

template <int R> struct best_lane {
    int32_t xv[R];      /* query values of the lane's rows (0 past m: padding rows) */
    int32_t left[R];    /* D(row, 4q - 1) */
    int32_t dprev;      /* D(first row - 1, 4q - 1) */
    int32_t best;       /* the lane of row m - 1: best D so far, and its column */
    uint32_t bestj;
    uint32_t p0;        /* first row of the lane */
    int hl;             /* row m - 1 is the lane's row hl (in the last band), else -1 */
};

template <int R>
HD void best_band_init(best_lane<R> &s, const best_item &it, uint32_t band, uint32_t lane)
{
    s.p0 = band * 32u * R + lane * R;
    DEV_UNROLL
    for (int h = 0; h < R; ++h) {
        const uint32_t p = s.p0 + (uint32_t)h;
        s.xv[h] = p < it.m ? it.x[p] : 0;
        s.left[h] = DTW_INF;                       /* column -1 */
    }
    s.dprev = s.p0 == 0 ? 0 : DTW_INF;             /* D(p0 - 1, -1): row -1 is 0 */
    s.best = DTW_INF;
    s.bestj = 0;
    s.hl = (it.m - 1 >= s.p0 && it.m - 1 < s.p0 + R) ? (int)(it.m - 1 - s.p0) : -1;
}

/* The up values lane 0 of a band gets at tile q: row -1 (zeros) in band 0,
 * the previous band's last row (bnd) after; nothing past the last tile. */
HD int4 best_top(const int32_t *bnd, uint32_t band, uint32_t q, uint32_t ntiles)
{
    if (q >= ntiles) return make_int4(DTW_INF, DTW_INF, DTW_INF, DTW_INF);
    if (band == 0) return make_int4(0, 0, 0, 0);
    const int32_t *b = bnd + (size_t)q * DTW_TILE;
    return make_int4(b[0], b[1], b[2], b[3]);
}

/* A BEST cell of query value x against the tile's reference values y[]:
 * wave::tile_row's cell. */
template <int COST> struct tile_cell {
    int32_t x;
    const int32_t *y;
    HD int32_t operator()(int c, int32_t d, int32_t up, int32_t l) const
    {
        return cell<COST>(l, up, d, x, y[c]);
    }
};

/* Step t of lane `lane` (idle unless 0 <= q = t - lane < ntiles): from_above
 * is lane - 1's return value of step t - 1 (lane 0: best_top()).  Returns
 * the lane's bottom row over the tile, for lane + 1.  Lane 31 of a band
 * that is not the last writes it to bnd.
 * ALIGNED: R divides m, so row m - 1 is the bottom row of its lane and its
 * values are the tile's output; otherwise each row is compared with hl
 * (a select per cell: about a quarter more work, hence the launcher picks
 * an R that divides m whenever 4 does). */
template <int R, int COST, int ALIGNED>
HD int4 best_band_step(best_lane<R> &s, const best_item &it, uint32_t lane, uint32_t t,
                       int4 from_above, int32_t *bnd, int last_band)
{
    const uint32_t q = t - lane;                   /* wraps when t < lane: idle */
    if (t < lane || q >= it.ntiles) return make_int4(DTW_INF, DTW_INF, DTW_INF, DTW_INF);
    /* The tile's reference values: one 8-byte load (4-aligned offsets). */
    const uint2 yw = *(const uint2 *)(it.y + (size_t)q * DTW_TILE);
    const int32_t yv[DTW_TILE] = { (int16_t)(yw.x & 0xffffu), (int16_t)(yw.x >> 16),
                                   (int16_t)(yw.y & 0xffffu), (int16_t)(yw.y >> 16) };
    int32_t up[DTW_TILE] = { from_above.x, from_above.y, from_above.z, from_above.w };
    int32_t dg = s.dprev;
    s.dprev = up[DTW_TILE - 1];
    int32_t fin[DTW_TILE] = { DTW_INF, DTW_INF, DTW_INF, DTW_INF };
    DEV_UNROLL
    for (int h = 0; h < R; ++h) {
        int32_t l = s.left[h];
        const int32_t dnext = l;                   /* diagonal of column 4q for the row below */
        wave::tile_row<DTW_TILE>(up, l, dg, tile_cell<COST>{ s.xv[h], yv });
        s.left[h] = l;
        dg = dnext;
        if (!ALIGNED && h == s.hl) {
            DEV_UNROLL
            for (int c = 0; c < DTW_TILE; ++c) fin[c] = up[c];
        }
    }
    if (ALIGNED) {
        DEV_UNROLL
        for (int c = 0; c < DTW_TILE; ++c) fin[c] = up[c];
    }
    if (last_band && s.hl >= 0) {
        DEV_UNROLL
        for (int c = 0; c < DTW_TILE; ++c) {
            const uint32_t col = q * DTW_TILE + (uint32_t)c;
            if (col < it.n && fin[c] < s.best) {   /* strict: the smallest end wins */
                s.best = fin[c];
                s.bestj = col;
            }
        }
    }
    const int4 out = make_int4(up[0], up[1], up[2], up[3]);
    if (!last_band && lane == 31) {
        int32_t *b = bnd + (size_t)q * DTW_TILE;
        b[0] = out.x;
        b[1] = out.y;
        b[2] = out.z;
        b[3] = out.w;
    }
    return out;
}

/* ======================================================================
 * BEST, "sets" (dtw_cuda.cu has the why): rows per lane decoupled from
 * the divisibility of m.  Lane L holds S sets of R0 rows; set s of lane L
 * is the virtual lane v = 32 s + L, rows [v R0, v R0 + R0), and runs the
 * very per-lane code above (best_lane<R0>, best_band_step with lane = v,
 * one band: last_band = 1, bnd = NULL).  R0 divides m, so row m - 1 is the
 * bottom row of virtual lane V = m / R0 - 1 (ALIGNED) and the whole query
 * runs in one pass of ntiles + V steps.  At step t set s of lane L takes
 * from above what virtual lane v - 1 returned at step t - 1: lane L - 1's
 * set s, or for L = 0 lane 31's set s - 1, so one rotate shuffle per set
 * (__shfl_sync from lane (L + 31) & 31) serves both; virtual lane 0 gets
 * row -1 (best_top of band 0).
 * ====================================================================== */

enum {
    DTW_SETS_MAX = 8,          /* sets: most sets per lane (registers: dtw_cuda.cu) */
    DTW_SETS_ROWS = 64         /* sets: most rows per lane, S R0 */
};

/* The sets of the largest instance of R0 rows (dtw_cuda.cu's kernels). */
HD constexpr int sets_max(int R0) { return DTW_SETS_ROWS / R0 < DTW_SETS_MAX ? DTW_SETS_ROWS / R0 : DTW_SETS_MAX; }

template <int R0, int S> struct sets_lane {
    best_lane<R0> set[S];
};

/* Rows per set R0 and sets S for a query of m samples, S <= smax, R0 <=
 * rmax and S <= sets_max(R0): the R0 in {16, 8, 4} dividing m with the
 * fewest issued rows per step S (R0 + 2) (every lane issues all its sets,
 * idle virtual lanes included; the 2 rows stand for a set's fixed cost:
 * its shuffles, tile load and checks), ties to the larger R0 (fewer
 * shuffles a cell).  0 when none fits (the band path takes the query). */
HD int sets_choose(uint32_t m, uint32_t smax, uint32_t rmax, uint32_t *R0, uint32_t *S)
{
    uint64_t best_cost = 0;
    int found = 0;
    for (uint32_t r = 16; r >= 4; r /= 2) {
        if (r > rmax || m == 0 || m % r) continue;
        const uint64_t s = ((uint64_t)m / r + 31) / 32;
        if (s > smax || s > (uint64_t)sets_max((int)r)) continue;
        const uint64_t cost = s * (r + 2);
        if (!found || cost < best_cost) {
            best_cost = cost;
            *R0 = r;
            *S = (uint32_t)s;
            found = 1;
        }
    }
    return found;
}

/* Steps of an item: virtual lane V = m / R0 - 1 finishes the last tile. */
HD uint32_t sets_nsteps(const best_item &it, uint32_t R0) { return it.ntiles + it.m / R0 - 1; }

template <int R0, int S>
HD void sets_init(sets_lane<R0, S> &w, const best_item &it, uint32_t lane)
{
    DEV_UNROLL
    for (int s = 0; s < S; ++s) best_band_init<R0>(w.set[s], it, 0, 32u * s + lane);
}

/* The sets' inputs at step t from rot[s], what lane (lane + 31) & 31
 * returned for set s at step t - 1 (all DTW_INF before step 0). */
template <int S>
HD void sets_above(int4 *in, const int4 *rot, uint32_t lane, uint32_t t, uint32_t ntiles)
{
    DEV_UNROLL
    for (int s = 0; s < S; ++s)
        in[s] = lane > 0 ? rot[s] : s > 0 ? rot[s - 1] : best_top(NULL, 0, t, ntiles);
}

/* Step t of every set of lane `lane`: out[s] for the rotate shuffle. */
template <int R0, int S, int COST>
HD void sets_step(sets_lane<R0, S> &w, const best_item &it, uint32_t lane, uint32_t t,
                  const int4 *in, int4 *out)
{
    DEV_UNROLL
    for (int s = 0; s < S; ++s)
        out[s] = best_band_step<R0, COST, 1>(w.set[s], it, 32u * s + lane, t, in[s], NULL, 1);
}

/* The key of the lane holding row m - 1 (the set with hl >= 0); 0 for
 * the other lanes. */
template <int R0, int S>
HD int sets_key(const sets_lane<R0, S> &w, uint64_t *key)
{
    int has = 0;
    DEV_UNROLL
    for (int s = 0; s < S; ++s)
        if (w.set[s].hl >= 0) {
            *key = key_of(w.set[s].best, w.set[s].bestj);
            has = 1;
        }
    return has;
}

/* ======================================================================
 * PAPER: seed 001 §6-7 (the ASM's parallel algorithm, which §10 carries
 * over to the ADSM): a block sweeps anti-diagonals of the matrix, thread g
 * computing rows g+1, g+1+B, ... (1-based rows i here, as the ring has row
 * 0), three anti-diagonals in a ring of 3 x LD int32 (§7's s'), and §8's
 * segments: the reference split into segments [s0, s1), each a block,
 * started fresh `ov` columns to the left.
 *
 * §8 is exact for the ASM because a substring longer than 2m costs more
 * than m; DTW has no such bound (a cheap path may span any length of the
 * reference), so a fresh start can miss the best path.  We make it exact:
 * every block also stores its column s0 - 1 (chk, computed from its fresh
 * start) and its last column s1 - 1 (last); a check pass walks the
 * segments of an item in order: when chk equals the previous segment's
 * exact last column, the recurrence saw the same column and every later
 * value of the block is exact; otherwise the segment is recomputed from
 * that exact column (rare: only when a best path into column s0 - 1
 * started more than ov columns earlier).
 * ====================================================================== */

struct paper_item {
    const int16_t *x, *y;
    uint32_t m, n;
    uint32_t s0, s1;           /* the segment's ends [s0, s1) */
    uint32_t j0, ncols;        /* DP window [j0, j0 + ncols), ncols = s1 - j0 */
};

/* Segments of a reference of n samples: seed 001 §8's n / m pieces become
 * `segments` when given, else one per max(8 m, 2048) samples; at most n. */
HD uint32_t paper_nseg(uint32_t m, uint32_t n, int32_t segments)
{
    uint64_t d;
    if (segments > 0) {
        d = (uint64_t)segments;
    } else {
        const uint64_t len = 8 * (uint64_t)m > 2048 ? 8 * (uint64_t)m : 2048;
        d = (n + len - 1) / len;
    }
    if (d > n) d = n;
    if (d < 1) d = 1;
    return (uint32_t)d;
}

/* Segment `seg` of nseg, its window started ov = 2 m columns early (seed
 * 001 §8: Z_i = Y_i Y_i+1 Y_i+2, each m long), or from `bnd` (the fix-up:
 * j0 = s0, the column s0 - 1 given). */
HD paper_item paper_item_of(const int16_t *x, uint32_t m, const int16_t *y, uint32_t n,
                            uint32_t seg, uint32_t nseg, int from_bnd)
{
    paper_item it;
    it.x = x;
    it.y = y;
    it.m = m;
    it.n = n;
    it.s0 = (uint32_t)((uint64_t)seg * n / nseg);
    it.s1 = (uint32_t)((uint64_t)(seg + 1) * n / nseg);
    const uint64_t ov = 2 * (uint64_t)m;
    it.j0 = from_bnd ? it.s0 : (uint32_t)(it.s0 > ov ? it.s0 - ov : 0);
    it.ncols = it.s1 - it.j0;
    return it;
}

HD uint32_t paper_nsteps(const paper_item &it) { return it.ncols + it.m - 1; }

struct paper_st {
    int32_t best;       /* the thread of row m: best D over the segment's ends */
    uint32_t bestj;
};

/* Before the first step (all threads, rows g, g + B, ..): row 0 = 0 in
 * every ring row; column j0 - 1 of row i (bnd[i - 1], or +inf for a fresh
 * start) where anti-diagonal i - 2 goes (dp_cuda_core.cuh's ring). */
HD void paper_init(paper_st &st, int32_t *ring, uint32_t LD, uint32_t m, uint32_t g, uint32_t B,
                   const int32_t *bnd)
{
    st.best = DTW_INF;
    st.bestj = 0;
    for (uint64_t i = g; i <= m; i += B) {
        if (i == 0) {
            ring[0] = 0;
            ring[LD] = 0;
            ring[2 * (size_t)LD] = 0;
        } else {
            ring[(size_t)((i + 1) % 3) * LD + i] = bnd ? bnd[i - 1] : (int32_t)DTW_INF;
        }
    }
}

/* Step t: thread g's rows i with 0 <= c = t - i + 1 < ncols.  chk (when not
 * NULL) gets column s0 - 1, last (when not NULL) the window's last column
 * (chk[i - 1], last[i - 1] = D[i][.]). */
template <int COST>
HD void paper_step(paper_st &st, const paper_item &it, int32_t *ring, uint32_t LD, uint32_t g,
                   uint32_t B, uint32_t t, int32_t *chk, int32_t *last)
{
    int64_t lo = (int64_t)t + 2 - (int64_t)it.ncols;
    if (lo < 1) lo = 1;
    int64_t hi = (int64_t)t + 1;
    if (hi > (int64_t)it.m) hi = it.m;
    int64_t i = (int64_t)g + 1;
    if (i < lo) i += (lo - i + B - 1) / B * B;
    if (i > hi) return;
    const wave::ring_rows rr = wave::ring_rows_of(t);
    const uint32_t chk_c = it.s0 - 1 - it.j0;    /* wraps (never met) when s0 == j0 */
    for (; i <= hi; i += B) {
        const uint32_t c = (uint32_t)((int64_t)t - i + 1);
        const int32_t left = ring[(size_t)rr.p1 * LD + i];
        const int32_t up = ring[(size_t)rr.p1 * LD + i - 1];
        const int32_t diag = ring[(size_t)rr.p2 * LD + i - 1];
        const int32_t v = cell<COST>(left, up, diag, it.x[i - 1], it.y[it.j0 + c]);
        ring[(size_t)rr.w * LD + i] = v;
        if (chk && c == chk_c) chk[i - 1] = v;
        if (last && c == it.ncols - 1) last[i - 1] = v;
        if ((uint32_t)i == it.m && it.j0 + c >= it.s0 && v < st.best) {
            st.best = v;
            st.bestj = it.j0 + c;
        }
    }
}

/* The thread of row m. */
HD int paper_has_last_row(const paper_item &it, uint32_t g, uint32_t B) { return g == (it.m - 1) % B; }

}  /* namespace dtwk */

#endif
