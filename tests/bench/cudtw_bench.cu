/* SPDX-License-Identifier: MIT */
// cudtw_bench -- drives cuDTW++'s own kernels (Schmidt and Hundt, Euro-Par
// 2020; github.com/asbschmidt/cuDTW, Apache-2.0) on synthetic data, for
// issue #15's peer row in tests/bench/signal.  None of cuDTW++'s code is in
// this repository: tests/bench/get_dtw_peers extracts it into .peers/ and
// tests/bench/dtw_peers compiles this file against it with
//   nvcc -O3 -std=c++14 -arch=sm_90 -I .peers/src/cuDTW/src cudtw_bench.cu
// This file replaces only their main.cu (which hard-codes 2 GPUs and reads
// their data files): the same global `cQuery` in constant memory, the same
// dispatcher FullDTW::dist() with query_type 0 ("DATABASE": one query
// against num_entries subject series of num_features values each), their
// kernels unchanged.
//
// What cuDTW++ computes: the full (not subsequence) DTW of one query of n
// samples against each entry of n samples, squared differences in fp32,
// D(0,0) = c(0,0), D(i,-1) = D(-1,j) = inf, the result D(n-1,n-1) per
// entry (no square root).  Its sizes are fixed per kernel: n = 127, 255,
// 511, 1023, 2047 (one warp per entry, n+1 columns over 32 lanes), and for
// n <= 1023 a "subwarp" variant (several entries per warp).
//
// Cells: n x n DP cells per entry (query length x entry length, as ours
// are query length x reference length); cuDTW++'s own GCUPS line counts
// (n+1)^2 (its boundary row and column), printed beside as paper_cells.
// Time: CUDA events around one dist() call (kernel only; data already on
// the device, as gpuasm-signal's kernel_s), the median of REPS timed calls
// after a warm-up.  Data: pseudo-random values (a hash of the index,
// uniform in [-1, 1)); a full DTW's work does not depend on them.  Check:
// CHECK entries' distances against a double-precision CPU DTW
// (dtw_full.h; relative error <= 1e-3 passes: fp32 sums of ~4,000 terms
// differ by ~1e-6; tests/bench/cudtw_emulate.cpp shows on the host that
// this reference is what the kernels compute).
//
//   cudtw_bench [--n N] [--subwarp] [--entries E] [--reps R] [--check K]
// Output, TSV, one line each:
//   dtw_peer_device  name  SMs  clock_kHz
//   dtw_peer  cuDTW++  kernel  n  entries  cells  paper_cells  kernel_s  cells_per_s  check
// Exit status 1 on a CUDA error or a failed check (the line says which).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// What cuDTW++'s kernels expect from their translation unit (as in their
// main.cu): the query in constant memory, sized for 64 KiB.
typedef float value_t;
typedef uint64_t index_t;
constexpr index_t max_features = (1UL << 16) / sizeof(value_t);
__constant__ value_t cQuery[max_features];

#include "include/hpc_helpers.hpp"
#include "include/DTW.hpp"

#include "dtw_full.h"

#define CK(call)                                                                        \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "cudtw_bench: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,  \
                    cudaGetErrorString(e_));                                            \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

// Uniform in [-1, 1) from a 64-bit index (splitmix64's finaliser).
__host__ __device__ inline float synth_value(uint64_t i)
{
    uint64_t z = i + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (float)((double)(z >> 40) / (double)(1ULL << 23)) - 1.0f;
}

__global__ void fill(value_t *v, uint64_t n)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        v[i] = synth_value(i);
}

static const char *kernel_name(uint64_t n, bool subwarp)
{
    static char buf[64];
    if (subwarp) snprintf(buf, sizeof buf, "sub_warp_DTW<%d>", (int)((n + 1) / 32));
    else snprintf(buf, sizeof buf, "shfl_FullDTW_%d", (int)n);
    return buf;
}

int main(int argc, char **argv)
{
    uint64_t n = 2047, entries = 0;
    int reps = 5, check = 3;
    bool subwarp = false;
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--n") && a + 1 < argc) n = strtoull(argv[++a], 0, 10);
        else if (!strcmp(argv[a], "--entries") && a + 1 < argc) entries = strtoull(argv[++a], 0, 10);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--check") && a + 1 < argc) check = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--subwarp")) subwarp = true;
        else {
            fprintf(stderr, "usage: cudtw_bench [--n N] [--subwarp] [--entries E] [--reps R] [--check K]\n");
            return 1;
        }
    }
    if (n != 127 && n != 255 && n != 511 && n != 1023 && n != 2047) {
        fprintf(stderr, "cudtw_bench: cuDTW++ has kernels for n = 127, 255, 511, 1023, 2047 only (got %llu)\n",
                (unsigned long long)n);
        return 1;
    }
    if (subwarp && n == 2047) {
        fprintf(stderr, "cudtw_bench: cuDTW++ has no subwarp kernel for n = 2047\n");
        return 1;
    }
    // Default: ~2.7e11 cells (a few tens of ms on an H100), at most 1 GiB.
    if (!entries) entries = std::min<uint64_t>((1ULL << 38) / (n * n), (1ULL << 28) / n);
    // The subwarp kernels take 1024 / (n + 1) entries per warp, no tail.
    const uint64_t per_warp = subwarp ? 1024 / (n + 1) : 1;
    entries -= entries % (per_warp * 1024);
    if (entries < (uint64_t)check + 1) entries = (uint64_t)check + 1 + per_warp * 1024;

    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    printf("dtw_peer_device\t%s\t%d\t%d\n", prop.name, prop.multiProcessorCount, clock_khz);

    value_t *subject = nullptr, *dist_d = nullptr;
    CK(cudaMalloc(&subject, sizeof(value_t) * entries * n));
    CK(cudaMalloc(&dist_d, sizeof(value_t) * entries));
    fill<<<1024, 256>>>(subject, entries * n);
    CK(cudaGetLastError());
    // The query: entry `entries - 1` (entry 0 would give distance 0 against itself).
    CK(cudaMemcpyToSymbol(cQuery, subject + (entries - 1) * n, sizeof(value_t) * n, 0,
                          cudaMemcpyDeviceToDevice));
    CK(cudaMemset(dist_d, 0, sizeof(value_t) * entries));

    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    std::vector<float> ms;
    for (int r = 0; r <= reps; ++r) {      // r = 0: the warm-up
        CK(cudaEventRecord(t0));
        FullDTW::dist(subject, dist_d, entries, n, (index_t)1, subwarp, (uint8_t)0, false,
                      (value_t *)nullptr, (cudaStream_t)0);
        CK(cudaEventRecord(t1));
        CK(cudaEventSynchronize(t1));
        CK(cudaGetLastError());
        float t;
        CK(cudaEventElapsedTime(&t, t0, t1));
        if (r) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const double sec = 1e-3 * ms[ms.size() / 2];

    // Check the first `check` entries against the CPU.
    char verdict[128] = "not checked";
    int bad = 0;
    if (check > 0) {
        std::vector<float> q(n), s(n * (uint64_t)check), got(check);
        CK(cudaMemcpyFromSymbol(q.data(), cQuery, sizeof(float) * n));
        CK(cudaMemcpy(s.data(), subject, sizeof(float) * n * check, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(got.data(), dist_d, sizeof(float) * check, cudaMemcpyDeviceToHost));
        double worst = 0;
        for (int e = 0; e < check; ++e) {
            const double want = dtw_full(q.data(), s.data() + (uint64_t)e * n, n);
            const double rel = std::fabs((double)got[e] - want) / std::max(want, 1e-30);
            worst = std::max(worst, rel);
            if (!(rel <= 1e-3)) {
                ++bad;
                fprintf(stderr, "cudtw_bench: %s entry %d: GPU %.9g, CPU DTW %.9g\n",
                        kernel_name(n, subwarp), e, (double)got[e], want);
            }
        }
        snprintf(verdict, sizeof verdict, "%s: %d of %d entries = CPU DTW (max rel err %.1e)",
                 bad ? "FAILED" : "ok", check - bad, check, worst);
    }
    const double cells = (double)entries * (double)n * (double)n;
    const double paper_cells = (double)entries * (double)(n + 1) * (double)(n + 1);
    printf("dtw_peer\tcuDTW++\t%s\t%llu\t%llu\t%.6g\t%.6g\t%.6g\t%.6g\t%s\n", kernel_name(n, subwarp),
           (unsigned long long)n, (unsigned long long)entries, cells, paper_cells, sec, cells / sec,
           verdict);
    cudaFree(subject);
    cudaFree(dist_d);
    return bad ? 1 : 0;
}
