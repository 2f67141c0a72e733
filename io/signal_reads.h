/* SPDX-License-Identifier: MIT */
/* signal_reads.h -- stream raw signals into batches for the signal mode
 * (search/signal_mode.h).
 *
 * Formats (told by the file's first bytes, not its name):
 *   SLOW5 / BLOW5  ("#slow5_version" / "BLOW5\1") through slow5lib, when
 *                  gpuasm was built with it (HAVE_SLOW5): each record's raw
 *                  ADC values become pA as slow5lib documents it,
 *                      pA = (raw + offset) x range / digitisation;
 *   text           any numeric series (plain or gzip, "-" for stdin), one of
 *                  two layouts, decided by the first data line:
 *                    - one value per line: the whole file is one signal,
 *                      named after the file (its base name up to the first
 *                      '.'; "stdin" for "-");
 *                    - one signal per line: "[NAME<TAB or space>]v1 v2 ..."
 *                      with values separated by spaces, tabs or commas; an
 *                      unnamed line i is named "signalI" (1-based).
 *                  Lines starting with '#' and empty lines are skipped.
 *                  Values are taken as they are (pA or any unit).
 * A read's window is samples [skip, skip + prefix) of it (prefix 0: to the
 * end), cut at its end; the window is normalised on its own and quantised
 * (signal_norm.h).  Errors name the file and the record:
 * "reads.txt: record 3 (r3): value 'x1' is not a number".
 */
#ifndef GPUASM_SIGNAL_READS_H
#define GPUASM_SIGNAL_READS_H

#include <stddef.h>
#include <stdint.h>

#include "search/signal_mode.h"

/* How a read becomes a query. */
typedef struct gpuasm_sigread_opt {
    uint64_t skip;         /* samples dropped at the start of every read */
    uint64_t prefix;       /* samples used after them; 0: all */
    int norm;              /* enum gpuasm_norm */
} gpuasm_sigread_opt;

typedef struct gpuasm_sigbatch {
    uint32_t n;            /* reads in the batch */
    char **name;           /* [n] read ids */
    uint64_t *len;         /* [n] samples of the whole read */
    uint64_t *qstart;      /* [n] the window [qstart, qend), 0-based samples of the read */
    uint64_t *qend;
    uint64_t *off;         /* [n + 1] offsets into val */
    int16_t *val;          /* the windows, normalised and quantised */
    gpuasm_sigset set;     /* view of off/val for the kernels */
    uint64_t first_record; /* 1-based record number of read 0 */
    uint64_t clamped;      /* samples clamped by the quantiser (signal_norm.h) */
    uint8_t *flat;         /* [n] 1: the window has no variation after normalisation (all
                            * its quantised values equal: a constant signal, or one
                            * sample): it is searched and reported, never passed */
    uint32_t n_flat;       /* reads of the batch with flat[] set */
    /* capacities (private) */
    size_t m_rec, m_val, m_f, m_flat;
    float *f;              /* scratch: one window in pA, and its normalisation work */
} gpuasm_sigbatch;

typedef struct gpuasm_sigreader gpuasm_sigreader;

/* Open a signal file.  Returns 0, or -1 with "FILE: reason" in err (cannot
 * open; SLOW5/BLOW5 in a build without slow5lib; slow5lib's refusal). */
int gpuasm_sigreader_open(const char *path, gpuasm_sigreader **out, char *err, size_t errlen);

/* "SLOW5", "BLOW5" or "text". */
const char *gpuasm_sigreader_format(const gpuasm_sigreader *r);

/* Reads read so far. */
uint64_t gpuasm_sigreader_count(const gpuasm_sigreader *r);

/* Fill b with the next reads: at least one, then while their windows hold
 * fewer than max_samples samples.  Returns the number of reads (0 at the
 * end), or -1 with "FILE: record N (NAME): reason" in err: a malformed
 * record or line, a value that is not a finite number, a record with no
 * samples at all, a value outside the range with GPUASM_NORM_NONE, out of
 * memory. */
int gpuasm_sigreader_next(gpuasm_sigreader *r, const gpuasm_sigread_opt *o, gpuasm_sigbatch *b,
                          uint64_t max_samples, char *err, size_t errlen);

void gpuasm_sigreader_close(gpuasm_sigreader *r);

void gpuasm_sigbatch_init(gpuasm_sigbatch *b);
void gpuasm_sigbatch_free(gpuasm_sigbatch *b);

/* Does this build read SLOW5/BLOW5 (slow5lib)? */
int gpuasm_have_slow5(void);

#endif
