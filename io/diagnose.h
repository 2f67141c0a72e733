/* SPDX-License-Identifier: MIT */
/* diagnose.h -- say what is wrong with an input htslib refused.
 *
 * htslib says that a read failed, rarely why in terms a user can act on,
 * and never which record: sam_read1() returns "< -1", BGZF keeps an error
 * code, and a multi-threaded BGZF reader can even lose the blocks before
 * the bad one (issue #12).  On that (rare) path the file is read again, on
 * its own and without threads, to name the record and the fault:
 *   "record 2 (r2): quality length 5 != sequence length 10",
 *   "record 5089: truncated file: the compressed data stops mid-stream at
 *    byte 30000 (the end of the file)",
 *   "record 16681: htslib stops here: the 8 bytes from byte 81820 on are
 *    not gzip data (trailing garbage after the end of the compressed data)".
 * Files that cannot be read twice (stdin, pipes) get what the live reader
 * knows (the BGZF error code).
 */
#ifndef GPUASM_DIAGNOSE_H
#define GPUASM_DIAGNOSE_H

#include <stddef.h>
#include <stdint.h>
#include <htslib/bgzf.h>

/* The compressed layer of a gzip/BGZF file, checked with zlib alone. */
enum gpuasm_gz_kind {
    GPUASM_GZ_OK = 0,        /* every member inflates, CRCs match, nothing after the last */
    GPUASM_GZ_TRUNCATED,     /* the file ends inside a member */
    GPUASM_GZ_CORRUPT,       /* a member does not inflate, or its CRC/length is wrong */
    GPUASM_GZ_TRAILING,      /* bytes after the last member that are not a gzip member */
    GPUASM_GZ_UNKNOWN        /* the file could not be read again (not an answer) */
};

typedef struct gpuasm_gz_report {
    int kind;                /* enum gpuasm_gz_kind */
    long long offset;        /* TRUNCATED: file size; CORRUPT: start of the bad member;
                              * TRAILING: first byte of the garbage */
    long long size;          /* file size in bytes */
    char zmsg[96];           /* CORRUPT: zlib's reason */
} gpuasm_gz_report;

/* Check the gzip/BGZF file `path` from its start to its end (a regular
 * file: "-" and pipes give GPUASM_GZ_UNKNOWN).  Returns r->kind. */
int gpuasm_gz_check(const char *path, gpuasm_gz_report *r);

/* r as words, without the file name or record ("truncated file: ..."). */
void gpuasm_gz_describe(const gpuasm_gz_report *r, char *out, size_t outlen);

/* Can `path` be opened and read again from its start (a regular file)? */
int gpuasm_rereadable(const char *path);

/* Describe why htslib could not read record rec_no (1-based) of the reads
 * file `path`, into out without the file name: "record N (NAME): what" or
 * "record N: what".  seqfile: FASTQ/FASTA (else SAM/BAM); compressed: gzip
 * or BGZF; recount: the live reader ran with decoding threads, so its
 * record count may be off (the file is counted again without them); live:
 * the live reader's BGZF handle (or NULL), for files that cannot be read
 * again; at_end: htslib said "end of file" (-1) but left a sign of an error
 * (errno EINVAL: bam_set1 refused a record, a read name over 254 bytes).
 * Returns 1 (out filled), or 0 when at_end and the reread shows that the
 * file really ends before record rec_no (nothing is wrong). */
int gpuasm_diagnose_reads(const char *path, int seqfile, int compressed, int recount,
                          const BGZF *live, uint64_t rec_no, int at_end,
                          char *out, size_t outlen);

/* The live BGZF handle's error as words ("truncated file: a compressed
 * block is cut short", ...), or NULL when it has none. */
const char *gpuasm_bgzf_error_words(const BGZF *bz);

#endif
