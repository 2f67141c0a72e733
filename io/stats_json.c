/* SPDX-License-Identifier: MIT */
/* stats_json.c -- the --stats JSON object (see stats_json.h).  Formatted by
 * hand: one flat object does not need a JSON library. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/resource.h>

#include "io/stats_json.h"

long gpuasm_peak_rss_kb(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) < 0) return 0;
    return ru.ru_maxrss;   /* Linux: KiB */
}

long gpuasm_rss_kb(void)
{
    FILE *fp = fopen("/proc/self/statm", "r");
    long pages = 0, rss = 0;
    if (!fp) return 0;
    if (fscanf(fp, "%ld %ld", &pages, &rss) != 2) rss = 0;
    fclose(fp);
    return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

/* A JSON string (RFC 8259 §7): quote, backslash and control characters
 * escaped; other bytes (UTF-8) as they are.  NULL is written as "". */
void gpuasm_json_string(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", fp); break;
        case '\\': fputs("\\\\", fp); break;
        case '\b': fputs("\\b", fp); break;
        case '\f': fputs("\\f", fp); break;
        case '\n': fputs("\\n", fp); break;
        case '\r': fputs("\\r", fp); break;
        case '\t': fputs("\\t", fp); break;
        default:
            if (*p < 0x20) fprintf(fp, "\\u%04x", *p);
            else fputc(*p, fp);
        }
    }
    fputc('"', fp);
}

/* JSON has no NaN or infinity. */
static double finite_or_0(double x) { return isfinite(x) ? x : 0.0; }

int gpuasm_stats_json_write(FILE *fp, const gpuasm_run_stats *s)
{
    double tcups = s->kernel_s > 0 ? s->cells / s->kernel_s / 1e12 : 0.0;
    double rps = s->wall_s > 0 ? (double)s->reads / s->wall_s : 0.0;
    fputs("{\"program\":", fp);
    gpuasm_json_string(fp, s->program);
    fputs(",\"version\":", fp);
    gpuasm_json_string(fp, s->version);
    fputs(",\"device\":", fp);
    gpuasm_json_string(fp, s->device);
    fputs(",\"simd\":", fp);
    if (s->simd) gpuasm_json_string(fp, s->simd);
    else fputs("null", fp);
    fputs(",\"filter\":", fp);
    if (s->filter) gpuasm_json_string(fp, s->filter);
    else fputs("null", fp);
    fputs(",\"filter_plan\":", fp);
    if (s->filter_plan) gpuasm_json_string(fp, s->filter_plan);
    else fputs("null", fp);
    fprintf(fp, ",\"lanes\":%d", s->lanes);
    fprintf(fp, ",\"reads\":%llu", (unsigned long long)s->reads);
    fprintf(fp, ",\"bases\":%llu", (unsigned long long)s->bases);
    fprintf(fp, ",\"records\":%llu", (unsigned long long)s->records);
    fprintf(fp, ",\"reads_with_hits\":%llu", (unsigned long long)s->reads_with_hits);
    fprintf(fp, ",\"batches\":%llu", (unsigned long long)s->batches);
    fprintf(fp, ",\"batch_bases\":%llu", (unsigned long long)s->batch_bases);
    fprintf(fp, ",\"rounds\":%llu", (unsigned long long)s->rounds);
    fprintf(fp, ",\"rescans\":%llu", (unsigned long long)s->rescans);
    fprintf(fp, ",\"max_memory\":%llu", (unsigned long long)s->max_memory);
    fprintf(fp, ",\"wall_s\":%.6f", finite_or_0(s->wall_s));
    fprintf(fp, ",\"scan_s\":%.6f", finite_or_0(s->scan_s));
    fprintf(fp, ",\"kernel_s\":%.6f", finite_or_0(s->kernel_s));
    fprintf(fp, ",\"cells\":%.17g", finite_or_0(s->cells));
    fprintf(fp, ",\"kernel_tcups\":%.6g", finite_or_0(tcups));
    fprintf(fp, ",\"reads_per_s\":%.3f", finite_or_0(rps));
    fprintf(fp, ",\"end_hits\":%llu", (unsigned long long)s->end_hits);
    fprintf(fp, ",\"index_strands\":%llu", (unsigned long long)s->index_strands);
    fprintf(fp, ",\"index_declined\":%llu", (unsigned long long)s->index_declined);
    fprintf(fp, ",\"pieces_kept\":%llu", (unsigned long long)s->pieces_kept);
    fprintf(fp, ",\"pieces_dropped\":%llu", (unsigned long long)s->pieces_dropped);
    fprintf(fp, ",\"ends_run\":%llu", (unsigned long long)s->ends_run);
    fprintf(fp, ",\"ends_skipped\":%llu", (unsigned long long)s->ends_skipped);
    fprintf(fp, ",\"ends_settled\":%llu", (unsigned long long)s->ends_settled);
    fprintf(fp, ",\"periodic_cols\":%llu", (unsigned long long)s->periodic_cols);
    fprintf(fp, ",\"index_build_s\":%.6f", finite_or_0(s->index_build_s));
    fprintf(fp, ",\"plan_s\":%.6f", finite_or_0(s->plan_s));
    fprintf(fp, ",\"ends_kernel_s\":%.6f", finite_or_0(s->ends_kernel_s));
    fprintf(fp, ",\"ends_cells\":%.17g", finite_or_0(s->ends_cells));
    fprintf(fp, ",\"ends_tcups\":%.6g",
            finite_or_0(s->ends_kernel_s > 0 ? s->ends_cells / s->ends_kernel_s / 1e12 : 0));
    const gpuasm_stage_stats *g = &s->stage;
    const double at[3] = { g->engine_ready_at, g->first_scan_at, g->last_scan_end_at };
    const char *at_key[3] = { "engine_ready_at", "first_scan_at", "last_scan_end_at" };
    for (int i = 0; i < 3; i++) {
        if (at[i] >= 0) fprintf(fp, ",\"%s\":%.6f", at_key[i], finite_or_0(at[i]));
        else fprintf(fp, ",\"%s\":null", at_key[i]);
    }
    fprintf(fp, ",\"read_s\":%.6f,\"encode_s\":%.6f,\"report_s\":%.6f,\"write_s\":%.6f",
            finite_or_0(g->read_s), finite_or_0(g->encode_s), finite_or_0(g->report_s),
            finite_or_0(g->write_s));
    if (s->aut) {
        const gpuasm_auto_stats *a = s->aut;
        fputs(",\"auto_to\":", fp);
        gpuasm_json_string(fp, a->to);
        fprintf(fp, ",\"auto_cpu_reads\":%llu,\"auto_cpu_batches\":%llu,\"auto_cpu_scans\":%llu",
                (unsigned long long)a->cpu_reads, (unsigned long long)a->cpu_batches,
                (unsigned long long)a->cpu_scans);
        fprintf(fp, ",\"auto_moved_reads\":%llu,\"auto_moved_batches\":%llu,\"auto_moved_scans\":%llu",
                (unsigned long long)a->moved_reads, (unsigned long long)a->moved_batches,
                (unsigned long long)a->moved_scans);
        if (a->move_batch >= 0) fprintf(fp, ",\"auto_move_batch\":%lld", (long long)a->move_batch);
        else fputs(",\"auto_move_batch\":null", fp);
        if (a->ready_s >= 0) fprintf(fp, ",\"auto_ready_s\":%.6f", a->ready_s);
        else fputs(",\"auto_ready_s\":null", fp);
        if (a->moved_s >= 0) fprintf(fp, ",\"auto_moved_s\":%.6f", a->moved_s);
        else fputs(",\"auto_moved_s\":null", fp);
        if (a->back_s >= 0) fprintf(fp, ",\"auto_back_s\":%.6f", a->back_s);
        else fputs(",\"auto_back_s\":null", fp);
    }
    if (s->chance.on) {
        const gpuasm_chance_stats *c = &s->chance;
        fprintf(fp, ",\"max_chance\":%.6g", c->max_chance);
        const char *fk[2] = { "partial_floor", "read_partial_floor" };
        const char *ek[2] = { "chance_partial_per_read", "chance_read_partial_per_read" };
        for (int i = 0; i < 2; i++) {
            if (c->floor[i] > 0) fprintf(fp, ",\"%s\":%d", fk[i], c->floor[i]);
            else fprintf(fp, ",\"%s\":null", fk[i]);
        }
        for (int i = 0; i < 2; i++) {
            if (c->partial_on && isfinite(c->partial[i])) fprintf(fp, ",\"%s\":%.6g", ek[i], c->partial[i]);
            else fprintf(fp, ",\"%s\":null", ek[i]);
        }
        fprintf(fp, ",\"chance_whole_per_read\":%.6g", finite_or_0(c->whole_per_read));
    }
    fprintf(fp, ",\"peak_rss_kb\":%ld", s->peak_rss_kb);
    if (s->extra && s->extra(fp, s->extra_ctx) < 0) return -1;
    fputs("}\n", fp);
    return ferror(fp) ? -1 : 0;
}
