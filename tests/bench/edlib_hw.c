/* SPDX-License-Identifier: MIT */
/* edlib_hw -- the edlib peer of tests/bench/run: libedlib (Sosic & Sikic
 * 2017, Myers 1999 bit-vectors) in infix mode (EDLIB_MODE_HW), the same
 * problem gpuasm-scan solves, driven by a small pthread harness.
 *
 *   edlib_hw p1 M N K REPS
 *       One random pattern of M bases against one random text of N bases,
 *       ONE strand, EDLIB_TASK_DISTANCE, k = K (-1: no bound, the exact best
 *       distance as in seed 000 Table I), one thread.  The pattern and text
 *       come from the same generator, seed and order as
 *       `bench_kernels DEV p1`, so both programs search the same strings.
 *       Prints the median seconds of REPS runs (after one warm-up), cells
 *       (M x N), GCUPS, the best distance and the number of best ends.
 *
 *   edlib_hw screen READS TARGETS THREADS OUT.tsv [ERROR_RATE]
 *       Every read (any format sam_open reads: FASTQ, FASTA, SAM/BAM/CRAM)
 *       against every target (FASTA), both strands, k = floor(e * read
 *       length) with e = ERROR_RATE [0.1] (gpuasm-scan's -e), THREADS
 *       threads.  Writes one TSV line per (read, target) pair with a hit:
 *         read name, target name, strand (+/-), distance, end
 *       where end is the 0-based target position of the last aligned base
 *       of the best alignment (lowest distance, then forward strand, then
 *       leftmost end: gpuasm-scan's default order), reads in input order,
 *       targets in file order.  Prints the seconds spent aligning (reads
 *       already in memory), reads/s and counts.
 *
 * Timings are for BENCHMARKS.md, never a test.  Exit 0 on success, 1 on
 * any error (one line on stderr).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <edlib.h>
#include <htslib/sam.h>

#include "bench_common.h"
/* bench_kernels draws nt16 code 1 << (r & 3): A, C, G, T in that order. */
static char rnd_base(void) { return "ACGT"[rnd() & 3]; }


static int run_p1(uint64_t m, uint64_t n, int k, int reps)
{
    char *p = malloc(m), *t = malloc(n);
    double *sec = calloc((size_t)reps, sizeof(double));
    if (!p || !t || !sec || m > INT32_MAX || n > INT32_MAX) {
        fprintf(stderr, "edlib_hw: p1: out of memory or sizes too large\n");
        return 1;
    }
    for (uint64_t i = 0; i < m; i++) p[i] = rnd_base();
    for (uint64_t i = 0; i < n; i++) t[i] = rnd_base();
    EdlibAlignConfig cfg = edlibNewAlignConfig(k, EDLIB_MODE_HW, EDLIB_TASK_DISTANCE, NULL, 0);
    int best = -1, n_ends = 0;
    for (int r = -1; r < reps; r++) {
        double t0 = now();
        EdlibAlignResult res = edlibAlign(p, (int)m, t, (int)n, cfg);
        double dt = now() - t0;
        if (res.status != EDLIB_STATUS_OK) {
            fprintf(stderr, "edlib_hw: p1: edlibAlign failed\n");
            return 1;
        }
        best = res.editDistance;
        n_ends = res.numLocations;
        edlibFreeAlignResult(res);
        if (r >= 0) sec[r] = dt;
    }
    qsort(sec, (size_t)reps, sizeof(double), cmp_d);
    double s = sec[reps / 2], cells = (double)m * (double)n;
    printf("edlib\tp1\tm=%llu n=%llu k=%d\t%.6f s\t%.3e cells\t%.3f GCUPS\tbest %d\t%d ends\n",
           (unsigned long long)m, (unsigned long long)n, k, s, cells, cells / s / 1e9, best,
           n_ends);
    free(p);
    free(t);
    free(sec);
    return 0;
}

/* ---- screen ------------------------------------------------------------- */

typedef struct {
    size_t n, cap;
    char **name;
    char **seq;      /* ASCII, upper case IUPAC as htslib decodes it */
    int *len;
} seqs;

static int seqs_push(seqs *s, const char *name, const char *seq, int len)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4096;
        char **nn = realloc(s->name, cap * sizeof *nn), **ns;
        if (!nn) return -1;
        s->name = nn;
        ns = realloc(s->seq, cap * sizeof *ns);
        if (!ns) return -1;
        s->seq = ns;
        int *nl = realloc(s->len, cap * sizeof *nl);
        if (!nl) return -1;
        s->len = nl;
        s->cap = cap;
    }
    s->name[s->n] = strdup(name);
    s->seq[s->n] = malloc((size_t)len + 1);
    if (!s->name[s->n] || !s->seq[s->n]) return -1;
    memcpy(s->seq[s->n], seq, (size_t)len);
    s->seq[s->n][len] = 0;
    s->len[s->n] = len;
    s->n++;
    return 0;
}

/* Every record of path through htslib (no hand-written parser).  Returns 0
 * or -1 with a line in err. */
static int load(const char *path, seqs *out, char *err, size_t errlen)
{
    samFile *in = sam_open(path, "r");
    if (!in) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    sam_hdr_t *h = sam_hdr_read(in);
    bam1_t *b = bam_init1();
    char *buf = NULL;
    size_t bcap = 0;
    int r, rc = 0;
    while ((r = sam_read1(in, h, b)) >= 0) {
        int len = b->core.l_qseq;
        if ((size_t)len + 1 > bcap) {
            bcap = (size_t)len + 1;
            char *nb = realloc(buf, bcap);
            if (!nb) { rc = -1; snprintf(err, errlen, "out of memory"); break; }
            buf = nb;
        }
        const uint8_t *s = bam_get_seq(b);
        for (int i = 0; i < len; i++) buf[i] = seq_nt16_str[bam_seqi(s, i)];
        /* a reverse-strand SAM/BAM record holds the reverse complement of the
         * read; gpuasm-scan turns it back, and both strands are searched
         * anyway, so only the reported strand could differ: keep as is. */
        if (seqs_push(out, bam_get_qname(b), buf, len) < 0) {
            rc = -1;
            snprintf(err, errlen, "out of memory");
            break;
        }
    }
    if (rc == 0 && r < -1) {
        rc = -1;
        snprintf(err, errlen, "%s: malformed record %zu", path, out->n + 1);
    }
    free(buf);
    bam_destroy1(b);
    if (h) sam_hdr_destroy(h);
    sam_close(in);
    return rc;
}

static char comp(char c)
{
    switch (c) {
    case 'A': return 'T'; case 'C': return 'G'; case 'G': return 'C'; case 'T': return 'A';
    case 'M': return 'K'; case 'K': return 'M'; case 'R': return 'Y'; case 'Y': return 'R';
    case 'B': return 'V'; case 'V': return 'B'; case 'D': return 'H'; case 'H': return 'D';
    default: return c;   /* N, S, W, = */
    }
}

typedef struct {
    int dist;    /* -1: no hit */
    char strand;
    int end;
} hit;

typedef struct {
    const seqs *reads, *targets;
    double error_rate;
    hit *hits;               /* [reads->n * targets->n] */
    size_t next;             /* next read to take, under lock */
    pthread_mutex_t lock;
    int failed;
} job;

static void *worker(void *arg)
{
    job *j = arg;
    const size_t chunk = 16;
    char *rc = NULL;
    int rcap = 0;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        size_t lo = j->next;
        j->next += chunk;
        pthread_mutex_unlock(&j->lock);
        if (lo >= j->reads->n) break;
        size_t hi = lo + chunk < j->reads->n ? lo + chunk : j->reads->n;
        for (size_t r = lo; r < hi; r++) {
            const char *fw = j->reads->seq[r];
            int len = j->reads->len[r];
            if (len + 1 > rcap) {
                rcap = len + 1;
                char *nrc = realloc(rc, (size_t)rcap);
                if (!nrc) { j->failed = 1; free(rc); return NULL; }
                rc = nrc;
            }
            for (int i = 0; i < len; i++) rc[i] = comp(fw[len - 1 - i]);
            int k = (int)floor(j->error_rate * (double)len);
            for (size_t t = 0; t < j->targets->n; t++) {
                hit *h = &j->hits[r * j->targets->n + t];
                h->dist = -1;
                if (len == 0) continue;
                EdlibAlignConfig cfg =
                    edlibNewAlignConfig(k, EDLIB_MODE_HW, EDLIB_TASK_DISTANCE, NULL, 0);
                for (int s = 0; s < 2; s++) {
                    EdlibAlignResult res = edlibAlign(s ? rc : fw, len, j->targets->seq[t],
                                                      j->targets->len[t], cfg);
                    if (res.status != EDLIB_STATUS_OK) j->failed = 1;
                    /* strictly better only: forward wins ties; endLocations
                     * come sorted, so [0] is the leftmost best end */
                    else if (res.editDistance >= 0 &&
                             (h->dist < 0 || res.editDistance < h->dist)) {
                        h->dist = res.editDistance;
                        h->strand = s ? '-' : '+';
                        h->end = res.numLocations > 0 ? res.endLocations[0] : -1;
                    }
                    edlibFreeAlignResult(res);
                }
            }
        }
    }
    free(rc);
    return NULL;
}

static int run_screen(const char *reads_path, const char *targets_path, int threads,
                      const char *out_path, double e)
{
    char err[512];
    seqs reads = { 0 }, targets = { 0 };
    double t0 = now();
    if (load(targets_path, &targets, err, sizeof err) < 0 ||
        load(reads_path, &reads, err, sizeof err) < 0) {
        fprintf(stderr, "edlib_hw: %s\n", err);
        return 1;
    }
    if (targets.n == 0) {
        fprintf(stderr, "edlib_hw: %s: no targets\n", targets_path);
        return 1;
    }
    double t_load = now() - t0;
    job j = { &reads, &targets, e, NULL, 0, PTHREAD_MUTEX_INITIALIZER, 0 };
    j.hits = calloc(reads.n * targets.n + 1, sizeof(hit));
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    if (!j.hits || !tid) {
        fprintf(stderr, "edlib_hw: out of memory\n");
        return 1;
    }
    t0 = now();
    for (int i = 0; i < threads; i++)
        if (pthread_create(&tid[i], NULL, worker, &j) != 0) {
            fprintf(stderr, "edlib_hw: cannot start thread %d\n", i);
            return 1;
        }
    for (int i = 0; i < threads; i++) pthread_join(tid[i], NULL);
    double t_align = now() - t0;
    if (j.failed) {
        fprintf(stderr, "edlib_hw: edlibAlign failed or out of memory\n");
        return 1;
    }
    FILE *out = fopen(out_path, "w");
    if (!out) {
        fprintf(stderr, "edlib_hw: %s: cannot write\n", out_path);
        return 1;
    }
    size_t with_hit = 0, n_hits = 0;
    for (size_t r = 0; r < reads.n; r++) {
        int any = 0;
        for (size_t t = 0; t < targets.n; t++) {
            const hit *h = &j.hits[r * targets.n + t];
            if (h->dist < 0) continue;
            any = 1;
            n_hits++;
            fprintf(out, "%s\t%s\t%c\t%d\t%d\n", reads.name[r], targets.name[t], h->strand,
                    h->dist, h->end);
        }
        with_hit += (size_t)any;
    }
    if (fclose(out) != 0) {
        fprintf(stderr, "edlib_hw: %s: write failed\n", out_path);
        return 1;
    }
    uint64_t tbases = 0;
    for (size_t t = 0; t < targets.n; t++) tbases += (uint64_t)targets.len[t];
    printf("edlib\tscreen\t%zu reads vs %zu targets (%llu bp)\t%d threads\t%.3f s align"
           "\t%.3f s load\t%.1f reads/s\t%zu reads with hits\t%zu hits\n",
           reads.n, targets.n, (unsigned long long)tbases, threads, t_align, t_load,
           (double)reads.n / t_align, with_hit, n_hits);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && !strcmp(argv[1], "p1")) {
        uint64_t m = strtoull(argv[2], NULL, 10), n = strtoull(argv[3], NULL, 10);
        int k = atoi(argv[4]), reps = atoi(argv[5]);
        if (m == 0 || n == 0 || reps < 1) goto usage;
        return run_p1(m, n, k, reps);
    }
    if ((argc == 6 || argc == 7) && !strcmp(argv[1], "screen")) {
        int threads = atoi(argv[4]);
        double e = argc == 7 ? atof(argv[6]) : 0.1;
        if (threads < 1 || e < 0 || e >= 1) goto usage;
        return run_screen(argv[2], argv[3], threads, argv[5], e);
    }
usage:
    fprintf(stderr, "usage: edlib_hw p1 M N K REPS | edlib_hw screen READS TARGETS THREADS "
                    "OUT.tsv [ERROR_RATE]\n");
    return 1;
}
