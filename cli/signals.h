/* SPDX-License-Identifier: MIT */
/* signals.h -- the terminating signals of gpuasm-scan and gpuasm-signal
 * (issue #12; every catchable one since issue #31).
 *
 * SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGVTALRM, SIGUSR1, SIGUSR2
 * and SIGXCPU -- those not ignored when the program started, as under
 * nohup -- are blocked in every thread and taken by one watcher thread
 * with sigwait(), so no handler runs inside htslib or a lock.  The first
 * one stops the run: with an interrupt function (gpuasm-scan's: every
 * stage notices it between batches, the outputs are removed as for any
 * failure) the run ends and main() dies of the same signal
 * (gpuasm_signals_die), so that the shell sees 128 + N as it would for
 * samtools, which the signal kills outright; should the run not end
 * within `grace_s` (a read blocked on a FIFO without a writer, a long
 * scan), or a second signal come, or without an interrupt function
 * (gpuasm-signal), the watcher removes the temporary output files itself
 * (util/output_file.h) and the signal kills the process at once.
 *
 * SIGPIPE and SIGXFSZ go to the thread whose write raised them, which a
 * watcher cannot take: they are blocked too (where not ignored), so the
 * write fails with EPIPE or EFBIG and the run fails as for any failed
 * write, its temporary files removed.  Then a SIGPIPE at its default
 * action (standard output a pipe whose reader went away, `| head`) still
 * ends the process as it would have: gpuasm_signals_after_failure() dies
 * of it, with no message of ours, as samtools does (htslib's BGZF writer,
 * BAM and SAM.gz, has said its write failed by then).  Standard output is
 * a pipe without a reader when a copy of it taken at the start reports
 * POLLERR: the run has closed descriptor 1 itself by then. */
#ifndef GPUASM_SIGNALS_H
#define GPUASM_SIGNALS_H

/* Start the watcher (before any other thread exists: threads inherit the
 * mask).  prog prefixes its one message; interrupt(why) stops the run,
 * or NULL.  0, or -1 (no watcher: the signals keep their default
 * actions). */
int gpuasm_signals_watch(const char *prog, void (*interrupt)(const char *why), int grace_s);

/* The signal that stopped the run, or 0. */
int gpuasm_signals_stopped(void);

/* After an interrupted run: die of sig (its default action). */
void gpuasm_signals_die(int sig);

/* After a failed run, its outputs removed: die of SIGPIPE when it was at
 * its default action and standard output is a pipe without a reader;
 * else return. */
void gpuasm_signals_after_failure(void);

#endif
