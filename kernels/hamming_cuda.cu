/* hamming_cuda.cu -- the CUDA hamming kernel (seed 004: k-mismatch on the
 * GPU) behind gpuasm_hamming_cuda_launch() (cuda_kit.cuh).
 *
 * Problem (search.h, "Hamming mode"; seed 004 Definition 3): for every
 * searched (read, target, strand), D[m][j] = mismatches of the pattern
 * against T[j-m+1 .. j] for j in [m-1, n-1]; the end hits are the local
 * minima of D[m][.] that are <= k (positions j < m-1 count as > k).
 * Exactly the hits of gpuasm_cpu_scan() with GPUASM_KERNEL_HAMMING
 * (kernels/hamming_cpu.c + the local-minimum filter of cpu_scan.c).
 *
 * ---- Work items (every variant) ------------------------------------------
 * A batch has two orientations: O1 = the read is the text (pattern = a
 * target: adapters, seed 004 Figs. 13-14 where a 100 Mb "read" is searched
 * for 16..1024-base patterns) and O2 = the read is the pattern (text = a
 * target).  For each, X = the text set (reads for O1, targets for O2) is
 * taken as ONE string, the concatenation of its sequences (the batch's
 * offsets as they are), and Y = the pattern set.  A window is identified by
 * its start g in X; it is searched for pattern y iff it lies inside one
 * sequence x of X and (x, y) is a pair of this orientation under search.h's
 * pair rule (win_ok()).  X is cut into tiles of window starts; a work item
 * is (tile, chunk of candidate patterns), a block runs one item at a time
 * (grid-stride over 64-bit item numbers, grid = SMs x resident blocks), and
 * loops over the chunk's patterns and both strands.  So 1 M short reads x a
 * few targets and a few 100 Mb reads x one pattern both give millions of
 * equal items: both fill the GPU.  Candidate patterns (host, plan()) are
 * those that can have a window at all; their indices are uploaded once.
 *
 * Strands: the text is always X forward; strand 1 searches rc(pattern)
 * (nt16: match(comp a, b) == match(a, comp b)).  For O2 that is search.h's
 * strand 1 as is (the read, i.e. the pattern, is reverse-complemented).  For
 * O1 (the read is the text), the window of rc(read) ending at j is the
 * reverse complement of the read window starting at s = n-1-j, so
 * D_rc[j] = mismatches(rc(P), read[s .. s+m-1]): the same window start, the
 * reported end j = n-1-s and left/right neighbours swapped (report()).  The
 * byte alphabet has strand 0 only.
 *
 * Tiles and exactness: a tile computes CW consecutive window starts
 * b0 .. b0+CW-1 (b0 = tile x (CW-2) - 1) and reports only the middle CW-2,
 * so both neighbours of every reported window are computed in the same
 * block and exchanged through shared memory (d_s).  Tiles partition X's
 * window starts, so every window is reported by exactly one block.  A
 * window that leaves its sequence (j < m-1 or j > n-1) is BIGD (> k),
 * which is the contract's "no neighbour" / "counts as > k"; so is a
 * neighbour start in another sequence (report() checks sl: with m = 1 the
 * previous sequence's last window is a searched window).  D is counted
 * in full (no early exit, as in the paper), so neighbours are exact.
 *
 * ---- Variants (b.opt.variant; same hits) -----------------------------------
 * THREAD (seed 004 §IV.A, "thread"): one thread per window start (256 per
 *     block), pattern and text read from global memory, one byte each per
 *     cell; only D goes through shared memory (for the neighbour test).
 *     ~6 ops per cell (2 loads, compare, add, loop).
 * PAPER (seed 004 §IV.C, OPT-block-thread, Algorithms 5-6): BlockDim = 256
 *     threads, one per window start; the block stages its pattern P' (m
 *     bytes) and text tile T' (BlockDim + m - 1 bytes) in shared memory,
 *     then thread c counts ham(P', T'[c .. c+m-1]).  ~4 ops per cell (two
 *     LDS.U8, compare, add).  Patterns longer than PAPER_MAX_M (32768:
 *     ~66 KB of shared memory) go to the THREAD layout (global memory).
 * BEST (ours): bit planes and popcount.  A text word x holds 32 positions
 *     as NPT bit planes (nt16: 4 one-hot planes A, C, G, T of the code, so
 *     an IUPAC set or the 0 code is just its set bits; byte: the 8 bit
 *     planes of the symbol).  Per pattern and strand the block builds in
 *     shared memory the pattern at all 32 shifts: tab[w][r] = planes of
 *     pattern positions 32w + b - r (b = 0..31), zero outside [0, m), by
 *     one funnel shift per plane from the packed pattern.  Lane r of warp
 *     wp owns the V window starts 32 (V wp + v) + r (v = 0..V-1): all its
 *     windows have the same shift r, so window v is aligned with text words
 *     V wp + v + w and
 *         matches(v) = sum_w popc(match(tab[w][r], text[V wp + v + w])),
 *         nt16: match = (Pa&Ta) | (Pc&Tc) | (Pg&Tg) | (Pt&Tt)   (4 LOP3),
 *         byte: match = valid & ~OR_p(P_p ^ T_p)  (valid = a 9th pattern plane),
 *     D = m - matches: exact for IUPAC sets and 0 codes (no 2-bit
 *     shortcut that would need pure ACGT).  The V text words in use sit in
 *     a register ring (one new LDS.128 per w, shared by V windows) and
 *     tab[w][r] is one LDS.128 per lane per w (conflict-free, shared by V
 *     windows).  nt16: V = 8, 8 warps: CW = 2048 window starts per tile,
 *     8 patterns per item; byte: V = 4 (twice the planes), CW = 1024.
 *     Text and pattern are packed by warp ballots (one __ballot_sync per
 *     plane per 32 positions).
 *     Expected ops per window (nt16): NW = floor((m+62)/32) words, each
 *     4 LOP3 + POPC + IADD + 2/V loads + a uniform guard ~ 6.5 ops, plus
 *     ~25 per window and pattern (validity, D store, neighbour test):
 *     m = 16: ~38 ops (THREAD ~100), m = 256: ~84 (THREAD ~1500),
 *     m = 1024: ~240 (THREAD ~6000, PAPER ~4000).  Ceiling (a prediction,
 *     not a measurement; BENCHMARKS.md has the measured reproduction): POPC
 *     runs at 16 per clock per SM on sm_90, a quarter of LOP3/IADD (CUDA
 *     Programming Guide, arithmetic instruction throughput), so POPC alone
 *     caps the inner loop at 512 cells per clock per SM and the 5 LOP3/IADD
 *     at ~410: ~400 cells/clk/SM, ~90 T cells/s on 132 SMs at 1.7 GHz.
 *     Limits: the table takes 512 bytes per pattern word (nt16; byte 1536):
 *     patterns up to BEST_MAX_M (nt16 8192: ~150 KB; byte 2048: ~110 KB) use
 *     it, longer ones the THREAD layout.
 *
 * The per-thread and per-warp logic is __host__ __device__ code written
 * once against a "team" (dev_team: this thread, __syncthreads, ballots;
 * host_team: a loop over the block's threads with the same phases), so a
 * host program runs exactly the kernels' code on the CPU.  Only dev_team
 * (ballot packing: bit b of __ballot_sync = lane b), the kernel wrappers
 * and launch_one() are device-only.  Codes: nt16 codes are 4-bit sets
 * (nt16.h); BEST reads only those 4 bits, THREAD and PAPER compare whole
 * bytes like the twin.
 *
 * Test knob (environment, read at every launch): GPUASM_CUDA_HAMMING_SMEM_M=N
 * lowers the longest pattern of the shared-memory layouts (PAPER, BEST) to
 * N, so short patterns exercise the THREAD fallback; 0 sends everything
 * there.
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "cuda_kit.cuh"

namespace ham {

using gcore::seqv;

enum {
    TB = 256,              /* threads per block, every variant */
    NWARP = TB / 32,
    BIGD = gcore::BIGD,    /* D of a window that is not searched (> every k) */
    PAPER_MAX_M = 32768,
    BEST_MAX_M_NT16 = 8192,
    BEST_MAX_M_BYTE = 2048,
    BEST_PC = 8,           /* patterns per BEST item (amortises the text tile) */
    KIND_THREAD = 0, KIND_PAPER = 1, KIND_BEST = 2
};

/* Shapes of the BEST layout: V windows per thread, NPT text planes, NPP
 * pattern planes stored with stride NPPS (a multiple of 4: uint4 loads). */
template <int BYTE> struct shape;
template <> struct shape<0> { enum { V = 8, NPT = 4, NPP = 4, NPPS = 4, CW = 32 * V * NWARP }; };
template <> struct shape<1> { enum { V = 4, NPT = 8, NPP = 9, NPPS = 12, CW = 32 * V * NWARP }; };

/* One launch: an orientation, a pattern-length range, a layout. */
struct lp {
    const uint8_t *xcode;      /* text set X, concatenated */
    const uint64_t *xoff;      /* [nx + 1] */
    uint64_t xtotal;           /* xoff[nx] */
    uint32_t nx;
    uint32_t xmax;             /* longest sequence of X */
    const uint8_t *ycode;      /* pattern set Y */
    const uint64_t *yoff;
    const uint32_t *cand;      /* [ncand] candidate pattern indices */
    uint64_t ncand;
    int32_t o1;                /* 1: X = reads (O1), 0: X = targets (O2) */
    int32_t side, max_diffs, strands;
    double error_rate;
    uint32_t m_lo, m_hi;       /* pattern lengths this launch takes (m_hi sizes shared memory) */
    uint32_t pc;               /* candidate patterns per item */
    uint32_t cw;               /* window starts computed per tile (reports cw - 2) */
    uint64_t ntiles, nitems;
};

/* ---- small helpers ----------------------------------------------------- */

HD uint32_t popc32(uint32_t x)
{
#ifdef __CUDA_ARCH__
    return (uint32_t)__popc(x);
#else
    return (uint32_t)__builtin_popcount(x);
#endif
}

/* The high word of (hi:lo) << r, r in [0, 31]. */
HD uint32_t funnel_l(uint32_t lo, uint32_t hi, uint32_t r)
{
#ifdef __CUDA_ARCH__
    return __funnelshift_l(lo, hi, r);
#else
    return r ? (hi << r) | (lo >> (32u - r)) : hi;
#endif
}

/* twin.h's gpuasm_sym_match, negated. */
template <int BYTE> HD uint32_t mism(uint32_t a, uint32_t b)
{
    return BYTE ? (uint32_t)(a != b) : (uint32_t)((a & b) == 0);
}

HD uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Code of X at global position g; 0 outside X (such windows are never
 * searched, the value only fills the tile). */
HD uint32_t text_code(const lp &L, int64_t g)
{
    return (g >= 0 && (uint64_t)g < L.xtotal) ? (uint32_t)L.xcode[g] : 0u;
}

/* A pattern of Y in its strand-0 orientation. */
struct patv {
    seqv v;
    uint32_t y, m;
    int32_t k;
};

HD patv pattern_at(const lp &L, uint32_t y)
{
    patv P;
    P.y = y;
    P.m = (uint32_t)(L.yoff[y + 1] - L.yoff[y]);
    P.k = gcore::pair_k(L.max_diffs, L.error_rate, P.m);
    P.v.p = L.ycode + L.yoff[y];
    P.v.len = P.m;
    P.v.rc = 0;
    return P;
}

/* Can pattern (m, k) have a searched window in this launch?  search.h skips
 * m <= k; the orientation must be possible under --pattern; some sequence
 * of X must be at least m long.  A superset of the exact per-window rule
 * (win_ok), so it never drops a hit; the host uses it to pick candidates. */
HD int pattern_ok(const lp &L, uint32_t m, int32_t k)
{
    if (m < L.m_lo || m > L.m_hi) return 0;
    if (m == 0 || k < 0 || (int64_t)m <= (int64_t)k) return 0;
    if (L.o1 ? L.side == GPUASM_PATTERN_READ : L.side == GPUASM_PATTERN_TARGET) return 0;
    return L.xmax >= m;
}

/* The window starting at X position g: sequence x, local start sl, length
 * n of x (n == 0: g is outside X). */
struct win {
    uint32_t x, sl, n;
};

/* Sequences xr[0] .. xr[1] hold the positions of the tile [b0, b0 + cw). */
HD void tile_range(const lp &L, int64_t b0, uint32_t cw, uint32_t *xr)
{
    const uint64_t first = b0 < 0 ? 0 : (uint64_t)b0;
    const uint64_t last = min_u64((uint64_t)(b0 + (int64_t)cw - 1), L.xtotal - 1);
    xr[0] = (uint32_t)gcore::find_slot(L.xoff, L.nx, first);
    xr[1] = (uint32_t)gcore::find_slot(L.xoff, L.nx, last);
}

HD win window_at(const lp &L, const uint32_t *xr, int64_t g)
{
    win w;
    w.x = 0;
    w.sl = 0;
    w.n = 0;
    if (g < 0 || (uint64_t)g >= L.xtotal) return w;
    /* The largest x in [xr0, xr1] with xoff[x] <= g; empty sequences share
     * their offset with the next one, so this is the one that holds g. */
    const uint32_t x = xr[0] + (uint32_t)gcore::find_slot(L.xoff + xr[0],
                                                          (uint64_t)(xr[1] - xr[0]) + 1, (uint64_t)g);
    w.x = x;
    w.sl = (uint32_t)((uint64_t)g - L.xoff[x]);
    w.n = (uint32_t)(L.xoff[x + 1] - L.xoff[x]);
    return w;
}

/* Is window w searched for a pattern of m bases?  Inside its sequence, and
 * (x, pattern) is a pair of this orientation (search.h's pair rule). */
HD int win_ok(const lp &L, const win &w, uint32_t m)
{
    if (w.n < m || w.sl > w.n - m) return 0;
    return L.o1 ? !gcore::read_is_pattern(L.side, w.n, m)
                : gcore::read_is_pattern(L.side, m, w.n);
}

/* The local-minimum test (search.h) for computed window c of a tile, with
 * d_s[0 .. cw) = D of the tile's windows (BIGD where not searched).  Only
 * c in [1, cw-2] is reported; its neighbours are in d_s. */
template <class Emit>
HD void report(const lp &L, const win &w, const patv &P, uint32_t s, const int32_t *d_s,
               uint32_t c, uint32_t cw, Emit &emit)
{
    if (c == 0 || c + 1 >= cw) return;
    const int32_t d = d_s[c];
    if (d > P.k) return;
    /* The windows at c-1 and c+1 are neighbours only inside the same
     * sequence (for m = 1 the last window of the previous sequence is a
     * searched window too). */
    const int32_t dm = w.sl > 0 ? d_s[c - 1] : (int32_t)BIGD;
    const int32_t dp = w.sl + P.m < w.n ? d_s[c + 1] : (int32_t)BIGD;
    /* O1 strand 1: j = n-1-sl runs backwards in c. */
    const int flip = L.o1 && s;
    const int32_t left = flip ? dp : dm;
    const int32_t right = flip ? dm : dp;
    if (left > d && right >= d) {
        const uint32_t j = flip ? w.n - 1u - w.sl : w.sl + P.m - 1u;
        emit(L.o1 ? w.x : P.y, L.o1 ? P.y : w.x, j, d, s);
    }
}

/* ---- teams: the same block program on the device and on the host ------ */

/* On the device: this thread; barriers; warp ballots. */
struct dev_team {
    enum { NL = 1 };   /* per-thread state slots held by this thread */
    template <class F> HD void each(F f)
    {
#ifdef __CUDA_ARCH__
        f((uint32_t)threadIdx.x, 0u);
#else
        (void)f;
#endif
    }
    HD void sync()
    {
#ifdef __CUDA_ARCH__
        __syncthreads();
#endif
    }
    template <class F> HD int sync_or(F f)
    {
#ifdef __CUDA_ARCH__
        return __syncthreads_or(f((uint32_t)threadIdx.x, 0u) ? 1 : 0);
#else
        (void)f;
        return 0;
#endif
    }
    /* Pack words 0 .. nwords-1: store(x, p, bits) gets plane p of word x,
     * bit b = bit p of code(x, b).  Warp wp packs words wp, wp + NWARP, ..:
     * lane b fetches code(x, b), one ballot per plane (bit b = lane b). */
    template <int NPL, class C, class S> HD void stage_words(uint32_t nwords, C code, S store)
    {
#ifdef __CUDA_ARCH__
        const uint32_t lane = threadIdx.x & 31u;
        for (uint32_t x = threadIdx.x >> 5; x < nwords; x += NWARP) {
            const uint32_t c = code(x, lane);
            uint32_t mine = 0;
            DEV_UNROLL
            for (int p = 0; p < NPL; ++p) {
                const uint32_t bits = __ballot_sync(0xffffffffu, (c >> p) & 1u);
                if (lane == (uint32_t)p) mine = bits;
            }
            if (lane < (uint32_t)NPL) store(x, lane, mine);
        }
#else
        (void)nwords;
        (void)code;
        (void)store;
#endif
    }
};

/* On the host (test harnesses): every phase runs for all TB threads in
 * turn; a barrier is the end of a phase. */
struct host_team {
    enum { NL = TB };
    template <class F> HD void each(F f)
    {
        for (uint32_t t = 0; t < TB; ++t) f(t, t);
    }
    HD void sync() {}
    template <class F> HD int sync_or(F f)
    {
        int any = 0;
        for (uint32_t t = 0; t < TB; ++t) any |= f(t, t) ? 1 : 0;
        return any;
    }
    template <int NPL, class C, class S> HD void stage_words(uint32_t nwords, C code, S store)
    {
        for (uint32_t x = 0; x < nwords; ++x)
            for (uint32_t p = 0; p < (uint32_t)NPL; ++p) {
                uint32_t bits = 0;
                for (uint32_t lane = 0; lane < 32; ++lane) bits |= ((code(x, lane) >> p) & 1u) << lane;
                store(x, p, bits);
            }
    }
};

/* The first tile position and the candidate range of an item. */
struct item_t {
    int64_t b0;
    uint64_t c0, c1;
};

HD item_t item_of(const lp &L, uint64_t item)
{
    item_t it;
    const uint64_t tile = item % L.ntiles, chunk = item / L.ntiles;
    it.b0 = (int64_t)(tile * (uint64_t)(L.cw - 2u)) - 1;
    it.c0 = chunk * L.pc;
    it.c1 = min_u64(it.c0 + L.pc, L.ncand);
    return it;
}

/* ======================================================================
 * THREAD: one thread per window start, pattern and text from global memory.
 * ====================================================================== */

template <int BYTE>
HD int32_t count_global(const lp &L, const seqv &pat, int64_t g)
{
    const uint8_t *t = L.xcode + g;
    int32_t d = 0;
    for (uint32_t i = 0; i < pat.len; ++i) d += (int32_t)mism<BYTE>(pat.at(i), t[i]);
    return d;
}

template <int BYTE, class Team, class Emit>
HD void thread_item(Team &tm, const lp &L, uint64_t item, int32_t *d_s, uint32_t *xr, Emit &emit)
{
    const item_t it = item_of(L, item);
    tm.each([&](uint32_t tid, uint32_t) {
        if (tid == 0) tile_range(L, it.b0, TB, xr);
    });
    tm.sync();
    win w[Team::NL];
    tm.each([&](uint32_t tid, uint32_t li) { w[li] = window_at(L, xr, it.b0 + tid); });
    for (uint64_t ci = it.c0; ci < it.c1; ++ci) {
        patv P = pattern_at(L, L.cand[ci]);
        if (!pattern_ok(L, P.m, P.k)) continue;   /* block-uniform */
        if (!tm.sync_or([&](uint32_t, uint32_t li) { return win_ok(L, w[li], P.m); })) continue;
        for (uint32_t s = 0; s < (uint32_t)L.strands; ++s) {
            P.v.rc = (int32_t)s;
            tm.each([&](uint32_t tid, uint32_t li) {
                d_s[tid] = win_ok(L, w[li], P.m) ? count_global<BYTE>(L, P.v, it.b0 + tid) : (int32_t)BIGD;
            });
            tm.sync();
            tm.each([&](uint32_t tid, uint32_t li) { report(L, w[li], P, s, d_s, tid, TB, emit); });
            tm.sync();
        }
    }
    tm.sync();
}

/* ======================================================================
 * PAPER: OPT-block-thread.  Shared: P' [m], T' [TB + m - 1], d_s [TB].
 * ====================================================================== */

struct paper_smem {
    uint8_t *p, *t;
    int32_t *d;
    uint32_t *xr;
};

HD size_t align16(size_t x) { return (x + 15u) & ~(size_t)15u; }

/* Bytes of shared memory for patterns up to m_hi; carve(base) fills sm. */
HD size_t paper_layout(uint32_t m_hi, uint8_t *base, paper_smem *sm)
{
    size_t at = 0;
    const size_t o_d = at;
    at = align16(at + TB * sizeof(int32_t));
    const size_t o_xr = at;
    at = align16(at + 2 * sizeof(uint32_t));
    const size_t o_p = at;
    at = align16(at + m_hi);
    const size_t o_t = at;
    at = align16(at + TB + (size_t)m_hi);
    if (sm) {
        sm->d = (int32_t *)(base + o_d);
        sm->xr = (uint32_t *)(base + o_xr);
        sm->p = base + o_p;
        sm->t = base + o_t;
    }
    return at;
}

template <int BYTE>
HD int32_t count_shared(const uint8_t *p, const uint8_t *t, uint32_t m)
{
    int32_t d = 0;
    for (uint32_t i = 0; i < m; ++i) d += (int32_t)mism<BYTE>(p[i], t[i]);
    return d;
}

template <int BYTE, class Team, class Emit>
HD void paper_item(Team &tm, const lp &L, uint64_t item, const paper_smem &sm, Emit &emit)
{
    const item_t it = item_of(L, item);
    tm.each([&](uint32_t tid, uint32_t) {
        if (tid == 0) tile_range(L, it.b0, TB, sm.xr);
    });
    tm.sync();
    win w[Team::NL];
    tm.each([&](uint32_t tid, uint32_t li) { w[li] = window_at(L, sm.xr, it.b0 + tid); });
    for (uint64_t ci = it.c0; ci < it.c1; ++ci) {
        patv P = pattern_at(L, L.cand[ci]);
        if (!pattern_ok(L, P.m, P.k)) continue;
        if (!tm.sync_or([&](uint32_t, uint32_t li) { return win_ok(L, w[li], P.m); })) continue;
        /* T' = X[b0 .. b0 + TB + m - 2] (seed 004 Fig. 9). */
        const uint32_t tl = TB + P.m - 1u;
        tm.each([&](uint32_t tid, uint32_t) {
            for (uint32_t i = tid; i < tl; i += TB) sm.t[i] = (uint8_t)text_code(L, it.b0 + (int64_t)i);
        });
        for (uint32_t s = 0; s < (uint32_t)L.strands; ++s) {
            P.v.rc = (int32_t)s;
            /* P' (seed 004 Fig. 7), in the strand's orientation. */
            tm.each([&](uint32_t tid, uint32_t) {
                for (uint32_t i = tid; i < P.m; i += TB) sm.p[i] = (uint8_t)P.v.at(i);
            });
            tm.sync();
            tm.each([&](uint32_t tid, uint32_t li) {
                sm.d[tid] = win_ok(L, w[li], P.m) ? count_shared<BYTE>(sm.p, sm.t + tid, P.m) : (int32_t)BIGD;
            });
            tm.sync();
            tm.each([&](uint32_t tid, uint32_t li) { report(L, w[li], P, s, sm.d, tid, TB, emit); });
            tm.sync();
        }
    }
    tm.sync();
}

/* ======================================================================
 * BEST: bit planes, the pattern at 32 shifts, V windows per thread.
 * Shared: txt [NTX][NPT] u32, pw [PW + 2][NPP] u32 (packed pattern words
 * -1 .. PW, the outer two zero), tab [NW][32][NPPS] u32, d_s [CW], xr [2].
 * ====================================================================== */

HD uint32_t nw_of(uint32_t m) { return (m + 62u) / 32u; }   /* text words a window touches */
HD uint32_t pw_of(uint32_t m) { return (m + 31u) / 32u; }   /* packed pattern words */

struct best_smem {
    uint32_t *txt, *pw, *tab, *xr;
    int32_t *d;
};

template <int BYTE>
HD size_t best_layout(uint32_t m_hi, uint8_t *base, best_smem *sm)
{
    typedef shape<BYTE> S;
    const size_t ntx = (size_t)S::V * NWARP + nw_of(m_hi) - 1u;
    size_t at = 0;
    const size_t o_txt = at;
    at = align16(at + ntx * S::NPT * sizeof(uint32_t));
    const size_t o_tab = at;
    at = align16(at + (size_t)nw_of(m_hi) * 32u * S::NPPS * sizeof(uint32_t));
    const size_t o_pw = at;
    at = align16(at + ((size_t)pw_of(m_hi) + 2u) * S::NPP * sizeof(uint32_t));
    const size_t o_d = at;
    at = align16(at + (size_t)S::CW * sizeof(int32_t));
    const size_t o_xr = at;
    at = align16(at + 2 * sizeof(uint32_t));
    if (sm) {
        sm->txt = (uint32_t *)(base + o_txt);
        sm->tab = (uint32_t *)(base + o_tab);
        sm->pw = (uint32_t *)(base + o_pw);
        sm->d = (int32_t *)(base + o_d);
        sm->xr = (uint32_t *)(base + o_xr);
    }
    return at;
}

/* Computed window v of thread tid (lane r of warp wp): start b0 + this. */
template <int BYTE> HD uint32_t best_c(uint32_t tid, uint32_t v)
{
    return 32u * (shape<BYTE>::V * (tid >> 5) + v) + (tid & 31u);
}

/* Planes of one text word / one pattern entry in registers. */
template <int N> struct planes {
    uint32_t p[N];
};

template <int BYTE> HD void load_text(planes<shape<BYTE>::NPT> &t, const uint32_t *txt, uint32_t x)
{
    const uint4 *q = (const uint4 *)(txt + (size_t)x * shape<BYTE>::NPT);
    DEV_UNROLL
    for (int i = 0; i < shape<BYTE>::NPT / 4; ++i) {
        const uint4 a = q[i];
        t.p[4 * i] = a.x;
        t.p[4 * i + 1] = a.y;
        t.p[4 * i + 2] = a.z;
        t.p[4 * i + 3] = a.w;
    }
}

template <int BYTE> HD void load_pat(planes<shape<BYTE>::NPPS> &P, const uint32_t *tab, uint32_t w, uint32_t r)
{
    const uint4 *q = (const uint4 *)(tab + ((size_t)w * 32u + r) * shape<BYTE>::NPPS);
    DEV_UNROLL
    for (int i = 0; i < shape<BYTE>::NPPS / 4; ++i) {
        const uint4 a = q[i];
        P.p[4 * i] = a.x;
        P.p[4 * i + 1] = a.y;
        P.p[4 * i + 2] = a.z;
        P.p[4 * i + 3] = a.w;
    }
}

/* Matching positions of a pattern entry against a text word (bit b: the
 * pattern position facing text bit b exists and matches it). */
HD uint32_t match_word(const planes<4> &P, const planes<4> &T)
{
    return (P.p[0] & T.p[0]) | (P.p[1] & T.p[1]) | (P.p[2] & T.p[2]) | (P.p[3] & T.p[3]);
}

HD uint32_t match_word(const planes<12> &P, const planes<8> &T)
{
    uint32_t x = 0;
    DEV_UNROLL
    for (int i = 0; i < 8; ++i) x |= P.p[i] ^ T.p[i];
    return P.p[8] & ~x;
}

/* Thread tid's V windows: d_s[c] = D (or BIGD where not searched). */
template <int BYTE>
HD void best_thread(const lp &L, const best_smem &sm, uint32_t tid, uint32_t m, const win *w)
{
    typedef shape<BYTE> S;
    enum { V = S::V };
    const uint32_t r = tid & 31u, base = V * (tid >> 5), nw = nw_of(m);
    uint32_t acc[V];
    planes<S::NPT> ring[V];
    DEV_UNROLL
    for (int v = 0; v < V; ++v) acc[v] = 0;
    /* ring slot (w + v) % V holds text word base + w + v at pattern word w. */
    DEV_UNROLL
    for (int v = 0; v < V - 1; ++v) load_text<BYTE>(ring[v], sm.txt, base + (uint32_t)v);
    for (uint32_t w0 = 0; w0 < nw; w0 += V) {
        DEV_UNROLL
        for (int u = 0; u < V; ++u) {
            if (w0 + (uint32_t)u < nw) {   /* uniform: every thread has the same m */
                planes<S::NPPS> P;
                load_pat<BYTE>(P, sm.tab, w0 + (uint32_t)u, r);
                load_text<BYTE>(ring[(u + V - 1) % V], sm.txt, base + w0 + (uint32_t)u + V - 1u);
                DEV_UNROLL
                for (int v = 0; v < V; ++v) acc[v] += popc32(match_word(P, ring[(u + v) % V]));
            }
        }
    }
    DEV_UNROLL
    for (int v = 0; v < V; ++v)
        sm.d[best_c<BYTE>(tid, (uint32_t)v)] = win_ok(L, w[v], m) ? (int32_t)(m - acc[v]) : (int32_t)BIGD;
}

template <int BYTE, class Team, class Emit>
HD void best_item(Team &tm, const lp &L, uint64_t item, const best_smem &sm, Emit &emit)
{
    typedef shape<BYTE> S;
    enum { V = S::V, NPT = S::NPT, NPP = S::NPP, NPPS = S::NPPS, CW = S::CW };
    const item_t it = item_of(L, item);
    tm.each([&](uint32_t tid, uint32_t) {
        if (tid == 0) tile_range(L, it.b0, CW, sm.xr);
    });
    /* The text tile: words 0 .. NTX-1 = positions b0 + 32x + b. */
    const uint32_t ntx = V * NWARP + nw_of(L.m_hi) - 1u;
    tm.template stage_words<NPT>(
        ntx, [&](uint32_t x, uint32_t b) { return text_code(L, it.b0 + 32 * (int64_t)x + b); },
        [&](uint32_t x, uint32_t p, uint32_t bits) { sm.txt[x * NPT + p] = bits; });
    tm.sync();
    win w[Team::NL][V];
    tm.each([&](uint32_t tid, uint32_t li) {
        DEV_UNROLL
        for (int v = 0; v < V; ++v) w[li][v] = window_at(L, sm.xr, it.b0 + best_c<BYTE>(tid, (uint32_t)v));
    });
    for (uint64_t ci = it.c0; ci < it.c1; ++ci) {
        patv P = pattern_at(L, L.cand[ci]);
        if (!pattern_ok(L, P.m, P.k)) continue;
        if (!tm.sync_or([&](uint32_t, uint32_t li) {
                int any = 0;
                DEV_UNROLL
                for (int v = 0; v < V; ++v) any |= win_ok(L, w[li][v], P.m);
                return any;
            }))
            continue;
        const uint32_t pw = pw_of(P.m), nw = nw_of(P.m);
        for (uint32_t s = 0; s < (uint32_t)L.strands; ++s) {
            P.v.rc = (int32_t)s;
            /* Packed pattern word x at pw[(x + 1) NPP ..]; word -1 and word
             * pw are zero (the funnel shifts read them). */
            tm.template stage_words<NPP>(
                pw,
                [&](uint32_t x, uint32_t b) -> uint32_t {
                    const uint32_t i = 32u * x + b;
                    if (i >= P.m) return 0u;
                    return BYTE ? (P.v.at(i) & 0xffu) | 0x100u : P.v.at(i) & 15u;
                },
                [&](uint32_t x, uint32_t p, uint32_t bits) { sm.pw[(x + 1u) * NPP + p] = bits; });
            tm.each([&](uint32_t tid, uint32_t) {
                if (tid < (uint32_t)NPP) {
                    sm.pw[tid] = 0;
                    sm.pw[(pw + 1u) * NPP + tid] = 0;
                }
            });
            tm.sync();
            /* tab[w][r] plane p = bits of pattern positions 32w + b - r. */
            tm.each([&](uint32_t tid, uint32_t) {
                for (uint32_t e = tid; e < nw * 32u; e += TB) {
                    const uint32_t r = e & 31u, wi = e >> 5;
                    for (uint32_t p = 0; p < (uint32_t)NPP; ++p)
                        sm.tab[(size_t)e * NPPS + p] = funnel_l(sm.pw[wi * NPP + p], sm.pw[(wi + 1u) * NPP + p], r);
                }
            });
            tm.sync();
            tm.each([&](uint32_t tid, uint32_t li) { best_thread<BYTE>(L, sm, tid, P.m, w[li]); });
            tm.sync();
            tm.each([&](uint32_t tid, uint32_t li) {
                DEV_UNROLL
                for (int v = 0; v < V; ++v) report(L, w[li][v], P, s, sm.d, best_c<BYTE>(tid, (uint32_t)v), CW, emit);
            });
            tm.sync();
        }
    }
    tm.sync();
}

/* ---- kernels: a grid-stride loop over items --------------------------- */

struct dev_emit {
    dev_out out;
    HD void operator()(uint32_t r, uint32_t t, uint32_t j, int32_t d, uint32_t s) { out.emit(r, t, j, d, s); }
};

template <int BYTE>
static __global__ void __launch_bounds__(TB) k_thread(lp L, dev_out out)
{
    __shared__ int32_t d_s[TB];
    __shared__ uint32_t xr[2];
    dev_team tm;
    dev_emit em{ out };
    for (uint64_t item = blockIdx.x; item < L.nitems; item += gridDim.x)
        thread_item<BYTE>(tm, L, item, d_s, xr, em);
}

template <int BYTE>
static __global__ void __launch_bounds__(TB) k_paper(lp L, dev_out out)
{
    extern __shared__ uint4 smem_paper[];
    paper_smem sm;
    paper_layout(L.m_hi, (uint8_t *)smem_paper, &sm);
    dev_team tm;
    dev_emit em{ out };
    for (uint64_t item = blockIdx.x; item < L.nitems; item += gridDim.x)
        paper_item<BYTE>(tm, L, item, sm, em);
}

template <int BYTE>
static __global__ void __launch_bounds__(TB, 2) k_best(lp L, dev_out out)
{
    extern __shared__ uint4 smem_best[];
    best_smem sm;
    best_layout<BYTE>(L.m_hi, (uint8_t *)smem_best, &sm);
    dev_team tm;
    dev_emit em{ out };
    for (uint64_t item = blockIdx.x; item < L.nitems; item += gridDim.x)
        best_item<BYTE>(tm, L, item, sm, em);
}

/* ---- host plan ----------------------------------------------------------- */

struct job {
    int kind;          /* KIND_* */
    lp L;              /* L.cand: offset into the candidate list until uploaded */
    uint64_t cand_off;
    size_t smem;       /* dynamic shared memory bytes */
};

/* Longest pattern of the shared-memory layouts (the test knob may lower it). */
static uint32_t smem_max_m(int kind, int byte, long knob)
{
    uint32_t lim = kind == KIND_PAPER ? (uint32_t)PAPER_MAX_M
                                      : (byte ? (uint32_t)BEST_MAX_M_BYTE : (uint32_t)BEST_MAX_M_NT16);
    if (knob >= 0 && (uint64_t)knob < lim) lim = (uint32_t)knob;
    return lim;
}

/* The launches of batch b: per orientation, the candidate patterns of each
 * length range (shared-memory layout up to its limit, THREAD beyond),
 * appended to cand.  knob < 0: no GPUASM_CUDA_HAMMING_SMEM_M.  Host views
 * only; the device pointers are copied into the lp as given in b. */
static void plan(const kit_batch &b, long knob, std::vector<job> &jobs, std::vector<uint32_t> &cand)
{
    const int byte = b.opt.alphabet == GPUASM_ALPHABET_BYTE;
    const int variant = b.opt.variant;
    const int main_kind = variant == GPUASM_VARIANT_THREAD ? KIND_THREAD
                        : variant == GPUASM_VARIANT_PAPER ? KIND_PAPER : KIND_BEST;
    for (int o1 = 1; o1 >= 0; --o1) {
        lp L;
        memset(&L, 0, sizeof L);
        const uint64_t *hxoff = o1 ? b.h_roff : b.h_toff;
        const uint64_t *hyoff = o1 ? b.h_toff : b.h_roff;
        const uint32_t ny = o1 ? b.ntargets : b.nreads;
        L.nx = o1 ? b.nreads : b.ntargets;
        L.xcode = o1 ? b.d_rcode : b.d_tcode;
        L.xoff = o1 ? b.d_roff : b.d_toff;
        L.ycode = o1 ? b.d_tcode : b.d_rcode;
        L.yoff = o1 ? b.d_toff : b.d_roff;
        L.xtotal = hxoff[L.nx];
        if (L.nx == 0 || ny == 0 || L.xtotal == 0) continue;
        uint64_t xmax = 0;
        for (uint32_t x = 0; x < L.nx; ++x) {
            const uint64_t n = hxoff[x + 1] - hxoff[x];
            if (n > xmax) xmax = n;
        }
        L.xmax = (uint32_t)xmax;   /* < 2^31 (the handle refuses longer) */
        L.o1 = o1;
        L.side = b.opt.pattern_side;
        L.max_diffs = b.opt.max_diffs;
        L.error_rate = b.opt.error_rate;
        L.strands = gpuasm_strands(&b.opt);
        /* Ranges: [1, lim] in the main layout, (lim, inf) in THREAD. */
        const uint32_t lim = main_kind == KIND_THREAD ? UINT32_MAX : smem_max_m(main_kind, byte, knob);
        for (int part = 0; part < 2; ++part) {
            const int kind = part == 0 ? main_kind : KIND_THREAD;
            if (part == 1 && lim == UINT32_MAX) break;
            job J;
            J.kind = kind;
            J.L = L;
            J.L.m_lo = part == 0 ? 1u : lim + 1u;
            J.L.m_hi = part == 0 ? lim : UINT32_MAX;
            J.cand_off = cand.size();
            uint32_t mmax = 0;
            for (uint32_t y = 0; y < ny; ++y) {
                const uint64_t m64 = hyoff[y + 1] - hyoff[y];
                if (m64 == 0 || m64 > UINT32_MAX) continue;
                const uint32_t m = (uint32_t)m64;
                if (!pattern_ok(J.L, m, gcore::pair_k(L.max_diffs, L.error_rate, m))) continue;
                cand.push_back(y);
                if (m > mmax) mmax = m;
            }
            J.L.ncand = cand.size() - J.cand_off;
            if (J.L.ncand == 0) continue;
            J.L.m_hi = mmax;   /* the longest candidate sizes shared memory */
            J.L.pc = kind == KIND_BEST ? (uint32_t)BEST_PC : 1u;
            J.L.cw = kind == KIND_BEST ? (byte ? (uint32_t)shape<1>::CW : (uint32_t)shape<0>::CW) : (uint32_t)TB;
            J.L.ntiles = (J.L.xtotal + J.L.cw - 3u) / (J.L.cw - 2u);
            J.L.nitems = J.L.ntiles * ((J.L.ncand + J.L.pc - 1u) / J.L.pc);
            J.smem = kind == KIND_PAPER ? paper_layout(mmax, NULL, NULL)
                   : kind == KIND_BEST ? (byte ? best_layout<1>(mmax, NULL, NULL) : best_layout<0>(mmax, NULL, NULL))
                   : 0;
            jobs.push_back(J);
        }
    }
}

static long knob_smem_m(void)
{
    const char *s = getenv("GPUASM_CUDA_HAMMING_SMEM_M");
    if (!s || !*s) return -1;
    char *end = NULL;
    const long v = strtol(s, &end, 10);
    return (end && *end == '\0' && v >= 0) ? v : -1;
}

template <class K>
static int launch_one(K kern, const kit_batch &b, const job &J, dev_out out, char *err, size_t errlen)
{
    if (J.smem > 48u * 1024u)
        KIT_CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)J.smem));
    int occ = 0;
    KIT_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kern, TB, J.smem));
    if (occ < 1) {
        snprintf(err, errlen, "hamming: %zu bytes of shared memory per block do not fit", J.smem);
        return -1;
    }
    uint64_t grid = (uint64_t)(b.sm_count > 0 ? b.sm_count : 1) * (uint64_t)occ;
    if (grid > J.L.nitems) grid = J.L.nitems;
    kern<<<(unsigned)grid, TB, J.smem, b.stream>>>(J.L, out);
    KIT_CK_LAUNCH("hamming kernel");
    return 0;
}

}  /* namespace ham */

/* cuda_kit.cuh's launcher: plans the batch on the host (O(reads + targets)),
 * uploads the candidate lists into scratch slot 0 and queues the kernels on
 * b.stream; hits go to out.  Deterministic, so the handle may call it again
 * after a hit-buffer overflow.  0, or -1 with a one-line reason in err (out
 * of host memory, a CUDA error, a block that does not fit). */
int gpuasm_hamming_cuda_launch(const kit_batch &b, dev_out out, char *err, size_t errlen)
{
    std::vector<ham::job> jobs;
    std::vector<uint32_t> cand;
    try {
        ham::plan(b, ham::knob_smem_m(), jobs, cand);
    } catch (...) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (jobs.empty()) return 0;
    void *d_cand = NULL;
    if (kit_grow(b, 0, cand.size() * sizeof(uint32_t), &d_cand, err, errlen)) return -1;
    /* Pageable source: the call returns once the data is staged, so the
     * vector may go when this function returns. */
    KIT_CK(cudaMemcpyAsync(d_cand, cand.data(), cand.size() * sizeof(uint32_t), cudaMemcpyHostToDevice,
                           b.stream));
    const int byte = b.opt.alphabet == GPUASM_ALPHABET_BYTE;
    for (size_t i = 0; i < jobs.size(); ++i) {
        ham::job &J = jobs[i];
        J.L.cand = (const uint32_t *)d_cand + J.cand_off;
        int rc;
        switch (J.kind) {
        case ham::KIND_PAPER:
            rc = byte ? ham::launch_one(ham::k_paper<1>, b, J, out, err, errlen)
                      : ham::launch_one(ham::k_paper<0>, b, J, out, err, errlen);
            break;
        case ham::KIND_BEST:
            rc = byte ? ham::launch_one(ham::k_best<1>, b, J, out, err, errlen)
                      : ham::launch_one(ham::k_best<0>, b, J, out, err, errlen);
            break;
        default:
            rc = byte ? ham::launch_one(ham::k_thread<1>, b, J, out, err, errlen)
                      : ham::launch_one(ham::k_thread<0>, b, J, out, err, errlen);
            break;
        }
        if (rc) return -1;
    }
    return 0;
}
