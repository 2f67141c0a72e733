/* SPDX-License-Identifier: MIT */
/* merge_reports.c -- gpuasm-scan --merge-reports (see merge_reports.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/merge_reports.h"
#include "cli/options.h"
#include "io/target_report.h"
#include "util/output_file.h"

/* gpuasm-scan --merge-reports A.tsv B.tsv ...: the sum of --report files of
 * one sample's shards (the same targets), as one report on stdout. */
int gpuasm_merge_reports(int n, char **path, const char *mqc)
{
    gpuasm_target_report sum, one;
    char err[1024];
    if (n < 1) return gpuasm_fail("%s", "--merge-reports needs one or more --report files");
    /* A report given twice (through a link, or as ./a.tsv and a.tsv too)
     * would count its reads twice (issue #31). */
    for (int i = 1; i < n; i++) {
        const int j = gpuasm_output_is_input(path[i], (const char *const *)path, (size_t)i);
        if (j >= 0 && !strcmp(path[i], path[j]))
            return gpuasm_fail("--merge-reports %s: given twice (its reads would count twice)", path[i]);
        if (j >= 0)
            return gpuasm_fail("--merge-reports %s: the same file as %s (its reads would count twice)",
                               path[i], path[j]);
    }
    if (gpuasm_target_report_read_tsv(path[0], &sum, err, sizeof err) < 0)
        return gpuasm_fail("%s", err);
    for (int i = 1; i < n; i++) {
        if (gpuasm_target_report_read_tsv(path[i], &one, err, sizeof err) < 0) {
            gpuasm_target_report_free(&sum);
            return gpuasm_fail("%s", err);
        }
        int bad = strcmp(sum.sample, one.sample) != 0;
        if (bad)
            gpuasm_fail("%s: sample '%s', but %s has '%s' (merge the shards of one sample)", path[i],
                        one.sample, path[0], sum.sample);
        else if ((bad = gpuasm_target_report_add(&sum, &one) < 0))
            gpuasm_fail("%s: other targets than %s (not shards of one run?)", path[i], path[0]);
        gpuasm_target_report_free(&one);
        if (bad) {
            gpuasm_target_report_free(&sum);
            return 1;
        }
    }
    /* --multiqc: the merged numbers as MultiQC content too, through a
     * temporary file like every output (util/output_file.h). */
    if (mqc) {
        /* the bar graph and the General Statistics part (target_report.h) */
        char gpath[4096];
        const char *paths[2] = { mqc, gpath };
        int (*fns[2])(FILE *, const gpuasm_target_report *) = { gpuasm_target_report_multiqc,
                                                                 gpuasm_target_report_multiqc_general };
        gpuasm_outfile of[2];
        memset(of, 0, sizeof of);
        int ok = gpuasm_multiqc_general_path(mqc, gpath, sizeof gpath) == 0, begun = 0;
        if (!ok) snprintf(err, sizeof err, "--multiqc %s: name too long", mqc);
        for (int i = 0; ok && i < 2; i++) {
            FILE *fp = NULL;
            ok = gpuasm_outfile_begin(&of[i], paths[i], err, sizeof err) == 0;
            begun += ok;
            if (ok) ok = (fp = fopen(gpuasm_outfile_name(&of[i]), "w")) != NULL;
            if (ok) ok = fns[i](fp, &sum) == 0;
            if (fp && fclose(fp) != 0) ok = 0;
            if (!ok && begun == i + 1)
                snprintf(err, sizeof err, "%s: write failed: %s", paths[i], strerror(errno ? errno : EIO));
        }
        for (int i = 0; ok && i < 2; i++) ok = gpuasm_outfile_commit(&of[i], err, sizeof err) == 0;
        for (int i = 0; i < begun; i++) {
            if (!ok) gpuasm_outfile_abort(&of[i]);
            gpuasm_outfile_free(&of[i]);
        }
        if (!ok) {
            gpuasm_target_report_free(&sum);
            return gpuasm_fail("%s", err);
        }
    }
    int bad = gpuasm_target_report_tsv(stdout, &sum) < 0 || fflush(stdout) != 0;
    gpuasm_target_report_free(&sum);
    if (bad) return gpuasm_fail("standard output: write failed: %s", strerror(errno ? errno : EIO));
    return 0;
}
