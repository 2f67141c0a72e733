/* SPDX-License-Identifier: MIT */
/* auto_move.h -- --device auto starts on the CPU and moves to CUDA once it
 * is ready (issue #14, "Start-up").
 *
 * Starting CUDA (driver, context, modules, the targets' upload) costs a few
 * hundred ms, longer than the CPU takes for a small input.  So under
 * --device auto the run scans on a CPU engine at once, while this module
 * opens the CUDA engine and uploads the targets in a thread of its own;
 * the pipeline (pipeline.c) polls it between CPU scan calls and sends the
 * rest of the input to CUDA from the first call after it is ready.  An
 * input finished before that never waits for CUDA.  Both engines give the
 * same hits (backend.h), so the bytes do not depend on when, or whether,
 * the move happens.
 *
 * --device cuda uses the same move to hide CUDA's start (issue #30;
 * GPUASM_CUDA_CPU_START): opened at once (not deferred), the CPU scanning
 * only until it is ready, and without the fallback: its failure is the
 * run's (cli/auto_device.c, gpuasm_pipe_cuda_outcome).
 *
 * Ending while CUDA still starts: gpuasm_auto_move_end() then leaves the
 * thread running (detached; it closes its engine and frees the state when
 * its open returns) and gpuasm_auto_move_pending() says so.  The thread
 * touches nothing of the run's (the targets are only used in a state that
 * gpuasm_auto_move_end() waits for), so the run's memory may be freed.
 * What is not safe is exit(): its atexit handlers (the CUDA runtime's
 * teardown among them) would run while the thread is inside cuInit, so the
 * program ends such a process with fflush(NULL) + _exit() after every
 * output is closed (cli/gpuasm-scan.c): the kernel then ends the thread
 * and frees its half-made context, as when the process is killed.
 */
#ifndef GPUASM_AUTO_MOVE_H
#define GPUASM_AUTO_MOVE_H

#include "engine/engine.h"
#include "search/search.h"
#include "search/status.h"

typedef struct gpuasm_auto_move gpuasm_auto_move;

/* Start opening device (a list for gpuasm_engine_open: "cuda:all"; the
 * tests give "cpu", a second CPU engine standing in for CUDA) in a thread,
 * after delay_ms milliseconds (a test knob: a slow start).  t0: the run's
 * start (gpuasm_now_s()), the origin of the ready time.  deferred: make the
 * state only; the thread starts at gpuasm_auto_move_go() (the pipeline
 * calls it once the input proves large), and a run that never calls it
 * never touches CUDA.  0, or -1 when no thread could start (then nothing
 * was opened). */
int gpuasm_auto_move_start(const char *device, int n_threads, int delay_ms, double t0, int deferred,
                           gpuasm_auto_move **out);

/* Is the move made with deferred = 1 still waiting for gpuasm_auto_move_go()? */
int gpuasm_auto_move_deferred(gpuasm_auto_move *m);

/* Start the deferred open (a no-op otherwise).  0, or -1 when no thread
 * could start: the move has then failed (poll says so, why says why). */
int gpuasm_auto_move_go(gpuasm_auto_move *m);

/* The targets every scan will search (kept by pointer: they must stay
 * until gpuasm_auto_move_end()); the thread gives them to the engine once
 * it is open. */
void gpuasm_auto_move_targets(gpuasm_auto_move *m, const gpuasm_seqset *targets);

/* The engine, when it is open and has the targets, else NULL.  wait: block
 * until it is ready or has failed (the tests' move at a chosen call).
 * *failed is set to 1 when it failed (why: gpuasm_auto_move_why). */
gpuasm_engine *gpuasm_auto_move_poll(gpuasm_auto_move *m, int wait, int *failed);

/* Seconds from t0 to the engine's being ready, or -1 while it is not. */
double gpuasm_auto_move_ready_s(gpuasm_auto_move *m);

/* Why opening failed (status 0 while it did not), copied into *why. */
void gpuasm_auto_move_why(gpuasm_auto_move *m, gpuasm_err *why);

/* The run ended (every scan is over): close the engine, or leave a thread
 * still inside its open running on its own (see the top of this file).
 * Waits while the thread gives the engine the targets (a bounded upload),
 * so the targets may be freed after this.  NULL is a no-op. */
void gpuasm_auto_move_end(gpuasm_auto_move *m);

/* Threads left running by gpuasm_auto_move_end() that have not finished:
 * the process must end with _exit() (after fflush(NULL)), not exit(). */
int gpuasm_auto_move_pending(void);

#endif
