/* SPDX-License-Identifier: MIT */
/* insertion_sort.h -- a static sort of short arrays of T by a qsort
 * comparator: insertion below GPUASM_INSERTION_MAX elements (no call per
 * comparison: glibc's qsort of a few elements is a merge sort with its
 * calls), qsort from there.  Both are stable (glibc's qsort is a merge
 * sort where it has the memory), so equal elements keep their order
 * either way and the result is qsort's.  Header only. */
#ifndef GPUASM_INSERTION_SORT_H
#define GPUASM_INSERTION_SORT_H

#include <stddef.h>
#include <stdlib.h>

#define GPUASM_INSERTION_MAX 16

/* static void name(T *v, size_t n): v[0 .. n) sorted by cmp(const void *,
 * const void *), as qsort(v, n, sizeof(T), cmp). */
#define GPUASM_INSERTION_SORT(T, name, cmp)                                   \
    static void name(T *v, size_t n)                                          \
    {                                                                         \
        if (n >= GPUASM_INSERTION_MAX) {                                      \
            qsort(v, n, sizeof(T), cmp);                                      \
            return;                                                           \
        }                                                                     \
        for (size_t i = 1; i < n; i++) {                                      \
            const T x = v[i];                                                 \
            size_t j = i;                                                     \
            for (; j > 0 && cmp(&v[j - 1], &x) > 0; j--) v[j] = v[j - 1];     \
            v[j] = x;                                                         \
        }                                                                     \
    }

#endif
