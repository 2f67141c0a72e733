/* SPDX-License-Identifier: MIT */
/* signal_report.h -- the output of gpuasm-signal: one line per (read,
 * reference strand) with the best ADSM cost of the read's window, where it
 * aligns, and the decision against the threshold.
 *
 * PAF (the default; as UNCALLED, Sigmap and RawHash write signal
 * mappings), 12 columns and tags:
 *   1 read id, 2 read length (samples), 3-4 the window [start, end) in
 *   samples of the read (0-based, half-open), 5 strand of the reference
 *   ('+' the FASTA record, '-' its reverse complement), 6 target name,
 *   7 target length (bases; samples for signal references), 8-9 the
 *   aligned reference interval in forward-strand bases [start, end)
 *   (signal_ref.h), 10 reference k-mers aligned (samples for signal
 *   references), 11 bases the interval spans, 12 mapping quality 255
 *   (missing: DTW costs are no probabilities), then
 *   ad:f: the ADSM cost in normalised units (computed on integers of
 *   1/64 of a unit, search/signal_mode.h, and printed exactly: at most six
 *   decimals), an:f: the cost per query sample (ad / window length; what the
 *   threshold is on), pa:A: Y when an
 *   <= the threshold, else N, ks:i: and ke:i: the interval in k-mers (or
 *   samples) of the strand's own signal, and fl:A:Y when the read's
 *   window is flat (no variation after normalisation: a constant signal;
 *   issue #31): its cost says nothing, so it never passes (pa:A:N).
 * A pair that was not searched (an empty window: --signal-skip past the
 * read's end; a reference shorter than k) has cost -1: columns 8-11 are 0,
 * ad:f:-1 and pa:A:N, no an/ks/ke.
 * TSV (--tsv) with a header line: read, read_samples, query_start,
 * query_end, target, strand, target_len, ref_start, ref_end, kmer_start,
 * kmer_end, cost (as ad:f:), cost_per_sample, pass (Y, N, or flat: a flat
 * window, never passed); NA where not searched.
 * Lines go read by read in input order, reference strands in file order
 * ('+' then '-'), so the output is the same whatever the backend.
 */
#ifndef GPUASM_SIGNAL_REPORT_H
#define GPUASM_SIGNAL_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "search/signal_mode.h"
#include "io/signal_reads.h"
#include "io/signal_ref.h"

typedef struct gpuasm_sigreport_opt {
    int tsv;               /* TSV with a header instead of PAF */
    double threshold;      /* pass: cost per query sample <= threshold (normalised units) */
    int32_t cost;          /* enum gpuasm_cost (for the alignment start) */
} gpuasm_sigreport_opt;

/* The TSV header line (nothing for PAF).  0, or -1 on a write error. */
int gpuasm_sigreport_header(FILE *fp, const gpuasm_sigreport_opt *o);

/* The alignment starts of pairs [first, first + count) of a batch (pair
 * p = r * ref->n + i: read r of b, reference signal i):
 * start[p] = gpuasm_dtw_start() in k-mers (samples) of signal i, -1 for a
 * pair not searched (hit cost < 0).  Pairs are independent: threads may
 * fill disjoint ranges, each with its own work (at least 2 (longest
 * window + 1) int32).  0, or -2 when a start cannot be found (a bug: the
 * hit is not a kernel result). */
int gpuasm_sigreport_starts(const gpuasm_sigreport_opt *o, const gpuasm_sigbatch *b,
                            const gpuasm_sigref *ref, const gpuasm_adsm_hit *hit, size_t first,
                            size_t count, int64_t *start, int32_t *work);

/* The lines of one batch from its hits and starts (b->n x ref->n each, as
 * above), in input order.  *lines and *passing_reads (reads with a passing
 * line) are added to.  0, -1 on a write error, -2 for a searched pair
 * without a start. */
int gpuasm_sigreport_lines(FILE *fp, const gpuasm_sigreport_opt *o, const gpuasm_sigbatch *b,
                           const gpuasm_sigref *ref, const gpuasm_adsm_hit *hit, const int64_t *start,
                           uint64_t *lines, uint64_t *passing_reads);

/* Is `cost` of a window of m samples a pass? */
int gpuasm_sigreport_pass(const gpuasm_sigreport_opt *o, int32_t cost, uint64_t m);

#endif
