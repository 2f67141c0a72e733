/* SPDX-License-Identifier: MIT */
/* readpass_gpuasm -- the read pass of gpuasm's own reader (issue #30).
 *
 *   readpass_gpuasm FILE [THREADS [BATCH_BASES]]
 *
 * What gpuasm-scan's reader thread does before any search: the records of
 * FILE through gpuasm_reader_open/next into batches of BATCH_BASES bases
 * (default 4 Mi, gpuasm-scan's), each batch's 2-bit codes made
 * (gpuasm_batch_encode: gpuasm-scan's prep thread; nothing left to do
 * there when the parse threads made them), counted.  THREADS as -@: FASTQ
 * and FASTA are read in chunks parsed by htslib on that many threads, a
 * plain gzip file inflated by ISA-L, BGZF blocks and BAM/CRAM on htslib's
 * pool (io/fastx_chunks.h).  GPUASM_READ_SERIAL=1 gives the reader before
 * issue #30 (htslib's sam_read1 on this thread).  Prints, as
 * tests/bench/readpass does: records, bases, seconds (open to close),
 * records/s.  Exit 0, or 1 with the reader's message.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "io/reads.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *plain_alloc(void *ctx, size_t n) { (void)ctx; return malloc(n ? n : 1); }
static void plain_free(void *ctx, void *p) { (void)ctx; free(p); }

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: readpass_gpuasm FILE [THREADS [BATCH_BASES]]\n");
        return 1;
    }
    const int threads = argc >= 3 ? atoi(argv[2]) : 1;
    const uint64_t batch = argc >= 4 ? strtoull(argv[3], NULL, 10) : 4u << 20;
    char err[1024];
    const double t0 = now();
    gpuasm_reader *r;
    if (gpuasm_reader_open(argv[1], NULL, NULL, threads, 0, &r, err, sizeof err) < 0) {
        fprintf(stderr, "readpass_gpuasm: %s\n", err);
        return 1;
    }
    gpuasm_batch b;
    gpuasm_batch_init(&b, (gpuasm_alloc){ plain_alloc, plain_free, NULL });
    uint64_t records = 0, bases = 0;
    int got;
    while ((got = gpuasm_reader_next(r, &b, batch, err, sizeof err)) > 0) {
        if (gpuasm_batch_encode(&b) < 0) {
            snprintf(err, sizeof err, "out of memory");
            got = -1;
            break;
        }
        records += b.n;
        bases += b.off[b.n];
    }
    gpuasm_batch_free(&b);
    gpuasm_reader_close(r);
    const double s = now() - t0;
    if (got < 0) {
        fprintf(stderr, "readpass_gpuasm: %s\n", err);
        return 1;
    }
    printf("readpass_gpuasm\t%llu records\t%llu bases\t%.3f s\t%.0f records/s\n",
           (unsigned long long)records, (unsigned long long)bases, s,
           s > 0 ? (double)records / s : 0.0);
    return 0;
}
