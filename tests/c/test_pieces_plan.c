/* SPDX-License-Identifier: MIT */
/* test_pieces_plan.c -- the pieces filter's per-strand code of the CUDA
 * planner (walk/pieces_core.h: what each thread of walk/pieces_cuda.cu
 * runs), here on the CPU, against its twin, the host plan
 * (walk/filter_plan.c gpuasm_plan_build): for primers as the patterns of
 * every pair (some too short to cut, some with IUPAC codes, some never a
 * pattern), reads with planted primers, N runs, IUPAC codes and empty
 * reads, -k 0..3 and -e, both strands and forward only, --pattern target
 * with reads shorter than primers, the keys of every read strand, sorted
 * and without repeats, must be exactly the host plan's windows, each key's
 * window (gpuasm_pieces_window) the host's byte for byte, and the
 * --stats counts (gpuasm_pieces_counts) the host plan's.  The pair of
 * kernels and this code are held to each other on the GPU by tests/gpu/run
 * (the SAM of CUDA = CPU on primer screens).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/defaults.h"
#include "search/search.h"
#include "walk/cpu_scan.h"
#include "walk/ends_plan.h"
#include "walk/filter_plan.h"
#include "walk/pieces_core.h"
#include "tap.h"
#include "seqs.h"

static const uint8_t acgt[4] = { 1, 2, 4, 8 };

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* One case: the planner's keys against the host plan.  1 when equal;
 * *keys counts the distinct keys, *amb the ambiguous strands. */
static int one_case(const gpuasm_seqset *reads, const gpuasm_seqset *tg, const gpuasm_search_opt *opt,
                    const char *what, size_t *keys, size_t *amb_strands)
{
    if (!gpuasm_targets_are_patterns(reads, tg, opt)) {
        diag("%s: the case's targets are not the patterns of every pair", what);
        return 0;
    }
    gpuasm_err err;
    memset(&err, 0, sizeof err);
    gpuasm_cpu_prep *prep = seqs_prep(tg, opt);
    const gpuasm_qfilter *qf = gpuasm_cpu_prep_pieces(prep);
    if (!qf) {
        diag("%s: no pieces filter built", what);
        gpuasm_cpu_prep_free(prep);
        return 0;
    }
    gpuasm_plan plan;
    memset(&plan, 0, sizeof plan);
    if (gpuasm_plan_build(&plan, prep, reads, tg, opt, 1 + (int)below(2), &err) < 0) abort();
    /* the host's windows as keys, each window = the planner's for its key */
    size_t nh = 0;
    for (int c = 0; c < 4; c++) nh += plan.n[c];
    uint64_t *host = xmalloc((nh ? nh : 1) * sizeof *host);
    int ok = 1;
    size_t at = 0;
    for (int c = 0; c < 4; c++)
        for (size_t i = 0; i < plan.n[c]; i++) {
            const gpuasm_vwin *w = &plan.win[c][i];
            const uint64_t tlen = tg->off[w->target + 1] - tg->off[w->target];
            const uint64_t key = gpuasm_pieces_key(tlen, w->read, w->strand, w->target);
            if (gpuasm_pieces_key_class(key) != (uint32_t)c && ok) {
                diag("%s: window of read %u, target %u in class %d, key says %u", what, w->read, w->target, c,
                     gpuasm_pieces_key_class(key));
                ok = 0;
            }
            const gpuasm_vwin mine = gpuasm_pieces_window(opt, key, reads->off[w->read + 1] - reads->off[w->read], tlen);
            if (memcmp(&mine, w, sizeof mine) && ok) {
                diag("%s: read %u strand %u target %u: the key's window differs from the host's (j0 %u/%u jend %u/%u "
                     "s1 %u/%u k %d/%d)", what, w->read, w->strand, w->target, mine.j0, w->j0, mine.jend, w->jend,
                     mine.s1, w->s1, mine.k, w->k);
                ok = 0;
            }
            host[at++] = key;
        }
    qsort(host, nh, sizeof *host, cmp_u64);
    /* the planner's keys, strand by strand: counted, then written */
    uint32_t *always = xmalloc((tg->n ? tg->n : 1) * sizeof *always);
    const gpuasm_qf_view v = gpuasm_qf_view_host(qf, opt, always);
    size_t cap = 1024, n = 0;
    uint64_t *dev = xmalloc(cap * sizeof *dev);
    uint64_t amb_keys = 0, counted = 0;
    const uint32_t strands = (uint32_t)gpuasm_strands(opt);
    for (uint32_t r = 0; r < reads->n; r++)
        for (uint32_t s = 0; s < strands; s++) {
            const uint8_t *rd = reads->code + reads->off[r];
            const uint32_t rlen = (uint32_t)(reads->off[r + 1] - reads->off[r]);
            int amb = 0, amb2 = 0;
            const uint32_t c = gpuasm_pieces_strand(&v, opt, rd, rlen, r, s, NULL, &amb);
            while (n + c > cap) dev = xrealloc(dev, (cap *= 2) * sizeof *dev);
            const uint32_t c2 = gpuasm_pieces_strand(&v, opt, rd, rlen, r, s, dev + n, &amb2);
            if ((c2 != c || amb2 != amb) && ok) {
                diag("%s: read %u strand %u: %u keys counted, %u written", what, r, s, c, c2);
                ok = 0;
            }
            if (amb) {
                amb_keys += c;
                (*amb_strands)++;
            } else if (rlen) {
                counted++;
            }
            n += c;
        }
    qsort(dev, n, sizeof *dev, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || dev[i] != dev[u - 1]) dev[u++] = dev[i];
    if (ok && (u != nh || (u && memcmp(dev, host, u * sizeof *dev)))) {
        size_t i = 0;
        while (i < u && i < nh && dev[i] == host[i]) i++;
        diag("%s: %zu planner keys, %zu host windows; first difference at %zu: %016llx vs %016llx", what, u, nh, i,
             (unsigned long long)(i < u ? dev[i] : 0), (unsigned long long)(i < nh ? host[i] : 0));
        ok = 0;
    }
    uint64_t kept = 0, dropped = 0;
    gpuasm_pieces_counts(&v, u, amb_keys, counted, &kept, &dropped);
    if (ok && (kept != plan.counts.pieces_kept || dropped != plan.counts.pieces_dropped)) {
        diag("%s: counts kept %llu dropped %llu, host %llu %llu", what, (unsigned long long)kept,
             (unsigned long long)dropped, (unsigned long long)plan.counts.pieces_kept,
             (unsigned long long)plan.counts.pieces_dropped);
        ok = 0;
    }
    *keys += u;
    free(dev);
    free(always);
    free(host);
    gpuasm_plan_free(&plan);
    gpuasm_cpu_prep_free(prep);
    return ok;
}

static void random_seq(uint8_t *s, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) s[i] = acgt[rnd() & 3];
}

int main(void)
{
    rng_seed_from_env();
    static uint8_t buf[600];
    int ok = 1;
    size_t keys = 0, amb = 0;
    int cases = 0;
    for (int c = 0; c < 24; c++) {
        seqs tg = { 0 }, reads = { 0 };
        static uint8_t pr[400][48];
        uint32_t plen[400];
        const int np = 50 + (int)below(350);
        const int as_target = c % 6 == 5;   /* --pattern target, reads shorter than primers */
        for (int i = 0; i < np; i++) {
            plen[i] = chance(0.1) ? 4 + (uint32_t)below(10) : 14 + (uint32_t)below(30);
            random_seq(pr[i], plen[i]);
            if (chance(0.05)) pr[i][below(plen[i])] = 5;    /* R */
            if (chance(0.02)) pr[i][below(plen[i])] = 15;   /* N */
            seqs_add(&tg, pr[i], plen[i]);
        }
        for (int r = 0; r < 300; r++) {
            uint64_t n = as_target ? 5 + below(60) : 48 + below(200);
            if (chance(0.02)) n = 0;
            random_seq(buf, n);
            for (uint64_t x = n > 48 ? below(4) : 0; x > 0; x--) {   /* planted primers, a base changed */
                const int i = (int)below((uint64_t)np);
                const uint64_t a = below(n - plen[i]);
                memcpy(buf + a, pr[i], plen[i]);
                if (chance(0.7)) buf[a + below(plen[i])] = acgt[rnd() & 3];
            }
            if (n && chance(0.05)) {   /* an N run */
                const uint64_t a = below(n), l = 1 + below(8);
                for (uint64_t y = a; y < n && y < a + l; y++) buf[y] = 0;
            }
            if (n && chance(0.03)) buf[below(n)] = 5;   /* an IUPAC code (--match-read-wildcards) */
            seqs_add(&reads, buf, n);
        }
        gpuasm_defaults d;
        gpuasm_defaults_init(&d);
        gpuasm_search_opt o = d.search;
        if (c % 5 == 4) o.max_diffs = -1;   /* -e 0.1 */
        else o.max_diffs = (int32_t)(c % 4);
        if (c % 3 == 2) o.strand = GPUASM_STRAND_FORWARD;
        if (as_target) o.pattern_side = GPUASM_PATTERN_TARGET;
        char what[64];
        snprintf(what, sizeof what, "case %d (k %d, %s%s)", c, o.max_diffs, c % 3 == 2 ? "forward" : "both",
                 as_target ? ", --pattern target" : "");
        const gpuasm_seqset rv = { reads.n, reads.off, reads.code }, tv = { tg.n, tg.off, tg.code };
        ok &= one_case(&rv, &tv, &o, what, &keys, &amb);
        cases++;
        seqs_free(&tg);
        seqs_free(&reads);
    }
    tap(ok && keys > 0 && amb > 0,
        "pieces planner's keys = the host plan's windows, windows and --stats counts equal (%d cases, %zu windows, %zu "
        "ambiguous strands)", cases, keys, amb);
    return tap_done();
}
