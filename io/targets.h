/* SPDX-License-Identifier: MIT */
/* targets.h -- the sequences to look for, read once through htslib.
 *
 * FASTA or FASTQ, plain, gzip or bgzf, or "-" for stdin: the file is opened
 * with hopen(), its format told by hts_detect_format2(), and its records
 * parsed by htslib's kseq.h over a BGZF stream (plain files too).  Not
 * sam_read1(): htslib's FASTA/FASTQ reader drops a "/1" or "/2" at the end of
 * a name (it takes them for read-pair suffixes), and adapter files name
 * their sequences "PrefixPE/1", "PrefixPE/2".  No .fai is written (fai_load
 * would, and fails in read-only directories).
 *
 * Names (README.md, "SAM output"; issue #9):
 *   - a target's name is the first word of its header line (up to the first
 *     space or tab), as samtools faidx and BBDuk take it;
 *   - characters SAM does not allow in @SQ SN (SAM v1.6 §1.2.1:
 *     [0-9A-Za-z!#$%&+./:;?@^_|~-][0-9A-Za-z!#$%&*+./:;=?@^_|~-]*) become
 *     '_': "RNA_Adapter_(RA5)" -> "RNA_Adapter__RA5_";
 *   - a name already taken (a duplicate, or a mapped name equal to another
 *     target's) gets the first free suffix _2, _3, ... (as BBTools'
 *     reformat.sh uniquenames=t), free meaning not the name of any target in
 *     the file, so a target whose own name is valid and first keeps it;
 *   - a target whose name changed, or whose name another target had to give
 *     up, keeps its whole header line in desc (written as @SQ DS, tabs and
 *     control characters as spaces), so that namesakes can be told apart.
 * The result depends only on the file, so runs agree.
 */
#ifndef GPUASM_TARGETS_H
#define GPUASM_TARGETS_H

#include <stddef.h>
#include <stdint.h>
#include "search/target_set.h"   /* gpuasm_targets, gpuasm_target_len */

/* Load every record of `path`.  strict_names: a duplicate first word, or one
 * with characters SAM does not allow in @SQ SN, is an error instead of being
 * renamed (--strict-names).  Errors (return -1, one line in err, e.g.
 * "targets.fa: record 3 (vir2): target has no bases"): the file cannot be
 * opened or is not FASTA/FASTQ, is empty, is truncated or malformed
 * (compressed data included), a record has no bases or an empty name, and
 * with strict_names the two name faults above.  Record numbers are 1-based.
 * (Targets are capped at 2^31 bases so positions fit in 32 bits.) */
int gpuasm_targets_load(const char *path, int strict_names, gpuasm_targets *t,
                        char *err, size_t errlen);

void gpuasm_targets_free(gpuasm_targets *t);

#endif
