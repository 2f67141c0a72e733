/* SPDX-License-Identifier: MIT */
/* report.c -- choose occurrences and describe them (see report.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/sam.h>
#include <htslib/kstring.h>

#include "align/chance.h"
#include "util/grow.h"
#include "util/insertion_sort.h"
#include "kernels/registry.h"
#include "align/report.h"

typedef struct {
    uint32_t strand;
    uint32_t end;
    int32_t dist;
    uint32_t kind;      /* enum gpuasm_hit_kind */
    uint32_t alen;      /* aligned pattern bases: m, or a partial hit's plen */
} cand_t;

typedef struct {
    uint64_t lo, hi;    /* closed interval in forward text coordinates */
} span_t;

/* The candidates' rank within a (read, target): report.h's score =
 * aligned pattern bases - 2 x distance (for full hits of one pattern,
 * simply the lowest distance), then the lowest distance, the forward
 * strand, the leftmost end, a full hit before a partial one. */
static int64_t score_of(uint32_t alen, int32_t dist) { return (int64_t)alen - 2 * (int64_t)dist; }

static int cand_cmp(const void *a, const void *b)
{
    const cand_t *x = a, *y = b;
    int64_t sx = score_of(x->alen, x->dist), sy = score_of(y->alen, y->dist);
    if (sx != sy) return sx > sy ? -1 : 1;
    if (x->dist != y->dist) return x->dist < y->dist ? -1 : 1;
    if (x->strand != y->strand) return x->strand < y->strand ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return x->kind < y->kind ? -1 : x->kind > y->kind;
}

/* A read's few candidates and occurrences (0.3% of an adapter screen in
 * qsort's calls). */
GPUASM_INSERTION_SORT(cand_t, sort_cands, cand_cmp)

static int push_cigar(gpuasm_report *r, uint32_t op, uint32_t len)
{
    if (len == 0) return 0;
    if (r->n_cigar > 0 && r->cigar[r->n_cigar - 1] != 0 &&
        bam_cigar_op(r->cigar[r->n_cigar - 1]) == op && r->n_cigar > r->occ[r->n_occ].cigar_off) {
        r->cigar[r->n_cigar - 1] += len << BAM_CIGAR_SHIFT;
        return 0;
    }
    if (gpuasm_grow((void **)&r->cigar, &r->m_cigar, r->n_cigar + 1, sizeof(*r->cigar)) < 0) return -1;
    r->cigar[r->n_cigar++] = bam_cigar_gen(len, op);
    return 0;
}

/* Is a read base the same A, C, G or T as the reference base (SAM's NM:
 * ambiguity codes never match)?  nt16 codes, case already folded. */
static int same_base(uint8_t rd, uint8_t ref)
{
    return rd == ref && (rd == 1 || rd == 2 || rd == 4 || rd == 8);
}

/* Describe alignment r->aln as occurrence r->occ[r->n_occ] (already has
 * target/strand/dist): POS, CIGAR over the whole read, MD and NM (SAM's,
 * report.h), the aligned pattern length.  read: the read's codes on the
 * occurrence's strand.  pat_off: the first pattern base of the alignment
 * (a partial hit at the text's start aligns a suffix of the pattern). */
static int describe(gpuasm_report *r, const gpuasm_report_opt *o, int read_is_pattern,
                    const uint8_t *read, uint64_t read_len, const uint8_t *target, uint64_t pat_off)
{
    const gpuasm_aln *a = &r->aln;
    gpuasm_occ *oc = &r->occ[r->n_occ];
    oc->cigar_off = r->n_cigar;
    oc->md_off = r->md.l;
    oc->pos = read_is_pattern ? (int64_t)a->tstart : (int64_t)pat_off;
    /* The reference (target) walks along the text when the read is the
     * pattern, along the pattern when the read is the text; read bases of
     * a read pattern outside its aligned part are soft-clipped. */
    const uint8_t *ref = read_is_pattern ? target + a->tstart : target + pat_off;
    const uint8_t *rd = read_is_pattern ? read + pat_off : read + a->tstart;
    if (read_is_pattern && push_cigar(r, BAM_CSOFT_CLIP, (uint32_t)pat_off) < 0) return -1;
    int ref_gap = read_is_pattern ? GPUASM_OP_TGAP : GPUASM_OP_PGAP;  /* ref base, no read base */
    uint64_t ri = 0, qi = 0;
    int md_run = 0, in_del = 0;
    int32_t nm = 0;
    uint32_t plen = 0;
    if (!read_is_pattern && push_cigar(r, BAM_CSOFT_CLIP, (uint32_t)a->tstart) < 0) return -1;
    for (size_t i = 0; i < a->n_op; i++) {
        uint8_t op = a->op[i];
        uint32_t cop;
        if (op != GPUASM_OP_TGAP) plen++;
        if (op == GPUASM_OP_MATCH || op == GPUASM_OP_SUBST) {
            int eq = op == GPUASM_OP_MATCH && same_base(rd[qi], ref[ri]);
            cop = o->eqx ? (eq ? BAM_CEQUAL : BAM_CDIFF) : BAM_CMATCH;
            if (eq) {
                md_run++;
            } else {
                /* kputw, not ksprintf: a printf call per MD field was a
                 * tenth of the adapter screen's report */
                if (kputw(md_run, &r->md) < 0 || kputc(seq_nt16_str[ref[ri]], &r->md) < 0) return -1;
                md_run = 0;
                nm++;
            }
            ri++;
            qi++;
            in_del = 0;
        } else if (op == ref_gap) {
            cop = BAM_CDEL;
            if (!in_del && (kputw(md_run, &r->md) < 0 || kputc('^', &r->md) < 0)) return -1;
            if (kputc(seq_nt16_str[ref[ri]], &r->md) < 0) return -1;
            md_run = 0;
            in_del = 1;
            ri++;
            nm++;
        } else {
            cop = BAM_CINS;
            /* An insertion ends a deletion run in MD (next deletion
             * starts a new ^ group). */
            in_del = 0;
            qi++;
            nm++;
        }
        if (push_cigar(r, cop, 1) < 0) return -1;
    }
    if (kputw(md_run, &r->md) < 0 || kputc('\0', &r->md) < 0) return -1;
    if (!read_is_pattern && push_cigar(r, BAM_CSOFT_CLIP, (uint32_t)(read_len - 1 - a->tend)) < 0)
        return -1;
    if (read_is_pattern && push_cigar(r, BAM_CSOFT_CLIP, (uint32_t)(read_len - pat_off - plen)) < 0)
        return -1;
    oc->n_cigar = r->n_cigar - oc->cigar_off;
    oc->nm = nm;
    oc->plen = plen;
    return 0;
}

/* The span of a candidate starting at s, in forward text coordinates
 * (closed): [s, end], mirrored when the read is the text of strand 1. */
static span_t span_of(uint64_t s, uint64_t end, uint64_t tn, int mirror)
{
    return mirror ? (span_t){ tn - 1 - end, tn - 1 - s } : (span_t){ s, end };
}

/* Does a candidate ending at `end` overlap one of acc[0..n) when all that
 * is known is that its start lies in [s_lo, s_hi]?  1 yes, 0 no, -1 it
 * depends on the start.  The span only grows as the start moves left, so
 * the two extreme starts decide it when they agree. */
static int overlaps_at(uint64_t s_lo, uint64_t s_hi, uint64_t end, uint64_t tn, int mirror,
                       const void *accv, size_t n)
{
    const span_t *acc = accv;
    span_t big = span_of(s_lo, end, tn, mirror), small = span_of(s_hi, end, tn, mirror);
    int any_big = 0;
    for (size_t q = 0; q < n; q++) {
        if (small.lo <= acc[q].hi && acc[q].lo <= small.hi) return 1;
        any_big |= big.lo <= acc[q].hi && acc[q].lo <= big.hi;
    }
    return any_big ? -1 : 0;
}

/* Append one op to r->aln.  0 or -1. */
static int aln_push(gpuasm_aln *a, uint8_t op)
{
    if (gpuasm_grow((void **)&a->op, &a->m_op, a->n_op + 1, 1) < 0) return -1;
    a->op[a->n_op++] = op;
    return 0;
}

/* A partial hit at the text's end (GPUASM_HIT_TEXT_END): P[0 .. p)
 * aligned ending at the text's last base T[n-1] with `dist` differences,
 * not ending with P[p-1] deleted (search.h: that base ran off the text).
 * The last column is P[p-1] on T[n-1] (MATCH/SUBST) when that completes
 * an alignment of `dist`, else T[n-1] inserted (the traceback's own
 * diagonal-first rule); the rest is gpuasm_traceback() one column
 * earlier.  0, -1 out of memory, -2 no such alignment. */
static int trace_text_end(gpuasm_report *r, const uint8_t *pat, uint32_t p, const uint8_t *txt,
                          uint64_t n, int32_t dist)
{
    gpuasm_aln *a = &r->aln;
    const int32_t delta = !gpuasm_nt16_match(pat[p - 1], txt[n - 1]);
    const uint8_t dop = delta ? GPUASM_OP_SUBST : GPUASM_OP_MATCH;
    int rc = -2;
    if (dist - delta >= 0) {
        if (p == 1 || n == 1) {
            /* P[0 .. p-1) deleted before T[n-1] (only when n == 1): cost
             * p - 1 + delta. */
            if (p - 1 + delta == (uint32_t)dist) {
                a->n_op = 0;
                for (uint32_t i = 0; i + 1 < p; i++)
                    if (aln_push(a, GPUASM_OP_PGAP) < 0) return -1;
                a->tstart = n - 1;
                rc = 0;
            }
        } else {
            rc = gpuasm_traceback(pat, p - 1, txt, n - 1, n - 2, dist - delta, &r->tb, a);
        }
        if (rc == 0) {
            if (aln_push(a, dop) < 0) return -1;
            a->tend = n - 1;
            a->dist = dist;
            return 0;
        }
        if (rc == -1) return -1;
    }
    if (dist >= 1 && n >= 2) {
        rc = gpuasm_traceback(pat, p, txt, n - 1, n - 2, dist - 1, &r->tb, a);
        if (rc < 0) return rc;
        if (aln_push(a, GPUASM_OP_TGAP) < 0) return -1;
        a->tend = n - 1;
        a->dist = dist;
        return 0;
    }
    return -2;
}

/* A partial hit at the text's start (search.h, GPUASM_HIT_TEXT_START):
 * the suffix of plen pattern bases aligned from text position 0 with free
 * end.  Traced as what it is reversed: the prefix of rev(suffix) at the
 * text end of rev(T[0 .. W)), W = plen + dist (the longest text such an
 * alignment covers), then mapped back.  0, -1, -2 as trace(). */
static int trace_text_start(gpuasm_report *r, const uint8_t *suffix, uint32_t plen,
                            const uint8_t *txt, uint64_t tn, int32_t dist)
{
    uint64_t w = (uint64_t)plen + (uint64_t)dist;
    if (w > tn) w = tn;
    if (gpuasm_grow((void **)&r->rev, &r->m_rev, (size_t)(plen + w), 1) < 0) return -1;
    uint8_t *rp = r->rev, *rt = r->rev + plen;
    for (uint32_t i = 0; i < plen; i++) rp[i] = suffix[plen - 1 - i];
    for (uint64_t i = 0; i < w; i++) rt[i] = txt[w - 1 - i];
    int rc = trace_text_end(r, rp, plen, rt, w, dist);
    if (rc < 0) return rc;
    gpuasm_aln *a = &r->aln;
    const uint64_t s = a->tstart;
    a->tstart = 0;
    a->tend = w - 1 - s;
    for (size_t i = 0, j = a->n_op; i + 1 < j; i++, j--) {
        uint8_t x = a->op[i];
        a->op[i] = a->op[j - 1];
        a->op[j - 1] = x;
    }
    return 0;
}

/* The trace cache: a read's partial alignments by what they are traced
 * from (the kind, the text, the aligned pattern bases and the distance).
 * An adapter kit's members share tens of bases, so a read's partial hits
 * are mostly the same alignment again (17,160 of 25,425 partial records
 * of 20,000 illumina reads x 158 adapters); trace_text_end/start are
 * functions of those inputs alone, so a copy is the same alignment. */
typedef struct {
    const uint8_t *txt, *pat;   /* pat: the first aligned pattern base (a target's codes) */
    uint64_t tn, tstart, tend;
    uint32_t kind, alen;
    int32_t dist;
    size_t op_off, n_op;
} tcache_t;
#define TCACHE_N 8

static int tcache_find(gpuasm_report *r, const uint8_t *txt, uint64_t tn, const uint8_t *pat, const cand_t *c)
{
    const tcache_t *e = r->tc;
    for (size_t i = 0; i < r->n_tc; i++)
        if (e[i].txt == txt && e[i].tn == tn && e[i].kind == c->kind && e[i].alen == c->alen &&
            e[i].dist == c->dist && !memcmp(e[i].pat, pat, c->alen)) {
            gpuasm_aln *a = &r->aln;
            if (gpuasm_grow((void **)&a->op, &a->m_op, e[i].n_op, 1) < 0) return -1;
            memcpy(a->op, r->tc_op + e[i].op_off, e[i].n_op);
            a->n_op = e[i].n_op;
            a->tstart = e[i].tstart;
            a->tend = e[i].tend;
            a->dist = e[i].dist;
            return 1;
        }
    return 0;
}

/* r->aln as the entry of (txt, tn, pat, c): the first TCACHE_N of a read
 * (its ops kept till the next read). */
static int tcache_add(gpuasm_report *r, const uint8_t *txt, uint64_t tn, const uint8_t *pat, const cand_t *c)
{
    if (r->n_tc >= TCACHE_N) return 0;
    const gpuasm_aln *a = &r->aln;
    if (gpuasm_grow(&r->tc, &r->m_tc, r->n_tc + 1, sizeof(tcache_t)) < 0 ||
        gpuasm_grow((void **)&r->tc_op, &r->m_tc_op, r->n_tc_op + a->n_op, 1) < 0)
        return -1;
    memcpy(r->tc_op + r->n_tc_op, a->op, a->n_op);
    ((tcache_t *)r->tc)[r->n_tc++] = (tcache_t){ txt, pat, tn, a->tstart, a->tend, c->kind, c->alen,
                                                  a->dist, r->n_tc_op, a->n_op };
    r->n_tc_op += a->n_op;
    return 0;
}

/* Align candidate c into r->aln; *pat_off: its first pattern base.  0,
 * -1 out of memory, -2 no alignment. */
static int trace(gpuasm_report *r, const gpuasm_search_opt *so, const uint8_t *pat, uint64_t m,
                 const uint8_t *txt, uint64_t tn, const cand_t *c, uint64_t *pat_off)
{
    const int hamming = gpuasm_search_mode(so) == GPUASM_MODE_HAMMING;
    *pat_off = c->kind == GPUASM_HIT_TEXT_START ? m - c->alen : 0;
    if (!hamming && c->kind != GPUASM_HIT_FULL) {
        const int f = tcache_find(r, txt, tn, pat + *pat_off, c);
        if (f) return f < 0 ? -1 : 0;
        const int rc = c->kind == GPUASM_HIT_TEXT_START ? trace_text_start(r, pat + *pat_off, c->alen, txt, tn, c->dist)
                                                        : trace_text_end(r, pat, c->alen, txt, tn, c->dist);
        if (rc < 0) return rc;
        return tcache_add(r, txt, tn, pat + *pat_off, c);
    }
    if (c->kind == GPUASM_HIT_TEXT_START)
        return gpuasm_hamming_alignment(pat + *pat_off, c->alen, txt, tn, c->alen - 1, c->dist, &r->aln);
    /* Full hits, and Hamming partial ones at the text's end (the prefix P[0 .. alen)). */
    if (hamming) return gpuasm_hamming_alignment(pat, c->alen, txt, tn, c->end, c->dist, &r->aln);
    return gpuasm_traceback(pat, c->alen, txt, tn, c->end, c->dist, &r->tb, &r->aln);
}

/* report.h's partial-hit codes: where the pattern ran off. */
static uint32_t partial_code(uint32_t kind, int read_is_pattern, uint32_t strand)
{
    if (kind == GPUASM_HIT_FULL) return GPUASM_OCC_FULL;
    if (read_is_pattern)
        return kind == GPUASM_HIT_TEXT_END ? GPUASM_OCC_TARGET_END : GPUASM_OCC_TARGET_START;
    /* the text is the read, reverse-complemented on strand 1 */
    return (kind == GPUASM_HIT_TEXT_END) != (strand != 0) ? GPUASM_OCC_READ_3 : GPUASM_OCC_READ_5;
}

const char *gpuasm_occ_partial_name(uint32_t code)
{
    switch (code) {
    case GPUASM_OCC_READ_3: return "read3";
    case GPUASM_OCC_READ_5: return "read5";
    case GPUASM_OCC_TARGET_END: return "target3";
    case GPUASM_OCC_TARGET_START: return "target5";
    default: return NULL;
    }
}

/* report.h's order of a read's occurrences: -1 when x comes first.  Two
 * accepted occurrences of one (target, strand) never share a position
 * (they would overlap), so the order is total. */
static int occ_cmp(const void *a, const void *b)
{
    const gpuasm_occ *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    if (x->dist != y->dist) return x->dist < y->dist ? -1 : 1;
    if (x->plen != y->plen) return x->plen > y->plen ? -1 : 1;
    if (x->strand != y->strand) return x->strand < y->strand ? -1 : 1;
    if (x->target != y->target) return x->target < y->target ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}
GPUASM_INSERTION_SORT(gpuasm_occ, sort_occs, occ_cmp)

int gpuasm_report_read(gpuasm_report *r, const gpuasm_search_opt *so, const gpuasm_report_opt *o,
                       const uint8_t *code, uint32_t len, const gpuasm_targets *t,
                       const gpuasm_endhit *hits, size_t n, char *err, size_t errlen)
{
    r->n_occ = 0;
    r->n_cigar = 0;
    r->md.l = 0;
    r->n_tc = r->n_tc_op = 0;   /* the trace cache is one read's (its text pointers) */
    if (n == 0) return 0;
    if (gpuasm_grow((void **)&r->rc, &r->m_rc, (size_t)len + 1, 1) < 0) goto oom;
    for (uint32_t i = 0; i < len; i++) r->rc[i] = gpuasm_nt16_comp(code[len - 1 - i]);

    size_t i = 0;
    while (i < n) {
        uint32_t ti = hits[i].target;
        size_t j = i;
        while (j < n && hits[j].target == ti) j++;
        /* hits[i..j): one (read, target), sorted by strand then end. */
        /* The kernels report only local minima (search.h): those are the
         * candidates, ranked best first. */
        if (gpuasm_grow(&r->cand, &r->m_cand, j - i, sizeof(cand_t)) < 0) goto oom;
        cand_t *cand = r->cand;
        size_t nc = j - i;
        const uint8_t *tcode = t->code + t->off[ti];
        uint64_t tlen = t->off[ti + 1] - t->off[ti];
        int rip = gpuasm_read_is_pattern(so, len, tlen);
        for (size_t c = 0; c < nc; c++) {
            const gpuasm_endhit *h = &hits[i + c];
            cand[c] = (cand_t){ h->strand, h->end, h->dist, h->kind,
                                h->kind == GPUASM_HIT_FULL ? (uint32_t)(rip ? len : tlen) : h->plen };
        }
        sort_cands(cand, nc);
        size_t n_acc = 0, first_occ = r->n_occ;
        for (size_t c = 0; c < nc; c++) {
            const uint8_t *rs = cand[c].strand ? r->rc : code;
            const uint8_t *pat = rip ? rs : tcode, *txt = rip ? tcode : rs;
            uint64_t m = rip ? len : tlen, tn = rip ? tlen : len;
            int mirror = !rip && cand[c].strand;
            int traced = 0, rc;
            uint64_t pat_off = 0;
            if (cand[c].kind != GPUASM_HIT_FULL) {
                /* A partial hit: XS speaks of full occurrences only, and
                 * its span is known exactly only from its alignment. */
                if (n_acc > 0 && !o->all) continue;
                if ((rc = trace(r, so, pat, m, txt, tn, &cand[c], &pat_off)) < 0) goto tb_failed;
                traced = 1;
                if (n_acc > 0 && overlaps_at(r->aln.tstart, r->aln.tstart, r->aln.tend, tn, mirror,
                                             r->acc, n_acc))
                    continue;
            } else if (n_acc > 0) {
                /* Does the candidate overlap an accepted occurrence?  Its
                 * span grows as its start s moves left, so bounds on s
                 * decide it: first the lengths an alignment with dist
                 * differences can have, then the starts of a reverse
                 * search, and only when those straddle the answer the
                 * traceback itself. */
                int64_t e1 = (int64_t)cand[c].end + 1, d = cand[c].dist;
                int64_t lo = e1 - (int64_t)m - d, hi = e1 - (int64_t)m + d;
                if (gpuasm_search_mode(so) == GPUASM_MODE_HAMMING) lo = hi = e1 - (int64_t)m;
                if (lo < 0) lo = 0;
                if (hi > e1) hi = e1;
                int ov = overlaps_at((uint64_t)lo, (uint64_t)hi, cand[c].end, tn, mirror, r->acc, n_acc);
                if (ov < 0) {
                    uint64_t s_lo, s_hi;
                    rc = gpuasm_hit_starts(pat, (uint32_t)m, txt, tn, cand[c].end, cand[c].dist,
                                           &r->tb, &s_lo, &s_hi);
                    if (rc < 0) goto tb_failed;
                    ov = overlaps_at(s_lo, s_hi, cand[c].end, tn, mirror, r->acc, n_acc);
                }
                if (ov < 0) {
                    if ((rc = trace(r, so, pat, m, txt, tn, &cand[c], &pat_off)) < 0) goto tb_failed;
                    traced = 1;
                    ov = overlaps_at(r->aln.tstart, r->aln.tstart, cand[c].end, tn, mirror,
                                     r->acc, n_acc);
                }
                if (ov) continue;
                if (!o->all) {
                    /* The second non-overlapping occurrence: only its
                     * distance is wanted (XS). */
                    r->occ[first_occ].has_xs = 1;
                    r->occ[first_occ].xs = score_of(cand[c].alen, cand[c].dist);
                    break;
                }
            }
            if (!traced && (rc = trace(r, so, pat, m, txt, tn, &cand[c], &pat_off)) < 0) goto tb_failed;
            span_t sp = span_of(r->aln.tstart, r->aln.tend, tn, mirror);
            if (gpuasm_grow(&r->acc, &r->m_acc, n_acc + 1, sizeof(span_t)) < 0) goto oom;
            ((span_t *)r->acc)[n_acc++] = sp;
            if (n_acc == 2 && cand[c].kind == GPUASM_HIT_FULL) {
                r->occ[first_occ].has_xs = 1;
                r->occ[first_occ].xs = score_of(cand[c].alen, cand[c].dist);
            }
            if (gpuasm_grow((void **)&r->occ, &r->m_occ, r->n_occ + 1, sizeof(*r->occ)) < 0) goto oom;
            r->occ[r->n_occ] = (gpuasm_occ){ .target = ti, .strand = cand[c].strand,
                                             .dist = cand[c].dist,
                                             .partial = partial_code(cand[c].kind, rip, cand[c].strand) };
            if (describe(r, o, rip, rs, len, tcode, pat_off) < 0) goto oom;
            gpuasm_occ *oc = &r->occ[r->n_occ];
            oc->score = score_of(oc->plen, oc->dist);
            oc->chance = !o->chance ? NAN
                         : cand[c].kind == GPUASM_HIT_FULL ? gpuasm_chance_whole(o->chance, rip, oc->score, len)
                                                           : gpuasm_chance_partial(o->chance, rip, oc->score);
            r->n_occ++;
            continue;
tb_failed:
            if (rc == -1) goto oom;
            snprintf(err, errlen, "internal error: end hit (target %s, strand %u, end %u, "
                     "distance %d, kind %u, %u aligned) has no alignment: the search kernel is wrong",
                     t->name[ti], cand[c].strand, cand[c].end, cand[c].dist, cand[c].kind,
                     cand[c].alen);
            return -1;
        }
        i = j;
    }
    /* Best first (each occurrence keeps its CIGAR and MD offsets). */
    if (r->n_occ > 1) sort_occs(r->occ, r->n_occ);
    if (o->best && r->n_occ > 1) r->n_occ = 1;
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

void gpuasm_report_free(gpuasm_report *r)
{
    free(r->occ);
    free(r->cigar);
    ks_free(&r->md);
    gpuasm_tb_work_free(&r->tb);
    gpuasm_aln_free(&r->aln);
    free(r->rc);
    free(r->rev);
    free(r->cand);
    free(r->acc);
    free(r->tc);
    free(r->tc_op);
    memset(r, 0, sizeof(*r));
}
