/* gpuasm-scan -- screen reads for adapters, primers and virus signatures by
 * exhaustive approximate string matching, and write every hit as SAM.
 *
 *   gpuasm-scan [options] <reads> <targets.fa>
 *
 * Option names follow samtools (-o, -O, -@, -T, --no-PG) and cutadapt
 * (-e).  Exit status: 0 on success, 1 on any error (one message on stderr).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <htslib/hts.h>
#include <htslib/kstring.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "pipeline.h"
#include "registry.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.0.0-dev"
#endif

static const char *prog = "gpuasm-scan";

static void usage(FILE *fp)
{
    fprintf(fp,
"Usage: gpuasm-scan [options] <reads> <targets.fa>\n"
"\n"
"Find every read's approximate occurrences of the targets (or of the read in\n"
"the targets) with at most k differences, on both strands, and write them as SAM.\n"
"  reads       FASTQ/FASTA (plain, gzip, bgzf), SAM/BAM/CRAM, or - for stdin\n"
"  targets.fa  sequences to look for (FASTA, plain/gzip/bgzf)\n"
"\n"
"Search:\n"
"  -k, --max-diffs INT       at most INT differences (overrides -e)\n"
"  -e, --error-rate FLOAT    k = floor(FLOAT * pattern length), 0 <= FLOAT < 1 [0.1]\n"
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
"      --pattern WHICH       shorter|read|target: which sequence is the pattern [shorter]\n"
"      --all                 every non-overlapping occurrence, best first\n"
"                            [default: the best per read and target]\n"
"      --match-read-wildcards  N and IUPAC codes in reads match what they stand for\n"
"Output:\n"
"  -o, --output FILE         write to FILE [standard output]\n"
"  -O, --output-fmt FORMAT   sam, bam or cram [sam]\n"
"      --unmatched           also write reads without hits (FLAG 4)\n"
"      --eqx                 =/X in CIGAR instead of M\n"
"      --keep-tags           copy aux tags (and @RG lines) of SAM/BAM/CRAM input\n"
"      --no-PG               do not add a @PG line\n"
"Resources:\n"
"  -@, --threads INT         threads [1]\n"
"      --device DEV          auto: every CUDA device, else the CPU (one warning);\n"
"                            cpu; cuda (device 0); cuda:N; cuda:N,M,... (a list);\n"
"                            cuda:all (every CUDA device) [auto]\n"
"      --batch-size INT      bases per batch (k/M/G suffixes) [CUDA: from device\n"
"                            memory; CPU: 4M per thread; at most 4M by default]\n"
"  -T, --reference FILE      reference FASTA to decode CRAM input\n"
"Reporting:\n"
"      --progress            progress line (reads, reads/s, hits) on stderr even\n"
"                            when stderr is not a terminal [on a terminal only]\n"
"      --quiet               no progress line (warnings and errors still show)\n"
"      --stats FILE          write run statistics to FILE as JSON\n"
"  -h, --help                this help\n"
"  -V, --version             version of gpuasm-scan and htslib\n");
}

static void fail(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
}

/* Whole-string integer in [lo, hi] with an optional k/M/G suffix. */
static int parse_size(const char *s, long long lo, long long hi, int suffixes, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno) return -1;
    if (suffixes && *end) {
        long long mul = (*end == 'k' || *end == 'K') ? 1000LL
                      : (*end == 'm' || *end == 'M') ? 1000000LL
                      : (*end == 'g' || *end == 'G') ? 1000000000LL : 0;
        if (!mul || end[1] || v > hi / mul) return -1;
        v *= mul;
        end++;
    }
    if (*end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

enum { OPT_MODE = 256, OPT_KERNEL, OPT_PATTERN, OPT_ALL, OPT_WILDCARDS, OPT_UNMATCHED, OPT_EQX,
       OPT_KEEP_TAGS, OPT_NO_PG, OPT_DEVICE, OPT_BATCH, OPT_QUIET, OPT_PROGRESS, OPT_STATS };

int main(int argc, char **argv)
{
    static const struct option lopts[] = {
        { "max-diffs", required_argument, NULL, 'k' },
        { "error-rate", required_argument, NULL, 'e' },
        { "mode", required_argument, NULL, OPT_MODE },
        { "kernel", required_argument, NULL, OPT_KERNEL },
        { "pattern", required_argument, NULL, OPT_PATTERN },
        { "all", no_argument, NULL, OPT_ALL },
        { "match-read-wildcards", no_argument, NULL, OPT_WILDCARDS },
        { "output", required_argument, NULL, 'o' },
        { "output-fmt", required_argument, NULL, 'O' },
        { "unmatched", no_argument, NULL, OPT_UNMATCHED },
        { "eqx", no_argument, NULL, OPT_EQX },
        { "keep-tags", no_argument, NULL, OPT_KEEP_TAGS },
        { "no-PG", no_argument, NULL, OPT_NO_PG },
        { "threads", required_argument, NULL, '@' },
        { "device", required_argument, NULL, OPT_DEVICE },
        { "batch-size", required_argument, NULL, OPT_BATCH },
        { "reference", required_argument, NULL, 'T' },
        { "quiet", no_argument, NULL, OPT_QUIET },
        { "progress", no_argument, NULL, OPT_PROGRESS },
        { "stats", required_argument, NULL, OPT_STATS },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 }
    };
    gpuasm_scan_opt o = {
        .out_format = "sam", .device = "auto", .n_threads = 1, .version = PACKAGE_VERSION,
        .search = { .max_diffs = -1, .error_rate = 0.1, .pattern_side = GPUASM_PATTERN_SHORTER },
    };
    int no_pg = 0, c;
    const char *mode = NULL, *kernel = NULL;   /* --mode, --kernel as given */
    long long v;
    char *endp;

    opterr = 0;  /* our own messages, one line each */
    while ((c = getopt_long(argc, argv, ":k:e:o:O:@:T:hV", lopts, NULL)) >= 0) {
        switch (c) {
        case 'k':
            if (parse_size(optarg, 0, 1000000000LL, 0, &v) < 0)
                return fail("invalid -k/--max-diffs '%s' (expected an integer >= 0)", optarg), 1;
            o.search.max_diffs = (int32_t)v;
            break;
        case 'e':
            errno = 0;
            o.search.error_rate = strtod(optarg, &endp);
            if (endp == optarg || *endp || errno || !(o.search.error_rate >= 0.0) ||
                !(o.search.error_rate < 1.0))
                return fail("invalid -e/--error-rate '%s' (expected a number in [0, 1))", optarg), 1;
            break;
        case OPT_MODE:
            if (gpuasm_mode_find(optarg) < 0)
                return fail("invalid --mode '%s' (expected edit or hamming)", optarg), 1;
            mode = optarg;
            break;
        case OPT_KERNEL:
            kernel = optarg;
            break;
        case OPT_PATTERN:
            if (!strcmp(optarg, "shorter")) o.search.pattern_side = GPUASM_PATTERN_SHORTER;
            else if (!strcmp(optarg, "read")) o.search.pattern_side = GPUASM_PATTERN_READ;
            else if (!strcmp(optarg, "target")) o.search.pattern_side = GPUASM_PATTERN_TARGET;
            else return fail("invalid --pattern '%s' (expected shorter, read or target)", optarg), 1;
            break;
        case OPT_ALL: o.report.all = 1; break;
        case OPT_WILDCARDS: o.wildcards = 1; break;
        case 'o': o.out_path = optarg; break;
        case 'O':
            if (!strcasecmp(optarg, "sam")) o.out_format = "sam";
            else if (!strcasecmp(optarg, "bam")) o.out_format = "bam";
            else if (!strcasecmp(optarg, "cram")) o.out_format = "cram";
            else return fail("invalid -O/--output-fmt '%s' (expected sam, bam or cram)", optarg), 1;
            break;
        case OPT_UNMATCHED: o.unmatched = 1; break;
        case OPT_EQX: o.report.eqx = 1; break;
        case OPT_KEEP_TAGS: o.keep_tags = 1; break;
        case OPT_NO_PG: no_pg = 1; break;
        case '@':
            if (parse_size(optarg, 1, 1024, 0, &v) < 0)
                return fail("invalid -@/--threads '%s' (expected an integer from 1 to 1024)", optarg), 1;
            o.n_threads = (int)v;
            break;
        case OPT_DEVICE: o.device = optarg; break;
        case OPT_BATCH:
            if (parse_size(optarg, 1, 1LL << 40, 1, &v) < 0)
                return fail("invalid --batch-size '%s' (expected a number of bases, e.g. 4M)", optarg), 1;
            o.batch_bases = (uint64_t)v;
            break;
        case 'T': o.reference = optarg; break;
        case OPT_QUIET: o.quiet = 1; break;
        case OPT_PROGRESS: o.progress = 1; break;
        case OPT_STATS: o.stats_path = optarg; break;
        case 'h': usage(stdout); return 0;
        case 'V':
            printf("gpuasm-scan %s\nhtslib %s\n", PACKAGE_VERSION, hts_version());
            return 0;
        case ':':
            if (optopt) { char s[2] = { (char)optopt, 0 }; fail("option -%s needs a value", s); }
            else fail("option %s needs a value", argv[optind - 1]);
            return 1;
        default:
            if (optopt) { char s[2] = { (char)optopt, 0 }; fail("unknown option -%s (see --help)", s); }
            else fail("unknown option %s (see --help)", argv[optind - 1]);
            return 1;
        }
    }
    /* --mode and --kernel (the kernel table, registry.h): a kernel computes
     * one mode; --mode alone takes that mode's default kernel, --kernel alone
     * implies its mode, both must agree. */
    if (kernel && (o.search.kernel = gpuasm_kernel_find(kernel)) < 0) {
        kstring_t names = KS_INITIALIZE;
        for (int32_t k = 0; gpuasm_kernel_get(k); k++)
            ksprintf(&names, "%s%s", k == 0 ? "" : gpuasm_kernel_get(k + 1) ? ", " : " or ",
                     gpuasm_kernel_get(k)->name);
        fprintf(stderr, "%s: invalid --kernel '%s' (expected %s)\n", prog, kernel, names.s);
        ks_free(&names);
        return 1;
    }
    if (mode) {
        const int32_t m = gpuasm_mode_find(mode);
        if (kernel && gpuasm_kernel_get(o.search.kernel)->mode != m)
            return fprintf(stderr, "%s: --kernel %s is a kernel of --mode %s; --mode %s needs a "
                           "kernel of its own (e.g. --kernel %s)\n", prog, kernel,
                           gpuasm_mode_name(gpuasm_kernel_get(o.search.kernel)->mode), mode,
                           gpuasm_kernel_get(gpuasm_mode_default_kernel(m))->name), 1;
        if (!kernel) o.search.kernel = gpuasm_mode_default_kernel(m);
    }
    if (argc - optind != 2) {
        if (argc == optind) { usage(stderr); return 1; }
        return fail("%s", "expected two arguments, <reads> and <targets.fa> (see --help)"), 1;
    }
    o.reads_path = argv[optind];
    o.targets_path = argv[optind + 1];

    /* htslib's own messages would repeat ours in another voice. */
    hts_set_log_level(HTS_LOG_OFF);

    kstring_t cl = KS_INITIALIZE;
    for (int i = 0; i < argc; i++) {
        if (i) kputc(' ', &cl);
        kputs(argv[i], &cl);
    }
    o.pg_cl = no_pg ? NULL : (cl.s ? cl.s : "");

    char err[1024];
    int r = gpuasm_scan_run(prog, &o, err, sizeof err);
    ks_free(&cl);
    if (r < 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return 1;
    }
    return 0;
}
