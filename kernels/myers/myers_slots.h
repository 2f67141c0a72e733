/* SPDX-License-Identifier: MIT */
/* myers_slots.h -- the myers kernel's scratch slots (kernels/cuda_kit.cuh:
 * kit_grow): its launcher's (myers_cuda.cu) and, on the byte alphabet,
 * myers_byte_cuda.cu's, whose batches run none of the others.  C++ for .cu
 * files only. */
#ifndef GPUASM_MYERS_SLOTS_H
#define GPUASM_MYERS_SLOTS_H

#include "kernels/cuda_kit.cuh"

enum myers_slot {
    SLOT_CNT,                  /* per-read (TP) and per-pair enumerations: counts */
    SLOT_OFF,                  /* their exclusive sums */
    SLOT_CUB,                  /* CUB's temporary storage */
    SLOT_GLOB,                 /* global scratch for long patterns */
    SLOT_PLAN,                 /* the uploaded plan */
    SLOT_LONG,                 /* LONG: the items' records */
    SLOT_LONG_OFF,             /* LONG: item offsets counted on the device, one run per class */
    SLOT_LONG_QUEUE,           /* LONG: the queues' counters and their item orders */
    MYERS_N_SLOTS,
    SLOT_BYTE_PLAN = SLOT_CNT  /* the byte alphabet's plan (myers_byte_cuda.cu) */
};
static_assert((int)MYERS_N_SLOTS <= (int)KIT_SCRATCH_SLOTS, "the myers kernel's scratch slots");

#endif
