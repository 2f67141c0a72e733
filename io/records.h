/* SPDX-License-Identifier: MIT */
/* records.h -- the SAM records of one read, or of the two mates of a pair:
 * which records there are, their FLAG, mate fields and read group.
 *
 * The rules (SAM v1.6 §1.4 and §2.2; mate fields as samtools fixmate sets
 * them; issue #9):
 *
 *  1. Pairing only from real pairing.  A read is paired when its input
 *     record has FLAG 0x1: SAM/BAM/CRAM input as it was written, or R1/R2
 *     FASTQ files read in lockstep (io/reads.h gives them 77 and 141).  A
 *     "/1" at the end of a name in a single FASTQ file pairs nothing
 *     (io/reads.h clears what htslib sets from it).  0x1/0x40/0x80 are kept;
 *     every other flag is set here.
 *  2. Mates are adjacent: the 0x40 read, then the 0x80 read with the same
 *     QNAME (how sequencers, samtools import and samtools collate write
 *     them).  A paired read whose mate is not next to it keeps 0x1/0x40/0x80
 *     with RNEXT '*', PNEXT 0, no 0x8/0x20, and is counted in lone_mates
 *     (the caller warns: samtools collate groups mates).
 *  3. A read's records: one per reported occurrence (align/report.h), the
 *     first primary and the others FLAG 0x100; 0x10 when the read was
 *     reverse-complemented; MAPQ 255 (not computed); TLEN 0.  A read without
 *     an occurrence gets one FLAG 0x4 record (MAPQ 0, CIGAR '*') with
 *     --unmatched, or when its mate has an occurrence: a pair is written
 *     whole or not at all (as BBDuk keeps or drops both mates), so every
 *     paired record's mate is in the output.
 *  4. Mate fields: RNEXT/PNEXT are the RNAME/POS of the mate's primary
 *     record, and 0x20 is set when that record has 0x10.  A mate without an
 *     occurrence sets 0x8, and RNEXT/PNEXT are the read's own RNAME/POS; the
 *     0x4 record of a read whose mate has an occurrence is placed at the
 *     mate's RNAME/POS.  Both mates without: RNAME/RNEXT '*', 0x8.
 *  5. Tags after the hit's (NM MD AS [XS] [XD], io/sam_out.h): RG:Z:ID with
 *     -R/--rg, then with --keep-tags the input record's tags except those
 *     already set (so an input RG gives way to -R's).
 */
#ifndef GPUASM_RECORDS_H
#define GPUASM_RECORDS_H

#include <stddef.h>
#include <stdint.h>
#include <htslib/sam.h>
#include <htslib/kstring.h>
#include "align/report.h"

typedef struct gpuasm_record_opt {
    int unmatched;       /* --unmatched: a FLAG 0x4 record for every read without hits */
    int keep_tags;       /* --keep-tags: copy the input record's tags */
    const char *rg_id;   /* -R/--rg: RG:Z value for every record, or NULL */
} gpuasm_record_opt;

/* Output records of a run of reads, their memory reused from run to run. */
typedef struct gpuasm_records {
    bam1_t **rec;              /* [n] records, in output order */
    size_t n, m;               /* m records allocated (bam_init1) */
    uint64_t hit_records;      /* records that are hits (not FLAG 0x4) */
    uint64_t reads_with_hits;
    uint64_t lone_mates;       /* paired reads whose mate was not adjacent (rule 2) */
    uint32_t *per_read;        /* [n_read] records of each read added, in read order (the
                                * per-target report and --matched find a read's records) */
    size_t n_read, m_read;
} gpuasm_records;

/* Are x and y the two mates of one template, x first (rule 2)? */
int gpuasm_adjacent_mates(const bam1_t *x, const bam1_t *y);

/* Start a new run: no records, counts 0 (memory kept). */
void gpuasm_records_clear(gpuasm_records *s);

/* Append the records of n_read reads: 1 (a single read, or a paired read
 * without its adjacent mate) or 2 (read[0], read[1] adjacent mates).
 * read[i] is the input record (sequencing orientation), rep[i] its
 * occurrences.  scratch: work space.  0, or -1 out of memory. */
int gpuasm_records_add(gpuasm_records *s, const gpuasm_record_opt *o, kstring_t *scratch,
                       bam1_t *const *read, const gpuasm_report *const *rep, int n_read);

void gpuasm_records_free(gpuasm_records *s);

#endif
