/* The GloVe grid alone, under ASan/UBSan with leak detection: records of a
 * skewed random CSR matrix land once each in the cell of their round and
 * bands, the bands hold about equal numbers of records, the rounds about
 * equal random shares; four threads taking cells from
 * the scheduler over two epochs train every cell once an epoch, never two
 * cells of one band at once, in different orders; a stop ends an epoch with
 * nobody left waiting. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glove_grid.h"

#define ROWS 3000
#define BANDS 8
#define ROUNDS 3
#define CELLS (ROUNDS * BANDS * BANDS)
#define THREADS 4

typedef struct {
    wv_glove_scheduler *s;
    _Atomic int *row_holders, *col_holders; /* per band: threads holding it now */
    _Atomic int *trained;                   /* per cell: times trained this epoch */
    _Atomic int *clashes;
    int *order;                             /* cells in the order they were taken */
    _Atomic int *taken;
    int stop_after;                         /* raise the stop flag after this many cells; 0: never */
    _Atomic int *stop;
} worker_arg;

static void *worker(void *arg) {
    worker_arg *w = arg;
    int cell;
    while ((cell = wv_glove_scheduler_take(w->s)) >= 0) {
        int r = cell / BANDS % BANDS, c = cell % BANDS;
        if (atomic_fetch_add(&w->row_holders[r], 1) != 0) atomic_fetch_add(w->clashes, 1);
        if (atomic_fetch_add(&w->col_holders[c], 1) != 0) atomic_fetch_add(w->clashes, 1);
        for (volatile int spin = 0; spin < 2000; spin++) {
        }
        atomic_fetch_add(&w->trained[cell], 1);
        int k = atomic_fetch_add(w->taken, 1);
        w->order[k] = cell;
        atomic_fetch_sub(&w->row_holders[r], 1);
        atomic_fetch_sub(&w->col_holders[c], 1);
        if (w->stop_after && k + 1 >= w->stop_after) atomic_store(w->stop, 1);
        wv_glove_scheduler_give(w->s, cell);
    }
    return NULL;
}

/* One epoch on THREADS threads; returns the number of cells trained. */
static int epoch(wv_glove_scheduler *s, uint64_t key, int stop_after, _Atomic int *trained, int *order,
                 int *clash_count) {
    pthread_t threads[THREADS];
    worker_arg args[THREADS];
    _Atomic int row_holders[BANDS] = {0}, col_holders[BANDS] = {0}, clashes = 0, taken = 0, stop = 0;
    for (int c = 0; c < CELLS; c++) atomic_store(&trained[c], 0);
    wv_glove_scheduler_begin(s, 7, key, &stop);
    for (int t = 0; t < THREADS; t++) {
        args[t] = (worker_arg){s, row_holders, col_holders, trained, &clashes, order, &taken, stop_after, &stop};
        if (pthread_create(&threads[t], NULL, worker, &args[t])) exit(2);
    }
    for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
    *clash_count = atomic_load(&clashes);
    return atomic_load(&taken);
}

int main(void) {
    /* a symmetric-ish skewed pattern: row i has about ROWS / (i + 1) + 1 entries */
    int64_t *indptr = malloc((ROWS + 1) * sizeof *indptr);
    indptr[0] = 0;
    for (int i = 0; i < ROWS; i++) indptr[i + 1] = indptr[i] + ROWS / (i + 1) + 1;
    const int64_t nnz = indptr[ROWS];
    int32_t *indices = malloc(nnz * sizeof *indices);
    float *data = malloc(nnz * sizeof *data);
    wv_rng rng;
    wv_rng_seed(&rng, 3, 0, 0);
    for (int64_t e = 0; e < nnz; e++) {
        indices[e] = (int32_t)wv_rng_below(&rng, ROWS);
        data[e] = 1.0f + (float)e; /* value identifies the entry */
    }
    int32_t *band_of = malloc(ROWS * sizeof *band_of);
    int64_t start[CELLS + 1];
    wv_glove_record *records = malloc(nnz * sizeof *records);
    if (wv_glove_make_grid_records(indptr, indices, data, ROWS, 100.0, 0.75, 5, 0, ROUNDS, band_of, start,
                                   records) !=
        WV_ERR_INVALID)
        return 10;
    if (wv_glove_make_grid_records(indptr, indices, data, ROWS, 100.0, 0.75, 5, BANDS, ROUNDS, band_of, start,
                                   records))
        return 11;
    if (start[CELLS] != nnz) return 12;
    int64_t per_band[BANDS] = {0}, per_round[ROUNDS] = {0};
    char *seen = calloc(nnz, 1);
    for (int c = 0; c < CELLS; c++) {
        per_round[c / (BANDS * BANDS)] += start[c + 1] - start[c];
        for (int64_t k = start[c]; k < start[c + 1]; k++) {
            const wv_glove_record *r = &records[k];
            if (band_of[r->row] != c / BANDS % BANDS || band_of[r->col] != c % BANDS) return 13;
            int64_t e = (int64_t)(expf(r->log_x) - 0.5f); /* the entry it came from */
            if (e < 0 || e >= nnz || seen[e]++ || indices[e] != r->col) return 14;
            if (e < indptr[r->row] || e >= indptr[r->row + 1]) return 15;
            per_band[c / BANDS % BANDS]++;
        }
    }
    for (int b = 0; b < BANDS; b++)
        if (per_band[b] < nnz / BANDS / 2 || per_band[b] > nnz / BANDS * 2) return 16;
    for (int k = 0; k < ROUNDS; k++)
        if (per_round[k] < nnz / ROUNDS * 9 / 10 || per_round[k] > nnz / ROUNDS * 11 / 10) return 16;
    printf("%lld records in their cells, bands of %lld..%lld\n", (long long)nnz, (long long)per_band[0],
           (long long)per_band[BANDS - 1]);

    /* the same records scrambled, sorted in place on one round: the same
     * bands, each holding the same records */
    wv_glove_record *copy = malloc(nnz * sizeof *copy);
    int64_t again[BANDS * BANDS + 1], one_round[BANDS * BANDS + 1] = {0};
    for (int c = 0; c < CELLS; c++) one_round[c % (BANDS * BANDS) + 1] += start[c + 1] - start[c];
    for (int c = 0; c < BANDS * BANDS; c++) one_round[c + 1] += one_round[c];
    memcpy(copy, records, nnz * sizeof *copy);
    for (int64_t k = nnz - 1; k > 0; k--) {
        int64_t j = (int64_t)(wv_rng_next(&rng) % (uint64_t)(k + 1));
        wv_glove_record t = copy[k];
        copy[k] = copy[j];
        copy[j] = t;
    }
    if (wv_glove_grid_sort(copy, nnz, BANDS, 1, band_of, again, &rng)) return 17;
    if (memcmp(again, one_round, sizeof again)) return 18;
    memset(seen, 0, nnz);
    for (int c = 0; c < BANDS * BANDS; c++) {
        for (int64_t k = again[c]; k < again[c + 1]; k++) {
            if (band_of[copy[k].row] != c / BANDS || band_of[copy[k].col] != c % BANDS) return 19;
            int64_t e = (int64_t)(expf(copy[k].log_x) - 0.5f);
            if (seen[e]++) return 19;
        }
    }
    free(copy);
    printf("sorted in place alike\n");

    wv_glove_scheduler s;
    if (wv_glove_scheduler_init(&s, (wv_glove_grid){BANDS, ROUNDS, start})) return 20;
    _Atomic int trained[CELLS];
    int order1[CELLS], order2[CELLS];
    int nonempty = 0, clashes;
    for (int c = 0; c < CELLS; c++) nonempty += start[c + 1] > start[c];
    for (int e = 0; e < 2; e++) {
        int n = epoch(&s, (uint64_t)e, 0, trained, e ? order2 : order1, &clashes);
        if (n != nonempty || clashes) return 21;
        for (int c = 0; c < CELLS; c++)
            if (atomic_load(&trained[c]) != (start[c + 1] > start[c])) return 22;
    }
    if (!memcmp(order1, order2, sizeof order1)) return 23;
    printf("every cell once an epoch, no band held twice, orders differ\n");
    int n = epoch(&s, 2, 5, trained, order1, &clashes);
    if (n < 5 || n >= nonempty || clashes) return 24;
    printf("stopped epoch returned after %d cells\n", n);
    wv_glove_scheduler_free(&s);
    free(seen);
    free(records);
    free(band_of);
    free(data);
    free(indices);
    free(indptr);
    printf("ok\n");
    return 0;
}
