/* SPDX-License-Identifier: MIT */
/* reads_out.h -- reads written back out (--matched, --unmatched-reads;
 * issue #10; --reads-out, issue #29): FASTQ or FASTA (gzip by a .gz name),
 * or unaligned BAM/SAM/CRAM, through htslib's own writers (sam_open "wf",
 * "wfz", "wb", ...), chosen by the name as samtools picks it
 * (sam_open_mode), or by --reads-fmt; "-" is standard output (FASTQ unless
 * --reads-fmt says otherwise, as samtools fastq writes).
 *
 * Records are written as unaligned reads in sequencing orientation, as
 * samtools import makes them: FLAG keeps 0x1/0x40/0x80 and gets 0x4 (and
 * 0x8 for paired reads), no position; tags kept (BAM/SAM/CRAM only).
 * FASTQ/FASTA: names as read (cutadapt keeps them): a "/1" or "/2" that
 * htslib's reader took off the name is put back (reads.h), and where both
 * mates go to one file they get /1 and /2 (samtools fastq's interleaved
 * form); without comments (htslib's reader drops them, as samtools fastq),
 * bases in upper case (as htslib stores them).  Where a second file is
 * given, R1s go to the first and R2s to the second (cutadapt -o/-p).  A
 * read without qualities (FASTA input) gets htslib's default ('B' in
 * FASTQ).  A read cut to nothing is an empty record, as cutadapt writes
 * it (htslib's writer drops those, which would lose reads and split
 * pairs: reads_out.c writes them itself), empty in BAM/SAM/CRAM too.
 *
 * Files go through util/output_file.h: they appear only when the run
 * succeeded.
 */
#ifndef GPUASM_READS_OUT_H
#define GPUASM_READS_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <htslib/sam.h>

typedef struct gpuasm_reads_out gpuasm_reads_out;

/* Open `path` (and `path2` for R2s, or NULL), in format fmt (NULL: from
 * the names; gpuasm_reads_out_mode).  in_hdr: the input's header
 * (its @RG lines go into BAM/SAM output).  flag: the option, for messages.
 * 0, or -1 with "FLAG PATH: reason" in err. */
int gpuasm_reads_out_open(const char *flag, const char *path, const char *path2, const char *fmt,
                          const sam_hdr_t *in_hdr, int n_threads, gpuasm_reads_out **out,
                          char *err, size_t errlen);

/* The htslib mode letters (after "w") for a reads output: fmt (--reads-fmt:
 * fastq, fasta, sam, bam, cram, fastq.gz, fasta.gz, sam.gz) when not NULL,
 * else from path's name (FASTQ for "-").  0, or -1 with err naming flag. */
int gpuasm_reads_out_mode(const char *flag, const char *path, const char *fmt, char *mode,
                          char *err, size_t errlen);

/* Write one read (the input record), cut to its first `keep` bases when
 * keep >= 0 (--trim), whole when keep < 0.  0, or -1 with err. */
int gpuasm_reads_out_write(gpuasm_reads_out *w, const bam1_t *read, int64_t keep,
                           char *err, size_t errlen);

/* Close; when ok, move the files into place (else remove them).  0, or -1
 * with err (then nothing is left).  w may be NULL. */
int gpuasm_reads_out_close(gpuasm_reads_out *w, int ok, char *err, size_t errlen);

#endif
