/* SPDX-License-Identifier: MIT */
/* gpuasm.h -- libgpuasm: exhaustive approximate string matching of DNA
 * sequences (reads) against targets (adapters, primers, genomes), on a
 * CUDA GPU or the CPU, with the same hits on both.
 *
 * One call searches a batch: for every read, target and strand, the
 * pattern (the shorter of read and target) is found in the text (the
 * longer) with at most k differences (edit distance, or mismatches only),
 * and each (read, target) pair gives its best occurrence (or all of them)
 * with distance, strand, interval and CIGAR.  This is what gpuasm-scan
 * does for each batch before it writes SAM (README.md "What it finds").
 * The model is edlib.h: a config struct, status codes, a result to free.
 *
 *   gpuasm_config c = gpuasm_config_default();
 *   gpuasm_result r = gpuasm_align_batch(reads, n_reads, targets, n_targets, c);
 *   if (r.status == GPUASM_STATUS_OK) ... r.hits[0 .. r.n_hits) ...
 *   gpuasm_result_free(&r);
 *
 * Sequences are NUL-terminated strings of IUPAC letters (any case; U reads
 * as T).  N and other ambiguity codes in reads match nothing, in targets
 * the bases they stand for.  Thread-safe: each call has its own state.
 */
#ifndef GPUASM_H
#define GPUASM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUASM_VERSION_MAJOR 0
#define GPUASM_VERSION_MINOR 1

typedef enum gpuasm_status_code {
    GPUASM_STATUS_OK = 0,
    GPUASM_STATUS_ERROR = 1,      /* bad input or option: see gpuasm_result.error */
    GPUASM_STATUS_NOMEM = 2,      /* out of host or device memory */
    GPUASM_STATUS_NO_DEVICE = 3   /* the device asked for is not there (or no CUDA in this build) */
} gpuasm_status_code;

typedef enum gpuasm_distance_mode {
    GPUASM_EDIT = 0,              /* edit distance (substitutions, insertions, deletions) */
    GPUASM_HAMMING = 1            /* mismatches only: CIGARs have no I or D */
} gpuasm_distance_mode;

typedef struct gpuasm_config {
    int k;                /* at most k differences; < 0: floor(error_rate x pattern length) */
    double error_rate;    /* used when k < 0 [0.1] */
    gpuasm_distance_mode mode;   /* [GPUASM_EDIT] */
    int forward_only;     /* 1: search the read as given only; 0: both strands [0] */
    int all;              /* 1: every non-overlapping occurrence; 0: the best per (read, target) [0] */
    const char *device;   /* "cpu", "cuda", "cuda:N", "auto" (a GPU when there is one) ["auto"] */
    int threads;          /* CPU threads [1] */
} gpuasm_config;

typedef struct gpuasm_hit {
    uint32_t read;        /* index in reads[] */
    uint32_t target;      /* index in targets[] */
    int reverse;          /* 1: the read's reverse complement matched */
    int distance;         /* differences (edit distance, or mismatches) */
    int64_t target_start; /* aligned interval of the target, 0-based, half-open [start, end) */
    int64_t target_end;
    int64_t read_start;   /* aligned interval of the read (of its reverse complement when
                           * reverse), 0-based, half-open */
    int64_t read_end;
    char *cigar;          /* SAM CIGAR of the read against the target, M/I/D with S
                           * outside the aligned part of the read (NUL-terminated) */
} gpuasm_hit;

typedef struct gpuasm_result {
    gpuasm_status_code status;
    gpuasm_hit *hits;     /* [n_hits], by read, then target, best first */
    size_t n_hits;
    char error[512];      /* one line when status != OK */
} gpuasm_result;

/* The defaults above. */
gpuasm_config gpuasm_config_default(void);

/* Search reads[0 .. n_reads) against targets[0 .. n_targets).  Partial
 * occurrences (an adapter running off a read's end) are not reported: every
 * hit aligns the whole pattern.  Always returns a result: free it. */
gpuasm_result gpuasm_align_batch(const char *const *reads, size_t n_reads,
                                 const char *const *targets, size_t n_targets,
                                 gpuasm_config config);

void gpuasm_result_free(gpuasm_result *r);

/* "0.1.0" */
const char *gpuasm_library_version(void);

#ifdef __cplusplus
}
#endif
#endif
