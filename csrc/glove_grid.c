#include "glove_grid.h"

#include <math.h>
#include <stdlib.h>

/* Bands as a min-heap of (records so far, band): heap[0] the lightest,
 * ties to the lower band. */
static inline int lighter(const int64_t *load, int a, int b) {
    return load[a] < load[b] || (load[a] == load[b] && a < b);
}

static void sift_down(int *heap, int n, const int64_t *load) {
    for (int at = 0;;) {
        int least = at, l = 2 * at + 1, r = l + 1;
        if (l < n && lighter(load, heap[l], heap[least])) least = l;
        if (r < n && lighter(load, heap[r], heap[least])) least = r;
        if (least == at) return;
        int t = heap[at];
        heap[at] = heap[least];
        heap[least] = t;
        at = least;
    }
}

/* Each id in turn (most frequent first) joins the band with the fewest
 * records so far: bands of about equal work that each hold frequent and
 * rare ids alike, so that a word's records in one cell are a fair sample
 * of all its records (bands of consecutive ids drift; docs/performance.md). */
void wv_glove_assign_bands(const int64_t *before, int32_t n_rows, int bands, int32_t *band_of) {
    int64_t load[WV_GLOVE_MAX_BANDS] = {0};
    int heap[WV_GLOVE_MAX_BANDS];
    for (int b = 0; b < bands; b++) heap[b] = b;
    for (int32_t i = 0; i < n_rows; i++) {
        band_of[i] = heap[0];
        load[heap[0]] += before[i + 1] - before[i];
        sift_down(heap, bands, load);
    }
}

static void shuffle_cells(wv_glove_record *records, int cells, const int64_t *start, wv_rng *rng) {
    for (int c = 0; c < cells; c++) wv_glove_shuffle(records + start[c], start[c + 1] - start[c], rng);
}

/* start[c] = the records of the cells before c; count[c] becomes each
 * cell's first free slot (start[c]). */
static void cells_from_counts(int64_t *count, int cells, int64_t *start) {
    start[0] = 0;
    for (int c = 0; c < cells; c++) {
        start[c + 1] = start[c] + count[c];
        count[c] = start[c];
    }
}

static inline int64_t cell_of(const wv_glove_record *r, int bands, int rounds, uint64_t salt,
                              const int32_t *band_of) {
    int64_t round = rounds > 1 ? wv_glove_round_of(r->row, r->col, salt, rounds) : 0;
    return (round * bands + band_of[r->row]) * bands + band_of[r->col];
}

wv_status wv_glove_grid_sort(wv_glove_record *records, int64_t n, int bands, int rounds, const int32_t *band_of,
                             int64_t *start, wv_rng *rng) {
    const int cells = rounds * bands * bands;
    const uint64_t salt = wv_rng_next(rng);
    int64_t *next = calloc((size_t)cells, sizeof *next);
    if (!next) return WV_ERR_NOMEM;
    for (int64_t k = 0; k < n; k++) next[cell_of(&records[k], bands, rounds, salt, band_of)]++;
    cells_from_counts(next, cells, start);
    /* in place: each record is swapped into the next free slot of its cell
     * until the slot being filled receives one of its own (American flag) */
    for (int c = 0; c < cells; c++) {
        while (next[c] < start[c + 1]) {
            wv_glove_record r = records[next[c]];
            int64_t home = cell_of(&r, bands, rounds, salt, band_of);
            while (home != c) {
                wv_glove_record t = records[next[home]];
                records[next[home]++] = r;
                r = t;
                home = cell_of(&r, bands, rounds, salt, band_of);
            }
            records[next[c]++] = r;
        }
    }
    free(next);
    shuffle_cells(records, cells, start, rng);
    return WV_OK;
}

wv_status wv_glove_make_grid_records(const int64_t *indptr, const int32_t *indices, const float *data,
                                     int32_t n_rows, double x_max, double alpha, uint64_t seed, int bands,
                                     int rounds, int32_t *band_of, int64_t *start, wv_glove_record *out) {
    if (bands < 1 || bands > WV_GLOVE_MAX_BANDS || rounds < 1 || rounds > WV_GLOVE_MAX_ROUNDS) return WV_ERR_INVALID;
    const int cells = rounds * bands * bands;
    wv_rng rng;
    wv_rng_seed(&rng, seed, 0x61C8864680B583EBULL, 1);
    const uint64_t salt = wv_rng_next(&rng);
    wv_glove_assign_bands(indptr, n_rows, bands, band_of);
    int64_t *cursor = calloc((size_t)cells, sizeof *cursor);
    if (!cursor) return WV_ERR_NOMEM;
    for (int32_t i = 0; i < n_rows; i++)
        for (int64_t e = indptr[i]; e < indptr[i + 1]; e++) {
            wv_glove_record r = {.row = i, .col = indices[e]};
            cursor[cell_of(&r, bands, rounds, salt, band_of)]++;
        }
    cells_from_counts(cursor, cells, start);
    for (int32_t i = 0; i < n_rows; i++)
        for (int64_t e = indptr[i]; e < indptr[i + 1]; e++) {
            double x = data[e];
            if (!(x > 0.0) || !isfinite(x)) {
                free(cursor);
                return WV_ERR_INVALID;
            }
            wv_glove_record r = {.row = i, .col = indices[e]};
            wv_glove_record_of(&out[cursor[cell_of(&r, bands, rounds, salt, band_of)]++], i, indices[e], data[e],
                               x_max, alpha);
        }
    free(cursor);
    shuffle_cells(out, cells, start, &rng);
    return WV_OK;
}

wv_status wv_glove_scheduler_init(wv_glove_scheduler *s, wv_glove_grid grid) {
    const int B = grid.bands;
    s->grid = grid;
    s->row_busy = calloc((size_t)B, 1);
    s->col_busy = calloc((size_t)B, 1);
    s->pool = calloc((size_t)wv_glove_cells(grid), sizeof *s->pool);
    s->round_left = calloc((size_t)grid.rounds, sizeof *s->round_left);
    s->cells_left = 0;
    s->stop = NULL;
    if (!s->row_busy || !s->col_busy || !s->pool || !s->round_left) {
        wv_glove_scheduler_free(s);
        return WV_ERR_NOMEM;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->freed, NULL);
    return WV_OK;
}

void wv_glove_scheduler_free(wv_glove_scheduler *s) {
    if (s->row_busy && s->col_busy && s->pool && s->round_left) {
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->freed);
    }
    free(s->row_busy);
    free(s->col_busy);
    free(s->pool);
    free(s->round_left);
    s->row_busy = s->col_busy = NULL;
    s->pool = s->round_left = NULL;
}

void wv_glove_scheduler_begin(wv_glove_scheduler *s, uint64_t seed, uint64_t epoch_key, _Atomic int *stop) {
    const int B = s->grid.bands, per_round = B * B;
    s->cells_left = 0;
    for (int k = 0; k < s->grid.rounds; k++) {
        int n = 0;
        for (int c = k * per_round; c < (k + 1) * per_round; c++)
            if (s->grid.start[c + 1] > s->grid.start[c]) s->pool[k * per_round + n++] = c;
        s->round_left[k] = n;
        s->cells_left += n;
    }
    s->round = 0;
    for (int b = 0; b < B; b++) s->row_busy[b] = s->col_busy[b] = 0;
    wv_rng_seed(&s->rng, seed, 0x5851F42D4C957F2DULL, epoch_key);
    s->stop = stop;
}

static inline int bands_free(const wv_glove_scheduler *s, int cell) {
    const int B = s->grid.bands;
    return !s->row_busy[cell / B % B] && !s->col_busy[cell % B];
}

/* The place in the pool of a cell whose bands are free, uniformly among
 * those of the first round that has one: a few random draws (with bands of
 * 4 a thread most cells are free), then one scan; -1 if none. Called with
 * the lock held. */
static int pick(wv_glove_scheduler *s) {
    const int per_round = s->grid.bands * s->grid.bands;
    while (s->round < s->grid.rounds && s->round_left[s->round] == 0) s->round++;
    for (int k = s->round; k < s->grid.rounds; k++) {
        const int base = k * per_round, n = s->round_left[k];
        for (int tries = 0; n && tries < 8; tries++) {
            int i = base + (int)wv_rng_below(&s->rng, (uint32_t)n);
            if (bands_free(s, s->pool[i])) return i;
        }
        int chosen = -1;
        uint32_t seen = 0;
        for (int i = base; i < base + n; i++)
            if (bands_free(s, s->pool[i]) && wv_rng_below(&s->rng, ++seen) == 0) chosen = i;
        if (chosen >= 0) return chosen;
    }
    return -1;
}

int wv_glove_scheduler_take(wv_glove_scheduler *s) {
    const int B = s->grid.bands, per_round = B * B;
    pthread_mutex_lock(&s->lock);
    int at = -1;
    while (s->cells_left > 0 && !(s->stop && atomic_load_explicit(s->stop, memory_order_relaxed))) {
        at = pick(s);
        if (at >= 0) break;
        /* no cell left is free, so another thread holds one of its bands and
         * gives it back before long; a thread that stops gives back too */
        pthread_cond_wait(&s->freed, &s->lock);
    }
    int cell = -1;
    if (at >= 0) {
        const int k = at / per_round, last = k * per_round + --s->round_left[k];
        cell = s->pool[at];
        s->pool[at] = s->pool[last];
        s->cells_left--;
        s->row_busy[cell / B % B] = s->col_busy[cell % B] = 1;
    }
    pthread_mutex_unlock(&s->lock);
    return cell;
}

void wv_glove_scheduler_give(wv_glove_scheduler *s, int cell) {
    const int B = s->grid.bands;
    pthread_mutex_lock(&s->lock);
    s->row_busy[cell / B % B] = s->col_busy[cell % B] = 0;
    pthread_cond_broadcast(&s->freed);
    pthread_mutex_unlock(&s->lock);
}
