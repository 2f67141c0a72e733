/* SPDX-License-Identifier: MIT */
/* cuda_device.cuh -- device-side pieces every CUDA kernel shares: a
 * sequence in its search orientation, the segment window of seed 000 §V,
 * and the local-minimum rule of search.h.  __host__ __device__ code, so a
 * host harness can run the kernels' per-thread logic on the CPU.  C++ for
 * .cu files only.
 */
#ifndef GPUASM_CUDA_DEVICE_CUH
#define GPUASM_CUDA_DEVICE_CUH

#include <stdint.h>

#include "search/nt16.h"
#include "search/search.h"

#define HD __host__ __device__ __forceinline__

/* Unroll a loop on the device pass only (the host compiler does not know
 * the pragma; the host harness does not care about speed). */
#ifdef __CUDA_ARCH__
#define DEV_UNROLL _Pragma("unroll")
#else
#define DEV_UNROLL
#endif

namespace gcore {

/* D above every k: "not <= k, value unknown".  Local-minimum tests only
 * compare values <= k exactly, so any value > k may stand for it. */
enum { BIGD = 0x3fffffff };

/* A sequence in the orientation searched: rc = reverse complement. */
struct seqv {
    const uint8_t *p;
    uint32_t len;
    int32_t rc;
    HD uint32_t at(uint32_t i) const
    {
        return rc ? gpuasm_nt16_comp(p[len - 1 - i]) : p[i];
    }
};

/* ---- local minima (search.h) ------------------------------------------
 * The DP of a work item visits columns j0 .. jend-1 in order; lm_push()
 * gets D[m][j] of each (or BIGD when it is known to be > k) and decides
 * whether j-1 is a reported local minimum:
 *     D[j-1] <= k, D[j-2] > D[j-1], D[j] >= D[j-1], s0 <= j-1 < s1.
 * A value > k may be represented by anything > k (it can never be a
 * candidate, and compared with a candidate <= k it is on the right side).
 * d1/d2 start at BIGD: position j0-1 is either text position -1 (no left
 * neighbour: "larger") or before s0-1 (never a candidate's neighbour, see
 * "Segments" below).  After the last text position n-1 the caller pushes
 * BIGD at j = n (no right neighbour). */
struct lmin {
    int32_t d1, d2;    /* D[j-1], D[j-2] */
};

HD void lm_init(lmin &s) { s.d1 = BIGD; s.d2 = BIGD; }

template <class Emit>
HD void lm_push(lmin &s, int32_t d, uint32_t j, int32_t k, uint32_t s0, uint32_t s1,
                Emit &emit)
{
    if (s.d1 <= k) {
        if (s.d2 > s.d1 && d >= s.d1 && j - 1 >= s0 && j - 1 < s1) emit(j - 1, s.d1);
    }
    s.d2 = s.d1;
    s.d1 = d;
}

/* ---- Segments (seed 000 §V; seed 003 §3) --------------------------------
 * Item [s0, s1) of a text of n positions starts a fresh DP column
 * (D[i][j0-1] = i) at j0 = s0 - ov (clamped at 0), ov >= m + k, and runs to
 * jend = min(s1 + 1, n) (one column past s1 for the right-neighbour test).
 * Exact: an alignment with <= k differences covers <= m + k text bases, so
 * for every j >= s0 - 1 every start i of a substring with ED(P, T[i..j])
 * <= k has i >= j0; the fresh DP sees all of them and finds the same D
 * whenever D <= k, and only larger values (fewer starts) when D > k.
 * Hence D[s0-1 .. s1] are exact where <= k, which is all the local-minimum
 * rule needs for j in [s0, s1).  Starting earlier than needed stays exact. */
struct window {
    uint32_t s0, s1, j0, jend;
};

HD window make_window(uint64_t seg, uint64_t seglen, uint64_t n, uint64_t ov)
{
    window w;
    const uint64_t s0 = seg * seglen;
    const uint64_t s1 = s0 + seglen < n ? s0 + seglen : n;
    w.s0 = (uint32_t)s0;
    w.s1 = (uint32_t)s1;
    w.j0 = (uint32_t)(s0 > ov ? s0 - ov : 0);
    w.jend = (uint32_t)(s1 + 1 < n ? s1 + 1 : n);
    return w;
}

/* Pair (r, t) of a batch view: its rule (search.h) and its strand-0
 * pattern and text. */
struct pair_ref {
    uint32_t r, t;
    gpuasm_pair p;
    const uint8_t *pat, *txt;   /* strand 0: the sequences as stored */
};

HD pair_ref pair_ref_of(const gpuasm_batch_view &v, uint32_t r, uint32_t t)
{
    pair_ref x;
    x.r = r;
    x.t = t;
    x.p = gpuasm_view_pair(&v, r, t);
    const uint8_t *rs = v.reads.code + v.reads.off[r], *ts = v.targets.code + v.targets.off[t];
    x.pat = x.p.read_is_pattern ? rs : ts;
    x.txt = x.p.read_is_pattern ? ts : rs;
    return x;
}

/* Pair number `pair` of a view: read-major (pair / ntargets, pair % ntargets). */
HD pair_ref pair_at(const gpuasm_batch_view &v, uint64_t pair)
{
    return pair_ref_of(v, (uint32_t)(pair / v.targets.n), (uint32_t)(pair % v.targets.n));
}

/* Largest p < np with off[p] <= w (off is an exclusive scan, off[np] > w). */
HD uint64_t find_slot(const uint64_t *off, uint64_t np, uint64_t w)
{
    uint64_t lo = 0, hi = np;
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (off[mid] <= w) lo = mid;
        else hi = mid;
    }
    return lo;
}

}  /* namespace gcore */

#endif
