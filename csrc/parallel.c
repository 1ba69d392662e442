#define _POSIX_C_SOURCE 200809L /* clock_gettime, pthread_condattr_setclock */
#include "parallel.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

wv_status wv_threads_start(wv_threads *t, int n, void *(*fn)(void *), void *args, size_t arg_size) {
    t->started = 0;
    t->handles = malloc((size_t)(n > 0 ? n : 1) * sizeof(pthread_t));
    if (!t->handles) return WV_ERR_THREAD; /* none started: as if the first failed */
    pthread_t *h = t->handles;
    for (int i = 0; i < n; i++) {
        if (pthread_create(&h[i], NULL, fn, (char *)args + (size_t)i * arg_size)) return WV_ERR_THREAD;
        t->started++;
    }
    return WV_OK;
}

void wv_threads_join(wv_threads *t) {
    pthread_t *h = t->handles;
    for (int i = 0; i < t->started; i++) pthread_join(h[i], NULL);
    free(t->handles);
    t->handles = NULL;
    t->started = 0;
}

void wv_threads_run(int n, void *(*fn)(void *), void *args, size_t arg_size) {
    if (n <= 0) return;
    wv_threads t;
    wv_threads_start(&t, n - 1, fn, (char *)args + arg_size, arg_size);
    int started = t.started;
    fn(args); /* the caller takes the first item, and any that got no thread */
    for (int i = started + 1; i < n; i++) fn((char *)args + (size_t)i * arg_size);
    wv_threads_join(&t);
}

struct wv_run_slot {
    wv_run *run;
    void (*work)(void *);
    void *arg;
};

/* n workers leave the run; whoever leaves last wakes the waiting caller. */
static void check_out(wv_run *r, int n) {
    pthread_mutex_lock(&r->lock);
    if (atomic_fetch_sub(&r->active, n) == n) pthread_cond_broadcast(&r->finished);
    pthread_mutex_unlock(&r->lock);
}

static void *run_slot(void *p) {
    wv_run_slot *s = p;
    s->work(s->arg);
    check_out(s->run, 1);
    return NULL;
}

static wv_status init_wakeup(wv_run *r) {
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr)) return WV_ERR_NOMEM;
    int rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) || pthread_cond_init(&r->finished, &attr);
    pthread_condattr_destroy(&attr);
    if (rc) return WV_ERR_NOMEM;
    if (pthread_mutex_init(&r->lock, NULL)) {
        pthread_cond_destroy(&r->finished);
        return WV_ERR_NOMEM;
    }
    return WV_OK;
}

wv_status wv_run_start(wv_run *r, int n, void (*work)(void *), void *args, size_t arg_size) {
    r->running = 0;
    r->slots = malloc((size_t)(n > 0 ? n : 1) * sizeof *r->slots);
    if (!r->slots) return WV_ERR_NOMEM;
    if (init_wakeup(r)) {
        free(r->slots);
        r->slots = NULL;
        return WV_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) r->slots[i] = (wv_run_slot){r, work, (char *)args + (size_t)i * arg_size};
    atomic_store(&r->active, n);
    r->running = 1;
    wv_status rc = wv_threads_start(&r->threads, n, run_slot, r->slots, sizeof *r->slots);
    if (rc) check_out(r, n - r->threads.started); /* never started: never check out */
    return rc;
}

int wv_run_active(wv_run *r) { return atomic_load(&r->active); }

int wv_run_wait(wv_run *r, double seconds) {
    if (!r->running) return 0;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    if (seconds < 0) seconds = 0;
    time_t whole = (time_t)seconds;
    long nanos = until.tv_nsec + (long)((seconds - (double)whole) * 1e9);
    until.tv_sec += whole + nanos / 1000000000L;
    until.tv_nsec = nanos % 1000000000L;
    pthread_mutex_lock(&r->lock);
    while (atomic_load(&r->active) > 0)
        if (pthread_cond_timedwait(&r->finished, &r->lock, &until) == ETIMEDOUT) break;
    int left = atomic_load(&r->active);
    pthread_mutex_unlock(&r->lock);
    return left;
}

void wv_run_join(wv_run *r) {
    if (!r->running) return;
    wv_threads_join(&r->threads);
    pthread_cond_destroy(&r->finished);
    pthread_mutex_destroy(&r->lock);
    free(r->slots);
    r->slots = NULL;
    r->running = 0;
}
