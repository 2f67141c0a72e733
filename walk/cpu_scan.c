/* SPDX-License-Identifier: MIT */
/* cpu_scan.c -- gpuasm_cpu_scan(): the pair walk every CPU twin shares.
 *
 * For each (read, target, strand) of the batch slice: pattern, text and k
 * by search.h's pair rule (gpuasm_pair_of), pairs that are not searched
 * skipped, the pattern-length limit of the kernel's row (registry.h), the
 * read reverse-complemented for strand 1 (nt16 only; the byte alphabet has
 * one strand), then opt->kernel's twin runs the pair (twin.h) and the
 * positions it emits (every j with D <= k) are cut down to local minima.
 * Then the ends pass (partial.h) adds the pair's partial occurrences, the
 * same code the CUDA backend runs; for group B below, behind the ends
 * filter (ends_filter.h) when the pieces filter's level allows it: only
 * the (target, end) items its exact rules keep run partial_best(), so
 * the hits are the same.
 * The myers kernel on nt16 (the default search) walks a read's pairs in two
 * groups instead of one by one, for the SIMD lanes of myers_lanes.h:
 *   A. the targets the read strand is the pattern of (reads against
 *      genomes): one pattern, many texts -> text lanes;
 *   B. the targets that are patterns against the read strand (adapters,
 *      primers): the pigeonhole filter (prefilter.h) drops the ones that
 *      cannot occur, the rest of <= 64 bases run in pattern lanes, longer
 *      ones one by one.
 * Either way every pair gets exactly the scalar twin's positions (the lanes
 * compute its recurrence), so the hits are the same at every SIMD level,
 * with or without the filter; the per-pair path stays for the other
 * kernels, the byte alphabet and GPUASM_CPU_SIMD=0 without a prep.
 * Also gpuasm_scan_cells(), the DP-cell count of a slice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "walk/cpu_scan.h"
#include "walk/cpu_walk.h"
#include "util/lower_bound.h"
#include "util/sort_ids.h"
#include "util/clock.h"
#include "search/cpu_simd.h"
#include "walk/ends_filter.h"
#include "kernels/ends/ends_word.h"
#include "util/grow.h"
#include "kernels/myers/myers_cpu.h"
#include "kernels/myers/myers_lanes.h"
#include "search/nt16.h"
#include "kernels/partial.h"
#include "kernels/ends/partial_cut.h"
#include "walk/prefilter.h"
#include "kernels/registry.h"
#include "search/search.h"
#include "kernels/twin.h"

/* ---- cells ------------------------------------------------------------------ */

/* Can a pattern of m bases be searched at all (for some non-empty text)? */
static int pattern_ok(const gpuasm_search_opt *opt, uint64_t m)
{
    return gpuasm_pair_searched(m, gpuasm_pair_k(opt, m), 1);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* cells = strands x sum over searched pairs of rlen x tlen (m x n is the
 * same product whichever side is the pattern).  With the targets sorted by
 * length and two prefix sums (all lengths, and lengths that can be a
 * pattern), each read costs one binary search instead of a pass over the
 * targets; the direct sum is kept for when memory is short. */
double gpuasm_scan_cells(const gpuasm_seqset *reads, uint32_t first, uint32_t count,
                         const gpuasm_seqset *targets, const gpuasm_search_opt *opt)
{
    const uint32_t nt = targets->n;
    const uint64_t r_end = (uint64_t)first + count < reads->n ? (uint64_t)first + count : reads->n;
    double cells = 0;
    uint64_t *len = nt ? malloc((size_t)nt * sizeof(*len)) : NULL;
    double *all = nt ? malloc(((size_t)nt + 1) * sizeof(*all)) : NULL;
    double *pat = nt ? malloc(((size_t)nt + 1) * sizeof(*pat)) : NULL;
    if (nt && (!len || !all || !pat)) {
        for (uint64_t r = first; r < r_end; r++)
            for (uint32_t t = 0; t < nt; t++) {
                gpuasm_pair p = gpuasm_pair_of(opt, reads->off[r + 1] - reads->off[r],
                                               targets->off[t + 1] - targets->off[t]);
                if (p.searched) cells += (double)p.m * (double)p.n;
            }
        goto done;
    }
    for (uint32_t t = 0; t < nt; t++) len[t] = targets->off[t + 1] - targets->off[t];
    qsort(len, nt, sizeof(*len), cmp_u64);
    all[0] = pat[0] = 0;
    for (uint32_t t = 0; t < nt; t++) {
        all[t + 1] = all[t] + (double)len[t];
        pat[t + 1] = pat[t] + (pattern_ok(opt, len[t]) ? (double)len[t] : 0.0);
    }
    const size_t nz = gpuasm_lower_bound_u64(len, nt, 1);   /* targets [nz, nt) are not empty */
    for (uint64_t r = first; r < r_end; r++) {
        const uint64_t rlen = reads->off[r + 1] - reads->off[r];
        if (rlen == 0) continue;
        double tsum;
        if (opt->pattern_side == GPUASM_PATTERN_READ) {
            tsum = pattern_ok(opt, rlen) ? all[nt] - all[nz] : 0;
        } else if (opt->pattern_side == GPUASM_PATTERN_TARGET) {
            tsum = pat[nt];
        } else {
            /* tlen >= rlen: the read is the pattern; tlen < rlen: the target. */
            const size_t i = gpuasm_lower_bound_u64(len, nt, rlen);
            tsum = (pattern_ok(opt, rlen) ? all[nt] - all[i] : 0) + pat[i];
        }
        cells += (double)rlen * tsum;
    }
done:
    free(len);
    free(all);
    free(pat);
    return cells * gpuasm_strands(opt);
}

/* ---- the walk (cpu_walk.h: its state) ------------------------------------------ */

/* The pair's partial occurrences at the ends of the text (search.h): at
 * most one end hit per end, at the ends in allow (bit 0: the text's end,
 * bit 1: its start; an exact filter may rule ends out).  ws grows to the
 * pattern's needs.  fast: the pattern's ends_word (the target's, or the
 * read strand's when the read is the pattern; edit mode), else NULL;
 * reach: with fast, the text bases each end needs (gpuasm_ends_reach(),
 * UINT32_MAX: all); pre: with fast, gpuasm_ends_word_best()'s answer at
 * each end (from gpuasm_ends_lanes()), or NULL; tend: the text end's from
 * the pair's band search (gpuasm_walk_tend()), or NULL.  0 or -1. */
static int partial_hits(walk *w, const gpuasm_search_opt *opt, int hamming, const gpuasm_pair *pr,
                        const uint8_t *pattern, const uint8_t *text, uint32_t allow, uint64_t **ws,
                        size_t *ws_cap, gpuasm_scan_stats *cnt, const ends_word *fast, const uint32_t reach[2],
                        const gpuasm_partial *pre, const gpuasm_partial *tend)
{
    const uint32_t omin = gpuasm_pair_overlap_min(opt, pr->read_is_pattern, pr->m);
    const uint32_t all = gpuasm_partial_text_ends(opt, pr->read_is_pattern, w->cur.strand);
    const uint32_t ends = all & allow;
    if (!omin) return 0;
    gpuasm_count_ends(cnt, all, allow);
    if (!ends) return 0;
    if (fast && !hamming) {   /* the pattern's ends_word (target's or read strand's) */
        for (int at_start = 0; at_start < 2; at_start++) {
            if (!(ends & (1u << at_start))) continue;
            const uint32_t n = (uint32_t)pr->n, re = reach[at_start];
            /* a long adapter's chance candidate: none by one word's DP */
            const int none = !pre && fast->nw >= 2 && gpuasm_ends_word_none(fast, text, n, at_start, re);
            const gpuasm_partial b = pre    ? pre[at_start]
                                     : none ? (gpuasm_partial){ 0, 0 }
                                            : gpuasm_ends_word_best(fast, text, n, at_start, re);
            if (!b.plen) continue;
            gpuasm_endhit e = w->cur;
            e.end = at_start ? 0 : (uint32_t)(pr->n - 1);
            e.dist = b.dist;
            e.kind = at_start ? GPUASM_HIT_TEXT_START : GPUASM_HIT_TEXT_END;
            e.plen = b.plen;
            if (gpuasm_hits_push(w->out, e) < 0) return -1;
        }
        return 0;
    }
    /* Patterns of several words (a long read running off a genome's end)
     * take the cut-off (kernels/ends/partial_cut.h): the same best. */
    const int cut = !hamming && opt->alphabet == GPUASM_ALPHABET_NT16 && pr->m > 64;
    const size_t need = cut ? gpuasm_partial_cut_ws_words((uint32_t)pr->m) : gpuasm_partial_ws_words((uint32_t)pr->m);
    if (need > *ws_cap) {
        uint64_t *p = realloc(*ws, need * sizeof(**ws));
        if (!p) return -1;
        *ws = p;
        *ws_cap = need;
    }
    const gpuasm_seqview pv = { pattern, (uint32_t)pr->m, 0 }, tv = { text, (uint32_t)pr->n, 0 };
    const int32_t sfloor = gpuasm_pair_partial_floor(opt, pr->read_is_pattern);
    for (int at_start = 0; at_start < 2; at_start++) {
        if (!(ends & (1u << at_start))) continue;
        /* the text end from the pair's band search when it left it: the same best */
        const gpuasm_partial b = cut && tend && !at_start ? *tend
                                 : cut ? gpuasm_partial_best_cut(opt, omin, sfloor, &pv, &tv, at_start, *ws)
                                       : gpuasm_partial_best(opt, omin, sfloor, &pv, &tv, at_start, hamming, *ws);
        if (!b.plen) continue;
        gpuasm_endhit e = w->cur;
        e.end = at_start ? 0 : (uint32_t)(pr->n - 1);
        e.dist = b.dist;
        e.kind = at_start ? GPUASM_HIT_TEXT_START : GPUASM_HIT_TEXT_END;
        e.plen = b.plen;
        if (gpuasm_hits_push(w->out, e) < 0) return -1;
    }
    return 0;
}

/* rc[0 .. len) = reverse complement of read; grows *rc.  0 or -1. */
static int build_rc(uint8_t **rc, size_t *cap, const uint8_t *read, uint64_t len)
{
    if (gpuasm_grow((void **)rc, cap, len ? len : 1, 1) < 0) return -1;
    gpuasm_nt16_revcomp(*rc, read, len);
    return 0;
}

/* ---- per-run tables (cpu_scan.h) ---------------------------------------- */

/* Targets up to this long get their PEq built once per run (16 words per
 * 64 bases: 2 KiB at the limit), within PREP_MAX_WORDS in all; longer
 * targets are patterns only against longer reads, and get theirs from the
 * twin's workspace. */
#define PREP_MAX_M 1024
#define PREP_MAX_WORDS ((size_t)8 << 20)
/* The targets' window index (prefilter.h) takes 8 bytes a base (8 MiB per
 * Mb of targets) and 1.25 MiB of rows: up to 2^28 windows (2 GiB, 268
 * Mb of targets) by default (GPUASM_CPU_INDEX_MAX); past it --filter auto
 * runs without the index (and says so in the filter's description),
 * --filter index refuses the run. */
#define PREP_MAX_WINDOWS ((uint64_t)1 << 28)

/* The levels of the two filters for opt->filter; auto takes the knob. */
static void filter_levels(const gpuasm_cpu_cfg *cfg, const gpuasm_search_opt *opt, int *pieces, int *index)
{
    switch (opt->filter) {
    case GPUASM_FILTER_OFF: *pieces = *index = 0; break;
    case GPUASM_FILTER_ON: *pieces = *index = 2; break;
    case GPUASM_FILTER_PIECES: *pieces = 2; *index = 0; break;
    case GPUASM_FILTER_INDEX: *pieces = 0; *index = 2; break;
    default: *pieces = *index = cfg->prefilter; break;
    }
}

void gpuasm_cpu_cfg_default(gpuasm_cpu_cfg *cfg)
{
    cfg->simd = gpuasm_simd_detect();
    cfg->prefilter = 1;
    cfg->lane_min = 0;
    cfg->index_max = 0;
    cfg->threads = 1;
    cfg->ends_filter = 1;
    cfg->ends_classes = 1;
    cfg->periodic = 1;
}

/* Does opt's kernel have capability cap on opt's alphabet?  The walks
 * below run on nt16 only. */
static int nt16_cap(const gpuasm_search_opt *opt, uint32_t cap)
{
    const gpuasm_kernel_desc *k = gpuasm_kernel_get(opt->kernel);
    return k && (k->caps & cap) && opt->alphabet == GPUASM_ALPHABET_NT16;
}

/* The grouped walk: a kernel whose twin runs in SIMD lanes (myers). */
static int grouped_search(const gpuasm_search_opt *opt)
{
    return nt16_cap(opt, GPUASM_CAP_LANES);
}

/* A kernel behind the pigeonhole filters without the grouped walk
 * (hamming): its twin, pair by pair, behind the same filters (with k
 * mismatches, one of k + 1 pieces is intact at its own offset, so both
 * filters hold as they are, with no shifts). */
static int filtered_hamming(const gpuasm_search_opt *opt)
{
    return nt16_cap(opt, GPUASM_CAP_CPU_FILTER) && !grouped_search(opt);
}

void gpuasm_cpu_prep_free(gpuasm_cpu_prep *prep)
{
    if (!prep) return;
    free(prep->peq);
    free(prep->peq_off);
    if (prep->has_filter) gpuasm_qfilter_free(&prep->qf);
    if (prep->has_tindex) gpuasm_tindex_free(&prep->tx);
    gpuasm_period_cache_free(&prep->runs);
    if (prep->has_eix) gpuasm_ends_index_free(&prep->eix);
    if (prep->has_efilter) gpuasm_efilter_free(&prep->ef);
    if (prep->has_ecls) gpuasm_ends_classes_free(&prep->ecls);
    free(prep->ew);
    free(prep);
}

int gpuasm_cpu_prep_fits(const gpuasm_cpu_prep *prep, const gpuasm_seqset *targets,
                         const gpuasm_search_opt *opt)
{
    /* The tables depend on the targets, the kernel and alphabet, and k as a
     * function of m (max_diffs, error_rate). */
    return prep && prep->targets == targets && prep->n_targets == targets->n &&
           prep->opt.kernel == opt->kernel && prep->opt.alphabet == opt->alphabet &&
           prep->opt.max_diffs == opt->max_diffs && prep->opt.filter == opt->filter &&
           prep->opt.overlap_min == opt->overlap_min && prep->opt.partial_ends == opt->partial_ends &&
           prep->opt.partial_floor == opt->partial_floor &&
           prep->opt.read_partial_floor == opt->read_partial_floor &&
           (opt->max_diffs >= 0 || prep->opt.error_rate == opt->error_rate);
}

int gpuasm_cpu_prep_build(const gpuasm_seqset *targets, const gpuasm_search_opt *opt,
                          const gpuasm_cpu_cfg *cfg, gpuasm_cpu_prep **out, gpuasm_err *err)
{
    gpuasm_cpu_prep *p = calloc(1, sizeof *p);
    if (!p) return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
    p->targets = targets;
    p->n_targets = targets->n;
    p->opt = *opt;
    p->grouped = grouped_search(opt);
    filter_levels(cfg, opt, &p->lv_pieces, &p->lv_index);
    if (p->grouped) {
        size_t words = 0;
        p->peq_off = malloc((targets->n ? targets->n : 1) * sizeof(uint64_t));
        if (!p->peq_off) goto oom;
        for (uint32_t t = 0; t < targets->n; t++) {
            const uint64_t m = targets->off[t + 1] - targets->off[t];
            const size_t w = m ? gpuasm_myers_peq_words((uint32_t)(m < PREP_MAX_M ? m : PREP_MAX_M)) : 0;
            if (m == 0 || m > PREP_MAX_M || words + w > PREP_MAX_WORDS ||
                !gpuasm_pair_searched(m, gpuasm_pair_k(opt, m), 1)) {
                p->peq_off[t] = UINT64_MAX;
                continue;
            }
            p->peq_off[t] = words;
            words += w;
        }
        p->peq = malloc((words ? words : 1) * sizeof(uint64_t));
        if (!p->peq) goto oom;
        for (uint32_t t = 0; t < targets->n; t++)
            if (p->peq_off[t] != UINT64_MAX)
                gpuasm_myers_peq_nt16(p->peq + p->peq_off[t], targets->code + targets->off[t],
                                      (uint32_t)(targets->off[t + 1] - targets->off[t]));
    }
    /* the ends pass's word tables (edit mode: the grouped walk's kernel) */
    if (p->grouped && gpuasm_partial_on(opt) && opt->overlap_min > 0) {
        p->ew = calloc(targets->n ? targets->n : 1, sizeof *p->ew);
        if (!p->ew) goto oom;
        for (uint32_t t = 0; t < targets->n; t++) {
            const uint64_t m = targets->off[t + 1] - targets->off[t];
            const uint32_t omin = m ? gpuasm_pair_overlap_min(opt, 0, m) : 0;
            if (m == 0 || m > EW_MAX || !omin) continue;
            gpuasm_ends_word_build(&p->ew[t], opt, targets->code + targets->off[t], (uint32_t)m, omin, 0);
        }
        if (cfg->ends_classes) {
            if (gpuasm_ends_classes_build(&p->ecls, targets, p->ew) < 0) goto oom;
            p->has_ecls = 1;
        }
    }
    const int filterable = p->grouped || filtered_hamming(opt);
    const char *name = gpuasm_filter_name(opt->filter);
    if (!filterable) {
        snprintf(p->desc, sizeof p->desc, "%s: none (kernel or alphabet without filters)", name);
        *out = p;
        return 0;
    }
    if (p->lv_pieces) {
        if (gpuasm_qfilter_build(&p->qf, targets, opt) < 0) goto oom;
        p->has_filter = 1;
    }
    /* The ends filter goes with the pieces filter (both index the targets
     * as patterns): wherever it applies at level 2, at level 1 (auto) for
     * enough targets to pay for its look-ups. */
    char ends_desc[64] = "";
    if (p->lv_pieces && cfg->ends_filter && opt->overlap_min > 0 && opt->partial_ends) {
        if (gpuasm_efilter_build(&p->ef, targets, opt) < 0) goto oom;
        p->has_efilter = p->ef.n_filtered > 0 && (p->lv_pieces >= 2 || p->ef.n_filtered >= GPUASM_EF_AUTO_MIN);
        if (p->has_efilter)
            snprintf(ends_desc, sizeof ends_desc, "ends (%u targets, %llu keys)", p->ef.n_filtered,
                     (unsigned long long)p->ef.n_entries);
        else
            gpuasm_efilter_free(&p->ef);
    }
    char index_desc[120] = "";
    if (p->lv_index) {
        const uint64_t max = cfg->index_max > 0 ? (uint64_t)cfg->index_max : PREP_MAX_WINDOWS;
        const double t0 = gpuasm_now_s();
        const int r = gpuasm_tindex_build(&p->tx, targets, max, cfg->threads);
        if (r < 0) goto oom;
        p->has_tindex = r == 0;
        p->tx.simd = cfg->simd;   /* the neighbour rule's row scan */
        if (p->has_tindex && gpuasm_period_cache_open(&p->runs, targets->n) < 0) goto oom;
        /* the end windows' own index, for reads running off the targets'
         * ends (a read against thousands of genomes) */
        if (p->has_tindex && gpuasm_partial_on(opt) && opt->read_overlap_min != 0) {
            const int re = gpuasm_ends_index_build(&p->eix, targets, max, cfg->threads, p->lv_index >= 2);
            if (re < 0) goto oom;
            p->has_eix = re == 0;
        }
        p->index_s = gpuasm_now_s() - t0;
        const double mib = p->has_tindex ? (double)gpuasm_tindex_bytes(&p->tx) / 1048576.0 : 0;
        if (p->has_tindex)
            snprintf(index_desc, sizeof index_desc, "index (q %d-%d, %llu windows, %.1f MiB, %.3f s)",
                     GPUASM_QF_Q, GPUASM_QF_Q + GPUASM_QF_EXT, (unsigned long long)p->tx.n_pos, mib,
                     p->index_s);
        else
            snprintf(index_desc, sizeof index_desc,
                     "no index (%llu target bases: past the bound of %llu windows, 8 bytes each)",
                     (unsigned long long)targets->off[targets->n], (unsigned long long)max);
        if (!p->has_tindex && opt->filter == GPUASM_FILTER_INDEX) {
            gpuasm_cpu_prep_free(p);
            return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION,
                                  "the targets (%llu bases) are too large for the q-gram index "
                                  "(at most %llu windows, 8 bytes each)",
                                  (unsigned long long)targets->off[targets->n], (unsigned long long)max);
        }
    }
    snprintf(p->desc, sizeof p->desc, "%s: %s%s%s%s%s", name,
             p->has_filter ? "pieces (q 6-8)" : "",
             p->has_filter && index_desc[0] ? " + " : "", index_desc[0] ? index_desc : p->has_filter ? "" : "exhaustive",
             ends_desc[0] ? " + " : "", ends_desc);
    *out = p;
    return 0;
oom:
    gpuasm_cpu_prep_free(p);
    return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
}

const char *gpuasm_cpu_prep_describe(const gpuasm_cpu_prep *prep) { return prep ? prep->desc : NULL; }
double gpuasm_cpu_prep_index_s(const gpuasm_cpu_prep *prep) { return prep ? prep->index_s : 0; }
const struct gpuasm_qfilter *gpuasm_cpu_prep_pieces(const gpuasm_cpu_prep *prep)
{
    return prep && prep->has_filter ? &prep->qf : NULL;
}

const struct gpuasm_tindex *gpuasm_cpu_prep_index(const gpuasm_cpu_prep *prep, int *level)
{
    if (level) *level = prep ? prep->lv_index : 0;
    return prep && prep->has_tindex ? &prep->tx : NULL;
}

uint64_t gpuasm_cpu_prep_bytes(const gpuasm_cpu_prep *prep)
{
    return !prep ? 0 : (prep->has_tindex ? gpuasm_tindex_bytes(&prep->tx) : 0) +
                       (prep->has_eix ? gpuasm_ends_index_bytes(&prep->eix) : 0);
}

const struct gpuasm_ends_index *gpuasm_cpu_prep_ends_index(const gpuasm_cpu_prep *prep)
{
    return prep && prep->has_tindex && prep->has_eix ? &prep->eix : NULL;
}

/* One gpuasm_cpu_scan_cfg() call: what every read's pairs need. */
typedef struct {
    const gpuasm_cpu_cfg *cfg;
    const gpuasm_cpu_prep *prep;
    const gpuasm_seqset *targets;
    const gpuasm_search_opt *opt;
    const gpuasm_twin *tw;
    void *ws;                       /* the twin's workspace */
    uint64_t limit;                 /* the kernel's longest pattern, 0: any */
    int grouped, hfilt;             /* the grouped walk, the filtered pairs (cpu_walk.h) */
    int partial, hamming, efilt, strands;
    walk w;
    group_ws g;
    uint8_t *rc;                    /* the read's reverse complement */
    size_t rc_cap;
    uint64_t *pws;                  /* the ends pass's workspace */
    size_t pws_cap;
    ends_word *rew;                 /* the read strand's ends_word, when it is the pattern */
    uint64_t rew_len;               /* the read length rew was built for (0: none) */
} scan_call;

/* The read's pairs in groups A (read is the pattern) and B (target is),
 * checked in target order first (so a failure names the same pair whatever
 * the grouping), with what the groups' filters need.  They depend on the
 * read's length only: kept while it stays the same (the loop over 10,000
 * primers was most of a filtered primer screen).  0, or a status with err. */
static int group_pairs(scan_call *c, uint64_t r, uint64_t rlen, int32_t k_read, gpuasm_err *err)
{
    const gpuasm_search_opt *opt = c->opt;
    const gpuasm_seqset *targets = c->targets;
    const gpuasm_cpu_prep *prep = c->prep;
    group_ws *g = &c->g;
    g->n_a = g->n_b = 0;
    g->a_ready = g->amb_ready = 0;   /* group A's stamps and ambiguous ends are for the groups below */
    /* the ends pass of group A through the index (prefilter.h) */
    if (!(c->partial && g->emark)) {
        g->ends = (gpuasm_read_ends){ 0, 0, 0, 0 };
        g->ends_rlen = 0;
    } else if (rlen != g->ends_rlen) {   /* reads of one length: once (a loop over p each) */
        g->ends = gpuasm_read_ends_of(opt, rlen, c->hamming);
        g->ends_rlen = rlen;
    }
    if (g->ends.L) {
        /* Built for the widest W so far (each scan call builds its
         * own), and only while the end windows hold few enough
         * windows that most keys stay clear: past a quarter of the
         * 4^Q keys the bits reject little and their build (every
         * target's ends) would be repeated for nothing. */
        if (g->ends.W > g->ebits_W && g->ebits) {
            if (2 * (uint64_t)targets->n * g->ends.W > GPUASM_END_BITS_WORDS * 64 / 4) {
                free(g->ebits);
                g->ebits = NULL;
            } else {
                gpuasm_end_bits(targets, g->ends.W, g->ebits);
                g->ebits_W = g->ends.W;
            }
        }
    }
    for (uint32_t t = 0; t < targets->n; t++) {
        /* gpuasm_pair_of(opt, rlen, tlen), with k from the caches */
        const uint64_t tlen = targets->off[t + 1] - targets->off[t];
        gpuasm_pair pr;
        pr.read_is_pattern = gpuasm_read_is_pattern(opt, rlen, tlen);
        pr.m = pr.read_is_pattern ? rlen : tlen;
        pr.n = pr.read_is_pattern ? tlen : rlen;
        pr.k = pr.read_is_pattern ? k_read : g->k_t[t];
        pr.searched = gpuasm_pair_searched(pr.m, pr.k, pr.n);
        if (!pr.searched) continue;   /* also skips empty reads */
        if (c->limit && pr.m > c->limit) {
            gpuasm_err_set(err, GPUASM_ERR_TOO_LONG,
                           "kernel %s takes patterns of at most %llu bases; this pair has one of %llu",
                           c->tw->name, (unsigned long long)c->limit, (unsigned long long)pr.m);
            return gpuasm_err_about(err, (uint32_t)r, t, pr.m, c->limit);
        }
        /* end is a uint32_t and the pair API takes a uint32_t m. */
        if (pr.m > UINT32_MAX || pr.n > (uint64_t)UINT32_MAX + 1) {
            const uint64_t len = pr.m > UINT32_MAX ? pr.m : pr.n;
            gpuasm_err_set(err, GPUASM_ERR_SEQ_TOO_LONG, "sequence too long (%llu bases)",
                           (unsigned long long)len);
            return gpuasm_err_about(err, (uint32_t)r, t, len, (uint64_t)UINT32_MAX);
        }
        uint32_t **grp = pr.read_is_pattern ? &g->grp_a : &g->grp_b;
        size_t *cap = pr.read_is_pattern ? &g->cap_a : &g->cap_b;
        uint32_t *n = pr.read_is_pattern ? &g->n_a : &g->n_b;
        if (gpuasm_grow((void **)grp, cap, (size_t)*n + 1, sizeof(uint32_t)) < 0) goto oom;
        (*grp)[(*n)++] = t;
    }
    /* group B's membership and "always" targets, for the pieces filter */
    if (g->in_b) {
        if (++g->stamp_b == 0) {
            memset(g->in_b, 0, (size_t)targets->n * sizeof(uint32_t));
            g->stamp_b = 1;
        }
        g->n_always_b = g->n_ealways = g->n_b_partial = 0;
        for (uint32_t i = 0; i < g->n_b; i++) {
            g->in_b[g->grp_b[i]] = g->stamp_b;
            g->n_b_partial += c->efilt && gpuasm_pair_overlap_min(opt, 0, targets->off[g->grp_b[i] + 1] -
                                                                             targets->off[g->grp_b[i]]) != 0;
            if (c->efilt && prep->ef.always[g->grp_b[i]]) {
                if (gpuasm_grow((void **)&g->ealways, &g->cap_ealways, (size_t)g->n_ealways + 1,
                                sizeof(uint32_t)) < 0)
                    goto oom;
                g->ealways[g->n_ealways++] = g->grp_b[i];
            }
            if (!prep->has_filter || !prep->qf.always[g->grp_b[i]]) continue;
            if (gpuasm_grow((void **)&g->always_b, &g->cap_always_b, (size_t)g->n_always_b + 1,
                            sizeof(uint32_t)) < 0)
                goto oom;
            g->always_b[g->n_always_b++] = g->grp_b[i];
        }
    }
    return 0;
oom:
    return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
}

/* Read r's strand s (rseq, rlen bases) against its groups: the grouped
 * walks, or the twin pair by pair, then the ends pass.  0, or -1 when out
 * of memory. */
static int scan_strand(scan_call *c, uint64_t r, uint32_t s, const uint8_t *rseq, uint64_t rlen,
                       int32_t k_read)
{
    const gpuasm_search_opt *opt = c->opt;
    const gpuasm_seqset *targets = c->targets;
    const gpuasm_cpu_prep *prep = c->prep;
    const gpuasm_twin *tw = c->tw;
    group_ws *g = &c->g;
    walk *w = &c->w;
    w->cur.read = (uint32_t)r;
    w->cur.strand = s;
    w->keep_span = opt->keep == GPUASM_KEEP_REPORTED ? rlen + (uint64_t)(k_read > 0 ? k_read : 0) : 0;
    const int emarked = gpuasm_walk_group_a_marks(&c->g, c->prep, c->targets, c->opt, rseq, rlen, s);
    if (c->grouped) {
        /* the band searches (long patterns) leave their text ends' partials */
        const gpuasm_search_opt *te = c->partial && !c->hamming && opt->alphabet == GPUASM_ALPHABET_NT16 ? opt : NULL;
        gpuasm_walk_tend_next(g);
        if (g->n_a && gpuasm_walk_group_a(w, g, c->cfg, prep, targets, rseq, (uint32_t)rlen, k_read, te) < 0)
            return -1;
        if (g->n_b && gpuasm_walk_group_b(w, g, c->cfg, prep, targets, opt, rseq, rlen, tw, c->ws, te) < 0)
            return -1;
        if (!c->partial) return 0;
    } else if (c->hfilt) {
        if (gpuasm_walk_hamming(w, g, c->cfg, prep, targets, rseq, (uint32_t)rlen, k_read, tw, c->ws) < 0)
            return -1;
        if (!c->partial) return 0;
    }
    for (int grp = 0; grp < 2; grp++) {
        /* The grouped walks did the full occurrences: a group
         * without partial occurrences (--overlap full for targets,
         * --read-overlap full for reads) has nothing left here. */
        if ((c->grouped || c->hfilt) && (grp ? opt->overlap_min <= 0 : opt->read_overlap_min == 0)) continue;
        const uint32_t *list = grp ? g->grp_b : g->grp_a;
        uint32_t nl = grp ? g->n_b : g->n_a;
        /* Group B behind the ends filter: only its candidates, at
         * their candidate ends (the grouped walks did the full
         * occurrences; this loop has nothing else to do for B). */
        int by_ends = 0;
        if (grp && c->efilt && nl) {
            const int64_t ne = gpuasm_ends_candidates(g, prep, targets, opt, rseq, rlen, s);
            if (ne == -1) return -1;
            if (ne >= 0) {
                list = g->ecand;
                nl = (uint32_t)ne;
                by_ends = 1;
            }
        }
        /* their ends pass side by side (the grouped walk did the full
         * occurrences: this loop only runs the ends) */
        const int in_lanes = by_ends && c->grouped && !c->hamming && c->partial && prep->ew && nl > 1;
        if (in_lanes && gpuasm_ends_lanes(g, prep, opt, list, nl, rseq, rlen, s) < 0) return -1;
        /* Group A of the grouped walk (edit mode, nt16): the read strand
         * is the pattern of every item, against a genome end each; its
         * ends_word built once for all of them (a read against thousands
         * of genomes ran the generic pass's setup per item: issue #28) */
        const ends_word *read_fast = NULL;
        /* (omin 0: the read takes no partial occurrence, no table) */
        const uint32_t read_omin = !grp && nl && c->partial && c->grouped && rlen <= EW_MAX
                                   ? gpuasm_pair_overlap_min(opt, 1, rlen) : 0;
        /* Group A behind the end marks: an end the marks leave out runs
         * nothing (the grouped walks did its whole occurrences), so such a
         * target costs a look-up and its count, not the pair's setup (a
         * read against 6,670 genomes ran it for every one: issue #28). */
        const int skip_unmarked = !grp && emarked && (c->grouped || c->hfilt);
        const uint32_t all_a = skip_unmarked ? gpuasm_partial_text_ends(opt, 1, s) : 0;
        const uint64_t skipped_a = skip_unmarked && gpuasm_pair_overlap_min(opt, 1, rlen)
                                       ? (uint64_t)__builtin_popcount(all_a) : 0;
        /* Group B in lanes: a candidate the lanes (or its family) left
         * none at both ends has nothing to do here but partial_hits()'s
         * counts (most candidates of a screen; the pair's setup per
         * candidate was a visible share of it) */
        const uint32_t all_b = grp && in_lanes ? gpuasm_partial_text_ends(opt, 0, s) : 0;
        if (skip_unmarked) {   /* the marked targets alone, in group A's (ascending) order: the
                                * rest, counted as skipped, were 6,670 a strand (issue #28) */
            if (gpuasm_sort_ids(g->emarked.t, g->emarked.n, targets->n, &g->idcnt, &g->cap_idcnt) < 0) return -1;
            g->cnt.ends_skipped += (uint64_t)(nl - g->emarked.n) * skipped_a;
            list = g->emarked.t;
            nl = g->emarked.n;
        }
        for (uint32_t i = 0; i < nl; i++) {
            const uint32_t t = list[i];
            if (skip_unmarked && !(g->emark[t] & all_a)) {
                g->cnt.ends_skipped += skipped_a;
                continue;
            }
            if (all_b && prep->ew[t].m && prep->ew[t].nw == 1 && !g->epre[i].plen && !g->epre[nl + i].plen) {
                gpuasm_count_ends(&g->cnt, all_b, gpuasm_ends_allowed(g, prep, t));
                continue;
            }
            const uint8_t *tgt = targets->code + targets->off[t];
            const gpuasm_pair pr = gpuasm_pair_of(opt, rlen, targets->off[t + 1] - targets->off[t]);
            gpuasm_twin_pair p;
            p.m = (uint32_t)pr.m;
            p.n = pr.n;
            p.k = pr.k;
            if (pr.read_is_pattern) {
                p.pattern = rseq;
                p.text = tgt;
                p.pattern_key = (r << 2) | ((uint64_t)s << 1) | 1;
            } else {
                p.pattern = tgt;
                p.text = rseq;
                p.pattern_key = (uint64_t)t << 2;
            }
            w->cur.target = t;
            if (!c->grouped && !c->hfilt) {
                w->mins.have = 0;
                int run_rc = tw->pair(c->ws, &p, emit_hit, w);
                flush_hits(w);
                if (run_rc < 0 || w->oom) return -1;
            }
            const uint32_t allow = grp == 0 ? (emarked ? g->emark[t] : 3u)
                                            : by_ends ? gpuasm_ends_allowed(g, prep, t) : 3u;
            /* built at the strand's first item with an end to run (the
             * end marks leave most strands none) */
            if (pr.read_is_pattern && read_omin && !read_fast && (allow & 3u)) {
                if (!c->rew && !(c->rew = malloc(sizeof *c->rew))) return -1;
                if (c->rew_len == rlen)   /* its k_p as they were */
                    gpuasm_ends_word_rebuild(c->rew, rseq);
                else
                    gpuasm_ends_word_build(c->rew, opt, rseq, (uint32_t)rlen, read_omin, 1);
                c->rew_len = rlen;
                read_fast = c->rew;
            }
            const ends_word *fast = pr.read_is_pattern ? read_fast
                                    : prep && prep->ew && prep->ew[t].m ? &prep->ew[t] : NULL;
            uint32_t reach[2] = { UINT32_MAX, UINT32_MAX };
            if (by_ends) gpuasm_ends_reach(g, prep, t, reach);
            /* the lanes' answers: for one-word ends_words (the others run here) */
            const int from_lanes = in_lanes && fast && fast->nw == 1;
            const gpuasm_partial pre[2] = { from_lanes ? g->epre[i] : (gpuasm_partial){ 0, 0 },
                                            from_lanes ? g->epre[nl + i] : (gpuasm_partial){ 0, 0 } };
            /* the text end from the pair's band search (grouped walk only) */
            const gpuasm_partial *tend = c->grouped ? gpuasm_walk_tend(g, t) : NULL;
            if (c->partial &&
                partial_hits(w, opt, c->hamming, &pr, p.pattern, p.text, allow, &c->pws, &c->pws_cap, &g->cnt,
                             fast, reach, from_lanes ? pre : NULL, tend) < 0)
                return -1;
        }
    }
    return 0;
}

/* The grouped walks' scratch for c's targets.  0, or -1 when out of memory. */
static int group_ws_open(scan_call *c)
{
    group_ws *g = &c->g;
    const gpuasm_seqset *targets = c->targets;
    const gpuasm_cpu_prep *prep = c->prep;
    const int filtered = c->grouped || c->hfilt;
    const size_t nt = targets->n ? targets->n : 1;
    if (filtered && prep->has_filter && !(g->mark = calloc(nt, sizeof(uint32_t)))) return -1;
    if (filtered && (prep->has_filter || c->efilt) && !(g->in_b = calloc(nt, sizeof(uint32_t)))) return -1;
    if (c->efilt && (!(g->bmark[0] = calloc(nt, sizeof(uint32_t))) ||
                     !(g->bmark[1] = calloc(nt, sizeof(uint32_t))) ||
                     !(g->breach[0] = calloc(nt, sizeof(uint32_t))) ||
                     !(g->breach[1] = calloc(nt, sizeof(uint32_t)))))
        return -1;
    /* k of every target as the pattern, once (the pair rule's floor(e m)
     * per pair and read was a visible share of the adapter screen). */
    if (!(g->k_t = malloc(nt * sizeof(int32_t)))) return -1;
    if (filtered && prep->has_tindex &&
        (!(g->in_a = calloc(nt, sizeof(uint32_t))) || !(g->emark = calloc(nt, sizeof(uint32_t))) ||
         !(g->emarked.t = malloc(nt * sizeof(uint32_t))) || !(g->ebits = malloc(GPUASM_END_BITS_WORDS * 8)) ||
         (prep->tx.n_amb && (!(g->amb_a = malloc(nt * sizeof(uint32_t))) || !(g->amb_ends = malloc(nt))))))
        return -1;
    for (uint32_t t = 0; t < targets->n; t++)
        g->k_t[t] = gpuasm_pair_k(c->opt, targets->off[t + 1] - targets->off[t]);
    g->efws.simd = c->cfg->simd;   /* the ends filter's window scan (never its marks) */
    return 0;
}

int gpuasm_cpu_scan_cfg(const gpuasm_cpu_cfg *cfg, const gpuasm_cpu_prep *prep_in,
                        const gpuasm_seqset *reads, uint32_t first, uint32_t count,
                        const gpuasm_seqset *targets, const gpuasm_search_opt *opt,
                        gpuasm_hits *out, gpuasm_scan_stats *counts, gpuasm_err *err)
{
    int ret = gpuasm_search_check(opt, err);
    if (ret < 0) return ret;
    scan_call c;
    memset(&c, 0, sizeof c);
    c.cfg = cfg;
    c.targets = targets;
    c.opt = opt;
    c.tw = gpuasm_kernel_get(opt->kernel)->twin;
    c.limit = gpuasm_kernel_max_pattern(opt);
    gpuasm_cpu_prep *own = NULL;
    c.prep = prep_in;
    c.grouped = grouped_search(opt);
    c.hfilt = filtered_hamming(opt);
    if ((c.grouped || c.hfilt) && !gpuasm_cpu_prep_fits(c.prep, targets, opt)) {
        if ((ret = gpuasm_cpu_prep_build(targets, opt, cfg, &own, err)) < 0) return ret;
        c.prep = own;
    }
    if (!(c.ws = c.tw->open(opt))) {
        gpuasm_cpu_prep_free(own);
        return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
    }
    c.w.out = out;
    c.strands = gpuasm_strands(opt);
    c.partial = gpuasm_partial_on(opt);
    c.hamming = gpuasm_search_mode(opt) == GPUASM_MODE_HAMMING;
    c.efilt = (c.grouped || c.hfilt) && c.partial && c.prep->has_efilter;
    if (group_ws_open(&c) < 0) goto oom;
    uint64_t groups_rlen = UINT64_MAX;   /* the read length c.g's groups are for */
    for (uint64_t r = first; r < (uint64_t)first + count && r < reads->n; r++) {
        const uint8_t *read = reads->code + reads->off[r];
        uint64_t rlen = reads->off[r + 1] - reads->off[r];
        const int32_t k_read = gpuasm_pair_k(opt, rlen);
        if (rlen != groups_rlen) {
            groups_rlen = rlen;
            if ((ret = group_pairs(&c, r, rlen, k_read, err)) < 0) goto done;
        }
        if (c.g.n_a + c.g.n_b == 0) continue;
        if (c.strands == 2 && build_rc(&c.rc, &c.rc_cap, read, rlen) < 0) goto oom;
        for (uint32_t s = 0; s < (uint32_t)c.strands; s++)
            if (scan_strand(&c, r, s, s ? c.rc : read, rlen, k_read) < 0) goto oom;
    }
    goto done;
oom:
    ret = gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
done:
    if (counts) {
        counts->index_strands += c.g.cnt.index_strands;
        counts->index_declined += c.g.cnt.index_declined;
        counts->pieces_kept += c.g.cnt.pieces_kept;
        counts->pieces_dropped += c.g.cnt.pieces_dropped;
        counts->ends_run += c.g.cnt.ends_run;
        counts->ends_skipped += c.g.cnt.ends_skipped;
        counts->ends_settled += c.g.cnt.ends_settled;
        counts->periodic_cols += c.g.cnt.periodic_cols;
    }
    c.tw->close(c.ws);
    gpuasm_group_ws_free(&c.g);
    gpuasm_keep_free(&c.w.keep);
    gpuasm_cpu_prep_free(own);
    free(c.rc);
    free(c.pws);
    free(c.rew);
    return ret;
}

int gpuasm_cpu_scan(const gpuasm_seqset *reads, uint32_t first, uint32_t count,
                    const gpuasm_seqset *targets, const gpuasm_search_opt *opt,
                    gpuasm_hits *out, gpuasm_err *err)
{
    gpuasm_cpu_cfg cfg;
    gpuasm_cpu_cfg_default(&cfg);
    return gpuasm_cpu_scan_cfg(&cfg, NULL, reads, first, count, targets, opt, out, NULL, err);
}
