/* SPDX-License-Identifier: MIT */
/* cpu_grouped.c -- the CPU walk's grouped pairs (cpu_walk.h): a kernel
 * whose twin runs in SIMD lanes (GPUASM_CAP_LANES: myers on nt16) takes a
 * read's pairs in two groups instead of one by one (cpu_scan.c's top says
 * which), behind the exact filters; a kernel behind the filters without
 * lanes (GPUASM_CAP_CPU_FILTER: hamming) runs its twin on what they keep.
 * Either way every pair gets exactly the scalar twin's positions.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/ends/partial_cut.h"
#include "kernels/partial.h"
#include "search/cpu_simd.h"
#include "search/nt16.h"
#include "util/grow.h"
#include "util/sort_ids.h"
#include "walk/cpu_walk.h"

/* ---- the grouped walk (myers on nt16) --------------------------------------- */

void gpuasm_group_ws_free(group_ws *g)
{
    gpuasm_lanes_ws_free(&g->lanes);
    gpuasm_myers_cols_free(&g->cols);
    free(g->rpeq);
    free(g->grp_a);
    free(g->grp_b);
    free(g->texts);
    free(g->pieces);
    free(g->replay);
    free(g->pmin);
    free(g->pats);
    free(g->pat_t);
    free(g->mark);
    free(g->k_t);
    free(g->in_a);
    free(g->emark);
    free(g->emarked.t);
    free(g->amb_a);
    free(g->amb_ends);
    free(g->ebits);
    free(g->epairs);
    free(g->ranges);
    free(g->seeds);
    free(g->marked);
    free(g->in_b);
    free(g->always_b);
    free(g->bmark[0]);
    free(g->bmark[1]);
    free(g->breach[0]);
    free(g->breach[1]);
    free(g->ecand);
    free(g->ealways);
    free(g->epre);
    free(g->el_ew);
    free(g->el_reach);
    free(g->tend);
    free(g->tend_at);
    free(g->tpeq);
    gpuasm_ef_ws_free(&g->efws);
    gpuasm_ec_ws_free(&g->ecws);
    free(g->idcnt);
}

/* Emit of one verified range: positions of a text window starting at ws,
 * kept when in [lo, hi] (the window's first m + k - 1 columns are its
 * lead-in). */
typedef struct range_emit {
    walk *w;
    uint64_t ws, lo;
} range_emit;

static void emit_in_range(void *ctx, uint64_t j, int32_t d)
{
    range_emit *r = ctx;
    if (j + r->ws >= r->lo) emit_hit(r->w, j + r->ws, d);
}

/* Group A's membership stamps, text bases and ends columns, once per group
 * rather than per read strand (a read against 6,670 genomes stamped them
 * all two or three times a strand: issue #28's "per-target loops"). */
static void group_a_ready(group_ws *g, const gpuasm_seqset *targets)
{
    if (g->a_ready) return;
    if (++g->stamp_a == 0) {
        memset(g->in_a, 0, (size_t)targets->n * sizeof(uint32_t));
        g->stamp_a = 1;
    }
    uint64_t total = 0, cols = 0;
    for (uint32_t i = 0; i < g->n_a; i++) {
        const uint32_t t = g->grp_a[i];
        const uint64_t n = targets->off[t + 1] - targets->off[t];
        g->in_a[t] = g->stamp_a;
        total += n;
        cols += n < g->ends.W ? n : g->ends.W;
    }
    g->a_total = total;
    g->a_cols = cols;
    g->a_ready = 1;
}

/* Group A through the window index: only the end ranges the pigeonhole
 * argument leaves (prefilter.h) are searched, each from m + k - 1 columns
 * before it.  Returns 1 when done, 0 when the filter does not apply or
 * would search more than a quarter of the text (the caller then scans
 * everything), -1 when out of memory. */
static int walk_group_a_ranges(walk *w, group_ws *g, const gpuasm_cpu_cfg *cfg, const gpuasm_cpu_prep *prep,
                               const gpuasm_seqset *targets, const uint8_t *rseq, uint32_t m,
                               int32_t k, uint64_t total)
{
    group_a_ready(g, targets);
    const int64_t nr = gpuasm_tindex_ranges(&prep->tx, targets, rseq, m, k, 0, g->in_a, g->stamp_a,
                                            gpuasm_tindex_max_hits(total, prep->lv_index), &g->ranges,
                                            &g->cap_ranges);
    if (nr == -1) return -1;
    g->cnt.index_declined++;   /* until it is used */
    if (nr < 0) return 0;
    const uint64_t lead = (uint64_t)m + (uint64_t)k - 1;
    if (!gpuasm_tindex_pays(g->ranges, nr, lead, total, prep->lv_index)) return 0;
    g->cnt.index_declined--;
    g->cnt.index_strands++;
    /* Many windows: in text lanes, one window a text (each starts fresh at
     * its first column, as the scalar run below does, so the positions and
     * D values are the same); the few positions before lo of each window
     * are its lead-in and dropped. */
    if (cfg->simd > GPUASM_SIMD_SCALAR && k < 64 && nr >= 2 * gpuasm_simd_lanes(cfg->simd)) {
        if (gpuasm_grow((void **)&g->texts, &g->cap_texts, (size_t)nr, sizeof(*g->texts)) < 0) return -1;
        for (int64_t i = 0; i < nr; i++) {
            const gpuasm_end_range *r = &g->ranges[i];
            const uint64_t ws = r->lo > lead ? r->lo - lead : 0;
            g->texts[i].code = targets->code + targets->off[r->target] + ws;
            g->texts[i].n = r->hi + 1 - ws;
        }
        if (gpuasm_text_lanes(cfg->simd, &g->lanes, g->rpeq, m, k, g->texts, (uint32_t)nr) < 0) return -1;
        uint32_t cur = UINT32_MAX;
        for (size_t i = 0; i < g->lanes.n_hit; i++) {
            const gpuasm_lane_hit *h = &g->lanes.hit[i];
            const gpuasm_end_range *r = &g->ranges[h->id];
            if (r->target != cur) {
                flush_hits(w);
                w->cur.target = cur = r->target;
                w->mins.have = 0;
            }
            const uint64_t ws = r->lo > lead ? r->lo - lead : 0;
            if (h->j + ws >= r->lo) emit_hit(w, h->j + ws, h->d);
        }
        flush_hits(w);
        return w->oom ? -1 : 1;
    }
    for (int64_t i = 0; i < nr; i++) {
        const gpuasm_end_range *r = &g->ranges[i];
        const uint8_t *text = targets->code + targets->off[r->target];
        if (i == 0 || g->ranges[i - 1].target != r->target) {
            flush_hits(w);
            w->cur.target = r->target;
            w->mins.have = 0;
        }
        range_emit re = { w, r->lo > lead ? r->lo - lead : 0, r->lo };
        if (gpuasm_myers_run_nt16(g->rpeq, m, text + re.ws, r->hi + 1 - re.ws, k, emit_in_range, &re,
                                  &g->cols) < 0)
            return -1;
    }
    flush_hits(w);
    return w->oom ? -1 : 1;
}

/* Group A's target ends that may hold a partial occurrence (prefilter.h,
 * "The ends pass of reads as patterns"; cpu_walk.h). */
int gpuasm_walk_group_a_marks(group_ws *g, const gpuasm_cpu_prep *prep, const gpuasm_seqset *targets,
                              const gpuasm_search_opt *opt, const uint8_t *rseq, uint64_t rlen, uint32_t s)
{
    if (!g->ends.L || !g->n_a) return 0;
    group_a_ready(g, targets);
    const uint64_t cols = g->a_cols;   /* the ends pass's columns at each end when every end runs */
    /* the last strand's marked targets cleared, not all of group A (issue #28) */
    gpuasm_marked_clear(g->emark, &g->emarked);
    const uint32_t ends = gpuasm_partial_text_ends(opt, 1, s);
    const int emarked =
        (prep->has_eix && g->ends.W <= GPUASM_ENDS_INDEX_W
             ? gpuasm_ends_index_marks(&prep->eix, targets, rseq, (uint32_t)rlen, &g->ends, ends, g->in_a,
                                       g->stamp_a, g->emark, &g->emarked, &g->epairs, &g->cap_epairs,
                                       gpuasm_ends_max_hits(cols * (uint64_t)__builtin_popcount(ends),
                                                            prep->lv_index))
             : gpuasm_tindex_end_marks(&prep->tx, targets, rseq, (uint32_t)rlen, g->ends.L, g->ends.W, ends, g->ebits,
                                       g->in_a, g->stamp_a, g->emark, &g->emarked)) == 0;
    if (emarked && prep->tx.n_amb) {
        if (!g->amb_ready) g->n_amb_a = 0;   /* listed once a read length (its groups and W) */
        for (uint32_t i = 0; !g->amb_ready && i < g->n_a; i++) {
            const int e = gpuasm_tindex_end_amb(&prep->tx, targets, g->grp_a[i], g->ends.W);
            if (!e) continue;
            g->amb_ends[g->n_amb_a] = (uint8_t)e;
            g->amb_a[g->n_amb_a++] = g->grp_a[i];
        }
        g->amb_ready = 1;
        gpuasm_marked_or(g->emark, &g->emarked, g->amb_a, g->amb_ends, g->n_amb_a);
    }
    return emarked;
}

/* Feed the lane kernel's hits (in (id, j) order) to the walk; id indexes
 * tmap (the pairs' targets). */
static void feed_lane_hits(walk *w, const gpuasm_lanes_ws *lw, const uint32_t *tmap)
{
    uint32_t cur = UINT32_MAX;
    for (size_t i = 0; i < lw->n_hit; i++) {
        const gpuasm_lane_hit *h = &lw->hit[i];
        if (h->id != cur) {
            flush_hits(w);
            cur = h->id;
            w->cur.target = tmap[cur];
        }
        emit_hit(w, h->j, h->d);
    }
    flush_hits(w);
}

/* One pair by the scalar twin's recurrence from a prebuilt PEq. */
static int run_scalar(walk *w, group_ws *g, const uint64_t *peq, uint32_t m, const uint8_t *text,
                      uint64_t n, int32_t k, uint32_t t)
{
    w->cur.target = t;
    w->mins.have = 0;
    int rc = gpuasm_myers_run_nt16(peq, m, text, n, k, emit_hit, w, &g->cols);
    flush_hits(w);
    return rc < 0 || w->oom ? -1 : 0;
}

/* g->texts: group A's targets whole, as lane texts.  0 or -1. */
static int whole_texts(group_ws *g, const gpuasm_seqset *targets)
{
    if (gpuasm_grow((void **)&g->texts, &g->cap_texts, g->n_a, sizeof(*g->texts)) < 0) return -1;
    for (uint32_t i = 0; i < g->n_a; i++) {
        const uint32_t t = g->grp_a[i];
        g->texts[i].code = targets->code + targets->off[t];
        g->texts[i].n = targets->off[t + 1] - targets->off[t];
    }
    return 0;
}

/* g->texts: group A's targets in pieces around their periodic runs
 * (periodic.h), g->pieces what each is, for a pattern of m bases at k.
 * Returns the number of texts, 0 when no run is worth a piece (then the
 * targets run whole), or -1 when out of memory. */
static int64_t piece_texts(group_ws *g, const gpuasm_cpu_prep *prep, const gpuasm_seqset *targets, uint32_t m,
                           int32_t k)
{
    size_t np = 0;
    int any = 0;
    for (uint32_t i = 0; i < g->n_a; i++) {
        const uint32_t t = g->grp_a[i];
        const uint8_t *code = targets->code + targets->off[t];
        const uint64_t n = targets->off[t + 1] - targets->off[t];
        const gpuasm_period_run *runs = NULL;
        const int64_t nr = gpuasm_period_cache_get(&prep->runs, t, code, n, &runs);
        if (nr < 0) return -1;
        const int64_t added = gpuasm_text_pieces(t, n, runs, nr, m, k, &g->pieces, np, &g->cap_pieces);
        if (added < 0) return -1;
        any |= added > 1;
        np += (size_t)added;
    }
    if (!any) return 0;
    if (gpuasm_grow((void **)&g->texts, &g->cap_texts, np, sizeof(*g->texts)) < 0) return -1;
    for (size_t i = 0; i < np; i++) {
        const gpuasm_text_piece *pc = &g->pieces[i];
        const uint64_t n = targets->off[pc->target + 1] - targets->off[pc->target];
        g->texts[i].code = targets->code + targets->off[pc->target] + pc->ws;
        g->texts[i].n = (pc->hi < n ? pc->hi + 1 : n) - pc->ws;   /* one column past: hi - 1's right side */
    }
    return (int64_t)np;
}

/* Feed the local minima hit[0 .. n_hit) (in (piece, j) order, j from the
 * piece's ws) of the np pieces of piece_texts() to the walk: each
 * piece's in [lo, hi), then those of its skip, [hi, skip_end), replayed
 * from the period before hi: the stream the whole targets give
 * (periodic.h).  Minima only: no two are adjacent, so emit_hit() pushes
 * each as it is, and the keep rule's early stop below changes no other
 * decision.  0 or -1 (out of memory). */
static int feed_piece_hits(walk *w, group_ws *g, const gpuasm_lane_hit *hit, size_t n_hit, size_t np)
{
    size_t h = 0;
    for (size_t i = 0; i < np; i++) {
        const gpuasm_text_piece *pc = &g->pieces[i];
        if (i == 0 || g->pieces[i - 1].target != pc->target) {
            flush_hits(w);
            w->cur.target = pc->target;
        }
        size_t nr = 0;
        for (; h < n_hit && hit[h].id == i; h++) {
            const uint64_t j = pc->ws + hit[h].j;
            if (j < pc->lo || j >= pc->hi) continue;   /* the lead-in; hi itself is the next piece's */
            emit_hit(w, j, hit[h].d);
            if (pc->p && j >= pc->hi - pc->p) {
                if (gpuasm_grow((void **)&g->replay, &g->cap_replay, nr + 1, sizeof(*g->replay)) < 0) return -1;
                g->replay[nr++] = (gpuasm_lane_hit){ j, 0, hit[h].d };
            }
        }
        if (!pc->p || !nr) continue;
        for (uint64_t q = pc->p;; q += pc->p) {
            /* GPUASM_KEEP_REPORTED: once the rule drops a whole period's
             * hits it drops every later one (their ends only grow) */
            int drops = w->keep_span != 0;
            for (size_t y = 0; y < nr && drops; y++) {
                gpuasm_endhit e = w->cur;
                e.end = (uint32_t)(g->replay[y].j + q);
                e.dist = g->replay[y].d;
                drops = gpuasm_keep_drops(&w->keep, &e, w->keep_span);
            }
            if (drops) break;
            for (size_t y = 0; y < nr; y++) {
                if (g->replay[y].j + q >= pc->skip_end) goto next;
                emit_hit(w, g->replay[y].j + q, g->replay[y].d);
            }
        }
    next:;
    }
    flush_hits(w);
    return w->oom ? -1 : 0;
}

/* The scalar twin's positions of one piece as local minima (minima_take(),
 * cpu_walk.h), appended to g->pmin as lane hits of piece id. */
typedef struct piece_minima {
    group_ws *g;
    uint32_t id;
    int oom;
    minima_state mins;
} piece_minima;

static void pm_push(piece_minima *pm, uint64_t j, int32_t d)
{
    group_ws *g = pm->g;
    if (gpuasm_grow((void **)&g->pmin, &g->cap_pmin, g->n_pmin + 1, sizeof(*g->pmin)) < 0) {
        pm->oom = 1;
        return;
    }
    g->pmin[g->n_pmin++] = (gpuasm_lane_hit){ j, pm->id, d };
}

static void pm_emit(void *ctx, uint64_t j, int32_t d)
{
    piece_minima *pm = ctx;
    uint64_t pj;
    int32_t pd;
    if (minima_take(&pm->mins, j, d, &pj, &pd)) pm_push(pm, pj, pd);
}

/* Group A's declined strand by the scalar twin in the np pieces of
 * piece_texts() (reads past the full lanes' 256 bases, or no SIMD),
 * each piece's minima collected, then fed.  0 or -1. */
static int run_scalar_pieces(walk *w, group_ws *g, size_t np, uint32_t m, int32_t k)
{
    g->n_pmin = 0;
    for (size_t i = 0; i < np; i++) {
        piece_minima pm = { g, (uint32_t)i, 0, { 0, 0, 0, 0 } };
        if (gpuasm_myers_run_nt16(g->rpeq, m, g->texts[i].code, g->texts[i].n, k, pm_emit, &pm, &g->cols) < 0)
            return -1;
        uint64_t pj;
        int32_t pd;
        if (minima_end(&pm.mins, &pj, &pd)) pm_push(&pm, pj, pd);   /* the piece's last column */
        if (pm.oom) return -1;
    }
    return feed_piece_hits(w, g, g->pmin, g->n_pmin, np);
}

/* A declined strand through the targets' periodic runs (periodic.h): in
 * pieces, by the full text lanes (full_lanes: their local minima, for
 * patterns of any number of words up to GPUASM_LANES_FULL_M) or else by
 * the scalar twin (not for patterns of bands: their search leaves its
 * text end's partial, run_scalar_tend), when the runs leave out at least
 * half of the group's total bases (the scalar twin takes every target in
 * its pieces: a poly-A read against a database with one poly-A run would
 * otherwise leave the lanes for the scalar twin on the rest).  1 when
 * done, 0 when no run is worth a piece (or GPUASM_CPU_PERIODIC=0), -1 when
 * out of memory. */
static int group_a_periodic(walk *w, group_ws *g, const gpuasm_cpu_cfg *cfg, const gpuasm_cpu_prep *prep,
                            const gpuasm_seqset *targets, uint32_t m, int32_t k, int full_lanes, uint64_t total)
{
    if (!cfg->periodic || (!full_lanes && (m + 63u) / 64u >= GPUASM_MYERS_BANDS_MIN_WORDS)) return 0;
    const int64_t np = piece_texts(g, prep, targets, m, k);
    if (np <= 0) return (int)np;
    uint64_t left_out = 0;
    for (int64_t i = 0; i < np; i++) left_out += g->pieces[i].skip_end - g->pieces[i].hi;
    int rc;
    if (!full_lanes) {
        if (2 * left_out < total) return 0;
        rc = run_scalar_pieces(w, g, (size_t)np, m, k);
    } else {
        rc = gpuasm_text_lanes_full(cfg->simd, &g->lanes, g->rpeq, m, k, g->texts, (uint32_t)np, 1) < 0
                 ? -1 : feed_piece_hits(w, g, g->lanes.hit, g->lanes.n_hit, (size_t)np);
    }
    if (rc < 0) return -1;
    g->cnt.periodic_cols += left_out;
    return 1;
}

/* Group A of one read strand: rseq (rlen bases, k) is the pattern of every
 * target in g->grp_a.  0 or -1 (out of memory). */
/* One pair by the scalar twin (run_scalar) that also leaves, for a
 * pattern of bands (64 words or more) and te, the pair's text-end partial
 * from the search's last column: gpuasm_partial_cut_rows(), the same best
 * as the ends pass's own window, whose kmax must be <= k.  rip: the read
 * is the pattern (group A).  0 or -1. */
static int run_scalar_tend(walk *w, group_ws *g, const gpuasm_search_opt *te, uint32_t n_targets, int rip,
                           const uint64_t *peq, const uint8_t *pat, uint32_t m, const uint8_t *text, uint64_t n,
                           int32_t k, uint32_t t)
{
    const uint32_t omin = te ? gpuasm_pair_overlap_min(te, rip, m) : 0;
    const int want = omin && omin < m && n && n <= UINT32_MAX &&
                     (m + 63u) / 64u >= GPUASM_MYERS_BANDS_MIN_WORDS;
    g->cols.want_end = want;
    const int rc = run_scalar(w, g, peq, m, text, n, k, t);
    g->cols.want_end = 0;
    if (rc < 0 || !want || !g->cols.end_ok) return rc;
    const int32_t sfloor = gpuasm_pair_partial_floor(te, rip);
    const int32_t kmax = gpuasm_partial_kf(te, sfloor, m - 1u, m);
    if (kmax > k) return 0;
    const size_t had = g->cap_tend_at;
    if (gpuasm_grow((void **)&g->tend, &g->cap_tend, n_targets, sizeof(*g->tend)) < 0 ||
        gpuasm_grow((void **)&g->tend_at, &g->cap_tend_at, n_targets, sizeof(*g->tend_at)) < 0)
        return -1;
    /* new stamps 0: no strand's (tend_cur starts at 1) */
    memset(g->tend_at + had, 0, (g->cap_tend_at - had) * sizeof(*g->tend_at));
    gpuasm_partial b = { 0, 0 };
    if (kmax >= 0) {
        const size_t W = ((size_t)m + 63u) / 64u;   /* end_w's stride: this pattern's blocks */
        const uint64_t *e = g->cols.end_w;
        const gpuasm_seqview pv = { pat, m, 0 }, tv = { text, (uint32_t)n, 0 };
        b = gpuasm_partial_cut_rows(te, omin, sfloor, &pv, &tv, 0, kmax, g->cols.end_rows, e, e + W, e + 2 * W,
                                    e + 3 * W, e + 4 * W);
    }
    g->tend[t] = b;
    g->tend_at[t] = g->tend_cur;
    return 0;
}

int gpuasm_walk_group_a(walk *w, group_ws *g, const gpuasm_cpu_cfg *cfg, const gpuasm_cpu_prep *prep,
                        const gpuasm_seqset *targets, const uint8_t *rseq, uint32_t m, int32_t k,
                        const gpuasm_search_opt *te)
{
    const size_t words = gpuasm_myers_peq_words(m);
    if (gpuasm_grow((void **)&g->rpeq, &g->rpeq_cap, words, sizeof(uint64_t)) < 0) return -1;
    gpuasm_myers_peq_nt16(g->rpeq, rseq, m);
    uint64_t total = 0;
    if (g->in_a) {   /* the group's sum, once (with its stamps) */
        group_a_ready(g, targets);
        total = g->a_total;
    } else {
        for (uint32_t i = 0; i < g->n_a; i++)
            total += targets->off[g->grp_a[i] + 1] - targets->off[g->grp_a[i]];
    }
    int declined = 0;
    if (prep->has_tindex) {
        const int r = walk_group_a_ranges(w, g, cfg, prep, targets, rseq, m, k, total);
        if (r != 0) return r < 0 ? -1 : 0;
        declined = 1;
    }
    const int L = gpuasm_simd_lanes(cfg->simd);
    /* The index declined: the read matches the targets in too many places
     * (a repeat), where Ukkonen's cut-off keeps every block in nearly every
     * column; text lanes with every block in the vector then beat both the
     * cut-off lanes and the scalar run (issue #28's periodic case; they
     * also take k >= 64).  One word has no blocks below: the lanes below. */
    const int full_lanes = declined && cfg->simd > GPUASM_SIMD_SCALAR && m <= GPUASM_LANES_FULL_M &&
                           total >= (uint64_t)L * 2 * ((uint64_t)m + (uint64_t)k);
    if (declined) {
        const int r = group_a_periodic(w, g, cfg, prep, targets, m, k, full_lanes, total);
        if (r != 0) return r < 0 ? -1 : 0;
    }
    if (full_lanes && m > 64) {   /* one word: the cut-off lanes below compute the same */
        if (whole_texts(g, targets) < 0) return -1;
        /* only the local minima: emit_hit() keeps them as they are */
        if (gpuasm_text_lanes_full(cfg->simd, &g->lanes, g->rpeq, m, k, g->texts, g->n_a, 1) < 0) return -1;
        feed_lane_hits(w, &g->lanes, g->grp_a);
        return w->oom ? -1 : 0;
    }
    /* Text lanes pay m + k lead-in columns per piece and run the blocks
     * below block 0 in scalar code: worth it with enough text per lane and
     * k < 64 (block 0 then holds every cell <= k away from occurrences). */
    const uint64_t min_lane = cfg->lane_min > 0 ? (uint64_t)cfg->lane_min : 8 * ((uint64_t)m + (uint64_t)k);
    if (cfg->simd > GPUASM_SIMD_SCALAR && k < 64 && total >= (uint64_t)L * min_lane) {
        if (whole_texts(g, targets) < 0) return -1;
        if (gpuasm_text_lanes(cfg->simd, &g->lanes, g->rpeq, m, k, g->texts, g->n_a) < 0) return -1;
        feed_lane_hits(w, &g->lanes, g->grp_a);
        return w->oom ? -1 : 0;
    }
    for (uint32_t i = 0; i < g->n_a; i++) {
        const uint32_t t = g->grp_a[i];
        if (run_scalar_tend(w, g, te, targets->n, 1, g->rpeq, rseq, m, targets->code + targets->off[t],
                            targets->off[t + 1] - targets->off[t], k, t) < 0)
            return -1;
    }
    return 0;
}

/* Group B of one read strand: every target in g->grp_b is a pattern against
 * rseq (n bases).  tw/tws: the twin, for targets without a prebuilt PEq. */
int gpuasm_walk_group_b(walk *w, group_ws *g, const gpuasm_cpu_cfg *cfg, const gpuasm_cpu_prep *prep,
                        const gpuasm_seqset *targets, const gpuasm_search_opt *opt, const uint8_t *rseq,
                        uint64_t n, const gpuasm_twin *tw, void *tws, const gpuasm_search_opt *te)
{
    /* The filter's candidates: marked, or never filtered.  With many
     * patterns (a primer panel) only the marked ones and the group's
     * "always" ones are visited, in target order, not the whole group. */
    int all = 1;
    const uint32_t *cand = g->grp_b;
    uint32_t n_cand = g->n_b;
    if (prep->has_filter) {
        if (++g->stamp == 0) {   /* stamps wrapped: clear the marks */
            memset(g->mark, 0, (size_t)targets->n * sizeof(uint32_t));
            g->stamp = 1;
        }
        const int64_t nm = gpuasm_qfilter_mark_list(&prep->qf, rseq, n, g->mark, g->stamp, &g->marked,
                                                    &g->cap_marked);
        if (nm == -1) return -1;
        all = nm < 0;
        if (!all) {
            uint32_t u = 0;
            for (int64_t i = 0; i < nm; i++)
                if (g->in_b[g->marked[i]] == g->stamp_b) g->marked[u++] = g->marked[i];
            if (gpuasm_grow((void **)&g->marked, &g->cap_marked, (size_t)u + g->n_always_b, sizeof(uint32_t)) < 0)
                return -1;
            for (uint32_t i = 0; i < g->n_always_b; i++) g->marked[u++] = g->always_b[i];
            if (u > 1 && gpuasm_sort_ids(g->marked, u, targets->n, &g->idcnt, &g->cap_idcnt) < 0) return -1;
            g->cnt.pieces_dropped += g->n_b - u;
            cand = g->marked;
            n_cand = u;
        }
    }
    /* Lane candidates: one word (<= 64 bases) from the front of g->pats,
     * two words (65..128) from the back; joined narrow-first below. */
    uint32_t np = 0, nw = 0;
    const int lanes = cfg->simd > GPUASM_SIMD_SCALAR;
    if (lanes && (gpuasm_grow((void **)&g->pats, &g->cap_pats, g->n_b, sizeof(*g->pats)) < 0 ||
                  gpuasm_grow((void **)&g->pat_t, &g->cap_pat_t, g->n_b, sizeof(*g->pat_t)) < 0))
        return -1;
    for (uint32_t i = 0; i < n_cand; i++) {
        const uint32_t t = cand[i];
        if (prep->has_filter) g->cnt.pieces_kept++;
        const uint8_t *pat = targets->code + targets->off[t];
        const uint32_t m = (uint32_t)(targets->off[t + 1] - targets->off[t]);
        const int32_t k = g->k_t[t];
        const uint64_t off = prep->peq_off[t];
        if (off != UINT64_MAX && lanes && m <= 128) {
            const uint32_t x = m <= 64 ? np++ : g->n_b - 1 - nw++;
            g->pats[x].peq = prep->peq + off;
            g->pats[x].m = m;
            g->pats[x].k = k;
            g->pat_t[x] = t;
        } else if (off != UINT64_MAX) {
            if (run_scalar_tend(w, g, te, targets->n, 0, prep->peq + off, pat, m, rseq, n, k, t) < 0) return -1;
        } else if (te && (m + 63u) / 64u >= GPUASM_MYERS_BANDS_MIN_WORDS) {
            /* a long target (a genome against a longer read) without a
             * prebuilt PEq: built here, so that its band search leaves the
             * read end's partial; the twin's own search otherwise */
            if (gpuasm_grow((void **)&g->tpeq, &g->cap_tpeq, gpuasm_myers_peq_words(m), sizeof(uint64_t)) < 0)
                return -1;
            gpuasm_myers_peq_nt16(g->tpeq, pat, m);
            if (run_scalar_tend(w, g, te, targets->n, 0, g->tpeq, pat, m, rseq, n, k, t) < 0) return -1;
        } else {
            gpuasm_twin_pair p = { pat, m, rseq, n, k, (uint64_t)t << 2 };
            w->cur.target = t;
            w->mins.have = 0;
            int rc = tw->pair(tws, &p, emit_hit, w);
            flush_hits(w);
            if (rc < 0 || w->oom) return -1;
        }
    }
    /* The two-word ones (stored backwards from the end) after the one-word
     * ones, in target order. */
    if (nw) {
        memmove(g->pats + np, g->pats + (g->n_b - nw), nw * sizeof(*g->pats));
        memmove(g->pat_t + np, g->pat_t + (g->n_b - nw), nw * sizeof(*g->pat_t));
        for (uint32_t a = np, b = np + nw - 1; a < b; a++, b--) {
            const gpuasm_lane_pattern x = g->pats[a];
            g->pats[a] = g->pats[b];
            g->pats[b] = x;
            const uint32_t y = g->pat_t[a];
            g->pat_t[a] = g->pat_t[b];
            g->pat_t[b] = y;
        }
    }
    np += nw;
    if (np == 1) return run_scalar(w, g, g->pats[0].peq, g->pats[0].m, rseq, n, g->pats[0].k, g->pat_t[0]);
    if (np > 1) {
        if (gpuasm_pattern_lanes(cfg->simd, &g->lanes, g->pats, np, rseq, n) < 0) return -1;
        feed_lane_hits(w, &g->lanes, g->pat_t);
        if (w->oom) return -1;
    }
    return 0;
}

/* Hamming, one read strand: group A through the window index (end ranges
 * without shifts, each window of m bases searched by the twin), group B
 * through the target filter; pairs the filters cannot take run whole. */
int gpuasm_walk_hamming(walk *w, group_ws *g, const gpuasm_cpu_cfg *cfg, const gpuasm_cpu_prep *prep,
                        const gpuasm_seqset *targets, const uint8_t *rseq, uint32_t rlen,
                        int32_t k_read, const gpuasm_twin *tw, void *tws)
{
    /* twin.h: equal keys mean an identical pattern (the twin caches by it) */
    const uint64_t read_key = ((uint64_t)w->cur.read << 2) | ((uint64_t)w->cur.strand << 1) | 1;
    int64_t nr = -2;
    if (g->n_a && prep->has_tindex) {
        group_a_ready(g, targets);
        const uint64_t total = g->a_total;
        nr = gpuasm_tindex_ranges(&prep->tx, targets, rseq, rlen, k_read, 1, g->in_a, g->stamp_a,
                                  gpuasm_tindex_max_hits(total, prep->lv_index), &g->ranges, &g->cap_ranges);
        if (nr == -1) return -1;
        uint64_t cost = 0;
        for (int64_t i = 0; i < nr; i++) cost += g->ranges[i].hi - g->ranges[i].lo + rlen;
        if (nr >= 0 && cost > total / 4 && prep->lv_index < 2) nr = -2;
        if (nr >= 0) g->cnt.index_strands++; else g->cnt.index_declined++;
    }
    if (nr >= 0) {
        for (int64_t i = 0; i < nr; i++) {
            const gpuasm_end_range *r = &g->ranges[i];
            if (i == 0 || g->ranges[i - 1].target != r->target) {
                flush_hits(w);
                w->cur.target = r->target;
                w->mins.have = 0;
            }
            /* windows ending in [lo, hi] start at lo - (m - 1) .. */
            range_emit re = { w, r->lo >= rlen - 1 ? r->lo - (rlen - 1) : 0, r->lo };
            gpuasm_twin_pair p = { rseq, rlen, targets->code + targets->off[r->target] + re.ws,
                                   r->hi + 1 - re.ws, k_read, read_key };
            if (tw->pair(tws, &p, emit_in_range, &re) < 0) return -1;
        }
        flush_hits(w);
    } else {
        for (uint32_t i = 0; i < g->n_a; i++) {
            const uint32_t t = g->grp_a[i];
            gpuasm_twin_pair p = { rseq, rlen, targets->code + targets->off[t],
                                   targets->off[t + 1] - targets->off[t], k_read, read_key };
            w->cur.target = t;
            w->mins.have = 0;
            if (tw->pair(tws, &p, emit_hit, w) < 0) return -1;
            flush_hits(w);
        }
    }
    /* Group B: the windows the target filter fixes are counted one by one
     * (D is then known there and > k everywhere else); targets the filter
     * does not take, or a text it cannot filter, run whole. */
    int64_t ns = -2;
    if (g->n_b && prep->has_filter) {
        ns = gpuasm_qfilter_seeds(&prep->qf, rseq, rlen, &g->seeds, &g->cap_seeds);
        if (ns == -1) return -1;
        if (++g->stamp == 0) {
            memset(g->mark, 0, (size_t)targets->n * sizeof(uint32_t));
            g->stamp = 1;
        }
        for (uint32_t i = 0; i < g->n_b; i++) g->mark[g->grp_b[i]] = g->stamp;   /* in group B */
    }
    uint32_t cur = UINT32_MAX;   /* the pair w->cur is set to */
    uint64_t kept = 0;           /* filtered targets with a window to count */
    for (int64_t i = 0; i < ns; i++) {
        const gpuasm_seed *sd = &g->seeds[i];
        const uint32_t t = sd->target;
        if (g->mark[t] != g->stamp || prep->qf.always[t]) continue;
        const uint8_t *pat = targets->code + targets->off[t];
        const uint32_t m = (uint32_t)(targets->off[t + 1] - targets->off[t]);
        if (sd->start < 0 || (uint64_t)sd->start + m > rlen) continue;
        if (t != cur) {
            flush_hits(w);
            w->cur.target = cur = t;
            w->mins.have = 0;
            kept++;
        }
        const int32_t k = g->k_t[t];
        int32_t d = 0;
        for (uint32_t x = 0; x < m && d <= k; x++) d += (pat[x] & rseq[sd->start + x]) == 0;
        if (d <= k) emit_hit(w, (uint64_t)sd->start + m - 1, d);
    }
    flush_hits(w);
    uint64_t filtered = 0;   /* group B's targets the filter took: kept above, or dropped */
    for (uint32_t i = 0; i < g->n_b; i++) {
        const uint32_t t = g->grp_b[i];
        if (ns >= 0 && !prep->qf.always[t]) {   /* counted above */
            filtered++;
            continue;
        }
        if (prep->has_filter) g->cnt.pieces_kept++;
        gpuasm_twin_pair p = { targets->code + targets->off[t], (uint32_t)(targets->off[t + 1] - targets->off[t]),
                               rseq, rlen, g->k_t[t], (uint64_t)t << 2 };
        w->cur.target = t;
        w->mins.have = 0;
        if (tw->pair(tws, &p, emit_hit, w) < 0) return -1;
        flush_hits(w);
    }
    g->cnt.pieces_kept += kept;
    g->cnt.pieces_dropped += filtered - kept;
    return w->oom ? -1 : 0;
}

/* The ends a candidate of gpuasm_ends_candidates() may have (partial_hits' allow);
 * valid for the stamp gpuasm_ends_candidates() last set). */
uint32_t gpuasm_ends_allowed(const group_ws *g, const gpuasm_cpu_prep *prep, uint32_t t)
{
    const uint32_t a = prep->ef.always[t];
    return (uint32_t)((a & 1u) || g->bmark[0][t] == g->bstamp) |
           (uint32_t)(((a & 2u) || g->bmark[1][t] == g->bstamp) << 1);
}

/* The text bases the ends pass of an allowed end of candidate t needs to
 * look at (ends_filter.h, gpuasm_efilter_mark's reach): UINT32_MAX (all
 * of its window) where the end is "always" or the strand was not
 * filtered. */
void gpuasm_ends_reach(const group_ws *g, const gpuasm_cpu_prep *prep, uint32_t t, uint32_t reach[2])
{
    for (int e = 0; e < 2; e++)
        reach[e] = (prep->ef.always[t] >> e & 1u) || g->bmark[e][t] != g->bstamp ? UINT32_MAX : g->breach[e][t];
}

/* The ends filter for group B of one read strand (ends_filter.h): the
 * targets whose ends pass may find something, in target order, in
 * g->ecand; which ends each may have is in g->bmark and ef.always
 * (gpuasm_ends_allowed()).  The items of the other targets that take partial
 * occurrences are counted as skipped here (partial_hits() counts the
 * candidates').  Returns their number, -2 when the strand cannot be
 * filtered (every target runs), or -1 when out of memory. */
int64_t gpuasm_ends_candidates(group_ws *g, const gpuasm_cpu_prep *prep, const gpuasm_seqset *targets,
                               const gpuasm_search_opt *opt, const uint8_t *rseq, uint64_t n, uint32_t strand)
{
    const uint32_t ends = gpuasm_partial_text_ends(opt, 0, strand);
    const uint64_t per = gpuasm_ends_n(ends);
    if (++g->bstamp == 0) {   /* stamps wrapped: clear the marks */
        memset(g->bmark[0], 0, (size_t)targets->n * sizeof(uint32_t));
        memset(g->bmark[1], 0, (size_t)targets->n * sizeof(uint32_t));
        g->bstamp = 1;
    }
    const int64_t nm = gpuasm_efilter_mark(&prep->ef, rseq, n, ends, g->bmark, g->bstamp, g->breach,
                                           &g->ecand, &g->cap_ecand, &g->efws);
    if (nm == -1) return -1;
    if (nm < 0) return -2;
    /* the marked targets of group B, then its "always" ones, each once */
    uint32_t u = 0;
    for (int64_t i = 0; i < nm; i++) {
        const uint32_t t = g->ecand[i];
        if (g->in_b[t] == g->stamp_b && !prep->ef.always[t]) g->ecand[u++] = t;
    }
    if (gpuasm_grow((void **)&g->ecand, &g->cap_ecand, (size_t)u + g->n_ealways, sizeof(uint32_t)) < 0) return -1;
    for (uint32_t i = 0; i < g->n_ealways; i++) g->ecand[u++] = g->ealways[i];
    /* target order (qsort's calls were a tenth of the filter's cost) */
    if (gpuasm_sort_ids(g->ecand, u, targets->n, &g->idcnt, &g->cap_idcnt) < 0) return -1;
    g->cnt.ends_skipped += (uint64_t)(g->n_b_partial - u) * per;   /* every candidate takes them */
    return u;
}

/* The ends pass of the candidates list[0 .. nl) of one read strand
 * (gpuasm_ends_candidates()) whose targets have a one-word ends_word, in
 * lanes (kernels/ends/ends_lanes.h), end by end: g->epre[e nl + i] is what
 * partial_hits() (cpu_scan.c) would get from gpuasm_ends_word_best() for
 * candidate i at end e, for the ends of the strand's rule that the filter
 * allows (none elsewhere, where partial_hits() does not look); candidates
 * without a one-word ends_word are left to it.  0, or -1 when out of
 * memory. */
int gpuasm_ends_lanes(group_ws *g, const gpuasm_cpu_prep *prep, const gpuasm_search_opt *opt,
                      const uint32_t *list, uint32_t nl, const uint8_t *rseq, uint64_t n, uint32_t strand)
{
    if (gpuasm_grow((void **)&g->epre, &g->cap_epre, 2 * (size_t)nl, sizeof(*g->epre)) < 0 ||
        gpuasm_grow((void **)&g->el_ew, &g->cap_el_ew, nl, sizeof(*g->el_ew)) < 0 ||
        gpuasm_grow((void **)&g->el_reach, &g->cap_el_reach, 2 * (size_t)nl, sizeof(uint32_t)) < 0)
        return -1;
    const uint32_t all = gpuasm_partial_text_ends(opt, 0, strand);
    for (uint32_t i = 0; i < nl; i++) {
        const uint32_t t = list[i];
        const ends_word *ew = &prep->ew[t];
        uint32_t reach[2] = { 0, 0 };   /* 0: nothing to run (ends_lanes.h) */
        if (ew->m && ew->nw == 1) {
            gpuasm_ends_reach(g, prep, t, reach);
            const uint32_t ends = all & gpuasm_ends_allowed(g, prep, t);
            for (int e = 0; e < 2; e++)
                if (!(ends >> e & 1u)) reach[e] = 0;
        }
        g->el_ew[i] = ew;
        g->el_reach[i] = reach[0];
        g->el_reach[nl + i] = reach[1];
    }
    for (int e = 0; e < 2; e++) {
        if (!(all >> e & 1u)) continue;
        /* a family's candidates settled at once where one DP proves none
         * has an acceptable occurrence (ends_classes.h) */
        if (prep->has_ecls) {
            const int64_t st = gpuasm_ends_classes_settle(&prep->ecls, &g->ecws, prep->ew, list, nl,
                                                          g->el_reach + (size_t)e * nl, rseq, (uint32_t)n, e);
            if (st < 0) return -1;
            g->cnt.ends_settled += (uint64_t)st;
        }
        gpuasm_ends_lanes_best(g->el_ew, g->el_reach + (size_t)e * nl, nl, rseq, (uint32_t)n, e,
                               g->epre + (size_t)e * nl);
    }
    return 0;
}
