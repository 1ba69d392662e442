#define _POSIX_C_SOURCE 200809L /* mkstemp, pread, pwrite */

#include "glove_blocks.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "rng.h"

#define WAIT_SECONDS 0.1 /* waits re-check the stop flag, which is set without the lock */

/* ---- block files ------------------------------------------------------------ */
static void note_error(wv_glove_blocks *b, int err) {
    int none = 0;
    atomic_compare_exchange_strong(&b->error, &none, err ? err : EIO);
}

static int open_block_file(const char *dir) {
    char path[4096];
    int len = snprintf(path, sizeof path, "%s/wv_glove_block_XXXXXX", dir ? dir : "/tmp");
    if (len < 0 || (size_t)len >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(path);
    if (fd >= 0) unlink(path); /* nothing outlives the process, even a kill */
    return fd;
}

wv_status wv_glove_blocks_open(wv_glove_blocks *b, int n_blocks, const char *tmp_dir, uint64_t seed) {
    b->n_blocks = 0;
    b->seed = seed;
    b->bands = b->n_rows = 0;
    b->band_of = NULL;
    b->block_of_cell = NULL;
    atomic_store(&b->error, 0);
    b->fds = malloc((size_t)n_blocks * sizeof *b->fds);
    b->counts = calloc((size_t)n_blocks, sizeof *b->counts);
    if (!b->fds || !b->counts) {
        wv_glove_blocks_close(b);
        return WV_ERR_NOMEM;
    }
    for (int k = 0; k < n_blocks; k++) {
        atomic_store(&b->counts[k], 0);
        b->fds[k] = open_block_file(tmp_dir);
        if (b->fds[k] < 0) {
            note_error(b, errno);
            wv_glove_blocks_close(b);
            return WV_ERR_IO;
        }
        b->n_blocks = k + 1;
    }
    return WV_OK;
}

void wv_glove_blocks_close(wv_glove_blocks *b) {
    for (int k = 0; k < b->n_blocks; k++) close(b->fds[k]); /* unlinked: closing deletes it */
    free(b->fds);
    free((void *)b->counts);
    free(b->band_of);
    free(b->block_of_cell);
    b->fds = NULL;
    b->counts = NULL;
    b->band_of = NULL;
    b->block_of_cell = NULL;
    b->n_blocks = b->bands = 0;
}

/* A block holds at least this many cells: enough for its threads to find
 * cells with free bands, and for blocks of about equal records. */
#define FEWEST_CELLS 16
_Static_assert(WV_GLOVE_MAX_BLOCKS <= UINT16_MAX + 1, "block_of_cell holds block ids in uint16_t");

int wv_glove_blocks_layout(int blocks, int bands) {
    if (blocks < 1) blocks = 1;
    int enough = (int)ceil(sqrt((double)FEWEST_CELLS * (double)blocks));
    if (bands < enough) bands = enough;
    return bands < WV_GLOVE_MAX_BANDS ? bands : WV_GLOVE_MAX_BANDS;
}

wv_status wv_glove_blocks_by_bands(wv_glove_blocks *b, int bands, const int64_t *before, int32_t n_rows) {
    if (b->n_blocks < 1 || b->n_blocks > WV_GLOVE_MAX_BLOCKS || bands < 1 || bands > WV_GLOVE_MAX_BANDS ||
        bands * bands < b->n_blocks || n_rows < 0 || b->band_of)
        return WV_ERR_INVALID;
    const int cells = bands * bands;
    b->band_of = malloc((size_t)(n_rows > 0 ? n_rows : 1) * sizeof *b->band_of);
    b->block_of_cell = malloc((size_t)cells * sizeof *b->block_of_cell);
    if (!b->band_of || !b->block_of_cell) {
        free(b->band_of);
        free(b->block_of_cell);
        b->band_of = NULL;
        b->block_of_cell = NULL;
        return WV_ERR_NOMEM;
    }
    wv_glove_assign_bands(before, n_rows, bands, b->band_of);
    /* The cells dealt to the blocks in a seeded random order, as many to
     * each: a block is then a random share of the grid's cells, as a stretch
     * of an epoch in memory is. Groups of whole diagonals train more slowly
     * (docs/performance.md). */
    wv_rng rng;
    wv_rng_seed(&rng, b->seed, UINT64_MAX, UINT64_MAX - 1);
    for (int c = 0; c < cells; c++) b->block_of_cell[c] = (uint16_t)(c % b->n_blocks);
    for (int c = cells - 1; c > 0; c--) {
        int j = (int)wv_rng_below(&rng, (uint32_t)c + 1);
        uint16_t t = b->block_of_cell[c];
        b->block_of_cell[c] = b->block_of_cell[j];
        b->block_of_cell[j] = t;
    }
    b->bands = bands;
    b->n_rows = n_rows;
    return WV_OK;
}

int64_t wv_glove_blocks_total(const wv_glove_blocks *b) {
    int64_t n = 0;
    for (int k = 0; k < b->n_blocks; k++) n += atomic_load(&b->counts[k]);
    return n;
}

int64_t wv_glove_blocks_largest(const wv_glove_blocks *b) {
    int64_t most = 0;
    for (int k = 0; k < b->n_blocks; k++) {
        int64_t n = atomic_load(&b->counts[k]);
        if (n > most) most = n;
    }
    return most;
}

wv_status wv_glove_blocks_append(wv_glove_blocks *b, int block, const wv_glove_record *r, int64_t n) {
    /* Each writer reserves its own range of the file, so appends need no lock. */
    int64_t first = atomic_fetch_add(&b->counts[block], n);
    int err = wv_pwrite_all(b->fds[block], r, (size_t)n * sizeof *r, (off_t)first * (off_t)sizeof *r);
    if (err) {
        note_error(b, err);
        return WV_ERR_IO;
    }
    return WV_OK;
}

wv_status wv_glove_blocks_read(wv_glove_blocks *b, int block, wv_glove_record *out) {
    int err = wv_pread_all(b->fds[block], out, (size_t)atomic_load(&b->counts[block]) * sizeof *out, 0);
    if (err) {
        note_error(b, err);
        return WV_ERR_IO;
    }
    return WV_OK;
}

/* ---- writers ------------------------------------------------------------------ */
/* The block of a pair: by bands, its cell's; else a hash of (seed, row,
 * col), so it does not depend on the order the merge threads produce the
 * records in. */
static int block_of(const wv_glove_blocks *b, int32_t row, int32_t col) {
    if (b->bands) return b->block_of_cell[b->band_of[row] * b->bands + b->band_of[col]];
    if (b->n_blocks == 1) return 0;
    wv_rng rng;
    wv_rng_seed(&rng, b->seed, (uint64_t)(uint32_t)row, (uint64_t)(uint32_t)col);
    return (int)wv_rng_below(&rng, (uint32_t)b->n_blocks);
}

wv_status wv_glove_writer_init(wv_glove_block_writer *w, wv_glove_blocks *b, int32_t per_block) {
    w->b = b;
    w->per_block = per_block > 0 ? per_block : 1;
    w->buf = malloc((size_t)b->n_blocks * (size_t)w->per_block * sizeof *w->buf);
    w->len = calloc((size_t)b->n_blocks, sizeof *w->len);
    if (w->buf && w->len) return WV_OK;
    wv_glove_writer_free(w);
    return WV_ERR_NOMEM;
}

wv_status wv_glove_writer_put(wv_glove_block_writer *w, const wv_glove_record *r) {
    int k = block_of(w->b, r->row, r->col);
    wv_glove_record *buf = w->buf + (size_t)k * (size_t)w->per_block;
    buf[w->len[k]++] = *r;
    if (w->len[k] < w->per_block) return WV_OK;
    w->len[k] = 0;
    return wv_glove_blocks_append(w->b, k, buf, w->per_block);
}

wv_status wv_glove_writer_flush(wv_glove_block_writer *w) {
    for (int k = 0; k < w->b->n_blocks; k++) {
        if (!w->len[k]) continue;
        wv_status rc = wv_glove_blocks_append(w->b, k, w->buf + (size_t)k * (size_t)w->per_block, w->len[k]);
        w->len[k] = 0;
        if (rc) return rc;
    }
    return WV_OK;
}

void wv_glove_writer_free(wv_glove_block_writer *w) {
    free(w->buf);
    free(w->len);
    w->buf = NULL;
    w->len = NULL;
}

/* ---- the counter's sink --------------------------------------------------------- */
/* Bytes per non-zero kept in memory otherwise: its record, and the CSR's
 * column and value the records are made from. */
#define IN_MEMORY_BYTES (sizeof(wv_glove_record) + sizeof(int32_t) + sizeof(float))
#define MIN_WRITE_BUFFER 64   /* records per block and thread, at least */
#define MAX_WRITE_BUFFER 4096 /* more buys nothing: the writes are large already */

static wv_status sink_open(void *ctx, int64_t most_upper, int64_t unit, int n_parts, int *use) {
    wv_glove_block_sink *s = ctx;
    s->unit = (double)unit;
    s->most_records = 2 * most_upper;
    double in_memory = (double)s->most_records * (double)IN_MEMORY_BYTES;
    s->streaming = s->force > 0 || (s->force == 0 && in_memory > (double)s->memory_limit);
    *use = s->streaming;
    if (!s->streaming) return WV_OK;
    /* Two blocks (the one training and the one read ahead) fit the limit,
     * with room for blocks a little above the mean. */
    const double record_bytes = (double)s->most_records * (double)sizeof(wv_glove_record);
    double blocks = record_bytes / ((double)s->memory_limit * 7.0 / 16.0);
    if (blocks > WV_GLOVE_MAX_BLOCKS) return WV_ERR_MEMORY_LIMIT;
    if (s->bands) /* blocks of whole cells are less even than a hash's: more room */
        blocks = fmin(record_bytes / ((double)s->memory_limit * 3.0 / 8.0), WV_GLOVE_MAX_BLOCKS);
    int n_blocks = blocks < 1.0 ? 1 : (int)blocks + (blocks > (double)(int)blocks);
    wv_status rc = wv_glove_blocks_open(&s->blocks, n_blocks, s->tmp_dir, s->seed);
    if (rc) return rc;
    if (s->bands) {
        rc = wv_glove_blocks_by_bands(&s->blocks, wv_glove_blocks_layout(n_blocks, s->bands), s->band_before,
                                      s->n_rows);
        if (rc) return rc;
    }
    /* Write buffers of all parts take at most a quarter of the limit (the
     * counter's record buffers, as large, are freed by now). */
    double per = (double)s->memory_limit / 4.0 / ((double)n_parts * n_blocks * sizeof(wv_glove_record));
    int32_t per_block = per > MAX_WRITE_BUFFER ? MAX_WRITE_BUFFER : per < MIN_WRITE_BUFFER ? MIN_WRITE_BUFFER : (int32_t)per;
    s->writers = calloc((size_t)n_parts, sizeof *s->writers);
    if (!s->writers) return WV_ERR_NOMEM;
    for (int p = 0; p < n_parts; p++) {
        rc = wv_glove_writer_init(&s->writers[p], &s->blocks, per_block);
        if (rc) return rc;
        s->n_writers = p + 1;
    }
    return WV_OK;
}

/* Upper-triangle cell (a, b) in units: the full matrix holds (a, b) and
 * (b, a), or (a, a) at twice the stored half, valued as wv_cooc_to_csr
 * writes them and made into records as wv_glove_make_records does. */
static wv_status sink_emit(void *ctx, int part, const wv_xrec *r) {
    wv_glove_block_sink *s = ctx;
    int32_t a = (int32_t)(r->key >> 32), b = (int32_t)(r->key & 0xFFFFFFFFu);
    double x = (double)r->value / s->unit;
    wv_glove_record rec;
    if (a == b) {
        wv_glove_record_of(&rec, a, a, (float)(2.0 * x), s->x_max, s->alpha);
        return wv_glove_writer_put(&s->writers[part], &rec);
    }
    wv_glove_record_of(&rec, a, b, (float)x, s->x_max, s->alpha);
    wv_status rc = wv_glove_writer_put(&s->writers[part], &rec);
    if (rc) return rc;
    rec.row = b;
    rec.col = a;
    return wv_glove_writer_put(&s->writers[part], &rec);
}

static wv_status sink_close_part(void *ctx, int part) {
    wv_glove_block_sink *s = ctx;
    return wv_glove_writer_flush(&s->writers[part]);
}

void wv_glove_block_sink_init(wv_glove_block_sink *s, size_t memory_limit, int force, const char *tmp_dir,
                              double x_max, double alpha, uint64_t seed) {
    memset(s, 0, sizeof *s);
    s->memory_limit = memory_limit;
    s->force = force;
    s->tmp_dir = tmp_dir;
    s->x_max = x_max;
    s->alpha = alpha;
    s->seed = seed;
    s->unit = 1.0;
    s->sink = (wv_cooc_sink){sink_open, sink_emit, sink_close_part, s};
}

void wv_glove_block_sink_by_bands(wv_glove_block_sink *s, int bands, const int64_t *before, int32_t n_rows) {
    s->bands = bands;
    s->band_before = before;
    s->n_rows = n_rows;
}

void wv_glove_block_sink_free(wv_glove_block_sink *s) {
    for (int p = 0; p < s->n_writers; p++) wv_glove_writer_free(&s->writers[p]);
    free(s->writers);
    s->writers = NULL;
    s->n_writers = 0;
}

/* ---- the stream of one epoch --------------------------------------------------- */
wv_status wv_glove_stream_init(wv_glove_stream *s, wv_glove_blocks *b) {
    memset(s, 0, sizeof *s);
    s->blocks = b;
    int64_t most = wv_glove_blocks_largest(b);
    size_t bytes = (size_t)(most > 0 ? most : 1) * sizeof(wv_glove_record);
    s->buf[0] = malloc(bytes);
    s->buf[1] = b->n_blocks > 1 ? malloc(bytes) : NULL;
    s->order = malloc((size_t)(b->n_blocks > 0 ? b->n_blocks : 1) * sizeof *s->order);
    if (!s->buf[0] || (b->n_blocks > 1 && !s->buf[1]) || !s->order) {
        free(s->buf[0]);
        free(s->buf[1]);
        free(s->order);
        return WV_ERR_NOMEM;
    }
    if (pthread_mutex_init(&s->lock, NULL)) {
        free(s->buf[0]);
        free(s->buf[1]);
        free(s->order);
        return WV_ERR_NOMEM;
    }
    if (pthread_cond_init(&s->changed, NULL)) {
        pthread_mutex_destroy(&s->lock);
        free(s->buf[0]);
        free(s->buf[1]);
        free(s->order);
        return WV_ERR_NOMEM;
    }
    return WV_OK;
}

void wv_glove_stream_free(wv_glove_stream *s) {
    if (s->bands) {
        wv_glove_scheduler_free(&s->scheduler[0]);
        wv_glove_scheduler_free(&s->scheduler[1]);
    }
    free(s->band_of);
    free(s->cells[0]);
    free(s->cells[1]);
    free(s->buf[0]);
    free(s->buf[1]);
    free(s->order);
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->lock);
    memset(s, 0, sizeof *s);
}

/* Deals band_of from the records per id in block 0 (blocks written by a
 * hash: a uniformly random sample of them all). */
static wv_status bands_from_block0(wv_glove_stream *s, int bands, int32_t vocab_size) {
    int64_t *before = calloc((size_t)vocab_size + 1, sizeof *before);
    wv_status rc = before ? wv_glove_blocks_read(s->blocks, 0, s->buf[0]) : WV_ERR_NOMEM;
    const int64_t n = rc == WV_OK ? atomic_load(&s->blocks->counts[0]) : 0;
    for (int64_t k = 0; k < n && rc == WV_OK; k++) {
        const wv_glove_record *r = &s->buf[0][k];
        if (r->row < 0 || r->row >= vocab_size || r->col < 0 || r->col >= vocab_size) rc = WV_ERR_INVALID;
        else before[r->row + 1]++;
    }
    if (rc == WV_OK) {
        for (int32_t i = 0; i < vocab_size; i++) before[i + 1] += before[i];
        wv_glove_assign_bands(before, vocab_size, bands, s->band_of);
    }
    free(before);
    return rc;
}

wv_status wv_glove_stream_set_grid(wv_glove_stream *s, int bands, int rounds, int32_t vocab_size) {
    const wv_glove_blocks *b = s->blocks;
    if (s->bands || bands < 1 || bands > WV_GLOVE_MAX_BANDS || rounds < 1 || rounds > WV_GLOVE_MAX_ROUNDS ||
        vocab_size < 1 || (b->bands && (bands != b->bands || vocab_size != b->n_rows)))
        return WV_ERR_INVALID;
    const size_t cells = (size_t)rounds * (size_t)bands * (size_t)bands + 1;
    s->band_of = malloc((size_t)vocab_size * sizeof *s->band_of);
    s->cells[0] = calloc(cells, sizeof *s->cells[0]);
    s->cells[1] = calloc(cells, sizeof *s->cells[1]);
    wv_status rc = s->band_of && s->cells[0] && s->cells[1] ? WV_OK : WV_ERR_NOMEM;
    if (rc == WV_OK && b->bands) memcpy(s->band_of, b->band_of, (size_t)vocab_size * sizeof *s->band_of);
    else if (rc == WV_OK) rc = bands_from_block0(s, bands, vocab_size);
    if (rc == WV_OK) {
        wv_glove_grid grid = {bands, rounds, s->cells[0]};
        rc = wv_glove_scheduler_init(&s->scheduler[0], grid);
        if (rc == WV_OK) {
            grid.start = s->cells[1];
            rc = wv_glove_scheduler_init(&s->scheduler[1], grid);
            if (rc) wv_glove_scheduler_free(&s->scheduler[0]);
        }
    }
    if (rc) {
        free(s->band_of);
        free(s->cells[0]);
        free(s->cells[1]);
        s->band_of = NULL;
        s->cells[0] = s->cells[1] = NULL;
        return rc;
    }
    s->bands = bands;
    s->rounds = rounds;
    return WV_OK;
}

wv_glove_scheduler *wv_glove_stream_cells(wv_glove_stream *s, int k) {
    return s->bands ? &s->scheduler[k % 2] : NULL;
}

void wv_glove_stream_begin(wv_glove_stream *s, uint64_t epoch_key, int workers, _Atomic int *stop) {
    int B = s->blocks->n_blocks;
    s->epoch_key = epoch_key;
    s->workers = workers;
    s->loaded = s->consumed = 0;
    s->finished[0] = s->finished[1] = 0;
    s->aborted = 0;
    s->error = WV_OK;
    s->stop = stop;
    for (int k = 0; k < B; k++) s->order[k] = k;
    wv_rng rng;
    wv_rng_seed(&rng, s->blocks->seed, epoch_key, UINT64_MAX); /* block ids are below UINT64_MAX */
    for (int k = B - 1; k > 0; k--) {
        int j = (int)(wv_rng_next(&rng) % (uint64_t)(k + 1));
        int t = s->order[k];
        s->order[k] = s->order[j];
        s->order[j] = t;
    }
}

static int halted(wv_glove_stream *s) {
    return s->aborted || s->error || (s->stop && atomic_load_explicit(s->stop, memory_order_relaxed));
}

/* Waits on the condition at most WAIT_SECONDS (the lock held). */
static void wait_a_while(wv_glove_stream *s) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += (long)(WAIT_SECONDS * 1e9);
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec += 1;
        until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&s->changed, &s->lock, &until);
}

void wv_glove_stream_read(wv_glove_stream *s) {
    const int B = s->blocks->n_blocks;
    for (int k = 0; k < B; k++) {
        pthread_mutex_lock(&s->lock);
        while (k - s->consumed >= 2 && !halted(s)) wait_a_while(s); /* its buffer is still training */
        int stop = halted(s);
        pthread_mutex_unlock(&s->lock);
        if (stop) break;
        wv_glove_record *buf = s->buf[k % 2];
        int block = s->order[k];
        const int64_t n = atomic_load(&s->blocks->counts[block]);
        wv_status rc = wv_glove_blocks_read(s->blocks, block, buf);
        wv_rng rng; /* a stream of its own per (seed, epoch, block) */
        wv_rng_seed(&rng, s->blocks->seed, s->epoch_key, (uint64_t)block);
        if (rc == WV_OK && s->bands) {
            rc = wv_glove_grid_sort(buf, n, s->bands, s->rounds, s->band_of, s->cells[k % 2], &rng);
            uint64_t key = s->epoch_key * WV_GLOVE_MAX_BLOCKS + (uint64_t)block;
            if (rc == WV_OK) wv_glove_scheduler_begin(&s->scheduler[k % 2], s->blocks->seed, key, s->stop);
        } else if (rc == WV_OK) {
            wv_glove_shuffle(buf, n, &rng);
        }
        pthread_mutex_lock(&s->lock);
        if (rc) s->error = rc;
        else {
            s->len[k % 2] = n;
            s->loaded = k + 1;
        }
        pthread_cond_broadcast(&s->changed);
        pthread_mutex_unlock(&s->lock);
        if (rc) break;
    }
}

const wv_glove_record *wv_glove_stream_get(wv_glove_stream *s, int k, int64_t *n) {
    *n = 0;
    if (k >= s->blocks->n_blocks) return NULL;
    pthread_mutex_lock(&s->lock);
    while (s->loaded <= k && !halted(s)) wait_a_while(s);
    const wv_glove_record *out = NULL;
    if (!halted(s)) {
        out = s->buf[k % 2];
        *n = s->len[k % 2];
    }
    pthread_mutex_unlock(&s->lock);
    return out;
}

void wv_glove_stream_done(wv_glove_stream *s, int k) {
    pthread_mutex_lock(&s->lock);
    s->finished[k % 2]++;
    /* Blocks finish in order of their slots being freed: a fast thread may
     * finish block k + 1 before a slow one finishes k. */
    while (s->consumed < s->loaded && s->finished[s->consumed % 2] == s->workers) {
        s->finished[s->consumed % 2] = 0;
        s->consumed++;
    }
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

void wv_glove_stream_abort(wv_glove_stream *s) {
    pthread_mutex_lock(&s->lock);
    s->aborted = 1;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}
