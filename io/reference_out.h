/* SPDX-License-Identifier: MIT */
/* reference_out.h -- the targets written back as the reference the SAM
 * header names (--write-reference FILE.fa; issue #29).
 *
 * gpuasm-scan renames targets whose names SAM does not allow, or that are
 * taken (targets.h): the user's FASTA then no longer matches @SQ, and
 * `samtools calmd`, Picard or a CRAM reader given it lose those targets.
 * This writes what the header refers to:
 *   FILE.fa    every target in file order, named exactly as its @SQ SN,
 *              its bases as gpuasm compared them (upper case IUPAC, nt16.h;
 *              U read as T), 60 per line;
 *   FILE.fa.fai  htslib's fai_build of it (samtools faidx);
 *   FILE.dict  a Picard sequence dictionary (CreateSequenceDictionary's
 *              layout: @HD, then @SQ SN LN M5 UR per target; M5 the MD5 of
 *              the upper-case bases, as SAM defines it), named FILE.dict
 *              where FILE ends in .fa, .fasta or .fna (Picard's rule), else
 *              FILE.fa.dict.
 * FILE must be a plain (uncompressed) file name, not "-".  The FASTA and
 * the dictionary are written through temporary files (util/output_file.h)
 * and are in place, with the .fai, when this returns 0: before the reads
 * are searched, so a CRAM output can be encoded against FILE.
 */
#ifndef GPUASM_REFERENCE_OUT_H
#define GPUASM_REFERENCE_OUT_H

#include <stddef.h>
#include "io/targets.h"

/* Write FILE, FILE.fai and the dictionary.  inputs[0..n): files none of
 * them may be.  0, or -1 with "--write-reference FILE: reason" in err. */
int gpuasm_reference_write(const gpuasm_targets *t, const char *path,
                           const char *const *inputs, size_t n_inputs, char *err, size_t errlen);

/* The dictionary's name for FILE (malloc'ed), or NULL when out of memory. */
char *gpuasm_reference_dict_name(const char *path);

/* The index's name for FILE, FILE.fai (malloc'ed: htslib's fai_build
 * name), or NULL when out of memory. */
char *gpuasm_reference_fai_name(const char *path);

#endif
