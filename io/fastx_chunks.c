/* SPDX-License-Identifier: MIT */
/* fastx_chunks.c -- FASTQ/FASTA records read in parallel (see fastx_chunks.h). */
#define _GNU_SOURCE   /* pthread_setname_np */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/bgzf.h>
#include <htslib/hfile.h>
#include <htslib/hts.h>
#include <htslib/hts_log.h>
#include <htslib/sam.h>
#include <htslib/thread_pool.h>

#include "io/fastx_chunks.h"
#include "io/inflate.h"

#define CHUNK_BYTES_DEFAULT (1u << 20)
/* A chunk's records: never more than this are expected (the split's count). */
#define WANT_UNKNOWN UINT32_MAX

enum { SRC_PLAIN, SRC_ISAL, SRC_BGZF };

typedef struct chunk {
    struct gpuasm_fastx *fx;
    char *buf;               /* the text: whole records, or the last chunk's all */
    size_t len, cap;         /* cap > len: one spare byte for the '\n' a compressed file lacks */
    bam1_t **rec;            /* [m_rec] records, parsed into; swapped with the caller's */
    uint8_t *mark;           /* [m_rec] the mark hook's */
    uint64_t *code_off;      /* [m_rec] where each record's codes start in codes */
    size_t m_rec;
    uint8_t *codes;          /* the encode hook's, all records one after the other */
    size_t code_len, m_codes;
    uint32_t n_rec;          /* records parsed */
    uint32_t want;           /* records the split found, or WANT_UNKNOWN (a refused one is here) */
    uint32_t next;           /* the caller's position in rec */
    int ret, err;            /* sam_read1's last return and errno: how the parse stopped */
    int nomem;               /* the parse ran out of memory */
    int last;                /* the input ends with this chunk */
    unsigned errcode;        /* last chunk: the byte layer's error after its bytes */
} chunk_t;

struct gpuasm_fastx {
    samFile *in;
    int fastq, kind, compressed;
    hFILE *h;                /* SRC_PLAIN, SRC_ISAL: the file's bytes */
    BGZF *bz;                /* SRC_BGZF (and a zlib gzip file: htslib's reader) */
    gpuasm_gunzip *gz;       /* SRC_ISAL */
    const char *source;
    gpuasm_fastx_hooks hooks;
    size_t chunk_bytes;
    hts_tpool *pool;
    hts_tpool_process *q;    /* pool: the parse jobs, results in input order */

    chunk_t *all;            /* [n_chunks] */
    int n_chunks;
    pthread_t feeder;
    int feeder_running;

    pthread_mutex_t lock;    /* the free list, the inline queue, stop */
    pthread_cond_t cv_free, cv_ready;
    chunk_t **free_list;     /* [n_chunks] */
    int n_free;
    chunk_t **ready;         /* no pool: [n_chunks] ring of chunks to parse, in order */
    int ready_head, n_ready;
    int stop;

    /* the caller's side */
    chunk_t *cur;
    int ended;               /* the last chunk was read, or an error: *end_ret from now on */
    int end_ret, end_errno;
    unsigned errcode;
};

/* ---- where a chunk may be cut ------------------------------------------------- */

/* The line starting at p, as kgetline2 gives it: *clen its length without
 * '\n' and one '\r' before it, *next where the next line starts.
 * 0: a line; 1: no '\n' in view and more bytes may come (not final);
 * a last line without '\n' (final) is whole, '\r' and all. */
static inline int line_at(const char *buf, size_t len, size_t p, int final, size_t *clen,
                          size_t *next)
{
    const char *nl = memchr(buf + p, '\n', len - p);
    if (!nl) {
        if (!final) return 1;
        *clen = len - p;
        *next = len;
        return 0;
    }
    const size_t e = (size_t)(nl - buf);
    *clen = e - p - (e > p && buf[e - 1] == '\r');
    *next = e + 1;
    return 0;
}

/* FASTQ records wholly in buf[0, len), read as fastq_parse1 reads them.
 * Returns their number; *cut is where the last one ends.  *bad: the
 * record at *cut is one fastq_parse1 refuses (-2); final: no byte comes
 * after buf[len - 1]. */
static uint32_t split_fastq(const char *buf, size_t len, int final, size_t *cut, int *bad)
{
    uint32_t n = 0;
    size_t p = 0, clen, q;
    *bad = 0;
    for (;;) {
        *cut = p;
        if (p >= len) return n;                    /* the end (final), or more to read */
        if (line_at(buf, len, p, final, &clen, &q)) return n;
        if (clen == 0 || buf[p] != '@') {          /* "*x->name.s != x->nprefix" */
            *bad = 1;
            return n;
        }
        uint64_t seq = 0;
        for (;;) {                                 /* sequence lines, up to '+' */
            if (q >= len) {
                *bad = final;                      /* the file ends inside the record */
                return n;
            }
            size_t next;
            if (line_at(buf, len, q, final, &clen, &next)) return n;
            const int plus = clen > 0 && buf[q] == '+';
            q = next;
            if (plus) break;
            seq += clen;
        }
        uint64_t left = seq;
        do {                                       /* quality lines, as long as the sequence */
            if (q >= len) {
                *bad = final;
                return n;
            }
            size_t next;
            if (line_at(buf, len, q, final, &clen, &next)) return n;
            if (clen > left) {                     /* "fp->line.l > remainder" */
                *bad = 1;
                return n;
            }
            left -= clen;
            q = next;
        } while (left > 0);
        n++;
        p = q;
    }
}

/* FASTA records wholly in buf[0, len): a record starts at each line that
 * starts with '>' (fastq_parse1 keeps such a line as the next name) and
 * is whole once the next one starts, or at the end (final).  FASTA has no
 * record fastq_parse1 refuses after the first line (htslib's format
 * detection saw that one start with '>'). */
static uint32_t split_fasta(const char *buf, size_t len, int final, size_t *cut, int *bad)
{
    uint32_t n = len > 0 && buf[0] == '>';
    size_t last = 0;
    *bad = 0;
    for (const char *p = buf + 1, *end = buf + len; p < end; p++) {
        p = memchr(p, '>', (size_t)(end - p));
        if (!p) break;
        if (p[-1] == '\n') {
            n++;
            last = (size_t)(p - buf);
        }
    }
    if (final) {
        *cut = len;
        return n;
    }
    /* The record that starts at `last` may go on in bytes to come. */
    *cut = last;
    return n > 0 ? n - 1 : 0;
}

/* ---- parsing one chunk: htslib's parser on an in-memory hFILE -------------------- */

/* An htsFile htslib set up as a FASTQ/FASTA reader, its format detected
 * from a one-record text, as from any file; NULL when htslib would not
 * (out of memory). */
static samFile *template_open(int fastq)
{
    static const char fq[] = "@r\nA\n+\nI\n", fa[] = ">r\nA\n";
    const char *t = fastq ? fq : fa;
    const size_t tl = strlen(t);
    char *tb = malloc(tl);
    if (!tb) return NULL;
    memcpy(tb, t, tl);
    hFILE *th = hopen("mem:", "r:", tb, tl);   /* owns tb from here, even when it fails */
    if (!th) return NULL;
    samFile *f = hts_hopen(th, "chunk", "r");
    if (!f) {
        hclose_abruptly(th);
        return NULL;
    }
    if (f->format.format != (fastq ? fastq_format : fasta_format) ||
        f->format.compression != no_compression || f->is_bgzf) {
        hts_close(f);
        return NULL;
    }
    return f;
}

/* The template reader (template_open) given the chunk as its byte
 * source.  Detection on the chunk itself would not do: a record with a
 * control byte or a NUL in its first lines is not "FASTQ" to the
 * detector, though fastq_parse1 reads it. */
static samFile *parser_open(int fastq, chunk_t *c)
{
    samFile *f = template_open(fastq);
    if (!f) return NULL;
    hFILE *ch = hopen("mem:", "r:", c->buf, c->len);
    if (!ch) {
        /* hopen freed the buffer: the chunk has none now. */
        c->buf = NULL;
        c->cap = c->len = 0;
        hts_close(f);
        return NULL;
    }
    hclose_abruptly(f->fp.hfile);
    f->fp.hfile = ch;
    return f;
}

static void parser_close(samFile *f, chunk_t *c)
{
    /* The chunk's buffer goes back to the chunk, not to free(). */
    hfile_mem_steal_buffer(f->fp.hfile, NULL);
    (void)c;
    hts_close(f);
}

/* Parse a chunk: a pool job (arg and result: the chunk), or the caller's. */
static void *parse_chunk(void *arg)
{
    chunk_t *c = arg;
    c->n_rec = 0;
    c->code_len = 0;
    c->next = 0;
    c->ret = -1;
    c->err = 0;
    c->nomem = 0;
    if (c->len == 0) return c;
    if (c->buf[0] != (c->fx->fastq ? '@' : '>')) {
        /* The chunk starts with a record whose name line fastq_parse1
         * refuses (a last chunk): its answer, without parsing. */
        c->ret = -2;
        return c;
    }
    samFile *f = parser_open(c->fx->fastq, c);
    if (!f) {
        c->nomem = 1;
        c->ret = -2;
        return c;
    }
    for (;;) {
        if (c->n_rec == c->m_rec) {
            /* Grows to the most records a chunk has held, then is reused. */
            size_t m = c->m_rec ? c->m_rec * 2 : 1024;
            bam1_t **r = realloc(c->rec, m * sizeof(*r));
            if (!r) {
                c->nomem = 1;
                c->ret = -2;
                break;
            }
            c->rec = r;
            uint8_t *mk = realloc(c->mark, m * sizeof(*mk));
            if (mk) c->mark = mk;
            uint64_t *co = realloc(c->code_off, m * sizeof(*co));
            if (co) c->code_off = co;
            if (mk && co)
                for (; c->m_rec < m; c->m_rec++)
                    if (!(c->rec[c->m_rec] = bam_init1())) break;
            if (c->n_rec == c->m_rec) {
                c->nomem = 1;
                c->ret = -2;
                break;
            }
        }
        errno = 0;
        const int r = sam_read1(f, NULL, c->rec[c->n_rec]);
        if (r < 0) {
            c->ret = r;
            c->err = errno;
            break;
        }
        const bam1_t *b = c->rec[c->n_rec];
        const gpuasm_fastx_hooks *hk = &c->fx->hooks;
        c->mark[c->n_rec] = hk->mark ? (uint8_t)hk->mark(b, hk->ctx) : 0;
        if (hk->encode) {
            const size_t l = (size_t)b->core.l_qseq;
            /* Allocated before the first record, empty or not: *codes
             * is never NULL + 0 (undefined, and UBSan says so). */
            if (!c->codes || c->code_len + l > c->m_codes) {
                size_t m = c->m_codes ? c->m_codes : 1u << 16;
                while (m < c->code_len + l) m *= 2;
                uint8_t *cd = realloc(c->codes, m);
                if (!cd) {
                    c->nomem = 1;
                    c->ret = -2;
                    break;
                }
                c->codes = cd;
                c->m_codes = m;
            }
            c->code_off[c->n_rec] = c->code_len;
            hk->encode(b, c->codes + c->code_len, hk->ctx);
            c->code_len += l;
        }
        c->n_rec++;
        if (c->want != WANT_UNKNOWN && c->n_rec > c->want) break;   /* a mismatch: read1 says */
    }
    parser_close(f, c);
    return c;
}

/* ---- the feeder ------------------------------------------------------------------ */

static ssize_t source_read(gpuasm_fastx *fx, char *buf, size_t n, unsigned *errcode)
{
    ssize_t r;
    switch (fx->kind) {
    case SRC_ISAL:
        r = gpuasm_gunzip_read(fx->gz, buf, n);
        if (r < 0) *errcode = gpuasm_gunzip_errcode(fx->gz);
        return r;
    case SRC_BGZF: {
        /* No more than the current block holds, or one byte to load the
         * next: bgzf_read() drops what it copied before a bad block, and
         * the records before it are to be read (and counted) first. */
        const BGZF *bz = fx->bz;
        const size_t in_block = bz->block_length > bz->block_offset
                              ? (size_t)(bz->block_length - bz->block_offset) : 0;
        r = bgzf_read(fx->bz, buf, in_block ? (n < in_block ? n : in_block) : 1);
        /* htslib 1.16's threaded reader may call a bad block the end,
         * keeping its error code (issue #12). */
        if (r < 0 || (r == 0 && fx->bz->errcode)) {
            *errcode = fx->bz->errcode ? fx->bz->errcode : BGZF_ERR_IO;
            return -1;
        }
        return r;
    }
    default:
        r = hread(fx->h, buf, n);
        if (r < 0) *errcode = BGZF_ERR_IO;
        return r;
    }
}

/* A free chunk, emptied; NULL once the reader is closing. */
static chunk_t *take_free(gpuasm_fastx *fx)
{
    pthread_mutex_lock(&fx->lock);
    while (!fx->stop && fx->n_free == 0) pthread_cond_wait(&fx->cv_free, &fx->lock);
    chunk_t *c = fx->stop ? NULL : fx->free_list[--fx->n_free];
    pthread_mutex_unlock(&fx->lock);
    if (c) {
        c->len = 0;
        c->last = 0;
        c->errcode = 0;
        c->want = 0;
    }
    return c;
}

static int grow_buf(chunk_t *c, size_t want)
{
    if (want <= c->cap) return 0;
    char *b = realloc(c->buf, want);
    if (!b) return -1;
    c->buf = b;
    c->cap = want;
    return 0;
}

/* Hand a filled chunk on: 0, or -1 when the reader is closing. */
static int dispatch(gpuasm_fastx *fx, chunk_t *c)
{
    if (fx->pool) return hts_tpool_dispatch(fx->pool, fx->q, parse_chunk, c) == 0 ? 0 : -1;
    pthread_mutex_lock(&fx->lock);
    const int stop = fx->stop;
    if (!stop) {
        fx->ready[(fx->ready_head + fx->n_ready) % fx->n_chunks] = c;
        fx->n_ready++;
        pthread_cond_signal(&fx->cv_ready);
    }
    pthread_mutex_unlock(&fx->lock);
    return stop ? -1 : 0;
}

static void *feeder_main(void *arg)
{
    gpuasm_fastx *fx = arg;
    pthread_setname_np(pthread_self(), "gpuasm-feeder");   /* for top -H and perf */
    chunk_t *cur = take_free(fx);
    size_t fill = fx->chunk_bytes;   /* bytes to gather before a split */
    int final = 0;
    unsigned errcode = 0;
    while (cur) {
        while (!final && cur->len < fill) {
            pthread_mutex_lock(&fx->lock);
            const int stop = fx->stop;
            pthread_mutex_unlock(&fx->lock);
            if (stop) return NULL;
            const ssize_t got = source_read(fx, cur->buf + cur->len, fill - cur->len, &errcode);
            if (got <= 0) final = 1;
            else cur->len += (size_t)got;
        }
        /* bgzf_getline's '\r' at the very end (fastx_chunks.h). */
        if (final && !errcode && fx->compressed && cur->len && cur->buf[cur->len - 1] != '\n')
            cur->buf[cur->len++] = '\n';
        size_t cut;
        int bad;
        /* After a byte-layer error the bytes stop mid-record: split as if
         * more were to come, so that the record cut short is dropped and
         * the error is what the caller meets after the last whole one. */
        const int whole = final && !errcode;
        const uint32_t n = fx->fastq ? split_fastq(cur->buf, cur->len, whole, &cut, &bad)
                                     : split_fasta(cur->buf, cur->len, whole, &cut, &bad);
        if (bad || final) {
            cur->want = bad ? WANT_UNKNOWN : n;
            if (!bad) cur->len = cut;
            cur->last = 1;
            cur->errcode = errcode;
            dispatch(fx, cur);
            return NULL;
        }
        if (n == 0) {
            /* No whole record in view: a longer one; gather twice as much. */
            fill = 2 * (fill > cur->len ? fill : cur->len);
            if (grow_buf(cur, fill + 1) < 0) {
                cur->len = 0;
                cur->want = 0;
                cur->last = 1;
                cur->errcode = GPUASM_FASTX_ERR_NOMEM;
                dispatch(fx, cur);
                return NULL;
            }
            continue;
        }
        chunk_t *next = take_free(fx);
        if (!next) return NULL;
        const size_t tail = cur->len - cut;
        if (grow_buf(next, (tail > fx->chunk_bytes ? tail : fx->chunk_bytes) + 1) < 0) {
            cur->len = cut;
            cur->want = n;
            cur->last = 1;
            cur->errcode = GPUASM_FASTX_ERR_NOMEM;
            dispatch(fx, cur);
            return NULL;
        }
        memcpy(next->buf, cur->buf + cut, tail);
        next->len = tail;
        cur->len = cut;
        cur->want = n;
        if (dispatch(fx, cur) < 0) return NULL;
        cur = next;
        fill = fx->chunk_bytes > tail ? fx->chunk_bytes : tail;
    }
    return NULL;
}

/* ---- the caller's side ----------------------------------------------------------- */

/* The next chunk in input order, parsed; NULL when closing. */
static chunk_t *next_chunk(gpuasm_fastx *fx)
{
    if (fx->pool) {
        hts_tpool_result *res = hts_tpool_next_result_wait(fx->q);
        if (!res) return NULL;
        chunk_t *c = hts_tpool_result_data(res);
        hts_tpool_delete_result(res, 0);
        return c;
    }
    pthread_mutex_lock(&fx->lock);
    while (!fx->stop && fx->n_ready == 0) pthread_cond_wait(&fx->cv_ready, &fx->lock);
    chunk_t *c = NULL;
    if (fx->n_ready > 0) {
        c = fx->ready[fx->ready_head];
        fx->ready_head = (fx->ready_head + 1) % fx->n_chunks;
        fx->n_ready--;
    }
    pthread_mutex_unlock(&fx->lock);
    return c ? parse_chunk(c) : NULL;
}

static void release(gpuasm_fastx *fx, chunk_t *c)
{
    /* A chunk grown for one long record does not stay that large. */
    if (c->cap > 4 * fx->chunk_bytes + 1) {
        char *b = realloc(c->buf, fx->chunk_bytes + 1);
        if (b) {
            c->buf = b;
            c->cap = fx->chunk_bytes + 1;
        }
    }
    pthread_mutex_lock(&fx->lock);
    fx->free_list[fx->n_free++] = c;
    pthread_cond_signal(&fx->cv_free);
    pthread_mutex_unlock(&fx->lock);
}

static int finish(gpuasm_fastx *fx, int ret, int err, unsigned errcode)
{
    fx->ended = 1;
    fx->end_ret = ret;
    fx->end_errno = err;
    fx->errcode = errcode;
    errno = err;
    return ret;
}

int gpuasm_fastx_read1(gpuasm_fastx *fx, bam1_t *dst, unsigned *mark, const uint8_t **codes)
{
    *mark = 0;
    *codes = NULL;
    if (fx->ended) {
        errno = fx->end_errno;
        return fx->end_ret;
    }
    for (;;) {
        if (!fx->cur) {
            if (!(fx->cur = next_chunk(fx))) return finish(fx, -2, EIO, GPUASM_FASTX_ERR_NOMEM);
            if (fx->cur->last && fx->feeder_running) {
                /* Nothing more from the feeder: the input's handles are the
                 * caller's again (its end-of-file checks). */
                pthread_join(fx->feeder, NULL);
                fx->feeder_running = 0;
            }
        }
        chunk_t *c = fx->cur;
        if (c->next < c->n_rec && (c->want == WANT_UNKNOWN || c->next < c->want)) {
            const uint32_t i = c->next++;
            bam1_t *r = c->rec[i], t = *dst;
            *dst = *r;
            *r = t;
            *mark = c->mark[i];
            if (fx->hooks.encode) *codes = c->codes + c->code_off[i];
            return 0;
        }
        if (c->nomem) return finish(fx, -2, ENOMEM, GPUASM_FASTX_ERR_NOMEM);
        if (c->want != WANT_UNKNOWN && c->n_rec == c->want && c->ret == -1) {
            /* The chunk's records, all of them, and its end. */
            const int last = c->last;
            const unsigned ec = c->errcode;
            release(fx, c);
            fx->cur = NULL;
            if (!last) continue;
            if (ec) return finish(fx, -2, ec & GPUASM_FASTX_ERR_NOMEM ? ENOMEM : EIO, ec);
            return finish(fx, -1, 0, 0);
        }
        /* htslib stopped elsewhere than the split said.  Before the end it
         * refused a record: -2, or -1 with errno for one bam_set1 would
         * not store -- its answer, as reading the file alone gives it.
         * Anything else (more records than found, the end without errno
         * before the split's count or after a refused record) is a
         * mismatch, never passed off as the end. */
        const int refused = c->ret < -1 || (c->ret == -1 && c->err != 0);
        if (refused && (c->want == WANT_UNKNOWN || c->n_rec < c->want))
            return finish(fx, c->ret, c->err, 0);
        return finish(fx, -2, EIO, GPUASM_FASTX_ERR_SPLIT);
    }
}

unsigned gpuasm_fastx_errcode(const gpuasm_fastx *fx) { return fx->errcode; }

const char *gpuasm_fastx_source(const gpuasm_fastx *fx) { return fx->source; }

/* ---- open and close --------------------------------------------------------------- */

void gpuasm_fastx_close(gpuasm_fastx *fx)
{
    if (!fx) return;
    pthread_mutex_lock(&fx->lock);
    fx->stop = 1;
    pthread_cond_broadcast(&fx->cv_free);
    pthread_cond_broadcast(&fx->cv_ready);
    pthread_mutex_unlock(&fx->lock);
    /* The feeder waits for nothing but a free chunk (the pool's queue
     * holds every chunk: dispatch never blocks) or the input's bytes. */
    if (fx->feeder_running) pthread_join(fx->feeder, NULL);
    /* Parse jobs running finish; queued ones and results are dropped
     * (their chunks are freed below, with the rest). */
    if (fx->q) hts_tpool_process_destroy(fx->q);
    for (int i = 0; fx->all && i < fx->n_chunks; i++) {
        chunk_t *c = &fx->all[i];
        for (size_t k = 0; k < c->m_rec; k++) bam_destroy1(c->rec[k]);
        free(c->rec);
        free(c->mark);
        free(c->code_off);
        free(c->codes);
        free(c->buf);
    }
    gpuasm_gunzip_close(fx->gz);
    free(fx->all);
    free(fx->free_list);
    free(fx->ready);
    pthread_cond_destroy(&fx->cv_free);
    pthread_cond_destroy(&fx->cv_ready);
    pthread_mutex_destroy(&fx->lock);
    free(fx);
}

int gpuasm_fastx_open(samFile *in, int fastq, hts_tpool *pool, size_t chunk_bytes,
                      int n_chunks, const gpuasm_fastx_hooks *hooks, gpuasm_fastx **out)
{
    *out = NULL;
    gpuasm_fastx *fx = calloc(1, sizeof(*fx));
    if (!fx) return -1;
    pthread_mutex_init(&fx->lock, NULL);
    pthread_cond_init(&fx->cv_free, NULL);
    pthread_cond_init(&fx->cv_ready, NULL);
    fx->in = in;
    if (hooks) fx->hooks = *hooks;
    fx->fastq = fastq;
    fx->pool = pool;
    fx->chunk_bytes = chunk_bytes ? chunk_bytes : CHUNK_BYTES_DEFAULT;
    fx->n_chunks = n_chunks < 2 ? 2 : n_chunks;
    if (in->is_bgzf) {
        fx->bz = in->fp.bgzf;
        fx->compressed = 1;
        /* A plain gzip file (its first member not BGZF): ISA-L reads the
         * bytes under htslib's BGZF handle, which has only peeked at them. */
        if (fx->bz->is_gzip && (fx->gz = gpuasm_gunzip_open(fx->bz->fp))) {
            fx->kind = SRC_ISAL;
            fx->h = fx->bz->fp;
            fx->source = "gzip (ISA-L)";
        } else {
            fx->kind = SRC_BGZF;
            fx->source = fx->bz->is_gzip ? "gzip (zlib)" : "BGZF";
        }
    } else {
        fx->kind = SRC_PLAIN;
        fx->h = in->fp.hfile;
        fx->source = "plain";
    }
    /* htslib loads its hFILE plugins (hfile_libcurl and its libraries:
     * about 8 MiB resident and 10-20 ms here) at the first hopen() of any
     * scheme, "mem:" included.  Once, here on the caller's thread rather
     * than on a parse thread mid-run: the cost belongs to the open, not
     * to the reads (gpuasm-scan measures --max-memory's peak from after
     * the open), and a template htslib would not detect fails the open. */
    /* Quietly: htslib warns of every plugin folder it cannot scan
     * (/usr/local/lib/htslib...) at the levels --verbosity 4 sets. */
    const enum htsLogLevel level = hts_get_log_level();
    if (level > HTS_LOG_ERROR) hts_set_log_level(HTS_LOG_ERROR);
    samFile *probe = template_open(fastq);
    hts_set_log_level(level);
    if (!probe) goto fail;
    hts_close(probe);
    if (!(fx->all = calloc((size_t)fx->n_chunks, sizeof(*fx->all))) ||
        !(fx->free_list = calloc((size_t)fx->n_chunks, sizeof(*fx->free_list))) ||
        !(fx->ready = calloc((size_t)fx->n_chunks, sizeof(*fx->ready))))
        goto fail;
    for (int i = 0; fx->all && i < fx->n_chunks; i++) {
        chunk_t *c = &fx->all[i];
        c->fx = fx;
        if (grow_buf(c, fx->chunk_bytes + 1) < 0) goto fail;
        fx->free_list[fx->n_free++] = c;
    }
    /* Queue as deep as there are chunks, so that dispatch never waits. */
    if (pool && !(fx->q = hts_tpool_process_init(pool, fx->n_chunks, 0))) goto fail;
    int e = pthread_create(&fx->feeder, NULL, feeder_main, fx);
    if (e) {
        errno = e;
        goto fail;
    }
    fx->feeder_running = 1;
    *out = fx;
    return 0;
fail:;
    const int save = errno ? errno : ENOMEM;
    gpuasm_fastx_close(fx);
    errno = save;
    return -1;
}
