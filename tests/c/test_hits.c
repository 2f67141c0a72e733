/* SPDX-License-Identifier: MIT */
/* test_hits.c -- gpuasm_hits_sort() (search/hits.c) against qsort with the
 * canonical order written out here, on the orders backends hand it: hits
 * in no order (atomic appends), sorted, sorted but for hits of one (read,
 * target, strand, end) out of order among themselves (the device's keep
 * pass, engine/keep_cuda.cu), a few sorted runs one after another (the
 * CPU backend's threads), many runs, and duplicates.  The result must be
 * the same bytes.  Output is TAP; GPUASM_TEST_SEED varies the cases.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/search.h"
#include "tap.h"

/* search.h's order: read, target, strand, end, kind, plen, dist. */
static int cmp_ref(const void *pa, const void *pb)
{
    const gpuasm_endhit *a = pa, *b = pb;
#define CMP(f) if (a->f != b->f) return a->f < b->f ? -1 : 1
    CMP(read);
    CMP(target);
    CMP(strand);
    CMP(end);
    CMP(kind);
    CMP(plen);
    CMP(dist);
#undef CMP
    return 0;
}

/* A hit from a small space, so that ties of (read, target, strand, end)
 * and whole duplicates happen. */
static gpuasm_endhit some_hit(void)
{
    gpuasm_endhit h;
    memset(&h, 0, sizeof h);
    h.read = (uint32_t)below(50);
    h.target = (uint32_t)below(6);
    h.strand = (uint16_t)below(2);
    h.end = (uint32_t)below(12);
    h.kind = (uint16_t)below(3);
    h.plen = (uint32_t)below(3);
    h.dist = (int32_t)below(3);
    return h;
}

/* Shuffle a[lo .. hi) of equal (read, target, strand, end) blocks only. */
static void shuffle_ties(gpuasm_endhit *a, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && a[j].read == a[i].read && a[j].target == a[i].target && a[j].strand == a[i].strand &&
               a[j].end == a[i].end)
            j++;
        for (size_t k = j - 1; k > i; k--) {
            const size_t r = i + (size_t)below(k - i + 1);
            const gpuasm_endhit t = a[k];
            a[k] = a[r];
            a[r] = t;
        }
        i = j;
    }
}

/* Sorted a[0 .. n) (n > 0 after the qsort above) into blocks of one read
 * each: the block's partial hits (kind > 0) moved after its full ones,
 * keeping their order, or (reverse) the block reversed. */
static void read_blocks(gpuasm_endhit *a, size_t n, int reverse)
{
    qsort(a, n, sizeof *a, cmp_ref);
    gpuasm_endhit *tmp = xmalloc(n * sizeof *tmp);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && a[j].read == a[i].read) j++;
        size_t k = 0;
        if (reverse) {
            for (size_t y = j; y > i; y--) tmp[k++] = a[y - 1];
        } else {
            for (size_t y = i; y < j; y++)
                if (a[y].kind == 0) tmp[k++] = a[y];
            for (size_t y = i; y < j; y++)
                if (a[y].kind != 0) tmp[k++] = a[y];
        }
        memcpy(a + i, tmp, k * sizeof *a);
        i = j;
    }
    free(tmp);
}

int main(void)
{
    rng_seed_from_env();
    const char *names[] = { "no order", "sorted", "sorted but ties shuffled", "3 sorted runs",
                            "40 sorted runs", "runs with ties shuffled", "one hit", "reversed",
                            "read blocks, each with its partial hits last (the CPU walk)",
                            "read blocks, each reversed (moves past SORT_BACK)" };
    for (int kind = 0; kind < 10; kind++) {
        int bad = 0;
        for (int rep = 0; rep < 40; rep++) {
            size_t n = kind == 6 ? 1 : 1 + (size_t)below(rep < 20 ? 60 : 5000);
            gpuasm_hits h;
            memset(&h, 0, sizeof h);
            if (gpuasm_hits_reserve(&h, n) < 0) return 1;
            for (size_t i = 0; i < n; i++) h.hit[i] = some_hit();
            h.n = n;
            size_t runs = kind == 3 ? 3 : kind == 4 || kind == 5 ? 40 : 1;
            if (kind >= 1 && kind != 6) {
                /* runs of about n / runs hits, each sorted */
                for (size_t r = 0; r < runs; r++) {
                    const size_t lo = n * r / runs, hi = n * (r + 1) / runs;
                    qsort(h.hit + lo, hi - lo, sizeof *h.hit, cmp_ref);
                }
            }
            if (kind == 2 || kind == 5) shuffle_ties(h.hit, n);
            if (kind >= 8) read_blocks(h.hit, n, kind == 9);
            if (kind == 7)
                for (size_t i = 0; i < n / 2; i++) {
                    const gpuasm_endhit t = h.hit[i];
                    h.hit[i] = h.hit[n - 1 - i];
                    h.hit[n - 1 - i] = t;
                }
            gpuasm_endhit *want = xmalloc(n * sizeof *want);
            memcpy(want, h.hit, n * sizeof *want);
            qsort(want, n, sizeof *want, cmp_ref);
            gpuasm_hits_sort(&h);
            if (h.n != n || memcmp(h.hit, want, n * sizeof *want) != 0) {
                bad++;
                diag("%s: %zu hits, rep %d: not qsort's order", names[kind], n, rep);
            }
            free(want);
            gpuasm_hits_free(&h);
        }
        tap(bad == 0, "gpuasm_hits_sort = qsort on hits in %s (40 cases)", names[kind]);
    }
    return tap_done();
}
