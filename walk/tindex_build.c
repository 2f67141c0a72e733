/* SPDX-License-Identifier: MIT */
/* tindex_build.c -- the build of the targets' window index of the
 * pigeonhole filter (see prefilter.h; its look-ups are tindex.c). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "walk/prefilter_int.h"

/* ---- the targets' window index ------------------------------------------- */

void gpuasm_tindex_free(gpuasm_tindex *x)
{
    free(x->start);
    free(x->sub);
    free(x->pos);
    free(x->ext4);
    free(x->ext8);
    free(x->amb);
    free(x->tof);
    memset(x, 0, sizeof *x);
}

uint64_t gpuasm_tindex_bytes(const gpuasm_tindex *x)
{
    const uint64_t rows = (uint64_t)N_KEYS + 1, subs = (uint64_t)N_KEYS * 4;
    return (rows + subs) * sizeof(uint32_t) + x->n_pos * (sizeof *x->pos + sizeof *x->ext4 + sizeof *x->ext8) +
           (x->total ? ((x->total >> TOF_SHIFT) + 2) * sizeof *x->tof : 0) + x->n_amb * 2 * sizeof(uint64_t);
}

/* x->tof for targets (total bases > 0).  0 or -1 (out of memory). */
static int tix_tof(gpuasm_tindex *x, const gpuasm_seqset *targets, uint64_t total)
{
    const uint64_t nb = (total >> TOF_SHIFT) + 2;
    if (!(x->tof = malloc(nb * sizeof *x->tof))) return -1;
    uint32_t t = 0;
    for (uint64_t b = 0; b < nb; b++) {
        const uint64_t g = b << TOF_SHIFT < total ? b << TOF_SHIFT : total - 1;
        while (targets->off[t + 1] <= g) t++;
        x->tof[b] = t;
    }
    return 0;
}

/* The index is built in three passes, each split over threads (issue #16:
 * on one thread the build of 20 Mb took ~2 s, a fixed cost in every run):
 *   1. count: each thread counts the windows per key whose first base lies
 *      in its share [a, b) of the code buffer;
 *   2. place, by the key's high byte: the rows of keys h 256 .. h 256 + 255
 *      (a "bucket") hold thread 0's windows of that bucket, then thread
 *      1's, ..., each thread writing its own slots in text order: the
 *      window's position and (low key byte, extension key);
 *   3. per bucket, on threads split by windows: the bucket's windows
 *      copied aside and placed into their rows by the low key byte (in
 *      text order), each row then sorted by (extension key, position).
 * Placing by the whole key at once wrote to 65,536 rows in turn, a cache
 * miss per window: 85% of a 200 Mb build (issue #28, perf); 256 streams
 * per pass stay in cache.  (extension key, position) is unique per
 * window, so a row's final order does not depend on the threads: the
 * index is the same, byte for byte, for any number of threads
 * (tests/c/test_lanes compares them with a naive index).  The runs of
 * ambiguous codes are found on the caller's thread (one pass over the
 * bytes). */

#define HB_SHIFT (2 * GPUASM_QF_Q - 8)   /* a key's high byte: key >> HB_SHIFT */
#define N_HB 256u
_Static_assert(N_KEYS == N_HB * 256u, "the build places by two key bytes");

typedef struct ext_halves ext_halves;

/* A thread's share of the build. */
typedef struct tix_job {
    const gpuasm_seqset *targets;
    gpuasm_tindex *x;
    /* passes 2-3: each window's low key byte and ext5 (EK_PACK), in place
     * order, in the arrays that pass 3 rewrites as x->ext4 and x->ext8 */
    uint16_t *ea, *eb;
    const ext_halves *halves; /* pass 3: ext4 and ext8 from ext5's halves */
    uint64_t a, b;          /* passes 1-2: windows starting in [a, b) */
    uint32_t *cnt;          /* [N_KEYS] pass 1: windows per key */
    uint32_t hcur[N_HB];    /* pass 2: next slot per high byte */
    uint32_t h0, h1;        /* pass 3: buckets [h0, h1) */
    uint64_t n_pos;         /* pass 1: windows counted */
    int pass, failed;
} tix_job;

/* A window's extension key as one base-5 number, ext5 (19 bits): its
 * GPUASM_QF_EXT codes (ext_key's, 0..4 each), the first the most
 * significant, so ext5 order is ext_key's order.  tix_windows rolls it
 * along the buffer (one code read a position instead of ext_key's eight),
 * and pass 3 splits it into its top and bottom 4 codes, each a number
 * below 5^4 = 625, for small tables instead of divisions. */
#define N_EXT5 390625u   /* 5^8 */
#define N_EXT5_HALF 625u /* 5^4 */
/* While the index is built, a window's low key byte and ext5 are packed
 * in two 16-bit words: ea = low byte << 8 | ext5 >> EB_BITS (ext5 < 2^19,
 * so its top 8 bits), eb = ext5's low EB_BITS bits. */
#define EB_BITS 11
#define EB_MASK ((1u << EB_BITS) - 1)
_Static_assert(N_EXT5 <= 1u << (8 + EB_BITS), "ext5's top bits fit beside the low key byte");
_Static_assert(GPUASM_QF_EXT == 8, "ext5 and ext8 hold 8 codes");

/* The code of buffer position i in ext_key's terms: 0-3 a single base, 4
 * none (ambiguous, or past the buffer's end). */
static inline uint32_t ext_code(const uint8_t *s, uint64_t total, uint64_t i)
{
    const int b = i < total ? gpuasm_base2[s[i] & 15] : -1;
    return b < 0 ? 4u : (uint32_t)b;
}

/* For each half h (0 .. 624) of an ext5 value, top code first:
 * nib[h]: its 4 codes as ext_key's nibbles (ext4 is the top half's);
 * two[h]: its 4 codes as 2-bit codes, a 4 as 0 (ext8's half, prefilter.h). */
struct ext_halves {
    uint16_t nib[N_EXT5_HALF];
    uint8_t two[N_EXT5_HALF];
};

static void ext_halves_init(ext_halves *t)
{
    for (uint32_t h = 0; h < N_EXT5_HALF; h++) {
        uint32_t r = h, nib = 0, two = 0;
        for (int i = 0; i < 4; i++) {   /* the lowest digit is the last code */
            const uint32_t d = r % 5;
            r /= 5;
            nib |= d << (4 * i);
            two |= (d < 4 ? d : 0) << (2 * i);
        }
        t->nib[h] = (uint16_t)nib;
        t->two[h] = (uint8_t)two;
    }
}

/* v[0 .. n) of (ext5 << 32 | position), positions ascending, sorted by
 * ext5 keeping that order: so by the whole value.  LSD radix over ext5's
 * 19 bits in two passes of 10 and 9 (rows of thousands of windows at
 * 200 Mb, where a quicksort per row was most of the build after the
 * placing), insertion sort for short rows.  tmp: n values. */
static void sort_row(uint64_t *v, uint64_t *tmp, uint32_t n)
{
    if (n <= 48) {
        for (uint32_t i = 1; i < n; i++) {
            const uint64_t x = v[i];
            uint32_t j = i;
            for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
            v[j] = x;
        }
        return;
    }
    uint32_t c[1024];
    for (int pass = 0; pass < 2; pass++) {
        const int sh = 32 + 10 * pass;
        const uint32_t nb = pass ? 512 : 1024;
        uint64_t *from = pass ? tmp : v, *to = pass ? v : tmp;
        memset(c, 0, nb * sizeof *c);
        for (uint32_t i = 0; i < n; i++) c[(from[i] >> sh) & (nb - 1)]++;
        uint32_t at = 0;
        for (uint32_t b = 0; b < nb; b++) {
            const uint32_t x = c[b];
            c[b] = at;
            at += x;
        }
        for (uint32_t i = 0; i < n; i++) to[c[(from[i] >> sh) & (nb - 1)]++] = from[i];
    }
}

/* Passes 1 and 2 over the windows of Q single bases inside one target
 * whose first base lies in [a, b). */
static void tix_windows(tix_job *j)
{
    const gpuasm_seqset *targets = j->targets;
    const uint64_t total = targets->off[targets->n];
    const uint8_t *s = targets->code;
    if (j->a >= j->b) return;
    uint32_t t = target_of(targets, j->a);
    uint32_t key = 0;
    unsigned run = 0;   /* single bases in a row ending at i, inside target t */
    const uint64_t end = j->b + GPUASM_QF_Q - 1 < total ? j->b + GPUASM_QF_Q - 1 : total;
    uint32_t *cnt = j->cnt, *hcur = j->hcur, *pos = j->x->pos;
    uint16_t *ea = j->ea, *eb = j->eb;
    uint64_t n = 0;
    /* ext5 of the window ending at i holds the codes of i + 1 .. i + EXT:
     * set for i = a - 1 here, rolled by one code per step below. */
    uint32_t ext5 = 0;
    if (j->pass)
        for (uint64_t d = j->a; d < j->a + GPUASM_QF_EXT; d++) ext5 = ext5 * 5 + ext_code(s, total, d);
    for (uint64_t i = j->a; i < end; i++) {
        if (j->pass) ext5 = (ext5 * 5 + ext_code(s, total, i + GPUASM_QF_EXT)) % N_EXT5;
        while (i >= targets->off[t + 1]) {   /* windows never span two targets */
            t++;
            run = 0;
        }
        const int b = gpuasm_base2[s[i] & 15];
        if (b < 0) {
            run = 0;
            continue;
        }
        key = ((key << 2) | (uint32_t)b) & KEY_MASK;
        if (++run < GPUASM_QF_Q) continue;
        const uint64_t w = i + 1 - GPUASM_QF_Q;   /* >= a: the run began at a or later */
        if (!j->pass) {
            cnt[key]++;
            n++;
        } else {
            const uint32_t at = hcur[key >> HB_SHIFT]++;
            ea[at] = (uint16_t)((key & 255u) << 8 | ext5 >> EB_BITS);
            eb[at] = (uint16_t)(ext5 & EB_MASK);
            pos[at] = (uint32_t)w;
        }
    }
    j->n_pos = n;
}

/* Pass 3: buckets [h0, h1) into their rows, each row sorted by
 * (extension key, position); ext4 and sub from the sorted rows. */
static void tix_sort(tix_job *j)
{
    gpuasm_tindex *x = j->x;
    uint32_t widest = 0, widest_row = 0;
    for (uint32_t h = j->h0; h < j->h1; h++) {
        const uint32_t nb = x->start[(h + 1) << 8] - x->start[h << 8];
        if (nb > widest) widest = nb;
    }
    for (uint32_t k = j->h0 << 8; k < j->h1 << 8; k++)
        if (x->start[k + 1] - x->start[k] > widest_row) widest_row = x->start[k + 1] - x->start[k];
    uint32_t *bpos = malloc((widest ? widest : 1) * sizeof(uint32_t));
    uint16_t *bea = malloc((widest ? widest : 1) * 2 * sizeof(uint16_t)), *beb = bea + (widest ? widest : 1);
    uint64_t *tmp = malloc((widest_row ? widest_row : 1) * 2 * sizeof(uint64_t));
    if (!bpos || !bea || !tmp) {
        free(bpos);
        free(bea);
        free(tmp);
        j->failed = 1;
        return;
    }
    for (uint32_t h = j->h0; h < j->h1; h++) {
        const uint32_t k0 = h << 8, lo = x->start[k0], nb = x->start[(h + 1) << 8] - lo;
        memcpy(bpos, x->pos + lo, nb * sizeof(uint32_t));
        memcpy(bea, j->ea + lo, nb * sizeof(uint16_t));
        memcpy(beb, j->eb + lo, nb * sizeof(uint16_t));
        uint32_t cur[256];
        for (uint32_t r = 0; r < 256; r++) cur[r] = x->start[k0 + r];
        for (uint32_t i = 0; i < nb; i++) {   /* by the low key byte, text order kept */
            const uint32_t at = cur[bea[i] >> 8]++;
            x->pos[at] = bpos[i];
            j->ea[at] = bea[i] & 255u;
            j->eb[at] = beb[i];
        }
        for (uint32_t k = k0; k < k0 + 256; k++) {
            const uint32_t rlo = x->start[k], n = x->start[k + 1] - rlo;
            for (uint32_t i = 0; i < n; i++)
                tmp[i] = (uint64_t)((uint32_t)j->ea[rlo + i] << EB_BITS | j->eb[rlo + i]) << 32 | x->pos[rlo + i];
            sort_row(tmp, tmp + widest_row, n);
            /* the row's ea and eb entries, read into tmp, become its ext4
             * and ext8 (the same arrays) */
            const ext_halves *hv = j->halves;
            for (uint32_t i = 0; i < n; i++) {
                const uint32_t v = (uint32_t)(tmp[i] >> 32), top = v / N_EXT5_HALF, bot = v % N_EXT5_HALF;
                x->pos[rlo + i] = (uint32_t)tmp[i];
                x->ext4[rlo + i] = hv->nib[top];
                x->ext8[rlo + i] = (uint16_t)(hv->two[top] << 8 | hv->two[bot]);
            }
            /* sub: where the extension's first code reaches 1, 2, 3, 4 */
            uint32_t i = 0;
            for (uint32_t v = 1; v <= 4; v++) {
                while (i < n && (uint32_t)(x->ext4[rlo + i] >> 12) < v) i++;
                x->sub[4 * (size_t)k + v - 1] = rlo + i;
            }
        }
    }
    free(bpos);
    free(bea);
    free(tmp);
}

static void *tix_run(void *arg)
{
    tix_job *j = arg;
    if (j->pass < 2) tix_windows(j); else tix_sort(j);
    return NULL;
}

/* Run jobs[0 .. n) with their pass set to pass: jobs[0] on the caller's
 * thread, the others on threads of their own (a job whose thread cannot be
 * started runs here: the result is the same). */
static void tix_pass(tix_job *jobs, int n, int pass)
{
    pthread_t tid[GPUASM_TINDEX_MAX_THREADS];
    int started[GPUASM_TINDEX_MAX_THREADS] = { 0 };
    for (int i = 0; i < n; i++) jobs[i].pass = pass;
    for (int i = 1; i < n; i++) started[i] = pthread_create(&tid[i], NULL, tix_run, &jobs[i]) == 0;
    tix_run(&jobs[0]);
    for (int i = 1; i < n; i++) {
        if (started[i]) pthread_join(tid[i], NULL);
        else tix_run(&jobs[i]);
    }
}

/* The runs of ambiguous codes (not single bases) of every target, in
 * buffer order; a run never spans two targets.  0 or -1 (out of memory). */
static int tix_amb(gpuasm_tindex *x, const gpuasm_seqset *targets)
{
    size_t amb_cap = 0;
    const uint8_t *s = targets->code;
    for (uint32_t t = 0; t < targets->n; t++) {
        for (uint64_t i = targets->off[t]; i < targets->off[t + 1]; i++) {
            if (gpuasm_base2[s[i] & 15] >= 0) continue;
            /* ambiguous: extend the last run or start one */
            if (x->n_amb && x->amb[2 * x->n_amb - 1] + 1 == i && i > targets->off[t]) {
                x->amb[2 * x->n_amb - 1] = i;
                continue;
            }
            if (2 * x->n_amb + 2 > amb_cap) {
                size_t c = amb_cap ? 2 * amb_cap : 64;
                uint64_t *q = realloc(x->amb, c * sizeof(uint64_t));
                if (!q) return -1;
                x->amb = q;
                amb_cap = c;
            }
            x->amb[2 * x->n_amb] = x->amb[2 * x->n_amb + 1] = i;
            x->n_amb++;
        }
    }
    return 0;
}

int gpuasm_tindex_build(gpuasm_tindex *x, const gpuasm_seqset *targets, uint64_t max_pos, int n_threads)
{
    memset(x, 0, sizeof *x);
    ext_halves *e8 = NULL;   /* pass 3: ext5's halves' tables */
    tix_job *jobs = NULL;
    const uint64_t total = targets->off[targets->n];
    if (total >= UINT32_MAX) return 1;
    /* Threads: at most one per GPUASM_TINDEX_MIN_SHARE bases (a small
     * target set is not worth a thread's start). */
    if (n_threads > GPUASM_TINDEX_MAX_THREADS) n_threads = GPUASM_TINDEX_MAX_THREADS;
    if ((uint64_t)n_threads > total / GPUASM_TINDEX_MIN_SHARE) n_threads = (int)(total / GPUASM_TINDEX_MIN_SHARE);
    if (n_threads < 1) n_threads = 1;
    if (!(x->start = calloc((size_t)N_KEYS + 1, sizeof(uint32_t)))) goto oom;
    if (!(jobs = calloc((size_t)n_threads, sizeof *jobs))) goto oom;
    for (int i = 0; i < n_threads; i++) {
        jobs[i].targets = targets;
        jobs[i].x = x;
        jobs[i].a = total * (uint64_t)i / (uint64_t)n_threads;
        jobs[i].b = total * (uint64_t)(i + 1) / (uint64_t)n_threads;
        if (!(jobs[i].cnt = calloc((size_t)N_KEYS, sizeof(uint32_t)))) goto oom;
    }
    if (tix_amb(x, targets) < 0) goto oom;
    if (total && tix_tof(x, targets, total) < 0) goto oom;
    /* Pass 1: count windows per key. */
    tix_pass(jobs, n_threads, 0);
    uint64_t n_pos = 0;
    for (int i = 0; i < n_threads; i++) n_pos += jobs[i].n_pos;
    if (n_pos > max_pos) {
        for (int i = 0; i < n_threads; i++) free(jobs[i].cnt);
        free(jobs);
        gpuasm_tindex_free(x);
        return 1;
    }
    /* Rows, and each thread's first slot in each bucket (high byte). */
    uint32_t at = 0;
    for (uint32_t k = 0; k < N_KEYS; k++) {
        x->start[k] = at;
        for (int i = 0; i < n_threads; i++) at += jobs[i].cnt[k];
    }
    x->start[N_KEYS] = at;
    at = 0;
    for (uint32_t h = 0; h < N_HB; h++)
        for (int i = 0; i < n_threads; i++) {
            jobs[i].hcur[h] = at;
            for (uint32_t k = h << 8; k < (h + 1) << 8; k++) at += jobs[i].cnt[k];
        }
    if (!(x->pos = malloc((n_pos ? n_pos : 1) * sizeof(uint32_t)))) goto oom;
    if (!(x->sub = malloc((size_t)N_KEYS * 4 * sizeof(uint32_t)))) goto oom;
    if (!(e8 = malloc(sizeof *e8))) goto oom;
    ext_halves_init(e8);
    /* passes 2-3: each window's (low key byte, ext5), 4 bytes a window
     * (tix_job's ea and eb), which pass 3 rewrites row by row as ext4
     * and ext8: no scratch array of its own (issue #28: 800 MB less
     * memory touched at 200 Mb) */
    if (!(x->ext4 = malloc((n_pos ? n_pos : 1) * sizeof(uint16_t)))) goto oom;
    if (!(x->ext8 = malloc((n_pos ? n_pos : 1) * sizeof(uint16_t)))) goto oom;
    /* Pass 2: place the windows by bucket. */
    for (int i = 0; i < n_threads; i++) {
        jobs[i].ea = x->ext4;
        jobs[i].eb = x->ext8;
    }
    tix_pass(jobs, n_threads, 1);
    x->n_pos = n_pos;
    x->total = total;
    x->nb_min_row = GPUASM_TINDEX_NB_MIN_ROW;
    /* Pass 3: each bucket into its rows, each row sorted by the next
     * GPUASM_QF_EXT bases (ext_key), so that a piece longer than Q is
     * looked up by its first Q + E bases: a binary search inside the row
     * instead of a walk over every window.  The buckets are split into
     * runs of about n_pos / n_threads windows. */
    uint32_t h = 0;
    for (int i = 0; i < n_threads; i++) {
        const uint64_t upto = n_pos * (uint64_t)(i + 1) / (uint64_t)n_threads;
        jobs[i].h0 = h;
        while (h < N_HB && (i == n_threads - 1 || x->start[(h + 1) << 8] <= upto)) h++;
        jobs[i].h1 = h;
        jobs[i].halves = e8;
    }
    tix_pass(jobs, n_threads, 2);
    int failed = 0;
    for (int i = 0; i < n_threads; i++) {
        failed |= jobs[i].failed;
        free(jobs[i].cnt);
    }
    free(jobs);
    jobs = NULL;
    free(e8);
    if (failed) {
        gpuasm_tindex_free(x);
        return -1;
    }
    return 0;
oom:
    for (int i = 0; jobs && i < n_threads; i++) free(jobs[i].cnt);
    free(jobs);
    free(e8);
    gpuasm_tindex_free(x);
    return -1;
}
