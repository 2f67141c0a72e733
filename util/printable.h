/* SPDX-License-Identifier: MIT */
/* printable.h -- names from input files as error messages may show them.
 *
 * Read and target names come from the user's files and may hold anything
 * (issue #12): control bytes (an escape sequence would rewrite the user's
 * terminal), bytes that are not UTF-8, or a whole 10 Mb line.  Every
 * message that quotes a name goes through gpuasm_printable().
 */
#ifndef GPUASM_PRINTABLE_H
#define GPUASM_PRINTABLE_H

#include <stddef.h>

/* Longest name shown, in bytes of the name (then "..." and the length). */
#define GPUASM_PRINTABLE_MAX 64
/* A buffer that always holds the result: every byte may become \xHH (4),
 * plus the "...(N bytes)" tail. */
#define GPUASM_PRINTABLE_BUF (4 * GPUASM_PRINTABLE_MAX + 40)

/* s as it may be printed, into buf (of buflen bytes, ideally
 * GPUASM_PRINTABLE_BUF): control bytes (< 0x20, 0x7f), a backslash and
 * bytes that are not part of a valid UTF-8 sequence become \xHH (\\ for
 * the backslash), so the output is valid UTF-8 with no control bytes; a
 * name longer than GPUASM_PRINTABLE_MAX bytes is cut there and ends with
 * "...(N bytes)".  Returns buf.  s NULL gives "(null)". */
const char *gpuasm_printable(const char *s, char *buf, size_t buflen);

#endif
