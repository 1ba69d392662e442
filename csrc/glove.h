/* GloVe training: weighted least squares over co-occurrence records with
 * AdaGrad, as Stanford's glove.c does it (accumulators start at 1, gradient
 * components clipped at +-100 before eta, biases stepped without eta, NaN
 * updates skipped), in float32, on T lock-free (Hogwild) threads. */
#ifndef WV_GLOVE_H
#define WV_GLOVE_H

#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "glove_record.h"
#include "parallel.h"
#include "rng.h"
#include "status.h"

#define WV_GLOVE_GRAD_CLIP 100.0f

typedef struct wv_glove_worker wv_glove_worker;
typedef struct wv_glove_stream wv_glove_stream; /* glove_blocks.h */
typedef struct wv_glove_scheduler wv_glove_scheduler; /* glove_grid.h */

/* Row i of a matrix starts at base + i * row_stride and row i's bias at
 * bias + i * bias_stride (in floats). Separate arrays have strides (dim, 1);
 * the Python model interleaves each side's vector, accumulators and biases
 * in one row (stride 2 * dim + 2, rounded up to a cache line), so a record
 * touches two memory regions instead of eight. */
typedef struct {
    int dim;
    int32_t vocab_size;
    float eta;
    /* 1: every step divides by sqrtf(accumulator), as glove.c; 0 (the
     * default): where the CPU has AVX2, multiplies by a reciprocal square
     * root refined by one Newton step (within a few float ulps), as the
     * division and the square root bound a record's speed
     * (docs/performance.md). */
    int exact_sqrt;
    int64_t row_stride, bias_stride;
    float *word, *context;            /* V rows of dim */
    float *word_bias, *context_bias;  /* V */
    float *word_gradsq, *context_gradsq;          /* V rows of dim, start at 1 */
    float *word_bias_gradsq, *context_bias_gradsq; /* V, start at 1 */
    const wv_glove_record *records;
    int64_t n_records;
    /* Not NULL: the records come from blocks on disk instead of `records`
     * (n_records is their total), read by one more thread. */
    wv_glove_stream *stream;
    /* Not NULL: the records are in the cells of a grid (glove_grid.h) and
     * the threads take cells from this scheduler, which the caller has
     * begun for the epoch. */
    wv_glove_scheduler *scheduler;
    _Atomic int64_t records_done;
    _Atomic int stop;
    int n_threads;
    wv_glove_worker *workers;
    wv_run run;
} wv_glove_model;

void wv_glove_model_init(wv_glove_model *m);
/* One epoch over the records on n_threads threads (contiguous ranges; the
 * cells of a grid with a scheduler; of each block in turn with a stream,
 * whose wv_glove_stream_begin the caller has called, plus the reader
 * thread); returns at once: WV_OK, WV_ERR_NOMEM, WV_ERR_BUSY or
 * WV_ERR_INVALID (both a stream and a scheduler) (a thread that did
 * not start is reported by wv_glove_join_epoch). */
wv_status wv_glove_start_epoch(wv_glove_model *m, int n_threads);
/* The bytes wv_glove_start_epoch allocates for n_threads training threads
 * (plus the block reader when the records are streamed): the memory check
 * made before training. */
size_t wv_glove_worker_bytes(int dim, int n_threads, int streamed);
/* Waits; cost receives the epoch's summed 0.5 * f(x) * diff^2 (float64).
 * WV_ERR_THREAD: not every thread started; WV_ERR_IO: a block could not be
 * read. */
wv_status wv_glove_join_epoch(wv_glove_model *m, double *cost);

/* One record's update exactly as the loop does it (tests). Returns its cost. */
double wv_glove_step(wv_glove_model *m, const wv_glove_record *r, float *scratch);

/* Records from a CSR matrix (float32 values > 0), shuffled with the seed
 * (Fisher-Yates). out has nnz entries. WV_ERR_INVALID: a value <= 0 or
 * not finite. */
wv_status wv_glove_make_records(const int64_t *indptr, const int32_t *indices, const float *data,
                          int32_t n_rows, double x_max, double alpha, uint64_t seed,
                                wv_glove_record *out);

#endif
