/* SPDX-License-Identifier: MIT */
/* fuzz.c -- libFuzzer harness for gpuasm's input path and search API
 * (issues #12, #31).  One binary, four targets, chosen by GPUASM_FUZZ:
 *
 *   reads    the bytes are a reads file (after one control byte: bit 0
 *            --match-read-wildcards, bit 1 two files R1/R2 cut at the
 *            middle, bits 2-3 the batch size 1, 150, 10k or 4M bases):
 *            gpuasm_reader_open/next to the end or an error, checking every
 *            batch (offsets, codes, record lengths).  No decoding threads:
 *            htslib 1.16's threaded BGZF and CRAM readers leak after a
 *            decode error (inside htslib; tests/fuzz/README.md), which would
 *            stop every run at the first damaged BAM, and threads make runs
 *            irreproducible; tests/bats/hostile.bats runs them instead;
 *   targets  the bytes are a targets file: gpuasm_targets_load (--strict-
 *            names when the length is odd), checking names (unique,
 *            SAM-valid) and lengths;
 *   search   the bytes are options and sequences: the engine on the CPU
 *            (every kernel, both alphabets, -k/-e, --pattern, variants, one
 *            or both strands; not the partial occurrences at text ends)
 *            against the naive O(mn) DP of tests/c/naive_dp.c over every
 *            pair (search.h's contract, written plainly), then every read's
 *            hits through gpuasm_report_read (traceback, CIGAR, MD);
 *   slow5    the bytes are a control byte (--signal-skip, --signal-prefix,
 *            --norm, the batch size in samples) and a SLOW5 text or BLOW5
 *            file (issue #31): gpuasm_sigreader_open/next to the end or an
 *            error, checking every batch (windows inside their reads,
 *            offsets, names).  slow5lib is Debian's shared library, not
 *            instrumented: what protects it is io/slow5_check.c, which is;
 *            ASan's interceptors still see its memcpy/strndup, and the
 *            long run's corpus is replayed under valgrind, which sees
 *            everything (tests/fuzz/README.md).
 *
 * A mismatch or a broken invariant abort()s, so libFuzzer records it as a
 * crash; ASan/UBSan/LSan findings do the same.  Files go to a private
 * directory under /dev/shm (else $TMPDIR, /tmp), removed at exit.  Build
 * and runs: tests/fuzz/README.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <htslib/hts.h>
#include <htslib/hts_log.h>

#include "engine/engine.h"
#include "naive_dp.h"
#include "search/nt16.h"
#include "io/reads.h"
#include "kernels/registry.h"
#include "align/report.h"
#include "search/search.h"
#include "io/signal_norm.h"
#include "io/signal_reads.h"
#include "io/targets.h"

enum { T_READS, T_TARGETS, T_SEARCH, T_SLOW5 };
static int g_target = -1;
static char g_dir[256], g_path1[300], g_path2[300];
static gpuasm_engine *g_engine;

#define CHECK(cond) do { if (!(cond)) { \
        fprintf(stderr, "fuzz: %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        abort(); } } while (0)

static void cleanup(void)
{
    unlink(g_path1);
    unlink(g_path2);
    rmdir(g_dir);
    if (g_engine) gpuasm_engine_close(g_engine);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    const char *t = getenv("GPUASM_FUZZ");
    g_target = !t ? -1 : !strcmp(t, "reads") ? T_READS : !strcmp(t, "targets") ? T_TARGETS
             : !strcmp(t, "search") ? T_SEARCH : !strcmp(t, "slow5") ? T_SLOW5 : -1;
    if (g_target < 0) {
        fprintf(stderr, "fuzz: set GPUASM_FUZZ to reads, targets, search or slow5\n");
        exit(2);
    }
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm"
                     : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(g_dir, sizeof g_dir, "%s/gpuasm-fuzz-XXXXXX", base);
    if (!mkdtemp(g_dir)) {
        perror("fuzz: mkdtemp");
        exit(2);
    }
    snprintf(g_path1, sizeof g_path1, "%s/in1", g_dir);
    snprintf(g_path2, sizeof g_path2, "%s/in2", g_dir);
    atexit(cleanup);
    hts_set_log_level(HTS_LOG_OFF);   /* htslib's complaints are expected here */
    if (g_target == T_SEARCH) {
        gpuasm_err err, fb;
        if (gpuasm_engine_open("cpu", 1, &g_engine, &err, &fb) < 0) {
            fprintf(stderr, "fuzz: %s\n", err.msg);
            exit(2);
        }
    }
    return 0;
}

static void write_file(const char *path, const uint8_t *d, size_t n)
{
    FILE *fp = fopen(path, "wb");
    CHECK(fp);
    CHECK(fwrite(d, 1, n, fp) == n);
    CHECK(fclose(fp) == 0);
}

/* ---- reads ------------------------------------------------------------------------ */

static void *plain_alloc(void *ctx, size_t n) { (void)ctx; return malloc(n ? n : 1); }
static void plain_free(void *ctx, void *p) { (void)ctx; free(p); }

static void fuzz_reads(const uint8_t *d, size_t n)
{
    if (n < 1) return;
    const uint8_t ctl = d[0];
    d++, n--;
    const int wildcards = ctl & 1, paired = (ctl >> 1) & 1, threads = 1;
    static const uint64_t batch[4] = { 1, 150, 10000, 4u << 20 };
    const uint64_t max_bases = batch[(ctl >> 2) & 3];
    if (paired) {
        write_file(g_path1, d, n / 2);
        write_file(g_path2, d + n / 2, n - n / 2);
    } else {
        write_file(g_path1, d, n);
    }
    char err[1024];
    gpuasm_reader *r = NULL;
    if (gpuasm_reader_open(g_path1, paired ? g_path2 : NULL, NULL, threads, wildcards, &r, err,
                           sizeof err) < 0) {
        CHECK(err[0]);
        return;
    }
    gpuasm_batch b;
    gpuasm_batch_init(&b, (gpuasm_alloc){ plain_alloc, plain_free, NULL });
    uint64_t total = 0;
    for (;;) {
        err[0] = 0;
        int got = gpuasm_reader_next(r, &b, max_bases, err, sizeof err);
        if (got < 0) {
            CHECK(err[0]);   /* an error always says something */
            break;
        }
        if (got == 0) break;
        CHECK((uint32_t)got == b.n && b.off[0] == 0);
        CHECK(b.first_record > total);   /* skipped secondary records count too */
        CHECK(gpuasm_batch_encode(&b) == 0);
        for (uint32_t i = 0; i < b.n; i++) {
            CHECK(b.off[i + 1] >= b.off[i]);
            CHECK(b.off[i + 1] - b.off[i] == (uint64_t)b.rec[i]->core.l_qseq);
            CHECK(!(b.rec[i]->core.flag & BAM_FREVERSE));
            for (uint64_t j = b.off[i]; j < b.off[i + 1]; j++) CHECK(b.code[j] <= 15);
        }
        CHECK(b.set.n == b.n && b.set.off == b.off && b.set.code == b.code);
        total += b.n;
        CHECK(gpuasm_reader_count(r) >= total);
    }
    gpuasm_batch_free(&b);
    gpuasm_reader_close(r);
}

/* ---- targets ---------------------------------------------------------------------- */

static void fuzz_targets(const uint8_t *d, size_t n)
{
    write_file(g_path1, d, n);
    char err[1024];
    gpuasm_targets t;
    err[0] = 0;
    if (gpuasm_targets_load(g_path1, (int)(n & 1), &t, err, sizeof err) < 0) {
        CHECK(err[0]);
        return;
    }
    CHECK(t.n > 0 && t.off[0] == 0);
    for (uint32_t i = 0; i < t.n; i++) {
        CHECK(gpuasm_target_len(&t, i) > 0);
        CHECK(t.name[i] && t.name[i][0]);
        /* SAM v1.6 §1.2.1 reference names, checked plainly. */
        for (const char *c = t.name[i]; *c; c++)
            CHECK((*c >= '!' && *c <= '~') && !strchr("\\,\"'`()[]{}<>", *c) &&
                  !(c == t.name[i] && (*c == '*' || *c == '=')));
        for (uint32_t j = 0; j < i; j++) CHECK(strcmp(t.name[i], t.name[j]) != 0);
        for (uint64_t j = t.off[i]; j < t.off[i + 1]; j++) CHECK(t.code[j] <= 15);
    }
    gpuasm_targets_free(&t);
}

/* ---- search ----------------------------------------------------------------------- */

/* Bytes handed out one at a time (zeros once used up). */
typedef struct { const uint8_t *d; size_t n, i; } feed_t;
static uint8_t next(feed_t *f) { return f->i < f->n ? f->d[f->i++] : 0; }

#define MAX_READS 4
#define MAX_TARGETS 3
#define MAX_READ_LEN 120
#define MAX_TARGET_LEN 250

/* Every end hit of search.h's contract, from the naive DP: for each
 * (read, target, strand), the pattern and text by the pair rules, and each
 * leftmost end of a valley of D[m][.] with D <= k. */
static void naive_hits(const gpuasm_seqset *rs, const gpuasm_seqset *ts,
                       const gpuasm_search_opt *opt, int hamming, gpuasm_hits *out)
{
    const int byte = opt->alphabet == GPUASM_ALPHABET_BYTE;
    const uint32_t strands = byte || opt->strand == GPUASM_STRAND_FORWARD ? 1 : 2;
    uint8_t rc[MAX_READ_LEN];
    int32_t last[MAX_READ_LEN + MAX_TARGET_LEN];
    out->n = 0;
    for (uint32_t r = 0; r < rs->n; r++)
        for (uint32_t t = 0; t < ts->n; t++)
            for (uint32_t s = 0; s < strands; s++) {
                const uint64_t rl = rs->off[r + 1] - rs->off[r], tl = ts->off[t + 1] - ts->off[t];
                const uint8_t *rd = rs->code + rs->off[r], *tg = ts->code + ts->off[t];
                if (s) {
                    for (uint64_t i = 0; i < rl; i++) rc[i] = gpuasm_nt16_comp(rd[rl - 1 - i]);
                    rd = rc;
                }
                const int rp = gpuasm_read_is_pattern(opt, rl, tl);
                const uint8_t *p = rp ? rd : tg, *x = rp ? tg : rd;
                const uint64_t m = rp ? rl : tl, nn = rp ? tl : rl;
                const int32_t k = gpuasm_pair_k(opt, m);
                if (m == 0 || nn == 0 || k < 0 || (int64_t)m <= k) continue;
                if (hamming) gpuasm_naive_hamming(p, (uint32_t)m, x, nn, byte, last);
                else CHECK(gpuasm_naive_dp_alpha(p, (uint32_t)m, x, nn, byte, last) == 0);
                for (uint64_t j = 0; j < nn; j++)
                    if (last[j] <= k && (j == 0 || last[j - 1] > last[j]) &&
                        (j + 1 == nn || last[j + 1] >= last[j]))
                        CHECK(gpuasm_hits_push(out, (gpuasm_endhit){ r, t, (uint32_t)j, last[j], s }) == 0);
            }
    gpuasm_hits_sort(out);
}

static void fuzz_search(const uint8_t *d, size_t n)
{
    feed_t f = { d, n, 0 };
    gpuasm_search_opt opt;
    memset(&opt, 0, sizeof opt);
    opt.kernel = next(&f) % GPUASM_N_KERNELS;
    const uint8_t o1 = next(&f);
    opt.alphabet = o1 & 1 ? GPUASM_ALPHABET_BYTE : GPUASM_ALPHABET_NT16;
    opt.pattern_side = (o1 >> 1) % 3;
    const int wildcards = (o1 >> 3) & 1;
    opt.variant = (o1 >> 4) % 3;
    opt.segments = (o1 >> 6) & 1 ? 1 + next(&f) % 8 : 0;
    const uint8_t kb = next(&f);
    opt.max_diffs = kb < 128 ? (int32_t)(kb % 24) : -1;
    opt.error_rate = (double)next(&f) / 255.0 * 0.4;
    opt.strand = (kb >> 5) & 1 ? GPUASM_STRAND_FORWARD : GPUASM_STRAND_BOTH;
    const uint8_t cnt = next(&f);
    const uint32_t nr = 1 + cnt % MAX_READS, nt = 1 + (cnt >> 4) % MAX_TARGETS;
    const int byte = opt.alphabet == GPUASM_ALPHABET_BYTE;
    const uint8_t sigma = byte ? (uint8_t)(2 + next(&f) % 6) : 16;   /* small alphabets match often */

    uint8_t rcode[MAX_READS * MAX_READ_LEN], tcode[MAX_TARGETS * MAX_TARGET_LEN];
    uint64_t roff[MAX_READS + 1] = { 0 }, toff[MAX_TARGETS + 1] = { 0 };
    for (uint32_t r = 0; r < nr; r++) {
        uint32_t len = next(&f) % (MAX_READ_LEN + 1);
        for (uint32_t i = 0; i < len; i++) {
            uint8_t c = next(&f);
            rcode[roff[r] + i] = byte ? (uint8_t)(c % sigma) : gpuasm_read_code(c & 15, wildcards);
        }
        roff[r + 1] = roff[r] + len;
    }
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t len = (next(&f) | (uint32_t)next(&f) << 8) % (MAX_TARGET_LEN + 1);
        for (uint32_t i = 0; i < len; i++) {
            uint8_t c = next(&f);
            tcode[toff[t] + i] = byte ? (uint8_t)(c % sigma) : (uint8_t)(c & 15);
        }
        toff[t + 1] = toff[t] + len;
    }
    gpuasm_seqset reads = { nr, roff, rcode }, targets = { nt, toff, tcode };
    gpuasm_err err;
    gpuasm_hits got = { 0 }, want = { 0 };
    if (gpuasm_search_check(&opt, &err) < 0) {
        CHECK(err.status == GPUASM_ERR_BAD_OPTION);
        return;
    }
    CHECK(gpuasm_engine_set_targets(g_engine, &targets, &err) == 0);
    int rc = gpuasm_engine_scan(g_engine, &reads, &opt, &got, &err);
    if (rc < 0) {
        /* Only a pattern past the kernel's limit may be refused. */
        CHECK(rc == GPUASM_ERR_TOO_LONG && err.length > err.limit && err.limit > 0);
        gpuasm_hits_free(&got);
        return;
    }
    const int hamming = gpuasm_kernel_get(opt.kernel)->mode == GPUASM_MODE_HAMMING;
    naive_hits(&reads, &targets, &opt, hamming, &want);
    if (got.n != want.n || (got.n && memcmp(got.hit, want.hit, got.n * sizeof *got.hit))) {
        fprintf(stderr, "fuzz: kernel %s: %zu hits, the naive DP %zu\n",
                gpuasm_kernel_get(opt.kernel)->name, got.n, want.n);
        for (size_t i = 0; i < got.n || i < want.n; i++)
            fprintf(stderr, "  #%zu got r%u t%u s%u end %u d%d | want r%u t%u s%u end %u d%d\n", i,
                    i < got.n ? got.hit[i].read : 0, i < got.n ? got.hit[i].target : 0,
                    i < got.n ? got.hit[i].strand : 0, i < got.n ? got.hit[i].end : 0,
                    i < got.n ? got.hit[i].dist : -1, i < want.n ? want.hit[i].read : 0,
                    i < want.n ? want.hit[i].target : 0, i < want.n ? want.hit[i].strand : 0,
                    i < want.n ? want.hit[i].end : 0, i < want.n ? want.hit[i].dist : -1);
        abort();
    }
    /* Every hit traces back (nt16: the report path of gpuasm-scan). */
    if (!byte) {
        char *names[MAX_TARGETS], nbuf[MAX_TARGETS][8], *desc[MAX_TARGETS] = { 0 };
        for (uint32_t t = 0; t < nt; t++) {
            snprintf(nbuf[t], sizeof nbuf[t], "t%u", t);
            names[t] = nbuf[t];
        }
        gpuasm_targets tg;
        memset(&tg, 0, sizeof tg);
        tg.n = nt;
        tg.name = names;
        tg.desc = desc;
        tg.off = toff;
        tg.code = tcode;
        tg.set = targets;
        gpuasm_report rep;
        memset(&rep, 0, sizeof rep);
        char msg[512];
        size_t h = 0;
        for (uint32_t r = 0; r < nr; r++) {
            size_t h0 = h;
            while (h < got.n && got.hit[h].read == r) h++;
            for (int mode = 0; mode < 3; mode++) {
                gpuasm_report_opt ro = { .all = mode == 1, .best = mode == 2, .eqx = r & 1 };
                if (gpuasm_report_read(&rep, &opt, &ro, rcode + roff[r], (uint32_t)(roff[r + 1] - roff[r]),
                                       &tg, h > h0 ? got.hit + h0 : NULL, h - h0, msg, sizeof msg) < 0) {
                    fprintf(stderr, "fuzz: report of read %u: %s\n", r, msg);
                    abort();
                }
                for (size_t i = 0; i < rep.n_occ; i++)
                    CHECK(rep.occ[i].nm >= rep.occ[i].dist && rep.occ[i].target < nt);
            }
        }
        gpuasm_report_free(&rep);
    }
    gpuasm_hits_free(&got);
    gpuasm_hits_free(&want);
}

/* ---- slow5 ------------------------------------------------------------------------ */

static void fuzz_slow5(const uint8_t *d, size_t n)
{
    if (n < 1) return;
    const uint8_t ctl = d[0];
    d++, n--;
    static const uint64_t skip[4] = { 0, 0, 3, 1000 }, prefix[4] = { 0, 0, 5, 2000 };
    static const uint64_t batch[4] = { 1, 100, 4000, 1u << 22 };
    gpuasm_sigread_opt o = { skip[ctl & 3], prefix[(ctl >> 2) & 3], (ctl >> 4) & 1 ? GPUASM_NORM_MAD : GPUASM_NORM_SD };
    const uint64_t max_samples = batch[(ctl >> 5) & 3];
    write_file(g_path1, d, n);
    char err[1024];
    gpuasm_sigreader *r = NULL;
    if (gpuasm_sigreader_open(g_path1, &r, err, sizeof err) < 0) {
        CHECK(err[0]);
        return;
    }
    gpuasm_sigbatch b;
    gpuasm_sigbatch_init(&b);
    uint64_t records = 0;
    for (;;) {
        err[0] = 0;
        const int got = gpuasm_sigreader_next(r, &o, &b, max_samples, err, sizeof err);
        if (got < 0) {
            CHECK(err[0]);   /* an error always says something */
            break;
        }
        if (got == 0) break;
        CHECK((uint32_t)got == b.n && b.off[0] == 0);
        CHECK(b.first_record == records + 1);
        for (uint32_t i = 0; i < b.n; i++) {
            CHECK(b.name[i]);
            CHECK(b.qstart[i] <= b.qend[i] && b.qend[i] <= b.len[i] && b.len[i] > 0);
            CHECK(b.off[i + 1] - b.off[i] == b.qend[i] - b.qstart[i]);
        }
        records += b.n;
        CHECK(gpuasm_sigreader_count(r) == records);
    }
    gpuasm_sigbatch_free(&b);
    gpuasm_sigreader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    switch (g_target) {
    case T_READS: fuzz_reads(data, size); break;
    case T_TARGETS: fuzz_targets(data, size); break;
    case T_SEARCH: fuzz_search(data, size); break;
    case T_SLOW5: fuzz_slow5(data, size); break;
    }
    return 0;
}
