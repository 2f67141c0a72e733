/* SPDX-License-Identifier: MIT */
// dtw_ceiling -- the integer ceiling of a DTW cell on this GPU, for the
// goal of issue #15 ("the kernel at >= 50% of the integer min/add
// throughput the device allows"): tests/bench/signal runs it beside the
// kernel and BENCHMARKS.md shows the arithmetic.
//
// Three register-only probes, every thread CHAINS independent dependency
// chains so the schedulers always have work (no memory, no shuffles, no
// barriers: what the arithmetic alone allows):
//   iadd   v = v + w            plain 32-bit adds: the device's INT32 rate
//   vimin3 v = min(v, a + i, b) Hopper's DPX three-way min (__vimin3_s32)
//                               with one add beside it (so nothing folds):
//                               pairs per second
//   cell   v = min3(l, u, d) + |x - y|   the dtw kernel's cell (abs cost:
//          sub, abs, vimin3, add), rotating l, u, d like a DP row
// Reported: operations (or cells) per second, the median of 5 timed
// launches after a warm-up (CUDA events), and the device's nominal INT32
// rate (SMs x 64 INT32 lanes x the SM clock cudaDeviceProp reports).
//
//   dtw_ceiling            one line per probe, TSV: probe, ops_or_cells_per_s
//   dtw_ceiling --cpu-selftest   the probes' per-thread code on the host
//                          (checks that the chains compute what they claim)
//
// Build: nvcc -O3 -arch=sm_90 -o dtw_ceiling tests/bench/dtw_ceiling.cu
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
            fprintf(stderr, "dtw_ceiling: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                    cudaGetErrorString(e_));                                       \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

enum { CHAINS = 8, BLOCK = 256, ITERS = 1 << 14 };

// The chains' first values, from `seed` (which keeps the compiler from
// folding the work away).
__host__ __device__ inline void probe_init(int32_t seed, int32_t *a, int32_t *b, int32_t *c, int32_t *x,
                                           int32_t *y)
{
    for (int k = 0; k < CHAINS; ++k) {
        a[k] = seed + 3 * k;
        b[k] = seed ^ (k * 977);
        c[k] = seed - k;
        x[k] = (seed >> k) & 511;
    }
    *y = seed & 255;
}

// One thread's work of a probe.
template <int PROBE>
__host__ __device__ int32_t probe_thread(int32_t seed, int iters)
{
    int32_t a[CHAINS], b[CHAINS], c[CHAINS], x[CHAINS], y;
    probe_init(seed, a, b, c, x, &y);
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int k = 0; k < CHAINS; ++k) {
            if (PROBE == 0) {            // iadd
                a[k] = a[k] + b[k];
            } else if (PROBE == 1) {     // vimin3
                a[k] = __vimin3_s32(a[k], b[k] + it, c[k]);
            } else {                     // cell
                const int32_t d = x[k] - y;
                const int32_t v = __vimin3_s32(a[k], b[k], c[k]) + (d < 0 ? -d : d);
                c[k] = b[k];
                b[k] = a[k];
                a[k] = v;
            }
        }
        y += 7;
    }
    int32_t s = 0;
    for (int k = 0; k < CHAINS; ++k) s += a[k] ^ b[k] ^ c[k];
    return s;
}

template <int PROBE>
__global__ void __launch_bounds__(BLOCK) k_probe(int32_t *out, int32_t seed, int iters)
{
    const int32_t t = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    out[t] = probe_thread<PROBE>(seed + t, iters);
}

static double time_probe(void (*kern)(int32_t *, int32_t, int), int grid, int32_t *out)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    kern<<<grid, BLOCK>>>(out, 1, ITERS);   // warm-up
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int r = 0; r < 5; ++r) {
        CK(cudaEventRecord(e0));
        kern<<<grid, BLOCK>>>(out, r + 2, ITERS);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float t = 0;
        CK(cudaEventElapsedTime(&t, e0, e1));
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return ms[2] * 1e-3;
}

// The host run of the probes: the cell chain against a plain recomputation.
static int selftest(void)
{
    const int iters = 50;
    for (int32_t seed = 1; seed < 200; seed += 37) {
        int32_t a[CHAINS], b[CHAINS], c[CHAINS], x[CHAINS], y;
        probe_init(seed, a, b, c, x, &y);
        for (int it = 0; it < iters; ++it, y += 7)
            for (int k = 0; k < CHAINS; ++k) {
                const int32_t m = std::min(a[k], std::min(b[k], c[k]));
                const int32_t v = m + std::abs(x[k] - y);
                c[k] = b[k];
                b[k] = a[k];
                a[k] = v;
            }
        int32_t s = 0;
        for (int k = 0; k < CHAINS; ++k) s += a[k] ^ b[k] ^ c[k];
        if (s != probe_thread<2>(seed, iters)) {
            printf("FAIL cell probe, seed %d\n", seed);
            return 1;
        }
    }
    printf("selftest ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--cpu-selftest")) return selftest();
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    int clock_khz = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    const int grid = p.multiProcessorCount * 32;   // 8 blocks of 256 resident per SM, 4 waves
    int32_t *out;
    CK(cudaMalloc(&out, (size_t)grid * BLOCK * sizeof(int32_t)));
    const double work = (double)grid * BLOCK * CHAINS * ITERS;
    printf("device\t%s\t%d SMs\t%.0f MHz\n", p.name, p.multiProcessorCount, clock_khz / 1e3);
    printf("nominal_int32_ops_per_s\t%.4g\n", (double)p.multiProcessorCount * 64 * clock_khz * 1e3);
    printf("iadd_ops_per_s\t%.4g\n", work / time_probe(k_probe<0>, grid, out));
    printf("vimin3_add_pairs_per_s\t%.4g\n", work / time_probe(k_probe<1>, grid, out));
    printf("cell_per_s\t%.4g\n", work / time_probe(k_probe<2>, grid, out));
    CK(cudaFree(out));
    return 0;
}
