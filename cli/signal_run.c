/* SPDX-License-Identifier: MIT */
/* signal_run.c -- the gpuasm-signal run (see signal_run.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <htslib/bgzf.h>

#include "util/clock.h"
#include "engine/engine.h"
#include "util/output_file.h"
#include "kernels/registry.h"
#include "cli/scan_errors.h"
#include "io/signal_ref.h"
#include "cli/signal_run.h"
#include "cli/signal_starts.h"
#include "io/stats_json.h"

/* Samples per batch: a CUDA lane wants thousands of (read, strand) items
 * in flight (2,000-sample windows: 8,000 reads); the CPU a few chunks per
 * thread. */
#define BATCH_SAMPLES_CUDA (16ull << 20)
#define BATCH_SAMPLES_CPU_PER_THREAD (1ull << 20)

/* Does the file start like FASTA/FASTQ ('>' or '@' after any gzip)? */
static int looks_like_fasta(const char *path)
{
    BGZF *fp = bgzf_open(path, "r");
    if (!fp) return 0;
    int c = bgzf_getc(fp);
    bgzf_close(fp);
    return c == '>' || c == '@';
}

/* The progress line, rewritten in place (as gpuasm-scan's). */
static void progress(const char *prog, double t0, uint64_t reads, uint64_t passing, int final)
{
    const double dt = gpuasm_now_s() - t0;
    fprintf(stderr, "\r%s: %llu reads done, %.0f reads/s, %llu passing%s", prog,
            (unsigned long long)reads, dt > 0 ? (double)reads / dt : 0.0,
            (unsigned long long)passing, final ? "\n" : "");
    fflush(stderr);
}

/* A failed scan: the read and reference it was about, and what. */
static void scan_message(const gpuasm_signal_run_opt *o, const gpuasm_sigbatch *b,
                         const gpuasm_err *e, char *err, size_t errlen)
{
    if (e->read != GPUASM_NO_INDEX && e->read < b->n) {
        if (e->status == GPUASM_ERR_TOO_LONG)
            snprintf(err, errlen, "%s: record %llu (%s): its window has %llu samples, more than the "
                     "%llu the dtw kernel takes (use a smaller --signal-prefix)", o->reads_path,
                     (unsigned long long)(b->first_record + e->read), b->name[e->read],
                     (unsigned long long)e->length, (unsigned long long)e->limit);
        else
            snprintf(err, errlen, "%s: record %llu (%s): %s", o->reads_path,
                     (unsigned long long)(b->first_record + e->read), b->name[e->read], e->msg);
    } else {
        snprintf(err, errlen, "%s: %s", o->reads_path, e->msg);
    }
}

/* --stats keys after gpuasm-scan's: "report_s", the main thread's wall
 * time in the report stage that the scan did not hide (waiting for the
 * start searches, writing lines; with one thread the whole search), and
 * "starts_cpu_s", the start searches' time summed over threads.  ctx:
 * double[2]. */
static int report_keys(FILE *fp, const void *ctx)
{
    const double *t = ctx;
    return fprintf(fp, ",\"report_s\":%.6f,\"starts_cpu_s\":%.6f", t[0], t[1]) < 0 ? -1 : 0;
}

/* The outputs, as gpuasm-scan's (util/output_file.h): never over an
 * input.  0, or -1 with err. */
static int check_outputs(const gpuasm_signal_run_opt *o, char *err, size_t errlen)
{
    const char *in[] = { o->reads_path, o->ref_path, o->model_path };
    const char *what[] = { "the reads file", "the reference", "the pore model (-p)" };
    return gpuasm_outputs_check(o->out_path, o->stats_path, o->report.tsv ? "TSV" : "PAF", in, what, 3,
                                err, errlen);
}

/* The reference signals: a genome through its pore model (-p), or signals
 * as they are.  0, or -1 with err. */
static int load_references(const char *prog, const gpuasm_signal_run_opt *o, gpuasm_sigref *ref, char *err,
                           size_t errlen)
{
    if (o->model_path) {
        if (gpuasm_sigref_from_fasta(o->ref_path, o->model_path, o->read.norm, ref, err, errlen) < 0)
            return -1;
    } else {
        if (looks_like_fasta(o->ref_path)) {
            snprintf(err, errlen, "%s: a FASTA/FASTQ genome: give its pore model with -p "
                     "(e.g. r9.4.1_400bps_6mer.model.tsv), or give a signal file", o->ref_path);
            return -1;
        }
        if (gpuasm_sigref_from_signals(o->ref_path, o->read.norm, ref, err, errlen) < 0) return -1;
    }
    if (o->verbosity >= 3 && !o->quiet)
        for (uint32_t i = 0; i < ref->n; i++)
            if (ref->off[i + 1] == ref->off[i]) {
                fprintf(stderr, "%s: warning: %s: %s is shorter than the model's k = %u: nothing to "
                        "compare with on strand %c\n", prog, o->ref_path, ref->tname[ref->target[i]],
                        ref->k, ref->strand[i]);
            }
    return 0;
}

/* --stats of a successful run: rs and the engine's totals into fp (closed
 * here).  0, or -1 with err. */
static int write_stats(FILE *fp, const gpuasm_signal_run_opt *o, gpuasm_engine *eng, gpuasm_run_stats rs,
                       char *err, size_t errlen)
{
    gpuasm_scan_stats es;
    gpuasm_engine_stats(eng, &es);
    rs.scan_s = es.scan_s;
    rs.kernel_s = es.kernel_s;
    rs.cells = es.cells;
    errno = 0;
    int bad = gpuasm_stats_json_write(fp, &rs) < 0;
    bad |= fclose(fp) != 0;
    if (bad) {
        snprintf(err, errlen, "%s: write failed: %s", o->stats_path, strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

/* Into place only when everything succeeded (ret 0): the output, then the
 * statistics (a failure there takes the output back, as gpuasm-scan's
 * does); a failed run leaves neither.  The run's status. */
static int finish_outputs(const gpuasm_signal_run_opt *o, int ret, int stats, gpuasm_outfile *out_of,
                          gpuasm_outfile *stats_of, char *err, size_t errlen)
{
    const int to_stdout = !o->out_path || !strcmp(o->out_path, "-");
    if (ret == 0 && !to_stdout && gpuasm_outfile_commit(out_of, err, errlen) < 0) ret = -1;
    if (ret == 0 && stats && gpuasm_outfile_commit(stats_of, err, errlen) < 0) {
        ret = -1;
        if (!to_stdout) gpuasm_output_remove_result(o->out_path);
    }
    if (ret < 0) {
        gpuasm_outfile_abort(out_of);
        gpuasm_outfile_abort(stats_of);
    }
    gpuasm_outfile_free(out_of);
    gpuasm_outfile_free(stats_of);
    return ret;
}

/* Batch b's alignment starts onto the pool (signal_starts.h), into
 * *start (grown to the batch's pairs); report_s takes the time this
 * thread spent (with one thread: the whole search).  0, -1 when out of
 * memory, or another negative value when a result has no start. */
static int submit_starts(gpuasm_sigstarts *starts, const gpuasm_signal_run_opt *o, const gpuasm_sigbatch *b,
                         const gpuasm_sigref *ref, const gpuasm_adsm_hit *hits, int64_t **start,
                         size_t *m_start, double *report_s)
{
    const size_t npairs = (size_t)b->n * ref->n;
    if (npairs > *m_start) {
        free(*start);
        *m_start = npairs + npairs / 4;
        if (!(*start = malloc(*m_start * sizeof(**start)))) return -1;
    }
    uint64_t maxm = 0;
    for (uint32_t r = 0; r < b->n; r++)
        if (b->off[r + 1] - b->off[r] > maxm) maxm = b->off[r + 1] - b->off[r];
    const double tr = gpuasm_now_s();
    const int rc = gpuasm_sigstarts_submit(starts, &o->report, b, ref, hits, maxm, *start);
    *report_s += gpuasm_now_s() - tr;
    return rc;
}

/* The engine on o->device with the reference's expected signals as its
 * targets.  0, or -1 with err. */
static int open_engine(const char *prog, const gpuasm_signal_run_opt *o, const gpuasm_sigref *ref,
                       gpuasm_engine **eng, char *err, size_t errlen)
{
    gpuasm_err why, fallback;
    if (gpuasm_engine_open(o->device, o->n_threads, eng, &why, &fallback) < 0) {
        gpuasm_msg_engine_open(o->device, &why, err, errlen);
        return -1;
    }
    if (fallback.status && o->verbosity >= 4 && !o->quiet)
        fprintf(stderr, "%s: info: %s; using the CPU\n", prog, fallback.msg);
    if (gpuasm_engine_set_signal_targets(*eng, &ref->set, &o->search, &why) < 0) {
        snprintf(err, errlen, "%s: %s", o->ref_path, why.msg);
        return -1;
    }
    return 0;
}

/* What a successful run tells on stderr after its last line: clamped
 * samples (--verbosity 4), reads with a flat window (the first named). */
static void tell_run(const char *prog, const gpuasm_signal_run_opt *o, uint64_t clamped,
                     uint64_t flat, const char *flat_first)
{
    if (clamped && o->verbosity >= 4 && !o->quiet)
        fprintf(stderr, "%s: info: %llu normalised samples past +-8 clamped (spikes)\n", prog,
                (unsigned long long)clamped);
    if (flat && !o->quiet)
        fprintf(stderr, "%s: warning: %s: %llu read%s with no variation in %s window after "
                "normalisation (a constant signal), reported with fl:A:Y (TSV: pass 'flat') and "
                "never passed; the first: %s\n", prog, o->reads_path, (unsigned long long)flat,
                flat == 1 ? "" : "s", flat == 1 ? "its" : "their", flat_first);
}

int gpuasm_signal_run(const char *prog, const gpuasm_signal_run_opt *o, char *err, size_t errlen)
{
    const double t_start = gpuasm_now_s();
    int ret = -1, ref_ok = 0;
    gpuasm_sigref ref;
    gpuasm_engine *eng = NULL;
    gpuasm_sigreader *rd = NULL;
    /* Two batches: the starts of one are searched on the pool while the
     * next is read and scanned. */
    gpuasm_sigbatch bt[2];
    gpuasm_sigbatch_init(&bt[0]);
    gpuasm_sigbatch_init(&bt[1]);
    gpuasm_adsm_hit *hits[2] = {NULL, NULL};
    size_t m_hits[2] = {0, 0}, m_start = 0;
    int64_t *start = NULL;
    gpuasm_sigstarts *starts = NULL;
    int cur = 0, prev = -1;    /* bt[] slot being filled; the slot on the pool, or -1 */
    double report_s = 0;       /* main thread: waiting for starts and writing lines */
    double starts_cpu_s = 0;
    FILE *out = NULL, *stats_fp = NULL;
    gpuasm_outfile out_of, stats_of;   /* -o, --stats: through temporary files (util/output_file.h) */
    memset(&out_of, 0, sizeof out_of);
    memset(&stats_of, 0, sizeof stats_of);
    const int to_stdout = !o->out_path || !strcmp(o->out_path, "-");
    uint64_t reads = 0, samples = 0, lines = 0, passing = 0, batches = 0, clamped = 0;
    uint64_t flat = 0;          /* reads with a flat window (signal_reads.h) */
    char flat_first[300] = "";
    uint64_t max_samples = 0;
    gpuasm_err why;

    if (check_outputs(o, err, errlen) < 0 || load_references(prog, o, &ref, err, errlen) < 0) return -1;
    ref_ok = 1;

    if (open_engine(prog, o, &ref, &eng, err, errlen) < 0) goto out;
    if (gpuasm_sigreader_open(o->reads_path, &rd, err, errlen) < 0) goto out;
    if (!(out = to_stdout ? stdout : gpuasm_outfile_open(&out_of, o->out_path, err, errlen))) goto out;
    if (o->stats_path && !(stats_fp = gpuasm_outfile_open(&stats_of, o->stats_path, err, errlen))) goto out;
    if (gpuasm_sigreport_header(out, &o->report) < 0) goto write_error;

    max_samples = o->batch_samples ? o->batch_samples
                               : gpuasm_engine_is_cuda(eng) ? BATCH_SAMPLES_CUDA
                               : BATCH_SAMPLES_CPU_PER_THREAD * (uint64_t)(o->n_threads > 0 ? o->n_threads : 1);
    const int show = !o->quiet && (o->progress || isatty(STDERR_FILENO));
    const double t0 = gpuasm_now_s();
    double last = t0;
    if (gpuasm_sigstarts_open(o->n_threads, &starts) < 0) goto nomem;
    for (;;) {
        gpuasm_sigbatch *b = &bt[cur];
        const int n = gpuasm_sigreader_next(rd, &o->read, b, max_samples, err, errlen);
        if (n < 0) goto out;
        if (n > 0) {
            const size_t npairs = (size_t)b->n * ref.n;
            if (npairs > m_hits[cur]) {
                free(hits[cur]);
                m_hits[cur] = npairs + npairs / 4;
                if (!(hits[cur] = malloc(m_hits[cur] * sizeof(*hits[cur])))) goto nomem;
            }
            if (gpuasm_engine_scan_signals_lane(eng, 0, &b->set, &o->search, hits[cur], &why) < 0) {
                scan_message(o, b, &why, err, errlen);
                goto out;
            }
        }
        /* The previous batch's lines, now that this one's scan is done. */
        if (prev >= 0) {
            const double tr = gpuasm_now_s();
            int rc = gpuasm_sigstarts_wait(starts);
            if (rc == -1) goto nomem;
            if (rc == 0) rc = gpuasm_sigreport_lines(out, &o->report, &bt[prev], &ref, hits[prev],
                                                     start, &lines, &passing);
            if (rc == -1) goto write_error;
            if (rc < 0) goto no_start;
            report_s += gpuasm_now_s() - tr;
            reads += bt[prev].n;
            samples += bt[prev].off[bt[prev].n];
            clamped += bt[prev].clamped;
            for (uint32_t r = 0; !flat_first[0] && r < bt[prev].n; r++)
                if (bt[prev].flat[r])
                    snprintf(flat_first, sizeof flat_first, "record %llu (%.200s)",
                             (unsigned long long)(bt[prev].first_record + r), bt[prev].name[r]);
            flat += bt[prev].n_flat;
            batches++;
            prev = -1;
            if (show && gpuasm_now_s() - last >= 0.5) {
                progress(prog, t0, reads, passing, 0);
                last = gpuasm_now_s();
            }
        }
        if (n == 0) break;
        const int rc = submit_starts(starts, o, b, &ref, hits[cur], &start, &m_start, &report_s);
        if (rc == -1) goto nomem;
        if (rc < 0) goto no_start;
        prev = cur;
        cur ^= 1;
    }
    if (show) progress(prog, t0, reads, passing, 1);
    tell_run(prog, o, clamped, flat, flat_first);
    if (fflush(out) != 0 || ferror(out)) goto write_error;
    ret = 0;
    goto out;
nomem:
    snprintf(err, errlen, "%s: out of memory", o->reads_path);
    goto out;
no_start:
    snprintf(err, errlen, "%s: internal error: a kernel result without an alignment start",
             o->reads_path);
    goto out;
write_error:
    snprintf(err, errlen, "%s: write failed: %s", to_stdout ? "standard output" : o->out_path,
             strerror(errno ? errno : EIO));
out:
    starts_cpu_s = gpuasm_sigstarts_cpu_s(starts);
    gpuasm_sigstarts_close(starts);   /* waits for a batch still on the pool */
    starts = NULL;
    if (out && !to_stdout && fclose(out) != 0 && ret == 0) {
        snprintf(err, errlen, "%s: write failed: %s", o->out_path, strerror(errno ? errno : EIO));
        ret = -1;
    }
    if (stats_fp) {
        if (ret == 0) {
            const gpuasm_run_stats rs = {
                .program = prog, .version = o->version, .device = gpuasm_engine_describe(eng),
                .lanes = 1, .reads = reads, .bases = samples, .records = lines,
                .reads_with_hits = passing, .batches = batches,
                .batch_bases = max_samples, .wall_s = gpuasm_now_s() - t_start,
                .peak_rss_kb = gpuasm_peak_rss_kb(),
                .stage = { .engine_ready_at = -1, .first_scan_at = -1, .last_scan_end_at = -1 },
                .extra = report_keys, .extra_ctx = (const double[2]){report_s, starts_cpu_s},
            };
            ret = write_stats(stats_fp, o, eng, rs, err, errlen);
        } else {
            fclose(stats_fp);
        }
    }
    ret = finish_outputs(o, ret, stats_fp != NULL, &out_of, &stats_of, err, errlen);
    free(hits[0]);
    free(hits[1]);
    free(start);
    gpuasm_sigbatch_free(&bt[0]);
    gpuasm_sigbatch_free(&bt[1]);
    gpuasm_sigreader_close(rd);
    gpuasm_engine_close(eng);
    if (ref_ok) gpuasm_sigref_free(&ref);
    return ret;
}
