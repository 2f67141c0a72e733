/* SPDX-License-Identifier: MIT */
/* reads_int.h -- the reader's insides, shared by its units (internal to
 * io/): one input file as the reader holds it, opened and closed by
 * io/reads_source.c (the format, its checks, the chunked FASTQ/FASTA
 * reader or htslib's decoding threads) and read record after record by
 * io/reads.c.  reads.h is the outside.
 */
#ifndef GPUASM_READS_INT_H
#define GPUASM_READS_INT_H

#include <stddef.h>
#include <stdint.h>

#include <htslib/bgzf.h>
#include <htslib/hts.h>
#include <htslib/sam.h>

#include "io/fastx_chunks.h"

/* One input file. */
typedef struct {
    samFile *in;
    sam_hdr_t *hdr;
    char *path;
    int seqfile;         /* FASTQ/FASTA: no pairing of its own (reads.h) */
    int fastq;           /* FASTQ: every record has qualities */
    int cram;
    int compressed;      /* gzip or BGZF (BAM included) */
    int pooled;          /* htslib's decoding threads are attached */
    uint64_t n_read;     /* records read so far (all, skipped ones included) */
    int eof;
    gpuasm_fastx *fx;    /* FASTQ/FASTA: the chunked reader (issue #30), else NULL */
    int wildcards;       /* the reader's (the encode hook's) */
} source_t;

/* The BGZF layer of an open file (BAM, gzip and bgzip text), or NULL. */
static inline BGZF *bgzf_of(samFile *f)
{
    return f && f->is_bgzf ? f->fp.bgzf : NULL;
}

/* Open path into s (zeroed but for wildcards): its format checked, its
 * header read, and then its records handed to the chunked reader
 * (FASTQ/FASTA: parsed on tp's threads, the hooks run there; see
 * io/fastx_chunks.h) or htslib's decoding threads attached (tp: NULL for
 * none).  reference: -T's FASTA for a CRAM input, or NULL.  0, or -1
 * with "FILE: reason" in err; gpuasm_source_close() either way. */
int gpuasm_source_open(source_t *s, const char *path, const char *reference, htsThreadPool *tp,
                       const gpuasm_fastx_hooks *hooks, char *err, size_t errlen);

void gpuasm_source_close(source_t *s);

#endif
