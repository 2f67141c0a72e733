/* SPDX-License-Identifier: MIT */
/* status.c -- see status.h. */
#include <stdarg.h>
#include <stdio.h>

#include "search/status.h"

int gpuasm_err_set(gpuasm_err *err, int status, const char *fmt, ...)
{
    if (!err) return status;
    err->status = status;
    err->read = err->target = GPUASM_NO_INDEX;
    err->length = err->limit = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    if (!err->msg[0]) snprintf(err->msg, sizeof err->msg, "%s", gpuasm_status_str(status));
    return status;
}

int gpuasm_err_about(gpuasm_err *err, uint32_t read, uint32_t target, uint64_t length,
                     uint64_t limit)
{
    err->read = read;
    err->target = target;
    err->length = length;
    err->limit = limit;
    return err->status;
}

const char *gpuasm_status_str(int status)
{
    switch (status) {
    case GPUASM_OK: return "success";
    case GPUASM_ERR_NOMEM: return "out of memory";
    case GPUASM_ERR_TOO_LONG: return "pattern longer than the kernel takes";
    case GPUASM_ERR_SEQ_TOO_LONG: return "sequence too long";
    case GPUASM_ERR_CUDA: return "CUDA error";
    case GPUASM_ERR_NO_DEVICE: return "no usable CUDA device";
    case GPUASM_ERR_BAD_OPTION: return "bad search option";
    case GPUASM_ERR_THREAD: return "cannot start a thread";
    case GPUASM_ERR_INTERNAL: return "internal error";
    case GPUASM_ERR_HIT_LIMIT: return "more hits than the output may hold";
    default: return "unknown status";
    }
}
