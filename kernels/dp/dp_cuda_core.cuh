/* SPDX-License-Identifier: MIT */
/* dp_cuda_core.cuh -- the per-thread logic of the CUDA dp kernel
 * (dp_cuda.cu: seed 000's anti-diagonal wavefront, its header comment has
 * the design): work-item decoding, the BEST tiles, the BEST-MEM rows, the
 * PAPER ring (STAGED, LOOP), as __host__ __device__ functions so that a
 * host harness can run the very same code phase by phase over every thread
 * of a block.  Only dp_cuda.cu includes it.  C++ for .cu files only.
 */
#ifndef GPUASM_DP_CUDA_CORE_CUH
#define GPUASM_DP_CUDA_CORE_CUH

#include <stdint.h>

#include "kernels/cuda_kit.cuh"
#include "kernels/wavefront.cuh"

namespace dpk {

enum {
    DP_R = 4,                 /* BEST: text columns per tile (per step) */
    DP_HMAX = 8,              /* BEST: most rows per thread */
    DP_MAX_THREADS = 1024,
    DP_BEST_MAX_M = DP_MAX_THREADS * DP_HMAX,
    DP_STAGED_MAX_M = 1024,
    DP_DEFAULT_PAIR_CHUNK = 1 << 18,
    DP_MAX_GRID = 1 << 30,
    DP_ALPHA_NT16 = 0,
    DP_ALPHA_BYTE = 1
};

/* Block programs / plan buckets. */
enum {
    PATH_BEST = 0, PATH_STAGED = 1, PATH_LOOP_SH = 2, PATH_LOOP_GL = 3,
    PATH_BESTM_SH = 4, PATH_BESTM_GL = 5
};

/* Global scratch budget of LOOP_GL / BESTM_GL (one slot per block of a wave). */
const size_t DP_GRING_BUDGET = (size_t)256 << 20;

/* One searched (read, target) pair of a bucket: its items are
 * [item0, next entry's item0) of the bucket's item space. */
struct dp_entry {
    uint64_t item0;
    uint32_t r, t;
};

/* What every block of one launch gets (by value). */
struct dp_args {
    gpuasm_batch_view v;      /* the batch on the device */
    const dp_entry *ent;      /* the bucket's entries */
    uint32_t nent;
    uint32_t strands;         /* 2 (nt16) or 1 (byte) */
    uint64_t item_base;       /* item of blockIdx.x == 0 */
    int32_t *gring;           /* LOOP_GL / BESTM_GL: one slot per block of the launch */
    uint64_t ring_words;      /* ints per slot */
};

/* One work item: (pair, strand, segment). */
struct dp_item {
    gcore::seqv pat, txt;     /* in search orientation */
    uint32_t m, n, r, t, strand;
    int32_t k;
    uint32_t s0, s1;          /* segment [s0, s1) of the text (0-based) */
    uint32_t j0, jend;        /* DP window [j0, jend) */
    uint32_t ncols;           /* jend - j0 */
};

/* Segments of a text of n positions (n >= 1): seed 000's D.  At least 1,
 * at most n (so [seg n / D, (seg+1) n / D) is never empty). */
HD uint64_t dp_nseg(uint64_t m, int32_t k, uint64_t n, int32_t segments)
{
    uint64_t d;
    if (segments > 0) {
        d = (uint64_t)segments;
    } else {
        const uint64_t mk = m + (uint64_t)k;
        const uint64_t len = 8 * mk > 2048 ? 8 * mk : 2048;
        d = (n + len - 1) / len;
    }
    if (d > n) d = n;
    if (d < 1) d = 1;
    return d;
}

/* Index of the entry holding item (entries sorted by item0, e[0].item0 == 0). */
struct dp_entry_first {
    HD uint64_t operator()(const dp_entry &e) const { return e.item0; }
};
HD uint32_t dp_find(const dp_entry *e, uint32_t ne, uint64_t item)
{
    return wave::find_entry(e, ne, item, dp_entry_first());
}

/* Item `item` (bucket-relative) of a launch: search.h's pair rule. */
HD dp_item dp_decode(const dp_args &a, uint64_t item)
{
    dp_item it;
    const dp_entry e = a.ent[dp_find(a.ent, a.nent, item)];
    const uint64_t local = item - e.item0;
    it.r = e.r;
    it.t = e.t;
    it.strand = (uint32_t)(local % a.strands);
    const uint64_t seg = local / a.strands;
    const gcore::pair_ref x = gcore::pair_ref_of(a.v, e.r, e.t);
    const gpuasm_pair &pr = x.p;
    const int rip = pr.read_is_pattern;
    it.m = (uint32_t)pr.m;
    it.n = (uint32_t)pr.n;
    it.k = pr.k;
    it.pat.p = x.pat;
    it.pat.len = it.m;
    it.pat.rc = rip && it.strand;
    it.txt.p = x.txt;
    it.txt.len = it.n;
    it.txt.rc = !rip && it.strand;
    const uint64_t nseg = dp_nseg(it.m, it.k, it.n, a.v.opt.segments);
    const uint64_t s0 = seg * it.n / nseg, s1 = (seg + 1) * it.n / nseg;
    const uint64_t ov = (uint64_t)it.m + (uint64_t)it.k;
    it.s0 = (uint32_t)s0;
    it.s1 = (uint32_t)s1;
    it.j0 = (uint32_t)(s0 > ov ? s0 - ov : 0);
    it.jend = (uint32_t)(s1 + 1 < it.n ? s1 + 1 : it.n);
    it.ncols = it.jend - it.j0;
    return it;
}

/* emit(j, d) of one item: cuda_kit.cuh's emitter. */
template <class Out> using dp_emit = emitter<Out>;

/* min(diag + ne, up + 1, left + 1) in two DPX ops, the second being the
 * only one on the left-to-right dependency chain of a row. */
HD int32_t dp_cell(int32_t diag, int32_t ne, int32_t up, int32_t left)
{
    const int32_t x = __viaddmin_s32(up, 1, diag + ne);
    return __viaddmin_s32(left, 1, x);
}

/* Mismatch of pattern code p and text code c (0 or 1), as dp_cpu.c. */
template <int A> HD int32_t dp_ne(uint32_t p, uint32_t c)
{
    return A == DP_ALPHA_BYTE ? (int32_t)(p != c) : (int32_t)((p & c) == 0);
}

/* ---- text ring (STAGED, BEST) ------------------------------------------- */

struct stage_geom {
    uint32_t C;    /* refill period in steps = elements per refill (power of 2) */
    uint32_t TR;   /* ring elements (power of 2, >= 2C + blockDim) */
};

HD stage_geom stage_of(uint32_t B)
{
    stage_geom s;
    uint32_t c = 1;
    while (c * 2 <= B / 2) c *= 2;
    s.C = c;
    uint32_t tr = 1;
    while (tr < 2 * c + B) tr *= 2;
    s.TR = tr;
    return s;
}

/* Element x of the window's text: BEST packs columns 4x .. 4x+3 (byte e of
 * the word = column 4x + e), STAGED has one column per element; 0 past
 * the window (those columns are computed but never reported). */
template <class E> HD E text_elem(const dp_item &it, uint64_t x);

template <> HD uint32_t text_elem<uint32_t>(const dp_item &it, uint64_t x)
{
    const uint64_t c0 = 4 * x;
    uint32_t w = 0;
    if (c0 >= it.ncols) return 0;
    for (uint32_t e = 0; e < 4; ++e)
        if (c0 + e < it.ncols) w |= (it.txt.at(it.j0 + (uint32_t)(c0 + e)) & 0xffu) << (8 * e);
    return w;
}

template <> HD uint8_t text_elem<uint8_t>(const dp_item &it, uint64_t x)
{
    return x < it.ncols ? (uint8_t)it.txt.at(it.j0 + (uint32_t)x) : (uint8_t)0;
}

/* Before the first step: elements [0, C) into the ring, [C, 2C) into pend. */
template <class E>
HD void stage_init(E *ring, E &pend, const dp_item &it, const stage_geom &sg, uint32_t g)
{
    if (g < sg.C) {
        ring[g] = text_elem<E>(it, g);
        pend = text_elem<E>(it, (uint64_t)sg.C + g);
    }
}

/* Step t, before the reads of the step: every C steps store the elements
 * [t + C, t + 2C) (loaded C steps ago) and load [t + 2C, t + 3C). */
template <class E>
HD void stage_step(E *ring, E &pend, const dp_item &it, const stage_geom &sg, uint32_t g,
                   uint32_t t)
{
    if ((t & (sg.C - 1)) == 0 && g < sg.C) {
        ring[((uint64_t)t + sg.C + g) & (sg.TR - 1)] = pend;
        pend = text_elem<E>(it, (uint64_t)t + 2 * (uint64_t)sg.C + g);
    }
}

/* ---- BEST: H rows x 4 columns per thread and step ------------------------ */

struct best_geo {
    uint32_t B;        /* blockDim */
    uint32_t glast;    /* thread holding row m */
    uint32_t hl;       /* row m is row hl of that thread */
    uint32_t ntiles;   /* ceil(ncols / 4) */
    uint32_t nsteps;   /* ntiles + glast */
    stage_geom sg;
};

HD best_geo best_geo_of(const dp_item &it, uint32_t B, uint32_t H)
{
    best_geo g;
    g.B = B;
    g.glast = (it.m - 1) / H;
    g.hl = (it.m - 1) % H;
    g.ntiles = (it.ncols + DP_R - 1) / DP_R;
    g.nsteps = g.ntiles + g.glast;
    g.sg = stage_of(B);
    return g;
}

/* Shared memory: X = int4 [2][B] (bottom-row tiles by step parity), then
 * the text ring uint32 [TR]. */
HD size_t best_smem(uint32_t B)
{
    return (size_t)2 * B * sizeof(int4) + (size_t)stage_of(B).TR * sizeof(uint32_t);
}

/* A BEST cell of pattern code pc against the tile's text word w (4 codes,
 * a byte each): wave::tile_row's cell. */
template <int A> struct dp_tile_cell {
    const uint32_t &pc;
    uint32_t w;
    HD int32_t operator()(int c, int32_t d, int32_t up, int32_t l) const
    {
        const uint32_t tc = A == DP_ALPHA_BYTE ? (w >> (8 * c)) & 0xffu : (w >> (8 * c));
        return dp_cell(d, dp_ne<A>(pc, tc), up, l);
    }
};

template <int H> struct best_st {
    int32_t left[H];   /* D(row, 4q - 1) of each row */
    uint32_t pc[H];    /* pattern codes */
    int32_t dprev;     /* D(first row - 1, 4q - 1): last up value of the previous tile */
    uint32_t pend;     /* text ring refill in flight */
    gcore::lmin lm;    /* thread glast only */
};

template <int H>
HD void best_init(best_st<H> &st, const dp_item &it, const best_geo &geo, uint32_t g,
                  uint32_t *TX)
{
    DEV_UNROLL
    for (int h = 0; h < H; ++h) {
        const uint32_t row = g * H + (uint32_t)h;   /* 0-based pattern index */
        st.pc[h] = row < it.m ? it.pat.at(row) : 0u;
        st.left[h] = (int32_t)(row + 1);            /* column -1 */
    }
    st.dprev = (int32_t)(g * H);
    st.pend = 0;
    gcore::lm_init(st.lm);
    stage_init<uint32_t>(TX, st.pend, it, geo.sg, g);
}

template <int H, int A, class Emit>
HD void best_step(best_st<H> &st, const dp_item &it, const best_geo &geo, uint32_t g,
                  uint32_t t, int4 *X, uint32_t *TX, Emit &emit)
{
    stage_step<uint32_t>(TX, st.pend, it, geo.sg, g, t);
    const uint32_t q = t - g;                      /* wraps when t < g: idle */
    if (g > geo.glast || t < g || q >= geo.ntiles) return;
    int32_t up[DP_R];
    if (g == 0) {
        up[0] = up[1] = up[2] = up[3] = 0;       /* row 0 */
    } else {
        const int4 u = X[((t - 1) & 1u) * geo.B + g - 1];
        up[0] = u.x;
        up[1] = u.y;
        up[2] = u.z;
        up[3] = u.w;
    }
    const uint32_t w = TX[q & (geo.sg.TR - 1)];
    int32_t dg = st.dprev;
    st.dprev = up[DP_R - 1];
    int32_t fin[DP_R];
    DEV_UNROLL
    for (int h = 0; h < H; ++h) {
        int32_t l = st.left[h];
        const int32_t dnext = l;   /* diagonal of column 4q for the row below */
        wave::tile_row<DP_R>(up, l, dg, dp_tile_cell<A>{ st.pc[h], w });
        st.left[h] = l;
        dg = dnext;
        if (H > 1 && (uint32_t)h == geo.hl) {      /* block-uniform */
            DEV_UNROLL
            for (int c = 0; c < DP_R; ++c) fin[c] = up[c];
        }
    }
    if (H == 1) {
        DEV_UNROLL
        for (int c = 0; c < DP_R; ++c) fin[c] = up[c];
    }
    X[(t & 1u) * geo.B + g] = make_int4(up[0], up[1], up[2], up[3]);
    if (g == geo.glast) {
        for (uint32_t c = 0; c < DP_R; ++c) {
            const uint32_t col = q * DP_R + c;
            if (col < it.ncols)
                gcore::lm_push(st.lm, fin[c], it.j0 + col, it.k, it.s0, it.s1, emit);
        }
    }
}

template <int H, class Emit>
HD void best_finish(best_st<H> &st, const dp_item &it, const best_geo &geo, uint32_t g,
                    Emit &emit)
{
    if (g == geo.glast && it.jend == it.n)
        gcore::lm_push(st.lm, (int32_t)gcore::BIGD, it.n, it.k, it.s0, it.s1, emit);
}

/* ---- BEST for long patterns: H rows per thread in memory ----------------
 * m > 8192: the same tiled wavefront with blockDim = 1024 and H = ceil(m /
 * 1024) rows per thread whose left values (int32) and pattern codes
 * (uint8) live in memory, laid out [h][g] (conflict-free / coalesced):
 * shared memory after X and the text ring when it fits, else a global
 * slot per block.  Per cell: the registers as in best_step; per row and
 * tile: one load and one store of `left`, one load of the code. */

struct bestm_geo {
    best_geo g;
    uint32_t H;
};

HD bestm_geo bestm_geo_of(const dp_item &it, uint32_t B)
{
    bestm_geo m;
    m.H = (it.m + B - 1) / B;
    m.g = best_geo_of(it, B, m.H);
    return m;
}

/* Bytes of the row store of H rows x B threads. */
HD size_t bestm_rows_bytes(uint32_t H, uint32_t B) { return (size_t)H * B * (sizeof(int32_t) + 1); }

struct bestm_st {
    int32_t dprev;
    uint32_t pend;
    gcore::lmin lm;
};

/* rows: int32 left [H][B], then uint8 code [H][B]. */
HD void bestm_init(bestm_st &st, const dp_item &it, const bestm_geo &geo, uint32_t g,
                   uint32_t *TX, unsigned char *rows)
{
    const uint32_t B = geo.g.B;
    int32_t *L = (int32_t *)rows;
    uint8_t *P = rows + (size_t)geo.H * B * sizeof(int32_t);
    for (uint32_t h = 0; h < geo.H; ++h) {
        const uint64_t row = (uint64_t)g * geo.H + h;
        P[(size_t)h * B + g] = row < it.m ? (uint8_t)it.pat.at((uint32_t)row) : (uint8_t)0;
        L[(size_t)h * B + g] = (int32_t)(row + 1);
    }
    st.dprev = (int32_t)(g * geo.H);
    st.pend = 0;
    gcore::lm_init(st.lm);
    stage_init<uint32_t>(TX, st.pend, it, geo.g.sg, g);
}

template <int A, class Emit>
HD void bestm_step(bestm_st &st, const dp_item &it, const bestm_geo &geo, uint32_t g,
                   uint32_t t, int4 *X, uint32_t *TX, unsigned char *rows, Emit &emit)
{
    const best_geo &bg = geo.g;
    stage_step<uint32_t>(TX, st.pend, it, bg.sg, g, t);
    const uint32_t q = t - g;
    if (g > bg.glast || t < g || q >= bg.ntiles) return;
    const uint32_t B = bg.B;
    int32_t *L = (int32_t *)rows;
    const uint8_t *P = rows + (size_t)geo.H * B * sizeof(int32_t);
    int32_t up[DP_R];
    if (g == 0) {
        up[0] = up[1] = up[2] = up[3] = 0;
    } else {
        const int4 u = X[((t - 1) & 1u) * B + g - 1];
        up[0] = u.x;
        up[1] = u.y;
        up[2] = u.z;
        up[3] = u.w;
    }
    const uint32_t w = TX[q & (bg.sg.TR - 1)];
    int32_t dg = st.dprev;
    st.dprev = up[DP_R - 1];
    int32_t fin[DP_R] = { 0, 0, 0, 0 };
    for (uint32_t h = 0; h < geo.H; ++h) {
        int32_t l = L[(size_t)h * B + g];
        const uint32_t pc = P[(size_t)h * B + g];
        const int32_t dnext = l;
        wave::tile_row<DP_R>(up, l, dg, dp_tile_cell<A>{ pc, w });
        L[(size_t)h * B + g] = l;
        dg = dnext;
        if (h == bg.hl) {
            DEV_UNROLL
            for (int c = 0; c < DP_R; ++c) fin[c] = up[c];
        }
    }
    X[(t & 1u) * B + g] = make_int4(up[0], up[1], up[2], up[3]);
    if (g == bg.glast) {
        for (uint32_t c = 0; c < DP_R; ++c) {
            const uint32_t col = q * DP_R + c;
            if (col < it.ncols)
                gcore::lm_push(st.lm, fin[c], it.j0 + col, it.k, it.s0, it.s1, emit);
        }
    }
}

template <class Emit>
HD void bestm_finish(bestm_st &st, const dp_item &it, const bestm_geo &geo, uint32_t g,
                     Emit &emit)
{
    if (g == geo.g.glast && it.jend == it.n)
        gcore::lm_push(st.lm, (int32_t)gcore::BIGD, it.n, it.k, it.s0, it.s1, emit);
}

/* ---- PAPER: ring of 3 anti-diagonals (seed 000 §IV) ---------------------- */

/* The ring's geometry is the kit's (kernels/wavefront.cuh; dtw's PAPER
 * layout shares it). */
using wave::ring_ld;
using wave::ring_rows;
using wave::ring_rows_of;

/* Before the first step (all threads, rows g, g + B, ..): row 0 = 0 in
 * every ring row; column -1 of row i (= i) where anti-diagonal i - 2 goes. */
HD void paper_ring_init(int32_t *ring, uint32_t LD, uint32_t m, uint32_t g, uint32_t B)
{
    for (uint64_t i = g; i <= m; i += B) {
        if (i == 0) {
            ring[0] = 0;
            ring[LD] = 0;
            ring[2 * (size_t)LD] = 0;
        } else {
            ring[(size_t)((i + 1) % 3) * LD + i] = (int32_t)i;
        }
    }
}

/* Cell (i, c) of step t (c = t - i + 1, 0 <= c < ncols). */
template <int A>
HD int32_t paper_cell(int32_t *ring, uint32_t LD, const ring_rows &rr, uint32_t i,
                      uint32_t pc, uint32_t tc)
{
    const int32_t left = ring[(size_t)rr.p1 * LD + i];
    const int32_t up = ring[(size_t)rr.p1 * LD + i - 1];
    const int32_t diag = ring[(size_t)rr.p2 * LD + i - 1];
    const int32_t v = dp_cell(diag, dp_ne<A>(pc, tc), up, left);
    ring[(size_t)rr.w * LD + i] = v;
    return v;
}

struct paper_st {
    uint32_t pc;       /* STAGED: pattern code of row g + 1 */
    uint8_t pend;      /* STAGED: text ring refill in flight */
    gcore::lmin lm;    /* the thread of row m */
};

/* STAGED geometry: B threads, one row each; TX after the ring. */
HD size_t staged_ring_bytes(uint32_t m) { return (size_t)3 * ring_ld(m) * sizeof(int32_t); }
HD size_t staged_smem(uint32_t maxm, uint32_t B)
{
    return staged_ring_bytes(maxm) + (size_t)stage_of(B).TR;
}

HD uint32_t paper_nsteps(const dp_item &it) { return it.ncols + it.m - 1; }

HD void staged_init(paper_st &st, const dp_item &it, const stage_geom &sg, uint32_t g,
                    uint32_t B, int32_t *ring, uint8_t *TX)
{
    st.pc = g < it.m ? it.pat.at(g) : 0u;
    st.pend = 0;
    gcore::lm_init(st.lm);
    paper_ring_init(ring, ring_ld(it.m), it.m, g, B);
    stage_init<uint8_t>(TX, st.pend, it, sg, g);
}

template <int A, class Emit>
HD void staged_step(paper_st &st, const dp_item &it, const stage_geom &sg, uint32_t g,
                    uint32_t t, int32_t *ring, uint8_t *TX, Emit &emit)
{
    stage_step<uint8_t>(TX, st.pend, it, sg, g, t);
    const uint32_t c = t - g;                      /* row i = g + 1 */
    if (g >= it.m || t < g || c >= it.ncols) return;
    const ring_rows rr = ring_rows_of(t);
    const int32_t v = paper_cell<A>(ring, ring_ld(it.m), rr, g + 1, st.pc, TX[c & (sg.TR - 1)]);
    if (g + 1 == it.m) gcore::lm_push(st.lm, v, it.j0 + c, it.k, it.s0, it.s1, emit);
}

/* LOOP: rows g+1, g+1+B, ..; pattern and text from global memory. */
HD void loop_init(paper_st &st, const dp_item &it, uint32_t g, uint32_t B, int32_t *ring)
{
    st.pc = 0;
    st.pend = 0;
    gcore::lm_init(st.lm);
    paper_ring_init(ring, ring_ld(it.m), it.m, g, B);
}

template <int A, class Emit>
HD void loop_step(paper_st &st, const dp_item &it, uint32_t g, uint32_t B, uint32_t t,
                  int32_t *ring, Emit &emit)
{
    /* Rows with 0 <= t - i + 1 < ncols. */
    int64_t lo = (int64_t)t + 2 - (int64_t)it.ncols;
    if (lo < 1) lo = 1;
    int64_t hi = (int64_t)t + 1;
    if (hi > (int64_t)it.m) hi = it.m;
    int64_t i = (int64_t)g + 1;
    if (i < lo) i += (lo - i + B - 1) / B * B;
    if (i > hi) return;
    const ring_rows rr = ring_rows_of(t);
    const uint32_t LD = ring_ld(it.m);
    for (; i <= hi; i += B) {
        const uint32_t c = (uint32_t)((int64_t)t - i + 1);
        const int32_t v = paper_cell<A>(ring, LD, rr, (uint32_t)i, it.pat.at((uint32_t)i - 1),
                                        it.txt.at(it.j0 + c));
        if ((uint32_t)i == it.m) gcore::lm_push(st.lm, v, it.j0 + c, it.k, it.s0, it.s1, emit);
    }
}

/* STAGED and LOOP: the thread of row m closes the last column. */
template <class Emit>
HD void paper_finish(paper_st &st, const dp_item &it, uint32_t g, uint32_t B, Emit &emit)
{
    if (g == (it.m - 1) % B && it.jend == it.n)
        gcore::lm_push(st.lm, (int32_t)gcore::BIGD, it.n, it.k, it.s0, it.s1, emit);
}

}  /* namespace dpk */

#endif
