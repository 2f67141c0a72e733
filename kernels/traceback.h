/* traceback.h -- from an end hit (end position, distance) to an alignment:
 * start position, CIGAR and MD.  CPU only, run for hits only.
 *
 * Banded DP (Ukkonen 1985): an alignment of the whole pattern with d
 * differences stays within d diagonals of the diagonal it ends on, so the
 * pattern (m bases) is aligned backwards from the end in a band of 2d+1
 * diagonals: O(m * d) time and m * (2d+1) / 4 bytes of traceback bits.
 */
#ifndef GPUASM_TRACEBACK_H
#define GPUASM_TRACEBACK_H

#include <stddef.h>
#include <stdint.h>

/* Alignment columns, pattern vs text, first to last. */
enum { GPUASM_OP_MATCH = 0,  /* pattern and text base, equal (nt16 match) */
       GPUASM_OP_SUBST = 1,  /* pattern and text base, different */
       GPUASM_OP_PGAP  = 2,  /* pattern base aligned to nothing */
       GPUASM_OP_TGAP  = 3   /* text base aligned to nothing */ };

typedef struct gpuasm_aln {
    uint64_t tstart;   /* 0-based first text base of the aligned substring */
    uint64_t tend;     /* 0-based last text base, inclusive (the end hit's j) */
    int32_t  dist;     /* number of non-MATCH columns */
    uint8_t *op;       /* [n_op] GPUASM_OP_*, first column first */
    size_t   n_op, m_op;
} gpuasm_aln;

/* Reusable work space: no allocation per hit once warm. */
typedef struct gpuasm_tb_work {
    uint8_t *bits;  size_t m_bits;   /* 2-bit traceback directions; m_bits in bytes */
    int32_t *col;   size_t m_col;    /* two band rows of costs; m_col in int32s */
} gpuasm_tb_work;

/* Align pattern[0..m) (m >= 1) to a substring of text[0..n) ending at
 * `end` (inclusive, end < n) with exactly `dist` differences (dist =
 * D[m][end] from a kernel).  Ties are broken the same way every time:
 * walking back from the end, each column is MATCH/SUBST when that can still
 * complete an alignment with `dist` differences, else PGAP, else TGAP.
 * Returns 0; -1 out of memory; -2 when m == 0, end >= n, or the optimum
 * at `end` is not `dist` (an inconsistent end hit: a kernel bug). */
int gpuasm_traceback(const uint8_t *pattern, uint32_t m,
                     const uint8_t *text, uint64_t n,
                     uint64_t end, int32_t dist,
                     gpuasm_tb_work *w, gpuasm_aln *out);

/* The alignment of a Hamming-mode end hit (search.h; seed 004 Definition
 * 3): pattern[0..m) against text[end-m+1 .. end], one MATCH or SUBST
 * column per base, no gaps.  Returns 0; -1 out of memory; -2 when m == 0,
 * end >= n, end < m-1 or the window has not exactly `dist` mismatches (a
 * kernel bug). */
int gpuasm_hamming_alignment(const uint8_t *pattern, uint32_t m,
                             const uint8_t *text, uint64_t n,
                             uint64_t end, int32_t dist, gpuasm_aln *out);

void gpuasm_tb_work_free(gpuasm_tb_work *w);
void gpuasm_aln_free(gpuasm_aln *a);

#endif
