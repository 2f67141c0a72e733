/* SPDX-License-Identifier: MIT */
/* test_kernels.c -- seeded random differential tests of the search kernels
 * against the naive O(m*n) DP (tests/c/naive_dp.c).  Output is TAP.
 *
 *   (a) gpuasm_myers_cpu_pair() vs the naive DP: every m in 1..300, the word
 *       boundaries, long patterns; IUPAC and 0 codes, repetitive texts,
 *       texts shorter than the pattern, k from 0 to past m.
 *   (b) the engine (gpuasm_engine_scan) on random read/target sets vs the
 *       naive DP over every (read, target, strand) pair, with the pair rules
 *       of search.h, for several batch splits and thread counts.
 *   (c) gpuasm_traceback() on every hit of (b): the alignment re-walks to
 *       the reported distance and end, and equals an unbanded DP's walk-back;
 *       the linear method equals the banded one on every hit (and with a
 *       tiny memory budget), gpuasm_hit_starts() equals a plain reverse
 *       DP; hand-made tie cases; patterns of 10 kb, 100 kb and 1 Mb.
 *
 *   (e) the byte alphabet (library API): every kernel's pairs and the engine
 *       against the naive DP / Hamming count with the equality rule.
 *   (f) gpuasm_report_read() (which traces back only what it reports)
 *       against the rule that traces back every candidate, on targets full
 *       of repeats: same occurrences, positions and XS.
 *
 * Environment: GPUASM_TEST_SEED (default fixed) varies the random cases;
 * GPUASM_TEST_DEVICE (default "cpu") is the engine's --device;
 * GPUASM_TEST_KERNEL (default "myers"; or dp, scan, hamming) is the kernel
 * under test: (a), (b), (d), (e) run it, against the naive Hamming count for
 * hamming; the scan kernel gets patterns of at most 64 bases (its limit,
 * which is tested too); (c) is kernel-independent and runs with myers.
 * GPUASM_TEST_LONG=0 leaves out the 100,000-base-pattern engine case and
 * (c)'s 10 kb / 100 kb / 1 Mb tracebacks, which the GPU suite runs once,
 * not in every knob run.
 * GPUASM_TEST_VARIANT (best, paper, thread) and GPUASM_TEST_SEGMENTS (dp's
 * D) set opt.variant / opt.segments of every engine scan: layouts of the
 * CUDA kernels that must give the same hits.  With
 * GPUASM_TEST_DEVICE=cuda and no usable device: "1..0 # SKIP", exit 77.
 * Exit status 0 when every test passed, else 1.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <htslib/sam.h>

#include "engine/engine.h"
#include "naive_dp.h"
#include "tap.h"
#include "kernels/partial.h"
#include "kernels/registry.h"
#include "search/nt16.h"
#include "search/search.h"
#include "align/report.h"
#include "io/targets.h"
#include "align/traceback.h"
#include "kernels/twin.h"

/* ---- the kernel under test -------------------------------------------- */

static int32_t g_kernel = GPUASM_KERNEL_MYERS;   /* GPUASM_TEST_KERNEL */
static int32_t g_variant = GPUASM_VARIANT_BEST;  /* GPUASM_TEST_VARIANT: best, paper, thread */
static int32_t g_segments;                       /* GPUASM_TEST_SEGMENTS: dp's D (0: auto) */

static int is_hamming(void) { return gpuasm_kernel_get(g_kernel)->mode == GPUASM_MODE_HAMMING; }

/* Longest pattern the kernel takes in these tests (0: any): its row's
 * limit on nt16 (registry.h). */
static uint32_t max_m(void) { return (uint32_t)gpuasm_kernel_get(g_kernel)->max_pattern[GPUASM_ALPHABET_NT16]; }

static const gpuasm_twin *twin_under_test(void) { return gpuasm_kernel_get(g_kernel)->twin; }

/* ---- TAP, random numbers, allocation (tap.h) ------------------------------ */

enum alphabet {
    AL_ACGT,    /* single bases only */
    AL_AC,      /* two bases: many matches, long runs of ties */
    AL_N,       /* single bases and some 0 (N in a filtered read) */
    AL_IUPAC,   /* single bases and any of the 16 codes */
    AL_COUNT
};

static uint8_t rnd_base(int al)
{
    static const uint8_t acgt[4] = { 1, 2, 4, 8 };
    switch (al) {
    case AL_AC: return (uint8_t)(1 + (rnd() & 1));
    case AL_N: return chance(0.08) ? 0 : acgt[rnd() & 3];
    case AL_IUPAC: return chance(0.15) ? (uint8_t)below(16) : acgt[rnd() & 3];
    default: return acgt[rnd() & 3];
    }
}

static void rnd_seq(uint8_t *s, uint64_t n, int al)
{
    for (uint64_t i = 0; i < n; i++) s[i] = rnd_base(al);
}

/* A period-p repeat (ACACAC.. for p = 2) with the given alphabet. */
static void rep_seq(uint8_t *s, uint64_t n, int al)
{
    uint8_t unit[5];
    size_t p = 1 + (size_t)below(5);
    for (size_t i = 0; i < p; i++) unit[i] = rnd_base(al);
    for (uint64_t i = 0; i < n; i++) s[i] = unit[i % p];
}

/* Copy src with about rate*len random edits (substitution, insertion,
 * deletion in equal parts).  dst needs room for 2*len+1; returns its length
 * and the number of edits made in *n_edits. */
static uint64_t mutate(const uint8_t *src, uint64_t len, double rate, int al,
                       uint8_t *dst, uint64_t *n_edits)
{
    uint64_t o = 0, e = 0;
    for (uint64_t i = 0; i < len; i++) {
        if (!chance(rate)) { dst[o++] = src[i]; continue; }
        e++;
        switch (below(3)) {
        case 0: dst[o++] = rnd_base(al); break;            /* substitution */
        case 1: dst[o++] = rnd_base(al); dst[o++] = src[i]; break; /* insertion */
        default: break;                                     /* deletion */
        }
    }
    if (n_edits) *n_edits = e;
    return o;
}

static void revcomp(const uint8_t *s, uint64_t n, uint8_t *out)
{
    for (uint64_t i = 0; i < n; i++) out[i] = gpuasm_nt16_comp(s[n - 1 - i]);
}

/* ---- (a) gpuasm_myers_cpu_pair vs naive --------------------------------- */

typedef struct { uint64_t j; int32_t d; } jd;
typedef struct { jd *a; size_t n, cap; int unordered; } jd_list;

static void jd_push(jd_list *l, uint64_t j, int32_t d)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->a = xrealloc(l->a, l->cap * sizeof(jd));
    }
    if (l->n && l->a[l->n - 1].j >= j) l->unordered = 1;
    l->a[l->n].j = j;
    l->a[l->n].d = d;
    l->n++;
}

static void collect(void *ctx, uint64_t j, int32_t d) { jd_push(ctx, j, d); }

/* Myers' hits for each k in ks[] against the naive last row.  Returns 1 when
 * all agree. */
/* The naive D along the text for the kernel under test: edit distance, or
 * the Hamming count (INT32_MAX where no window ends). */
static void naive_last(const uint8_t *p, uint32_t m, const uint8_t *t, uint64_t n, int byte,
                       int32_t *last)
{
    if (is_hamming()) gpuasm_naive_hamming(p, m, t, n, byte, last);
    else if (gpuasm_naive_dp_alpha(p, m, t, n, byte, last) < 0) abort();
}

/* Every j with D <= k from the kernel under test, one pattern and one text.
 * Myers on nt16 goes through gpuasm_myers_cpu_pair (which takes any k and
 * n); the twins take the pairs the scan walk gives them (twin.h: n >= 1,
 * 0 <= k < m), so other pairs yield nothing here, as in a scan. */
static int kernel_pair(const uint8_t *p, uint32_t m, const uint8_t *t, uint64_t n, int32_t k,
                       int byte, jd_list *got)
{
    if (g_kernel == GPUASM_KERNEL_MYERS && !byte)
        return gpuasm_myers_cpu_pair(p, m, t, n, k, collect, got);
    if (n == 0 || k < 0 || (int64_t)k >= (int64_t)m) return 0;
    const gpuasm_twin *tw = twin_under_test();
    gpuasm_search_opt o = { k, 0, GPUASM_PATTERN_SHORTER, g_kernel,
                            byte ? GPUASM_ALPHABET_BYTE : GPUASM_ALPHABET_NT16, 0, 0 };
    void *ws = tw->open(&o);
    if (!ws) return -1;
    gpuasm_twin_pair pp = { p, m, t, n, k, 1 };
    int rc = tw->pair(ws, &pp, collect, got);
    tw->close(ws);
    return rc;
}

/* Does the kernel under test report j for this k?  (Twins are not asked
 * about k >= m: those pairs are never searched.) */
static int expect_hit(int32_t D, uint32_t m, int32_t k, int byte)
{
    if ((g_kernel != GPUASM_KERNEL_MYERS || byte) && (int64_t)k >= (int64_t)m) return 0;
    return D <= k;
}

static int check_pair_alpha(const uint8_t *p, uint32_t m, const uint8_t *t, uint64_t n,
                            const int32_t *ks, int nk, int byte, const char *what)
{
    int32_t *last = xmalloc(((size_t)n + 1) * sizeof(int32_t));
    naive_last(p, m, t, n, byte, last);
    int ok = 1;
    jd_list got = {0};
    for (int q = 0; q < nk && ok; q++) {
        int32_t k = ks[q];
        got.n = 0;
        got.unordered = 0;
        if (kernel_pair(p, m, t, n, k, byte, &got) != 0) {
            diag("%s: m=%u n=%" PRIu64 " k=%d: %s returned an error", what, m, n, k,
                 gpuasm_kernel_get(g_kernel)->name);
            ok = 0;
            break;
        }
        if (got.unordered) {
            diag("%s: m=%u n=%" PRIu64 " k=%d: hits not in increasing j", what, m, n, k);
            ok = 0;
        }
        size_t g = 0;
        for (uint64_t j = 0; j < n && ok; j++) {
            int want = expect_hit(last[j], m, k, byte);
            int have = g < got.n && got.a[g].j == j;
            if (want != have || (have && got.a[g].d != last[j])) {
                diag("%s: m=%u n=%" PRIu64 " k=%d: at j=%" PRIu64 " naive D=%d, %s %s%d",
                     what, m, n, k, j, last[j], gpuasm_kernel_get(g_kernel)->name,
                     have ? "D=" : "no hit", have ? got.a[g].d : 0);
                ok = 0;
            }
            if (have) g++;
        }
        if (ok && g != got.n) {
            diag("%s: m=%u n=%" PRIu64 " k=%d: %zu hits beyond the text", what, m, n, k, got.n - g);
            ok = 0;
        }
    }
    free(got.a);
    free(last);
    return ok;
}

static int check_pair(const uint8_t *p, uint32_t m, const uint8_t *t, uint64_t n,
                      const int32_t *ks, int nk, const char *what)
{
    return check_pair_alpha(p, m, t, n, ks, nk, 0, what);
}

/* One (pattern, text) case for pattern length m, of kind `kind`, checked at
 * a spread of k values from 0 to past m. */
static int pair_case(uint32_t m, int kind, const char *what)
{
    int al_p = (int)below(AL_COUNT), al_t = (int)below(AL_COUNT);
    uint8_t *p = xmalloc(m);
    uint64_t cap = 4 * (uint64_t)m + 64;
    uint8_t *t = xmalloc(cap);
    uint64_t n = 0;
    if (kind == 2) rep_seq(p, m, al_p); else rnd_seq(p, m, al_p);
    switch (kind) {
    case 0:   /* random text, often shorter than the pattern */
        n = below(2 * (uint64_t)m + 20);
        rnd_seq(t, n, al_t);
        break;
    case 1: { /* a mutated copy between random flanks */
        uint64_t a = below(m + 10), b = below(m + 10);
        rnd_seq(t, a, al_t);
        n = a + mutate(p, m, 0.02 + 0.2 * (double)(rnd() >> 11) * 0x1.0p-53, al_t, t + a, NULL);
        rnd_seq(t + n, b, al_t);
        n += b;
        break;
    }
    case 2:   /* repetitive pattern and text */
        n = below(3 * (uint64_t)m + 10);
        if (chance(0.5)) rep_seq(t, n, al_t);
        else for (uint64_t j = 0; j < n; j++) t[j] = p[j % m];
        break;
    default:  /* a text made of pattern pieces */
        while (n + m < cap && chance(0.7)) {
            uint64_t a = below(m), len = 1 + below(m - a);
            memcpy(t + n, p + a, len);
            n += len;
        }
        break;
    }
    int32_t ks[8];
    int nk = 0;
    ks[nk++] = 0;
    ks[nk++] = 1;
    ks[nk++] = (int32_t)(m / 10);
    ks[nk++] = (int32_t)(m / 4);
    ks[nk++] = (int32_t)below(m + 1);
    ks[nk++] = (int32_t)m - 1;
    ks[nk++] = (int32_t)m;
    ks[nk++] = (int32_t)m + 3;
    int ok = check_pair(p, m, t, n, ks, nk, what);
    free(p);
    free(t);
    return ok;
}

static void test_pairs(void)
{
    const char *kn = gpuasm_kernel_get(g_kernel)->name;
    const char *oracle = is_hamming() ? "the naive Hamming count" : "the naive DP";
    const uint32_t top = max_m() ? max_m() : 300;
    for (uint32_t m = 1; m <= top; m++) {
        int ok = 1;
        for (int c = 0; c < 16 && ok; c++) ok = pair_case(m, c % 4, "pair");
        tap(ok, "%s pair m=%u: 16 texts x 8 k match %s", kn, m, oracle);
    }
    static const uint32_t edge[] = { 63, 64, 65, 127, 128, 129, 191, 192, 193, 255, 256, 257 };
    for (size_t q = 0; q < sizeof edge / sizeof edge[0]; q++) {
        if (max_m() && edge[q] > max_m()) continue;
        int ok = 1;
        for (int c = 0; c < 100 && ok; c++) ok = pair_case(edge[q], c % 4, "edge");
        tap(ok, "%s pair m=%u (word boundary): 100 texts x 8 k match %s", kn, edge[q], oracle);
    }
    static const uint32_t longm[] = { 1000, 2047, 5000 };
    for (size_t q = 0; q < sizeof longm / sizeof longm[0] && !max_m(); q++) {
        int ok = 1;
        for (int c = 0; c < 8 && ok; c++) ok = pair_case(longm[q], c % 4, "long");
        tap(ok, "%s pair m=%u: 8 texts x 8 k match %s", kn, longm[q], oracle);
    }
}

/* ---- (e) the byte alphabet ------------------------------------------------ */

/* Random bytes from an alphabet of sigma symbols (spread over 0..255). */
static void rnd_bytes(uint8_t *s, uint64_t n, unsigned sigma)
{
    for (uint64_t i = 0; i < n; i++) s[i] = (uint8_t)((below(sigma) * 37 + 11) & 255);
}

/* A copy of src with about rate*len edits, bytes from the same alphabet. */
static uint64_t mutate_bytes(const uint8_t *src, uint64_t len, double rate, unsigned sigma,
                             uint8_t *dst)
{
    uint64_t o = 0;
    for (uint64_t i = 0; i < len; i++) {
        uint8_t b;
        rnd_bytes(&b, 1, sigma);
        if (!chance(rate)) { dst[o++] = src[i]; continue; }
        switch (is_hamming() ? 0 : below(3)) {
        case 0: dst[o++] = b; break;
        case 1: dst[o++] = b; dst[o++] = src[i]; break;
        default: break;
        }
    }
    return o;
}

static void test_pairs_byte(void)
{
    static const unsigned sigmas[] = { 2, 4, 64, 256 };
    const char *kn = gpuasm_kernel_get(g_kernel)->name;
    const uint32_t top = 64;   /* Myers on bytes (CUDA) and scan take m <= 64 */
    for (uint32_t m = 1; m <= top; m += (m < 8 ? 1 : 7)) {
        int ok = 1;
        for (int c = 0; c < 24 && ok; c++) {
            unsigned sigma = sigmas[c % 4];
            uint8_t *p = xmalloc(m), *t = xmalloc(4 * (size_t)m + 64);
            rnd_bytes(p, m, sigma);
            uint64_t a = below(m + 10), n = a;
            rnd_bytes(t, a, sigma);
            if (c % 3) n += mutate_bytes(p, m, 0.1, sigma, t + n);
            uint64_t b = below(m + 10);
            rnd_bytes(t + n, b, sigma);
            n += b;
            int32_t ks[4] = { 0, 1, (int32_t)(m / 4), (int32_t)below(m) };
            ok = check_pair_alpha(p, m, t, n, ks, 4, 1, "byte pair");
            free(p);
            free(t);
        }
        tap(ok, "%s pair, byte alphabet, m=%u: 24 texts (sigma 2..256) x 4 k match %s", kn, m,
            is_hamming() ? "the naive Hamming count" : "the naive DP");
    }
}

/* ---- sequence sets -------------------------------------------------------- */

typedef struct {
    uint32_t n;
    uint64_t *off;
    uint8_t *code;
    size_t cap;
} seqs;

static void seqs_init(seqs *s)
{
    memset(s, 0, sizeof *s);
    s->off = xmalloc(sizeof(uint64_t));
    s->off[0] = 0;
}

static void seqs_add(seqs *s, const uint8_t *c, uint64_t len)
{
    uint64_t at = s->off[s->n];
    if (at + len > s->cap) {
        s->cap = 2 * (at + len) + 64;
        s->code = xrealloc(s->code, s->cap);
    }
    if (len) memcpy(s->code + at, c, len);
    s->off = xrealloc(s->off, (s->n + 2) * sizeof(uint64_t));
    s->off[s->n + 1] = at + len;
    s->n++;
}

static void seqs_free(seqs *s)
{
    free(s->off);
    free(s->code);
}

static gpuasm_seqset view(const seqs *s)
{
    gpuasm_seqset v = { s->n, s->off, s->code };
    return v;
}

static uint64_t slen(const gpuasm_seqset *s, uint32_t i) { return s->off[i + 1] - s->off[i]; }
static const uint8_t *sseq(const gpuasm_seqset *s, uint32_t i) { return s->code + s->off[i]; }

/* ---- (b) the engine vs naive ---------------------------------------------- */

/* Pattern and text of pair (read r, target t, strand s) under the pair rules
 * of search.h, written plainly.  rcbuf must hold the read.  Returns 0 when
 * the pair is not searched. */
typedef struct {
    const uint8_t *p, *t;
    uint64_t m, n;
    int32_t k;
} pair_def;

static int make_pair(const gpuasm_seqset *reads, uint32_t r, const gpuasm_seqset *tg,
                     uint32_t t, uint32_t s, const gpuasm_search_opt *opt,
                     uint8_t *rcbuf, pair_def *pd)
{
    uint64_t rl = slen(reads, r), tl = slen(tg, t);
    const uint8_t *rs = sseq(reads, r);
    if (s) { revcomp(rs, rl, rcbuf); rs = rcbuf; }   /* (never for the byte alphabet) */
    if (gpuasm_read_is_pattern(opt, rl, tl)) {
        pd->p = rs; pd->m = rl; pd->t = sseq(tg, t); pd->n = tl;
    } else {
        pd->p = sseq(tg, t); pd->m = tl; pd->t = rs; pd->n = rl;
    }
    pd->k = gpuasm_pair_k(opt, pd->m);
    return (int64_t)pd->m > (int64_t)pd->k;
}

/* The end hits the engine reports (search.h): D[j] <= k at a local minimum,
 * i.e. the leftmost end of each valley of D along the text. */
static int local_min(const int32_t *D, uint64_t n, uint64_t j, int32_t k)
{
    return D[j] <= k && (j == 0 || D[j - 1] > D[j]) && (j + 1 == n || D[j + 1] >= D[j]);
}

/* ---- partial occurrences: the naive oracle (search.h) ----------------------
 * Written from the definition with the plain DP and plain counts, sharing
 * nothing with partial.h but the pair rule (gpuasm_pair_k). */

static int naive_match(int byte, uint8_t a, uint8_t b) { return byte ? a == b : (a & b) != 0; }

/* D_p for the text end (at_start == 0) or start, every p in [1, m-1]:
 * dp[p] (INT32_MAX when undefined: hamming with p > n). */
static void naive_partial_d(const uint8_t *P, uint32_t m, const uint8_t *T, uint64_t n,
                            int at_start, int hamming, int byte, int32_t *dp)
{
    for (uint32_t p = 1; p < m; p++) dp[p] = INT32_MAX;
    if (hamming) {
        for (uint32_t p = 1; p < m && p <= n; p++) {
            int32_t d = 0;
            for (uint32_t i = 0; i < p; i++)
                d += !naive_match(byte, at_start ? P[m - p + i] : P[i], at_start ? T[i] : T[n - p + i]);
            dp[p] = d;
        }
        return;
    }
    /* Text end: the free-start DP of the whole pattern over the whole text
     * (D[0][j] = 0, D[i][0] = i); D_p = the best alignment ending at the
     * last column that does not end with P[p-1] deleted:
     * min(D[p-1][n-1] + mismatch, D[p][n-1] + 1).  Text start: the same
     * for the reversed pattern over the reversed text (a suffix of P
     * aligned to a prefix of T, any end, is a prefix of rev(P) aligned to
     * a suffix of rev(T), any start). */
    int32_t *col = xmalloc((size_t)(m + 1) * sizeof(int32_t));
    int32_t *prev = xmalloc((size_t)(m + 1) * sizeof(int32_t));
    for (uint32_t i = 0; i <= m; i++) col[i] = (int32_t)i;
    for (uint64_t j = 1; j <= n; j++) {
        memcpy(prev, col, (size_t)(m + 1) * sizeof(int32_t));
        const uint8_t tc = at_start ? T[n - j] : T[j - 1];
        int32_t diag = col[0];
        col[0] = 0;
        for (uint32_t i = 1; i <= m; i++) {
            int32_t up = col[i - 1], left = col[i];
            int32_t v = diag + !naive_match(byte, at_start ? P[m - i] : P[i - 1], tc);
            if (up + 1 < v) v = up + 1;
            if (left + 1 < v) v = left + 1;
            diag = col[i];
            col[i] = v;
        }
    }
    const uint8_t tl = at_start ? T[0] : T[n - 1];
    for (uint32_t p = 1; p < m; p++) {
        int32_t diag = prev[p - 1] + !naive_match(byte, at_start ? P[m - p] : P[p - 1], tl);
        int32_t left = prev[p] + 1;
        dp[p] = diag < left ? diag : left;
    }
    free(col);
    free(prev);
}

/* The partial end hit of search.h's rule from the naive D_p, or plen 0;
 * sfloor > 0: only scores p - 2 D_p >= sfloor (the significance floor). */
static gpuasm_partial naive_partial(const gpuasm_search_opt *o, uint32_t omin, int32_t sfloor, const uint8_t *P,
                                    uint32_t m, const uint8_t *T, uint64_t n, int at_start,
                                    int hamming, int byte)
{
    gpuasm_partial best = { 0, 0 };
    if (omin == 0 || omin >= m || n == 0) return best;
    int32_t *dp = xmalloc((size_t)m * sizeof(int32_t));
    naive_partial_d(P, m, T, n, at_start, hamming, byte, dp);
    for (uint32_t p = omin; p < m; p++) {
        /* k_p: e x p, or an absolute k as the rate k / m */
        int32_t kp = o->max_diffs >= 0 ? (int32_t)((int64_t)o->max_diffs * p / m)
                                       : (int32_t)floor(o->error_rate * p), d = dp[p];
        if (kp < 0 || (int64_t)kp >= (int64_t)p || d > kp) continue;
        if (sfloor > 0 && (int64_t)p - 2 * (int64_t)d < sfloor) continue;
        int64_t s = (int64_t)p - 2 * (int64_t)d, bs = (int64_t)best.plen - 2 * (int64_t)best.dist;
        if (!best.plen || s > bs || (s == bs && (d < best.dist || (d == best.dist && p > best.plen))))
            best = (gpuasm_partial){ p, d };
    }
    free(dp);
    return best;
}

static void expected_hits(const gpuasm_seqset *reads, const gpuasm_seqset *tg,
                          const gpuasm_search_opt *opt, gpuasm_hits *out)
{
    uint64_t maxr = 1;
    for (uint32_t r = 0; r < reads->n; r++) if (slen(reads, r) > maxr) maxr = slen(reads, r);
    uint8_t *rc = xmalloc(maxr);
    const int byte = opt->alphabet == GPUASM_ALPHABET_BYTE;
    const int forward = opt->strand == GPUASM_STRAND_FORWARD;
    out->n = 0;
    for (uint32_t r = 0; r < reads->n; r++)
        for (uint32_t t = 0; t < tg->n; t++)
            for (uint32_t s = 0; s < (byte || forward ? 1u : 2u); s++) {
                pair_def pd;
                if (!make_pair(reads, r, tg, t, s, opt, rc, &pd)) continue;
                int32_t *last = xmalloc((pd.n + 1) * sizeof(int32_t));
                naive_last(pd.p, (uint32_t)pd.m, pd.t, pd.n, byte, last);
                for (uint64_t j = 0; j < pd.n; j++)
                    if (local_min(last, pd.n, j, pd.k)) {
                        gpuasm_endhit e = { r, t, (uint32_t)j, last[j], (uint16_t)s, 0, 0 };
                        if (gpuasm_hits_push(out, e) < 0) abort();
                    }
                free(last);
                /* Partial occurrences: which ends, written out plainly. */
                if (!opt->partial_ends || pd.n == 0) continue;
                const int rip = gpuasm_read_is_pattern(opt, slen(reads, r), slen(tg, t));
                int64_t omin = rip ? opt->read_overlap_min : opt->overlap_min;
                if (rip && omin < 0) omin = (int64_t)((pd.m + 1) / 2);
                if (omin <= 0 || (uint64_t)omin >= pd.m) continue;
                for (int at_start = 0; at_start < 2; at_start++) {
                    /* file orientation: GPUASM_END_3 is the end of the read as
                     * sequenced, which is the start of its reverse complement */
                    int want_end = at_start ? GPUASM_END_5 : GPUASM_END_3;
                    if (!rip && s) want_end = at_start ? GPUASM_END_3 : GPUASM_END_5;
                    if (!(opt->partial_ends & want_end)) continue;
                    gpuasm_partial b = naive_partial(opt, (uint32_t)omin,
                                                     rip ? opt->read_partial_floor : opt->partial_floor, pd.p, (uint32_t)pd.m, pd.t,
                                                     pd.n, at_start, is_hamming(), byte);
                    if (!b.plen) continue;
                    gpuasm_endhit e = { r, t, at_start ? 0u : (uint32_t)(pd.n - 1), b.dist, (uint16_t)s,
                                        (uint16_t)(at_start ? GPUASM_HIT_TEXT_START : GPUASM_HIT_TEXT_END),
                                        b.plen };
                    if (gpuasm_hits_push(out, e) < 0) abort();
                }
            }
    free(rc);
    gpuasm_hits_sort(out);
}

static int same_hits(const gpuasm_hits *a, const gpuasm_hits *b, const char *what)
{
    size_t i = 0;
    for (; i < a->n && i < b->n; i++) {
        const gpuasm_endhit *x = &a->hit[i], *y = &b->hit[i];
        if (x->read != y->read || x->target != y->target || x->strand != y->strand ||
            x->end != y->end || x->dist != y->dist || x->kind != y->kind || x->plen != y->plen)
            break;
    }
    if (i == a->n && i == b->n) return 1;
    const gpuasm_endhit *x = i < a->n ? &a->hit[i] : NULL, *y = i < b->n ? &b->hit[i] : NULL;
    diag("%s: %zu vs %zu hits, first difference at #%zu: got %s r%u t%u s%u end %u d%d kind %u plen %u;"
         " want %s r%u t%u s%u end %u d%d kind %u plen %u", what, a->n, b->n, i,
         x ? "" : "(none)", x ? x->read : 0, x ? x->target : 0, x ? x->strand : 0,
         x ? x->end : 0, x ? x->dist : 0, x ? x->kind : 0, x ? x->plen : 0,
         y ? "" : "(none)", y ? y->read : 0, y ? y->target : 0, y ? y->strand : 0,
         y ? y->end : 0, y ? y->dist : 0, y ? y->kind : 0, y ? y->plen : 0);
    return 0;
}

/* Run the engine over reads cut into batches at the given cut points and
 * concatenate the hits with read indices made global. */
static int engine_run(gpuasm_engine *e, const gpuasm_seqset *reads, const uint32_t *cuts,
                      int ncuts, const gpuasm_search_opt *opt, gpuasm_hits *all)
{
    gpuasm_err err;
    gpuasm_hits h = {0};
    all->n = 0;
    uint32_t from = 0;
    for (int c = 0; c <= ncuts; c++) {
        uint32_t to = c < ncuts ? cuts[c] : reads->n;
        uint32_t nb = to - from;
        /* A batch is a seqset of its own: offsets from 0, read indices from 0. */
        uint64_t *off = xmalloc(((size_t)nb + 1) * sizeof(uint64_t));
        for (uint32_t i = 0; i <= nb; i++) off[i] = reads->off[from + i] - reads->off[from];
        uint64_t nbases = off[nb];
        uint8_t *code = gpuasm_engine_host_alloc(e, nbases ? nbases : 1);
        if (!code) abort();
        if (nbases) memcpy(code, reads->code + reads->off[from], nbases);
        gpuasm_seqset batch = { nb, off, code };
        /* Variants and segment counts change the layout, never the hits. */
        gpuasm_search_opt o = *opt;
        o.variant = g_variant;
        o.segments = g_segments;
        int rc = gpuasm_engine_scan(e, &batch, &o, &h, &err);
        gpuasm_engine_host_free(e, code);
        free(off);
        if (rc != 0) {
            diag("engine scan failed: %s", err.msg);
            gpuasm_hits_free(&h);
            return 0;
        }
        for (size_t i = 0; i < h.n; i++) {
            gpuasm_endhit x = h.hit[i];
            x.read += from;
            if (gpuasm_hits_push(all, x) < 0) abort();
        }
        from = to;
    }
    gpuasm_hits_free(&h);
    return 1;
}

/* ---- (c) traceback checks ------------------------------------------------ */

/* Re-walk an alignment over pattern and text: 1 when it consumes exactly the
 * m pattern bases and text[tstart..end], MATCH/SUBST agree with the nt16 rule
 * and the non-MATCH columns number dist. */
static int rewalk(const uint8_t *p, uint64_t m, const uint8_t *t, uint64_t n,
                  const gpuasm_aln *a, uint64_t end, int32_t dist, const char *what)
{
    uint64_t i = 0, x = a->tstart;
    int32_t nd = 0;
    if (a->tend != end || a->dist != dist) {
        diag("%s: aln tend %" PRIu64 " dist %d, want %" PRIu64 " %d", what, a->tend, a->dist, end, dist);
        return 0;
    }
    for (size_t c = 0; c < a->n_op; c++) {
        switch (a->op[c]) {
        case GPUASM_OP_MATCH:
        case GPUASM_OP_SUBST:
            if (i >= m || x >= n) { diag("%s: op %zu runs off the sequences", what, c); return 0; }
            if (gpuasm_nt16_match(p[i], t[x]) != (a->op[c] == GPUASM_OP_MATCH)) {
                diag("%s: op %zu says %s for codes %u/%u", what, c,
                     a->op[c] == GPUASM_OP_MATCH ? "MATCH" : "SUBST", p[i], t[x]);
                return 0;
            }
            nd += a->op[c] != GPUASM_OP_MATCH;
            i++; x++;
            break;
        case GPUASM_OP_PGAP:
            if (i >= m) { diag("%s: PGAP past the pattern", what); return 0; }
            nd++; i++;
            break;
        case GPUASM_OP_TGAP:
            if (x >= n) { diag("%s: TGAP past the text", what); return 0; }
            nd++; x++;
            break;
        default:
            diag("%s: op %zu has code %u", what, c, a->op[c]);
            return 0;
        }
    }
    if (i != m || x != end + 1 || nd != dist) {
        diag("%s: re-walk used %" PRIu64 "/%" PRIu64 " pattern bases, ended at text %" PRIu64
             " (want %" PRIu64 "), %d diffs (want %d)", what, i, m, x, end + 1, nd, dist);
        return 0;
    }
    return 1;
}

/* Independent oracle of the tie rule: the full, unbanded DP of the pattern
 * against text[lo .. end] (lo = end + 1 - (m + dist): no alignment with
 * dist differences consumes more text), free start, then the walk back
 * from (m, end) that takes, at each cell, the first consistent predecessor
 * in the order diagonal, up (PGAP), left (TGAP).  The traceback's start and
 * ops must be exactly these.  O(m * (m + dist)) per hit. */
static int greedy_walk_matches(const uint8_t *p, uint64_t m, const uint8_t *t,
                               const gpuasm_aln *a, uint64_t end, int32_t dist, const char *what)
{
    uint64_t lo = end + 1 >= m + (uint64_t)dist ? end + 1 - (m + (uint64_t)dist) : 0;
    uint64_t w = end + 1 - lo;
    int32_t *D = xmalloc((m + 1) * (w + 1) * sizeof(int32_t));
#define DD(i, x) D[(i) * (w + 1) + (x)]
    for (uint64_t x = 0; x <= w; x++) DD(0, x) = 0;
    for (uint64_t i = 1; i <= m; i++) {
        DD(i, 0) = (int32_t)i;
        for (uint64_t x = 1; x <= w; x++) {
            int32_t v = DD(i - 1, x - 1) + (gpuasm_nt16_match(p[i - 1], t[lo + x - 1]) ? 0 : 1);
            if (DD(i - 1, x) + 1 < v) v = DD(i - 1, x) + 1;
            if (DD(i, x - 1) + 1 < v) v = DD(i, x - 1) + 1;
            DD(i, x) = v;
        }
    }
    int ok = DD(m, w) == dist;
    if (!ok) diag("%s: unbanded DP gives %d at the end, want %d", what, DD(m, w), dist);
    uint8_t *ops = xmalloc(m + (uint64_t)dist + 1);
    size_t k = 0;
    uint64_t i = m, x = w;
    while (ok && i > 0) {
        if (x >= 1 && DD(i - 1, x - 1) + (gpuasm_nt16_match(p[i - 1], t[lo + x - 1]) ? 0 : 1) == DD(i, x)) {
            ops[k++] = gpuasm_nt16_match(p[i - 1], t[lo + x - 1]) ? GPUASM_OP_MATCH : GPUASM_OP_SUBST;
            i--;
            x--;
        } else if (DD(i - 1, x) + 1 == DD(i, x)) {
            ops[k++] = GPUASM_OP_PGAP;
            i--;
        } else {
            ops[k++] = GPUASM_OP_TGAP;
            x--;
        }
    }
#undef DD
    if (ok && (a->tstart != lo + x || a->n_op != k)) {
        diag("%s: start %" PRIu64 " with %zu ops, the greedy walk gives start %" PRIu64
             " with %zu ops", what, a->tstart, a->n_op, lo + x, k);
        ok = 0;
    }
    for (size_t c = 0; ok && c < k; c++)
        if (a->op[c] != ops[k - 1 - c]) {
            diag("%s: op %zu is %u, the greedy walk has %u", what, c, a->op[c], ops[k - 1 - c]);
            ok = 0;
        }
    free(ops);
    free(D);
    return ok;
}

/* Do two alignments agree column for column (and in start and end)? */
static int same_aln(const gpuasm_aln *a, const gpuasm_aln *b)
{
    return a->tstart == b->tstart && a->tend == b->tend && a->dist == b->dist &&
           a->n_op == b->n_op && memcmp(a->op, b->op, a->n_op) == 0;
}

/* Independent oracle of gpuasm_hit_starts(): the plain DP of the reversed
 * pattern against the reversed text from `end` back (anchored at the end:
 * R[0][y] = y, R[i][0] = i), and every s with R[m][end+1-s] == dist.  1
 * when the smallest and largest such s are s_lo and s_hi and no s costs
 * less.  O(m * (m + dist)). */
static int starts_match(const uint8_t *p, uint64_t m, const uint8_t *t, uint64_t end,
                        int32_t dist, uint64_t s_lo, uint64_t s_hi, const char *what)
{
    uint64_t Y = end + 1 < m + (uint64_t)dist ? end + 1 : m + (uint64_t)dist;
    int32_t *prev = xmalloc((Y + 1) * sizeof(int32_t)), *cur = xmalloc((Y + 1) * sizeof(int32_t));
    for (uint64_t y = 0; y <= Y; y++) prev[y] = (int32_t)y;
    for (uint64_t i = 1; i <= m; i++) {
        cur[0] = (int32_t)i;
        for (uint64_t y = 1; y <= Y; y++) {
            int32_t v = prev[y - 1] + (gpuasm_nt16_match(p[m - i], t[end + 1 - y]) ? 0 : 1);
            if (prev[y] + 1 < v) v = prev[y] + 1;
            if (cur[y - 1] + 1 < v) v = cur[y - 1] + 1;
            cur[y] = v;
        }
        int32_t *x = prev; prev = cur; cur = x;
    }
    int ok = 1, any = 0;
    uint64_t lo = 0, hi = 0;
    for (uint64_t y = 0; y <= Y && ok; y++) {
        if (prev[y] < dist) { diag("%s: start %" PRIu64 " costs %d < %d", what, end + 1 - y, prev[y], dist); ok = 0; }
        if (prev[y] == dist) { hi = any ? hi : end + 1 - y; lo = end + 1 - y; any = 1; }
    }
    if (ok && (!any || lo != s_lo || hi != s_hi)) {
        diag("%s: hit_starts %" PRIu64 "..%" PRIu64 ", the plain DP %" PRIu64 "..%" PRIu64 "%s",
             what, s_lo, s_hi, lo, hi, any ? "" : " (none)");
        ok = 0;
    }
    free(prev);
    free(cur);
    return ok;
}

/* Traceback of every hit in h (expected hits of one engine case), by the
 * banded method and by the linear one twice: with the default budget (one
 * kept range) and with a 512-byte budget (a few columns kept at a time and
 * two ranges per level, so every hit of more than a few bases goes through
 * many levels of checkpoints).  The three must
 * agree exactly.  The greedy-walk and start oracles are O(m^2) per hit, so
 * they run on a sample. */
static void test_tracebacks(const gpuasm_seqset *reads, const gpuasm_seqset *tg,
                            const gpuasm_search_opt *opt, const gpuasm_hits *h,
                            const char *what)
{
    gpuasm_tb_work w = { .method = GPUASM_TB_BANDED };
    gpuasm_tb_work wl = { .method = GPUASM_TB_LINEAR };
    gpuasm_tb_work wt = { .method = GPUASM_TB_LINEAR, .mem_bytes = 512 };
    /* three threads whatever the band, with a budget small enough to cut
     * a 150-base read's columns into parts (mem / 16 a thread) */
    gpuasm_tb_work wth = { .method = GPUASM_TB_LINEAR, .mem_bytes = 8192, .n_threads = 3,
                           .threads_min_cells = 1 };
    /* the seeds' bound on every hit, on one thread and on three */
    gpuasm_tb_work ws1 = { .method = GPUASM_TB_LINEAR, .seeds_min_cells = 1 };
    gpuasm_tb_work ws3 = { .method = GPUASM_TB_LINEAR, .mem_bytes = 8192, .n_threads = 3,
                           .threads_min_cells = 1, .seeds_min_cells = 1 };
    gpuasm_tb_work *lin[5] = { &wl, &wt, &wth, &ws1, &ws3 };
    static const char *lin_name[5] = { "default", "512-byte", "8 KiB, 3-thread", "default, seeds",
                                       "8 KiB, 3-thread, seeds" };
    gpuasm_aln a = {0}, al = {0};
    uint64_t maxr = 1;
    for (uint32_t r = 0; r < reads->n; r++) if (slen(reads, r) > maxr) maxr = slen(reads, r);
    uint8_t *rc = xmalloc(maxr);
    int ok_tb = 1, ok_rm = 1, ok_lin = 1, ok_st = 1;
    size_t n_rm = 0;
    size_t every = h->n / 400 + 1;
    for (size_t i = 0; i < h->n && ok_tb; i++) {
        const gpuasm_endhit *e = &h->hit[i];
        if (e->kind != GPUASM_HIT_FULL) continue;   /* partial: align/report.c's test */
        pair_def pd;
        make_pair(reads, e->read, tg, e->target, e->strand, opt, rc, &pd);
        int rc_tb = gpuasm_traceback(pd.p, (uint32_t)pd.m, pd.t, pd.n, e->end, e->dist, &w, &a);
        if (rc_tb != 0) {
            diag("%s: traceback r%u t%u s%u end %u d%d returned %d", what, e->read, e->target,
                 e->strand, e->end, e->dist, rc_tb);
            ok_tb = 0;
            break;
        }
        ok_tb = rewalk(pd.p, pd.m, pd.t, pd.n, &a, e->end, e->dist, what);
        for (int q = 0; q < 5 && ok_lin; q++) {
            int rl = gpuasm_traceback(pd.p, (uint32_t)pd.m, pd.t, pd.n, e->end, e->dist,
                                      lin[q], &al);
            if (rl != 0 || !same_aln(&a, &al)) {
                diag("%s: linear traceback (%s budget) r%u t%u s%u end %u d%d: rc %d, start %"
                     PRIu64 " ops %zu, banded start %" PRIu64 " ops %zu", what,
                     lin_name[q], e->read, e->target, e->strand, e->end, e->dist, rl,
                     al.tstart, al.n_op, a.tstart, a.n_op);
                ok_lin = 0;
            }
        }
        uint64_t s_lo = 0, s_hi = 0;
        int rs = gpuasm_hit_starts(pd.p, (uint32_t)pd.m, pd.t, pd.n, e->end, e->dist, &wl,
                                   &s_lo, &s_hi);
        if (ok_st && (rs != 0 || a.tstart < s_lo || a.tstart > s_hi)) {
            diag("%s: hit_starts r%u end %u d%d: rc %d, %" PRIu64 "..%" PRIu64 ", traceback start %"
                 PRIu64, what, e->read, e->end, e->dist, rs, s_lo, s_hi, a.tstart);
            ok_st = 0;
        }
        if (ok_tb && ok_rm && i % every == 0) {
            ok_rm = greedy_walk_matches(pd.p, pd.m, pd.t, &a, e->end, e->dist, what);
            ok_st = ok_st && starts_match(pd.p, pd.m, pd.t, e->end, e->dist, s_lo, s_hi, what);
            n_rm++;
        }
    }
    tap(ok_tb, "%s: traceback of all %zu hits re-walks to their end and distance", what, h->n);
    tap(ok_rm, "%s: traceback equals an unbanded DP's greedy walk-back (%zu hits checked)", what, n_rm);
    tap(ok_lin, "%s: the linear traceback (default and 512-byte budgets, 8 KiB on 3 threads, "
        "the seeds' bound on 1 and 3) equals the banded one on all %zu hits", what, h->n);
    tap(ok_st, "%s: hit_starts brackets every traceback start and equals the plain reverse DP "
        "(%zu hits checked)", what, n_rm);
    free(rc);
    gpuasm_aln_free(&a);
    gpuasm_aln_free(&al);
    gpuasm_tb_work_free(&w);
    gpuasm_tb_work_free(&wl);
    gpuasm_tb_work_free(&wt);
    gpuasm_tb_work_free(&wth);
    gpuasm_tb_work_free(&ws1);
    gpuasm_tb_work_free(&ws3);
}

/* ---- (b) cases ------------------------------------------------------------- */

typedef struct {
    const char *name;
    gpuasm_search_opt opt;
    int wildcards;   /* reads filtered with --match-read-wildcards */
} engine_case;

static void build_sets(seqs *reads, seqs *tg, int wildcards)
{
    /* The scan kernel takes patterns of <= 64 bases: short targets only, so
     * that the shorter sequence of every pair is at most 64. */
    static const uint64_t tlen_any[] = { 12, 34, 80, 150, 151, 400, 1200 };
    static const uint64_t tlen_short[] = { 12, 34, 40, 50, 63, 64, 64 };
    const uint64_t *tlen = max_m() ? tlen_short : tlen_any;
    seqs_init(reads);
    seqs_init(tg);
    uint8_t *buf = xmalloc(4096), *mut = xmalloc(8192);
    for (size_t t = 0; t < sizeof tlen_any / sizeof tlen_any[0]; t++) {
        rnd_seq(buf, tlen[t], chance(0.5) ? AL_IUPAC : AL_ACGT);
        seqs_add(tg, buf, tlen[t]);
    }
    for (int r = 0; r < 160; r++) {
        uint64_t len;
        int kind = (int)below(12);
        if (kind == 0) {                       /* empty read */
            len = 0;
        } else if (kind <= 4) {                /* random read */
            len = 1 + below(300);
            rnd_seq(buf, len, chance(0.5) ? AL_N : AL_IUPAC);
        } else if (kind <= 6) {                /* a short target inside random flanks (adapter-like) */
            uint32_t t = (uint32_t)below(4);   /* targets 0..3: 12..150 bases */
            uint64_t tl = tg->off[t + 1] - tg->off[t];
            uint64_t l = mutate(tg->code + tg->off[t], tl, 0.05, AL_N, mut, NULL);
            uint64_t f1 = below(100), f2 = below(100);
            rnd_seq(buf, f1, AL_ACGT);
            if (chance(0.5)) revcomp(mut, l, buf + f1); else memcpy(buf + f1, mut, l);
            rnd_seq(buf + f1 + l, f2, AL_ACGT);
            len = f1 + l + f2;
        } else {                               /* piece of a target, mutated, either strand */
            uint32_t t = (uint32_t)below(tg->n);
            uint64_t tl = tg->off[t + 1] - tg->off[t];
            uint64_t a = below(tl), l = 1 + below(tl - a < 300 ? tl - a : 300);
            len = mutate(tg->code + tg->off[t] + a, l, 0.08, AL_N, mut, NULL);
            if (chance(0.5)) revcomp(mut, len, buf); else memcpy(buf, mut, len);
            /* flanks so that reads longer than short targets occur */
            if (chance(0.5) && len < 3000) {
                uint64_t f = below(40);
                memmove(buf + f, buf, len);
                rnd_seq(buf, f, AL_ACGT);
                len += f;
            }
        }
        for (uint64_t i = 0; i < len; i++) buf[i] = gpuasm_read_code(buf[i], wildcards);
        seqs_add(reads, buf, len);
    }
    free(buf);
    free(mut);
}

static void test_engine(const char *device)
{
    static const engine_case cases[] = {
        { "e=0.1 shorter",         { .max_diffs = -1, .error_rate = 0.10, .pattern_side = GPUASM_PATTERN_SHORTER }, 0 },
        { "k=3 shorter",           { .max_diffs = 3, .error_rate = 0.10, .pattern_side = GPUASM_PATTERN_SHORTER }, 0 },
        { "k=0 shorter",           { .max_diffs = 0, .error_rate = 0.10, .pattern_side = GPUASM_PATTERN_SHORTER }, 0 },
        { "e=0.2 read",            { .max_diffs = -1, .error_rate = 0.20, .pattern_side = GPUASM_PATTERN_READ }, 0 },
        { "k=6 read wildcards",    { .max_diffs = 6, .error_rate = 0.10, .pattern_side = GPUASM_PATTERN_READ }, 1 },
        { "e=0.15 target",         { .max_diffs = -1, .error_rate = 0.15, .pattern_side = GPUASM_PATTERN_TARGET }, 0 },
        { "k=10 target wildcards", { .max_diffs = 10, .error_rate = 0.10, .pattern_side = GPUASM_PATTERN_TARGET }, 1 },
        /* partial occurrences (issue #9) and the read as sequenced only */
        { "e=0.1 shorter, partial O3, reads half", { .max_diffs = -1, .error_rate = 0.10,
          .pattern_side = GPUASM_PATTERN_SHORTER, .overlap_min = 3, .read_overlap_min = -1,
          .partial_ends = GPUASM_END_3 | GPUASM_END_5 }, 0 },
        { "e=0.2 target, partial O1 3' only, forward", { .max_diffs = -1, .error_rate = 0.20,
          .pattern_side = GPUASM_PATTERN_TARGET, .strand = GPUASM_STRAND_FORWARD, .overlap_min = 1,
          .partial_ends = GPUASM_END_3 }, 0 },
        { "k=2 read, partial O5 5' only", { .max_diffs = 2, .error_rate = 0.10,
          .pattern_side = GPUASM_PATTERN_READ, .read_overlap_min = 5, .partial_ends = GPUASM_END_5 }, 1 },
        { "e=0.1 shorter forward", { .max_diffs = -1, .error_rate = 0.10,
          .pattern_side = GPUASM_PATTERN_SHORTER, .strand = GPUASM_STRAND_FORWARD }, 0 },
        /* significance floors (issue #26, align/chance.h): scores p - 2 D_p below
         * them are no candidates, which can leave a worse-scoring p */
        { "e=0.2 shorter, partial O1 floors 6 and 14", { .max_diffs = -1, .error_rate = 0.20,
          .pattern_side = GPUASM_PATTERN_SHORTER, .overlap_min = 1, .read_overlap_min = -1,
          .partial_ends = GPUASM_END_3 | GPUASM_END_5, .partial_floor = 6, .read_partial_floor = 14 }, 0 },
        { "k=4 target, partial O1 3' only, floor 4", { .max_diffs = 4, .error_rate = 0.10,
          .pattern_side = GPUASM_PATTERN_TARGET, .overlap_min = 1, .partial_ends = GPUASM_END_3,
          .partial_floor = 4 }, 1 },
    };
    static const int threads[] = { 1, 2, 3, 5 };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        engine_case ecv = cases[c];
        ecv.opt.kernel = g_kernel;
        const engine_case *ec = &ecv;
        /* --pattern read makes 300-base reads patterns: beyond scan's limit
         * (test_scan_limit checks the refusal). */
        if (max_m() && ec->opt.pattern_side == GPUASM_PATTERN_READ) continue;
        seqs rs, ts;
        build_sets(&rs, &ts, ec->wildcards);
        gpuasm_seqset reads = view(&rs), tg = view(&ts);
        gpuasm_hits want = {0}, got = {0};
        expected_hits(&reads, &tg, &ec->opt, &want);

        /* Both pair orientations must occur, or the case tests less than it says. */
        int n_rp = 0, n_tp = 0;
        for (uint32_t r = 0; r < reads.n; r++)
            for (uint32_t t = 0; t < tg.n; t++)
                if (slen(&reads, r)) {
                    if (gpuasm_read_is_pattern(&ec->opt, slen(&reads, r), slen(&tg, t))) n_rp++;
                    else n_tp++;
                }
        int want_rp = ec->opt.pattern_side != GPUASM_PATTERN_TARGET;
        int want_tp = ec->opt.pattern_side != GPUASM_PATTERN_READ;
        /* A partial case must have partial hits at each end it asks for,
         * a forward-only case no strand-1 hit. */
        size_t n_end = 0, n_start = 0, n_s1 = 0;
        for (size_t i = 0; i < want.n; i++) {
            n_end += want.hit[i].kind == GPUASM_HIT_TEXT_END;
            n_start += want.hit[i].kind == GPUASM_HIT_TEXT_START;
            n_s1 += want.hit[i].strand == 1;
        }
        int partial_ok = !ec->opt.partial_ends || (n_end + n_start > 0);
        int strand_ok = ec->opt.strand == GPUASM_STRAND_FORWARD ? n_s1 == 0 : (is_hamming() || n_s1 > 0);
        tap(want.n > 0 && (n_rp > 0) == want_rp && (n_tp > 0) == want_tp && partial_ok && strand_ok,
            "engine %s: case has %zu expected hits (%zu partial at text ends, %zu at text starts, "
            "%zu on strand 1), %d read-pattern and %d target-pattern pairs",
            ec->name, want.n, n_end, n_start, n_s1, n_rp, n_tp);

        for (size_t q = 0; q < sizeof threads / sizeof threads[0]; q++) {
            gpuasm_engine *e = NULL;
            gpuasm_err err, warn;
            if (gpuasm_engine_open(device, threads[q], &e, &err, &warn) != 0) {
                tap(0, "engine %s: open %s with %d threads: %s", ec->name, device, threads[q], err.msg);
                continue;
            }
            if (gpuasm_engine_set_targets(e, &tg, &err) != 0) {
                tap(0, "engine %s: set targets: %s", ec->name, err.msg);
                gpuasm_engine_close(e);
                continue;
            }
            /* Batch splits: one batch, random cuts, many small batches. */
            uint32_t cuts[40];
            int ncuts = 0;
            const char *split;
            if (q == 0) {
                split = "1 batch";
            } else if (q == 1) {
                split = "random batches";
                ncuts = 1 + (int)below(6);
                for (int i = 0; i < ncuts; i++) cuts[i] = (uint32_t)below(reads.n + 1);
                for (int i = 1; i < ncuts; i++)          /* sort the cut points */
                    for (int j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
                        uint32_t x = cuts[j]; cuts[j] = cuts[j - 1]; cuts[j - 1] = x;
                    }
            } else {
                split = "batches of 5 reads";
                for (uint32_t at = 5; at < reads.n && ncuts < 40; at += 5) cuts[ncuts++] = at;
            }
            int ok = engine_run(e, &reads, cuts, ncuts, &ec->opt, &got);
            char what[160];
            snprintf(what, sizeof what, "engine %s, %d threads, %s", ec->name, threads[q], split);
            if (ok) ok = same_hits(&got, &want, what);
            tap(ok, "%s (%s, %s): hits equal %s", what, gpuasm_kernel_get(g_kernel)->name,
                gpuasm_engine_describe(e), is_hamming() ? "the naive Hamming count" : "the naive DP");
            gpuasm_engine_close(e);
        }

        char what[160];
        snprintf(what, sizeof what, "engine %s", ec->name);
        if (!is_hamming()) test_tracebacks(&reads, &tg, &ec->opt, &want, what);

        /* gpuasm_hits_sort gives the canonical order from any order. */
        if (want.n > 1) {
            gpuasm_hits sh = {0};
            for (size_t i = 0; i < want.n; i++) gpuasm_hits_push(&sh, want.hit[i]);
            for (size_t i = sh.n - 1; i > 0; i--) {
                size_t j = (size_t)below(i + 1);
                gpuasm_endhit x = sh.hit[i]; sh.hit[i] = sh.hit[j]; sh.hit[j] = x;
            }
            gpuasm_hits_sort(&sh);
            tap(same_hits(&sh, &want, "hits_sort"), "%s: hits_sort restores the canonical order", what);
            gpuasm_hits_free(&sh);
        }
        gpuasm_hits_free(&want);
        gpuasm_hits_free(&got);
        seqs_free(&rs);
        seqs_free(&ts);
    }
}

/* ---- (c) hand-made traceback cases ----------------------------------------- */

static uint8_t code_of(char c)
{
    switch (c) {
    case 'A': return 1;
    case 'C': return 2;
    case 'G': return 4;
    case 'T': return 8;
    case 'R': return 5;
    case 'N': return 15;
    default: return 0;
    }
}

static void enc(const char *s, uint8_t *out)
{
    for (size_t i = 0; s[i]; i++) out[i] = code_of(s[i]);
}

/* ops as a string: M(atch) X (subst) P(gap) T(gap).  Every method (banded,
 * linear with the default budget, linear with 512 bytes) must give it. */
static void test_tb_case(const char *p, const char *t, uint64_t end, int32_t dist,
                         int want_rc, uint64_t want_start, const char *want_ops)
{
    static const struct { int method; size_t mem; const char *name; } how[] = {
        { GPUASM_TB_BANDED, 0, "banded" }, { GPUASM_TB_LINEAR, 0, "linear" },
        { GPUASM_TB_LINEAR, 512, "linear 512 B" },
    };
    uint8_t pb[64], tb[64];
    enc(p, pb);
    enc(t, tb);
    int ok = 1;
    for (size_t h = 0; h < sizeof how / sizeof how[0]; h++) {
        gpuasm_tb_work w = { .method = how[h].method, .mem_bytes = how[h].mem };
        gpuasm_aln a = {0};
        int rc = gpuasm_traceback(pb, (uint32_t)strlen(p), tb, strlen(t), end, dist, &w, &a);
        char ops[130] = "";
        if (rc == 0)
            for (size_t i = 0; i < a.n_op && i < 128; i++) ops[i] = "MXPT"[a.op[i] & 3];
        if (rc != want_rc || (rc == 0 && (a.tstart != want_start || strcmp(ops, want_ops)))) {
            diag("%s: got rc %d start %" PRIu64 " ops %s", how[h].name, rc, rc == 0 ? a.tstart : 0, ops);
            ok = 0;
        }
        gpuasm_aln_free(&a);
        gpuasm_tb_work_free(&w);
    }
    if (want_rc == 0)
        tap(ok, "traceback %s in %s end %" PRIu64 " d%d: start %" PRIu64 " ops %s (every method)",
            p, t, end, dist, want_start, want_ops);
    else
        tap(ok, "traceback %s in %s end %" PRIu64 " d%d: rejected (%d) by every method", p, t, end,
            dist, want_rc);
}

static void test_tb_hand(void)
{
    /* exact match; the start is where the copy begins */
    test_tb_case("ACG", "TTACGTT", 4, 0, 0, 2, "MMM");
    /* a mismatch beats a gap: AT/GT (start 1) rather than A vs nothing,
     * T/T (start 2), both with 1 difference */
    test_tb_case("AT", "AGT", 2, 1, 0, 1, "XM");
    /* the last column prefers MATCH over a gap: A vs A, then the first A is a PGAP */
    test_tb_case("AA", "A", 0, 1, 0, 0, "PM");
    /* pattern base left over at the end (T vs nothing) */
    test_tb_case("ACT", "GGACG", 3, 1, 0, 2, "MMP");
    /* a text base in the middle */
    test_tb_case("ACGT", "ACTGT", 4, 1, 0, 0, "MMTMM");
    /* IUPAC in the text matches (R = A|G), 0 in the pattern (N read) matches nothing */
    test_tb_case("AGA", "RRR", 2, 0, 0, 0, "MMM");
    test_tb_case("A.A", "AAA", 2, 1, 0, 0, "MXM");   /* '.': code 0 (N read) is a mismatch, not a gap */
    /* the wrong distance is refused: too small and too large */
    test_tb_case("ACG", "TTACGTT", 4, 1, -2, 0, "");
    test_tb_case("ACGT", "ACTGT", 4, 0, -2, 0, "");
    /* an end past the text is refused */
    test_tb_case("ACG", "ACG", 3, 0, -2, 0, "");
    /* dist == m: two mismatches (start 0) rather than two pattern gaps
     * against nothing (start 2); one base: X, not P */
    test_tb_case("AC", "GT", 1, 2, 0, 0, "XX");
    test_tb_case("A", "C", 0, 1, 0, 0, "X");
    test_tb_case("AC", "GT", 1, 3, -2, 0, "");

    /* gpuasm_hit_starts: "AT" ending at the T of "AGT" costs 1 from start
     * 0 (MTM), 1 (XM) and 2 (PM): the traceback's start is the middle one */
    uint8_t pb[8], tb[8];
    enc("AT", pb);
    enc("AGT", tb);
    gpuasm_tb_work w = {0};
    uint64_t lo = 9, hi = 9;
    int rc = gpuasm_hit_starts(pb, 2, tb, 3, 2, 1, &w, &lo, &hi);
    tap(rc == 0 && lo == 0 && hi == 2, "hit_starts AT in AGT end 2 d1: starts 0..2 (got rc %d, %"
        PRIu64 "..%" PRIu64 ")", rc, lo, hi);
    enc("ACG", pb);
    enc("TTACGTT", tb);
    rc = gpuasm_hit_starts(pb, 3, tb, 7, 4, 0, &w, &lo, &hi);
    tap(rc == 0 && lo == 2 && hi == 2, "hit_starts ACG in TTACGTT end 4 d0: start 2");
    rc = gpuasm_hit_starts(pb, 3, tb, 7, 4, 1, &w, &lo, &hi);
    tap(rc == -2, "hit_starts refuses a distance above the optimum (got %d)", rc);
    rc = gpuasm_hit_starts(pb, 3, tb, 7, 5, 0, &w, &lo, &hi);
    tap(rc == -2, "hit_starts refuses a distance below the optimum (got %d)", rc);
    gpuasm_tb_work_free(&w);
}

/* ---- (c) long patterns: 10 kb, 100 kb, 1 Mb ------------------------------ */

/* Traceback of end (end, dist) of a long pattern by the linear method with
 * the default budget and with a small one (more levels of checkpoints),
 * and, where m * (2 dist + 1) is small enough for the test machine, by the
 * banded method: every alignment re-walks to (end, dist) and they are all
 * equal.  Returns 1 when all of that holds. */
static int long_tracebacks(const uint8_t *p, uint32_t m, const uint8_t *t, uint64_t n,
                           uint64_t end, int32_t dist, size_t small_mem, int banded,
                           const char *what)
{
    gpuasm_tb_work wl = { .method = GPUASM_TB_LINEAR };
    gpuasm_tb_work ws = { .method = GPUASM_TB_LINEAR, .mem_bytes = small_mem };
    gpuasm_tb_work wb = { .method = GPUASM_TB_BANDED };
    gpuasm_aln a = {0}, b = {0};
    clock_t c0 = clock();
    int r = gpuasm_traceback(p, m, t, n, end, dist, &wl, &a);
    double s_lin = (double)(clock() - c0) / CLOCKS_PER_SEC;
    int ok = r == 0 && rewalk(p, m, t, n, &a, end, dist, what);
    if (r) diag("%s: linear traceback returned %d", what, r);
    c0 = clock();
    r = gpuasm_traceback(p, m, t, n, end, dist, &ws, &b);
    double s_small = (double)(clock() - c0) / CLOCKS_PER_SEC;
    if (ok && (r != 0 || !same_aln(&a, &b))) {
        diag("%s: linear traceback with %zu bytes: rc %d, start %" PRIu64 " vs %" PRIu64, what,
             small_mem, r, b.tstart, a.tstart);
        ok = 0;
    }
    /* On three threads (the pool's parts), with the default budget and
     * the small one, and on one without the seeds' bound: the same
     * alignment. */
    for (int v = 0; v < 3 && ok; v++) {
        gpuasm_tb_work wt = { .method = GPUASM_TB_LINEAR, .n_threads = v < 2 ? 3 : 1,
                              .threads_min_cells = 1, .mem_bytes = v == 1 ? small_mem : 0,
                              .seeds_min_cells = v == 2 ? UINT64_MAX : 0 };
        r = gpuasm_traceback(p, m, t, n, end, dist, &wt, &b);
        if (r != 0 || !same_aln(&a, &b)) {
            diag("%s: linear traceback, variant %d (3 threads; 3 threads, %zu bytes; no seeds): rc %d, "
                 "start %" PRIu64 " vs %" PRIu64, what, v, small_mem, r, b.tstart, a.tstart);
            ok = 0;
        }
        gpuasm_tb_work_free(&wt);
    }
    double s_band = -1;
    if (ok && banded) {
        c0 = clock();
        r = gpuasm_traceback(p, m, t, n, end, dist, &wb, &b);
        s_band = (double)(clock() - c0) / CLOCKS_PER_SEC;
        if (r != 0 || !same_aln(&a, &b)) {
            diag("%s: banded traceback: rc %d, start %" PRIu64 " vs %" PRIu64, what, r, b.tstart,
                 a.tstart);
            ok = 0;
        }
    }
    printf("# %s: end %" PRIu64 " d%d: linear %.2f s, linear %zu B %.2f s, banded %.2f s\n", what,
           end, dist, s_lin, small_mem, s_small, s_band);
    gpuasm_aln_free(&a);
    gpuasm_aln_free(&b);
    gpuasm_tb_work_free(&wl);
    gpuasm_tb_work_free(&ws);
    gpuasm_tb_work_free(&wb);
    return ok;
}

/* A pattern of m random bases with a mutated copy (rate per base) planted
 * in random flanks.  10 kb and 100 kb: the Myers twin finds every end hit
 * (checked against the banded naive DP around the copy), and the best and
 * the worst (distance k) are traced back.  1 Mb: a search is O(m^2 / 64)
 * there, too slow for a test, so the banded naive DP gives D at the copy's
 * end (exact: an alignment of cost <= k stays within k diagonals of the
 * end's) and that end is traced back. */
static void test_long(void)
{
    static const struct { uint32_t m; double rate; uint64_t flank; size_t small_mem; int search, banded; }
    cases[] = {
        { 10000, 0.05, 3000, 64 << 10, 1, 1 },
        { 100000, 0.005, 20000, 256 << 10, 1, 1 },
        { 1000000, 0.0002, 5000, 1 << 20, 0, 0 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const uint32_t m = cases[c].m;
        char what[64];
        snprintf(what, sizeof what, "long m=%u", m);
        uint8_t *p = xmalloc(m);
        rnd_seq(p, m, AL_ACGT);
        uint64_t fl = cases[c].flank, fr = cases[c].flank;
        uint8_t *t = xmalloc(fl + 2 * (uint64_t)m + fr + 1);
        rnd_seq(t, fl, AL_ACGT);
        uint64_t edits;
        uint64_t cl = mutate(p, m, cases[c].rate, AL_ACGT, t + fl, &edits);
        rnd_seq(t + fl + cl, fr, AL_ACGT);
        uint64_t n = fl + cl + fr;
        uint64_t pend = fl + cl - 1;                       /* end of the planted copy */
        int32_t k = (int32_t)edits + 100;
        int64_t d0 = (int64_t)pend + 1 - (int64_t)m;      /* its diagonal */
        /* The banded naive DP: band +-w around d0 is exact for every end
         * within w - k diagonals of pend's. */
        int64_t w = cases[c].search ? 3 * (int64_t)k : k;
        int32_t *last = xmalloc(n * sizeof(int32_t));
        clock_t c0 = clock();
        if (gpuasm_naive_dp_band(p, m, t, n, d0 - w, d0 + w, last) < 0) abort();
        printf("# %s: n=%" PRIu64 " edits=%" PRIu64 " k=%d: banded naive DP in %.2f s\n", what, n,
               edits, k, (double)(clock() - c0) / CLOCKS_PER_SEC);
        jd best = { pend, last[pend] }, worst = best;
        int ok = last[pend] <= (int32_t)edits;
        if (!ok) diag("%s: D at the copy's end is %d > %" PRIu64 " edits", what, last[pend], edits);
        if (ok && cases[c].search) {
            jd_list got = {0};
            c0 = clock();
            int rc = gpuasm_myers_cpu_pair(p, m, t, n, k, collect, &got);
            printf("# %s: %zu hits in %.2f s\n", what, got.n, (double)(clock() - c0) / CLOCKS_PER_SEC);
            uint64_t jlo = (uint64_t)(d0 - (w - k) + m - 1), jhi = (uint64_t)(d0 + (w - k) + m - 1);
            size_t g = 0;
            ok = rc == 0 && got.n > 0;
            for (size_t i = 0; i < got.n && ok; i++)
                if (got.a[i].j < jlo || got.a[i].j > jhi) {
                    diag("%s: hit at %" PRIu64 " outside the checked window %" PRIu64 "..%" PRIu64,
                         what, got.a[i].j, jlo, jhi);
                    ok = 0;
                }
            best.d = INT32_MAX;
            worst.d = -1;
            for (uint64_t j = jlo; j <= jhi && j < n && ok; j++) {
                while (g < got.n && got.a[g].j < j) g++;
                int have = g < got.n && got.a[g].j == j;
                if (have != (last[j] <= k) || (have && got.a[g].d != last[j])) {
                    diag("%s: at j=%" PRIu64 " banded naive D=%d, myers %s%d", what, j, last[j],
                         have ? "D=" : "no hit", have ? got.a[g].d : 0);
                    ok = 0;
                }
                if (have && got.a[g].d < best.d) best = got.a[g];
                if (have && got.a[g].d > worst.d) worst = got.a[g];
            }
            tap(ok && best.d <= (int32_t)edits,
                "%s: copy with %" PRIu64 " edits found, best D=%d, every hit equals the banded "
                "naive DP", what, edits, best.d == INT32_MAX ? -1 : best.d);
            free(got.a);
        }
        int ok_tb = ok && long_tracebacks(p, m, t, n, best.j, best.d, cases[c].small_mem,
                                          cases[c].banded, what);
        if (ok_tb && cases[c].search)
            ok_tb = long_tracebacks(p, m, t, n, worst.j, worst.d, cases[c].small_mem,
                                    cases[c].banded, what);
        if (cases[c].search)
            tap(ok_tb, "%s: tracebacks of the best (D=%d) and the worst (D=%d) hit re-walk to "
                "their distance; linear%s and linear with %zu KiB agree", what, best.d, worst.d,
                cases[c].banded ? ", banded" : "", cases[c].small_mem >> 10);
        else
            tap(ok_tb, "%s: traceback of the copy's end (naive D=%d) re-walks to its distance; "
                "linear with the default budget and with %zu KiB agree", what, best.d,
                cases[c].small_mem >> 10);
        free(last);
        free(p);
        free(t);
    }
}

/* ---- (f) the report: only reported hits are traced back ------------------ */

/* One expected occurrence of the reference rule below. */
typedef struct {
    uint32_t target, strand;
    int32_t dist;
    int has_xs;
    int64_t xs, score;
    uint64_t tstart, pos, m;
} ref_occ;

/* The report rule written the plain way (as report.c did before it traced
 * back only what it reports): every candidate of a (read, target), best
 * first, traced back; one whose interval overlaps an accepted one dropped;
 * the first kept, the second's score m - 2 d its XS (--all: all kept);
 * then the read's occurrences ordered as align/report.h says (score,
 * distance, aligned length, strand, target, position).  hits: one read's,
 * sorted.  Returns the occurrences in out (room for n). */
static size_t report_reference(const gpuasm_seqset *reads, uint32_t r, const gpuasm_seqset *tg,
                               const gpuasm_search_opt *opt, int all, const gpuasm_endhit *h,
                               size_t n, uint8_t *rcbuf, ref_occ *out)
{
    size_t n_out = 0;
    gpuasm_tb_work w = { .method = GPUASM_TB_BANDED };
    gpuasm_aln a = {0};
    gpuasm_endhit *c = xmalloc((n ? n : 1) * sizeof *c);
    uint64_t (*acc)[2] = xmalloc((n ? n : 1) * sizeof *acc);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && h[j].target == h[i].target) j++;
        size_t nc = j - i, n_acc = 0, first = n_out;
        memcpy(c, h + i, nc * sizeof *c);
        for (size_t x = 1; x < nc; x++)            /* rank: dist, strand, end */
            for (size_t y = x; y > 0; y--) {
                gpuasm_endhit *p = &c[y - 1], *q = &c[y];
                int later = p->dist != q->dist ? p->dist > q->dist
                          : p->strand != q->strand ? p->strand > q->strand : p->end > q->end;
                if (!later) break;
                gpuasm_endhit t = *p; *p = *q; *q = t;
            }
        for (size_t x = 0; x < nc; x++) {
            pair_def pd;
            make_pair(reads, r, tg, c[x].target, c[x].strand, opt, rcbuf, &pd);
            int rc = gpuasm_search_mode(opt) == GPUASM_MODE_HAMMING
                     ? gpuasm_hamming_alignment(pd.p, (uint32_t)pd.m, pd.t, pd.n, c[x].end, c[x].dist, &a)
                     : gpuasm_traceback(pd.p, (uint32_t)pd.m, pd.t, pd.n, c[x].end, c[x].dist, &w, &a);
            if (rc != 0) abort();
            int mirror = !gpuasm_read_is_pattern(opt, slen(reads, r), slen(tg, c[x].target)) &&
                         c[x].strand;
            uint64_t lo = mirror ? pd.n - 1 - a.tend : a.tstart, hi = mirror ? pd.n - 1 - a.tstart : a.tend;
            int ov = 0;
            for (size_t q = 0; q < n_acc && !ov; q++) ov = lo <= acc[q][1] && acc[q][0] <= hi;
            if (ov) continue;
            acc[n_acc][0] = lo;
            acc[n_acc][1] = hi;
            if (++n_acc == 2) {
                out[first].has_xs = 1;
                out[first].xs = (int64_t)pd.m - 2 * (int64_t)c[x].dist;
            }
            if (n_acc == 2 && !all) break;
            const int rip = gpuasm_read_is_pattern(opt, slen(reads, r), slen(tg, c[x].target));
            out[n_out++] = (ref_occ){ c[x].target, c[x].strand, c[x].dist, 0, 0,
                                      (int64_t)pd.m - 2 * (int64_t)c[x].dist, a.tstart,
                                      rip ? a.tstart : 0, pd.m };
        }
        i = j;
    }
    for (size_t x = 1; x < n_out; x++)             /* report.h's order, by insertion */
        for (size_t y = x; y > 0; y--) {
            ref_occ *p = &out[y - 1], *q = &out[y];
            int later = p->score != q->score ? p->score < q->score
                      : p->dist != q->dist ? p->dist > q->dist
                      : p->m != q->m ? p->m < q->m
                      : p->strand != q->strand ? p->strand > q->strand
                      : p->target != q->target ? p->target > q->target : p->pos > q->pos;
            if (!later) break;
            ref_occ t = *p; *p = *q; *q = t;
        }
    free(c);
    free(acc);
    gpuasm_aln_free(&a);
    gpuasm_tb_work_free(&w);
    return n_out;
}

/* Targets full of repeats (a unit repeated with 5% edits, between random
 * stretches) and reads cut from them, with flanks, or made of 2-4 copies
 * of a short target: many overlapping candidates per (read, target), so
 * XS and --all take every branch of report.c's overlap decision. */
static void build_repeat_sets(seqs *reads, seqs *tg)
{
    seqs_init(reads);
    seqs_init(tg);
    uint8_t *buf = xmalloc(8192), *mut = xmalloc(16384), unit[64];
    for (int t = 0; t < 8; t++) {
        uint64_t len = 0;
        if (t < 3) {                                        /* short, adapter-like */
            len = 12 + below(20);
            rnd_seq(buf, len, AL_ACGT);
        } else {
            size_t ul = 2 + (size_t)below(40);
            rnd_seq(unit, ul, AL_ACGT);
            for (int part = 0; part < 6; part++) {
                uint64_t l = 20 + below(200);
                if (chance(0.6)) {
                    uint8_t rep[1024];
                    for (uint64_t q = 0; q < l; q++) rep[q] = unit[q % ul];
                    len += mutate(rep, l, 0.05, AL_ACGT, buf + len, NULL);
                } else {
                    rnd_seq(buf + len, l, AL_ACGT);
                    len += l;
                }
            }
        }
        seqs_add(tg, buf, len);
    }
    for (int r = 0; r < 120; r++) {
        uint64_t len = 0;
        if (r % 3 == 0) {                                   /* copies of a short target */
            uint32_t t = (uint32_t)below(3);
            for (int q = 0, nq = 2 + (int)below(3); q < nq; q++) {
                uint64_t f = below(30);
                rnd_seq(buf + len, f, AL_ACGT);
                len += f;
                uint64_t l = mutate(tg->code + tg->off[t], tg->off[t + 1] - tg->off[t], 0.05,
                                    AL_ACGT, mut, NULL);
                if (chance(0.5)) revcomp(mut, l, buf + len); else memcpy(buf + len, mut, l);
                len += l;
            }
        } else {                                            /* a piece of a repeat target */
            uint32_t t = 3 + (uint32_t)below(5);
            uint64_t tl = tg->off[t + 1] - tg->off[t], a = below(tl), l = 8 + below(250);
            if (a + l > tl) l = tl - a;
            uint64_t ml = mutate(tg->code + tg->off[t] + a, l, 0.04, AL_ACGT, mut, NULL);
            uint64_t f = chance(0.5) ? below(20) : 0;
            rnd_seq(buf, f, AL_ACGT);
            if (chance(0.5)) revcomp(mut, ml, buf + f); else memcpy(buf + f, mut, ml);
            len = f + ml;
        }
        seqs_add(reads, buf, len);
    }
    free(buf);
    free(mut);
}

static void test_report(void)
{
    static const struct { const char *name; gpuasm_search_opt opt; } cases[] = {
        { "e=0.2 shorter", { .max_diffs = -1, .error_rate = 0.2 } },
        { "k=3 shorter", { .max_diffs = 3 } },
        { "e=0.3 read", { .max_diffs = -1, .error_rate = 0.3, .pattern_side = GPUASM_PATTERN_READ } },
        { "e=0.2 target", { .max_diffs = -1, .error_rate = 0.2, .pattern_side = GPUASM_PATTERN_TARGET } },
        { "hamming e=0.15", { .max_diffs = -1, .error_rate = 0.15, .kernel = GPUASM_KERNEL_HAMMING } },
    };
    seqs rs, ts;
    build_repeat_sets(&rs, &ts);
    gpuasm_seqset reads = view(&rs), tg = view(&ts);
    char *names[8] = { "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7" };
    gpuasm_targets tt = { .n = tg.n, .name = names, .off = (uint64_t *)tg.off,
                          .code = (uint8_t *)tg.code, .set = tg };
    uint64_t maxr = 1;
    for (uint32_t r = 0; r < reads.n; r++) if (slen(&reads, r) > maxr) maxr = slen(&reads, r);
    uint8_t *rcbuf = xmalloc(maxr);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gpuasm_hits h = {0};
        int32_t kernel = g_kernel;           /* naive_last() follows the kernel under test */
        g_kernel = cases[c].opt.kernel;
        expected_hits(&reads, &tg, &cases[c].opt, &h);
        g_kernel = kernel;
        gpuasm_hits_sort(&h);
        for (int all = 0; all < 2; all++) {
            gpuasm_report rep;
            memset(&rep, 0, sizeof rep);
            gpuasm_report_opt ro = { .all = all };
            ref_occ *want = xmalloc((h.n ? h.n : 1) * sizeof *want);
            size_t pos = 0, n_occ = 0, n_xs = 0, n_multi = 0;
            int ok = 1;
            for (uint32_t r = 0; r < reads.n && ok; r++) {
                size_t h0 = pos;
                while (pos < h.n && h.hit[pos].read == r) pos++;
                size_t nw = report_reference(&reads, r, &tg, &cases[c].opt, all, h.hit + h0,
                                             pos - h0, rcbuf, want);
                char err[256];
                if (gpuasm_report_read(&rep, &cases[c].opt, &ro, sseq(&reads, r),
                                       (uint32_t)slen(&reads, r), &tt, h.hit + h0, pos - h0, err,
                                       sizeof err) != 0) {
                    diag("report %s read %u: %s", cases[c].name, r, err);
                    ok = 0;
                    break;
                }
                ok = rep.n_occ == nw;
                for (size_t q = 0; q < nw && ok; q++) {
                    const gpuasm_occ *g = &rep.occ[q];
                    int rip = gpuasm_read_is_pattern(&cases[c].opt, slen(&reads, r), slen(&tg, g->target));
                    uint32_t c0 = rep.cigar[g->cigar_off];
                    uint64_t clip = bam_cigar_op(c0) == BAM_CSOFT_CLIP ? bam_cigar_oplen(c0) : 0;
                    ok = g->target == want[q].target && g->strand == want[q].strand &&
                         g->dist == want[q].dist && g->has_xs == want[q].has_xs &&
                         (!g->has_xs || g->xs == want[q].xs) && g->score == want[q].score &&
                         (rip ? (uint64_t)g->pos == want[q].tstart : clip == want[q].tstart);
                    n_xs += want[q].has_xs;
                }
                if (!ok)
                    diag("report %s%s read %u: %zu occurrences, the plain rule %zu (first: t%u s%u "
                         "d%d xs%" PRId64 " start %" PRIu64 ")", cases[c].name, all ? " --all" : "", r,
                         rep.n_occ, nw, nw ? want[0].target : 0, nw ? want[0].strand : 0,
                         nw ? want[0].dist : 0, nw ? want[0].xs : 0, nw ? want[0].tstart : 0);
                n_occ += nw;
                for (size_t q = 1; q < nw; q++)
                    for (size_t q2 = 0; q2 < q; q2++) n_multi += want[q].target == want[q2].target;
            }
            tap(ok && n_xs > 0 && (!all || n_multi > 0),
                "report %s%s: %zu occurrences (%zu XS, %zu second occurrences of a target) equal "
                "the rule with every candidate traced back (%zu candidates)", cases[c].name,
                all ? " --all" : "", n_occ, n_xs, n_multi, h.n);
            free(want);
            gpuasm_report_free(&rep);
        }
        gpuasm_hits_free(&h);
    }
    free(rcbuf);
    seqs_free(&rs);
    seqs_free(&ts);
}

/* ---- main ---------------------------------------------------------------- */

/* ---- (d) long patterns through the engine ---------------------------------- */

/* Expected hits of every pair of (reads, tg) from gpuasm_myers_cpu_pair,
 * which (a) and test_long check against the naive DP; the naive DP itself
 * is too slow for 100 kb x 150 kb. */
static void expected_hits_myers(const gpuasm_seqset *reads, const gpuasm_seqset *tg,
                                const gpuasm_search_opt *opt, gpuasm_hits *out)
{
    uint64_t maxr = 1;
    for (uint32_t r = 0; r < reads->n; r++) if (slen(reads, r) > maxr) maxr = slen(reads, r);
    uint8_t *rc = xmalloc(maxr);
    out->n = 0;
    for (uint32_t r = 0; r < reads->n; r++)
        for (uint32_t t = 0; t < tg->n; t++)
            for (uint32_t st = 0; st < 2; st++) {
                pair_def pd;
                if (!make_pair(reads, r, tg, t, st, opt, rc, &pd)) continue;
                jd_list l = {0};
                if (gpuasm_myers_cpu_pair(pd.p, (uint32_t)pd.m, pd.t, pd.n, pd.k, collect, &l) < 0)
                    abort();
                /* D along the text, with k + 1 standing for "more than k". */
                int32_t *D = xmalloc(pd.n * sizeof(int32_t));
                for (uint64_t j = 0; j < pd.n; j++) D[j] = pd.k + 1;
                for (size_t i = 0; i < l.n; i++) D[l.a[i].j] = l.a[i].d;
                for (uint64_t j = 0; j < pd.n; j++)
                    if (local_min(D, pd.n, j, pd.k)) {
                        gpuasm_endhit e = { r, t, (uint32_t)j, D[j], st };
                        if (gpuasm_hits_push(out, e) < 0) abort();
                    }
                free(D);
                free(l.a);
            }
    free(rc);
}

/* The long cases through the engine (so through the CUDA kernel's
 * multi-word path when GPUASM_TEST_DEVICE=cuda): a 1,000-base read (a
 * MinION-like copy with 5% edits, reverse strand) against a 30 kb genome,
 * a 10,000-base read (8% edits; the LONG path's m > 4096 with
 * GPUASM_CUDA_LONG=1) against a 50 kb genome, and a 100,000-base pattern
 * against a 150 kb text. */
static void test_engine_long(const char *device)
{
    gpuasm_err err, warn;
    gpuasm_engine *e = NULL;
    if (gpuasm_engine_open(device, 2, &e, &err, &warn) != 0) {
        tap(0, "engine long: open %s: %s", device, err.msg);
        return;
    }
    static const struct { const char *name; uint64_t glen, rlen; double rate; int32_t k; double e; }
    cases[] = {
        { "1,000-base read (5% edits) vs 30 kb genome, -e 0.08", 30000, 1000, 0.05, -1, 0.08 },
        { "10,000-base read (8% edits) vs 50 kb genome, -e 0.1", 50000, 10000, 0.08, -1, 0.1 },
        { "100,000-base pattern (0.3% edits) vs 150 kb text, -k 600", 150000, 100000, 0.003, 600, 0 },
    };
    /* GPUASM_TEST_LONG=0: not the 100,000-base pattern (the GPU suite's
     * knob runs force paths that it never takes: it runs once, in the
     * default run). */
    const char *long_s = getenv("GPUASM_TEST_LONG");
    const size_t all = sizeof cases / sizeof cases[0];
    const size_t n_cases = long_s && !strcmp(long_s, "0") ? all - 1 : all;
    if (n_cases < all) printf("# the 100,000-base pattern case is not run (GPUASM_TEST_LONG=0)\n");
    for (size_t c = 0; c < n_cases; c++) {
        seqs reads, tg;
        seqs_init(&reads);
        seqs_init(&tg);
        uint8_t *g = xmalloc(cases[c].glen), *copy = xmalloc(2 * cases[c].rlen + 16);
        uint8_t *rc = xmalloc(2 * cases[c].rlen + 16);
        rnd_seq(g, cases[c].glen, AL_ACGT);
        uint64_t at = below(cases[c].glen - cases[c].rlen), edits;
        uint64_t cl = mutate(g + at, cases[c].rlen, cases[c].rate, AL_ACGT, copy, &edits);
        revcomp(copy, cl, rc);                     /* the read comes from the minus strand */
        seqs_add(&tg, g, cases[c].glen);
        seqs_add(&reads, rc, cl);
        gpuasm_seqset rv = view(&reads), tv = view(&tg);
        gpuasm_search_opt opt = { cases[c].k, cases[c].e, GPUASM_PATTERN_SHORTER, g_kernel, 0, 0, 0 };
        gpuasm_hits want = {0}, got = {0};
        expected_hits_myers(&rv, &tv, &opt, &want);
        gpuasm_hits_sort(&want);
        uint32_t cut = 0;
        int ok = gpuasm_engine_set_targets(e, &tv, &err) == 0;
        if (!ok) diag("%s: set_targets: %s", cases[c].name, err.msg);
        ok = ok && engine_run(e, &rv, &cut, 0, &opt, &got) && same_hits(&got, &want, cases[c].name);
        int32_t best = INT32_MAX;
        for (size_t i = 0; i < want.n; i++)
            if (want.hit[i].strand == 1 && want.hit[i].dist < best) best = want.hit[i].dist;
        if (ok && best > (int32_t)edits) {
            diag("%s: planted copy (%" PRIu64 " edits) not found on the minus strand (best %d)",
                 cases[c].name, edits, best);
            ok = 0;
        }
        tap(ok, "engine %s on %s: %zu hits equal the CPU twin's, planted copy found (%" PRIu64
            " edits, best %d)", cases[c].name, device, want.n, edits, best);
        gpuasm_hits_free(&want);
        gpuasm_hits_free(&got);
        free(g);
        free(copy);
        free(rc);
        seqs_free(&reads);
        seqs_free(&tg);
    }
    gpuasm_engine_close(e);
}

/* The ends pass for long patterns (issue #11; on CUDA partial_cuda.cu's
 * warp path, k_partial_warp) through the engine, against partial.h's
 * gpuasm_partial_best() (the CPU twin) called here on the pairs as
 * make_pair() writes them out: the same partial hits (kind, plen, dist) for
 * every (read, target, strand, end).  Reads of 300 .. 20,000 bases are the
 * patterns (--pattern-side read, or the shorter side), e = 0.05 .. 0.25,
 * both ends; the targets hold mutated pieces of the reads (either strand)
 * at their ends, IUPAC codes in some, and are shorter and longer than
 * W = m - 1 + k_{m-1}. */
static void test_engine_long_partial(const char *device)
{
    static const struct { const char *name; double e; int32_t side, omin; uint32_t rlen[3], tlen[3]; int al; }
    cases[] = {
        { "e=0.05 read side, omin half", 0.05, GPUASM_PATTERN_READ, -1, { 300, 2600, 9000 }, { 6000, 2700, 12000 }, AL_ACGT },
        { "e=0.1 shorter side, omin 200", 0.10, GPUASM_PATTERN_SHORTER, 200, { 1500, 5000, 11000 }, { 16000, 5300, 1700 }, AL_IUPAC },
        { "e=0.2 read side, omin half", 0.20, GPUASM_PATTERN_READ, -1, { 20000, 700, 4097 }, { 18000, 25000, 800 }, AL_ACGT },
        { "e=0.25 read side, omin 1", 0.25, GPUASM_PATTERN_READ, 1, { 3000, 520, 6000 }, { 3400, 7800, 5500 }, AL_N },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        seqs reads, tg;
        seqs_init(&reads);
        seqs_init(&tg);
        uint8_t *buf = xmalloc(80000), *mut = xmalloc(80000), *rcb = xmalloc(80000);
        for (int r = 0; r < 3; r++) {
            rnd_seq(buf, cases[c].rlen[r], cases[c].al);
            seqs_add(&reads, buf, cases[c].rlen[r]);
        }
        /* Target t: random, with pieces of read t (strand t & 1) at its end
         * (a prefix of the read) and read t+1 at its start (a suffix). */
        for (int t = 0; t < 3; t++) {
            uint64_t n = cases[c].tlen[t];
            rnd_seq(buf, n, cases[c].al);
            for (int at_start = 0; at_start < 2; at_start++) {
                uint32_t r = (uint32_t)(t + at_start) % 3;
                uint64_t m = reads.off[r + 1] - reads.off[r];
                const uint8_t *rs = reads.code + reads.off[r];
                if (t & 1) { revcomp(rs, m, rcb); rs = rcb; }
                uint64_t p = m / 2 + below(m / 2);
                uint64_t lf = mutate(at_start ? rs + (m - p) : rs, p, cases[c].e * 0.5, AL_ACGT, mut, NULL);
                uint64_t l = lf > n / 2 ? n / 2 : lf;   /* a short text holds the piece's outer part */
                if (at_start) memcpy(buf, mut + (lf - l), l);
                else memcpy(buf + (n - l), mut, l);
            }
            seqs_add(&tg, buf, n);
        }
        gpuasm_seqset rv = view(&reads), tv = view(&tg);
        gpuasm_search_opt opt = { -1, cases[c].e, cases[c].side, g_kernel, 0, 0, 0 };
        opt.read_overlap_min = cases[c].omin;
        opt.overlap_min = 150;   /* targets shorter than the read are the patterns (shorter side) */
        opt.partial_ends = GPUASM_END_3 | GPUASM_END_5;
        /* The oracle: gpuasm_partial_best on make_pair()'s pattern and text. */
        gpuasm_hits want = {0}, got = {0}, gotp = {0};
        size_t longer = 0, shorter = 0;
        for (uint32_t r = 0; r < rv.n; r++)
            for (uint32_t t = 0; t < tv.n; t++)
                for (uint32_t st = 0; st < 2; st++) {
                    pair_def pd;
                    if (!make_pair(&rv, r, &tv, t, st, &opt, rcb, &pd)) continue;
                    const int rip = gpuasm_read_is_pattern(&opt, slen(&rv, r), slen(&tv, t));
                    gpuasm_pair pr = gpuasm_pair_of(&opt, slen(&rv, r), slen(&tv, t));
                    if (!pr.searched) continue;
                    const uint32_t omin = gpuasm_pair_overlap_min(&opt, rip, pd.m);
                    if (!omin) continue;
                    const int32_t sfloor = gpuasm_pair_partial_floor(&opt, rip);
                    const int32_t kmax = gpuasm_partial_kf(&opt, sfloor, pd.m - 1, pd.m);
                    if (pd.m - 1 + (uint64_t)kmax > pd.n) shorter++;
                    else longer++;
                    gpuasm_seqview pv = { pd.p, (uint32_t)pd.m, 0 }, xv = { pd.t, (uint32_t)pd.n, 0 };
                    uint64_t *ws = xmalloc(gpuasm_partial_ws_words((uint32_t)pd.m) * sizeof(uint64_t));
                    for (int at_start = 0; at_start < 2; at_start++) {
                        gpuasm_partial b = gpuasm_partial_best(&opt, omin, sfloor, &pv, &xv, at_start, 0, ws);
                        if (!b.plen) continue;
                        gpuasm_endhit e = { r, t, at_start ? 0u : (uint32_t)(pd.n - 1), b.dist, (uint16_t)st,
                                            (uint16_t)(at_start ? GPUASM_HIT_TEXT_START : GPUASM_HIT_TEXT_END),
                                            b.plen };
                        if (gpuasm_hits_push(&want, e) < 0) abort();
                    }
                    free(ws);
                }
        gpuasm_hits_sort(&want);
        gpuasm_err err, warn;
        gpuasm_engine *e = NULL;
        int ok = gpuasm_engine_open(device, 2, &e, &err, &warn) == 0;
        if (!ok) diag("open %s: %s", device, err.msg);
        ok = ok && gpuasm_engine_set_targets(e, &tv, &err) == 0;
        ok = ok && engine_run(e, &rv, NULL, 0, &opt, &got);
        for (size_t i = 0; ok && i < got.n; i++)
            if (got.hit[i].kind != GPUASM_HIT_FULL && gpuasm_hits_push(&gotp, got.hit[i]) < 0) abort();
        gpuasm_hits_sort(&gotp);
        char what[160];
        snprintf(what, sizeof what, "engine long ends pass %s", cases[c].name);
        ok = ok && same_hits(&gotp, &want, what);
        tap(ok && want.n > 0 && shorter > 0 && longer > 0,
            "%s on %s: %zu partial hits equal gpuasm_partial_best's (%zu pairs with a text shorter than m - 1 + k_{m-1}, %zu not)",
            what, device, want.n, shorter, longer);
        if (e) gpuasm_engine_close(e);
        gpuasm_hits_free(&want);
        gpuasm_hits_free(&got);
        gpuasm_hits_free(&gotp);
        free(buf);
        free(mut);
        free(rcb);
        seqs_free(&reads);
        seqs_free(&tg);
    }
}

/* ---- (e) the byte alphabet through the engine -------------------------------- */

/* Texts of random bytes with mutated copies of byte patterns, searched with
 * GPUASM_ALPHABET_BYTE (strand 0 only), against the naive oracle. */
static void test_engine_byte(const char *device)
{
    static const unsigned sigmas[] = { 4, 26, 64, 256 };
    for (size_t q = 0; q < sizeof sigmas / sizeof sigmas[0]; q++) {
        unsigned sigma = sigmas[q];
        seqs rs, ts;
        seqs_init(&rs);
        seqs_init(&ts);
        uint8_t *buf = xmalloc(8192), *mut = xmalloc(512);
        static const uint64_t plen[] = { 4, 9, 31, 64 };
        for (size_t t = 0; t < 4; t++) {
            rnd_bytes(buf, plen[t], sigma);
            seqs_add(&ts, buf, plen[t]);
        }
        for (int r = 0; r < 60; r++) {
            uint64_t n = 0, len = below(3) ? 200 + below(2000) : below(60);
            while (n < len) {
                if (chance(0.3)) {
                    uint32_t t = (uint32_t)below(4);
                    n += mutate_bytes(ts.code + ts.off[t], ts.off[t + 1] - ts.off[t],
                                      0.08, sigma, buf + n);
                } else {
                    uint64_t f = 1 + below(50);
                    rnd_bytes(buf + n, f, sigma);
                    n += f;
                }
                if (n > 4000) break;
            }
            seqs_add(&rs, buf, n);
        }
        gpuasm_seqset reads = view(&rs), tg = view(&ts);
        static const struct { int32_t k; double e; } ke[] = { { 0, 0 }, { 2, 0 }, { -1, 0.1 } };
        for (size_t c = 0; c < 3; c++) {
            gpuasm_search_opt opt = { ke[c].k, ke[c].e, GPUASM_PATTERN_SHORTER, g_kernel,
                                      GPUASM_ALPHABET_BYTE, 0, 0 };
            gpuasm_hits want = {0}, got = {0};
            expected_hits(&reads, &tg, &opt, &want);
            gpuasm_hits_sort(&want);
            gpuasm_err err, warn;
            char what[160];
            gpuasm_engine *e = NULL;
            int ok = gpuasm_engine_open(device, 2, &e, &err, &warn) == 0;
            if (!ok) diag("open %s: %s", device, err.msg);
            ok = ok && gpuasm_engine_set_targets(e, &tg, &err) == 0;
            uint32_t cuts[1] = { reads.n / 2 };
            snprintf(what, sizeof what, "engine %s byte alphabet sigma=%u k=%d e=%.2f",
                     gpuasm_kernel_get(g_kernel)->name, sigma, ke[c].k, ke[c].e);
            ok = ok && engine_run(e, &reads, cuts, 1, &opt, &got) && same_hits(&got, &want, what);
            tap(ok && want.n > 0, "%s on %s: %zu hits equal the naive %s", what, device, want.n,
                is_hamming() ? "Hamming count" : "DP");
            if (e) gpuasm_engine_close(e);
            gpuasm_hits_free(&want);
            gpuasm_hits_free(&got);
        }
        free(buf);
        free(mut);
        seqs_free(&rs);
        seqs_free(&ts);
    }
}

/* The scan kernel (and Myers on bytes) refuse patterns past 64 bases with a
 * message, on every backend, rather than giving partial answers. */
static void test_pattern_limit(const char *device)
{
    if (!max_m()) return;
    seqs rs, ts;
    seqs_init(&rs);
    seqs_init(&ts);
    uint8_t buf[200];
    rnd_seq(buf, 65, AL_ACGT);
    seqs_add(&ts, buf, 65);
    rnd_seq(buf, 200, AL_ACGT);
    seqs_add(&rs, buf, 200);
    gpuasm_seqset reads = view(&rs), tg = view(&ts);
    gpuasm_search_opt opt = { 3, 0, GPUASM_PATTERN_SHORTER, g_kernel, 0, 0, 0 };
    gpuasm_err err = { 0 }, warn;
    gpuasm_engine *e = NULL;
    gpuasm_hits h = {0};
    int opened = gpuasm_engine_open(device, 1, &e, &err, &warn) == 0 &&
                 gpuasm_engine_set_targets(e, &tg, &err) == 0;
    int rc = opened ? gpuasm_engine_scan(e, &reads, &opt, &h, &err) : 0;
    tap(opened && rc < 0 && strstr(err.msg, "at most 64") && strstr(err.msg, "65"),
        "%s on %s refuses a 65-base pattern: %s", gpuasm_kernel_get(g_kernel)->name, device, err.msg);
    /* 64 bases is fine. */
    seqs_free(&ts);
    seqs_init(&ts);
    rnd_seq(buf, 64, AL_ACGT);
    seqs_add(&ts, buf, 64);
    tg = view(&ts);
    rc = opened && gpuasm_engine_set_targets(e, &tg, &err) == 0
         ? gpuasm_engine_scan(e, &reads, &opt, &h, &err) : -1;
    tap(rc == 0, "%s on %s takes a 64-base pattern", gpuasm_kernel_get(g_kernel)->name, device);
    if (e) gpuasm_engine_close(e);
    gpuasm_hits_free(&h);
    seqs_free(&rs);
    seqs_free(&ts);
}

/* Hamming's long case: a 1,000-base read with 3% substitutions (no indels)
 * against a 30 kb genome, and a 5,000-base one vs 100 kb, naive oracle. */
static void test_engine_long_hamming(const char *device)
{
    static const struct { uint64_t glen, rlen; } cases[] = { { 30000, 1000 }, { 100000, 5000 } };
    for (size_t c = 0; c < 2; c++) {
        seqs reads, tg;
        seqs_init(&reads);
        seqs_init(&tg);
        uint8_t *g = xmalloc(cases[c].glen), *copy = xmalloc(cases[c].rlen), *rc = xmalloc(cases[c].rlen);
        rnd_seq(g, cases[c].glen, AL_ACGT);
        uint64_t at = below(cases[c].glen - cases[c].rlen), subs = 0;
        for (uint64_t i = 0; i < cases[c].rlen; i++) {
            copy[i] = g[at + i];
            if (chance(0.03)) {
                uint8_t b;
                do b = rnd_base(AL_ACGT); while (b == copy[i]);
                copy[i] = b;
                subs++;
            }
        }
        revcomp(copy, cases[c].rlen, rc);
        seqs_add(&tg, g, cases[c].glen);
        seqs_add(&reads, rc, cases[c].rlen);
        gpuasm_seqset rv = view(&reads), tv = view(&tg);
        gpuasm_search_opt opt = { -1, 0.05, GPUASM_PATTERN_SHORTER, g_kernel, 0, 0, 0 };
        gpuasm_hits want = {0}, got = {0};
        expected_hits(&rv, &tv, &opt, &want);
        gpuasm_hits_sort(&want);
        gpuasm_err err, warn;
        gpuasm_engine *e = NULL;
        int ok = gpuasm_engine_open(device, 2, &e, &err, &warn) == 0 &&
                 gpuasm_engine_set_targets(e, &tv, &err) == 0;
        uint32_t cut = 0;
        ok = ok && engine_run(e, &rv, &cut, 0, &opt, &got) && same_hits(&got, &want, "hamming long");
        int found = 0;
        for (size_t i = 0; i < want.n; i++)
            found |= want.hit[i].strand == 1 && want.hit[i].end == at + cases[c].rlen - 1 &&
                     want.hit[i].dist == (int32_t)subs;
        tap(ok && found, "engine hamming %" PRIu64 "-base read (%" PRIu64 " substitutions) vs %"
            PRIu64 " bases on %s: %zu hits equal the naive count, planted copy found",
            cases[c].rlen, subs, cases[c].glen, device, want.n);
        if (e) gpuasm_engine_close(e);
        gpuasm_hits_free(&want);
        gpuasm_hits_free(&got);
        free(g);
        free(copy);
        free(rc);
        seqs_free(&reads);
        seqs_free(&tg);
    }
}

int main(void)
{
    const char *device = getenv("GPUASM_TEST_DEVICE");
    if (!device || !*device) device = "cpu";
    const char *seed_s = getenv("GPUASM_TEST_SEED");
    uint64_t seed = seed_s && *seed_s ? strtoull(seed_s, NULL, 0) : 20240601;

    /* A CUDA run without CUDA is a skip, decided before any test line. */
    if (strncmp(device, "cuda", 4) == 0) {
        gpuasm_engine *e = NULL;
        gpuasm_err err, warn;
        if (gpuasm_engine_open(device, 1, &e, &err, &warn) != 0) {
            printf("1..0 # SKIP no CUDA device (%s)\n", err.msg);
            return 77;
        }
        gpuasm_engine_close(e);
    }
    const char *kernel_s = getenv("GPUASM_TEST_KERNEL");
    if (kernel_s && *kernel_s) {
        int32_t k = gpuasm_kernel_find(kernel_s);
        if (k < 0) {
            printf("Bail out! unknown GPUASM_TEST_KERNEL '%s'\n", kernel_s);
            return 1;
        }
        g_kernel = k;
    }
    const char *variant_s = getenv("GPUASM_TEST_VARIANT");
    if (variant_s && *variant_s) {
        if (!strcmp(variant_s, "best")) g_variant = GPUASM_VARIANT_BEST;
        else if (!strcmp(variant_s, "paper")) g_variant = GPUASM_VARIANT_PAPER;
        else if (!strcmp(variant_s, "thread")) g_variant = GPUASM_VARIANT_THREAD;
        else {
            printf("Bail out! unknown GPUASM_TEST_VARIANT '%s'\n", variant_s);
            return 1;
        }
    }
    const char *seg_s = getenv("GPUASM_TEST_SEGMENTS");
    if (seg_s && *seg_s) g_segments = (int32_t)strtol(seg_s, NULL, 10);
    printf("# seed %" PRIu64 ", device %s, kernel %s, variant %s, segments %d\n", seed, device,
           gpuasm_kernel_get(g_kernel)->name, variant_s && *variant_s ? variant_s : "best", g_segments);
    clock_t c0 = clock();

    rng = seed;
    test_pairs();
    rng = seed ^ 0xb1e;
    test_pairs_byte();
    printf("# (a) done at %.1f s\n", (double)(clock() - c0) / CLOCKS_PER_SEC);
    rng = seed ^ 0x5eed0b;
    test_engine(device);
    printf("# (b) done at %.1f s\n", (double)(clock() - c0) / CLOCKS_PER_SEC);
    if (g_kernel == GPUASM_KERNEL_MYERS) {
        test_tb_hand();
        rng = seed ^ 0x10c;
        /* CPU only, so the GPU suite's knob runs (GPUASM_TEST_LONG=0)
         * would only repeat it. */
        const char *long_s = getenv("GPUASM_TEST_LONG");
        if (long_s && !strcmp(long_s, "0"))
            printf("# the 10 kb / 100 kb / 1 Mb traceback cases are not run (GPUASM_TEST_LONG=0)\n");
        else
            test_long();
    }
    rng = seed ^ 0x1046;
    if (is_hamming()) test_engine_long_hamming(device);
    else if (!max_m()) test_engine_long(device);
    if (g_kernel == GPUASM_KERNEL_MYERS) {
        rng = seed ^ 0xe4d5;
        test_engine_long_partial(device);
    }
    rng = seed ^ 0xb7e;
    test_engine_byte(device);
    test_pattern_limit(device);
    if (g_kernel == GPUASM_KERNEL_MYERS) {
        rng = seed ^ 0x4e90;
        test_report();
    }

    printf("1..%d\n", n_tests);
    printf("# %d of %d failed, %.1f s CPU\n", n_failed, n_tests,
           (double)(clock() - c0) / CLOCKS_PER_SEC);
    return n_failed ? 1 : 0;
}
