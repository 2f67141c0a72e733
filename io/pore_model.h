/* SPDX-License-Identifier: MIT */
/* pore_model.h -- a k-mer pore model: the expected current level of every
 * k-mer, as the raw-signal tools use it to turn a genome into its expected
 * signal (UNCALLED, Sigmap, DTWax, SquiggleFilter).
 *
 * File: a TSV (plain or gzip) with a header line naming at least the columns
 * `kmer` and `level_mean_pA` (`level_stdv_pA` is read when present; other
 * columns are ignored), then one row per k-mer of A, C, G, T, every k-mer of
 * one length k (1 <= k <= 12) exactly once: 4^k rows.  Lines starting with
 * '#' are skipped.  ../shared/data/signals/r9.4.1_400bps_6mer.model.tsv is
 * one (R9.4.1, k = 6, pA).
 */
#ifndef GPUASM_PORE_MODEL_H
#define GPUASM_PORE_MODEL_H

#include <stddef.h>
#include <stdint.h>

typedef struct gpuasm_pore_model {
    uint32_t k;
    float *mean;      /* [4^k] level_mean_pA by k-mer code: A=0 C=1 G=2 T=3, first base most significant */
    float *stdv;      /* [4^k] level_stdv_pA (0 when the column is absent) */
    double mean_all;  /* mean of every level (the level of a k-mer with too many ambiguities) */
} gpuasm_pore_model;

/* Load a model.  0, or -1 with "FILE: line N: reason" in err: cannot open,
 * no header or a missing column, a k-mer of another length or with another
 * letter, a level that is not a number, a k-mer twice, k-mers missing (the
 * first one named). */
int gpuasm_pore_model_load(const char *path, gpuasm_pore_model *pm, char *err, size_t errlen);

void gpuasm_pore_model_free(gpuasm_pore_model *pm);

#endif
