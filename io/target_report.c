/* target_report.c -- the per-target report (see target_report.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/hts.h>
#include <htslib/kstring.h>
#include <htslib/sam.h>

#include "stats_json.h"
#include "target_report.h"

#define ANY_ROW "(any)"
#define NONE_ROW "(none)"

static const char *const tsv_columns[] = {
    "sample", "target", "length", "reads", "reads_forward", "reads_reverse", "reads_full",
    "reads_partial", "records", "percent", "best_distance"
};
#define N_COLUMNS (sizeof tsv_columns / sizeof tsv_columns[0])

int gpuasm_target_report_init(gpuasm_target_report *r, const char *sample, uint32_t n,
                              char *const *name, const uint64_t *len)
{
    memset(r, 0, sizeof(*r));
    r->n = n;
    r->sample = strdup(sample ? sample : "");
    r->name = calloc(n ? n : 1, sizeof(*r->name));
    r->len = calloc(n ? n : 1, sizeof(*r->len));
    r->c = calloc((size_t)n + 1, sizeof(*r->c));
    if (!r->sample || !r->name || !r->len || !r->c) return -1;
    for (uint32_t i = 0; i < n; i++) {
        if (!(r->name[i] = strdup(name[i]))) return -1;
        r->len[i] = len ? len[i] : 0;
    }
    return 0;
}

void gpuasm_target_report_free(gpuasm_target_report *r)
{
    for (uint32_t i = 0; r->name && i < r->n; i++) free(r->name[i]);
    for (uint32_t i = 0; r->c && i <= r->n; i++) free(r->c[i].hist);
    free(r->name);
    free(r->len);
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

/* The search distance of a hit record: -AS (io/sam_out.h writes AS). */
static size_t record_dist(const bam1_t *b)
{
    const uint8_t *as = bam_aux_get(b, "AS");
    int64_t v = as ? bam_aux2i(as) : 0;
    return v < 0 ? (size_t)-v : 0;
}

static int count_best(gpuasm_target_count *c, const bam1_t *b)
{
    c->reads++;
    if (b->core.flag & BAM_FREVERSE) c->rev++; else c->fwd++;
    if (bam_aux_get(b, "XP")) c->partial++; else c->full++;
    return hist_add(c, record_dist(b), 1);
}

int gpuasm_target_report_read(gpuasm_target_report *r, bam1_t *const *rec, size_t n, long best)
{
    r->reads++;
    if (best < 0) return 0;
    int32_t prev = -1;   /* target of the previous hit record */
    for (size_t i = 0; i < n; i++) {
        const bam1_t *b = rec[i];
        if (b->core.flag & BAM_FUNMAP || b->core.tid < 0 || (uint32_t)b->core.tid >= r->n) continue;
        gpuasm_target_count *c = &r->c[b->core.tid];
        c->records++;
        r->c[r->n].records++;
        /* A read's records are grouped by target, best first (README "SAM
         * output"): the first of a run of one target is its best. */
        if (b->core.tid != prev && count_best(c, b) < 0) return -1;
        prev = b->core.tid;
    }
    return count_best(&r->c[r->n], rec[best]);
}

int gpuasm_target_report_add(gpuasm_target_report *a, const gpuasm_target_report *b)
{
    if (a->n != b->n) return -1;
    for (uint32_t i = 0; i < a->n; i++)
        if (strcmp(a->name[i], b->name[i]) || a->len[i] != b->len[i]) return -1;
    a->reads += b->reads;
    for (uint32_t i = 0; i <= a->n; i++) {
        gpuasm_target_count *x = &a->c[i];
        const gpuasm_target_count *y = &b->c[i];
        x->reads += y->reads; x->fwd += y->fwd; x->rev += y->rev;
        x->full += y->full; x->partial += y->partial; x->records += y->records;
        for (size_t d = 0; d < y->n_hist; d++)
            if (y->hist[d] && hist_add(x, d, y->hist[d]) < 0) return -1;
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

static void tsv_row(FILE *fp, const gpuasm_target_report *r, const char *name, uint64_t len,
                    const gpuasm_target_count *c)
{
    fprintf(fp, "%s\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%.2f\t", r->sample, name,
            (unsigned long long)len, (unsigned long long)c->reads, (unsigned long long)c->fwd,
            (unsigned long long)c->rev, (unsigned long long)c->full,
            (unsigned long long)c->partial, (unsigned long long)c->records,
            percent(c->reads, r->reads));
    put_hist(fp, c);
    fputc('\n', fp);
}

int gpuasm_target_report_tsv(FILE *fp, const gpuasm_target_report *r)
{
    for (size_t k = 0; k < N_COLUMNS; k++) fprintf(fp, "%s%c", tsv_columns[k], k + 1 < N_COLUMNS ? '\t' : '\n');
    for (uint32_t i = 0; i < r->n; i++) tsv_row(fp, r, r->name[i], r->len[i], &r->c[i]);
    tsv_row(fp, r, ANY_ROW, 0, &r->c[r->n]);
    /* Reads without a hit have no strand, kind or distance. */
    gpuasm_target_count none = { .reads = r->reads - r->c[r->n].reads };
    tsv_row(fp, r, NONE_ROW, 0, &none);
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

/* Grow r to hold target i (rows come in order). */
static int add_target(gpuasm_target_report *r, const char *name, uint64_t len)
{
    char **nm = realloc(r->name, (r->n + 1) * sizeof(*nm));
    if (!nm) return -1;
    r->name = nm;
    uint64_t *ln = realloc(r->len, (r->n + 1) * sizeof(*ln));
    if (!ln) return -1;
    r->len = ln;
    gpuasm_target_count *c = realloc(r->c, (r->n + 2) * sizeof(*c));
    if (!c) return -1;
    r->c = c;
    memset(&r->c[r->n + 1], 0, sizeof(*c));
    if (!(r->name[r->n] = strdup(name))) return -1;
    r->len[r->n] = len;
    r->n++;
    return 0;
}

int gpuasm_target_report_read_tsv(const char *path, gpuasm_target_report *r,
                                  char *err, size_t errlen)
{
    FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
    kstring_t line = KS_INITIALIZE;
    int ret = -1, seen_any = 0, seen_none = 0;
    uint64_t lineno = 0;
    memset(r, 0, sizeof(*r));
    if (!fp) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (!(r->c = calloc(1, sizeof(*r->c))) || !(r->sample = strdup(""))) goto oom;
    for (;;) {
        line.l = 0;
        int ch;
        while ((ch = getc(fp)) != EOF && ch != '\n') if (kputc(ch, &line) < 0) goto oom;
        if (ch == EOF && line.l == 0) break;
        lineno++;
        if (line.l && line.s[line.l - 1] == '\r') line.s[--line.l] = 0;
        int nf = 0;
        int *f = ksplit(&line, '\t', &nf);
        if (!f) goto oom;
        if (lineno == 1) {
            int ok = nf == (int)N_COLUMNS;
            for (int k = 0; ok && k < nf; k++) ok = !strcmp(line.s + f[k], tsv_columns[k]);
            free(f);
            if (!ok) {
                snprintf(err, errlen, "%s: line 1: not a gpuasm-scan --report header (expected "
                         "sample, target, length, ...)", path);
                goto out;
            }
            continue;
        }
        if (nf != (int)N_COLUMNS) {
            free(f);
            snprintf(err, errlen, "%s: line %llu: %d columns, expected %zu", path,
                     (unsigned long long)lineno, nf, N_COLUMNS);
            goto out;
        }
        const char *sample = line.s + f[0], *name = line.s + f[1];
        uint64_t v[7];
        int bad = 0;
        for (int k = 0; k < 7; k++) bad |= parse_u64(line.s + f[2 + k], &v[k]) < 0;
        const char *hist = line.s + f[10];
        if (lineno == 2) {
            free(r->sample);
            if (!(r->sample = strdup(sample))) { free(f); goto oom; }
        } else if (strcmp(sample, r->sample)) {
            free(f);
            snprintf(err, errlen, "%s: line %llu: sample '%s' after '%s' (one sample per report)",
                     path, (unsigned long long)lineno, sample, r->sample);
            goto out;
        }
        if (!bad && !strcmp(name, NONE_ROW)) {
            seen_none = 1;
            r->reads = r->c[r->n].reads + v[1];
            free(f);
            continue;
        }
        if (bad || v[1] != v[2] + v[3] || v[1] != v[4] + v[5]) {
            free(f);
            snprintf(err, errlen, "%s: line %llu: bad counts (reads must be forward + reverse "
                     "and full + partial)", path, (unsigned long long)lineno);
            goto out;
        }
        gpuasm_target_count *c;
        if (seen_none) {
            free(f);
            snprintf(err, errlen, "%s: line %llu: a row after %s", path,
                     (unsigned long long)lineno, NONE_ROW);
            goto out;
        }
        if (!strcmp(name, ANY_ROW)) {
            seen_any = 1;
            c = &r->c[r->n];
        } else {
            if (seen_any || seen_none) {
                free(f);
                snprintf(err, errlen, "%s: line %llu: target row after the totals", path,
                         (unsigned long long)lineno);
                goto out;
            }
            /* (any) lives at index n: move it along as targets are added. */
            gpuasm_target_count any = r->c[r->n];
            if (add_target(r, name, v[0]) < 0) { free(f); goto oom; }
            r->c[r->n] = any;
            memset(&r->c[r->n - 1], 0, sizeof(*c));
            c = &r->c[r->n - 1];
        }
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
                if (x && hist_add(c, d, x) < 0) { free(f); goto oom; }
                sum += x;
                p = *end ? end + 1 : end;
            }
            if (bad || sum != c->reads) {
                free(f);
                snprintf(err, errlen, "%s: line %llu: bad best_distance '%s' (its counts must "
                         "sum to reads)", path, (unsigned long long)lineno, hist);
                goto out;
            }
        } else if (c->reads) {
            free(f);
            snprintf(err, errlen, "%s: line %llu: best_distance '.' with reads", path,
                     (unsigned long long)lineno);
            goto out;
        }
        free(f);
    }
    if (ferror(fp)) {
        snprintf(err, errlen, "%s: read failed: %s", path, strerror(errno ? errno : EIO));
        goto out;
    }
    if (lineno == 0 || !seen_any || !seen_none) {
        snprintf(err, errlen, "%s: truncated report (no %s row)", path,
                 lineno == 0 ? "header" : !seen_any ? ANY_ROW : NONE_ROW);
        goto out;
    }
    ret = 0;
    goto out;
oom:
    snprintf(err, errlen, "%s: out of memory", path);
out:
    if (fp != stdin) fclose(fp);
    ks_free(&line);
    if (ret < 0) gpuasm_target_report_free(r);
    return ret;
}

/* ---- JSON and MultiQC ---------------------------------------------------- */

static void json_count(FILE *fp, const gpuasm_target_count *c, uint64_t all)
{
    fprintf(fp, ",\"reads\":%llu,\"reads_forward\":%llu,\"reads_reverse\":%llu,"
            "\"reads_full\":%llu,\"reads_partial\":%llu,\"records\":%llu,\"percent\":%.2f,"
            "\"best_distance\":[", (unsigned long long)c->reads, (unsigned long long)c->fwd,
            (unsigned long long)c->rev, (unsigned long long)c->full,
            (unsigned long long)c->partial, (unsigned long long)c->records,
            percent(c->reads, all));
    size_t top = c->n_hist;
    while (top > 0 && c->hist[top - 1] == 0) top--;
    for (size_t d = 0; d < top; d++)
        fprintf(fp, "%s%llu", d ? "," : "", (unsigned long long)c->hist[d]);
    fputc(']', fp);
}

int gpuasm_target_report_json(FILE *fp, const gpuasm_target_report *r)
{
    const gpuasm_target_count *any = &r->c[r->n];
    fputs(",\"sample\":", fp);
    gpuasm_json_string(fp, r->sample);
    fprintf(fp, ",\"reads_without_hits\":%llu,\"percent_with_hits\":%.2f,\"any_target\":{",
            (unsigned long long)(r->reads - any->reads), percent(any->reads, r->reads));
    fputs("\"name\":\"" ANY_ROW "\"", fp);
    json_count(fp, any, r->reads);
    fputs("},\"targets\":[", fp);
    for (uint32_t i = 0; i < r->n; i++) {
        fputs(i ? ",{\"name\":" : "{\"name\":", fp);
        gpuasm_json_string(fp, r->name[i]);
        fprintf(fp, ",\"length\":%llu", (unsigned long long)r->len[i]);
        json_count(fp, &r->c[i], r->reads);
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
          "counts for both), and reads without a hit (gpuasm-scan --report).\","
          "\"plot_type\":\"bargraph\",\"pconfig\":{\"id\":\"gpuasm_scan_targets_plot\","
          "\"title\":\"gpuasm-scan: reads per target\",\"ylab\":\"Reads\"},\"data\":{", fp);
    gpuasm_json_string(fp, r->sample);
    fputs(":{", fp);
    int first = 1;
    for (uint32_t i = 0; i < r->n; i++) {
        if (!r->c[i].reads) continue;   /* 158 adapters would make 158 empty bars */
        if (!first) fputc(',', fp);
        first = 0;
        gpuasm_json_string(fp, r->name[i]);
        fprintf(fp, ":%llu", (unsigned long long)r->c[i].reads);
    }
    fprintf(fp, "%s\"no hit\":%llu}}}\n", first ? "" : ",",
            (unsigned long long)(r->reads - r->c[r->n].reads));
    return ferror(fp) ? -1 : 0;
}

void gpuasm_target_report_summary(FILE *fp, const char *prog, const gpuasm_target_report *r,
                                  int top)
{
    const gpuasm_target_count *any = &r->c[r->n];
    fprintf(fp, "%s: %s: %llu reads, %llu with a hit (%.2f%%), %llu hit records\n", prog,
            r->sample, (unsigned long long)r->reads, (unsigned long long)any->reads,
            percent(any->reads, r->reads), (unsigned long long)any->records);
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
                "%llu reverse\n", prog, r->name[bi], (unsigned long long)c->reads,
                percent(c->reads, r->reads), (unsigned long long)c->full,
                (unsigned long long)c->partial, (unsigned long long)c->fwd,
                (unsigned long long)c->rev);
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
