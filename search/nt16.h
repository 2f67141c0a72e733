/* SPDX-License-Identifier: MIT */
/* nt16.h -- base codes shared by host C and CUDA device code.
 *
 * gpuasm stores every base as htslib's 4-bit "nt16" code, which is a set of
 * bases: A=1, C=2, G=4, T=8, an IUPAC code is the union of the bases it
 * stands for (R=A|G=5, ..., N=15).  Two codes match iff they share a base:
 * (a & b) != 0.  That single rule gives
 *   - IUPAC codes in targets matching the bases they stand for,
 *   - N (and any ambiguity code) in a read matching nothing, because reads
 *     are filtered with gpuasm_read_code() to 0 for non-single bases,
 *   - case-insensitivity, because htslib's seq_nt16_table already folds case.
 */
#ifndef GPUASM_NT16_H
#define GPUASM_NT16_H

#include <stdint.h>

#ifdef __CUDACC__
#define GPUASM_HD __host__ __device__ __forceinline__
#else
#define GPUASM_HD static inline
#endif

/* The bases an nt16 code stands for (its set bits: 1 for A, C, G, T; 4
 * for N): code c's count is nibble c of one constant (__builtin_popcount
 * is a libgcc call on a generic x86-64 build). */
GPUASM_HD uint32_t gpuasm_nt16_nbases(uint8_t c)
{
    return (uint32_t)(0x4332322132212110ULL >> (4u * (c & 15u)) & 15u);
}

/* Do two nt16 codes match? Symmetric; 0 matches nothing. */
GPUASM_HD int gpuasm_nt16_match(uint8_t a, uint8_t b) { return (a & b) != 0; }

/* Complement of an nt16 code: reverse its 4 bits (A<->T, C<->G, R<->Y, N->N). */
GPUASM_HD uint8_t gpuasm_nt16_comp(uint8_t c)
{
    return (uint8_t)(((c & 1) << 3) | ((c & 2) << 1) | ((c & 4) >> 1) | ((c & 8) >> 3));
}

#ifndef __CUDACC__
#include <string.h>
/* dst[0 .. n) = the reverse complement of src[0 .. n) (gpuasm_nt16_comp of
 * src read backwards; dst and src do not overlap).  Host only: eight
 * codes a step, bytes reversed and each code's four bits reversed by
 * masks that keep them inside their byte (the code by code loop was a
 * visible share of a short-read scan's own instructions, perf). */
static inline void gpuasm_nt16_revcomp(uint8_t *dst, const uint8_t *src, uint64_t n)
{
    const uint64_t b0 = 0x0101010101010101u, b1 = b0 << 1, b2 = b0 << 2, b3 = b0 << 3;
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, src + n - 8 - i, 8);
        v = __builtin_bswap64(v);
        v = ((v & b0) << 3) | ((v & b1) << 1) | ((v & b2) >> 1) | ((v & b3) >> 3);
        memcpy(dst + i, &v, 8);
    }
    for (; i < n; i++) dst[i] = gpuasm_nt16_comp(src[n - 1 - i]);
}
#endif

/* Code of a read base as searched: single bases keep their code; N and other
 * ambiguity codes become 0 (match nothing) unless wildcards are on, in which
 * case they match the bases they stand for (--match-read-wildcards). */
GPUASM_HD uint8_t gpuasm_read_code(uint8_t c, int wildcards)
{
    c &= 15;
    if (wildcards) return c;
    return (c == 1 || c == 2 || c == 4 || c == 8) ? c : 0;
}

#endif
