/* auto_device.c -- --device auto on small inputs (see auto_device.h). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/auto_device.h"
#include "search/settings.h"

/* Cells per CPU thread below which the CPU is taken: ~0.3 s of CUDA start
 * at the slowest CPU rate measured (issue #14, 2-core dev machine, -@ 2,
 * end to end): the P3 adapter screen (illumina reads vs bbmap's 158
 * adapters, ~13 records a read) 8.4e8 cells per thread-second; the P2
 * virus screen runs at 6.6e11, 800x faster (the filters of issue #13), so
 * a size estimate cannot tell them apart: this bound keeps auto from ever
 * being much slower than CUDA, and takes the CPU only for inputs that are
 * small for every workload.  Calibrate on the GPU host (tests/bench/pipeline,
 * small-input rows).  Above the bound auto starts on the CPU anyway and
 * moves to CUDA once it is ready (auto_move.h), which serves both; the
 * bound now only spares tiny inputs CUDA's start in the background. */
#define AUTO_CPU_CELLS_PER_THREAD 250000000.0

/* Bases a file holds, estimated from its size: FASTQ has ~2.2 bytes per
 * base (sequence, quality, name), FASTA ~1; compressed (gzip, BGZF, BAM,
 * CRAM) data ~3x fewer bytes.  -1 when unknown (a pipe, standard input). */
static double est_bases(const char *path, double bytes_per_base)
{
    struct stat st;
    if (!path || !strcmp(path, "-") || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    unsigned char m[4] = { 0 };
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    ssize_t n = read(fd, m, sizeof m);
    close(fd);
    int packed = n >= 2 && m[0] == 0x1f && m[1] == 0x8b;              /* gzip, BGZF, BAM */
    packed |= n == 4 && !memcmp(m, "CRAM", 4);
    return (double)st.st_size / bytes_per_base * (packed ? 3.0 : 1.0);
}

double gpuasm_auto_est_read_bases(const gpuasm_scan_opt *o)
{
    const double rb = est_bases(o->reads_path, 2.2);
    const double rb2 = o->reads_path2 ? est_bases(o->reads_path2, 2.2) : 0;
    return rb < 0 || rb2 < 0 ? -1 : rb + rb2;
}

int gpuasm_auto_device(const gpuasm_scan_opt *o, const char **device, char *why, size_t whylen)
{
    *device = o->device;
    why[0] = 0;
    if (strcmp(o->device, "auto")) return 0;
    gpuasm_settings s;
    gpuasm_err err;
    if (gpuasm_settings_read(&s, &err) < 0) {
        snprintf(why, whylen, "%s", err.msg);
        return -1;
    }
    double rb = est_bases(o->reads_path, 2.2);
    double rb2 = o->reads_path2 ? est_bases(o->reads_path2, 2.2) : 0;
    double tb = est_bases(o->targets_path, 1.0);
    if (rb < 0 || rb2 < 0 || tb < 0) return 0;
    const int threads = o->n_threads < 1 ? 1 : o->n_threads;
    const double per = s.auto_cpu_cells >= 0 ? (double)s.auto_cpu_cells : AUTO_CPU_CELLS_PER_THREAD;
    const double cells = 2.0 * (rb + rb2) * tb, limit = per * threads;
    if (cells < limit) {
        *device = "cpu";
        snprintf(why, whylen, "--device auto: a small input (about %.3g cells, under %.3g for "
                 "%d CPU thread%s: GPUASM_AUTO_CPU_CELLS): the CPU, without starting CUDA",
                 cells, limit, threads, threads > 1 ? "s" : "");
    }
    return 0;
}
