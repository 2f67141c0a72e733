/* SPDX-License-Identifier: MIT */
/* row.h -- what a kernel's row file (kernels/NAME/NAME_row.c) includes:
 * the table's types (registry.h), the CPU sides (twin.h) and, in a CUDA
 * build, the launchers (cuda_launch.h).  GPUASM_CUDA_SIDE(launch, free)
 * is a row's CUDA column: the launcher and its state's free in a CUDA
 * build, none without CUDA (the backends then run the CPU twin).  The one
 * place in kernels/ that knows whether CUDA was compiled in; the engine's
 * gpuasm_backend_cuda_ops() is the other (engine/engine.c).  Include it
 * from row files only, first. */
#ifndef GPUASM_ROW_H
#define GPUASM_ROW_H

#include <stddef.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "kernels/registry.h"
#include "kernels/twin.h"

#ifdef HAVE_CUDA
#include "kernels/cuda_launch.h"
#define GPUASM_CUDA_SIDE(launch, free_state) { launch, free_state }
#else
#define GPUASM_CUDA_SIDE(launch, free_state) { NULL, NULL }
#endif

#endif
