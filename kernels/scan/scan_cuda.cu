/* SPDX-License-Identifier: MIT */
/* scan_cuda.cu -- the CUDA scan kernel (--kernel scan; issue #4, seed 002:
 * Mitani, Ino, Hagihara, "Parallelizing exact and approximate string
 * matching via inclusive scan on a GPU", TPDS 2017).
 *
 * Same end hits as the CPU twin (kernels/scan/scan_cpu.c, gpuasm_cpu_scan):
 * local minima of D[m][.] <= k (search.h) for every searched (read,
 * target, strand), patterns of 1..64 symbols, nt16 (two strands) and byte
 * (strand 0) alphabets.
 *
 * Algorithm (scan_cpu.c's header has the recurrence, the word layout and the
 * algebra): Wu-Manber k-differences in shift-and form, pattern in the top m
 * bits of a WB-bit word (P[m-1] = bit WB-1), WB = 32 for m <= 32 (half the
 * integer work: one instruction per AND/OR/shift, one SHFL per shuffle)
 * and 64 otherwise.  Given level d-1, level d is
 *     R_j = ((R_{j-1} << 1) & B[t_j]) | C_j,
 * and the maps x -> ((x << u) & A) | C compose as
 *     (u1,A1,C1) then (u2,A2,C2) = (u1+u2, (A1 << u2) & A2, ((C1 << u2) & A2) | C2)
 * (seed 002 supplement, Lemmas 1-3; Lemma 7's <x,y> operator is the one-bit
 * case u = 0, A = ~x, C = y).  So each level is an inclusive scan over the
 * text, and k differences are k+1 scans, level d using level d-1.
 *
 * Layout: ONE WARP per work item = (pair, strand, text segment).  Lane l
 * owns a run of L consecutive positions of a chunk of 32 L positions; the
 * warp walks its window chunk by chunk.  Per chunk:
 *   - each lane loads its L text codes and B[t_j] (B table of the item's
 *     pattern in shared memory, one per warp; 16 entries for nt16, 256 for
 *     bytes; for 32-bit words the high half of the 64-bit entry), and the A
 *     part of its run's map, A_run = AND of B[t_j] << (the
 *     positions after j in the run): it does not depend on the level;
 *   - for d = 0..k: C_j of the run (from level d-1's states, kept in
 *     registers; the state at the run's left neighbour comes from lane l-1
 *     by a shuffle, for lane 0 from the previous chunk), the run's
 *     aggregate C (the run walked from state 0), an inclusive warp scan of
 *     the aggregates with the operator above (Hillis-Steele, __shfl_up_sync;
 *     the shift of round r is L 2^r, fixed, so the A parts of every round
 *     are computed once per chunk and each level shuffles only C), the
 *     exclusive prefix (shfl_up 1) applied to the lane's entering state, and
 *     the run re-walked from there (the re-apply step), giving level d's
 *     states;
 *   - D[m][j] = k + 1 - (levels with bit WB-1 set), then the local-minimum
 *     rule of search.h over the chunk (neighbours across lanes by shuffle,
 *     across chunks by a carry); a lane with no D <= k near its run skips
 *     the tests.
 * The state entering the chunk at each level (the scan's carry) is held in
 * registers spread over the lanes (level d: lane d mod 32, word d / 32) and
 * broadcast by __shfl_sync.
 *
 * Scan rounds: a composed map whose shift is >= m is constant on every
 * reachable state (states have no bits below WB-m, so x << u == 0 for
 * u >= m).  After R rounds a lane's aggregate spans min(l+1, 2^R) runs; lane
 * 0's map starts from the constant "state before the chunk", so every
 * aggregate is constant, i.e. the exact state, as soon as L 2^R >= m.  The
 * scan therefore needs R = ceil(log2(m / L)) rounds, not 5: with L = 8,
 * 3 rounds for m <= 64, 2 for m <= 32, 1 for m <= 16.
 *
 * Per character and level (word ops; a 64-bit op is two 32-bit instructions):
 * C_j 4, aggregate walk 3, re-walk 3, count 2; per chunk and level 4 + R
 * word shuffles per lane.  Per character once: text byte and B load, A walk
 * 2, D and the local-minimum skip test ~3.
 *
 * Segments (cuda_device.cuh, "Segments"): item [s0, s1) of a text
 * starts fresh states (R^d = (1 << d) - 1, "before the text") at
 * j0 = s0 - (m + k) (clamped at 0) and runs to jend = min(s1 + 1, n);
 * exact where D <= k for every j >= s0 - 1, which is all the local-minimum
 * rule needs for j in [s0, s1).  Positions jend .. (end of the last chunk)
 * read as "matches nothing" and count as D > k (position jend == n is the
 * virtual right neighbour of n - 1; when jend < n it only decides s1, which
 * is not reported).
 *
 * Work: items are counted per pair (k_count), scanned (cub), and taken by
 * warps from a global counter, G consecutive items at a time (items of a
 * pair are consecutive: strand-major, then segment; a warp rebuilds the B
 * table only when the pattern changes).  Many pairs (reads x targets) and a
 * few huge texts both give many items: the segment length is chosen so the
 * batch has >= 4 items per resident warp (1 Ki .. 16 Ki positions; each
 * segment recomputes the m + k positions before it and one after).
 *
 * Knobs (settings.h): cuda_seg_min (segment length; default planned as
 * above; 1 is legal), cuda_scan_run (positions per lane per chunk: 8, the
 * default, or 16), cuda_pair_chunk (pairs per launch sequence, 4 Mi).
 *
 * The per-lane logic is __host__ __device__ and templated on the warp
 * primitives (dev_warp here), so a host harness runs exactly this code with
 * 32 emulated lanes (one fiber per lane, switched at every shuffle, ballot
 * and __syncwarp, checking that all 32 lanes meet at each).
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>

#include "kernels/cuda_kit.cuh"

/* The scan kernel's scratch slots (cuda_kit.cuh: kit_grow). */
enum scan_slot {
    SCAN_SLOT_COUNTS,          /* hits per item (counting pass) */
    SCAN_SLOT_OFFSETS,         /* their exclusive sum */
    SCAN_SLOT_CUB,             /* CUB's temporary storage */
    SCAN_SLOT_COUNTER,         /* the work queue's counter */
    SCAN_N_SLOTS
};
static_assert((int)SCAN_N_SLOTS <= (int)KIT_SCRATCH_SLOTS, "the scan kernel's scratch slots");

namespace scank {

using gcore::seqv;
using gcore::window;

enum {
    NT = 256,                    /* threads per block of k_scan (8 warps) */
    SEG_AUTO_MIN = 1024,         /* planned segment length bounds (positions) */
    SEG_AUTO_MAX = 16384,
    ITEMS_PER_WARP = 4,          /* planning target */
    DEFAULT_PAIR_CHUNK = 1 << 22,
    PLAN_EXACT_PAIRS = 1 << 20   /* pairs the planner sums exactly */
};

/* The warp primitives on the device (full warp, converged). */
struct dev_warp {
    HD uint32_t lane() const
    {
#ifdef __CUDA_ARCH__
        return threadIdx.x & 31u;
#else
        return 0;
#endif
    }
    HD uint64_t shfl_up(uint64_t v, uint32_t o)
    {
#ifdef __CUDA_ARCH__
        return __shfl_up_sync(0xffffffffu, (unsigned long long)v, o);
#else
        (void)o;
        return v;
#endif
    }
    HD uint64_t shfl(uint64_t v, uint32_t src)
    {
#ifdef __CUDA_ARCH__
        return __shfl_sync(0xffffffffu, (unsigned long long)v, (int)src);
#else
        (void)src;
        return v;
#endif
    }
    HD uint32_t shfl_up32(uint32_t v, uint32_t o)
    {
#ifdef __CUDA_ARCH__
        return __shfl_up_sync(0xffffffffu, v, o);
#else
        (void)o;
        return v;
#endif
    }
    HD uint32_t shfl32(uint32_t v, uint32_t src)
    {
#ifdef __CUDA_ARCH__
        return __shfl_sync(0xffffffffu, v, (int)src);
#else
        (void)src;
        return v;
#endif
    }
    HD uint32_t ballot(int pred)
    {
#ifdef __CUDA_ARCH__
        return __ballot_sync(0xffffffffu, pred);
#else
        return pred ? 1u : 0u;
#endif
    }
    HD void sync()
    {
#ifdef __CUDA_ARCH__
        __syncwarp();
#endif
    }
};

/* Everything the per-item enumeration needs, by value (pair indices are
 * absolute; the launch covers pairs pair0 .. pair0 + np - 1). */
struct params {
    gpuasm_batch_view v;   /* the batch on the device */
    int32_t byte;          /* alphabet is GPUASM_ALPHABET_BYTE */
    uint32_t seglen;       /* >= 1 */
    uint32_t grab;         /* items per counter fetch, >= 1 */
    uint64_t pair0, np;
    const uint64_t *off;   /* [np + 1] exclusive scan of the items per pair */
};

struct pair_desc {
    uint32_t r, t, m, n;
    int32_t k, rip;
    const uint8_t *pat, *txt;   /* strand 0 */
    uint64_t nseg;              /* 0: not searched */
};

HD pair_desc get_pair(const params &P, uint64_t pair)
{
    pair_desc pd;
    const gcore::pair_ref x = gcore::pair_at(P.v, pair);
    const gpuasm_pair &pr = x.p;
    pd.r = x.r;
    pd.t = x.t;
    pd.rip = pr.read_is_pattern;
    pd.pat = x.pat;
    pd.txt = x.txt;
    pd.m = (uint32_t)pr.m;
    pd.n = (uint32_t)pr.n;
    pd.k = pr.k;
    /* m > 64 never gets here (the backend refuses the batch first: the
     * row's max_pattern); counted as no work to stay in bounds. */
    pd.nseg = (pr.searched && pr.m <= 64) ? (pr.n + P.seglen - 1) / P.seglen : 0;
    return pd;
}

HD uint64_t pair_items(const params &P, uint64_t pair)
{
    return get_pair(P, pair).nseg * (P.byte ? 1u : 2u);
}

/* One work item: oriented views, window, output ids. */
struct item {
    seqv pat, txt;
    uint32_t m;
    int32_t k;
    window win;
    uint32_t r, t, strand;
};

/* Item `local` of a pair: strand-major (so consecutive items share the
 * pattern orientation), then segment. */
HD item get_item(const params &P, const pair_desc &pd, uint64_t local)
{
    item it;
    it.strand = (uint32_t)(local / pd.nseg);
    const uint64_t seg = local % pd.nseg;
    it.pat.p = pd.pat;
    it.pat.len = pd.m;
    it.pat.rc = pd.rip && it.strand;
    it.txt.p = pd.txt;
    it.txt.len = pd.n;
    it.txt.rc = !pd.rip && it.strand;
    it.m = pd.m;
    it.k = pd.k;
    it.win = gcore::make_window(seg, P.seglen, pd.n, (uint64_t)pd.m + (uint64_t)pd.k);
    it.r = pd.r;
    it.t = pd.t;
    return it;
}

/* B table of a pattern, top-aligned: bit 64-m+i of tbl[c] iff P[i] matches
 * symbol c (nt16: (P[i] & c) != 0, c = 0..15; byte: P[i] == c).  Lane i
 * holds P[i] and P[i+32]; one ballot per code and half gives the bits. */
template <class W>
HD void build_tbl(W &w, uint64_t *tbl, const seqv &pat, uint32_t m, int byte)
{
    const uint32_t lane = w.lane();
    const uint32_t sh = 64u - m;
    const uint32_t c0 = lane < m ? pat.at(lane) : 0u;
    const uint32_t c1 = lane + 32u < m ? pat.at(lane + 32u) : 0u;
    w.sync();   /* every lane is done with the previous table */
    if (!byte) {
        uint64_t mine = 0;
        for (uint32_t c = 0; c < 16u; ++c) {
            const uint64_t lo = w.ballot(lane < m && (c0 & c & 15u) != 0);
            const uint64_t hi = w.ballot(lane + 32u < m && (c1 & c & 15u) != 0);
            if (lane == c) mine = (lo | (hi << 32)) << sh;
        }
        if (lane < 16u) tbl[lane] = mine;
    } else {
        for (uint32_t e = lane; e < 256u; e += 32u) tbl[e] = 0;
        w.sync();
        for (uint32_t i = 0; i < m; ++i) {
            const uint32_t ci = w.shfl32(i < 32u ? c0 : c1, i & 31u);
            const uint64_t lo = w.ballot(lane < m && c0 == ci);
            const uint64_t hi = w.ballot(lane + 32u < m && c1 == ci);
            /* Every i with the same symbol writes the same value. */
            if (lane == 0) tbl[ci] = (lo | (hi << 32)) << sh;
        }
    }
    w.sync();
}

/* Scan rounds that a lane run of L positions can ever need with WB-bit
 * words (m <= WB): the least R with L 2^R >= WB, at most 5 (32 lanes). */
template <int L, int WB> struct max_rounds {
    enum { R = L >= WB ? 0 : 2 * L >= WB ? 1 : 4 * L >= WB ? 2 : 8 * L >= WB ? 3 : 16 * L >= WB ? 4 : 5 };
};

/* Warp shuffles of a state word: one SHFL for 32 bits, two for 64. */
template <class W> HD uint32_t wup(W &w, uint32_t v, uint32_t o) { return w.shfl_up32(v, o); }
template <class W> HD uint64_t wup(W &w, uint64_t v, uint32_t o) { return w.shfl_up(v, o); }
template <class W> HD uint32_t wsh(W &w, uint32_t v, uint32_t src) { return w.shfl32(v, src); }
template <class W> HD uint64_t wsh(W &w, uint64_t v, uint32_t src) { return w.shfl(v, src); }

/* B[c] as a T word: the table is top-aligned in 64 bits, so for m <= 32 the
 * pattern lies in the high half, top-aligned in 32 bits. */
HD uint64_t tbl_word(const uint64_t *tbl, uint32_t c, uint64_t) { return tbl[c]; }
HD uint32_t tbl_word(const uint64_t *tbl, uint32_t c, uint32_t) { return (uint32_t)(tbl[c] >> 32); }

/* Level d's state before the text, top-aligned: ((1 << d) - 1) << (WB - m). */
template <class T>
HD T state0(uint32_t d, int32_t k, uint32_t sh)
{
    if ((int32_t)d > k) return 0;   /* level not used */
    return (T)((((T)1 << d) - 1u) << sh);
}

/* One item, the whole warp (see the header), with T-bit words (T =
 * uint32_t for m <= 32, uint64_t for m <= 64).  tbl: the pattern's B table;
 * emit(j, d) for every local minimum j in [s0, s1) with D <= k. */
template <int L, class T, class W, class E>
HD void scan_item(W &w, const uint64_t *tbl, uint32_t sym_mask, const item &it, E &emit)
{
    static_assert(L >= 2 && L <= 16, "runs of 2..16 positions (xin << L needs L < 32)");
    enum { WB = 8 * (int)sizeof(T), RM = max_rounds<L, WB>::R };
    const uint32_t lane = w.lane();
    const uint32_t m = it.m;
    const int32_t k = it.k;
    const uint32_t sh = (uint32_t)WB - m;
    const T low = (T)((T)1 << sh);
    int R = 0;
    while (R < RM && ((uint32_t)L << R) < m) ++R;

    /* Level d's state before the current chunk: lane d & 31, word d >> 5
     * (k < m <= 64; with 32-bit words k < 32 and cr1 is never read). */
    T cr0 = state0<T>(lane, k, sh), cr1 = state0<T>(lane + 32u, k, sh);
    /* D at the two positions before the chunk (k + 1: > k, or none). */
    int32_t dl1 = k + 1, dl2 = k + 1;
    const uint32_t jend = it.win.jend, s0 = it.win.s0, s1 = it.win.s1;

    for (uint32_t c0 = it.win.j0; c0 <= jend; c0 += 32u * (uint32_t)L) {
        const uint32_t a = c0 + lane * (uint32_t)L;
        T B[L], S[L];
        uint32_t cnt[L];
        T arun = (T)~(T)0;
        DEV_UNROLL
        for (int i = 0; i < L; ++i) {
            const uint32_t pos = a + (uint32_t)i;
            T b = 0;
            if (pos < jend) b = tbl_word(tbl, it.txt.at(pos) & sym_mask, (T)0);
            B[i] = b;
            S[i] = 0;   /* written by level 0 first; silences the host compiler */
            arun = (T)(arun << 1) & b;
            cnt[i] = 0;
        }
        /* A parts of the scan rounds (level-independent).  Lane 0's map
         * starts from the constant "state before the chunk": A = 0. */
        T ar[RM > 0 ? RM : 1];
        {
            T acur = lane ? arun : (T)0;
            DEV_UNROLL
            for (int r = 0; r < RM; ++r) {
                ar[r] = acur;
                if (r < R) {
                    const T up = wup(w, acur, 1u << r);
                    if (lane >= (1u << r)) acur = (T)(up << ((uint32_t)L << r)) & acur;
                }
            }
        }
        T cprev = 0;   /* level d-1's state before the chunk */
        for (int32_t d = 0; d <= k; ++d) {
            const T xin = wsh(w, d < 32 ? cr0 : cr1, (uint32_t)d & 31u);
            /* C_j in place of level d-1's states. */
            if (d == 0) {
                DEV_UNROLL
                for (int i = 0; i < L; ++i) S[i] = B[i] & low;
            } else {
                T pm1 = wup(w, S[L - 1], 1);
                if (lane == 0) pm1 = cprev;
                DEV_UNROLL
                for (int i = 0; i < L; ++i) {
                    const T p = S[i];
                    S[i] = pm1 | (T)((T)(pm1 | p) << 1) | low;
                    pm1 = p;
                }
            }
            /* The run's aggregate C: the run walked from state 0. */
            T c = 0;
            DEV_UNROLL
            for (int i = 0; i < L; ++i) c = ((T)(c << 1) & B[i]) | S[i];
            if (lane == 0) c = ((T)(xin << L) & arun) | c;
            /* Inclusive scan: (A', C') of the aggregate before, then ours. */
            DEV_UNROLL
            for (int r = 0; r < RM; ++r) {
                if (r < R) {
                    const T up = wup(w, c, 1u << r);
                    if (lane >= (1u << r)) c = ((T)(up << ((uint32_t)L << r)) & ar[r]) | c;
                }
            }
            /* c is now the exact state at the run's end. */
            T x = wup(w, c, 1);
            if (lane == 0) x = xin;
            const T last = wsh(w, c, 31);
            if (lane == ((uint32_t)d & 31u)) {
                if (d < 32) cr0 = last;
                else cr1 = last;
            }
            cprev = xin;
            /* Re-apply: the run from its entering state. */
            DEV_UNROLL
            for (int i = 0; i < L; ++i) {
                x = ((T)(x << 1) & B[i]) | S[i];
                S[i] = x;
                cnt[i] += (uint32_t)(x >> (WB - 1));
            }
        }
        /* Local minima (search.h): position p = a+i-1 is decided with
         * D[p-1], D[p], D[p+1]; D > k is represented by k + 1. */
        int32_t D[L];
        uint32_t any = 0;
        DEV_UNROLL
        for (int i = 0; i < L; ++i) {
            D[i] = a + (uint32_t)i < jend ? k + 1 - (int32_t)cnt[i] : k + 1;
            if (i < L - 1) any |= cnt[i];
        }
        const uint32_t pk = ((uint32_t)D[L - 1] << 16) | (uint32_t)D[L - 2];
        const uint32_t upk = w.shfl_up32(pk, 1);
        const uint32_t lastpk = w.shfl32(pk, 31);
        int32_t e1 = lane ? (int32_t)(upk >> 16) : dl1;      /* D[p] */
        int32_t e2 = lane ? (int32_t)(upk & 0xffffu) : dl2;  /* D[p-1] */
        /* Candidates p lie in a-1 .. a+L-2: none unless D[a-1] <= k or a
         * level set bit m-1 there (rare on most texts: skip the tests). */
        if (any || e1 <= k) {
            DEV_UNROLL
            for (int i = 0; i < L; ++i) {
                const int32_t dq = D[i];
                const uint32_t p = a + (uint32_t)i - 1u;
                if (e1 <= k && e2 > e1 && dq >= e1 && p >= s0 && p < s1) emit(p, e1);
                e2 = e1;
                e1 = dq;
            }
        }
        dl1 = (int32_t)(lastpk >> 16);
        dl2 = (int32_t)(lastpk & 0xffffu);
    }
}

template <class Out>
struct item_emit {
    Out *out;
    uint32_t r, t, s;
    HD void operator()(uint32_t j, int32_t d) { out->emit(r, t, j, d, s); }
};

/* A warp's life: take G items at a time from the counter until none are
 * left; decode each, rebuild the B table when the pattern changed, scan. */
template <int L, class W, class Grab, class Out>
HD void warp_loop(W &w, const params &P, uint64_t *tbl, Grab &grab, Out &out)
{
    const uint64_t total = P.off[P.np];
    const uint32_t lane = w.lane();
    const uint32_t sym_mask = P.byte ? 255u : 15u;
    const uint8_t *cache_p = 0;
    int32_t cache_rc = -1;
    uint32_t cache_m = 0;
    for (;;) {
        uint64_t base = 0;
        if (lane == 0) base = grab(P.grab);
        base = w.shfl(base, 0);
        if (base >= total) break;
        const uint64_t end = base + P.grab < total ? base + P.grab : total;
        uint64_t pl = gcore::find_slot(P.off, P.np, base);
        pair_desc pd = get_pair(P, P.pair0 + pl);
        for (uint64_t id = base; id < end; ++id) {
            while (P.off[pl + 1] <= id) {
                ++pl;
                pd = get_pair(P, P.pair0 + pl);
            }
            const item it = get_item(P, pd, id - P.off[pl]);
            if (it.pat.p != cache_p || it.pat.rc != cache_rc || it.m != cache_m) {
                build_tbl(w, tbl, it.pat, it.m, P.byte);
                cache_p = it.pat.p;
                cache_rc = it.pat.rc;
                cache_m = it.m;
            }
            item_emit<Out> e = { &out, it.r, it.t, it.strand };
            if (it.m <= 32) scan_item<L, uint32_t>(w, tbl, sym_mask, it, e);
            else scan_item<L, uint64_t>(w, tbl, sym_mask, it, e);
        }
    }
}

struct dev_grab {
    unsigned long long *ctr;
    HD uint64_t operator()(uint32_t g)
    {
#ifdef __CUDA_ARCH__
        return atomicAdd(ctr, (unsigned long long)g);
#else
        (void)g;
        return ~(uint64_t)0;
#endif
    }
};

__global__ void k_count(params P, uint64_t *cnt)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i <= P.np; i += stride)
        cnt[i] = i < P.np ? pair_items(P, P.pair0 + i) : 0;
}

template <int L>
__global__ void __launch_bounds__(NT) k_scan(params P, unsigned long long *ctr, dev_out out)
{
    extern __shared__ uint64_t tbl_s[];
    uint64_t *tbl = tbl_s + (size_t)(threadIdx.x >> 5) * (P.byte ? 256u : 16u);
    dev_warp w;
    dev_grab g = { ctr };
    dev_out o = out;
    warp_loop<L>(w, P, tbl, g, o);
}

}  /* namespace scank */

namespace {

/* The batch's shape, for the segment length and the fetch size. */
struct plan {
    uint32_t seglen;   /* positions per segment */
    uint32_t grab;     /* items per counter fetch */
};

/* Segment length: >= ITEMS_PER_WARP items per resident warp over the
 * batch's searched text positions (summed exactly for up to
 * PLAN_EXACT_PAIRS pairs; more pairs fill the GPU anyway), within
 * [SEG_AUTO_MIN, SEG_AUTO_MAX]; GPUASM_CUDA_SEG_MIN overrides it.  Fetch
 * size: 8 items when there are >= 64 per warp (one counter serves the whole
 * grid), else 1 (few large items must balance).  Speed only: every choice
 * gives the same hits. */
plan make_plan(const gpuasm_cuda_batch &b, uint64_t warps)
{
    plan pl;
    const uint64_t npairs = (uint64_t)b.host.reads.n * b.host.targets.n;
    const uint64_t seg_env = (uint64_t)gpuasm_knob(b.settings->cuda_seg_min, 0);
    double total = 0, searched = 0;
    if (npairs <= scank::PLAN_EXACT_PAIRS) {
        for (uint32_t r = 0; r < b.host.reads.n; ++r) {
            const uint64_t rlen = b.host.reads.off[r + 1] - b.host.reads.off[r];
            for (uint32_t t = 0; t < b.host.targets.n; ++t) {
                const uint64_t tlen = b.host.targets.off[t + 1] - b.host.targets.off[t];
                const gpuasm_pair p = gpuasm_pair_of(&b.host.opt, rlen, tlen);
                if (p.searched) {
                    total += (double)p.n;
                    searched += 1;
                }
            }
        }
        total *= gpuasm_strands(&b.host.opt);
        searched *= gpuasm_strands(&b.host.opt);
    }
    if (seg_env) {
        pl.seglen = (uint32_t)std::min<uint64_t>(seg_env, INT32_MAX);
    } else if (npairs > scank::PLAN_EXACT_PAIRS) {
        pl.seglen = scank::SEG_AUTO_MAX;
    } else {
        const double want = total / ((double)warps * scank::ITEMS_PER_WARP);
        pl.seglen = want <= scank::SEG_AUTO_MIN ? (uint32_t)scank::SEG_AUTO_MIN
                  : want >= scank::SEG_AUTO_MAX ? (uint32_t)scank::SEG_AUTO_MAX : (uint32_t)want;
    }
    const double items = npairs > scank::PLAN_EXACT_PAIRS ? (double)npairs
                       : total / pl.seglen + searched;
    pl.grab = items >= 64.0 * (double)warps ? 8u : 1u;
    return pl;
}

template <int L>
int launch_run(const gpuasm_cuda_batch &b, gpuasm_err *err)
{
    using namespace scank;
    const uint64_t npairs = (uint64_t)b.host.reads.n * b.host.targets.n;
    const int byte = b.host.opt.alphabet == GPUASM_ALPHABET_BYTE;
    const size_t smem = (size_t)(NT / 32) * (byte ? 256 : 16) * sizeof(uint64_t);
    int per_sm = 0;
    KIT_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_scan<L>, NT, smem));
    if (per_sm < 1) per_sm = 1;
    const unsigned grid = (unsigned)(per_sm * std::max(b.sm_count, 1));
    const uint64_t warps = (uint64_t)grid * (NT / 32);

    params P;
    P.v = b.dev;
    P.byte = byte;
    const plan pl = make_plan(b, warps);
    P.seglen = pl.seglen;
    P.grab = pl.grab;

    const uint64_t chunk = std::min<uint64_t>(
        npairs, std::min<uint64_t>(gpuasm_knob(b.settings->cuda_pair_chunk, DEFAULT_PAIR_CHUNK), 1u << 30));
    void *p_cnt, *p_off, *p_cub, *p_ctr;
    const size_t nb = (size_t)(chunk + 1) * sizeof(uint64_t);
    size_t cub_bytes = 0;
    KIT_CK(cub::DeviceScan::ExclusiveSum(NULL, cub_bytes, (uint64_t *)NULL, (uint64_t *)NULL,
                                         (int)(chunk + 1), b.stream));
    int rc;
    if ((rc = kit_grow(b, SCAN_SLOT_COUNTS, nb, &p_cnt, err)) < 0) return rc;
    if ((rc = kit_grow(b, SCAN_SLOT_OFFSETS, nb, &p_off, err)) < 0) return rc;
    if ((rc = kit_grow(b, SCAN_SLOT_CUB, cub_bytes, &p_cub, err)) < 0) return rc;
    if ((rc = kit_grow(b, SCAN_SLOT_COUNTER, sizeof(unsigned long long), &p_ctr, err)) < 0) return rc;
    if ((rc = kit_begin_kernels(b, err)) < 0) return rc;
    uint64_t *d_cnt = (uint64_t *)p_cnt, *d_off = (uint64_t *)p_off;
    unsigned long long *d_ctr = (unsigned long long *)p_ctr;
    P.off = d_off;

    const unsigned cgrid = (unsigned)std::min<uint64_t>((chunk + 1 + 255) / 256, 65535);
    for (uint64_t p0 = 0; p0 < npairs; p0 += chunk) {
        P.pair0 = p0;
        P.np = std::min<uint64_t>(chunk, npairs - p0);
        (void)cudaGetLastError();   /* a launch error below is this launch's */
        k_count<<<cgrid, 256, 0, b.stream>>>(P, d_cnt);
        KIT_CK_LAUNCH("k_count");
        size_t cb = cub_bytes;
        KIT_CK(cub::DeviceScan::ExclusiveSum(p_cub, cb, d_cnt, d_off, (int)(P.np + 1), b.stream));
        KIT_CK(cudaMemsetAsync(d_ctr, 0, sizeof *d_ctr, b.stream));
        (void)cudaGetLastError();
        k_scan<L><<<grid, NT, smem, b.stream>>>(P, d_ctr, b.out);
        KIT_CK_LAUNCH("k_scan");
    }
    return 0;
}

}  /* namespace */

extern "C" int gpuasm_scan_cuda_launch(const gpuasm_cuda_batch *bp, gpuasm_err *err)
{
    const gpuasm_cuda_batch &b = *bp;
    if ((uint64_t)b.host.reads.n * b.host.targets.n == 0) return 0;
    switch (gpuasm_knob(b.settings->cuda_scan_run, 8)) {
    case 16: return launch_run<16>(b, err);
    default: return launch_run<8>(b, err);
    }
}
