/* A word2vec thread's view of the output matrix: rows [lo, hi) in a private
 * copy, the rest in the shared matrix.
 *
 * Why: with several threads the hottest output rows (frequent words' NS
 * rows, the top of the HS tree) are written by every thread all the time,
 * and the cache lines bouncing between cores, not arithmetic, limit
 * scaling. Each thread therefore works on a private copy of those rows and
 * merges its changes into the shared rows every WV_HOT_SYNC_WORDS words
 * (Hogwild with a short delay on those rows only). With one thread, or
 * no hot rows, lo == hi and every row is the shared one: exact. Which rows
 * are hot is the loss's choice (its descriptor, w2v_loss.h); see
 * docs/performance.md for how the intervals below were chosen. */
#ifndef WV_HOTROWS_H
#define WV_HOTROWS_H

#include <stdint.h>

#include "status.h"
#include "vecmath.h"

enum {
    /* Words a thread trains between two merges of its hot rows: short
     * enough that the other threads see a hot row's changes while they
     * still matter, long enough that the merge (hot rows x dim floats)
     * costs little next to the training between two merges. */
    WV_HOT_SYNC_WORDS = 1024,
    /* ... or sooner, once the thread has updated its copy of the `hottest`
     * row this many times (the HS root, on every path). The threads'
     * changes to a row are added up at the merge; where each copy has
     * moved most of the way to its own thread's optimum, T such changes
     * overshoot T-fold, so a row updated on every pair must merge often. */
    WV_HOT_SYNC_TOUCHES = 256,
};

typedef struct {
    float *shared;     /* the shared output matrix */
    float *local;      /* the private copy of rows [lo, hi) */
    float *snapshot;   /* those rows as last merged */
    int32_t lo, hi;
    int32_t hottest;   /* the private row whose updates are counted; -1: none */
    int32_t touches;   /* its updates since the last merge (counted where
                        * the loss does: only HS counts, as a count in the
                        * NS kernels costs more than it saves) */
} wv_hot_rows;

/* Which rows a loss keeps private; lo == hi: none. */
typedef struct {
    int32_t lo, hi, hottest;
} wv_hot_span;

/* Row r of the output matrix as this thread reads and writes it. */
WV_HOT float *wv_out_row(const wv_hot_rows *o, int32_t r, int dim) {
    const int64_t at = (int64_t)r - o->lo; /* lo <= r < hi in one unsigned test */
    return (uint64_t)at < (uint64_t)(o->hi - o->lo) ? o->local + at * dim : o->shared + (int64_t)r * dim;
}

/* Every row shared, nothing allocated (one thread, or a test step). */
static inline wv_hot_rows wv_hot_rows_none(float *shared) {
    return (wv_hot_rows){shared, NULL, NULL, 0, 0, -1, 0};
}

/* Private copies of the span's rows of `shared` (dim floats a row). */
wv_status wv_hot_rows_init(wv_hot_rows *o, float *shared, int dim, wv_hot_span span);
/* Merges this thread's changes to its hot rows into the shared rows and
 * refreshes its copy with what the other threads merged meanwhile; resets
 * the touch count. */
void wv_hot_rows_sync(wv_hot_rows *o, int dim);
void wv_hot_rows_free(wv_hot_rows *o);

#endif
