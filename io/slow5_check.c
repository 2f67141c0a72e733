/* SPDX-License-Identifier: MIT */
/* slow5_check.c -- SLOW5 text and BLOW5 bytes checked before slow5lib
 * parses them (see slow5_check.h).  Plain byte arithmetic, no slow5lib:
 * every size is compared with the bytes that are really there before it
 * is believed.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "io/slow5_check.h"

static int fail(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return -1;
}

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

/* A decimal number of at most max_digits digits in [s, s + n): 0 and *v,
 * or -1. */
static int decimal(const char *s, size_t n, size_t max_digits, uint64_t *v)
{
    if (n == 0 || n > max_digits) return -1;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        x = 10 * x + (uint64_t)(s[i] - '0');
    }
    *v = x;
    return 0;
}

/* The next line of [*p, end): its start and length without the '\n'; -1
 * when no '\n' ends it. */
static int next_line(const char **p, const char *end, const char **line, size_t *len)
{
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    if (!nl) return -1;
    *line = *p;
    *len = (size_t)(nl - *p);
    *p = nl + 1;
    return 0;
}

/* Does [s, s + n) start with the string w followed by a tab or its end? */
static int field_is(const char *s, size_t n, const char *w)
{
    const size_t k = strlen(w);
    return n >= k && !memcmp(s, w, k) && (n == k || s[k] == '\t');
}

#define MAX_ATTRS 1024u

/* Is [s, s + n) one of the k names before it? */
static int repeated(const char *const *names, const size_t *len, size_t k, const char *s, size_t n)
{
    for (size_t i = 0; i < k; i++)
        if (len[i] == n && !memcmp(names[i], s, n)) return 1;
    return 0;
}

/* slow5lib 0.7.0's auxiliary types: size of one value, and whether the
 * field is an array (a uint64 length first in BLOW5). */
static const struct { const char *name; uint8_t size, array; } aux_types[] = {
    { "int8_t", 1, 0 }, { "int16_t", 2, 0 }, { "int32_t", 4, 0 }, { "int64_t", 8, 0 },
    { "uint8_t", 1, 0 }, { "uint16_t", 2, 0 }, { "uint32_t", 4, 0 }, { "uint64_t", 8, 0 },
    { "float", 4, 0 }, { "double", 8, 0 }, { "char", 1, 0 },
    { "int8_t*", 1, 1 }, { "int16_t*", 2, 1 }, { "int32_t*", 4, 1 }, { "int64_t*", 8, 1 },
    { "uint8_t*", 1, 1 }, { "uint16_t*", 2, 1 }, { "uint32_t*", 4, 1 }, { "uint64_t*", 8, 1 },
    { "float*", 4, 1 }, { "double*", 8, 1 }, { "char*", 1, 1 },
};

/* One auxiliary type token: 0 and its size and arrayness, or -1.  enum
 * and enum* carry their labels, "enum{A,B}": 1 to 255 labels (slow5lib
 * counts them in a uint8_t), each a C identifier. */
static int aux_type(const char *s, size_t n, uint8_t *size, uint8_t *array)
{
    for (size_t i = 0; i < sizeof aux_types / sizeof aux_types[0]; i++)
        if (strlen(aux_types[i].name) == n && !memcmp(s, aux_types[i].name, n)) {
            *size = aux_types[i].size;
            *array = aux_types[i].array;
            return 0;
        }
    size_t k;
    if (n > 6 && !memcmp(s, "enum*{", 6)) k = 6, *array = 1;
    else if (n > 5 && !memcmp(s, "enum{", 5)) k = 5, *array = 0;
    else return -1;
    if (s[n - 1] != '}') return -1;
    *size = 1;
    unsigned labels = 0;
    size_t start = k;
    for (size_t i = k; i < n; i++) {
        if (s[i] != ',' && s[i] != '}') continue;
        if (i == start || (s[start] >= '0' && s[start] <= '9')) return -1;
        for (size_t j = start; j < i; j++) {
            const char c = s[j];
            if (!(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
                return -1;
        }
        if (++labels > 255) return -1;
        /* each label once (slow5lib refuses a repeated one) */
        for (size_t j = k, m = k; j < start; j++) {
            if (s[j] != ',') continue;
            if (j - m == i - start && !memcmp(s + m, s + start, i - start)) return -1;
            m = j + 1;
        }
        start = i + 1;
        if (s[i] == '}' && i != n - 1) return -1;
    }
    return 0;
}

int gpuasm_blow5_check_fixed(const uint8_t *b, size_t n, gpuasm_slow5_header *h, char *why, size_t whylen)
{
    memset(h, 0, sizeof(*h));
    h->binary = 1;
    if (n < GPUASM_BLOW5_FIXED)
        return fail(why, whylen, "the file ends inside BLOW5's %u-byte fixed header (%zu bytes): "
                    "truncated", GPUASM_BLOW5_FIXED, n);
    if (memcmp(b, "BLOW5\1", 6)) return fail(why, whylen, "not a BLOW5 file (no BLOW5 magic number)");
    memcpy(h->version, b + 6, 3);
    h->record_press = b[9];
    h->read_groups = le32(b + 10);
    /* The signal compression byte exists from version 0.2.0 on. */
    h->signal_press = (h->version[0] > 0 || h->version[1] >= 2) ? b[14] : 0;
    h->text_size = le32(b + 64);
    if (h->version[0] == 0 && h->version[1] < 2)
        return fail(why, whylen, "BLOW5 version %u.%u.%u, older than the 0.2.0 slow5lib reads "
                    "(convert it with a current slow5tools)", h->version[0], h->version[1], h->version[2]);
    if (h->read_groups == 0 || h->read_groups > GPUASM_SLOW5_MAX_READ_GROUPS)
        return fail(why, whylen, "the header says %" PRIu32 " read groups (expected 1 to %u): "
                    "corrupt header", h->read_groups, GPUASM_SLOW5_MAX_READ_GROUPS);
    if (h->record_press > 2)
        return fail(why, whylen, "unknown record compression %u in the header (BLOW5 knows 0 "
                    "none, 1 zlib, 2 zstd): corrupt header or a newer BLOW5", h->record_press);
    if (h->signal_press > 1 && h->signal_press != 250 && h->signal_press != 251)
        return fail(why, whylen, "unknown signal compression %u in the header (BLOW5 knows 0 "
                    "none, 1 svb-zd): corrupt header or a newer BLOW5", h->signal_press);
    if (h->text_size > GPUASM_SLOW5_MAX_HEADER)
        return fail(why, whylen, "the header says its text is %" PRIu32 " bytes (more than %u "
                    "MiB): corrupt header", h->text_size, GPUASM_SLOW5_MAX_HEADER >> 20);
    return 0;
}

#define MAIN_TYPES "#char*\tuint32_t\tdouble\tdouble\tdouble\tdouble\tuint64_t\tint16_t*"
#define MAIN_NAMES "#read_id\tread_group\tdigitisation\toffset\trange\tsampling_rate\tlen_raw_signal\traw_signal"

int gpuasm_slow5_check_header_text(const char *t, size_t n, gpuasm_slow5_header *h, char *why, size_t whylen)
{
    const char *p = t, *end = t + n, *s;
    size_t len;
    unsigned lineno = 0;
    if (memchr(t, '\0', n)) return fail(why, whylen, "a NUL byte in the header (binary data?)");
    for (const char *q = t; (q = memchr(q, '\r', (size_t)(end - q))) != NULL; q++)
        if (q + 1 < end && q[1] == '\n')
            return fail(why, whylen, "its lines end in CR LF (DOS line ends): SLOW5 lines end in LF "
                        "alone (convert: dos2unix)");
#define LINE() do { \
        if (next_line(&p, end, &s, &len) < 0) \
            return fail(why, whylen, "header line %u: %s", lineno + 1, \
                        p == end ? "missing: the header ends early (truncated?)" \
                                 : "no newline at its end (truncated header?)"); \
        lineno++; \
    } while (0)
    if (!h->binary) {
        memset(h, 0, sizeof(*h));
        LINE();
        unsigned v[3];
        char tail;
        if (!field_is(s, len, "#slow5_version"))
            return fail(why, whylen, "header line 1 is not '#slow5_version<TAB>X.Y.Z'");
        /* Zeroed: a line "#slow5_version" alone leaves buf[1] unwritten
         * (valgrind, replaying the long run's corpus). */
        char buf[64] = { 0 };
        if (len - 14 >= sizeof buf) return fail(why, whylen, "header line 1: version too long");
        memcpy(buf, s + 14, len - 14);
        buf[len - 14] = 0;
        if (sscanf(buf, "\t%3u.%3u.%3u%c", &v[0], &v[1], &v[2], &tail) != 3 || buf[1] < '0' ||
            buf[1] > '9' || v[0] > 255 || v[1] > 255 || v[2] > 255)
            return fail(why, whylen, "header line 1: version '%.20s' is not X.Y.Z", buf + 1);
        for (int i = 0; i < 3; i++) h->version[i] = (uint8_t)v[i];
        LINE();
        uint64_t g;
        if (!field_is(s, len, "#num_read_groups") || len <= 17 ||
            decimal(s + 17, len - 17, 10, &g) < 0)
            return fail(why, whylen, "header line 2 is not '#num_read_groups<TAB>N'");
        if (g == 0 || g > GPUASM_SLOW5_MAX_READ_GROUPS)
            return fail(why, whylen, "the header says %" PRIu64 " read groups (expected 1 to %u)",
                        g, GPUASM_SLOW5_MAX_READ_GROUPS);
        h->read_groups = (uint32_t)g;
    }
    /* "@NAME<TAB>value per read group" lines, each NAME once (slow5lib
     * refuses a repeated one, and leaks on the way). */
    const char *names[MAX_ATTRS];
    size_t name_len[MAX_ATTRS], n_names = 0;
    for (;;) {
        LINE();
        if (len == 0 || s[0] != '@') break;
        size_t tabs = 0;
        for (size_t i = 0; i < len; i++) tabs += s[i] == '\t';
        const size_t name = strcspn(s, "\t\n");
        if (name <= 1) return fail(why, whylen, "header line %u: an attribute with no name", lineno);
        if (n_names == MAX_ATTRS)
            return fail(why, whylen, "more than %u header attributes ('@' lines)", MAX_ATTRS);
        if (repeated(names, name_len, n_names, s, name))
            return fail(why, whylen, "header line %u: attribute %.*s appears twice", lineno,
                        (int)(name < 40 ? name : 40), s);
        names[n_names] = s;
        name_len[n_names++] = name;
        if (tabs != h->read_groups)
            return fail(why, whylen, "header line %u (%.*s): %zu values for %" PRIu32 " read groups",
                        lineno, (int)(name < 40 ? name : 40), s, tabs, h->read_groups);
    }
    /* The types line, then the names line. */
    const size_t mt = strlen(MAIN_TYPES), mn = strlen(MAIN_NAMES);
    if (!field_is(s, len, MAIN_TYPES))
        return fail(why, whylen, "header line %u: expected the column types '%s...'", lineno, MAIN_TYPES);
    uint32_t ntypes = 0;
    for (size_t i = mt; i < len;) {
        const size_t a = i + 1;
        size_t b = a;
        while (b < len && s[b] != '\t') b++;
        uint8_t size, array;
        if (aux_type(s + a, b - a, &size, &array) < 0)
            return fail(why, whylen, "header line %u: unknown column type '%.*s'", lineno,
                        (int)(b - a < 40 ? b - a : 40), s + a);
        if (ntypes == GPUASM_SLOW5_MAX_AUX)
            return fail(why, whylen, "more than %u auxiliary columns", GPUASM_SLOW5_MAX_AUX);
        h->aux_size[ntypes] = size;
        h->aux_array[ntypes] = array;
        ntypes++;
        i = b;
    }
    LINE();
    if (!field_is(s, len, MAIN_NAMES))
        return fail(why, whylen, "header line %u: expected the column names '%s...'", lineno, MAIN_NAMES);
    uint32_t nnames = 0;
    /* Every column name once: the main ones, then the auxiliary ones. */
    n_names = 0;
    for (size_t i = 1; i <= len;) {
        size_t b = i;
        while (b < len && s[b] != '\t') b++;
        if (b == i) return fail(why, whylen, "header line %u: an empty column name", lineno);
        if (n_names == MAX_ATTRS) return fail(why, whylen, "more than %u columns", MAX_ATTRS);
        if (repeated(names, name_len, n_names, s + i, b - i))
            return fail(why, whylen, "header line %u: column %.*s appears twice", lineno,
                        (int)(b - i < 40 ? b - i : 40), s + i);
        names[n_names] = s + i;
        name_len[n_names++] = b - i;
        if (i > mn) nnames++;
        i = b + 1;
    }
    if (nnames != ntypes)
        return fail(why, whylen, "header: %" PRIu32 " auxiliary column types but %" PRIu32 " names",
                    ntypes, nnames);
    h->aux = ntypes;
    if (p != end)
        return fail(why, whylen, "%zu bytes after the column names inside the header (its size "
                    "field is wrong?)", (size_t)(end - p));
#undef LINE
    return 0;
}

int gpuasm_slow5_check_text_record(const char *s, size_t n, const gpuasm_slow5_header *h,
                                   size_t *main_len, uint64_t *samples, char *why, size_t whylen)
{
    if (n == 0) return fail(why, whylen, "an empty line (a SLOW5 record is never empty)");
    if (memchr(s, '\0', n)) return fail(why, whylen, "a NUL byte in the record (binary data?)");
    if (n && s[n - 1] == '\r')
        return fail(why, whylen, "the line ends in CR (DOS line ends): SLOW5 lines end in LF alone "
                    "(convert: dos2unix)");
    /* Column starts. */
    size_t col[8], ncol = 1, i;
    col[0] = 0;
    for (i = 0; i < n && ncol < 8; i++)
        if (s[i] == '\t') col[ncol++] = i + 1;
    if (ncol < 8)
        return fail(why, whylen, "%zu columns, SLOW5 records have 8 main columns%s", ncol,
                    h->aux ? " and auxiliary ones" : "");
    size_t sig_end = col[7];
    while (sig_end < n && s[sig_end] != '\t') sig_end++;
    uint64_t extra = 0;
    for (i = sig_end; i < n; i++) extra += s[i] == '\t';
    if (extra != h->aux)
        return fail(why, whylen, "%" PRIu64 " columns, the header names %" PRIu32, 8 + extra, 8 + h->aux);
    if (col[1] == 1) return fail(why, whylen, "no read id (the first column is empty)");
    uint64_t len;
    if (decimal(s + col[6], col[7] - 1 - col[6], 19, &len) < 0)
        return fail(why, whylen, "len_raw_signal '%.*s' is not a number", (int)(col[7] - 1 - col[6] < 30
                    ? col[7] - 1 - col[6] : 30), s + col[6]);
    uint64_t count = 0;
    if (len > 0) {
        /* Values: -?[0-9]+ separated by commas (slow5lib checks the int16 range). */
        size_t a = col[7];
        for (;;) {
            size_t b = a;
            if (b < sig_end && s[b] == '-') b++;
            const size_t digits = b;
            while (b < sig_end && s[b] >= '0' && s[b] <= '9') b++;
            if (b == digits || (b < sig_end && s[b] != ','))
                return fail(why, whylen, "raw_signal value %" PRIu64 " '%.*s' is not an integer",
                            count + 1, (int)(strcspn(s + a, ",\t") < 20 ? strcspn(s + a, ",\t") : 20), s + a);
            count++;
            if (b == sig_end) break;
            a = b + 1;
        }
        if (count != len)
            return fail(why, whylen, "len_raw_signal says %" PRIu64 " samples but raw_signal holds "
                        "%" PRIu64 " (a corrupt or hand-edited record)", len, count);
    }
    *main_len = sig_end;
    *samples = len;
    return 0;
}

int gpuasm_blow5_check_zstd(const uint8_t *b, size_t n, char *why, size_t whylen)
{
    /* RFC 8878 3.1.1: magic, frame header descriptor, window descriptor
     * (unless single segment), dictionary id, frame content size. */
    if (n < 5 || le32(b) != 0xFD2FB528u)
        return fail(why, whylen, "zstd-compressed record that is not a zstd frame");
    const unsigned fhd = b[4], fcs_flag = fhd >> 6, single = (fhd >> 5) & 1, did = fhd & 3;
    const size_t did_size[4] = { 0, 1, 2, 4 };
    const size_t fcs_size = fcs_flag == 0 ? (single ? 1 : 0) : (size_t)1 << fcs_flag;
    size_t off = 5 + (single ? 0 : 1) + did_size[did];
    if (fcs_size == 0)
        return fail(why, whylen, "zstd-compressed record that does not state its size");
    if (off + fcs_size > n) return fail(why, whylen, "zstd-compressed record cut inside its frame header");
    uint64_t size = 0;
    for (size_t i = 0; i < fcs_size; i++) size |= (uint64_t)b[off + i] << (8 * i);
    if (fcs_size == 2) size += 256;
    if (size > GPUASM_SLOW5_MAX_RECORD)
        return fail(why, whylen, "zstd-compressed record that says it holds %" PRIu64 " bytes "
                    "(more than %" PRIu64 " MiB): corrupt", size, GPUASM_SLOW5_MAX_RECORD >> 20);
    return 0;
}

/* An svb-zd signal stream of n bytes: a uint32 count, then streamvbyte
 * control bytes (2 bits a value: 1 to 4 data bytes), then the data bytes;
 * the sizes must add up to n exactly (slow5lib decodes count values
 * whatever n is). */
static int check_svb(const uint8_t *b, size_t n, uint64_t *samples, char *why, size_t whylen)
{
    if (n < 4) return fail(why, whylen, "svb-zd signal of %zu bytes (no length)", n);
    const uint64_t count = le32(b), ctrl = (count + 3) / 4;
    if (ctrl > n - 4)
        return fail(why, whylen, "svb-zd signal says %" PRIu64 " samples but has %zu bytes", count, n);
    uint64_t data = 0;
    for (uint64_t i = 0; i < count; i++) data += ((b[4 + i / 4] >> (2 * (i % 4))) & 3) + 1;
    if (4 + ctrl + data != n)
        return fail(why, whylen, "svb-zd signal of %" PRIu64 " samples needs %" PRIu64 " bytes, the "
                    "record holds %zu: corrupt", count, 4 + ctrl + data, n);
    *samples = count;
    return 0;
}

int gpuasm_blow5_check_record(const uint8_t *b, size_t n, const gpuasm_slow5_header *h,
                              size_t *main_len, uint64_t *samples, char *why, size_t whylen)
{
    size_t off = 0;
#define NEED(k, what) do { \
        if ((uint64_t)(k) > (uint64_t)(n - off)) \
            return fail(why, whylen, "%s needs %" PRIu64 " bytes at byte %zu of the %zu-byte record: " \
                        "corrupt or truncated record", what, (uint64_t)(k), off, n); \
    } while (0)
    NEED(2, "the read id's length");
    const uint16_t id_len = le16(b);
    off += 2;
    if (id_len == 0) return fail(why, whylen, "no read id (its length is 0)");
    NEED(id_len, "the read id");
    if (memchr(b + off, '\0', id_len)) return fail(why, whylen, "a NUL byte in the read id (binary data?)");
    off += id_len;
    NEED(4 + 4 * 8 + 8, "the main fields");
    const uint64_t len = le64(b + off + 4 + 4 * 8);
    off += 4 + 4 * 8 + 8;
    *samples = UINT64_MAX;
    if (h->signal_press == 0) {
        if (len > (n - off) / 2)
            return fail(why, whylen, "len_raw_signal says %" PRIu64 " samples but the record has "
                        "%zu bytes left for them: corrupt or truncated record", len, n - off);
        off += (size_t)len * 2;
        *samples = len;
    } else {
        /* Compressed: len is the compressed signal's bytes. */
        NEED(len, "the compressed signal");
        if (h->signal_press == 1 && check_svb(b + off, (size_t)len, samples, why, whylen) < 0) return -1;
        if (h->signal_press == 251 && gpuasm_blow5_check_zstd(b + off, (size_t)len, why, whylen) < 0) return -1;
        off += (size_t)len;
    }
    *main_len = off;
    for (uint32_t i = 0; i < h->aux; i++) {
        uint64_t k = 1;
        if (h->aux_array[i]) {
            NEED(8, "an auxiliary array's length");
            k = le64(b + off);
            off += 8;
        }
        if (k > (n - off) / h->aux_size[i])
            return fail(why, whylen, "auxiliary field %" PRIu32 " (%" PRIu64 " values) needs more than "
                        "the %zu bytes left in the record: corrupt record (or a wrong len_raw_signal "
                        "before it)", i + 1, k, n - off);
        off += (size_t)k * h->aux_size[i];
    }
    if (off != n)
        return fail(why, whylen, "%zu bytes after the record's last field: corrupt record", n - off);
#undef NEED
    return 0;
}
