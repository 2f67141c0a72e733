/* myers_lanes_sse41.c -- the lane kernels (myers_lanes.h) with 2 x 64-bit
 * lanes (SSE4.1: 64-bit compares), compiled for that instruction set
 * whatever the build's flags; cpu_simd.c checks that the processor has it
 * first.  Text lanes look Eq up per lane (two scalar loads).
 */
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("sse4.1,popcnt")
#include <immintrin.h>

#define LN 2
#define LANES_FN(name) name##_sse41
#define SIGNS(v) ((unsigned)_mm_movemask_pd((__m128d)(v)))
#define TEXT_TAB const uint64_t *tab_ = peq0
#define TEXT_EQ(q, sh) ((vu){ tab_[((q)[0] >> (sh)) & 15u], tab_[((q)[1] >> (sh)) & 15u] })

#include "myers_lanes_impl.h"
#endif
