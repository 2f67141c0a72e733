/* SPDX-License-Identifier: MIT */
/* signal_scan.c -- the signal mode's pair walk on the CPU, the checks every
 * backend shares, and the cell count (signal_mode.h).
 *
 * gpuasm_signal_cpu_scan() runs the CPU twin of opt->kernel's row
 * (registry.h) on every (read, reference) pair of a slice of reads, with
 * one column of scratch for the whole slice (no allocation per pair).
 */
#include <stdlib.h>

#include "kernels/registry.h"
#include "search/signal_mode.h"

int gpuasm_signal_check(const gpuasm_sigset *reads, const gpuasm_sigset *targets,
                        const gpuasm_signal_opt *opt, gpuasm_err *err)
{
    const gpuasm_kernel_desc *k = gpuasm_kernel_get(opt->kernel);
    if (!k || k->mode != GPUASM_MODE_SIGNAL || !k->signal)
        return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION, "kernel %s does not compare signals",
                              k ? k->name : "(none)");
    if (opt->cost != GPUASM_COST_ABS && opt->cost != GPUASM_COST_SQ)
        return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION, "unknown cost %d", (int)opt->cost);
    if (opt->variant != GPUASM_VARIANT_BEST && opt->variant != GPUASM_VARIANT_PAPER)
        return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION, "kernel %s has no variant %d", k->name,
                              (int)opt->variant);
    if (opt->segments < 0)
        return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION, "segments %d < 0", (int)opt->segments);
    for (int side = 0; side < 2; side++) {
        const gpuasm_sigset *s = side ? targets : reads;
        if (!s) continue;
        for (uint32_t i = 0; i < s->n; i++) {
            const uint64_t len = s->off[i + 1] - s->off[i];
            const uint32_t r = side ? GPUASM_NO_INDEX : i, t = side ? i : GPUASM_NO_INDEX;
            if (!side && len > GPUASM_DTW_MAX_QUERY) {
                gpuasm_err_set(err, GPUASM_ERR_TOO_LONG,
                               "kernel %s takes queries of at most %u samples; this read has %llu",
                               k->name, GPUASM_DTW_MAX_QUERY, (unsigned long long)len);
                return gpuasm_err_about(err, r, t, len, GPUASM_DTW_MAX_QUERY);
            }
            if (len > (uint64_t)INT32_MAX) {
                gpuasm_err_set(err, GPUASM_ERR_SEQ_TOO_LONG, "signal of %llu samples (at most %d)",
                               (unsigned long long)len, INT32_MAX);
                return gpuasm_err_about(err, r, t, len, (uint64_t)INT32_MAX);
            }
            const int16_t *v = s->val + s->off[i];
            for (uint64_t j = 0; j < len; j++) {
                if (v[j] < GPUASM_SIG_QMIN || v[j] > GPUASM_SIG_QMAX) {
                    gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION,
                                   "value %d at sample %llu is outside [%d, %d] (not quantised)",
                                   (int)v[j], (unsigned long long)j, GPUASM_SIG_QMIN,
                                   GPUASM_SIG_QMAX);
                    return gpuasm_err_about(err, r, t, 0, 0);
                }
            }
        }
    }
    return 0;
}

double gpuasm_signal_cells(const gpuasm_sigset *reads, const gpuasm_sigset *targets)
{
    /* Every pair is searched unless one side is empty: (sum m)(sum n). */
    return (double)reads->off[reads->n] * (double)targets->off[targets->n];
}

int gpuasm_signal_cpu_scan(const gpuasm_sigset *reads, uint32_t first, uint32_t count,
                           const gpuasm_sigset *targets, const gpuasm_signal_opt *opt,
                           gpuasm_adsm_hit *out, gpuasm_err *err)
{
    const gpuasm_kernel_desc *k = gpuasm_kernel_get(opt->kernel);
    if (!k || !k->signal)
        return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION, "kernel %d does not compare signals",
                              (int)opt->kernel);
    uint64_t maxm = 0;
    for (uint32_t r = first; r < first + count; r++) {
        const uint64_t m = reads->off[r + 1] - reads->off[r];
        if (m > GPUASM_DTW_MAX_QUERY) {
            gpuasm_err_set(err, GPUASM_ERR_TOO_LONG, "query of %llu samples (at most %u)",
                           (unsigned long long)m, GPUASM_DTW_MAX_QUERY);
            return gpuasm_err_about(err, r, GPUASM_NO_INDEX, m, GPUASM_DTW_MAX_QUERY);
        }
        if (m > maxm) maxm = m;
    }
    int32_t *work = malloc((size_t)(maxm ? maxm : 1) * sizeof(int32_t));
    if (!work) return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
    for (uint32_t r = first; r < first + count; r++) {
        const uint64_t m = reads->off[r + 1] - reads->off[r];
        for (uint32_t t = 0; t < targets->n; t++) {
            const uint64_t n = targets->off[t + 1] - targets->off[t];
            gpuasm_adsm_hit *h = &out[(size_t)(r - first) * targets->n + t];
            h->read = r;
            h->target = t;
            h->end = UINT32_MAX;
            h->cost = -1;
            if (m == 0 || n == 0) continue;
            int32_t c;
            uint64_t e;
            k->signal->cpu_pair(reads->val + reads->off[r], (uint32_t)m, targets->val + targets->off[t], n,
                           opt->cost, work, &c, &e, NULL, NULL);
            h->cost = c;
            h->end = (uint32_t)e;
        }
    }
    free(work);
    return 0;
}
