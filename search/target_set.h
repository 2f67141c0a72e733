/* SPDX-License-Identifier: MIT */
/* target_set.h -- the targets of a run as the search and the report see
 * them: names, codes and lengths, in file order.  io/targets.h loads them
 * from a FASTA/FASTQ file (and says how names are made SAM-valid and
 * unique); the library (lib/gpuasm.c) fills one from strings.  Here, below
 * both, so that the occurrence selection (align/report.h) can take one
 * without depending on the readers.
 */
#ifndef GPUASM_TARGET_SET_H
#define GPUASM_TARGET_SET_H

#include <stddef.h>
#include <stdint.h>
#include "search/search.h"

typedef struct gpuasm_targets {
    uint32_t n;          /* number of targets, file order */
    char **name;         /* [n] @SQ SN: first word of the header, SAM-valid, unique */
    char **desc;         /* [n] header line where the name was renamed or fought over, else NULL */
    uint64_t *off;       /* [n + 1] offsets into code, bases */
    uint8_t *code;       /* nt16 codes, full IUPAC sets (nt16.h) */
    uint64_t max_len;    /* longest target, bases */
    uint64_t min_len;    /* shortest target, bases */
    gpuasm_seqset set;   /* view of off/code for the kernels */
    uint32_t n_dup;      /* targets renamed because their first word was taken before */
    uint32_t first_dup;  /* index of the first of those (when n_dup > 0) */
    uint32_t n_mapped;   /* targets whose first word had characters SAM does not allow */
} gpuasm_targets;

/* Length of target i in bases. */
static inline uint64_t gpuasm_target_len(const gpuasm_targets *t, uint32_t i)
{
    return t->off[i + 1] - t->off[i];
}

#endif
