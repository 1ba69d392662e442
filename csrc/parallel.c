#include "parallel.h"

#include <pthread.h>
#include <stdlib.h>

int wv_threads_start(wv_threads *t, int n, void *(*fn)(void *), void *args, size_t arg_size) {
    t->started = 0;
    t->handles = malloc((size_t)(n > 0 ? n : 1) * sizeof(pthread_t));
    if (!t->handles) return -1;
    pthread_t *h = t->handles;
    for (int i = 0; i < n; i++) {
        if (pthread_create(&h[i], NULL, fn, (char *)args + (size_t)i * arg_size)) return -1;
        t->started++;
    }
    return 0;
}

void wv_threads_join(wv_threads *t) {
    pthread_t *h = t->handles;
    for (int i = 0; i < t->started; i++) pthread_join(h[i], NULL);
    free(t->handles);
    t->handles = NULL;
    t->started = 0;
}

struct wv_run_slot {
    wv_run *run;
    void (*work)(void *);
    void *arg;
};

static void *run_slot(void *p) {
    wv_run_slot *s = p;
    s->work(s->arg);
    atomic_fetch_sub(&s->run->active, 1);
    return NULL;
}

int wv_run_start(wv_run *r, int n, void (*work)(void *), void *args, size_t arg_size) {
    r->running = 0;
    r->slots = malloc((size_t)(n > 0 ? n : 1) * sizeof *r->slots);
    if (!r->slots) return -2;
    for (int i = 0; i < n; i++) r->slots[i] = (wv_run_slot){r, work, (char *)args + (size_t)i * arg_size};
    atomic_store(&r->active, n);
    r->running = 1;
    int rc = wv_threads_start(&r->threads, n, run_slot, r->slots, sizeof *r->slots);
    if (rc) atomic_fetch_sub(&r->active, n - r->threads.started); /* never started: never check out */
    return rc;
}

int wv_run_active(wv_run *r) { return atomic_load(&r->active); }

void wv_run_join(wv_run *r) {
    if (!r->running) return;
    wv_threads_join(&r->threads);
    free(r->slots);
    r->slots = NULL;
    r->running = 0;
}
