/* SPDX-License-Identifier: MIT */
/* slow5_check.h -- SLOW5 text and BLOW5 bytes checked before slow5lib
 * parses them (issue #31).
 *
 * slow5lib 0.7.0 (Debian's) trusts the sizes a file states: a SLOW5 text
 * record whose len_raw_signal is smaller than its sample count makes it
 * write past its buffer (valgrind: thousands of invalid writes, then
 * "free(): corrupted unsorted chunks" or SIGSEGV); a BLOW5 record whose
 * read id length, signal length or record size is forged makes it read
 * past its buffer or ask malloc for gigabytes; a header's num_read_groups
 * of 4 billion makes it allocate a hash map for each before it looks
 * further.  slow5lib's own converter finds some of these only after the
 * damage.  So signal_reads.c reads the header and every record's bytes
 * itself, checks them here, and hands slow5lib only bytes whose sizes
 * agree (slow5_rec_parse on the record's main columns; the auxiliary
 * columns, which gpuasm-signal does not use, are checked for presence
 * and never parsed).
 *
 * Each function returns 0, or -1 with what is wrong in why (no file or
 * record name: the caller adds them), worded for a user.
 */
#ifndef GPUASM_SLOW5_CHECK_H
#define GPUASM_SLOW5_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* Limits no real file comes near, so that a forged number is refused
 * before anything is allocated for it. */
#define GPUASM_SLOW5_MAX_READ_GROUPS 65536u
#define GPUASM_SLOW5_MAX_HEADER (64u << 20)          /* bytes of header text */
#define GPUASM_SLOW5_MAX_RECORD ((uint64_t)1 << 30)  /* bytes of one record, decompressed */

/* BLOW5's fixed part: magic "BLOW5\1", version (3 bytes), record
 * compression, num_read_groups (uint32, little-endian), signal
 * compression, padding to byte 64, then the header text's size (uint32). */
#define GPUASM_BLOW5_FIXED 68u
#define GPUASM_SLOW5_MAX_AUX 256u

typedef struct gpuasm_slow5_header {
    int binary;                /* BLOW5 */
    uint8_t version[3];
    uint32_t read_groups;
    uint32_t aux;              /* auxiliary columns after the 8 main ones */
    uint8_t record_press;      /* BLOW5: 0 none, 1 zlib, 2 zstd */
    uint8_t signal_press;      /* BLOW5: 0 none, 1 svb-zd */
    uint32_t text_size;        /* BLOW5: bytes of header text after the fixed part */
    uint8_t aux_size[GPUASM_SLOW5_MAX_AUX];   /* bytes of one value of each auxiliary column */
    uint8_t aux_array[GPUASM_SLOW5_MAX_AUX];  /* ... and whether it is an array */
} gpuasm_slow5_header;

/* BLOW5's fixed part (GPUASM_BLOW5_FIXED bytes) into h. */
int gpuasm_blow5_check_fixed(const uint8_t *b, size_t n, gpuasm_slow5_header *h, char *why, size_t whylen);

/* The header text: for SLOW5 from its first line ("#slow5_version") to
 * the column names ("#read_id..."), for BLOW5 the text_size bytes after
 * the fixed part (h from gpuasm_blow5_check_fixed).  Every line ends in
 * '\n'; the version, read groups, attribute lines ("@NAME" and one value
 * per read group), the types line and the column names are checked, and
 * the 8 main columns must be slow5lib's, with as many auxiliary types as
 * names.  Fills h (for SLOW5, version, read_groups and aux). */
int gpuasm_slow5_check_header_text(const char *t, size_t n, gpuasm_slow5_header *h, char *why, size_t whylen);

/* One SLOW5 text record (its line without the '\n', NUL-terminated at
 * s[n]): 8 + h->aux columns, a read id, a len_raw_signal that is a
 * number and equals the number of values in raw_signal.  *main_len:
 * bytes of the 8 main columns (where the caller cuts the line for
 * slow5lib); *samples: len_raw_signal; *id, *id_len: the read id. */
int gpuasm_slow5_check_text_record(const char *s, size_t n, const gpuasm_slow5_header *h,
                                   size_t *main_len, uint64_t *samples, char *why, size_t whylen);

/* The zstd frame at b (a BLOW5 record compressed with zstd): its stated
 * decompressed size, which must be there and at most
 * GPUASM_SLOW5_MAX_RECORD (slow5lib mallocs what it says). */
int gpuasm_blow5_check_zstd(const uint8_t *b, size_t n, char *why, size_t whylen);

/* One BLOW5 record after record decompression: read id length and bytes,
 * the main fields, len_raw_signal and the signal's bytes (len x 2 bytes,
 * or with svb-zd a stream whose own sizes agree), all inside n, and then
 * the h->aux auxiliary fields (present: arrays' lengths inside n).
 * *main_len as above; *samples: the samples when the sizes say it
 * (no signal compression, svb-zd), else UINT64_MAX (zlib, zstd: what
 * slow5lib decompresses). */
int gpuasm_blow5_check_record(const uint8_t *b, size_t n, const gpuasm_slow5_header *h,
                              size_t *main_len, uint64_t *samples, char *why, size_t whylen);

#endif
