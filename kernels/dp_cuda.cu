/* dp_cuda.cu -- the CUDA dp kernel (--kernel dp): seed 000 (Man, Nakano,
 * Ito, "The approximate string matching on the Hierarchical Memory
 * Machine", §IV-V) with seed 001 §6-8: the plain edit-distance DP of
 * approximate string matching swept by anti-diagonals, the text split into
 * D segments, one CUDA block per segment.
 *
 * Contract: gpuasm_dp_cuda_launch() emits exactly the end hits that
 * gpuasm_cpu_scan() gives with opt.kernel = GPUASM_KERNEL_DP (search.h: the
 * local minima of D[m][.] that are <= k, for every searched (read, target,
 * strand); pair rule, k per pair and skipped pairs as in cpu_scan.c), in
 * edit mode, on the nt16 alphabet (match = (a & b) != 0, reads reverse-
 * complemented for strand 1) and the byte alphabet (match = a == b, strand
 * 0 only).  The DP itself has no cut-off: every cell is the full value
 * (D[i][j] <= i), values > k are simply never reported.
 *
 * Matrix (dp_cpu.c): D[0][j] = 0 (free start), D[i][j0-1] = i (fresh start
 * at the left edge of a window), D[i][j] = min(D[i-1][j-1] + (P[i-1] !~
 * T[j]), D[i-1][j] + 1, D[i][j-1] + 1).  Rows i = 1..m are pattern bases.
 *
 * Work items and segments (seed 000 §V): every searched (pair, strand) is
 * split into D segments [s0, s1) = [seg n / D, (seg+1) n / D) of its text
 * (D = opt.segments when > 0, else n / max(8 (m + k), 2048) rounded up;
 * never more than n, so no segment is empty).  One CUDA block per (pair,
 * strand, segment) computes the window [j0, jend): j0 = s0 - (m + k)
 * clamped at 0, jend = min(s1 + 1, n) (one column past the segment for the
 * right neighbour of the local-minimum test).  The paper's segments are
 * s + 2m long for the ASM value; for end hits m + k is what exactness
 * needs (an alignment with <= k differences covers <= m + k text bases:
 * "Segments" in myers_cuda.cu), so D[s0-1 .. s1] are exact wherever <= k
 * and the local-minimum rule (gcore::lm_push) reports j in [s0, s1) only.
 * Each segment's end hits go straight to the hit array: the minimum over
 * segments of seed 000 Step 4 (and seed 001 §8's bitmap) is not needed,
 * because we report every end position, not one ASM value.
 *
 * Two block programs (both: one __syncthreads per wavefront step):
 *
 * PAPER (opt.variant = paper): seed 000 §IV's "improved parallel ASM
 *   algorithm".  The matrix lives as a ring of 3 anti-diagonals x LD
 *   ints, LD = m + 1 rounded up to 32 (the paper's padding; here every
 *   thread of a step uses the same ring row, so accesses are conflict-free
 *   anyway and rows 128-byte aligned).  Ring row t mod 3 holds
 *   anti-diagonal t: cell (i, c) with c = t - i + 1 (c = window column).
 *   At step t each row i computes (i, t - i + 1) from ring[(t-1)%3][i]
 *   (left), ring[(t-1)%3][i-1] (up), ring[(t-2)%3][i-1] (diagonal) and
 *   writes ring[t%3][i]: 3 LDS + 1 STS per cell, as in the paper.  Row 0
 *   is ring[*][0] = 0; column -1 of row i (= i) is stored before the first
 *   step at ring[(i-2) mod 3][i], the slot anti-diagonal i - 2 would use
 *   (no boundary branches).  Steps: ncols + m - 1.
 *   - STAGED (m <= 1024): blockDim = m rounded up to 32, thread g = row
 *     g + 1 (seed 000's "m threads per block"), pattern base in a register,
 *     text staged in a shared-memory byte ring (below).  Shared memory:
 *     12 LD bytes + the text ring (<= 2 KiB): 14.4 KiB at m = 1024.
 *   - LOOP (m > 1024, or the knobs below): blockDim = min(m, 1024);
 *     thread g does rows g+1, g+1+blockDim, ... of the anti-diagonal;
 *     pattern and text read from global memory.  The ring in shared
 *     memory when 12 LD bytes fit the opt-in limit (m up to 18,432 on an
 *     H100), else in global scratch (slot 1: one ring per block of a wave;
 *     waves of at most 2 blocks per SM and 256 MiB).  Any m works (a
 *     100,000-base pattern: 1.2 MB ring per block, slow but exact).
 *
 * BEST (default): the same wavefront, tiled.  Thread g owns H consecutive
 *   rows and at step t computes the tile of R = 4 text columns q = t - g
 *   (window columns 4q .. 4q+3) for all its rows: 4 H cells per
 *   __syncthreads instead of 1.  Inside a thread the left and diagonal
 *   neighbours stay in registers; the only exchange is the tile of the
 *   thread's bottom row, which thread g+1 reads at step t+1 (int4,
 *   double-buffered by step parity: 2 x blockDim x 16 bytes, conflict-free
 *   128-bit accesses).  Cell: x = min(diag + mismatch, up + 1) (Hopper DPX
 *   __viaddmin_s32), then v = min(left + 1, x): one op on the serial
 *   left-to-right chain.  Steps: ceil(ncols / 4) + m / H.  Exact for the
 *   same reason as PAPER: the same recurrence in another order.
 *   - m <= 8192: H = 1, 2, 4, 8 (the smallest with m / H <= 1024, so
 *     m <= 1024 keeps "one thread per row"), rows' left values and codes
 *     in registers.  Shared memory 32 B per thread + the text ring (4 B
 *     per element): 40 KiB at 1024 threads.
 *   - BEST-MEM, m > 8192: blockDim = 1024, H = ceil(m / 1024), the rows'
 *     left values and codes in memory ([h][thread], 5 bytes per row):
 *     in shared memory after X and the text ring when that fits the
 *     opt-in limit (m up to about 37,000 on an H100), else a global slot
 *     per block (scratch slot 1, waves as LOOP).  3 memory accesses per
 *     row and tile of 4 cells (left load and store, code), against 4 per
 *     cell in LOOP.
 *
 * Text ring (STAGED, BEST): element x holds window columns x (STAGED) or
 *   4x .. 4x+3 (BEST, one byte each); thread g reads element t - g at step
 *   t.  Every C steps (C = largest power of 2 <= blockDim / 2) the first C
 *   threads store the elements [t + C, t + 2C) they loaded into a register
 *   C steps earlier and load [t + 2C, t + 3C): global latency is hidden
 *   behind C steps.  Ring size TR (power of 2) >= 2C + blockDim: the
 *   elements written at step t never alias one read at step t or later.
 *
 * Planning: the host walks the (read, target) pairs once (O(pairs)), sorts
 *   searched pairs into buckets of one block shape (path, blockDim, H; for
 *   LOOP the ring size class) and writes per bucket a compact plan: one
 *   16-byte entry (first item, read, target) per pair; item = strand + S x
 *   segment within a pair (S = strands).  A block finds its pair by binary
 *   search and derives m, n, k, strand and window with the same functions
 *   the host used.  Plans go through scratch slot 0 (cudaMemcpyAsync on
 *   b.stream), in chunks of at most 256 Ki pairs (bounded memory for 1M-read
 *   batches), grids of at most 2^30 blocks per launch.
 *
 * Limits: sequences < 2^31 bases (the handle checks); none on m.
 *
 * Test knobs (environment, read at every launch; for tests only):
 *   GPUASM_DP_ROWS=H          BEST: at least H rows per thread (1, 2, 4, 8)
 *   GPUASM_DP_THREADS=N       every pair through the memory-backed program
 *                             of its variant (PAPER: LOOP, BEST: BEST-MEM)
 *                             with at most N threads per block (1..1024),
 *                             so rows loop even for short patterns
 *   GPUASM_DP_FORCE_GLOBAL=1  the same with the ring / rows in global
 *                             scratch
 *   GPUASM_DP_PAIR_CHUNK=N    pairs per plan chunk (default 256 Ki)
 *
 * Per-thread logic is __host__ __device__ (the dp_* / best_* / paper_*
 * functions below); the kernels are thin loops of "init; sync; (step;
 * sync) x nsteps; finish", so a host harness can run the very same code
 * phase by phase over every thread of a block.
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <new>
#include <unordered_map>
#include <vector>

#include "cuda_kit.cuh"

namespace {

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
    const uint8_t *rcode;
    const uint64_t *roff;
    const uint8_t *tcode;
    const uint64_t *toff;
    const dp_entry *ent;      /* the bucket's entries */
    uint32_t nent;
    uint32_t strands;         /* 2 (nt16) or 1 (byte) */
    uint64_t item_base;       /* item of blockIdx.x == 0 */
    int32_t side, max_diffs;
    double error_rate;
    int32_t segments;         /* opt.segments */
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
HD uint32_t dp_find(const dp_entry *e, uint32_t ne, uint64_t item)
{
    uint32_t lo = 0, hi = ne;
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (e[mid].item0 <= item) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Item `item` (bucket-relative) of a launch: pair rule as gpuasm_cpu_scan. */
HD dp_item dp_decode(const dp_args &a, uint64_t item)
{
    dp_item it;
    const dp_entry e = a.ent[dp_find(a.ent, a.nent, item)];
    const uint64_t local = item - e.item0;
    it.r = e.r;
    it.t = e.t;
    it.strand = (uint32_t)(local % a.strands);
    const uint64_t seg = local / a.strands;
    const uint64_t rlen = a.roff[e.r + 1] - a.roff[e.r];
    const uint64_t tlen = a.toff[e.t + 1] - a.toff[e.t];
    const int rip = gcore::read_is_pattern(a.side, rlen, tlen);
    const uint8_t *rs = a.rcode + a.roff[e.r], *ts = a.tcode + a.toff[e.t];
    it.m = (uint32_t)(rip ? rlen : tlen);
    it.n = (uint32_t)(rip ? tlen : rlen);
    it.k = gcore::pair_k(a.max_diffs, a.error_rate, it.m);
    it.pat.p = rip ? rs : ts;
    it.pat.len = it.m;
    it.pat.rc = rip && it.strand;
    it.txt.p = rip ? ts : rs;
    it.txt.len = it.n;
    it.txt.rc = !rip && it.strand;
    const uint64_t nseg = dp_nseg(it.m, it.k, it.n, a.segments);
    const uint64_t s0 = seg * it.n / nseg, s1 = (seg + 1) * it.n / nseg;
    const uint64_t ov = (uint64_t)it.m + (uint64_t)it.k;
    it.s0 = (uint32_t)s0;
    it.s1 = (uint32_t)s1;
    it.j0 = (uint32_t)(s0 > ov ? s0 - ov : 0);
    it.jend = (uint32_t)(s1 + 1 < it.n ? s1 + 1 : it.n);
    it.ncols = it.jend - it.j0;
    return it;
}

/* emit(j, d) of one item. */
template <class Out> struct dp_emit {
    Out *out;
    uint32_t r, t, s;
    HD void operator()(uint32_t j, int32_t d) { out->emit(r, t, j, d, s); }
};

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
        int32_t d = dg;
        DEV_UNROLL
        for (int c = 0; c < DP_R; ++c) {
            const uint32_t tc = A == DP_ALPHA_BYTE ? (w >> (8 * c)) & 0xffu : (w >> (8 * c));
            const int32_t v = dp_cell(d, dp_ne<A>(st.pc[h], tc), up[c], l);
            d = up[c];
            up[c] = v;
            l = v;
        }
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
        int32_t d = dg;
        DEV_UNROLL
        for (int c = 0; c < DP_R; ++c) {
            const uint32_t tc = A == DP_ALPHA_BYTE ? (w >> (8 * c)) & 0xffu : (w >> (8 * c));
            const int32_t v = dp_cell(d, dp_ne<A>(pc, tc), up[c], l);
            d = up[c];
            up[c] = v;
            l = v;
        }
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

/* ---- kernels: init; sync; (step; sync) x nsteps; finish ------------------ */

template <int H, int A>
__global__ void __launch_bounds__(DP_MAX_THREADS) k_best(dp_args a, dev_out out)
{
    extern __shared__ int4 dp_smem[];
    const dp_item it = dp_decode(a, a.item_base + blockIdx.x);
    const best_geo geo = best_geo_of(it, blockDim.x, H);
    int4 *X = dp_smem;
    uint32_t *TX = (uint32_t *)(dp_smem + 2 * (size_t)geo.B);
    const uint32_t g = threadIdx.x;
    dp_emit<dev_out> em = { &out, it.r, it.t, it.strand };
    best_st<H> st;
    best_init<H>(st, it, geo, g, TX);
    __syncthreads();
    for (uint32_t t = 0; t < geo.nsteps; ++t) {
        best_step<H, A>(st, it, geo, g, t, X, TX, em);
        __syncthreads();
    }
    best_finish<H>(st, it, geo, g, em);
}

template <int A>
__global__ void __launch_bounds__(DP_MAX_THREADS) k_staged(dp_args a, dev_out out)
{
    extern __shared__ int4 dp_smem[];
    const dp_item it = dp_decode(a, a.item_base + blockIdx.x);
    const uint32_t B = blockDim.x, g = threadIdx.x;
    const stage_geom sg = stage_of(B);
    int32_t *ring = (int32_t *)dp_smem;
    uint8_t *TX = (uint8_t *)dp_smem + staged_ring_bytes(it.m);
    dp_emit<dev_out> em = { &out, it.r, it.t, it.strand };
    paper_st st;
    staged_init(st, it, sg, g, B, ring, TX);
    __syncthreads();
    const uint32_t nsteps = paper_nsteps(it);
    for (uint32_t t = 0; t < nsteps; ++t) {
        staged_step<A>(st, it, sg, g, t, ring, TX, em);
        __syncthreads();
    }
    paper_finish(st, it, g, B, em);
}

template <int GLOBAL, int A>
__global__ void __launch_bounds__(DP_MAX_THREADS) k_loop(dp_args a, dev_out out)
{
    extern __shared__ int4 dp_smem[];
    const dp_item it = dp_decode(a, a.item_base + blockIdx.x);
    const uint32_t B = blockDim.x, g = threadIdx.x;
    int32_t *ring = GLOBAL ? a.gring + (size_t)blockIdx.x * a.ring_words : (int32_t *)dp_smem;
    dp_emit<dev_out> em = { &out, it.r, it.t, it.strand };
    paper_st st;
    loop_init(st, it, g, B, ring);
    __syncthreads();
    const uint32_t nsteps = paper_nsteps(it);
    for (uint32_t t = 0; t < nsteps; ++t) {
        loop_step<A>(st, it, g, B, t, ring, em);
        __syncthreads();
    }
    paper_finish(st, it, g, B, em);
}

template <int GLOBAL, int A>
__global__ void __launch_bounds__(DP_MAX_THREADS) k_bestm(dp_args a, dev_out out)
{
    extern __shared__ int4 dp_smem[];
    const dp_item it = dp_decode(a, a.item_base + blockIdx.x);
    const bestm_geo geo = bestm_geo_of(it, blockDim.x);
    int4 *X = dp_smem;
    uint32_t *TX = (uint32_t *)(dp_smem + 2 * (size_t)geo.g.B);
    unsigned char *rows = GLOBAL ? (unsigned char *)(a.gring + (size_t)blockIdx.x * a.ring_words)
                                 : (unsigned char *)(TX + geo.g.sg.TR);
    const uint32_t g = threadIdx.x;
    dp_emit<dev_out> em = { &out, it.r, it.t, it.strand };
    bestm_st st;
    bestm_init(st, it, geo, g, TX, rows);
    __syncthreads();
    for (uint32_t t = 0; t < geo.g.nsteps; ++t) {
        bestm_step<A>(st, it, geo, g, t, X, TX, rows, em);
        __syncthreads();
    }
    bestm_finish(st, it, geo, g, em);
}

/* ---- host planning -------------------------------------------------------- */

struct dp_knobs {
    uint32_t rows;            /* BEST: at least this many rows per thread */
    uint32_t threads;         /* 0, or every pair through LOOP / BEST-MEM, <= this many threads */
    int force_global;         /* every pair through LOOP / BEST-MEM, store in global scratch */
    size_t pair_chunk;
};

/* Blocks of one shape; entries of one plan chunk. */
struct dp_bucket {
    int path;
    uint32_t B, H;            /* H: BEST, BEST-MEM shared */
    uint32_t maxm;
    uint64_t items;
    std::vector<dp_entry> e;
};

static uint32_t round32(uint64_t x) { return (uint32_t)((x + 31u) & ~(uint64_t)31u); }

static long env_long(const char *name, long dflt)
{
    const char *s = getenv(name);
    if (!s || !*s) return dflt;
    char *end = NULL;
    long v = strtol(s, &end, 10);
    return (end && *end == 0) ? v : dflt;
}

static dp_knobs dp_knobs_from_env(void)
{
    dp_knobs K;
    long h = env_long("GPUASM_DP_ROWS", 1);
    K.rows = h >= 8 ? 8 : h >= 4 ? 4 : h >= 2 ? 2 : 1;
    long lt = env_long("GPUASM_DP_THREADS", 0);
    K.threads = lt >= 1 && lt <= DP_MAX_THREADS ? (uint32_t)lt : 0;
    K.force_global = env_long("GPUASM_DP_FORCE_GLOBAL", 0) != 0;
    long pc = env_long("GPUASM_DP_PAIR_CHUNK", DP_DEFAULT_PAIR_CHUNK);
    K.pair_chunk = pc >= 1 ? (size_t)pc : (size_t)DP_DEFAULT_PAIR_CHUNK;
    return K;
}

/* Bucket key of a pair with pattern length m (blocks of one launch share
 * blockDim and the dynamic shared memory size).  smem_optin: the device's
 * opt-in shared memory per block (bytes). */
static uint64_t dp_classify(const dp_knobs &K, int paper, uint32_t m, size_t smem_optin,
                            int *path, uint32_t *B, uint32_t *H)
{
    const int mem = K.threads || K.force_global;   /* memory-backed programs forced */
    const uint32_t bl = K.threads ? K.threads : (uint32_t)DP_MAX_THREADS;
    const uint32_t bm = round32(m) < bl ? round32(m) : bl;   /* their blockDim */
    if (!paper) {
        if (!mem && m <= DP_BEST_MAX_M) {
            uint32_t h = K.rows;
            while ((m + h - 1) / h > DP_MAX_THREADS) h *= 2;
            *path = PATH_BEST;
            *H = h;
            *B = round32((m + h - 1) / h);
            return ((uint64_t)PATH_BEST << 60) | ((uint64_t)h << 32) | *B;
        }
        *B = bm;
        *H = (m + bm - 1) / bm;
        if (K.force_global || best_smem(bm) + bestm_rows_bytes(*H, bm) > smem_optin) {
            *path = PATH_BESTM_GL;
            return ((uint64_t)PATH_BESTM_GL << 60) | *B;
        }
        *path = PATH_BESTM_SH;
        return ((uint64_t)PATH_BESTM_SH << 60) | ((uint64_t)*H << 32) | *B;
    }
    *H = 1;
    if (!mem && m <= DP_STAGED_MAX_M) {
        *path = PATH_STAGED;
        *B = round32(m);
        return ((uint64_t)PATH_STAGED << 60) | *B;
    }
    *B = bm;
    /* Ring class: m rounded up to 1024 (one smem size per launch). */
    const uint64_t cls = ((uint64_t)m + 1023) / 1024;
    const size_t bytes = (size_t)3 * ring_ld((uint32_t)(cls * 1024)) * sizeof(int32_t);
    if (K.force_global || bytes > smem_optin) {
        *path = PATH_LOOP_GL;
        return ((uint64_t)PATH_LOOP_GL << 60) | *B;
    }
    *path = PATH_LOOP_SH;
    return ((uint64_t)PATH_LOOP_SH << 60) | (cls << 32) | *B;
}

/* What a plan walks: the batch's host view. */
struct dp_plan_in {
    uint32_t nreads, ntargets;
    const uint64_t *roff, *toff;
    gpuasm_search_opt opt;
};

/* Walk every (read, target) pair once; searched pairs go to their bucket;
 * flush(buckets) every pair_chunk entries and at the end.  0 or -1 (from
 * flush). */
template <class Flush>
static int dp_plan(const dp_plan_in &P, const dp_knobs &K, size_t smem_optin, Flush &flush)
{
    const gpuasm_search_opt &o = P.opt;
    const uint32_t strands = (uint32_t)gpuasm_strands(&o);
    const int paper = o.variant == GPUASM_VARIANT_PAPER;
    std::vector<dp_bucket> bk;
    std::unordered_map<uint64_t, size_t> idx;
    uint64_t last_key = ~(uint64_t)0;
    size_t last_b = 0, pending = 0;
    for (uint32_t r = 0; r < P.nreads; ++r) {
        const uint64_t rlen = P.roff[r + 1] - P.roff[r];
        for (uint32_t t = 0; t < P.ntargets; ++t) {
            const uint64_t tlen = P.toff[t + 1] - P.toff[t];
            const int rip = gcore::read_is_pattern(o.pattern_side, rlen, tlen);
            const uint64_t m = rip ? rlen : tlen, n = rip ? tlen : rlen;
            const int32_t k = gcore::pair_k(o.max_diffs, o.error_rate, m);
            if (!gcore::searched(m, k, n)) continue;
            int path;
            uint32_t B, H;
            const uint64_t key = dp_classify(K, paper, (uint32_t)m, smem_optin, &path, &B, &H);
            size_t bi;
            if (key == last_key) {
                bi = last_b;
            } else {
                auto f = idx.find(key);
                if (f == idx.end()) {
                    bi = bk.size();
                    idx.emplace(key, bi);
                    dp_bucket nb;
                    nb.path = path;
                    nb.B = B;
                    nb.H = H;
                    nb.maxm = 0;
                    nb.items = 0;
                    bk.push_back(nb);
                } else {
                    bi = f->second;
                }
                last_key = key;
                last_b = bi;
            }
            dp_bucket &b = bk[bi];
            dp_entry e;
            e.item0 = b.items;
            e.r = r;
            e.t = t;
            b.e.push_back(e);
            b.items += strands * dp_nseg(m, k, n, o.segments);
            if ((uint32_t)m > b.maxm) b.maxm = (uint32_t)m;
            if (++pending >= K.pair_chunk) {
                if (flush(bk)) return -1;
                for (auto &x : bk) {
                    x.e.clear();
                    x.items = 0;
                    x.maxm = 0;
                }
                pending = 0;
            }
        }
    }
    if (pending && flush(bk)) return -1;
    return 0;
}

/* Dynamic shared memory of a bucket's blocks (bytes). */
static size_t dp_bucket_smem(const dp_bucket &b)
{
    switch (b.path) {
    case PATH_BEST: return best_smem(b.B);
    case PATH_STAGED: return staged_smem(b.maxm, b.B);
    case PATH_LOOP_SH: return (size_t)3 * ring_ld(b.maxm) * sizeof(int32_t);
    case PATH_BESTM_SH: return best_smem(b.B) + bestm_rows_bytes(b.H, b.B);
    case PATH_BESTM_GL: return best_smem(b.B);
    default: return 0;
    }
}

/* LOOP_GL, BESTM_GL: int32 words of one block's global slot. */
static uint64_t dp_gl_words(const dp_bucket &b)
{
    if (b.path == PATH_LOOP_GL) return (uint64_t)3 * ring_ld(b.maxm);
    return (bestm_rows_bytes((b.maxm + b.B - 1) / b.B, b.B) + 3) / 4;
}

/* Blocks per wave = global slots (at most 2 per SM, the most 1024-thread
 * blocks an SM holds, and DP_GRING_BUDGET bytes in all). */
static uint64_t dp_gl_wave(const dp_bucket &bk, int sm_count)
{
    const size_t slot = (size_t)dp_gl_words(bk) * sizeof(int32_t);
    uint64_t ns = DP_GRING_BUDGET / slot;
    const uint64_t resident = 2 * (uint64_t)(sm_count > 0 ? sm_count : 1);
    if (ns > resident) ns = resident;
    if (ns > bk.items) ns = bk.items;
    if (ns < 1) ns = 1;
    return ns;
}

/* ---- device launch -------------------------------------------------------- */

typedef void (*dp_kernel_fn)(dp_args, dev_out);

/* The kernel of a bucket's block program. */
template <int A>
static dp_kernel_fn dp_kernel_of(const dp_bucket &bk)
{
    switch (bk.path) {
    case PATH_BEST:
        return bk.H == 1 ? k_best<1, A> : bk.H == 2 ? k_best<2, A> : bk.H == 4 ? k_best<4, A>
                                                                                : k_best<8, A>;
    case PATH_STAGED: return k_staged<A>;
    case PATH_LOOP_SH: return k_loop<0, A>;
    case PATH_LOOP_GL: return k_loop<1, A>;
    case PATH_BESTM_SH: return k_bestm<0, A>;
    default: return k_bestm<1, A>;
    }
}

/* Launch every item of a bucket: grids of at most DP_MAX_GRID blocks, or
 * waves of the global slots (scratch slot 1) for LOOP_GL / BESTM_GL. */
template <int A>
static int dp_launch_bucket(const dp_bucket &bk, const kit_batch &b, dp_args a, dev_out out,
                            char *err, size_t errlen)
{
    const dp_kernel_fn kern = dp_kernel_of<A>(bk);
    const size_t smem = dp_bucket_smem(bk);
    if (smem > 48 * 1024)
        KIT_CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    uint64_t wave = DP_MAX_GRID;
    if (bk.path == PATH_LOOP_GL || bk.path == PATH_BESTM_GL) {
        a.ring_words = dp_gl_words(bk);
        wave = dp_gl_wave(bk, b.sm_count);
        void *p = NULL;
        if (kit_grow(b, 1, (size_t)wave * a.ring_words * sizeof(int32_t), &p, err, errlen))
            return -1;
        a.gring = (int32_t *)p;
    }
    for (uint64_t i0 = 0; i0 < bk.items; i0 += wave) {
        const uint64_t nb = bk.items - i0 < wave ? bk.items - i0 : wave;
        a.item_base = i0;
        kern<<<(unsigned)nb, bk.B, smem, b.stream>>>(a, out);
        KIT_CK_LAUNCH("dp kernel");
    }
    return 0;
}

/* The launch arguments every bucket shares (sequences on the device). */
static dp_args dp_args_of(const gpuasm_search_opt &o, const uint8_t *rcode, const uint64_t *roff,
                          const uint8_t *tcode, const uint64_t *toff)
{
    dp_args a;
    memset(&a, 0, sizeof a);
    a.rcode = rcode;
    a.roff = roff;
    a.tcode = tcode;
    a.toff = toff;
    a.strands = (uint32_t)gpuasm_strands(&o);
    a.side = o.pattern_side;
    a.max_diffs = o.max_diffs;
    a.error_rate = o.error_rate;
    a.segments = o.segments;
    return a;
}

/* One plan chunk as uploaded: every bucket's entries back to back in
 * host; bucket i's start at off[i]. */
static void dp_concat(const std::vector<dp_bucket> &bk, std::vector<dp_entry> &host,
                      std::vector<size_t> &off)
{
    host.clear();
    off.resize(bk.size());
    for (size_t i = 0; i < bk.size(); ++i) {
        off[i] = host.size();
        host.insert(host.end(), bk[i].e.begin(), bk[i].e.end());
    }
}

/* Upload one plan chunk (slot 0) and launch its buckets. */
struct dp_device_flush {
    const kit_batch *b;
    dev_out out;
    char *err;
    size_t errlen;
    std::vector<dp_entry> host;   /* the chunk, buckets back to back */
    int flushes;

    int operator()(std::vector<dp_bucket> &bk)
    {
        std::vector<size_t> off;
        dp_concat(bk, host, off);
        if (host.empty()) return 0;
        /* The previous chunk's kernels still read slot 0: wait for them
         * before the copy overwrites it (and before the host buffer is
         * refilled, whatever the driver does with pageable memory). */
        if (flushes++) KIT_CK(cudaStreamSynchronize(b->stream));
        void *p = NULL;
        if (kit_grow(*b, 0, host.size() * sizeof(dp_entry), &p, err, errlen)) return -1;
        KIT_CK(cudaMemcpyAsync(p, host.data(), host.size() * sizeof(dp_entry),
                               cudaMemcpyHostToDevice, b->stream));
        dp_args a = dp_args_of(b->opt, b->d_rcode, b->d_roff, b->d_tcode, b->d_toff);
        const int byte = b->opt.alphabet == GPUASM_ALPHABET_BYTE;
        for (size_t i = 0; i < bk.size(); ++i) {
            if (bk[i].e.empty()) continue;
            a.ent = (const dp_entry *)p + off[i];
            a.nent = (uint32_t)bk[i].e.size();
            const int rc = byte ? dp_launch_bucket<DP_ALPHA_BYTE>(bk[i], *b, a, out, err, errlen)
                                : dp_launch_bucket<DP_ALPHA_NT16>(bk[i], *b, a, out, err, errlen);
            if (rc) return -1;
        }
        return 0;
    }
};

}  /* namespace */

int gpuasm_dp_cuda_launch(const kit_batch &b, dev_out out, char *err, size_t errlen)
{
    if (b.nreads == 0 || b.ntargets == 0) return 0;
    int dev = 0, optin = 0;
    KIT_CK(cudaGetDevice(&dev));
    KIT_CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    const dp_knobs K = dp_knobs_from_env();
    dp_plan_in P;
    P.nreads = b.nreads;
    P.ntargets = b.ntargets;
    P.roff = b.h_roff;
    P.toff = b.h_toff;
    P.opt = b.opt;
    dp_device_flush fl;
    fl.b = &b;
    fl.out = out;
    fl.err = err;
    fl.errlen = errlen;
    fl.flushes = 0;
    try {
        return dp_plan(P, K, (size_t)optin, fl);
    } catch (const std::bad_alloc &) {
        snprintf(err, errlen, "dp kernel: out of memory (plan)");
        return -1;
    }
}
