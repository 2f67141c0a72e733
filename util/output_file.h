/* SPDX-License-Identifier: MIT */
/* output_file.h -- the files a run writes (-o, --stats): nothing that
 * looks like a result unless the run succeeded, and never over an input.
 *
 * Issue #12.  A regular output file is written through a temporary file in
 * the same directory (".NAME.gpuasm-PID-XXXXXX", hidden), renamed over NAME
 * only when the run succeeded (rename(2) within one file system is atomic:
 * NAME is either the old file or the whole new one).  A failed, interrupted
 * (any terminating signal the process can catch: cli/signals.h) or killed
 * run leaves no NAME of its own; a SIGKILL leaves the hidden temporary
 * file, nothing with NAME, and the next run that writes into that
 * directory removes it (its PID no longer runs; issue #31).  An existing
 * NAME the user may not write is refused ("Permission denied"), as
 * samtools' open refuses it (issue #31).
 *   - NAME a symbolic link: the file it points to is replaced (the link
 *     stays, as when samtools writes through it);
 *   - NAME not a regular file (/dev/null, /dev/stdout, a FIFO, a terminal):
 *     written directly, nothing renamed or removed;
 *   - a directory where no temporary file can be made (read-only, while
 *     NAME itself is writable): written directly, and removed on failure;
 *   - the new file gets NAME's permission bits when NAME existed, else
 *     0666 less the umask, as any new file; hard links to the old NAME keep
 *     the old contents (as with sed -i or gzip).
 */
#ifndef GPUASM_OUTPUT_FILE_H
#define GPUASM_OUTPUT_FILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct gpuasm_outfile {
    char *path;      /* as given (messages) */
    char *final;     /* where the result goes: path, or a symbolic link's target */
    char *tmp;       /* the temporary file written instead, or NULL: written directly */
    int regular;     /* final is (or will be) a regular file */
    int mode;        /* permission bits the result gets (when tmp) */
} gpuasm_outfile;

/* Prepare to write `path` ("-" or NULL: standard output, nothing to do).
 * Afterwards gpuasm_outfile_name() is the name to open.  0, or -1 with
 * "PATH: reason" in err. */
int gpuasm_outfile_begin(gpuasm_outfile *f, const char *path, char *err, size_t errlen);

/* The file to open for writing: the temporary file, path itself, or "-". */
const char *gpuasm_outfile_name(const gpuasm_outfile *f);

/* The run succeeded and the file is closed: move it into place.  0, or -1
 * with err (the temporary file is removed then). */
int gpuasm_outfile_commit(gpuasm_outfile *f, char *err, size_t errlen);

/* The run failed: remove what was written (the temporary file; a regular
 * file written directly), nothing else.  Safe to call twice, and after
 * commit (then it does nothing). */
void gpuasm_outfile_abort(gpuasm_outfile *f);

/* Free f's memory (after commit or abort). */
void gpuasm_outfile_free(gpuasm_outfile *f);

/* Remove every temporary file not yet committed or aborted, from any
 * thread (the signal watcher of gpuasm-scan, when a run does not stop in
 * time).  Never blocks on a lock another thread could hold forever. */
void gpuasm_outfiles_remove_pending(void);

/* gpuasm_outfile_begin(f, path) and the file to write as a stdio stream:
 * the temporary file, path itself, or a stream of its own on standard
 * output ("-" or NULL).  NULL with "PATH: reason" in err. */
FILE *gpuasm_outfile_open(gpuasm_outfile *f, const char *path, char *err, size_t errlen);

/* Remove the result a committed output left at `path` (the file a link
 * points to; only a regular file: "-", NULL, a device or a pipe are left
 * alone), when a later step of an otherwise successful run failed (a
 * --stats file that could not be moved into place). */
void gpuasm_output_remove_result(const char *path);

/* Is the file `out` (an output about to be written; NULL or "-": standard
 * output, checked through descriptor 1) the same file (device and inode,
 * links followed) as one of the inputs in[0..n) (NULL entries skipped;
 * "-": standard input)?  Returns the index of that input, or -1. */
int gpuasm_output_is_input(const char *out, const char *const *in, size_t n);

/* The outputs of a run, checked before it starts: out (-o; NULL or "-":
 * standard output) carries the `noun` output ("SAM", "PAF"), stats
 * (--stats, or NULL) its statistics; in[0..n_in) the inputs (NULL entries
 * skipped), in_what[i] what each is ("the reads file").  Refused, with one
 * line in err and -1: an output that is an input (the same file, through
 * links too; issue #12: "-o r.fq r.fq" deleted the reads), --stats - while
 * standard output carries the output, --stats naming the output's file.
 * Else 0. */
int gpuasm_outputs_check(const char *out, const char *stats, const char *noun,
                         const char *const *in, const char *const *in_what, size_t n_in,
                         char *err, size_t errlen);

/* No two outputs of one run may be the same file (issue #31: -o equal to
 * --matched, --stats equal to --report, ... one silently replaced the
 * other): path[0..n) as given (NULL entries skipped; "-" is standard
 * output, which one output at most may take), flag[i] the option that
 * named it.  Two names are the same file when they are the same existing
 * file (device and inode, links followed) or, for files not yet there,
 * the same name in the same directory ("out.sam", "./out.sam" and
 * "dir/../out.sam" alike); "-" is the file standard output is redirected
 * to.  Refused with "FLAG PATH: also given to FLAG2 (PATH2): ..." in err
 * and -1; else 0. */
int gpuasm_outputs_distinct(const char *const *path, const char *const *flag, size_t n, char *err,
                            size_t errlen);

#endif
