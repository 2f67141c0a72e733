/* parse_size.h -- the command lines' integer options (gpuasm-scan,
 * gpuasm-signal): one parser, so both take the same spellings. */
#ifndef GPUASM_PARSE_SIZE_H
#define GPUASM_PARSE_SIZE_H

#include <errno.h>
#include <stdlib.h>

/* s as a whole-string integer in [lo, hi], with an optional k/M/G suffix
 * (10^3, 10^6, 10^9) when `suffixes`.  0 and *out, or -1. */
static inline int gpuasm_parse_size(const char *s, long long lo, long long hi, int suffixes,
                                    long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno) return -1;
    if (suffixes && *end) {
        long long mul = (*end == 'k' || *end == 'K') ? 1000LL
                      : (*end == 'm' || *end == 'M') ? 1000000LL
                      : (*end == 'g' || *end == 'G') ? 1000000000LL : 0;
        if (!mul || end[1] || v > hi / mul) return -1;
        v *= mul;
        end++;
    }
    if (*end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

#endif
