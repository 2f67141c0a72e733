/* SPDX-License-Identifier: MIT */
/* gpuasm-signal -- screen raw nanopore signal for a genome: approximate
 * discrete signal matching (ADSM, seed 001 §5 and §10) of every read's first
 * samples against the expected signal of both strands of each genome, on
 * the GPU or the CPU, one line per (read, strand) with the best cost, where
 * it aligns, and a pass/fail decision.
 *
 *   gpuasm-signal [options] -p model.tsv <reads.blow5> <genome.fa>
 *   gpuasm-signal [options] <signals.txt> <reference-signals.txt>
 *
 * A sibling of gpuasm-scan rather than a mode of it: the inputs (signals, a
 * pore model), the output (PAF, no SAM) and most options differ; the
 * engine, devices, threads, --stats and messages are the same.  Exit
 * status: 0 on success, 1 on any error (one message on stderr).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/hts.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "cli/options.h"
#include "cli/signal_run.h"
#include "cli/signals.h"
#include "engine/defaults.h"
#include "io/signal_norm.h"
#include "io/signal_reads.h"
#include "util/parse_size.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.0.0-dev"
#endif

/* The default decision threshold, in normalised units per query sample:
 * the screening measurement of README.md ("Raw signal"): on 2,000-sample
 * windows it passed none of 179 real human windows and most simulated
 * viral reads. */
#define DEFAULT_THRESHOLD 0.20
#define DEFAULT_PREFIX 2000

static void usage(FILE *fp)
{
    fprintf(fp,
"Usage: gpuasm-signal [options] -p <model.tsv> <reads> <genome.fa>\n"
"       gpuasm-signal [options] <reads> <reference-signals>\n"
"\n"
"Compare the first samples of every read's raw signal with the expected\n"
"signal of both strands of each genome (subsequence DTW: seed 001's ADSM) and\n"
"write one PAF line per read and strand: the best cost, where it aligns, and\n"
"whether it passes the threshold.\n"
"  reads       SLOW5/BLOW5 (slow5lib%s; pA from each record's digitisation,\n"
"              offset, range), or text: one value per line (one signal) or one\n"
"              signal per line ([NAME] v1 v2 ..., commas or spaces); - is stdin\n"
"  genome.fa   FASTA/FASTQ (plain, gzip, bgzf): each record's k-mers through\n"
"              the pore model, forward (+) and reverse complement (-)\n"
"  reference-signals  without -p: signals as the reads' text/SLOW5 formats,\n"
"              compared as they are (strand +, coordinates in samples)\n"
"\n"
"Signal:\n"
"  -p, --pore-model FILE     k-mer model TSV (kmer, level_mean_pA columns), e.g.\n"
"                            R9.4.1's r9.4.1_400bps_6mer.model.tsv\n"
"  -n, --signal-prefix INT   samples of each read compared, after the skip;\n"
"                            0: the whole read (at most %u) [%d]\n"
"      --signal-skip INT     samples dropped at the start of each read [0]\n"
"      --norm METHOD         per-signal normalisation: mad (median, 1.4826 MAD),\n"
"                            sd (mean, standard deviation), none [mad]\n"
"Search:\n"
"      --cost abs|sq         cell cost |x - y| (seed 001) or (x - y)^2 [abs]\n"
"  -t, --threshold FLOAT     pass when the cost per read sample (normalised\n"
"                            units) is at most FLOAT [%.2f]\n"
"      --layout best|paper   kernel layout: best, or seed 001 §6-8's wavefront\n"
"                            with its reference segments (reproductions) [best]\n"
"      --segments INT        paper layout: segments per reference (seed 001 §8);\n"
"                            0: one per max(8 x prefix, 2048) samples [0]\n"
"Output:\n"
"  -o, --output FILE         write to FILE [standard output]\n"
"      --tsv                 TSV with a header line instead of PAF\n"
"Resources and reporting (as gpuasm-scan):\n"
"  -@, --threads INT         CPU threads; 0 = 1 [1]\n"
"      --device DEV          auto, cpu, cuda, cuda:N [auto]\n"
"      --batch-size INT      samples per batch (k/M/G suffixes) [CUDA 16M; CPU\n"
"                            1M per thread]\n"
"      --verbosity INT       3 warnings, 4 also notes (CPU fallback, clamping) [3]\n"
"      --progress            progress line on stderr even when not a terminal\n"
"      --quiet               errors only\n"
"      --stats FILE          run statistics as JSON (gpuasm-scan's fields; bases\n"
"                            count read samples, records output lines,\n"
"                            reads_with_hits reads passing on some strand;\n"
"                            report_s the wall time waited for the report's\n"
"                            alignment starts, starts_cpu_s their thread time)\n"
"  -h, --help                this help\n"
"  -V, --version             version\n",
            gpuasm_have_slow5() ? "" : ": NOT in this build", GPUASM_DTW_MAX_QUERY,
            DEFAULT_PREFIX, DEFAULT_THRESHOLD);
}

static void version(void)
{
    printf("gpuasm-signal %s\nhtslib %s\nslow5lib %s\n", PACKAGE_VERSION, hts_version(),
           gpuasm_have_slow5() ? "yes" : "no (SLOW5/BLOW5 input disabled)");
}

static const gpuasm_cli cli = { "gpuasm-signal", "samples", usage, version };

enum { OPT_SKIP = 256, OPT_NORM, OPT_COST, OPT_LAYOUT, OPT_SEGMENTS, OPT_TSV };

int main(int argc, char **argv)
{
    static const struct option lopts[] = {
        { "pore-model", required_argument, NULL, 'p' },
        { "signal-prefix", required_argument, NULL, 'n' },
        { "signal-skip", required_argument, NULL, OPT_SKIP },
        { "norm", required_argument, NULL, OPT_NORM },
        { "cost", required_argument, NULL, OPT_COST },
        { "threshold", required_argument, NULL, 't' },
        { "layout", required_argument, NULL, OPT_LAYOUT },
        { "segments", required_argument, NULL, OPT_SEGMENTS },
        { "tsv", no_argument, NULL, OPT_TSV },
        GPUASM_COMMON_LONGOPTS,
        { NULL, 0, NULL, 0 }
    };
    gpuasm_defaults d;
    gpuasm_defaults_init(&d);
    gpuasm_common_opt co;
    gpuasm_common_opt_init(&cli, &co, &d);
    gpuasm_signal_run_opt o = {
        .version = PACKAGE_VERSION,
        .read = { .skip = 0, .prefix = DEFAULT_PREFIX, .norm = GPUASM_NORM_MAD },
        .search = d.signal,
        .report = { .tsv = 0, .threshold = DEFAULT_THRESHOLD, .cost = d.signal.cost },
    };
    long long v;
    char *endp;
    int c;
    gpuasm_signals_watch(cli.prog, NULL, 0);   /* before any thread: the outputs go with the run */
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":p:n:t:" GPUASM_COMMON_SHORTOPTS, lopts, NULL)) >= 0) {
        const int shared = gpuasm_common_opt_parse(&cli, &co, c, argv);
        if (shared == GPUASM_OPT_EXIT_0) return 0;
        if (shared == GPUASM_OPT_EXIT_1) return 1;
        if (shared == GPUASM_OPT_TAKEN) continue;
        switch (c) {
        case 'p': o.model_path = optarg; break;
        case 'n':
            if (gpuasm_parse_size(optarg, 0, GPUASM_DTW_MAX_QUERY, 1, &v) < 0)
                return gpuasm_fail("invalid -n/--signal-prefix '%s' (expected samples from 0 to 32768)",
                                   optarg);
            o.read.prefix = (uint64_t)v;
            break;
        case OPT_SKIP:
            if (gpuasm_parse_size(optarg, 0, 1LL << 40, 1, &v) < 0)
                return gpuasm_fail("invalid --signal-skip '%s' (expected a number of samples)", optarg);
            o.read.skip = (uint64_t)v;
            break;
        case OPT_NORM:
            if ((o.read.norm = gpuasm_norm_find(optarg)) < 0)
                return gpuasm_fail("invalid --norm '%s' (expected mad, sd or none)", optarg);
            break;
        case OPT_COST:
            if (!strcmp(optarg, "abs")) o.search.cost = GPUASM_COST_ABS;
            else if (!strcmp(optarg, "sq")) o.search.cost = GPUASM_COST_SQ;
            else return gpuasm_fail("invalid --cost '%s' (expected abs or sq)", optarg);
            o.report.cost = o.search.cost;
            break;
        case 't':
            errno = 0;
            o.report.threshold = strtod(optarg, &endp);
            if (endp == optarg || *endp || errno || !isfinite(o.report.threshold) ||
                o.report.threshold < 0)
                return gpuasm_fail("invalid -t/--threshold '%s' (expected a number >= 0)", optarg);
            break;
        case OPT_LAYOUT:
            if (!strcmp(optarg, "best")) o.search.variant = GPUASM_VARIANT_BEST;
            else if (!strcmp(optarg, "paper")) o.search.variant = GPUASM_VARIANT_PAPER;
            else return gpuasm_fail("invalid --layout '%s' (expected best or paper)", optarg);
            break;
        case OPT_SEGMENTS:
            if (gpuasm_parse_size(optarg, 0, 1LL << 30, 0, &v) < 0)
                return gpuasm_fail("invalid --segments '%s' (expected an integer >= 0)", optarg);
            o.search.segments = (int32_t)v;
            break;
        case OPT_TSV: o.report.tsv = 1; break;
        default: return gpuasm_opt_unknown(argv);
        }
    }
    /* Issue #31: an empty file name names no file (gpuasm-scan's rule). */
    const gpuasm_file_opt files[] = {
        { "-o", co.out_path }, { "--stats", co.stats_path }, { "-p", o.model_path },
    };
    if (gpuasm_opt_file_names(files, sizeof files / sizeof files[0], argc, argv)) return 1;
    const int npos = argc - optind;
    if (npos != 2) {
        if (npos == 0) { usage(stderr); return 1; }
        return gpuasm_fail("%s", "expected <reads> and a reference (see --help)");
    }
    o.reads_path = argv[optind];
    o.ref_path = argv[optind + 1];
    if (!strcmp(o.reads_path, "-") && !strcmp(o.ref_path, "-"))
        return gpuasm_fail("%s", "the reads and the reference cannot both be - (standard input): "
                           "give the reference as a file");
    o.out_path = co.out_path;
    o.stats_path = co.stats_path;
    o.device = co.device;
    o.n_threads = co.n_threads;
    o.batch_samples = co.batch;
    o.verbosity = co.verbosity;
    o.quiet = co.quiet;
    o.progress = co.progress;
    gpuasm_common_opt_hts_log(&co);
    char err[1024];
    if (gpuasm_signal_run(cli.prog, &o, err, sizeof err) < 0) {
        gpuasm_signals_after_failure();   /* | head: die of SIGPIPE, as samtools, silently */
        return gpuasm_fail("%s", err);
    }
    return 0;
}
