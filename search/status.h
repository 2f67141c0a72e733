/* SPDX-License-Identifier: MIT */
/* status.h -- how the search layer (kernels/) says that something failed.
 *
 * Every function of kernels/ that can fail returns 0 or a negative
 * gpuasm_status and fills a gpuasm_err: the code, the read and target the
 * failure is about (when it is about one), the length and limit involved,
 * and one line of detail (CUDA's own error string included).  Like edlib's
 * status codes and htslib's return values, the caller decides what to say:
 * the messages here never name command-line options; cli/ turns a code
 * and its indices into a message that names the flag, the file and the
 * record (cli/scan_errors.c).
 */
#ifndef GPUASM_STATUS_H
#define GPUASM_STATUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gpuasm_status {
    GPUASM_OK = 0,
    GPUASM_ERR_NOMEM = -1,        /* host or device memory exhausted */
    GPUASM_ERR_TOO_LONG = -2,     /* a pattern is longer than the kernel takes:
                                   * read, target, length = its m, limit = the kernel's */
    GPUASM_ERR_SEQ_TOO_LONG = -3, /* a sequence longer than the backend's positions
                                   * hold: read or target, length, limit */
    GPUASM_ERR_CUDA = -4,         /* a CUDA runtime call failed (msg: call and CUDA's string) */
    GPUASM_ERR_NO_DEVICE = -5,    /* no usable CUDA device, a device number that does
                                   * not exist, or a build without CUDA */
    GPUASM_ERR_BAD_OPTION = -6,   /* a value the search does not take (an unknown kernel,
                                   * a kernel that lacks the alphabet, a bad device list) */
    GPUASM_ERR_THREAD = -7,       /* a thread could not be started */
    GPUASM_ERR_INTERNAL = -8,     /* a broken invariant (a bug): msg says which */
    GPUASM_ERR_HIT_LIMIT = -9     /* the scan found more end hits than the output's limit
                                   * (gpuasm_hits.limit): length = hits found so far (at
                                   * least), limit = the limit; scan fewer reads at a time
                                   * (or keep the first gpuasm_hits.scanned reads' hits) */
};

/* No read / no target: the failure is not about one. */
#define GPUASM_NO_INDEX UINT32_MAX

typedef struct gpuasm_err {
    int32_t status;     /* enum gpuasm_status */
    uint32_t read;      /* 0-based index in the batch of the read concerned, or GPUASM_NO_INDEX */
    uint32_t target;    /* 0-based index of the target concerned, or GPUASM_NO_INDEX */
    uint64_t length;    /* the offending length in bases (TOO_LONG, SEQ_TOO_LONG), else 0 */
    uint64_t limit;     /* the limit it broke, else 0 */
    char msg[480];      /* one line of detail, never empty after a failure */
} gpuasm_err;

/* Record a failure: status, no indices, msg = printf(fmt, ...).  Returns
 * status, so that `return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "...")`
 * reads naturally.  err may be NULL (the status is still returned). */
int gpuasm_err_set(gpuasm_err *err, int status, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Attach the read / target / length / limit a failure is about; returns
 * err->status. */
int gpuasm_err_about(gpuasm_err *err, uint32_t read, uint32_t target, uint64_t length,
                     uint64_t limit);

/* "out of memory", "pattern too long", ... for a status; "unknown status"
 * for anything else. */
const char *gpuasm_status_str(int status);

#ifdef __cplusplus
}
#endif
#endif
