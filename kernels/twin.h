/* SPDX-License-Identifier: MIT */
/* twin.h -- what a CPU twin implements.
 *
 * walk/cpu_scan.c owns everything the twins share: walking the (read,
 * target, strand) pairs, choosing pattern and text (search.h's pair rule),
 * reverse-complementing reads, k per pair, skipping pairs with m <= k, the
 * pattern-length limit, and the local-minimum rule.  A twin only computes
 * one pattern against one text: it calls emit(ctx, j, D[m][j]) for EVERY
 * text position j (0-based) whose D[m][j] <= k, in increasing j, and
 * nothing else.  The walk turns that stream into the end hits of
 * search.h (a position that is not emitted counts as > k).
 *
 * A twin is three functions: open a workspace for one gpuasm_cpu_scan()
 * call (so concurrent calls share nothing), run pairs in it, close it.
 */
#ifndef GPUASM_TWIN_H
#define GPUASM_TWIN_H

#include <stdint.h>
#include "search/search.h"
#include "search/signal_mode.h"

typedef void (*gpuasm_emit_fn)(void *ctx, uint64_t j, int32_t d);

/* One (pattern, text) pair of a scan. */
typedef struct gpuasm_twin_pair {
    const uint8_t *pattern;   /* [m] codes, already in search orientation */
    uint32_t m;               /* >= 1, > k, <= the row's max_pattern if set */
    const uint8_t *text;      /* [n] codes */
    uint64_t n;               /* >= 1 */
    int32_t k;                /* >= 0 */
    /* Equal keys within one workspace mean an identical pattern, so a twin
     * may cache what it derives from the pattern (Myers' Peq).  Key layout:
     * bit 0 is-read, bit 1 strand, bits 2.. read or target index. */
    uint64_t pattern_key;
} gpuasm_twin_pair;

/* A kernel's CPU twin: the row's .twin in the kernel table (registry.h). */
typedef struct gpuasm_twin {
    const char *name;
    /* A workspace for opt (alphabet, variant); NULL when out of memory. */
    void *(*open)(const gpuasm_search_opt *opt);
    /* 0, or -1 when out of memory. */
    int (*pair)(void *ws, const gpuasm_twin_pair *p, gpuasm_emit_fn emit, void *ctx);
    void (*close)(void *ws);
} gpuasm_twin;

/* Every kernel's CPU side, from kernel_list.h: a sequence kernel's twin
 * (kernels/NAME/NAME_cpu.c; its row's .twin), a signal kernel's one-pair
 * function (signal_mode.h: gpuasm_signal_pair_fn; its row's .signal). */
#ifdef __cplusplus
extern "C" {
#endif
#define GPUASM_TWIN_SEQ(NAME) extern const gpuasm_twin gpuasm_twin_##NAME;
#define GPUASM_TWIN_SIGNAL(NAME) gpuasm_signal_pair_fn gpuasm_##NAME##_cpu_pair;
#define GPUASM_KERNEL(ID, NAME, KIND) GPUASM_TWIN_##KIND(NAME)
#include "kernels/kernel_list.h"
#undef GPUASM_TWIN_SEQ
#undef GPUASM_TWIN_SIGNAL
#ifdef __cplusplus
}
#endif

/* Do codes a and b match under the alphabet?  nt16: they share a base;
 * byte: they are equal. */
static inline int gpuasm_sym_match(int alphabet, uint8_t a, uint8_t b)
{
    return alphabet == GPUASM_ALPHABET_BYTE ? a == b : (a & b) != 0;
}

#endif
