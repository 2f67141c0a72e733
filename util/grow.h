/* SPDX-License-Identifier: MIT */
/* grow.h -- the one growable-array helper shared by host C files. */
#ifndef GPUASM_GROW_H
#define GPUASM_GROW_H

#include <stdlib.h>

/* Make *p (elements of sz bytes, capacity *cap) hold at least want
 * elements, doubling so that n appends cost O(n).  Keeps the contents.
 * Returns 0, or -1 when out of memory (then *p and *cap are unchanged). */
static inline int gpuasm_grow(void **p, size_t *cap, size_t want, size_t sz)
{
    if (want <= *cap) return 0;
    size_t c = *cap ? *cap : 16;
    while (c < want) c *= 2;
    void *q = realloc(*p, c * sz);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

#endif
