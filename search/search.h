/* SPDX-License-Identifier: MIT */
/* search.h -- the one interface every search kernel implements: a batch of
 * reads and the target set in, a list of end positions ("end hits") out.
 *
 * Problem (README.md, "What it finds"; seed 000 §IV, seed 001 §4): for every read r, every
 * target t and both strands s of the read, pattern P = the shorter of the two
 * sequences (override: gpuasm_search_opt.pattern_side), text T = the longer.
 * For every text position j the kernel computes
 *     D[m][j] = min over i <= j+1 of ED(P, T[i..j])          (edit mode)
 * and reports (r, t, s, j, D[m][j]) for every j that is a local minimum
 * of D[m][.] within distance k:
 *     D[m][j] <= k,
 *     j == 0   or D[m][j-1] >  D[m][j],
 *     j == n-1 or D[m][j+1] >= D[m][j]
 * (the leftmost end of each valley), where k = gpuasm_pair_k().  One
 * occurrence makes about 2k+1 ends with D <= k but usually one local
 * minimum, and only minima are ever reported (align/report.h), so only
 * they leave the kernel.  Pairs with m <= k are not searched (every
 * position would match; this also skips empty reads).
 *
 * Orientation: strand 0 uses the read as given; strand 1 uses its reverse
 * complement (FLAG 16 in SAM).  When the read is the text, j is a 0-based
 * position in the strand's own sequence (for strand 1: in revcomp(read)).
 * When the read is the pattern, j is a 0-based position in the target.
 *
 * Every backend (CPU twin, CUDA) must report exactly the same set of end
 * hits; order is unspecified (gpuasm_hits_sort() makes it canonical).
 *
 * Partial occurrences (opt.overlap_min, opt.read_overlap_min; issue #9):
 * the pattern may also run off either end of the text, as an adapter runs
 * off a read's 3' end in cutadapt.  For each searched (read, target,
 * strand) and each end of the text taken (opt.partial_ends), the best such
 * occurrence is one more end hit (kind != GPUASM_HIT_FULL, at most one per
 * end): see "Partial occurrences" below and kernels/partial.h.  They come
 * from one shared pass (partial.h on the CPU, partial_cuda.cu on the GPU)
 * after the kernel, so every kernel has them.
 *
 * Which kernel computes D (and in which mode: edit or hamming) is
 * opt.kernel, a row of the kernel table (registry.h).  The pair rules
 * below (pattern side, k, which pairs are searched) are written once, as
 * GPUASM_HD functions that host code and CUDA device code both call.
 */
#ifndef GPUASM_SEARCH_H
#define GPUASM_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include "search/nt16.h"
#include "search/status.h"

/* A set of sequences in one buffer: sequence i is code[off[i] .. off[i+1]),
 * one nt16 code per byte (see nt16.h).  Read codes are already filtered with
 * gpuasm_read_code(); target codes are full IUPAC sets. */
typedef struct gpuasm_seqset {
    uint32_t n;            /* number of sequences */
    const uint64_t *off;   /* [n + 1] offsets in bases; off[0] == 0 */
    const uint8_t *code;   /* [off[n]] nt16 codes */
} gpuasm_seqset;

enum gpuasm_pattern_side {
    GPUASM_PATTERN_SHORTER = 0, /* default: the shorter sequence; the read on ties */
    GPUASM_PATTERN_READ    = 1, /* the read is always the pattern */
    GPUASM_PATTERN_TARGET  = 2  /* the target is always the pattern */
};

/* Symbols of the sequences of a scan. */
enum gpuasm_alphabet {
    GPUASM_ALPHABET_NT16 = 0,  /* nt16 set codes (nt16.h), match = (a & b) != 0, both strands */
    GPUASM_ALPHABET_BYTE = 1   /* any byte, match = (a == b), strand 0 only (library API) */
};

/* Kernel variants, for reproducing a paper's layout next to ours.  Same hits. */
enum gpuasm_variant {
    GPUASM_VARIANT_BEST   = 0, /* the fastest layout we have */
    GPUASM_VARIANT_PAPER  = 1, /* the seed paper's layout (hamming: OPT-block-thread, seed 004 §4) */
    GPUASM_VARIANT_THREAD = 2  /* hamming: one thread per text position, no shared memory (seed 004 "thread") */
};

/* Which strands of the read are searched (gpuasm_search_opt.strand). */
enum gpuasm_strand_mode {
    GPUASM_STRAND_BOTH    = 0, /* the read as given and its reverse complement */
    GPUASM_STRAND_FORWARD = 1  /* the read as sequenced only (adapters, primers) */
};

/* Ends of the text where partial occurrences are taken (bits of
 * gpuasm_search_opt.partial_ends), in the orientation the text has in its
 * file: for a read that is the text, GPUASM_END_3 is the read's 3' end as
 * sequenced (a prefix of an adapter at the end of the read, cutadapt's 3'
 * adapter), GPUASM_END_5 its 5' start (a suffix of the pattern at the start
 * of the read, cutadapt's 5' adapter); on strand 1 (the read reverse-
 * complemented) those are the searched text's start and end.  For a target
 * that is the text: its end and its start. */
enum {
    GPUASM_END_3 = 1,
    GPUASM_END_5 = 2
};

/* What to search for.  Plain values so it can be passed to CUDA by value.
 * Zero-initialised fields give the defaults (myers, nt16, best, auto, both
 * strands, no partial occurrences), except max_diffs, where 0 means k = 0
 * (use -1 for "from error_rate"). */
typedef struct gpuasm_search_opt {
    int32_t max_diffs;     /* k; < 0 means use error_rate */
    double  error_rate;    /* k = floor(error_rate * m) in double arithmetic */
    int32_t pattern_side;  /* enum gpuasm_pattern_side */
    int32_t kernel;        /* enum gpuasm_kernel: a row of the kernel table (registry.h) */
    int32_t alphabet;      /* enum gpuasm_alphabet */
    int32_t variant;       /* enum gpuasm_variant */
    int32_t segments;      /* dp kernel: split each text into this many segments
                            * (seed 000's D, Table I); 0: the kernel chooses */
    int32_t strand;        /* enum gpuasm_strand_mode */
    int32_t overlap_min;   /* partial occurrences of a target that is the pattern need at
                            * least this many aligned pattern bases (cutadapt's -O); 0: none */
    int32_t read_overlap_min; /* the same for a read that is the pattern; 0: none;
                            * -1: half the read, rounded up */
    int32_t partial_ends;  /* GPUASM_END_3 | GPUASM_END_5: where partial occurrences are taken */
    int32_t filter;        /* enum gpuasm_filter: the exact pigeonhole filters (prefilter.h);
                            * never changes a hit, only which cells are computed */
    int32_t partial_floor; /* the significance floor of partial occurrences of targets as
                            * patterns: the least score p - 2 D_p kept (align/chance.h);
                            * 0: none (cutadapt's -O semantics) */
    int32_t read_partial_floor; /* the same for reads as patterns */
    int32_t keep;          /* enum gpuasm_keep: which full hits a scan returns */
} gpuasm_search_opt;

/* Which full end hits a scan returns (gpuasm_search_opt.keep; issue #28,
 * "best-per-pair on the fly").  Without --all the report (align/report.h)
 * uses, of one read and target, only its first candidate c1 and the first
 * full hit after c1 in its order that does not overlap c1 (for XS), so
 * GPUASM_KEEP_REPORTED drops the hits that can be neither, and hit density
 * no longer sets memory, sorting or rounds:
 *
 *   Of the full hits of one (read, target, strand) at one distance d, in
 *   increasing end: keep the first (end e1), every one ending at or before
 *   e1 + 2L - 2, and the first one after that; once a distance has kept
 *   that last one, drop the strand's hits at larger distances.  L bounds a
 *   span's length: the read's length + its k (a read pattern's span is at
 *   most m + d bases; a target pattern's lies inside the read).  Partial
 *   hits are all kept.
 *
 * Why the report's bytes stay the same: full candidates rank by
 * (distance, strand, end), so c1 is the first hit of its (strand, d) and
 * is kept.  A span lies within L bases before its end (mirrored, after),
 * so the hits of one (strand, d) that overlap c1 end within 2L - 1 bases
 * of each other: if the first one overlaps c1, every one that does ends
 * at or before e1 + 2L - 2, and the first that does not is kept.  A
 * distance that kept a hit past e1 + 2L - 2 holds two hits that cannot
 * both overlap c1, so XS comes from it or an earlier (strand, d), never
 * from a larger distance of that strand.  With --all every hit is kept. */
enum gpuasm_keep {
    GPUASM_KEEP_ALL = 0,        /* every local minimum (search.h's contract above) */
    GPUASM_KEEP_REPORTED = 1    /* only what the report without --all can use (the rule above) */
};

/* --filter: which exact filters a backend may use (prefilter.h).  Every
 * value gives the same end hits; they differ only in work skipped. */
enum gpuasm_filter {
    GPUASM_FILTER_AUTO = 0,    /* both, each where its cost model says it pays */
    GPUASM_FILTER_OFF = 1,     /* exhaustive: every cell of every pair */
    GPUASM_FILTER_ON = 2,      /* both, wherever they apply */
    GPUASM_FILTER_PIECES = 3,  /* only the patterns' pieces (targets as patterns), wherever it applies */
    GPUASM_FILTER_INDEX = 4,   /* only the targets' index (reads as patterns), wherever it applies */
    GPUASM_FILTER_N = 5
};

/* What an end hit is (gpuasm_endhit.kind). */
enum gpuasm_hit_kind {
    GPUASM_HIT_FULL = 0,       /* the whole pattern ends at text position end (the contract above) */
    GPUASM_HIT_TEXT_END = 1,   /* the prefix P[0 .. plen) ends at the text's last position
                                * (end = n - 1): the pattern runs off the text's end */
    GPUASM_HIT_TEXT_START = 2  /* the suffix P[m - plen .. m) starts at text position 0: the
                                * pattern runs off the text's start; end = 0 (the aligned
                                * text part ends where the traceback puts it) */
};

/* One text position where the pattern ends with at most k differences, at a
 * local minimum of D[m][.] (see above). */
typedef struct gpuasm_endhit {
    uint32_t read;    /* index of the read within its batch */
    uint32_t target;  /* index of the target (file order) */
    uint32_t end;     /* 0-based end position in the text, inclusive (see above) */
    int32_t  dist;    /* D[m][end], 0 <= dist <= k (partial: <= k of plen) */
    uint16_t strand;  /* 0: read as given, 1: read reverse-complemented */
    uint16_t kind;    /* enum gpuasm_hit_kind */
    uint32_t plen;    /* partial hits: aligned pattern bases (< m); full hits: 0 */
} gpuasm_endhit;

/* Growable array of end hits.  limit (0: none) bounds what one scan may
 * store here: a scan that would store more stops with GPUASM_ERR_HIT_LIMIT
 * (memory grows with hits, not bases: issue #12), and the caller scans
 * fewer reads at a time.  scanned (set by every scan): the reads of the
 * scan's batch whose hits are all here, sorted: all of them after a scan
 * that returned 0; after GPUASM_ERR_HIT_LIMIT, the first `scanned` reads
 * where the backend stopped at a read (the CPU's: its threads take reads
 * in order, and the limit is passed by at most a chunk a thread), so the
 * caller may keep them as a round instead of scanning them again; 0 where
 * it did not (CUDA: the hits are not kept). */
typedef struct gpuasm_hits {
    gpuasm_endhit *hit;
    size_t n, cap;
    size_t limit;
    uint32_t scanned;
} gpuasm_hits;

/* What a scan did, for --stats and the benchmarks.  Summable. */
typedef struct gpuasm_scan_stats {
    double kernel_s;    /* device time of the search kernels (CUDA events); CPU: = scan_s */
    double scan_s;      /* wall time inside the scan calls (copies, kernels, hit return) */
    double cells;       /* sum over searched pairs and strands of m x n (DP cells) */
    uint64_t end_hits;  /* end hits returned */
    uint64_t scans;     /* scan calls */
    /* The exact filters (prefilter.h; CPU backend): read strands whose
     * texts were searched only in the index's candidate windows, read
     * strands that had the index but were searched whole (the cost model
     * or a read the lemma cannot cut), and target patterns that the
     * pieces filter kept / dropped (summed over read strands). */
    uint64_t index_strands, index_declined, pieces_kept, pieces_dropped;
    /* The ends pass (partial.h; CPU backend): (pair, strand, end) items
     * whose DP ran, and those an exact filter ruled out (prefilter.h for
     * reads as patterns, ends_filter.h for targets as patterns);
     * ends_settled: of ends_run, those an adapter family's one DP settled
     * (walk/ends_classes.h) instead of their own. */
    uint64_t ends_run, ends_skipped, ends_settled;
    /* The text columns of periodic runs (walk/periodic.h; CPU backend)
     * whose DP was left out, summed over read strands. */
    uint64_t periodic_cols;
    /* Inside scan_s: building the targets' index (wall seconds, once per
     * target set: the first scan builds it) and, on CUDA, planning the
     * candidate windows on host threads (filter_plan.h; wall seconds of
     * the planning, overlapped or not with the GPU's verification). */
    double index_build_s, plan_s;
    /* The bytes of the tables those builds made (the targets' index, the
     * end windows' index: gpuasm_cpu_prep_bytes), which the engine holds
     * for the run, not the reads: outside --max-memory's bound. */
    uint64_t tables_bytes;
    /* Inside kernel_s, CUDA only (0 on the CPU): the span of the ends pass
     * (partial_cuda.cu, every launch of it, on a stream of its own beside
     * the search kernels: from the batch's uploads to its last kernel's
     * end), and the cells of its warp path (m x W per item:
     * patterns over 256 bases in edit mode on nt16, partial_warp.cuh), both
     * summed over the passes of a batch (a hit-buffer overflow runs it
     * again). */
    double ends_kernel_s, ends_cells;
} gpuasm_scan_stats;

/* ---- the pair rules: one definition for host C and CUDA device code ------ */

/* Strands searched: 2 for DNA (nt16), 1 for the byte alphabet or when only
 * the read as sequenced is searched. */
GPUASM_HD int gpuasm_strands(const gpuasm_search_opt *o)
{
    return (o->alphabet == GPUASM_ALPHABET_BYTE || o->strand == GPUASM_STRAND_FORWARD) ? 1 : 2;
}

/* Is the read the pattern of pair (read_len, target_len)?  The shorter
 * sequence is, the read on ties, unless pattern_side says otherwise. */
GPUASM_HD int gpuasm_read_is_pattern(const gpuasm_search_opt *o, uint64_t read_len,
                                     uint64_t target_len)
{
    if (o->pattern_side == GPUASM_PATTERN_READ) return 1;
    if (o->pattern_side == GPUASM_PATTERN_TARGET) return 0;
    return read_len <= target_len;
}

/* k for a pattern of m bases: max_diffs as given, else floor(e * m) in
 * double arithmetic (IEEE multiply and floor: the same on the device). */
GPUASM_HD int32_t gpuasm_pair_k(const gpuasm_search_opt *o, uint64_t m)
{
    if (o->max_diffs >= 0) return o->max_diffs;
    return (int32_t)floor(o->error_rate * (double)m);
}

/* Is a pair with pattern length m, k and text length n searched at all?
 * m <= k would match everywhere (this also skips empty reads); k < 0 or
 * n == 0 can report nothing. */
GPUASM_HD int gpuasm_pair_searched(uint64_t m, int32_t k, uint64_t n)
{
    return m > 0 && k >= 0 && m > (uint64_t)k && n > 0;
}

/* The pair (read of read_len bases, target of target_len bases) as it is
 * searched: which side is the pattern, m, n, k, and whether it is searched. */
typedef struct gpuasm_pair {
    uint64_t m, n;          /* pattern and text lengths (bases) */
    int32_t k;              /* differences allowed */
    int32_t read_is_pattern;
    int32_t searched;       /* gpuasm_pair_searched(m, k, n) */
} gpuasm_pair;

GPUASM_HD gpuasm_pair gpuasm_pair_of(const gpuasm_search_opt *o, uint64_t read_len,
                                     uint64_t target_len)
{
    gpuasm_pair p;
    p.read_is_pattern = gpuasm_read_is_pattern(o, read_len, target_len);
    p.m = p.read_is_pattern ? read_len : target_len;
    p.n = p.read_is_pattern ? target_len : read_len;
    p.k = gpuasm_pair_k(o, p.m);
    p.searched = gpuasm_pair_searched(p.m, p.k, p.n);
    return p;
}

/* ---- Partial occurrences (the ends pass; kernels/partial.h) ---------------
 * For a searched pair with pattern length m, omin = opt.overlap_min (the
 * target is the pattern) or opt.read_overlap_min (the read is; -1: ceil(m/2)).
 * When 0 < omin < m, at each end of the text taken (GPUASM_END_* mapped to
 * the searched text's start/end by strand), every aligned length p in
 * [omin, m - 1] is a candidate with
 *     text end:   D_p = min over i of ED(P[0 .. p), T[i .. n-1])      (edit)
 *                       mismatches(P[0 .. p), T[n-p .. n-1])           (hamming, p <= n)
 *     text start: D_p = min over j of ED(P[m-p .. m), T[0 .. j])      (edit)
 *                       mismatches(P[m-p .. m), T[0 .. p-1])           (hamming, p <= n)
 * and k_p = gpuasm_partial_kf(opt, floor, p, m) (cutadapt: errors <= e x
 * aligned length; an absolute k is the rate k/m, as cutadapt turns -e >= 1
 * into; and with a significance floor F > 0 of the pair's role, also
 * 2 D_p <= p - F: the score p - 2 D_p is at least F, align/chance.h);
 * p is acceptable when k_p < p and D_p <= k_p.  The end hit is the
 * acceptable p with the highest score p - 2 D_p (one point per aligned
 * pattern base, minus two per difference: cutadapt's +1/-1/-2 score when
 * the differences are mismatches), then the smaller D_p, then the larger p.
 * k_p never decreases as p grows (each term of the minimum is a floor of a
 * non-decreasing function), so k_{m-1} bounds every kept D_p: the ends
 * pass's window and cut-offs rest on that. */

/* k_p of a partial occurrence with p of the pattern's m bases aligned:
 * floor(e x p), or floor(k x p / m) when k is given (the same rate). */
GPUASM_HD int32_t gpuasm_partial_k(const gpuasm_search_opt *o, uint64_t p, uint64_t m)
{
    if (o->max_diffs >= 0) return (int32_t)(((uint64_t)o->max_diffs * p) / m);
    return (int32_t)floor(o->error_rate * (double)p);
}

/* The significance floor of a pair's partial occurrences (0: none). */
GPUASM_HD int32_t gpuasm_pair_partial_floor(const gpuasm_search_opt *o, int read_is_pattern)
{
    return read_is_pattern ? o->read_partial_floor : o->partial_floor;
}

/* k_p under a floor F (0: none): min(k_p, floor((p - F) / 2)), negative
 * when p < F (no candidate: the score p - 2 D_p cannot reach F). */
GPUASM_HD int32_t gpuasm_partial_kf(const gpuasm_search_opt *o, int32_t sfloor, uint64_t p, uint64_t m)
{
    int32_t k = gpuasm_partial_k(o, p, m);
    if (sfloor > 0) {
        const int64_t x = (int64_t)p - sfloor;
        const int32_t f = x < 0 ? -1 : (int32_t)(x / 2);
        if (f < k) k = f;
    }
    return k;
}

/* omin of a pair (0: no partial occurrences): the --overlap given, raised
 * to the floor (an aligned part of p bases scores at most p). */
GPUASM_HD uint32_t gpuasm_pair_overlap_min(const gpuasm_search_opt *o, int read_is_pattern,
                                           uint64_t m)
{
    int64_t v = read_is_pattern ? o->read_overlap_min : o->overlap_min;
    if (read_is_pattern && v < 0) v = (int64_t)((m + 1) / 2);
    if (v <= 0) return 0;
    const int32_t f = gpuasm_pair_partial_floor(o, read_is_pattern);
    if (f > v) v = f;
    if ((uint64_t)v >= m) return 0;
    return (uint32_t)v;
}

/* Are partial occurrences searched at all? */
GPUASM_HD int gpuasm_partial_on(const gpuasm_search_opt *o)
{
    return o->partial_ends != 0 && (o->overlap_min > 0 || o->read_overlap_min != 0);
}

/* Which ends of the SEARCHED text (bit 0: its end, bit 1: its start) take
 * partial occurrences, for a pair on strand s: the GPUASM_END_* bits in file
 * orientation, swapped when the text is the reverse-complemented read. */
GPUASM_HD uint32_t gpuasm_partial_text_ends(const gpuasm_search_opt *o, int read_is_pattern,
                                            uint32_t strand)
{
    const uint32_t e = (uint32_t)o->partial_ends & 3u;
    if (!read_is_pattern && strand) return ((e & 1u) << 1) | ((e >> 1) & 1u);
    return e;
}

/* One batch as a kernel sees it: the reads, the targets and the search
 * options.  Plain values, so it goes to CUDA kernels by value; the
 * pointers are host or device addresses depending on who holds the view. */
typedef struct gpuasm_batch_view {
    gpuasm_seqset reads;
    gpuasm_seqset targets;
    gpuasm_search_opt opt;
} gpuasm_batch_view;

/* Pair (read r, target t) of a view: gpuasm_pair_of() on their lengths. */
GPUASM_HD gpuasm_pair gpuasm_view_pair(const gpuasm_batch_view *v, uint32_t r, uint32_t t)
{
    return gpuasm_pair_of(&v->opt, v->reads.off[r + 1] - v->reads.off[r],
                          v->targets.off[t + 1] - v->targets.off[t]);
}

/* ---- end hits ------------------------------------------------------------ */

#ifdef __cplusplus
extern "C" {
#endif

/* Ensure room for n more hits.  Returns 0, or -1 when out of memory. */
int gpuasm_hits_reserve(gpuasm_hits *h, size_t more);
/* Append one hit; 0 or -1 (out of memory). */
int gpuasm_hits_push(gpuasm_hits *h, gpuasm_endhit e);
/* Sort into canonical order: read, target, strand, end, kind (then plen, dist). */
void gpuasm_hits_sort(gpuasm_hits *h);
void gpuasm_hits_free(gpuasm_hits *h);

/* Drop the strand-1 hits of h->hit[from ..) (kernels that always search
 * both strands, under --strand forward), keeping the order. */
void gpuasm_hits_drop_strand1(gpuasm_hits *h, size_t from);

/* GPUASM_KEEP_REPORTED's rule (above), hit by hit: full hits of a run of
 * one (read, target, strand) arrive in increasing end (a new run, or an
 * end lower than the last one, starts fresh: the rule holds on each run
 * of a split list).  Zero-initialise; free with gpuasm_keep_free. */
typedef struct gpuasm_keep_state {
    uint32_t read, target, strand, live;
    uint32_t last;          /* the run's last end */
    int32_t closed;         /* the lowest distance that kept its hit past the window */
    uint32_t *first;        /* [cap] first end of each distance, UINT32_MAX: none yet */
    uint8_t *done;          /* [cap] the distance kept its hit past the window */
    int32_t *used;          /* [cap] the distances of this run (to clear) */
    size_t n_used, cap;
} gpuasm_keep_state;

/* Does hit h stay?  span: L above for h's read (bases).  1 keep, 0 drop,
 * -1 out of memory (the state grows to the distances seen). */
int gpuasm_keep_hit(gpuasm_keep_state *s, const gpuasm_endhit *h, uint64_t span);
/* Would gpuasm_keep_hit() drop h, changing nothing that a later hit of
 * the run reads, as it then drops every later hit of the run at h's
 * distance?  1 yes, 0 no (or not known: another run, a partial hit). */
int gpuasm_keep_drops(const gpuasm_keep_state *s, const gpuasm_endhit *h, uint64_t span);
void gpuasm_keep_free(gpuasm_keep_state *s);

/* The rule over hits h->hit[from ..) in gpuasm_hits_sort() order (a
 * backend that cannot apply it on the fly): drops in place, keeping the
 * order; the span of read r is reads' length of r + gpuasm_pair_k(opt, it).
 * Returns 0 or -1 (out of memory). */
int gpuasm_hits_keep_reported(gpuasm_hits *h, size_t from, const gpuasm_seqset *reads,
                              const gpuasm_search_opt *opt);

/* DP cells of reads[first .. first+count) against every target: m x n per
 * searched pair and strand (the --stats and benchmark figure).  O(T log T +
 * count log T), so it is cheap for thousands of targets. */
double gpuasm_scan_cells(const gpuasm_seqset *reads, uint32_t first, uint32_t count,
                         const gpuasm_seqset *targets, const gpuasm_search_opt *opt);

/* ---- the CPU twins (walk/cpu_scan.c runs opt->kernel's twin) ----------- */

/* Scan every (read, target, strand) pair of reads[first .. first+count)
 * with opt->kernel's CPU twin and append its end hits to out, at this
 * processor's SIMD level with the pigeonhole filters (cpu_scan.h; the CPU
 * backend builds the filters' tables once per run, this call builds them
 * each time).  Returns 0
 * or a negative status with err filled: GPUASM_ERR_NOMEM;
 * GPUASM_ERR_TOO_LONG (a pattern longer than the kernel takes: err->read
 * and err->target are the pair, err->length its m, err->limit the
 * kernel's); GPUASM_ERR_SEQ_TOO_LONG (positions past 2^32);
 * GPUASM_ERR_BAD_OPTION (an unknown kernel, or one without the alphabet). */
int gpuasm_cpu_scan(const gpuasm_seqset *reads, uint32_t first, uint32_t count,
                    const gpuasm_seqset *targets, const gpuasm_search_opt *opt,
                    gpuasm_hits *out, gpuasm_err *err);

/* The Myers twin on one pattern and one text (nt16 codes): calls
 * emit(ctx, j, D[m][j]) for every j with D[m][j] <= k (all of them, not
 * only the local minima), in increasing j.  pattern/text are nt16 codes
 * (already in the orientation to search).  m >= 1.  Returns 0 or -1 (out
 * of memory). */
int gpuasm_myers_cpu_pair(const uint8_t *pattern, uint32_t m,
                          const uint8_t *text, uint64_t n, int32_t k,
                          void (*emit)(void *ctx, uint64_t j, int32_t d), void *ctx);

#ifdef __cplusplus
}
#endif
#endif
