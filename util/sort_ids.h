/* SPDX-License-Identifier: MIT */
/* sort_ids.h -- ascending order of a list of small ids (target numbers),
 * duplicates kept: what qsort with a uint32 comparison gives, without a
 * call per comparison where the list is short or dense (qsort of a
 * strand's candidate targets was 4% of an adapter screen's instructions,
 * callgrind).  Header only. */
#ifndef GPUASM_SORT_IDS_H
#define GPUASM_SORT_IDS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static inline int gpuasm_sort_ids_cmp(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Sort v[0 .. n) (every v[i] < n_ids) ascending: insertion for short
 * lists, a counting sort over n_ids counts in *cnt (grown once to n_ids,
 * left zero) where the ids are dense enough (n_ids <= 64 n), else qsort.
 * 0, or -1 when out of memory (v unchanged). */
static inline int gpuasm_sort_ids(uint32_t *v, uint32_t n, uint32_t n_ids, uint32_t **cnt, size_t *cap)
{
    if (n <= 32) {
        for (uint32_t i = 1; i < n; i++) {
            const uint32_t x = v[i];
            uint32_t j = i;
            for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
            v[j] = x;
        }
        return 0;
    }
    if ((uint64_t)n_ids > 64 * (uint64_t)n) {
        qsort(v, n, sizeof *v, gpuasm_sort_ids_cmp);
        return 0;
    }
    if (*cap < n_ids) {
        uint32_t *c = calloc(n_ids, sizeof *c);
        if (!c) return -1;
        free(*cnt);
        *cnt = c;
        *cap = n_ids;
    }
    uint32_t *c = *cnt;
    for (uint32_t i = 0; i < n; i++) c[v[i]]++;
    uint32_t k = 0;
    for (uint32_t id = 0; k < n; id++)
        for (; c[id]; c[id]--) v[k++] = id;
    return 0;
}

#endif
