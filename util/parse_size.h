/* SPDX-License-Identifier: MIT */
/* parse_size.h -- the command lines' integer options (gpuasm-scan,
 * gpuasm-signal): one parser, so both take the same spellings. */
#ifndef GPUASM_PARSE_SIZE_H
#define GPUASM_PARSE_SIZE_H

#include <errno.h>
#include <stdlib.h>

/* s as a whole-string integer in [lo, hi], with an optional suffix:
 * suffixes 1: k/M/G = 10^3, 10^6, 10^9 (bases); suffixes 2: K/M/G/T =
 * 2^10 .. 2^40 (bytes, as samtools sort -m); 0: none.  0 and *out, or -1. */
static inline int gpuasm_parse_size(const char *s, long long lo, long long hi, int suffixes,
                                    long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno) return -1;
    if (suffixes && *end) {
        const long long k = suffixes == 2 ? 1024LL : 1000LL;
        long long mul = (*end == 'k' || *end == 'K') ? k
                      : (*end == 'm' || *end == 'M') ? k * k
                      : (*end == 'g' || *end == 'G') ? k * k * k
                      : (*end == 't' || *end == 'T') && suffixes == 2 ? k * k * k * k : 0;
        if (!mul || end[1] || v > hi / mul) return -1;
        v *= mul;
        end++;
    }
    if (*end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

#endif
