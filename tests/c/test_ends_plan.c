/* SPDX-License-Identifier: MIT */
/* test_ends_plan.c -- the ends plan (walk/ends_plan.h), the list of ends-pass
 * items the CUDA backend runs, against the dense pass it replaces: for
 * random targets and reads (planted target prefixes and suffixes at the
 * read's ends, on both strands, mutated), every item of reads x targets x
 * strands x ends for which gpuasm_partial_best() (the per-item code of
 * kernels/ends/partial_cuda.cu) finds a partial occurrence must be listed,
 * no item twice, on 1 and on 3 listing threads alike.  The same for reads
 * as the pattern against genome-sized targets (gpuasm_ends_plan_build_reads:
 * the ends index's two-piece marks, issue #28): reads planted over a
 * target's ends with up to k_p edits of every kind, so that often only
 * two of their pieces stay intact.  The GPU half (the
 * kernel runs the listed items with that code) is tests/gpu/run's CUDA =
 * CPU SAM comparison. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "walk/cpu_scan.h"
#include "walk/ends_plan.h"
#include "walk/prefilter.h"
#include "search/nt16.h"
#include "kernels/partial.h"
#include "kernels/registry.h"
#include "search/search.h"
#include "tap.h"

static const uint8_t acgt[4] = { 1, 2, 4, 8 };

static uint8_t base_of(double iupac)
{
    return chance(iupac) ? (uint8_t)(1 + below(15)) : acgt[rnd() & 3];
}

/* out <- in (len bases) with up to `edits` random substitutions,
 * insertions and deletions; returns the new length. */
static uint32_t mutate(uint8_t *out, const uint8_t *in, uint32_t len, uint32_t edits)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < len; i++) {
        if (edits && chance((double)edits / (len + 1))) {
            edits--;
            const int kind = (int)below(3);
            if (kind == 0) out[n++] = acgt[rnd() & 3];
            else if (kind == 1) { out[n++] = acgt[rnd() & 3]; out[n++] = in[i] ? in[i] : 1; }
            continue;
        }
        out[n++] = in[i] ? in[i] : 1;
    }
    return n;
}

typedef struct {
    const char *name;
    int32_t max_diffs;
    double error_rate;
    int32_t overlap, floor;
    int hamming, forward, side_target, ends;
} optset;

/* Reads as the pattern: NT genomes of 300..3,000 bases (IUPAC codes and
 * N near some ends, one in five bases there), NR reads of 40..256 bases,
 * most planted over a genome's end (a mutated stretch of its last or
 * first bases at the read's start or end, either strand; half of them
 * with a single base for each IUPAC code they copy, so that the read is
 * no wildcard read and only the marks of ambiguous ends list them).  Every (read, genome, strand, end) item
 * with a partial occurrence (gpuasm_partial_best, the kernel's per-item
 * code) must be listed, once. */
static void reads_as_pattern(const optset *os)
{
    const uint32_t NT = 60, NR = 300;
    gpuasm_search_opt opt;
    memset(&opt, 0, sizeof opt);
    opt.max_diffs = os->max_diffs;
    opt.error_rate = os->error_rate;
    opt.kernel = os->hamming ? GPUASM_KERNEL_HAMMING : GPUASM_KERNEL_MYERS;
    opt.overlap_min = 3;
    opt.read_overlap_min = os->overlap ? os->overlap : -1;   /* 0: the default, half the read */
    opt.partial_floor = opt.read_partial_floor = os->floor;
    opt.partial_ends = os->ends;
    opt.strand = os->forward ? GPUASM_STRAND_FORWARD : GPUASM_STRAND_BOTH;
    opt.pattern_side = GPUASM_PATTERN_SHORTER;
    opt.filter = GPUASM_FILTER_ON;
    uint64_t *toff = xmalloc((NT + 1) * sizeof *toff);
    uint8_t *tcode = xmalloc((size_t)NT * 3000);
    toff[0] = 0;
    for (uint32_t t = 0; t < NT; t++) {
        const uint32_t m = 300 + (uint32_t)below(2701);
        for (uint32_t i = 0; i < m; i++)
            tcode[toff[t] + i] = base_of(t % 7 == 0 && (i < 40 || i + 40 > m) ? 0.2 : 0);
        toff[t + 1] = toff[t] + m;
    }
    const gpuasm_seqset targets = { NT, toff, tcode };
    uint64_t *roff = xmalloc((NR + 1) * sizeof *roff);
    uint8_t *rcode = xmalloc((size_t)NR * 300), tmp[600];
    roff[0] = 0;
    for (uint32_t r = 0; r < NR; r++) {
        const uint32_t n = 40 + (uint32_t)below(217);
        uint8_t *s = rcode + roff[r];
        for (uint32_t i = 0; i < n; i++) s[i] = chance(0.0005) ? 0 : acgt[rnd() & 3];
        if (chance(0.85)) {
            /* p bases of the read over a genome end, with up to ~k_p edits */
            const uint32_t t = (uint32_t)below(NT), m = (uint32_t)(toff[t + 1] - toff[t]);
            const uint32_t p = n / 3 + (uint32_t)below(n - n / 3);
            const int at_end = chance(0.5);   /* the read's start over the genome's last bases */
            const uint32_t kp = (uint32_t)(os->max_diffs >= 0 ? os->max_diffs : os->error_rate * p);
            const uint8_t *src = tcode + toff[t] + (at_end ? m - p : 0);
            uint32_t len = mutate(tmp, src, p, chance(0.5) ? kp : (uint32_t)below(kp + 1));
            if (len > n) len = n;
            if (chance(0.5))   /* each code as one of its bases (the lowest) */
                for (uint32_t i = 0; i < len; i++) tmp[i] = (uint8_t)(tmp[i] & -tmp[i]);
            if (chance(0.5)) {   /* the other strand: the reverse complement at the other end */
                uint8_t rc[600];
                for (uint32_t i = 0; i < len; i++) rc[i] = gpuasm_nt16_comp(tmp[len - 1 - i]);
                memcpy(at_end ? s + n - len : s, rc, len);
            } else {
                memcpy(at_end ? s : s + n - len, tmp, len);
            }
        }
        roff[r + 1] = roff[r] + n;
    }
    const gpuasm_seqset reads = { NR, roff, rcode };
    gpuasm_cpu_cfg cfg;
    gpuasm_cpu_cfg_default(&cfg);
    gpuasm_cpu_prep *prep = NULL;
    gpuasm_err err;
    memset(&err, 0, sizeof err);
    if (gpuasm_cpu_prep_build(&targets, &opt, &cfg, &prep, &err) < 0) {
        tap(0, "reads as the pattern, %s: prep build", os->name);
        return;
    }
    tap(gpuasm_ends_plan_reads_applies(&reads, &targets, &opt, prep), "reads as the pattern, %s: the plan applies",
        os->name);
    const uint32_t strands = (uint32_t)gpuasm_strands(&opt);
    const uint64_t nitems = (uint64_t)NR * NT * strands * 2;
    uint8_t *listed = xmalloc(nitems);
    uint64_t *ws = xmalloc(gpuasm_partial_ws_words(256) * sizeof(uint64_t));
    for (int threads = 1; threads <= 3; threads += 2) {
        gpuasm_ends_plan plan;
        memset(&plan, 0, sizeof plan);
        int rc = gpuasm_ends_plan_build_reads(&plan, prep, &reads, &targets, &opt, threads, &err);
        if (rc == 0) rc = gpuasm_ends_plan_build_reads(&plan, prep, &reads, &targets, &opt, threads, &err);
        if (rc < 0) {
            tap(0, "reads as the pattern, %s: plan build (%d)", os->name, rc);
            break;
        }
        memset(listed, 0, nitems);
        uint64_t twice = 0, outside = 0, hits = 0, lost = 0, live = 0;
        for (size_t i = 0; i < plan.n; i++) {
            if (plan.item[i] >= nitems) outside++;
            else if (listed[plan.item[i]]++) twice++;
        }
        for (uint32_t r = 0; r < NR; r++) {
            const uint64_t n = roff[r + 1] - roff[r];
            const uint32_t omin = gpuasm_pair_overlap_min(&opt, 1, n);
            for (uint32_t t = 0; t < NT && omin; t++) {
                const uint64_t m = toff[t + 1] - toff[t];
                const gpuasm_pair pr = gpuasm_pair_of(&opt, n, m);
                if (!pr.searched || !pr.read_is_pattern) continue;
                const gpuasm_seqview tv = { tcode + toff[t], (uint32_t)m, 0 };
                for (uint32_t s = 0; s < strands; s++) {
                    const uint32_t ends = gpuasm_partial_text_ends(&opt, 1, s);
                    const gpuasm_seqview pv = { rcode + roff[r], (uint32_t)n, (int)s };
                    for (uint32_t e = 0; e < 2; e++) {
                        if (!(ends >> e & 1u)) continue;
                        live++;
                        const gpuasm_partial b = gpuasm_partial_best(&opt, omin, gpuasm_pair_partial_floor(&opt, 1),
                                                                     &pv, &tv, (int)e, os->hamming, ws);
                        if (!b.plen) continue;
                        hits++;
                        const uint64_t item = ((((uint64_t)r * NT + t) * strands) + s) * 2u + e;
                        if (!listed[item]) {
                            lost++;
                            diag("reads as the pattern, %s: read %u target %u strand %u end %u: (%u, %d) not listed",
                                 os->name, r, t, s, e, b.plen, b.dist);
                        }
                    }
                }
            }
        }
        tap(lost == 0 && twice == 0 && outside == 0 && hits > 0,
            "reads as the pattern, %s, %d thread%s: every item with a partial occurrence listed, none twice (%llu "
            "hits; %zu of %llu live items listed)", os->name, threads, threads > 1 ? "s" : "",
            (unsigned long long)hits, plan.n, (unsigned long long)live);
        /* the marks must cut where their rule applies to most reads (pieces
         * of >= Q bases: not at e = 0.15, where the walk runs every end too;
         * the genomes with IUPAC codes at their ends, a seventh, run always) */
        uint32_t ruled = 0;
        for (uint32_t r = 0; r < NR; r++) ruled += gpuasm_read_ends_of(&opt, roff[r + 1] - roff[r], os->hamming).L > 0;
        tap(ruled < NR / 2 || plan.n < live / 2,
            "reads as the pattern, %s, %d thread%s: the marks cut the dense pass (%zu of %llu; the rule applies to %u of "
            "%u reads)", os->name, threads, threads > 1 ? "s" : "", plan.n, (unsigned long long)live, ruled, NR);
        gpuasm_ends_plan_free(&plan);
    }
    free(listed);
    free(ws);
    gpuasm_cpu_prep_free(prep);
    free(roff);
    free(rcode);
    free(toff);
    free(tcode);
}

/* The two-piece rule at its limit: reads whose start lies over a genome's
 * last p bases (or, mirrored, whose end lies over its first bases) with
 * exactly two pieces of L2 bases intact, the first and the last inside
 * the overlap, an insertion between them (so they lie on diagonals one
 * apart) and one substitution in every other piece: P - 2 <= k_p edits
 * for the p chosen.  Every such end must be marked (listed). */
static void two_pieces_limit(void)
{
    const uint32_t NT = 8, NR = 200, n = 150;
    gpuasm_search_opt opt;
    memset(&opt, 0, sizeof opt);
    opt.max_diffs = -1;
    opt.error_rate = 0.1;
    opt.kernel = GPUASM_KERNEL_MYERS;
    opt.overlap_min = 3;
    opt.read_overlap_min = -1;
    opt.partial_ends = GPUASM_END_3 | GPUASM_END_5;
    opt.strand = GPUASM_STRAND_FORWARD;
    opt.pattern_side = GPUASM_PATTERN_SHORTER;
    opt.filter = GPUASM_FILTER_ON;
    const gpuasm_read_ends re = gpuasm_read_ends_of(&opt, n, 0);
    const uint32_t omin = gpuasm_pair_overlap_min(&opt, 1, n);
    /* the overlaps p where P - 2 <= k_p with P = floor(p / L2) >= 3 */
    uint32_t ps[256], nps = 0;
    for (uint32_t p = omin; p < n && re.L2; p++) {
        const int32_t kp = gpuasm_partial_kf(&opt, opt.read_partial_floor, p, n);
        const uint32_t P = p / re.L2;
        if (P >= 3 && kp >= 0 && (int32_t)P - 2 <= kp) ps[nps++] = p;
    }
    uint64_t *toff = xmalloc((NT + 1) * sizeof *toff);
    uint8_t *tcode = xmalloc((size_t)NT * 2000);
    toff[0] = 0;
    for (uint32_t t = 0; t < NT; t++) {
        for (uint32_t i = 0; i < 2000; i++) tcode[toff[t] + i] = acgt[rnd() & 3];
        toff[t + 1] = toff[t] + 2000;
    }
    const gpuasm_seqset targets = { NT, toff, tcode };
    uint64_t *roff = xmalloc((NR + 1) * sizeof *roff);
    uint8_t *rcode = xmalloc((size_t)NR * n);
    uint32_t *want_t = xmalloc(NR * sizeof *want_t), *want_e = xmalloc(NR * sizeof *want_e);
    roff[0] = 0;
    for (uint32_t r = 0; r < NR && nps; r++) {
        uint8_t *s = rcode + (uint64_t)r * n, f[160];
        for (uint32_t i = 0; i < n; i++) s[i] = acgt[rnd() & 3];
        const uint32_t t = (uint32_t)below(NT), p = ps[below(nps)], P = p / re.L2;
        const int mirror = (int)(r & 1);   /* the read's end over the genome's first bases */
        /* f: the p read bases against the genome's p - 1 bases g, built
         * forward (for the mirror: g and f reversed) */
        uint8_t g[160];
        for (uint32_t i = 0; i < p - 1; i++)
            g[i] = mirror ? tcode[toff[t] + (p - 2 - i)] : tcode[toff[t] + 2000 - (p - 1) + i];
        uint32_t gi = 0;
        for (uint32_t i = 0; i < p; i++) {
            const uint32_t piece = i / re.L2, mid = piece * re.L2 + re.L2 / 2;
            if (piece == 1 && i == mid) {   /* the insertion */
                f[i] = acgt[rnd() & 3];
                continue;
            }
            const uint8_t b = gi < p - 1 ? g[gi++] : acgt[rnd() & 3];
            f[i] = piece >= 2 && piece + 1 < P && i == mid ? gpuasm_nt16_comp(b) : b;   /* a substitution */
        }
        if (mirror) {
            for (uint32_t i = 0; i < p; i++) s[n - 1 - i] = f[i];
        } else {
            memcpy(s, f, p);
        }
        want_t[r] = t;
        want_e[r] = mirror ? 1u : 0u;   /* item end: 0 the text's end, 1 its start (partial.h) */
        roff[r + 1] = roff[r] + n;
    }
    const gpuasm_seqset reads = { nps ? NR : 0, roff, rcode };
    gpuasm_cpu_cfg cfg;
    gpuasm_cpu_cfg_default(&cfg);
    gpuasm_cpu_prep *prep = NULL;
    gpuasm_err err;
    memset(&err, 0, sizeof err);
    gpuasm_ends_plan plan;
    memset(&plan, 0, sizeof plan);
    uint64_t *ws = xmalloc(gpuasm_partial_ws_words(256) * sizeof(uint64_t));
    uint32_t planted = 0, lost = 0;
    if (nps && gpuasm_cpu_prep_build(&targets, &opt, &cfg, &prep, &err) == 0 &&
        gpuasm_ends_plan_build_reads(&plan, prep, &reads, &targets, &opt, 2, &err) == 0) {
        uint8_t *listed = xmalloc((size_t)NR * NT * 2);
        memset(listed, 0, (size_t)NR * NT * 2);
        for (size_t i = 0; i < plan.n; i++) listed[plan.item[i]] = 1;   /* one strand: item = (r NT + t) 2 + e */
        for (uint32_t r = 0; r < NR; r++) {
            const gpuasm_seqview pv = { rcode + roff[r], n, 0 };
            const gpuasm_seqview tv = { tcode + toff[want_t[r]], 2000, 0 };
            const gpuasm_partial b = gpuasm_partial_best(&opt, omin, gpuasm_pair_partial_floor(&opt, 1), &pv, &tv,
                                                         (int)want_e[r], 0, ws);
            if (!b.plen) continue;   /* another p scored better: still a hit, or none */
            planted++;
            if (!listed[((uint64_t)r * NT + want_t[r]) * 2u + want_e[r]]) {
                lost++;
                diag("two pieces: read %u over target %u end %u (%u, %d) not listed", r, want_t[r], want_e[r], b.plen,
                     b.dist);
            }
        }
        free(listed);
    }
    tap(nps && planted > NR / 2 && lost == 0,
        "reads as the pattern, two intact pieces across an insertion (L2 %u, %u overlaps): %u of %u planted ends "
        "with an occurrence, every one listed", re.L2, nps, planted, NR);
    gpuasm_ends_plan_free(&plan);
    gpuasm_cpu_prep_free(prep);
    free(ws);
    free(want_t);
    free(want_e);
    free(roff);
    free(rcode);
    free(toff);
    free(tcode);
}

int main(void)
{
    rng_seed_from_env();
    const optset sets[] = {
        { "defaults-like e=0.1 floor 9", -1, 0.1, 1, 9, 0, 0, 0, GPUASM_END_3 | GPUASM_END_5 },
        { "k=2 O=3", 2, 0, 3, 0, 0, 0, 0, GPUASM_END_3 | GPUASM_END_5 },
        { "k=1 O=5 3' only", 1, 0, 5, 0, 0, 0, 0, GPUASM_END_3 },
        { "e=0.2 O=1 floor 6, forward", -1, 0.2, 1, 6, 0, 1, 0, GPUASM_END_3 | GPUASM_END_5 },
        { "k=2 O=3 --pattern target, short reads", 2, 0, 3, 0, 0, 0, 1, GPUASM_END_3 | GPUASM_END_5 },
        { "hamming e=0.1 O=3", -1, 0.1, 3, 0, 1, 0, 0, GPUASM_END_3 | GPUASM_END_5 },
        { "hamming k=1 O=1 floor 8 5' only", 1, 0, 1, 8, 1, 0, 0, GPUASM_END_5 },
    };
    const uint32_t NT = 200, NR = 120, MAXM = 48;
    for (size_t si = 0; si < sizeof sets / sizeof *sets; si++) {
        const optset *os = &sets[si];
        gpuasm_search_opt opt;
        memset(&opt, 0, sizeof opt);
        opt.max_diffs = os->max_diffs;
        opt.error_rate = os->error_rate;
        opt.kernel = os->hamming ? GPUASM_KERNEL_HAMMING : GPUASM_KERNEL_MYERS;
        opt.overlap_min = os->overlap;
        opt.partial_floor = os->floor;
        opt.partial_ends = os->ends;
        opt.strand = os->forward ? GPUASM_STRAND_FORWARD : GPUASM_STRAND_BOTH;
        opt.pattern_side = os->side_target ? GPUASM_PATTERN_TARGET : GPUASM_PATTERN_SHORTER;
        /* targets: 4..48 bases, a fifth with an IUPAC code or N now and then */
        uint64_t *toff = xmalloc((NT + 1) * sizeof *toff);
        uint8_t *tcode = xmalloc((size_t)NT * MAXM);
        toff[0] = 0;
        for (uint32_t t = 0; t < NT; t++) {
            const uint32_t m = 4 + (uint32_t)below(MAXM - 3);
            for (uint32_t i = 0; i < m; i++) tcode[toff[t] + i] = base_of(t % 5 == 0 ? 0.03 : 0);
            toff[t + 1] = toff[t] + m;
        }
        const gpuasm_seqset targets = { NT, toff, tcode };
        /* reads: longer than every target (the target is the pattern), or
         * any length with --pattern target; now and then an N or an IUPAC
         * code, a target prefix at the end, a suffix at the start, or the
         * reverse complement of either */
        uint64_t *roff = xmalloc((NR + 1) * sizeof *roff);
        uint8_t *rcode = xmalloc((size_t)NR * 200), tmp[200];
        roff[0] = 0;
        for (uint32_t r = 0; r < NR; r++) {
            const uint32_t n = os->side_target ? (uint32_t)below(80) : MAXM + 1 + (uint32_t)below(100);
            uint8_t *s = rcode + roff[r];
            for (uint32_t i = 0; i < n; i++) s[i] = chance(0.01) ? (chance(0.9) ? 0 : base_of(1)) : acgt[rnd() & 3];
            for (int side = 0; side < 2 && n >= 8; side++) {
                if (!chance(0.7)) continue;
                const uint32_t t = (uint32_t)below(NT), m = (uint32_t)(toff[t + 1] - toff[t]);
                const uint32_t p = 1 + (uint32_t)below(m);
                const uint8_t *src = tcode + toff[t] + (side ? m - p : 0);
                uint32_t len = mutate(tmp, src, p, (uint32_t)below(3));
                if (len > n) len = n;
                if (chance(0.5)) {   /* the reverse complement, at the other end */
                    uint8_t rc[200];
                    for (uint32_t i = 0; i < len; i++) rc[i] = gpuasm_nt16_comp(tmp[len - 1 - i]);
                    memcpy(side ? s + n - len : s, rc, len);
                } else {
                    memcpy(side ? s : s + n - len, tmp, len);
                }
            }
            roff[r + 1] = roff[r] + n;
        }
        const gpuasm_seqset reads = { NR, roff, rcode };
        tap(gpuasm_ends_plan_applies(&reads, &targets, &opt), "%s: the plan applies", os->name);
        gpuasm_efilter f;
        if (gpuasm_efilter_build(&f, &targets, &opt) < 0) {
            tap(0, "%s: filter build", os->name);
            return tap_done();
        }
        const uint32_t strands = (uint32_t)gpuasm_strands(&opt);
        const uint64_t nitems = (uint64_t)NR * NT * strands * 2;
        uint8_t *listed = xmalloc(nitems);
        uint64_t *ws = xmalloc(gpuasm_partial_ws_words(MAXM) * sizeof(uint64_t));
        for (int threads = 1; threads <= 3; threads += 2) {
            gpuasm_ends_plan plan;
            memset(&plan, 0, sizeof plan);
            gpuasm_err err;
            memset(&err, 0, sizeof err);
            /* built twice: the second build reuses the first's buffers */
            int rc = gpuasm_ends_plan_build(&plan, &f, &reads, &targets, &opt, threads, &err);
            if (rc == 0) rc = gpuasm_ends_plan_build(&plan, &f, &reads, &targets, &opt, threads, &err);
            if (rc < 0) {
                tap(0, "%s: plan build (%d)", os->name, rc);
                return tap_done();
            }
            memset(listed, 0, nitems);
            uint64_t twice = 0, outside = 0, hits = 0, lost = 0, live = 0;
            for (size_t i = 0; i < plan.n; i++) {
                if (plan.item[i] >= nitems) outside++;
                else if (listed[plan.item[i]]++) twice++;
            }
            for (uint32_t r = 0; r < NR; r++) {
                const uint64_t n = roff[r + 1] - roff[r];
                for (uint32_t t = 0; t < NT; t++) {
                    const uint64_t m = toff[t + 1] - toff[t];
                    const gpuasm_pair pr = gpuasm_pair_of(&opt, n, m);
                    if (!pr.searched || pr.read_is_pattern) continue;
                    const uint32_t omin = gpuasm_pair_overlap_min(&opt, 0, m);
                    if (!omin) continue;
                    const gpuasm_seqview pv = { tcode + toff[t], (uint32_t)m, 0 };
                    for (uint32_t s = 0; s < strands; s++) {
                        const uint32_t ends = gpuasm_partial_text_ends(&opt, 0, s);
                        const gpuasm_seqview tv = { rcode + roff[r], (uint32_t)n, (int)s };
                        for (uint32_t e = 0; e < 2; e++) {
                            if (!(ends >> e & 1u)) continue;
                            live++;
                            const gpuasm_partial b = gpuasm_partial_best(&opt, omin, gpuasm_pair_partial_floor(&opt, 0),
                                                                         &pv, &tv, (int)e, os->hamming, ws);
                            if (!b.plen) continue;
                            hits++;
                            const uint64_t item = ((((uint64_t)r * NT + t) * strands) + s) * 2u + e;
                            if (!listed[item]) {
                                lost++;
                                diag("%s: read %u target %u strand %u end %u: (%u, %d) not listed", os->name, r, t,
                                     s, e, b.plen, b.dist);
                            }
                        }
                    }
                }
            }
            tap(lost == 0 && twice == 0 && outside == 0 && hits > 0,
                "%s, %d thread%s: every item with a partial occurrence listed, none twice (%llu hits; %zu of "
                "%llu live items listed)", os->name, threads, threads > 1 ? "s" : "", (unsigned long long)hits,
                plan.n, (unsigned long long)live);
            /* the filter must cut: a plan of every item would pass the
             * test above and save the GPU nothing */
            tap(plan.n < live, "%s, %d thread%s: fewer items than the dense pass (%zu of %llu)", os->name, threads,
                threads > 1 ? "s" : "", plan.n, (unsigned long long)plan.dense);
            gpuasm_ends_plan_free(&plan);
        }
        free(listed);
        free(ws);
        gpuasm_efilter_free(&f);
        free(roff);
        free(rcode);
        free(toff);
        free(tcode);
    }
    const optset rsets[] = {
        { "defaults-like e=0.1 floor 13", -1, 0.1, 0, 13, 0, 0, 0, GPUASM_END_3 | GPUASM_END_5 },
        { "e=0.15 floor 0", -1, 0.15, 0, 0, 0, 0, 0, GPUASM_END_3 | GPUASM_END_5 },
        { "k=4, --read-overlap 20, forward, 3' only", 4, 0, 20, 0, 0, 1, 0, GPUASM_END_3 },
        { "hamming e=0.1", -1, 0.1, 0, 0, 1, 0, 0, GPUASM_END_3 | GPUASM_END_5 },
    };
    for (size_t si = 0; si < sizeof rsets / sizeof *rsets; si++) reads_as_pattern(&rsets[si]);
    two_pieces_limit();
    return tap_done();
}
