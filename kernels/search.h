/* search.h -- the one interface every search kernel implements: a batch of
 * reads and the target set in, a list of end positions ("end hits") out.
 *
 * Problem (DESIGN.md §1; seed 000 §IV, seed 001 §4): for every read r, every
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
 * minimum, and only minima are ever reported (plugin/report.h), so only
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
 */
#ifndef GPUASM_SEARCH_H
#define GPUASM_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include "nt16.h"

#ifdef __cplusplus
extern "C" {
#endif

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
    GPUASM_PATTERN_READ    = 1, /* --pattern read */
    GPUASM_PATTERN_TARGET  = 2  /* --pattern target */
};

/* The kernels (DESIGN.md "Kernels"; issue #4).  Every kernel computes the
 * same D[m][j] of its mode and reports the same end hits (the contract
 * above); they differ in how, and so in speed. */
enum gpuasm_kernel {
    GPUASM_KERNEL_MYERS   = 0, /* edit: bit-parallel Myers 1999 (seed 003) */
    GPUASM_KERNEL_DP      = 1, /* edit: anti-diagonal wavefront DP (seed 000, seed 001 §6-8) */
    GPUASM_KERNEL_SCAN    = 2, /* edit: Wu-Manber as inclusive scans (seed 002), m <= 64 */
    GPUASM_KERNEL_HAMMING = 3  /* hamming: k-mismatch (seed 004) */
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

/* What to search for.  Plain values so it can be passed to CUDA by value.
 * Zero-initialised fields give the defaults (myers, nt16, best, auto). */
typedef struct gpuasm_search_opt {
    int32_t max_diffs;     /* -k; < 0 means use error_rate */
    double  error_rate;    /* -e; k = floor(error_rate * m) in double arithmetic */
    int32_t pattern_side;  /* enum gpuasm_pattern_side */
    int32_t kernel;        /* enum gpuasm_kernel */
    int32_t alphabet;      /* enum gpuasm_alphabet */
    int32_t variant;       /* enum gpuasm_variant */
    int32_t segments;      /* dp kernel: split each text into this many segments
                            * (seed 000's D, Table I); 0: the kernel chooses */
} gpuasm_search_opt;

/* One text position where the pattern ends with at most k differences, at a
 * local minimum of D[m][.] (see above). */
typedef struct gpuasm_endhit {
    uint32_t read;    /* index of the read within its batch */
    uint32_t target;  /* index of the target (file order) */
    uint32_t end;     /* 0-based end position in the text, inclusive (see above) */
    int32_t  dist;    /* D[m][end], 0 <= dist <= k */
    uint32_t strand;  /* 0: read as given, 1: read reverse-complemented */
} gpuasm_endhit;

/* Growable array of end hits. */
typedef struct gpuasm_hits {
    gpuasm_endhit *hit;
    size_t n, cap;
} gpuasm_hits;

/* What a scan did, for --stats and the benchmarks.  Summable. */
typedef struct gpuasm_scan_stats {
    double kernel_s;    /* device time of the search kernels (CUDA events); CPU: = scan_s */
    double scan_s;      /* wall time inside the scan calls (copies, kernels, hit return) */
    double cells;       /* sum over searched pairs and strands of m x n (DP cells) */
    uint64_t end_hits;  /* end hits returned */
    uint64_t scans;     /* scan calls */
} gpuasm_scan_stats;

/* Hamming mode (seed 004 Definition 3): for the same contract, D[m][j] is
 * the number of mismatches between P and T[j-m+1 .. j] for j >= m-1 and is
 * undefined (treated as > k, never reported) for j < m-1.  Pairs with
 * n < m have no hit. */
static inline int gpuasm_is_hamming(const gpuasm_search_opt *o)
{
    return o->kernel == GPUASM_KERNEL_HAMMING;
}

/* Strands searched: 2 for DNA (nt16), 1 for the byte alphabet. */
static inline int gpuasm_strands(const gpuasm_search_opt *o)
{
    return o->alphabet == GPUASM_ALPHABET_BYTE ? 1 : 2;
}

/* Longest pattern the chosen kernel takes (bases), or 0 for no limit.  The
 * same on every backend, so outputs never differ by backend: the scan
 * kernel holds the pattern in one 64-bit word (seed 002), and the CUDA
 * Myers kernel on the byte alphabet has single-word paths only. */
static inline uint64_t gpuasm_kernel_max_pattern(const gpuasm_search_opt *o)
{
    if (o->kernel == GPUASM_KERNEL_SCAN) return 64;
    if (o->kernel == GPUASM_KERNEL_MYERS && o->alphabet == GPUASM_ALPHABET_BYTE) return 64;
    return 0;
}

/* "myers", "dp", "scan", "hamming"; NULL for an unknown value. */
static inline const char *gpuasm_kernel_name(int32_t kernel)
{
    switch (kernel) {
    case GPUASM_KERNEL_MYERS: return "myers";
    case GPUASM_KERNEL_DP: return "dp";
    case GPUASM_KERNEL_SCAN: return "scan";
    case GPUASM_KERNEL_HAMMING: return "hamming";
    default: return NULL;
    }
}

/* Is the read the pattern of pair (read_len, target_len)? */
static inline int gpuasm_read_is_pattern(const gpuasm_search_opt *o,
                                         uint64_t read_len, uint64_t target_len)
{
    if (o->pattern_side == GPUASM_PATTERN_READ) return 1;
    if (o->pattern_side == GPUASM_PATTERN_TARGET) return 0;
    return read_len <= target_len;
}

/* k for a pattern of m bases: -k as given, else floor(e * m). */
static inline int32_t gpuasm_pair_k(const gpuasm_search_opt *o, uint64_t m)
{
    if (o->max_diffs >= 0) return o->max_diffs;
    return (int32_t)floor(o->error_rate * (double)m);
}

/* Ensure room for n more hits.  Returns 0, or -1 when out of memory. */
int gpuasm_hits_reserve(gpuasm_hits *h, size_t more);
/* Append one hit; 0 or -1 (out of memory). */
int gpuasm_hits_push(gpuasm_hits *h, gpuasm_endhit e);
/* Sort into canonical order: read, target, strand, end (then dist). */
void gpuasm_hits_sort(gpuasm_hits *h);
void gpuasm_hits_free(gpuasm_hits *h);

/* ---- the CPU twins (kernels/cpu_scan.c dispatches to kernels/<k>_cpu.c) -- */

/* Scan every (read, target, strand) pair of reads[first .. first+count)
 * with opt->kernel's CPU twin and append its end hits to out.  Returns 0,
 * or -1 with a one-line reason in err (out of memory; a pattern longer than
 * gpuasm_kernel_max_pattern(); a bad opt->kernel). */
int gpuasm_cpu_scan(const gpuasm_seqset *reads, uint32_t first, uint32_t count,
                    const gpuasm_seqset *targets, const gpuasm_search_opt *opt,
                    gpuasm_hits *out, char *err, size_t errlen);

/* DP cells of reads[first .. first+count) against every target: m x n per
 * searched pair and strand (the --stats and benchmark figure). */
double gpuasm_scan_cells(const gpuasm_seqset *reads, uint32_t first, uint32_t count,
                         const gpuasm_seqset *targets, const gpuasm_search_opt *opt);

/* Does pair (read_len, target_len) break opt's kernel's pattern limit?
 * Returns the offending pattern length (> 0) or 0 when the pair is fine
 * (pairs that are not searched at all are fine). */
uint64_t gpuasm_pair_too_long(const gpuasm_search_opt *opt, uint64_t read_len, uint64_t target_len);

/* The Myers twin on one pattern and one text (nt16 codes): calls
 * emit(ctx, j, D[m][j]) for every j with D[m][j] <= k (all of them, not only the local minima), in increasing j.  pattern/text are nt16 codes (already in
 * the orientation to search).  m >= 1.  Returns 0 or -1 (out of memory). */
int gpuasm_myers_cpu_pair(const uint8_t *pattern, uint32_t m,
                          const uint8_t *text, uint64_t n, int32_t k,
                          void (*emit)(void *ctx, uint64_t j, int32_t d), void *ctx);

#ifdef __cplusplus
}
#endif
#endif
