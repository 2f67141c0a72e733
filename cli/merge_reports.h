/* SPDX-License-Identifier: MIT */
/* merge_reports.h -- gpuasm-scan --merge-reports A.tsv B.tsv ...: the sum
 * of the --report TSVs of one sample's shards (--shard I/N: the same
 * targets, the same sample), as one report on standard output, and with
 * mqc (--multiqc FILE, or NULL) as MultiQC content too (its bar graph and
 * General Statistics files, written through temporary files). */
#ifndef GPUASM_MERGE_REPORTS_H
#define GPUASM_MERGE_REPORTS_H

/* path[0 .. n): the --report files.  0, or 1 after gpuasm_fail()'s one
 * line (a file unreadable or not a report, another sample or other
 * targets, an output that cannot be written): gpuasm-scan's exit status. */
int gpuasm_merge_reports(int n, char **path, const char *mqc);

#endif
