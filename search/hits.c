/* SPDX-License-Identifier: MIT */
/* hits.c -- the growable end-hit array of search.h.
 *
 * Every backend appends hits in its own order; gpuasm_hits_sort() gives the
 * one canonical order that the rest of the pipeline (and the byte-identical
 * SAM output) relies on.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "search/search.h"

int gpuasm_hits_reserve(gpuasm_hits *h, size_t more)
{
    if (more <= h->cap - h->n) return 0;
    if (more > SIZE_MAX / sizeof(gpuasm_endhit) - h->n) return -1;
    size_t need = h->n + more;
    /* Double so that a long run of pushes costs amortised O(1) each. */
    size_t cap = h->cap ? h->cap : 64;
    while (cap < need) {
        if (cap > SIZE_MAX / sizeof(gpuasm_endhit) / 2) { cap = need; break; }
        cap *= 2;
    }
    gpuasm_endhit *p = realloc(h->hit, cap * sizeof(gpuasm_endhit));
    if (!p) return -1;
    h->hit = p;
    h->cap = cap;
    return 0;
}

int gpuasm_hits_push(gpuasm_hits *h, gpuasm_endhit e)
{
    if (h->n == h->cap && gpuasm_hits_reserve(h, 1) < 0) return -1;
    h->hit[h->n++] = e;
    return 0;
}

/* read, target, strand, end, kind, then plen and dist.  A backend never
 * reports the same (read, target, strand, end, kind) twice, so plen and
 * dist only matter for a buggy backend; comparing them anyway keeps the
 * order total (qsort is not stable). */
static int cmp_hit(const void *pa, const void *pb)
{
    const gpuasm_endhit *a = pa, *b = pb;
    if (a->read != b->read) return a->read < b->read ? -1 : 1;
    if (a->target != b->target) return a->target < b->target ? -1 : 1;
    if (a->strand != b->strand) return a->strand < b->strand ? -1 : 1;
    if (a->end != b->end) return a->end < b->end ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    if (a->plen != b->plen) return a->plen < b->plen ? -1 : 1;
    if (a->dist != b->dist) return a->dist < b->dist ? -1 : 1;
    return 0;
}

void gpuasm_hits_sort(gpuasm_hits *h)
{
    if (h->n > 1) qsort(h->hit, h->n, sizeof(gpuasm_endhit), cmp_hit);
}

void gpuasm_hits_free(gpuasm_hits *h)
{
    free(h->hit);
    h->hit = NULL;
    h->n = h->cap = 0;
}
