/* SPDX-License-Identifier: MIT */
/* hamming_cuda_core.cuh -- the per-thread and per-warp logic of the CUDA
 * hamming kernel (hamming_cuda.cu: seed 004, its header comment has the
 * design): windows, the THREAD / PAPER / BEST block programs written once
 * against a "team" (dev_team on the device, host_team: a loop over the
 * block's threads with the same phases), so a host program runs exactly
 * the kernels' code.  Only hamming_cuda.cu includes it.  C++ for .cu only.
 */
#ifndef GPUASM_HAMMING_CUDA_CORE_CUH
#define GPUASM_HAMMING_CUDA_CORE_CUH

#include <stdint.h>
#include <string.h>

#include "kernels/cuda_kit.cuh"

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
    int32_t strands;
    gpuasm_search_opt opt;     /* the batch's options: pair rule and k */
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
    P.k = gpuasm_pair_k(&L.opt, P.m);
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
    if (!gpuasm_pair_searched(m, k, 1)) return 0;
    if (L.o1 ? L.opt.pattern_side == GPUASM_PATTERN_READ : L.opt.pattern_side == GPUASM_PATTERN_TARGET)
        return 0;
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
    return L.o1 ? !gpuasm_read_is_pattern(&L.opt, w.n, m)
                : gpuasm_read_is_pattern(&L.opt, m, w.n);
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

}  /* namespace ham */

#endif
