/* SPDX-License-Identifier: MIT */
/* auto_move.c -- the engine --device auto moves to, opened in a thread
 * (see auto_move.h). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "cli/auto_move.h"
#include "util/clock.h"

enum { DEFERRED, OPENING, WAIT_TARGETS, SETTING, READY, FAILED };

struct gpuasm_auto_move {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    pthread_t tid;
    int has_thread;                 /* tid was started (DEFERRED: not yet) */
    const char *device;
    int n_threads, delay_ms;
    double t0, ready_s;
    int state;                      /* (lock) */
    int abandoned;                  /* (lock) the run ended: nobody polls any more */
    const gpuasm_seqset *targets;   /* (lock) */
    gpuasm_engine *eng;
    gpuasm_err why;
};

/* Detached threads still opening (gpuasm_auto_move_pending). */
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static int pending;

static void free_move(gpuasm_auto_move *m)
{
    pthread_mutex_destroy(&m->lock);
    pthread_cond_destroy(&m->cv);
    free(m);
}

static void *move_main(void *arg)
{
    gpuasm_auto_move *m = arg;
    if (m->delay_ms > 0) {
        struct timespec ts = { m->delay_ms / 1000, (long)(m->delay_ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) != 0) {}
    }
    gpuasm_engine *eng = NULL;
    gpuasm_err why;
    int rc = gpuasm_engine_open(m->device, m->n_threads, &eng, &why, NULL);

    pthread_mutex_lock(&m->lock);
    if (m->abandoned) {
        /* Left running by gpuasm_auto_move_end(): the state is ours. */
        pthread_mutex_unlock(&m->lock);
        gpuasm_engine_close(eng);
        free_move(m);
        pthread_mutex_lock(&pending_lock);
        pending--;
        pthread_mutex_unlock(&pending_lock);
        return NULL;
    }
    if (rc < 0) {
        m->why = why;
        m->state = FAILED;
        pthread_cond_broadcast(&m->cv);
        pthread_mutex_unlock(&m->lock);
        return NULL;
    }
    m->eng = eng;
    m->state = WAIT_TARGETS;
    pthread_cond_broadcast(&m->cv);
    while (!m->targets && !m->abandoned) pthread_cond_wait(&m->cv, &m->lock);
    if (m->abandoned) {   /* gpuasm_auto_move_end() joins and closes */
        pthread_mutex_unlock(&m->lock);
        return NULL;
    }
    m->state = SETTING;
    const gpuasm_seqset *t = m->targets;
    pthread_mutex_unlock(&m->lock);

    rc = gpuasm_engine_set_targets(eng, t, &why);

    pthread_mutex_lock(&m->lock);
    if (rc < 0) {
        m->why = why;
        m->state = FAILED;
    } else {
        m->ready_s = gpuasm_now_s() - m->t0;
        m->state = READY;
    }
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->lock);
    return NULL;
}

int gpuasm_auto_move_start(const char *device, int n_threads, int delay_ms, double t0, int deferred,
                           gpuasm_auto_move **out)
{
    gpuasm_auto_move *m = calloc(1, sizeof(*m));
    *out = NULL;
    if (!m) return -1;
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->cv, NULL);
    m->device = device;
    m->n_threads = n_threads;
    m->delay_ms = delay_ms;
    m->t0 = t0;
    m->ready_s = -1;
    m->state = deferred ? DEFERRED : OPENING;
    gpuasm_err_set(&m->why, GPUASM_OK, "no failure");
    if (!deferred) {
        if (pthread_create(&m->tid, NULL, move_main, m) != 0) {
            free_move(m);
            return -1;
        }
        m->has_thread = 1;
    }
    *out = m;
    return 0;
}

int gpuasm_auto_move_deferred(gpuasm_auto_move *m)
{
    pthread_mutex_lock(&m->lock);
    const int d = m->state == DEFERRED;
    pthread_mutex_unlock(&m->lock);
    return d;
}

int gpuasm_auto_move_go(gpuasm_auto_move *m)
{
    pthread_mutex_lock(&m->lock);
    int rc = 0;
    if (m->state == DEFERRED) {
        m->state = OPENING;
        if (pthread_create(&m->tid, NULL, move_main, m) != 0) {
            /* No thread: the CPU runs the rest, as after a failed open. */
            gpuasm_err_set(&m->why, GPUASM_ERR_THREAD, "cannot start a thread to open CUDA");
            m->state = FAILED;
            rc = -1;
        } else {
            m->has_thread = 1;
        }
    }
    pthread_mutex_unlock(&m->lock);
    return rc;
}

void gpuasm_auto_move_targets(gpuasm_auto_move *m, const gpuasm_seqset *targets)
{
    pthread_mutex_lock(&m->lock);
    m->targets = targets;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->lock);
}

gpuasm_engine *gpuasm_auto_move_poll(gpuasm_auto_move *m, int wait, int *failed)
{
    pthread_mutex_lock(&m->lock);
    while (wait && m->state != READY && m->state != FAILED) pthread_cond_wait(&m->cv, &m->lock);
    gpuasm_engine *e = m->state == READY ? m->eng : NULL;
    *failed = m->state == FAILED;
    pthread_mutex_unlock(&m->lock);
    return e;
}

double gpuasm_auto_move_ready_s(gpuasm_auto_move *m)
{
    pthread_mutex_lock(&m->lock);
    double r = m->state == READY ? m->ready_s : -1;
    pthread_mutex_unlock(&m->lock);
    return r;
}

void gpuasm_auto_move_why(gpuasm_auto_move *m, gpuasm_err *why)
{
    pthread_mutex_lock(&m->lock);
    *why = m->why;
    pthread_mutex_unlock(&m->lock);
}

void gpuasm_auto_move_end(gpuasm_auto_move *m)
{
    if (!m) return;
    pthread_mutex_lock(&m->lock);
    if (m->state == DEFERRED || (m->state == FAILED && !m->has_thread)) {
        /* Never started (the input ended before it proved large): no thread,
         * nothing of CUDA touched. */
        pthread_mutex_unlock(&m->lock);
        free_move(m);
        return;
    }
    /* The targets' upload is waited for: it reads memory the caller frees next. */
    while (m->state == SETTING) pthread_cond_wait(&m->cv, &m->lock);
    m->abandoned = 1;
    pthread_cond_broadcast(&m->cv);
    if (m->state == OPENING) {
        /* Inside the open (cuInit, the context): not waited for. */
        pthread_mutex_lock(&pending_lock);
        pending++;
        pthread_mutex_unlock(&pending_lock);
        pthread_detach(m->tid);
        pthread_mutex_unlock(&m->lock);
        return;
    }
    pthread_mutex_unlock(&m->lock);
    pthread_join(m->tid, NULL);
    gpuasm_engine_close(m->eng);
    free_move(m);
}

int gpuasm_auto_move_pending(void)
{
    pthread_mutex_lock(&pending_lock);
    int n = pending;
    pthread_mutex_unlock(&pending_lock);
    return n;
}
