/* SPDX-License-Identifier: MIT */
/* chance.c -- expected chance occurrences and the significance floor (see
 * chance.h for the model and the formulas). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "align/chance.h"
#include "kernels/registry.h"
#include "search/nt16.h"

#define QMAX GPUASM_CHANCE_QMAX
/* Scores tabulated for E_partial: every aligned length is <= QMAX, so
 * E(S) = 0 above it, and d_p(S) = k_p for all p once S <= -QMAX. */
#define SLO (-(int64_t)QMAX - 1)
#define SHI ((int64_t)QMAX + 1)

/* One cell of a role's partial sources: aligned length q with k_q = kq,
 * w = sum of rho over the sources, n = their number (pi <= 1 each). */
typedef struct {
    uint32_t q;
    int32_t kq;
    double w, n;
} cell_t;

/* Targets of one length (whole occurrences of targets as patterns). */
typedef struct {
    uint64_t m;
    int32_t k;
    double w, n;     /* sum of rho(m) over the targets, their number */
} group_t;

typedef struct {
    cell_t *cell;
    size_t n_cell;
    double *ep;      /* E_partial(S) for S in [SLO, SHI] */
} role_t;

struct gpuasm_chance {
    int ok;                      /* nt16: the model applies */
    int hamming;
    double alpha;
    gpuasm_search_opt o;         /* floors cleared */
    int strands;
    double ln4;
    double *logn;                /* logn[q * (QMAX + 1) + d]; -INFINITY: not tabulated */
    int32_t *dtop;               /* [q]: d tabulated up to; above it N(q, d) = N(q, dtop) */
    uint32_t qtab;               /* rows tabulated: q <= qtab (the longest target, at most
                                  * QMAX); a longer q (a read as the pattern) is computed */
    role_t role[2];              /* 0: targets as patterns, 1: reads as patterns */
    int32_t floor[2];
    group_t *grp;                /* whole: targets by length, ascending */
    size_t n_grp;
    /* reads as patterns: target lengths ascending and suffix sums */
    uint64_t *tlen_sorted;
    double *tlen_suffix;         /* [i]: sum of tlen_sorted[i ..] */
    uint32_t n_targets;
    /* per target (gpuasm_chance_target) */
    uint64_t *tlen;
    double *whole_tp;            /* strands x pi(m_t, k_t) */
    double *part_tp, *part_rp;   /* E_partial of the target's own sources at the floor */
    int32_t *k_t;                /* k of the target as the pattern */
    const gpuasm_seqset *targets; /* the caller's, for gpuasm_chance_set_floors */
    int32_t set[2];              /* the floors in effect */
};

/* log C(n, k); lf: log n! for n < LF_N (a model's table: the sums below
 * are most of a model's build), or NULL for lgamma. */
#define LF_N (3 * QMAX + 3)
static double lbinom_t(const double *lf, double n, double k)
{
    if (k < 0 || k > n) return -INFINITY;
    if (!lf || n >= LF_N) return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
    return lf[(int)n] - lf[(int)k] - lf[(int)(n - k)];
}

static double lbinom(double n, double k) { return lbinom_t(NULL, n, k); }

/* log(e^a + e^b) */
static double lse(double a, double b)
{
    if (a == -INFINITY) return b;
    if (b == -INFINITY) return a;
    return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

double gpuasm_chance_log_transcripts(int hamming, uint32_t q, int32_t d)
{
    if (d < 0) return -INFINITY;
    if (hamming) {
        double v = -INFINITY;
        for (int32_t s = 0; s <= d && (uint32_t)s <= q; s++) v = lse(v, lbinom(q, s) + s * log(3.0));
        return v;
    }
    /* A_j = sum over s + t = j of C(q, s) 3^s C(q - s, t) 4^t, then
     * N = sum over i of C(q - 1 + i, i) x (A_0 + ... + A_{d-i}). */
    double *cum = malloc(((size_t)d + 1) * sizeof(*cum));
    if (!cum) return INFINITY;   /* no memory: an E of infinity floors everything out */
    double run = -INFINITY;
    for (int32_t j = 0; j <= d; j++) {
        double a = -INFINITY;
        for (int32_t s = 0; s <= j; s++)
            a = lse(a, lbinom(q, s) + s * log(3.0) + lbinom((double)q - s, j - s) + (j - s) * log(4.0));
        run = lse(run, a);
        cum[j] = run;
    }
    double v = -INFINITY;
    for (int32_t i = 0; i <= d; i++) v = lse(v, lbinom((double)q - 1 + i, i) + cum[d - i]);
    free(cum);
    return v;
}

/* log N(q, d): from the table (q <= qtab), else computed (a whole read as
 * the pattern, longer than every target: one read length at a time, the
 * callers cache it). */
static double logn_at(const gpuasm_chance *c, uint32_t q, int32_t d)
{
    if (d < 0) return -INFINITY;
    if (q > c->qtab) return gpuasm_chance_log_transcripts(c->hamming, q, d);
    if (d > c->dtop[q]) d = c->dtop[q];
    return c->logn[(size_t)q * (QMAX + 1) + (size_t)d];
}

/* pi summed over n sources of summed rho w: min(n, w x N). */
static double pi_sum(const gpuasm_chance *c, uint32_t q, int32_t d, double w, double n)
{
    if (d < 0 || q == 0 || q > QMAX || w <= 0) return 0;
    const double v = w * exp(logn_at(c, q, d));
    return v < n ? v : n;
}

/* The table of log N(q, d), q <= QMAX, d <= min(q, dmax).  Past the d at
 * which N >= 4^q x 4^8 (pi = 1 for any rho >= 4^-q... and IUPAC rho is
 * larger still) every larger d gives pi = 1 too: the row stops there. */
static int build_table(gpuasm_chance *c, int32_t dmax)
{
    c->logn = malloc((size_t)(c->qtab + 1) * (QMAX + 1) * sizeof(*c->logn));
    c->dtop = calloc(c->qtab + 1, sizeof(*c->dtop));
    if (!c->logn || !c->dtop) return -1;
    double *cum = malloc((size_t)(QMAX + 1) * sizeof(*cum)), *lf = malloc(LF_N * sizeof(*lf));
    if (!cum || !lf) {
        free(cum);
        free(lf);
        return -1;
    }
    for (int i = 0; i < LF_N; i++) lf[i] = lgamma((double)i + 1);
    const double l3 = log(3.0), l4 = log(4.0);
    for (uint32_t q = 0; q <= c->qtab; q++) {
        double *row = c->logn + (size_t)q * (QMAX + 1);
        const int32_t top = dmax < (int32_t)q ? dmax : (int32_t)q;
        const double sat = (q + 8.0) * l4;
        double run = -INFINITY;
        int32_t d;
        for (d = 0; d <= top; d++) {
            if (c->hamming) {
                run = lse(run, lbinom_t(lf, q, d) + d * l3);
                row[d] = run;
            } else {
                double a = -INFINITY;
                for (int32_t s = 0; s <= d; s++)
                    a = lse(a, lbinom_t(lf, q, s) + s * l3 + lbinom_t(lf, (double)q - s, d - s) + (d - s) * l4);
                run = lse(run, a);
                cum[d] = run;
                double v = -INFINITY;
                for (int32_t i = 0; i <= d; i++) v = lse(v, lbinom_t(lf, (double)q - 1 + i, i) + cum[d - i]);
                row[d] = v;
            }
            if (row[d] >= sat) break;
        }
        c->dtop[q] = d <= top ? d : top;
        if (top < 0) { row[0] = 0; c->dtop[q] = 0; }
    }
    free(cum);
    free(lf);
    return 0;
}

/* k_p of a partial occurrence in a role (search.h's gpuasm_partial_k; reads
 * as patterns with an absolute k: k itself, their length being unknown). */
static int32_t kq_of(const gpuasm_chance *c, int rip, uint32_t q, uint64_t m)
{
    int32_t k;
    if (rip && c->o.max_diffs >= 0) k = c->o.max_diffs;
    else k = gpuasm_partial_k(&c->o, q, m);
    if ((int64_t)k >= (int64_t)q) k = (int32_t)q - 1;
    return k;
}

static int add_cell(role_t *r, size_t *cap, uint32_t q, int32_t kq, double w, double n)
{
    for (size_t i = r->n_cell; i-- > 0;) {
        if (r->cell[i].q != q) break;     /* cells of one target arrive in q order... */
        if (r->cell[i].kq == kq) { r->cell[i].w += w; r->cell[i].n += n; return 0; }
    }
    if (r->n_cell == *cap) {
        size_t nc = *cap ? 2 * *cap : 1024;
        cell_t *x = realloc(r->cell, nc * sizeof(*x));
        if (!x) return -1;
        r->cell = x;
        *cap = nc;
    }
    r->cell[r->n_cell++] = (cell_t){ q, kq, w, n };
    return 0;
}

static int cell_cmp(const void *a, const void *b)
{
    const cell_t *x = a, *y = b;
    if (x->q != y->q) return x->q < y->q ? -1 : 1;
    return (x->kq > y->kq) - (x->kq < y->kq);
}

/* Merge equal (q, kq) cells after sorting. */
static void merge_cells(role_t *r)
{
    if (!r->n_cell) return;   /* qsort's base may not be NULL, even for 0 items */
    qsort(r->cell, r->n_cell, sizeof(*r->cell), cell_cmp);
    size_t o = 0;
    for (size_t i = 0; i < r->n_cell; i++) {
        if (o && r->cell[o - 1].q == r->cell[i].q && r->cell[o - 1].kq == r->cell[i].kq) {
            r->cell[o - 1].w += r->cell[i].w;
            r->cell[o - 1].n += r->cell[i].n;
        } else {
            r->cell[o++] = r->cell[i];
        }
    }
    r->n_cell = o;
}

/* d of aligned length q at score S under k_q: min(kq, floor((q - S) / 2)). */
static int32_t d_at(uint32_t q, int32_t kq, int64_t S)
{
    const int64_t x = (int64_t)q - S;
    if (x < 0) return -1;
    const int64_t d = x / 2;
    return d < kq ? (int32_t)d : kq;
}

static double ep_sum(const gpuasm_chance *c, const role_t *r, int64_t S)
{
    double e = 0;
    for (size_t i = 0; i < r->n_cell; i++) {
        const cell_t *x = &r->cell[i];
        e += pi_sum(c, x->q, d_at(x->q, x->kq, S), x->w, x->n);
    }
    return e;
}

/* The number of (strand, end) sources of a pair role whose fixed bases are
 * the pattern's prefix (bit 0 of gpuasm_partial_text_ends) and suffix. */
static void end_sources(const gpuasm_chance *c, int rip, double *pre, double *suf)
{
    *pre = *suf = 0;
    for (int s = 0; s < c->strands; s++) {
        const uint32_t e = gpuasm_partial_text_ends(&c->o, rip, (uint32_t)s);
        *pre += e & 1u;
        *suf += (e >> 1) & 1u;
    }
}

/* rho of the first (from_end 0) or last q bases of target t, q = 1 .. qn,
 * into rho[1 .. qn]. */
static void target_rho(const gpuasm_seqset *t, uint32_t i, int from_end, uint32_t qn, double *rho)
{
    const uint8_t *s = t->code + t->off[i];
    const uint64_t len = t->off[i + 1] - t->off[i];
    double r = 1;
    for (uint32_t q = 1; q <= qn; q++) {
        const uint8_t b = s[from_end ? len - q : q - 1] & 15u;
        r *= (double)gpuasm_nt16_nbases(b) / 4.0;
        rho[q] = r;
    }
}

/* The cells of one kind of source of a role: the fixed bases are each
 * target's first (from_end 0) or last q bases, for every q, counted per
 * distinct sequence: targets that share those q bases (the 48 indexed RNA
 * PCR primers of an adapter file share their first 20) are one source,
 * since a read end that matches one matches all (a chance occurrence of
 * them is one event; counting it 48 times would raise the floor for
 * nothing).  Sequences are compared by a 64-bit polynomial hash of their
 * codes (a collision merges two sources: E is then a little low, with
 * probability about T^2 / 2^64).  mult: strand x end sources of the kind.
 * 0, or -1 out of memory. */
static int add_end_cells(gpuasm_chance *c, const gpuasm_seqset *t, int rip, int from_end, double mult,
                         size_t *cap)
{
    const uint32_t n = t->n;
    uint64_t *h = calloc(n ? n : 1, sizeof(*h));
    double *rho = malloc((n ? n : 1) * sizeof(*rho));
    uint32_t *qn = malloc((n ? n : 1) * sizeof(*qn)), *omin = malloc((n ? n : 1) * sizeof(*omin));
    size_t hcap = 2;
    while (hcap < 2 * (size_t)n) hcap *= 2;
    uint64_t *set = malloc(hcap * sizeof(*set));
    int32_t *setk = malloc(hcap * sizeof(*setk));
    /* setq[j]: the q whose set holds slot j (no memset of the set per q:
     * 256 KiB a q for 10,000 primers, most of the build's time) */
    uint32_t *setq = calloc(hcap, sizeof(*setq));
    int ret = -1;
    if (!h || !rho || !qn || !omin || !set || !setk || !setq) goto out;
    uint32_t qmax = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint64_t len = t->off[i + 1] - t->off[i];
        const uint64_t q64 = len == 0 ? 0 : rip ? (len < QMAX ? len : QMAX) : (len - 1 < QMAX ? len - 1 : QMAX);
        qn[i] = (uint32_t)q64;
        omin[i] = len == 0 ? 0 : rip ? (c->o.read_overlap_min != 0 ? 1u : 0u) : gpuasm_pair_overlap_min(&c->o, 0, len);
        rho[i] = 1;
        if (omin[i] && qn[i] > qmax) qmax = qn[i];
    }
    /* The targets' q-th bases, QB values of q at a time, gathered q-major
     * (blk[(q - q0) n + i]): the loop below visits every target for each
     * q, and reading each from the code buffer touched one page per
     * target (6,670 genomes: a TLB miss per read, most of this function's
     * time, issue #28). */
    enum { QB = 64 };
    uint8_t *blk = malloc((size_t)QB * (n ? n : 1));
    if (!blk) goto out;
    for (uint32_t q = 1; q <= qmax; q++) {
        if ((q - 1) % QB == 0)
            for (uint32_t i = 0; i < n; i++) {
                if (!omin[i] || q > qn[i]) continue;
                const uint8_t *s = t->code + t->off[i];
                const uint64_t len = t->off[i + 1] - t->off[i];
                for (uint32_t r = q; r < q + QB && r <= qn[i]; r++)
                    blk[(size_t)(r - q) * n + i] = s[from_end ? len - r : r - 1];
            }
        const uint8_t *bq = blk + (size_t)((q - 1) % QB) * n;
        uint64_t klen = UINT64_MAX;   /* k_q of the last length (most files: a few lengths) */
        int32_t kq = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (!omin[i] || q > qn[i]) continue;
            const uint64_t len = t->off[i + 1] - t->off[i];
            const uint8_t b = bq[i] & 15u;
            rho[i] *= (double)gpuasm_nt16_nbases(b) / 4.0;
            h[i] = (h[i] + b + 1) * 0x9e3779b97f4a7c15ULL;
            if (q < omin[i] || rho[i] <= 0) continue;
            if (len != klen) {
                klen = len;
                kq = kq_of(c, rip, q, len);
            }
            if (kq < 0) continue;
            /* first target of this (q bases, k_q): a source */
            const uint64_t key = (h[i] ^ ((uint64_t)(uint32_t)kq * 0xff51afd7ed558ccdULL)) | 1;
            size_t j = (size_t)(key >> 17) & (hcap - 1);
            int seen = 0;
            while (setq[j] == q) {
                if (set[j] == key && setk[j] == kq) { seen = 1; break; }
                j = (j + 1) & (hcap - 1);
            }
            if (seen) continue;
            setq[j] = q;
            set[j] = key;
            setk[j] = kq;
            if (add_cell(&c->role[rip], cap, q, kq, mult * rho[i], mult) < 0) {
                free(blk);
                goto out;
            }
        }
    }
    free(blk);
    ret = 0;
out:
    free(h);
    free(rho);
    free(qn);
    free(omin);
    free(set);
    free(setk);
    free(setq);
    return ret;
}

static int u64_cmp(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int grp_cmp(const void *a, const void *b)
{
    const group_t *x = a, *y = b;
    return (x->m > y->m) - (x->m < y->m);
}

/* The partial E of one target's own sources in a role at score S (for the
 * per-target expectation). */
static double target_partial(const gpuasm_chance *c, const gpuasm_seqset *t, uint32_t i, int rip,
                             int64_t S, double *rho_pre, double *rho_suf)
{
    const uint64_t len = t->off[i + 1] - t->off[i];
    double pre, suf;
    end_sources(c, rip, &pre, &suf);
    uint64_t qn64 = rip ? (len < QMAX ? len : QMAX) : (len - 1 < QMAX ? len - 1 : QMAX);
    if (len == 0) return 0;
    const uint32_t qn = (uint32_t)qn64;
    const uint32_t omin = rip ? 1u : gpuasm_pair_overlap_min(&c->o, 0, len);
    if (!omin) return 0;
    /* Target as pattern: its prefix at the text's end (pre), suffix at the
     * start.  Target as text: the read's prefix lies at the target's END
     * (its last bases), the read's suffix at its start. */
    target_rho(t, i, rip ? 1 : 0, qn, rho_pre);
    target_rho(t, i, rip ? 0 : 1, qn, rho_suf);
    double e = 0;
    for (uint32_t q = omin; q <= qn; q++) {
        const int32_t d = d_at(q, kq_of(c, rip, q, len), S);
        e += pi_sum(c, q, d, pre * rho_pre[q], pre) + pi_sum(c, q, d, suf * rho_suf[q], suf);
    }
    return e;
}

int gpuasm_chance_build(gpuasm_chance **out, const gpuasm_seqset *t, const gpuasm_search_opt *opt,
                        double alpha)
{
    gpuasm_chance *c = calloc(1, sizeof(*c));
    *out = c;
    if (!c) return -1;
    c->alpha = alpha;
    c->o = *opt;
    c->o.partial_floor = c->o.read_partial_floor = 0;
    c->ok = opt->alphabet == GPUASM_ALPHABET_NT16;
    c->hamming = gpuasm_search_mode(opt) == GPUASM_MODE_HAMMING;
    c->strands = gpuasm_strands(opt);
    c->ln4 = log(4.0);
    c->n_targets = t->n;
    if (!c->ok) return 0;

    /* Rows up to the longest target (every partial term and every whole
     * target; the build is most of a small run's start otherwise), and the
     * largest d any of them asks for. */
    uint64_t tmax = 1;
    for (uint32_t i = 0; i < t->n; i++)
        if (t->off[i + 1] - t->off[i] > tmax) tmax = t->off[i + 1] - t->off[i];
    c->qtab = tmax < QMAX ? (uint32_t)tmax : QMAX;
    int32_t dmax = 0;
    for (uint32_t q = 1; q <= c->qtab; q++) {
        int32_t k = opt->max_diffs >= 0 ? opt->max_diffs : gpuasm_pair_k(opt, q);
        if (k > dmax) dmax = k;
    }
    if (dmax > QMAX) dmax = QMAX;
    if (build_table(c, dmax) < 0) return -1;

    double *rho_pre = malloc((QMAX + 2) * sizeof(double)), *rho_suf = malloc((QMAX + 2) * sizeof(double));
    c->tlen = malloc((t->n ? t->n : 1) * sizeof(*c->tlen));
    c->tlen_sorted = malloc((t->n ? t->n : 1) * sizeof(*c->tlen_sorted));
    c->tlen_suffix = malloc(((size_t)t->n + 1) * sizeof(*c->tlen_suffix));
    c->whole_tp = calloc(t->n ? t->n : 1, sizeof(double));
    c->part_tp = calloc(t->n ? t->n : 1, sizeof(double));
    c->part_rp = calloc(t->n ? t->n : 1, sizeof(double));
    c->k_t = calloc(t->n ? t->n : 1, sizeof(int32_t));
    c->grp = malloc((t->n ? t->n : 1) * sizeof(*c->grp));
    if (!rho_pre || !rho_suf || !c->tlen || !c->tlen_sorted || !c->tlen_suffix || !c->whole_tp ||
        !c->part_tp || !c->part_rp || !c->k_t || !c->grp)
        goto oom;

    size_t cap[2] = { 0, 0 };
    for (int rip = 0; rip < 2; rip++) {
        double pre, suf;
        end_sources(c, rip, &pre, &suf);
        if (!gpuasm_partial_on(&c->o)) continue;
        /* Target as pattern: its prefix lies at the text's end (pre), its
         * suffix at the start.  Target as text: the read's prefix lies at
         * the target's END (its last bases), the read's suffix at its start. */
        if (pre > 0 && add_end_cells(c, t, rip, rip ? 1 : 0, pre, &cap[rip]) < 0) goto oom;
        if (suf > 0 && add_end_cells(c, t, rip, rip ? 0 : 1, suf, &cap[rip]) < 0) goto oom;
        merge_cells(&c->role[rip]);
    }
    for (int rip = 0; rip < 2; rip++) {
        role_t *r = &c->role[rip];
        r->ep = malloc((size_t)(SHI - SLO + 1) * sizeof(*r->ep));
        if (!r->ep) goto oom;
        for (int64_t S = SLO; S <= SHI; S++) r->ep[S - SLO] = ep_sum(c, r, S);
        c->floor[rip] = 0;
        if (!gpuasm_partial_on(&c->o)) continue;
        for (int64_t S = 1; S <= SHI; S++)
            if (r->ep[S - SLO] <= alpha) { c->floor[rip] = (int32_t)S; break; }
    }

    /* Whole occurrences: targets grouped by length, and per target. */
    for (uint32_t i = 0; i < t->n; i++) {
        const uint64_t len = t->off[i + 1] - t->off[i];
        c->tlen[i] = c->tlen_sorted[i] = len;
        c->k_t[i] = gpuasm_pair_k(opt, len);
        double rho = 0;
        if (len > 0 && len <= QMAX) {
            target_rho(t, i, 0, (uint32_t)len, rho_pre);
            rho = rho_pre[len];
            const double p = pi_sum(c, (uint32_t)len, c->k_t[i] < (int32_t)len ? c->k_t[i] : (int32_t)len - 1,
                                    rho, 1);
            c->whole_tp[i] = c->strands * p;
        }
        c->grp[i] = (group_t){ len, c->k_t[i], rho, 1 };
    }
    qsort(c->grp, t->n, sizeof(*c->grp), grp_cmp);
    size_t g = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        if (g && c->grp[g - 1].m == c->grp[i].m) {
            c->grp[g - 1].w += c->grp[i].w;
            c->grp[g - 1].n += 1;
        } else {
            c->grp[g++] = c->grp[i];
        }
    }
    c->n_grp = g;
    qsort(c->tlen_sorted, t->n, sizeof(uint64_t), u64_cmp);
    c->tlen_suffix[t->n] = 0;
    for (uint32_t i = t->n; i-- > 0;) c->tlen_suffix[i] = c->tlen_suffix[i + 1] + (double)c->tlen_sorted[i];

    free(rho_pre);
    free(rho_suf);
    c->targets = t;
    return gpuasm_chance_set_floors(c, c->floor[0], c->floor[1]);
oom:
    free(rho_pre);
    free(rho_suf);
    return -1;
}

int gpuasm_chance_set_floors(gpuasm_chance *c, int32_t target_floor, int32_t read_floor)
{
    if (!c->ok) return 0;
    const gpuasm_seqset *t = c->targets;
    double *rho_pre = malloc((QMAX + 2) * sizeof(double)), *rho_suf = malloc((QMAX + 2) * sizeof(double));
    if (!rho_pre || !rho_suf) {
        free(rho_pre);
        free(rho_suf);
        return -1;
    }
    c->set[0] = target_floor;
    c->set[1] = read_floor;
    /* A target of single bases only at both ends has rho 4^-q there, so
     * its terms are a function of its length and role alone: the last
     * such length's value is taken again (10,000 primers of one length:
     * one sum, not 10,000; the same doubles, from the same operations).
     * With an error rate (no -k), k_q does not depend on the length
     * either, nor do qn (QMAX) and omin once the length exceeds QMAX + 1:
     * such targets (genomes) are one class, len_class QMAX + 2 (a database
     * of 6,670 genomes: one sum, not 6,670, issue #28). */
    uint64_t plain_len = UINT64_MAX;
    double plain_tp = 0, plain_rp = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        if (!gpuasm_partial_on(&c->o)) break;
        const uint64_t len = t->off[i + 1] - t->off[i];
        const uint64_t len_class = c->o.max_diffs < 0 && len > QMAX + 1 ? QMAX + 2 : len;
        const uint64_t qn = len < QMAX ? len : QMAX;   /* both roles' rows (target_partial) */
        const uint8_t *b = t->code + t->off[i];
        int plain = len > 0;
        for (uint64_t q = 0; plain && q < qn; q++) plain = gpuasm_nt16_nbases(b[q] & 15u) == 1 && gpuasm_nt16_nbases(b[len - 1 - q] & 15u) == 1;
        if (plain && len_class == plain_len) {
            c->part_tp[i] = plain_tp;
            c->part_rp[i] = plain_rp;
            continue;
        }
        c->part_tp[i] = target_partial(c, t, i, 0, target_floor > 0 ? target_floor : SLO, rho_pre, rho_suf);
        c->part_rp[i] = target_partial(c, t, i, 1, read_floor > 0 ? read_floor : SLO, rho_pre, rho_suf);
        if (plain) {
            plain_len = len_class;
            plain_tp = c->part_tp[i];
            plain_rp = c->part_rp[i];
        }
    }
    free(rho_pre);
    free(rho_suf);
    return 0;
}

void gpuasm_chance_free(gpuasm_chance *c)
{
    if (!c) return;
    free(c->logn);
    free(c->dtop);
    for (int r = 0; r < 2; r++) {
        free(c->role[r].cell);
        free(c->role[r].ep);
    }
    free(c->grp);
    free(c->tlen_sorted);
    free(c->tlen_suffix);
    free(c->tlen);
    free(c->whole_tp);
    free(c->part_tp);
    free(c->part_rp);
    free(c->k_t);
    free(c);
}

int32_t gpuasm_chance_floor(const gpuasm_chance *c, int read_is_pattern)
{
    return c && c->ok ? c->floor[read_is_pattern ? 1 : 0] : 0;
}

double gpuasm_chance_partial(const gpuasm_chance *c, int read_is_pattern, int64_t score)
{
    if (!c || !c->ok) return NAN;
    if (score > SHI) return 0;
    if (score < SLO) score = SLO;
    return c->role[read_is_pattern ? 1 : 0].ep[score - SLO];
}

/* Whole occurrences of a random read of n bases as the pattern against the
 * targets it is the pattern of, at least as good as score S. */
static double whole_rp(const gpuasm_chance *c, int64_t S, uint64_t n)
{
    if (n == 0 || n > QMAX || c->o.pattern_side == GPUASM_PATTERN_TARGET) return 0;
    int32_t k = gpuasm_pair_k(&c->o, n);
    if ((uint64_t)(int64_t)k >= n) return 0;   /* pairs with m <= k are not searched */
    const int32_t d = d_at((uint32_t)n, k, S);
    if (d < 0) return 0;
    /* targets of length >= n (the pair rule: the read is the pattern on
     * ties); with --pattern read all of them, those shorter than n - d
     * having no end position */
    const uint64_t lmin = c->o.pattern_side == GPUASM_PATTERN_READ ? (n > (uint64_t)d ? n - (uint64_t)d : 0) : n;
    size_t lo = 0, hi = c->n_targets;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (c->tlen_sorted[mid] < lmin) lo = mid + 1; else hi = mid;
    }
    const double ends = c->tlen_suffix[lo] - (double)(c->n_targets - lo) * ((double)n - 1 - d);
    if (ends <= 0) return 0;
    return c->strands * ends * pi_sum(c, (uint32_t)n, d, exp(-(double)n * c->ln4), 1);
}

/* Whole occurrences of the targets as patterns in a random read of n bases. */
static double whole_tp(const gpuasm_chance *c, int64_t S, uint64_t n)
{
    if (c->o.pattern_side == GPUASM_PATTERN_READ) return 0;
    double e = 0;
    for (size_t g = 0; g < c->n_grp; g++) {
        const group_t *x = &c->grp[g];
        if (c->o.pattern_side != GPUASM_PATTERN_TARGET && x->m >= n) break;   /* the read is the pattern */
        if (x->m == 0 || x->m > QMAX || (int64_t)x->k >= (int64_t)x->m) continue;
        const int32_t d = d_at((uint32_t)x->m, x->k, S);
        if (d < 0) continue;
        const double ends = (double)n - (double)x->m + 1 + d;
        if (ends <= 0) continue;
        e += c->strands * ends * pi_sum(c, (uint32_t)x->m, d, x->w, x->n);
    }
    return e;
}

double gpuasm_chance_whole(const gpuasm_chance *c, int read_is_pattern, int64_t score, uint64_t read_len)
{
    if (!c || !c->ok) return NAN;
    return read_is_pattern ? whole_rp(c, score, read_len) : whole_tp(c, score, read_len);
}

double gpuasm_chance_target(const gpuasm_chance *c, uint32_t t, uint64_t n)
{
    if (!c || !c->ok) return NAN;
    const uint64_t L = c->tlen[t];
    const gpuasm_pair p = gpuasm_pair_of(&c->o, n, L);
    if (!p.searched) return 0;
    if (!p.read_is_pattern) {
        const double ends = (double)n - (double)L + 1 + c->k_t[t];
        return (ends > 0 ? ends * c->whole_tp[t] : 0) + c->part_tp[t];
    }
    double w = 0;
    if (n <= QMAX) {
        const double ends = (double)L - (double)n + 1 + p.k;
        if (ends > 0) w = c->strands * ends * pi_sum(c, (uint32_t)n, p.k, exp(-(double)n * c->ln4), 1);
    }
    return w + c->part_rp[t];
}
