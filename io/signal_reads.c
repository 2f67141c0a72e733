/* SPDX-License-Identifier: MIT */
/* signal_reads.c -- raw signals in batches (see signal_reads.h): slow5lib
 * for SLOW5/BLOW5, htslib's hFILE/BGZF and kstring for text.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/bgzf.h>
#include <htslib/hfile.h>
#include <htslib/kstring.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifdef HAVE_SLOW5
#include <slow5/slow5.h>
#endif

#include "util/grow.h"
#include "io/signal_norm.h"
#include "io/signal_reads.h"

enum { FMT_TEXT = 0, FMT_SLOW5 = 1, FMT_BLOW5 = 2 };
enum { LAYOUT_UNKNOWN = 0, LAYOUT_VALUE_PER_LINE = 1, LAYOUT_SIGNAL_PER_LINE = 2 };

struct gpuasm_sigreader {
    char *path;
    int fmt;
    uint64_t records;          /* records read so far */
    /* text */
    BGZF *fp;
    kstring_t line;
    uint64_t lineno;
    int layout;
    int done;
    char *file_name;           /* the one signal of a value-per-line file */
    /* the current record: name and its samples (pA or text units) */
    kstring_t name;
    float *x;
    size_t nx, mx;
#ifdef HAVE_SLOW5
    slow5_file_t *s5;
    slow5_rec_t *rec;
#endif
};

int gpuasm_have_slow5(void)
{
#ifdef HAVE_SLOW5
    return 1;
#else
    return 0;
#endif
}

const char *gpuasm_sigreader_format(const gpuasm_sigreader *r)
{
    return r->fmt == FMT_SLOW5 ? "SLOW5" : r->fmt == FMT_BLOW5 ? "BLOW5" : "text";
}

uint64_t gpuasm_sigreader_count(const gpuasm_sigreader *r) { return r->records; }

/* "dir/reads.txt.gz" -> "reads"; "-" -> "stdin". */
static char *base_name(const char *path)
{
    if (!strcmp(path, "-")) return strdup("stdin");
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strcspn(b, ".");
    return strndup(b, n ? n : strlen(b));
}

int gpuasm_sigreader_open(const char *path, gpuasm_sigreader **out, char *err, size_t errlen)
{
    *out = NULL;
    gpuasm_sigreader *r = calloc(1, sizeof(*r));
    if (!r || !(r->path = strdup(path))) {
        free(r);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    errno = 0;
    hFILE *h = hopen(path, "r");
    if (!h) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno ? errno : EIO));
        goto fail;
    }
    char magic[16] = { 0 };
    ssize_t got = hpeek(h, magic, sizeof magic);
    if (got < 0) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno ? errno : EIO));
        hclose_abruptly(h);
        goto fail;
    }
    if (got >= 14 && !memcmp(magic, "#slow5_version", 14)) r->fmt = FMT_SLOW5;
    else if (got >= 6 && !memcmp(magic, "BLOW5\1", 6)) r->fmt = FMT_BLOW5;
    if (r->fmt != FMT_TEXT) {
        hclose_abruptly(h);
#ifdef HAVE_SLOW5
        slow5_set_log_level(SLOW5_LOG_OFF);        /* our own one-line messages */
        slow5_set_exit_condition(SLOW5_EXIT_OFF);
        r->s5 = slow5_open_with(path, "r", r->fmt == FMT_SLOW5 ? SLOW5_FORMAT_ASCII : SLOW5_FORMAT_BINARY);
        if (!r->s5) {
            snprintf(err, errlen, "%s: slow5lib cannot open this %s file (slow5lib error %d)", path,
                     gpuasm_sigreader_format(r), slow5_errno);
            goto fail;
        }
#ifdef GPUASM_SLOW5_SVB_BROKEN
        /* configure found this slow5lib corrupting memory on svb-zd. */
        if (r->s5->compress && r->s5->compress->signal_press &&
            r->s5->compress->signal_press->method == SLOW5_COMPRESS_SVB_ZD) {
            snprintf(err, errlen, "%s: svb-zd signal compression, which the slow5lib of this build "
                     "cannot decode safely (Debian's 0.7.0 with libstreamvbyte 0.4.1); rewrite the "
                     "file with zlib signal compression (slow5tools view -c zlib -s zlib) or as "
                     "SLOW5 text", path);
            goto fail;
        }
#endif
#else
        snprintf(err, errlen, "%s: a %s file, and this gpuasm was built without slow5lib "
                 "(install libslow5-dev and rebuild; or give the signals as text)", path,
                 gpuasm_sigreader_format(r));
        goto fail;
#endif
    } else {
        if (!(r->fp = bgzf_hopen(h, "r"))) {
            hclose_abruptly(h);
            snprintf(err, errlen, "%s: cannot read", path);
            goto fail;
        }
        if (!(r->file_name = base_name(path))) {
            snprintf(err, errlen, "%s: out of memory", path);
            goto fail;
        }
    }
    *out = r;
    return 0;
fail:
    gpuasm_sigreader_close(r);
    return -1;
}

void gpuasm_sigreader_close(gpuasm_sigreader *r)
{
    if (!r) return;
    if (r->fp) bgzf_close(r->fp);
#ifdef HAVE_SLOW5
    if (r->rec) slow5_rec_free(r->rec);
    if (r->s5) slow5_close(r->s5);
#endif
    ks_free(&r->line);
    ks_free(&r->name);
    free(r->file_name);
    free(r->x);
    free(r->path);
    free(r);
}

/* ---- text ---------------------------------------------------------------- */

static int push_x(gpuasm_sigreader *r, float v)
{
    if (gpuasm_grow((void **)&r->x, &r->mx, r->nx + 1, sizeof(float)) < 0) return -1;
    r->x[r->nx++] = v;
    return 0;
}

/* Parse one number token: 0, or -1 when it is not a finite number. */
static int parse_value(const char *tok, float *v)
{
    char *end;
    errno = 0;
    const double d = strtod(tok, &end);
    if (end == tok || *end || errno == ERANGE || !isfinite(d) || fabs(d) > 3.0e38) return -1;
    *v = (float)d;
    return 0;
}

/* Next data line into r->line (trailing CR dropped): 1, 0 at the end, -1
 * on a read error. */
static int next_line(gpuasm_sigreader *r)
{
    for (;;) {
        const int rc = bgzf_getline(r->fp, '\n', &r->line);
        if (rc == -1) return 0;
        if (rc < -1) return -1;
        r->lineno++;
        if (r->line.l && r->line.s[r->line.l - 1] == '\r') r->line.s[--r->line.l] = 0;
        const char *p = r->line.s + strspn(r->line.s, " \t");
        if (*p && *p != '#') return 1;
    }
}

/* The next text record into r->name / r->x: 1, 0 at the end, -1 with err. */
static int text_next(gpuasm_sigreader *r, char *err, size_t errlen)
{
    if (r->done) return 0;
    int rc = next_line(r);
    if (rc < 0) goto read_error;
    if (rc == 0) return 0;
    r->nx = 0;
    r->name.l = 0;
    /* Tokens: the line split at spaces, tabs and commas. */
    char *save = NULL, *tok = strtok_r(r->line.s, " \t,", &save);
    float v;
    if (!tok) goto no_values;
    int first_is_name = parse_value(tok, &v) < 0;
    char *second = strtok_r(NULL, " \t,", &save);
    if (r->layout == LAYOUT_UNKNOWN)
        r->layout = (first_is_name || second) ? LAYOUT_SIGNAL_PER_LINE : LAYOUT_VALUE_PER_LINE;
    if (r->layout == LAYOUT_VALUE_PER_LINE) {
        /* The whole file: one value on every line. */
        kputs(r->file_name, &r->name);
        for (;;) {
            if (first_is_name || second) {
                snprintf(err, errlen, "%s: line %llu: %s in a file of one value per line (its "
                         "first line had one number)", r->path, (unsigned long long)r->lineno,
                         first_is_name ? "a name or a value that is not a number" : "several values");
                return -1;
            }
            if (push_x(r, v) < 0) goto nomem;
            if ((rc = next_line(r)) < 0) goto read_error;
            if (rc == 0) break;
            save = NULL;
            if (!(tok = strtok_r(r->line.s, " \t,", &save))) goto no_values;
            first_is_name = parse_value(tok, &v) < 0;
            second = strtok_r(NULL, " \t,", &save);
        }
        r->done = 1;
        r->records++;
        return 1;
    }
    r->records++;
    if (first_is_name) {
        if (kputs(tok, &r->name) < 0) goto nomem;
        tok = second;
    } else {
        ksprintf(&r->name, "signal%llu", (unsigned long long)r->records);
        if (push_x(r, v) < 0) goto nomem;
        tok = second;
    }
    for (; tok; tok = strtok_r(NULL, " \t,", &save)) {
        if (parse_value(tok, &v) < 0) {
            snprintf(err, errlen, "%s: record %llu (%s): value '%.40s' is not a number", r->path,
                     (unsigned long long)r->records, r->name.s, tok);
            return -1;
        }
        if (push_x(r, v) < 0) goto nomem;
    }
    if (r->nx == 0) {
        snprintf(err, errlen, "%s: record %llu (%s): no values", r->path,
                 (unsigned long long)r->records, r->name.s);
        return -1;
    }
    return 1;
no_values:
    snprintf(err, errlen, "%s: line %llu: no values", r->path, (unsigned long long)r->lineno);
    return -1;
read_error:
    snprintf(err, errlen, "%s: line %llu: read error (truncated or corrupt compressed data?)",
             r->path, (unsigned long long)r->lineno + 1);
    return -1;
nomem:
    snprintf(err, errlen, "%s: out of memory", r->path);
    return -1;
}

/* ---- SLOW5 / BLOW5 ------------------------------------------------------------ */

#ifdef HAVE_SLOW5
static int slow5_next(gpuasm_sigreader *r, uint64_t from, uint64_t to, char *err, size_t errlen)
{
    /* Past the end slow5lib reads the end-of-file marker as a truncated
     * record: ask it nothing more. */
    if (r->done) return 0;
    const int rc = slow5_get_next(&r->rec, r->s5);
    if (rc == SLOW5_ERR_EOF) {
        r->done = 1;
        return 0;
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s: record %llu: slow5lib cannot read it (slow5lib error %d%s)",
                 r->path, (unsigned long long)r->records + 1, rc,
                 rc == SLOW5_ERR_TRUNC ? ": truncated" : rc == SLOW5_ERR_RECPARSE ? ": malformed" : "");
        return -1;
    }
    r->records++;
    const slow5_rec_t *s = r->rec;
    r->name.l = 0;
    if (kputs(s->read_id ? s->read_id : "", &r->name) < 0) goto nomem;
    if (s->len_raw_signal == 0) {
        snprintf(err, errlen, "%s: record %llu (%s): no samples", r->path,
                 (unsigned long long)r->records, r->name.s);
        return -1;
    }
    if (!(s->digitisation > 0) || !isfinite(s->range) || !isfinite(s->offset)) {
        snprintf(err, errlen, "%s: record %llu (%s): digitisation %g, range %g, offset %g do not "
                 "convert to pA", r->path, (unsigned long long)r->records, r->name.s,
                 s->digitisation, s->range, s->offset);
        return -1;
    }
    /* Only the window is converted (the rest of a long read is never used). */
    r->nx = 0;
    const uint64_t len = s->len_raw_signal;
    const uint64_t a = from < len ? from : len, b = to && to < len ? to : len;
    if (gpuasm_grow((void **)&r->x, &r->mx, (size_t)(b - a), sizeof(float)) < 0) goto nomem;
    const double scale = s->range / s->digitisation;
    for (uint64_t i = a; i < b; i++) r->x[r->nx++] = (float)(((double)s->raw_signal[i] + s->offset) * scale);
    return 1;
nomem:
    snprintf(err, errlen, "%s: out of memory", r->path);
    return -1;
}
#endif

/* ---- batches ---------------------------------------------------------------------- */

void gpuasm_sigbatch_init(gpuasm_sigbatch *b) { memset(b, 0, sizeof(*b)); }

static void clear_names(gpuasm_sigbatch *b)
{
    for (uint32_t i = 0; i < b->n; i++) free(b->name[i]);
    b->n = 0;
}

void gpuasm_sigbatch_free(gpuasm_sigbatch *b)
{
    clear_names(b);
    free(b->name);
    free(b->len);
    free(b->qstart);
    free(b->qend);
    free(b->off);
    free(b->val);
    free(b->f);
    memset(b, 0, sizeof(*b));
}

/* Room for one more read in every per-read array. */
static int grow_rec(gpuasm_sigbatch *b)
{
    if ((size_t)b->n + 2 <= b->m_rec) return 0;
    size_t m = b->m_rec ? 2 * b->m_rec : 64;
    char **nm = realloc(b->name, m * sizeof(*nm));
    if (nm) b->name = nm;
    uint64_t **arr[] = { &b->len, &b->qstart, &b->qend, &b->off };
    int ok = nm != NULL;
    for (size_t i = 0; ok && i < sizeof arr / sizeof arr[0]; i++) {
        uint64_t *p = realloc(*arr[i], m * sizeof(uint64_t));
        if (p) *arr[i] = p;
        else ok = 0;
    }
    if (!ok) return -1;
    b->m_rec = m;
    return 0;
}

int gpuasm_sigreader_next(gpuasm_sigreader *r, const gpuasm_sigread_opt *o, gpuasm_sigbatch *b,
                          uint64_t max_samples, char *err, size_t errlen)
{
    clear_names(b);
    b->first_record = r->records + 1;
    b->clamped = 0;
    if (grow_rec(b) < 0) goto nomem;
    b->off[0] = 0;
    const uint64_t to = o->prefix ? o->skip + o->prefix : 0;
    while (b->n == 0 || b->off[b->n] < max_samples) {
        int rc;
        uint64_t len, a, e;
#ifdef HAVE_SLOW5
        if (r->fmt != FMT_TEXT) {
            rc = slow5_next(r, o->skip, to, err, errlen);
            if (rc <= 0) {
                if (rc < 0) return -1;
                break;
            }
            len = r->rec->len_raw_signal;
            a = o->skip < len ? o->skip : len;
            e = to && to < len ? to : len;
            if (e < a) e = a;
        } else
#endif
        {
            rc = text_next(r, err, errlen);
            if (rc <= 0) {
                if (rc < 0) return -1;
                break;
            }
            len = r->nx;
            a = o->skip < len ? o->skip : len;
            e = to && to < len ? to : len;
            if (e < a) e = a;
            /* Keep the window only (text records hold the whole read). */
            memmove(r->x, r->x + a, (size_t)(e - a) * sizeof(float));
            r->nx = (size_t)(e - a);
        }
        const size_t w = r->nx;
        if (grow_rec(b) < 0 ||
            gpuasm_grow((void **)&b->val, &b->m_val, (size_t)b->off[b->n] + w + 1, sizeof(int16_t)) < 0 ||
            gpuasm_grow((void **)&b->f, &b->m_f, w + 1, sizeof(float)) < 0 ||
            !(b->name[b->n] = strdup(r->name.s)))
            goto nomem;
        double loc, scale;
        gpuasm_norm_stats(r->x, w, o->norm, b->f, &loc, &scale);
        const int64_t q = gpuasm_norm_quantise(r->x, w, o->norm, loc, scale, b->val + b->off[b->n]);
        if (q < 0) {
            const uint64_t i = (uint64_t)(-1 - q);
            snprintf(err, errlen, "%s: record %llu (%s): value %g at sample %llu is outside [%g, %g], "
                     "the range of --norm none (normalise it: --norm mad)", r->path,
                     (unsigned long long)r->records, r->name.s, (double)r->x[i],
                     (unsigned long long)(a + i), (double)GPUASM_SIG_QMIN / GPUASM_SIG_SCALE,
                     (double)GPUASM_SIG_QMAX / GPUASM_SIG_SCALE);
            free(b->name[b->n]);
            return -1;
        }
        b->clamped += (uint64_t)q;
        b->len[b->n] = len;
        b->qstart[b->n] = a;
        b->qend[b->n] = e;
        b->off[b->n + 1] = b->off[b->n] + w;
        b->n++;
    }
    b->set.n = b->n;
    b->set.off = b->off;
    b->set.val = b->val;
    return (int)b->n;
nomem:
    snprintf(err, errlen, "%s: out of memory", r->path);
    return -1;
}
