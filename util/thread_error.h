/* SPDX-License-Identifier: MIT */
/* thread_error.h -- words for a thread that would not start (issue #31:
 * "cannot start the reader thread" said neither why nor what to do).
 *
 * pthread_create() returns its reason (it sets no errno); htslib's thread
 * pool and compression threads return -1 and leave errno as the failed
 * pthread_create or allocation set it, or 0.  Either way the usual cause
 * is a limit: the user's process/thread count (ulimit -u), or memory for
 * the threads' stacks (ulimit -v, a container's memory limit).
 */
#ifndef GPUASM_THREAD_ERROR_H
#define GPUASM_THREAD_ERROR_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* "WHAT: REASON (...what to do)" into buf; rc: pthread_create's result, or
 * errno (0: unknown). */
static inline const char *gpuasm_thread_error(const char *what, int rc, char *buf, size_t n)
{
    snprintf(buf, n, "%s: %s (the system's limit on threads and processes, ulimit -u, or on "
             "memory for their stacks, ulimit -v; try fewer threads, -@)", what,
             rc ? strerror(rc) : "the system refused it");
    return buf;
}

#endif
