/* SPDX-License-Identifier: MIT */
/* tindex.c -- the targets' window index of the pigeonhole filter (see
 * prefilter.h; its build is tindex_build.c): a read's pieces looked up in
 * the targets, and the end ranges that can hold hits (the two-piece
 * pairing and the neighbour rule).  The ends pass's marks of reads as
 * patterns are tindex_ends.c. */
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "walk/prefilter_int.h"
#include "search/cpu_simd.h"

static inline uint64_t u64_key(const uint64_t *x) { return *x; }
DEFINE_SORT(sort_u64, uint64_t, u64_key)

/* The first row entry in [lo, hi) whose extension key is >= key (the row
 * is sorted by it). */
static uint32_t ext_bound(const gpuasm_tindex *x, const uint8_t *code, uint32_t lo, uint32_t hi,
                          uint64_t key)
{
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (ext_key(code, x->total, x->pos[mid]) < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* The first row entry in [lo, hi) whose first 4 extension codes (ext4)
 * are >= v (the row is sorted by the whole extension key, so by them). */
static uint32_t ext4_bound(const gpuasm_tindex *x, uint32_t lo, uint32_t hi, uint32_t v)
{
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (x->ext4[mid] < v) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* Look piece P[a .. b) up: 0 when it has no window of Q single bases (N
 * in every window: such a piece is never intact, prefilter.h), else 1 with
 * *r filled. */
int gpuasm_tix_piece_rows(const gpuasm_tindex *x, const gpuasm_seqset *targets, const uint8_t *p, uint64_t a,
                      uint64_t b, piece_rows_t *r)
{
    int64_t key = -1;
    uint64_t w = a;
    for (; w + GPUASM_QF_Q <= b && key < 0; w++) key = window_key(p + w);
    if (key < 0) return 0;
    w--;                     /* the window found starts at w */
    /* The piece's single bases after the window (at most EXT): only
     * the windows of the row whose extension starts with them. */
    uint32_t ext = 0, e = 0;
    for (; e < GPUASM_QF_EXT && w + GPUASM_QF_Q + e < b; e++) {
        const int c = gpuasm_base2[p[w + GPUASM_QF_Q + e] & 15];
        if (c < 0) break;
        ext = ext << 4 | (uint32_t)c;
    }
    const uint32_t shift = 4 * (GPUASM_QF_EXT - e);
    const uint64_t elo = (uint64_t)ext << shift, ehi = ((uint64_t)ext + 1) << shift;
    uint32_t qa = x->start[key], qb = x->start[key + 1];
    if (e) {   /* the windows whose extension starts with the piece's next base (sub) */
        const uint32_t c0 = ext >> (4 * (e - 1));
        qa = c0 ? x->sub[4 * (size_t)key + c0 - 1] : qa;
        qb = x->sub[4 * (size_t)key + c0];
    }
    if (e > 1) {   /* and with the rest: binary searches */
        /* first by the first 4 extension codes (ext4, exact when
         * e <= 4: elo and ehi then end in 16 zero bits), then by the
         * rest on the few windows left (ext_bound reads the bases) */
        qa = ext4_bound(x, qa, qb, (uint32_t)(elo >> 16));
        qb = ext4_bound(x, qa, qb, (uint32_t)((ehi - 1) >> 16) + 1);
        if (e > 4) {
            qa = ext_bound(x, targets->code, qa, qb, elo);
            qb = ext_bound(x, targets->code, qa, qb, ehi);
        }
    }
    r->qa = qa;
    r->qb = qb;
    r->w = w;
    /* the window at the piece's start and the extension to its end */
    r->whole = w == a && w + GPUASM_QF_Q + e == b;
    return 1;
}

/* Does the whole piece P[a .. b) occur (nt16 rule) where the index row
 * entry at buffer position g (in target t) puts its window, inside t?  A
 * cheap check that drops most chance window hits. */
int gpuasm_tix_piece_there(const gpuasm_seqset *targets, uint32_t t, uint64_t g, const uint8_t *p, uint64_t a,
                       uint64_t b, const piece_rows_t *r)
{
    if (g - targets->off[t] < r->w - a || g + (b - r->w) > targets->off[t + 1]) return 0;
    if (r->whole) return 1;
    const uint8_t *tp = targets->code + g - (r->w - a);
    uint64_t y = a;
    while (y < b && (p[y] & tp[y - a])) y++;
    return y == b;
}

/* Ranges by (target, lo): lo < 2^32 (a target's length; total < 2^32). */
static inline uint64_t range_key(const gpuasm_end_range *r) { return (uint64_t)r->target << 32 | r->lo; }
DEFINE_SORT(sort_ranges, gpuasm_end_range, range_key)

static int push_range(gpuasm_end_range **out, size_t *cap, size_t n, uint32_t t, int64_t lo, int64_t hi,
                      uint64_t len)
{
    if (hi < 0 || lo >= (int64_t)len) return 0;
    if (n == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        gpuasm_end_range *q = realloc(*out, c * sizeof *q);
        if (!q) return -1;
        *out = q;
        *cap = c;
    }
    (*out)[n].target = t;
    (*out)[n].lo = lo < 0 ? 0 : (uint64_t)lo;
    (*out)[n].hi = hi >= (int64_t)len ? len - 1 : (uint64_t)hi;
    return 1;
}

/* pair_keep() for hits of one "target" (the whole buffer: the first
 * pairing of gpuasm_tindex_ranges, thousands of hits a read strand), or
 * (tshift > 0) of the targets in the bits from tshift up (pair_keep's
 * dense buckets): sorted by c's buckets (below) with an LSD radix sort
 * (buf holds the n hits and room for n more), then each hit kept when a
 * hit of another piece (and the same target) in its bucket or the two
 * beside it lies within slack: a chance hit costs the one or two hits of
 * those buckets.  The hashed counters of pair_keep were a memset of 512
 * KiB and a cache miss per hit at this size: a third of a read's time
 * against 200 Mb.  The kept hits, in buf[0 .. returned). */
size_t gpuasm_tix_pair_keep_sorted(uint64_t *const buf, size_t n, int64_t slack, int pbits, int kbits, int tshift)
{
    /* Only the buckets of 2^wb > slack places are sorted (a partner lies
     * in the hit's bucket or one beside it), by 8 bits a pass: 256 write
     * streams stay in L1, where 2,048 did not (perf: the scatter's
     * stores were half of this function). */
    const int wb = slack ? 64 - __builtin_clzll((uint64_t)slack) : 0;
    uint64_t *h = buf, *tmp = buf + n;
    uint32_t cnt[256];
    for (int sh = pbits + wb; sh < kbits; sh += 8) {
        memset(cnt, 0, sizeof cnt);
        for (size_t y = 0; y < n; y++) cnt[h[y] >> sh & 255]++;
        uint32_t at = 0;
        for (int b = 0; b < 256; b++) {
            const uint32_t c = cnt[b];
            cnt[b] = at;
            at += c;
        }
        for (size_t y = 0; y < n; y++) tmp[cnt[h[y] >> sh & 255]++] = h[y];
        uint64_t *sw = h;
        h = tmp;
        tmp = sw;
    }
    const uint64_t pmask = ((uint64_t)1 << pbits) - 1;
    const int bs = pbits + wb;   /* a hit's bucket: v >> bs */
    size_t u = 0;
    for (size_t y = 0; y < n; y++) {
        const uint64_t c = h[y] >> pbits, pc = h[y] & pmask, bk = h[y] >> bs;
        int paired = 0;
        /* the hits of buckets bk - 1 .. bk + 1 around y (sorted by bucket) */
        for (size_t z = y + 1; z < n && (h[z] >> bs) <= bk + 1 && !paired; z++) {
            const uint64_t c2 = h[z] >> pbits;
            paired = (c2 > c ? c2 - c : c - c2) <= (uint64_t)slack && (h[z] & pmask) != pc &&
                     (!tshift || h[z] >> tshift == h[y] >> tshift);
        }
        for (size_t z = y; z-- > 0 && !paired && (h[z] >> bs) + 1 >= bk;) {
            const uint64_t c2 = h[z] >> pbits;
            paired = (c2 > c ? c2 - c : c - c2) <= (uint64_t)slack && (h[z] & pmask) != pc &&
                     (!tshift || h[z] >> tshift == h[y] >> tshift);
        }
        if (paired) tmp[u++] = h[y];   /* tmp is the other half: never h */
    }
    memmove(buf, tmp, u * sizeof(uint64_t));
    return u;
}

/* The hits of one hashed bucket past which pair_keep() sorts instead. */
#define PAIR_DENSE 64

/* The two-piece rule (prefilter.h, "Two pieces") on the n hits packed as
 * (target, c, piece) in *out's memory (gpuasm_tindex_ranges): the hits
 * paired with a hit of another piece of the same target whose c is within
 * slack, moved to the front of that memory (in no order).  Their number,
 * or -1 when out of memory. */

static int64_t pair_keep(gpuasm_end_range **out, size_t *cap, size_t n, int64_t slack, int pbits, int cbits)
{
    /* Keep the hits with a hit of another piece in the same target
     * whose end is within slack of theirs (two intact pieces of one
     * alignment are: prefilter.h).  The partners are found in a hash table of the hits
     * by (target, c / W), W = 2^wb > slack, after them in out's
     * memory (open addressing, at most half full): a hit's partners
     * lie in its bucket or the two beside it; before it, counters of
     * hits per hashed bucket leave out the hits alone in theirs.
     * O(hits), where sorting them was half of the planning's time,
     * and the table's probes still another half.  The kept ones (few) are
     * moved to the front. */
    const int wb = slack ? 64 - __builtin_clzll((uint64_t)slack) : 0;
    int tb = 64 - __builtin_clzll((uint64_t)n);   /* 2^tb > n */
    tb++;
    const size_t tsize = (size_t)1 << tb, tmask = tsize - 1;
    /* counts: 2^cb > 32 n one-byte counters of hits per hashed bucket */
    const int cb = tb + 4;
    const size_t csize = (size_t)1 << cb;
    if (gpuasm_grow((void **)out, cap, ((n + tsize) * sizeof(uint64_t) + csize) / sizeof **out + 1,
                    sizeof **out) < 0)
        return -1;
    uint64_t *h = (uint64_t *)*out, *tab = h + n;
    uint8_t *cnt = (uint8_t *)(tab + tsize);
    const uint64_t pmask = ((uint64_t)1 << pbits) - 1, cmask = ((uint64_t)1 << cbits) - 1;
    const uint64_t used = (uint64_t)1 << 63;
#define PAIR_HASH(t, bk) ((((uint64_t)(t) << cbits | (bk)) * 0x9E3779B97F4A7C15ull))
#define PAIR_SLOT(t, bk) ((size_t)(PAIR_HASH(t, bk) >> (64 - tb)))
#define PAIR_CNT(t, bk) cnt[PAIR_HASH(t, bk) >> (64 - cb)]
    /* First a count per hashed bucket: a hit whose bucket and the two
     * beside it hold no other hit (nearly every chance hit) has no
     * partner; the others (the true pairs among them) are paired
     * exactly below, among themselves (a partner is such a hit too). */
    memset(cnt, 0, csize);
    unsigned most = 0;   /* the fullest counter */
    for (size_t y = 0; y < n; y++) {
        uint8_t *q = &PAIR_CNT(h[y] >> (cbits + pbits), (h[y] >> pbits & cmask) >> wb);
        if (*q < 255) (*q)++;
        if (*q > most) most = *q;
    }
    /* Dense buckets (a poly-A read against a database that holds a poly-A
     * run: hundreds of hits of one (target, bucket), all in one probe
     * chain of the table below, whose inserts and look-ups then cost the
     * chain each: 22 ms a read, issue #28): the sorted pairing instead,
     * the same rule (the same target, another piece, within slack). */
    if (most >= PAIR_DENSE) {
        uint64_t top = 0;
        for (size_t y = 0; y < n; y++) top |= h[y];
        return (int64_t)gpuasm_tix_pair_keep_sorted(h, n, slack, pbits, 64 - __builtin_clzll(top | 1), cbits + pbits);
    }
    size_t nc = 0;
    for (size_t y = 0; y < n; y++) {
        const uint64_t t = h[y] >> (cbits + pbits), bk = (h[y] >> pbits & cmask) >> wb;
        unsigned sum = PAIR_CNT(t, bk) + PAIR_CNT(t, bk + 1) + (bk ? PAIR_CNT(t, bk - 1) : 0u);
        if (sum >= 2) h[nc++] = h[y];   /* nc <= y */
    }
    n = nc;
    memset(tab, 0, tsize * sizeof *tab);
    for (size_t y = 0; y < n; y++) {
        const uint64_t t = h[y] >> (cbits + pbits), bk = (h[y] >> pbits & cmask) >> wb;
        size_t z = PAIR_SLOT(t, bk);
        while (tab[z]) z = (z + 1) & tmask;
        tab[z] = h[y] | used;
    }
    size_t u = 0;
    for (size_t y = 0; y < n; y++) {
        const uint64_t v = h[y], t = v >> (cbits + pbits), c = v >> pbits & cmask, pc = v & pmask;
        const uint64_t bk = c >> wb;
        int paired = 0;
        for (uint64_t d = bk ? bk - 1 : 0; d <= bk + 1 && !paired; d++) {
            for (size_t z = PAIR_SLOT(t, d); tab[z] && !paired; z = (z + 1) & tmask) {
                const uint64_t w2 = tab[z] & ~used;
                if (w2 >> (cbits + pbits) != t) continue;
                const uint64_t c2 = w2 >> pbits & cmask;
                paired = (c2 >> wb) == d && (c2 > c ? c2 - c : c - c2) <= (uint64_t)slack &&
                         (w2 & pmask) != pc;
            }
        }
        if (paired) h[u++] = v;   /* u <= y: h[y] is read */
    }
#undef PAIR_CNT
#undef PAIR_HASH
#undef PAIR_SLOT
    return (int64_t)u;
}

/* pair_keep(), then the kept hits' ranges [c - slack, c + slack] into
 * *out, by (target, lo).  Their number, or -1 when out of memory. */
static int64_t pair_hits(const gpuasm_seqset *targets, gpuasm_end_range **out, size_t *cap, size_t n,
                         int64_t slack, int pbits, int cbits)
{
    const int64_t kept = pair_keep(out, cap, n, slack, pbits, cbits);
    if (kept < 0) return -1;
    const size_t u = (size_t)kept;
    const uint64_t cmask = ((uint64_t)1 << cbits) - 1;
    uint64_t *h = (uint64_t *)*out;
    if (u > 1) sort_u64(h, u);   /* by (target, c): the ranges' order */
    if (gpuasm_grow((void **)out, cap, u, sizeof **out) < 0) return -1;
    h = (uint64_t *)*out;
    for (size_t y = u; y-- > 0;) {
        const uint64_t v = h[y];
        const uint32_t t = (uint32_t)(v >> (cbits + pbits));
        const int64_t c = (int64_t)(v >> pbits & cmask);
        const uint64_t len = targets->off[t + 1] - targets->off[t];
        gpuasm_end_range r = { t, c - slack < 0 ? 0 : (uint64_t)(c - slack),
                               c + slack >= (int64_t)len ? len - 1 : (uint64_t)(c + slack) };
        (*out)[y] = r;
    }
    /* ranges past their target's end (c - slack >= len) dropped, as push_range does */
    n = 0;
    for (size_t y = 0; y < u; y++) {
        const uint64_t len = targets->off[(*out)[y].target + 1] - targets->off[(*out)[y].target];
        if ((*out)[y].lo < len) (*out)[n++] = (*out)[y];
    }
    return (int64_t)n;
}

/* ---- the neighbour rule (prefilter.h) ------------------------------------ */

/* Set bit v, v a string of len codes cut to its first c (len >= c), or
 * every string it starts (len = c - 1: any code after it). */
static inline void nb_emit(uint64_t *bits, uint64_t v, int len, int c)
{
    if (len >= c) {
        const uint32_t x = (uint32_t)(v >> (2 * (len - c)));
        bits[x >> 6] |= (uint64_t)1 << (x & 63);
        return;
    }
    const int fc = c - len;   /* 1 (L >= c - 1): any code after the alignment */
    for (uint32_t f = 0; f < (1u << (2 * fc)); f++) {
        const uint32_t x = (uint32_t)(v << (2 * fc)) | f;
        bits[x >> 6] |= (uint64_t)1 << (x & 63);
    }
}

/* bits[v] for every string v of c codes (2 bits each, the first in the
 * top bits) that can start the text of an alignment of P[0 .. L) (single
 * bases) with at most one operation: P itself, one substitution, one text
 * insertion or one deletion, each cut to its first c codes, with every
 * code after an alignment that ends before c codes (the text there is
 * anything).  A superset is safe (more candidates); L >= c - 1. */
static void nb_bits(uint64_t *bits, const uint8_t *p, int L, int c)
{
    if (L > 12) L = 12;   /* only the first c + 1 <= 9 bases can reach the c codes */
    uint64_t A = 0;       /* P[0 .. L) as 2-bit codes, P[0] on top */
    for (int i = 0; i < L; i++) {
        const int b = gpuasm_base2[p[i] & 15];
        if (b < 0) {   /* a code that matches nothing (N: 0): no test, every string */
            memset(bits, 0xff, ((size_t)1 << (2 * c)) / 8);
            return;
        }
        A = A << 2 | (uint64_t)b;
    }
    nb_emit(bits, A, L, c);   /* no operation */
    for (int i = 0; i < L && i < c; i++) {
        const int sh = 2 * (L - 1 - i);                    /* P[i]'s bits */
        const uint64_t pre = A >> (sh + 2), suf = A & (((uint64_t)1 << sh) - 1);
        for (uint64_t x = 0; x < 4; x++) {
            nb_emit(bits, (pre << 2 | x) << sh | suf, L, c);                   /* P[i] -> x */
            nb_emit(bits, ((pre << 2 | x) << 2 | (A >> sh & 3)) << sh | suf, L + 1, c);   /* x before P[i] */
        }
        nb_emit(bits, pre << sh | suf, L - 1, c);          /* P[i] deleted */
    }
    if (L < c)   /* a text base after all of P (a shorter piece than the codes) */
        for (uint64_t x = 0; x < 4; x++) nb_emit(bits, A << 2 | x, L + 1, c);
}

/* One entry q of piece j's row that passed the rule's bitmap: the target,
 * group and whole-piece checks of the pairing, then its end range into
 * *out at n.  1 when pushed, 0 when not, -1 when out of memory. */
static inline int nb_hit(const gpuasm_tindex *x, const gpuasm_seqset *targets, const uint8_t *p, uint32_t m,
                         uint64_t a, uint64_t b, const piece_rows_t *pr, const uint32_t *in_group, uint32_t stamp,
                         int64_t slack, uint32_t q, gpuasm_end_range **out, size_t *cap, size_t n)
{
    const uint64_t g = x->pos[q];
    const uint32_t t = tix_target(x, targets, g);
    if (in_group[t] != stamp) return 0;
    if (!gpuasm_tix_piece_there(targets, t, g, p, a, b, pr)) return 0;
    /* the pattern's end when P[a ..] is at text position g */
    const int64_t ce = (int64_t)(g - targets->off[t]) + (int64_t)(m - a) - 1;
    return push_range(out, cap, n, t, ce - slack, ce + slack, targets->off[t + 1] - targets->off[t]);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define NB_SCAN_AVX2 1
/* The rule's row scan, eight entries a step: their ext8 codes widened to
 * 32 bits and masked, the bitmap words by one gather, the bits by a
 * variable shift; the entries that pass go to nb_hit in row order, as the
 * scalar loop sends them (the scalar scan of ~20,000 entries a strand was
 * most of a read's look-ups against a database: 92-95 -> 82-83 us a read,
 * NOTES.md).  The new count, or -1 when out of memory. */
__attribute__((target("avx2"))) static int64_t nb_scan_avx2(const gpuasm_tindex *x, const gpuasm_seqset *targets,
                                                           const uint8_t *p, uint32_t m, uint64_t a, uint64_t b,
                                                           const piece_rows_t *pr, const uint32_t *in_group,
                                                           uint32_t stamp, int64_t slack, const uint64_t *bits,
                                                           uint32_t mask, gpuasm_end_range **out, size_t *cap,
                                                           size_t n)
{
    const int *w32 = (const int *)bits;   /* bit v: word v >> 5, bit v & 31 (little-endian) */
    const __m256i vmask = _mm256_set1_epi32((int)mask), v31 = _mm256_set1_epi32(31), one = _mm256_set1_epi32(1);
    uint32_t q = pr->qa;
    for (; q + 8 <= pr->qb; q += 8) {
        const __m256i v =
            _mm256_and_si256(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(x->ext8 + q))), vmask);
        const __m256i w = _mm256_i32gather_epi32(w32, _mm256_srli_epi32(v, 5), 4);
        const __m256i bit = _mm256_and_si256(_mm256_srlv_epi32(w, _mm256_and_si256(v, v31)), one);
        unsigned mm = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(bit, one)));
        for (; mm; mm &= mm - 1) {
            const int r = nb_hit(x, targets, p, m, a, b, pr, in_group, stamp, slack, q + (uint32_t)__builtin_ctz(mm),
                                 out, cap, n);
            if (r < 0) return -1;
            n += (size_t)r;
        }
    }
    for (; q < pr->qb; q++) {
        const uint32_t v = x->ext8[q] & mask;
        if (!(bits[v >> 6] >> (v & 63) & 1)) continue;
        const int r = nb_hit(x, targets, p, m, a, b, pr, in_group, stamp, slack, q, out, cap, n);
        if (r < 0) return -1;
        n += (size_t)r;
    }
    return (int64_t)n;
}
#endif

/* The neighbour rule's end ranges of a read strand cut into `pieces`
 * pieces (k + 2) into *out from n on: every piece j < pieces - 1 whose row
 * is pr[j] (its window at its start, e = its extension codes <= 2), the
 * hits whose next 8 - e codes (ext8) are in P_{j+1}'s bitmap, with the
 * target, group and whole-piece checks of the pairing.  The new count, or
 * -1 when out of memory. */
static int64_t neighbour_ranges(const gpuasm_tindex *x, const gpuasm_seqset *targets, const uint8_t *p,
                                uint32_t m, uint64_t pieces, const piece_rows_t *pr, const uint32_t *in_group,
                                uint32_t stamp, int64_t slack, gpuasm_end_range **out, size_t *cap, size_t n)
{
    uint64_t bits[1024];   /* 4^8 bits */
    for (uint64_t j = 0; j + 1 < pieces; j++) {
        const uint64_t a = j * m / pieces, b = (j + 1) * m / pieces, b2 = (j + 2) * m / pieces;
        const int e = (int)(b - a) - GPUASM_QF_Q, c = GPUASM_QF_EXT - e;
        const size_t words = ((size_t)1 << (2 * c)) / 64;
        memset(bits, 0, words * sizeof *bits);
        nb_bits(bits, p + b, (int)(b2 - b), c);
        const uint32_t mask = ((uint32_t)1 << (2 * c)) - 1;
#ifdef NB_SCAN_AVX2
        if (x->simd >= GPUASM_SIMD_AVX2) {
            const int64_t r = nb_scan_avx2(x, targets, p, m, a, b, &pr[j], in_group, stamp, slack, bits, mask, out,
                                           cap, n);
            if (r < 0) return -1;
            n = (size_t)r;
            continue;
        }
#endif
        for (uint32_t q = pr[j].qa; q < pr[j].qb; q++) {
            const uint32_t v = x->ext8[q] & mask;
            if (!(bits[v >> 6] >> (v & 63) & 1)) continue;
            const int r = nb_hit(x, targets, p, m, a, b, &pr[j], in_group, stamp, slack, q, out, cap, n);
            if (r < 0) return -1;
            n += (size_t)r;
        }
    }
    return (int64_t)n;
}

/* Piece i's rows: from the strand's cache (prs, found) where it has one,
 * else looked up (more pieces than the cache holds). */
static inline int rows_of(const gpuasm_tindex *x, const gpuasm_seqset *targets, const uint8_t *p, uint32_t m,
                          uint64_t pieces, uint64_t i, const piece_rows_t *prs, const int8_t *found,
                          piece_rows_t *r)
{
    if (prs) {
        *r = prs[i];
        return found[i];
    }
    return gpuasm_tix_piece_rows(x, targets, p, i * m / pieces, (i + 1) * m / pieces, r);
}

int64_t gpuasm_tindex_ranges(const gpuasm_tindex *x, const gpuasm_seqset *targets, const uint8_t *p,
                             uint32_t m, int32_t k, int hamming, const uint32_t *in_group,
                             uint32_t stamp, uint64_t max_hits, gpuasm_end_range **out, size_t *cap)
{
    if (k < 0 || m / ((uint64_t)k + 1) < GPUASM_QF_Q) return -2;
    for (uint32_t i = 0; i < m; i++)
        if (gpuasm_base2[p[i] & 15] < 0 && (p[i] & 15) != 0) return -2;   /* a wildcard read */
    /* Two intact pieces (k + 2 of them) where they are long enough, else
     * one (k + 1): prefilter.h, "Two pieces". */
    int two = m / ((uint64_t)k + 2) >= GPUASM_QF_Q;
    const uint64_t pieces = (uint64_t)k + 1 + (uint64_t)two;
    /* Hits are packed as (target, c, piece) into 63 bits and sorted (bit
     * 63 marks the paired ones). */
    const int pbits = 64 - __builtin_clzll(pieces), cbits = 64 - __builtin_clzll(x->total + m + 1),
              tbits = 64 - __builtin_clzll((uint64_t)targets->n + 1);
    if (pbits + cbits + tbits > 63) two = 0;   /* never with 32-bit positions in practice */
    /* Each piece's rows, looked up once for the strand (the rule's test,
     * the gathering and every kept hit use them) where they fit the cache */
    enum { PR_CACHE = 64 };
    piece_rows_t prs_buf[PR_CACHE];
    int8_t found[PR_CACHE];
    const piece_rows_t *prs = pieces <= PR_CACHE ? prs_buf : NULL;
    for (uint64_t i = 0; prs && i < pieces; i++)
        found[i] = (int8_t)gpuasm_tix_piece_rows(x, targets, p, i * m / pieces, (i + 1) * m / pieces, &prs_buf[i]);
    /* A periodic read against a periodic target (a satellite, poly-A): its
     * pieces sit everywhere, and pairing them costs more than the scan
     * they would save (issue #28's periodic case: 21,000 hits a strand in
     * 10 kb, 5 ms against the scan's 0.1): more than max_hits piece hits
     * decline (-2).  The two-piece branch counts them as it gathers them,
     * a piece's rows at a time (the rows it looks up anyway); the one-piece
     * branch looks targets up hit by hit, so it counts first. */
    if (max_hits && !two) {
        uint64_t hits = 0;
        for (uint64_t i = 0; i < pieces && hits <= max_hits; i++) {
            piece_rows_t pr;
            if (rows_of(x, targets, p, m, pieces, i, prs, found, &pr)) hits += pr.qb - pr.qa;
        }
        if (hits > max_hits) return -2;
    }
    const int64_t slack = hamming ? 0 : k;
    size_t n = 0;
    /* The neighbour rule where it applies: every piece at its window with
     * at most 2 extension codes (its hits' next 6-8 codes in ext8), the
     * same bound on the hits as the pairing's. */
    int nb = two && prs && x->ext8;
    uint64_t nb_hits = 0;
    for (uint64_t i = 0; nb && i < pieces; i++) {
        const uint64_t a = i * m / pieces, b = (i + 1) * m / pieces;
        nb = b - a <= GPUASM_QF_Q + 2 && found[i] && prs[i].w == a;
        if (nb) nb_hits += prs[i].qb - prs[i].qa;
    }
    /* Few hits a row (a small reference): the pairing costs less than the
     * bitmaps (~0.3 us a piece against ~7 ns a hit). */
    if (nb && nb_hits < (uint64_t)x->nb_min_row * pieces) nb = 0;
    if (nb) {
        if (max_hits && nb_hits > max_hits) return -2;
        const int64_t r = neighbour_ranges(x, targets, p, m, pieces, prs, in_group, stamp, slack, out, cap, 0);
        if (r < 0) return -1;
        n = (size_t)r;
        two = 0;
        goto zones;
    }
    if (two) {
        /* First the pairs by the end's position in the whole buffer,
         * with no target looked up (a cache miss per hit: half of a
         * read's lookups against a database of thousands of genomes,
         * issue #28): two pieces of one alignment in one target are
         * paired there too, so the hits this keeps hold every hit the
         * rule keeps below, where each kept one gets its target, group
         * and whole-piece checks and is paired again within its target. */
        for (uint64_t i = 0; i < pieces; i++) {
            piece_rows_t pr;
            if (!rows_of(x, targets, p, m, pieces, i, prs, found, &pr)) continue;   /* never intact */
            if (max_hits && n + (pr.qb - pr.qa) > max_hits) return -2;
            if (gpuasm_grow((void **)out, cap, (n + pr.qb - pr.qa) / 3 + 1, sizeof **out) < 0) return -1;
            uint64_t *h = (uint64_t *)*out;
            for (uint32_t q = pr.qa; q < pr.qb; q++)
                h[n++] = ((uint64_t)x->pos[q] + (m - pr.w) - 1) << pbits | i;
        }
        if (gpuasm_grow((void **)out, cap, (2 * n) / 3 + 2, sizeof **out) < 0) return -1;
        const int64_t kept = (int64_t)gpuasm_tix_pair_keep_sorted((uint64_t *)*out, n, slack, pbits, cbits + pbits, 0);
        n = 0;
        const uint64_t pmask = ((uint64_t)1 << pbits) - 1;
        for (int64_t y = 0; y < kept; y++) {
            const uint64_t v = ((uint64_t *)*out)[y], i = v & pmask, cg = v >> pbits;
            const uint64_t a = i * m / pieces, b = (i + 1) * m / pieces;
            piece_rows_t pr;
            if (!rows_of(x, targets, p, m, pieces, i, prs, found, &pr)) continue;
            const uint64_t g = cg + 1 - (m - pr.w);
            const uint32_t t = tix_target(x, targets, g);
            if (in_group[t] != stamp) continue;
            if (!gpuasm_tix_piece_there(targets, t, g, p, a, b, &pr)) continue;
            const uint64_t c = cg - targets->off[t];
            ((uint64_t *)*out)[n++] = ((uint64_t)t << cbits | c) << pbits | i;   /* n <= y */
        }
    }
    for (uint64_t i = 0; i < pieces && !two; i++) {
        const uint64_t a = i * m / pieces, b = (i + 1) * m / pieces;
        piece_rows_t pr;
        if (!rows_of(x, targets, p, m, pieces, i, prs, found, &pr)) continue;   /* never intact */
        const uint64_t w = pr.w;
        for (uint32_t q = pr.qa; q < pr.qb; q++) {
            const uint64_t g = x->pos[q];
            const uint32_t t = tix_target(x, targets, g);
            if (in_group[t] != stamp) continue;
            if (!gpuasm_tix_piece_there(targets, t, g, p, a, b, &pr)) continue;
            /* The pattern's end when P[w ..] is at text position g. */
            const int64_t c = (int64_t)(g - targets->off[t]) + (int64_t)(m - w) - 1;
            const int r = push_range(out, cap, n, t, c - slack, c + slack,
                                     targets->off[t + 1] - targets->off[t]);
            if (r < 0) return -1;
            n += (size_t)r;
        }
    }
    if (two && n) {
        const int64_t r = pair_hits(targets, out, cap, n, slack, pbits, cbits);
        if (r < 0) return -1;
        n = (size_t)r;
    }
zones:;   /* (a label before a declaration: C11 needs a statement) */
    /* Ambiguity zones: an alignment whose intact piece lies over an
     * ambiguous run [r0, r1] ends within m + slack of it. */
    const int64_t reach = (int64_t)m + slack + GPUASM_QF_Q;
    for (size_t z = 0; z < x->n_amb; z++) {
        const uint32_t t = target_of(targets, x->amb[2 * z]);
        if (in_group[t] != stamp) continue;
        const int64_t r0 = (int64_t)(x->amb[2 * z] - targets->off[t]);
        const int64_t r1 = (int64_t)(x->amb[2 * z + 1] - targets->off[t]);
        const int r = push_range(out, cap, n, t, r0 - reach, r1 + reach,
                                 targets->off[t + 1] - targets->off[t]);
        if (r < 0) return -1;
        n += (size_t)r;
    }
    if (n > 1) sort_ranges(*out, n);
    /* Merge overlapping and adjacent ranges of a target. */
    size_t u = 0;
    for (size_t i = 0; i < n; i++) {
        gpuasm_end_range *o = *out;
        if (u && o[u - 1].target == o[i].target && o[i].lo <= o[u - 1].hi + 1) {
            if (o[i].hi > o[u - 1].hi) o[u - 1].hi = o[i].hi;
        } else {
            o[u++] = o[i];
        }
    }
    return (int64_t)u;
}
