/* SPDX-License-Identifier: MIT */
/* write_guard.h -- a file written through a pipe and a copying thread, for
 * a writer that mishandles write errors.
 *
 * htslib 1.16's CRAM writer (also in 1.21) ignores some failed writes, and
 * when writing its end-of-file container fails it calls cram_close(), which
 * writes that container again: on a full disk sam_close() recurses until
 * the stack overflows (SIGSEGV; issue #12, tests/bats/faults.bats).
 * (Its BGZF writer, BAM and .gz, only leaks its handle when bgzf_close()
 * meets a failed flush: not guarded, the pipe costs a copy.)  Behind a guard the
 * writer writes into a pipe, which a thread of ours drains into the file:
 * the writer never sees an error, the thread keeps the first one (and
 * drains the rest), and the caller reports it.
 */
#ifndef GPUASM_WRITE_GUARD_H
#define GPUASM_WRITE_GUARD_H

#include <stddef.h>

typedef struct gpuasm_write_guard gpuasm_write_guard;

/* Open `path` for writing ("-": standard output) behind a guard; *name is
 * set to the pipe's name ("/dev/fd/N") for the writer to open.  Then call
 * gpuasm_write_guard_opened() once the writer opened it (or failed to).
 * 0, or -1 with "PATH: reason" in err. */
int gpuasm_write_guard_open(const char *path, gpuasm_write_guard **g, const char **name,
                            char *err, size_t errlen);

/* The writer has opened the pipe (or failed): drop our own end of it, so
 * that the copy ends when the writer closes. */
void gpuasm_write_guard_opened(gpuasm_write_guard *g);

/* The errno of the first failed write into the file so far, or 0 (from
 * any thread: the writer may stop early). */
int gpuasm_write_guard_error(gpuasm_write_guard *g);

/* After the writer closed: wait for the copy to end, close the file, free
 * g.  Returns 0 or the errno of the first failure (writing, closing). */
int gpuasm_write_guard_close(gpuasm_write_guard *g);

#endif
