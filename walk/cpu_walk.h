/* SPDX-License-Identifier: MIT */
/* cpu_walk.h -- what the CPU pair walk's units share (internal to walk/):
 * the walk's state and its local-minimum filter, the per-run tables
 * (struct gpuasm_cpu_prep: cpu_scan.h is its outside), and the grouped
 * walk of a kernel whose twin runs in SIMD lanes (cpu_grouped.c;
 * registry.h: GPUASM_CAP_LANES) or behind the pigeonhole filters
 * (GPUASM_CAP_CPU_FILTER).  cpu_scan.c runs them.
 */
#ifndef GPUASM_CPU_WALK_H
#define GPUASM_CPU_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/ends/ends_lanes.h"
#include "kernels/myers/myers_cpu.h"
#include "kernels/myers/myers_lanes.h"
#include "kernels/twin.h"
#include "search/search.h"
#include "walk/cpu_scan.h"
#include "walk/ends_classes.h"
#include "walk/ends_filter.h"
#include "walk/periodic.h"
#include "walk/prefilter.h"

/* ---- the walk ------------------------------------------------------------------ */

/* The local-minimum rule (search.h) on a stream of positions: they arrive
 * in increasing j, only those with D <= k; a position missing between two
 * arrivals had D > k.  So j is a local minimum iff j-1 did not arrive or
 * had a larger D, and j+1 did not arrive or has a D at least as large.
 * The last position seen is held until its right neighbour is known. */
typedef struct minima_state {
    int have, left_ok;
    uint64_t j;
    int32_t d;
} minima_state;

/* Take (j, d): 1 when the position held before it, (*pj, *pd), is a local
 * minimum. */
static inline int minima_take(minima_state *m, uint64_t j, int32_t d, uint64_t *pj, int32_t *pd)
{
    int left_ok = 1, out;
    if (m->have && m->j + 1 == j) {
        left_ok = m->d > d;
        out = m->left_ok && d >= m->d;
    } else {
        out = m->have && m->left_ok;
    }
    *pj = m->j;
    *pd = m->d;
    m->have = 1;
    m->left_ok = left_ok;
    m->j = j;
    m->d = d;
    return out;
}

/* The stream's end: 1 when the held position, (*pj, *pd), is a local
 * minimum (it has no right neighbour); nothing is held after. */
static inline int minima_end(minima_state *m, uint64_t *pj, int32_t *pd)
{
    const int out = m->have && m->left_ok;
    *pj = m->j;
    *pd = m->d;
    m->have = 0;
    return out;
}

/* The walk's state, on gpuasm_cpu_scan()'s stack. */
typedef struct walk {
    gpuasm_hits *out;
    gpuasm_endhit cur;      /* read/target/strand of the pair being run */
    int oom;
    minima_state mins;      /* the local-minimum filter of the pair's positions */
    /* GPUASM_KEEP_REPORTED (search.h): the rule's state and the read's L
     * (0: every hit is kept) */
    gpuasm_keep_state keep;
    uint64_t keep_span;
} walk;

static inline void push_hit(walk *w, uint64_t j, int32_t d)
{
    gpuasm_endhit e = w->cur;
    e.end = (uint32_t)j;
    e.dist = d;
    if (w->keep_span) {
        const int r = gpuasm_keep_hit(&w->keep, &e, w->keep_span);
        if (r <= 0) {
            if (r < 0) w->oom = 1;
            return;
        }
    }
    if (gpuasm_hits_push(w->out, e) < 0) w->oom = 1;
}

/* One position of the pair's stream: its local minima are pushed. */
static inline void emit_hit(void *ctx, uint64_t j, int32_t d)
{
    walk *w = ctx;
    uint64_t pj;
    int32_t pd;
    if (minima_take(&w->mins, j, d, &pj, &pd)) push_hit(w, pj, pd);
}

static inline void flush_hits(walk *w)
{
    uint64_t pj;
    int32_t pd;
    if (minima_end(&w->mins, &pj, &pd)) push_hit(w, pj, pd);
}

/* ---- the per-run tables (cpu_scan.h) ------------------------------------------ */

/* The ends pass of a target of <= 64 bases as the pattern from per-run
 * word tables (cpu_scan.c). */
typedef struct ends_word ends_word;

struct gpuasm_cpu_prep {
    const gpuasm_seqset *targets;
    uint32_t n_targets;
    gpuasm_search_opt opt;
    int grouped;           /* myers on nt16: the grouped walk */
    uint64_t *peq;         /* PEq words of the targets that have one */
    uint64_t *peq_off;     /* [n_targets] offset into peq, UINT64_MAX: none */
    int has_filter;
    gpuasm_qfilter qf;      /* targets as patterns */
    int has_tindex;
    gpuasm_tindex tx;       /* reads as patterns */
    int has_eix;
    gpuasm_ends_index eix;  /* the targets' end windows, for the ends pass of reads as patterns */
    gpuasm_period_cache runs; /* with the index: the targets' periodic runs, found as needed */
    int has_efilter;
    gpuasm_efilter ef;      /* the ends pass of targets as patterns (ends_filter.h) */
    ends_word *ew;          /* [n_targets] the ends pass of targets of <= 128 bases as
                             * patterns (edit mode), or NULL; m == 0: none for this one */
    int has_ecls;
    gpuasm_ends_classes ecls; /* ew's families, settled at once (ends_classes.h) */
    /* --filter (search.h) with the GPUASM_CPU_PREFILTER knob: per filter,
     * 0 off, 1 where its cost model says it pays, 2 wherever it applies. */
    int lv_pieces, lv_index;
    char desc[200];         /* what the filters are, for --stats and --verbosity 4 */
    double index_s;         /* wall seconds of the index's build */
};

/* ---- the grouped walk (cpu_grouped.c) ----------------------------------------- */

/* Scratch of one gpuasm_cpu_scan() call for the grouped walk. */
typedef struct group_ws {
    gpuasm_lanes_ws lanes;
    gpuasm_myers_cols cols;
    uint64_t *rpeq;                 /* the read strand's PEq */
    size_t rpeq_cap;
    uint32_t *grp_a, *grp_b;        /* this read's targets: A read is pattern, B target is */
    size_t cap_a, cap_b;
    uint32_t n_a, n_b;
    gpuasm_lane_text *texts;        /* group A as lane texts */
    size_t cap_texts;
    gpuasm_text_piece *pieces;      /* group A's pieces around periodic runs (periodic.h) */
    size_t cap_pieces;
    gpuasm_lane_hit *replay;        /* the period before a piece's skip: its hits */
    size_t cap_replay;
    gpuasm_lane_hit *pmin;          /* the scalar twin's local minima of the pieces */
    size_t n_pmin, cap_pmin;
    gpuasm_lane_pattern *pats;      /* group B candidates of <= 64 bases */
    uint32_t *pat_t;                /* their targets */
    size_t cap_pats, cap_pat_t;
    uint32_t *mark;                 /* prefilter marks, [n_targets] */
    uint32_t stamp;
    int32_t *k_t;                   /* k of each target as the pattern */
    uint32_t *in_a, stamp_a;        /* group A membership for the window index */
    /* in_a stamped for this group (group_pairs clears it: the groups depend
     * on the read length only), with group A's text bases and the ends
     * pass's columns at each end (ends.W each at most) */
    int a_ready;
    uint64_t a_total, a_cols;
    uint32_t *emark;                /* group A: target ends that may hold a partial occurrence */
    gpuasm_marked emarked;          /* the targets emark has nonzero ([n_targets] room): the
                                     * next strand clears these, the ends pass visits these */
    /* group A's targets with an ambiguous code within ends.W of an end,
     * and those ends (gpuasm_tindex_end_amb), for the groups' read length
     * (amb_ready; [n_targets] room, allocated where the index has such
     * codes): ORed into every strand's marks */
    uint32_t *amb_a;
    uint8_t *amb_ends;
    uint32_t n_amb_a;
    int amb_ready;
    gpuasm_read_ends ends;          /* their marks' pieces and windows for the read length of the groups */
    uint64_t ends_rlen;             /* the read length ends was computed for (0: none yet) */
    uint64_t *epairs;               /* its hits (gpuasm_ends_index_marks' scratch) */
    size_t cap_epairs;
    uint64_t *ebits;                /* gpuasm_end_bits() for ebits_W, or NULL: not worth it */
    uint32_t ebits_W;
    gpuasm_end_range *ranges;       /* group A's end ranges */
    size_t cap_ranges;
    gpuasm_seed *seeds;             /* hamming, group B: the windows to count */
    size_t cap_seeds;
    gpuasm_scan_stats cnt;          /* what the filters did (index_*, pieces_*) */
    uint32_t *marked;               /* group B: targets the pieces filter marked, then the candidates */
    size_t cap_marked;
    uint32_t *in_b, stamp_b;        /* group B membership (== stamp_b), for the read length of the groups */
    uint32_t *always_b, n_always_b; /* group B's targets the filter never drops */
    size_t cap_always_b;
    /* the ends filter (ends_filter.h): marks per end, the candidates */
    uint32_t *bmark[2], bstamp;
    uint32_t *breach[2];            /* the text bases a marked end's rules reach (ends_filter.h) */
    uint32_t *ecand;
    size_t cap_ecand;
    uint32_t *ealways, n_ealways;   /* group B's targets "always" at some end */
    uint32_t n_b_partial;           /* group B's targets that take partial occurrences (omin > 0) */
    size_t cap_ealways;
    gpuasm_ef_ws efws;
    gpuasm_ec_ws ecws;              /* gpuasm_ends_classes_settle()'s */
    uint32_t *idcnt;                /* gpuasm_sort_ids()' counts */
    size_t cap_idcnt;
    /* the candidates' ends pass in lanes (gpuasm_ends_lanes()): epre[e n +
     * i] is candidate i's answer at end e (n candidates), from its ends_word
     * el_ew[i] within el_reach[e n + i] */
    gpuasm_partial *epre;
    const ends_word **el_ew;
    uint32_t *el_reach;
    size_t cap_epre, cap_el_ew, cap_el_reach;
    /* the text-end partials of the read strand's band searches (issue
     * #28: a long pattern's own search gives its text end's answer, as
     * the GPU's LONG path does): tend[t] for target t where tend_at[t] ==
     * tend_cur (scan_strand() moves tend_cur on) */
    gpuasm_partial *tend;
    uint32_t *tend_at, tend_cur;
    size_t cap_tend, cap_tend_at;
    uint64_t *tpeq;                 /* a long group B target's PEq, for those */
    size_t cap_tpeq;
} group_ws;

void gpuasm_group_ws_free(group_ws *g);

/* Group A of a read strand (the targets it is the pattern of: reads
 * against genomes), group B (the targets that are patterns against it:
 * adapters), both groups of a kernel behind the filters without lanes
 * (hamming); the ends filter's candidates of group B and the ends each
 * may have.  cpu_grouped.c says more at each. */
/* te: the options when the text ends' partials are wanted (the ends pass
 * in edit mode on nt16), else NULL. */
/* Group A's target ends that may hold a partial occurrence of read strand
 * s (rseq, rlen bases): 1 when g->emark says so, 0 when every end runs. */
int gpuasm_walk_group_a_marks(group_ws *g, const gpuasm_cpu_prep *prep, const gpuasm_seqset *targets,
                              const gpuasm_search_opt *opt, const uint8_t *rseq, uint64_t rlen, uint32_t s);
int gpuasm_walk_group_a(walk *w, group_ws *g, const gpuasm_cpu_cfg *cfg, const gpuasm_cpu_prep *prep,
                        const gpuasm_seqset *targets, const uint8_t *rseq, uint32_t m, int32_t k,
                        const gpuasm_search_opt *te);
int gpuasm_walk_group_b(walk *w, group_ws *g, const gpuasm_cpu_cfg *cfg, const gpuasm_cpu_prep *prep,
                        const gpuasm_seqset *targets, const gpuasm_search_opt *opt, const uint8_t *rseq,
                        uint64_t n, const gpuasm_twin *tw, void *tws, const gpuasm_search_opt *te);
/* The text ends in a mask of gpuasm_partial_text_ends() (two bits, its
 * end and its start): no popcount, which a generic x86-64 build makes a
 * libgcc call (~1% of the adapter screen). */
static inline uint32_t gpuasm_ends_n(uint32_t ends) { return (ends & 1u) + (ends >> 1 & 1u); }

/* The ends pass's counts of an item (gpuasm_scan_stats): the text ends in
 * all and allow ran (or were settled), the others an exact filter ruled out. */
static inline void gpuasm_count_ends(gpuasm_scan_stats *cnt, uint32_t all, uint32_t allow)
{
    cnt->ends_run += gpuasm_ends_n(all & allow);
    cnt->ends_skipped += gpuasm_ends_n(all & ~allow);
}

/* A new read strand: no target's text-end partial yet. */
static inline void gpuasm_walk_tend_next(group_ws *g)
{
    if (++g->tend_cur == 0) {   /* stamps wrapped */
        for (size_t t = 0; t < g->cap_tend_at; t++) g->tend_at[t] = 0;
        g->tend_cur = 1;
    }
}

/* Target t's text-end partial from this strand's search, or NULL. */
static inline const gpuasm_partial *gpuasm_walk_tend(const group_ws *g, uint32_t t)
{
    return g->tend_at && t < g->cap_tend_at && g->tend_at[t] == g->tend_cur ? &g->tend[t] : NULL;
}
int gpuasm_walk_hamming(walk *w, group_ws *g, const gpuasm_cpu_cfg *cfg, const gpuasm_cpu_prep *prep,
                        const gpuasm_seqset *targets, const uint8_t *rseq, uint32_t rlen, int32_t k_read,
                        const gpuasm_twin *tw, void *tws);
int64_t gpuasm_ends_candidates(group_ws *g, const gpuasm_cpu_prep *prep, const gpuasm_seqset *targets,
                               const gpuasm_search_opt *opt, const uint8_t *rseq, uint64_t n, uint32_t strand);
uint32_t gpuasm_ends_allowed(const group_ws *g, const gpuasm_cpu_prep *prep, uint32_t t);
void gpuasm_ends_reach(const group_ws *g, const gpuasm_cpu_prep *prep, uint32_t t, uint32_t reach[2]);
int gpuasm_ends_lanes(group_ws *g, const gpuasm_cpu_prep *prep, const gpuasm_search_opt *opt,
                      const uint32_t *list, uint32_t nl, const uint8_t *rseq, uint64_t n, uint32_t strand);

#endif
