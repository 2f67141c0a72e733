/* SPDX-License-Identifier: MIT */
/* output_file.c -- see output_file.h. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/output_file.h"

/* ---- temporary files not yet committed or aborted, for the signal path ---- */

#define PENDING_MAX 8
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static char *pending[PENDING_MAX];   /* copies of tmp names (owned here) */

static void pending_add(const char *tmp)
{
    pthread_mutex_lock(&pending_lock);
    for (int i = 0; i < PENDING_MAX; i++)
        if (!pending[i]) {
            pending[i] = strdup(tmp);
            break;
        }
    pthread_mutex_unlock(&pending_lock);
}

static void pending_drop(const char *tmp)
{
    pthread_mutex_lock(&pending_lock);
    for (int i = 0; i < PENDING_MAX; i++)
        if (pending[i] && !strcmp(pending[i], tmp)) {
            free(pending[i]);
            pending[i] = NULL;
        }
    pthread_mutex_unlock(&pending_lock);
}

void gpuasm_outfiles_remove_pending(void)
{
    /* The lock is only ever held for a few instructions (never across I/O). */
    pthread_mutex_lock(&pending_lock);
    for (int i = 0; i < PENDING_MAX; i++)
        if (pending[i]) unlink(pending[i]);
    pthread_mutex_unlock(&pending_lock);
}

/* ---- one output file -------------------------------------------------------- */

static int is_stdout(const char *path) { return !path || !strcmp(path, "-"); }

/* The directory part of `p` ("." when it has none). */
static char *dir_of(const char *p)
{
    const char *slash = strrchr(p, '/');
    if (!slash) return strdup(".");
    if (slash == p) return strdup("/");
    char *d = strdup(p);
    if (d) d[slash - p] = 0;
    return d;
}

/* Temporary files of runs that died (SIGKILL, a crash, a power cut) are
 * ".NAME.gpuasm-PID-XXXXXX": the next run that writes into the directory
 * removes those whose PID no longer runs (kill(PID, 0) fails with ESRCH).
 * A PID taken again by another process keeps its file until that process
 * ends; `rm .*.gpuasm-*` removes them all by hand (README "Errors,
 * outputs, signals"). */
static void remove_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *g = strstr(e->d_name, ".gpuasm-");
        if (e->d_name[0] != '.' || !g) continue;
        char *end;
        errno = 0;
        const long pid = strtol(g + 8, &end, 10);
        if (errno || end == g + 8 || *end != '-' || strlen(end + 1) != 6 || pid <= 0) continue;
        if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path) unlink(path);
    }
    closedir(d);
}

int gpuasm_outfile_begin(gpuasm_outfile *f, const char *path, char *err, size_t errlen)
{
    memset(f, 0, sizeof(*f));
    if (is_stdout(path)) return 0;
    if (!*path) {
        /* Issue #31: an empty name (-o '', a variable left unset) ran to the
         * end and only failed to move the output into place. */
        snprintf(err, errlen, "an empty output file name ('' given): name a file, or - for "
                 "standard output");
        return -1;
    }
    struct stat st, lst;
    const int exists = stat(path, &st) == 0;
    const int link = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
    /* An existing file the user may not write: refused, as samtools'
     * open refuses it (the temporary file renamed over it would replace a
     * read-only file, even another user's in a world-writable directory). */
    if (exists && S_ISREG(st.st_mode) && access(path, W_OK) != 0) {
        snprintf(err, errlen, "%s: cannot open for writing: %s", path, strerror(errno));
        return -1;
    }
    if (!(f->path = strdup(path))) goto oom;
    /* Write through a symbolic link to an existing file: replace its target. */
    if (!(f->final = exists && link ? realpath(path, NULL) : NULL) && !(f->final = strdup(path)))
        goto oom;
    f->regular = !exists || S_ISREG(st.st_mode);
    /* Not a regular file (a device, a FIFO): written directly, never
     * removed.  A dangling link: written directly (htslib creates its
     * target), removed on failure. */
    if (!f->regular || (!exists && link)) return 0;
    if (exists) {
        f->mode = (int)(st.st_mode & 07777);
    } else {
        mode_t um = umask(0);
        umask(um);
        f->mode = (int)(0666 & ~um);
    }
    char *dir = dir_of(f->final);
    if (!dir) goto oom;
    const char *slash = strrchr(f->final, '/');
    const char *base = slash ? slash + 1 : f->final;
    size_t n = strlen(dir) + strlen(base) + 64;
    char *tmp = malloc(n);
    if (!tmp) {
        free(dir);
        goto oom;
    }
    if (strlen(base) + 32 <= NAME_MAX)
        snprintf(tmp, n, "%s/.%s.gpuasm-%ld-XXXXXX", dir, base, (long)getpid());
    else
        snprintf(tmp, n, "%s/.gpuasm-%ld-XXXXXX", dir, (long)getpid());
    remove_stale(dir);
    free(dir);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        /* No temporary file here (a read-only directory, a missing one):
         * write directly; htslib's open says what is wrong, if anything. */
        free(tmp);
        return 0;
    }
    close(fd);
    f->tmp = tmp;
    pending_add(tmp);
    return 0;
oom:
    snprintf(err, errlen, "%s: out of memory", path);
    gpuasm_outfile_free(f);
    return -1;
}

const char *gpuasm_outfile_name(const gpuasm_outfile *f)
{
    return f->tmp ? f->tmp : f->path ? f->path : "-";
}

int gpuasm_outfile_commit(gpuasm_outfile *f, char *err, size_t errlen)
{
    if (!f->tmp) return 0;
    if (chmod(f->tmp, (mode_t)f->mode) != 0 || rename(f->tmp, f->final) != 0) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot move the finished output into place (%s -> %s): %s",
                 f->path, f->tmp, f->final, strerror(e));
        gpuasm_outfile_abort(f);
        return -1;
    }
    pending_drop(f->tmp);
    free(f->tmp);
    f->tmp = NULL;
    f->regular = 0;   /* committed: abort leaves it alone */
    return 0;
}

void gpuasm_outfile_abort(gpuasm_outfile *f)
{
    if (f->tmp) {
        unlink(f->tmp);
        pending_drop(f->tmp);
        free(f->tmp);
        f->tmp = NULL;
    } else if (f->regular && f->final) {
        /* Written directly: remove it if it is (still) a regular file --
         * never a device or a pipe, whatever the name now points to. */
        struct stat st;
        char *real = realpath(f->final, NULL);
        const char *p = real ? real : f->final;
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) unlink(p);
        free(real);
    }
    f->regular = 0;
}

void gpuasm_outfile_free(gpuasm_outfile *f)
{
    if (f->tmp) pending_drop(f->tmp);
    free(f->path);
    free(f->final);
    free(f->tmp);
    memset(f, 0, sizeof(*f));
}

FILE *gpuasm_outfile_open(gpuasm_outfile *f, const char *path, char *err, size_t errlen)
{
    if (gpuasm_outfile_begin(f, path, err, errlen) < 0) return NULL;
    errno = 0;
    const char *name = gpuasm_outfile_name(f);
    FILE *fp = strcmp(name, "-") ? fopen(name, "w") : fdopen(dup(STDOUT_FILENO), "w");
    if (!fp)
        snprintf(err, errlen, "%s: cannot open for writing: %s", path ? path : "standard output",
                 strerror(errno ? errno : EIO));
    return fp;
}

void gpuasm_output_remove_result(const char *path)
{
    struct stat st;
    char *real = path && strcmp(path, "-") ? realpath(path, NULL) : NULL;
    if (real && stat(real, &st) == 0 && S_ISREG(st.st_mode)) unlink(real);
    free(real);
}

/* ---- outputs that are inputs ------------------------------------------------- */

/* stat() of a path, or of descriptor fd for "-"/NULL.  0 or -1. */
static int stat_of(const char *p, int fd, struct stat *st)
{
    return is_stdout(p) ? fstat(fd, st) : stat(p, st);
}

int gpuasm_output_is_input(const char *out, const char *const *in, size_t n)
{
    struct stat so, si;
    if (stat_of(out, STDOUT_FILENO, &so) != 0 || !S_ISREG(so.st_mode)) return -1;
    for (size_t i = 0; i < n; i++) {
        if (!in[i]) continue;
        if (stat_of(in[i], STDIN_FILENO, &si) == 0 && S_ISREG(si.st_mode) &&
            si.st_dev == so.st_dev && si.st_ino == so.st_ino)
            return (int)i;
    }
    return -1;
}

int gpuasm_outputs_check(const char *out, const char *stats, const char *noun,
                         const char *const *in, const char *const *in_what, size_t n_in,
                         char *err, size_t errlen)
{
    const char *path[] = { out, stats };
    const char *flag[] = { "-o", "--stats" };
    for (int k = 0; k < 2; k++) {
        /* Standard output counts only where it is a regular file (a redirection). */
        if (k == 1 && !stats) continue;
        int i = gpuasm_output_is_input(path[k], in, n_in);
        if (i >= 0) {
            char who[1024];
            if (path[k] && strcmp(path[k], "-"))
                snprintf(who, sizeof who, "%s %s", flag[k], path[k]);
            else
                snprintf(who, sizeof who, "standard output");
            snprintf(err, errlen, "%s: this output is %s %s (the same file): refusing to "
                     "overwrite an input", who, in_what[i], in[i]);
            return -1;
        }
    }
    const int out_to_stdout = is_stdout(out);
    if (stats && !strcmp(stats, "-") && out_to_stdout) {
        snprintf(err, errlen, "--stats -: standard output carries the %s output (give -o FILE)", noun);
        return -1;
    }
    if (!stats || !strcmp(stats, "-")) return 0;
    return gpuasm_outputs_distinct((const char *const[]){ out_to_stdout ? "-" : out, stats },
                                   (const char *const[]){ "-o", "--stats" }, 2, err, errlen);
}

/* `p` as an absolute name: its directory resolved (realpath: links,
 * "." and ".."), its last component as given.  NULL when the directory
 * does not exist (the open fails later and says so). */
static char *canonical_name(const char *p)
{
    char *dir = dir_of(p), *real = dir ? realpath(dir, NULL) : NULL;
    const char *slash = strrchr(p, '/'), *base = slash ? slash + 1 : p;
    char *name = NULL;
    if (real && (name = malloc(strlen(real) + strlen(base) + 2)))
        sprintf(name, "%s/%s", strcmp(real, "/") ? real : "", base);
    free(dir);
    free(real);
    return name;
}

/* Do the output names a and b (not standard output) name one file? */
static int same_output(const char *a, const char *b)
{
    if (!strcmp(a, b)) return 1;
    struct stat sa, sb;
    const int ha = stat(a, &sa) == 0, hb = stat(b, &sb) == 0;
    if (ha && hb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ha != hb) return 0;
    char *ca = canonical_name(a), *cb = canonical_name(b);
    const int same = ca && cb && !strcmp(ca, cb);
    free(ca);
    free(cb);
    return same;
}

int gpuasm_outputs_distinct(const char *const *path, const char *const *flag, size_t n, char *err,
                            size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        if (!path[i]) continue;
        for (size_t j = 0; j < i; j++) {
            if (!path[j]) continue;
            const int si = !strcmp(path[i], "-"), sj = !strcmp(path[j], "-");
            if (si && sj) {
                snprintf(err, errlen, "%s -: standard output is also given to %s: two outputs "
                         "of one run in one stream", flag[i], flag[j]);
                return -1;
            }
            /* standard output redirected to the other one's file (`> x`) */
            const char *named = si ? path[j] : path[i];
            if (si || sj ? gpuasm_output_is_input(NULL, &named, 1) < 0
                         : !same_output(path[i], path[j]))
                continue;
            snprintf(err, errlen, "%s %s: also given to %s (%s): two outputs of one run in one file",
                     flag[i], si ? "-" : path[i], flag[j],
                     sj ? "standard output, redirected to it" : path[j]);
            return -1;
        }
    }
    return 0;
}
