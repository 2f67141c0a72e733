/* SPDX-License-Identifier: MIT */
/* reads.h -- stream reads through htslib into batches for the kernels.
 *
 * Input is anything sam_open() reads: FASTQ/FASTA (plain, gzip, bgzf),
 * SAM/BAM/CRAM, or "-" for stdin.  Records come back in sequencing
 * orientation (a FLAG 0x10 record is reverse-complemented and its qualities
 * reversed, and 0x10 cleared); secondary and supplementary records (0x100,
 * 0x800) are skipped because they repeat a read already seen.
 *
 * A batch holds whole reads up to a number of bases, and never ends between
 * the two mates of a pair stored next to each other (0x40 then 0x80), so
 * that mate fields can be filled within one batch.
 *
 * Pairing (io/records.h states what the output does with it) comes only
 * from real pairing:
 *   - SAM/BAM/CRAM input keeps its FLAG 0x1/0x40/0x80;
 *   - FASTQ/FASTA from one file is single-end: htslib takes a name's "/1" or
 *     "/2" (any "/digit") for a mate number, drops it from the name and sets
 *     0x1/0x40/0x80; the name stays without it (as samtools import writes
 *     it) and the flags are cleared to 0x4 (unmapped, unpaired);
 *   - two files (R1, R2) are read in lockstep, R1's read then R2's, each
 *     pair adjacent, with FLAG 77 and 141 (0x1 0x4 0x8 and 0x40 / 0x80) as
 *     samtools import -1 -2 gives them.  The mates must have the same name
 *     once "/1" "/2" is gone, and the files the same number of reads.
 *     Record numbers then count R1 and R2 reads alternately (R1's n-th read
 *     is record 2n-1).
 * The suffix htslib took off a FASTQ/FASTA name stays known: a record's
 * bam1_t id (a field htslib keeps for its callers and copies with
 * bam_copy1) holds BAM_FREAD1 for "/1", BAM_FREAD2 for "/2" (both for any
 * other digit, which htslib does not tell apart), 0 for none and for
 * SAM/BAM/CRAM input, so the reads outputs write names as they were read
 * (io/reads_out.h; cutadapt keeps them, issue #29).
 */
#ifndef GPUASM_READS_H
#define GPUASM_READS_H

#include <stddef.h>
#include <stdint.h>
#include <htslib/sam.h>
#include "search/search.h"

/* Where batch code/offset buffers come from (pinned memory on CUDA). */
typedef struct gpuasm_alloc {
    void *(*alloc)(void *ctx, size_t bytes);
    void  (*free)(void *ctx, void *p);
    void *ctx;
} gpuasm_alloc;

typedef struct gpuasm_batch {
    uint32_t n;            /* reads in the batch */
    bam1_t **rec;          /* [n] the records, sequencing orientation */
    uint64_t first_record; /* 1-based input record number of rec[0] */
    uint64_t *off;         /* [n + 1] code offsets, bases (pinned) */
    uint8_t *code;         /* read codes, gpuasm_read_code()-filtered (pinned);
                            * filled by gpuasm_batch_encode, or by the reader
                            * when the parse threads made them (io/fastx_chunks.h) */
    gpuasm_seqset set;     /* view of off/code for the kernels (code once encoded) */
    int wildcards;         /* gpuasm_read_code()'s, from the reader */
    int encoded;           /* code[] holds this batch's reads */
    /* capacities (private) */
    size_t m_rec, m_off, m_code;
    gpuasm_alloc mem;
} gpuasm_batch;

typedef struct gpuasm_reader gpuasm_reader;

/* Open reads.  path "-" is stdin; path2: R2's file for paired files (R1 in
 * path), else NULL; reference is the FASTA used to decode CRAM (NULL:
 * htslib's defaults); n_threads > 1 gives htslib a decoding thread pool (it
 * helps BGZF/BAM/CRAM, not plain gzip).  wildcards: see gpuasm_read_code().
 * Returns 0, or -1 with "FILE: reason" in err. */
int gpuasm_reader_open(const char *path, const char *path2, const char *reference,
                       int n_threads, int wildcards, gpuasm_reader **out,
                       char *err, size_t errlen);

/* U in reads is T (issue #31): htslib 1.16 reads it as N; the first
 * gpuasm_reader_open() sets htslib's letter table as htslib 1.21 has it
 * (reads.c says how).  1 when U is read as T, 0 when that could not be
 * done (then U is N, as in samtools 1.16). */
int gpuasm_reads_u_is_t(void);

/* The longest read read so far: its bases, and in *where "FILE: record N
 * (NAME)" (issue #31: --max-memory's warning names it). */
uint64_t gpuasm_reader_longest(const gpuasm_reader *r, const char **where);

/* The input's header (R1's; empty for FASTA/FASTQ). */
const sam_hdr_t *gpuasm_reader_header(const gpuasm_reader *r);

/* The i-th (from 0) warning about the input met on the way, or NULL when
 * there are no more: a BGZF file without its end-of-file block (it may be
 * cut short; samtools warns too), read names SAM's QNAME does not allow.
 * Each names the file and a record.  Complete once the input has been
 * read to its end. */
const char *gpuasm_reader_warning(gpuasm_reader *r, int i);

/* Reads read so far (primary records, both mates of paired files, one read
 * ahead included); safe to call from any thread while another reads (for
 * the progress line). */
uint64_t gpuasm_reader_count(const gpuasm_reader *r);

/* Fill `b` with the next reads, about max_bases bases (at least one read):
 * the records and their offsets; the codes come from gpuasm_batch_encode
 * (on another thread: the reader thread is the one serial stage), unless
 * the chunked reader's parse threads made them (one FASTQ/FASTA file:
 * then b->encoded is set already).
 * Returns the number of reads (0 at the end of the input), or -1 with
 * "FILE: record N (NAME): reason" in err. */
int gpuasm_reader_next(gpuasm_reader *r, gpuasm_batch *b, uint64_t max_bases,
                       char *err, size_t errlen);

/* Fill b->code (and b->set.code) from the records, once per batch read
 * (a second call does nothing).  Any thread may call it; the batch must not
 * be touched by another meanwhile.  0, or -1 out of memory. */
int gpuasm_batch_encode(gpuasm_batch *b);

void gpuasm_reader_close(gpuasm_reader *r);

void gpuasm_batch_init(gpuasm_batch *b, gpuasm_alloc mem);
void gpuasm_batch_free(gpuasm_batch *b);

/* Take b's code and offset buffers from mem from now on: the old ones are
 * freed with the allocator that made them, the records are kept, and the
 * next read fills b anew.  For a batch between two uses (the pipeline's
 * slots move to CUDA's pinned memory once --device auto or cuda's CPU
 * start has moved to CUDA: cli/pipeline.c). */
void gpuasm_batch_set_alloc(gpuasm_batch *b, gpuasm_alloc mem);

#endif
