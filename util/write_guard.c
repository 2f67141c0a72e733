/* SPDX-License-Identifier: MIT */
/* write_guard.c -- see write_guard.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/write_guard.h"

struct gpuasm_write_guard {
    int pipe_r, pipe_w;     /* the writer writes into pipe_w (its own copy of it) */
    int fd;                 /* the file */
    pthread_t tid;
    _Atomic int err;        /* the first errno */
    char name[32];          /* "/dev/fd/N" */
};

/* Copy the pipe into the file until the writer closes it; after a failure
 * keep reading (and dropping), so that the writer never blocks or fails. */
static void *copy_main(void *arg)
{
    gpuasm_write_guard *g = arg;
    char buf[1 << 16];
    for (;;) {
        ssize_t n = read(g->pipe_r, buf, sizeof buf);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            if (!atomic_load(&g->err)) atomic_store(&g->err, errno);
            break;
        }
        for (ssize_t off = 0; !atomic_load(&g->err) && off < n;) {
            ssize_t m = write(g->fd, buf + off, (size_t)(n - off));
            if (m < 0 && errno == EINTR) continue;
            if (m <= 0) atomic_store(&g->err, m < 0 ? errno : EIO);
            else off += m;
        }
    }
    return NULL;
}

int gpuasm_write_guard_open(const char *path, gpuasm_write_guard **out, const char **name,
                            char *err, size_t errlen)
{
    const int to_stdout = !path || !strcmp(path, "-");
    gpuasm_write_guard *g = calloc(1, sizeof(*g));
    int p[2] = { -1, -1 };
    if (!g) {
        snprintf(err, errlen, "%s: out of memory", to_stdout ? "standard output" : path);
        return -1;
    }
    g->fd = to_stdout ? dup(STDOUT_FILENO) : open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (g->fd < 0 || pipe(p) != 0) {
        snprintf(err, errlen, "%s: cannot open for writing: %s",
                 to_stdout ? "standard output" : path, strerror(errno));
        goto fail;
    }
    g->pipe_r = p[0];
    g->pipe_w = p[1];
    (void)fcntl(p[0], F_SETFD, FD_CLOEXEC);
    if (pthread_create(&g->tid, NULL, copy_main, g) != 0) {
        snprintf(err, errlen, "%s: cannot start a thread", to_stdout ? "standard output" : path);
        goto fail;
    }
    snprintf(g->name, sizeof g->name, "/dev/fd/%d", p[1]);
    *name = g->name;
    *out = g;
    return 0;
fail:
    if (p[0] >= 0) close(p[0]);
    if (p[1] >= 0) close(p[1]);
    if (g->fd >= 0) close(g->fd);
    free(g);
    return -1;
}

void gpuasm_write_guard_opened(gpuasm_write_guard *g)
{
    if (g->pipe_w >= 0) close(g->pipe_w);
    g->pipe_w = -1;
}

int gpuasm_write_guard_error(gpuasm_write_guard *g) { return atomic_load(&g->err); }

int gpuasm_write_guard_close(gpuasm_write_guard *g)
{
    gpuasm_write_guard_opened(g);
    pthread_join(g->tid, NULL);
    close(g->pipe_r);
    if (close(g->fd) != 0 && !atomic_load(&g->err)) atomic_store(&g->err, errno);
    int e = atomic_load(&g->err);
    free(g);
    return e;
}
