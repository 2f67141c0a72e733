/* output_file.c -- see output_file.h. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_file.h"

void gpuasm_output_remove(const char *path)
{
    struct stat st;
    if (path && strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode)) unlink(path);
}
