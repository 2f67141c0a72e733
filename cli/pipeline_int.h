/* SPDX-License-Identifier: MIT */
/* pipeline_int.h -- the scan pipeline's insides, shared by its units
 * (internal to cli/): the stages and their threads (cli/pipeline.c), the
 * scan threads' --device auto side (cli/auto_device.c: the policy), and
 * the run around them (cli/scan_run.c: targets, engine, outputs,
 * statistics).  pipeline.h is the outside.
 */
#ifndef GPUASM_PIPELINE_INT_H
#define GPUASM_PIPELINE_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <htslib/kstring.h>

#include "align/report.h"
#include "cli/auto_move.h"
#include "cli/pipeline.h"
#include "engine/engine.h"
#include "io/reads.h"
#include "io/records.h"
#include "io/sam_out.h"
#include "io/stats_json.h"
#include "search/status.h"
#include "search/target_set.h"

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

static inline void fifo_push(fifo_t *f, slot_t *s) { f->q[(f->head + f->n++) % f->cap] = s; }

/* Put s first (a batch coming back for its next round goes before later ones). */
static inline void fifo_push_front(fifo_t *f, slot_t *s)
{
    f->head = (f->head + f->cap - 1) % f->cap;
    f->q[f->head] = s;
    f->n++;
}

static inline slot_t *fifo_pop(fifo_t *f)
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
    int strict;                /* --device cuda (GPUASM_CUDA_CPU_START): the CPU scans only
                                * while CUDA starts; CUDA must open (its failure fails
                                * the run, told as when it opened first), and nothing
                                * is written before it has (gpuasm_pipe_cuda_outcome) */
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
    double huge_cells;         /* a read of at least these cells waits for the move (auto_huge_read) */
    uint64_t cpu_bases, first_bases, last_bases;
    /* The faster device (auto_back): lane 0's calls on the engine moved to
     * after its first (seconds, bases, count); the CPU's probe (0 not yet,
     * 1 the next call, 2 done); whether lane 0 went back to the CPU (when,
     * and both rates then, bases/s). */
    double to_s, back_s, back_to_rate, back_cpu_rate, back_measure_s;
    uint64_t to_bases, to_calls, test_back;
    int back, back_on, probe;
    char why_to[sizeof ((gpuasm_err *)0)->msg + 16];   /* --stats' auto_to after a failure */
} auto_side_t;

struct pipe {
    const gpuasm_scan_opt *o;
    const char *prog;          /* for warnings from the threads */
    gpuasm_record_opt ro;      /* what records.c needs of o */
    const gpuasm_targets *t;
    gpuasm_engine *eng;
    gpuasm_reader *rd;
    gpuasm_screen *screen;     /* report and reads out (cli/screen.h), or NULL */
    gpuasm_shard shard;        /* --shard: the reader's template count */
    gpuasm_writer *w;
    int text_out;              /* SAM text: the report threads format the lines */
    uint64_t max_bases;
    uint64_t hit_bytes;        /* bytes a round's hits and records may take (the memory bound) */
    uint64_t max_memory;       /* the memory bound, bytes */
    uint32_t round_hint;       /* reads per round that last fitted (lock; 0: a whole batch) */
    uint64_t rescans;          /* (lock) round scans thrown away at the hit budget (--stats) */
    auto_side_t am;            /* --device auto's move, or --device cuda's CPU start */
    gpuasm_engine *alloc_to;   /* (lock) the engine moved to: the slots' buffers come from
                                * it (pinned memory) once they are free again */

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

/* The progress line (gpuasm_pipe_progress). */
typedef struct {
    int on;
    const char *prog;
    const gpuasm_reader *rd;   /* counts the reads read (gpuasm_reader_count) */
    double t0, last;
    size_t width;      /* length of the line on screen, to blank a longer one */
} progress_t;

/* What the writer counted (the summary, --stats). */
typedef struct {
    uint64_t reads, bases, records, hit_records, reads_with_hits, batches, rounds, lone_mates;
    double chance_whole;   /* sum over reads (input order: the same sum every run) */
} counts_t;

/* An engine opening while the inputs do (issue #14): starting CUDA takes a
 * few hundred ms that nothing else needs, so a thread opens the engine
 * while the targets load and the reads open (cli/scan_run.c). */
typedef struct {
    const char *device;
    int n_threads;
    gpuasm_engine *eng;
    gpuasm_err why, fallback;
    int rc;
    pthread_t tid;
    int running;               /* started and not joined yet */
} opener_t;

/* Are rec[i] and rec[i+1] the two mates of one template? */
static inline int adjacent_mates(const gpuasm_batch *b, uint32_t i)
{
    return i + 1 < b->n && gpuasm_adjacent_mates(b->rec[i], b->rec[i + 1]);
}

/* Is a message of this htslib log level shown (--verbosity, --quiet)? */
static inline int says(const gpuasm_scan_opt *o, int level)
{
    return !o->quiet && o->verbosity >= level;
}

/* ---- cli/pipeline.c: the stages -------------------------------------------- */

/* A round of b from read r0 that kept the hits of its first h->scanned
 * reads at the hit budget (gpuasm_hits.scanned): those reads cut to the
 * last whole pair, as the report walks them from r0 (report_part), and
 * the hits of a read past it dropped (h is sorted by read).  Returns the
 * new h->scanned (0: nothing left to keep). */
uint32_t gpuasm_pipe_keep_pairs(const gpuasm_batch *b, uint32_t r0, gpuasm_hits *h);

/* Record the first error and wake every thread (_locked: with p->lock held). */
void gpuasm_pipe_fail(pipe_t *p, const char *msg);
void gpuasm_pipe_fail_locked(pipe_t *p, const char *msg);

/* A scan thread (arg: its worker_t, whose lane it drives). */
void *gpuasm_pipe_scan_main(void *arg);

/* The run's batch size and memory bound from o (--batch-size,
 * --max-memory) and the engine: p->max_bases, p->hit_bytes, p->max_memory;
 * a warning when --batch-size's batches take most of the bound. */
void gpuasm_pipe_size(pipe_t *p, const char *prog);

/* Set up the slots, start the threads, write in order through w, stop.
 * 0 or -1 (p->err). */
int gpuasm_pipe_run(pipe_t *p, gpuasm_writer *w, progress_t *pg, counts_t *c);

/* The lock and condition variables of p: on 1 made, 0 destroyed. */
void gpuasm_pipe_sync(pipe_t *p, int on);

void gpuasm_pipe_free_slots(pipe_t *p);

/* ---- cli/pipeline_report.c: the report stage ------------------------------- */

/* A report thread (arg: its worker_t). */
void *gpuasm_pipe_report_main(void *arg);

/* Rewrite the progress line in place (done: reads written, hits: hit records). */
void gpuasm_pipe_progress(progress_t *pg, uint64_t done, uint64_t hits, int final);

/* ---- cli/auto_device.c: --device auto's side of the run -------------------- */

/* A round's scan under --device auto (the contract of
 * gpuasm_engine_scan_lane on the view: reads [r0, r0 + view->n) of batch
 * b, whose pairs a round kept at the hit budget keeps whole). */
int gpuasm_pipe_scan_auto(worker_t *w, uint64_t seq, const gpuasm_batch *b, uint32_t r0,
                          const gpuasm_seqset *view, gpuasm_hits *out, gpuasm_err *err);

/* Arm the move to CUDA for a run whose device is still "auto", or
 * --device cuda's CPU start (am.strict).  0, or -1 with err for a
 * malformed knob. */
int gpuasm_pipe_auto_arm(pipe_t *p, const gpuasm_scan_opt *o, opener_t *op, double t0, char *err,
                         size_t errlen);

/* --device cuda's CPU start (am.strict): wait until CUDA is open with the
 * targets or has failed.  0 (also without am.strict), or -1 with CUDA's
 * failure in err, worded as when the engine opened before the reads
 * (gpuasm_msg_engine_open). */
int gpuasm_pipe_cuda_outcome(pipe_t *p, char *err, size_t errlen);

/* The filters of the run (gpuasm_engine_filter of the engine that scanned). */
const char *gpuasm_pipe_filter(const pipe_t *p);

/* The note of a run with the move armed (--verbosity 4). */
void gpuasm_pipe_auto_tell(pipe_t *p, const char *prog);

/* The --stats keys of the move, both engines' totals in es, and the device
 * ("CPU then MOVED" after a move) in dev. */
void gpuasm_pipe_auto_stats(pipe_t *p, gpuasm_auto_stats *as, gpuasm_scan_stats *es, char *dev,
                            size_t devlen);

#endif
