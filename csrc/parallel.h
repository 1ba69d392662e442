/* Threads for the trainers: start N workers over an array of per-thread
 * argument structs, let the caller poll how many are still running, join. */
#ifndef WV_PARALLEL_H
#define WV_PARALLEL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "status.h"

typedef struct {
    void *handles;   /* pthread_t[n], opaque here */
    int started;
} wv_threads;

/* Runs fn(args + i * arg_size) for i < n on n threads. WV_ERR_THREAD if a
 * thread could not be created (those already started keep running and
 * must be joined: wv_threads_join joins exactly the started ones). */
wv_status wv_threads_start(wv_threads *t, int n, void *(*fn)(void *), void *args, size_t arg_size);
void wv_threads_join(wv_threads *t);

/* Runs fn(args + i * arg_size) for every i < n and returns when all are
 * done: on n threads where they can be had, the rest on the caller's. */
void wv_threads_run(int n, void *(*fn)(void *), void *args, size_t arg_size);

/* One parallel run (an epoch): like wv_threads, plus a count of workers
 * still running that the caller may poll, or wait on with a time limit so
 * that it wakes the moment the last worker finishes (a sleep-and-poll loop
 * would add up to one poll interval to every epoch). */
typedef struct wv_run_slot wv_run_slot;
typedef struct {
    wv_threads threads;
    wv_run_slot *slots;
    _Atomic int active;
    pthread_mutex_t lock;   /* guards the wake-up below, not the count */
    pthread_cond_t finished;
    int running;        /* started and not yet joined */
} wv_run;

/* Starts work(args + i * arg_size) for i < n. WV_ERR_THREAD if not every
 * thread started (the others run on; wv_run_join still joins them);
 * WV_ERR_NOMEM: nothing started. */
wv_status wv_run_start(wv_run *r, int n, void (*work)(void *), void *args, size_t arg_size);
int wv_run_active(wv_run *r);
/* Waits until every worker has finished or `seconds` have passed; returns
 * the number still running. */
int wv_run_wait(wv_run *r, double seconds);
void wv_run_join(wv_run *r);

#endif
