/* pipeline.c -- read -> prep -> scan -> report -> write (see pipeline.h).
 *
 * Stages and who runs them:
 *
 *   reader thread    gpuasm_reader_next() into a free slot       -> prep queue
 *   prep thread      gpuasm_batch_encode(): the 2-bit codes      -> scan queue
 *   scan thread x L  gpuasm_engine_scan_lane(lane i)             -> report queue
 *   report thread xR gpuasm_report_read() + SAM records per read -> done[seq % S]
 *   writer (caller)  done[next % S] in input order, sam_write1   -> free list
 *
 * S = 4 x L + 4 slots (batch + hits + output records) circulate; nothing
 * else is allocated per batch once the slots have grown to the largest
 * batch seen, and nothing per read.  S bounds memory: at most S batches of
 * about batch_bases bases exist at any time.  Why 4 x L + 4: each lane can
 * hold one batch being scanned and one queued behind it (so a CUDA stream
 * never waits for the reader), plus one batch being read and one being
 * written; with small batches (BATCH_BASES_MAX) the same again lets the
 * report threads work on several batches while a slow one is written.
 *
 * Order: batch numbers (seq) are given by the reader; slots in flight
 * always have seq in [next, next + S), so done[seq % S] never collides and
 * the writer emits batch `next` as soon as it is reported.  The engine
 * sorts each batch's hits (gpuasm_hits_sort), and records are built from
 * one batch alone (the reader keeps adjacent mates in one batch), so the
 * bytes do not depend on which lane or thread handled a batch.
 *
 * Rounds (the memory bound, below): a batch whose hits pass its share is
 * scanned, reported and written in rounds of fewer reads; after writing a
 * round the writer sends the batch back to the front of the scan queue and
 * still waits for the same `next`, so the order and bytes stay the same.
 *
 * Errors: the first one (any thread) is kept; every wait loop checks
 * `failed`, so all threads leave, and the caller's writer close drops the
 * temporary -o file.  gpuasm_scan_interrupt() is such an error, from
 * outside (a signal).
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <htslib/sam.h>
#include <htslib/kstring.h>

#include "cli/auto_device.h"
#include "cli/auto_move.h"
#include "engine/backend.h"
#include "align/chance.h"
#include "util/clock.h"
#include "engine/engine.h"
#include "util/grow.h"
#include "util/output_file.h"
#include "cli/pipeline.h"
#include "io/reads.h"
#include "kernels/registry.h"
#include "io/records.h"
#include "cli/scan_errors.h"
#include "io/sam_out.h"
#include "io/stats_json.h"
#include "io/targets.h"

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

/* Seconds between progress line updates. */
#define PROGRESS_PERIOD_S 0.5

/* Default batch size limits (--batch-size overrides both).  A batch is the
 * unit of overlap: the first batch is read before any scan starts and the
 * last is written after every scan ended, so batches far larger than this
 * (say, a device-memory-sized one holding a whole 1 M-read input) would
 * serialise the stages again.  Measured on an H200 (tests/bench/sweep-batch,
 * 1 M P2 reads): 32 M-base batches 3.10 s wall, 16 M 2.33 s, 8 M 1.93 s,
 * 4 M 1.70 s, 2 M 1.66 s, with the scan flat at ~0.85 s; 4 M bases is
 * ~27 k reads of 150 bp, still thousands of blocks per launch. */
#define BATCH_BASES_MAX (4ull << 20)
/* Host bytes per read base in flight: its code (1), its BAM record (SEQ
 * 0.5, QUAL 1, name, core, allocation rounding), output records and hits;
 * measured 6.7 for 100-bp FASTQ reads (peak RSS over 4 slots of 1 M
 * bases).  Sizes a batch within its half of a slot's memory (below). */
#define HOST_BYTES_PER_BASE 8

/* The memory bound (issue #12; README.md "Memory"): the batches, hits and
 * output records in flight share --max-memory, by default 1 GiB or 64 MiB
 * per slot where there are more than 16 slots (several GPUs), so that
 * default batches keep their BATCH_BASES_MAX bases.  Each slot gets an
 * equal share: half for its batch (HOST_BYTES_PER_BASE per base), half for
 * the hits and records of its rounds (round_hit_limit; scan_round cuts a
 * batch into rounds so that they fit).  Not in the bound: the targets
 * (1 byte per base, plus a device copy), htslib's buffers and threads, the
 * program (tens of MiB), and one read whose hits alone pass its share. */
#define DEFAULT_MAX_MEMORY (1ull << 30)
#define SLOT_MEMORY_MIN (64ull << 20)
uint64_t gpuasm_default_max_memory(size_t n_slots)
{
    const uint64_t per_slot = (uint64_t)n_slots * SLOT_MEMORY_MIN;
    return per_slot > DEFAULT_MAX_MEMORY ? per_slot : DEFAULT_MAX_MEMORY;
}

/* Is a message of this htslib log level shown (--verbosity, --quiet)? */
static int says(const gpuasm_scan_opt *o, int level)
{
    return !o->quiet && o->verbosity >= level;
}

static void *engine_alloc(void *ctx, size_t n) { return gpuasm_engine_host_alloc(ctx, n); }
static void engine_free(void *ctx, void *p) { gpuasm_engine_host_free(ctx, p); }

/* Slots for L lanes (see the top of this file for why 4 L + 4). */
static size_t slots_for(int lanes) { return 4 * (size_t)lanes + 4; }

/* The batch size when --batch-size is not given: the engine's suggestion,
 * at most BATCH_BASES_MAX, within half of a slot's share of the memory
 * bound, and small enough that n_slots batches fit in a quarter of the
 * physical memory. */
static uint64_t default_batch_bases(gpuasm_engine *eng, size_t n_slots, uint64_t slot_bytes)
{
    uint64_t b = gpuasm_engine_suggest_batch_bases(eng);
    if (b == 0 || b > BATCH_BASES_MAX) b = BATCH_BASES_MAX;
    if (slot_bytes / 2 / HOST_BYTES_PER_BASE < b) b = slot_bytes / 2 / HOST_BYTES_PER_BASE;
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psize > 0) {
        uint64_t budget = (uint64_t)pages * (uint64_t)psize / 4;
        uint64_t per_slot = budget / n_slots / HOST_BYTES_PER_BASE;
        if (per_slot < b) b = per_slot;
    }
    return b < 1024 ? 1024 : b;
}


/* ---- slots and queues ------------------------------------------------------ */

/* A run of a batch's reads reported by one thread: a batch is cut into
 * parts so that every report thread works on it (one batch of 200k reads
 * per thread left 11 of 16 threads idle and was 85% of the P2 wall time). */
typedef struct {
    uint32_t r0, r1;           /* reads [r0, r1) of the batch; never splits adjacent mates */
    gpuasm_records out;        /* output records of the part, reused (SAM text: one read's) */
    kstring_t text;            /* SAM text output: the part's lines (format_records) */
    uint64_t n_rec;            /* records of the part */
    double chance_whole;       /* sum over its reads of the whole occurrences expected by chance */
} part_t;

/* One batch on its way through the pipeline, with everything reused. */
typedef struct {
    gpuasm_batch batch;
    gpuasm_hits hits;          /* the round's hits, read indices of the batch */
    uint32_t r0, r1;           /* the round: reads [r0, r1) of the batch (see below) */
    uint64_t max_len;          /* the batch's longest read (set by the prep thread) */
    uint64_t *sub_off;         /* the round's reads as a seqset of their own: offsets */
    size_t m_sub_off;
    uint64_t seq;              /* batch number, input order, from 0 */
    part_t *part;              /* [n_part] in read order; m_part allocated */
    size_t n_part, m_part;
    size_t next_part;          /* next part a report thread takes (lock) */
    size_t parts_left;         /* parts not yet reported (lock) */
} slot_t;

/* FIFO of slot pointers; capacity = number of slots, so pushes never fail. */
typedef struct {
    slot_t **q;
    size_t head, n, cap;
} fifo_t;

static void fifo_push(fifo_t *f, slot_t *s) { f->q[(f->head + f->n++) % f->cap] = s; }

/* Put s first (a batch coming back for its next round goes before later ones). */
static void fifo_push_front(fifo_t *f, slot_t *s)
{
    f->head = (f->head + f->cap - 1) % f->cap;
    f->q[f->head] = s;
    f->n++;
}

static slot_t *fifo_pop(fifo_t *f)
{
    slot_t *s = f->q[f->head];
    f->head = (f->head + 1) % f->cap;
    f->n--;
    return s;
}

typedef struct pipe pipe_t;

/* A scan or report thread. */
struct worker {
    pipe_t *p;
    pthread_t tid;
    int started;
    int lane;                  /* scan threads */
    gpuasm_report rep[2];      /* report threads: a read and its mate */
    kstring_t scratch;
    kstring_t line;            /* report threads, SAM text output: sam_format1's line */
    gpuasm_hits chunk;         /* scan threads, --device auto: one CPU call's hits */
    uint64_t ew_len;           /* report threads: the read length of ew_val (0: none yet) */
    double ew_val;             /* the whole occurrences a random read of ew_len expects */
    uint64_t *chunk_off;       /* ... and its reads' offsets */
    size_t m_chunk_off;
};

/* --device auto's move (auto_move.h): what ran where.  Before the move one
 * scan thread runs (the CPU engine has one lane) and alone touches to,
 * failed and chunk_bases; the move starts a scan thread for each further
 * lane of the engine moved to (extra), and the counts are kept under the
 * pipeline's lock from then on. */
typedef struct worker worker_t;
typedef struct {
    gpuasm_auto_move *move;    /* NULL: no move armed */
    gpuasm_engine *to;         /* the engine moved to, NULL before the move */
    int failed;                /* it could not open: the CPU runs everything */
    uint64_t test_at;          /* GPUASM_AUTO_TEST_MOVE: wait for it at this CPU call (0: never) */
    uint64_t chunk_bases;      /* the CPU call size (AUTO_CHUNK_S) */
    int chunk_fixed;           /* GPUASM_AUTO_CHUNK_BASES: not adapted */
    uint64_t calls[2], reads[2];   /* [0] the CPU, [1] the engine moved to (lock) */
    uint64_t batches[2];       /* batches whose first read was scanned there (lock) */
    worker_t *extra;           /* scan threads of lanes 1.. of the engine moved to */
    int n_extra;
    uint64_t move_batch;       /* the batch of the first scan after the move */
    double moved_s;            /* when it happened, seconds from the run's start */
    double t0;
    /* When CUDA starts (GPUASM_AUTO_GO_MS, auto_proved_large): the CPU's
     * calls so far (seconds, bases) against the input's estimated bases. */
    double cpu_s, go_s, est_bases, first_s, last_s;
    uint64_t cpu_bases, first_bases, last_bases;
    char why_to[sizeof ((gpuasm_err *)0)->msg + 16];   /* --stats' auto_to after a failure */
} auto_side_t;

struct pipe {
    const gpuasm_scan_opt *o;
    const char *prog;          /* for warnings from the threads */
    gpuasm_record_opt ro;      /* what records.c needs of o */
    const gpuasm_targets *t;
    gpuasm_engine *eng;
    gpuasm_reader *rd;
    gpuasm_screen *screen;     /* report and reads out (plugin/screen.h), or NULL */
    gpuasm_shard shard;        /* --shard: the reader's template count */
    gpuasm_writer *w;
    int text_out;              /* SAM text: the report threads format the lines */
    uint64_t max_bases;
    uint64_t hit_bytes;        /* bytes a round's hits and records may take (the memory bound) */
    uint64_t max_memory;       /* the memory bound, bytes */
    uint32_t round_hint;       /* reads per round that last fitted (lock; 0: a whole batch) */
    auto_side_t am;            /* --device auto's move */

    slot_t *slot;
    size_t n_slots;

    pthread_mutex_t lock;      /* everything below */
    pthread_cond_t cv_free, cv_prep, cv_scan, cv_report, cv_done;
    fifo_t free_q, prep_q, scan_q, report_q;
    slot_t **done;             /* [n_slots] reported, by seq % n_slots */
    uint64_t n_batches;        /* batches handed out by the reader */
    int read_done;             /* the reader saw the end of the input */
    uint64_t unscanned;        /* batches handed out whose last round is not scanned yet */
    int scanners_left;         /* scan threads still running */
    int n_report;              /* report threads */
    /* Where the time goes (--stats' stage keys, stats_json.h): seconds each
     * stage was busy, summed over its threads, and two instants from t0. */
    double t0;                 /* the run's start (gpuasm_now_s) */
    double read_busy, encode_busy, report_busy, write_busy;
    double first_scan_at, last_scan_end_at;   /* -1 before */
    double engine_ready_at;    /* the engine was open (CUDA: its start) */
    int failed;
    char err[1024];            /* the first error */
};

/* Record the first error and wake everybody.  Call with the lock held. */
static void fail_locked(pipe_t *p, const char *msg)
{
    if (!p->failed) {
        p->failed = 1;
        snprintf(p->err, sizeof p->err, "%s", msg);
    }
    pthread_cond_broadcast(&p->cv_free);
    pthread_cond_broadcast(&p->cv_prep);
    pthread_cond_broadcast(&p->cv_scan);
    pthread_cond_broadcast(&p->cv_report);
    pthread_cond_broadcast(&p->cv_done);
}

static void fail(pipe_t *p, const char *msg)
{
    pthread_mutex_lock(&p->lock);
    fail_locked(p, msg);
    pthread_mutex_unlock(&p->lock);
}

/* ---- reader ------------------------------------------------------------------ */

static void *reader_main(void *arg)
{
    pipe_t *p = arg;
    char msg[1024];
    for (;;) {
        pthread_mutex_lock(&p->lock);
        while (!p->failed && p->free_q.n == 0) pthread_cond_wait(&p->cv_free, &p->lock);
        if (p->failed) {
            pthread_mutex_unlock(&p->lock);
            break;
        }
        slot_t *s = fifo_pop(&p->free_q);
        pthread_mutex_unlock(&p->lock);

        const double r0 = gpuasm_now_s();
        int nr = gpuasm_shard_next(&p->shard, p->rd, &s->batch, p->max_bases, msg, sizeof msg);

        pthread_mutex_lock(&p->lock);
        p->read_busy += gpuasm_now_s() - r0;
        if (nr < 0) {
            fifo_push(&p->free_q, s);
            fail_locked(p, msg);
            pthread_mutex_unlock(&p->lock);
            break;
        }
        if (nr == 0) {
            fifo_push(&p->free_q, s);
            p->read_done = 1;
            pthread_cond_broadcast(&p->cv_prep);
            pthread_cond_broadcast(&p->cv_scan);
            pthread_cond_broadcast(&p->cv_done);
            pthread_mutex_unlock(&p->lock);
            break;
        }
        s->seq = p->n_batches++;
        s->r0 = s->r1 = 0;   /* no round scanned yet */
        p->unscanned++;
        fifo_push(&p->prep_q, s);
        pthread_cond_signal(&p->cv_prep);
        pthread_mutex_unlock(&p->lock);
    }
    return NULL;
}

/* ---- prep: a batch's codes ------------------------------------------------------ */

/* The batches' 2-bit codes (gpuasm_batch_encode) and longest read, made
 * between the reader and the scan threads by a thread of their own, the
 * one place every batch passes once (rounds of a hit-dense batch go back
 * to the scan queue, already prepared): on the one scan thread of
 * the CPU engine the encoding was serial with each batch's parallel scan
 * (issue #13: 0.36 s of a 2.3 s run on 16 threads, measured with --stats'
 * encode_s), and on the reader it would lengthen the one stage that cannot
 * run in parallel.  Batches keep their order (one thread, one queue). */
static void *prep_main(void *arg)
{
    pipe_t *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        while (!p->failed && p->prep_q.n == 0 && !p->read_done) pthread_cond_wait(&p->cv_prep, &p->lock);
        if (p->failed || p->prep_q.n == 0) {
            pthread_mutex_unlock(&p->lock);
            break;
        }
        slot_t *s = fifo_pop(&p->prep_q);
        pthread_mutex_unlock(&p->lock);

        const double e0 = gpuasm_now_s();
        const int rc = gpuasm_batch_encode(&s->batch);
        s->max_len = 0;
        for (uint32_t i = 0; i < s->batch.n; i++)
            if (s->batch.off[i + 1] - s->batch.off[i] > s->max_len)
                s->max_len = s->batch.off[i + 1] - s->batch.off[i];

        pthread_mutex_lock(&p->lock);
        p->encode_busy += gpuasm_now_s() - e0;
        if (rc < 0) {
            fail_locked(p, "out of memory");
        } else {
            fifo_push(&p->scan_q, s);
            pthread_cond_signal(&p->cv_scan);
        }
        pthread_mutex_unlock(&p->lock);
    }
    return NULL;
}

/* ---- scan --------------------------------------------------------------------- */

/* Are rec[i] and rec[i+1] the two mates of one template? */
static int adjacent_mates(const gpuasm_batch *b, uint32_t i)
{
    return i + 1 < b->n && gpuasm_adjacent_mates(b->rec[i], b->rec[i + 1]);
}

/* Cut a scanned batch into parts for the report threads: about four per
 * thread (for balance), each at least 256 reads or PART_MIN_BASES bases,
 * whichever is fewer reads (to keep the queue lock cold: a part of short
 * reads is cheap, one of long reads is not: 1,000 reads of 10 kb made 4
 * parts of 250 reads, so their tracebacks ran on 4 of 16 threads, issue
 * #11), never between two adjacent mates (a read's mate fields need the
 * mate's report).  0, or -1 when out of memory. */
#define PART_MIN_READS 256
#define PART_MIN_BASES (64ull << 10)
static int cut_parts(slot_t *s, int n_report)
{
    const uint32_t base = s->r0, end = s->r1, n = end - base;
    size_t want = (size_t)n_report * 4, per = want ? (n + want - 1) / want : n;
    const uint64_t bases = n ? s->batch.off[end] - s->batch.off[base] : 0;
    /* Reads per PART_MIN_BASES at the round's mean length (at least 1). */
    uint64_t min_per = bases ? (PART_MIN_BASES * n + bases - 1) / bases : PART_MIN_READS;
    if (min_per > PART_MIN_READS) min_per = PART_MIN_READS;
    if (min_per < 1) min_per = 1;
    if (per < min_per) per = (size_t)min_per;
    size_t n_part = n ? (n + per - 1) / per : 1;
    if (n_part > s->m_part) {
        part_t *q = realloc(s->part, n_part * sizeof(*q));
        if (!q) return -1;
        memset(q + s->m_part, 0, (n_part - s->m_part) * sizeof(*q));
        s->part = q;
        s->m_part = n_part;
    }
    size_t k = 0;
    uint32_t r0 = base;
    while (k < n_part) {
        uint32_t r1 = k + 1 == n_part ? end : base + (uint32_t)((k + 1) * per);
        if (r1 > end) r1 = end;
        if (r1 < r0) r1 = r0;
        if (r1 > base && r1 < end && adjacent_mates(&s->batch, r1 - 1)) r1++;
        s->part[k].r0 = r0;
        s->part[k].r1 = r1;
        r0 = r1;
        k++;
    }
    s->n_part = n_part;
    s->next_part = 0;
    s->parts_left = n_part;
    return 0;
}

/* Bytes one end hit costs until its batch is written: the hit in the slot
 * and in a CPU thread's array, doubled for the arrays' growth. */
#define HIT_BYTES (4 * sizeof(gpuasm_endhit))

/* Bytes one SAM record of a read of read_len bases may cost until written:
 * struct, name, CIGAR, tags, and per read base 0.5 B of SEQ, 1 B of QUAL,
 * MD. */
static uint64_t record_bytes(uint64_t read_len) { return 160 + (5 * read_len) / 2; }

/* The most end hits a round of R reads may store within budget bytes (the
 * memory bound), records of rec bytes each.  Records come from hits, plus
 * at most one without a hit per read (--unmatched, a pair's other mate):
 * with --all every hit may become one, so h hits cost h (HIT_BYTES + rec)
 * + R rec; otherwise a read has at most per_read records (one per target,
 * --best: one), so h hits cost at most h HIT_BYTES + min(h, R per_read) rec
 * + R rec, and long reads with many end hits (candidate ends of a 10 kb
 * read) are not cut into rounds of a few reads, which left the GPU idle
 * (issue #11: 85 rounds for 1,000 reads).  Never below 1,024 (a round of
 * one read or pair is scanned without a limit anyway). */
static uint64_t round_hit_limit(uint64_t budget, uint64_t rec, uint64_t R, int all, uint64_t per_read)
{
    const uint64_t lead = R * rec;   /* the records without a hit */
    uint64_t limit = budget > lead ? (budget - lead) / (HIT_BYTES + rec) : 0;
    if (!all) {
        if (limit > R * per_read) limit = R * per_read;   /* those that can all be records */
        const uint64_t recs = R * (per_read + 1) * rec;   /* every record a round can have */
        if (budget > recs && (budget - recs) / HIT_BYTES > limit) limit = (budget - recs) / HIT_BYTES;
    }
    return limit < 1024 ? 1024 : limit;
}

/* Count a scan of n reads of batch seq on side k (0 the CPU, 1 the engine
 * moved to); first: it began the batch. */
static void auto_count(pipe_t *p, int k, uint64_t seq, uint32_t n, int first)
{
    auto_side_t *am = &p->am;
    pthread_mutex_lock(&p->lock);
    if (k && am->calls[1]++ == 0) am->move_batch = seq;
    if (!k) am->calls[0]++;
    am->reads[k] += n;
    am->batches[k] += first != 0;
    pthread_mutex_unlock(&p->lock);
}

static void *scan_main(void *arg);

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
        if (pthread_create(&am->extra[i].tid, NULL, scan_main, &am->extra[i]) != 0) {
            pthread_mutex_lock(&p->lock);
            p->scanners_left -= n - i;
            pthread_mutex_unlock(&p->lock);
            break;
        }
        am->extra[i].started = 1;
        am->n_extra = i + 1;
    }
}

/* Has the input proved large enough to start CUDA (issue #14: "starts on
 * the CPU and moves to the GPU when the input proves large")?  Opening
 * CUDA costs even a run that never uses it: ~80-150 ms of driver start and
 * teardown measured on an H100 host for runs whose every read stayed on
 * the CPU (BENCHMARKS.md, "Small inputs").  So CUDA starts only when the
 * CPU alone would take at least go_s for the whole input: predicted from
 * its calls so far and the input's size estimated from its file
 * (auto_device.h), or spent already where the size is unknown (a pipe). */
static int auto_proved_large(const auto_side_t *am)
{
    if (am->cpu_s >= am->go_s) return 1;
    /* The rate leaves the first call out (it also builds the filters and
     * wakes the threads: a 20,000-read input predicted over 400 ms from it
     * took 0.3 s in all), is measured over AUTO_GO_MEASURE_S at least (one
     * slow call must not start CUDA), and is the better of the calls'
     * average and the last call's (the calls grow, and larger calls spread
     * the threads' hand-offs over more bases). */
    if (am->est_bases <= 0 || am->calls[0] < 3 || am->cpu_s - am->first_s < AUTO_GO_MEASURE_S ||
        am->cpu_bases <= am->first_bases || am->last_s <= 0)
        return 0;
    double rate = (double)(am->cpu_bases - am->first_bases) / (am->cpu_s - am->first_s);
    const double last = (double)am->last_bases / am->last_s;
    if (last > rate) rate = last;
    const double left = am->est_bases > (double)am->cpu_bases ? am->est_bases - (double)am->cpu_bases : 0;
    return am->cpu_s + left / rate >= am->go_s;
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
 * tests' move (test_at) waits for it at a chosen call. */
static void auto_check(pipe_t *p)
{
    auto_side_t *am = &p->am;
    if (am->to || am->failed) return;
    if (gpuasm_auto_move_deferred(am->move)) {
        if (!auto_proved_large(am)) return;
        (void)gpuasm_auto_move_go(am->move);   /* a failure is polled below */
    }
    /* The tests' move happens at exactly that call, never before. */
    if (am->test_at && am->calls[0] < am->test_at) return;
    am->to = gpuasm_auto_move_poll(am->move, am->test_at != 0, &am->failed);
    if (am->to) {
        am->moved_s = gpuasm_now_s() - am->t0;
        auto_spawn(p);
    }
}

/* A round's scan under --device auto (same contract as
 * gpuasm_engine_scan_lane on the view): on the engine moved to once it is
 * ready; before that on the CPU in calls of about AUTO_CHUNK_S, checking
 * between calls, so that the rest of the round moves as soon as it can.
 * The hits of consecutive read ranges, each sorted (read first), append
 * into the round's sorted hits; out->limit bounds them all together. */
static int scan_auto(worker_t *w, uint64_t seq, int batch_start, const gpuasm_seqset *view,
                     gpuasm_hits *out, gpuasm_err *err)
{
    pipe_t *p = w->p;
    auto_side_t *am = &p->am;
    const gpuasm_search_opt *opt = &p->o->search;
    out->n = 0;
    for (uint32_t i = 0; i < view->n || i == 0;) {
        if (w->lane == 0) auto_check(p);   /* lanes > 0 run only after the move */
        gpuasm_engine *eng = am->to ? am->to : p->eng;
        const int lane = am->to ? w->lane : 0;
        uint32_t j = view->n;
        if (!am->to && j > 0) {   /* a CPU call of about chunk_bases */
            j = i + 1;
            while (j < view->n && view->off[j + 1] - view->off[i] <= am->chunk_bases) j++;
        }
        if (i == 0 && j == view->n) {   /* the whole round in one call: no copy */
            const double t0 = gpuasm_now_s();
            int rc = gpuasm_engine_scan_lane(eng, lane, view, opt, out, err);
            if (!am->to) auto_cpu_call(am, gpuasm_now_s() - t0, view->off[view->n]);
            if (rc == 0) auto_count(p, am->to != NULL, seq, view->n, batch_start);
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
            if (out->n >= out->limit) return gpuasm_err_set(err, GPUASM_ERR_HIT_LIMIT, "hit limit");
            w->chunk.limit = out->limit - out->n;
        }
        const double t0 = gpuasm_now_s();
        int rc = gpuasm_engine_scan_lane(eng, lane, &part, opt, &w->chunk, err);
        if (rc < 0) {
            if (err->read != GPUASM_NO_INDEX) err->read += i;
            return rc;
        }
        const double dt = gpuasm_now_s() - t0;
        if (!am->to) {
            auto_cpu_call(am, dt, off[j - i]);
            if (!am->chunk_fixed && dt < AUTO_CHUNK_S / 2) am->chunk_bases *= 2;
            else if (!am->chunk_fixed && dt > 2 * AUTO_CHUNK_S &&
                     am->chunk_bases / 2 >= AUTO_CHUNK_BASES_MIN)
                am->chunk_bases /= 2;
        }
        auto_count(p, am->to != NULL, seq, j - i, batch_start && i == 0);
        if (gpuasm_hits_reserve(out, w->chunk.n) < 0)
            return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
        for (size_t h = 0; h < w->chunk.n; h++) {
            out->hit[out->n] = w->chunk.hit[h];
            out->hit[out->n++].read += i;
        }
        i = j;
    }
    return 0;
}

/* Scan the next round of slot s: reads [s->r1, r1) of its batch, as many
 * as fit in the hit budget.  A round starts at the size that fitted last
 * (round_hint) and is halved while the engine reports more hits than the
 * budget (GPUASM_ERR_HIT_LIMIT) or runs out of memory; a single read (or
 * pair) that alone passes the budget is scanned on its own without a limit
 * (the one case the memory bound does not cover).  Sets s->r0,
 * s->r1 and s->hits (read indices of the batch).  0, or -1 with msg. */
static int scan_round(worker_t *w, slot_t *s, char *msg, size_t msglen)
{
    pipe_t *p = w->p;
    const gpuasm_scan_opt *o = p->o;
    const gpuasm_batch *b = &s->batch;
    const uint32_t r0 = s->r1, left = b->n - r0;   /* codes and max_len: prep_main */
    const uint64_t rec = record_bytes(s->max_len);
    const uint64_t per_read = o->report.best ? 1 : p->t->n;
    pthread_mutex_lock(&p->lock);
    uint32_t want = p->round_hint && p->round_hint < left ? p->round_hint : left;
    pthread_mutex_unlock(&p->lock);
    if (gpuasm_grow((void **)&s->sub_off, &s->m_sub_off, (size_t)b->n + 1, sizeof(*s->sub_off)) < 0) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    for (;;) {
        uint32_t r1 = r0 + want;
        if (r1 < b->n && adjacent_mates(b, r1 - 1)) r1++;   /* pairs stay whole */
        const int alone = r1 - r0 == 1 || (r1 - r0 == 2 && adjacent_mates(b, r0));
        /* The round as a batch of its own (search.h: offsets from 0). */
        for (uint32_t i = r0; i <= r1; i++) s->sub_off[i - r0] = b->off[i] - b->off[r0];
        gpuasm_seqset view = { r1 - r0, s->sub_off, b->code + b->off[r0] };
        gpuasm_err why;
        const uint64_t limit = round_hit_limit(p->hit_bytes, rec, r1 - r0, o->report.all, per_read);
        s->hits.limit = alone ? 0 : (size_t)limit;
        int r = p->am.move ? scan_auto(w, s->seq, r0 == 0, &view, &s->hits, &why)
                           : gpuasm_engine_scan_lane(p->eng, w->lane, &view, &o->search, &s->hits, &why);
        if ((r == GPUASM_ERR_HIT_LIMIT || r == GPUASM_ERR_NOMEM) && !alone) {
            want = (r1 - r0) / 2;
            continue;
        }
        if (r < 0) {
            if (why.read != GPUASM_NO_INDEX) why.read += r0;
            gpuasm_msg_scan(o->reads_path, b, p->t, &o->search, &why, msg, msglen);
            return -1;
        }
        for (size_t h = 0; h < s->hits.n; h++) s->hits.hit[h].read += r0;
        s->r0 = r0;
        s->r1 = r1;
        /* The next round's size: this one, or twice it when the hits used
         * less than a quarter of the budget. */
        uint64_t next = s->hits.n < limit / 4 ? 2 * (uint64_t)(r1 - r0) : r1 - r0;
        pthread_mutex_lock(&p->lock);
        p->round_hint = next >= b->n ? 0 : (uint32_t)next;
        pthread_mutex_unlock(&p->lock);
        return 0;
    }
}

static void *scan_main(void *arg)
{
    worker_t *w = arg;
    pipe_t *p = w->p;
    char full[1024];
    for (;;) {
        pthread_mutex_lock(&p->lock);
        /* Done only when no batch can come back for another round. */
        while (!p->failed && p->scan_q.n == 0 && (!p->read_done || p->unscanned > 0))
            pthread_cond_wait(&p->cv_scan, &p->lock);
        if (p->failed || p->scan_q.n == 0) {
            /* The last scan thread out tells the report threads. */
            if (--p->scanners_left == 0) pthread_cond_broadcast(&p->cv_report);
            pthread_mutex_unlock(&p->lock);
            break;
        }
        slot_t *s = fifo_pop(&p->scan_q);
        if (p->first_scan_at < 0) p->first_scan_at = gpuasm_now_s() - p->t0;
        pthread_mutex_unlock(&p->lock);

        int r = scan_round(w, s, full, sizeof full);
        pthread_mutex_lock(&p->lock);
        p->last_scan_end_at = gpuasm_now_s() - p->t0;
        if (r < 0) {
            fail_locked(p, full);
        } else if (cut_parts(s, p->n_report) < 0) {
            fail_locked(p, "out of memory");
        } else {
            if (s->r1 == s->batch.n && --p->unscanned == 0 && p->read_done)
                pthread_cond_broadcast(&p->cv_scan);   /* the other scan threads may go */
            fifo_push(&p->report_q, s);
            pthread_cond_broadcast(&p->cv_report);
        }
        pthread_mutex_unlock(&p->lock);
    }
    return NULL;
}

/* ---- report: hits -> SAM records (the FLAG and mate rules: records.h) ------------ */

/* Slice of sorted hits that belong to read i, starting at *pos. */
static size_t hits_of_read(const gpuasm_hits *h, size_t *pos, uint32_t i)
{
    size_t s = *pos;
    while (s < h->n && h->hit[s].read < i) s++;
    size_t e = s;
    while (e < h->n && h->hit[e].read == i) e++;
    *pos = e;
    return s;
}

/* SAM text output: the part's records from first on become lines of its
 * text, so that the writer thread only writes bytes.  0, or -1 with err. */
static int format_records(worker_t *w, part_t *s, size_t first, char *err, size_t errlen)
{
    for (size_t i = first; i < s->out.n; i++)
        if (gpuasm_writer_format(w->p->w, s->out.rec[i], &w->line, &s->text) < 0) {
            snprintf(err, errlen, "read %s: cannot format its SAM record (out of memory?)",
                     bam_get_qname(s->out.rec[i]));
            return -1;
        }
    return 0;
}

/* The whole occurrences a random read of len bases expects by chance
 * (kernels/chance.h; cached for the last length: reads of a run are
 * mostly of one length), added to *sum (the run's mean decides the
 * warning of chance_tell). */
static void chance_read(worker_t *w, uint64_t len, double *sum)
{
    const gpuasm_scan_opt *o = w->p->o;
    if (w->ew_len != len || !w->ew_len) {
        w->ew_len = len;
        w->ew_val = gpuasm_chance_whole(o->report.chance, 0, INT32_MIN, len) +
                    gpuasm_chance_whole(o->report.chance, 1, INT32_MIN, len);
    }
    *sum += w->ew_val;
}

/* All records of one part of a scanned batch, in read order.  0, or -1 with err. */
static int report_part(worker_t *w, slot_t *sl, part_t *s, char *err, size_t errlen)
{
    const gpuasm_scan_opt *o = w->p->o;
    const gpuasm_batch *b = &sl->batch;
    char msg[512];
    gpuasm_records_clear(&s->out);
    s->text.l = 0;
    s->n_rec = 0;
    s->chance_whole = 0;
    /* First hit of the part: hits are sorted by read. */
    size_t lo = 0, hi = sl->hits.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sl->hits.hit[mid].read < s->r0) lo = mid + 1; else hi = mid;
    }
    size_t hp = lo;
    for (uint32_t i = s->r0; i < s->r1;) {
        int pair = adjacent_mates(b, i);
        uint32_t nrd = pair ? 2 : 1;
        for (uint32_t q = 0; q < nrd; q++) {
            size_t h0 = hits_of_read(&sl->hits, &hp, i + q);
            const uint8_t *code = b->code + b->off[i + q];
            uint32_t len = (uint32_t)(b->off[i + q + 1] - b->off[i + q]);
            if (o->report.chance) chance_read(w, len, &s->chance_whole);
            if (gpuasm_report_read(&w->rep[q], &o->search, &o->report, code, len, w->p->t,
                                   sl->hits.hit + h0, hp - h0, msg, sizeof msg) < 0) {
                snprintf(err, errlen, "%s: read %s: %s", o->reads_path,
                         bam_get_qname(b->rec[i + q]), msg);
                return -1;
            }
        }
        const gpuasm_report *rp[2] = { &w->rep[0], &w->rep[1] };
        const size_t first = s->out.n;
        if (gpuasm_records_add(&s->out, &w->p->ro, &w->scratch, b->rec + i, rp, (int)nrd) < 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        if (w->p->text_out) {
            if (format_records(w, s, first, err, errlen) < 0) return -1;
            /* The lines are all the writer needs, unless the screening
             * outputs (plugin/screen.h) read the records too: then they
             * are kept; else their memory is reused by the next read's. */
            if (!w->p->screen) {
                s->n_rec += s->out.n;
                s->out.n = 0;
            }
        }
        i += nrd;
    }
    s->n_rec += s->out.n;   /* records kept: not formatted here (BAM, CRAM), or screened */
    return 0;
}

static void *report_main(void *arg)
{
    worker_t *w = arg;
    pipe_t *p = w->p;
    char msg[1024];
    for (;;) {
        pthread_mutex_lock(&p->lock);
        while (!p->failed && p->report_q.n == 0 && p->scanners_left > 0)
            pthread_cond_wait(&p->cv_report, &p->lock);
        if (p->failed || p->report_q.n == 0) {
            pthread_mutex_unlock(&p->lock);
            break;
        }
        /* Take the next part of the oldest batch; the batch leaves the
         * queue when its last part is taken. */
        slot_t *s = p->report_q.q[p->report_q.head];
        part_t *part = &s->part[s->next_part++];
        if (s->next_part == s->n_part) fifo_pop(&p->report_q);
        if (p->report_q.n > 0) pthread_cond_signal(&p->cv_report);
        pthread_mutex_unlock(&p->lock);

        const double q0 = gpuasm_now_s();
        int r = report_part(w, s, part, msg, sizeof msg);

        pthread_mutex_lock(&p->lock);
        p->report_busy += gpuasm_now_s() - q0;
        if (r < 0) {
            fail_locked(p, msg);
        } else if (--s->parts_left == 0) {
            p->done[s->seq % p->n_slots] = s;
            pthread_cond_signal(&p->cv_done);   /* only the writer waits on it */
        }
        pthread_mutex_unlock(&p->lock);
    }
    return NULL;
}

/* ---- progress line ------------------------------------------------------------ */

typedef struct {
    int on;
    const char *prog;
    const gpuasm_reader *rd;   /* counts the reads read (gpuasm_reader_count) */
    double t0, last;
    size_t width;      /* length of the line on screen, to blank a longer one */
} progress_t;

/* Rewrite the line in place: \r, the line, spaces over any longer rest.
 * done/hits: reads and hit records written so far. */
static void progress_show(progress_t *pg, uint64_t done, uint64_t hits, int final)
{
    char line[256];
    double now = gpuasm_now_s(), dt = now - pg->t0;
    /* The reader may have read ahead of what is written, never behind. */
    uint64_t in = pg->rd ? gpuasm_reader_count(pg->rd) : 0;
    if (in < done) in = done;
    int n = snprintf(line, sizeof line, "%s: %llu reads read, %llu done, %.0f reads/s, %llu hits",
                     pg->prog, (unsigned long long)in, (unsigned long long)done,
                     dt > 0 ? (double)done / dt : 0.0, (unsigned long long)hits);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    fprintf(stderr, "\r%s%*s%s", line, len < pg->width ? (int)(pg->width - len) : 0, "",
            final ? "\n" : "");
    fflush(stderr);
    pg->width = len;
    pg->last = now;
}

/* ---- the run -------------------------------------------------------------------- */

typedef struct {
    uint64_t reads, bases, records, hit_records, reads_with_hits, batches, rounds, lone_mates;
    double chance_whole;   /* sum over reads (input order: the same sum every run) */
} counts_t;

/* Write one reported part: its text (SAM), or its records (BAM, CRAM:
 * htslib's threads compress).  0, or -1 with msg. */
static int write_part(gpuasm_writer *w, const part_t *pt, char *msg, size_t msglen)
{
    if (pt->text.l) return gpuasm_writer_write_text(w, pt->text.s, pt->text.l, msg, msglen);
    for (size_t i = 0; i < pt->out.n; i++)
        if (gpuasm_writer_write(w, pt->out.rec[i], msg, msglen) < 0) return -1;
    return 0;
}

/* Write batches in input order until the end or a failure (the writer is
 * the calling thread).  0, or -1 when the pipeline failed (p->err). */
static int write_in_order(pipe_t *p, gpuasm_writer *w, progress_t *pg, counts_t *c)
{
    char msg[1024];
    for (uint64_t next = 0;;) {
        slot_t *s = NULL;
        int finished = 0, tick = 0;
        pthread_mutex_lock(&p->lock);
        for (;;) {
            if (p->failed) break;
            if ((s = p->done[next % p->n_slots])) {
                p->done[next % p->n_slots] = NULL;
                break;
            }
            if (p->read_done && next == p->n_batches) {
                finished = 1;
                break;
            }
            if (!pg->on) {
                pthread_cond_wait(&p->cv_done, &p->lock);
                continue;
            }
            /* Wake for the progress line even when no batch completes. */
            double due = pg->last + PROGRESS_PERIOD_S;
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            double wait = due - gpuasm_now_s();
            if (wait <= 0) {
                tick = 1;
                break;
            }
            ts.tv_sec += (time_t)wait;
            ts.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&p->cv_done, &p->lock, &ts);
        }
        int failed = p->failed;
        pthread_mutex_unlock(&p->lock);
        if (failed) return -1;
        if (finished) return 0;
        if (tick) {
            progress_show(pg, c->reads, c->hit_records, 0);
            continue;
        }
        const double w0 = gpuasm_now_s();
        for (size_t k = 0; k < s->n_part; k++) {
            const gpuasm_records *pt = &s->part[k].out;
            if (write_part(w, &s->part[k], msg, sizeof msg) < 0) {
                fail(p, msg);
                return -1;
            }
            /* The screening outputs see the part's records (kept for
             * them by report_part). */
            if (p->screen && gpuasm_screen_part(p->screen, &s->batch, s->part[k].r0, s->part[k].r1,
                                                pt, msg, sizeof msg) < 0) {
                fail(p, msg);
                return -1;
            }
            c->records += s->part[k].n_rec;
            c->chance_whole += s->part[k].chance_whole;
            c->hit_records += pt->hit_records;
            c->reads_with_hits += pt->reads_with_hits;
            c->lone_mates += pt->lone_mates;
        }
        p->write_busy += gpuasm_now_s() - w0;   /* the writer's own field: read after the join */
        c->reads += s->r1 - s->r0;
        c->bases += s->batch.off[s->r1] - s->batch.off[s->r0];
        c->rounds++;
        pthread_mutex_lock(&p->lock);
        if (s->r1 < s->batch.n) {
            /* More rounds of this batch (hit-dense reads): back to the scan
             * threads first, and batch `next` is still the one to write. */
            fifo_push_front(&p->scan_q, s);
            pthread_cond_signal(&p->cv_scan);
        } else {
            c->batches++;
            next++;
            fifo_push(&p->free_q, s);
            pthread_cond_signal(&p->cv_free);
        }
        pthread_mutex_unlock(&p->lock);
        if (pg->on && gpuasm_now_s() - pg->last >= PROGRESS_PERIOD_S)
            progress_show(pg, c->reads, c->hit_records, 0);
    }
}

/* Set up the slots, start the threads, write, stop.  0 or -1 (p->err). */
static int run_pipeline(pipe_t *p, gpuasm_writer *w, progress_t *pg, counts_t *c)
{
    int lanes = gpuasm_engine_lanes(p->eng);
    int n_report = p->o->n_threads < 1 ? 1 : p->o->n_threads;
    p->n_report = n_report;
    p->w = w;
    p->text_out = gpuasm_writer_is_text(w);
    pthread_t reader, prep;
    int reader_started = 0, prep_started = 0, ret = -1;
    worker_t *scan = calloc((size_t)lanes, sizeof(*scan));
    worker_t *rep = calloc((size_t)n_report, sizeof(*rep));

    p->n_slots = slots_for(lanes);
    p->slot = calloc(p->n_slots, sizeof(*p->slot));
    p->done = calloc(p->n_slots, sizeof(*p->done));
    p->free_q.q = calloc(p->n_slots, sizeof(slot_t *));
    p->prep_q.q = calloc(p->n_slots, sizeof(slot_t *));
    p->scan_q.q = calloc(p->n_slots, sizeof(slot_t *));
    p->report_q.q = calloc(p->n_slots, sizeof(slot_t *));
    if (!scan || !rep || !p->slot || !p->done || !p->free_q.q || !p->prep_q.q || !p->scan_q.q ||
        !p->report_q.q) {
        fail(p, "out of memory");
        goto out;
    }
    p->free_q.cap = p->prep_q.cap = p->scan_q.cap = p->report_q.cap = p->n_slots;
    for (size_t i = 0; i < p->n_slots; i++) {
        gpuasm_batch_init(&p->slot[i].batch, (gpuasm_alloc){ engine_alloc, engine_free, p->eng });
        fifo_push(&p->free_q, &p->slot[i]);
    }

    /* Threads: any failure to start one is an error that stops the rest. */
    p->scanners_left = lanes;
    if (pthread_create(&reader, NULL, reader_main, p) != 0) {
        fail(p, "cannot start the reader thread");
        goto join;
    }
    reader_started = 1;
    if (pthread_create(&prep, NULL, prep_main, p) != 0) {
        fail(p, "cannot start the prep thread");
        goto join;
    }
    prep_started = 1;
    for (int i = 0; i < lanes; i++) {
        scan[i].p = p;
        scan[i].lane = i;
        if (pthread_create(&scan[i].tid, NULL, scan_main, &scan[i]) != 0) {
            /* Count the threads that will never run as finished. */
            pthread_mutex_lock(&p->lock);
            p->scanners_left -= lanes - i;
            fail_locked(p, "cannot start a scan thread");
            pthread_mutex_unlock(&p->lock);
            goto join;
        }
        scan[i].started = 1;
    }
    for (int i = 0; i < n_report; i++) {
        rep[i].p = p;
        if (pthread_create(&rep[i].tid, NULL, report_main, &rep[i]) != 0) {
            fail(p, "cannot start a report thread");
            goto join;
        }
        rep[i].started = 1;
    }
    ret = write_in_order(p, w, pg, c);
join:
    if (reader_started) pthread_join(reader, NULL);
    if (prep_started) pthread_join(prep, NULL);
    for (int i = 0; i < lanes; i++)
        if (scan[i].started) pthread_join(scan[i].tid, NULL);
    for (int i = 0; i < n_report; i++) {
        if (rep[i].started) pthread_join(rep[i].tid, NULL);
        gpuasm_report_free(&rep[i].rep[0]);
        gpuasm_report_free(&rep[i].rep[1]);
        ks_free(&rep[i].scratch);
        ks_free(&rep[i].line);
    }
    /* The move's scan threads (auto_spawn) were started by scan thread 0,
     * joined above. */
    for (int i = 0; i < p->am.n_extra; i++) pthread_join(p->am.extra[i].tid, NULL);
    for (int i = 0; i < lanes; i++) {
        gpuasm_hits_free(&scan[i].chunk);
        free(scan[i].chunk_off);
    }
    for (int i = 0; p->am.extra && i < gpuasm_engine_lanes(p->am.to) - 1; i++) {
        gpuasm_hits_free(&p->am.extra[i].chunk);
        free(p->am.extra[i].chunk_off);
    }
    free(p->am.extra);
out:
    if (p->failed) ret = -1;
    free(scan);
    free(rep);
    return ret;
}

static void free_slots(pipe_t *p)
{
    for (size_t i = 0; p->slot && i < p->n_slots; i++) {
        slot_t *s = &p->slot[i];
        if (s->batch.mem.alloc) gpuasm_batch_free(&s->batch);
        gpuasm_hits_free(&s->hits);
        free(s->sub_off);
        for (size_t k = 0; k < s->m_part; k++) {
            gpuasm_records_free(&s->part[k].out);
            ks_free(&s->part[k].text);
        }
        free(s->part);
    }
    free(p->slot);
    free(p->done);
    free(p->free_q.q);
    free(p->prep_q.q);
    free(p->scan_q.q);
    free(p->report_q.q);
}

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
    if (running) fail(running, interrupt_why);
    pthread_mutex_unlock(&run_lock);
}

/* Register p as the running pipeline (or none); an interruption that came
 * before stops it at once. */
static void set_running(pipe_t *p)
{
    pthread_mutex_lock(&run_lock);
    running = p;
    if (p && interrupted) fail(p, interrupt_why);
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
    return gpuasm_outputs_check(o->out_path, o->stats_path, "SAM", in, what, 4, err, errlen);
}

/* ---- the engine opens while the inputs do (issue #14) ------------------------ */

/* Starting CUDA takes a few hundred ms that nothing else needs: a thread
 * opens the engine while the targets load and the reads open. */
typedef struct {
    const char *device;
    int n_threads;
    gpuasm_engine *eng;
    gpuasm_err why, fallback;
    int rc;
    pthread_t tid;
    int running;               /* started and not joined yet */
} opener_t;

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

/* ---- --device auto: the CPU at once, CUDA once ready (auto_move.h) ---------- */

/* Arm the move for a run whose device is still "auto" (not a small input):
 * the CPU opens now (op->device "cpu"), CUDA in the move's thread.  Not
 * armed in a build without CUDA (auto is the CPU there, with its note), or
 * with GPUASM_AUTO_MOVE=0 (auto waits for CUDA, as before).  0, or -1 with
 * err for a malformed knob. */
static int auto_arm(pipe_t *p, const gpuasm_scan_opt *o, opener_t *op, double t0, char *err,
                    size_t errlen)
{
    gpuasm_settings s;
    gpuasm_err why;
    if (strcmp(op->device, "auto")) return 0;
    if (gpuasm_settings_read(&s, &why) < 0) {
        snprintf(err, errlen, "%s", why.msg);
        return -1;
    }
    const int test = s.auto_test_move > 0;
    if (!gpuasm_knob(s.auto_move, 1) || (!test && !gpuasm_backend_cuda_ops())) return 0;
    /* CUDA opens once the input proves large (auto_proved_large);
     * GPUASM_AUTO_GO_MS=0 opens it at once, and so does the tests' move (a
     * CPU stand-in) unless GPUASM_AUTO_GO_MS is given. */
    const int64_t go_ms = gpuasm_knob(s.auto_go_ms, 500);
    if (gpuasm_auto_move_start(test ? "cpu" : "cuda:all", o->n_threads,
                               (int)gpuasm_knob(s.auto_test_delay_ms, 0), t0,
                               go_ms > 0 && (!test || s.auto_go_ms >= 0),
                               &p->am.move) < 0)
        return 0;   /* no thread: auto opens as before */
    p->am.go_s = 1e-3 * (double)go_ms;
    p->am.est_bases = gpuasm_auto_est_read_bases(o);
    op->device = "cpu";
    p->am.test_at = test ? (uint64_t)s.auto_test_move : 0;
    p->am.chunk_bases = (uint64_t)gpuasm_knob(s.auto_chunk_bases, (int64_t)AUTO_CHUNK_BASES0);
    p->am.chunk_fixed = s.auto_chunk_bases > 0;
    p->am.move_batch = 0;
    p->am.moved_s = -1;
    p->am.t0 = t0;
    return 0;
}

/* The filters of the run (gpuasm_engine_filter): the engine moved to's
 * when it scanned, else the first engine's. */
static const char *run_filter(const pipe_t *p)
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
static void auto_tell(pipe_t *p, const char *prog)
{
    const auto_side_t *am = &p->am;
    gpuasm_err why;
    if (am->to) {
        fprintf(stderr, "%s: info: --device auto: %llu reads (%llu batches) on the CPU, then "
                "%llu reads (%llu batches) on %s from batch %llu (ready after %.3f s)\n", prog,
                (unsigned long long)am->reads[0], (unsigned long long)am->batches[0],
                (unsigned long long)am->reads[1], (unsigned long long)am->batches[1],
                gpuasm_engine_describe(am->to), (unsigned long long)am->move_batch,
                gpuasm_auto_move_ready_s(am->move));
        return;
    }
    if (gpuasm_auto_move_deferred(am->move)) {
        fprintf(stderr, "%s: info: --device auto: the input ended (%.3f s) before it proved large "
                "enough to start %s (GPUASM_AUTO_GO_MS); using the CPU\n", prog,
                gpuasm_now_s() - am->t0, auto_to_name(p));
        return;
    }
    gpuasm_auto_move_why(am->move, &why);
    if (am->failed || why.status)
        fprintf(stderr, "%s: info: %s; using the CPU\n", prog, why.msg);
    else
        fprintf(stderr, "%s: info: --device auto: the input ended (%.3f s) before %s was "
                "ready; using the CPU\n", prog, gpuasm_now_s() - am->t0, auto_to_name(p));
}

/* The --stats keys of the move, and both engines' totals in es; dev: the
 * device, "CPU then MOVED" after a move. */
static void auto_stats(pipe_t *p, gpuasm_auto_stats *as, gpuasm_scan_stats *es, char *dev,
                       size_t devlen)
{
    const auto_side_t *am = &p->am;
    gpuasm_err why;
    *as = (gpuasm_auto_stats){ .cpu_reads = am->reads[0], .cpu_batches = am->batches[0],
                               .cpu_scans = am->calls[0], .moved_reads = am->reads[1],
                               .moved_batches = am->batches[1], .moved_scans = am->calls[1],
                               .move_batch = am->calls[1] ? (int64_t)am->move_batch : -1,
                               .ready_s = gpuasm_auto_move_ready_s(am->move),
                               .moved_s = am->calls[1] ? am->moved_s : -1 };
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

/* The chance model of the run (kernels/chance.h): the floors in effect go
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
    gpuasm_err why;
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
    if (auto_arm(&p, o, &op, t_start, err, errlen) < 0) return -1;
    opener_start(&op);
    if (gpuasm_targets_load(o->targets_path, o->strict_names, &t, err, errlen) < 0) goto out;
    targets_ok = 1;
    if (p.am.move) gpuasm_auto_move_targets(p.am.move, &t.set);
    if (check_interrupt(err, errlen) < 0) goto out;
    if (t.n_dup && says(o, HTS_LOG_WARNING)) {
        const char *d = t.desc[t.first_dup];
        fprintf(stderr, "%s: warning: %s: %u duplicate target name%s made unique with a _N "
                "suffix (the first: record %u, %.*s, is now %s; @SQ DS keeps the header; "
                "--strict-names makes duplicates an error)\n", prog, o->targets_path, t.n_dup,
                t.n_dup > 1 ? "s" : "", t.first_dup + 1, (int)strcspn(d, " "), d,
                t.name[t.first_dup]);
    }
    if (t.n_mapped && says(o, HTS_LOG_INFO))
        fprintf(stderr, "%s: info: %s: %u target name%s had characters SAM does not allow in "
                "@SQ SN, now '_' (@SQ DS keeps the header)\n", prog, o->targets_path,
                t.n_mapped, t.n_mapped > 1 ? "s" : "");
    if (o->search.max_diffs >= 0) {
        for (uint32_t i = 0; i < t.n; i++) {
            if (gpuasm_target_len(&t, i) <= (uint64_t)o->search.max_diffs) {
                snprintf(err, errlen, "%s: record %u (%s): -k %d is not smaller than the "
                         "target's length (%llu): every position would match",
                         o->targets_path, i + 1, t.name[i], o->search.max_diffs,
                         (unsigned long long)gpuasm_target_len(&t, i));
                goto out;
            }
        }
    }
    if (chance_setup(prog, &oc, &t, &chance, &co, err, errlen) < 0) goto out;
    /* The reads open while the engine may still be starting; the engine's
     * failure is the one told when both fail (as when it opened first). */
    char rd_err[1024] = "";
    int rd_rc = gpuasm_reader_open(o->reads_path, o->reads_path2, o->reference, o->n_threads,
                                   o->wildcards, &p.rd, rd_err, sizeof rd_err);
    if (opener_join(&op) < 0) {
        gpuasm_msg_engine_open(o->device, &op.why, err, errlen);
        goto out;
    }
    p.eng = op.eng;
    op.eng = NULL;
    p.engine_ready_at = gpuasm_now_s() - t_start;
    /* Falling back to the CPU is what --device auto is for: news only to
     * those who ask for more than warnings (issue #9). */
    if (op.fallback.status && says(o, HTS_LOG_INFO))
        fprintf(stderr, "%s: info: %s; using the CPU\n", prog, op.fallback.msg);
    if (gpuasm_engine_set_targets(p.eng, &t.set, &why) < 0) {
        snprintf(err, errlen, "%s: %s", o->targets_path, why.msg);
        goto out;
    }
    if (check_interrupt(err, errlen) < 0) goto out;
    if (rd_rc < 0) {
        snprintf(err, errlen, "%s", rd_err);
        goto out;
    }
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
                             .comment = co.l ? co.s : NULL };
    if (gpuasm_writer_open(&wo, &t, &w, err, errlen) < 0) goto out;
    /* Opened now so that a bad --stats path fails before any work; written
     * through a temporary file like -o (util/output_file.h). */
    if (o->stats_path && !(stats_fp = gpuasm_outfile_open(&stats_of, o->stats_path, err, errlen)))
        goto out;
    {
        const size_t n_slots = slots_for(gpuasm_engine_lanes(p.eng));
        const uint64_t mem = o->max_memory ? o->max_memory : gpuasm_default_max_memory(n_slots);
        const uint64_t slot_bytes = mem / n_slots;
        p.max_bases = o->batch_bases ? o->batch_bases
                                     : default_batch_bases(p.eng, n_slots, slot_bytes);
        p.hit_bytes = slot_bytes / 2;
        p.max_memory = mem;
        const uint64_t batch_mem = (uint64_t)n_slots * p.max_bases * HOST_BYTES_PER_BASE;
        if (o->batch_bases && batch_mem > mem / 2 && says(o, HTS_LOG_WARNING))
            fprintf(stderr, "%s: warning: --batch-size %llu: %zu batches in flight hold about "
                    "%llu MiB of reads, more than half of --max-memory (%llu MiB); memory may "
                    "reach about %llu MiB\n", prog, (unsigned long long)o->batch_bases, n_slots,
                    (unsigned long long)(batch_mem >> 20), (unsigned long long)(mem >> 20),
                    (unsigned long long)((batch_mem + mem / 2) >> 20));
    }
    pthread_mutex_init(&p.lock, NULL);
    pthread_cond_init(&p.cv_free, NULL);
    pthread_cond_init(&p.cv_prep, NULL);
    pthread_cond_init(&p.cv_scan, NULL);
    pthread_cond_init(&p.cv_report, NULL);
    pthread_cond_init(&p.cv_done, NULL);
    sync_ok = 1;

    pg.on = !o->quiet && (o->progress || isatty(STDERR_FILENO));
    pg.rd = p.rd;
    pg.t0 = pg.last = gpuasm_now_s();
    set_running(&p);
    int piped = run_pipeline(&p, w, &pg, &c);
    set_running(NULL);
    if (piped < 0) {
        if (pg.on) progress_show(&pg, c.reads, c.hit_records, 1);
        snprintf(err, errlen, "%s", p.err);
        goto out;
    }
    if (pg.on) progress_show(&pg, c.reads, c.hit_records, 1);
    if (c.lone_mates && says(o, HTS_LOG_WARNING))
        fprintf(stderr, "%s: warning: %s: %llu paired read%s had no mate next to %s (input not "
                "grouped by name? samtools collate groups mates): RNEXT/PNEXT left unset\n",
                prog, o->reads_path, (unsigned long long)c.lone_mates,
                c.lone_mates > 1 ? "s" : "", c.lone_mates > 1 ? "them" : "it");
    if (p.am.move && says(o, HTS_LOG_INFO)) auto_tell(&p, prog);
    /* Whole occurrences the run's own settings make chance-level (issue
     * #26: -k against short targets): a read of the input expects more
     * than --max-chance of them, on average. */
    if (o->report.chance && c.reads && c.chance_whole / (double)c.reads > o->max_chance &&
        says(o, HTS_LOG_WARNING))
        fprintf(stderr, "%s: warning: whole occurrences are at chance level: a read of this input "
                "expects %.3g of them by chance (XE:f on each record; --max-chance %g); a smaller "
                "-k or -e, or longer targets, make hits mean more\n", prog,
                c.chance_whole / (double)c.reads, o->max_chance);
    if (says(o, HTS_LOG_INFO) && run_filter(&p))
        fprintf(stderr, "%s: info: filter %s\n", prog, run_filter(&p));
    for (int i = 0; gpuasm_reader_warning(p.rd, i) && says(o, HTS_LOG_WARNING); i++)
        fprintf(stderr, "%s: warning: %s\n", prog, gpuasm_reader_warning(p.rd, i));
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
            gpuasm_scan_stats es;
            gpuasm_engine_stats(p.eng, &es);
            gpuasm_auto_stats as;
            char dev[2048];
            snprintf(dev, sizeof dev, "%s", gpuasm_engine_describe(p.eng));
            if (p.am.move) auto_stats(&p, &as, &es, dev, sizeof dev);
            gpuasm_run_stats rs = {
                .program = prog, .version = o->version, .device = dev,
                .simd = gpuasm_engine_simd(p.eng),
                .filter = gpuasm_filter_name(o->search.filter),
                .filter_plan = run_filter(&p),
                .lanes = p.am.to && p.am.calls[1] ? gpuasm_engine_lanes(p.am.to)
                                                  : gpuasm_engine_lanes(p.eng), .reads = c.reads, .bases = c.bases,
                .records = c.records, .reads_with_hits = c.reads_with_hits,
                .batches = c.batches, .batch_bases = p.max_bases, .rounds = c.rounds,
                .max_memory = p.max_memory,
                .wall_s = gpuasm_now_s() - t_start, .scan_s = es.scan_s, .kernel_s = es.kernel_s,
                .cells = es.cells, .peak_rss_kb = gpuasm_peak_rss_kb(),
                .index_strands = es.index_strands, .index_declined = es.index_declined,
                .pieces_kept = es.pieces_kept, .pieces_dropped = es.pieces_dropped,
                .ends_run = es.ends_run, .ends_skipped = es.ends_skipped,
                .index_build_s = es.index_build_s, .plan_s = es.plan_s,
                .ends_kernel_s = es.ends_kernel_s, .ends_cells = es.ends_cells,
                .stage = { .engine_ready_at = p.engine_ready_at, .first_scan_at = p.first_scan_at,
                           .last_scan_end_at = p.last_scan_end_at, .read_s = p.read_busy,
                           .encode_s = p.encode_busy, .report_s = p.report_busy,
                           .write_s = p.write_busy },
                .aut = p.am.move ? &as : NULL,
                .chance = { .on = o->report.chance != NULL, .max_chance = o->max_chance,
                            .floor = { o->search.partial_floor, o->search.read_partial_floor },
                            .partial = { gpuasm_chance_partial(o->report.chance, 0,
                                                               o->search.partial_floor ? o->search.partial_floor : INT32_MIN),
                                         gpuasm_chance_partial(o->report.chance, 1,
                                                               o->search.read_partial_floor ? o->search.read_partial_floor : INT32_MIN) },
                            .whole_per_read = c.reads ? c.chance_whole / (double)c.reads : 0,
                            .partial_on = gpuasm_partial_on(&o->search) },
                .extra = p.screen ? gpuasm_screen_json : NULL, .extra_ctx = p.screen,
            };
            errno = 0;
            int bad = gpuasm_stats_json_write(stats_fp, &rs) < 0;
            bad |= fclose(stats_fp) != 0;
            if (bad) {
                snprintf(err, errlen, "%s: write failed: %s", o->stats_path,
                         strerror(errno ? errno : EIO));
                ret = -1;
            } else {
                stats_ok = 1;
            }
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
    if (sync_ok) {
        pthread_mutex_destroy(&p.lock);
        pthread_cond_destroy(&p.cv_free);
        pthread_cond_destroy(&p.cv_prep);
        pthread_cond_destroy(&p.cv_scan);
        pthread_cond_destroy(&p.cv_report);
        pthread_cond_destroy(&p.cv_done);
    }
    free_slots(&p);
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
