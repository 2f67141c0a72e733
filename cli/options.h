/* SPDX-License-Identifier: MIT */
/* options.h -- what gpuasm-scan and gpuasm-signal share on their command
 * lines: the options both take (-o, -@, --device, --batch-size,
 * --verbosity, --progress, --quiet, --stats, -h, -V), their parsing and
 * messages, getopt's own errors, and the one error printer.  Their
 * defaults are engine/defaults.h's, as for the library.
 *
 * A command lists GPUASM_COMMON_LONGOPTS in its option table and
 * GPUASM_COMMON_SHORTOPTS in its option string, and hands every option
 * getopt_long() returns to gpuasm_common_opt_parse() first.
 */
#ifndef GPUASM_OPTIONS_H
#define GPUASM_OPTIONS_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/defaults.h"

/* A command as its shared options see it. */
typedef struct gpuasm_cli {
    const char *prog;          /* "gpuasm-scan": the prefix of every message */
    const char *batch_unit;    /* what --batch-size counts: "bases", "samples" */
    void (*usage)(FILE *fp);   /* --help (stdout), or no arguments (stderr) */
    void (*version)(void);     /* --version: its lines on stdout */
} gpuasm_cli;

/* The shared options' values. */
typedef struct gpuasm_common_opt {
    const char *out_path;      /* -o: NULL or "-" is standard output */
    const char *stats_path;    /* --stats FILE (JSON, io/stats_json.h), or NULL */
    const char *device;        /* --device: auto | cpu | cuda | cuda:N | cuda:N,M,... | cuda:all */
    int n_threads;             /* -@ (0 counts as 1) */
    uint64_t batch;            /* --batch-size in batch_unit; 0: from the device */
    int verbosity;             /* --verbosity: 3 warnings, 4 also notes */
    int verbosity_given;       /* --verbosity was given: htslib takes it too */
    int quiet;                 /* --quiet: errors only */
    int progress;              /* --progress: the progress line even when stderr is no terminal */
} gpuasm_common_opt;

/* getopt_long() values of the shared long options without a short one
 * (apart from any command's own, which count up from 256). */
enum {
    GPUASM_OPT_DEVICE = 1000, GPUASM_OPT_BATCH, GPUASM_OPT_VERBOSITY, GPUASM_OPT_PROGRESS,
    GPUASM_OPT_QUIET, GPUASM_OPT_STATS
};

#define GPUASM_COMMON_SHORTOPTS "o:@:hV"
#define GPUASM_COMMON_LONGOPTS                                        \
    { "output", required_argument, NULL, 'o' },                       \
    { "threads", required_argument, NULL, '@' },                      \
    { "device", required_argument, NULL, GPUASM_OPT_DEVICE },         \
    { "batch-size", required_argument, NULL, GPUASM_OPT_BATCH },      \
    { "verbosity", required_argument, NULL, GPUASM_OPT_VERBOSITY },   \
    { "progress", no_argument, NULL, GPUASM_OPT_PROGRESS },           \
    { "quiet", no_argument, NULL, GPUASM_OPT_QUIET },                 \
    { "stats", required_argument, NULL, GPUASM_OPT_STATS },           \
    { "help", no_argument, NULL, 'h' },                               \
    { "version", no_argument, NULL, 'V' }

/* The program's name for gpuasm_fail() and *c = the defaults d. */
void gpuasm_common_opt_init(const gpuasm_cli *cli, gpuasm_common_opt *c, const gpuasm_defaults *d);

/* What gpuasm_common_opt_parse() did with an option. */
enum {
    GPUASM_OPT_NOT_SHARED = 0, /* not a shared one: the command's own */
    GPUASM_OPT_TAKEN = 1,      /* taken into *c */
    GPUASM_OPT_EXIT_0 = 2,     /* --help or --version done: exit 0 */
    GPUASM_OPT_EXIT_1 = 3      /* a bad value, a missing value or an unknown option:
                                * its one line printed, exit 1 */
};

/* Option ch of getopt_long(argc, argv, ...) (optarg, optopt and optind as
 * it left them; ':' and '?' are its own errors, with the option string
 * starting with ':' and opterr = 0). */
int gpuasm_common_opt_parse(const gpuasm_cli *cli, gpuasm_common_opt *c, int ch, char **argv);

/* An option the command does not know (getopt's '?'): its one line, and
 * 1 (the exit status). */
int gpuasm_opt_unknown(char **argv);

/* A file option as named on the command line and its value (NULL: not given). */
typedef struct {
    const char *opt, *val;
} gpuasm_file_opt;

/* Issue #31: an empty file name (-o '', a shell variable left unset) names
 * no file: refused before any work.  files[0 .. n): the file options;
 * argv[optind .. argc): the positional inputs.  0, or 1 after
 * gpuasm_fail()'s one line (the exit status). */
int gpuasm_opt_file_names(const gpuasm_file_opt *files, size_t n, int argc, char **argv);

/* htslib's log level for the run: --verbosity when given (htslib's
 * messages show as in samtools), else warnings, errors only with --quiet. */
void gpuasm_common_opt_hts_log(const gpuasm_common_opt *c);

/* The one error printer of both commands: "PROG: <message>\n" on stderr
 * (printf-style).  Returns 1, the exit status of a failed run. */
int gpuasm_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
