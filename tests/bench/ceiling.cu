/* SPDX-License-Identifier: MIT */
// ceiling -- the ceiling probe for tests/bench/run (P4: docs/REFERENCES.md; BENCHMARKS.md).
//
// The plainest fast Myers search there is: one pattern of exactly one
// machine word (m = 32 in 32-bit words, m = 64 in 64-bit words), one CUDA
// thread per text segment, the text 2-bit packed (16 bases per 32-bit word,
// read 64 bases at a time as uint4), the pattern's four Peq bitmasks in
// shared memory.  Myers 1999 / Hyyro's formulation of the bit-vector DP in
// infix (HW) mode: row 0 of the DP is all zeros, so no carry enters Ph.
// Segments overlap by m + k - 1 text bases (rounded up to 64), the longest
// occurrence with <= k differences (seed 000 §V), so that a segment's own
// ends get exactly the scores of a whole-text scan.  Each thread counts
// the ends j with D[m][j] <= k (every such end, not only local minima).
//
// Many random patterns per launch (grid.y) over one random text of 2^30
// bases give ~4e12 cells per launch, 50-200 ms on an H100/H200.  Times are
// CUDA events, the median of 5 launches after one warm-up.  TCUPS counts
// the useful cells only: patterns x m x text bases (the overlap re-work is
// not counted).
//
// Before timing, a small planted text is checked against a plain O(mn)
// dynamic programme on the CPU, hit count per pattern, for both word sizes
// and two k: a mismatch prints FAIL and exits 1.
//
//   ceiling [LOG2_TEXT_BASES [PATTERNS_32 [PATTERNS_64]]]   (defaults 30 128 64)
//   ceiling --cpu-selftest   the per-thread code run on the host against the
//                            DP (no GPU needed: checks the step and overlap)
//
// Build: nvcc -O3 -arch=sm_90 -o ceiling tests/bench/ceiling.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                                   \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            fprintf(stderr, "ceiling: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,  \
                    cudaGetErrorString(e_));                                       \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

static const uint32_t SEG = 4096;   // text bases per thread (a multiple of 64)
static const int BLOCK = 256;

__host__ __device__ static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

__global__ void gen_text(uint32_t *t, uint64_t nwords, uint64_t seed)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < nwords;
         i += (uint64_t)gridDim.x * blockDim.x)
        t[i] = (uint32_t)mix64(seed + 0x9e3779b97f4a7c15ull * (i + 1));
}

// One Myers column step for a pattern of exactly B = 8 * sizeof(W) bases.
template <typename W>
__host__ __device__ __forceinline__ void step(const W *peq, uint32_t c, W &Pv, W &Mv, int &score)
{
    const int B = 8 * sizeof(W);
    W Eq = peq[c];
    W Xv = Eq | Mv;
    W Xh = (((Eq & Pv) + Pv) ^ Pv) | Eq;
    W Ph = Mv | ~(Xh | Pv);
    W Mh = Pv & Xh;
    score += (int)(Ph >> (B - 1)) - (int)(Mh >> (B - 1));
    Ph <<= 1;
    Mh <<= 1;
    Pv = Mh | ~(Xv | Ph);
    Mv = Ph & Xv;
}

// 64 text bases (one uint4 of the packed text).
template <typename W, bool COUNT>
__host__ __device__ __forceinline__ void run64(const W *peq, uint4 v, W &Pv, W &Mv, int &score,
                                               int k, uint32_t &hits)
{
    uint32_t w4[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
    for (int q = 0; q < 4; q++) {
        uint32_t w = w4[q];
#pragma unroll
        for (int i = 0; i < 16; i++) {
            step<W>(peq, (w >> (2 * i)) & 3u, Pv, Mv, score);
            if (COUNT) hits += score <= k;
        }
    }
}

// What one thread does: the ends of segment s (text bases [s*seg,
// (s+1)*seg)) with D <= k, after m + k - 1 (rounded up to 64) bases of
// warm-up before the segment.  seg and n_bases are multiples of 64.
template <typename W>
__host__ __device__ __forceinline__ uint32_t segment_hits(const uint4 *text, uint64_t n_bases,
                                                          const W *peq, int k, uint32_t seg,
                                                          uint64_t s)
{
    const int B = 8 * sizeof(W);
    uint64_t beg = s * seg;
    uint32_t hits = 0;
    if (beg >= n_bases) return 0;
    uint64_t end = beg + seg < n_bases ? beg + seg : n_bases;
    uint64_t warm = ((uint64_t)(B + k - 1) + 63) / 64 * 64;
    uint64_t start = beg > warm ? beg - warm : 0;
    W Pv = ~(W)0, Mv = 0;
    int score = B;
    for (uint64_t q = start / 64; q < beg / 64; q++)
        run64<W, false>(peq, text[q], Pv, Mv, score, k, hits);
    for (uint64_t q = beg / 64; q < end / 64; q++)
        run64<W, true>(peq, text[q], Pv, Mv, score, k, hits);
    return hits;
}

// grid.x covers the segments, grid.y the patterns; peq_all is [P][4].
template <typename W>
__global__ void __launch_bounds__(BLOCK)
myers_seg(const uint4 *text, uint64_t n_bases, const W *peq_all, int k, uint32_t seg,
          unsigned long long *hits_out)
{
    __shared__ W peq[4];
    if (threadIdx.x < 4) peq[threadIdx.x] = peq_all[4 * blockIdx.y + threadIdx.x];
    __syncthreads();
    uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    uint32_t hits = segment_hits<W>(text, n_bases, peq, k, seg, s);
    // one atomic per warp
    for (int o = 16; o > 0; o >>= 1) hits += __shfl_down_sync(0xffffffffu, hits, o);
    if ((threadIdx.x & 31) == 0 && hits) atomicAdd(&hits_out[blockIdx.y], (unsigned long long)hits);
}

// ---- host ------------------------------------------------------------------

static uint64_t hrng = 0x243f6a8885a308d3ull;
static uint64_t hrnd() { return mix64(hrng += 0x9e3779b97f4a7c15ull); }

template <typename W>
static void make_peq(const std::vector<uint8_t> &pat, W *peq)
{
    for (int c = 0; c < 4; c++) peq[c] = 0;
    for (size_t i = 0; i < pat.size(); i++) peq[pat[i]] |= (W)1 << i;
}

// Plain DP, infix mode: ends j (0-based, after text base j) with D[m][j] <= k.
static uint64_t cpu_count(const std::vector<uint8_t> &p, const std::vector<uint8_t> &t, int k)
{
    int m = (int)p.size();
    std::vector<int> col(m + 1);
    for (int i = 0; i <= m; i++) col[i] = i;
    uint64_t hits = 0;
    for (size_t j = 0; j < t.size(); j++) {
        int diag = col[0];   // D[0][j-1] = 0
        col[0] = 0;
        for (int i = 1; i <= m; i++) {
            int up = col[i];
            int v = std::min(diag + (p[i - 1] != t[j]), std::min(up + 1, col[i - 1] + 1));
            diag = up;
            col[i] = v;
        }
        hits += col[m] <= k;
    }
    return hits;
}

static std::vector<uint32_t> pack(const std::vector<uint8_t> &t)
{
    std::vector<uint32_t> w(t.size() / 16, 0);
    for (size_t i = 0; i < t.size(); i++) w[i / 16] |= (uint32_t)t[i] << (2 * (i % 16));
    return w;
}

// --cpu-selftest: the same per-thread code run on the host (no GPU), to
// check the bit-vector step and the segment overlap where no GPU is.
template <typename W>
static int cpu_selftest(int k)
{
    const int B = 8 * sizeof(W);
    const uint64_t n = 1 << 15;
    std::vector<uint8_t> t(n), pat(B);
    for (auto &c : t) c = hrnd() & 3;
    for (auto &c : pat) c = hrnd() & 3;
    for (int copy = 0; copy < 20; copy++) {
        size_t pos = hrnd() % (n - B);
        std::copy(pat.begin(), pat.end(), t.begin() + pos);
        t[pos + hrnd() % B] = hrnd() & 3;
    }
    W peq[4];
    make_peq<W>(pat, peq);
    std::vector<uint32_t> packed = pack(t);
    uint64_t want = cpu_count(pat, t, k), bad = 0;
    for (uint32_t seg : { 64u, 192u, SEG }) {
        uint64_t got = 0;
        for (uint64_t s = 0; s * seg < n; s++)
            got += segment_hits<W>((const uint4 *)packed.data(), n, peq, k, seg, s);
        printf("%s cpu-selftest W=%d k=%d seg=%u: %llu hits, DP %llu\n", got == want && want ? "ok" : "FAIL",
               B, k, seg, (unsigned long long)got, (unsigned long long)want);
        bad |= got != want || !want;
    }
    return (int)bad;
}

template <typename W>
static void launch(const uint4 *text, uint64_t n, const W *peq, int P, int k, uint32_t seg,
                   unsigned long long *hits)
{
    uint64_t segs = (n + seg - 1) / seg;
    dim3 grid((unsigned)((segs + BLOCK - 1) / BLOCK), (unsigned)P);
    myers_seg<W><<<grid, BLOCK>>>(text, n, peq, k, seg, hits);
    CK(cudaGetLastError());
}

// Check: P patterns with planted approximate copies in a small text, GPU hit
// counts (small segments, so many overlap boundaries) against the CPU DP.
template <typename W>
static int check(int k)
{
    const int B = 8 * sizeof(W), P = 4;
    const uint64_t n = 1 << 17;
    std::vector<uint8_t> t(n);
    for (auto &c : t) c = hrnd() & 3;
    std::vector<std::vector<uint8_t>> pats(P, std::vector<uint8_t>(B));
    std::vector<W> peq(4 * P);
    for (int p = 0; p < P; p++) {
        for (auto &c : pats[p]) c = hrnd() & 3;
        make_peq<W>(pats[p], &peq[4 * p]);
        for (int copy = 0; copy < 40; copy++) {   // copies with 0..k+1 substitutions/indels
            std::vector<uint8_t> c = pats[p];
            int edits = (int)(hrnd() % (uint64_t)(k + 2));
            for (int e = 0; e < edits; e++) {
                size_t at = hrnd() % c.size();
                switch (hrnd() % 3) {
                case 0: c[at] = hrnd() & 3; break;
                case 1: c.erase(c.begin() + at); break;
                default: c.insert(c.begin() + at, (uint8_t)(hrnd() & 3));
                }
            }
            size_t pos = hrnd() % (n - c.size());
            std::copy(c.begin(), c.end(), t.begin() + pos);
        }
    }
    std::vector<uint32_t> packed = pack(t);
    uint32_t *d_t;
    W *d_peq;
    unsigned long long *d_h;
    CK(cudaMalloc(&d_t, packed.size() * 4));
    CK(cudaMalloc(&d_peq, peq.size() * sizeof(W)));
    CK(cudaMalloc(&d_h, P * sizeof(unsigned long long)));
    CK(cudaMemcpy(d_t, packed.data(), packed.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_peq, peq.data(), peq.size() * sizeof(W), cudaMemcpyHostToDevice));
    int bad = 0;
    std::vector<uint64_t> want(P);
    for (int p = 0; p < P; p++) want[p] = cpu_count(pats[p], t, k);
    for (uint32_t seg : { 64u, 192u, SEG }) {
        CK(cudaMemset(d_h, 0, P * sizeof(unsigned long long)));
        launch<W>((const uint4 *)d_t, n, d_peq, P, k, seg, d_h);
        std::vector<unsigned long long> h(P);
        CK(cudaMemcpy(h.data(), d_h, P * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        for (int p = 0; p < P; p++) {
            if (h[p] != want[p] || want[p] == 0) {
                printf("FAIL check W=%d m=%d k=%d seg=%u pattern %d: gpu %llu cpu %llu hits\n",
                       B, B, k, seg, p, h[p], (unsigned long long)want[p]);
                bad = 1;
            } else if (seg == SEG && p == 0) {
                printf("ok check W=%d m=%d k=%d: %llu hits for pattern 0 = cpu (%d patterns, "
                       "segments of 64, 192, %u bases)\n", B, B, k, h[p], P, SEG);
            }
        }
    }
    CK(cudaFree(d_t));
    CK(cudaFree(d_peq));
    CK(cudaFree(d_h));
    return bad;
}

template <typename W>
static double timed(const uint4 *text, uint64_t n, int P, int k)
{
    const int B = 8 * sizeof(W);
    std::vector<W> peq(4 * P);
    for (int p = 0; p < P; p++) {
        std::vector<uint8_t> pat(B);
        for (auto &c : pat) c = hrnd() & 3;
        make_peq<W>(pat, &peq[4 * p]);
    }
    W *d_peq;
    unsigned long long *d_h;
    CK(cudaMalloc(&d_peq, peq.size() * sizeof(W)));
    CK(cudaMalloc(&d_h, P * sizeof(unsigned long long)));
    CK(cudaMemcpy(d_peq, peq.data(), peq.size() * sizeof(W), cudaMemcpyHostToDevice));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> ms;
    unsigned long long total = 0;
    for (int r = -1; r < 5; r++) {
        CK(cudaMemset(d_h, 0, P * sizeof(unsigned long long)));
        CK(cudaEventRecord(a));
        launch<W>(text, n, d_peq, P, k, SEG, d_h);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float t;
        CK(cudaEventElapsedTime(&t, a, b));
        if (r >= 0) ms.push_back(t);
        std::vector<unsigned long long> h(P);
        CK(cudaMemcpy(h.data(), d_h, P * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        total = 0;
        for (auto x : h) total += x;
    }
    std::sort(ms.begin(), ms.end());
    double med = ms[ms.size() / 2];
    double cells = (double)P * B * (double)n;
    double tcups = cells / (med * 1e-3) / 1e12;
    printf("ceiling\tW=%d m=%d k=%d\tn=%llu patterns=%d seg=%u\t%.3f ms (min %.3f max %.3f)"
           "\t%.3e cells\t%.2f TCUPS\t%llu hits\n",
           B, B, k, (unsigned long long)n, P, SEG, med, ms.front(), ms.back(), cells, tcups,
           total);
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    CK(cudaFree(d_peq));
    CK(cudaFree(d_h));
    return tcups;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--cpu-selftest")) {
        int bad = cpu_selftest<uint32_t>(3) | cpu_selftest<uint32_t>(8) |
                  cpu_selftest<uint64_t>(6) | cpu_selftest<uint64_t>(16);
        return bad ? 1 : 0;
    }
    int lg = argc > 1 ? atoi(argv[1]) : 30;
    int P32 = argc > 2 ? atoi(argv[2]) : 128, P64 = argc > 3 ? atoi(argv[3]) : 64;
    if (lg < 12 || lg > 34 || P32 < 1 || P64 < 1 || P32 > 65535 || P64 > 65535) {
        fprintf(stderr, "usage: ceiling [LOG2_TEXT_BASES 12..34 [PATTERNS_32 [PATTERNS_64]]]\n");
        return 1;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device\t%s\t%d SMs\n", prop.name, prop.multiProcessorCount);

    int bad = 0;
    bad |= check<uint32_t>(3);
    bad |= check<uint32_t>(8);
    bad |= check<uint64_t>(6);
    bad |= check<uint64_t>(16);
    if (bad) return 1;

    uint64_t n = 1ull << lg;
    uint32_t *d_t;
    CK(cudaMalloc(&d_t, n / 4));
    gen_text<<<4096, 256>>>(d_t, n / 16, 0x5eed);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    // k = floor(0.1 m): gpuasm-scan's default -e 0.1
    timed<uint32_t>((const uint4 *)d_t, n, P32, 3);
    timed<uint64_t>((const uint4 *)d_t, n, P64, 6);
    CK(cudaFree(d_t));
    return 0;
}
