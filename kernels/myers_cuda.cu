/* myers_cuda.cu -- the CUDA Myers kernel behind kernels/myers_cuda.h.
 *
 * Same end hits as gpuasm_myers_cpu_scan() (search.h): for every read r of
 * the batch, every target t and both strands s, D[m][j] = min over i of
 * ED(P, T[i..j]) for every text position j, reported when <= k.
 *
 * Algorithm: bit-parallel Myers 1999 (seed 003 §2.2, "Algoritmo 1"), 64-bit
 * words; patterns longer than 64 bases use ceil(m/64) words chained by
 * Myers' per-block horizontal carry (hin/hout, as in edlib's calculateBlock).
 *
 * Work decomposition (seed 000 §V; seed 003 §3, "fatias" with an overlap):
 * a work item is (read, target, strand, text segment).  The text of a pair is
 * cut into segments of seglen = max(seg_min, m + k) positions; the item of
 * segment [s0, s1) starts a fresh DP column (Pv = all ones, Mv = 0,
 * score = m) at j0 = max(0, s0 - (m + k - 1)) and reports only s0 <= j < s1.
 * Why that is exact: an alignment of P with <= k differences covers at most
 * m + k text bases, so for j >= s0 every start i of a substring with
 * ED(P, T[i..j]) <= k satisfies i >= j - (m + k) + 1 >= j0: the fresh DP,
 * which only sees starts >= j0, finds the same minimum whenever D[m][j] <= k,
 * and when D[m][j] > k it can only find a larger value (fewer starts), so it
 * reports nothing either.  seglen >= m + k keeps the overlap overhead <= 2x.
 *
 * Pattern masks: nt16 codes are base sets and two codes match iff they share
 * a base, so Eq(c) = OR over the bases b in c of B[b], where
 * B[b] = { i : P[i] contains base b } (4 masks per word, not 16).  They are
 * built per work item from the pattern codes (O(m), against O((seglen + m + k)
 * * W) for the DP) and Eq is formed per text character with 4 selects.
 *
 * Storage: patterns of W <= 4 words (m <= 256) keep Pv, Mv and B in
 * registers (one kernel per W, fully unrolled); longer patterns (any length)
 * run in a second kernel whose threads each own a "slot" of global scratch
 * (6 * Wmax words, interleaved [array][word][slot] so a warp's accesses are
 * contiguous) and loop over work items.  One thread per work item in both.
 *
 * Enumeration: pairs (read-major: pair = read * n_targets + target) are taken
 * in chunks; a count kernel gives 2 * nseg per pair of the current word-class,
 * CUB's exclusive scan turns that into offsets, and each work item finds its
 * pair by binary search over the offsets.  Hits go to a device array through
 * an atomic counter; when the counter passes the capacity the array grows and
 * the (chunk, class) is run again, so no hit is ever dropped.
 *
 * The per-item routine (process_item, myers_segment) is __host__ __device__
 * so a host program can run exactly this code on the CPU.
 *
 * Test knobs (environment, read by gpuasm_cuda_open; for tests only):
 *   GPUASM_CUDA_SEG_MIN=N      minimum segment length (default 2048; 1 is legal)
 *   GPUASM_CUDA_FORCE_GLOBAL=1 run every pattern in the global-scratch kernel
 *   GPUASM_CUDA_PAIR_CHUNK=N   pairs per chunk (default 4 Mi)
 *   GPUASM_CUDA_HIT_CAP=N      initial hit-buffer capacity (default 1 Mi)
 *
 * Not thread-safe: one host thread at a time per gpuasm_cuda.
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "myers_cuda.h"

#define HD __host__ __device__ __forceinline__

/* Unroll the word loops of myers_segment fully when the word count WC is a
 * compile-time constant (register storage), not at all otherwise.  Device
 * pass only: the host compiler does not know the pragma. */
#ifdef __CUDA_ARCH__
#define UNROLL_WORDS _Pragma("unroll (WC > 0 ? WC : 1)")
#else
#define UNROLL_WORDS
#endif

/* Sequences of 2^31 bases or more are refused (scores and positions are
 * 32-bit on the device; end hits are 32-bit anyway). */
#define GPUASM_CUDA_MAX_LEN ((uint64_t)INT32_MAX)

enum { DEFAULT_SEG_MIN = 2048,
       DEFAULT_PAIR_CHUNK = 1 << 22,
       DEFAULT_HIT_CAP = 1 << 20,
       REG_WORDS_MAX = 4,            /* W <= this: registers */
       THREADS = 128 };
/* Global scratch for long patterns: at most this much, but at least 1 slot. */
static const size_t SCRATCH_BUDGET = (size_t)512 << 20;

/* ---- the per-item code, shared by device and host ---------------------- */

/* Everything a kernel needs to decode a pair, by value. */
struct scan_params {
    const uint8_t *rcode;      /* batch read codes (device) */
    const uint64_t *roff;      /* [nreads + 1] */
    const uint8_t *tcode;      /* target codes (device) */
    const uint64_t *toff;      /* [ntargets + 1] */
    uint32_t nreads, ntargets;
    int32_t max_diffs;         /* gpuasm_search_opt, copied */
    double error_rate;
    int32_t pattern_side;
    uint32_t seg_min;          /* >= 1 */
    int32_t force_global;      /* every pair in class 0 */
    uint64_t pair0;            /* first pair of the current chunk */
};

/* Identical to gpuasm_read_is_pattern() in search.h (host-only there). */
HD int dev_read_is_pattern(int32_t side, uint64_t read_len, uint64_t target_len)
{
    if (side == GPUASM_PATTERN_READ) return 1;
    if (side == GPUASM_PATTERN_TARGET) return 0;
    return read_len <= target_len;
}

/* Identical to gpuasm_pair_k() in search.h: -k as given, else floor(e * m)
 * in double arithmetic (IEEE multiply and floor give the same on the device). */
HD int32_t dev_pair_k(int32_t max_diffs, double error_rate, uint64_t m)
{
    if (max_diffs >= 0) return max_diffs;
    return (int32_t)floor(error_rate * (double)m);
}

/* One (read, target) pair as the kernels see it. */
struct pair_info {
    const uint8_t *pat, *txt;  /* forward codes of pattern and text */
    uint32_t m, n;             /* pattern, text length */
    int32_t k;
    int32_t read_is_pattern;
    uint32_t r, t;
    uint32_t words;            /* ceil(m / 64) */
    uint64_t seglen, nseg;     /* nseg == 0: nothing to search */
};

HD pair_info get_pair(const scan_params &sp, uint64_t pair)
{
    pair_info pi;
    pi.r = (uint32_t)(pair / sp.ntargets);
    pi.t = (uint32_t)(pair % sp.ntargets);
    const uint64_t rlen = sp.roff[pi.r + 1] - sp.roff[pi.r];
    const uint64_t tlen = sp.toff[pi.t + 1] - sp.toff[pi.t];
    pi.read_is_pattern = dev_read_is_pattern(sp.pattern_side, rlen, tlen);
    const uint8_t *rs = sp.rcode + sp.roff[pi.r], *ts = sp.tcode + sp.toff[pi.t];
    pi.pat = pi.read_is_pattern ? rs : ts;
    pi.txt = pi.read_is_pattern ? ts : rs;
    pi.m = (uint32_t)(pi.read_is_pattern ? rlen : tlen);
    pi.n = (uint32_t)(pi.read_is_pattern ? tlen : rlen);
    pi.k = dev_pair_k(sp.max_diffs, sp.error_rate, pi.m);
    pi.words = (pi.m + 63u) / 64u;
    pi.seglen = 0;
    pi.nseg = 0;
    /* Skipped as in search.h: m <= k.  Also k < 0 or m == 0 (no D <= k can
     * exist: D >= 0), and n == 0 (no text position). */
    if (pi.m == 0 || pi.k < 0 || (uint64_t)pi.m <= (uint64_t)pi.k || pi.n == 0)
        return pi;
    const uint64_t mk = (uint64_t)pi.m + (uint64_t)pi.k;
    pi.seglen = mk > sp.seg_min ? mk : sp.seg_min;
    pi.nseg = ((uint64_t)pi.n + pi.seglen - 1) / pi.seglen;
    return pi;
}

/* Word class of a pair: 1..REG_WORDS_MAX (register kernels) or 0 (global). */
HD int pair_class(const scan_params &sp, const pair_info &pi)
{
    return (!sp.force_global && pi.words <= REG_WORDS_MAX) ? (int)pi.words : 0;
}

/* Work items of a pair for class cls (2 strands x nseg), 0 if not in it. */
HD uint64_t pair_items(const scan_params &sp, uint64_t pair, int cls, uint32_t *m_out)
{
    pair_info pi = get_pair(sp, pair);
    *m_out = pi.m;
    if (pi.nseg == 0 || pair_class(sp, pi) != cls) return 0;
    return 2 * pi.nseg;
}

/* A sequence in the orientation searched: rc = reverse complement. */
struct seq_view {
    const uint8_t *p;
    uint32_t len;
    int32_t rc;
    HD uint32_t operator()(uint32_t i) const
    {
        return rc ? gpuasm_nt16_comp(p[len - 1 - i]) : p[i];
    }
};

/* Pv, Mv and the 4 base masks of W words in registers (indices become
 * compile-time constants once the word loops are unrolled). */
template <int W> struct reg_store {
    uint64_t pv[W], mv[W], b[4][W];
    HD uint64_t &PV(uint32_t w) { return pv[w]; }
    HD uint64_t &MV(uint32_t w) { return mv[w]; }
    HD uint64_t &B(int base, uint32_t w) { return b[base][w]; }
};

/* The same in a slot of global scratch: array a (0 Pv, 1 Mv, 2..5 B[0..3]),
 * word w of slot s at scratch[(a * wmax + w) * nslot + s]; p = scratch + s. */
struct glob_store {
    uint64_t *p;
    size_t nslot;
    size_t wmax;
    HD uint64_t &PV(uint32_t w) { return p[(size_t)w * nslot]; }
    HD uint64_t &MV(uint32_t w) { return p[(wmax + w) * nslot]; }
    HD uint64_t &B(int base, uint32_t w) { return p[((2 + (size_t)base) * wmax + w) * nslot]; }
};

/* Myers over text positions j0 .. s1-1 of one pattern, from a fresh column
 * (D[i][j0-1] = i), reporting every j in [s0, s1) with D[m][j] <= k through
 * sink.emit(j, D).  WC > 0: exactly WC words (unrolled); WC == 0: `words`. */
template <int WC, class Store, class Sink>
HD void myers_segment(Store &st, uint32_t words, const seq_view &pat,
                      const seq_view &txt, uint32_t j0, uint32_t s0,
                      uint32_t s1, int32_t k, Sink &sink)
{
    const uint32_t m = pat.len;
    const uint32_t nw = WC > 0 ? (uint32_t)WC : words;

    /* Pattern masks; padding bits past m stay 0 (they only feed rows > m,
     * since carries and shifts move upwards, and row m is read directly). */
    UNROLL_WORDS
    for (uint32_t w = 0; w < nw; ++w) {
        uint64_t b0 = 0, b1 = 0, b2 = 0, b3 = 0;
        const uint32_t lo = w * 64u;
        const uint32_t hi = m - lo < 64u ? m : lo + 64u;
        for (uint32_t i = lo; i < hi; ++i) {
            const uint32_t c = pat(i);
            const uint64_t bit = (uint64_t)1 << (i - lo);
            if (c & 1u) b0 |= bit;
            if (c & 2u) b1 |= bit;
            if (c & 4u) b2 |= bit;
            if (c & 8u) b3 |= bit;
        }
        st.B(0, w) = b0;
        st.B(1, w) = b1;
        st.B(2, w) = b2;
        st.B(3, w) = b3;
        st.PV(w) = ~(uint64_t)0;   /* D[i][j0-1] = i: every vertical delta +1 */
        st.MV(w) = 0;
    }

    const uint32_t lastbit = (m - 1u) & 63u;   /* row m in the last word */
    int32_t score = (int32_t)m;                /* D[m][j0-1] */
    for (uint32_t j = j0; j < s1; ++j) {
        const uint32_t c = txt(j);
        const uint64_t s_a = (uint64_t)0 - (uint64_t)(c & 1u);
        const uint64_t s_c = (uint64_t)0 - (uint64_t)((c >> 1) & 1u);
        const uint64_t s_g = (uint64_t)0 - (uint64_t)((c >> 2) & 1u);
        const uint64_t s_t = (uint64_t)0 - (uint64_t)((c >> 3) & 1u);
        int32_t hin = 0;               /* row 0 is all zeros: its delta is 0 */
        uint64_t ph_last = 0, mh_last = 0;
    UNROLL_WORDS
        for (uint32_t w = 0; w < nw; ++w) {
            /* Myers 1999 advance_block (edlib's calculateBlock). */
            uint64_t eq = (st.B(0, w) & s_a) | (st.B(1, w) & s_c) |
                          (st.B(2, w) & s_g) | (st.B(3, w) & s_t);
            const uint64_t pv = st.PV(w), mv = st.MV(w);
            const uint64_t hneg = hin < 0 ? 1u : 0u;
            const uint64_t hpos = hin > 0 ? 1u : 0u;
            const uint64_t xv = eq | mv;
            eq |= hneg;
            const uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
            uint64_t ph = mv | ~(xh | pv);
            uint64_t mh = pv & xh;
            if (w == nw - 1) {
                ph_last = ph;
                mh_last = mh;
            }
            hin = (int32_t)(ph >> 63) - (int32_t)(mh >> 63);
            ph = (ph << 1) | hpos;
            mh = (mh << 1) | hneg;
            st.PV(w) = mh | ~(xv | ph);
            st.MV(w) = ph & xv;
        }
        score += (int32_t)((ph_last >> lastbit) & 1u) - (int32_t)((mh_last >> lastbit) & 1u);
        if (j >= s0 && score <= k) sink.emit(j, score);
    }
}

/* Sink of one work item: adds read/target/strand to (j, D). */
template <class Out> struct item_sink {
    Out *out;
    uint32_t r, t, strand;
    HD void emit(uint32_t j, int32_t d) { out->emit(r, t, j, d, strand); }
};

/* Work item w of the current chunk and class.  off[0..npairs] is the
 * exclusive scan of pair_items() (off[npairs] = total > w). */
template <int WC, class Store, class Out>
HD void process_item(const scan_params &sp, const uint64_t *off, uint64_t npairs,
                     uint64_t w, Store &st, Out &out)
{
    /* Largest p with off[p] <= w; then off[p] <= w < off[p + 1]. */
    uint64_t lo = 0, hi = npairs;
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (off[mid] <= w) lo = mid;
        else hi = mid;
    }
    const pair_info pi = get_pair(sp, sp.pair0 + lo);
    const uint64_t local = w - off[lo];
    const uint32_t strand = (uint32_t)(local & 1u);
    const uint64_t seg = local >> 1;
    const uint64_t s0 = seg * pi.seglen;
    const uint64_t s1 = s0 + pi.seglen < pi.n ? s0 + pi.seglen : pi.n;
    const uint64_t ov = (uint64_t)pi.m + (uint64_t)pi.k - 1;   /* k >= 0 here */
    const uint64_t j0 = s0 > ov ? s0 - ov : 0;
    seq_view pat, txt;
    pat.p = pi.pat;
    pat.len = pi.m;
    pat.rc = pi.read_is_pattern && strand;
    txt.p = pi.txt;
    txt.len = pi.n;
    txt.rc = !pi.read_is_pattern && strand;
    item_sink<Out> sink;
    sink.out = &out;
    sink.r = pi.r;
    sink.t = pi.t;
    sink.strand = strand;
    myers_segment<WC>(st, pi.words, pat, txt, (uint32_t)j0, (uint32_t)s0,
                      (uint32_t)s1, pi.k, sink);
}

/* ---- device side ---------------------------------------------------------- */

/* Hits into a device array; an index past cap is counted, not written. */
struct dev_out {
    gpuasm_endhit *hit;
    unsigned long long *count;
    unsigned long long cap;
    HD void emit(uint32_t r, uint32_t t, uint32_t j, int32_t d, uint32_t s)
    {
#ifdef __CUDA_ARCH__
        const unsigned long long i = atomicAdd(count, 1ULL);
        if (i < cap) {
            gpuasm_endhit e;
            e.read = r;
            e.target = t;
            e.end = j;
            e.dist = d;
            e.strand = s;
            hit[i] = e;
        }
#else
        (void)r; (void)t; (void)j; (void)d; (void)s;
#endif
    }
};

/* cnt[i] = pair_items(pair0 + i, cls) for i < npairs, cnt[npairs] = 0;
 * *maxm = max pattern length over counted pairs (sizes class-0 scratch). */
static __global__ void __launch_bounds__(THREADS)
k_count(scan_params sp, uint64_t npairs, int cls, uint64_t *cnt, unsigned long long *maxm)
{
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i > npairs) return;
    if (i == npairs) {
        cnt[i] = 0;
        return;
    }
    uint32_t m;
    const uint64_t c = pair_items(sp, sp.pair0 + i, cls, &m);
    cnt[i] = c;
    if (c) atomicMax(maxm, (unsigned long long)m);
}

template <int W>
static __global__ void __launch_bounds__(THREADS)
k_scan_reg(scan_params sp, const uint64_t *off, uint64_t npairs, uint64_t total, dev_out out)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t w = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; w < total; w += stride) {
        reg_store<W> st;
        process_item<W>(sp, off, npairs, w, st, out);
    }
}

static __global__ void __launch_bounds__(THREADS)
k_scan_glob(scan_params sp, const uint64_t *off, uint64_t npairs, uint64_t total,
            uint64_t *scratch, uint64_t nslot, uint64_t wmax, dev_out out)
{
    const uint64_t slot = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (slot >= nslot) return;
    glob_store st;
    st.p = scratch + slot;
    st.nslot = nslot;
    st.wmax = wmax;
    for (uint64_t w = slot; w < total; w += nslot)
        process_item<0>(sp, off, npairs, w, st, out);
}

/* ---- host side ------------------------------------------------------------ */

struct gpuasm_cuda {
    int device;
    int sm_count;
    char desc[320];
    cudaStream_t stream;
    /* knobs */
    uint32_t seg_min;
    int force_global;
    uint64_t pair_chunk;
    /* targets */
    int have_targets;
    uint32_t ntargets;
    uint8_t *d_tcode;
    uint64_t *d_toff;
    /* batch buffers, grown as needed (capacities in bytes) */
    uint8_t *d_rcode;   size_t rcode_cap;
    uint64_t *d_roff;   size_t roff_cap;
    uint64_t *d_cnt;    size_t cnt_cap;
    uint64_t *d_off;    size_t off_cap;
    void *d_cub;        size_t cub_cap;
    uint64_t *d_scratch; size_t scratch_cap;
    gpuasm_endhit *d_hit; size_t hit_cap;    /* bytes */
    unsigned long long *d_misc;              /* [0] hit counter, [1] max m */
    unsigned long long *h_misc;              /* pinned [3]: total, max m, hits */
};

/* "CUDA: <function>: <error string>"; the function name is the text of the
 * call up to its '('. */
static int cuda_fail(char *err, size_t errlen, const char *call, cudaError_t e)
{
    if (err && errlen)
        snprintf(err, errlen, "CUDA: %.*s: %s", (int)strcspn(call, "("), call,
                 cudaGetErrorString(e));
    return -1;
}

#define CK(call) do {                                                     \
        cudaError_t ck_e_ = (call);                                       \
        if (ck_e_ != cudaSuccess) return cuda_fail(err, errlen, #call, ck_e_); \
    } while (0)

/* After a launch: launch errors now, execution errors at the next sync.
 * CLEAR_ERR before a launch, so that a stale error of an earlier, already
 * reported call is not taken for the launch's. */
#define CLEAR_ERR() ((void)cudaGetLastError())
#define CK_LAUNCH(name) do {                                              \
        cudaError_t ck_e_ = cudaGetLastError();                           \
        if (ck_e_ != cudaSuccess) return cuda_fail(err, errlen, name, ck_e_); \
    } while (0)

/* Make *p hold at least `need` bytes (contents are not kept). */
static int grow(void **p, size_t *cap, size_t need, char *err, size_t errlen)
{
    if (need <= *cap && *p) return 0;
    if (*p) CK(cudaFree(*p));
    *p = NULL;
    *cap = 0;
    size_t bytes = need + need / 4;        /* some slack: fewer regrowths */
    if (bytes < need) bytes = need;        /* overflow */
    if (bytes == 0) bytes = 1;
    CK(cudaMalloc(p, bytes));
    *cap = bytes;
    return 0;
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *s = getenv(name);
    if (!s || !*s) return dflt;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    return (*end || v == 0) ? dflt : (uint64_t)v;
}

extern "C" int gpuasm_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();   /* clear it: no GPU is not an error */
        return 0;
    }
    return n;
}

extern "C" int gpuasm_cuda_open(int device, gpuasm_cuda **out, char *err, size_t errlen)
{
    *out = NULL;
    int n = gpuasm_cuda_device_count();
    if (device < 0 || device >= n) {
        snprintf(err, errlen, "CUDA: no device %d (%d device%s found)", device, n,
                 n == 1 ? "" : "s");
        return -1;
    }
    gpuasm_cuda *g = (gpuasm_cuda *)calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    g->device = device;
    g->seg_min = (uint32_t)env_u64("GPUASM_CUDA_SEG_MIN", DEFAULT_SEG_MIN);
    if (g->seg_min == 0) g->seg_min = DEFAULT_SEG_MIN;   /* > 2^32 - 1 wrapped */
    g->force_global = env_u64("GPUASM_CUDA_FORCE_GLOBAL", 0) != 0;
    g->pair_chunk = env_u64("GPUASM_CUDA_PAIR_CHUNK", DEFAULT_PAIR_CHUNK);
    if (g->pair_chunk > (uint64_t)INT32_MAX - 1) g->pair_chunk = DEFAULT_PAIR_CHUNK;
    const uint64_t hit_cap = env_u64("GPUASM_CUDA_HIT_CAP", DEFAULT_HIT_CAP);

    int rc = -1;
    do {
        cudaDeviceProp prop;
        cudaError_t e;
        if ((e = cudaSetDevice(device)) != cudaSuccess) { cuda_fail(err, errlen, "cudaSetDevice", e); break; }
        if ((e = cudaGetDeviceProperties(&prop, device)) != cudaSuccess) { cuda_fail(err, errlen, "cudaGetDeviceProperties", e); break; }
        g->sm_count = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
        snprintf(g->desc, sizeof g->desc, "%s (sm_%d%d, %d SMs, %.0f GiB)", prop.name,
                 prop.major, prop.minor, prop.multiProcessorCount,
                 (double)prop.totalGlobalMem / (double)(1ULL << 30));
        if ((e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking)) != cudaSuccess) { cuda_fail(err, errlen, "cudaStreamCreateWithFlags", e); break; }
        if ((e = cudaMalloc((void **)&g->d_misc, 2 * sizeof(unsigned long long))) != cudaSuccess) { cuda_fail(err, errlen, "cudaMalloc", e); break; }
        if ((e = cudaHostAlloc((void **)&g->h_misc, 3 * sizeof(unsigned long long), cudaHostAllocDefault)) != cudaSuccess) { cuda_fail(err, errlen, "cudaHostAlloc", e); break; }
        if (grow((void **)&g->d_hit, &g->hit_cap, hit_cap * sizeof(gpuasm_endhit), err, errlen)) break;
        rc = 0;
    } while (0);
    if (rc) {
        gpuasm_cuda_close(g);
        return -1;
    }
    *out = g;
    return 0;
}

extern "C" const char *gpuasm_cuda_describe(const gpuasm_cuda *g)
{
    return g->desc;
}

extern "C" int gpuasm_cuda_set_targets(gpuasm_cuda *g, const gpuasm_seqset *targets,
                                       char *err, size_t errlen)
{
    CK(cudaSetDevice(g->device));
    for (uint32_t t = 0; t < targets->n; t++) {
        if (targets->off[t + 1] - targets->off[t] > GPUASM_CUDA_MAX_LEN) {
            snprintf(err, errlen, "CUDA backend: target %u is longer than %llu bases",
                     t + 1, (unsigned long long)GPUASM_CUDA_MAX_LEN);
            return -1;
        }
    }
    g->have_targets = 0;
    if (g->d_tcode) CK(cudaFree(g->d_tcode));
    if (g->d_toff) CK(cudaFree(g->d_toff));
    g->d_tcode = NULL;
    g->d_toff = NULL;
    const size_t nbytes = (size_t)targets->off[targets->n];
    const size_t obytes = ((size_t)targets->n + 1) * sizeof(uint64_t);
    CK(cudaMalloc((void **)&g->d_tcode, nbytes ? nbytes : 1));
    CK(cudaMalloc((void **)&g->d_toff, obytes));
    if (nbytes) CK(cudaMemcpyAsync(g->d_tcode, targets->code, nbytes, cudaMemcpyHostToDevice, g->stream));
    CK(cudaMemcpyAsync(g->d_toff, targets->off, obytes, cudaMemcpyHostToDevice, g->stream));
    CK(cudaStreamSynchronize(g->stream));
    g->ntargets = targets->n;
    g->have_targets = 1;
    return 0;
}

/* Run one (chunk, class): count, scan, search, collect.  Appends to out. */
static int scan_class(gpuasm_cuda *g, scan_params sp, uint64_t np, int cls,
                      gpuasm_hits *out, char *err, size_t errlen)
{
    /* Items per pair, then their exclusive scan: off[np] = total. */
    CK(cudaMemsetAsync(g->d_misc + 1, 0, sizeof(unsigned long long), g->stream));
    const uint64_t nblk = (np + 1 + THREADS - 1) / THREADS;
    CLEAR_ERR();
    k_count<<<(unsigned)nblk, THREADS, 0, g->stream>>>(sp, np, cls, g->d_cnt, g->d_misc + 1);
    CK_LAUNCH("k_count");
    size_t cub_bytes = 0;
    CK(cub::DeviceScan::ExclusiveSum(NULL, cub_bytes, g->d_cnt, g->d_off, (int)(np + 1), g->stream));
    if (grow(&g->d_cub, &g->cub_cap, cub_bytes, err, errlen)) return -1;
    cub_bytes = g->cub_cap;
    CK(cub::DeviceScan::ExclusiveSum(g->d_cub, cub_bytes, g->d_cnt, g->d_off, (int)(np + 1), g->stream));
    CK(cudaMemcpyAsync(&g->h_misc[0], g->d_off + np, sizeof(uint64_t), cudaMemcpyDeviceToHost, g->stream));
    CK(cudaMemcpyAsync(&g->h_misc[1], g->d_misc + 1, sizeof(unsigned long long), cudaMemcpyDeviceToHost, g->stream));
    CK(cudaStreamSynchronize(g->stream));
    const uint64_t total = g->h_misc[0];
    const uint64_t maxm = g->h_misc[1];
    if (total == 0) return 0;

    /* Class 0: as many slots as the scratch budget allows (>= 1). */
    uint64_t wmax = 0, nslot = 0;
    if (cls == 0) {
        wmax = (maxm + 63) / 64;
        const uint64_t slot_bytes = 6 * wmax * sizeof(uint64_t);
        nslot = SCRATCH_BUDGET / slot_bytes;
        const uint64_t most = (uint64_t)g->sm_count * 1024;
        if (nslot > most) nslot = most;
        if (nslot > total) nslot = total;
        if (nslot < 1) nslot = 1;
        if (grow((void **)&g->d_scratch, &g->scratch_cap, (size_t)(nslot * slot_bytes), err, errlen))
            return -1;
    }

    for (;;) {
        const unsigned long long cap = g->hit_cap / sizeof(gpuasm_endhit);
        dev_out dout;
        dout.hit = g->d_hit;
        dout.count = g->d_misc;
        dout.cap = cap;
        CK(cudaMemsetAsync(g->d_misc, 0, sizeof(unsigned long long), g->stream));
        CLEAR_ERR();
        if (cls == 0) {
            const uint64_t blocks = (nslot + THREADS - 1) / THREADS;
            k_scan_glob<<<(unsigned)blocks, THREADS, 0, g->stream>>>(
                sp, g->d_off, np, total, g->d_scratch, nslot, wmax, dout);
        } else {
            uint64_t blocks = (total + THREADS - 1) / THREADS;
            const uint64_t most = (uint64_t)g->sm_count * 32;
            if (blocks > most) blocks = most;
            switch (cls) {
            case 1: k_scan_reg<1><<<(unsigned)blocks, THREADS, 0, g->stream>>>(sp, g->d_off, np, total, dout); break;
            case 2: k_scan_reg<2><<<(unsigned)blocks, THREADS, 0, g->stream>>>(sp, g->d_off, np, total, dout); break;
            case 3: k_scan_reg<3><<<(unsigned)blocks, THREADS, 0, g->stream>>>(sp, g->d_off, np, total, dout); break;
            default: k_scan_reg<4><<<(unsigned)blocks, THREADS, 0, g->stream>>>(sp, g->d_off, np, total, dout); break;
            }
        }
        CK_LAUNCH(cls == 0 ? "k_scan_glob" : "k_scan_reg");
        CK(cudaMemcpyAsync(&g->h_misc[2], g->d_misc, sizeof(unsigned long long), cudaMemcpyDeviceToHost, g->stream));
        CK(cudaStreamSynchronize(g->stream));
        const unsigned long long nhit = g->h_misc[2];
        if (nhit > cap) {
            /* Some hits were not stored: make room for all and run again
             * (the set of hits is deterministic, so the rerun fits). */
            if (nhit > SIZE_MAX / sizeof(gpuasm_endhit) / 2) {
                snprintf(err, errlen, "CUDA backend: too many hits (%llu)", nhit);
                return -1;
            }
            if (grow((void **)&g->d_hit, &g->hit_cap, (size_t)nhit * sizeof(gpuasm_endhit), err, errlen))
                return -1;
            continue;
        }
        if (nhit) {
            if (gpuasm_hits_reserve(out, (size_t)nhit) < 0) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            CK(cudaMemcpyAsync(out->hit + out->n, g->d_hit, (size_t)nhit * sizeof(gpuasm_endhit),
                               cudaMemcpyDeviceToHost, g->stream));
            CK(cudaStreamSynchronize(g->stream));
            out->n += (size_t)nhit;
        }
        return 0;
    }
}

extern "C" int gpuasm_cuda_scan(gpuasm_cuda *g, const gpuasm_seqset *reads,
                                const gpuasm_search_opt *opt, gpuasm_hits *out,
                                char *err, size_t errlen)
{
    if (!g->have_targets) {
        snprintf(err, errlen, "CUDA backend: no targets set");
        return -1;
    }
    if (reads->n == 0 || g->ntargets == 0) return 0;
    for (uint32_t r = 0; r < reads->n; r++) {
        if (reads->off[r + 1] - reads->off[r] > GPUASM_CUDA_MAX_LEN) {
            snprintf(err, errlen, "CUDA backend: read %u of the batch is longer than %llu bases",
                     r + 1, (unsigned long long)GPUASM_CUDA_MAX_LEN);
            return -1;
        }
    }
    CK(cudaSetDevice(g->device));

    /* The batch: codes and offsets (reads are indexed by absolute offsets). */
    const size_t nbytes = (size_t)reads->off[reads->n];
    const size_t obytes = ((size_t)reads->n + 1) * sizeof(uint64_t);
    if (grow((void **)&g->d_rcode, &g->rcode_cap, nbytes, err, errlen)) return -1;
    if (grow((void **)&g->d_roff, &g->roff_cap, obytes, err, errlen)) return -1;
    if (nbytes) CK(cudaMemcpyAsync(g->d_rcode, reads->code, nbytes, cudaMemcpyHostToDevice, g->stream));
    CK(cudaMemcpyAsync(g->d_roff, reads->off, obytes, cudaMemcpyHostToDevice, g->stream));

    scan_params sp;
    sp.rcode = g->d_rcode;
    sp.roff = g->d_roff;
    sp.tcode = g->d_tcode;
    sp.toff = g->d_toff;
    sp.nreads = reads->n;
    sp.ntargets = g->ntargets;
    sp.max_diffs = opt->max_diffs;
    sp.error_rate = opt->error_rate;
    sp.pattern_side = opt->pattern_side;
    sp.seg_min = g->seg_min;
    sp.force_global = g->force_global;

    const uint64_t npairs = (uint64_t)reads->n * g->ntargets;
    const size_t chunk = (size_t)(npairs < g->pair_chunk ? npairs : g->pair_chunk);
    if (grow((void **)&g->d_cnt, &g->cnt_cap, (chunk + 1) * sizeof(uint64_t), err, errlen)) return -1;
    if (grow((void **)&g->d_off, &g->off_cap, (chunk + 1) * sizeof(uint64_t), err, errlen)) return -1;
    /* CUB is C++ and may throw; nothing may unwind into the C caller. */
    try {
        for (uint64_t p0 = 0; p0 < npairs; p0 += chunk) {
            const uint64_t np = npairs - p0 < chunk ? npairs - p0 : chunk;
            sp.pair0 = p0;
            static const int classes[] = { 1, 2, 3, 4, 0 };
            for (int c = 0; c < 5; c++)
                if (scan_class(g, sp, np, classes[c], out, err, errlen)) return -1;
        }
    } catch (...) {
        snprintf(err, errlen, "CUDA backend: unexpected C++ exception");
        return -1;
    }
    return 0;
}

extern "C" void gpuasm_cuda_close(gpuasm_cuda *g)
{
    if (!g) return;
    /* Best effort: errors while freeing have nowhere to go. */
    (void)cudaSetDevice(g->device);
    void *dev[] = { g->d_tcode, g->d_toff, g->d_rcode, g->d_roff, g->d_cnt, g->d_off,
                    g->d_cub, g->d_scratch, g->d_hit, g->d_misc };
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i]) (void)cudaFree(dev[i]);
    if (g->h_misc) (void)cudaFreeHost(g->h_misc);
    if (g->stream) (void)cudaStreamDestroy(g->stream);
    (void)cudaGetLastError();
    free(g);
}

extern "C" void *gpuasm_cuda_host_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocDefault) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

extern "C" void gpuasm_cuda_host_free(void *p)
{
    if (p) (void)cudaFreeHost(p);
}
