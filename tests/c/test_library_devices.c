/* SPDX-License-Identifier: MIT */
/* test_library_devices.c -- libgpuasm's public call on two devices gives the
 * same hits (issue #10, "the library others link": CPU or CUDA backend).
 *
 *   tests/c/test_library_devices DEVICE [READS]
 *
 * Makes a deterministic batch (tap.h's generator at its fixed seed; no
 * input files): four targets (a 34-base adapter, a 25-base primer, 2,000-
 * and 6,000-base "genomes") and
 * READS reads [4000] of 60-250 bases, most of them carrying a mutated copy
 * of a target piece (substitutions, insertions, deletions) on either strand,
 * some random, a few with N.  Searches it with gpuasm_align_batch() on
 * "cpu" and on DEVICE, in edit and Hamming mode, best and --all, and
 * compares every hit field (read, target, strand, distance, both intervals,
 * CIGAR).  TAP output.  On a machine without a GPU, DEVICE "cuda" must fail
 * with GPUASM_STATUS_NO_DEVICE and a message (checked instead): make check
 * runs it that way, tests/gpu/run on the GPU.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuasm.h"
#include "tap.h"

/* tap.h's splitmix64, as 32 bits */
static uint32_t next(void) { return (uint32_t)(rnd() >> 32); }

static void random_dna(char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) s[i] = "ACGT"[next() & 3];
    s[n] = 0;
}

static void revcomp(char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n / 2; i++) {
        char t = s[i];
        s[i] = s[n - 1 - i];
        s[n - 1 - i] = t;
    }
    for (size_t i = 0; i < n; i++) {
        char *p = strchr("ACGTN", s[i]);
        s[i] = p ? "TGCAN"[p - "ACGTN"] : s[i];
    }
}

/* A read: random flank, a mutated copy of target[t][a, b), random flank. */
static void make_read(char *r, size_t cap, const char *tg)
{
    size_t tl = strlen(tg), len = 0;
    size_t piece = tl < 120 ? tl : 40 + next() % 80;
    size_t a = tl == piece ? 0 : next() % (tl - piece);
    size_t left = next() % 40, right = next() % 40;
    for (size_t i = 0; i < left; i++) r[len++] = "ACGT"[next() & 3];
    int edits = (int)(next() % (piece / 8 + 2));
    for (size_t i = a; i < a + piece && len + 2 < cap; i++) {
        uint32_t e = edits > 0 && next() % (uint32_t)(piece / 2 + 1) == 0 ? next() % 3 + 1 : 0;
        if (e) edits--;
        if (e == 1) r[len++] = "ACGT"[next() & 3];                        /* substitution */
        else if (e == 2) { r[len++] = "ACGT"[next() & 3]; r[len++] = tg[i]; } /* insertion */
        else if (e == 3) continue;                                       /* deletion */
        else r[len++] = tg[i];
    }
    for (size_t i = 0; i < right && len + 1 < cap; i++) r[len++] = "ACGT"[next() & 3];
    r[len] = 0;
    if (next() % 2) revcomp(r);
    if (next() % 50 == 0 && len > 10) r[next() % len] = 'N';
}

static int same_hits(const gpuasm_result *a, const gpuasm_result *b, char *why, size_t wl)
{
    if (a->n_hits != b->n_hits) {
        snprintf(why, wl, "%zu hits vs %zu", a->n_hits, b->n_hits);
        return 0;
    }
    for (size_t i = 0; i < a->n_hits; i++) {
        const gpuasm_hit *x = &a->hits[i], *y = &b->hits[i];
        if (x->read != y->read || x->target != y->target || x->reverse != y->reverse ||
            x->distance != y->distance || x->target_start != y->target_start ||
            x->target_end != y->target_end || x->read_start != y->read_start ||
            x->read_end != y->read_end || strcmp(x->cigar, y->cigar)) {
            snprintf(why, wl, "hit %zu: read %u target %u %c d %d %s vs read %u target %u %c d %d %s", i,
                     x->read, x->target, x->reverse ? '-' : '+', x->distance, x->cigar, y->read,
                     y->target, y->reverse ? '-' : '+', y->distance, y->cigar);
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_library_devices DEVICE [READS]\n");
        return 2;
    }
    const char *device = argv[1];
    size_t n_reads = argc > 2 ? strtoul(argv[2], NULL, 10) : 4000;
    static char tbuf[4][6001];
    random_dna(tbuf[0], 34);
    random_dna(tbuf[1], 25);
    random_dna(tbuf[2], 2000);
    random_dna(tbuf[3], 6000);
    const char *targets[4] = { tbuf[0], tbuf[1], tbuf[2], tbuf[3] };
    char **rs = malloc(n_reads * sizeof *rs);
    if (!rs) return 2;
    for (size_t i = 0; i < n_reads; i++) {
        rs[i] = malloc(400);
        if (!rs[i]) return 2;
        if (next() % 5 == 0) random_dna(rs[i], 60 + next() % 190);
        else make_read(rs[i], 400, targets[next() % 4]);
    }

    gpuasm_config probe = gpuasm_config_default();
    probe.device = device;
    gpuasm_result pr = gpuasm_align_batch((const char *const *)rs, 1, targets, 4, probe);
    int no_device = pr.status == GPUASM_STATUS_NO_DEVICE;
    gpuasm_result_free(&pr);
    if (no_device) {
        /* No GPU here: the call must say so, not fall back silently. */
        printf("1..1\n");
        gpuasm_result r = gpuasm_align_batch((const char *const *)rs, n_reads, targets, 4, probe);
        int ok = r.status == GPUASM_STATUS_NO_DEVICE && r.n_hits == 0 && r.error[0];
        printf("%s 1 - device %s absent: GPUASM_STATUS_NO_DEVICE (%s)\n", ok ? "ok" : "not ok", device,
               r.error);
        gpuasm_result_free(&r);
        for (size_t i = 0; i < n_reads; i++) free(rs[i]);
        free(rs);
        return ok ? 0 : 1;
    }

    struct { gpuasm_distance_mode mode; int all; int k; const char *name; } runs[] = {
        { GPUASM_EDIT, 0, -1, "edit, best, k = 10%" },
        { GPUASM_EDIT, 1, -1, "edit, all, k = 10%" },
        { GPUASM_EDIT, 0, 4, "edit, best, k = 4" },
        { GPUASM_HAMMING, 0, -1, "hamming, best, k = 10%" },
        { GPUASM_HAMMING, 1, 3, "hamming, all, k = 3" },
    };
    const int n_runs = (int)(sizeof runs / sizeof runs[0]);
    printf("1..%d\n", n_runs);
    int fails = 0;
    for (int i = 0; i < n_runs; i++) {
        gpuasm_config c = gpuasm_config_default();
        c.mode = runs[i].mode;
        c.all = runs[i].all;
        c.k = runs[i].k;
        c.threads = 4;
        c.device = "cpu";
        gpuasm_result a = gpuasm_align_batch((const char *const *)rs, n_reads, targets, 4, c);
        c.device = device;
        gpuasm_result b = gpuasm_align_batch((const char *const *)rs, n_reads, targets, 4, c);
        char why[512] = "";
        int ok = a.status == GPUASM_STATUS_OK && b.status == GPUASM_STATUS_OK && a.n_hits > n_reads / 8;   /* the batch has hits to compare */
        if (!ok)
            snprintf(why, sizeof why, "status %d/%d (%s%s), %zu hits", a.status, b.status, a.error, b.error,
                     a.n_hits);
        else
            ok = same_hits(&a, &b, why, sizeof why);
        printf("%s %d - %s: cpu and %s give the same %zu hits%s%s\n", ok ? "ok" : "not ok", i + 1,
               runs[i].name, device, a.n_hits, ok ? "" : ": ", why);
        fails += !ok;
        gpuasm_result_free(&a);
        gpuasm_result_free(&b);
    }
    for (size_t i = 0; i < n_reads; i++) free(rs[i]);
    free(rs);
    return fails ? 1 : 0;
}
