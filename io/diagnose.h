/* diagnose.h -- say what is wrong with a FASTQ/FASTA record htslib refused.
 *
 * sam_read1() only returns "< -1" for a bad FASTQ/FASTA record; it does not
 * say which read or why.  On that (rare) path the file is read again with
 * htslib's own kseq.h parser up to the failing record, to name it and the
 * fault: "record 2 (r2): quality length 5 != sequence length 10".
 */
#ifndef GPUASM_DIAGNOSE_H
#define GPUASM_DIAGNOSE_H

#include <stddef.h>
#include <stdint.h>

/* Describe record rec_no (1-based) of the FASTQ/FASTA file `path` (plain or
 * gzip/bgzf; not "-", which cannot be read twice) into out, without the
 * file name: "record N (NAME): what" or "record N: what".  Always fills out
 * (a generic "truncated file or malformed record" when nothing better is
 * found). */
void gpuasm_diagnose_record(const char *path, int can_reread, uint64_t rec_no,
                            char *out, size_t outlen);

/* Does the gzip/bgzf file `path` (not "-") decompress to its end without
 * an error?  1 yes (or it cannot be reread), 0 no.  For compressed files
 * that htslib found empty: htslib takes a gzip header with nothing after it
 * for the end of the data, zlib knows the stream was cut. */
int gpuasm_gzip_complete(const char *path);

#endif
