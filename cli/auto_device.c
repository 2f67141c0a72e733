/* SPDX-License-Identifier: MIT */
/* auto_device.c -- the --device auto policy (see auto_device.h): what it
 * opens (the CPU for a small input), and, for the scan pipeline
 * (pipeline_int.h), when CUDA starts (the input proves large), how the CPU
 * scans meanwhile (calls of about AUTO_CHUNK_S), when the scans move to
 * CUDA (auto_move.h, the thread that opens it), and what the run tells
 * and counts of it.  Its knobs: GPUASM_AUTO_* (search/settings.h). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pthread.h>
#include <stdlib.h>

#include "cli/auto_device.h"
#include "cli/auto_move.h"
#include "cli/pipeline_int.h"
#include "cli/scan_errors.h"
#include "engine/backend.h"
#include "search/settings.h"
#include "util/clock.h"
#include "util/grow.h"

/* Cells per CPU thread below which the CPU is taken: ~0.3 s of CUDA start
 * at the slowest CPU rate measured (issue #14: the P3 adapter screen; the
 * P2 virus screen runs 800x faster, BENCHMARKS.md, "Measurements behind
 * the code"), so a size estimate cannot tell them apart: this bound keeps
 * auto from ever being much slower than CUDA, and takes the CPU only for
 * inputs that are small for every workload.  Calibrate on the GPU host (tests/bench/pipeline,
 * small-input rows).  Above the bound auto starts on the CPU anyway and
 * moves to CUDA once it is ready (auto_move.h), which serves both; the
 * bound now only spares tiny inputs CUDA's start in the background. */
#define AUTO_CPU_CELLS_PER_THREAD 250000000.0

/* Bases a file holds, estimated from its size: FASTQ has ~2.2 bytes per
 * base (sequence, quality, name), FASTA ~1; compressed (gzip, BGZF, BAM,
 * CRAM) data ~3x fewer bytes.  -1 when unknown (a pipe, standard input). */
static double est_bases(const char *path, double bytes_per_base)
{
    struct stat st;
    if (!path || !strcmp(path, "-") || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    unsigned char m[4] = { 0 };
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    ssize_t n = read(fd, m, sizeof m);
    close(fd);
    int packed = n >= 2 && m[0] == 0x1f && m[1] == 0x8b;              /* gzip, BGZF, BAM */
    packed |= n == 4 && !memcmp(m, "CRAM", 4);
    return (double)st.st_size / bytes_per_base * (packed ? 3.0 : 1.0);
}

double gpuasm_auto_est_read_bases(const gpuasm_scan_opt *o)
{
    const double rb = est_bases(o->reads_path, 2.2);
    const double rb2 = o->reads_path2 ? est_bases(o->reads_path2, 2.2) : 0;
    return rb < 0 || rb2 < 0 ? -1 : rb + rb2;
}

int gpuasm_auto_device(const gpuasm_scan_opt *o, const char **device, char *why, size_t whylen)
{
    *device = o->device;
    why[0] = 0;
    if (strcmp(o->device, "auto")) return 0;
    gpuasm_settings s;
    gpuasm_err err;
    if (gpuasm_settings_read(&s, &err) < 0) {
        snprintf(why, whylen, "%s", err.msg);
        return -1;
    }
    double rb = est_bases(o->reads_path, 2.2);
    double rb2 = o->reads_path2 ? est_bases(o->reads_path2, 2.2) : 0;
    double tb = est_bases(o->targets_path, 1.0);
    if (rb < 0 || rb2 < 0 || tb < 0) return 0;
    const int threads = o->n_threads < 1 ? 1 : o->n_threads;
    const double per = s.auto_cpu_cells >= 0 ? (double)s.auto_cpu_cells : AUTO_CPU_CELLS_PER_THREAD;
    const double cells = 2.0 * (rb + rb2) * tb, limit = per * threads;
    if (cells < limit) {
        *device = "cpu";
        snprintf(why, whylen, "--device auto: a small input (about %.3g cells, under %.3g for "
                 "%d CPU thread%s: GPUASM_AUTO_CPU_CELLS): the CPU, without starting CUDA",
                 cells, limit, threads, threads > 1 ? "s" : "");
    }
    return 0;
}

/* ---- the scan threads under --device auto (pipeline_int.h) ------------------ */

/* --device auto's CPU scans while CUDA starts (auto_move.h) are cut into
 * calls of about this many seconds, so that the move to CUDA waits at most
 * about one of them (a P3 batch of 4 M bases takes seconds on the CPU).
 * The chunk doubles while a call takes under half of it and halves past
 * twice it, from AUTO_CHUNK_BASES0 bases, never under AUTO_CHUNK_BASES_MIN. */
#define AUTO_CHUNK_S 0.02
#define AUTO_CHUNK_BASES0 (64ull << 10)
#define AUTO_CHUNK_BASES_MIN 1024ull

/* --device auto's start rule (auto_proved_large) measures the CPU's rate
 * over at least this many seconds of calls after the first. */
#define AUTO_GO_MEASURE_S 0.03

/* Count a scan call on side k (0 the CPU, 1 the engine moved to) of
 * batch seq (the first call on side 1 names the batch of the move). */
static void auto_count_call(pipe_t *p, int k, uint64_t seq)
{
    auto_side_t *am = &p->am;
    pthread_mutex_lock(&p->lock);
    if (k && am->calls[1]++ == 0) am->move_batch = seq;
    if (!k) am->calls[0]++;
    pthread_mutex_unlock(&p->lock);
}

/* Count the n[k] reads of a round done on side k and the batch each side
 * began (first[k]), once the round is whole: a round that meets the hit
 * budget ends at the reads its calls kept (keep_prefix), or (a call that
 * kept none: CUDA's) is halved and scanned again, and its reads count
 * once. */
static void auto_count_reads(pipe_t *p, const uint32_t n[2], const int first[2])
{
    auto_side_t *am = &p->am;
    pthread_mutex_lock(&p->lock);
    for (int k = 0; k < 2; k++) {
        am->reads[k] += n[k];
        am->batches[k] += first[k] != 0;
    }
    pthread_mutex_unlock(&p->lock);
}

/* The engine moved to has more lanes than the CPU's one (several GPUs,
 * GPUASM_CUDA_LANES): a scan thread for each further lane.  One that does
 * not start leaves its lane unused (fewer lanes, not an error). */
static void auto_spawn(pipe_t *p)
{
    auto_side_t *am = &p->am;
    const int n = gpuasm_engine_lanes(am->to) - 1;
    if (n <= 0 || !(am->extra = calloc((size_t)n, sizeof(*am->extra)))) return;
    pthread_mutex_lock(&p->lock);
    p->scanners_left += n;   /* this thread still runs: the count never reached 0 */
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < n; i++) {
        am->extra[i].p = p;
        am->extra[i].lane = i + 1;
        if (pthread_create(&am->extra[i].tid, NULL, gpuasm_pipe_scan_main, &am->extra[i]) != 0) {
            pthread_mutex_lock(&p->lock);
            p->scanners_left -= n - i;
            pthread_mutex_unlock(&p->lock);
            break;
        }
        am->extra[i].started = 1;
        am->n_extra = i + 1;
    }
}

/* The CPU's rate (bases a second) from its calls so far, or 0 while too
 * few.  The rate leaves the first call out (it also builds the filters and
 * wakes the threads: its prediction was off by more than the start it
 * saves, BENCHMARKS.md, "Measurements behind the code"), is measured over
 * AUTO_GO_MEASURE_S at least (one slow call must not start CUDA), and is
 * the better of the calls' average and the last call's (the calls grow,
 * and larger calls spread the threads' hand-offs over more bases). */
static double auto_cpu_rate(const auto_side_t *am)
{
    if (am->calls[0] < 3 || am->cpu_s - am->first_s < AUTO_GO_MEASURE_S || am->cpu_bases <= am->first_bases ||
        am->last_s <= 0)
        return 0;
    const double rate = (double)(am->cpu_bases - am->first_bases) / (am->cpu_s - am->first_s);
    const double last = (double)am->last_bases / am->last_s;
    return last > rate ? last : rate;
}

/* Has the input proved large enough to start CUDA (issue #14: "starts on
 * the CPU and moves to the GPU when the input proves large")?  Opening
 * CUDA costs even a run that never uses it: a driver start and teardown
 * (BENCHMARKS.md, "Measurements behind the code").  So CUDA starts only when the
 * CPU alone would take at least go_s for the whole input: predicted from
 * its calls so far and the input's size estimated from its file
 * (auto_device.h), or spent already where the size is unknown (a pipe). */
static int auto_proved_large(const auto_side_t *am)
{
    if (am->cpu_s >= am->go_s) return 1;
    const double rate = auto_cpu_rate(am);
    if (am->est_bases <= 0 || rate <= 0) return 0;
    const double left = am->est_bases > (double)am->cpu_bases ? am->est_bases - (double)am->cpu_bases : 0;
    return am->cpu_s + left / rate >= am->go_s;
}

/* The faster device does the work (issue #28): CUDA beats the CPU where
 * its kernels carry the run, but where the host plans every read's
 * windows (a virus database, 20 Mb genomes, sparse primers: BENCHMARKS.md
 * "Measurements behind the code") it pays the CPU's planning and more.
 * The CPU's calls before the move are small (AUTO_CHUNK_S: the threads'
 * hand-offs weigh on them), so they do not say how fast it scans a whole
 * round.  Lane 0 therefore times the engine moved to over its calls after
 * the first (which builds its own tables), a second of them
 * (GPUASM_AUTO_BACK_MS) and AUTO_BACK_CALLS at least, then scans one round on the CPU (the probe)
 * and goes back to the CPU for good when the CPU scanned more bases a
 * second there; else it stays.  Under --device cuda it stays (the user's
 * choice); lanes of further GPUs stay too.  GPUASM_AUTO_TEST_BACK=N: back
 * after the Nth call on the engine moved to, no probe (the tests). */
#define AUTO_BACK_CALLS 1
static void auto_back(auto_side_t *am, int probe, double dt, uint64_t bases)
{
    if (!am->back_on || am->back || am->strict || am->probe == 2) return;
    if (probe) {   /* the CPU's round */
        am->probe = 2;
        am->back_cpu_rate = dt > 0 ? (double)bases / dt : 0;
        am->back_to_rate = am->to_s > 0 ? (double)am->to_bases / am->to_s : 0;
        if (am->back_cpu_rate > am->back_to_rate) {
            am->back = 1;
            am->back_s = gpuasm_now_s() - am->t0;
        }
        return;
    }
    if (am->to_calls++ > 0) {
        am->to_s += dt;
        am->to_bases += bases;
    }
    if (am->test_back) {
        if (am->to_calls < am->test_back) return;
        am->back = 1;
        am->back_s = gpuasm_now_s() - am->t0;
        am->back_to_rate = am->to_s > 0 ? (double)am->to_bases / am->to_s : 0;
        return;
    }
    if (am->to_calls > AUTO_BACK_CALLS && am->to_s >= am->back_measure_s) am->probe = 1;
}

/* A CPU call of dt seconds over bases: the totals auto_proved_large reads. */
static void auto_cpu_call(auto_side_t *am, double dt, uint64_t bases)
{
    if (am->cpu_bases == 0) {
        am->first_s = dt;
        am->first_bases = bases;
    }
    am->cpu_s += dt;
    am->cpu_bases += bases;
    am->last_s = dt;
    am->last_bases = bases;
}

/* Has the engine to move to become ready?  Polled between CPU calls; the
 * tests' move (test_at) waits for it at a chosen call.  wait: the next CPU
 * call would be one huge read (auto_huge_read): start a deferred open and
 * wait for its outcome instead. */
static void auto_check(pipe_t *p, int wait)
{
    auto_side_t *am = &p->am;
    if (am->to || am->failed) return;
    if (gpuasm_auto_move_deferred(am->move)) {
        if (!wait && !auto_proved_large(am)) return;
        (void)gpuasm_auto_move_go(am->move);   /* a failure is polled below */
    }
    /* The tests' move happens at exactly that call, never before. */
    if (!wait && am->test_at && am->calls[0] < am->test_at) return;
    am->to = gpuasm_auto_move_poll(am->move, wait || am->test_at != 0, &am->failed);
    if (am->to) {
        am->moved_s = gpuasm_now_s() - am->t0;
        pthread_mutex_lock(&p->lock);
        p->alloc_to = am->to;   /* the batches' memory follows (pipeline.c) */
        pthread_mutex_unlock(&p->lock);
        auto_spawn(p);
    }
}

/* A read whose search alone is longer on the CPU than CUDA's start: its
 * cells (read x target bases, both strands) at least AUTO_HUGE_READ_CELLS,
 * ~0.5 s of the 16-thread CPU on a huge pair (a 1 Mb read against its
 * 1 Mb target, 2e12 cells: 6.0 s on the H200 host's CPU, 3.2 s on CUDA
 * with its start; BENCHMARKS.md, fourteenth session).  Such a read is
 * not chunked (a call is whole reads), so the CPU start would take all of
 * it: it waits for CUDA instead (GPUASM_AUTO_HUGE_CELLS: the bound). */
#define AUTO_HUGE_READ_CELLS 1e11

static int auto_huge_read(const pipe_t *p, uint64_t read_bases)
{
    const gpuasm_seqset *tg = &p->t->set;
    const double cells = 2.0 * (double)read_bases * (double)tg->off[tg->n];
    return cells >= p->am.huge_cells;
}

/* A call's hits (reads of the call's own numbering) after out's, their
 * reads moved by i (the call's first read in the round).  0 or -1. */
static int append_hits(gpuasm_hits *out, const gpuasm_hits *call, uint32_t i)
{
    if (gpuasm_hits_reserve(out, call->n) < 0) return -1;
    for (size_t h = 0; h < call->n; h++) {
        out->hit[out->n] = call->hit[h];
        out->hit[out->n++].read += i;
    }
    return 0;
}

/* A round of the view that met the hit budget after its first `kept`
 * reads, whose hits out holds (done[k]: those of side k, last: the side
 * of the last ones): cut to whole pairs, counted, and left as the round
 * (out->scanned) when any read is left.  GPUASM_ERR_HIT_LIMIT. */
static int keep_prefix(pipe_t *p, const gpuasm_batch *b, uint32_t r0, uint32_t kept, uint32_t done[2],
                       int last, const int began[2], gpuasm_hits *out, gpuasm_err *err)
{
    out->scanned = kept;
    const uint32_t keep = gpuasm_pipe_keep_pairs(b, r0, out);
    if (keep > 0) {
        done[last] -= kept - keep;   /* at most one read, the last side's */
        auto_count_reads(p, done, began);
    }
    return gpuasm_err_set(err, GPUASM_ERR_HIT_LIMIT, "hit limit");
}

/* A round's scan under --device auto (same contract as
 * gpuasm_engine_scan_lane on the view): on the engine moved to once it is
 * ready; before that on the CPU in calls of about AUTO_CHUNK_S, checking
 * between calls, so that the rest of the round moves as soon as it can.
 * The hits of consecutive read ranges, each sorted (read first), append
 * into the round's sorted hits; out->limit bounds them all together, and
 * where they meet it the round is the reads done so far (keep_prefix). */
int gpuasm_pipe_scan_auto(worker_t *w, uint64_t seq, const gpuasm_batch *b, uint32_t r0,
                          const gpuasm_seqset *view, gpuasm_hits *out, gpuasm_err *err)
{
    const int batch_start = r0 == 0;
    pipe_t *p = w->p;
    auto_side_t *am = &p->am;
    const gpuasm_search_opt *opt = &p->o->search;
    out->n = 0;
    out->scanned = 0;
    uint32_t done[2] = { 0, 0 };
    int began[2] = { 0, 0 }, last = 0;
    for (uint32_t i = 0; i < view->n || i == 0;) {
        if (w->lane == 0) auto_check(p, 0);   /* lanes > 0 run only after the move */
        /* --device cuda: no CPU fallback (the run's message is CUDA's own:
         * gpuasm_pipe_cuda_outcome, called when the pipeline has stopped). */
        if (am->strict && am->failed) return gpuasm_err_set(err, GPUASM_ERR_NO_DEVICE, "CUDA did not open");
        /* on_to: this call runs on the engine moved to (lane 0 not back
         * and not probing the CPU: auto_back) */
        const int probe = am->to && w->lane == 0 && am->probe == 1;
        const int on_to = am->to && !((am->back || probe) && w->lane == 0);
        gpuasm_engine *eng = on_to ? am->to : p->eng;
        const int lane = on_to ? w->lane : 0;
        uint32_t j = view->n;
        if (!am->to && j > 0) {   /* a CPU call of about chunk_bases */
            j = i + 1;
            while (j < view->n && view->off[j + 1] - view->off[i] <= am->chunk_bases) j++;
            if (j == i + 1 && w->lane == 0 && !am->failed && auto_huge_read(p, view->off[j] - view->off[i])) {
                auto_check(p, 1);
                if (am->to || (am->strict && am->failed)) continue;   /* again, on the engine moved to */
            }
        }
        if (i == 0 && j == view->n) {   /* the whole round in one call: no copy */
            const double t0 = gpuasm_now_s();
            int rc = gpuasm_engine_scan_lane(eng, lane, view, opt, out, err);
            if (!am->to) auto_cpu_call(am, gpuasm_now_s() - t0, view->off[view->n]);
            else if ((on_to || probe) && w->lane == 0 && rc == 0)
                auto_back(am, probe, gpuasm_now_s() - t0, view->off[view->n]);
            /* out->scanned: every read (rc 0), the first ones a scan at the
             * hit budget kept, or 0 (gpuasm_engine_scan_lane) */
            if (rc == 0 || out->scanned > 0) {
                uint32_t n[2] = { on_to ? 0 : out->scanned, on_to ? out->scanned : 0 };
                const int first[2] = { !on_to && batch_start, on_to && batch_start };
                auto_count_call(p, on_to, seq);
                if (rc < 0) return keep_prefix(p, b, r0, out->scanned, n, on_to, first, out, err);
                auto_count_reads(p, n, first);
            }
            return rc;
        }
        /* Reads [i, j) as a seqset of their own (offsets from 0 again:
         * the chunk's own array). */
        if (gpuasm_grow((void **)&w->chunk_off, &w->m_chunk_off, (size_t)(j - i) + 1,
                        sizeof(*w->chunk_off)) < 0)
            return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
        uint64_t *off = w->chunk_off;
        for (uint32_t q = i; q <= j; q++) off[q - i] = view->off[q] - view->off[i];
        gpuasm_seqset part = { j - i, off, view->code + view->off[i] };
        w->chunk.limit = 0;
        if (out->limit) {
            if (out->n >= out->limit) return keep_prefix(p, b, r0, i, done, last, began, out, err);
            w->chunk.limit = out->limit - out->n;
        }
        const double t0 = gpuasm_now_s();
        int rc = gpuasm_engine_scan_lane(eng, lane, &part, opt, &w->chunk, err);
        /* the call's reads: all (rc 0), or the first ones it kept at the
         * hit budget, which end the round */
        const uint32_t got = w->chunk.scanned;
        if (rc < 0 && !got) {
            if (rc == GPUASM_ERR_HIT_LIMIT && i > 0) return keep_prefix(p, b, r0, i, done, last, began, out, err);
            if (err->read != GPUASM_NO_INDEX) err->read += i;
            return rc;
        }
        const double dt = gpuasm_now_s() - t0;
        if (!am->to) {
            auto_cpu_call(am, dt, off[got]);
            if (rc == 0 && !am->chunk_fixed && dt < AUTO_CHUNK_S / 2) am->chunk_bases *= 2;
            else if (rc == 0 && !am->chunk_fixed && dt > 2 * AUTO_CHUNK_S &&
                     am->chunk_bases / 2 >= AUTO_CHUNK_BASES_MIN)
                am->chunk_bases /= 2;
        }
        auto_count_call(p, on_to, seq);   /* the reads once the round is whole, below */
        done[on_to] += got;
        began[on_to] |= batch_start && i == 0;
        if (append_hits(out, &w->chunk, i) < 0) return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
        last = on_to;
        if (rc < 0) return keep_prefix(p, b, r0, i + got, done, last, began, out, err);
        i = j;
    }
    auto_count_reads(p, done, began);
    out->scanned = view->n;
    return 0;
}

/* ---- --device auto: the CPU at once, CUDA once ready (auto_move.h) ---------- */

/* Arm the move for a run whose device is still "auto" (not a small input):
 * the CPU opens now (op->device "cpu"), CUDA in the move's thread.  Not
 * armed in a build without CUDA (auto is the CPU there, with its note), or
 * with GPUASM_AUTO_MOVE=0 (auto waits for CUDA, as before).  0, or -1 with
 * err for a malformed knob. */
int gpuasm_pipe_auto_arm(pipe_t *p, const gpuasm_scan_opt *o, opener_t *op, double t0, char *err,
                         size_t errlen)
{
    gpuasm_settings s;
    gpuasm_err why;
    const int cuda = !strncmp(op->device, "cuda", 4);
    if (strcmp(op->device, "auto") && !cuda) return 0;
    if (gpuasm_settings_read(&s, &why) < 0) {
        snprintf(err, errlen, "%s", why.msg);
        return -1;
    }
    const int test = s.auto_test_move > 0;
    /* --device cuda (issue #30, "CUDA's start hidden"): the CPU scans the
     * first batches while CUDA starts, every read after that runs on CUDA,
     * and CUDA must open: its failure is the run's, told as before (no
     * fallback, unlike auto).  Armed in a build without CUDA too: the open
     * then fails at once, with the same words.  --device auto: CUDA opens
     * once the input proves large (auto_proved_large); GPUASM_AUTO_GO_MS=0
     * opens it at once, and so does the tests' move (a CPU stand-in) unless
     * GPUASM_AUTO_GO_MS is given. */
    if (cuda ? !gpuasm_knob(s.cuda_cpu_start, 1)
             : !gpuasm_knob(s.auto_move, 1) || (!test && !gpuasm_backend_cuda_ops()))
        return 0;
    const int64_t go_ms = cuda ? 0 : gpuasm_knob(s.auto_go_ms, 500);
    if (gpuasm_auto_move_start(test ? "cpu" : cuda ? op->device : "cuda:all", o->n_threads,
                               (int)gpuasm_knob(s.auto_test_delay_ms, 0), t0,
                               go_ms > 0 && (!test || s.auto_go_ms >= 0), &p->am.move) < 0)
        return 0;   /* no thread: the engine opens first, as before */
    p->am.strict = cuda;
    p->am.go_s = 1e-3 * (double)go_ms;
    p->am.huge_cells = s.auto_huge_cells >= 0 ? (double)s.auto_huge_cells : AUTO_HUGE_READ_CELLS;
    p->am.est_bases = gpuasm_auto_est_read_bases(o);
    op->device = "cpu";
    p->am.test_at = test ? (uint64_t)s.auto_test_move : 0;
    /* Back to the CPU where the engine moved to is slower (auto_back): not
     * for the tests' stand-in (a second CPU engine, as fast) unless asked
     * (GPUASM_AUTO_TEST_BACK, or GPUASM_AUTO_BACK=1 for the probe). */
    p->am.test_back = s.auto_test_back > 0 ? (uint64_t)s.auto_test_back : 0;
    p->am.back_on = gpuasm_knob(s.auto_back, 1) && (!test || p->am.test_back || s.auto_back == 1);
    p->am.back_measure_s = 1e-3 * (double)gpuasm_knob(s.auto_back_ms, 1000);
    p->am.chunk_bases = (uint64_t)gpuasm_knob(s.auto_chunk_bases, (int64_t)AUTO_CHUNK_BASES0);
    p->am.chunk_fixed = s.auto_chunk_bases > 0;
    p->am.move_batch = 0;
    p->am.moved_s = -1;
    p->am.t0 = t0;
    return 0;
}

int gpuasm_pipe_cuda_outcome(pipe_t *p, char *err, size_t errlen)
{
    int failed = 0;
    gpuasm_err why;
    if (!p->am.move || !p->am.strict) return 0;
    (void)gpuasm_auto_move_poll(p->am.move, 1, &failed);
    if (!failed) return 0;
    gpuasm_auto_move_why(p->am.move, &why);
    gpuasm_msg_engine_open(p->o->device, &why, err, errlen);
    return -1;
}

/* The filters of the run (gpuasm_engine_filter): the engine moved to's
 * when it scanned, else the first engine's. */
const char *gpuasm_pipe_filter(const pipe_t *p)
{
    const char *f = p->am.to && p->am.calls[1] ? gpuasm_engine_filter(p->am.to) : NULL;
    return f ? f : gpuasm_engine_filter(p->eng);
}

/* What the engine moved to is called before it has a description. */
static const char *auto_to_name(const pipe_t *p)
{
    return p->am.test_at ? "the test engine (GPUASM_AUTO_TEST_MOVE)" : "CUDA";
}

/* The note of a run with the move armed (--verbosity 4): where the reads
 * ran; a CUDA that failed keeps the fallback's words ("...; using the CPU"). */
void gpuasm_pipe_auto_tell(pipe_t *p, const char *prog)
{
    const auto_side_t *am = &p->am;
    const char *dev = am->strict ? p->o->device : "auto";
    gpuasm_err why;
    if (am->to) {
        fprintf(stderr, "%s: info: --device %s: %llu reads (%llu batches) on the CPU, then "
                "%llu reads (%llu batches) on %s from batch %llu (ready after %.3f s)\n", prog,
                dev, (unsigned long long)am->reads[0], (unsigned long long)am->batches[0],
                (unsigned long long)am->reads[1], (unsigned long long)am->batches[1],
                gpuasm_engine_describe(am->to), (unsigned long long)am->move_batch,
                gpuasm_auto_move_ready_s(am->move));
        if (am->back && am->test_back)
            fprintf(stderr, "%s: info: --device auto: back to the CPU after %.3f s "
                    "(GPUASM_AUTO_TEST_BACK)\n", prog, am->back_s);
        else if (am->probe == 2)
            fprintf(stderr, "%s: info: --device auto: %s scanned %.4g bases a second, the CPU %.4g on "
                    "a round of its own: %s\n", prog, gpuasm_engine_describe(am->to), am->back_to_rate,
                    am->back_cpu_rate, am->back ? "back to the CPU" : "stayed");
        return;
    }
    if (gpuasm_auto_move_deferred(am->move)) {
        fprintf(stderr, "%s: info: --device auto: the input ended (%.3f s) before it proved large "
                "enough to start %s (GPUASM_AUTO_GO_MS); using the CPU\n", prog,
                gpuasm_now_s() - am->t0, auto_to_name(p));
        return;
    }
    gpuasm_auto_move_why(am->move, &why);
    if (am->strict)   /* CUDA opened (the run failed otherwise), after the last scan */
        fprintf(stderr, "%s: info: --device %s: the input ended before %s was ready (after "
                "%.3f s); every read ran on the CPU\n", prog, dev, auto_to_name(p),
                gpuasm_auto_move_ready_s(am->move));
    else if (am->failed || why.status)
        fprintf(stderr, "%s: info: %s; using the CPU\n", prog, why.msg);
    else
        fprintf(stderr, "%s: info: --device auto: the input ended (%.3f s) before %s was "
                "ready; using the CPU\n", prog, gpuasm_now_s() - am->t0, auto_to_name(p));
}

/* The --stats keys of the move, and both engines' totals in es; dev: the
 * device, "CPU then MOVED" after a move. */
void gpuasm_pipe_auto_stats(pipe_t *p, gpuasm_auto_stats *as, gpuasm_scan_stats *es, char *dev,
                            size_t devlen)
{
    const auto_side_t *am = &p->am;
    gpuasm_err why;
    *as = (gpuasm_auto_stats){ .cpu_reads = am->reads[0], .cpu_batches = am->batches[0],
                               .cpu_scans = am->calls[0], .moved_reads = am->reads[1],
                               .moved_batches = am->batches[1], .moved_scans = am->calls[1],
                               .move_batch = am->calls[1] ? (int64_t)am->move_batch : -1,
                               .ready_s = gpuasm_auto_move_ready_s(am->move),
                               .moved_s = am->calls[1] ? am->moved_s : -1,
                               .back_s = am->back ? am->back_s : -1 };
    if (am->to) {
        gpuasm_scan_stats m;
        gpuasm_engine_stats(am->to, &m);
        gpuasm_scan_stats_add(es, &m);
        as->to = gpuasm_engine_describe(am->to);
        if (am->calls[1]) {
            size_t l = strlen(dev);
            snprintf(dev + l, devlen - l, " then %s", as->to);
        }
        return;
    }
    if (gpuasm_auto_move_deferred(am->move)) {
        as->to = "not started (the input ended before it proved large)";
        return;
    }
    gpuasm_auto_move_why(am->move, &why);
    if (why.status) {
        snprintf(p->am.why_to, sizeof p->am.why_to, "failed: %s", why.msg);
        as->to = p->am.why_to;
    } else {
        as->to = as->ready_s >= 0 ? "unused (ready after the last scan)" : "not ready";
    }
}
