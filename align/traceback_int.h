/* SPDX-License-Identifier: MIT */
/* traceback_int.h -- what traceback.c (the banded method, the entry point)
 * and traceback_linear.c (the linear method) share.  Not installed. */
#ifndef GPUASM_TRACEBACK_INT_H
#define GPUASM_TRACEBACK_INT_H

#include <stdint.h>
#include <stdlib.h>

#include "util/grow.h"
#include "align/traceback.h"

/* Room for n ops in a.  0, or -1 out of memory. */
static inline int gpuasm_aln_grow(gpuasm_aln *a, size_t n)
{
    return gpuasm_grow((void **)&a->op, &a->m_op, n, 1);
}

/* op[0..k) in reverse order (the walks find the last column first). */
static inline void gpuasm_ops_reverse(uint8_t *op, size_t k)
{
    for (size_t a = 0, z = k; a + 1 < z; a++, z--) {
        uint8_t t = op[a];
        op[a] = op[z - 1];
        op[z - 1] = t;
    }
}

/* The linear method (traceback_linear.c): gpuasm_traceback()'s contract. */
int gpuasm_tb_linear(const uint8_t *pattern, uint32_t m, const uint8_t *text, uint64_t n,
                     uint64_t end, int32_t dist, gpuasm_tb_work *w, gpuasm_aln *out);

/* Frees the linear method's buffers (NULL: nothing). */
void gpuasm_tb_lin_free(struct gpuasm_tb_lin *L);

#endif
