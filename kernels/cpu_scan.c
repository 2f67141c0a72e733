/* cpu_scan.c -- gpuasm_cpu_scan(): the pair walk every CPU twin shares.
 *
 * For each (read, target, strand) of the batch slice: pattern, text and k
 * by search.h's pair rule (gpuasm_pair_of), pairs that are not searched
 * skipped, the pattern-length limit of the kernel's row (registry.h), the
 * read reverse-complemented for strand 1 (nt16 only; the byte alphabet has
 * one strand), then opt->kernel's twin runs the pair (twin.h) and the
 * positions it emits (every j with D <= k) are cut down to local minima.
 * Then the ends pass (partial.h) adds the pair's partial occurrences, the
 * same code the CUDA backend runs.
 * Also gpuasm_scan_cells(), the DP-cell count of a slice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt16.h"
#include "partial.h"
#include "registry.h"
#include "search.h"
#include "twin.h"

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

/* The pair's partial occurrences at the ends of the text (search.h): at
 * most one end hit per end.  ws grows to the pattern's needs.  0 or -1. */
static int partial_hits(walk *w, const gpuasm_search_opt *opt, int hamming, const gpuasm_pair *pr,
                        const uint8_t *pattern, const uint8_t *text, uint64_t **ws, size_t *ws_cap)
{
    const uint32_t omin = gpuasm_pair_overlap_min(opt, pr->read_is_pattern, pr->m);
    const uint32_t ends = gpuasm_partial_text_ends(opt, pr->read_is_pattern, w->cur.strand);
    if (!omin || !ends) return 0;
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
        const gpuasm_partial b = gpuasm_partial_best(opt, omin, &pv, &tv, at_start, hamming, *ws);
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

int gpuasm_cpu_scan(const gpuasm_seqset *reads, uint32_t first, uint32_t count,
                    const gpuasm_seqset *targets, const gpuasm_search_opt *opt,
                    gpuasm_hits *out, gpuasm_err *err)
{
    int ret = gpuasm_search_check(opt, err);
    if (ret < 0) return ret;
    const gpuasm_twin *tw = gpuasm_kernel_get(opt->kernel)->twin;
    const uint64_t limit = gpuasm_kernel_max_pattern(opt);
    void *ws = tw->open(opt);
    if (!ws) return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
    walk w;
    memset(&w, 0, sizeof w);
    w.out = out;
    uint8_t *rc = NULL;
    size_t rc_cap = 0;
    uint64_t *pws = NULL;           /* the ends pass's workspace */
    size_t pws_cap = 0;
    int rc_ok;
    const int strands = gpuasm_strands(opt);
    const int partial = gpuasm_partial_on(opt);
    const int hamming = gpuasm_search_mode(opt) == GPUASM_MODE_HAMMING;

    for (uint64_t r = first; r < (uint64_t)first + count && r < reads->n; r++) {
        const uint8_t *read = reads->code + reads->off[r];
        uint64_t rlen = reads->off[r + 1] - reads->off[r];
        rc_ok = 0;
        for (uint32_t t = 0; t < targets->n; t++) {
            const uint8_t *tgt = targets->code + targets->off[t];
            const gpuasm_pair pr = gpuasm_pair_of(opt, rlen, targets->off[t + 1] - targets->off[t]);
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
            if (strands == 2 && !rc_ok) {
                if (build_rc(&rc, &rc_cap, read, rlen) < 0) goto oom;
                rc_ok = 1;
            }
            for (uint32_t s = 0; s < (uint32_t)strands; s++) {
                const uint8_t *rseq = s ? rc : read;
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
                w.cur.read = (uint32_t)r;
                w.cur.target = t;
                w.cur.strand = s;
                w.have_pending = 0;
                int run_rc = tw->pair(ws, &p, emit_hit, &w);
                flush_hits(&w);
                if (run_rc < 0 || w.oom) goto oom;
                if (partial && partial_hits(&w, opt, hamming, &pr, p.pattern, p.text, &pws, &pws_cap) < 0)
                    goto oom;
            }
        }
    }
    goto done;
oom:
    ret = gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
done:
    tw->close(ws);
    free(rc);
    free(pws);
    return ret;
}
