/* SPDX-License-Identifier: MIT */
/* readpass -- the I/O floor of tests/bench/run: a bare htslib read pass.
 *
 *   readpass FILE [THREADS]
 *
 * Opens FILE with sam_open (FASTQ/FASTA plain, gzip or bgzf, SAM/BAM/CRAM),
 * reads every record with sam_read1 and counts records and bases (l_qseq):
 * the least any htslib-based tool must spend before doing anything with the
 * reads.  THREADS > 0 attaches an htslib thread pool (helps BGZF, SAM text
 * and CRAM only; plain or gzip FASTQ stays one thread, see BUILD-FACTS.md).
 * Prints: records, bases, seconds (wall, open to close), records/s.
 * Exit 0, or 1 on an unreadable or malformed file (one line on stderr).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <htslib/sam.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: readpass FILE [THREADS]\n");
        return 1;
    }
    int threads = argc == 3 ? atoi(argv[2]) : 0;
    double t0 = now();
    samFile *in = sam_open(argv[1], "r");
    if (!in) {
        fprintf(stderr, "readpass: %s: cannot open\n", argv[1]);
        return 1;
    }
    if (threads > 0 && hts_set_threads(in, threads) < 0) {
        fprintf(stderr, "readpass: %s: cannot start %d threads\n", argv[1], threads);
        return 1;
    }
    sam_hdr_t *h = sam_hdr_read(in);
    bam1_t *b = bam_init1();
    uint64_t records = 0, bases = 0;
    int r;
    while ((r = sam_read1(in, h, b)) >= 0) {
        records++;
        bases += (uint64_t)b->core.l_qseq;
    }
    bam_destroy1(b);
    if (h) sam_hdr_destroy(h);
    int close_rc = sam_close(in);
    double s = now() - t0;
    if (r < -1 || close_rc < 0) {
        fprintf(stderr, "readpass: %s: malformed or truncated after record %llu\n", argv[1],
                (unsigned long long)records);
        return 1;
    }
    printf("readpass\t%llu records\t%llu bases\t%.3f s\t%.0f records/s\n",
           (unsigned long long)records, (unsigned long long)bases, s,
           s > 0 ? (double)records / s : 0.0);
    return 0;
}
