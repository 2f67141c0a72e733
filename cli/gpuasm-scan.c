/* SPDX-License-Identifier: MIT */
/* gpuasm-scan -- screen reads for adapters, primers and virus signatures by
 * exhaustive approximate string matching, and write every hit as SAM.
 *
 *   gpuasm-scan [options] <reads> <targets.fa>
 *
 * Option names follow samtools (-o, -O, -@, -T, --no-PG) and cutadapt
 * (-e).  Exit status: 0 on success, 1 on any error (one message on stderr).
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <htslib/cram.h>
#include <htslib/hts.h>
#include <htslib/kstring.h>
#include <htslib/sam.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "cli/auto_move.h"
#include "cli/merge_reports.h"
#include "cli/options.h"
#include "cli/signals.h"
#include "cli/pipeline.h"
#include "engine/defaults.h"
#include "io/reads_out.h"
#include "io/sam_out.h"
#include "io/target_report.h"
#include "kernels/registry.h"
#include "util/output_file.h"
#include "util/parse_size.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.0.0-dev"
#endif

static void usage(FILE *fp)
{
    fprintf(fp,
"Usage: gpuasm-scan [options] <reads> [<reads2>] <targets.fa>\n"
"       gpuasm-scan [options] -1 <R1> -2 <R2> <targets.fa>\n"
"\n"
"Find every read's approximate occurrences of the targets (or of the read in\n"
"the targets) with at most k differences, on both strands, and write them as SAM.\n"
"  reads       FASTQ/FASTA (plain, gzip, bgzf), SAM/BAM/CRAM, or - for stdin;\n"
"              one FASTQ/FASTA file is single-end (a /1 in a name pairs nothing);\n"
"              SAM/BAM/CRAM keep their pairing (mates next to each other)\n"
"  reads2      R2 of paired FASTQ files read with <reads> (R1) in lockstep\n"
"  targets.fa  sequences to look for (FASTA/FASTQ, plain/gzip/bgzf); a target's\n"
"              name is the first word of its header line\n"
"\n"
"Search:\n"
"  -k, --max-diffs INT       at most INT differences (overrides -e)\n"
"  -e, --error-rate FLOAT    k = floor(FLOAT * pattern length), 0 <= FLOAT < 1\n"
"                            [0.1]\n"
"      --mode MODE           edit (Levenshtein) or hamming (mismatches only, no\n"
"                            indels) [edit]\n"
"      --kernel NAME         how D is computed; every kernel of a mode gives the\n"
"                            same hits [the mode's default, marked *]:\n");
    for (int32_t k = 0; gpuasm_kernel_get(k); k++) {
        const gpuasm_kernel_desc *d = gpuasm_kernel_get(k);
        fprintf(fp, "                              %-8s %-8s %s%s\n", d->name,
                gpuasm_mode_name(d->mode), d->summary, (d->caps & GPUASM_CAP_DEFAULT) ? " *" : "");
    }
    fprintf(fp,
"      --pattern WHICH       shorter|read|target: which sequence is the pattern\n"
"                            [shorter]\n"
"      --strand WHICH        both|forward: the read and its reverse complement,\n"
"                            or the read as sequenced only (adapters) [both]\n"
"      --overlap MIN         a target (adapter, primer) may run off the read's\n"
"                            ends, k from the aligned length; auto: when its\n"
"                            score (AS:i) is one chance rarely reaches (see\n"
"                            --max-chance); MIN: with >= MIN bases aligned,\n"
"                            exactly as cutadapt -O MIN; full: whole targets\n"
"                            only [auto]\n"
"      --read-overlap MIN    the same for a read running off a target's ends:\n"
"                            half (half the read, and the floor of auto), MIN\n"
"                            or full [half]\n"
"      --max-chance FLOAT    auto's bound: partial occurrences at least as good\n"
"                            as a reported one are expected by chance at most\n"
"                            FLOAT times per read, over all targets, ends and\n"
"                            strands (XE:f on each record) [0.01]\n"
"      --partial-ends ENDS   3, 5 or both: the read's (target's) 3' end or 5'\n"
"                            start may be run off [both]\n"
"      --filter WHICH        exact pigeonhole filters (same hits, less work):\n"
"                            auto (each where it pays), off (exhaustive), on\n"
"                            (wherever it applies), pieces (only the targets'\n"
"                            pieces in reads and at read ends: primers),\n"
"                            index (only the reads' pieces in the targets'\n"
"                            q-gram index) [auto]\n"
"      --all                 every non-overlapping occurrence\n"
"                            [default: the best per read and target]\n"
"      --best                one record per read, as cutadapt picks one adapter:\n"
"                            the primary of the default output\n"
"                            A read's records are best first, the first primary:\n"
"                            the highest score AS = aligned pattern bases - 2 x\n"
"                            differences, then fewest differences, longest\n"
"                            aligned part, forward strand, first target, leftmost\n"
"      --preset NAME         cutadapt: as cutadapt -a FILE finds 3' adapters\n"
"                            (--strand forward --partial-ends 3 --pattern target\n"
"                            --best --overlap 3); later options override it\n"
"      --match-read-wildcards  N and IUPAC codes in reads match what they stand\n"
"                            for (NM still counts them: XD has the search's)\n"
"      --strict-names        a duplicate target name, or one with a character SAM\n"
"                            forbids in @SQ SN, is an error (as Picard's sequence\n"
"                            dictionaries demand) [renamed: name_2, '(' -> '_']\n"
"Input:\n"
"  -1 FILE, -2 FILE          paired FASTQ files R1 and R2 (mates named alike up\n"
"                            to /1 /2): FLAG 0x1/0x40/0x80 and mate fields\n"
"  -T, --reference FILE      reference FASTA of CRAM input, and of CRAM output\n"
"                            (as samtools -T) [CRAM output: --write-reference's]\n"
"Output (as samtools):\n"
"  -o, --output FILE         write to FILE [standard output]\n"
"  -O, --output-fmt FMT[,OPT=VAL]...  sam, bam or cram [from -o's extension,\n"
"                            else sam]\n"
"      --output-fmt-option OPT=VAL  an htslib output option (level=1,\n"
"                            reference=FILE, ...); may be repeated\n"
"  -R, --rg-line LINE        @RG line ('@RG\\tID:x\\tSM:y', as bwa -R); RG:Z:x on\n"
"                            every record\n"
"      --rg TAG:VAL          a field of that @RG line (as samtools import -r);\n"
"                            may be repeated\n"
"      --unmatched           also write reads without hits (FLAG 4); a pair with\n"
"                            a hit is written whole in any case\n"
"      --eqx                 =/X in CIGAR instead of M\n"
"      --keep-tags           copy aux tags (and @RG lines) of SAM/BAM/CRAM input\n"
"      --no-PG               do not add a @PG line\n"
"Screening (README \"In workflows\"):\n"
"      --report FILE         per-target report as TSV: reads with a hit by strand,\n"
"                            full/partial, records, best-distance histogram, totals\n"
"      --multiqc FILE        the same as MultiQC custom content (name it *_mqc.json)\n"
"      --sample NAME         sample name in the reports [the reads file's name]\n"
"      --matched FILE        write reads with a hit (a pair whole) to FILE: FASTQ,\n"
"                            FASTA, BAM, SAM or CRAM by its name (.fq.gz: gzip);\n"
"                            both mates in one FASTQ get /1 /2\n"
"      --matched2 FILE       R2s there instead (R1s to --matched)\n"
"      --unmatched-reads FILE  the reads without a hit, as --matched\n"
"      --unmatched-reads2 FILE  R2s there instead\n"
"      --trim                cut matched reads before their best forward hit\n"
"                            (the 3' adapter's start, as cutadapt -a)\n"
"      --shard I/N           only templates t with t mod N = I-1 (1 <= I <= N):\n"
"                            N jobs cover the input once\n"
"      --merge-reports FILE...  sum --report TSVs (shards of one sample) to stdout\n"
"                            (with --multiqc FILE: also as MultiQC content)\n"
"Round trips (README \"Round trips\"):\n"
"      --write-reference FILE.fa  the targets as the SAM header names them\n"
"                            (renamed ones too), with FILE.fa.fai and a Picard\n"
"                            FILE.dict, for samtools calmd, Picard and CRAM\n"
"      --reads-out FILE      every read once, in input order, cut by --trim\n"
"                            (cutadapt -o); '-': standard output (with -o FILE)\n"
"      --reads-fmt FMT       format of the reads outputs: fastq, fasta, sam, bam,\n"
"                            cram, fastq.gz, fasta.gz, sam.gz [from each name;\n"
"                            fastq for -]\n"
"Resources:\n"
"  -@, --threads INT         threads (search, records, a long traceback, htslib); 0 = 1 [1]\n"
"      --device DEV          auto: the CPU at once, moving to every CUDA device\n"
"                            once CUDA has started (none: the CPU throughout);\n"
"                            cpu; cuda (device 0); cuda:N; cuda:N,M,... (a\n"
"                            list); cuda:all (every CUDA device): the CPU\n"
"                            scans while CUDA starts, CUDA every read after\n"
"                            that, and a CUDA that fails is an error [auto]\n"
"      --batch-size INT      bases per batch (k/M/G suffixes) [CUDA: from device\n"
"                            memory; CPU: 4M per thread; at most 4M by default]\n"
"      --max-memory SIZE     host memory for the batches, hits and records in\n"
"                            flight (K/M/G/T: powers of 1024); hit-dense batches\n"
"                            are scanned in smaller rounds to stay within it\n"
"                            [1G; 64M per batch in flight with several GPUs]\n"
"Reporting:\n"
"      --verbosity INT       htslib's log level, ours too: 3 warnings, 4 also\n"
"                            notes such as the CPU fallback [3]\n"
"      --progress            progress line (reads read and done, reads/s, hits)\n"
"                            on stderr even when it is not a terminal\n"
"                            [on a terminal only]\n"
"      --quiet               errors only: no progress line, no warnings, no summary\n"
"      --stats FILE          write run statistics to FILE as JSON\n"
"  -h, --help                this help\n"
"  -V, --version             version of gpuasm-scan and htslib\n");
}

static void version(void)
{
    printf("gpuasm-scan %s\nhtslib %s\n", PACKAGE_VERSION, hts_version());
}

static const gpuasm_cli cli = { "gpuasm-scan", "bases", usage, version };

/* The terminating signals (cli/signals.h): the run stops between batches
 * and dies of the signal; after STOP_GRACE_S at once. */
#define STOP_GRACE_S 2

enum { OPT_MODE = 256, OPT_KERNEL, OPT_PATTERN, OPT_ALL, OPT_WILDCARDS, OPT_UNMATCHED, OPT_EQX,
       OPT_KEEP_TAGS, OPT_NO_PG,
       OPT_BEST, OPT_STRICT_NAMES, OPT_FMT_OPTION, OPT_RG, OPT_STRAND,
       OPT_OVERLAP, OPT_READ_OVERLAP, OPT_PARTIAL_ENDS, OPT_MAX_MEMORY,
       OPT_REPORT, OPT_MULTIQC, OPT_SAMPLE, OPT_MATCHED, OPT_MATCHED2, OPT_UNMATCHED_READS,
       OPT_UNMATCHED_READS2, OPT_TRIM, OPT_SHARD, OPT_MERGE_REPORTS, OPT_FILTER,
       OPT_MAX_CHANCE, OPT_PRESET };
/* Round trips (issue #29). */
enum { OPT_WRITE_REFERENCE = 1024, OPT_READS_OUT, OPT_READS_FMT };

/* -O's value as samtools takes it (hts_parse_format: FMT[,OPT=VAL...]),
 * any case, limited to what gpuasm writes.  0, or -1. */
static int parse_out_format(const char *arg, htsFormat *fmt)
{
    char name[16];
    size_t n = strcspn(arg, ",");
    if (n == 0 || n >= sizeof name) return -1;
    for (size_t i = 0; i < n; i++) name[i] = (char)tolower((unsigned char)arg[i]);
    name[n] = 0;
    if (strcmp(name, "sam") && strcmp(name, "sam.gz") && strcmp(name, "bam") && strcmp(name, "cram"))
        return -1;
    kstring_t ks = KS_INITIALIZE;
    if (kputs(name, &ks) < 0 || kputs(arg + n, &ks) < 0) { ks_free(&ks); return -1; }
    int r = hts_parse_format(fmt, ks.s);
    ks_free(&ks);
    return r;
}

/* The output format from -o's file name, as samtools view picks it
 * (sam_open_mode): .bam, .cram, .sam.gz, anything else SAM.  -1 for a
 * FASTQ/FASTA name, which gpuasm does not write. */
static int format_from_name(const char *path, htsFormat *fmt)
{
    char mode[8] = "";
    const char *name = "sam";
    if (path && strcmp(path, "-") && sam_open_mode(mode, path, NULL) == 0) {
        if (mode[0] == 'f' || mode[0] == 'F') return -1;
        name = mode[0] == 'b' ? "bam" : mode[0] == 'c' ? "cram" : mode[0] == 'z' ? "sam.gz" : "sam";
    }
    return hts_parse_format(fmt, name);
}

/* ---- round trips (issue #29) ------------------------------------------------------
 *
 * Standard output takes one output: the SAM without -o (or with -o -),
 * else at most one of --stats, --reads-out and the --matched /
 * --unmatched-reads files given as "-".  0, or -1 after the message. */
static int round_trip_outputs(const gpuasm_scan_opt *o)
{
    const char *name[] = { "--reads-out", "--matched", "--matched2", "--unmatched-reads",
                           "--unmatched-reads2", "--stats" };
    const char *path[] = { o->screen.reads_out, o->screen.matched, o->screen.matched2,
                           o->screen.unmatched, o->screen.unmatched2, o->stats_path };
    const char *taken = !o->out_path || !strcmp(o->out_path, "-") ? "the SAM output" : NULL;
    for (size_t i = 0; i < sizeof name / sizeof name[0]; i++) {
        if (!path[i] || strcmp(path[i], "-")) continue;
        if (taken) {
            gpuasm_fail("%s -: standard output carries %s%s", name[i], taken,
                        !strcmp(taken, "the SAM output") ? " (give -o FILE)" : "");
            return -1;
        }
        taken = name[i];
    }
    return 0;
}

/* CRAM output is encoded against a reference, as samtools: -T's, else the
 * --write-reference file (written before the output opens), unless an
 * --output-fmt-option already names one (reference=, no_ref, embed_ref).
 * Without any, CRAM is written without a reference (sam_out.c). */
static int cram_reference(const gpuasm_scan_opt *o, htsFormat *fmt)
{
    if (fmt->format != cram) return 0;
    const char *ref = o->reference ? o->reference : o->write_reference;
    if (!ref) return 0;
    for (const hts_opt *x = fmt->specific; x; x = x->next)
        if (x->opt == CRAM_OPT_REFERENCE || x->opt == CRAM_OPT_NO_REF || x->opt == CRAM_OPT_EMBED_REF)
            return 0;
    kstring_t kv = KS_INITIALIZE;
    hts_opt *add = NULL;
    int r = ksprintf(&kv, "reference=%s", ref) < 0 || hts_opt_add(&add, kv.s) < 0 ? -1 : 0;
    ks_free(&kv);
    if (r < 0) {
        hts_opt_free(add);
        gpuasm_fail("%s", "out of memory");
        return -1;
    }
    hts_opt **tail = (hts_opt **)&fmt->specific;
    while (*tail) tail = &(*tail)->next;
    *tail = add;
    return 0;
}

/* What gpuasm-scan gathers from its command line besides gpuasm_scan_opt. */
typedef struct {
    const char *mode, *kernel;     /* --mode, --kernel as given */
    const char *out_fmt, *r1, *r2, *rg_line;
    int no_pg, merge_reports;
    hts_opt *fmt_opts;             /* --output-fmt-option, in order */
    kstring_t rg_fields;           /* --rg's fields */
} scan_args;

/* Option c (one of gpuasm-scan's own, optarg its value) into o and a.
 * 0, or 1 when it is bad (its one line printed: exit 1). */
static int parse_option(int c, gpuasm_scan_opt *o, scan_args *a, char **argv)
{
    long long v;
    char *endp;
    switch (c) {
    case OPT_PRESET: break;
    case OPT_MAX_CHANCE:
        errno = 0;
        o->max_chance = strtod(optarg, &endp);
        if (endp == optarg || *endp || errno || !(o->max_chance > 0.0) || !isfinite(o->max_chance))
            return gpuasm_fail("invalid --max-chance '%s' (expected a number > 0, e.g. 0.01)", optarg);
        break;
    case 'k':
        if (gpuasm_parse_size(optarg, 0, 1000000000LL, 0, &v) < 0)
            return gpuasm_fail("invalid -k/--max-diffs '%s' (expected an integer >= 0)", optarg);
        o->search.max_diffs = (int32_t)v;
        break;
    case 'e':
        errno = 0;
        o->search.error_rate = strtod(optarg, &endp);
        if (endp == optarg || *endp || errno || !(o->search.error_rate >= 0.0) ||
            !(o->search.error_rate < 1.0))
            return gpuasm_fail("invalid -e/--error-rate '%s' (expected a number in [0, 1))", optarg);
        break;
    case OPT_MODE:
        if (gpuasm_mode_find(optarg) < 0)
            return gpuasm_fail("invalid --mode '%s' (expected edit or hamming)", optarg);
        a->mode = optarg;
        break;
    case OPT_KERNEL:
        a->kernel = optarg;
        break;
    case OPT_PATTERN:
        if (!strcmp(optarg, "shorter")) o->search.pattern_side = GPUASM_PATTERN_SHORTER;
        else if (!strcmp(optarg, "read")) o->search.pattern_side = GPUASM_PATTERN_READ;
        else if (!strcmp(optarg, "target")) o->search.pattern_side = GPUASM_PATTERN_TARGET;
        else return gpuasm_fail("invalid --pattern '%s' (expected shorter, read or target)", optarg);
        break;
    case OPT_STRAND:
        if (!strcmp(optarg, "both")) o->search.strand = GPUASM_STRAND_BOTH;
        else if (!strcmp(optarg, "forward")) o->search.strand = GPUASM_STRAND_FORWARD;
        else return gpuasm_fail("invalid --strand '%s' (expected both or forward)", optarg);
        break;
    case OPT_OVERLAP:
        o->overlap_auto = 0;
        if (!strcmp(optarg, "full")) o->search.overlap_min = 0;
        else if (!strcmp(optarg, "auto")) { o->search.overlap_min = 1; o->overlap_auto = 1; }
        else if (gpuasm_parse_size(optarg, 1, 1000000000LL, 0, &v) < 0)
            return gpuasm_fail("invalid --overlap '%s' (expected auto, a number of bases >= 1, "
                               "or full)", optarg);
        else o->search.overlap_min = (int32_t)v;
        break;
    case OPT_READ_OVERLAP:
        o->read_overlap_auto = 0;
        if (!strcmp(optarg, "full")) o->search.read_overlap_min = 0;
        else if (!strcmp(optarg, "half")) { o->search.read_overlap_min = -1; o->read_overlap_auto = 1; }
        else if (gpuasm_parse_size(optarg, 1, 1000000000LL, 0, &v) < 0)
            return gpuasm_fail("invalid --read-overlap '%s' (expected a number of bases >= 1, "
                               "half or full)", optarg);
        else o->search.read_overlap_min = (int32_t)v;
        break;
    case OPT_PARTIAL_ENDS:
        if (!strcmp(optarg, "both")) o->search.partial_ends = GPUASM_END_3 | GPUASM_END_5;
        else if (!strcmp(optarg, "3")) o->search.partial_ends = GPUASM_END_3;
        else if (!strcmp(optarg, "5")) o->search.partial_ends = GPUASM_END_5;
        else return gpuasm_fail("invalid --partial-ends '%s' (expected 3, 5 or both)", optarg);
        break;
    case OPT_FILTER:
        if ((o->search.filter = gpuasm_filter_parse(optarg)) < 0)
            return gpuasm_fail("invalid --filter '%s' (expected auto, off, on, pieces or index)", optarg);
        break;
    case OPT_ALL: o->report.all = 1; break;
    case OPT_WILDCARDS: o->wildcards = 1; break;
    case 'O': a->out_fmt = optarg; break;
    case OPT_FMT_OPTION:
        if (hts_opt_add(&a->fmt_opts, optarg) < 0)
            return gpuasm_fail("invalid --output-fmt-option '%s' (an htslib option such as level=1; "
                        "see samtools' manual)", optarg);
        break;
    case 'R': a->rg_line = optarg; break;
    case OPT_RG:
        if ((a->rg_fields.l && kputc('\t', &a->rg_fields) < 0) || kputs(optarg, &a->rg_fields) < 0)
            return gpuasm_fail("%s", "out of memory");
        break;
    case '1': a->r1 = optarg; break;
    case '2': a->r2 = optarg; break;
    case OPT_BEST: o->report.best = 1; break;
    case OPT_STRICT_NAMES: o->strict_names = 1; break;
    case OPT_UNMATCHED: o->unmatched = 1; break;
    case OPT_EQX: o->report.eqx = 1; break;
    case OPT_KEEP_TAGS: o->keep_tags = 1; break;
    case OPT_NO_PG: a->no_pg = 1; break;
    case OPT_MAX_MEMORY:
        if (gpuasm_parse_size(optarg, 16LL << 20, 1LL << 50, 2, &v) < 0)
            return gpuasm_fail("invalid --max-memory '%s' (expected bytes, at least 16M, e.g. 2G)",
                        optarg);
        o->max_memory = (uint64_t)v;
        break;
    case 'T': o->reference = optarg; break;
    case OPT_REPORT: o->screen.report = optarg; break;
    case OPT_MULTIQC: o->screen.multiqc = optarg; break;
    case OPT_SAMPLE:
        if (!*optarg || strpbrk(optarg, "\t\n\r"))
            return gpuasm_fail("invalid --sample '%s' (a non-empty name without tabs or newlines)",
                        optarg);
        o->screen.sample = optarg;
        break;
    case OPT_MATCHED: o->screen.matched = optarg; break;
    case OPT_MATCHED2: o->screen.matched2 = optarg; break;
    case OPT_UNMATCHED_READS: o->screen.unmatched = optarg; break;
    case OPT_UNMATCHED_READS2: o->screen.unmatched2 = optarg; break;
    case OPT_TRIM: o->screen.trim = 1; break;
    case OPT_SHARD:
        if (gpuasm_shard_parse(optarg, &o->shard) < 0)
            return gpuasm_fail("invalid --shard '%s' (expected I/N with 1 <= I <= N, e.g. 2/4)",
                        optarg);
        break;
    case OPT_MERGE_REPORTS: a->merge_reports = 1; break;
    case OPT_WRITE_REFERENCE: o->write_reference = optarg; break;
    case OPT_READS_OUT: o->screen.reads_out = optarg; break;
    case OPT_READS_FMT: {
        char m[8], why[512];
        if (gpuasm_reads_out_mode("--reads-fmt", "-", optarg, m, why, sizeof why) < 0)
            return gpuasm_fail("%s", why);
        o->screen.reads_fmt = optarg;
        break;
    }
    default: return gpuasm_opt_unknown(argv);
    }
    return 0;
}

/* Issue #31: an empty file name (-o '', a shell variable left unset) names
 * no file: refused before any work (-o '' ran to the end and only failed
 * to move the output into place).  0, or 1 (its one line printed). */
static int check_file_names(int argc, char **argv, const gpuasm_scan_opt *o, const scan_args *a)
{
    const gpuasm_file_opt files[] = {
        { "-o", o->out_path }, { "--stats", o->stats_path }, { "--report", o->screen.report },
        { "--multiqc", o->screen.multiqc }, { "--matched", o->screen.matched },
        { "--matched2", o->screen.matched2 }, { "--unmatched-reads", o->screen.unmatched },
        { "--unmatched-reads2", o->screen.unmatched2 }, { "--reads-out", o->screen.reads_out },
        { "--write-reference", o->write_reference }, { "-T", o->reference }, { "-1", a->r1 },
        { "-2", a->r2 },
    };
    return gpuasm_opt_file_names(files, sizeof files / sizeof files[0], argc, argv);
}

/* The options as a whole, and the positional arguments (argv[optind..]):
 * the kernel and mode, the reads and targets.  0, or 1 (its one line
 * printed: exit 1). */
static int check_args(int argc, char **argv, gpuasm_scan_opt *o, const scan_args *a)
{
    if ((o->screen.matched2 && !o->screen.matched) || (o->screen.unmatched2 && !o->screen.unmatched))
        return gpuasm_fail("%s", "--matched2 needs --matched, --unmatched-reads2 --unmatched-reads");
    if (o->screen.trim && !o->screen.matched && !o->screen.reads_out)
        return gpuasm_fail("%s", "--trim cuts the reads written by --matched or --reads-out: give "
                           "one of them");
    if (round_trip_outputs(o) < 0) return 1;
    /* The cutadapt-style summary on stderr ends every run (issue #10: "a
     * short summary on stderr at the end of a run ... unless --quiet"), as
     * minimap2's [M::main] lines do; stdout stays the SAM alone. */
    o->screen.summary = !o->quiet;
    /* --mode and --kernel (the kernel table, registry.h): a kernel computes
     * one mode; --mode alone takes that mode's default kernel, --kernel alone
     * implies its mode, both must agree. */
    if (a->kernel && (o->search.kernel = gpuasm_kernel_find(a->kernel)) < 0) {
        /* The sequence kernels, from the table: the signal mode's are gpuasm-signal's. */
        char names[256];
        gpuasm_kernel_names(0, 1, names, sizeof names);
        return gpuasm_fail("invalid --kernel '%s' (expected %s)", a->kernel, names);
    }
    if (a->mode) {
        const int32_t m = gpuasm_mode_find(a->mode);
        if (a->kernel && gpuasm_kernel_get(o->search.kernel)->mode != m)
            return gpuasm_fail("--kernel %s is a kernel of --mode %s; --mode %s needs a "
                               "kernel of its own (e.g. --kernel %s)", a->kernel,
                               gpuasm_mode_name(gpuasm_kernel_get(o->search.kernel)->mode), a->mode,
                               gpuasm_kernel_get(gpuasm_mode_default_kernel(m))->name);
        if (!a->kernel) o->search.kernel = gpuasm_mode_default_kernel(m);
    }
    /* The signal mode's kernels compare numeric signals: gpuasm-signal. */
    if (gpuasm_kernel_get(o->search.kernel)->mode == GPUASM_MODE_SIGNAL)
        return gpuasm_fail("--%s %s compares raw signals, not sequences: use gpuasm-signal "
                           "(see gpuasm-signal --help)", a->kernel ? "kernel" : "mode",
                           a->kernel ? a->kernel : a->mode);
    if (o->report.best && o->report.all)
        return gpuasm_fail("%s", "--best reports one record per read, --all every occurrence: "
                           "give one of them");
    /* Without --all the report uses a pair's best hit and its XS only:
     * the backends keep no more (search.h, GPUASM_KEEP_REPORTED). */
    o->search.keep = o->report.all ? GPUASM_KEEP_ALL : GPUASM_KEEP_REPORTED;
    /* Reads: <reads> [<reads2>] <targets>, or -1 R1 -2 R2 <targets>. */
    int npos = argc - optind;
    if (a->r1 || a->r2) {
        if (!a->r1 || !a->r2)
            return gpuasm_fail("%s", "-1 and -2 go together (R1 and R2 of paired files)");
        if (npos != 1) {
            if (npos == 0) { usage(stderr); return 1; }
            return gpuasm_fail("%s", "with -1 and -2, give only <targets.fa> (see --help)");
        }
        o->reads_path = a->r1;
        o->reads_path2 = a->r2;
    } else {
        if (npos < 2 || npos > 3) {
            if (npos == 0) { usage(stderr); return 1; }
            return gpuasm_fail("%s", "expected <reads> [<reads2>] <targets.fa> (see --help)");
        }
        o->reads_path = argv[optind];
        if (npos == 3) o->reads_path2 = argv[optind + 1];
    }
    if (o->reads_path2 && !strcmp(o->reads_path, "-") && !strcmp(o->reads_path2, "-"))
        return gpuasm_fail("%s", "R1 and R2 cannot both be - (standard input)");
    o->targets_path = argv[argc - 1];
    /* Issue #31: one input only can come from standard input. */
    if (!strcmp(o->targets_path, "-") &&
        (!strcmp(o->reads_path, "-") || (o->reads_path2 && !strcmp(o->reads_path2, "-"))))
        return gpuasm_fail("%s", "the reads and the targets cannot both be - (standard input): "
                           "give the targets as a file");
    return 0;
}

/* The output format: -O, else -o's extension (as samtools view), with
 * --output-fmt-option's options after -O's own (hts_opt_apply applies them
 * in order; a->fmt_opts is fmt's then).  0, or 1 (its one line printed). */
static int output_format(const char *out_path, scan_args *a, htsFormat *fmt)
{
    if (a->out_fmt ? parse_out_format(a->out_fmt, fmt) < 0 : format_from_name(out_path, fmt) < 0) {
        if (a->out_fmt)
            gpuasm_fail("invalid -O/--output-fmt '%s' (expected sam, bam or cram, optionally with "
                        ",OPTION=VALUE)", a->out_fmt);
        else
            gpuasm_fail("-o %s: gpuasm-scan writes SAM, BAM or CRAM (name the file .sam, .bam or "
                        ".cram, or give -O)", out_path);
        return 1;
    }
    if (a->fmt_opts) {
        hts_opt **tail = (hts_opt **)&fmt->specific;
        while (*tail) tail = &(*tail)->next;
        *tail = a->fmt_opts;
        a->fmt_opts = NULL;
    }

    return 0;
}

/* The read group: -R's line, then --rg's fields, as one @RG line and its
 * ID (gpuasm_rg_line).  0, or 1 (its one line printed). */
static int read_group(const scan_args *a, kstring_t *rg, kstring_t *rg_id)
{
    kstring_t spec = KS_INITIALIZE;
    char why[1024];
    int bad = (a->rg_line && kputs(a->rg_line, &spec) < 0) ||
              (a->rg_line && a->rg_fields.l && kputc('\t', &spec) < 0) ||
              (a->rg_fields.l && kputs(a->rg_fields.s, &spec) < 0);
    if (!bad && gpuasm_rg_line(spec.s, rg, rg_id, why, sizeof why) < 0) {
        gpuasm_fail("invalid -R/--rg: %s", why);
        bad = 1;
    } else if (bad) {
        gpuasm_fail("%s", "out of memory");
    }
    ks_free(&spec);
    return bad;
}

int main(int argc, char **argv)
{
    static const struct option lopts[] = {
        { "max-diffs", required_argument, NULL, 'k' },
        { "error-rate", required_argument, NULL, 'e' },
        { "mode", required_argument, NULL, OPT_MODE },
        { "kernel", required_argument, NULL, OPT_KERNEL },
        { "pattern", required_argument, NULL, OPT_PATTERN },
        { "strand", required_argument, NULL, OPT_STRAND },
        { "overlap", required_argument, NULL, OPT_OVERLAP },
        { "read-overlap", required_argument, NULL, OPT_READ_OVERLAP },
        { "partial-ends", required_argument, NULL, OPT_PARTIAL_ENDS },
        { "max-chance", required_argument, NULL, OPT_MAX_CHANCE },
        { "preset", required_argument, NULL, OPT_PRESET },
        { "filter", required_argument, NULL, OPT_FILTER },
        { "all", no_argument, NULL, OPT_ALL },
        { "match-read-wildcards", no_argument, NULL, OPT_WILDCARDS },
        { "output-fmt", required_argument, NULL, 'O' },
        { "unmatched", no_argument, NULL, OPT_UNMATCHED },
        { "eqx", no_argument, NULL, OPT_EQX },
        { "keep-tags", no_argument, NULL, OPT_KEEP_TAGS },
        { "no-PG", no_argument, NULL, OPT_NO_PG },
        { "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
        { "reference", required_argument, NULL, 'T' },
        { "best", no_argument, NULL, OPT_BEST },
        { "strict-names", no_argument, NULL, OPT_STRICT_NAMES },
        { "output-fmt-option", required_argument, NULL, OPT_FMT_OPTION },
        { "rg-line", required_argument, NULL, 'R' },
        { "rg", required_argument, NULL, OPT_RG },
        { "report", required_argument, NULL, OPT_REPORT },
        { "multiqc", required_argument, NULL, OPT_MULTIQC },
        { "sample", required_argument, NULL, OPT_SAMPLE },
        { "matched", required_argument, NULL, OPT_MATCHED },
        { "matched2", required_argument, NULL, OPT_MATCHED2 },
        { "unmatched-reads", required_argument, NULL, OPT_UNMATCHED_READS },
        { "unmatched-reads2", required_argument, NULL, OPT_UNMATCHED_READS2 },
        { "trim", no_argument, NULL, OPT_TRIM },
        { "shard", required_argument, NULL, OPT_SHARD },
        { "merge-reports", no_argument, NULL, OPT_MERGE_REPORTS },
        { "write-reference", required_argument, NULL, OPT_WRITE_REFERENCE },
        { "reads-out", required_argument, NULL, OPT_READS_OUT },
        { "reads-fmt", required_argument, NULL, OPT_READS_FMT },
        GPUASM_COMMON_LONGOPTS,
        { NULL, 0, NULL, 0 }
    };
    static const char shortopts[] = ":k:e:O:T:R:1:2:" GPUASM_COMMON_SHORTOPTS;
    gpuasm_defaults d;
    gpuasm_defaults_init(&d);
    gpuasm_common_opt co;
    gpuasm_common_opt_init(&cli, &co, &d);
    gpuasm_scan_opt o = {
        .version = PACKAGE_VERSION, .search = d.search, .max_chance = d.max_chance,
        .overlap_auto = 1, .read_overlap_auto = 1,
    };
    scan_args a;
    memset(&a, 0, sizeof a);
    int c, ret = 1;
    htsFormat fmt;
    memset(&fmt, 0, sizeof fmt);
    kstring_t rg = KS_INITIALIZE, rg_id = KS_INITIALIZE, cl = KS_INITIALIZE;

    gpuasm_signals_watch(cli.prog, gpuasm_scan_interrupt, STOP_GRACE_S);
    opterr = 0;  /* our own messages, one line each */
    /* --preset first (as minimap2 takes -x), so that any other option
     * overrides it wherever it stands. */
    while ((c = getopt_long(argc, argv, shortopts, lopts, NULL)) >= 0) {
        if (c != OPT_PRESET) continue;
        if (strcmp(optarg, "cutadapt"))
            return gpuasm_fail("invalid --preset '%s' (expected cutadapt)", optarg);
        o.search.strand = GPUASM_STRAND_FORWARD;
        o.search.partial_ends = GPUASM_END_3;
        o.search.pattern_side = GPUASM_PATTERN_TARGET;
        o.report.best = 1;
        o.search.overlap_min = 3;
        o.overlap_auto = 0;
    }
    optind = 0;   /* GNU getopt: start over */
    while ((c = getopt_long(argc, argv, shortopts, lopts, NULL)) >= 0) {
        const int shared = gpuasm_common_opt_parse(&cli, &co, c, argv);
        if (shared == GPUASM_OPT_EXIT_0) return 0;
        if (shared == GPUASM_OPT_EXIT_1) return 1;
        if (shared == GPUASM_OPT_NOT_SHARED && parse_option(c, &o, &a, argv)) return 1;
    }
    o.out_path = co.out_path;
    o.stats_path = co.stats_path;
    o.device = co.device;
    o.n_threads = co.n_threads;
    o.batch_bases = co.batch;
    o.verbosity = co.verbosity;
    o.quiet = co.quiet;
    o.progress = co.progress;
    if (check_file_names(argc, argv, &o, &a)) return 1;
    if (a.merge_reports) return gpuasm_merge_reports(argc - optind, argv + optind, o.screen.multiqc);
    if (check_args(argc, argv, &o, &a)) return 1;
    if (output_format(o.out_path, &a, &fmt)) goto out;
    o.out_format = &fmt;
    if (cram_reference(&o, &fmt) < 0) goto out;
    if (a.rg_line || a.rg_fields.l) {
        if (read_group(&a, &rg, &rg_id)) goto out;
        o.rg_line = rg.s;
        o.rg_id = rg_id.s;
    }

    /* htslib's own messages show (as in samtools), before our one line;
     * --quiet leaves its errors only. */
    gpuasm_common_opt_hts_log(&co);

    for (int i = 0; i < argc; i++) {
        if (i) kputc(' ', &cl);
        kputs(argv[i], &cl);
    }
    o.pg_cl = a.no_pg ? NULL : (cl.s ? cl.s : "");

    char err[1024];
    if (gpuasm_scan_run(cli.prog, &o, err, sizeof err) < 0) {
        if (gpuasm_signals_stopped()) {
            gpuasm_fail("%s", err);
            gpuasm_signals_die(gpuasm_signals_stopped());
        }
        gpuasm_signals_after_failure();   /* | head: die of SIGPIPE, as samtools, silently */
        gpuasm_fail("%s", err);
        goto out;
    }
    ret = 0;
out:
    ks_free(&cl);
    ks_free(&rg);
    ks_free(&rg_id);
    ks_free(&a.rg_fields);
    hts_opt_free(a.fmt_opts);
    hts_opt_free((hts_opt *)fmt.specific);
    /* --device auto ended before CUDA had started: a thread is still inside
     * its open, and exit()'s handlers (the CUDA runtime's teardown) must
     * not run beside it; every output is closed, so _exit() loses nothing
     * once stdio is flushed (cli/auto_move.h). */
    if (gpuasm_auto_move_pending()) {
        fflush(NULL);
        _exit(ret);
    }
    return ret;
}
