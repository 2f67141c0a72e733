/* SPDX-License-Identifier: MIT */
/* scan_errors.c -- see scan_errors.h. */
#include <stdio.h>

#include <htslib/sam.h>

#include "kernels/registry.h"
#include "cli/scan_errors.h"

void gpuasm_msg_engine_open(const char *device, const gpuasm_err *e, char *out, size_t outlen)
{
    if (e->status == GPUASM_ERR_BAD_OPTION && e->msg[0] == '\'')
        snprintf(out, outlen, "invalid --device %s", e->msg);   /* a bad device list */
    else if (e->status == GPUASM_ERR_BAD_OPTION || e->status == GPUASM_ERR_NOMEM)
        snprintf(out, outlen, "%s", e->msg);                     /* a knob, or memory */
    else
        snprintf(out, outlen, "--device %s: %s", device, e->msg);
}

void gpuasm_msg_scan(const char *reads_path, const gpuasm_batch *b, const gpuasm_targets *t,
                     const gpuasm_search_opt *opt, const gpuasm_err *e, char *out, size_t outlen)
{
    const int have_read = e->read != GPUASM_NO_INDEX && e->read < b->n;
    const int have_target = e->target != GPUASM_NO_INDEX && e->target < t->n;
    if (e->status == GPUASM_ERR_TOO_LONG && have_read && have_target) {
        snprintf(out, outlen, "%s: record %llu (%s): --kernel %s takes patterns of at most %llu "
                 "bases, but against target %s the pattern has %llu (use --kernel myers)",
                 reads_path, (unsigned long long)(b->first_record + e->read),
                 bam_get_qname(b->rec[e->read]), gpuasm_kernel_get(opt->kernel)->name,
                 (unsigned long long)e->limit, t->name[e->target], (unsigned long long)e->length);
    } else if (have_read) {
        snprintf(out, outlen, "%s: record %llu (%s): %s%s%s%s", reads_path,
                 (unsigned long long)(b->first_record + e->read), bam_get_qname(b->rec[e->read]),
                 have_target ? "against target " : "", have_target ? t->name[e->target] : "",
                 have_target ? ": " : "", e->msg);
    } else {
        snprintf(out, outlen, "%s: records %llu-%llu: %s", reads_path,
                 (unsigned long long)b->first_record,
                 (unsigned long long)(b->first_record + b->n - 1), e->msg);
    }
}
