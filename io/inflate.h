/* SPDX-License-Identifier: MIT */
/* inflate.h -- plain gzip read with ISA-L's igzip (issue #30).
 *
 * htslib inflates a plain gzip file (not BGZF) with zlib on one thread:
 * on 1 M reads of 150 bp that one thread set the time of the whole run
 * (0.43 M reads/s).  ISA-L's igzip inflates the same deflate stream about
 * three times as fast.  This is only the byte source: the bytes it gives
 * are what htslib's BGZF layer would have given (every member of a
 * multi-member file, CRC32 and length of each checked), and htslib still
 * parses every record of them (io/fastx_chunks.h).
 *
 * A plain gzip stream cannot be inflated in parallel with any library
 * here: each deflate block may copy from the 32 KiB before it, so a block
 * can only be decoded once everything before it is (rapidgzip guesses
 * block starts and resolves the window afterwards; it is C++ inside a
 * Python package, not a C library in Debian or PyPI).  BGZF files are cut
 * into independent blocks and are inflated on the -@ threads by htslib.
 *
 * Without ISA-L (configure --without-isal, or libisal-dev missing)
 * gpuasm_gunzip_open() returns NULL and the caller reads through htslib.
 */
#ifndef GPUASM_INFLATE_H
#define GPUASM_INFLATE_H

#include <stddef.h>
#include <sys/types.h>
#include <htslib/hfile.h>

typedef struct gpuasm_gunzip gpuasm_gunzip;

/* 1 when this build has ISA-L. */
int gpuasm_gunzip_available(void);

/* Read the gzip stream at the current position of h (its first member's
 * header next).  NULL without ISA-L, or out of memory.  h stays the
 * caller's (gpuasm_gunzip_close does not close it). */
gpuasm_gunzip *gpuasm_gunzip_open(hFILE *h);

/* Up to n inflated bytes into buf: the count (> 0), 0 at the end of the
 * last member, or -1 on an error, with gpuasm_gunzip_errcode() telling
 * which as BGZF_ERR_* bits (htslib/bgzf.h), as htslib's BGZF reader sets
 * them for a plain gzip file: BGZF_ERR_IO | BGZF_ERR_ZLIB for data cut
 * short (or a read error), BGZF_ERR_ZLIB for data that does not inflate
 * (a bad block, a CRC or length that does not match, bytes after a
 * member that are not another member).  The bytes before an error are
 * all given first. */
ssize_t gpuasm_gunzip_read(gpuasm_gunzip *z, void *buf, size_t n);

unsigned gpuasm_gunzip_errcode(const gpuasm_gunzip *z);

void gpuasm_gunzip_close(gpuasm_gunzip *z);

#endif
