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
