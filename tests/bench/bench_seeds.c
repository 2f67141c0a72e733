/* SPDX-License-Identifier: MIT */
/* bench_seeds -- the seed papers' headline experiments on our kernels
 * (issue #4, "Reproductions"; tests/bench/seeds.md explains each table).
 *
 *   bench_seeds table1  [OPTIONS]   seed 000 Table I: dp kernel, D segments
 *   bench_seeds bible   --data DIR  seed 003 Tabela 4.1: Myers on the KJV
 *   bench_seeds hamming --genome FA seed 004 Figs. 13-14: k-mismatch
 *   bench_seeds scan    [OPTIONS]   seed 002 Fig. 12: Gbit/s for k = 0, 1, 2
 *   bench_seeds all --data DIR --genome FA   the four, one engine
 *
 * OPTIONS: --device D (cuda, cpu, ... as gpuasm-scan; default cuda),
 * --threads T (CPU backend; default: online CPUs), --reps R (timed runs
 * after one warm-up; default 3), --quick (small sizes, 1 rep: the CPU smoke
 * test), --budget-s S (rows that would start after S seconds are printed
 * as "skipped: budget"; default 0 = no limit), --n N (text length of
 * table1 / scan), --k K (hamming: one k for every m instead of m/10).
 *
 * Output: TSV on stdout.  Lines starting with '#' are metadata (device,
 * options, column names); every other line is one measurement:
 *   exp case kernel variant alphabet strands m n k segments
 *   kernel_s wall_s cells rate unit hits reps status
 * kernel_s is the best over the timed runs of the device time of the
 * search kernels (gpuasm_engine_stats: CUDA events; on the CPU it equals
 * the wall time); wall_s the best wall time of the whole
 * gpuasm_engine_scan() call (copies, kernels, hit return, sort).  cells =
 * m x n x strands (search.h), rate = cells / kernel_s / 1e9 (GCUPS) or, for
 * scan, text bits / kernel_s / 1e9 (Gbit/s, 8 bits per character as in
 * seed 002).  hits = end hits (local minima, search.h) of the last run.
 * status is "ok", "error: ..." (the row's kernel failed; the run goes on),
 * "MISMATCH: ..." (hits differ from the reference the row names), or
 * "skipped: ...".  Timings are for BENCHMARKS.md, never a test; the hit
 * checks are real (exit status 2 when any row says MISMATCH).
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <htslib/hts.h>   /* seq_nt16_table */

#include "engine/engine.h"
#include "kernels/registry.h"
#include "bench_common.h"

/* Runs whose warm-up takes longer than this are timed once (the budget). */
#define SLOW_WARMUP_S 5.0

typedef struct {
    const char *device;
    int threads, reps, quick;
    double budget_s, t_start;
    const char *data, *genome;
    uint64_t n;          /* --n, 0: default */
    int hamming_k;       /* --k, -1: floor(m / 10) */
    int mismatches;      /* rows that said MISMATCH */
} cfg_t;

typedef struct {
    double kernel_s, wall_s, cells;
    size_t hits;
    int reps;
    char status[640];
    int ok;
} meas_t;

static const char *alpha_name(int a) { return a == GPUASM_ALPHABET_BYTE ? "byte" : "nt16"; }

static const char *variant_name(const gpuasm_search_opt *o)
{
    if (o->kernel != GPUASM_KERNEL_HAMMING && o->kernel != GPUASM_KERNEL_DP) return "-";
    switch (o->variant) {
    case GPUASM_VARIANT_PAPER: return "paper";
    case GPUASM_VARIANT_THREAD: return "thread";
    default: return "best";
    }
}

static int over_budget(const cfg_t *c)
{
    return c->budget_s > 0 && now() - c->t_start > c->budget_s;
}

/* One warm-up scan, then up to c->reps timed ones: the best kernel time and
 * the best wall time (separately), the cells of one run, the hits of the
 * last.  Hits must not change between runs (the kernels are deterministic
 * in their set of hits).  Returns 0, or -1 with r->status set. */
static int measure(cfg_t *c, gpuasm_engine *e, const gpuasm_seqset *reads,
                   const gpuasm_search_opt *opt, meas_t *r)
{
    memset(r, 0, sizeof *r);
    if (over_budget(c)) {
        snprintf(r->status, sizeof r->status, "skipped: budget of %g s spent", c->budget_s);
        return -1;
    }
    gpuasm_hits h = { 0 };
    gpuasm_err err;
    gpuasm_scan_stats a, b;
    double t0 = now();
    if (gpuasm_engine_scan(e, reads, opt, &h, &err) < 0) {
        snprintf(r->status, sizeof r->status, "error: %s", err.msg);
        gpuasm_hits_free(&h);
        return -1;
    }
    double warm = now() - t0;
    size_t hits0 = h.n;
    int reps = c->reps;
    if (warm > SLOW_WARMUP_S && reps > 1) reps = 1;
    r->kernel_s = r->wall_s = INFINITY;
    for (int i = 0; i < reps; i++) {
        gpuasm_engine_stats(e, &a);
        t0 = now();
        if (gpuasm_engine_scan(e, reads, opt, &h, &err) < 0) {
            snprintf(r->status, sizeof r->status, "error (timed run %d): %s", i + 1, err.msg);
            gpuasm_hits_free(&h);
            return -1;
        }
        double w = now() - t0;
        gpuasm_engine_stats(e, &b);
        double k = b.kernel_s - a.kernel_s;
        if (k < r->kernel_s) r->kernel_s = k;
        if (w < r->wall_s) r->wall_s = w;
        r->cells = b.cells - a.cells;
        if (h.n != hits0) {
            snprintf(r->status, sizeof r->status, "MISMATCH: %zu hits in the warm-up, %zu in timed run %d",
                     hits0, h.n, i + 1);
            c->mismatches++;
            r->reps = i + 1;
            r->hits = h.n;
            gpuasm_hits_free(&h);
            return 0;
        }
    }
    r->reps = reps;
    r->hits = h.n;
    r->ok = 1;
    if (reps < c->reps)
        snprintf(r->status, sizeof r->status, "ok (1 timed run: the warm-up took %.1f s)", warm);
    else
        snprintf(r->status, sizeof r->status, "ok");
    gpuasm_hits_free(&h);
    return 0;
}

/* Compare a row's hits with a reference count (another kernel, a naive
 * count); turns an "ok" status into MISMATCH when they differ. */
static void check_hits(cfg_t *c, meas_t *r, size_t want, const char *what)
{
    if (!r->ok || r->hits == want) return;
    snprintf(r->status, sizeof r->status, "MISMATCH: %zu hits, %s gives %zu", r->hits, what, want);
    r->ok = 0;
    c->mismatches++;
}

static void print_row(const char *exp, const char *cas, const gpuasm_search_opt *o,
                      uint64_t m, uint64_t n, int32_t k, const meas_t *r, int gbit)
{
    char ks[32] = "NA", ws[32] = "NA", cs[32] = "NA", rs[32] = "NA", hs[32] = "NA";
    if (r->reps > 0) {
        snprintf(ks, sizeof ks, "%.6g", r->kernel_s);
        snprintf(ws, sizeof ws, "%.6g", r->wall_s);
        snprintf(cs, sizeof cs, "%.6g", r->cells);
        snprintf(hs, sizeof hs, "%zu", r->hits);
        double rate = gbit ? 8.0 * (double)n / r->kernel_s / 1e9 : r->cells / r->kernel_s / 1e9;
        if (r->kernel_s > 0) snprintf(rs, sizeof rs, "%.4g", rate);
    }
    /* the status is the last column: keep it on one line without tabs */
    char st[sizeof r->status];
    snprintf(st, sizeof st, "%s", r->status);
    for (char *q = st; *q; q++)
        if (*q == '\t' || *q == '\n' || *q == '\r') *q = ' ';
    printf("%s\t%s\t%s\t%s\t%s\t%d\t%llu\t%llu\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n",
           exp, cas, gpuasm_kernel_get(o->kernel)->name, variant_name(o), alpha_name(o->alphabet),
           gpuasm_strands(o), (unsigned long long)m, (unsigned long long)n, k, o->segments,
           ks, ws, cs, rs, gbit ? "Gbit/s" : "GCUPS", hs, r->reps, st);
    fflush(stdout);
}

/* One progress line on stderr (stdout is the TSV). */
static void progress(const cfg_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[%6.1fs] ", now() - c->t_start);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Every subcommand starts the generator afresh, so its strings and
 * patterns are the same alone or under "all". */
static void reseed(uint64_t seed) { rng = seed; }

/* One sequence as a seqset (off must live as long as the set). */
static gpuasm_seqset one_seq(uint64_t off[2], const uint8_t *code, uint64_t n)
{
    off[0] = 0;
    off[1] = n;
    gpuasm_seqset s = { 1, off, code };
    return s;
}

static int set_target(gpuasm_engine *e, const gpuasm_seqset *t)
{
    gpuasm_err err;
    if (gpuasm_engine_set_targets(e, t, &err) < 0) {
        fprintf(stderr, "bench_seeds: set targets: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* ---- seed 000 Table I --------------------------------------------------- */

typedef struct { int32_t best; } dmin_ctx;
static void dmin_emit(void *ctx, uint64_t j, int32_t d)
{
    (void)j;
    dmin_ctx *x = ctx;
    if (d < x->best) x->best = d;
}

/* The paper's Table I: X of m random 0/1 characters against Y of 4 Mi
 * random 0/1 characters (seed 000 §VI: "arrays of 8-bit unsigned char
 * initialized by random 0/1 values"), one strand, ASM(X, Y) = the best
 * distance.  We give the dp kernel k = D* = ASM(X, Y), computed first
 * (the CPU Myers twin with k = m - 1), so that our output is exactly the
 * paper's: the end positions where the minimum is reached. */
static int run_table1(cfg_t *c, gpuasm_engine *e)
{
    reseed(0x9e3779b97f4a7c15ull);
    uint64_t n = c->n ? c->n : c->quick ? 65536 : 4194304;
    const uint64_t ms_full[] = { 32, 64, 128, 256, 512, 1024 }, ms_quick[] = { 32, 64, 128 };
    /* 0 = the kernel chooses (not a column of the paper; our default). */
    const int ds_full[] = { 16, 32, 64, 128, 256, 512, 1024, 2048, 0 }, ds_quick[] = { 16, 64, 256, 0 };
    const uint64_t *ms = c->quick ? ms_quick : ms_full;
    const int *ds = c->quick ? ds_quick : ds_full;
    int n_ms = c->quick ? 3 : 6, n_ds = c->quick ? 4 : 9;

    /* '0'/'1' rather than 0/1: code 0 is "no base" in nt16 and a kernel may
     * reserve it; the alphabet size (2) is what the paper's data fix. */
    uint8_t *tb = gpuasm_engine_host_alloc(e, n), *tn = gpuasm_engine_host_alloc(e, n);
    if (!tb || !tn) {
        fprintf(stderr, "bench_seeds: out of memory\n");
        return -1;
    }
    for (uint64_t i = 0; i < n; i += 64) {
        uint64_t r = rnd();
        for (uint64_t b = 0; b < 64 && i + b < n; b++) {
            tb[i + b] = (uint8_t)('0' + ((r >> b) & 1));
            tn[i + b] = (uint8_t)(1 + ((r >> b) & 1));   /* nt16 A / C: same matches */
        }
    }
    uint64_t roff[2], poff[2], noff[2], qoff[2];
    gpuasm_seqset rd_b = one_seq(roff, tb, n), rd_n = one_seq(noff, tn, n);
    for (int mi = 0; mi < n_ms; mi++) {
        const uint64_t m = ms[mi];
        uint8_t *pb = malloc(m), *pn = malloc(m);
        for (uint64_t i = 0; i < m; i++) {
            int bit = (int)(rnd() & 1);
            pb[i] = (uint8_t)('0' + bit);
            pn[i] = (uint8_t)(1 + bit);
        }
        progress(c, "table1: m = %llu: D* (CPU Myers)", (unsigned long long)m);
        dmin_ctx dm = { (int32_t)m };
        if (gpuasm_myers_cpu_pair(pn, (uint32_t)m, tn, n, (int32_t)m - 1, dmin_emit, &dm) < 0) {
            fprintf(stderr, "bench_seeds: out of memory\n");
            return -1;
        }
        const int32_t k = dm.best;
        gpuasm_seqset tg_b = one_seq(poff, pb, m), tg_n = one_seq(qoff, pn, m);
        meas_t r;
        size_t ref_hits = 0;
        int have_ref = 0;

        /* Myers, nt16 (our default kernel: any m; both strands, the second
         * of which, T/G against an A/C pattern, never matches). */
        gpuasm_search_opt o = { k, 0, GPUASM_PATTERN_TARGET, GPUASM_KERNEL_MYERS,
                                GPUASM_ALPHABET_NT16, GPUASM_VARIANT_BEST, 0 };
        if (set_target(e, &tg_n) < 0) return -1;
        if (measure(c, e, &rd_n, &o, &r) == 0 && r.ok) {
            ref_hits = r.hits;
            have_ref = 1;
        }
        print_row("table1", "random01", &o, m, n, k, &r, 0);

        /* Myers on the byte alphabet (the paper's one strand; one word). */
        if (set_target(e, &tg_b) < 0) return -1;
        o.alphabet = GPUASM_ALPHABET_BYTE;
        if (m <= gpuasm_kernel_max_pattern(&o)) {
            measure(c, e, &rd_b, &o, &r);
            if (have_ref) check_hits(c, &r, ref_hits, "myers nt16");
            print_row("table1", "random01", &o, m, n, k, &r, 0);
        }

        /* The dp kernel, D segments (seed 000's CUDA blocks), in the paper's
         * layout (3-row ring, a thread per row) and in ours. */
        o.kernel = GPUASM_KERNEL_DP;
        static const int dp_variants[] = { GPUASM_VARIANT_PAPER, GPUASM_VARIANT_BEST };
        for (int v = 0; v < 2; v++) {
            o.variant = dp_variants[v];
            for (int di = 0; di < n_ds; di++) {
                o.segments = ds[di];
                measure(c, e, &rd_b, &o, &r);
                if (have_ref) check_hits(c, &r, ref_hits, "myers nt16");
                print_row("table1", "random01", &o, m, n, k, &r, 0);
            }
        }
        o.variant = GPUASM_VARIANT_BEST;
        free(pb);
        free(pn);
    }
    gpuasm_engine_host_free(e, tb);
    gpuasm_engine_host_free(e, tn);
    return 0;
}

/* ---- seed 003 Tabela 4.1 ----------------------------------------------- */

static uint8_t *slurp(const char *path, uint64_t *len, gpuasm_engine *e, int twice)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "bench_seeds: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint64_t n = (uint64_t)(sz > 0 ? sz : 0);
    uint8_t *p = gpuasm_engine_host_alloc(e, (twice ? 2 : 1) * n + 1);
    if (!p || fread(p, 1, n, f) != n) {
        fprintf(stderr, "bench_seeds: cannot read %s\n", path);
        fclose(f);
        return NULL;
    }
    fclose(f);
    if (twice) memcpy(p + n, p, n);
    *len = (twice ? 2 : 1) * n;
    return p;
}

/* Exact occurrences of pat in txt (the k = 0 reference: neither pattern
 * of the table overlaps itself, so each occurrence is one local minimum). */
static size_t count_exact(const uint8_t *txt, uint64_t n, const char *pat)
{
    size_t m = strlen(pat), cnt = 0;
    for (uint64_t j = 0; j + m <= n; j++)
        if (txt[j] == (uint8_t)pat[0] && !memcmp(txt + j, pat, m)) cnt++;
    return cnt;
}

static int run_bible(cfg_t *c, gpuasm_engine *e)
{
    if (!c->data) {
        fprintf(stderr, "bench_seeds bible: --data DIR is required (tests/bench/seeds_data DIR)\n");
        return -1;
    }
    /* Seed 003 §4.1, configurations 1-6 (LORD) and 7-12 (the long pattern):
     * the doubled Bible, the whole, New Testament, Psalms, Genesis, 1 John. */
    static const struct { const char *name, *file; int twice; } texts[] = {
        { "kjv2x", "kjv.txt", 1 }, { "kjv", "kjv.txt", 0 }, { "nt", "nt.txt", 0 },
        { "psalms", "psalms.txt", 0 }, { "genesis", "genesis.txt", 0 }, { "1john", "1john.txt", 0 },
    };
    /* k: the paper gives none (its kernel reports every score <= k, with
     * the time independent of k); 0 = exact, then about 10% of m. */
    static const struct { const char *pat; int k; } pats[] = {
        { "LORD", 0 }, { "LORD", 1 },
        { "for his mercy endureth for ever", 0 }, { "for his mercy endureth for ever", 3 },
    };
    uint8_t *txt[6];
    uint64_t len[6];
    for (int t = 0; t < 6; t++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", c->data, texts[t].file);
        if (!(txt[t] = slurp(path, &len[t], e, texts[t].twice))) return -1;
        printf("#text\t%s\t%s%s\t%llu bytes\n", texts[t].name, texts[t].file,
               texts[t].twice ? " twice" : "", (unsigned long long)len[t]);
    }
    for (int p = 0; p < 4; p++) {
        const uint64_t m = strlen(pats[p].pat);
        uint64_t poff[2], roff[2];
        gpuasm_seqset tg = one_seq(poff, (const uint8_t *)pats[p].pat, m);
        if (set_target(e, &tg) < 0) return -1;
        progress(c, "bible: '%s'", pats[p].pat);
        gpuasm_search_opt o = { pats[p].k, 0, GPUASM_PATTERN_TARGET, GPUASM_KERNEL_MYERS,
                                GPUASM_ALPHABET_BYTE, GPUASM_VARIANT_BEST, 0 };
        for (int t = 0; t < 6; t++) {
            gpuasm_seqset rd = one_seq(roff, txt[t], len[t]);
            meas_t r;
            measure(c, e, &rd, &o, &r);
            if (pats[p].k == 0) check_hits(c, &r, count_exact(txt[t], len[t], pats[p].pat), "a naive count");
            print_row("bible", texts[t].name, &o, m, len[t], pats[p].k, &r, 0);
        }
    }
    for (int t = 0; t < 6; t++) gpuasm_engine_host_free(e, txt[t]);
    return 0;
}

/* ---- seed 004 Figs. 13-14 ---------------------------------------------- */

/* A FASTA file's bases as nt16 codes, every record concatenated (the
 * genome of the experiment has one).  NULL on failure. */
static uint8_t *load_fasta(const char *path, uint64_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "bench_seeds: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 20, n = 0;
    uint8_t *s = malloc(cap);
    char line[1 << 16];
    int header = 0;
    while (s && fgets(line, sizeof line, f)) {
        size_t l = strlen(line);
        /* a header line is skipped to its end, however long */
        int at_start = !header;
        if (at_start && line[0] == '>') header = 1;
        if (!header) {
            for (size_t i = 0; i < l; i++) {
                unsigned char ch = (unsigned char)line[i];
                if (isspace(ch)) continue;
                if (n == cap) {
                    uint8_t *q = realloc(s, cap *= 2);
                    if (!q) { free(s); s = NULL; break; }
                    s = q;
                }
                s[n++] = seq_nt16_table[ch];
            }
        }
        if (l && line[l - 1] == '\n') header = 0;
    }
    fclose(f);
    if (!s || n == 0) {
        fprintf(stderr, "bench_seeds: no bases in %s\n", path);
        free(s);
        return NULL;
    }
    *len = n;
    return s;
}

static int run_hamming(cfg_t *c, gpuasm_engine *e)
{
    reseed(0x5eed0004ull);
    if (!c->genome) {
        fprintf(stderr, "bench_seeds hamming: --genome FASTA is required\n");
        return -1;
    }
    uint64_t glen;
    uint8_t *g = load_fasta(c->genome, &glen);
    if (!g) return -1;
    const char *base = strrchr(c->genome, '/');
    base = base ? base + 1 : c->genome;
    printf("#genome\t%s\t%llu bases\n", base, (unsigned long long)glen);
    const uint64_t ms_full[] = { 16, 32, 64, 128, 256, 512, 1024 }, ms_quick[] = { 16, 64, 256 };
    const uint64_t ns_full[] = { 10000000, 50000000, 100000000 }, ns_quick[] = { 1000000, 2000000 };
    const uint64_t *ms = c->quick ? ms_quick : ms_full, *ns = c->quick ? ns_quick : ns_full;
    int n_ms = c->quick ? 3 : 7, n_ns = c->quick ? 2 : 3;
    uint64_t nmax = ns[n_ns - 1];
    /* The text: the genome repeated to nmax bases, as a read (reads carry
     * single bases only: gpuasm_read_code); a text of n bases is its prefix. */
    uint8_t *t = gpuasm_engine_host_alloc(e, nmax);
    if (!t) {
        fprintf(stderr, "bench_seeds: out of memory (%llu bytes)\n", (unsigned long long)nmax);
        free(g);
        return -1;
    }
    for (uint64_t i = 0; i < nmax; i++) t[i] = gpuasm_read_code(g[i % glen], 0);
    static const int variants[] = { GPUASM_VARIANT_THREAD, GPUASM_VARIANT_PAPER, GPUASM_VARIANT_BEST };
    for (int mi = 0; mi < n_ms; mi++) {
        const uint64_t m = ms[mi];
        if (m > glen) continue;
        /* The pattern: m bases from a random place of the genome (the
         * target; full IUPAC codes, as a target file would give). */
        uint64_t at = rnd() % (glen - m + 1), poff[2], roff[2];
        gpuasm_seqset tg = one_seq(poff, g + at, m);
        if (set_target(e, &tg) < 0) return -1;
        const int32_t k = c->hamming_k >= 0 ? c->hamming_k : (int32_t)(m / 10);
        progress(c, "hamming: m = %llu (genome position %llu), k = %d", (unsigned long long)m,
                 (unsigned long long)at, k);
        for (int ni = 0; ni < n_ns; ni++) {
            gpuasm_seqset rd = one_seq(roff, t, ns[ni]);
            size_t ref = 0;
            int have_ref = 0;
            for (int v = 0; v < 3; v++) {
                gpuasm_search_opt o = { k, 0, GPUASM_PATTERN_TARGET, GPUASM_KERNEL_HAMMING,
                                        GPUASM_ALPHABET_NT16, variants[v], 0 };
                meas_t r;
                measure(c, e, &rd, &o, &r);
                if (have_ref) check_hits(c, &r, ref, "the thread variant");
                else if (r.ok) { ref = r.hits; have_ref = 1; }
                print_row("hamming", base, &o, m, ns[ni], k, &r, 0);
            }
        }
    }
    gpuasm_engine_host_free(e, t);
    free(g);
    return 0;
}

/* ---- seed 002 Fig. 12 --------------------------------------------------- */

/* Copies of the pattern planted in the scan text (see run_scan). */
#define N_PLANT 240

static int run_scan(cfg_t *c, gpuasm_engine *e)
{
    reseed(0x5eed0002ull);
    /* The paper: n = 2^31, sigma = 64.  256 MiB keeps the 12 x 2 kernels x
     * 4 runs inside the device budget and still fills an H100/H200. */
    uint64_t n = c->n ? c->n : c->quick ? (1ull << 20) : (256ull << 20);
    uint8_t *t = gpuasm_engine_host_alloc(e, n);
    if (!t) {
        fprintf(stderr, "bench_seeds: out of memory (%llu bytes)\n", (unsigned long long)n);
        return -1;
    }
    /* sigma = 64 symbols, the printable bytes '0' .. 'o' (0x30 .. 0x6f):
     * ten 6-bit draws per 64-bit random word. */
    for (uint64_t i = 0; i < n; i += 10) {
        uint64_t r = rnd();
        for (uint64_t b = 0; b < 10 && i + b < n; b++) t[i + b] = (uint8_t)(0x30 + ((r >> (6 * b)) & 63));
    }
    printf("#scan-text\trandom, sigma = 64 (bytes 0x30-0x6f)\t%llu bytes\n", (unsigned long long)n);
    const uint64_t ms[] = { 8, 16, 32, 64 };
    uint64_t roff[2], poff[2], plant_at[N_PLANT];
    static uint8_t saved[N_PLANT][64];
    gpuasm_seqset rd = one_seq(roff, t, n);
    for (int mi = 0; mi < 4; mi++) {
        const uint64_t m = ms[mi];
        uint8_t p[64];
        for (uint64_t i = 0; i < m; i++) p[i] = (uint8_t)(0x30 + (rnd() & 63));
        gpuasm_seqset tg = one_seq(poff, p, m);
        /* A random pattern over sigma = 64 almost never occurs, which would
         * leave the scan-vs-myers hit check comparing 0 with 0: plant
         * N_PLANT copies (with 0, 1 or 2 substitutions in turn) for this m,
         * and put the text back afterwards. */
        uint64_t gap = n / N_PLANT;
        int planted = 0;
        if (gap > 2 * m) {
            for (int i = 0; i < N_PLANT; i++) {
                uint64_t at = (uint64_t)i * gap + rnd() % (gap - m);
                memcpy(saved[i], t + at, m);
                plant_at[i] = at;
                memcpy(t + at, p, m);
                for (int s = 0; s < i % 3; s++) {
                    uint64_t q = at + rnd() % m;
                    t[q] = (uint8_t)(0x30 + ((t[q] - 0x30 + 1 + rnd() % 63) & 63));   /* another symbol */
                }
            }
            planted = N_PLANT;
        }
        if (set_target(e, &tg) < 0) return -1;
        progress(c, "scan: m = %llu", (unsigned long long)m);
        for (int32_t k = 0; k <= 2; k++) {
            gpuasm_search_opt o = { k, 0, GPUASM_PATTERN_TARGET, GPUASM_KERNEL_MYERS,
                                    GPUASM_ALPHABET_BYTE, GPUASM_VARIANT_BEST, 0 };
            meas_t rm, rs;
            measure(c, e, &rd, &o, &rm);
            print_row("scan", "random64", &o, m, n, k, &rm, 1);
            o.kernel = GPUASM_KERNEL_SCAN;
            measure(c, e, &rd, &o, &rs);
            if (rm.ok) check_hits(c, &rs, rm.hits, "myers");
            print_row("scan", "random64", &o, m, n, k, &rs, 1);
        }
        for (int i = 0; i < planted; i++) memcpy(t + plant_at[i], saved[i], m);
    }
    gpuasm_engine_host_free(e, t);
    return 0;
}

/* ---- main --------------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_seeds table1|bible|hamming|scan|all [--device D] [--threads T]\n"
            "       [--reps R] [--quick] [--budget-s S] [--data DIR] [--genome FASTA]\n"
            "       [--n N] [--k K]   (see the comment at the top of tests/bench/bench_seeds.c)\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage();
        return 1;
    }
    cfg_t c = { "cuda", 0, 3, 0, 0, 0, NULL, NULL, 0, -1, 0 };
    const char *sub = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--quick")) c.quick = 1;
        else if (!strcmp(a, "--device") && more) c.device = argv[++i];
        else if (!strcmp(a, "--threads") && more) c.threads = atoi(argv[++i]);
        else if (!strcmp(a, "--reps") && more) c.reps = atoi(argv[++i]);
        else if (!strcmp(a, "--budget-s") && more) c.budget_s = atof(argv[++i]);
        else if (!strcmp(a, "--data") && more) c.data = argv[++i];
        else if (!strcmp(a, "--genome") && more) c.genome = argv[++i];
        else if (!strcmp(a, "--n") && more) c.n = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--k") && more) c.hamming_k = atoi(argv[++i]);
        else {
            fprintf(stderr, "bench_seeds: unknown or incomplete option '%s'\n", a);
            usage();
            return 1;
        }
    }
    int want[4] = { 0 };
    static const char *subs[4] = { "table1", "bible", "hamming", "scan" };
    for (int s = 0; s < 4; s++) want[s] = !strcmp(sub, subs[s]) || !strcmp(sub, "all");
    if (!want[0] && !want[1] && !want[2] && !want[3]) {
        usage();
        return 1;
    }
    if (c.quick && c.reps > 1) c.reps = 1;
    if (c.reps < 1) c.reps = 1;
    if (c.threads < 1) {
        long nc = sysconf(_SC_NPROCESSORS_ONLN);
        c.threads = nc > 0 ? (int)nc : 1;
    }
    c.t_start = now();
    gpuasm_err err, warn;
    gpuasm_engine *e;
    if (gpuasm_engine_open(c.device, c.threads, &e, &err, &warn) < 0) {
        fprintf(stderr, "bench_seeds: %s\n", err.msg);
        return 1;
    }
    if (warn.status) fprintf(stderr, "bench_seeds: %s; using the CPU\n", warn.msg);
    time_t now_t = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now_t));
    printf("#bench_seeds\t%s\n#device\t%s\n#date\t%s\n#options\treps=%d quick=%d threads=%d budget_s=%g\n",
           sub, gpuasm_engine_describe(e), date, c.reps, c.quick, c.threads, c.budget_s);
    printf("#columns\texp\tcase\tkernel\tvariant\talphabet\tstrands\tm\tn\tk\tsegments\t"
           "kernel_s\twall_s\tcells\trate\tunit\thits\treps\tstatus\n");
    fflush(stdout);
    int rc = 0;
    if (want[0] && run_table1(&c, e) < 0) rc = 1;
    if (want[1] && run_bible(&c, e) < 0) rc = 1;
    if (want[2] && run_hamming(&c, e) < 0) rc = 1;
    if (want[3] && run_scan(&c, e) < 0) rc = 1;
    gpuasm_engine_close(e);
    printf("#elapsed_s\t%.1f\n", now() - c.t_start);
    if (c.mismatches) fprintf(stderr, "bench_seeds: %d row(s) with MISMATCH\n", c.mismatches);
    return rc ? rc : c.mismatches ? 2 : 0;
}
