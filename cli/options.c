/* SPDX-License-Identifier: MIT */
/* options.c -- the options both commands share (see options.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <htslib/hts.h>

#include "cli/options.h"
#include "util/parse_size.h"

/* The program every message names (gpuasm_common_opt_init). */
static const char *prog = "gpuasm";

void gpuasm_common_opt_init(const gpuasm_cli *cli, gpuasm_common_opt *c, const gpuasm_defaults *d)
{
    prog = cli->prog;
    memset(c, 0, sizeof *c);
    c->device = d->device;
    c->n_threads = d->n_threads;
    c->verbosity = d->verbosity;
}

int gpuasm_fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

/* The option getopt_long() just refused, as given: "-k" for a short one
 * (optopt its letter), else its word ("--stats", "--bogus"): a long option
 * has no letter (optopt is 0, or its value past 255). */
static const char *opt_name(char **argv)
{
    static char s[3];
    if (optopt > 0 && optopt < 256) {
        s[0] = '-';
        s[1] = (char)optopt;
        s[2] = 0;
        return s;
    }
    return argv[optind - 1];
}

int gpuasm_opt_unknown(char **argv)
{
    return gpuasm_fail("unknown option %s (see --help)", opt_name(argv));
}

int gpuasm_common_opt_parse(const gpuasm_cli *cli, gpuasm_common_opt *c, int ch, char **argv)
{
    long long v;
    switch (ch) {
    case 'o': c->out_path = optarg; break;
    case GPUASM_OPT_STATS: c->stats_path = optarg; break;
    case GPUASM_OPT_DEVICE: c->device = optarg; break;
    case '@':
        /* 0 = no extra threads, as samtools (nf-core passes task.cpus - 1). */
        if (gpuasm_parse_size(optarg, 0, 1024, 0, &v) < 0) {
            gpuasm_fail("invalid -@/--threads '%s' (expected an integer from 0 to 1024)", optarg);
            return GPUASM_OPT_EXIT_1;
        }
        c->n_threads = v < 1 ? 1 : (int)v;
        break;
    case GPUASM_OPT_BATCH:
        if (gpuasm_parse_size(optarg, 1, 1LL << 40, 1, &v) < 0) {
            gpuasm_fail("invalid --batch-size '%s' (expected a number of %s, e.g. 4M)", optarg,
                        cli->batch_unit);
            return GPUASM_OPT_EXIT_1;
        }
        c->batch = (uint64_t)v;
        break;
    case GPUASM_OPT_VERBOSITY:
        if (gpuasm_parse_size(optarg, 0, 10, 0, &v) < 0) {
            gpuasm_fail("invalid --verbosity '%s' (expected an integer from 0 to 10)", optarg);
            return GPUASM_OPT_EXIT_1;
        }
        c->verbosity = (int)v;
        c->verbosity_given = 1;
        break;
    case GPUASM_OPT_PROGRESS: c->progress = 1; break;
    case GPUASM_OPT_QUIET: c->quiet = 1; break;
    case 'h':
        cli->usage(stdout);
        return GPUASM_OPT_EXIT_0;
    case 'V':
        cli->version();
        return GPUASM_OPT_EXIT_0;
    case ':':
        gpuasm_fail("option %s needs a value", opt_name(argv));
        return GPUASM_OPT_EXIT_1;
    case '?':
        gpuasm_opt_unknown(argv);
        return GPUASM_OPT_EXIT_1;
    default:
        return GPUASM_OPT_NOT_SHARED;
    }
    return GPUASM_OPT_TAKEN;
}

void gpuasm_common_opt_hts_log(const gpuasm_common_opt *c)
{
    hts_set_log_level((enum htsLogLevel)(c->verbosity_given ? c->verbosity
                                         : c->quiet ? HTS_LOG_ERROR : HTS_LOG_WARNING));
}

int gpuasm_opt_file_names(const gpuasm_file_opt *files, size_t n, int argc, char **argv)
{
    for (size_t i = 0; i < n; i++)
        if (files[i].val && !*files[i].val)
            return gpuasm_fail("%s '': an empty file name (give a file, or - for standard input "
                               "or output)", files[i].opt);
    for (int i = optind; i < argc; i++)
        if (!*argv[i])
            return gpuasm_fail("%s", "an empty file name ('') among the inputs (give a file, or - "
                               "for standard input)");
    return 0;
}
