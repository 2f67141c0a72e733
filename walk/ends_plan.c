/* SPDX-License-Identifier: MIT */
/* ends_plan.c -- the ends filter's items of a batch (ends_plan.h).
 *
 * The listing runs on the host, in threads over shares of the reads, while
 * the GPU runs the batch's search kernel (cuda_backend.cu launches that
 * first): per read strand it is gpuasm_efilter_mark(), a few hundred table
 * look-ups, which host threads do well.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "walk/ends_plan.h"
#include "walk/cpu_scan.h"
#include "walk/prefilter.h"
#include "kernels/registry.h"
#include "search/nt16.h"
#include "util/grow.h"
#include "util/sort_ids.h"
#include "util/thread_error.h"

#define ENDS_PLAN_MAX_THREADS 256

typedef struct gpuasm_ends_plan_ws {
    uint32_t *mark[2], stamp;
    uint32_t nt_cap;            /* targets the marks are sized for */
    gpuasm_marked marked;       /* reads as the pattern: the targets mark[0] has nonzero */
    uint32_t *amb_t;            /* and those with an ambiguous code near an end ([nt_cap]) */
    uint8_t *amb_e;             /* (which ends: gpuasm_tindex_end_amb) */
    int mode;                   /* the listing that used the marks last (ws_marks) */
    uint32_t *list;
    size_t cap_list;
    uint64_t *pairs;            /* reads as the pattern: the marks' two-piece scratch */
    size_t cap_pairs;
    uint8_t *rc;
    size_t cap_rc;
    gpuasm_ef_ws efws;
    uint64_t *item;
    size_t n, cap;
} gpuasm_ends_plan_ws;

typedef struct {
    const gpuasm_cpu_prep *prep;   /* reads as the pattern (else NULL: the ends filter f) */
    const gpuasm_efilter *f;
    const gpuasm_seqset *reads, *targets;
    const gpuasm_search_opt *opt;
    const uint32_t *always;     /* the targets "always" at some end */
    uint32_t n_always;
    uint32_t first, count;
    gpuasm_ends_plan_ws *ws;
    int failed;
} ends_job;

static void ws_free(gpuasm_ends_plan_ws *w)
{
    free(w->mark[0]);
    free(w->mark[1]);
    free(w->marked.t);
    free(w->amb_t);
    free(w->amb_e);
    free(w->list);
    free(w->pairs);
    free(w->rc);
    free(w->item);
    gpuasm_ef_ws_free(&w->efws);
    memset(w, 0, sizeof *w);
}

void gpuasm_ends_plan_free(gpuasm_ends_plan *p)
{
    for (int i = 0; i < p->n_ws; i++) ws_free(&p->ws[i]);
    free(p->ws);
    free(p->item);
    free(p->always);
    memset(p, 0, sizeof *p);
}

int gpuasm_targets_are_patterns(const gpuasm_seqset *reads, const gpuasm_seqset *targets,
                                const gpuasm_search_opt *opt)
{
    if (opt->pattern_side == GPUASM_PATTERN_TARGET) return 1;
    if (opt->pattern_side == GPUASM_PATTERN_READ) return 0;
    uint64_t rmin = UINT64_MAX, tmax = 0;
    for (uint32_t r = 0; r < reads->n; r++) {
        const uint64_t n = reads->off[r + 1] - reads->off[r];
        if (n && n < rmin) rmin = n;
    }
    for (uint32_t t = 0; t < targets->n; t++)
        if (targets->off[t + 1] - targets->off[t] > tmax) tmax = targets->off[t + 1] - targets->off[t];
    return tmax < rmin;   /* no non-empty read: no searched pair, either answer holds */
}

int gpuasm_ends_plan_applies(const gpuasm_seqset *reads, const gpuasm_seqset *targets,
                             const gpuasm_search_opt *opt)
{
    if (!gpuasm_partial_on(opt) || opt->alphabet != GPUASM_ALPHABET_NT16 || !targets->n) return 0;
    uint64_t tmax = 0;
    for (uint32_t t = 0; t < targets->n; t++)
        if (targets->off[t + 1] - targets->off[t] > tmax) tmax = targets->off[t + 1] - targets->off[t];
    if (tmax > GPUASM_ENDS_PLAN_MAX_M || tmax > GPUASM_EF_MAX_M) return 0;
    return gpuasm_targets_are_patterns(reads, targets, opt);
}

/* The item of (read r, target t, strand s, end e) (partial_cuda.cu). */
static inline uint64_t item_of(uint64_t r, uint32_t t, uint32_t nt, uint32_t strands, uint32_t s, uint32_t e)
{
    return (((r * nt + t) * strands) + s) * 2u + e;
}

static int push(gpuasm_ends_plan_ws *w, uint64_t item)
{
    if (gpuasm_grow((void **)&w->item, &w->cap, w->n + 1, sizeof(uint64_t)) < 0) return -1;
    w->item[w->n++] = item;
    return 0;
}

/* Every target at each of ends of read r's strand s (a strand the marks
 * or the filter cannot read).  0 or -1. */
static int push_every_end(gpuasm_ends_plan_ws *w, uint64_t r, uint32_t nt, uint32_t strands, uint32_t s,
                          uint32_t ends)
{
    for (uint32_t t = 0; t < nt; t++)
        for (uint32_t e = 0; e < 2; e++)
            if ((ends >> e & 1u) && push(w, item_of(r, t, nt, strands, s, e)) < 0) return -1;
    return 0;
}

/* w's marks for nt targets, fresh (zero, stamp 0) when they grow or when
 * the other listing (mode 0 the ends filter's, 1 reads as the pattern)
 * used them last, since each gives the arrays its own meaning.  0 or -1. */
static int ws_marks(gpuasm_ends_plan_ws *w, uint32_t nt, int mode)
{
    if (nt > w->nt_cap) {
        free(w->mark[0]);
        free(w->mark[1]);
        free(w->marked.t);
        free(w->amb_t);
        free(w->amb_e);
        w->mark[0] = calloc(nt, sizeof(uint32_t));
        w->mark[1] = calloc(nt, sizeof(uint32_t));
        w->marked.t = malloc((size_t)nt * sizeof(uint32_t));
        w->amb_t = malloc((size_t)nt * sizeof(uint32_t));
        w->amb_e = malloc(nt);
        w->marked.n = 0;
        if (!w->mark[0] || !w->mark[1] || !w->marked.t || !w->amb_t || !w->amb_e) {
            w->nt_cap = 0;
            return -1;
        }
        w->nt_cap = nt;
        w->stamp = 0;
    } else if (mode != w->mode) {
        memset(w->mark[0], 0, (size_t)w->nt_cap * sizeof(uint32_t));
        memset(w->mark[1], 0, (size_t)w->nt_cap * sizeof(uint32_t));
        w->marked.n = 0;
        w->stamp = 0;
    }
    w->mode = mode;
    return 0;
}

/* Reads as the pattern: the items of reads [first, first + count) whose
 * target end the ends index marks (cpu_scan.c's mark_group_a_ends, every
 * target in group A), into ws->item.  mark[0] holds the marks, mark[1]
 * the group (every target at stamp 1). */
static void *reads_run(ends_job *j)
{
    gpuasm_ends_plan_ws *w = j->ws;
    const gpuasm_seqset *reads = j->reads, *targets = j->targets;
    const uint32_t nt = targets->n, strands = (uint32_t)gpuasm_strands(j->opt);
    const gpuasm_ends_index *eix = gpuasm_cpu_prep_ends_index(j->prep);
    int level = 0;
    const gpuasm_tindex *tx = gpuasm_cpu_prep_index(j->prep, &level);
    const int hamming = gpuasm_search_mode(j->opt) == GPUASM_MODE_HAMMING;
    uint32_t *idcnt = NULL;   /* gpuasm_sort_ids()' counts */
    size_t cap_idcnt = 0;
    w->n = 0;
    if (ws_marks(w, nt, 1) < 0) goto oom;
    for (uint32_t t = 0; t < nt; t++) w->mark[1][t] = 1;
    gpuasm_read_ends re = { 0, 0, 0, 0 };
    uint64_t re_len = 0, cols = 0;
    uint32_t n_amb = 0;   /* w->amb_t's targets for re */
    for (uint32_t r = j->first; r < j->first + j->count; r++) {
        const uint64_t n = reads->off[r + 1] - reads->off[r];
        if (!n) continue;
        const uint8_t *read = reads->code + reads->off[r];
        if (n != re_len) {   /* reads of one length: once (a loop over p each) */
            re = gpuasm_read_ends_of(j->opt, n, hamming);
            re_len = n;
            cols = 0;   /* the ends pass's columns at each end when every end runs */
            n_amb = 0;
            for (uint32_t t = 0; t < nt; t++) {
                const uint64_t tl = targets->off[t + 1] - targets->off[t];
                cols += tl < re.W ? tl : re.W;
                const int e = tx->n_amb ? gpuasm_tindex_end_amb(tx, targets, t, re.W) : 0;
                if (!e) continue;
                w->amb_t[n_amb] = t;
                w->amb_e[n_amb++] = (uint8_t)e;
            }
        }
        for (uint32_t s = 0; s < strands; s++) {
            const uint32_t ends = gpuasm_partial_text_ends(j->opt, 1, s);
            if (!ends) continue;
            const uint8_t *p = read;
            if (s) {   /* the reverse-complemented read is the pattern */
                if (gpuasm_grow((void **)&w->rc, &w->cap_rc, n, 1) < 0) goto oom;
                gpuasm_nt16_revcomp(w->rc, read, n);
                p = w->rc;
            }
            /* the last strand's marks cleared: the targets it marked, not
             * all (6,670 genomes a strand: issue #28) */
            gpuasm_marked_clear(w->mark[0], &w->marked);
            const int rc = re.L && re.W <= GPUASM_ENDS_INDEX_W
                               ? gpuasm_ends_index_marks(eix, targets, p, (uint32_t)n, &re, ends, w->mark[1], 1,
                                                         w->mark[0], &w->marked, &w->pairs, &w->cap_pairs,
                                                         gpuasm_ends_max_hits(cols * (uint64_t)__builtin_popcount(ends),
                                                                              level))
                               : -2;
            if (rc == -1) goto oom;
            if (rc != 0) {   /* unmarked strand: every end */
                if (push_every_end(w, r, nt, strands, s, ends) < 0) goto oom;
                continue;
            }
            /* the marked ends, and those an ambiguous code reaches, in
             * target order */
            gpuasm_marked_or(w->mark[0], &w->marked, w->amb_t, w->amb_e, n_amb);
            if (gpuasm_sort_ids(w->marked.t, w->marked.n, nt, &idcnt, &cap_idcnt) < 0) goto oom;
            for (uint32_t i = 0; i < w->marked.n; i++) {
                const uint32_t t = w->marked.t[i], m = w->mark[0][t];
                for (uint32_t e = 0; e < 2; e++)
                    if ((ends >> e & 1u) && (m >> e & 1u) && push(w, item_of(r, t, nt, strands, s, e)) < 0)
                        goto oom;
            }
        }
    }
    free(idcnt);
    return NULL;
oom:
    free(idcnt);
    j->failed = 1;
    return NULL;
}

/* The items of reads [first, first + count) into ws->item. */
static void *ends_run(void *arg)
{
    ends_job *j = arg;
    if (j->prep) return reads_run(j);
    gpuasm_ends_plan_ws *w = j->ws;
    const gpuasm_efilter *f = j->f;
    const gpuasm_seqset *reads = j->reads;
    const uint32_t nt = j->targets->n, strands = (uint32_t)gpuasm_strands(j->opt);
    w->n = 0;
    if (ws_marks(w, nt, 0) < 0) goto oom;
    for (uint32_t r = j->first; r < j->first + j->count; r++) {
        const uint64_t n = reads->off[r + 1] - reads->off[r];
        if (!n) continue;
        const uint8_t *read = reads->code + reads->off[r];
        for (uint32_t s = 0; s < strands; s++) {
            const uint32_t ends = gpuasm_partial_text_ends(j->opt, 0, s);
            if (!ends) continue;
            const uint8_t *text = read;
            if (s) {   /* the target runs off the reverse-complemented read's ends */
                if (gpuasm_grow((void **)&w->rc, &w->cap_rc, n, 1) < 0) goto oom;
                gpuasm_nt16_revcomp(w->rc, read, n);
                text = w->rc;
            }
            if (++w->stamp == 0) {   /* stamps wrapped: clear the marks */
                memset(w->mark[0], 0, (size_t)nt * sizeof(uint32_t));
                memset(w->mark[1], 0, (size_t)nt * sizeof(uint32_t));
                w->stamp = 1;
            }
            const int64_t nm = gpuasm_efilter_mark(f, text, n, ends, w->mark, w->stamp, NULL, &w->list,
                                                   &w->cap_list, &w->efws);
            if (nm == -1) goto oom;
            if (nm == -2) {   /* an unfilterable strand: every target at its ends */
                if (push_every_end(w, r, nt, (uint32_t)strands, s, ends) < 0) goto oom;
                continue;
            }
            /* the marked targets (each listed once), then the "always"
             * ones at their ends; the kernel still asks each item whether
             * its pair takes partial occurrences there */
            for (int64_t i = 0; i < nm; i++) {
                const uint32_t t = w->list[i];
                for (uint32_t e = 0; e < 2; e++)
                    if ((ends >> e & 1u) && (w->mark[e][t] == w->stamp || (j->f->always[t] >> e & 1u)) &&
                        push(w, item_of(r, t, nt, strands, s, e)) < 0)
                        goto oom;
            }
            for (uint32_t i = 0; i < j->n_always; i++) {
                const uint32_t t = j->always[i];
                if (w->mark[0][t] == w->stamp || w->mark[1][t] == w->stamp) continue;   /* listed above */
                for (uint32_t e = 0; e < 2; e++)
                    if ((ends >> e & 1u) && (f->always[t] >> e & 1u) && push(w, item_of(r, t, nt, strands, s, e)) < 0)
                        goto oom;
            }
        }
    }
    return NULL;
oom:
    j->failed = 1;
    return NULL;
}

int gpuasm_ends_plan_reads_applies(const gpuasm_seqset *reads, const gpuasm_seqset *targets,
                                   const gpuasm_search_opt *opt, const gpuasm_cpu_prep *prep)
{
    if (!gpuasm_partial_on(opt) || opt->read_overlap_min == 0 || opt->alphabet != GPUASM_ALPHABET_NT16 ||
        !targets->n || !reads->n || !gpuasm_cpu_prep_index(prep, NULL) || !gpuasm_cpu_prep_ends_index(prep))
        return 0;
    if (opt->pattern_side == GPUASM_PATTERN_TARGET) return 0;
    uint64_t rmax = 0, tmin = UINT64_MAX;
    for (uint32_t r = 0; r < reads->n; r++)
        if (reads->off[r + 1] - reads->off[r] > rmax) rmax = reads->off[r + 1] - reads->off[r];
    for (uint32_t t = 0; t < targets->n; t++)
        if (targets->off[t + 1] - targets->off[t] < tmin) tmin = targets->off[t + 1] - targets->off[t];
    if (rmax > GPUASM_ENDS_PLAN_MAX_M || !rmax) return 0;
    /* the read is the pattern of its longest pair with the shortest target
     * (gpuasm_pair_of: the read on ties), so of every pair */
    return opt->pattern_side == GPUASM_PATTERN_READ || gpuasm_pair_of(opt, rmax, tmin).read_is_pattern;
}

static int plan_build(gpuasm_ends_plan *p, const gpuasm_cpu_prep *prep, const gpuasm_efilter *f,
                      const gpuasm_seqset *reads, const gpuasm_seqset *targets, const gpuasm_search_opt *opt,
                      int n_threads, gpuasm_err *err);

int gpuasm_ends_plan_build_reads(gpuasm_ends_plan *p, const gpuasm_cpu_prep *prep,
                                 const gpuasm_seqset *reads, const gpuasm_seqset *targets,
                                 const gpuasm_search_opt *opt, int n_threads, gpuasm_err *err)
{
    return plan_build(p, prep, NULL, reads, targets, opt, n_threads, err);
}

int gpuasm_ends_plan_build(gpuasm_ends_plan *p, const gpuasm_efilter *f, const gpuasm_seqset *reads,
                           const gpuasm_seqset *targets, const gpuasm_search_opt *opt, int n_threads,
                           gpuasm_err *err)
{
    return plan_build(p, NULL, f, reads, targets, opt, n_threads, err);
}

static int plan_build(gpuasm_ends_plan *p, const gpuasm_cpu_prep *prep, const gpuasm_efilter *f,
                      const gpuasm_seqset *reads, const gpuasm_seqset *targets, const gpuasm_search_opt *opt,
                      int n_threads, gpuasm_err *err)
{
    p->n = 0;
    /* the targets "always" at some end (a few, where the filter cannot
     * cut: IUPAC codes, runs too short to key) */
    p->n_always = 0;
    for (uint32_t t = 0; f && t < targets->n; t++) {
        if (!f->always[t]) continue;
        if (gpuasm_grow((void **)&p->always, &p->cap_always, p->n_always + 1, sizeof(uint32_t)) < 0)
            return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
        p->always[p->n_always++] = t;
    }
    p->dense = (uint64_t)reads->n * targets->n * (uint64_t)gpuasm_strands(opt) * 2u;
    if (n_threads < 1) n_threads = 1;
    if (n_threads > ENDS_PLAN_MAX_THREADS) n_threads = ENDS_PLAN_MAX_THREADS;
    if ((uint32_t)n_threads > reads->n / 64 + 1) n_threads = (int)(reads->n / 64 + 1);
    if (n_threads > p->n_ws) {   /* the threads' scratch, kept from build to build */
        gpuasm_ends_plan_ws *ws = realloc(p->ws, (size_t)n_threads * sizeof *ws);
        if (!ws) return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
        memset(ws + p->n_ws, 0, (size_t)(n_threads - p->n_ws) * sizeof *ws);
        p->ws = ws;
        p->n_ws = n_threads;
    }
    ends_job jobs[ENDS_PLAN_MAX_THREADS];
    pthread_t tid[ENDS_PLAN_MAX_THREADS];
    int started = 0, rc = 0;
    for (int i = 0; i < n_threads; i++) {
        const uint32_t a = (uint32_t)((uint64_t)reads->n * (uint64_t)i / (uint64_t)n_threads);
        const uint32_t b = (uint32_t)((uint64_t)reads->n * (uint64_t)(i + 1) / (uint64_t)n_threads);
        jobs[i] = (ends_job){ prep, f, reads, targets, opt, p->always, p->n_always, a, b - a, &p->ws[i], 0 };
    }
    /* Thread 0 is the caller; the others are started here. */
    for (int i = 1; i < n_threads; i++) {
        int trc;
        if ((trc = pthread_create(&tid[i], NULL, ends_run, &jobs[i])) != 0) {
            char why[512];
            rc = gpuasm_err_set(err, GPUASM_ERR_THREAD, "%s",
                                gpuasm_thread_error("cannot start an ends-listing thread", trc, why, sizeof why));
            break;
        }
        started = i;
    }
    if (rc == 0) ends_run(&jobs[0]);
    for (int i = 1; i <= started; i++) pthread_join(tid[i], NULL);
    for (int i = 0; i < n_threads && rc == 0; i++) {
        const gpuasm_ends_plan_ws *w = &p->ws[i];
        if (jobs[i].failed || gpuasm_grow((void **)&p->item, &p->cap, p->n + w->n, sizeof(uint64_t)) < 0) {
            rc = gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
            break;
        }
        if (w->n) memcpy(p->item + p->n, w->item, w->n * sizeof(uint64_t));
        p->n += w->n;
    }
    return rc;
}
