/* SPDX-License-Identifier: MIT */
/* stats_json.h -- the --stats report of gpuasm-scan: one JSON object.
 *
 * Field names are an interface (tests/bench reads them):
 *   {"program":"gpuasm-scan","version":"...","device":"...","simd":"...","filter":"...",
 *    "filter_plan":"...","lanes":N,
 *    "reads":N,"bases":N,"records":N,"reads_with_hits":N,"batches":N,
 *    "batch_bases":N,"rounds":N,"rescans":N,"max_memory":N,"wall_s":x,"scan_s":x,"kernel_s":x,"cells":x,
 *    "kernel_tcups":x,"reads_per_s":x,"end_hits":N,"index_strands":N,"index_declined":N,
 *    "pieces_kept":N,"pieces_dropped":N,"ends_run":N,"ends_skipped":N,"ends_settled":N,
 *    "periodic_cols":N,
 *    "index_build_s":x,"plan_s":x,
 *    "ends_kernel_s":x,"ends_cells":x,"ends_tcups":x,"engine_ready_at":x,"first_scan_at":x,
 *    "last_scan_end_at":x,"read_s":x,"encode_s":x,"report_s":x,"write_s":x[, auto keys],
 *    "peak_rss_kb":N
 *    [, extra keys]}
 * auto keys: --device auto's move from the CPU to CUDA (cli/auto_move.h),
 * only when it was armed: "auto_to" (the engine moved to, or why none:
 * "failed: ...", "not ready"), "auto_cpu_reads", "auto_cpu_batches",
 * "auto_cpu_scans", "auto_moved_reads", "auto_moved_batches",
 * "auto_moved_scans" (reads, batches begun, i.e. whose first read was
 * scanned there, and scan calls on each side), "auto_move_batch" (the
 * batch number, from 0, of the first scan after the move), "auto_ready_s"
 * (the engine moved to was ready, seconds from the start), "auto_moved_s"
 * (the first scan on it), "auto_back_s" (when the scans went back to the
 * CPU, the engine moved to being slower: cli/auto_device.c auto_back);
 * null where there was no move (no way back).
 * extra keys: gpuasm-scan's per-target report when asked for
 * (io/target_report.h: "sample","reads_without_hits","percent_with_hits",
 * "any_target":{...},"targets":[{...}]).
 * Units: seconds, bases, DP cells (m x n per searched pair and strand,
 * search.h), TCUPS = 10^12 cells per second of kernel time.  simd: the
 * CPU backend's SIMD level (avx512, avx2, sse4.1, scalar), null when the
 * run has no CPU lane.  filter: --filter's value; filter_plan: what the
 * backend built for it (e.g. "auto: pieces (q 6-8) + index (q 8-16, N
 * windows, x MiB, build s)"), null when nothing was scanned; index_* and
 * pieces_*: what the filters did (search.h's gpuasm_scan_stats; 0 where
 * no filter ran); index_build_s: wall seconds building the targets' index
 * (inside scan_s, summed over lanes), plan_s: wall seconds the CUDA lanes
 * spent planning the filters' candidate windows on host threads (inside
 * scan_s; 0 on the CPU, whose walk looks the pieces up as it verifies).
 * ends_kernel_s: the span of CUDA's ends pass, which runs on a stream of
 * its own beside the search kernels (inside kernel_s, overlapping them),
 * ends_cells: the cells of its warp path (patterns over 256 bases: m x W
 * per (pair, strand, end), search.h's gpuasm_scan_stats), ends_tcups their
 * ratio; 0 on the CPU.
 * Stage keys (where the wall time goes, cli/pipeline.c's threads):
 * engine_ready_at, first_scan_at, last_scan_end_at: seconds from the start
 * when the engine was open (CUDA's start), the first batch went to a scan
 * thread, the last scan call returned (null when none); read_s: seconds the
 * reader thread spent in htslib's parsing (one thread: the serial stage);
 * encode_s: the prep thread's batch encoding (2-bit codes); report_s: the
 * report threads' tracebacks and record building, summed over threads;
 * write_s: the writer thread's output (and screening) calls.
 */
#ifndef GPUASM_STATS_JSON_H
#define GPUASM_STATS_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* --device auto's move (the auto keys above). */
typedef struct gpuasm_auto_stats {
    const char *to;
    uint64_t cpu_reads, cpu_batches, cpu_scans, moved_reads, moved_batches, moved_scans;
    int64_t move_batch;        /* -1: no move */
    double ready_s, moved_s, back_s;   /* -1: none */
} gpuasm_auto_stats;

/* The chance keys (align/chance.h, issue #26), when a model was built:
 * "max_chance" (--max-chance), "partial_floor" and "read_partial_floor"
 * (the floors in effect: least scores of partial occurrences of targets
 * and of reads as patterns; null for none), "chance_partial_per_read" and
 * "chance_read_partial_per_read" (E_partial at those floors: the chance
 * partial records a random read expects; null without partial
 * occurrences), "chance_whole_per_read" (whole occurrences at -k a read of
 * the input expects by chance, averaged over the reads). */
typedef struct gpuasm_chance_stats {
    int on, partial_on;
    double max_chance;
    int32_t floor[2];
    double partial[2];
    double whole_per_read;
} gpuasm_chance_stats;

/* The stage keys (wall seconds; the *_at ones from the run's start, < 0
 * for none). */
typedef struct gpuasm_stage_stats {
    double engine_ready_at, first_scan_at, last_scan_end_at;
    double read_s, encode_s, report_s, write_s;
} gpuasm_stage_stats;

typedef struct gpuasm_run_stats {
    const char *program;       /* "gpuasm-scan" */
    const char *version;
    const char *device;        /* gpuasm_engine_describe() */
    const char *simd;          /* gpuasm_engine_simd(), or NULL */
    const char *filter;        /* --filter: auto, off, on, pieces, index */
    const char *filter_plan;   /* gpuasm_engine_filter(): the filters built, or NULL */
    int lanes;                 /* engine lanes (scan threads) */
    uint64_t reads;            /* primary input records scanned */
    uint64_t bases;            /* their bases */
    uint64_t records;          /* output records (FLAG 4 ones included) */
    uint64_t reads_with_hits;  /* reads with at least one hit record */
    uint64_t batches;          /* batches scanned */
    uint64_t batch_bases;      /* batch size limit used, bases */
    uint64_t rounds;           /* scan rounds (a hit-dense batch takes several: the memory bound) */
    uint64_t rescans;          /* scans past a round's hit budget whose reads were scanned again,
                                * fewer at a time (the CPU keeps the reads it did: 0 there) */
    uint64_t max_memory;       /* the memory bound used (--max-memory), bytes */
    double wall_s;             /* whole run: targets, engine start, reading to closing */
    double scan_s;             /* wall time inside scan calls, summed over lanes */
    double kernel_s;           /* device time of the kernels (CPU: = scan_s), summed over lanes */
    double cells;              /* DP cells */
    uint64_t index_strands, index_declined, pieces_kept, pieces_dropped;   /* gpuasm_scan_stats */
    uint64_t end_hits;   /* end hits the scans returned (search.h: fewer under GPUASM_KEEP_REPORTED) */
    uint64_t ends_run, ends_skipped, ends_settled, periodic_cols;         /* gpuasm_scan_stats */
    double index_build_s, plan_s;                                         /* gpuasm_scan_stats */
    double ends_kernel_s, ends_cells;                                     /* gpuasm_scan_stats */
    gpuasm_stage_stats stage;  /* all zero: the keys are written as 0 */
    const gpuasm_auto_stats *aut;   /* NULL: no move was armed */
    gpuasm_chance_stats chance;
    long peak_rss_kb;          /* getrusage ru_maxrss, KiB */
    /* More keys after peak_rss_kb (the per-target report: "sample",
     * "reads_without_hits", "targets"), each with its leading comma; NULL
     * for none.  0, or -1 when writing failed. */
    int (*extra)(FILE *fp, const void *ctx);
    const void *extra_ctx;
} gpuasm_run_stats;

/* s as a JSON string (RFC 8259 §7): quote, backslash and control
 * characters escaped, other bytes as they are; NULL as "". */
void gpuasm_json_string(FILE *fp, const char *s);

/* Peak resident set size of this process so far, KiB (getrusage). */
long gpuasm_peak_rss_kb(void);
/* The resident memory now, KiB (/proc/self/statm; 0 where there is none). */
long gpuasm_rss_kb(void);

/* Write s as one JSON object and a newline to fp; kernel_tcups
 * (cells / kernel_s / 10^12) and reads_per_s (reads / wall_s) are derived,
 * 0 when their divisor is 0.  Returns 0, or -1 when writing failed. */
int gpuasm_stats_json_write(FILE *fp, const gpuasm_run_stats *s);

#endif
