/* cpu_scan.c -- gpuasm_cpu_scan(): the pair walk every CPU twin shares.
 *
 * For each (read, target, strand) of the batch slice: pattern and text by
 * search.h's pair rule, k = gpuasm_pair_k(), pairs with m <= k skipped, the
 * read reverse-complemented for strand 1 (nt16 only; the byte alphabet has
 * one strand), then the twin of opt->kernel runs the pair (twin.h) and the
 * positions it emits (every j with D <= k) are cut down to local minima.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt16.h"
#include "search.h"
#include "twin.h"

static const gpuasm_twin *twin_of(int32_t kernel)
{
    switch (kernel) {
    case GPUASM_KERNEL_MYERS: return &gpuasm_twin_myers;
    case GPUASM_KERNEL_DP: return &gpuasm_twin_dp;
    case GPUASM_KERNEL_SCAN: return &gpuasm_twin_scan;
    case GPUASM_KERNEL_HAMMING: return &gpuasm_twin_hamming;
    default: return NULL;
    }
}

uint64_t gpuasm_pair_too_long(const gpuasm_search_opt *opt, uint64_t read_len, uint64_t target_len)
{
    uint64_t limit = gpuasm_kernel_max_pattern(opt);
    if (!limit) return 0;
    int rip = gpuasm_read_is_pattern(opt, read_len, target_len);
    uint64_t m = rip ? read_len : target_len;
    if ((int64_t)m <= (int64_t)gpuasm_pair_k(opt, m)) return 0;   /* not searched */
    return m > limit ? m : 0;
}

double gpuasm_scan_cells(const gpuasm_seqset *reads, uint32_t first, uint32_t count,
                         const gpuasm_seqset *targets, const gpuasm_search_opt *opt)
{
    double cells = 0;
    const int strands = gpuasm_strands(opt);
    for (uint64_t r = first; r < (uint64_t)first + count && r < reads->n; r++) {
        uint64_t rlen = reads->off[r + 1] - reads->off[r];
        for (uint32_t t = 0; t < targets->n; t++) {
            uint64_t tlen = targets->off[t + 1] - targets->off[t];
            int rip = gpuasm_read_is_pattern(opt, rlen, tlen);
            uint64_t m = rip ? rlen : tlen, n = rip ? tlen : rlen;
            if ((int64_t)m <= (int64_t)gpuasm_pair_k(opt, m)) continue;
            cells += (double)strands * (double)m * (double)n;
        }
    }
    return cells;
}

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
                    gpuasm_hits *out, char *err, size_t errlen)
{
    const gpuasm_twin *tw = twin_of(opt->kernel);
    if (!tw) {
        snprintf(err, errlen, "unknown kernel %d", (int)opt->kernel);
        return -1;
    }
    void *ws = tw->open(opt);
    if (!ws) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    walk w;
    memset(&w, 0, sizeof w);
    w.out = out;
    uint8_t *rc = NULL;
    size_t rc_cap = 0;
    int rc_ok, ret = 0;
    const int strands = gpuasm_strands(opt);

    for (uint64_t r = first; r < (uint64_t)first + count && r < reads->n; r++) {
        const uint8_t *read = reads->code + reads->off[r];
        uint64_t rlen = reads->off[r + 1] - reads->off[r];
        rc_ok = 0;
        for (uint32_t t = 0; t < targets->n; t++) {
            const uint8_t *tgt = targets->code + targets->off[t];
            uint64_t tlen = targets->off[t + 1] - targets->off[t];
            int rip = gpuasm_read_is_pattern(opt, rlen, tlen);
            uint64_t m = rip ? rlen : tlen;
            uint64_t n = rip ? tlen : rlen;
            int32_t k = gpuasm_pair_k(opt, m);
            if ((int64_t)m <= (int64_t)k) continue;   /* also skips empty reads */
            if (k < 0 || n == 0) continue;            /* nothing can be reported */
            if (gpuasm_pair_too_long(opt, rlen, tlen)) {
                snprintf(err, errlen, "--kernel %s takes patterns of at most %llu bases; "
                         "read %llu of the batch vs target %u has one of %llu",
                         gpuasm_kernel_name(opt->kernel),
                         (unsigned long long)gpuasm_kernel_max_pattern(opt),
                         (unsigned long long)r + 1, t + 1, (unsigned long long)m);
                ret = -1;
                goto done;
            }
            /* end is a uint32_t and the pair API takes a uint32_t m. */
            if (m > UINT32_MAX || n > (uint64_t)UINT32_MAX + 1) {
                snprintf(err, errlen, "sequence too long (%llu bases)", (unsigned long long)n);
                ret = -1;
                goto done;
            }
            if (strands == 2 && !rc_ok) {
                if (build_rc(&rc, &rc_cap, read, rlen) < 0) goto oom;
                rc_ok = 1;
            }
            for (uint32_t s = 0; s < (uint32_t)strands; s++) {
                const uint8_t *rseq = s ? rc : read;
                gpuasm_twin_pair p;
                p.m = (uint32_t)m;
                p.n = n;
                p.k = k;
                if (rip) {
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
            }
        }
    }
    goto done;
oom:
    snprintf(err, errlen, "out of memory");
    ret = -1;
done:
    tw->close(ws);
    free(rc);
    return ret;
}
