/* targets.h -- the sequences to look for, read once through htslib.
 *
 * Any format sam_open() reads works (FASTA or FASTQ, plain, gzip or bgzf;
 * even SAM/BAM).  The file is read as a stream, so no .fai is written next to
 * it (fai_load would, and fails in read-only directories).
 */
#ifndef GPUASM_TARGETS_H
#define GPUASM_TARGETS_H

#include <stddef.h>
#include <stdint.h>
#include "search.h"

typedef struct gpuasm_targets {
    uint32_t n;          /* number of targets, file order */
    char **name;         /* [n] first word of each header line */
    uint64_t *off;       /* [n + 1] offsets into code, bases */
    uint8_t *code;       /* nt16 codes, full IUPAC sets (nt16.h) */
    uint64_t max_len;    /* longest target, bases */
    uint64_t min_len;    /* shortest target, bases */
    gpuasm_seqset set;   /* view of off/code for the kernels */
} gpuasm_targets;

/* Load every record of `path`.  Errors (return -1, one line in err, e.g.
 * "targets.fa: record 3 (vir2): target has no bases"): the file cannot be
 * opened or is not a sequence file, is empty, is truncated or malformed,
 * has a record without bases, or has two records with the same name.
 * (htslib caps a record at 2^31 bases, so positions fit in 32 bits.) */
int gpuasm_targets_load(const char *path, gpuasm_targets *t, char *err, size_t errlen);

/* Length of target i in bases. */
static inline uint64_t gpuasm_target_len(const gpuasm_targets *t, uint32_t i)
{
    return t->off[i + 1] - t->off[i];
}

void gpuasm_targets_free(gpuasm_targets *t);

#endif
