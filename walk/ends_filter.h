/* SPDX-License-Identifier: MIT */
/* ends_filter.h -- the exact candidate filter of the ends pass for many
 * short target patterns (adapters, primers, barcodes) against a read
 * (internal to kernels/; issue #16 with #9's default --overlap 3).
 *
 * The ends pass (partial.h) looks, for every (read strand, target, end),
 * for the best partial occurrence: a prefix P[0 .. p) of the pattern
 * aligned to a suffix of the text (text end), or a suffix P[m-p .. m) to a
 * prefix (text start), omin <= p <= m - 1, acceptable when k_p < p and
 * D_p <= k_p (search.h, gpuasm_partial_k).  This filter drops the
 * (target, end) items that provably have no acceptable p; partial_best()
 * runs unchanged on the rest, so the end hits are the same bytes by
 * construction (tests/c/test_ends_filter, tests/bats/ends_filter.bats).
 *
 * ---- Why no partial occurrence is lost ------------------------------------
 * Text end; the text start is the same on the reversed pattern Q = rev(P)
 * and the reversed text (a suffix of P aligned to a prefix of T is a prefix
 * of rev(P) aligned to a suffix of rev(T), as partial.h computes it).
 * Let Q be the pattern as searched at that end, T the text, n its length.
 * D_p (partial.h) is the cost of an alignment of Q[0 .. p) with a text
 * suffix T[i .. n) (free start in the text, no trailing pattern deletion).
 * Group the p of [omin, m - 1] with k_p < p into runs of equal
 * c = k_p (k_p does not decrease with p): [lo, hi].
 *  - c = 0, p <= 8 ("exact" rule): D_p <= 0 means Q[0 .. p) matches
 *    T[n-p .. n) base for base.  Looked up by (p, key of the text's last p
 *    bases): a target is a candidate when its (p, key of Q[0 .. p)) is
 *    there for some p of the run.
 *  - c = 0, p in [max(lo, 9), hi]: the piece Q[0 .. a), a = max(lo, 9),
 *    occurs exactly with its start p (in [a, hi]) bases before the text's
 *    end ("piece" rule below with one piece and no shift).
 *  - c >= 1 ("piece" rule; Baeza-Yates & Navarro's partition lemma, as
 *    prefilter.h): cut Q[0 .. lo) into c + 1 pieces of a = floor(lo / (c +
 *    1)) bases at s = 0, a, 2a, .., c a: every p of the run has them all
 *    inside Q[0 .. p), and an alignment with at most c operations leaves
 *    one of them intact (a substitution or deletion lies in one piece, an
 *    insertion between two bases touches at most the piece on its left;
 *    a trailing insertion after Q[p-1] touches none).  Take the FIRST
 *    intact piece, j = s / a: pieces 0 .. j-1 are each touched by an
 *    operation of their own, every one of them before Q[s] (inside the
 *    piece, or an insertion after one of its bases and before the next
 *    base, at most Q[s]), so at most c - j operations lie after Q[s]; the
 *    piece occurs at text position x with
 *        n - x = (p - s) + (insertions - deletions after it),
 *    so d = n - x lies in [lo - s - (c - j), hi - s + (c - j)] (edit) or
 *    is p - s exactly (hamming: no shifts, [lo - s, hi - s]), and d >= a
 *    (the piece is inside the text).  (With c - j the last piece's window
 *    is as wide as the run, the first's 2c wider: 40% fewer windows than
 *    c for every piece at c = 2, measured in NOTES.md.)  A target is a candidate at this end when one of
 *    its pieces occurs in the text at a distance d inside its range.
 *    A run with a < GPUASM_EF_AMIN (4) bases cannot be cut: the target is
 *    a candidate at that end for every text ("always").
 * So an item none of whose rules fires has D_p > k_p for every p: no
 * partial occurrence, and partial_best() would have returned none.
 * Codes ("occurs exactly" under the nt16 rule (a & b) != 0):
 *  - a read's N is code 0 and matches nothing: a window holding one can
 *    hold no matched base, so it is never looked up, and a piece or prefix
 *    that covers it cannot be the intact one;
 *  - IUPAC codes in a read (--match-read-wildcards) match several bases:
 *    a read strand with one in the windows looked at is not filtered
 *    (every target a candidate at that end);
 *  - IUPAC codes (and N) in a target: a prefix or piece a rule needs that
 *    holds one is not keyed: the target is "always" at that end.  Pieces
 *    and prefixes of single bases match a read base exactly when equal, so
 *    their 2-bit keys are exact.
 * Scope: nt16, the target as the pattern (group B of cpu_scan.c), patterns
 * of at most GPUASM_EF_MAX_M bases (longer ones are "always").  The byte
 * alphabet, reads as patterns (a read running off a genome's ends) and the
 * per-pair kernels (dp, scan) are not filtered.  The CUDA backend's ends
 * kernel (partial_cuda.cu, one thread per item) is not filtered either:
 * the filter never changes a hit, so CUDA = CPU bytes stays true.
 */
#ifndef GPUASM_ENDS_FILTER_H
#define GPUASM_ENDS_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "search/search.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The shortest piece the piece rule keys (bases); shorter runs: "always". */
#define GPUASM_EF_AMIN 4
/* Keys hold at most this many bases (exact prefixes p <= 8; longer pieces
 * are keyed by their first 8 bases and compared whole). */
#define GPUASM_EF_Q 8
/* Bases of a bucket of gpuasm_efilter.qdmask (32 buckets: 0 .. 123 and
 * the rest). */
#define GPUASM_EF_DBUCKET 4
/* Longer target patterns are never filtered ("always"). */
#define GPUASM_EF_MAX_M 4096
/* --filter auto (level 1) builds the filter only for at least this many
 * filterable targets: against 4,000 illumina reads, 1 bbmap adapter took
 * 41 -> 32 ms of scan with it (best of 3, within the noise of this shared
 * machine), 4 adapters 202 -> 57 ms (NOTES.md); a lone short primer's
 * look-ups may cost what its ends pass costs. */
#define GPUASM_EF_AUTO_MIN 2

/* One piece entry: the piece Q[s .. s + a) of target t may be the first
 * intact one when it starts d bases before the text's end, dlo <= d <=
 * dhi; r: the text bases its run's acceptable occurrences can span
 * (gpuasm_efilter_mark's reach: hi + c, hi for hamming).  Entries of
 * several targets that are the same rule (the same piece bases, a, dlo,
 * dhi and r: adapters of one family share their first tens of bases) are
 * one entry, group g = its index in pent, whose targets are
 * gtgt[gstart[g] .. gstart[g+1]): its piece is compared once and fires
 * for all of them (t, s: the group's first target, where the bases are
 * read). */
typedef struct gpuasm_ef_piece {
    uint32_t t;
    uint16_t s, a, dlo, dhi, r;
} gpuasm_ef_piece;

typedef struct gpuasm_efilter {
    uint32_t n_targets;
    uint8_t *always;            /* [n_targets] bit e: a candidate at end e for every text */
    uint8_t *filtered;          /* [n_targets] 1: has rules (or always bits) */
    uint64_t *roff;             /* [n_targets] offset of rev(P) in rcode, UINT64_MAX: none */
    uint8_t *rcode;             /* reversed targets (the text start's Q) */
    const gpuasm_seqset *targets;
    /* per end e (0: text end, 1: text start): exact rows by (p, key),
     * piece rows by (q, key), both in the key space of q_base() */
    uint32_t *xstart[2], *xids[2];
    uint64_t *xbits[2];         /* [rows / 64 + 1] bit row: the exact row has ids (a
                                 * look-up of xstart, 350 KB, missed the cache) */
    uint32_t *pstart[2];
    gpuasm_ef_piece *pent[2];
    uint16_t *pmaxw[2];         /* [rows] the widest dhi - dlo of a piece row (its entries
                                 * are sorted by dlo: a window's look-up is a binary search
                                 * and the few entries within pmaxw of d) */
    uint8_t *qmask[2];          /* [4^GPUASM_EF_Q] by the key of a window's last 8 bases:
                                 * bit q - GPUASM_EF_AMIN set when the piece row of its
                                 * last q bases has entries */
    uint32_t *qdmask[2];        /* [4^GPUASM_EF_Q] by the same key: bit b set when one of
                                 * those rows has an entry whose range holds a d with the
                                 * window's last base b-th bucket from the end (bucket
                                 * GPUASM_EF_DBUCKET bases; the last one takes the rest):
                                 * a window outside every bit needs no look-up */
    uint32_t *gstart[2], *gtgt[2];  /* [n_groups + 1] and the groups' targets (by target) */
    uint32_t n_groups[2];
    uint32_t x_used[2], p_used[2];  /* bit p / q: some entry has it */
    uint32_t dmax[2];           /* the farthest text base a rule looks at */
    uint32_t n_filtered;        /* targets with rules */
    uint64_t n_entries;
} gpuasm_efilter;

/* Build the rules of every target as a pattern (k and k_p from opt, edit
 * or hamming by gpuasm_search_mode).  Targets that can never be a pattern
 * or take no partial occurrence (omin = 0) get none and are never
 * candidates (the ends pass has nothing for them).  0, or -1 when out of
 * memory (f is then empty). */
int gpuasm_efilter_build(gpuasm_efilter *f, const gpuasm_seqset *targets, const gpuasm_search_opt *opt);
void gpuasm_efilter_free(gpuasm_efilter *f);

/* Scratch of gpuasm_efilter_mark() (grown, no per-read allocation). */
typedef struct gpuasm_ef_ws {
    uint8_t *tail;
    size_t cap_tail;
    uint32_t *gmark;            /* [n_groups[0] + n_groups[1]]: gstamp where the group fired */
    size_t cap_gmark;
    uint32_t gstamp;
    int simd;                   /* enum gpuasm_simd_level (search/cpu_simd.h) of the window
                                 * scan; 0 (scalar) as zeroed.  The marks never depend on it */
    uint32_t *wj;               /* the scan's windows that pass the qdmask: j, then key */
    size_t cap_wj;
    uint8_t *c2;                /* the scan's 2-bit codes of the tail */
    size_t cap_c2;
} gpuasm_ef_ws;

/* For the text[0 .. n) of one read strand and the ends in `ends` (bit 0:
 * the text's end, bit 1: its start), set mark[e][t] = stamp for every
 * target whose rules fire at end e, and list each such target once in
 * *list (grown; targets that are only "always" are not listed).  Returns
 * the number listed, -1 when out of memory, or -2 when the text cannot be
 * filtered (an ambiguity code other than 0 in the bases looked at): every
 * item is then a candidate.
 *
 * reach (NULL: not wanted): reach[e][t], valid where mark[e][t] == stamp,
 * is set to the most text bases, counted from end e, that an acceptable
 * partial occurrence of a fired rule can span: hi + c of its run [lo, hi]
 * with c differences (hi for hamming: no shifts), p for an exact p.  Every
 * acceptable occurrence of the item lies in a fired run (the proof above),
 * and one of p pattern bases at cost D <= k_p spans at most p + D text
 * bases, so the ends pass restricted to the last reach[e][t] text bases
 * finds the same acceptable lengths with the same D_p (a restricted D is
 * never below the whole one): gpuasm_ends_word_best()'s reach. */
int64_t gpuasm_efilter_mark(const gpuasm_efilter *f, const uint8_t *text, uint64_t n, uint32_t ends,
                            uint32_t *mark[2], uint32_t stamp, uint32_t *reach[2], uint32_t **list,
                            size_t *cap, gpuasm_ef_ws *ws);

void gpuasm_ef_ws_free(gpuasm_ef_ws *ws);

#ifdef __cplusplus
}
#endif

#endif
