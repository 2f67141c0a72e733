/* SPDX-License-Identifier: MIT */
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
 *
 * The report threads' work is cli/pipeline_report.c, the scan threads'
 * --device auto side (the CPU at once, CUDA once ready) cli/auto_device.c,
 * the run around the pipeline (targets, engine, outputs, statistics)
 * cli/scan_run.c; what they share, pipeline_int.h.
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
#include "util/thread_error.h"
#include "cli/pipeline_int.h"

/* Seconds between progress line updates. */
#define PROGRESS_PERIOD_S 0.5

/* Default batch size limits (--batch-size overrides both).  A batch is the
 * unit of overlap: the first batch is read before any scan starts and the
 * last is written after every scan ended, so batches far larger than this
 * (say, a device-memory-sized one holding a whole 1 M-read input) would
 * serialise the stages again; 4 M bases ran fastest of the sizes measured
 * (BENCHMARKS.md, "Measurements behind the code": batch size), and is
 * still thousands of blocks per launch. */
#define BATCH_BASES_MAX (4ull << 20)
/* Host bytes per read base in flight: its code (1), its BAM record (SEQ
 * 0.5, QUAL 1, name, core, allocation rounding), output records and hits,
 * rounded up from what was measured (BENCHMARKS.md, "Measurements behind
 * the code").  Sizes a batch within its half of a slot's memory (below). */
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

/* The batch size and the memory bound of the run (see the top of this file). */
void gpuasm_pipe_size(pipe_t *p, const char *prog)
{
    const gpuasm_scan_opt *o = p->o;
    const size_t n_slots = slots_for(gpuasm_engine_lanes(p->eng));
    const uint64_t mem = o->max_memory ? o->max_memory : gpuasm_default_max_memory(n_slots);
    const uint64_t slot_bytes = mem / n_slots;
    p->max_bases = o->batch_bases ? o->batch_bases : default_batch_bases(p->eng, n_slots, slot_bytes);
    p->hit_bytes = slot_bytes / 2;
    p->max_memory = mem;
    const uint64_t batch_mem = (uint64_t)n_slots * p->max_bases * HOST_BYTES_PER_BASE;
    if (o->batch_bases && batch_mem > mem / 2 && says(o, HTS_LOG_WARNING))
        fprintf(stderr, "%s: warning: --batch-size %llu: %zu batches in flight hold about "
                "%llu MiB of reads, more than half of --max-memory (%llu MiB); memory may "
                "reach about %llu MiB\n", prog, (unsigned long long)o->batch_bases, n_slots,
                (unsigned long long)(batch_mem >> 20), (unsigned long long)(mem >> 20),
                (unsigned long long)((batch_mem + mem / 2) >> 20));
}


/* ---- errors ---------------------------------------------------------------- */

/* Record the first error and wake everybody.  Call with the lock held. */
void gpuasm_pipe_fail_locked(pipe_t *p, const char *msg)
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

void gpuasm_pipe_fail(pipe_t *p, const char *msg)
{
    pthread_mutex_lock(&p->lock);
    gpuasm_pipe_fail_locked(p, msg);
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
            gpuasm_pipe_fail_locked(p, msg);
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
 * (issue #13: a sixth of a run's time, BENCHMARKS.md, "Measurements behind
 * the code"), and on the reader it would lengthen the one stage that
 * cannot run in parallel.  Batches keep their order (one thread, one queue). */
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
            gpuasm_pipe_fail_locked(p, "out of memory");
        } else {
            fifo_push(&p->scan_q, s);
            pthread_cond_signal(&p->cv_scan);
        }
        pthread_mutex_unlock(&p->lock);
    }
    return NULL;
}

/* ---- scan --------------------------------------------------------------------- */

/* Cut a scanned batch into parts for the report threads: about four per
 * thread (for balance), each at least 256 reads, PART_MIN_BASES bases or
 * PART_MIN_HITS end hits, whichever is fewer reads (to keep the queue lock
 * cold: a part of short reads is cheap, one of long reads or of many
 * records is not: 1,000 reads of 10 kb made 4 parts of 250 reads, so their
 * tracebacks ran on 4 of 16 threads, issue #11; a round of ~100 reads
 * with ~800 records each (--overlap 3 against 10,000 primers) was one part
 * on one thread, issue #28), never between two adjacent mates (a read's
 * mate fields need the mate's report).  0, or -1 when out of memory. */
#define PART_MIN_READS 256
#define PART_MIN_BASES (64ull << 10)
#define PART_MIN_HITS 4096
static int cut_parts(slot_t *s, int n_report)
{
    const uint32_t base = s->r0, end = s->r1, n = end - base;
    size_t want = (size_t)n_report * 4, per = want ? (n + want - 1) / want : n;
    const uint64_t bases = n ? s->batch.off[end] - s->batch.off[base] : 0;
    /* Reads per PART_MIN_BASES at the round's mean length (at least 1). */
    uint64_t min_per = bases ? (PART_MIN_BASES * n + bases - 1) / bases : PART_MIN_READS;
    if (min_per > PART_MIN_READS) min_per = PART_MIN_READS;
    /* Reads per PART_MIN_HITS at the round's mean hits per read. */
    if (n && s->hits.n > PART_MIN_HITS) {
        const uint64_t by_hits = (PART_MIN_HITS * (uint64_t)n + s->hits.n - 1) / s->hits.n;
        if (by_hits < min_per) min_per = by_hits;
    }
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

uint32_t gpuasm_pipe_keep_pairs(const gpuasm_batch *b, uint32_t r0, gpuasm_hits *h)
{
    uint32_t i = r0;
    const uint32_t r1 = r0 + h->scanned;
    while (i < r1) {
        const uint32_t step = adjacent_mates(b, i) ? 2 : 1;
        if (i + step > r1) break;
        i += step;
    }
    h->scanned = i - r0;
    size_t n = 0;
    while (n < h->n && h->hit[n].read < h->scanned) n++;   /* sorted by read */
    h->n = n;
    return h->scanned;
}

/* Scan the next round of slot s: reads [s->r1, r1) of its batch, as many
 * as fit in the hit budget.  A round starts at the size that fitted last
 * (round_hint); where the engine reports more hits than the budget
 * (GPUASM_ERR_HIT_LIMIT) the reads it kept (gpuasm_hits.scanned: the CPU
 * backend's) are the round, else it is halved while the engine reports
 * more hits or runs out of memory; a single read (or
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
    const uint32_t hint = p->round_hint;
    pthread_mutex_unlock(&p->lock);
    uint32_t want = hint && hint < left ? hint : left;
    int cut = 0;   /* a round smaller than the hint for the hits, not for the batch's end */
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
        int r = p->am.move ? gpuasm_pipe_scan_auto(w, s->seq, b, r0, &view, &s->hits, &why)
                           : gpuasm_engine_scan_lane(p->eng, w->lane, &view, &o->search, &s->hits, &why);
        if (r == GPUASM_ERR_HIT_LIMIT && !alone && s->hits.scanned > 0) {
            /* The backend kept its first reads' hits (gpuasm_hits.scanned):
             * they are the round, to the last whole pair among them. */
            const uint32_t keep = gpuasm_pipe_keep_pairs(b, r0, &s->hits);
            if (keep > 0) {
                r1 = r0 + keep;
                r = 0;
                cut = 1;
            }
        }
        if ((r == GPUASM_ERR_HIT_LIMIT || r == GPUASM_ERR_NOMEM) && !alone) {
            want = (r1 - r0) / 2;
            cut = 1;
            pthread_mutex_lock(&p->lock);
            p->rescans++;
            pthread_mutex_unlock(&p->lock);
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
         * less than a quarter of the budget; unless the round was the rest
         * of its batch, smaller than the hint: its size says nothing of
         * the hits (a tail of 3 reads made the next batch's rounds start
         * at 6 reads and double, 11 rounds of a few reads each). */
        if (cut || !hint || r1 - r0 >= hint) {
            uint64_t next = !cut && s->hits.n < limit / 4 ? 2 * (uint64_t)(r1 - r0) : r1 - r0;
            pthread_mutex_lock(&p->lock);
            p->round_hint = next >= b->n ? 0 : (uint32_t)next;
            pthread_mutex_unlock(&p->lock);
        }
        return 0;
    }
}

void *gpuasm_pipe_scan_main(void *arg)
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
            gpuasm_pipe_fail_locked(p, full);
        } else if (cut_parts(s, p->n_report) < 0) {
            gpuasm_pipe_fail_locked(p, "out of memory");
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

/* ---- progress line ------------------------------------------------------------ */

/* Rewrite the line in place: \r, the line, spaces over any longer rest.
 * done/hits: reads and hit records written so far. */
void gpuasm_pipe_progress(progress_t *pg, uint64_t done, uint64_t hits, int final)
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
    int cuda_waited = !p->am.strict;   /* --device cuda's CPU start: see below */
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
        /* --device cuda's CPU start: nothing is written before CUDA has
         * opened (its failure must leave no output that looks complete;
         * the writer holds its header until the first record). */
        if (s && !cuda_waited) {
            cuda_waited = 1;
            if (gpuasm_pipe_cuda_outcome(p, msg, sizeof msg) < 0) {
                gpuasm_pipe_fail(p, msg);
                return -1;
            }
        }
        if (finished) return 0;
        if (tick) {
            gpuasm_pipe_progress(pg, c->reads, c->hit_records, 0);
            continue;
        }
        const double w0 = gpuasm_now_s();
        for (size_t k = 0; k < s->n_part; k++) {
            const gpuasm_records *pt = &s->part[k].out;
            if (write_part(w, &s->part[k], msg, sizeof msg) < 0) {
                gpuasm_pipe_fail(p, msg);
                return -1;
            }
            /* The screening outputs see the part's records (kept for
             * them by report_part). */
            if (p->screen && gpuasm_screen_part(p->screen, &s->batch, s->part[k].r0, s->part[k].r1,
                                                pt, msg, sizeof msg) < 0) {
                gpuasm_pipe_fail(p, msg);
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
            /* After a move to CUDA the batches read from now on are in its
             * pinned memory (the CPU engine's are pageable: slower copies,
             * ~5% of a 10 M-read P2 run, BENCHMARKS.md). */
            if (p->alloc_to && s->batch.mem.ctx != p->alloc_to)
                gpuasm_batch_set_alloc(&s->batch, (gpuasm_alloc){ engine_alloc, engine_free, p->alloc_to });
            fifo_push(&p->free_q, s);
            pthread_cond_signal(&p->cv_free);
        }
        pthread_mutex_unlock(&p->lock);
        if (pg->on && gpuasm_now_s() - pg->last >= PROGRESS_PERIOD_S)
            gpuasm_pipe_progress(pg, c->reads, c->hit_records, 0);
    }
}

int gpuasm_pipe_run(pipe_t *p, gpuasm_writer *w, progress_t *pg, counts_t *c)
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
        gpuasm_pipe_fail(p, "out of memory");
        goto out;
    }
    p->free_q.cap = p->prep_q.cap = p->scan_q.cap = p->report_q.cap = p->n_slots;
    for (size_t i = 0; i < p->n_slots; i++) {
        gpuasm_batch_init(&p->slot[i].batch, (gpuasm_alloc){ engine_alloc, engine_free, p->eng });
        fifo_push(&p->free_q, &p->slot[i]);
    }

    /* Threads: any failure to start one is an error that stops the rest. */
    p->scanners_left = lanes;
    char why[512];
    int trc;
    if ((trc = pthread_create(&reader, NULL, reader_main, p)) != 0) {
        gpuasm_pipe_fail(p, gpuasm_thread_error("cannot start the reader thread", trc, why, sizeof why));
        goto join;
    }
    reader_started = 1;
    if ((trc = pthread_create(&prep, NULL, prep_main, p)) != 0) {
        gpuasm_pipe_fail(p, gpuasm_thread_error("cannot start the prep thread", trc, why, sizeof why));
        goto join;
    }
    prep_started = 1;
    for (int i = 0; i < lanes; i++) {
        scan[i].p = p;
        scan[i].lane = i;
        if ((trc = pthread_create(&scan[i].tid, NULL, gpuasm_pipe_scan_main, &scan[i])) != 0) {
            /* Count the threads that will never run as finished. */
            pthread_mutex_lock(&p->lock);
            p->scanners_left -= lanes - i;
            gpuasm_pipe_fail_locked(p, gpuasm_thread_error("cannot start a scan thread", trc, why,
                                                           sizeof why));
            pthread_mutex_unlock(&p->lock);
            goto join;
        }
        scan[i].started = 1;
    }
    for (int i = 0; i < n_report; i++) {
        rep[i].p = p;
        /* A huge pair's traceback (a 1 Mb read against a genome) is one
         * record: it may use every thread while the others wait on it. */
        rep[i].rep[0].tb.n_threads = rep[i].rep[1].tb.n_threads = n_report;
        if ((trc = pthread_create(&rep[i].tid, NULL, gpuasm_pipe_report_main, &rep[i])) != 0) {
            gpuasm_pipe_fail(p, gpuasm_thread_error("cannot start a report thread", trc, why, sizeof why));
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

void gpuasm_pipe_sync(pipe_t *p, int on)
{
    if (on) {
        pthread_mutex_init(&p->lock, NULL);
        pthread_cond_init(&p->cv_free, NULL);
        pthread_cond_init(&p->cv_prep, NULL);
        pthread_cond_init(&p->cv_scan, NULL);
        pthread_cond_init(&p->cv_report, NULL);
        pthread_cond_init(&p->cv_done, NULL);
        return;
    }
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->cv_free);
    pthread_cond_destroy(&p->cv_prep);
    pthread_cond_destroy(&p->cv_scan);
    pthread_cond_destroy(&p->cv_report);
    pthread_cond_destroy(&p->cv_done);
}

void gpuasm_pipe_free_slots(pipe_t *p)
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
