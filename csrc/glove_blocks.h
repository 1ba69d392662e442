/* GloVe training records out of core: when the records do not fit in
 * memory, the co-occurrence merge writes each one to one of K block files
 * (unlinked temporary files, so nothing outlives the process). Every epoch
 * visits the blocks in a seeded order; a reader thread loads and shuffles
 * the next block into one of two buffers while the training threads run
 * over the other.
 *
 * Without a grid, the block is a seeded hash of the pair: random blocks,
 * each shuffled, concatenated in random order, make a uniformly random
 * permutation of the records, as the in-memory shuffle does.
 *
 * With a grid, the block is that of the record's cell: the ids are dealt
 * into bands before the merge (from an estimate of each id's records), the
 * record (row, col) lies in cell (band(row), band(col)), and the cells are
 * dealt to the blocks at random. A block then holds whole cells, a random
 * share of them, so the blocks of an epoch together make one grid and each
 * is what a stretch of an epoch in memory is. */
#ifndef WV_GLOVE_BLOCKS_H
#define WV_GLOVE_BLOCKS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "cooccur.h"
#include "glove_record.h"
#include "glove_grid.h"
#include "status.h"

/* Block files open at once: a limit too small for this many is refused
 * (WV_ERR_MEMORY_LIMIT) rather than running out of file descriptors. */
#define WV_GLOVE_MAX_BLOCKS 1024

typedef struct {
    int n_blocks;
    int *fds;                 /* one unlinked temporary file per block */
    _Atomic int64_t *counts;  /* records written to (reserved in) each block */
    uint64_t seed;
    _Atomic int error;        /* errno of the first failed write or read; 0: none */
    /* Written by bands (bands > 0): each cell of the bands x bands grid
     * belongs to one block, the cells dealt with the seed, as many to each. */
    int bands;
    int32_t n_rows;
    int32_t *band_of;         /* n_rows */
    uint16_t *block_of_cell;  /* bands x bands, row band major */
} wv_glove_blocks;

/* Opens n_blocks files in tmp_dir. WV_ERR_IO (errno in b->error) if one
 * cannot be created; nothing is left open then. */
wv_status wv_glove_blocks_open(wv_glove_blocks *b, int n_blocks, const char *tmp_dir, uint64_t seed);
void wv_glove_blocks_close(wv_glove_blocks *b);
/* The bands of a grid written to `blocks` blocks when `bands` are asked:
 * those, or more where the blocks would otherwise hold fewer than 16 cells
 * each (past bands x bands / 16 blocks), at most WV_GLOVE_MAX_BANDS. */
int wv_glove_blocks_layout(int blocks, int bands);
/* Makes the open blocks written by bands: the ids dealt into bands by
 * their estimated records (`before`, n_rows + 1, a running count as a CSR
 * indptr), the cells dealt to the blocks. WV_ERR_NOMEM; WV_ERR_INVALID
 * when there are fewer cells than blocks. */
wv_status wv_glove_blocks_by_bands(wv_glove_blocks *b, int bands, const int64_t *before, int32_t n_rows);
int64_t wv_glove_blocks_total(const wv_glove_blocks *b);
int64_t wv_glove_blocks_largest(const wv_glove_blocks *b);
/* Appends n records to a block (several threads may append at once). */
wv_status wv_glove_blocks_append(wv_glove_blocks *b, int block, const wv_glove_record *r, int64_t n);
/* Reads every record of a block into out. */
wv_status wv_glove_blocks_read(wv_glove_blocks *b, int block, wv_glove_record *out);

/* One thread's write buffers, one per block. */
typedef struct {
    wv_glove_blocks *b;
    wv_glove_record *buf;     /* n_blocks x per_block */
    int32_t *len;
    int32_t per_block;
} wv_glove_block_writer;

wv_status wv_glove_writer_init(wv_glove_block_writer *w, wv_glove_blocks *b, int32_t per_block);
/* Buffers r for its block (its cell's, or a seeded hash of row and col). */
wv_status wv_glove_writer_put(wv_glove_block_writer *w, const wv_glove_record *r);
wv_status wv_glove_writer_flush(wv_glove_block_writer *w);
void wv_glove_writer_free(wv_glove_block_writer *w);

/* A co-occurrence sink (cooccur.h) that turns the merged upper triangle
 * into the records of the full matrix, as wv_cooc_to_csr and
 * wv_glove_make_records would (the same float values, the same records),
 * and writes them to blocks when they and the matrix would not fit in
 * memory_limit (or always, with force > 0; never, with force < 0). */
typedef struct {
    size_t memory_limit;
    int force;
    const char *tmp_dir;
    double x_max, alpha, unit; /* unit: set by open */
    uint64_t seed;
    int bands;                /* > 0: write the blocks by bands (about this many) */
    const int64_t *band_before; /* each id's estimated records, running (n_rows + 1) */
    int32_t n_rows;
    int streaming;            /* set by open: the merge goes to the blocks */
    int64_t most_records;     /* the estimate open was given, full matrix */
    wv_glove_blocks blocks;   /* open while streaming */
    wv_glove_block_writer *writers; /* one per part */
    int n_writers;
    wv_cooc_sink sink;        /* points at this struct */
} wv_glove_block_sink;

void wv_glove_block_sink_init(wv_glove_block_sink *s, size_t memory_limit, int force, const char *tmp_dir,
                              double x_max, double alpha, uint64_t seed);
/* Before the count: write the blocks by about `bands` bands, dealt by
 * `before` (kept by the caller until the count is done). */
void wv_glove_block_sink_by_bands(wv_glove_block_sink *s, int bands, const int64_t *before, int32_t n_rows);
/* Frees the writers; the blocks stay (close them with wv_glove_blocks_close). */
void wv_glove_block_sink_free(wv_glove_block_sink *s);

/* The blocks of one epoch in a seeded order, each shuffled, double-buffered. */
typedef struct wv_glove_stream wv_glove_stream; /* glove.h names it too */
struct wv_glove_stream {
    wv_glove_blocks *blocks;
    wv_glove_record *buf[2];
    int64_t len[2];
    int *order;
    uint64_t epoch_key;       /* order and shuffles are drawn from (seed, epoch_key) */
    int workers;              /* training threads */
    int loaded;               /* blocks the reader has made ready */
    int consumed;             /* blocks every training thread is done with */
    int finished[2];          /* per buffer: training threads done with its block */
    int aborted;
    wv_status error;
    _Atomic int *stop;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    /* With a grid (bands > 0): the reader sorts each block into the cells
     * of the bands (band_of: each id's band) and the training threads take
     * the cells of a block from that buffer's scheduler (glove_grid.h). */
    int bands;
    int rounds;               /* of each block */
    int32_t *band_of;
    int64_t *cells[2];
    wv_glove_scheduler scheduler[2];
};

/* Buffers for the largest block. WV_ERR_NOMEM. */
wv_status wv_glove_stream_init(wv_glove_stream *s, wv_glove_blocks *b);
void wv_glove_stream_free(wv_glove_stream *s);
/* Trains each block on `rounds` rounds of a grid of `bands` bands: the
 * blocks' own bands when they were written by bands (`bands` must be
 * theirs), else dealt by the records per id in block 0 (a uniformly random
 * sample of them all: the bands are the same whatever the epoch or a
 * resume). WV_ERR_NOMEM, WV_ERR_IO (reading block 0), WV_ERR_INVALID (bands
 * outside [1, WV_GLOVE_MAX_BANDS] or not the blocks', or an id >= vocab_size). */
wv_status wv_glove_stream_set_grid(wv_glove_stream *s, int bands, int rounds, int32_t vocab_size);
/* The scheduler of block k's cells once wv_glove_stream_get has returned
 * it (with a grid), else NULL. */
wv_glove_scheduler *wv_glove_stream_cells(wv_glove_stream *s, int k);
/* Resets the stream for an epoch trained by `workers` threads; stop is
 * the trainer's stop flag. */
void wv_glove_stream_begin(wv_glove_stream *s, uint64_t epoch_key, int workers, _Atomic int *stop);
/* The reader thread's body: loads and shuffles the epoch's blocks in turn. */
void wv_glove_stream_read(wv_glove_stream *s);
/* Block k of the epoch, waiting for the reader: its records and count, or
 * NULL at the end of the epoch, on a stop or an error. */
const wv_glove_record *wv_glove_stream_get(wv_glove_stream *s, int k, int64_t *n);
/* A training thread is done with block k. */
void wv_glove_stream_done(wv_glove_stream *s, int k);
/* A thread leaves early (stop): wakes everyone waiting. */
void wv_glove_stream_abort(wv_glove_stream *s);

#endif
