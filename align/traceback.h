/* SPDX-License-Identifier: MIT */
/* traceback.h -- from an end hit (end position, distance) to an alignment:
 * start position, CIGAR and MD.  CPU only, run for reported hits only.
 *
 * Two algorithms give the same alignment (the tie rule below):
 *   banded  Ukkonen 1985: the pattern is aligned in a band of 2d+1
 *           diagonals with 2 bits of direction per cell: O(m * d) time and
 *           m * (2d+1) / 4 bytes.  Used while the band is narrow (d <= 7),
 *           where it is the faster one.
 *   linear  Myers' bit-vectors (Myers 1999, Hyyrö 2001 blocks) forward
 *           from the earliest possible start, keeping only cells whose cost
 *           plus a lower bound of the rest (the gaps back to the end's
 *           diagonal; the pattern's seeds the text lacks, A*PA's seed
 *           heuristic) is at most d, divide and conquer over text columns
 *           (Hirschberg 1975's linear space, with checkpoints instead of a
 *           meet-in-the-middle): O(m * d / 64 * L) word steps for L passes
 *           (2 for a real 1 Mb pair at 1.2% divergence, the second on
 *           gpuasm_tb_work.n_threads threads) and memory bounded by a
 *           budget whatever m (gpuasm_tb_work.mem_bytes).
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

/* gpuasm_tb_work.method: which algorithm gpuasm_traceback() runs.  Every
 * one gives the same alignment; tests and benchmarks force one. */
enum { GPUASM_TB_AUTO = 0,    /* banded while 2d+1 <= 15 (and m * (2d+1) <= 2^24), else linear */
       GPUASM_TB_BANDED = 1,
       GPUASM_TB_LINEAR = 2 };

/* Reusable work space: no allocation per hit once warm.  Zero-initialise. */
typedef struct gpuasm_tb_work {
    uint8_t *bits;  size_t m_bits;   /* banded: 2-bit directions; m_bits in bytes */
    int32_t *col;   size_t m_col;    /* banded: two band rows of costs; in int32s */
    struct gpuasm_tb_lin *lin;       /* linear: its buffers (traceback_linear.c) */
    int method;                      /* GPUASM_TB_*; 0 = AUTO */
    size_t mem_bytes;                /* linear: budget of its column store and
                                      * checkpoints, bytes; 0 = 16 MiB (with
                                      * threads: mem / 2 of checkpoints and
                                      * mem / 32 for each of the 2 x n_threads
                                      * parts kept ahead of the walk) */
    int n_threads;                   /* linear: threads for a long band's leaf
                                      * ranges (a pool of that many while the
                                      * caller walks; <= 1: the caller's only;
                                      * at most 64); the same alignment */
    uint64_t threads_min_cells;      /* linear: threads from this many blocks x
                                      * columns of the band on; 0 = 2^25 */
    uint64_t seeds_min_cells;        /* linear: the seeds' bound (tb_seeds.h)
                                      * from this many on; 0 = 2^20 */
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

/* The starts of an end hit without its alignment: the reverse pattern
 * searched over the reversed text window of m + dist bases ending at `end`
 * (as edlib finds start locations: Sosic & Sikic 2017, the reversed
 * sequences aligned from the end; Myers' bit-vectors in a band of
 * 2 dist + 1 diagonals).  *s_lo and *s_hi get
 * the smallest and largest 0-based s with ED(pattern, text[s..end]) ==
 * dist; gpuasm_traceback()'s tstart lies in [*s_lo, *s_hi] (it need not be
 * either end).  O((m + d) * d / 64) word steps, O(m) memory.  Returns 0;
 * -1 out of memory; -2 as gpuasm_traceback(). */
int gpuasm_hit_starts(const uint8_t *pattern, uint32_t m,
                      const uint8_t *text, uint64_t n,
                      uint64_t end, int32_t dist,
                      gpuasm_tb_work *w, uint64_t *s_lo, uint64_t *s_hi);

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
