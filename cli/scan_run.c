/* SPDX-License-Identifier: MIT */
/* scan_run.c -- gpuasm_scan_run (pipeline.h): the run around the scan
 * pipeline.  It checks the outputs, opens the engine in a thread while the
 * targets load and the reads open, sets up the chance model, opens the
 * outputs, runs the pipeline (cli/pipeline.c), tells what happened and
 * writes --stats; and gpuasm_scan_interrupt(), which stops it from
 * outside.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <htslib/hts.h>
#include <htslib/kstring.h>

#include "align/chance.h"
#include "cli/auto_device.h"
#include "cli/auto_move.h"
#include "cli/pipeline_int.h"
#include "cli/scan_errors.h"
#include "engine/engine.h"
#include "io/reference_out.h"
#include "io/target_report.h"
#include "io/targets.h"
#include "kernels/registry.h"
#include "util/clock.h"
#include "util/output_file.h"

/* ---- interruption (gpuasm_scan_interrupt) ------------------------------------ */

static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;
static pipe_t *running;          /* the pipeline whose threads run, or NULL (run_lock) */
static int interrupted;          /* (run_lock) */
static char interrupt_why[128];  /* (run_lock) */

void gpuasm_scan_interrupt(const char *why)
{
    pthread_mutex_lock(&run_lock);
    if (!interrupted) {
        interrupted = 1;
        snprintf(interrupt_why, sizeof interrupt_why, "%s", why ? why : "interrupted");
    }
    /* run_lock is never taken with p->lock held: no lock-order cycle. */
    if (running) gpuasm_pipe_fail(running, interrupt_why);
    pthread_mutex_unlock(&run_lock);
}

/* Register p as the running pipeline (or none); an interruption that came
 * before stops it at once. */
static void set_running(pipe_t *p)
{
    pthread_mutex_lock(&run_lock);
    running = p;
    if (p && interrupted) gpuasm_pipe_fail(p, interrupt_why);
    pthread_mutex_unlock(&run_lock);
}

/* -1 with err when the run was interrupted (checked between setup steps). */
static int check_interrupt(char *err, size_t errlen)
{
    int r = 0;
    pthread_mutex_lock(&run_lock);
    if (interrupted) {
        snprintf(err, errlen, "%s", interrupt_why);
        r = -1;
    }
    pthread_mutex_unlock(&run_lock);
    return r;
}

/* ---- the run ---------------------------------------------------------------------- */

/* Refuse outputs that would destroy an input (issue #12: "-o r.fq r.fq"
 * deleted the reads), and --stats where the SAM goes (util/output_file.h).
 * 0, or -1 with err. */
static int check_outputs(const gpuasm_scan_opt *o, char *err, size_t errlen)
{
    const char *in[] = { o->reads_path, o->reads_path2, o->targets_path, o->reference };
    const char *what[] = { "the reads file", "the second reads file", "the targets file",
                           "the reference (-T)" };
    if (gpuasm_outputs_check(o->out_path, o->stats_path, "SAM", in, what, 4, err, errlen) < 0)
        return -1;
    /* ... and no two outputs in one file (issue #31): the later one
     * silently replaced the earlier. */
    const gpuasm_screen_opt *s = &o->screen;
#define NAMED(p) ((p) && strcmp((p), "-") ? (p) : NULL)   /* "-": refused by gpuasm_screen_open */
    char general[4096] = "";
    if (s->multiqc && gpuasm_multiqc_general_path(s->multiqc, general, sizeof general) < 0) {
        snprintf(err, errlen, "--multiqc %s: name too long", s->multiqc);
        return -1;
    }
    /* --write-reference's FILE, FILE.fai and the Picard dictionary */
    char *fai = o->write_reference ? gpuasm_reference_fai_name(o->write_reference) : NULL;
    char *dict = o->write_reference ? gpuasm_reference_dict_name(o->write_reference) : NULL;
    if (o->write_reference && (!dict || !fai)) {
        free(dict);
        free(fai);
        snprintf(err, errlen, "--write-reference %s: out of memory", o->write_reference);
        return -1;
    }
    const char *out[] = { o->out_path ? o->out_path : "-", o->stats_path, NAMED(s->report),
                          NAMED(s->multiqc), NAMED(s->multiqc) ? general : NULL, NAMED(s->matched),
                          NAMED(s->matched2), NAMED(s->unmatched), NAMED(s->unmatched2),
                          NAMED(s->reads_out), NAMED(o->write_reference),
                          NAMED(o->write_reference) ? fai : NULL, NAMED(o->write_reference) ? dict : NULL };
#undef NAMED
    const char *flag[] = { "-o", "--stats", "--report", "--multiqc",
                           "--multiqc (its General Statistics file)", "--matched", "--matched2",
                           "--unmatched-reads", "--unmatched-reads2", "--reads-out",
                           "--write-reference", "--write-reference (its .fai)",
                           "--write-reference (its .dict)" };
    const int r = gpuasm_outputs_distinct(out, flag, sizeof out / sizeof out[0], err, errlen);
    free(dict);
    free(fai);
    return r;
}

/* ---- the engine opens while the inputs do (issue #14) ------------------------ */

static void *opener_main(void *arg)
{
    opener_t *op = arg;
    op->rc = gpuasm_engine_open(op->device, op->n_threads, &op->eng, &op->why, &op->fallback);
    return NULL;
}

/* Open in a thread (in this one for the CPU, which opens at once, or when
 * no thread can start). */
static void opener_start(opener_t *op)
{
    if (strcmp(op->device, "cpu") && pthread_create(&op->tid, NULL, opener_main, op) == 0)
        op->running = 1;
    else
        opener_main(op);
}

/* Wait for the engine; its status (op->rc). */
static int opener_join(opener_t *op)
{
    if (op->running) pthread_join(op->tid, NULL);
    op->running = 0;
    return op->rc;
}

/* The chance model of the run (align/chance.h): the floors in effect go
 * into oc's search options, the model into its report options (XE:f), and
 * the floors into the @CO line co and, at --verbosity 4, onto stderr.
 * 0, or -1 with err. */
static int chance_setup(const char *prog, gpuasm_scan_opt *oc, const gpuasm_targets *t,
                        gpuasm_chance **model, kstring_t *co, char *err, size_t errlen)
{
    if (gpuasm_chance_build(model, &t->set, &oc->search, oc->max_chance) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    const gpuasm_chance *c = *model;
    const int partial = gpuasm_partial_on(&oc->search);
    const int32_t ft = partial && oc->overlap_auto && oc->search.overlap_min > 0 ? gpuasm_chance_floor(c, 0) : 0;
    const int32_t fr = partial && oc->read_overlap_auto && oc->search.read_overlap_min != 0
                       ? gpuasm_chance_floor(c, 1) : 0;
    oc->search.partial_floor = ft;
    oc->search.read_partial_floor = fr;
    if (gpuasm_chance_set_floors(*model, ft, fr) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    oc->report.chance = c;
    if (!partial || isnan(gpuasm_chance_partial(c, 0, 0))) return 0;
    /* One line: the floors and what they bound. */
    co->l = 0;
    ksprintf(co, "gpuasm-scan: partial occurrences of targets: %s%d; of reads: %s%d; ",
             ft ? "score (AS:i) >= " : "no floor, every score from --overlap ", ft ? ft : oc->search.overlap_min,
             fr ? "score >= " : "no floor, from --read-overlap ",
             fr ? fr : oc->search.read_overlap_min);
    ksprintf(co, "expected chance partial records per read %.3g and %.3g (--max-chance %g)",
             gpuasm_chance_partial(c, 0, ft ? ft : INT32_MIN), gpuasm_chance_partial(c, 1, fr ? fr : INT32_MIN),
             oc->max_chance);
    if (says(oc, HTS_LOG_INFO)) fprintf(stderr, "%s: info: %s\n", prog, co->s + strlen("gpuasm-scan: "));
    return 0;
}

/* The targets as loaded: notes on their names, and -k against their
 * lengths.  0, or -1 with err. */
static int check_targets(const char *prog, const gpuasm_scan_opt *o, const gpuasm_targets *t,
                         char *err, size_t errlen)
{
    if (t->n_dup && says(o, HTS_LOG_WARNING)) {
        const char *d = t->desc[t->first_dup];
        fprintf(stderr, "%s: warning: %s: %u duplicate target name%s made unique with a _N "
                "suffix (the first: record %u, %.*s, is now %s; @SQ DS keeps the header; "
                "--strict-names makes duplicates an error)\n", prog, o->targets_path, t->n_dup,
                t->n_dup > 1 ? "s" : "", t->first_dup + 1, (int)strcspn(d, " "), d,
                t->name[t->first_dup]);
    }
    if (t->n_mapped && says(o, HTS_LOG_INFO))
        fprintf(stderr, "%s: info: %s: %u target name%s had characters SAM does not allow in "
                "@SQ SN, now '_' (@SQ DS keeps the header)\n", prog, o->targets_path,
                t->n_mapped, t->n_mapped > 1 ? "s" : "");
    if (o->search.max_diffs >= 0) {
        for (uint32_t i = 0; i < t->n; i++) {
            if (gpuasm_target_len(t, i) <= (uint64_t)o->search.max_diffs) {
                snprintf(err, errlen, "%s: record %u (%s): -k %d is not smaller than the "
                         "target's length (%llu): every position would match",
                         o->targets_path, i + 1, t->name[i], o->search.max_diffs,
                         (unsigned long long)gpuasm_target_len(t, i));
                return -1;
            }
        }
    }
    return 0;
}

/* The engine opened by op becomes the run's (p->eng), with the targets.
 * 0, or -1 with err. */
static int take_engine(const char *prog, pipe_t *p, opener_t *op, const gpuasm_targets *t, char *err,
                       size_t errlen)
{
    const gpuasm_scan_opt *o = p->o;
    gpuasm_err why;
    if (opener_join(op) < 0) {
        gpuasm_msg_engine_open(o->device, &op->why, err, errlen);
        return -1;
    }
    p->eng = op->eng;
    op->eng = NULL;
    p->engine_ready_at = gpuasm_now_s() - p->t0;
    /* Falling back to the CPU is what --device auto is for: news only to
     * those who ask for more than warnings (issue #9). */
    if (op->fallback.status && says(o, HTS_LOG_INFO))
        fprintf(stderr, "%s: info: %s; using the CPU\n", prog, op->fallback.msg);
    if (gpuasm_engine_set_targets(p->eng, &t->set, &why) < 0) {
        snprintf(err, errlen, "%s: %s", o->targets_path, why.msg);
        return -1;
    }
    return 0;
}

/* What a successful run tells on stderr after its last record: lone
 * mates, where --device auto ran, chance-level whole occurrences, the
 * filters (--verbosity 4), the reader's warnings. */
static void tell_run(const char *prog, const gpuasm_scan_opt *o, pipe_t *p, const counts_t *c)
{
    if (c->lone_mates && says(o, HTS_LOG_WARNING))
        fprintf(stderr, "%s: warning: %s: %llu paired read%s had no mate next to %s (input not "
                "grouped by name? samtools collate groups mates): RNEXT/PNEXT left unset\n",
                prog, o->reads_path, (unsigned long long)c->lone_mates,
                c->lone_mates > 1 ? "s" : "", c->lone_mates > 1 ? "them" : "it");
    if (p->am.move && says(o, HTS_LOG_INFO)) gpuasm_pipe_auto_tell(p, prog);
    /* Whole occurrences the run's own settings make chance-level (issue
     * #26: -k against short targets): a read of the input expects more
     * than --max-chance of them, on average. */
    if (o->report.chance && c->reads && c->chance_whole / (double)c->reads > o->max_chance &&
        says(o, HTS_LOG_WARNING))
        fprintf(stderr, "%s: warning: whole occurrences are at chance level: a read of this input "
                "expects %.3g of them by chance (XE:f on each record; --max-chance %g); a smaller "
                "-k or -e, or longer targets, make hits mean more\n", prog,
                c->chance_whole / (double)c->reads, o->max_chance);
    if (says(o, HTS_LOG_INFO) && gpuasm_pipe_filter(p))
        fprintf(stderr, "%s: info: filter %s\n", prog, gpuasm_pipe_filter(p));
    for (int i = 0; gpuasm_reader_warning(p->rd, i) && says(o, HTS_LOG_WARNING); i++)
        fprintf(stderr, "%s: warning: %s\n", prog, gpuasm_reader_warning(p->rd, i));
}

/* Issue #31: the bound cannot hold a read larger than itself (a read is
 * held and searched whole): say so rather than pass it silently.
 * rss_start_kb: the resident size before the first read (kB). */
static void tell_max_memory(const char *prog, const gpuasm_scan_opt *o, pipe_t *p, long rss_start_kb)
{
    if (!o->max_memory || !says(o, HTS_LOG_WARNING)) return;
    /* the engines' tables, built at their first scan, are the targets'
     * (a database's index: gigabytes), not the reads' */
    gpuasm_scan_stats es, ts;
    gpuasm_engine_stats(p->eng, &es);
    uint64_t tables = es.tables_bytes;
    if (p->am.to) {
        gpuasm_engine_stats(p->am.to, &ts);
        tables += ts.tables_bytes;
    }
    const long peak = gpuasm_peak_rss_kb();
    const long start = rss_start_kb + (long)(tables >> 10);
    const uint64_t over = peak > start ? (uint64_t)(peak - start) << 10 : 0;
    if (over <= o->max_memory) return;
    const char *where;
    const uint64_t longest = gpuasm_reader_longest(p->rd, &where);
    fprintf(stderr, "%s: warning: --max-memory %llu MiB exceeded: the reads took %llu MiB "
            "at the peak (%ld MiB in all); the longest read, %s, has %llu bases, and a "
            "read is held and searched whole whatever the bound (raise --max-memory, or "
            "split such reads)\n", prog, (unsigned long long)(o->max_memory >> 20),
            (unsigned long long)(over >> 20), peak >> 10, where, (unsigned long long)longest);
}

/* The --stats report of a successful run, into fp (closed here): its
 * temporary file, so that -o and --stats are moved into place together,
 * or neither is.  0, or -1 with err. */
static int write_stats(FILE *fp, const char *prog, const gpuasm_scan_opt *o, pipe_t *p,
                       const counts_t *c, double t_start, char *err, size_t errlen)
{
    gpuasm_scan_stats es;
    gpuasm_engine_stats(p->eng, &es);
    gpuasm_auto_stats as;
    char dev[2048];
    snprintf(dev, sizeof dev, "%s", gpuasm_engine_describe(p->eng));
    if (p->am.move) gpuasm_pipe_auto_stats(p, &as, &es, dev, sizeof dev);
    gpuasm_run_stats rs = {
        .program = prog, .version = o->version, .device = dev,
        .simd = gpuasm_engine_simd(p->eng),
        .filter = gpuasm_filter_name(o->search.filter),
        .filter_plan = gpuasm_pipe_filter(p),
        .lanes = p->am.to && p->am.calls[1] ? gpuasm_engine_lanes(p->am.to)
                                          : gpuasm_engine_lanes(p->eng), .reads = c->reads, .bases = c->bases,
        .records = c->records, .reads_with_hits = c->reads_with_hits,
        .batches = c->batches, .batch_bases = p->max_bases, .rounds = c->rounds,
        .rescans = p->rescans, .max_memory = p->max_memory,
        .wall_s = gpuasm_now_s() - t_start, .scan_s = es.scan_s, .kernel_s = es.kernel_s,
        .cells = es.cells, .peak_rss_kb = gpuasm_peak_rss_kb(),
        .index_strands = es.index_strands, .index_declined = es.index_declined,
        .end_hits = es.end_hits,
        .pieces_kept = es.pieces_kept, .pieces_dropped = es.pieces_dropped,
        .ends_run = es.ends_run, .ends_skipped = es.ends_skipped,
        .ends_settled = es.ends_settled, .periodic_cols = es.periodic_cols,
        .index_build_s = es.index_build_s, .plan_s = es.plan_s,
        .ends_kernel_s = es.ends_kernel_s, .ends_cells = es.ends_cells,
        .stage = { .engine_ready_at = p->engine_ready_at, .first_scan_at = p->first_scan_at,
                   .last_scan_end_at = p->last_scan_end_at, .read_s = p->read_busy,
                   .encode_s = p->encode_busy, .report_s = p->report_busy,
                   .write_s = p->write_busy },
        .aut = p->am.move ? &as : NULL,
        .chance = { .on = o->report.chance != NULL, .max_chance = o->max_chance,
                    .floor = { o->search.partial_floor, o->search.read_partial_floor },
                    .partial = { gpuasm_chance_partial(o->report.chance, 0,
                                                       o->search.partial_floor ? o->search.partial_floor : INT32_MIN),
                                 gpuasm_chance_partial(o->report.chance, 1,
                                                       o->search.read_partial_floor ? o->search.read_partial_floor : INT32_MIN) },
                    .whole_per_read = c->reads ? c->chance_whole / (double)c->reads : 0,
                    .partial_on = gpuasm_partial_on(&o->search) },
        .extra = p->screen ? gpuasm_screen_json : NULL, .extra_ctx = p->screen,
    };
    errno = 0;
    int bad = gpuasm_stats_json_write(fp, &rs) < 0;
    bad |= fclose(fp) != 0;
    if (bad) {
        snprintf(err, errlen, "%s: write failed: %s", o->stats_path,
                 strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

int gpuasm_scan_run(const char *prog, const gpuasm_scan_opt *o_in, char *err, size_t errlen)
{
    /* The run's own copy: the chance model sets its floors. */
    gpuasm_scan_opt oc = *o_in;
    const gpuasm_scan_opt *o = &oc;
    gpuasm_chance *chance = NULL;
    kstring_t co = KS_INITIALIZE;
    double t_start = gpuasm_now_s();
    int ret = -1, writer_ok = 0, targets_ok = 0, sync_ok = 0, stats_ok = 0;
    gpuasm_targets t;
    gpuasm_writer *w = NULL;
    FILE *stats_fp = NULL;
    gpuasm_outfile stats_of;
    opener_t op = { 0 };
    char auto_why[512];
    pipe_t p;
    counts_t c = { 0 };
    progress_t pg = { .prog = prog };
    memset(&p, 0, sizeof p);
    memset(&stats_of, 0, sizeof stats_of);
    p.o = o;
    p.prog = prog;
    p.t = &t;
    p.t0 = t_start;
    p.first_scan_at = p.last_scan_end_at = -1;

    if (check_outputs(o, err, errlen) < 0) return -1;
    op.n_threads = o->n_threads;
    if (gpuasm_auto_device(o, &op.device, auto_why, sizeof auto_why) < 0) {
        snprintf(err, errlen, "%s", auto_why);
        return -1;
    }
    if (auto_why[0] && says(o, HTS_LOG_INFO)) fprintf(stderr, "%s: info: %s\n", prog, auto_why);
    if (gpuasm_pipe_auto_arm(&p, o, &op, t_start, err, errlen) < 0) return -1;
    opener_start(&op);
    if (gpuasm_targets_load(o->targets_path, o->strict_names, &t, err, errlen) < 0) goto out;
    targets_ok = 1;
    if (p.am.move) gpuasm_auto_move_targets(p.am.move, &t.set);
    if (check_interrupt(err, errlen) < 0 || check_targets(prog, o, &t, err, errlen) < 0) goto out;
    if (chance_setup(prog, &oc, &t, &chance, &co, err, errlen) < 0) goto out;
    /* --write-reference: the targets as @SQ names them, in place before the
     * output opens (a CRAM output may be encoded against it). */
    if (o->write_reference &&
        gpuasm_reference_write(&t, o->write_reference,
                               (const char *const[]){ o->reads_path, o->reads_path2, o->targets_path,
                                                      o->reference, o->out_path, o->stats_path },
                               6, err, errlen) < 0)
        goto out;
    /* The reads open while the engine may still be starting; the engine's
     * failure is the one told when both fail (as when it opened first). */
    char rd_err[1024] = "";
    int rd_rc = gpuasm_reader_open(o->reads_path, o->reads_path2, o->reference, o->n_threads,
                                   o->wildcards, &p.rd, rd_err, sizeof rd_err);
    if (take_engine(prog, &p, &op, &t, err, errlen) < 0) goto out;
    if (check_interrupt(err, errlen) < 0) goto out;
    /* --device cuda's failure comes first, as when CUDA opened first. */
    if (rd_rc < 0 && gpuasm_pipe_cuda_outcome(&p, err, errlen) == 0) snprintf(err, errlen, "%s", rd_err);
    if (rd_rc < 0) goto out;
    if (check_interrupt(err, errlen) < 0) goto out;
    p.shard = o->shard;
    if (gpuasm_screen_wanted(&o->screen) &&
        gpuasm_screen_open(&o->screen, &t, &o->search, o->report.chance, gpuasm_reader_header(p.rd),
                           o->reads_path,
                           (const char *const[]){ o->reads_path, o->reads_path2, o->targets_path,
                                                  o->reference }, 4,
                           o->n_threads, &p.screen, err, errlen) < 0)
        goto out;
    p.ro = (gpuasm_record_opt){ .unmatched = o->unmatched, .keep_tags = o->keep_tags,
                                .rg_id = o->rg_id };
    gpuasm_writer_opt wo = { .path = o->out_path, .format = o->out_format,
                             .n_threads = o->n_threads, .pg_cl = o->pg_cl,
                             .version = o->version, .input = gpuasm_reader_header(p.rd),
                             .copy_rg = o->keep_tags, .rg_line = o->rg_line,
                             .comment = co.l ? co.s : NULL, .header_later = p.am.strict };
    if (gpuasm_writer_open(&wo, &t, &w, err, errlen) < 0) goto out;
    /* Opened now so that a bad --stats path fails before any work; written
     * through a temporary file like -o (util/output_file.h). */
    if (o->stats_path && !(stats_fp = gpuasm_outfile_open(&stats_of, o->stats_path, err, errlen)))
        goto out;
    gpuasm_pipe_size(&p, prog);
    gpuasm_pipe_sync(&p, 1);
    sync_ok = 1;

    /* What the program, its libraries, the targets and the engine hold
     * before the first read: outside --max-memory's bound. */
    const long rss_start_kb = gpuasm_rss_kb();
    pg.on = !o->quiet && (o->progress || isatty(STDERR_FILENO));
    pg.rd = p.rd;
    pg.t0 = pg.last = gpuasm_now_s();
    set_running(&p);
    int piped = gpuasm_pipe_run(&p, w, &pg, &c);
    set_running(NULL);
    /* --device cuda: CUDA must have opened, even where the CPU scanned
     * every read while it started; its failure is told before any other. */
    const int cuda_failed = gpuasm_pipe_cuda_outcome(&p, err, errlen) < 0;
    if (cuda_failed || piped < 0) {
        if (pg.on) gpuasm_pipe_progress(&pg, c.reads, c.hit_records, 1);
        if (!cuda_failed) snprintf(err, errlen, "%s", p.err);
        goto out;
    }
    if (pg.on) gpuasm_pipe_progress(&pg, c.reads, c.hit_records, 1);
    tell_run(prog, o, &p, &c);
    tell_max_memory(prog, o, &p, rss_start_kb);
    writer_ok = 1;
    ret = 0;
out:
    /* An engine still opening (an earlier step failed) is waited for. */
    opener_join(&op);
    if (op.eng) gpuasm_engine_close(op.eng);
    /* The --stats report first, into its temporary file, so that -o and
     * --stats are moved into place together, or neither is. */
    if (stats_fp) {
        if (ret == 0) {
            ret = write_stats(stats_fp, prog, o, &p, &c, t_start, err, errlen);
            stats_ok = ret == 0;
        } else {
            fclose(stats_fp);
        }
    }
    if (w) {
        char cerr[512];
        if (gpuasm_writer_close(w, ret == 0 && writer_ok, cerr, sizeof cerr) < 0 && ret == 0) {
            snprintf(err, errlen, "%s", cerr);
            ret = -1;
        }
    }
    if (gpuasm_screen_close(p.screen, ret == 0, prog, err, errlen) < 0 && ret == 0) {
        ret = -1;
        gpuasm_output_remove_result(o->out_path);
    }
    if (stats_ok && ret == 0 && gpuasm_outfile_commit(&stats_of, err, errlen) < 0) {
        ret = -1;
        /* The run fails, so its SAM output goes too (as for any failure). */
        gpuasm_output_remove_result(o->out_path);
    }
    /* A failed run leaves no statistics that look like a result. */
    if (ret < 0) gpuasm_outfile_abort(&stats_of);
    gpuasm_outfile_free(&stats_of);
    if (sync_ok) gpuasm_pipe_sync(&p, 0);
    gpuasm_pipe_free_slots(&p);
    /* Every scan is over: the engine moved to closes, or a thread still
     * starting CUDA is left to the process's end (auto_move.h). */
    gpuasm_auto_move_end(p.am.move);
    gpuasm_reader_close(p.rd);
    gpuasm_engine_close(p.eng);
    gpuasm_chance_free(chance);   /* after the screen, whose report read it */
    ks_free(&co);
    if (targets_ok) gpuasm_targets_free(&t);
    return ret;
}
