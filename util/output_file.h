/* output_file.h -- what happens to the files a run writes when it fails. */
#ifndef GPUASM_OUTPUT_FILE_H
#define GPUASM_OUTPUT_FILE_H

/* Remove the output file `path` of a failed run, so nothing half-written
 * looks like a result.  Only a regular file is removed: "-", NULL, a
 * terminal, a pipe or a device named as the output (-o /dev/stdout, run as
 * root) are left alone. */
void gpuasm_output_remove(const char *path);

#endif
