/* A GloVe training record and what every path that makes or orders records
 * shares (glove.c trains them; glove_blocks.c and glove_grid.c make and
 * order them): its own header, so that none of those includes another's. */
#ifndef WV_GLOVE_RECORD_H
#define WV_GLOVE_RECORD_H

#include <math.h>
#include <stdint.h>

#include "rng.h"

/* One training record: the pair and what the loss needs of x = X[i][j],
 * precomputed once instead of every epoch. */
typedef struct {
    int32_t row, col;
    float log_x;     /* log(x) */
    float weight;    /* f(x) = min(1, (x / x_max)^alpha) */
} wv_glove_record;

/* The record of x = X[row][col] > 0: every path that makes records (in
 * memory or in blocks) goes through here, so they agree bit for bit. */
static inline void wv_glove_record_of(wv_glove_record *r, int32_t row, int32_t col, float value, double x_max,
                                      double alpha) {
    double x = value;
    r->row = row;
    r->col = col;
    r->log_x = (float)log(x);
    r->weight = x > x_max ? 1.0f : (float)pow(x / x_max, alpha);
}

/* Fisher-Yates over n records with rng: every path that shuffles records
 * (in memory, a block, a grid's cells) draws alike. */
static inline void wv_glove_shuffle(wv_glove_record *a, int64_t n, wv_rng *rng) {
    for (int64_t k = n - 1; k > 0; k--) {
        int64_t j = (int64_t)(wv_rng_next(rng) % (uint64_t)(k + 1));
        wv_glove_record t = a[k];
        a[k] = a[j];
        a[j] = t;
    }
}

#endif
