/* prefilter.h -- the exact pigeonhole filter for many short patterns
 * (adapters, primers) against one text (internal to kernels/).
 *
 * Pigeonhole (Baeza-Yates & Navarro's partition lemma; Sassy2's prefilter
 * idea): cut a pattern into k + 1 pieces; an alignment with at most k
 * differences leaves at least one piece untouched (a substitution or a
 * deletion lies in one piece, an insertion between two bases of at most
 * one), so that piece occurs exactly in the text.  A pattern none of whose
 * pieces occurs exactly in a text has no end hit there, so skipping it
 * changes nothing: the filter is exact.
 *
 * Here every piece is represented by one Q-base window of single bases
 * inside it (Q = GPUASM_QF_Q), and a window "occurs exactly" when the text
 * has the same single bases there (nt16: a base matches only a code that
 * holds it; a read's N is code 0 and matches nothing).  Patterns whose
 * pieces are shorter than Q, or have no such window (IUPAC codes), are
 * never filtered ("always" candidates); a text holding an ambiguity code
 * other than 0 (reads with --match-read-wildcards) is not filtered either.
 */
#ifndef GPUASM_PREFILTER_H
#define GPUASM_PREFILTER_H

#include <stdint.h>

#include "search.h"

/* Window length (bases); keys are 2 Q bits. */
#define GPUASM_QF_Q 8

typedef struct gpuasm_qfilter {
    uint32_t n_targets;
    uint8_t *always;      /* [n_targets] 1: a candidate for every text (not filtered) */
    uint64_t *present;    /* [4^Q / 64] bit per key that some window has (an L1-sized first test) */
    uint32_t *start;      /* [4^Q + 1] targets with key x: ids[start[x] .. start[x+1]) */
    uint32_t *ids;
    uint32_t n_filtered;  /* targets with windows (for --stats-like reports and tests) */
} gpuasm_qfilter;

/* Index every target as a possible pattern, with k = gpuasm_pair_k(opt, m)
 * (targets that can never be a pattern, m <= k, get no windows and are not
 * "always").  nt16 codes.  0, or -1 when out of memory (f is then empty). */
int gpuasm_qfilter_build(gpuasm_qfilter *f, const gpuasm_seqset *targets,
                         const gpuasm_search_opt *opt);

void gpuasm_qfilter_free(gpuasm_qfilter *f);

/* Set mark[t] = stamp for every target with a window occurring exactly in
 * text[0 .. n).  Returns 1 when the text cannot be filtered (it holds an
 * ambiguity code): every target is then a candidate; else 0. */
int gpuasm_qfilter_mark(const gpuasm_qfilter *f, const uint8_t *text, uint64_t n, uint32_t *mark,
                        uint32_t stamp);

#endif
