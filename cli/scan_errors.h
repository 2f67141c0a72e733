/* SPDX-License-Identifier: MIT */
/* scan_errors.h -- what a failed search says to the user.
 *
 * The search layer (kernels/) reports failures as status codes with the
 * read and target they are about (search/status.h) and never names a
 * command-line option.  These functions turn them into gpuasm-scan's one
 * line: the option, the file and the record ("FILE: record N (NAME): ...").
 */
#ifndef GPUASM_SCAN_ERRORS_H
#define GPUASM_SCAN_ERRORS_H

#include <stddef.h>
#include "io/reads.h"
#include "search/search.h"
#include "search/status.h"
#include "io/targets.h"

/* gpuasm_engine_open() failed for --device `device`. */
void gpuasm_msg_engine_open(const char *device, const gpuasm_err *e, char *out, size_t outlen);

/* A scan of batch b (read from reads_path) against targets t failed. */
void gpuasm_msg_scan(const char *reads_path, const gpuasm_batch *b, const gpuasm_targets *t,
                     const gpuasm_search_opt *opt, const gpuasm_err *e, char *out, size_t outlen);

#endif
