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
#include <sys/stat.h>
#include <slow5/slow5.h>
#include <slow5/slow5_extra.h>
#include <slow5/slow5_press.h>
#endif

#include "util/grow.h"
#include "io/signal_norm.h"
#include "io/signal_reads.h"
#include "io/slow5_check.h"

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
    gpuasm_slow5_header hdr;   /* what slow5_check found in the header */
    char *mem;                 /* the record's bytes (slow5_check.h) */
    size_t m_mem;
    off_t file_size;           /* BLOW5: -1 when not a regular file */
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

#ifdef HAVE_SLOW5
/* Read and check the header at the start of h (slow5_check.h): SLOW5's
 * text lines up to the column names, or BLOW5's fixed part and the text
 * it sizes.  Fills r->hdr; -1 with why. */
static int check_header(gpuasm_sigreader *r, hFILE *h, char *why, size_t whylen)
{
    kstring_t t = { 0, 0, NULL };
    int rc = -1;
    if (r->fmt == FMT_BLOW5) {
        uint8_t fixed[GPUASM_BLOW5_FIXED];
        const ssize_t got = hread(h, fixed, sizeof fixed);
        if (got < 0) {
            snprintf(why, whylen, "cannot read: %s", strerror(errno ? errno : EIO));
            return -1;
        }
        if (gpuasm_blow5_check_fixed(fixed, (size_t)got, &r->hdr, why, whylen) < 0) return -1;
        if (ks_resize(&t, (size_t)r->hdr.text_size + 1) < 0) goto nomem;
        const ssize_t n = hread(h, t.s, r->hdr.text_size);
        if (n < 0) {
            snprintf(why, whylen, "cannot read: %s", strerror(errno ? errno : EIO));
            goto out;
        }
        if ((size_t)n < r->hdr.text_size) {
            snprintf(why, whylen, "the header says its text is %u bytes, the file ends after %zd "
                     "(truncated)", (unsigned)r->hdr.text_size, n);
            goto out;
        }
        t.l = (size_t)n;
    } else {
        /* Lines up to and including the one of column names ("#read_id"). */
        size_t line_start = 0;
        for (;;) {
            const int c = hgetc(h);
            if (c == EOF) break;
            if (kputc(c, &t) < 0) goto nomem;
            if (c == '\n') {
                if (t.l - line_start > 8 && !memcmp(t.s + line_start, "#read_id", 8)) break;
                line_start = t.l;
            }
            if (t.l > GPUASM_SLOW5_MAX_HEADER) {
                snprintf(why, whylen, "no column names ('#read_id...') in its first %u MiB",
                         GPUASM_SLOW5_MAX_HEADER >> 20);
                goto out;
            }
        }
    }
    rc = gpuasm_slow5_check_header_text(t.s ? t.s : "", t.l, &r->hdr, why, whylen);
    goto out;
nomem:
    snprintf(why, whylen, "out of memory");
out:
    ks_free(&t);
    return rc;
}
#endif

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
    char magic[32] = { 0 };
    ssize_t got = hpeek(h, magic, sizeof magic);
    if (got < 0) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno ? errno : EIO));
        hclose_abruptly(h);
        goto fail;
    }
    if (got >= 14 && !memcmp(magic, "##file_format=", 14)) {
        /* A pre-release SLOW5/BLOW5 (v0.1, 2020-21; slow5lib's own old test
         * file is one) starts with a text line that the text reader would
         * take for a signal ("record 1 ($): no values", issue #31): refuse
         * it, naming the converter (issue #29). */
        hclose_abruptly(h);
        snprintf(err, errlen, "%s: a pre-release SLOW5/BLOW5 file (v0.1, '##file_format=' header: BLOW5 v0.1 or SLOW5 v0.1), "
                 "which slow5lib cannot read: convert it to SLOW5 with blow5v01_to_slow5.py %s "
                 "OUT.slow5 (in share/gpuasm/ of the installation, tests/signal/ of the source)",
                 path, path);
        goto fail;
    }
    if (got >= 14 && !memcmp(magic, "#slow5_version", 14)) r->fmt = FMT_SLOW5;
    else if (got >= 6 && !memcmp(magic, "BLOW5\1", 6)) r->fmt = FMT_BLOW5;
    if (r->fmt != FMT_TEXT) {
#ifdef HAVE_SLOW5
        /* The header is checked before slow5lib reads it (slow5_check.h). */
        char why[400];
        if (check_header(r, h, why, sizeof why) < 0) {
            hclose_abruptly(h);
            snprintf(err, errlen, "%s: %s header: %s", path, gpuasm_sigreader_format(r), why);
            goto fail;
        }
        hclose_abruptly(h);
        slow5_set_log_level(SLOW5_LOG_OFF);        /* our own one-line messages */
        slow5_set_exit_condition(SLOW5_EXIT_OFF);
        r->s5 = slow5_open_with(path, "r", r->fmt == FMT_SLOW5 ? SLOW5_FORMAT_ASCII : SLOW5_FORMAT_BINARY);
        if (!r->s5) {
            snprintf(err, errlen, "%s: slow5lib cannot open this %s file (slow5lib error %d)", path,
                     gpuasm_sigreader_format(r), slow5_errno);
            goto fail;
        }
        /* slow5lib must have read the header we checked. */
        const slow5_aux_meta_t *am = r->s5->header ? r->s5->header->aux_meta : NULL;
        if (!r->s5->header || r->s5->header->num_read_groups != r->hdr.read_groups ||
            (am ? am->num : 0) != r->hdr.aux) {
            snprintf(err, errlen, "%s: slow5lib reads this %s header differently from its text "
                     "(corrupt header?)", path, gpuasm_sigreader_format(r));
            goto fail;
        }
        struct stat st;
        r->file_size = fstat(fileno(r->s5->fp), &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : -1;
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
        hclose_abruptly(h);
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
    free(r->mem);
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
/* The next record's bytes into r->mem, read here rather than by slow5lib
 * (which believes a BLOW5 record's size field): 1 with *n bytes (BLOW5:
 * record-decompressed; SLOW5: the line without its '\n', NUL-terminated),
 * 0 at the end, -1 with err. */
static int slow5_read_record(gpuasm_sigreader *r, size_t *n, char *err, size_t errlen)
{
    FILE *fp = r->s5->fp;
    const unsigned long long rec = (unsigned long long)r->records + 1;
    if (r->fmt == FMT_SLOW5) {
        errno = 0;
        const ssize_t got = getline(&r->mem, &r->m_mem, fp);
        if (got < 0) {
            if (feof(fp)) return 0;
            snprintf(err, errlen, "%s: record %llu: cannot read: %s", r->path, rec,
                     strerror(errno ? errno : EIO));
            return -1;
        }
        *n = (size_t)got;
        if (*n && r->mem[*n - 1] == '\n') r->mem[--*n] = 0;
        return 1;
    }
    /* BLOW5: a uint64 size and that many bytes, or the 5-byte end marker. */
    uint8_t sz[8];
    const size_t got = fread(sz, 1, sizeof sz, fp);
    if (got < sizeof sz) {
        if (ferror(fp)) {
            snprintf(err, errlen, "%s: record %llu: cannot read: %s", r->path, rec, strerror(errno ? errno : EIO));
            return -1;
        }
        if (got >= 5 && !memcmp(sz, "5WOLB", 5)) {
            if (got == 5) return 0;
            snprintf(err, errlen, "%s: record %llu: %zu byte%s after BLOW5's end-of-file marker "
                     "(trailing garbage)", r->path, rec, got - 5, got - 5 == 1 ? "" : "s");
            return -1;
        }
        snprintf(err, errlen, "%s: record %llu: the file ends %s without BLOW5's end-of-file marker: "
                 "truncated (the %llu records before it were read)", r->path, rec,
                 got ? "inside a record's size field" : "after a record", rec - 1);
        return -1;
    }
    uint64_t size = 0;
    for (int i = 7; i >= 0; i--) size = size << 8 | sz[i];
    const off_t at = ftello(fp);
    const uint64_t left = r->file_size >= 0 && at >= 0 && at <= r->file_size
                        ? (uint64_t)(r->file_size - at) : GPUASM_SLOW5_MAX_RECORD;
    if (size == 0 || size > left || size > GPUASM_SLOW5_MAX_RECORD) {
        if (!memcmp(sz, "5WOLB", 5))
            snprintf(err, errlen, "%s: record %llu: %llu bytes after BLOW5's end-of-file marker "
                     "(two files joined, or trailing garbage)", r->path, rec, (unsigned long long)left + 3);
        else
            snprintf(err, errlen, "%s: record %llu: its size field says %llu bytes, %s: corrupt or "
                     "truncated file", r->path, rec, (unsigned long long)size,
                     size == 0 ? "an empty record" : size > left ? "more than the rest of the file"
                                                   : "more than 1 GiB");
        return -1;
    }
    if (gpuasm_grow((void **)&r->mem, &r->m_mem, (size_t)size + 1, 1) < 0) goto nomem;
    if (fread(r->mem, 1, (size_t)size, fp) != (size_t)size) {
        snprintf(err, errlen, "%s: record %llu: the file ends inside it (truncated)", r->path, rec);
        return -1;
    }
    *n = (size_t)size;
    if (r->hdr.record_press != 0) {
        char why[300];
        if (r->hdr.record_press == 2 && gpuasm_blow5_check_zstd((uint8_t *)r->mem, *n, why, sizeof why) < 0) {
            snprintf(err, errlen, "%s: record %llu: %s", r->path, rec, why);
            return -1;
        }
        size_t m = 0;
        char *d = slow5_ptr_depress_solo(r->hdr.record_press == 1 ? SLOW5_COMPRESS_ZLIB : SLOW5_COMPRESS_ZSTD,
                                         r->mem, *n, &m);
        if (!d || m == 0) {
            free(d);
            snprintf(err, errlen, "%s: record %llu: corrupt %s-compressed data", r->path, rec,
                     r->hdr.record_press == 1 ? "zlib" : "zstd");
            return -1;
        }
        free(r->mem);
        r->mem = d;
        r->m_mem = m;
        *n = m;
    }
    return 1;
nomem:
    snprintf(err, errlen, "%s: out of memory", r->path);
    return -1;
}

static int slow5_next(gpuasm_sigreader *r, uint64_t from, uint64_t to, char *err, size_t errlen)
{
    if (r->done) return 0;
    size_t n = 0;
    const int got = slow5_read_record(r, &n, err, errlen);
    if (got <= 0) {
        r->done = got == 0;
        return got;
    }
    const unsigned long long rec = (unsigned long long)r->records + 1;
    /* Checked first (slow5_check.h); slow5lib then parses the 8 main
     * columns only (the auxiliary ones are never used here). */
    size_t main_len = 0;
    uint64_t samples = 0;
    char why[400];
    const int bad = r->fmt == FMT_SLOW5
        ? gpuasm_slow5_check_text_record(r->mem, n, &r->hdr, &main_len, &samples, why, sizeof why)
        : gpuasm_blow5_check_record((const uint8_t *)r->mem, n, &r->hdr, &main_len, &samples, why, sizeof why);
    if (bad) {
        /* The read id, where the bytes have one, names the record. */
        char id[64] = "";
        size_t k = 0;
        const char *from = r->mem;
        if (r->fmt == FMT_SLOW5) {
            k = strcspn(r->mem, "\t");
        } else if (n >= 2) {
            k = (size_t)((uint8_t)r->mem[0] | (uint8_t)r->mem[1] << 8);
            from = r->mem + 2;
            if (k > n - 2) k = 0;
        }
        if (k >= sizeof id) k = sizeof id - 1;
        memcpy(id, from, k);
        id[k] = 0;
        for (char *c = id; *c; c++) if ((unsigned char)*c < 32 || (unsigned char)*c > 126) *c = '?';
        snprintf(err, errlen, "%s: record %llu%s%s%s: %s", r->path, rec, *id ? " (" : "", id, *id ? ")" : "", why);
        return -1;
    }
    r->mem[main_len] = 0;
    const enum slow5_press_method sig = r->s5->compress && r->s5->compress->signal_press
                                      ? r->s5->compress->signal_press->method : SLOW5_COMPRESS_NONE;
    if (slow5_rec_parse(r->mem, main_len, NULL, &r->rec,
                        r->fmt == FMT_SLOW5 ? SLOW5_FORMAT_ASCII : SLOW5_FORMAT_BINARY, NULL, sig) != 0) {
        snprintf(err, errlen, "%s: record %llu: slow5lib cannot parse its main columns (a value out "
                 "of range: a raw_signal value outside -32768..32767, or a field that is not a "
                 "number; or corrupt compressed signal)", r->path, rec);
        return -1;
    }
    const slow5_rec_t *s = r->rec;
    if (samples != UINT64_MAX && s->len_raw_signal != samples) {
        snprintf(err, errlen, "%s: record %llu: slow5lib read %llu samples where the record has %llu",
                 r->path, rec, (unsigned long long)s->len_raw_signal, (unsigned long long)samples);
        return -1;
    }
    r->records++;
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
    free(b->flat);
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
    b->n_flat = 0;
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
        if (gpuasm_grow((void **)&b->flat, &b->m_flat, (size_t)b->n + 1, 1) < 0) goto nomem;
        const int16_t *qv = b->val + b->off[b->n];
        size_t k = 1;
        while (k < w && qv[k] == qv[0]) k++;
        b->flat[b->n] = w > 0 && k == w;
        b->n_flat += b->flat[b->n];
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
