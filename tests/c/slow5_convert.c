/* SPDX-License-Identifier: MIT */
/* slow5_convert.c -- a test tool: rewrite a SLOW5/BLOW5 file as BLOW5
 * (zlib records and zlib signal, below) or SLOW5 text, with
 * slow5lib's own slow5_convert(), so the tests can give gpuasm-signal a
 * real BLOW5 file made from the real signals (tests/signal/README.md).
 *
 *   slow5_convert IN OUT.blow5|OUT.slow5 [zlib|svb-zd|none]
 * The third argument is the BLOW5 signal compression: zlib (the default
 * here: what Debian's slow5lib 0.7.0 decodes safely, configure checks
 * svb-zd), svb-zd (slow5tools' default) or none.
 * Exit status 0, or 1 with a message.
 */
#include <stdio.h>
#include <string.h>

#include <slow5/slow5.h>


/* slow5lib's slow5_convert() leaves its zlib compression states behind
 * (deflateInit2 inside the library, never ended): not ours, and this tool
 * only prepares test inputs, so its allocations are not LeakSanitizer's
 * business (make check-asan); gpuasm-signal itself is still checked.  Weak:
 * the symbol exists only in a sanitizer build. */
extern void __lsan_disable(void) __attribute__((weak));

int main(int argc, char **argv)
{
    enum slow5_press_method sig = SLOW5_COMPRESS_ZLIB;
    if (argc == 4 && !strcmp(argv[3], "svb-zd")) sig = SLOW5_COMPRESS_SVB_ZD;
    else if (argc == 4 && !strcmp(argv[3], "none")) sig = SLOW5_COMPRESS_NONE;
    else if (argc == 4 && strcmp(argv[3], "zlib")) argc = 0;
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: slow5_convert IN OUT.blow5|OUT.slow5 [zlib|svb-zd|none]\n");
        return 1;
    }
    const size_t n = strlen(argv[2]);
    const int binary = n > 6 && !strcmp(argv[2] + n - 6, ".blow5");
    if (__lsan_disable) __lsan_disable();
    slow5_set_log_level(SLOW5_LOG_ERR);
    slow5_file_t *in = slow5_open(argv[1], "r");
    if (!in) {
        fprintf(stderr, "slow5_convert: %s: slow5lib cannot open it\n", argv[1]);
        return 1;
    }
    FILE *out = fopen(argv[2], "wb");
    if (!out) {
        fprintf(stderr, "slow5_convert: %s: cannot open for writing\n", argv[2]);
        slow5_close(in);
        return 1;
    }
    slow5_press_method_t press = { binary ? SLOW5_COMPRESS_ZLIB : SLOW5_COMPRESS_NONE,
                                   binary ? sig : SLOW5_COMPRESS_NONE };
    const int rc = slow5_convert(in, out, binary ? SLOW5_FORMAT_BINARY : SLOW5_FORMAT_ASCII, press);
    slow5_close(in);
    if (fclose(out) != 0 || rc != 0) {
        fprintf(stderr, "slow5_convert: %s: conversion failed (%d)\n", argv[2], rc);
        return 1;
    }
    return 0;
}
