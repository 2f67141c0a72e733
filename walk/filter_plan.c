/* SPDX-License-Identifier: MIT */
/* filter_plan.c -- the candidate windows of a batch (filter_plan.h).
 *
 * The plan runs on the host, in threads over chunks of reads: looking up a
 * read strand's pieces is a few hundred random reads of the index, which
 * host threads do well, while the GPU gets only the verification, its
 * dense part (NOTES.md, issue #16).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "walk/filter_plan.h"
#include "util/thread_error.h"
#include "util/grow.h"
#include "search/nt16.h"
#include "walk/prefilter.h"
#include "walk/ends_plan.h"
#include "kernels/registry.h"

/* Columns a segment reports when a text is searched whole. */
#define PLAN_SEG 4096u
#define PLAN_MAX_SEGS 256u
/* Planning threads at most (one plan_build). */
#define PLAN_MAX_THREADS 256

int gpuasm_plan_applies(const gpuasm_seqset *reads, const gpuasm_seqset *targets,
                        const gpuasm_search_opt *opt)
{
    const gpuasm_kernel_desc *k = gpuasm_kernel_get(opt->kernel);
    if (!k || !(k->caps & GPUASM_CAP_GPU_FILTER) || opt->alphabet != GPUASM_ALPHABET_NT16 ||
        opt->filter == GPUASM_FILTER_OFF)
        return 0;
    /* Every searched pair's pattern within GPUASM_PLAN_MAX_M, decided from
     * the longest read and target (on the safe side: a batch that might
     * hold a longer pattern runs exhaustively). */
    uint64_t rmax = 0, tmax = 0, tmax_searched = 0;
    for (uint32_t r = 0; r < reads->n; r++)
        if (reads->off[r + 1] - reads->off[r] > rmax) rmax = reads->off[r + 1] - reads->off[r];
    for (uint32_t t = 0; t < targets->n; t++) {
        const uint64_t tl = targets->off[t + 1] - targets->off[t];
        if (tl > tmax) tmax = tl;
        /* searched with the longest read: the pair rule only grows with n */
        if (tl > tmax_searched && gpuasm_pair_searched(tl, gpuasm_pair_k(opt, tl), rmax)) tmax_searched = tl;
    }
    switch (opt->pattern_side) {
    case GPUASM_PATTERN_READ: return rmax <= GPUASM_PLAN_MAX_M;
    case GPUASM_PATTERN_TARGET: return tmax_searched <= GPUASM_PLAN_MAX_M;
    default: return rmax <= GPUASM_PLAN_MAX_M || tmax <= GPUASM_PLAN_MAX_M;
    }
}

/* One planning thread's scratch, kept in the plan from build to build:
 * its windows and counts, the read's reverse complement, the stamps of
 * the targets in group A (in_a) and marked by the pieces filter (mark),
 * group A's list and the index's end ranges. */
typedef struct gpuasm_plan_ws {
    gpuasm_plan out;        /* this share's windows and counts (its ws unused) */
    uint8_t *rc;
    size_t rc_cap;
    uint32_t *in_a, *mark, stamp_a, stamp;
    uint32_t nt_cap;        /* in_a, mark: entries (targets) */
    uint32_t *grp_a, *grp_b;  /* the targets a read length makes patterns (A: the read is) */
    size_t cap_a, cap_b;
    gpuasm_end_range *ranges;
    size_t cap_ranges;
    uint32_t *listed;       /* the pieces filter's marked targets of a read strand */
    size_t cap_listed;
    uint32_t *b_always;     /* every target the pattern of its pairs: the "always" ones */
    size_t cap_b_always;
} gpuasm_plan_ws;

/* A plan's window buffers, given back to whoever gave them. */
static void free_windows(gpuasm_plan *p)
{
    for (int c = 0; c < 4; c++) {
        if (p->host_free) p->host_free(p->win[c]);
        else free(p->win[c]);
    }
}

static void ws_free(gpuasm_plan_ws *w)
{
    free_windows(&w->out);
    free(w->rc);
    free(w->in_a);
    free(w->mark);
    free(w->grp_a);
    free(w->grp_b);
    free(w->ranges);
    free(w->listed);
    free(w->b_always);
}

const gpuasm_vwin *gpuasm_plan_part(const gpuasm_plan *plan, int i, int c, size_t *n)
{
    const gpuasm_plan *out = plan->parts ? &plan->ws[i].out : plan;
    *n = out->n[c];
    return out->win[c];
}

void gpuasm_plan_free(gpuasm_plan *plan)
{
    free_windows(plan);
    for (int i = 0; i < plan->n_ws; i++) ws_free(&plan->ws[i]);
    free(plan->ws);
    memset(plan, 0, sizeof *plan);
}

/* One thread's share: reads [first, first + count), in ws. */
typedef struct plan_job {
    const gpuasm_cpu_prep *prep;
    const gpuasm_seqset *reads, *targets;
    const gpuasm_search_opt *opt;
    uint32_t first, count;
    uint32_t read_base;     /* added to the windows' read (gpuasm_plan.read_base) */
    gpuasm_plan_ws *ws;
    int failed;
} plan_job;

/* Room for `want` windows of class c in plan->win (in the caller's host
 * memory when it gave an allocator: a new buffer, the windows so far
 * copied).  0 or -1 (out of memory). */
static int plan_grow(gpuasm_plan *plan, int c, size_t want)
{
    if (!plan->host_alloc) return gpuasm_grow((void **)&plan->win[c], &plan->cap[c], want, sizeof(gpuasm_vwin));
    if (want <= plan->cap[c]) return 0;
    size_t cap = plan->cap[c] ? plan->cap[c] : 4096;
    while (cap < want) cap *= 2;
    gpuasm_vwin *w = plan->host_alloc(cap * sizeof(gpuasm_vwin));
    if (!w) return -1;
    if (plan->n[c]) memcpy(w, plan->win[c], plan->n[c] * sizeof(gpuasm_vwin));
    plan->host_free(plan->win[c]);
    plan->win[c] = w;
    plan->cap[c] = cap;
    return 0;
}

static int push(gpuasm_plan *p, uint32_t m, const gpuasm_vwin *w)
{
    const int c = (int)((m + 63u) / 64u) - 1;
    if (plan_grow(p, c, p->n[c] + 1) < 0) return -1;
    p->win[c][p->n[c]++] = *w;
    return 0;
}

/* The whole text of a pair in segments (cuda_device.cuh's windows): of
 * PLAN_SEG columns, or longer ones for long texts, at most PLAN_MAX_SEGS
 * a pair (bounded memory for read strands the filter cannot cut). */
static int push_whole(gpuasm_plan *p, gpuasm_vwin w, uint32_t m, uint64_t n)
{
    const uint64_t ov = (uint64_t)m + (uint64_t)w.k;
    uint64_t seg = (n + PLAN_MAX_SEGS - 1) / PLAN_MAX_SEGS;
    if (seg < PLAN_SEG) seg = PLAN_SEG;
    for (uint64_t s0 = 0; s0 < n; s0 += seg) {
        const uint64_t s1 = s0 + seg < n ? s0 + seg : n;
        w.s0 = (uint32_t)s0;
        w.s1 = (uint32_t)s1;
        w.j0 = (uint32_t)(s0 > ov ? s0 - ov : 0);
        w.jend = (uint32_t)(s1 + 1 < n ? s1 + 1 : n);
        if (push(p, m, &w) < 0) return -1;
    }
    return 0;
}

/* Groups A (the read is the pattern) and B of reads of rlen bases into
 * ws->grp_a and ws->grp_b (*n_a, *n_b targets, ascending), group A
 * stamped in ws->in_a with a fresh ws->stamp_a, its text total in
 * *total.  0, or -1 when out of memory. */
static int make_groups(gpuasm_plan_ws *ws, const gpuasm_seqset *targets, const gpuasm_search_opt *opt,
                       uint64_t rlen, uint32_t *n_a, uint32_t *n_b, uint64_t *total)
{
    *n_a = *n_b = 0;
    *total = 0;
    if (++ws->stamp_a == 0) {
        memset(ws->in_a, 0, (size_t)ws->nt_cap * sizeof(uint32_t));
        ws->stamp_a = 1;
    }
    for (uint32_t t = 0; t < targets->n; t++) {
        const uint64_t tlen = targets->off[t + 1] - targets->off[t];
        const gpuasm_pair p = gpuasm_pair_of(opt, rlen, tlen);
        if (!p.searched) continue;
        uint32_t **grp = p.read_is_pattern ? &ws->grp_a : &ws->grp_b;
        size_t *cap = p.read_is_pattern ? &ws->cap_a : &ws->cap_b;
        uint32_t *n = p.read_is_pattern ? n_a : n_b;
        if (gpuasm_grow((void **)grp, cap, (size_t)*n + 1, sizeof(uint32_t)) < 0) return -1;
        (*grp)[(*n)++] = t;
        if (!p.read_is_pattern) continue;
        ws->in_a[t] = ws->stamp_a;
        *total += tlen;
    }
    return 0;
}

static void *plan_run(void *arg)
{
    plan_job *j = arg;
    gpuasm_plan_ws *ws = j->ws;
    const gpuasm_seqset *reads = j->reads, *targets = j->targets;
    const gpuasm_search_opt *opt = j->opt;
    int level = 0;
    const gpuasm_tindex *tx = gpuasm_cpu_prep_index(j->prep, &level);
    const gpuasm_qfilter *qf = gpuasm_cpu_prep_pieces(j->prep);
    const uint32_t nt = targets->n;
    const int strands = gpuasm_strands(opt);
    for (int c = 0; c < 4; c++) ws->out.n[c] = 0;
    memset(&ws->out.counts, 0, sizeof ws->out.counts);
    if (nt > ws->nt_cap) {   /* more targets than before: fresh stamps */
        free(ws->in_a);
        free(ws->mark);
        ws->in_a = calloc(nt, sizeof(uint32_t));
        ws->mark = calloc(nt, sizeof(uint32_t));
        ws->nt_cap = ws->in_a && ws->mark ? nt : 0;
        ws->stamp_a = ws->stamp = 0;
        if (!ws->nt_cap) goto oom;
    }
    uint32_t *in_a = ws->in_a, *mark = ws->mark;
    /* Every pair of this share with the target as its pattern (primers,
     * adapters: targets shorter than every read, or --pattern target)?
     * Then a read strand's candidates come from the pieces filter's list
     * and the "always" targets, not from a loop over every target: with
     * 10,000 primers that loop was most of the planning (per-read work
     * bounded by the filter's hits, as the CPU walk's groups do). */
    const gpuasm_seqset share = { j->count, reads->off + j->first, reads->code };
    const int b_only = qf && gpuasm_targets_are_patterns(&share, targets, opt);
    uint32_t n_b_always = 0, n_b_ok = 0;
    for (uint32_t t = 0; b_only && t < nt; t++) {
        const uint64_t m = targets->off[t + 1] - targets->off[t];
        if (!gpuasm_pair_searched(m, gpuasm_pair_k(opt, m), 1)) continue;   /* with any read of bases */
        n_b_ok++;
        if (!qf->always[t]) continue;
        if (gpuasm_grow((void **)&ws->b_always, &ws->cap_b_always, (size_t)n_b_always + 1, sizeof(uint32_t)) < 0)
            goto oom;
        ws->b_always[n_b_always++] = t;
    }
    /* Groups A and B, group A's stamps in in_a and its text total, for
     * the read length groups_rlen: the pair rule depends on the lengths
     * alone, so they are made once per length, not per strand (a loop
     * over the 6,670 genomes of a database a strand: issue #28) */
    uint64_t groups_rlen = UINT64_MAX, total = 0;
    uint32_t n_a = 0, n_b = 0, stamp_a = 0;
    for (uint64_t r = j->first; r < (uint64_t)j->first + j->count; r++) {
        const uint32_t rid = j->read_base + (uint32_t)r;
        const uint8_t *read = reads->code + reads->off[r];
        const uint64_t rlen = reads->off[r + 1] - reads->off[r];
        const int32_t k_read = gpuasm_pair_k(opt, rlen);
        if (strands == 2 && gpuasm_grow((void **)&ws->rc, &ws->rc_cap, rlen ? rlen : 1, 1) < 0) goto oom;
        uint8_t *rc = ws->rc;
        for (uint64_t i = 0; strands == 2 && i < rlen; i++) rc[i] = gpuasm_nt16_comp(read[rlen - 1 - i]);
        for (uint32_t s = 0; s < (uint32_t)strands; s++) {
            const uint8_t *rseq = s ? rc : read;
            int all_b = 1;   /* pieces filter: every target a candidate */
            if (qf) {
                if (++ws->stamp == 0) {
                    memset(mark, 0, (size_t)ws->nt_cap * sizeof(uint32_t));
                    ws->stamp = 1;
                }
                if (b_only && rlen) {
                    const int64_t nl = gpuasm_qfilter_mark_list(qf, rseq, rlen, mark, ws->stamp, &ws->listed,
                                                                &ws->cap_listed);
                    if (nl == -1) goto oom;
                    if (nl >= 0) {   /* the marked targets, then the "always" ones */
                        uint32_t kept = 0;
                        for (int64_t i = 0; i < nl + (int64_t)n_b_always; i++) {
                            const uint32_t t = i < nl ? ws->listed[i] : ws->b_always[i - nl];
                            if (i < nl && qf->always[t]) continue;   /* listed below */
                            const gpuasm_pair p = gpuasm_pair_of(opt, rlen, targets->off[t + 1] - targets->off[t]);
                            if (!p.searched) continue;
                            const gpuasm_vwin w = { rid, t, (uint16_t)s, 0, p.k, 0, 0, 0, 0 };
                            if (push_whole(&ws->out, w, (uint32_t)p.m, p.n) < 0) goto oom;
                            kept++;
                        }
                        ws->out.counts.pieces_kept += kept;
                        ws->out.counts.pieces_dropped += n_b_ok - kept;
                        continue;   /* no group A: every pair has the target as its pattern */
                    }
                    all_b = 1;   /* a strand the filter cannot read: every target, below */
                } else {
                    all_b = gpuasm_qfilter_mark(qf, rseq, rlen, mark, ws->stamp);
                }
            }
            if (rlen != groups_rlen) {   /* (here: the b_only strands above never need them) */
                groups_rlen = rlen;
                if (make_groups(ws, targets, opt, rlen, &n_a, &n_b, &total) < 0) goto oom;
                stamp_a = ws->stamp_a;
            }
            for (uint32_t i = 0; i < n_b; i++) {   /* group B: the target is the pattern */
                const uint32_t t = ws->grp_b[i];
                const gpuasm_pair p = gpuasm_pair_of(opt, rlen, targets->off[t + 1] - targets->off[t]);
                gpuasm_vwin w = { rid, t, (uint16_t)s, 0, p.k, 0, 0, 0, 0 };
                if (qf && !all_b && !qf->always[t] && mark[t] != ws->stamp) {
                    ws->out.counts.pieces_dropped++;
                    continue;
                }
                if (qf) ws->out.counts.pieces_kept++;
                if (push_whole(&ws->out, w, (uint32_t)p.m, p.n) < 0) goto oom;
            }
            if (!n_a) continue;
            int64_t nr = -2;
            if (tx) {
                nr = gpuasm_tindex_ranges(tx, targets, rseq, (uint32_t)rlen, k_read, 0, in_a, stamp_a,
                                          gpuasm_tindex_max_hits(total, level), &ws->ranges, &ws->cap_ranges);
                if (nr == -1) goto oom;
                const uint64_t lead = rlen + (uint64_t)k_read - 1;
                if (nr >= 0 && !gpuasm_tindex_pays(ws->ranges, nr, lead, total, level)) nr = -2;
                if (nr >= 0) ws->out.counts.index_strands++;
                else ws->out.counts.index_declined++;
            }
            if (nr >= 0) {
                const uint64_t ov = rlen + (uint64_t)k_read;
                for (int64_t i = 0; i < nr; i++) {
                    const gpuasm_end_range *g = &ws->ranges[i];
                    const uint64_t n = targets->off[g->target + 1] - targets->off[g->target];
                    gpuasm_vwin w = { rid, g->target, (uint16_t)s, 1, k_read, 0, 0, 0, 0 };
                    w.s0 = (uint32_t)g->lo;
                    w.s1 = (uint32_t)(g->hi + 1);
                    w.j0 = (uint32_t)(g->lo > ov ? g->lo - ov : 0);
                    w.jend = (uint32_t)(g->hi + 2 < n ? g->hi + 2 : n);
                    if (push(&ws->out, (uint32_t)rlen, &w) < 0) goto oom;
                }
            } else {
                for (uint32_t i = 0; i < n_a; i++) {
                    const uint32_t t = ws->grp_a[i];
                    gpuasm_vwin w = { rid, t, (uint16_t)s, 1, k_read, 0, 0, 0, 0 };
                    if (push_whole(&ws->out, w, (uint32_t)rlen, targets->off[t + 1] - targets->off[t]) < 0)
                        goto oom;
                }
            }
        }
    }
    return NULL;
oom:
    j->failed = 1;
    return NULL;
}

int gpuasm_plan_build(gpuasm_plan *plan, const gpuasm_cpu_prep *prep, const gpuasm_seqset *reads,
                      const gpuasm_seqset *targets, const gpuasm_search_opt *opt, int n_threads,
                      gpuasm_err *err)
{
    for (int c = 0; c < 4; c++) plan->n[c] = 0;
    memset(&plan->counts, 0, sizeof plan->counts);
    if (n_threads < 1) n_threads = 1;
    if (n_threads > PLAN_MAX_THREADS) n_threads = PLAN_MAX_THREADS;
    if ((uint32_t)n_threads > reads->n / 64 + 1) n_threads = (int)(reads->n / 64 + 1);
    if (n_threads > plan->n_ws) {   /* the threads' scratch, kept from build to build */
        gpuasm_plan_ws *ws = realloc(plan->ws, (size_t)n_threads * sizeof *ws);
        if (!ws) return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
        memset(ws + plan->n_ws, 0, (size_t)(n_threads - plan->n_ws) * sizeof *ws);
        plan->ws = ws;
        plan->n_ws = n_threads;
    }
    plan_job jobs[PLAN_MAX_THREADS];
    pthread_t tid[PLAN_MAX_THREADS];
    int started = 0, rc = 0;
    for (int i = 0; i < n_threads; i++) {
        const uint32_t a = (uint32_t)((uint64_t)reads->n * (uint64_t)i / (uint64_t)n_threads);
        const uint32_t b = (uint32_t)((uint64_t)reads->n * (uint64_t)(i + 1) / (uint64_t)n_threads);
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].prep = prep;
        jobs[i].reads = reads;
        jobs[i].targets = targets;
        jobs[i].opt = opt;
        jobs[i].first = a;
        jobs[i].count = b - a;
        jobs[i].read_base = plan->read_base;
        jobs[i].ws = &plan->ws[i];
        /* parts: the thread's windows are the plan's, in the caller's memory */
        if (plan->parts && !plan->ws[i].out.host_alloc) {
            plan->ws[i].out.host_alloc = plan->host_alloc;
            plan->ws[i].out.host_free = plan->host_free;
        }
    }
    plan->n_parts = plan->parts ? n_threads : 1;
    /* Thread 0 is the caller; the others are started here. */
    for (int i = 1; i < n_threads; i++) {
        int trc;
        if ((trc = pthread_create(&tid[i], NULL, plan_run, &jobs[i])) != 0) {
            char why[512];
            rc = gpuasm_err_set(err, GPUASM_ERR_THREAD, "%s",
                                gpuasm_thread_error("cannot start a planning thread", trc, why, sizeof why));
            break;
        }
        started = i;
    }
    if (rc == 0) plan_run(&jobs[0]);
    for (int i = 1; i <= started; i++) pthread_join(tid[i], NULL);
    for (int i = 0; i < n_threads && rc == 0; i++) {
        const gpuasm_plan *out = &plan->ws[i].out;
        if (jobs[i].failed) {
            rc = gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
            break;
        }
        for (int c = 0; c < 4; c++) {
            const size_t n = out->n[c];
            if (!n) continue;
            if (plan->parts) {   /* left where the thread wrote them */
                plan->n[c] += n;
                continue;
            }
            if (plan_grow(plan, c, plan->n[c] + n) < 0) {
                rc = gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
                break;
            }
            memcpy(plan->win[c] + plan->n[c], out->win[c], n * sizeof(gpuasm_vwin));
            plan->n[c] += n;
        }
        plan->counts.index_strands += out->counts.index_strands;
        plan->counts.index_declined += out->counts.index_declined;
        plan->counts.pieces_kept += out->counts.pieces_kept;
        plan->counts.pieces_dropped += out->counts.pieces_dropped;
    }
    return rc;
}
