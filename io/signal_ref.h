/* SPDX-License-Identifier: MIT */
/* signal_ref.h -- the reference signals of the signal mode: what a read's
 * signal is compared with (search/signal_mode.h's text side).
 *
 * From a genome: every FASTA/FASTQ record (io/targets.h reads it) and a
 * pore model (pore_model.h) give two signals, one per strand: the levels of
 * the k-mers of the record 5' to 3' ('+'), and of its reverse complement
 * ('-'), one level per k-mer (as DTWax and SquiggleFilter build their
 * reference), L - k + 1 of them for L bases.  A k-mer with IUPAC codes or N
 * gets the mean level of the k-mers it stands for (the model's mean level
 * past 4,096 of them).
 * From a signal file (signal_reads.h: text or SLOW5/BLOW5): every signal as
 * it is, strand '+' only, coordinates in samples.
 * Either way each reference signal is normalised on its own and quantised
 * (signal_norm.h) with the reads' method.
 *
 * Coordinates: a kernel's reference interval is [ks, ke) in k-mers (or
 * samples) of the strand's own signal; gpuasm_sigref_interval() turns it
 * into 0-based half-open bases of the forward strand, as PAF's target
 * start/end are: '+' [ks, ke - 1 + k), '-' [L - (ke - 1 + k), L - ks).
 */
#ifndef GPUASM_SIGNAL_REF_H
#define GPUASM_SIGNAL_REF_H

#include <stddef.h>
#include <stdint.h>

#include "search/signal_mode.h"

typedef struct gpuasm_sigref {
    uint32_t n;          /* reference signals */
    uint32_t n_targets;  /* FASTA records or signals they came from */
    char **tname;        /* [n_targets] names (FASTA: io/targets.h's, SAM-valid and unique) */
    uint64_t *tlen;      /* [n_targets] bases (FASTA) or samples */
    uint32_t *target;    /* [n] the target of reference signal i */
    char *strand;        /* [n] '+' or '-' */
    uint32_t k;          /* k-mer length; 0: signal references (samples) */
    uint64_t *off;       /* [n + 1] */
    int16_t *val;
    gpuasm_sigset set;   /* view for the kernels */
    uint64_t clamped;    /* reference values clamped by the quantiser */
} gpuasm_sigref;

/* The two strands of every record of `fasta` under `model`.  0, or -1
 * with "FILE: reason" in err (io/targets.h's and pore_model.h's errors). */
int gpuasm_sigref_from_fasta(const char *fasta, const char *model, int norm, gpuasm_sigref *ref,
                             char *err, size_t errlen);

/* Every signal of a signal file.  0, or -1 with err. */
int gpuasm_sigref_from_signals(const char *path, int norm, gpuasm_sigref *ref, char *err,
                               size_t errlen);

/* Forward-strand interval [*ts, *te) of [ks, ke) on reference signal i
 * (see above); ks < ke. */
void gpuasm_sigref_interval(const gpuasm_sigref *ref, uint32_t i, uint64_t ks, uint64_t ke,
                            uint64_t *ts, uint64_t *te);

void gpuasm_sigref_free(gpuasm_sigref *ref);

#endif
