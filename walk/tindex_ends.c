/* SPDX-License-Identifier: MIT */
/* tindex_ends.c -- the ends pass of reads as patterns (prefilter.h, "The
 * ends pass of reads as patterns"): the piece lengths of the rule, the
 * target ends a read strand's pieces mark in the targets' window index
 * (tindex.c) or in the end windows' own index (issue #28: a database of
 * thousands of genomes), and the ends an ambiguity zone reaches. */
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "walk/prefilter_int.h"

static inline uint64_t u64_key(const uint64_t *x) { return *x; }
DEFINE_SORT(sort_u64, uint64_t, u64_key)

/* Does target t hold an ambiguous code (not a single base) in buffer
 * positions [lo, hi)?  A binary search over the runs (buffer order). */
static int amb_in(const gpuasm_tindex *x, uint64_t lo, uint64_t hi)
{
    size_t a = 0, b = x->n_amb;   /* the first run ending at or after lo */
    while (a < b) {
        const size_t mid = a + (b - a) / 2;
        if (x->amb[2 * mid + 1] < lo) a = mid + 1; else b = mid;
    }
    return a < x->n_amb && x->amb[2 * a] < hi;
}

/* min over the acceptable p of floor(p / (k_p + extra)), or 0 below Q. */
static uint32_t piece_len(const gpuasm_search_opt *o, uint32_t omin, uint32_t m, uint64_t extra)
{
    uint64_t L = m;
    for (uint32_t p = omin; p < m; p++) {
        const int32_t kp = gpuasm_partial_kf(o, o->read_partial_floor, p, m);
        if (kp < 0 || (int64_t)kp >= (int64_t)p) continue;   /* p is never acceptable */
        const uint64_t l = p / ((uint64_t)kp + extra);
        if (l < L) L = l;
    }
    return L >= GPUASM_QF_Q && L < m ? (uint32_t)L : 0;
}

uint32_t gpuasm_partial_piece_len(const gpuasm_search_opt *o, uint32_t omin, uint32_t m)
{
    return piece_len(o, omin, m, 1);
}

uint32_t gpuasm_partial_piece_len2(const gpuasm_search_opt *o, uint32_t omin, uint32_t m)
{
    return piece_len(o, omin, m, 2);
}

gpuasm_read_ends gpuasm_read_ends_of(const gpuasm_search_opt *o, uint64_t m, int hamming)
{
    gpuasm_read_ends r = { 0, 0, 0, 0 };
    if (o->alphabet != GPUASM_ALPHABET_NT16 || m <= 1 || m > UINT32_MAX) return r;
    const uint32_t omin = gpuasm_pair_overlap_min(o, 1, m);
    r.L = omin ? gpuasm_partial_piece_len(o, omin, (uint32_t)m) : 0;
    const int32_t kmax = gpuasm_partial_kf(o, o->read_partial_floor, m - 1, m);
    r.W = kmax >= 0 && m - 1 + (uint64_t)kmax <= UINT32_MAX ? (uint32_t)(m - 1 + (uint64_t)kmax) : 0;
    if (!r.W) r.L = 0;
    if (!r.L) r.W = 0;
    r.L2 = r.L ? gpuasm_partial_piece_len2(o, omin, (uint32_t)m) : 0;
    r.slack = hamming ? 0 : kmax;
    return r;
}

/* Set the bit of every Q-base key of single bases in [lo, hi). */
static void end_bits_of(const uint8_t *s, uint64_t lo, uint64_t hi, uint64_t *bits)
{
    uint32_t key = 0;
    int run = 0;
    for (uint64_t i = lo; i < hi; i++) {
        const int b = gpuasm_base2[s[i] & 15];
        if (b < 0) {
            run = 0;
            continue;
        }
        key = ((key << 2) | (uint32_t)b) & KEY_MASK;
        if (++run >= GPUASM_QF_Q) bits[key >> 6] |= (uint64_t)1 << (key & 63);
    }
}

void gpuasm_end_bits(const gpuasm_seqset *targets, uint32_t W, uint64_t *bits)
{
    memset(bits, 0, GPUASM_END_BITS_WORDS * sizeof(uint64_t));
    for (uint32_t t = 0; t < targets->n; t++) {
        const uint64_t lo = targets->off[t], hi = targets->off[t + 1], w = W < hi - lo ? W : hi - lo;
        if (2 * w >= hi - lo) {   /* the two windows overlap: the target whole */
            end_bits_of(targets->code, lo, hi, bits);
            continue;
        }
        end_bits_of(targets->code, lo, lo + w, bits);
        end_bits_of(targets->code, hi - w, hi, bits);
    }
}

/* May the piece P[a .. b) (b - a >= Q) occur in an end window of bits?
 * 0 only when a window of Q single bases at its start or its end is in
 * none (then it occurs in none: bits hold every Q-window of single bases
 * of the end windows); a window with another code decides nothing. */
static int end_bits_may(const uint64_t *bits, const uint8_t *p, uint64_t a, uint64_t b)
{
    const int64_t k1 = window_key(p + a), k2 = window_key(p + b - GPUASM_QF_Q);
    if (k1 >= 0 && !(bits[k1 >> 6] >> (k1 & 63) & 1)) return 0;
    if (k2 >= 0 && !(bits[k2 >> 6] >> (k2 & 63) & 1)) return 0;
    return 1;
}

/* Set bit in mark[t], listing t in marked (when not NULL) the first time
 * mark[t] leaves 0. */
static inline void mark_end(uint32_t *mark, uint32_t t, uint32_t bit, gpuasm_marked *marked)
{
    if (!mark[t] && marked) marked->t[marked->n++] = t;
    mark[t] |= bit;
}

void gpuasm_marked_clear(uint32_t *mark, gpuasm_marked *marked)
{
    for (uint32_t i = 0; i < marked->n; i++) mark[marked->t[i]] = 0;
    marked->n = 0;
}

void gpuasm_marked_or(uint32_t *mark, gpuasm_marked *marked, const uint32_t *t, const uint8_t *ends, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) mark_end(mark, t[i], ends[i], marked);
}

int gpuasm_tindex_end_marks(const gpuasm_tindex *x, const gpuasm_seqset *targets, const uint8_t *p,
                            uint32_t m, uint32_t L, uint32_t W, uint32_t ends, const uint64_t *bits,
                            const uint32_t *in_group, uint32_t stamp, uint32_t *mark, gpuasm_marked *marked)
{
    if (!L || L >= m) return -2;
    for (uint32_t i = 0; i < m; i++)
        if (gpuasm_base2[p[i] & 15] < 0 && (p[i] & 15) != 0) return -2;   /* a wildcard read */
    for (int at_start = 0; at_start < 2; at_start++) {
        if (!(ends & (1u << at_start))) continue;
        const uint32_t bit = 1u << at_start;
        /* Text end: pieces [i L, (i + 1) L) with (i + 1) L <= m - 1;
         * text start: their mirror images [m - (i + 1) L, m - i L) with
         * m - (i + 1) L >= 1 (prefilter.h, "Partial occurrences"). */
        for (uint64_t i = 0; (i + 1) * (uint64_t)L <= (uint64_t)m - 1; i++) {
            const uint64_t a = at_start ? m - (i + 1) * L : i * L, b = a + L;
            if (bits && !end_bits_may(bits, p, a, b)) continue;   /* in no end window */
            piece_rows_t pr;
            if (!gpuasm_tix_piece_rows(x, targets, p, a, b, &pr)) continue;   /* never intact */
            for (uint32_t q = pr.qa; q < pr.qb; q++) {
                const uint64_t g = x->pos[q];
                const uint32_t t = tix_target(x, targets, g);
                if (in_group[t] != stamp || (mark[t] & bit)) continue;
                if (!gpuasm_tix_piece_there(targets, t, g, p, a, b, &pr)) continue;
                /* the piece's bases in the target: [s, s + L) */
                const uint64_t s = g - (pr.w - a), n = targets->off[t + 1] - targets->off[t];
                const uint64_t w = W < n ? W : n;
                if (at_start ? s + L <= targets->off[t] + w : s >= targets->off[t + 1] - w)
                    mark_end(mark, t, bit, marked);
            }
        }
    }
    return 0;
}

/* ---- the end windows' own index (issue #28) ----------------------------------- */

static const uint32_t copy_widths[GPUASM_ENDS_INDEX_TIERS] = GPUASM_ENDS_INDEX_WS;

static void copy_free(gpuasm_ends_copy *c)
{
    if (c->built) gpuasm_tindex_free(&c->x);
    free(c->off);
    free(c->code);
    memset(c, 0, sizeof *c);
}

void gpuasm_ends_index_free(gpuasm_ends_index *e)
{
    for (int i = 0; i < GPUASM_ENDS_INDEX_TIERS; i++)
        for (int side = 0; side < 2; side++) copy_free(&e->copy[i][side]);
}

uint64_t gpuasm_ends_index_bytes(const gpuasm_ends_index *e)
{
    uint64_t b = 0;
    for (int i = 0; i < GPUASM_ENDS_INDEX_TIERS; i++)
        for (int side = 0; side < 2; side++) {
            const gpuasm_ends_copy *c = &e->copy[i][side];
            if (!c->built) continue;
            b += gpuasm_tindex_bytes(&c->x) + ((uint64_t)c->set.n + 1) * sizeof *c->off + c->off[c->set.n];
        }
    return b;
}

/* Copy c of targets: each one's first (side 0) or last (side 1)
 * min(cw, len) bases, and its index.  0, 1 (past max_pos) or -1. */
static int copy_build(gpuasm_ends_copy *c, const gpuasm_seqset *targets, uint32_t cw, int side, uint64_t max_pos,
                      int n_threads)
{
    const uint32_t nt = targets->n;
    uint64_t total = 0;
    for (uint32_t t = 0; t < nt; t++) {
        const uint64_t n = targets->off[t + 1] - targets->off[t];
        total += n < cw ? n : cw;
    }
    if (total > max_pos) return 1;
    c->cw = cw;
    c->off = malloc(((size_t)nt + 1) * sizeof(uint64_t));
    c->code = malloc(total ? total : 1);
    if (!c->off || !c->code) return -1;
    uint64_t o = 0;
    for (uint32_t t = 0; t < nt; t++) {
        const uint64_t lo = targets->off[t], n = targets->off[t + 1] - lo, w = n < cw ? n : cw;
        c->off[t] = o;
        memcpy(c->code + o, targets->code + lo + (side ? n - w : 0), w);
        o += w;
    }
    c->off[nt] = o;
    c->uniform = o == (uint64_t)nt * cw;
    c->set.n = nt;
    c->set.off = c->off;
    c->set.code = c->code;
    const int r = gpuasm_tindex_build(&c->x, &c->set, max_pos, n_threads);
    c->built = r == 0;
    return r;
}

int gpuasm_ends_index_build(gpuasm_ends_index *e, const gpuasm_seqset *targets, uint64_t max_pos, int n_threads,
                            int all_tiers)
{
    memset(e, 0, sizeof *e);
    if (targets->n >= (1u << 24)) return 1;   /* gpuasm_ends_index_marks packs a window in 24 bits */
    /* the widest copies first; the narrower ones where those hold many
     * windows (each copy's index has 1.3 MiB of rows of its own, which a
     * few targets' ends do not repay) or where asked for */
    uint64_t wide = 0;
    for (uint32_t t = 0; t < targets->n; t++) {
        const uint64_t n = targets->off[t + 1] - targets->off[t];
        wide += 2 * (n < GPUASM_ENDS_INDEX_W ? n : GPUASM_ENDS_INDEX_W);
    }
    for (int i = GPUASM_ENDS_INDEX_TIERS; i-- > 0;) {
        if (i < GPUASM_ENDS_INDEX_TIERS - 1 && !all_tiers && wide < GPUASM_ENDS_NARROW_MIN) continue;
        for (int side = 0; side < 2; side++) {
            const int r = copy_build(&e->copy[i][side], targets, copy_widths[i], side, max_pos, n_threads);
            if (r == 0) continue;
            gpuasm_ends_index_free(e);
            return r;
        }
    }
    return 0;
}

/* One piece hit of gpuasm_ends_index_marks: the window at buffer position
 * g of copy c (target t's window t at the text's start, at_start, or its
 * end) holds piece P[a .. b) (pr: its rows).  When it lies inside target
 * t's end window of W bases: with out NULL, the end's bit is set in
 * mark[t]; else *out = the hit packed for mark_pairs (target, diagonal +
 * m, piece i).  Otherwise *out = UINT64_MAX (when out). */
static void end_hit(const gpuasm_ends_copy *c, const gpuasm_seqset *targets, const uint8_t *p, uint32_t m,
                    uint32_t W, int at_start, const uint32_t *in_group, uint32_t stamp, uint32_t *mark,
                    gpuasm_marked *marked, const piece_rows_t *pr, uint64_t a, uint64_t b, uint64_t g, uint64_t i,
                    uint64_t *out)
{
    const gpuasm_seqset *es = &c->set;
    const uint32_t bit = 1u << at_start;
    if (out) *out = UINT64_MAX;
    const uint32_t t = tix_target(&c->x, es, g);
    if (in_group[t] != stamp || (mark[t] & bit)) return;
    if (!gpuasm_tix_piece_there(es, t, g, p, a, b, pr)) return;   /* inside the window copy */
    /* the piece's first base in the target: the copy holds its first cw
     * bases (the text start) or its last cw */
    const uint64_t n_t = targets->off[t + 1] - targets->off[t];
    const uint64_t cw = es->off[t + 1] - es->off[t];
    const uint64_t sw = g - (pr->w - a) - es->off[t];
    const uint64_t s = sw + (at_start ? 0 : n_t - cw);
    const uint64_t w = W < n_t ? W : n_t;
    const uint32_t L = (uint32_t)(b - a);
    if (!(at_start ? s + L <= w : s >= n_t - w)) return;
    if (!out) mark_end(mark, t, bit, marked);
    else *out = (uint64_t)t << 40 | (sw - a + m) << 16 | i;
}

/* The ends marked by the two-piece rule: hits[0 .. n) packed as
 * (target, diagonal + m, piece), sorted here; an end with two hits of
 * different pieces at most slack apart gets bit in mark[target]. */
static void mark_pairs(uint64_t *hits, size_t n, int32_t slack, uint32_t bit, uint32_t *mark, gpuasm_marked *marked)
{
    if (n > 1) sort_u64(hits, n);
    for (size_t y = 0; y < n;) {
        const uint64_t t = hits[y] >> 40;
        size_t z = y;   /* the target's hits: [y, z) */
        while (z < n && hits[z] >> 40 == t) z++;
        int paired = 0;
        for (size_t a = y; a < z && !paired; a++)
            for (size_t b = a + 1; b < z && !paired; b++) {
                if ((hits[b] >> 16 & 0xffffff) - (hits[a] >> 16 & 0xffffff) > (uint64_t)slack) break;
                paired = (hits[a] & 0xffff) != (hits[b] & 0xffff);
            }
        if (paired) mark_end(mark, (uint32_t)t, bit, marked);
        y = z;
    }
}

int gpuasm_ends_index_marks(const gpuasm_ends_index *e, const gpuasm_seqset *targets, const uint8_t *p,
                            uint32_t m, const gpuasm_read_ends *re, uint32_t ends, const uint32_t *in_group,
                            uint32_t stamp, uint32_t *mark, gpuasm_marked *marked, uint64_t **scratch,
                            size_t *cap, uint64_t max_hits)
{
    const uint32_t L = re->L, W = re->W, L2 = re->L2;
    const int32_t slack = re->slack;
    if (!L || L >= m) return -2;
    int tier = 0;   /* the narrowest copy built that holds W bases of each end */
    while (tier < GPUASM_ENDS_INDEX_TIERS && (copy_widths[tier] < W || !e->copy[tier][0].built)) tier++;
    if (tier == GPUASM_ENDS_INDEX_TIERS || !e->copy[tier][0].built) return -2;
    for (uint32_t i = 0; i < m; i++)
        if (gpuasm_base2[p[i] & 15] < 0 && (p[i] & 15) != 0) return -2;   /* a wildcard read */
    /* hits packed as (target: 24 bits, diagonal + m: 24, piece: 16) */
    const uint64_t cw = copy_widths[tier];
    const int two = L2 >= GPUASM_QF_Q && L2 < m && slack >= 0 && targets->n < (1u << 24) &&
                    m + cw < (1u << 24) && (m - 1) / L2 < (1u << 16);
    const uint32_t Lp = two ? L2 : L;
    uint64_t seen = 0;   /* piece hits so far, both ends (max_hits) */
    for (int at_start = 0; at_start < 2; at_start++) {
        if (!(ends & (1u << at_start))) continue;
        const uint32_t bit = 1u << at_start;
        /* the text start's pieces among the targets' first bases (side 0),
         * the text end's among their last (side 1) */
        const gpuasm_ends_copy *c = &e->copy[tier][at_start ? 0 : 1];
        const gpuasm_seqset *es = &c->set;
        const int pbits = 16, kbits = 64 - __builtin_clzll(es->off[es->n] + 2 * (uint64_t)m + 1) + pbits;
        size_t n = 0;
        /* the pieces of gpuasm_tindex_end_marks().  Two pieces: first
         * paired by their diagonal in the whole buffer of windows, with no
         * window looked up (a cache miss per hit); two pieces of one
         * alignment in one window pair there too, and only the kept hits
         * get the checks below and mark_pairs. */
        for (uint64_t i = 0; (i + 1) * (uint64_t)Lp <= (uint64_t)m - 1; i++) {
            const uint64_t a = at_start ? m - (i + 1) * Lp : i * Lp, b = a + Lp;
            piece_rows_t pr;
            if (!gpuasm_tix_piece_rows(&c->x, es, p, a, b, &pr)) continue;   /* never intact */
            if (two) {
                if (gpuasm_grow((void **)scratch, cap, 2 * (n + pr.qb - pr.qa), sizeof **scratch) < 0) return -1;
                for (uint32_t q = pr.qa; q < pr.qb; q++) {
                    const uint64_t g = c->x.pos[q];
                    if (c->uniform) {
                        /* windows of cw bases each: the piece's window and
                         * place in it without a look-up, so the places past
                         * W go before the pairing; end_hit checks the same */
                        const uint64_t ps = g - (pr.w - a);
                        if (g < pr.w - a || ps / cw != (ps + Lp - 1) / cw) continue;
                        const uint64_t off = ps % cw;
                        if (at_start ? off + Lp > W : off < cw - W) continue;
                    }
                    (*scratch)[n++] = (g - (pr.w - a) - a + m) << pbits | i;   /* (piece start - a + m, piece) */
                }
                /* a repeat: its marks would cost more than the ends they save */
                if (max_hits && seen + n > max_hits) return -2;
                continue;
            }
            seen += pr.qb - pr.qa;
            if (max_hits && seen > max_hits) return -2;
            for (uint32_t q = pr.qa; q < pr.qb; q++)
                end_hit(c, targets, p, m, W, at_start, in_group, stamp, mark, marked, &pr, a, b, c->x.pos[q], 0,
                        NULL);
        }
        seen += n;
        if (!two || !n) continue;
        n = gpuasm_tix_pair_keep_sorted(*scratch, n, slack, pbits, kbits, 0);
        size_t u = 0;
        for (size_t y = 0; y < n; y++) {
            const uint64_t v = (*scratch)[y], i = v & 0xffff, d = v >> pbits;   /* piece start - a + m */
            const uint64_t a = at_start ? m - (i + 1) * Lp : i * Lp, b = a + Lp;
            piece_rows_t pr;
            if (!gpuasm_tix_piece_rows(&c->x, es, p, a, b, &pr)) continue;
            const uint64_t g = d - m + a + (pr.w - a);   /* the window's start */
            end_hit(c, targets, p, m, W, at_start, in_group, stamp, mark, marked, &pr, a, b, g, i, &(*scratch)[u]);
            u += (*scratch)[u] != UINT64_MAX;
        }
        mark_pairs(*scratch, u, slack, bit, mark, marked);
    }
    return 0;
}

int gpuasm_tindex_end_amb(const gpuasm_tindex *x, const gpuasm_seqset *targets, uint32_t t, uint32_t W)
{
    const uint64_t lo = targets->off[t], hi = targets->off[t + 1], w = W < hi - lo ? W : hi - lo;
    return (amb_in(x, hi - w, hi) ? 1 : 0) | (amb_in(x, lo, lo + w) ? 2 : 0);
}
