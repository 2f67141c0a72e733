/* SPDX-License-Identifier: MIT */
/* test_filter_plan.c -- the planned windows of --filter (walk/filter_plan.h)
 * built chunk by chunk, as the CUDA backend builds them (engine/
 * plan_upload.cuh: read_base, windows in the caller's host memory), against
 * one build over the whole batch: for random primers (the pieces filter)
 * and reads as the pattern of genome-sized targets (the index), the chunks'
 * windows, laid end to end, must be the whole build's, byte for byte, on 1
 * to 3 planning threads; every buffer the allocator gave is given back.
 * That the windows themselves are right (their hits are the CPU walk's) is
 * tests/c/test_verify_cuda's, on a CUDA build. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/defaults.h"
#include "walk/cpu_scan.h"
#include "walk/filter_plan.h"
#include "search/search.h"
#include "tap.h"
#include "seqs.h"

static const uint8_t acgt[4] = { 1, 2, 4, 8 };

/* A set of sequences (nt16 codes) grown one at a time. */
/* The test's allocator: malloc, counted. */
static long live, given, multi;   /* multi: chunks planned in more than one part */
static void *count_alloc(size_t bytes)
{
    given++;
    live++;
    return xmalloc(bytes);
}
static void count_free(void *p)
{
    if (!p) return;
    live--;
    free(p);
}

/* reads [0, n) planned whole (threads t) and in chunks of random sizes
 * (read_base, the counted allocator, threads 1 + chunk % 3; with parts,
 * each thread's windows left in its part): the same windows in the same
 * order.  Returns 1 when equal; *windows counts. */
static int chunks_equal_whole(const gpuasm_seqset *reads, const gpuasm_seqset *tg, const gpuasm_search_opt *opt,
                              int parts, const char *what, size_t *windows)
{
    gpuasm_err err;
    memset(&err, 0, sizeof err);
    gpuasm_cpu_prep *prep = seqs_prep(tg, opt);
    gpuasm_plan whole, part;
    memset(&whole, 0, sizeof whole);
    memset(&part, 0, sizeof part);
    part.host_alloc = count_alloc;
    part.host_free = count_free;
    part.parts = parts;
    if (gpuasm_plan_build(&whole, prep, reads, tg, opt, 1 + (int)below(3), &err) < 0) abort();
    size_t at[4] = { 0, 0, 0, 0 };
    int ok = 1, chunk = 0;
    for (uint32_t first = 0; first < reads->n && ok; chunk++) {
        /* small chunks, and chunks of over 64 reads, which plan on two or
         * three threads (gpuasm_plan_build gives a thread 64 reads at least) */
        uint32_t n = chance(0.5) ? 1 + (uint32_t)below(40) : 130 + (uint32_t)below(70);
        if (n > reads->n - first) n = reads->n - first;
        const gpuasm_seqset sub = { n, reads->off + first, reads->code };
        part.read_base = first;
        if (gpuasm_plan_build(&part, prep, &sub, tg, opt, 1 + chunk % 3, &err) < 0) abort();
        if (parts && part.n_parts > 1) multi++;
        for (int c = 0; c < 4 && ok; c++) {
            /* the chunk's windows: its parts end to end (win[] alone without parts) */
            size_t got = 0;
            for (int i = 0; i < part.n_parts && ok; i++) {
                size_t n_i = 0;
                const gpuasm_vwin *w = gpuasm_plan_part(&part, i, c, &n_i);
                if (at[c] + got + n_i > whole.n[c] ||
                    (n_i && memcmp(whole.win[c] + at[c] + got, w, n_i * sizeof(gpuasm_vwin)))) {
                    diag("%s: chunk %d (reads %u..%u), class %d, part %d: windows differ from the whole build's",
                         what, chunk, first, first + n - 1, c, i);
                    ok = 0;
                }
                got += n_i;
            }
            if (ok && got != part.n[c]) {
                diag("%s: chunk %d, class %d: parts hold %zu windows, n says %zu", what, chunk, c, got, part.n[c]);
                ok = 0;
            }
            at[c] += part.n[c];
        }
        first += n;
    }
    for (int c = 0; c < 4 && ok; c++) {
        if (at[c] != whole.n[c]) {
            diag("%s: class %d: %zu windows in chunks, %zu whole", what, c, at[c], whole.n[c]);
            ok = 0;
        }
        *windows += whole.n[c];
    }
    gpuasm_plan_free(&part);
    gpuasm_plan_free(&whole);
    gpuasm_cpu_prep_free(prep);
    return ok;
}

static void random_seq(uint8_t *s, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) s[i] = acgt[rnd() & 3];
}

/* The runs' defaults (engine/defaults.h): myers on nt16, both strands,
 * -e 0.1, --filter auto. */
static gpuasm_search_opt base_opt(void)
{
    gpuasm_defaults d;
    gpuasm_defaults_init(&d);
    return d.search;
}

/* chunks_equal_whole on case c of a kind (in parts unless c % 3 == 0); the sets are freed. */
static int one_case(seqs *reads, seqs *tg, const gpuasm_search_opt *o, const char *kind, int c, size_t *windows)
{
    const gpuasm_seqset rv = seqs_view(reads), tv = seqs_view(tg);
    char what[64];
    snprintf(what, sizeof what, "%s case %d", kind, c);
    const int ok = chunks_equal_whole(&rv, &tv, o, c % 3 != 0, what, windows);
    seqs_free(tg);
    seqs_free(reads);
    return ok;
}

int main(void)
{
    rng_seed_from_env();
    uint8_t buf[8192];
    /* (a) primers: the targets are the patterns (the pieces filter) */
    int ok = 1;
    size_t windows = 0;
    for (int c = 0; c < 12; c++) {
        seqs tg = { 0 }, reads = { 0 };
        uint8_t pr[300][32];
        uint32_t plen[300];
        for (int i = 0; i < 300; i++) {
            plen[i] = 18 + (uint32_t)below(12);
            random_seq(pr[i], plen[i]);
            seqs_add(&tg, pr[i], plen[i]);
        }
        for (int r = 0; r < 600; r++) {
            const uint64_t n = 80 + below(80);
            random_seq(buf, n);
            for (uint64_t x = below(3); x > 0; x--) {   /* planted primers, a base changed */
                const int i = (int)below(300);
                const uint64_t a = below(n - plen[i]);
                memcpy(buf + a, pr[i], plen[i]);
                buf[a + below(plen[i])] = acgt[rnd() & 3];
            }
            seqs_add(&reads, buf, n);
        }
        gpuasm_search_opt o = base_opt();
        o.max_diffs = (int32_t)below(3);
        if (c % 4 == 3) o.strand = GPUASM_STRAND_FORWARD;
        ok &= one_case(&reads, &tg, &o, "primers", c, &windows);
    }
    tap(ok && windows > 0 && given > 0 && live == 0 && multi > 0,
        "primers (pieces filter): chunks with read_base, gathered and in parts, = one build (%zu windows; %ld buffers from the "
        "caller's allocator, %ld not given back; %ld chunks in several parts)", windows, given, live, multi);
    /* (b) reads as the pattern of genome-sized targets (the index) */
    ok = 1;
    windows = 0;
    given = live = multi = 0;
    for (int c = 0; c < 8; c++) {
        seqs tg = { 0 }, reads = { 0 };
        static uint8_t g[4][8192];
        uint64_t glen[4];
        for (int t = 0; t < 4; t++) {
            glen[t] = 2000 + below(6000);
            random_seq(g[t], glen[t]);
            seqs_add(&tg, g[t], glen[t]);
        }
        for (int r = 0; r < 500; r++) {
            const int t = (int)below(4);
            const uint64_t n = 60 + below(140);
            if (chance(0.8)) {
                memcpy(buf, g[t] + below(glen[t] - n), n);
                for (int e = 0; e < 3; e++) buf[below(n)] = acgt[rnd() & 3];
            } else {
                random_seq(buf, n);
            }
            seqs_add(&reads, buf, n);
        }
        gpuasm_search_opt o = base_opt();
        o.filter = c % 2 ? GPUASM_FILTER_INDEX : GPUASM_FILTER_AUTO;
        ok &= one_case(&reads, &tg, &o, "genomes", c, &windows);
    }
    tap(ok && windows > 0 && given > 0 && live == 0 && multi > 0,
        "reads vs genomes (index): chunks with read_base, gathered and in parts, = one build (%zu windows; %ld buffers from the "
        "caller's allocator, %ld not given back; %ld chunks in several parts)", windows, given, live, multi);
    return tap_done();
}
