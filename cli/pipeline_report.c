/* SPDX-License-Identifier: MIT */
/* pipeline_report.c -- the report threads of the scan pipeline
 * (pipeline_int.h): a scanned batch's hits become each read's reported
 * occurrences (align/report.h) and its SAM records (io/records.h: the
 * FLAG and mate rules), part by part, on every -@ thread; SAM text is
 * formatted here too, so that the writer only writes bytes.
 */
#define _XOPEN_SOURCE 700
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include <htslib/sam.h>

#include "align/chance.h"
#include "cli/pipeline_int.h"
#include "util/clock.h"

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
 * (align/chance.h; cached for the last length: reads of a run are
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
             * outputs (cli/screen.h) read the records too: then they
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

void *gpuasm_pipe_report_main(void *arg)
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
            gpuasm_pipe_fail_locked(p, msg);
        } else if (--s->parts_left == 0) {
            p->done[s->seq % p->n_slots] = s;
            pthread_cond_signal(&p->cv_done);   /* only the writer waits on it */
        }
        pthread_mutex_unlock(&p->lock);
    }
    return NULL;
}
