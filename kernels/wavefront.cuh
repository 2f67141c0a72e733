/* wavefront.cuh -- what the two anti-diagonal wavefront kernels share: the
 * dp kernel (kernels/dp: seed 000's ASM) and the dtw kernel (kernels/dtw:
 * seed 001's ADSM) sweep a DP matrix by anti-diagonals, the PAPER layouts
 * through a ring of three of them in shared or global memory (seed 000
 * §IV, seed 001 §6-8).  Their cells differ (edit distance, signal cost);
 * the ring's geometry does not.  __host__ __device__, so that the kernels'
 * host harnesses run it too.  C++ for .cu files only.
 */
#ifndef GPUASM_WAVEFRONT_CUH
#define GPUASM_WAVEFRONT_CUH

#include <stdint.h>

#include "kernels/cuda_device.cuh"   /* HD */

namespace wave {

/* The leading dimension of a ring row for patterns (queries) of m rows:
 * m + 1 cells (row 0 included), padded to 32. */
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

}  /* namespace wave */

#endif
