/* SPDX-License-Identifier: MIT */
/* signal_report.c -- PAF or TSV lines of gpuasm-signal (see
 * signal_report.h). */
#include <math.h>
#include <stdio.h>

#include "io/signal_report.h"

int gpuasm_sigreport_pass(const gpuasm_sigreport_opt *o, int32_t cost, uint64_t m)
{
    /* cost / (64 m) <= threshold, decided on integers: the bound is one
     * double product, floored, the same on every run. */
    if (cost < 0 || m == 0) return 0;
    const double bound = floor(o->threshold * (double)GPUASM_SIG_SCALE * (double)m);
    return (double)cost <= bound;
}

/* A cost in normalised units (issue #29: the README's "cost 4" is what is
 * printed, not 256 quantisation steps).  Costs are whole multiples of
 * 1 / GPUASM_SIG_SCALE = 1/64 (both cost kinds; kernels/signal.h), which
 * have at most six decimals: printed exactly, without trailing zeros. */
static const char *cost_str(int32_t cost, char *buf, size_t len)
{
    _Static_assert(GPUASM_SIG_SCALE == 64, "1/64 = 0.015625: six decimals");
    const int neg = cost < 0;
    const int64_t c = neg ? -(int64_t)cost : cost;
    int64_t frac = (c % GPUASM_SIG_SCALE) * 15625;   /* millionths */
    int n = snprintf(buf, len, "%s%lld", neg ? "-" : "", (long long)(c / GPUASM_SIG_SCALE));
    if (frac && n > 0 && (size_t)n < len) {
        char f[8];
        snprintf(f, sizeof f, "%06lld", (long long)frac);
        for (int i = 5; i > 0 && f[i] == '0'; i--) f[i] = 0;
        snprintf(buf + n, len - (size_t)n, ".%s", f);
    }
    return buf;
}

int gpuasm_sigreport_header(FILE *fp, const gpuasm_sigreport_opt *o)
{
    if (!o->tsv) return 0;
    return fputs("read\tread_samples\tquery_start\tquery_end\ttarget\tstrand\ttarget_len\t"
                 "ref_start\tref_end\tkmer_start\tkmer_end\tcost\tcost_per_sample\tpass\n", fp) < 0
               ? -1 : 0;
}

int gpuasm_sigreport_starts(const gpuasm_sigreport_opt *o, const gpuasm_sigbatch *b,
                            const gpuasm_sigref *ref, const gpuasm_adsm_hit *hit, size_t first,
                            size_t count, int64_t *ks, int32_t *work)
{
    for (size_t p = first; p < first + count; p++) {
        const gpuasm_adsm_hit *h = &hit[p];
        if (h->cost < 0) {
            ks[p] = -1;
            continue;
        }
        const uint32_t r = (uint32_t)(p / ref->n), i = (uint32_t)(p % ref->n);
        const uint64_t m = b->off[r + 1] - b->off[r];
        ks[p] = gpuasm_dtw_start(b->val + b->off[r], (uint32_t)m, ref->val + ref->off[i], h->end,
                                 o->cost, h->cost, work);
        if (ks[p] < 0) return -2;
    }
    return 0;
}

int gpuasm_sigreport_lines(FILE *fp, const gpuasm_sigreport_opt *o, const gpuasm_sigbatch *b,
                           const gpuasm_sigref *ref, const gpuasm_adsm_hit *hit, const int64_t *start,
                           uint64_t *lines, uint64_t *passing_reads)
{
    for (uint32_t r = 0; r < b->n; r++) {
        const uint64_t m = b->off[r + 1] - b->off[r];
        int any = 0;
        for (uint32_t i = 0; i < ref->n; i++) {
            const gpuasm_adsm_hit *h = &hit[(size_t)r * ref->n + i];
            const uint32_t t = ref->target[i];
            int n;
            if (h->cost < 0) {
                n = o->tsv ? fprintf(fp, "%s\t%llu\t%llu\t%llu\t%s\t%c\t%llu\tNA\tNA\tNA\tNA\tNA\tNA\tN\n",
                                     b->name[r], (unsigned long long)b->len[r],
                                     (unsigned long long)b->qstart[r], (unsigned long long)b->qend[r],
                                     ref->tname[t], ref->strand[i], (unsigned long long)ref->tlen[t])
                           : fprintf(fp, "%s\t%llu\t%llu\t%llu\t%c\t%s\t%llu\t0\t0\t0\t0\t255\tad:f:-1\tpa:A:N\n",
                                     b->name[r], (unsigned long long)b->len[r],
                                     (unsigned long long)b->qstart[r], (unsigned long long)b->qend[r],
                                     ref->strand[i], ref->tname[t], (unsigned long long)ref->tlen[t]);
                if (n < 0) return -1;
                (*lines)++;
                continue;
            }
            const int64_t ks = start[(size_t)r * ref->n + i];
            if (ks < 0) return -2;
            const uint64_t ke = (uint64_t)h->end + 1;
            uint64_t ts, te;
            gpuasm_sigref_interval(ref, i, (uint64_t)ks, ke, &ts, &te);
            const double per = (double)h->cost / GPUASM_SIG_SCALE / (double)m;
            char cs[32];
            cost_str(h->cost, cs, sizeof cs);
            /* A flat window (no variation after normalisation) matches
             * any flat stretch of a reference at little cost: never a pass. */
            const int flat = b->flat && b->flat[r];
            const int pass = !flat && gpuasm_sigreport_pass(o, h->cost, m);
            any |= pass;
            if (o->tsv)
                n = fprintf(fp, "%s\t%llu\t%llu\t%llu\t%s\t%c\t%llu\t%llu\t%llu\t%lld\t%llu\t%s\t%.4f\t%s\n",
                            b->name[r], (unsigned long long)b->len[r],
                            (unsigned long long)b->qstart[r], (unsigned long long)b->qend[r],
                            ref->tname[t], ref->strand[i], (unsigned long long)ref->tlen[t],
                            (unsigned long long)ts, (unsigned long long)te, (long long)ks,
                            (unsigned long long)ke, cs, per, flat ? "flat" : pass ? "Y" : "N");
            else
                n = fprintf(fp, "%s\t%llu\t%llu\t%llu\t%c\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t255\t"
                            "ad:f:%s\tan:f:%.4f\tpa:A:%c\tks:i:%lld\tke:i:%llu%s\n",
                            b->name[r], (unsigned long long)b->len[r],
                            (unsigned long long)b->qstart[r], (unsigned long long)b->qend[r],
                            ref->strand[i], ref->tname[t], (unsigned long long)ref->tlen[t],
                            (unsigned long long)ts, (unsigned long long)te,
                            (unsigned long long)(ke - (uint64_t)ks), (unsigned long long)(te - ts),
                            cs, per, pass ? 'Y' : 'N', (long long)ks, (unsigned long long)ke,
                            flat ? "\tfl:A:Y" : "");
            if (n < 0) return -1;
            (*lines)++;
        }
        if (any) (*passing_reads)++;
    }
    return 0;
}
