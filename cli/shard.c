/* SPDX-License-Identifier: MIT */
/* shard.c -- --shard I/N (see shard.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/records.h"
#include "cli/shard.h"

int gpuasm_shard_parse(const char *s, gpuasm_shard *sh)
{
    char *end;
    unsigned long i = strtoul(s, &end, 10);
    if (end == s || *end != '/' || s[0] == '-' || s[0] == '+') return -1;
    const char *t = end + 1;
    unsigned long n = strtoul(t, &end, 10);
    if (end == t || *end || t[0] == '-' || t[0] == '+') return -1;
    if (n < 1 || n > 1000000 || i < 1 || i > n) return -1;
    sh->i = (uint32_t)i;
    sh->n = (uint32_t)n;
    sh->templates = 0;
    return 0;
}

/* Drop the reads of other shards from b, in place: records swapped (not
 * freed: the batch reuses them), codes moved down. */
static void keep_shard(gpuasm_shard *sh, gpuasm_batch *b)
{
    uint32_t w = 0;
    uint64_t at = 0;   /* code bases kept so far */
    for (uint32_t r = 0; r < b->n;) {
        const uint32_t k = r + 1 < b->n && gpuasm_adjacent_mates(b->rec[r], b->rec[r + 1]) ? 2 : 1;
        if (sh->templates++ % sh->n == sh->i - 1) {
            for (uint32_t q = 0; q < k; q++) {
                const uint64_t o0 = b->off[r + q], len = b->off[r + q + 1] - o0;
                if (w != r + q) {
                    bam1_t *tmp = b->rec[w];
                    b->rec[w] = b->rec[r + q];
                    b->rec[r + q] = tmp;
                }
                /* Codes exist only once encoded (gpuasm_batch_encode runs
                 * on the scan threads, after this). */
                if (b->encoded && at != o0) memmove(b->code + at, b->code + o0, len);
                b->off[w] = at;
                at += len;
                w++;
            }
        }
        r += k;
    }
    b->off[w] = at;
    b->n = w;
    b->set.n = w;
}

int gpuasm_shard_next(gpuasm_shard *sh, gpuasm_reader *r, gpuasm_batch *b, uint64_t max_bases,
                      char *err, size_t errlen)
{
    for (;;) {
        int nr = gpuasm_reader_next(r, b, max_bases, err, errlen);
        if (nr <= 0 || sh->n <= 1) return nr;
        keep_shard(sh, b);
        if (b->n > 0) return (int)b->n;
    }
}
