/* SPDX-License-Identifier: MIT */
/* printable.c -- see printable.h. */
#include <stdio.h>
#include <string.h>

#include "util/printable.h"

/* Length of the valid UTF-8 sequence starting at p (at most n bytes
 * available), or 0 when p does not start one (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF). */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    size_t len;
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else {
        return 0;
    }
    if (n < len || p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xbf) return 0;
    return len;
}

const char *gpuasm_printable(const char *s, char *buf, size_t buflen)
{
    if (!buflen) return buf;
    if (!s) {
        snprintf(buf, buflen, "(null)");
        return buf;
    }
    const unsigned char *p = (const unsigned char *)s;
    const size_t n = strlen(s), shown = n > GPUASM_PRINTABLE_MAX ? GPUASM_PRINTABLE_MAX : n;
    size_t o = 0, i = 0;
    /* Leave room for the longest piece (4 bytes), the NUL and, when the
     * name is cut, the "...(N bytes)" tail. */
    const size_t tail = n > shown ? 32 : 0;
    while (i < shown && o + 5 + tail < buflen) {
        size_t u = p[i] >= 0x80 ? utf8_len(p + i, shown - i) : 0;
        if (u) {
            memcpy(buf + o, p + i, u);
            o += u;
            i += u;
        } else if (p[i] < 0x20 || p[i] >= 0x7f || p[i] == '\\') {
            o += (size_t)snprintf(buf + o, buflen - o, p[i] == '\\' ? "\\\\" : "\\x%02x", p[i]);
            i++;
        } else {
            buf[o++] = (char)p[i++];
        }
    }
    buf[o < buflen ? o : buflen - 1] = 0;
    if (i < n && o + 1 < buflen)
        snprintf(buf + o, buflen - o, "...(%zu bytes)", n);
    return buf;
}
