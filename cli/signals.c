/* SPDX-License-Identifier: MIT */
/* signals.c -- see signals.h. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/signals.h"
#include "util/output_file.h"

static const int watched[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGVTALRM, SIGUSR1,
                               SIGUSR2, SIGXCPU };
/* SIGPIPE was at its default action: blocked, and died of after a failure. */
static int pipe_default;
/* A copy of standard output when it is a pipe or socket: the run closes
 * fd 1 (sam_close of "-") before it reports the failure, and the copy
 * still says whether the reader went away.  It holds the pipe open until
 * the process ends: the reader sees the end then, a moment after the run
 * closed fd 1. */
static int out_copy = -1;
static sigset_t stop_set;
static _Atomic int stop_sig;
static const char *w_prog;
static void (*w_interrupt)(const char *why);
static int w_grace;

static const char *sig_name(int sig)
{
    switch (sig) {
    case SIGINT: return "INT";
    case SIGTERM: return "TERM";
    case SIGHUP: return "HUP";
    case SIGQUIT: return "QUIT";
    case SIGALRM: return "ALRM";
    case SIGVTALRM: return "VTALRM";
    case SIGUSR1: return "USR1";
    case SIGUSR2: return "USR2";
    case SIGXCPU: return "XCPU";
    default: return "NAL";
    }
}

/* Die of sig now, the temporary files gone (any thread). */
static void die_now(int sig, const char *why, const char *how)
{
    gpuasm_outfiles_remove_pending();
    /* write(2), not stdio: another thread may hold stderr's lock. */
    char line[200];
    int n = snprintf(line, sizeof line, "%s: %s%s\n", w_prog, why, how);
    if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0) { /* nothing more to do */ }
    signal(sig, SIG_DFL);
    pthread_sigmask(SIG_UNBLOCK, &stop_set, NULL);
    raise(sig);
}

static void *watcher(void *arg)
{
    (void)arg;
    int sig = 0;
    if (sigwait(&stop_set, &sig) != 0) return NULL;
    stop_sig = sig;
    char why[64];
    snprintf(why, sizeof why, "interrupted by SIG%s", sig_name(sig));
    if (!w_interrupt) {
        die_now(sig, why, " (no output file left)");
        return NULL;
    }
    w_interrupt(why);
    struct timespec grace = { w_grace, 0 };
    sigtimedwait(&stop_set, NULL, &grace);   /* a second signal, or the grace period */
    char how[120];
    snprintf(how, sizeof how, " (a read or scan did not stop within %d s: stopped at once, no "
             "output file left)", w_grace);
    die_now(sig, why, how);
    return NULL;
}

int gpuasm_signals_watch(const char *prog, void (*interrupt)(const char *why), int grace_s)
{
    w_prog = prog;
    w_interrupt = interrupt;
    w_grace = grace_s;
    sigemptyset(&stop_set);
    for (size_t i = 0; i < sizeof watched / sizeof watched[0]; i++) {
        struct sigaction sa;
        if (sigaction(watched[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
            sigaddset(&stop_set, watched[i]);
    }
    /* the thread-directed ones: blocked, so that a write fails instead */
    sigset_t all = stop_set;
    const int direct[] = { SIGPIPE, SIGXFSZ };
    for (size_t i = 0; i < 2; i++) {
        struct sigaction sa;
        if (sigaction(direct[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN) {
            sigaddset(&all, direct[i]);
            if (direct[i] == SIGPIPE) pipe_default = 1;
        }
    }
    struct stat st;
    if (pipe_default && fstat(STDOUT_FILENO, &st) == 0 &&
        (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        out_copy = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    pthread_t tid;
    pthread_attr_t attr;
    if (pthread_sigmask(SIG_BLOCK, &all, NULL) != 0) return -1;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int r = pthread_create(&tid, &attr, watcher, NULL);
    pthread_attr_destroy(&attr);
    if (r != 0) {
        pthread_sigmask(SIG_UNBLOCK, &all, NULL);
        pipe_default = 0;
        if (out_copy >= 0) close(out_copy);
        out_copy = -1;
        return -1;
    }
    return 0;
}

int gpuasm_signals_stopped(void) { return stop_sig; }

void gpuasm_signals_die(int sig)
{
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    raise(sig);   /* pending while blocked ... */
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);   /* ... and delivered here */
}

void gpuasm_signals_after_failure(void)
{
    if (!pipe_default || out_copy < 0) return;
    /* a pipe's write end reports POLLERR once its reader has gone */
    struct pollfd p = { out_copy, POLLOUT, 0 };
    if (poll(&p, 1, 0) == 1 && (p.revents & POLLERR)) {
        gpuasm_signals_die(SIGPIPE);
    }
}
