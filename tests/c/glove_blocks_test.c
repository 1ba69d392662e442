/* GloVe record blocks alone, under ASan/UBSan with leak detection: records
 * written from two writers come back once each; two epochs streamed by a
 * reader and two training threads see every record exactly once, in
 * different orders; a stop ends an epoch with nobody left waiting; blocks
 * written by bands hold whole cells of the grid, as many in each, each
 * record once.
 * argv[1]: the directory for the block files (must be empty after). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glove_blocks.h"

#define N 20000
#define WORKERS 2

typedef struct {
    wv_glove_stream *s;
    int index;
    int *seen;   /* per record id: times trained this epoch */
    int first;   /* id of the first record this thread trained */
} worker_arg;

static void *reader(void *arg) {
    wv_glove_stream_read(arg);
    return NULL;
}

static void *worker(void *arg) {
    worker_arg *w = arg;
    w->first = -1;
    for (int k = 0;; k++) {
        int64_t n;
        const wv_glove_record *r = wv_glove_stream_get(w->s, k, &n);
        if (!r) break;
        for (int64_t i = n * w->index / WORKERS; i < n * (w->index + 1) / WORKERS; i++) {
            int id = (int)r[i].log_x;
            if (w->first < 0) w->first = id;
            __atomic_fetch_add(&w->seen[id], 1, __ATOMIC_RELAXED);
        }
        wv_glove_stream_done(w->s, k);
    }
    return NULL;
}

/* One epoch on a reader and WORKERS threads; returns the first id trained. */
static int epoch(wv_glove_stream *s, uint64_t key, _Atomic int *stop, int *seen) {
    pthread_t threads[WORKERS + 1];
    worker_arg args[WORKERS];
    memset(seen, 0, N * sizeof *seen);
    wv_glove_stream_begin(s, key, WORKERS, stop);
    for (int t = 0; t < WORKERS; t++) {
        args[t] = (worker_arg){s, t, seen, -1};
        if (pthread_create(&threads[t], NULL, worker, &args[t])) exit(2);
    }
    if (pthread_create(&threads[WORKERS], NULL, reader, s)) exit(2);
    for (int t = 0; t <= WORKERS; t++) pthread_join(threads[t], NULL);
    return args[0].first;
}

/* Blocks written by bands: the layout keeps the bands asked unless the
 * blocks would hold fewer than 16 cells; the cells are dealt to the blocks,
 * as many to each, and a block holds only its cells' records. */
static int by_bands(const char *dir) {
    if (wv_glove_blocks_layout(5, 32) != 32 || wv_glove_blocks_layout(64, 32) != 32) return 10;
    if (wv_glove_blocks_layout(100, 32) != 40 || wv_glove_blocks_layout(1024, 32) != 128) return 11;
    if (wv_glove_blocks_layout(1024, 256) != 256 || wv_glove_blocks_layout(3, 300) != 256) return 12;
    enum { ROWS = 97 };
    int64_t before[ROWS + 1] = {0};
    for (int i = 0; i < ROWS; i++) before[i + 1] = before[i] + ROWS - i; /* frequent ids first */
    static int seen[ROWS * ROWS];
    for (int layout = 0; layout < 2; layout++) {
        const int n_blocks = layout ? 7 : 3, B = 6;
        wv_glove_blocks b;
        if (wv_glove_blocks_open(&b, n_blocks, dir, 7) != WV_OK) return 1;
        if (wv_glove_blocks_by_bands(&b, 1, before, ROWS) != WV_ERR_INVALID) return 13; /* fewer cells than blocks */
        if (wv_glove_blocks_by_bands(&b, B, before, ROWS) != WV_OK) return 14;
        wv_glove_block_writer w;
        if (wv_glove_writer_init(&w, &b, 5) != WV_OK) return 1;
        for (int i = 0; i < ROWS * ROWS; i++) {
            wv_glove_record r = {i / ROWS, i % ROWS, (float)i, 1.0f};
            if (wv_glove_writer_put(&w, &r) != WV_OK) return 1;
        }
        if (wv_glove_writer_flush(&w) != WV_OK) return 1;
        wv_glove_writer_free(&w);
        int cells_of[7] = {0}, striped = 1;
        for (int c = 0; c < B * B; c++) {
            cells_of[b.block_of_cell[c]]++;
            striped &= b.block_of_cell[c] == c % n_blocks;
        }
        for (int k = 0; k < n_blocks; k++)
            if (cells_of[k] != B * B / n_blocks && cells_of[k] != B * B / n_blocks + 1) return 18; /* as many each */
        if (striped) return 25; /* dealt at random */
        for (uint64_t seed = 7; seed <= 8; seed++) { /* the seed's deal: the same again, another with another */
            wv_glove_blocks again;
            if (wv_glove_blocks_open(&again, n_blocks, dir, seed) != WV_OK) return 1;
            if (wv_glove_blocks_by_bands(&again, B, before, ROWS) != WV_OK) return 14;
            int same = !memcmp(again.block_of_cell, b.block_of_cell, B * B * sizeof *b.block_of_cell);
            wv_glove_blocks_close(&again);
            if (same != (seed == 7)) return 26;
        }
        memset(seen, 0, sizeof seen);
        for (int k = 0; k < n_blocks; k++) {
            int64_t n = atomic_load(&b.counts[k]);
            if (n < ROWS * ROWS / n_blocks / 2) return 15; /* the blocks are even */
            wv_glove_record *r = malloc((size_t)n * sizeof *r);
            if (!r || wv_glove_blocks_read(&b, k, r) != WV_OK) return 1;
            for (int64_t i = 0; i < n; i++) {
                if (b.block_of_cell[b.band_of[r[i].row] * B + b.band_of[r[i].col]] != k) return 16;
                seen[(int)r[i].log_x]++;
            }
            free(r);
        }
        for (int i = 0; i < ROWS * ROWS; i++)
            if (seen[i] != 1) return 17;
        /* streamed on the grid: the blocks' own bands, every record once */
        wv_glove_stream s;
        if (wv_glove_stream_init(&s, &b) != WV_OK) return 1;
        if (wv_glove_stream_set_grid(&s, B + 1, 1, ROWS) != WV_ERR_INVALID) return 21; /* not theirs */
        if (wv_glove_stream_set_grid(&s, B, 1, ROWS) != WV_OK) return 22;
        if (memcmp(s.band_of, b.band_of, ROWS * sizeof *b.band_of)) return 23;
        static int trained[N];
        _Atomic int stop = 0;
        epoch(&s, 1, &stop, trained);
        for (int i = 0; i < ROWS * ROWS; i++)
            if (trained[i] != 1) return 24;
        wv_glove_stream_free(&s);
        wv_glove_blocks_close(&b);
    }
    printf("blocks by bands: whole cells\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    wv_glove_blocks b;
    if (wv_glove_blocks_open(&b, 3, argv[1], 7) != WV_OK) return 1;
    wv_glove_block_writer w[2];
    for (int t = 0; t < 2; t++)
        if (wv_glove_writer_init(&w[t], &b, 5) != WV_OK) return 1;
    for (int i = 0; i < N; i++) {
        wv_glove_record r = {i % 97, i / 97, (float)i, 1.0f};
        if (wv_glove_writer_put(&w[i % 2], &r) != WV_OK) return 1;
    }
    for (int t = 0; t < 2; t++) {
        if (wv_glove_writer_flush(&w[t]) != WV_OK) return 1;
        wv_glove_writer_free(&w[t]);
    }
    if (wv_glove_blocks_total(&b) != N) return 3;
    int *seen = calloc(N, sizeof *seen);
    if (!seen) return 1;
    for (int k = 0; k < b.n_blocks; k++) {
        int64_t n = atomic_load(&b.counts[k]);
        if (n < N / 6) return 4; /* the split is random, not all in one */
        wv_glove_record *r = malloc((size_t)n * sizeof *r);
        if (!r || wv_glove_blocks_read(&b, k, r) != WV_OK) return 1;
        for (int64_t i = 0; i < n; i++) seen[(int)r[i].log_x]++;
        free(r);
    }
    for (int i = 0; i < N; i++)
        if (seen[i] != 1) return 5;
    printf("%d blocks, largest %lld\n", b.n_blocks, (long long)wv_glove_blocks_largest(&b));

    wv_glove_stream s;
    if (wv_glove_stream_init(&s, &b) != WV_OK) return 1;
    _Atomic int stop = 0;
    int firsts[2];
    for (int e = 0; e < 2; e++) {
        firsts[e] = epoch(&s, (uint64_t)e + 1, &stop, seen);
        for (int i = 0; i < N; i++)
            if (seen[i] != 1) {
                printf("epoch %d: record %d trained %d times\n", e, i, seen[i]);
                return 6;
            }
    }
    if (firsts[0] == firsts[1]) return 7; /* each epoch draws its own order */
    printf("two epochs: every record once\n");
    atomic_store(&stop, 1);
    epoch(&s, 3, &stop, seen); /* returns: nobody waits forever */
    printf("stopped epoch returned\n");
    wv_glove_stream_free(&s);
    wv_glove_blocks_close(&b);
    free(seen);
    int rc = by_bands(argv[1]);
    if (rc) return rc;
    printf("ok\n");
    return 0;
}
