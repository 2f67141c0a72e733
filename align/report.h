/* SPDX-License-Identifier: MIT */
/* report.h -- from a read's end hits to the occurrences that are reported,
 * each with position, CIGAR, MD and NM (README.md, "What it finds" and "SAM output").
 *
 * Candidates are the end hits themselves: the kernels report only the
 * local minima of D[m][j] (search.h).  They are ranked by score (below),
 * then distance, then forward strand, then leftmost end; one whose text
 * interval (from its
 * traceback's start to its end) overlaps an already accepted occurrence of
 * the same (read, target) is dropped.  The default keeps the first (the
 * best) and uses the second for XS; --all keeps them all.  Only accepted
 * occurrences are traced back (traceback.h): whether another candidate
 * overlaps is decided from bounds on its start (the lengths an alignment
 * with its distance can have, then gpuasm_hit_starts()), with a traceback
 * only when the bounds straddle the answer, so the choice is exactly the
 * one every candidate's traceback would give (issue #11).
 *
 * THE ORDER (issue #26).  An occurrence's score is S = a - 2 x dist, a the
 * aligned pattern bases (the pattern's length for a whole occurrence, the
 * aligned part of a partial one): one point per aligned base, two off per
 * difference (align/chance.h).  A read's occurrences, over all targets,
 * are ordered best first: the highest score, then the lowest distance, then
 * the longest aligned part, then the forward strand, then the first target
 * in file order, then the leftmost.  The first is the primary SAM record,
 * the others secondary (FLAG 0x100) in that order; SAM's AS:i is S, so a
 * record's AS never exceeds its primary's.  A 49-base adapter with one
 * difference (S = 47) ranks above 3 chance bases (S = 3).  --best keeps the
 * first only.  Everything here is a pure function of the sorted end hits,
 * so any backend that gives the same hits gives the same bytes.
 *
 * Two distances (issue #9; SAM v1.6 and SAMtags §1.1 "NM"): `dist` is the
 * search distance, what the kernels minimised, where IUPAC codes in targets
 * (and with --match-read-wildcards in reads) match the bases they stand
 * for; it ranks occurrences and gives AS = -dist and XS.  `nm` is SAM's NM:
 * the differences counting only identical A/C/G/T (any case) as matches,
 * so an N or other ambiguity code on either side is a mismatch even where
 * the search matched it (samtools calmd counts the same way).  MD and the
 * =/X of --eqx follow nm.  nm >= dist; they differ only where an ambiguity
 * code was matched.
 */
#ifndef GPUASM_REPORT_H
#define GPUASM_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <htslib/kstring.h>
#include "search/search.h"
#include "align/traceback.h"
#include "search/target_set.h"

struct gpuasm_chance;

typedef struct gpuasm_report_opt {
    int all;   /* --all */
    int best;  /* --best: one occurrence per read (not with all) */
    int eqx;   /* --eqx: =/X instead of M */
    const struct gpuasm_chance *chance;   /* the run's chance model (align/chance.h):
                                           * each occurrence's XE; NULL: none */
} gpuasm_report_opt;

/* Where a partial occurrence (search.h, "Partial occurrences") ran off:
 * the SAM tag XP:Z (gpuasm_occ_partial_name). */
enum {
    GPUASM_OCC_FULL = 0,          /* the whole pattern is aligned: no XP tag */
    GPUASM_OCC_READ_3 = 1,        /* XP:Z:read3   the target runs off the read's 3' end */
    GPUASM_OCC_READ_5 = 2,        /* XP:Z:read5   ... off the read's 5' start */
    GPUASM_OCC_TARGET_END = 3,    /* XP:Z:target3 the read runs off the target's end */
    GPUASM_OCC_TARGET_START = 4   /* XP:Z:target5 ... off the target's start */
};

/* "read3", "read5", "target3", "target5"; NULL for GPUASM_OCC_FULL. */
const char *gpuasm_occ_partial_name(uint32_t code);

/* One occurrence to write as a SAM record. */
typedef struct gpuasm_occ {
    uint32_t target;     /* target index */
    uint32_t strand;     /* 1: read reverse-complemented (FLAG 16) */
    int32_t  dist;       /* search distance (AS = -dist) */
    int32_t  nm;         /* SAM's NM (see above) */
    uint32_t plen;       /* pattern bases in the alignment */
    int64_t  score;      /* plen - 2 x dist: SAM's AS (the order above) */
    double   chance;     /* XE: occurrences at least as good a random read expects
                          * (align/chance.h); NaN: no model */
    uint32_t partial;    /* GPUASM_OCC_*: a full occurrence, or where a partial one ran off */
    int32_t  has_xs;     /* a second whole occurrence of this (read, target): */
    int64_t  xs;         /* its score (XS:i, the same scale as AS) */
    int64_t  pos;        /* 0-based leftmost target base (SAM POS - 1) */
    size_t   cigar_off;  /* into gpuasm_report.cigar */
    size_t   n_cigar;
    size_t   md_off;     /* into gpuasm_report.md.s, NUL-terminated */
} gpuasm_occ;

typedef struct gpuasm_report {
    gpuasm_occ *occ;  size_t n_occ, m_occ;    /* output order */
    uint32_t *cigar;  size_t n_cigar, m_cigar;
    kstring_t md;
    /* work space, reused from read to read */
    gpuasm_tb_work tb;
    gpuasm_aln aln;
    uint8_t *rc;      size_t m_rc;            /* reverse complement of the read */
    uint8_t *rev;     size_t m_rev;           /* reversed pattern and text (partial hits) */
    void *cand;       size_t m_cand;          /* candidates of one (read, target) */
    void *acc;        size_t m_acc;           /* accepted intervals */
    /* this read's last partial alignments (report.c's trace cache):
     * entries, and their columns' ops */
    void *tc;         size_t n_tc, m_tc;
    uint8_t *tc_op;   size_t n_tc_op, m_tc_op;
} gpuasm_report;

/* Occurrences of one read.  code/len: the read's codes (as searched);
 * hits[0..n): this read's end hits in gpuasm_hits_sort() order.  Fills
 * r->occ best first (the order above; with --best at most one).  Returns 0;
 * -1 with err on out of memory or an end hit that does not trace back
 * (a kernel fault). */
int gpuasm_report_read(gpuasm_report *r, const gpuasm_search_opt *so, const gpuasm_report_opt *o,
                       const uint8_t *code, uint32_t len, const gpuasm_targets *t,
                       const gpuasm_endhit *hits, size_t n, char *err, size_t errlen);

void gpuasm_report_free(gpuasm_report *r);

#endif
