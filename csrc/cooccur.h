/* GloVe co-occurrence counting over an encoded corpus (ids, -1 = sentence
 * end), as Stanford's cooccur.c counts: symmetric window, each pair weighted
 * 1/distance (or 1), never across a sentence, self-pairs counted.
 *
 * T threads count their shards (a thread looks back into the previous shard
 * for left context, so every pair is counted exactly once). Frequent pairs go
 * to a dense table (cooccur.c's rank-product region); the others to an
 * external sort (extsort.h: sorted runs, kept in memory up to the cap and
 * spilled to unlinked temporary files past it, merged with bounded fan-in).
 * The last merge, with the dense table, is split by row ranges of equal
 * input over the T threads.
 *
 * Sums are kept in integer units of 1/LCM(1..min(window, 20)), so they are
 * exact for windows up to 20 (beyond, 1/d is rounded to a unit: relative
 * error < 1e-7) and independent of summation order: the result is the same
 * for any thread count and any memory cap. */
#ifndef WV_COOCCUR_H
#define WV_COOCCUR_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "extsort.h"
#include "status.h"

#define WV_COOC_EXACT_WINDOW 20 /* LCM(1..20) = 232,792,560 units per 1.0 */
/* A thread's record buffer (a quarter of its share of memory_limit) holds
 * at least this many records, so memory_limit must be at least threads x
 * WV_COOC_MIN_THREAD_MEMORY bytes. */
#define WV_COOC_MIN_BUFFER_RECORDS 4096
#define WV_COOC_MIN_THREAD_MEMORY (4 * WV_COOC_MIN_BUFFER_RECORDS * sizeof(wv_xrec))
/* A thread's dense table of frequent pairs (half its share of memory_limit)
 * has at most this many cells (4 bytes each: 128 MiB). */
#define WV_COOC_DENSE_MAX_CELLS ((int64_t)1 << 25)

/* A stop request shared with the caller's thread. */
typedef _Atomic int wv_flag;

/* Where the last merge may go instead of parts in memory (a consumer that
 * streams the counts, e.g. to files). open is called once the counting is
 * done, with an upper bound on the upper-triangle records the merge will
 * give: *use = 1 sends them to emit (part p's records, in key order, on
 * part p's thread, then close_part(p)), 0 builds parts as without a sink. */
typedef struct {
    wv_status (*open)(void *ctx, int64_t most_records, int64_t unit, int n_parts, int *use);
    wv_status (*emit)(void *ctx, int part, const wv_xrec *r);
    wv_status (*close_part)(void *ctx, int part);
    void *ctx;
} wv_cooc_sink;

typedef struct {
    int32_t vocab_size;
    int window;
    int distance_weighting;  /* 1: add 1/d (GloVe); 0: add 1 */
    int threads;
    size_t memory_limit;     /* bytes, all threads together */
    const char *tmp_dir;     /* directory for spilled runs */
    const wv_cooc_sink *sink; /* NULL: the result is parts in memory */
    int ids_fd;              /* with ids NULL: the ids are read from this file (int32, native order) in chunks */
} wv_cooc_config;

/* A slice of the upper triangle: every record of a range of rows. */
typedef struct {
    int64_t n, cap;
    int32_t *rows, *cols;
    int64_t *units;
} wv_cooc_part;

/* Upper triangle (row <= col) of the symmetric matrix, sorted by (row, col)
 * across its parts (one per merging thread, in row order); value = units /
 * unit, and the diagonal holds X[w][w] / 2 (each self-pair is one record;
 * the full matrix counts it from both sides). */
typedef struct {
    int64_t n;               /* records in all parts */
    int n_parts;
    wv_cooc_part *parts;
    int64_t unit;            /* units per 1.0 */
    int64_t spilled_runs;    /* runs written to temporary files */
    int64_t merge_passes;    /* intermediate merges to bound the fan-in */
    int64_t dense_cells;     /* size of the dense region per thread */
    int streamed;            /* the merge went to cfg->sink: no parts */
    double merge_seconds;    /* the last merge (into parts or the sink) */
    _Atomic int64_t positions_done; /* progress: corpus positions counted */
} wv_cooc_result;

/* Counts; on success out owns malloc'ed arrays (free with wv_cooc_free).
 * stop may be NULL; when it becomes non-zero the count ends with
 * WV_ERR_STOPPED. WV_ERR_MEMORY_LIMIT: memory_limit is below threads x
 * WV_COOC_MIN_THREAD_MEMORY; WV_ERR_IO: a temporary file could not be
 * written or read; WV_ERR_INVALID: ids read from cfg->ids_fd outside
 * -1..vocab_size-1. Temporary files never outlive the call. With ids NULL
 * the ids are read from cfg->ids_fd (n_ids of them). */
wv_status wv_cooccur_count(const wv_cooc_config *cfg, const int32_t *ids, int64_t n_ids,
                     wv_cooc_result *out, wv_flag *stop);
void wv_cooc_free(wv_cooc_result *r);

/* Builds the full symmetric CSR (float32 values) from the upper triangle
 * on `threads` threads: indptr[V+1] (int64), indices[nnz] (int32),
 * data[nnz] (float32), where nnz = 2 * n - (diagonal records). Arrays are
 * the caller's; the result does not depend on the thread count. */
void wv_cooc_to_csr(const wv_cooc_result *r, int32_t vocab_size, int64_t *indptr,
                    int32_t *indices, float *data, int threads);
int64_t wv_cooc_full_nnz(const wv_cooc_result *r);

#endif
