/* SPDX-License-Identifier: MIT */
/* fastx_chunks.h -- FASTQ/FASTA records read in parallel (issue #30).
 *
 * htslib reads a FASTQ/FASTA file on one thread: inflate (zlib, for a
 * plain .fq.gz) then fastq_parse1, record after record, and that thread
 * set the pace of the whole run.  Here the work is cut in three:
 *
 *   feeder thread  the bytes: hread for a plain file, ISA-L for a plain
 *                  gzip file (io/inflate.h), bgzf_read for BGZF (its
 *                  blocks inflated on the -@ threads by htslib), into
 *                  chunks of about chunk_bytes; each chunk is cut after
 *                  its last whole record, found by the line rules of
 *                  htslib's own parser (below), and the rest starts the
 *                  next chunk;
 *   -@ threads     each chunk parsed by htslib itself: an htsFile that
 *                  htslib opened as FASTQ/FASTA reads the chunk from an
 *                  in-memory hFILE, sam_read1 after sam_read1 (no record
 *                  parser here: only where a chunk may be cut);
 *   the caller     gpuasm_fastx_read1(), the records in input order.
 *
 * Where a chunk may be cut: at the start of a record as fastq_parse1
 * (htslib 1.16 sam.c) finds it reading from the start of the file -- a
 * name line, sequence lines up to a line that starts with '+', quality
 * lines until they are as long as the sequence -- and for FASTA before a
 * line that starts with '>'.  Lines end at '\n', less one '\r' before it,
 * as kgetline2 reads them (a plain file); a compressed file is read by
 * bgzf_getline, which also drops a '\r' that ends the file without '\n':
 * the same is had by giving such a file the '\n' it lacks.  A record
 * that parser refuses (the name line without '@', a quality line longer
 * than what is left, the file ending inside a record) ends the splitting:
 * it and all after it in view go into a last chunk, where htslib refuses
 * it in turn, with the same return code as reading the file alone.  So
 * the records, their order and the first error are those of reading the
 * file with sam_read1 from start to end, whatever the chunk size and
 * threads.  A mismatch (a chunk that parses to more or fewer records than
 * were found in it) is never silent: GPUASM_FASTX_ERR_SPLIT.
 *
 * Memory: n_chunks chunks exist (the feeder waits for a free one), each
 * of about chunk_bytes of text and the records parsed from it; a chunk
 * grows to hold one record longer than it, and is brought back to
 * 4 x chunk_bytes when it is free again.
 */
#ifndef GPUASM_FASTX_CHUNKS_H
#define GPUASM_FASTX_CHUNKS_H

#include <stddef.h>
#include <stdint.h>
#include <htslib/sam.h>
#include <htslib/thread_pool.h>

typedef struct gpuasm_fastx gpuasm_fastx;

/* Besides the BGZF_ERR_* bits of a byte-layer error (htslib/bgzf.h):
 * out of memory, and chunks that did not parse to the records the split
 * found in them (a bug: never seen, fuzzed against reading alone). */
#define GPUASM_FASTX_ERR_NOMEM 0x100
#define GPUASM_FASTX_ERR_SPLIT 0x200

/* What the parse threads do for each record besides parsing it, so that
 * the caller's thread need not: a mark (0: nothing to look at; what else
 * it means is the caller's) and the record's bases as codes, one byte
 * each (l_qseq of them).  Either may be NULL; both must be thread-safe. */
typedef struct gpuasm_fastx_hooks {
    unsigned (*mark)(const bam1_t *b, void *ctx);
    void (*encode)(const bam1_t *b, uint8_t *out, void *ctx);
    void *ctx;
} gpuasm_fastx_hooks;

/* Start reading the records of `in`: a FASTQ (fastq = 1) or FASTA file
 * htslib opened, its (empty) header read and no record yet.  Its bytes
 * come from in's hFILE or BGZF handle from then on; in must stay open
 * until gpuasm_fastx_close().  pool: the chunks are parsed on its threads
 * (NULL: by the caller of gpuasm_fastx_read1); a BGZF file's own pool, if
 * any, is attached to `in` by the caller.  chunk_bytes: text per chunk
 * (0: the default, 1 MiB); n_chunks: chunks in all (at least 2).
 * Returns 0, or -1 (out of memory, or the feeder thread would not start:
 * errno says). */
int gpuasm_fastx_open(samFile *in, int fastq, hts_tpool *pool, size_t chunk_bytes,
                      int n_chunks, const gpuasm_fastx_hooks *hooks, gpuasm_fastx **out);

/* The next record into dst, whose contents are swapped with the parsed
 * record's (no copy); with it, what the hooks made of it: *mark, and
 * *codes (NULL without an encode hook), valid until the next call.  As
 * sam_read1: >= 0 a record; -1 the end, or htslib's -1 for a record it
 * would not store (errno as htslib left it: EINVAL for a read name over
 * 254 characters); < -1 an error: gpuasm_fastx_errcode() is 0 for a
 * record htslib refused, else the byte layer's BGZF_ERR_* bits (data cut
 * short, corrupt, not gzip after a member) or GPUASM_FASTX_ERR_*.  Every
 * record before the error has been returned.  After the end or an error
 * it keeps returning the same. */
int gpuasm_fastx_read1(gpuasm_fastx *fx, bam1_t *dst, unsigned *mark, const uint8_t **codes);

unsigned gpuasm_fastx_errcode(const gpuasm_fastx *fx);

/* Which byte source it reads: "plain", "gzip (ISA-L)", "gzip (zlib)" or
 * "BGZF". */
const char *gpuasm_fastx_source(const gpuasm_fastx *fx);

/* Stop the feeder and the parsing, free everything (not `in`). */
void gpuasm_fastx_close(gpuasm_fastx *fx);

#endif
