/* SPDX-License-Identifier: MIT */
/* target_report.c -- the per-target report (see target_report.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/hts.h>
#include <htslib/khash.h>
#include <htslib/kstring.h>
#include <htslib/sam.h>

#include "align/chance.h"
#include "io/stats_json.h"
#include "io/target_report.h"

KHASH_MAP_INIT_INT64(rlen, uint64_t)

#define ANY_ROW "(any)"
#define NONE_ROW "(none)"
#define UNITS 1000000000ULL   /* reads_expected: fixed point, 1e-9 */

static const char *const tsv_columns[] = {
    "sample", "target", "length", "reads", "reads_forward", "reads_reverse", "reads_full",
    "reads_partial", "records", "percent", "best_distance", "reads_expected", "aligned_bases",
    "matching_columns", "aligned_columns", "bases_covered", "breadth", "mean_depth",
    "mean_identity", "distinct_starts", "same_as", "covered", "starts"
};
#define N_COLUMNS (sizeof tsv_columns / sizeof tsv_columns[0])

int gpuasm_target_report_init(gpuasm_target_report *r, const char *sample, uint32_t n,
                              char *const *name, const uint64_t *len, const int32_t *same_as,
                              const struct gpuasm_chance *chance)
{
    memset(r, 0, sizeof(*r));
    r->n = n;
    r->sample = strdup(sample ? sample : "");
    r->name = calloc(n ? n : 1, sizeof(*r->name));
    r->len = calloc(n ? n : 1, sizeof(*r->len));
    r->same_as = malloc((n ? n : 1) * sizeof(*r->same_as));
    r->seen = calloc(n ? n : 1, sizeof(*r->seen));
    r->c = calloc((size_t)n + 1, sizeof(*r->c));
    r->lengths = kh_init(rlen);
    r->chance = chance;
    r->has_expected = chance != NULL && !isnan(gpuasm_chance_partial(chance, 0, 0));
    if (!r->sample || !r->name || !r->len || !r->same_as || !r->seen || !r->c || !r->lengths)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        if (!(r->name[i] = strdup(name[i]))) return -1;
        r->len[i] = len ? len[i] : 0;
        r->same_as[i] = same_as ? same_as[i] : -1;
    }
    return 0;
}

void gpuasm_target_report_free(gpuasm_target_report *r)
{
    for (uint32_t i = 0; r->name && i < r->n; i++) free(r->name[i]);
    for (uint32_t i = 0; r->c && i <= r->n; i++) {
        free(r->c[i].hist);
        free(r->c[i].cov);
        free(r->c[i].starts);
    }
    if (r->lengths) kh_destroy(rlen, (khash_t(rlen) *)r->lengths);
    free(r->name);
    free(r->len);
    free(r->same_as);
    free(r->seen);
    free(r->c);
    free(r->sample);
    memset(r, 0, sizeof(*r));
}

/* Count `k` reads at distance d (the histogram grows to the largest
 * distance seen, not per read). */
static int hist_add(gpuasm_target_count *c, size_t d, uint64_t k)
{
    if (d >= c->n_hist) {
        size_t m = d + 1 < 2 * c->n_hist ? 2 * c->n_hist : d + 1;
        uint64_t *h = realloc(c->hist, m * sizeof(*h));
        if (!h) return -1;
        memset(h + c->n_hist, 0, (m - c->n_hist) * sizeof(*h));
        c->hist = h;
        c->n_hist = m;
    }
    c->hist[d] += k;
    return 0;
}

/* The search distance of a hit record: XD:i where the search's distance
 * differs from NM (io/sam_out.h), else NM:i. */
static size_t record_dist(const bam1_t *b)
{
    const uint8_t *x = bam_aux_get(b, "XD");
    if (!x) x = bam_aux_get(b, "NM");
    int64_t v = x ? bam_aux2i(x) : 0;
    return v > 0 ? (size_t)v : 0;
}

static int count_best(gpuasm_target_count *c, const bam1_t *b)
{
    c->reads++;
    if (b->core.flag & BAM_FREVERSE) c->rev++; else c->fwd++;
    if (bam_aux_get(b, "XP")) c->partial++; else c->full++;
    return hist_add(c, record_dist(b), 1);
}

/* ---- bitsets over a target's bases ----------------------------------------- */

static uint64_t *bits_new(uint64_t len)
{
    return calloc((size_t)((len + 63) / 64) + 1, sizeof(uint64_t));
}

/* Set bits [lo, hi). */
static void bits_set(uint64_t *b, uint64_t lo, uint64_t hi)
{
    while (lo < hi && (lo & 63)) { b[lo >> 6] |= (uint64_t)1 << (lo & 63); lo++; }
    while (lo + 64 <= hi) { b[lo >> 6] = ~(uint64_t)0; lo += 64; }
    while (lo < hi) { b[lo >> 6] |= (uint64_t)1 << (lo & 63); lo++; }
}

static uint64_t bits_count(const uint64_t *b, uint64_t len)
{
    uint64_t n = 0;
    if (!b) return 0;
    for (uint64_t w = 0; w < (len + 63) / 64; w++) n += (uint64_t)__builtin_popcountll(b[w]);
    return n;
}

/* The evidence of one hit record: its span, columns and start. */
static int count_record(gpuasm_target_count *c, const bam1_t *b, uint64_t tlen)
{
    const uint32_t *cig = bam_get_cigar(b);
    uint64_t ref = 0, cols = 0, ins = 0, del = 0;
    for (uint32_t i = 0; i < b->core.n_cigar; i++) {
        const int op = bam_cigar_op(cig[i]);
        const uint64_t l = bam_cigar_oplen(cig[i]);
        if (op == BAM_CMATCH || op == BAM_CEQUAL || op == BAM_CDIFF) { ref += l; cols += l; }
        else if (op == BAM_CDEL) { ref += l; cols += l; del += l; }
        else if (op == BAM_CINS) { cols += l; ins += l; }
    }
    const uint8_t *nmp = bam_aux_get(b, "NM");
    const int64_t nm = nmp ? bam_aux2i(nmp) : 0;
    c->aligned_bases += ref;
    c->aln_cols += cols;
    c->match_cols += cols > (uint64_t)nm ? cols - (uint64_t)nm : 0;
    (void)ins; (void)del;
    const uint64_t pos = b->core.pos >= 0 ? (uint64_t)b->core.pos : 0;
    if (tlen == 0 || pos >= tlen) return 0;
    if (!c->cov && !(c->cov = bits_new(tlen))) return -1;
    if (!c->starts && !(c->starts = bits_new(tlen))) return -1;
    bits_set(c->cov, pos, pos + ref < tlen ? pos + ref : tlen);
    bits_set(c->starts, pos, pos + 1);
    return 0;
}

int gpuasm_target_report_read(gpuasm_target_report *r, bam1_t *const *rec, size_t n, long best,
                              uint64_t read_len)
{
    r->reads++;
    if (read_len > r->max_read_len) r->max_read_len = read_len;
    int absent;
    khint_t k = kh_put(rlen, (khash_t(rlen) *)r->lengths, (khint64_t)read_len, &absent);
    if (absent < 0) return -1;
    if (absent) kh_val((khash_t(rlen) *)r->lengths, k) = 0;
    kh_val((khash_t(rlen) *)r->lengths, k)++;
    if (best < 0) return 0;
    r->stamp++;
    for (size_t i = 0; i < n; i++) {
        const bam1_t *b = rec[i];
        if (b->core.flag & BAM_FUNMAP || b->core.tid < 0 || (uint32_t)b->core.tid >= r->n) continue;
        const uint32_t t = (uint32_t)b->core.tid;
        gpuasm_target_count *c = &r->c[t];
        c->records++;
        r->c[r->n].records++;
        if (count_record(c, b, r->len[t]) < 0) return -1;
        /* A read's records are best first (align/report.h): the first
         * record of a target is its best. */
        if (r->seen[t] != r->stamp) {
            r->seen[t] = r->stamp;
            if (count_best(c, b) < 0) return -1;
        }
    }
    return count_best(&r->c[r->n], rec[best]);
}

/* a + b, saturating. */
static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

int gpuasm_target_report_finish(gpuasm_target_report *r)
{
    if (r->final || !r->chance || !r->has_expected) return 0;
    r->final = 1;
    khash_t(rlen) *h = r->lengths;
    /* Per read length, each target's expectation rounded to units once,
     * times the reads of that length: integers, so the shards of one run
     * sum to the whole run's numbers exactly (--merge-reports). */
    uint64_t any = 0;
    for (uint32_t t = 0; t < r->n; t++) {
        uint64_t e = 0;
        for (khint_t k = kh_begin(h); k != kh_end(h); k++) {
            if (!kh_exist(h, k)) continue;
            const double v = gpuasm_chance_target(r->chance, t, (uint64_t)kh_key(h, k));
            const double u = floor(v * (double)UNITS + 0.5);
            const uint64_t uu = !(u < 1.8e19) ? UINT64_MAX : (uint64_t)u;
            const uint64_t cnt = kh_val(h, k);
            e = sat_add(e, uu && cnt > UINT64_MAX / uu ? UINT64_MAX : uu * cnt);
        }
        r->c[t].expected = e;
        any = sat_add(any, e);
    }
    r->c[r->n].expected = any;
    return 0;
}

int gpuasm_target_report_add(gpuasm_target_report *a, const gpuasm_target_report *b)
{
    if (a->n != b->n) return -1;
    for (uint32_t i = 0; i < a->n; i++)
        if (strcmp(a->name[i], b->name[i]) || a->len[i] != b->len[i]) return -1;
    a->reads += b->reads;
    a->has_expected = a->has_expected && b->has_expected;
    for (uint32_t i = 0; i <= a->n; i++) {
        gpuasm_target_count *x = &a->c[i];
        const gpuasm_target_count *y = &b->c[i];
        x->reads += y->reads; x->fwd += y->fwd; x->rev += y->rev;
        x->full += y->full; x->partial += y->partial; x->records += y->records;
        x->expected = sat_add(x->expected, y->expected);
        x->aligned_bases += y->aligned_bases;
        x->match_cols += y->match_cols;
        x->aln_cols += y->aln_cols;
        for (size_t d = 0; d < y->n_hist; d++)
            if (y->hist[d] && hist_add(x, d, y->hist[d]) < 0) return -1;
        if (i == a->n) continue;
        const uint64_t len = a->len[i], nw = (len + 63) / 64;
        uint64_t **xb[2] = { &x->cov, &x->starts };
        const uint64_t *yb[2] = { y->cov, y->starts };
        for (int q = 0; q < 2; q++) {
            if (!yb[q]) continue;
            if (!*xb[q] && !(*xb[q] = bits_new(len))) return -1;
            for (uint64_t w = 0; w < nw; w++) (*xb[q])[w] |= yb[q][w];
        }
    }
    return 0;
}

static double percent(uint64_t k, uint64_t n) { return n ? 100.0 * (double)k / (double)n : 0.0; }

static void put_hist(FILE *fp, const gpuasm_target_count *c)
{
    size_t top = c->n_hist;
    while (top > 0 && c->hist[top - 1] == 0) top--;
    if (top == 0) { fputc('.', fp); return; }
    for (size_t d = 0; d < top; d++)
        fprintf(fp, "%s%llu", d ? "," : "", (unsigned long long)c->hist[d]);
}

static void put_expected(FILE *fp, const gpuasm_target_report *r, const gpuasm_target_count *c)
{
    if (!r->has_expected) { fputc('.', fp); return; }
    fprintf(fp, "%llu.%09llu", (unsigned long long)(c->expected / UNITS),
            (unsigned long long)(c->expected % UNITS));
}

static void put_intervals(FILE *fp, const uint64_t *b, uint64_t len);

/* The evidence columns of a target row (or "." for the totals: len 0, i < 0). */
static void put_evidence(FILE *fp, const gpuasm_target_report *r, long i)
{
    if (i < 0) {
        fputs("\t.\t.\t.\t.\t.\t.\t.\t.\t.\t.\t.", fp);
        return;
    }
    const gpuasm_target_count *c = &r->c[i];
    const uint64_t len = r->len[i], cov = bits_count(c->cov, len);
    fprintf(fp, "\t%llu\t%llu\t%llu\t%llu\t%.4f\t%.2f\t", (unsigned long long)c->aligned_bases,
            (unsigned long long)c->match_cols, (unsigned long long)c->aln_cols,
            (unsigned long long)cov, len ? (double)cov / (double)len : 0.0,
            len ? (double)c->aligned_bases / (double)len : 0.0);
    if (c->aln_cols) fprintf(fp, "%.4f", (double)c->match_cols / (double)c->aln_cols);
    else fputc('.', fp);
    fprintf(fp, "\t%llu\t%s\t", (unsigned long long)bits_count(c->starts, len),
            r->same_as[i] >= 0 ? r->name[r->same_as[i]] : ".");
    if (c->cov) put_intervals(fp, c->cov, len); else fputc('.', fp);
    fputc('\t', fp);
    if (c->starts) put_intervals(fp, c->starts, len); else fputc('.', fp);
}

static void tsv_row(FILE *fp, const gpuasm_target_report *r, const char *name, uint64_t len,
                    const gpuasm_target_count *c, long i)
{
    fprintf(fp, "%s\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%.2f\t", r->sample, name,
            (unsigned long long)len, (unsigned long long)c->reads, (unsigned long long)c->fwd,
            (unsigned long long)c->rev, (unsigned long long)c->full,
            (unsigned long long)c->partial, (unsigned long long)c->records,
            percent(c->reads, r->reads));
    put_hist(fp, c);
    fputc('\t', fp);
    if (name[0] == '(' && !strcmp(name, NONE_ROW)) fputc('.', fp);
    else put_expected(fp, r, c);
    put_evidence(fp, r, i);
    fputc('\n', fp);
}

/* A bitset as 1-based closed intervals "a-b,c-d" ("." when empty). */
static void put_intervals(FILE *fp, const uint64_t *b, uint64_t len)
{
    int any = 0;
    for (uint64_t i = 0; i < len;) {
        if (!(b[i >> 6] >> (i & 63) & 1)) {
            if (!b[i >> 6] && !(i & 63)) i += 64; else i++;
            continue;
        }
        uint64_t j = i;
        while (j + 1 < len && (b[(j + 1) >> 6] >> ((j + 1) & 63) & 1)) j++;
        fprintf(fp, "%s%llu-%llu", any ? "," : "", (unsigned long long)i + 1, (unsigned long long)j + 1);
        any = 1;
        i = j + 1;
    }
    if (!any) fputc('.', fp);
}

int gpuasm_target_report_tsv(FILE *fp, const gpuasm_target_report *r)
{
    gpuasm_target_report_finish((gpuasm_target_report *)r);
    for (size_t k = 0; k < N_COLUMNS; k++) fprintf(fp, "%s%c", tsv_columns[k], k + 1 < N_COLUMNS ? '\t' : '\n');
    for (uint32_t i = 0; i < r->n; i++) tsv_row(fp, r, r->name[i], r->len[i], &r->c[i], (long)i);
    tsv_row(fp, r, ANY_ROW, 0, &r->c[r->n], -1);
    /* Reads without a hit have no strand, kind or distance. */
    gpuasm_target_count none = { .reads = r->reads - r->c[r->n].reads };
    tsv_row(fp, r, NONE_ROW, 0, &none, -1);
    return ferror(fp) ? -1 : 0;
}

/* ---- reading a TSV report back (--merge-reports) -------------------------- */

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-') return -1;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end || errno) return -1;
    *v = x;
    return 0;
}

/* reads_expected: "I.FFFFFFFFF" (9 decimals) into units, or "." (*known = 0). */
static int parse_expected(const char *s, uint64_t *v, int *known)
{
    if (!strcmp(s, ".")) { *known = 0; *v = 0; return 0; }
    const char *dot = strchr(s, '.');
    if (!dot || strlen(dot + 1) != 9) return -1;
    char ip[32];
    if ((size_t)(dot - s) >= sizeof ip) return -1;
    memcpy(ip, s, (size_t)(dot - s));
    ip[dot - s] = 0;
    uint64_t i, f;
    if (parse_u64(ip, &i) < 0 || parse_u64(dot + 1, &f) < 0) return -1;
    *v = i > (UINT64_MAX - f) / UNITS ? UINT64_MAX : i * UNITS + f;
    return 0;
}

/* Grow r to hold target i (rows come in order). */
static int add_target(gpuasm_target_report *r, const char *name, uint64_t len)
{
    char **nm = realloc(r->name, (r->n + 1) * sizeof(*nm));
    if (!nm) return -1;
    r->name = nm;
    uint64_t *ln = realloc(r->len, (r->n + 1) * sizeof(*ln));
    if (!ln) return -1;
    r->len = ln;
    int32_t *sa = realloc(r->same_as, (r->n + 1) * sizeof(*sa));
    if (!sa) return -1;
    r->same_as = sa;
    r->same_as[r->n] = -1;
    gpuasm_target_count *c = realloc(r->c, (r->n + 2) * sizeof(*c));
    if (!c) return -1;
    r->c = c;
    memset(&r->c[r->n + 1], 0, sizeof(*c));
    if (!(r->name[r->n] = strdup(name))) return -1;
    r->len[r->n] = len;
    r->n++;
    return 0;
}

static long target_index(const gpuasm_target_report *r, const char *name)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (!strcmp(r->name[i], name)) return (long)i;
    return -1;
}

/* "a-b,c-d" (1-based closed, inside [1, len]) into a new bitset *out.
 * 0, -1 malformed, -2 out of memory. */
static int parse_intervals(const char *s, uint64_t len, uint64_t **out)
{
    if (!(*out = bits_new(len))) return -2;
    if (!strcmp(s, ".")) return 0;
    for (const char *p = s; *p;) {
        char *end;
        errno = 0;
        unsigned long long a = strtoull(p, &end, 10);
        if (end == p || *end != '-' || errno) return -1;
        p = end + 1;
        unsigned long long b = strtoull(p, &end, 10);
        if (end == p || (*end && *end != ',') || errno || a < 1 || b < a || b > len) return -1;
        bits_set(*out, a - 1, b);
        p = *end ? end + 1 : end;
    }
    return 0;
}

int gpuasm_target_report_read_tsv(const char *path, gpuasm_target_report *r,
                                  char *err, size_t errlen)
{
    FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
    kstring_t line = KS_INITIALIZE;
    int ret = -1, seen_any = 0, seen_none = 0, known_all = 1;
    uint64_t lineno = 0;
    int *f = NULL;
    memset(r, 0, sizeof(*r));
    if (!fp) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (!(r->c = calloc(1, sizeof(*r->c))) || !(r->sample = strdup(""))) goto oom;
#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); goto out; } while (0)
    for (;;) {
        line.l = 0;
        int ch;
        while ((ch = getc(fp)) != EOF && ch != '\n') if (kputc(ch, &line) < 0) goto oom;
        if (ch == EOF && line.l == 0) break;
        lineno++;
        if (line.l && line.s[line.l - 1] == '\r') line.s[--line.l] = 0;
        int nf = 0;
        free(f);
        f = ksplit(&line, '\t', &nf);
        if (!f) goto oom;
        const unsigned long long ln = (unsigned long long)lineno;
        if (lineno == 1) {
            int ok = nf == (int)N_COLUMNS;
            for (int k = 0; ok && k < nf; k++) ok = !strcmp(line.s + f[k], tsv_columns[k]);
            if (!ok)
                BAD("%s: line 1: not a gpuasm-scan --report header of this version (expected "
                    "sample, target, length, ... same_as: %zu columns)", path, N_COLUMNS);
            continue;
        }
        if (nf != (int)N_COLUMNS)
            BAD("%s: line %llu: %d columns, expected %zu", path, ln, nf, N_COLUMNS);
        const char *sample = line.s + f[0], *name = line.s + f[1];
        uint64_t v[7];
        int bad = 0;
        for (int k = 0; k < 7; k++) bad |= parse_u64(line.s + f[2 + k], &v[k]) < 0;
        const char *hist = line.s + f[10];
        if (lineno == 2) {
            free(r->sample);
            if (!(r->sample = strdup(sample))) goto oom;
        } else if (strcmp(sample, r->sample)) {
            BAD("%s: line %llu: sample '%s' after '%s' (one sample per report)", path, ln, sample,
                r->sample);
        }
        if (seen_none) BAD("%s: line %llu: a row after %s", path, ln, NONE_ROW);
        if (!bad && !strcmp(name, NONE_ROW)) {
            seen_none = 1;
            r->reads = r->c[r->n].reads + v[1];
            continue;
        }
        if (bad || v[1] != v[2] + v[3] || v[1] != v[4] + v[5])
            BAD("%s: line %llu: bad counts (reads must be forward + reverse and full + partial)",
                path, ln);
        gpuasm_target_count *c;
        const int any = !strcmp(name, ANY_ROW);
        if (any) {
            seen_any = 1;
            c = &r->c[r->n];
        } else {
            if (seen_any) BAD("%s: line %llu: target row after the totals", path, ln);
            /* (any) lives at index n: move it along as targets are added. */
            gpuasm_target_count keep = r->c[r->n];
            if (add_target(r, name, v[0]) < 0) goto oom;
            r->c[r->n] = keep;
            memset(&r->c[r->n - 1], 0, sizeof(*c));
            c = &r->c[r->n - 1];
            const char *sa = line.s + f[20];
            if (strcmp(sa, ".")) {
                const long j = target_index(r, sa);
                if (j < 0 || j >= (long)r->n - 1)
                    BAD("%s: line %llu: same_as '%s' is not an earlier target", path, ln, sa);
                r->same_as[r->n - 1] = (int32_t)j;
            }
            uint64_t e[3];
            for (int k = 0; k < 3; k++)
                if (parse_u64(line.s + f[12 + k], &e[k]) < 0)
                    BAD("%s: line %llu: bad %s '%s'", path, ln, tsv_columns[12 + k], line.s + f[12 + k]);
            c->aligned_bases = e[0];
            c->match_cols = e[1];
            c->aln_cols = e[2];
            /* covered and starts: the bases' and the starts' sets, so that
             * shards merge into the whole run's bases_covered and
             * distinct_starts */
            for (int k = 0; k < 2; k++) {
                const char *iv = line.s + f[21 + k];
                if (!strcmp(iv, ".")) continue;
                const int pr = parse_intervals(iv, v[0], k ? &c->starts : &c->cov);
                if (pr == -2) goto oom;
                if (pr < 0) BAD("%s: line %llu: bad %s intervals (1-based a-b within the target's %llu bases)",
                                path, ln, tsv_columns[21 + k], (unsigned long long)v[0]);
            }
        }
        int known = 1;
        if (parse_expected(line.s + f[11], &c->expected, &known) < 0)
            BAD("%s: line %llu: bad reads_expected '%s' (a number with 9 decimals, or .)", path, ln,
                line.s + f[11]);
        known_all &= known;
        c->reads = v[1]; c->fwd = v[2]; c->rev = v[3]; c->full = v[4]; c->partial = v[5];
        c->records = v[6];
        if (strcmp(hist, ".")) {
            size_t d = 0;
            uint64_t sum = 0;
            for (const char *p = hist; *p; d++) {
                char *end;
                errno = 0;
                unsigned long long x = strtoull(p, &end, 10);
                if (end == p || errno || (*end && *end != ',')) { bad = 1; break; }
                if (x && hist_add(c, d, x) < 0) goto oom;
                sum += x;
                p = *end ? end + 1 : end;
            }
            if (bad || sum != c->reads)
                BAD("%s: line %llu: bad best_distance '%s' (its counts must sum to reads)", path, ln,
                    hist);
        } else if (c->reads) {
            BAD("%s: line %llu: best_distance '.' with reads", path, ln);
        }
    }
    if (ferror(fp)) BAD("%s: read failed: %s", path, strerror(errno ? errno : EIO));
    if (lineno == 0 || !seen_any || !seen_none)
        BAD("%s: truncated report (no %s row)", path,
            lineno == 0 ? "header" : !seen_any ? ANY_ROW : NONE_ROW);
#undef BAD
    r->has_expected = known_all;
    r->final = 1;
    if (!(r->seen = calloc(r->n ? r->n : 1, sizeof(*r->seen))) || !(r->lengths = kh_init(rlen))) goto oom;
    ret = 0;
    goto out;
oom:
    snprintf(err, errlen, "%s: out of memory", path);
out:
    free(f);
    if (fp != stdin) fclose(fp);
    ks_free(&line);
    if (ret < 0) gpuasm_target_report_free(r);
    return ret;
}

/* ---- JSON and MultiQC ---------------------------------------------------- */

static void json_expected(FILE *fp, const gpuasm_target_report *r, const gpuasm_target_count *c)
{
    fputs(",\"reads_expected\":", fp);
    if (!r->has_expected) fputs("null", fp);
    else fprintf(fp, "%llu.%09llu", (unsigned long long)(c->expected / UNITS),
                 (unsigned long long)(c->expected % UNITS));
}

static void json_count(FILE *fp, const gpuasm_target_report *r, long i)
{
    const gpuasm_target_count *c = i < 0 ? &r->c[r->n] : &r->c[i];
    fprintf(fp, ",\"reads\":%llu,\"reads_forward\":%llu,\"reads_reverse\":%llu,"
            "\"reads_full\":%llu,\"reads_partial\":%llu,\"records\":%llu,\"percent\":%.2f,"
            "\"best_distance\":[", (unsigned long long)c->reads, (unsigned long long)c->fwd,
            (unsigned long long)c->rev, (unsigned long long)c->full,
            (unsigned long long)c->partial, (unsigned long long)c->records,
            percent(c->reads, r->reads));
    size_t top = c->n_hist;
    while (top > 0 && c->hist[top - 1] == 0) top--;
    for (size_t d = 0; d < top; d++)
        fprintf(fp, "%s%llu", d ? "," : "", (unsigned long long)c->hist[d]);
    fputc(']', fp);
    json_expected(fp, r, c);
    if (i < 0) return;
    const uint64_t len = r->len[i], cov = bits_count(c->cov, len);
    fprintf(fp, ",\"aligned_bases\":%llu,\"matching_columns\":%llu,\"aligned_columns\":%llu,"
            "\"bases_covered\":%llu,\"breadth\":%.4f,\"mean_depth\":%.2f,\"mean_identity\":",
            (unsigned long long)c->aligned_bases, (unsigned long long)c->match_cols,
            (unsigned long long)c->aln_cols, (unsigned long long)cov,
            len ? (double)cov / (double)len : 0.0, len ? (double)c->aligned_bases / (double)len : 0.0);
    if (c->aln_cols) fprintf(fp, "%.4f", (double)c->match_cols / (double)c->aln_cols);
    else fputs("null", fp);
    fprintf(fp, ",\"distinct_starts\":%llu,\"same_as\":", (unsigned long long)bits_count(c->starts, len));
    if (r->same_as[i] >= 0) gpuasm_json_string(fp, r->name[r->same_as[i]]);
    else fputs("null", fp);
}

int gpuasm_target_report_json(FILE *fp, const gpuasm_target_report *r)
{
    gpuasm_target_report_finish((gpuasm_target_report *)r);
    const gpuasm_target_count *any = &r->c[r->n];
    fputs(",\"sample\":", fp);
    gpuasm_json_string(fp, r->sample);
    fprintf(fp, ",\"reads_without_hits\":%llu,\"percent_with_hits\":%.2f,\"any_target\":{",
            (unsigned long long)(r->reads - any->reads), percent(any->reads, r->reads));
    fputs("\"name\":\"" ANY_ROW "\"", fp);
    json_count(fp, r, -1);
    fputs("},\"targets\":[", fp);
    for (uint32_t i = 0; i < r->n; i++) {
        fputs(i ? ",{\"name\":" : "{\"name\":", fp);
        gpuasm_json_string(fp, r->name[i]);
        fprintf(fp, ",\"length\":%llu", (unsigned long long)r->len[i]);
        json_count(fp, r, (long)i);
        fputc('}', fp);
    }
    fputc(']', fp);
    return ferror(fp) ? -1 : 0;
}

int gpuasm_target_report_multiqc(FILE *fp, const gpuasm_target_report *r)
{
    /* One id for every sample: MultiQC's custom content merges the data of
     * files with the same id into one plot. */
    fputs("{\"id\":\"gpuasm_scan_targets\",\"section_name\":\"gpuasm-scan: reads per target\","
          "\"description\":\"Reads with a hit on each target (a read hitting two targets "
          "counts for both; targets of the same sequence are one bar), and reads without a hit "
          "(gpuasm-scan --report).\","
          "\"plot_type\":\"bargraph\",\"pconfig\":{\"id\":\"gpuasm_scan_targets_plot\","
          "\"title\":\"gpuasm-scan: reads per target\",\"ylab\":\"Reads\"},\"data\":{", fp);
    gpuasm_json_string(fp, r->sample);
    fputs(":{", fp);
    int first = 1;
    kstring_t label = KS_INITIALIZE;
    for (uint32_t i = 0; i < r->n; i++) {
        if (r->same_as[i] >= 0) continue;   /* shown with its first */
        /* The targets of this sequence: the reads of the one with most
         * (the same reads hit each of them; with --best only the first is
         * ever chosen). */
        uint64_t reads = r->c[i].reads;
        label.l = 0;
        kputs(r->name[i], &label);
        int others = 0;
        for (uint32_t j = i + 1; j < r->n; j++) {
            if (r->same_as[j] != (int32_t)i) continue;
            if (r->c[j].reads > reads) reads = r->c[j].reads;
            ksprintf(&label, "%s%s", others++ ? ", " : " (= ", r->name[j]);
        }
        if (others) kputc(')', &label);
        if (!reads) continue;   /* 158 adapters would make 158 empty bars */
        if (!first) fputc(',', fp);
        first = 0;
        gpuasm_json_string(fp, label.s);
        fprintf(fp, ":%llu", (unsigned long long)reads);
    }
    ks_free(&label);
    fprintf(fp, "%s\"no hit\":%llu}}}\n", first ? "" : ",",
            (unsigned long long)(r->reads - r->c[r->n].reads));
    return ferror(fp) ? -1 : 0;
}

int gpuasm_target_report_multiqc_general(FILE *fp, const gpuasm_target_report *r)
{
    fputs("{\"id\":\"gpuasm_scan_general\",\"section_name\":\"gpuasm-scan\","
          "\"plot_type\":\"generalstats\",\"pconfig\":[{\"gpuasm_percent_with_hit\":{"
          "\"title\":\"% gpuasm hit\",\"namespace\":\"gpuasm-scan\",\"description\":"
          "\"Reads with a hit on any target (gpuasm-scan)\",\"min\":0,\"max\":100,"
          "\"suffix\":\"%\",\"format\":\"{:,.2f}\",\"scale\":\"OrRd\"}}],\"data\":{", fp);
    gpuasm_json_string(fp, r->sample);
    fprintf(fp, ":{\"gpuasm_percent_with_hit\":%.2f}}}\n", percent(r->c[r->n].reads, r->reads));
    return ferror(fp) ? -1 : 0;
}

int gpuasm_multiqc_general_path(const char *path, char *buf, size_t len)
{
    size_t n = strlen(path);
    static const char *const ends[] = { "_mqc.json", ".json" };
    for (size_t k = 0; k < 2; k++) {
        const size_t e = strlen(ends[k]);
        if (n > e && !strcmp(path + n - e, ends[k])) { n -= e; break; }
    }
    const int w = snprintf(buf, len, "%.*s_general_mqc.json", (int)n, path);
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

void gpuasm_target_report_summary(FILE *fp, const char *prog, const gpuasm_target_report *r,
                                  int top)
{
    gpuasm_target_report_finish((gpuasm_target_report *)r);
    const gpuasm_target_count *any = &r->c[r->n];
    fprintf(fp, "%s: %s: %llu reads, %llu with a hit (%.2f%%), %llu hit records", prog,
            r->sample, (unsigned long long)r->reads, (unsigned long long)any->reads,
            percent(any->reads, r->reads), (unsigned long long)any->records);
    if (r->has_expected) fprintf(fp, "; %.3g expected by chance", (double)any->expected / (double)UNITS);
    fputc('\n', fp);
    /* The top targets by reads, ties in file order: a selection, O(top x n). */
    uint64_t prev = UINT64_MAX;
    uint32_t prev_i = 0;
    for (int k = 0; k < top; k++) {
        long bi = -1;
        for (uint32_t i = 0; i < r->n; i++) {
            uint64_t v = r->c[i].reads;
            if (!v) continue;
            /* after (prev, prev_i) in (reads desc, index asc) order */
            if (k && !(v < prev || (v == prev && i > prev_i))) continue;
            if (bi < 0 || v > r->c[bi].reads) bi = (long)i;
        }
        if (bi < 0) break;
        const gpuasm_target_count *c = &r->c[bi];
        fprintf(fp, "%s:   %-20s %llu reads (%.2f%%): %llu full, %llu partial; %llu forward, "
                "%llu reverse", prog, r->name[bi], (unsigned long long)c->reads,
                percent(c->reads, r->reads), (unsigned long long)c->full,
                (unsigned long long)c->partial, (unsigned long long)c->fwd,
                (unsigned long long)c->rev);
        if (r->has_expected) fprintf(fp, "; %.3g by chance", (double)c->expected / (double)UNITS);
        if (c->aln_cols && r->len[bi] > r->max_read_len)
            fprintf(fp, "; breadth %.4f, depth %.2f", (double)bits_count(c->cov, r->len[bi]) / (double)r->len[bi],
                    (double)c->aligned_bases / (double)r->len[bi]);
        fputc('\n', fp);
        prev = c->reads;
        prev_i = (uint32_t)bi;
    }
}

void gpuasm_sample_from_path(const char *path, char *buf, size_t len)
{
    if (!path || !strcmp(path, "-")) {
        snprintf(buf, len, "stdin");
        return;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(buf, len, "%s", base);
    static const char *const zext[] = { ".gz", ".bgz", ".bgzf", ".bz2", ".xz", ".zst" };
    static const char *const ext[] = { ".fastq", ".fq", ".fasta", ".fa", ".fna", ".bam",
                                       ".cram", ".sam" };
    size_t n = strlen(buf);
    for (size_t k = 0; k < sizeof zext / sizeof zext[0]; k++) {
        size_t e = strlen(zext[k]);
        if (n > e && !strcmp(buf + n - e, zext[k])) { buf[n -= e] = 0; break; }
    }
    for (size_t k = 0; k < sizeof ext / sizeof ext[0]; k++) {
        size_t e = strlen(ext[k]);
        if (n > e && !strcmp(buf + n - e, ext[k])) { buf[n -= e] = 0; break; }
    }
}
