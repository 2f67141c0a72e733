/* SPDX-License-Identifier: MIT */
/* shard.h -- --shard I/N: one of N disjoint parts of the reads (issue #10),
 * so that N jobs on N machines cover the input once.
 *
 * Templates (a single read, or the two adjacent mates of a pair: records.h
 * rule 2) are numbered from 0 in input order; shard I (1-based) keeps
 * templates t with t mod N == I - 1.  Round robin rather than blocks: the
 * number of reads is not known before the end, and every shard gets a fair
 * share of the input however it is ordered.  The N outputs hold together
 * exactly the records of one whole run (records are built per template),
 * in an interleaved order: sort them by read order to compare.
 */
#ifndef GPUASM_SHARD_H
#define GPUASM_SHARD_H

#include <stdint.h>
#include "io/reads.h"

typedef struct gpuasm_shard {
    uint32_t i, n;          /* shard i of n, 1 <= i <= n; n == 0: no sharding */
    uint64_t templates;     /* templates seen so far */
} gpuasm_shard;

/* Parse "I/N" (1 <= I <= N <= 1000000).  0, or -1. */
int gpuasm_shard_parse(const char *s, gpuasm_shard *sh);

/* gpuasm_reader_next(), keeping only this shard's templates: reads batches
 * until one keeps a read or the input ends.  Returns the reads kept (0 at
 * the end), or -1 with err.  Record numbers in later messages
 * (b->first_record) count from the batch's first input record. */
int gpuasm_shard_next(gpuasm_shard *sh, gpuasm_reader *r, gpuasm_batch *b, uint64_t max_bases,
                      char *err, size_t errlen);

#endif
