/* SPDX-License-Identifier: MIT */
/* auto_device.h -- what --device auto opens: the CPU for an input too
 * small to pay for starting CUDA, else "auto" (the CPU at once and every
 * CUDA device once it has started: auto_move.h; the CPU where there is
 * none).
 *
 * Starting CUDA (driver, context, modules) costs a few hundred ms, which
 * the CPU backend beats on small inputs (issue #14: 1,000-20,000 reads in
 * 0.01 s on the CPU, 0.34 s through CUDA).  The decision is taken before
 * anything is opened, from the file sizes (stat): the cells of the search
 * (2 strands x read bases x target bases), estimated from the bytes, are
 * compared with GPUASM_AUTO_CPU_CELLS per CPU thread (search/settings.h).
 * Standard input or any file whose size is unknown (a pipe) keeps "auto".
 * Both backends give the same bytes, so the decision only moves time.
 */
#ifndef GPUASM_AUTO_DEVICE_H
#define GPUASM_AUTO_DEVICE_H

#include <stddef.h>
#include "cli/pipeline.h"

/* The device list to open for o (o->device itself unless it is "auto" and
 * the input is small: then "cpu", with the reason in why, else why "").
 * -1 with why when a knob is malformed. */
int gpuasm_auto_device(const gpuasm_scan_opt *o, const char **device, char *why, size_t whylen);

/* The read bases of o's reads file(s), estimated from their sizes as
 * above (FASTQ ~2.2 bytes a base, compressed ~3x fewer bytes), or -1 when
 * unknown (standard input, a pipe).  What auto_move's start waits for:
 * pipeline.c's auto_proved_large(). */
double gpuasm_auto_est_read_bases(const gpuasm_scan_opt *o);

#endif
