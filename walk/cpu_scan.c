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
 *
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
#include "util/clock.h"
#include "search/cpu_simd.h"
#include "walk/ends_filter.h"
#include "util/grow.h"
#include "kernels/myers/myers_cpu.h"
#include "kernels/myers/myers_lanes.h"
#include "search/nt16.h"
#include "kernels/partial.h"
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

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Index of the first element >= x in sorted v[0 .. n). */
static size_t lower_bound(const uint64_t *v, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
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
    const size_t nz = lower_bound(len, nt, 1);   /* targets [nz, nt) are not empty */
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
            const size_t i = lower_bound(len, nt, rlen);
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

/* ---- the walk ------------------------------------------------------------------ */

/* The walk's state, on gpuasm_cpu_scan()'s stack. */
typedef struct walk {
    gpuasm_hits *out;
    gpuasm_endhit cur;      /* read/target/strand of the pair being run */
    int oom;
    /* Local-minimum filter (search.h): the last position seen with D <= k,
     * held until its right neighbour is known. */
    int have_pending, pending_left_ok;
    uint64_t pending_j;
    int32_t pending_d;
} walk;

static void push_hit(walk *w, uint64_t j, int32_t d)
{
    gpuasm_endhit e = w->cur;
    e.end = (uint32_t)j;
    e.dist = d;
    if (gpuasm_hits_push(w->out, e) < 0) w->oom = 1;
}

/* Positions arrive in increasing j, only those with D <= k; a position
 * missing between two arrivals had D > k.  So j is a local minimum iff
 * j-1 did not arrive or had a larger D, and j+1 did not arrive or has a D
 * at least as large. */
static void emit_hit(void *ctx, uint64_t j, int32_t d)
{
    walk *w = ctx;
    int left_ok = 1;
    if (w->have_pending && w->pending_j + 1 == j) {
        left_ok = w->pending_d > d;
        if (w->pending_left_ok && d >= w->pending_d) push_hit(w, w->pending_j, w->pending_d);
    } else if (w->have_pending && w->pending_left_ok) {
        push_hit(w, w->pending_j, w->pending_d);
    }
    w->have_pending = 1;
    w->pending_left_ok = left_ok;
    w->pending_j = j;
    w->pending_d = d;
}

static void flush_hits(walk *w)
{
    if (w->have_pending && w->pending_left_ok) push_hit(w, w->pending_j, w->pending_d);
    w->have_pending = 0;
}

/* The ends pass of a target that is the pattern, up to 64 bases, in edit
 * mode on nt16 (adapters and primers: most of the items a screen runs),
 * with what gpuasm_partial_best() builds per item built once per run:
 * per end (0: the text's end, the pattern as it is; 1: its start, the
 * pattern reversed), the base masks of the pattern, and k_p under the
 * floor (gpuasm_partial_kf) for every p, -1 where p is no candidate. */
typedef struct {
    uint64_t bm[2][4];
    int8_t kp[64];
    uint32_t m, omin;
    int32_t kmax;         /* k_{m-1} (partial.h's window: W = m - 1 + kmax) */
} ends_word;

static void ends_word_build(ends_word *e, const gpuasm_search_opt *opt, const uint8_t *pat, uint32_t m,
                            uint32_t omin)
{
    const int32_t fl = gpuasm_pair_partial_floor(opt, 0);
    memset(e, 0, sizeof *e);
    e->m = m;
    e->omin = omin;
    e->kmax = gpuasm_partial_kf(opt, fl, m - 1u, m);
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t x = 0; x < 4; x++) {
            if (pat[i] & (1u << x)) e->bm[0][x] |= (uint64_t)1 << i;
            if (pat[m - 1u - i] & (1u << x)) e->bm[1][x] |= (uint64_t)1 << i;
        }
    for (uint32_t p = 0; p < m && p < 64; p++) {
        const int32_t k = p < omin ? -1 : gpuasm_partial_kf(opt, fl, p, m);
        e->kp[p] = (int8_t)(k < 0 || (int64_t)k >= (int64_t)p ? -1 : k > 63 ? 63 : k);
    }
}

/* gpuasm_partial_best() of partial.h, edit mode, for an ends_word pattern
 * against text[0 .. n) (a read strand as searched): the same Myers step
 * on one word over the same window and the same row rule, so the same
 * (plen, dist); tests/c/test_ends_filter.c compares the two. */
static gpuasm_partial partial_best_word(const ends_word *e, const uint8_t *text, uint32_t n, int at_start)
{
    gpuasm_partial best = { 0, 0 };
    const uint32_t m = e->m;
    if (e->omin == 0 || e->omin >= m || n == 0 || e->kmax < 0) return best;
    uint64_t wlen = (uint64_t)(m - 1u) + (uint64_t)e->kmax;
    const uint32_t W = (uint32_t)(wlen > n ? n : wlen);
    const uint64_t *bm = e->bm[at_start];
    uint64_t pv = ~(uint64_t)0, mv = 0, leq = 0, lph = 0, lmh = 0;
    for (uint32_t q = 0; q < W; q++) {
        const uint8_t tc = at_start ? text[W - 1u - q] : text[n - W + q];
        const uint64_t eq = ((tc & 1u) ? bm[0] : 0) | ((tc & 2u) ? bm[1] : 0) |
                            ((tc & 4u) ? bm[2] : 0) | ((tc & 8u) ? bm[3] : 0);
        const uint64_t xv = eq | mv;
        const uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
        uint64_t ph = mv | ~(xh | pv);
        uint64_t mh = pv & xh;
        leq = eq;
        lph = ph;
        lmh = mh;
        ph <<= 1;
        mh <<= 1;
        pv = mh | ~(xv | ph);
        mv = ph & xv;
    }
    /* Rows from omin - 1 on: D of row p of the last column is the prefix
     * sum of the vertical deltas, one popcount to get there. */
    const uint32_t p0 = e->omin - 1u;
    const uint64_t below = p0 >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << p0) - 1u);
    int32_t d = __builtin_popcountll(pv & below) - __builtin_popcountll(mv & below);
    int32_t e1 = p0 ? d - ((int32_t)((lph >> (p0 - 1u)) & 1u) - (int32_t)((lmh >> (p0 - 1u)) & 1u)) : 0;
    for (uint32_t p = e->omin; p < m; p++) {
        const uint32_t b = p - 1u;
        d += (int32_t)((pv >> b) & 1u) - (int32_t)((mv >> b) & 1u);
        const int32_t ev = d - ((int32_t)((lph >> b) & 1u) - (int32_t)((lmh >> b) & 1u));
        const int32_t kp = e->kp[p];
        if (kp >= 0) {
            const int32_t diag = e1 + (int32_t)!((leq >> b) & 1u), left = ev + 1;
            const int32_t dp = diag < left ? diag : left;
            if (dp <= kp) gpuasm_partial_keep(&best, p, dp);
        }
        e1 = ev;
    }
    return best;
}

/* The pair's partial occurrences at the ends of the text (search.h): at
 * most one end hit per end, at the ends in allow (bit 0: the text's end,
 * bit 1: its start; an exact filter may rule ends out).  ws grows to the
 * pattern's needs.  fast: the target's ends_word when it is the pattern
 * and has one (edit mode), else NULL.  0 or -1. */
static int partial_hits(walk *w, const gpuasm_search_opt *opt, int hamming, const gpuasm_pair *pr,
                        const uint8_t *pattern, const uint8_t *text, uint32_t allow, uint64_t **ws,
                        size_t *ws_cap, gpuasm_scan_stats *cnt, const ends_word *fast)
{
    const uint32_t omin = gpuasm_pair_overlap_min(opt, pr->read_is_pattern, pr->m);
    const uint32_t all = gpuasm_partial_text_ends(opt, pr->read_is_pattern, w->cur.strand);
    const uint32_t ends = all & allow;
    if (!omin) return 0;
    cnt->ends_run += (uint64_t)__builtin_popcount(ends);
    cnt->ends_skipped += (uint64_t)__builtin_popcount(all & ~allow);
    if (!ends) return 0;
    if (fast && !hamming && !pr->read_is_pattern) {
        for (int at_start = 0; at_start < 2; at_start++) {
            if (!(ends & (1u << at_start))) continue;
            const gpuasm_partial b = partial_best_word(fast, text, (uint32_t)pr->n, at_start);
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
    const size_t need = gpuasm_partial_ws_words((uint32_t)pr->m);
    if (need > *ws_cap) {
        uint64_t *p = realloc(*ws, need * sizeof(**ws));
        if (!p) return -1;
        *ws = p;
        *ws_cap = need;
    }
    const gpuasm_seqview pv = { pattern, (uint32_t)pr->m, 0 }, tv = { text, (uint32_t)pr->n, 0 };
    for (int at_start = 0; at_start < 2; at_start++) {
        if (!(ends & (1u << at_start))) continue;
        const gpuasm_partial b = gpuasm_partial_best(opt, omin, gpuasm_pair_partial_floor(opt, pr->read_is_pattern), &pv, &tv, at_start, hamming, *ws);
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
    if (len > *cap) {
        uint8_t *p = realloc(*rc, len);
        if (!p) return -1;
        *rc = p;
        *cap = len;
    }
    for (uint64_t i = 0; i < len; i++) (*rc)[i] = gpuasm_nt16_comp(read[len - 1 - i]);
    return 0;
}

/* ---- per-run tables (cpu_scan.h) ---------------------------------------- */

/* Targets up to this long get their PEq built once per run (16 words per
 * 64 bases: 2 KiB at the limit), within PREP_MAX_WORDS in all; longer
 * targets are patterns only against longer reads, and get theirs from the
 * twin's workspace. */
#define PREP_MAX_M 1024
#define PREP_MAX_WORDS ((size_t)8 << 20)
/* The targets' window index (prefilter.h) takes 6 bytes a base (6 MiB per
 * Mb of targets) and a 256 KiB row table: up to 2^28 windows (1.5 GiB, 268
 * Mb of targets) by default (GPUASM_CPU_INDEX_MAX); past it --filter auto
 * runs without the index (and says so in the filter's description),
 * --filter index refuses the run. */
#define PREP_MAX_WINDOWS ((uint64_t)1 << 28)

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
    int has_efilter;
    gpuasm_efilter ef;      /* the ends pass of targets as patterns (ends_filter.h) */
    ends_word *ew;          /* [n_targets] the ends pass of targets of <= 64 bases as
                             * patterns (edit mode), or NULL; m == 0: none for this one */
    /* --filter (search.h) with the GPUASM_CPU_PREFILTER knob: per filter,
     * 0 off, 1 where its cost model says it pays, 2 wherever it applies. */
    int lv_pieces, lv_index;
    char desc[200];         /* what the filters are, for --stats and --verbosity 4 */
    double index_s;         /* wall seconds of the index's build */
};

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
    if (prep->has_efilter) gpuasm_efilter_free(&prep->ef);
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
            if (m == 0 || m > 64 || !omin) continue;
            ends_word_build(&p->ew[t], opt, targets->code + targets->off[t], (uint32_t)m, omin);
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
        p->index_s = gpuasm_now_s() - t0;
        p->has_tindex = r == 0;
        const double mib = p->has_tindex ? (double)(p->tx.n_pos * 6 + ((uint64_t)5 << 18) +
                                                    p->tx.n_amb * 16) / 1048576.0 : 0;
        if (p->has_tindex)
            snprintf(index_desc, sizeof index_desc, "index (q %d-%d, %llu windows, %.1f MiB, %.3f s)",
                     GPUASM_QF_Q, GPUASM_QF_Q + GPUASM_QF_EXT, (unsigned long long)p->tx.n_pos, mib,
                     p->index_s);
        else
            snprintf(index_desc, sizeof index_desc,
                     "no index (%llu target bases: past the bound of %llu windows, 6 bytes each)",
                     (unsigned long long)targets->off[targets->n], (unsigned long long)max);
        if (!p->has_tindex && opt->filter == GPUASM_FILTER_INDEX) {
            gpuasm_cpu_prep_free(p);
            return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION,
                                  "the targets (%llu bases) are too large for the q-gram index "
                                  "(at most %llu windows, 6 bytes each)",
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

/* ---- the grouped walk (myers on nt16) --------------------------------------- */

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
    gpuasm_lane_pattern *pats;      /* group B candidates of <= 64 bases */
    uint32_t *pat_t;                /* their targets */
    size_t cap_pats, cap_pat_t;
    uint32_t *mark;                 /* prefilter marks, [n_targets] */
    uint32_t stamp;
    int32_t *k_t;                   /* k of each target as the pattern */
    uint32_t *in_a, stamp_a;        /* group A membership for the window index */
    uint32_t *emark;                /* group A: target ends that may hold a partial occurrence */
    uint32_t ends_L, ends_W;        /* their pieces and windows for the read length of the groups */
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
    uint32_t *ecand;
    size_t cap_ecand;
    uint32_t *ealways, n_ealways;   /* group B's targets "always" at some end */
    uint32_t n_b_partial;           /* group B's targets that take partial occurrences (omin > 0) */
    size_t cap_ealways;
    gpuasm_ef_ws efws;
} group_ws;

static void group_ws_free(group_ws *g)
{
    gpuasm_lanes_ws_free(&g->lanes);
    gpuasm_myers_cols_free(&g->cols);
    free(g->rpeq);
    free(g->grp_a);
    free(g->grp_b);
    free(g->texts);
    free(g->pats);
    free(g->pat_t);
    free(g->mark);
    free(g->k_t);
    free(g->in_a);
    free(g->emark);
    free(g->ebits);
    free(g->ranges);
    free(g->seeds);
    free(g->marked);
    free(g->in_b);
    free(g->always_b);
    free(g->bmark[0]);
    free(g->bmark[1]);
    free(g->ecand);
    free(g->ealways);
    gpuasm_ef_ws_free(&g->efws);
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

/* Group A through the window index: only the end ranges the pigeonhole
 * argument leaves (prefilter.h) are searched, each from m + k - 1 columns
 * before it.  Returns 1 when done, 0 when the filter does not apply or
 * would search more than a quarter of the text (the caller then scans
 * everything), -1 when out of memory. */
static int walk_group_a_ranges(walk *w, group_ws *g, const gpuasm_cpu_cfg *cfg, const gpuasm_cpu_prep *prep,
                               const gpuasm_seqset *targets, const uint8_t *rseq, uint32_t m,
                               int32_t k, uint64_t total)
{
    if (++g->stamp_a == 0) {
        memset(g->in_a, 0, (size_t)targets->n * sizeof(uint32_t));
        g->stamp_a = 1;
    }
    for (uint32_t i = 0; i < g->n_a; i++) g->in_a[g->grp_a[i]] = g->stamp_a;
    const int64_t nr = gpuasm_tindex_ranges(&prep->tx, targets, rseq, m, k, 0, g->in_a, g->stamp_a,
                                            &g->ranges, &g->cap_ranges);
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
                w->have_pending = 0;
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
            w->have_pending = 0;
        }
        range_emit re = { w, r->lo > lead ? r->lo - lead : 0, r->lo };
        if (gpuasm_myers_run_nt16(g->rpeq, m, text + re.ws, r->hi + 1 - re.ws, k, emit_in_range, &re,
                                  &g->cols) < 0)
            return -1;
    }
    flush_hits(w);
    return w->oom ? -1 : 1;
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
    w->have_pending = 0;
    int rc = gpuasm_myers_run_nt16(peq, m, text, n, k, emit_hit, w, &g->cols);
    flush_hits(w);
    return rc < 0 || w->oom ? -1 : 0;
}

/* Group A of one read strand: rseq (rlen bases, k) is the pattern of every
 * target in g->grp_a.  0 or -1 (out of memory). */
static int walk_group_a(walk *w, group_ws *g, const gpuasm_cpu_cfg *cfg, const gpuasm_cpu_prep *prep,
                        const gpuasm_seqset *targets, const uint8_t *rseq, uint32_t m, int32_t k)
{
    const size_t words = gpuasm_myers_peq_words(m);
    if (gpuasm_grow((void **)&g->rpeq, &g->rpeq_cap, words, sizeof(uint64_t)) < 0) return -1;
    gpuasm_myers_peq_nt16(g->rpeq, rseq, m);
    uint64_t total = 0;
    for (uint32_t i = 0; i < g->n_a; i++)
        total += targets->off[g->grp_a[i] + 1] - targets->off[g->grp_a[i]];
    if (prep->has_tindex) {
        const int r = walk_group_a_ranges(w, g, cfg, prep, targets, rseq, m, k, total);
        if (r != 0) return r < 0 ? -1 : 0;
    }
    /* Text lanes pay m + k lead-in columns per piece and run the blocks
     * below block 0 in scalar code: worth it with enough text per lane and
     * k < 64 (block 0 then holds every cell <= k away from occurrences). */
    const int L = gpuasm_simd_lanes(cfg->simd);
    const uint64_t min_lane = cfg->lane_min > 0 ? (uint64_t)cfg->lane_min : 8 * ((uint64_t)m + (uint64_t)k);
    if (cfg->simd > GPUASM_SIMD_SCALAR && k < 64 && total >= (uint64_t)L * min_lane) {
        if (gpuasm_grow((void **)&g->texts, &g->cap_texts, g->n_a, sizeof(*g->texts)) < 0) return -1;
        for (uint32_t i = 0; i < g->n_a; i++) {
            const uint32_t t = g->grp_a[i];
            g->texts[i].code = targets->code + targets->off[t];
            g->texts[i].n = targets->off[t + 1] - targets->off[t];
        }
        if (gpuasm_text_lanes(cfg->simd, &g->lanes, g->rpeq, m, k, g->texts, g->n_a) < 0) return -1;
        feed_lane_hits(w, &g->lanes, g->grp_a);
        return w->oom ? -1 : 0;
    }
    for (uint32_t i = 0; i < g->n_a; i++) {
        const uint32_t t = g->grp_a[i];
        if (run_scalar(w, g, g->rpeq, m, targets->code + targets->off[t],
                       targets->off[t + 1] - targets->off[t], k, t) < 0)
            return -1;
    }
    return 0;
}

/* Group B of one read strand: every target in g->grp_b is a pattern against
 * rseq (n bases).  tw/tws: the twin, for targets without a prebuilt PEq. */
static int walk_group_b(walk *w, group_ws *g, const gpuasm_cpu_cfg *cfg,
                        const gpuasm_cpu_prep *prep, const gpuasm_seqset *targets,
                        const gpuasm_search_opt *opt, const uint8_t *rseq, uint64_t n,
                        const gpuasm_twin *tw, void *tws)
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
            if (u > 1) qsort(g->marked, u, sizeof(uint32_t), cmp_u32);   /* marked may be NULL when u == 0 */
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
            if (run_scalar(w, g, prep->peq + off, m, rseq, n, k, t) < 0) return -1;
        } else {
            gpuasm_twin_pair p = { pat, m, rseq, n, k, (uint64_t)t << 2 };
            w->cur.target = t;
            w->have_pending = 0;
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
static int walk_hamming(walk *w, group_ws *g, const gpuasm_cpu_cfg *cfg, const gpuasm_cpu_prep *prep,
                        const gpuasm_seqset *targets, const uint8_t *rseq, uint32_t rlen,
                        int32_t k_read, const gpuasm_twin *tw, void *tws)
{
    /* twin.h: equal keys mean an identical pattern (the twin caches by it) */
    const uint64_t read_key = ((uint64_t)w->cur.read << 2) | ((uint64_t)w->cur.strand << 1) | 1;
    int64_t nr = -2;
    if (g->n_a && prep->has_tindex) {
        if (++g->stamp_a == 0) {
            memset(g->in_a, 0, (size_t)targets->n * sizeof(uint32_t));
            g->stamp_a = 1;
        }
        uint64_t total = 0;
        for (uint32_t i = 0; i < g->n_a; i++) {
            g->in_a[g->grp_a[i]] = g->stamp_a;
            total += targets->off[g->grp_a[i] + 1] - targets->off[g->grp_a[i]];
        }
        nr = gpuasm_tindex_ranges(&prep->tx, targets, rseq, rlen, k_read, 1, g->in_a, g->stamp_a,
                                  &g->ranges, &g->cap_ranges);
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
                w->have_pending = 0;
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
            w->have_pending = 0;
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
            w->have_pending = 0;
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
        w->have_pending = 0;
        if (tw->pair(tws, &p, emit_hit, w) < 0) return -1;
        flush_hits(w);
    }
    g->cnt.pieces_kept += kept;
    g->cnt.pieces_dropped += filtered - kept;
    return w->oom ? -1 : 0;
}

/* The ends a candidate of ends_candidates() may have (partial_hits' allow);
 * valid for the stamp ends_candidates() last set). */
static uint32_t ends_allowed(const group_ws *g, const gpuasm_cpu_prep *prep, uint32_t t)
{
    const uint32_t a = prep->ef.always[t];
    return (uint32_t)((a & 1u) || g->bmark[0][t] == g->bstamp) |
           (uint32_t)(((a & 2u) || g->bmark[1][t] == g->bstamp) << 1);
}

/* The ends filter for group B of one read strand (ends_filter.h): the
 * targets whose ends pass may find something, in target order, in
 * g->ecand; which ends each may have is in g->bmark and ef.always
 * (ends_allowed()).  The items of the other targets that take partial
 * occurrences are counted as skipped here (partial_hits() counts the
 * candidates').  Returns their number, -2 when the strand cannot be
 * filtered (every target runs), or -1 when out of memory. */
static int64_t ends_candidates(group_ws *g, const gpuasm_cpu_prep *prep, const gpuasm_seqset *targets,
                               const gpuasm_search_opt *opt, const uint8_t *rseq, uint64_t n, uint32_t strand)
{
    const uint32_t ends = gpuasm_partial_text_ends(opt, 0, strand);
    const uint64_t per = (uint64_t)__builtin_popcount(ends);
    if (++g->bstamp == 0) {   /* stamps wrapped: clear the marks */
        memset(g->bmark[0], 0, (size_t)targets->n * sizeof(uint32_t));
        memset(g->bmark[1], 0, (size_t)targets->n * sizeof(uint32_t));
        g->bstamp = 1;
    }
    const int64_t nm = gpuasm_efilter_mark(&prep->ef, rseq, n, ends, g->bmark, g->bstamp, &g->ecand,
                                           &g->cap_ecand, &g->efws);
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
    if (u > 1) qsort(g->ecand, u, sizeof(uint32_t), cmp_u32);
    g->cnt.ends_skipped += (uint64_t)(g->n_b_partial - u) * per;   /* every candidate takes them */
    return u;
}

int gpuasm_cpu_scan_cfg(const gpuasm_cpu_cfg *cfg, const gpuasm_cpu_prep *prep_in,
                        const gpuasm_seqset *reads, uint32_t first, uint32_t count,
                        const gpuasm_seqset *targets, const gpuasm_search_opt *opt,
                        gpuasm_hits *out, gpuasm_scan_stats *counts, gpuasm_err *err)
{
    int ret = gpuasm_search_check(opt, err);
    if (ret < 0) return ret;
    const gpuasm_twin *tw = gpuasm_kernel_get(opt->kernel)->twin;
    const uint64_t limit = gpuasm_kernel_max_pattern(opt);
    gpuasm_cpu_prep *own = NULL;
    const gpuasm_cpu_prep *prep = prep_in;
    const int grouped = grouped_search(opt);
    const int hfilt = filtered_hamming(opt);
    if ((grouped || hfilt) && !gpuasm_cpu_prep_fits(prep, targets, opt)) {
        if ((ret = gpuasm_cpu_prep_build(targets, opt, cfg, &own, err)) < 0) return ret;
        prep = own;
    }
    void *ws = tw->open(opt);
    if (!ws) {
        gpuasm_cpu_prep_free(own);
        return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
    }
    walk w;
    memset(&w, 0, sizeof w);
    w.out = out;
    group_ws g;
    memset(&g, 0, sizeof g);
    uint8_t *rc = NULL;
    size_t rc_cap = 0;
    uint64_t *pws = NULL;           /* the ends pass's workspace */
    size_t pws_cap = 0;
    const int strands = gpuasm_strands(opt);
    const int partial = gpuasm_partial_on(opt);
    const int hamming = gpuasm_search_mode(opt) == GPUASM_MODE_HAMMING;
    const int efilt = (grouped || hfilt) && partial && prep->has_efilter;
    if ((grouped || hfilt) && prep->has_filter &&
        !(g.mark = calloc(targets->n ? targets->n : 1, sizeof(uint32_t))))
        goto oom;
    if ((grouped || hfilt) && (prep->has_filter || efilt) &&
        !(g.in_b = calloc(targets->n ? targets->n : 1, sizeof(uint32_t))))
        goto oom;
    if (efilt && (!(g.bmark[0] = calloc(targets->n ? targets->n : 1, sizeof(uint32_t))) ||
                  !(g.bmark[1] = calloc(targets->n ? targets->n : 1, sizeof(uint32_t)))))
        goto oom;
    uint64_t groups_rlen = UINT64_MAX;   /* the read length g's groups are for */
    /* k of every target as the pattern, once (the pair rule's floor(e m)
     * per pair and read was a visible share of the adapter screen). */
    if (!(g.k_t = malloc((targets->n ? targets->n : 1) * sizeof(int32_t)))) goto oom;
    if ((grouped || hfilt) && prep->has_tindex &&
        (!(g.in_a = calloc(targets->n ? targets->n : 1, sizeof(uint32_t))) ||
         !(g.emark = calloc(targets->n ? targets->n : 1, sizeof(uint32_t))) ||
         !(g.ebits = malloc(GPUASM_END_BITS_WORDS * sizeof(uint64_t)))))
        goto oom;
    for (uint32_t t = 0; t < targets->n; t++)
        g.k_t[t] = gpuasm_pair_k(opt, targets->off[t + 1] - targets->off[t]);

    for (uint64_t r = first; r < (uint64_t)first + count && r < reads->n; r++) {
        const uint8_t *read = reads->code + reads->off[r];
        uint64_t rlen = reads->off[r + 1] - reads->off[r];
        /* The read's pairs, checked in target order first (so a failure
         * names the same pair whatever the grouping).  They depend on the
         * read's length only: kept while it stays the same (the loop over
         * 10,000 primers was most of a filtered primer screen). */
        const int32_t k_read = gpuasm_pair_k(opt, rlen);
        if (rlen != groups_rlen) {
        groups_rlen = rlen;
        g.n_a = g.n_b = 0;
        /* the ends pass of group A through the index (prefilter.h) */
        g.ends_L = g.ends_W = 0;
        if (partial && g.emark && opt->alphabet == GPUASM_ALPHABET_NT16 && rlen > 1 && rlen <= UINT32_MAX) {
            const uint32_t omin = gpuasm_pair_overlap_min(opt, 1, rlen);
            g.ends_L = omin ? gpuasm_partial_piece_len(opt, omin, (uint32_t)rlen) : 0;
            const int32_t kmax = gpuasm_partial_kf(opt, opt->read_partial_floor, rlen - 1, rlen);
            g.ends_W = kmax >= 0 && rlen - 1 + (uint64_t)kmax <= UINT32_MAX ? (uint32_t)(rlen - 1 + (uint64_t)kmax) : 0;
            if (!g.ends_W) g.ends_L = 0;
            /* Built for the widest W so far (each scan call builds its
             * own), and only while the end windows hold few enough
             * windows that most keys stay clear: past a quarter of the
             * 4^Q keys the bits reject little and their build (every
             * target's ends) would be repeated for nothing. */
            if (g.ends_L && g.ends_W > g.ebits_W && g.ebits) {
                if (2 * (uint64_t)targets->n * g.ends_W > GPUASM_END_BITS_WORDS * 64 / 4) {
                    free(g.ebits);
                    g.ebits = NULL;
                } else {
                    gpuasm_end_bits(targets, g.ends_W, g.ebits);
                    g.ebits_W = g.ends_W;
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
            pr.k = pr.read_is_pattern ? k_read : g.k_t[t];
            pr.searched = gpuasm_pair_searched(pr.m, pr.k, pr.n);
            if (!pr.searched) continue;   /* also skips empty reads */
            if (limit && pr.m > limit) {
                gpuasm_err_set(err, GPUASM_ERR_TOO_LONG,
                               "kernel %s takes patterns of at most %llu bases; this pair has one of %llu",
                               tw->name, (unsigned long long)limit, (unsigned long long)pr.m);
                ret = gpuasm_err_about(err, (uint32_t)r, t, pr.m, limit);
                goto done;
            }
            /* end is a uint32_t and the pair API takes a uint32_t m. */
            if (pr.m > UINT32_MAX || pr.n > (uint64_t)UINT32_MAX + 1) {
                const uint64_t len = pr.m > UINT32_MAX ? pr.m : pr.n;
                gpuasm_err_set(err, GPUASM_ERR_SEQ_TOO_LONG, "sequence too long (%llu bases)",
                               (unsigned long long)len);
                ret = gpuasm_err_about(err, (uint32_t)r, t, len, (uint64_t)UINT32_MAX);
                goto done;
            }
            uint32_t **grp = pr.read_is_pattern ? &g.grp_a : &g.grp_b;
            size_t *cap = pr.read_is_pattern ? &g.cap_a : &g.cap_b;
            uint32_t *n = pr.read_is_pattern ? &g.n_a : &g.n_b;
            if (gpuasm_grow((void **)grp, cap, (size_t)*n + 1, sizeof(uint32_t)) < 0) goto oom;
            (*grp)[(*n)++] = t;
        }
        /* group B's membership and "always" targets, for the pieces filter */
        if (g.in_b) {
            if (++g.stamp_b == 0) {
                memset(g.in_b, 0, (size_t)targets->n * sizeof(uint32_t));
                g.stamp_b = 1;
            }
            g.n_always_b = g.n_ealways = g.n_b_partial = 0;
            for (uint32_t i = 0; i < g.n_b; i++) {
                g.in_b[g.grp_b[i]] = g.stamp_b;
                g.n_b_partial += efilt && gpuasm_pair_overlap_min(opt, 0, targets->off[g.grp_b[i] + 1] -
                                                                              targets->off[g.grp_b[i]]) != 0;
                if (efilt && prep->ef.always[g.grp_b[i]]) {
                    if (gpuasm_grow((void **)&g.ealways, &g.cap_ealways, (size_t)g.n_ealways + 1,
                                    sizeof(uint32_t)) < 0)
                        goto oom;
                    g.ealways[g.n_ealways++] = g.grp_b[i];
                }
                if (!prep->has_filter || !prep->qf.always[g.grp_b[i]]) continue;
                if (gpuasm_grow((void **)&g.always_b, &g.cap_always_b, (size_t)g.n_always_b + 1,
                                sizeof(uint32_t)) < 0)
                    goto oom;
                g.always_b[g.n_always_b++] = g.grp_b[i];
            }
        }
        }
        if (g.n_a + g.n_b == 0) continue;
        if (strands == 2 && build_rc(&rc, &rc_cap, read, rlen) < 0) goto oom;
        for (uint32_t s = 0; s < (uint32_t)strands; s++) {
            const uint8_t *rseq = s ? rc : read;
            w.cur.read = (uint32_t)r;
            w.cur.strand = s;
            /* Group A's target ends that may hold a partial occurrence of
             * this read strand (prefilter.h, "The ends pass of reads as
             * patterns"); the others skip the ends pass's DP. */
            int emarked = 0;
            if (g.ends_L && g.n_a) {
                if (++g.stamp_a == 0) {
                    memset(g.in_a, 0, (size_t)targets->n * sizeof(uint32_t));
                    g.stamp_a = 1;
                }
                for (uint32_t i = 0; i < g.n_a; i++) {
                    g.in_a[g.grp_a[i]] = g.stamp_a;
                    g.emark[g.grp_a[i]] = 0;
                }
                const uint32_t ends = gpuasm_partial_text_ends(opt, 1, s);
                emarked = gpuasm_tindex_end_marks(&prep->tx, targets, rseq, (uint32_t)rlen, g.ends_L, g.ends_W,
                                                  ends, g.ebits, g.in_a, g.stamp_a, g.emark) == 0;
                if (emarked && prep->tx.n_amb)
                    for (uint32_t i = 0; i < g.n_a; i++)
                        g.emark[g.grp_a[i]] |= (uint32_t)gpuasm_tindex_end_amb(&prep->tx, targets, g.grp_a[i],
                                                                               g.ends_W);
            }
            if (grouped) {
                if (g.n_a && walk_group_a(&w, &g, cfg, prep, targets, rseq, (uint32_t)rlen, k_read) < 0)
                    goto oom;
                if (g.n_b && walk_group_b(&w, &g, cfg, prep, targets, opt, rseq, rlen, tw, ws) < 0)
                    goto oom;
                if (!partial) continue;
            } else if (hfilt) {
                if (walk_hamming(&w, &g, cfg, prep, targets, rseq, (uint32_t)rlen, k_read, tw, ws) < 0)
                    goto oom;
                if (!partial) continue;
            }
            for (int grp = 0; grp < 2; grp++) {
                /* The grouped walks did the full occurrences: a group
                 * without partial occurrences (--overlap full for targets,
                 * --read-overlap full for reads) has nothing left here. */
                if ((grouped || hfilt) && (grp ? opt->overlap_min <= 0 : opt->read_overlap_min == 0)) continue;
                const uint32_t *list = grp ? g.grp_b : g.grp_a;
                uint32_t nl = grp ? g.n_b : g.n_a;
                /* Group B behind the ends filter: only its candidates, at
                 * their candidate ends (the grouped walks did the full
                 * occurrences; this loop has nothing else to do for B). */
                int by_ends = 0;
                if (grp && efilt && nl) {
                    const int64_t ne = ends_candidates(&g, prep, targets, opt, rseq, rlen, s);
                    if (ne == -1) goto oom;
                    if (ne >= 0) {
                        list = g.ecand;
                        nl = (uint32_t)ne;
                        by_ends = 1;
                    }
                }
                for (uint32_t i = 0; i < nl; i++) {
                    const uint32_t t = list[i];
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
                    w.cur.target = t;
                    if (!grouped && !hfilt) {
                        w.have_pending = 0;
                        int run_rc = tw->pair(ws, &p, emit_hit, &w);
                        flush_hits(&w);
                        if (run_rc < 0 || w.oom) goto oom;
                    }
                    const uint32_t allow = grp == 0 ? (emarked ? g.emark[t] : 3u)
                                                    : by_ends ? ends_allowed(&g, prep, t) : 3u;
                    const ends_word *fast = prep && prep->ew && prep->ew[t].m ? &prep->ew[t] : NULL;
                    if (partial &&
                        partial_hits(&w, opt, hamming, &pr, p.pattern, p.text, allow, &pws, &pws_cap, &g.cnt,
                                     fast) < 0)
                        goto oom;
                }
            }
        }
    }
    goto done;
oom:
    ret = gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
done:
    if (counts) {
        counts->index_strands += g.cnt.index_strands;
        counts->index_declined += g.cnt.index_declined;
        counts->pieces_kept += g.cnt.pieces_kept;
        counts->pieces_dropped += g.cnt.pieces_dropped;
        counts->ends_run += g.cnt.ends_run;
        counts->ends_skipped += g.cnt.ends_skipped;
    }
    tw->close(ws);
    group_ws_free(&g);
    gpuasm_cpu_prep_free(own);
    free(rc);
    free(pws);
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
