/* SPDX-License-Identifier: MIT */
/* hits.c -- the growable end-hit array of search.h.
 *
 * Every backend appends hits in its own order; gpuasm_hits_sort() gives the
 * one canonical order that the rest of the pipeline (and the byte-identical
 * SAM output) relies on.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "search/search.h"
#include "util/grow.h"

int gpuasm_hits_reserve(gpuasm_hits *h, size_t more)
{
    if (more <= h->cap - h->n) return 0;
    if (more > SIZE_MAX / sizeof(gpuasm_endhit) - h->n) return -1;
    size_t need = h->n + more;
    /* Double so that a long run of pushes costs amortised O(1) each. */
    size_t cap = h->cap ? h->cap : 64;
    while (cap < need) {
        if (cap > SIZE_MAX / sizeof(gpuasm_endhit) / 2) { cap = need; break; }
        cap *= 2;
    }
    gpuasm_endhit *p = realloc(h->hit, cap * sizeof(gpuasm_endhit));
    if (!p) return -1;
    h->hit = p;
    h->cap = cap;
    return 0;
}

int gpuasm_hits_push(gpuasm_hits *h, gpuasm_endhit e)
{
    if (h->n == h->cap && gpuasm_hits_reserve(h, 1) < 0) return -1;
    h->hit[h->n++] = e;
    return 0;
}

/* read, target, strand, end, kind, then plen and dist.  A backend never
 * reports the same (read, target, strand, end, kind) twice, so plen and
 * dist only matter for a buggy backend; comparing them anyway keeps the
 * order total (qsort is not stable). */
static int cmp_hit(const void *pa, const void *pb)
{
    const gpuasm_endhit *a = pa, *b = pb;
    if (a->read != b->read) return a->read < b->read ? -1 : 1;
    if (a->target != b->target) return a->target < b->target ? -1 : 1;
    if (a->strand != b->strand) return a->strand < b->strand ? -1 : 1;
    if (a->end != b->end) return a->end < b->end ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    if (a->plen != b->plen) return a->plen < b->plen ? -1 : 1;
    if (a->dist != b->dist) return a->dist < b->dist ? -1 : 1;
    return 0;
}

/* How far back gpuasm_hits_sort() moves a hit of the read before it. */
#define SORT_BACK 256

/* Merge the sorted runs h[bound[i] .. bound[i + 1]) (nb runs) pairwise
 * through tmp until one is left.  Returns the array that holds the result
 * (h or tmp). */
static gpuasm_endhit *merge_runs(gpuasm_endhit *h, gpuasm_endhit *tmp, size_t *bound, size_t nb)
{
    gpuasm_endhit *src = h, *dst = tmp;
    while (nb > 1) {
        size_t out = 0;
        for (size_t r = 0; r < nb; r += 2) {
            const size_t lo = bound[r], mid = bound[r + 1], hi = r + 2 <= nb ? bound[r + 2] : mid;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) dst[k++] = cmp_hit(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
            bound[out++] = lo;
        }
        bound[out] = bound[nb];
        nb = out;
        gpuasm_endhit *t = src;
        src = dst;
        dst = t;
    }
    return src;
}

/* One pass first: hits out of order within one read's hits -- among a
 * run of one (read, target, strand, end), the order the device's keep
 * pass leaves (engine/keep_cuda.cu: sorted by end, then by read, target
 * and strand), or a strand's partial hits that the CPU walk appends after
 * its full ones, at ends 0 and n - 1 -- are put in place by insertion
 * when their place is at most SORT_BACK hits back in the run, and the
 * places where the order breaks otherwise cut the array into sorted runs
 * (the CPU backend's threads each append theirs; before the insertion
 * within a read, the periodic case's reads made so many that qsort took
 * 8% of its run).  None: done in one pass, where qsort took a serial
 * ~70 ns a hit on the CUDA lane's thread (1.5 M hits: 0.106 s) with the
 * GPU idle.  A few: merged.  Many (hits in no order): qsort.  The order is
 * total, so the result is the same array whichever way it is reached. */
void gpuasm_hits_sort(gpuasm_hits *h)
{
    const size_t n = h->n;
    if (n < 2) return;
    gpuasm_endhit *a = h->hit;
    /* bound[0 .. nb): the runs' starts, kept only once the order breaks
     * (none where the hits come in order: no allocation then) */
    size_t *bound = NULL, nb = 0, cap = 0;
    const size_t max_runs = n / 64 + 1;
    size_t run0 = 0;   /* the current run's first hit */
    for (size_t i = 1; i < n; i++) {
        if (cmp_hit(&a[i - 1], &a[i]) <= 0) continue;
        const gpuasm_endhit x = a[i];
        if (a[i - 1].read == x.read) {   /* a break inside one read's hits */
            size_t j = i;
            while (j > run0 && i - j < SORT_BACK && cmp_hit(&a[j - 1], &x) > 0) j--;
            if (j == run0 || cmp_hit(&a[j - 1], &x) <= 0) {
                memmove(a + j + 1, a + j, (i - j) * sizeof *a);
                a[j] = x;
                continue;
            }
        }
        if ((nb ? nb : 1) >= max_runs || gpuasm_grow((void **)&bound, &cap, nb + 3, sizeof *bound) < 0) goto any;
        if (nb == 0) bound[nb++] = 0;
        bound[nb++] = i;
        run0 = i;
    }
    if (nb > 1) {
        gpuasm_endhit *tmp = malloc(n * sizeof *tmp);
        if (!tmp) goto any;
        bound[nb] = n;
        gpuasm_endhit *res = merge_runs(a, tmp, bound, nb);
        if (res != a) memcpy(a, res, n * sizeof *a);
        free(tmp);
    }
    free(bound);
    return;
any:
    free(bound);
    qsort(a, n, sizeof(gpuasm_endhit), cmp_hit);
}

void gpuasm_hits_drop_strand1(gpuasm_hits *h, size_t from)
{
    size_t kept = from;
    for (size_t i = from; i < h->n; i++)
        if (h->hit[i].strand == 0) h->hit[kept++] = h->hit[i];
    h->n = kept;
}

int gpuasm_keep_hit(gpuasm_keep_state *s, const gpuasm_endhit *h, uint64_t span)
{
    if (h->kind != GPUASM_HIT_FULL) return 1;
    if (!s->live || h->read != s->read || h->target != s->target || h->strand != s->strand ||
        h->end < s->last) {
        for (size_t i = 0; i < s->n_used; i++) {
            s->first[s->used[i]] = UINT32_MAX;
            s->done[s->used[i]] = 0;
        }
        s->n_used = 0;
        s->read = h->read;
        s->target = h->target;
        s->strand = h->strand;
        s->live = 1;
        s->closed = INT32_MAX;
    }
    s->last = h->end;
    const int32_t d = h->dist;
    if (d > s->closed || d < 0) return d < 0;
    if ((size_t)d >= s->cap) {
        size_t cap = s->cap ? s->cap : 16;
        while (cap <= (size_t)d) cap *= 2;
        uint32_t *f = realloc(s->first, cap * sizeof *f);
        if (f) s->first = f;
        uint8_t *o = realloc(s->done, cap);
        if (o) s->done = o;
        int32_t *u = realloc(s->used, cap * sizeof *u);
        if (u) s->used = u;
        if (!f || !o || !u) return -1;
        for (size_t i = s->cap; i < cap; i++) {
            s->first[i] = UINT32_MAX;
            s->done[i] = 0;
        }
        s->cap = cap;
    }
    if (s->first[d] == UINT32_MAX) {
        s->first[d] = h->end;
        s->used[s->n_used++] = d;
        return 1;
    }
    if ((uint64_t)h->end <= (uint64_t)s->first[d] + 2 * span - 2) return 1;
    if (s->done[d]) return 0;
    s->done[d] = 1;   /* the first past the window: two hits that cannot both overlap c1 */
    if (d < s->closed) s->closed = d;
    return 1;
}

int gpuasm_keep_drops(const gpuasm_keep_state *s, const gpuasm_endhit *h, uint64_t span)
{
    if (h->kind != GPUASM_HIT_FULL || !s->live || h->read != s->read || h->target != s->target ||
        h->strand != s->strand || h->end < s->last || h->dist < 0)
        return 0;
    const int32_t d = h->dist;
    if (d > s->closed) return 1;
    /* past its distance's window and that distance done: dropped, and the
     * state is left as it is (gpuasm_keep_hit's last two returns) */
    return (size_t)d < s->cap && s->first[d] != UINT32_MAX && s->done[d] &&
           (uint64_t)h->end > (uint64_t)s->first[d] + 2 * span - 2;
}

void gpuasm_keep_free(gpuasm_keep_state *s)
{
    free(s->first);
    free(s->done);
    free(s->used);
    memset(s, 0, sizeof *s);
}

int gpuasm_hits_keep_reported(gpuasm_hits *h, size_t from, const gpuasm_seqset *reads,
                              const gpuasm_search_opt *opt)
{
    gpuasm_keep_state s;
    memset(&s, 0, sizeof s);
    size_t n = from;
    uint32_t span_read = UINT32_MAX;
    uint64_t span = 0;
    for (size_t i = from; i < h->n; i++) {
        if (h->hit[i].read != span_read) {
            span_read = h->hit[i].read;
            const uint64_t len = reads->off[span_read + 1] - reads->off[span_read];
            const int32_t k = gpuasm_pair_k(opt, len);
            span = len + (uint64_t)(k > 0 ? k : 0);
        }
        const int r = gpuasm_keep_hit(&s, &h->hit[i], span);
        if (r < 0) {
            gpuasm_keep_free(&s);
            return -1;
        }
        if (r) h->hit[n++] = h->hit[i];
    }
    h->n = n;
    gpuasm_keep_free(&s);
    return 0;
}

void gpuasm_hits_free(gpuasm_hits *h)
{
    free(h->hit);
    h->hit = NULL;
    h->n = h->cap = 0;
}
