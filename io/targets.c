/* SPDX-License-Identifier: MIT */
/* targets.c -- load the target set through htslib (see targets.h). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <htslib/bgzf.h>
#include <htslib/hfile.h>
#include <htslib/hts.h>
#include <htslib/khash.h>
#include <htslib/kseq.h>
#include <htslib/kstring.h>

#include "io/diagnose.h"
#include "util/grow.h"
#include "util/printable.h"
#include "io/targets.h"

/* kseq's stream treats a negative read as data (ks_getc would return the
 * stale buffer forever): report an error as the end of the stream and let
 * the caller look at the BGZF error code. */
static int bgzf_read_or_end(BGZF *fp, void *buf, int n)
{
    ssize_t r = bgzf_read(fp, buf, (size_t)n);
    return r < 0 ? 0 : (int)r;
}

KSEQ_INIT(BGZF *, bgzf_read_or_end)
KHASH_SET_INIT_STR(names)
KHASH_MAP_INIT_STR(first, uint32_t)

/* SAM v1.6 §1.2.1: the characters of a reference name ([0-9A-Za-z!#$%&+./:;
 * ?@^_|~-] first, then also * and =). */
static int sam_name_char(unsigned char c, int first)
{
    if (isalnum(c)) return 1;
    if (!first && (c == '*' || c == '=')) return 1;
    return c != 0 && strchr("!#$%&+./:;?@^_|~-", c) != NULL;
}

/* The first character SAM does not allow in `name`, or 0. */
static char bad_name_char(const char *name)
{
    for (const char *p = name; *p; p++)
        if (!sam_name_char((unsigned char)*p, p == name)) return *p;
    return 0;
}

/* Is `s` in the set? */
static int in_set(khash_t(names) *h, const char *s)
{
    return kh_get(names, h, s) != kh_end(h);
}

/* The header line as @SQ DS shows it: the first word, one space, the
 * comment; tabs and other control characters (which a header line cannot
 * hold) as spaces. */
static char *header_text(const kseq_t *ks)
{
    kstring_t d = KS_INITIALIZE;
    if (kputs(ks->name.s, &d) < 0 ||
        (ks->comment.l && (kputc(' ', &d) < 0 || kputsn(ks->comment.s, ks->comment.l, &d) < 0))) {
        ks_free(&d);
        return NULL;
    }
    for (size_t i = 0; i < d.l; i++)
        if (iscntrl((unsigned char)d.s[i])) d.s[i] = ' ';
    return ks_release(&d);
}

/* Give every target its SAM name (rules in targets.h).  word[i] is target
 * i's first word; on return t->name[i] holds the name, and t->desc[i] the
 * header line where the two differ.  0, or -1 with err. */
static int assign_names(const char *path, int strict, gpuasm_targets *t, char **word,
                        char **header, char *err, size_t errlen)
{
    int ret = -1, absent;
    char nm[GPUASM_PRINTABLE_BUF];
    khash_t(names) *taken = kh_init(names);  /* names given out or kept */
    khash_t(first) *first = kh_init(first);  /* first words that may be kept -> target */
    kstring_t cand = KS_INITIALIZE;
    if (!taken || !first) goto oom;
    /* A valid first word seen for the first time keeps its name, whatever
     * comes before it in the file: reserve those names up front. */
    for (uint32_t i = 0; i < t->n; i++) {
        char bad = bad_name_char(word[i]);
        khint_t k = kh_get(first, first, word[i]);
        if (k != kh_end(first)) {
            uint32_t j = kh_val(first, k);
            if (strict) {
                snprintf(err, errlen, "%s: record %u (%s): duplicate target name (first seen as "
                         "record %u; without --strict-names it would be renamed)",
                         path, i + 1, gpuasm_printable(word[i], nm, sizeof nm), j + 1);
                goto out;
            }
            /* The target that keeps the name shows its header too, so that
             * each of the namesakes can be told apart. */
            if (!t->desc[j]) {
                t->desc[j] = header[j];
                header[j] = NULL;
            }
            continue;
        }
        if (bad && strict) {
            char c[2] = { bad, 0 }, cs[GPUASM_PRINTABLE_BUF];
            snprintf(err, errlen, "%s: record %u (%s): name has a character SAM does not allow "
                     "in @SQ SN ('%s'; without --strict-names it would be mapped to '_')",
                     path, i + 1, gpuasm_printable(word[i], nm, sizeof nm),
                     gpuasm_printable(c, cs, sizeof cs));
            goto out;
        }
        if (bad) continue;
        k = kh_put(first, first, word[i], &absent);
        if (absent < 0) goto oom;
        kh_val(first, k) = i;
    }
    for (uint32_t i = 0; i < t->n; i++) {
        khint_t k = kh_get(first, first, word[i]);
        if (k != kh_end(first)) {
            /* A valid name: the first target with it keeps it. */
            kh_del(first, first, k);
            kh_put(names, taken, word[i], &absent);
            if (absent < 0) goto oom;
            t->name[i] = word[i];
            word[i] = NULL;
            continue;
        }
        int dup = bad_name_char(word[i]) == 0;   /* valid, so its name was taken before */
        cand.l = 0;
        if (kputs(word[i], &cand) < 0) goto oom;
        for (size_t c = 0; c < cand.l; c++)
            if (!sam_name_char((unsigned char)cand.s[c], c == 0)) cand.s[c] = '_';
        size_t base = cand.l;
        for (unsigned sfx = 2; in_set(taken, cand.s) || kh_get(first, first, cand.s) != kh_end(first);
             sfx++) {
            cand.l = base;
            if (ksprintf(&cand, "_%u", sfx) < 0) goto oom;
        }
        if (!(t->name[i] = strdup(cand.s))) goto oom;
        kh_put(names, taken, t->name[i], &absent);
        if (absent < 0) goto oom;
        t->desc[i] = header[i];
        header[i] = NULL;
        if (dup && t->n_dup++ == 0) t->first_dup = i;
        if (!dup) t->n_mapped++;
    }
    ret = 0;
    goto out;
oom:
    snprintf(err, errlen, "%s: out of memory", path);
out:
    if (taken) kh_destroy(names, taken);
    if (first) kh_destroy(first, first);
    ks_free(&cand);
    return ret;
}

/* The targets file as a BGZF stream (plain, gzip or bgzf), its format in
 * *fmt: FASTA, FASTQ or empty.  NULL with err. */
static BGZF *open_targets(const char *path, htsFormat *fmt, char *err, size_t errlen)
{
    hFILE *hf;
    BGZF *bz;
    errno = 0;
    if (!(hf = hopen(path, "r"))) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno ? errno : ENOENT));
        return NULL;
    }
    if (hts_detect_format2(hf, path, fmt) < 0) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno ? errno : EIO));
        goto fail;
    }
    /* A compressed file with nothing in it may also be one cut short: the
     * read tells the two apart. */
    if (fmt->format == empty_format && fmt->compression == no_compression) {
        snprintf(err, errlen, "%s: empty target file", path);
        goto fail;
    }
    /* htslib's detector takes FASTA only when the sequence looks like DNA
     * or protein it knows; a '>' header with, say, an RNA adapter (U) is
     * FASTA all the same. */
    if (fmt->format == text_format || fmt->format == unknown_format) {
        char first = 0;
        if (hpeek(hf, &first, 1) == 1 && first == '>') fmt->format = fasta_format;
    }
    if (fmt->format != fasta_format && fmt->format != fastq_format && fmt->format != empty_format) {
        snprintf(err, errlen, "%s: not a FASTA or FASTQ file", path);
        goto fail;
    }
    /* bgzf_hopen reads plain, gzip and bgzf alike, from what hopen peeked. */
    if (!(bz = bgzf_hopen(hf, "r"))) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno ? errno : EIO));
        goto fail;
    }
    return bz;   /* it owns hf now */
fail:
    hclose_abruptly(hf);
    return NULL;
}

/* After the last record read (kseq_read's r), the n records of the file
 * so far: what stopped the read, if not its end.  0, or -1 with err. */
static int read_end(const char *path, const htsFormat *fmt, BGZF *bz, const kseq_t *ks, int r, uint32_t n,
                    char *err, size_t errlen)
{
    char nm[GPUASM_PRINTABLE_BUF];
    if (fmt->compression != no_compression && (bz->errcode || n == 0 || r < -1)) {
        /* Say what is wrong with the compressed data where it is wrong
         * (zlib from the start: htslib's code alone cannot tell a cut file
         * from trailing garbage, and a corrupt member can parse as a bad
         * record before its CRC is checked). */
        gpuasm_gz_report gz;
        int k = gpuasm_gz_check(path, &gz);
        if (k != GPUASM_GZ_OK && (k != GPUASM_GZ_UNKNOWN || bz->errcode)) {
            char what[256];
            if (k == GPUASM_GZ_UNKNOWN)
                snprintf(what, sizeof what, "%s", gpuasm_bgzf_error_words(bz));
            else
                gpuasm_gz_describe(&gz, what, sizeof what);
            snprintf(err, errlen, "%s: record %u: %s%s", path, n + 1,
                     k == GPUASM_GZ_TRAILING ? "htslib stops here: " : "", what);
            return -1;
        }
    }
    if (bz->errcode) {
        snprintf(err, errlen, "%s: record %u: cannot read: %s", path, n + 1,
                 gpuasm_bgzf_error_words(bz) ? gpuasm_bgzf_error_words(bz) : "read error");
        return -1;
    }
    if (r == -2) {
        snprintf(err, errlen, "%s: record %u (%s): quality length %zu != sequence length %zu",
                 path, n + 1, gpuasm_printable(ks->name.s, nm, sizeof nm), ks->qual.l, ks->seq.l);
        return -1;
    }
    if (r < -1) {
        snprintf(err, errlen, "%s: record %u: malformed record", path, n + 1);
        return -1;
    }
    if (n == 0) {
        snprintf(err, errlen, "%s: empty target file (no records)", path);
        return -1;
    }
    return 0;
}

/* What a byte of a target's sequence is (byte_codes): a base (A C G T
 * U and the IUPAC codes, either case), whitespace (skipped), another
 * control byte (binary data) or anything else (not a base). */
enum { BYTE_BASE, BYTE_SPACE, BYTE_CONTROL, BYTE_OTHER };

/* Each byte's code: a base's nt16 code (1-15; U is T) below 16, else
 * 16 + its class (space, control, other), so that a base is one look-up
 * and one compare (a 200 Mb database's load was a class look-up, two
 * compares and a second table's look-up a base). */
static void byte_codes(uint8_t enc[256])
{
    for (int ch = 0; ch < 256; ch++) {
        const int base = ch < 128 && ch && strchr("ACGTURYSWKMBDHVNacgturyswkmbdhvn", ch);
        enc[ch] = base ? (ch == 'U' || ch == 'u' ? 8 : (uint8_t)seq_nt16_table[ch])
                       : (uint8_t)(16 + (isspace(ch) ? BYTE_SPACE : iscntrl(ch) ? BYTE_CONTROL : BYTE_OTHER));
    }
}

int gpuasm_targets_load(const char *path, int strict_names, gpuasm_targets *t,
                        char *err, size_t errlen)
{
    memset(t, 0, sizeof(*t));
    int ret = -1, r;
    BGZF *bz = NULL;
    kseq_t *ks = NULL;
    char **word = NULL, **header = NULL;   /* [n] first words, header lines */
    size_t m_word = 0, m_header = 0, m_off = 0, m_code = 0;
    htsFormat fmt;
    char nm[GPUASM_PRINTABLE_BUF];
    uint8_t enc[256];   /* byte_codes */
    byte_codes(enc);

    if (!(bz = open_targets(path, &fmt, err, errlen))) goto out;
    /* The bases take at most the file's bytes (uncompressed): reserved at
     * once, not doubled into place (copying a 200 Mb database's bases ~8
     * times); only what is written becomes resident. */
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        gpuasm_grow((void **)&t->code, &m_code, (size_t)sb.st_size, 1) < 0)
        goto oom;
    if (!(ks = kseq_init(bz))) goto oom;
    if (gpuasm_grow((void **)&t->off, &m_off, 1, sizeof(*t->off)) < 0) goto oom;
    t->off[0] = 0;

    while ((r = kseq_read(ks)) >= 0) {
        uint32_t no = t->n + 1;
        if (strlen(ks->name.s) != ks->name.l) {
            /* A NUL byte: the name would end there (an empty @SQ SN). */
            snprintf(err, errlen, "%s: record %u (%s): a NUL byte in the name (binary data?)",
                     path, no, gpuasm_printable(ks->name.s, nm, sizeof nm));
            goto out;
        }
        if (ks->name.l == 0) {
            snprintf(err, errlen, "%s: record %u: empty name (a header line with no name "
                     "right after its '%c')", path, no, fmt.format == fasta_format ? '>' : '@');
            goto out;
        }
        if (t->n == UINT32_MAX - 1) {
            snprintf(err, errlen, "%s: record %u (%s): too many targets", path, no,
                     gpuasm_printable(ks->name.s, nm, sizeof nm));
            goto out;
        }
        if (gpuasm_grow((void **)&t->off, &m_off, (size_t)t->n + 2, sizeof(*t->off)) < 0 ||
            gpuasm_grow((void **)&word, &m_word, (size_t)t->n + 1, sizeof(*word)) < 0 ||
            gpuasm_grow((void **)&header, &m_header, (size_t)t->n + 1, sizeof(*header)) < 0 ||
            gpuasm_grow((void **)&t->code, &m_code, t->off[t->n] + ks->seq.l + 1, 1) < 0)
            goto oom;
        /* Whitespace (a CR of a blank CRLF line kseq leaves in) is not a base;
         * other control bytes (NUL, ESC, ...) are binary data, not sequence;
         * U is T (RNA adapters and primers, as cutadapt reads them: htslib
         * would make it N); everything else is coded as htslib codes SEQ
         * (unknown letters: N). */
        uint8_t *c = t->code + t->off[t->n];
        uint64_t len = 0, n_n = 0;
        for (size_t i = 0; i < ks->seq.l; i++) {
            const unsigned char ch = (unsigned char)ks->seq.s[i];
            const uint8_t v = enc[ch];
            if (v < 16) {   /* a base: the common case */
                n_n += v == 15;   /* N (no other letter codes 15) */
                c[len++] = v;
                continue;
            }
            if (v == 16 + BYTE_SPACE) continue;
            if (v == 16 + BYTE_CONTROL) {
                snprintf(err, errlen, "%s: record %u (%s): byte 0x%02x in the sequence (binary "
                         "data?)", path, no, gpuasm_printable(ks->name.s, nm, sizeof nm), ch);
                goto out;
            }
            /* Issue #31: a gap ('-', '.'), '*', a digit or any other
             * non-IUPAC character is no base; htslib's table would make it
             * N, which matches anything here.  Refused, as cutadapt does. */
            {
                char what[16];
                snprintf(what, sizeof what, ch > 126 ? "byte 0x%02x" : "'%c'", ch);
                snprintf(err, errlen, "%s: record %u (%s): %s at base %llu is not a base (targets "
                         "are DNA: A C G T U and the IUPAC codes R Y S W K M B D H V N); remove "
                         "gaps and other symbols", path, no, gpuasm_printable(ks->name.s, nm, sizeof nm),
                         what, (unsigned long long)len + 1);
                goto out;
            }
        }
        if (len == 0) {
            snprintf(err, errlen, "%s: record %u (%s): target has no bases", path, no,
                     gpuasm_printable(ks->name.s, nm, sizeof nm));
            goto out;
        }
        if (n_n == len) {
            /* N matches any base: it would match every read everywhere. */
            snprintf(err, errlen, "%s: record %u (%s): every base is N, which matches any base: "
                     "it would match every read everywhere (remove it, as cutadapt refuses it)",
                     path, no, gpuasm_printable(ks->name.s, nm, sizeof nm));
            goto out;
        }
        if (len > INT32_MAX) {
            snprintf(err, errlen, "%s: record %u (%s): target longer than %d bases", path, no,
                     gpuasm_printable(ks->name.s, nm, sizeof nm), INT32_MAX);
            goto out;
        }
        word[t->n] = strdup(ks->name.s);
        header[t->n] = header_text(ks);
        t->n++;   /* counted now so that the names are freed on any error */
        if (!word[t->n - 1] || !header[t->n - 1]) goto oom;
        t->off[t->n] = t->off[t->n - 1] + len;
        if (t->n == 1 || len > t->max_len) t->max_len = len;
        if (t->n == 1 || len < t->min_len) t->min_len = len;
    }
    if (read_end(path, &fmt, bz, ks, r, t->n, err, errlen) < 0) goto out;
    if (!(t->name = calloc(t->n, sizeof(*t->name))) || !(t->desc = calloc(t->n, sizeof(*t->desc))))
        goto oom;
    if (assign_names(path, strict_names, t, word, header, err, errlen) < 0) goto out;
    t->set.n = t->n;
    t->set.off = t->off;
    t->set.code = t->code;
    ret = 0;
    goto out;
oom:
    snprintf(err, errlen, "%s: out of memory", path);
out:
    /* A bad record of a compressed file may be the compressed data's
     * fault: a gzip cut inside its header reads as plain bytes, and its
     * time stamp can hold a '>' (a "record" of header bytes, 1 file in
     * 256).  Say what is wrong with the compressed data, as read_end does. */
    if (ret < 0 && bz && fmt.compression != no_compression) {
        gpuasm_gz_report gz;
        const int k = gpuasm_gz_check(path, &gz);
        if (k != GPUASM_GZ_OK && k != GPUASM_GZ_UNKNOWN) {
            char what[256];
            gpuasm_gz_describe(&gz, what, sizeof what);
            snprintf(err, errlen, "%s: record %u: %s%s", path, t->n + 1,
                     k == GPUASM_GZ_TRAILING ? "htslib stops here: " : "", what);
        }
    }
    for (uint32_t i = 0; word && i < t->n; i++) free(word[i]);
    for (uint32_t i = 0; header && i < t->n; i++) free(header[i]);
    free(word);
    free(header);
    if (ks) kseq_destroy(ks);
    if (bz) bgzf_close(bz);
    if (ret < 0) gpuasm_targets_free(t);
    return ret;
}

void gpuasm_targets_free(gpuasm_targets *t)
{
    for (uint32_t i = 0; t->name && i < t->n; i++) free(t->name[i]);
    for (uint32_t i = 0; t->desc && i < t->n; i++) free(t->desc[i]);
    free(t->name);
    free(t->desc);
    free(t->off);
    free(t->code);
    memset(t, 0, sizeof(*t));
}
