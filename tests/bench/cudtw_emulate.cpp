/* SPDX-License-Identifier: MIT */
// cudtw_emulate -- runs cuDTW++'s warp kernels (from .peers, unchanged) on
// the HOST, 32 std::threads in lockstep at every shuffle, and compares
// each entry's result with dtw_full.h: the check that tests/bench/
// cudtw_bench.cu's CPU reference is what those kernels compute, on a
// machine without a GPU (tests/bats/dtw_peers.bats runs it where .peers
// has cuDTW++).  A shuffle is emulated as: every lane stores its value,
// all 32 meet at a barrier, each reads its source lane's, all meet again;
// lanes outside the width keep their own value, as __shfl_*_sync does.
//
//   g++ -std=c++20 -O1 -I .peers/src/cuDTW/src/include -I tests/bench \
//       -o cudtw_emulate tests/bench/cudtw_emulate.cpp -pthread
//   cudtw_emulate N [subwarp]      N = 127, 255, 511, 1023, 2047
// Prints one line per entry (kernel, CPU, relative error); exit 1 when an
// entry's relative error passes 1e-4 (fp32 sums of n^2 cells against
// double), 2 on bad arguments.
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "dtw_full.h"

// What the kernels take from CUDA, for the host.
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
struct emu_dim3 {
    uint64_t x = 0, y = 0, z = 0;
};
static thread_local emu_dim3 threadIdx, blockIdx;
static const emu_dim3 blockDim{32, 1, 1};
typedef float value_t;
static value_t cQuery[(1 << 16) / sizeof(value_t)];   // as their main.cu: zeros past the query
static float lane_value[32];
static std::barrier<> *warp_barrier;

static inline float min(float a, float b) { return a < b ? a : b; }

static inline float shfl(float v, int src, bool inside)
{
    const int l = (int)threadIdx.x;
    lane_value[l] = v;
    warp_barrier->arrive_and_wait();
    const float r = inside ? lane_value[src] : v;
    warp_barrier->arrive_and_wait();
    return r;
}
static inline float __shfl_up_sync(unsigned, float v, int d, int w = 32)
{
    const int l = (int)threadIdx.x;
    return shfl(v, l - d, l % w >= d);
}
static inline float __shfl_down_sync(unsigned, float v, int d, int w = 32)
{
    const int l = (int)threadIdx.x;
    return shfl(v, l + d, l % w + d < w);
}

namespace FullDTW {
#include "kernels/SHFL_FULLDTW_127.cuh"
#include "kernels/SHFL_FULLDTW_255.cuh"
#include "kernels/SHFL_FULLDTW_511.cuh"
#include "kernels/SHFL_FULLDTW_1023.cuh"
#include "kernels/SHFL_FULLDTW_2047.cuh"
#include "kernels/SUB_WARP.cuh"
}

// One thread (lane) of the kernel for length n.
static void lane_run(uint64_t n, bool sub, float *S, float *dist, uint64_t entries)
{
    using namespace FullDTW;
    if (sub) {
        if (n == 127) sub_warp_DTW<4>(S, dist, entries, n);
        else if (n == 255) sub_warp_DTW<8>(S, dist, entries, n);
        else if (n == 511) sub_warp_DTW<16>(S, dist, entries, n);
        else sub_warp_DTW<32>(S, dist, entries, n);
    } else if (n == 127) shfl_FullDTW_127(S, dist, entries, n);
    else if (n == 255) shfl_FullDTW_255(S, dist, entries, n);
    else if (n == 511) shfl_FullDTW_511(S, dist, entries, n);
    else if (n == 1023) shfl_FullDTW_1023(S, dist, entries, n);
    else shfl_FullDTW_2047(S, dist, entries, n);
}

static float next_value(uint64_t *z)
{
    *z = *z * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((double)(*z >> 40) / (double)(1 << 24)) * 2.0f - 1.0f;
}

int main(int argc, char **argv)
{
    const uint64_t n = argc > 1 ? strtoull(argv[1], 0, 10) : 0;
    const bool sub = argc > 2;
    if ((n != 127 && n != 255 && n != 511 && n != 1023 && n != 2047) || (sub && n == 2047)) {
        fprintf(stderr, "usage: cudtw_emulate N [subwarp]   (N = 127, 255, 511, 1023, 2047; no subwarp at 2047)\n");
        return 2;
    }
    const uint64_t per_warp = sub ? 1024 / (n + 1) : 1;
    const uint64_t entries = sub ? 2 * per_warp : 3;
    std::vector<float> S(entries * n), dist(entries, -1.0f);
    uint64_t z = 1;
    for (float &v : S) v = next_value(&z);
    for (uint64_t i = 0; i < n; ++i) cQuery[i] = next_value(&z);
    for (uint64_t b = 0; b < entries / per_warp; ++b) {
        std::barrier<> bar(32);
        warp_barrier = &bar;
        std::vector<std::thread> lanes;
        for (int t = 0; t < 32; ++t)
            lanes.emplace_back([&, t] {
                threadIdx.x = (uint64_t)t;
                blockIdx.x = b;
                lane_run(n, sub, S.data(), dist.data(), entries);
            });
        for (std::thread &l : lanes) l.join();
    }
    int bad = 0;
    for (uint64_t e = 0; e < entries; ++e) {
        const double want = dtw_full(cQuery, S.data() + e * n, n);
        const double rel = std::fabs((double)dist[e] - want) / want;
        bad += !(rel <= 1e-4);
        printf("n=%llu%s entry %llu: kernel %.9g CPU %.9g rel %.1e\n", (unsigned long long)n, sub ? " subwarp" : "",
               (unsigned long long)e, (double)dist[e], want, rel);
    }
    return bad ? 1 : 0;
}
