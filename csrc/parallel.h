/* Start N worker threads over an array of per-thread argument structs and
 * join them. Shared by the word2vec and GloVe trainers. */
#ifndef WV_PARALLEL_H
#define WV_PARALLEL_H

#include <stddef.h>

typedef struct {
    void *handles;   /* pthread_t[n], opaque here */
    int started;
} wv_threads;

/* Runs fn(args + i * arg_size) for i < n on n threads. Returns 0, or -1 if
 * a thread could not be created (those already started keep running and
 * must be joined: wv_threads_join joins exactly the started ones). */
int wv_threads_start(wv_threads *t, int n, void *(*fn)(void *), void *args, size_t arg_size);
void wv_threads_join(wv_threads *t);

#endif
