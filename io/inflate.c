/* SPDX-License-Identifier: MIT */
/* inflate.c -- plain gzip read with ISA-L's igzip (see inflate.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/bgzf.h>
#include <htslib/hfile.h>

#include "config.h"
#include "io/inflate.h"

#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>

/* Compressed bytes read from the file at a time. */
#define GUNZIP_IN_BYTES (256u << 10)

struct gpuasm_gunzip {
    hFILE *h;
    unsigned char *in;
    int in_eof;          /* the file has no more bytes */
    int in_member;       /* inside a gzip member (its header read or being read) */
    int done;            /* the last member ended with the file */
    unsigned errcode;    /* BGZF_ERR_* */
    struct inflate_state st;   /* large (tens of KiB): the struct is malloc'ed */
};

int gpuasm_gunzip_available(void) { return 1; }

gpuasm_gunzip *gpuasm_gunzip_open(hFILE *h)
{
    gpuasm_gunzip *z = calloc(1, sizeof(*z));
    if (!z) return NULL;
    if (!(z->in = malloc(GUNZIP_IN_BYTES))) {
        free(z);
        return NULL;
    }
    z->h = h;
    isal_inflate_init(&z->st);
    z->st.next_in = z->in;
    z->st.avail_in = 0;
    return z;
}

ssize_t gpuasm_gunzip_read(gpuasm_gunzip *z, void *buf, size_t n)
{
    if (z->errcode) return -1;
    size_t got = 0;
    int stalls = 0;
    while (got < n && !z->done) {
        if (z->st.avail_in == 0 && !z->in_eof) {
            const ssize_t r = hread(z->h, z->in, GUNZIP_IN_BYTES);
            if (r < 0) {
                z->errcode |= BGZF_ERR_IO | BGZF_ERR_ZLIB;
                break;
            }
            z->in_eof = r == 0;
            z->st.next_in = z->in;
            z->st.avail_in = (uint32_t)r;
        }
        if (!z->in_member) {
            /* Between members: the end, or the next member -- which must
             * be one, as for zlib in htslib's reader (bytes that are not
             * a gzip header are an error, not the end). */
            if (z->st.avail_in == 0) {
                if (z->in_eof) z->done = 1;
                continue;
            }
            uint8_t *next_in = z->st.next_in;
            const uint32_t avail_in = z->st.avail_in;
            isal_inflate_reset(&z->st);
            z->st.next_in = next_in;
            z->st.avail_in = avail_in;
            z->st.crc_flag = ISAL_GZIP;   /* header parsed, CRC32 and ISIZE checked */
            z->in_member = 1;
        }
        const size_t want = n - got > UINT32_MAX ? UINT32_MAX : n - got;
        z->st.next_out = (uint8_t *)buf + got;
        z->st.avail_out = (uint32_t)want;
        const uint32_t in_before = z->st.avail_in;
        const int ret = isal_inflate(&z->st);
        const size_t out = want - z->st.avail_out;
        got += out;
        if (ret < 0) {
            /* A bad block, symbol, distance, header or checksum. */
            z->errcode |= BGZF_ERR_ZLIB;
            break;
        }
        if (z->st.block_state == ISAL_BLOCK_FINISH) {
            z->in_member = 0;
            continue;
        }
        if (out == 0 && z->st.avail_in == in_before) {
            if (z->st.avail_in == 0 && z->in_eof) {
                /* Inside a member and nothing more to read: cut short.
                 * htslib's reader says so with both bits (inflate_gzip_block
                 * sets IO, bgzf_read_block adds ZLIB): the same words. */
                z->errcode |= BGZF_ERR_IO | BGZF_ERR_ZLIB;
                break;
            }
            /* Input there and room for output, yet no progress: igzip
             * would spin here; call it what zlib would (never seen). */
            if (z->st.avail_in > 0 && ++stalls > 1) {
                z->errcode |= BGZF_ERR_ZLIB;
                break;
            }
        } else {
            stalls = 0;
        }
    }
    if (got > 0) return (ssize_t)got;   /* an error waits for the next call */
    return z->errcode ? -1 : 0;
}

unsigned gpuasm_gunzip_errcode(const gpuasm_gunzip *z) { return z->errcode; }

void gpuasm_gunzip_close(gpuasm_gunzip *z)
{
    if (!z) return;
    free(z->in);
    free(z);
}

#else   /* no ISA-L: htslib's own reader (zlib) */

int gpuasm_gunzip_available(void) { return 0; }
gpuasm_gunzip *gpuasm_gunzip_open(hFILE *h) { (void)h; return NULL; }
ssize_t gpuasm_gunzip_read(gpuasm_gunzip *z, void *buf, size_t n) { (void)z; (void)buf; (void)n; return -1; }
unsigned gpuasm_gunzip_errcode(const gpuasm_gunzip *z) { (void)z; return BGZF_ERR_IO; }
void gpuasm_gunzip_close(gpuasm_gunzip *z) { (void)z; }

#endif
