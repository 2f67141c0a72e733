/* SPDX-License-Identifier: MIT */
/* prefilter.h -- the exact pigeonhole filter for many short patterns
 * (adapters, primers) against one text (internal to kernels/).
 *
 * Pigeonhole (Baeza-Yates & Navarro's partition lemma; Sassy2's prefilter
 * idea): cut a pattern into k + 1 pieces; an alignment with at most k
 * differences leaves at least one piece untouched (a substitution or a
 * deletion lies in one piece, an insertion between two bases of at most
 * one), so that piece occurs exactly in the text.  A pattern none of whose
 * pieces occurs exactly in a text has no end hit there, so skipping it
 * changes nothing: the filter is exact.
 *
 * Here every piece is represented by one window of q single bases inside
 * it (q = the piece length, at most GPUASM_QF_Q and at least
 * GPUASM_QF_QMIN), and a window "occurs exactly" when the text has the
 * same single bases there (nt16: a base matches only a code that holds
 * it; a read's N is code 0 and matches nothing).  Patterns whose pieces
 * are shorter than GPUASM_QF_QMIN, or have no such window (IUPAC codes),
 * are never filtered ("always" candidates), nor are patterns longer than
 * GPUASM_QF_MAX_M; a text holding an ambiguity
 * code other than 0 (reads with --match-read-wildcards) is not filtered
 * either.
 *
 * ---- Why no hit is lost (issue #16; --filter auto/on/pieces/index) --------
 * Lemma (partition; Baeza-Yates & Navarro 1999, Navarro's survey 2001,
 * section 7.1; for the k-mismatch case trivially): if a pattern P of m
 * bases is cut into k + 1 disjoint pieces and an alignment of P with a
 * text substring has at most k edit operations, some piece is aligned
 * without any operation (each substitution or deletion lies inside one
 * piece; an insertion lies between two pattern bases, so it touches at
 * most one piece when it is charged to the piece on its left), i.e. that
 * piece occurs exactly, at a position fixed by the alignment to within the
 * operations before it (at most k: the end of the occurrence is within
 * [c - k, c + k] of c, where c is the end P would have with the piece in
 * place and no shift; with mismatches only there is no shift, [c, c]).
 * The pieces used: piece i = [i m / (k + 1), (i + 1) m / (k + 1)), i.e.
 * floor(m / (k + 1)) or one more bases (the window index: k + 2 pieces
 * where they have Q bases, "Two pieces" below); a pattern is filtered only
 * when every piece has at least Q (target filter: 6..8) bases.
 * "Occurs exactly" under the nt16 rule (a & b) != 0:
 *  - N in a read (code 0) matches nothing, so a piece of a read holding an
 *    N in every Q-window can never be intact: the lemma's intact piece is
 *    one of the others, and leaving that piece out loses nothing; a piece
 *    with a clean window is looked up by it (and its clean extension).
 *  - IUPAC codes in a read (--match-read-wildcards) match several bases:
 *    such a read is never filtered (every target, every end).
 *  - IUPAC codes and N in a target: as the pattern (target filter), a
 *    piece without a clean window makes the target an "always" candidate;
 *    a window with only single bases matches a read base exactly when the
 *    bases are equal, so looking it up by its single-base key is exact.
 *    As the text (window index), windows holding a non-single code are not
 *    indexed, and instead every end an alignment touching such a code
 *    could have is a candidate: an alignment that covers text position x
 *    ends in [x, x + m + k - 1], so each ambiguous run [r0, r1] adds the
 *    range [r0 - (m + k + Q), r1 + (m + k + Q)] ("ambiguity zones"); every
 *    other alignment sees single bases only and is found by its piece.
 *  - The index's extension (rows sorted by the EXT bases after a window):
 *    a piece's bases after its window are compared only while they are
 *    single bases in the read; a target position whose extension holds a
 *    non-single code or runs past the targets is keyed 4 and never equals
 *    a read base: such an occurrence touches an ambiguous code (ambiguity
 *    zone above) or lies inside its target (a true occurrence never runs
 *    past its target's end: the whole-piece check drops the rest).
 * Two pieces (the window index, issue #16): the lemma with k + s pieces
 * (Baeza-Yates & Navarro 1999; Navarro 2001, section 7.1) leaves at least s
 * pieces untouched, since the k operations touch at most k pieces.  Where
 * m / (k + 2) >= Q the read strand is cut into k + 2 pieces, so every
 * alignment with at most k operations has two intact pieces i1 != i2.
 * Each intact piece i predicts the end c_i (its text position plus the
 * pattern bases after it), and the true end is j = c_i + d_i, d_i the net
 * insertions minus deletions after piece i (|d_i| <= k): so c_i1 - c_i2 =
 * d_i2 - d_i1 is the net of the insertions and deletions between the two
 * pieces, |c_i1 - c_i2| <= k (0 with mismatches only).  A piece hit is kept
 * (its range [c - k, c + k], as with k + 1 pieces) only when a hit of
 * another piece in the same target predicts an end within k of it: the
 * two intact pieces of every alignment are such a pair, so its end lies in
 * the ranges of both.  Alignments touching an ambiguous target code are
 * covered by the ambiguity zones whatever their pieces do; N in a read
 * only removes pieces that can never be intact.  At e = 0.1 against 20 Mb
 * this leaves about 6 windows a read instead of about 1,750 (NOTES.md).
 * The neighbour rule (issue #28: a database of thousands of genomes,
 * where the two-piece pairing sorted ~20,000 chance hits a read strand):
 * of the same k + 2 pieces P_1 .. P_n, each operation charged to one piece
 * (a text insertion between two pieces to the later one), some P_j with
 * j < n is intact and P_{j+1} holds at most one operation.  Otherwise each
 * intact P_j (j < n) is followed by a piece of >= 2 operations, one
 * distinct such piece per intact one, and the n - z pieces that are not
 * intact (z of them intact, at most one of those the last) hold at least
 * (n - z) + (z - 1) = n - 1 = k + 1 operations: more than k.  An intact P_j
 * at text position g puts the start of P_{j+1}'s alignment at g + |P_j|,
 * so the index's row of P_j gives, beside each hit, the text codes after
 * it (ext8): only the hits whose next codes can begin an alignment of
 * P_{j+1} with at most one operation (a set of ~100 strings, a bitmap
 * test per hit) are kept, each with its range [c - k, c + k]: no pairing,
 * no sort, and ~0.2% of chance hits left.  It applies where every piece
 * starts at its window and takes at most 2 extension codes (pieces of 8
 * to 10 bases: 150-base reads at e = 0.1); elsewhere the pairing above.
 * Partial occurrences (a pattern running off a text's end, search.h) are
 * not covered by the k + 1 pieces of the whole pattern (a 3-base overlap
 * has no intact piece of Q bases).  For reads as patterns the index rules
 * target ends out with pieces of their own ("The ends pass of reads as
 * patterns" below; CPU backend); for targets as patterns (adapters,
 * primers) ends_filter.h does it with exact prefixes and pieces per k_p
 * run (CPU backend, with the pieces filter's level); otherwise the ends
 * pass (partial.h) runs for every searched pair, filtered or not (the CUDA
 * backend runs every ends item: the same hits either way).
 * Local minima: the filtered walks report the local minima of D[m][j] <= k
 * inside the end ranges only; an end j outside every range has D > k by
 * the lemma, which is what the exhaustive rule sees there too, so a range
 * boundary neither adds nor removes a minimum (cpu_scan.c, filter_plan.h).
 * The differential tests: tests/bats/filter.bats (every --filter value =
 * --filter off, random edge cases and real data), tests/c/test_lanes (the
 * ranges against the naive DP), tests/c/test_verify_cuda and
 * tests/gpu/filter (the CUDA side).
 */
#ifndef GPUASM_PREFILTER_H
#define GPUASM_PREFILTER_H

#include <stdint.h>

#include "search/search.h"

/* Window lengths (bases) of the target filter: keys of q = 6, 7 and 8
 * bases (2 q bits each, in one key space of 4^6 + 4^7 + 4^8); the targets'
 * window index uses q = 8 only. */
#define GPUASM_QF_Q 8
#define GPUASM_QF_QMIN 6
/* The targets' window index looks a piece up by up to Q + EXT of its
 * bases (rows sorted by the EXT bases after each window). */
#define GPUASM_QF_EXT 8
/* Target patterns longer than this (bases) are never filtered ("always"). */
#define GPUASM_QF_MAX_M 65536

typedef struct gpuasm_qfilter {
    uint32_t n_targets;
    uint8_t *always;      /* [n_targets] 1: a candidate for every text (not filtered) */
    uint64_t *present;    /* a bit per key that some window has (an L1-sized first test) */
    uint32_t *start;      /* targets with key x: ids[start[x] .. start[x+1]) */
    uint32_t *ids;
    uint32_t *woff;       /* [like ids] where the window starts in that target */
    uint32_t *pa, *pb;    /* [like ids] its piece, [pa, pb) of the target */
    const gpuasm_seqset *targets;   /* the targets indexed (kept by pointer) */
    uint32_t n_filtered;  /* targets with windows */
    uint32_t q_used;      /* bit q: some target has windows of q bases */
} gpuasm_qfilter;

/* Index every target as a possible pattern, with k = gpuasm_pair_k(opt, m)
 * (targets that can never be a pattern, m <= k, get no windows and are not
 * "always").  nt16 codes; targets is kept by pointer (a candidate's whole
 * piece is checked against the text, not only its window).  0, or -1 when
 * out of memory (f is then empty). */
int gpuasm_qfilter_build(gpuasm_qfilter *f, const gpuasm_seqset *targets,
                         const gpuasm_search_opt *opt);

void gpuasm_qfilter_free(gpuasm_qfilter *f);

/* Set mark[t] = stamp for every target with a window occurring exactly in
 * text[0 .. n).  Returns 1 when the text cannot be filtered (it holds an
 * ambiguity code): every target is then a candidate; else 0. */
int gpuasm_qfilter_mark(const gpuasm_qfilter *f, const uint8_t *text, uint64_t n, uint32_t *mark,
                        uint32_t stamp);

/* gpuasm_qfilter_mark(), also listing the targets marked (each once, in
 * the order found) in *list (grown).  Returns their number, -1 when out of
 * memory, or -2 when the text cannot be filtered (every target is then a
 * candidate). */
int64_t gpuasm_qfilter_mark_list(const gpuasm_qfilter *f, const uint8_t *text, uint64_t n, uint32_t *mark,
                                 uint32_t stamp, uint32_t **list, size_t *cap);

/* Hamming (no shifts): where each target's windows occur in the text, the
 * window of m bases it fixes: (target, start) with the target's first
 * base at text position start (possibly outside the text), sorted by
 * (target, start), each once, in *out (grown).  Every window with at most
 * k mismatches of a filtered target is one of them.  Returns the number,
 * -1 when out of memory, or -2 when the text cannot be filtered. */
typedef struct gpuasm_seed {
    uint32_t target;
    int64_t start;
} gpuasm_seed;

int64_t gpuasm_qfilter_seeds(const gpuasm_qfilter *f, const uint8_t *text, uint64_t n,
                             gpuasm_seed **out, size_t *cap);

/* ---- reads as patterns: the targets' window index -------------------------
 * The other direction (one read, the pattern, against long targets): every
 * window of Q single bases of the targets is indexed by its key, once per
 * run.  A read strand's k + 1 pieces each give one clean window; wherever a
 * window occurs in a target, an occurrence holding that piece intact ends
 * within k of where the pattern's end falls, so the union of those end
 * ranges, widened by k (edit) or not (hamming: no shifts), holds every end
 * hit (pigeonhole).  A piece without a clean window holds an N (code 0,
 * matching nothing) in every window and can never be intact: it is left
 * out.  Target codes other than single bases (IUPAC, N) are not indexed:
 * every end that an alignment through them could reach is a range too
 * (ambiguity zones), so the filter stays exact.
 *
 * q: a piece of L bases is looked up by min(L, Q + EXT) = up to 16 of its
 * bases (the row of its first Q = 8, the sub-row of its next base, then a
 * binary search on the rest of the next EXT = 8 in the row, which is
 * sorted by them), so chance candidates per piece are about N /
 * 4^min(L, 16) for N target bases: q grows with the piece length m / (k +
 * 2) or m / (k + 1), which is what the reference size asks for; with
 * k + 2 pieces a chance hit must also meet a hit of another piece within k
 * ("Two pieces" above).  Pieces shorter than Q (with k + 1 pieces) make
 * the read unfilterable (-2): with 150-base reads, e >= 0.12.  Memory: 8
 * bytes per indexed base (8 MiB per Mb of targets: pos, ext4 and ext8;
 * both strands are served by looking up the read's reverse complement,
 * not by indexing the targets twice) plus 256 KiB of rows and 1 MiB of
 * sub-rows; while it is built (ext4 and ext8 are its scratch arrays
 * first), 8 bytes a window of the widest bucket and 16 of the widest row
 * a thread sorts; bounded by the caller (max_pos). */

typedef struct gpuasm_tindex {
    uint32_t *start;      /* [4^Q + 1] windows with key x: pos[start[x] .. start[x+1]) */
    uint32_t *pos;        /* window starts, positions in the targets' code buffer */
    /* [4^Q x 4] sub[4 x + v - 1]: the first window of row x whose first
     * extension code (the base after the window: 0-3, 4 for none) is at
     * least v, v = 1..4 (a piece's next base narrows its row at once) */
    uint32_t *sub;
    /* [n_pos] the first 4 extension codes of pos[i]'s window (ext_key's
     * top 16 bits), beside pos: a piece's lookup narrows its row by binary
     * search in this array (2 bytes a window, contiguous) instead of
     * reading the targets' bases at every step (a cache miss each: most of
     * a filtered scan's time against 20 Mb, NOTES.md) */
    uint16_t *ext4;
    /* [n_pos] all 8 extension codes of pos[i]'s window, 2 bits each, the
     * first in the top bits; a code that is no single base (or past the
     * buffer's end) as 0 (A): what the text after a piece holds, for the
     * neighbour rule (tindex.c), which reads its low 2c bits.  Its A for
     * an ambiguous code is safe there: an alignment over such a code ends
     * in its ambiguity zone's range anyway (below). */
    uint16_t *ext8;
    /* [total / 2^TOF_SHIFT + 2] tof[i]: the target holding buffer position
     * i 2^TOF_SHIFT, so a hit's target is a search among
     * tof[g >> S] .. tof[(g >> S) + 1] (one or two genomes) instead of all
     * n (13 dependent loads for 6,670 genomes: half of a read's lookups
     * against a database, issue #28) */
    uint32_t *tof;
    uint64_t *amb;        /* runs of ambiguous target codes: [amb[2i], amb[2i+1]] (buffer positions) */
    size_t n_amb;         /* runs */
    uint64_t n_pos;
    uint64_t total;       /* bases in the targets' code buffer */
    /* the neighbour rule where a read strand's pieces have at least this
     * many hits a row on average (GPUASM_TINDEX_NB_MIN_ROW from the build;
     * 0: wherever it applies, as the tests force it), else the pairing */
    uint32_t nb_min_row;
    /* enum gpuasm_simd_level (search/cpu_simd.h) of the rule's row scan:
     * 0 (the build's) the scalar loop; the caller sets its own (the CPU
     * backend's level); the hits never depend on it */
    int simd;
} gpuasm_tindex;

/* The build's nb_min_row: below ~32 hits a row the pairing (~7 ns a hit)
 * costs less than the rule's bitmap of each piece (~0.3 us). */
#define GPUASM_TINDEX_NB_MIN_ROW 32

/* One end range of a target: every j in [lo, hi] may be an end hit. */
typedef struct gpuasm_end_range {
    uint32_t target;
    uint64_t lo, hi;
} gpuasm_end_range;

/* Threads of an index build: at most this many, and one per
 * GPUASM_TINDEX_MIN_SHARE target bases. */
#define GPUASM_TINDEX_MAX_THREADS 64
#define GPUASM_TINDEX_MIN_SHARE 4096

/* Index the targets (positions must fit 32 bits: returns 1 without an
 * index when they do not, or when the targets hold more than max_pos
 * windows) on up to n_threads threads (the caller's among them); the
 * index is the same for any n_threads.  0, 1, or -1 when out of memory. */
int gpuasm_tindex_build(gpuasm_tindex *x, const gpuasm_seqset *targets, uint64_t max_pos, int n_threads);
void gpuasm_tindex_free(gpuasm_tindex *x);

/* The cost model of --filter auto for a read strand's end ranges: verify
 * them (1) when the columns they take, each range with lead columns before
 * it, are at most a quarter of the text's total, or always at level 2
 * (--filter on/index); else (0) scan the texts whole.  The CPU walk and the
 * CUDA plan (filter_plan.h) decide with this one function. */
static inline int gpuasm_tindex_pays(const gpuasm_end_range *r, int64_t nr, uint64_t lead, uint64_t total,
                                     int level)
{
    if (level >= 2) return 1;
    uint64_t cost = 0;
    for (int64_t i = 0; i < nr; i++) cost += r[i].hi - r[i].lo + 1 + lead;
    return cost <= total / 4;
}

/* The end ranges of pattern p (m bases, k differences; edit or hamming)
 * in the targets with in_group[t] == stamp, merged and sorted by (target,
 * lo), in *out (grown).  Returns the number of ranges, -1 when out of
 * memory, or -2 when the pattern cannot be filtered (pieces shorter than
 * Q, or an ambiguity code in the pattern: then every end is possible) or
 * max_hits > 0 and its pieces have more than max_hits hits in the index
 * (the caller then scans the texts whole). */
int64_t gpuasm_tindex_ranges(const gpuasm_tindex *x, const gpuasm_seqset *targets, const uint8_t *p,
                             uint32_t m, int32_t k, int hamming, const uint32_t *in_group,
                             uint32_t stamp, uint64_t max_hits, gpuasm_end_range **out, size_t *cap);

/* --filter auto's bound on a read strand's piece hits (max_hits above):
 * past one hit per GPUASM_TINDEX_HIT_SHARE bases of the texts it would
 * prune, pairing the hits (~250 ns each) costs more than scanning the
 * texts whole (~5 ns a column), so the strand is scanned. */
#define GPUASM_TINDEX_HIT_SHARE 16
static inline uint64_t gpuasm_tindex_max_hits(uint64_t total, int level)
{
    return level >= 2 ? 0 : total / GPUASM_TINDEX_HIT_SHARE + 1;
}


/* ---- The ends pass of reads as patterns (issue #16) ---------------------
 * A partial occurrence (search.h) of a read strand P (m bases) at the end
 * of a target T aligns P[0 .. p) to T's last bases with D_p <= k_p, for p
 * in [omin, m - 1]; it lies in T's last W = min(n, m - 1 + k_{m-1}) bases
 * (partial.h), since p + k_p <= m - 1 + k_{m-1}.  Cut P into pieces of L
 * bases from its start, L = min over the acceptable p of
 * floor(p / (k_p + 1)) (gpuasm_partial_piece_len; k_p of gpuasm_partial_kf
 * under the reads' floor, search.h): P[0 .. p) then holds
 * floor(p / L) >= k_p + 1 whole pieces, and its k_p operations touch at
 * most k_p of them (the partition lemma above; the alignment's free
 * start in T adds no operation), so one of them occurs exactly inside the
 * alignment's text, i.e. inside T's last W bases.  The text start is the
 * mirror image: pieces from P's end, inside T's first W bases.  A target
 * end with no such piece hit has no partial occurrence: its ends-pass DP
 * (partial.h) is skipped, and the one it runs for a marked end is the
 * same, so the hits are unchanged.  As for whole occurrences: a read
 * piece with N (code 0) in every window is never intact (left out); a
 * read with other ambiguity codes is not filtered (-2); an ambiguous code
 * in a target's end window makes that end a candidate whatever the pieces
 * do (gpuasm_tindex_end_amb: the index holds single-base windows only);
 * hamming mode is the same lemma without shifts.  L < Q: no filter. */

/* L of the ends pass's pieces for reads of m bases (omin: the shortest
 * overlap), or 0 when they would be shorter than GPUASM_QF_Q bases. */
uint32_t gpuasm_partial_piece_len(const gpuasm_search_opt *o, uint32_t omin, uint32_t m);

/* The same with k_p + 2 pieces: L2 = min over the acceptable p of
 * floor(p / (k_p + 2)), or 0 when shorter than GPUASM_QF_Q.  Then every
 * partial occurrence leaves two of its whole pieces intact, and their
 * text positions minus their offsets in P (their diagonals) differ by at
 * most k_p <= k_{m-1} (each operation shifts the diagonal by one at most):
 * the ends index marks an end only for two such hits of different pieces
 * (gpuasm_ends_index_marks), as the targets' index pairs pieces for whole
 * occurrences ("Two pieces" above).  Against a database of thousands of
 * genomes the one-piece rule marked ~1,100 ends a read, nearly all by
 * chance: their DP was half of the scan (issue #28). */
uint32_t gpuasm_partial_piece_len2(const gpuasm_search_opt *o, uint32_t omin, uint32_t m);

/* The ends-pass marks' parameters for read strands of m bases as the
 * pattern (the CPU walk and the CUDA ends plan share them): L (one-piece
 * rule) and W = m - 1 + k_{m-1} (both 0: the marks do not apply), L2 and
 * slack (the two-piece rule; L2 0: one piece; slack 0 in hamming mode). */
typedef struct gpuasm_read_ends {
    uint32_t L, W, L2;
    int32_t slack;
} gpuasm_read_ends;
gpuasm_read_ends gpuasm_read_ends_of(const gpuasm_search_opt *o, uint64_t m, int hamming);

/* Words of a bitmap of Q-base keys (4^Q bits: 8 KiB). */
#define GPUASM_END_BITS_WORDS (((size_t)1 << (2 * GPUASM_QF_Q)) / 64)

/* bits (GPUASM_END_BITS_WORDS words): the keys of every window of Q single
 * bases within the first and the last W bases of each target.  A piece
 * with a window whose key is not there occurs in no end window: a check
 * in cache before the index's lookup (a few cache misses), which most
 * pieces fail when the targets are few (8 KiB; with many targets the bits
 * fill up and decide nothing, which is still exact). */
void gpuasm_end_bits(const gpuasm_seqset *targets, uint32_t W, uint64_t *bits);

/* The targets whose marks a call below turned from 0 to nonzero, each
 * once, in the order it did: t[0 .. n), room for every target (so that a
 * caller with thousands of targets clears and reads the few marked ones,
 * not all: issue #28). */
typedef struct gpuasm_marked {
    uint32_t *t;
    uint32_t n;
} gpuasm_marked;

/* mark[] back to 0 where marked lists a target; marked emptied. */
void gpuasm_marked_clear(uint32_t *mark, gpuasm_marked *marked);

/* ends[i] ORed into mark[t[i]], i < n, each target listed in marked the
 * first time its mark leaves 0 (the ends an ambiguous code reaches). */
void gpuasm_marked_or(uint32_t *mark, gpuasm_marked *marked, const uint32_t *t, const uint8_t *ends, uint32_t n);

/* For read strand p (m bases): set bit 0 (the target's end) and bit 1
 * (its start), among ends, of mark[t] for each target t with in_group[t]
 * == stamp where a piece of L bases occurs exactly within the W bases of
 * that end (the caller clears mark[] first), listing t in marked when not
 * NULL.  bits: gpuasm_end_bits() of the targets for a W' >= W, or NULL.
 * 0, or -2 when the read cannot be filtered (L unusable, or an ambiguity
 * code in the read; marks may be set then too). */
int gpuasm_tindex_end_marks(const gpuasm_tindex *x, const gpuasm_seqset *targets, const uint8_t *p,
                            uint32_t m, uint32_t L, uint32_t W, uint32_t ends, const uint64_t *bits,
                            const uint32_t *in_group, uint32_t stamp, uint32_t *mark, gpuasm_marked *marked);

/* The targets' end windows as sets of their own, each with an index of it
 * (issue #28): for each copy width cw (GPUASM_ENDS_INDEX_WS) and side,
 * sequence t holds target t's first (side 0, the text start) or last
 * (side 1, the text end) min(cw, len) bases.  gpuasm_tindex_end_marks
 * looks a read's pieces up in the whole index, where a piece of a read
 * against thousands of genomes has hundreds of places, nearly all far
 * from any end; here only the places within cw of the end it asks for
 * are, in the narrowest copy with cw >= W.  Same marks (the windows hold
 * every base the rule accepts, W' <= W <= cw).  One copy of 512 bases
 * for both sides held 6x the places a 150-base read (W 163) can use:
 * scanning them was most of the marks' time. */
#define GPUASM_ENDS_INDEX_W 512u          /* the widest copy: a W above it is not served */
#define GPUASM_ENDS_INDEX_TIERS 2
#define GPUASM_ENDS_INDEX_WS { 192u, GPUASM_ENDS_INDEX_W }   /* narrowest first */
typedef struct gpuasm_ends_copy {
    gpuasm_seqset set;      /* the n_targets windows (off, code owned here) */
    uint64_t *off;
    uint8_t *code;
    gpuasm_tindex x;
    uint32_t cw;
    int built;
    int uniform;            /* every window cw bases: window t at t cw */
} gpuasm_ends_copy;
typedef struct gpuasm_ends_index {
    gpuasm_ends_copy copy[GPUASM_ENDS_INDEX_TIERS][2];   /* [tier][side] */
} gpuasm_ends_index;

/* The narrower copies are built where the widest ones hold at least this
 * many windows (both sides; ~1,000 genomes), or where all_tiers asks. */
#define GPUASM_ENDS_NARROW_MIN ((uint64_t)1 << 20)

/* Build e for targets (max_pos, n_threads: gpuasm_tindex_build's; all_tiers:
 * every copy width, not only where it pays).  0, 1 when it would pass
 * max_pos (e is then not built: the whole index serves), or -1 when out
 * of memory. */
int gpuasm_ends_index_build(gpuasm_ends_index *e, const gpuasm_seqset *targets, uint64_t max_pos, int n_threads,
                            int all_tiers);
void gpuasm_ends_index_free(gpuasm_ends_index *e);

/* The bytes an index holds (its arrays), and the end windows' index's
 * (its copies and their indexes). */
uint64_t gpuasm_tindex_bytes(const gpuasm_tindex *x);
uint64_t gpuasm_ends_index_bytes(const gpuasm_ends_index *e);

/* gpuasm_tindex_end_marks() through e (built for targets) with re's L
 * and W (gpuasm_read_ends_of for m; W <= GPUASM_ENDS_INDEX_W); the same
 * marks, and the same return values.  With re->L2 > 0 the pieces are L2
 * bases and an end is marked only where two hits of different pieces lie
 * on diagonals at most re->slack apart: a subset of the one-piece marks
 * that still holds every partial occurrence.  max_hits > 0: more than
 * max_hits piece hits within W of the ends decline (-2: every end runs;
 * gpuasm_ends_max_hits()).  *scratch (*cap entries) is the caller's,
 * grown here; -1 when it cannot grow.  marked as above. */
int gpuasm_ends_index_marks(const gpuasm_ends_index *e, const gpuasm_seqset *targets, const uint8_t *p,
                            uint32_t m, const gpuasm_read_ends *re, uint32_t ends, const uint32_t *in_group,
                            uint32_t stamp, uint32_t *mark, gpuasm_marked *marked, uint64_t **scratch,
                            size_t *cap, uint64_t max_hits);

/* --filter auto's bound on the end marks' piece hits of a read strand
 * (max_hits above), as gpuasm_tindex_max_hits() bounds the whole
 * occurrences': cols = the columns the ends pass runs when every end
 * runs (the sum over the group's ends of min(target length, W)).  A
 * periodic read against a periodic target end (issue #28's periodic
 * case) put ~400 hits an end through the pairing, ~48 us a read where
 * its two ends' DP costs ~5 us; reads of unrelated text have ~0.3. */
static inline uint64_t gpuasm_ends_max_hits(uint64_t cols, int level)
{
    return level >= 2 ? 0 : cols / GPUASM_TINDEX_HIT_SHARE + 1;
}

/* The ends (bit 0: end, bit 1: start) of target t whose W bases hold an
 * ambiguous code: candidates whatever the pieces say. */
int gpuasm_tindex_end_amb(const gpuasm_tindex *x, const gpuasm_seqset *targets, uint32_t t, uint32_t W);

#endif
