/* GloVe training on a grid (in the spirit of FPSG / LIBMF): the ids are dealt
 * into B bands holding about equal numbers of records, the records sorted
 * into the B x B cells of (row band, column band), each cell shuffled. In
 * an epoch each thread takes a cell whose row band and column band no other
 * thread holds, trains it, and gives the bands back: two threads never
 * update the same word row or context row at once, so the hot rows of
 * frequent words stay in one core's cache instead of moving between cores
 * on every record. Every cell is trained once an epoch, in an order drawn
 * from (seed, epoch). */
#ifndef WV_GLOVE_GRID_H
#define WV_GLOVE_GRID_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "glove_record.h"
#include "rng.h"
#include "status.h"

#define WV_GLOVE_MAX_BANDS 256

#define WV_GLOVE_MAX_ROUNDS 1024

/* The cells: records [start[c], start[c + 1]) form cell c = (round * B +
 * row_band) * B + col_band. A record's round is drawn at random (a hash of
 * its ids): each round is a random share of the records on its own grid
 * (one round, the default, is one grid). */
typedef struct {
    int bands;
    int rounds;
    const int64_t *start; /* rounds * B * B + 1 offsets into the records */
} wv_glove_grid;

static inline int wv_glove_cells(wv_glove_grid g) { return g.rounds * g.bands * g.bands; }

/* The round of the record (row, col) among `rounds`, drawn from salt. */
static inline int wv_glove_round_of(int32_t row, int32_t col, uint64_t salt, int rounds) {
    uint64_t h = ((uint64_t)(uint32_t)row << 32 | (uint32_t)col) ^ salt;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return (int)((h >> 32) * (uint64_t)rounds >> 32);
}

/* Deals ids 0..n_rows-1 into `bands` bands of about equal records, each
 * with frequent and rare ids alike: `before` (n_rows + 1) holds each id's
 * running count of records (a CSR indptr). */
void wv_glove_assign_bands(const int64_t *before, int32_t n_rows, int bands, int32_t *band_of);

/* Sorts n records in place into the cells of `rounds` rounds of `bands`
 * bands (band_of: each id's band; the rounds drawn with rng), shuffling
 * each cell with rng; start (rounds * bands * bands + 1) receives the
 * cells' offsets. WV_ERR_NOMEM. */
wv_status wv_glove_grid_sort(wv_glove_record *records, int64_t n, int bands, int rounds, const int32_t *band_of,
                             int64_t *start, wv_rng *rng);

/* Records of a CSR matrix (as wv_glove_make_records makes them: the same
 * values) sorted into the cells of `rounds` rounds of `bands` bands and
 * shuffled within each cell with the seed. band_of (n_rows) receives each
 * id's band; start (rounds * bands * bands + 1) the cells' offsets.
 * WV_ERR_INVALID: a value <= 0 or not finite, or bands or rounds out of
 * range; WV_ERR_NOMEM. */
wv_status wv_glove_make_grid_records(const int64_t *indptr, const int32_t *indices, const float *data,
                                     int32_t n_rows, double x_max, double alpha, uint64_t seed, int bands,
                                     int rounds, int32_t *band_of, int64_t *start, wv_glove_record *out);

/* Hands out the cells of one epoch to threads so that no two hold a band
 * of the same side at once. */
typedef struct wv_glove_scheduler wv_glove_scheduler; /* glove.h names it too */
struct wv_glove_scheduler {
    wv_glove_grid grid;
    uint8_t *row_busy, *col_busy; /* B each */
    int *pool;                    /* round k's cells not yet handed out: pool[k * B * B ...], round_left[k] */
    int *round_left;
    int round;                    /* the first round with cells not handed out */
    int cells_left;               /* non-empty cells not yet handed out */
    wv_rng rng;
    _Atomic int *stop;
    pthread_mutex_t lock;
    pthread_cond_t freed;
};

wv_status wv_glove_scheduler_init(wv_glove_scheduler *s, wv_glove_grid grid);
void wv_glove_scheduler_free(wv_glove_scheduler *s);
/* Resets for an epoch: every non-empty cell left, the order drawn from
 * (seed, epoch_key); stop is the trainer's stop flag. */
void wv_glove_scheduler_begin(wv_glove_scheduler *s, uint64_t seed, uint64_t epoch_key, _Atomic int *stop);
/* A free cell of the first round that has one, chosen at random among
 * those whose bands are free (waits while there is none): the rounds are
 * trained one after another, as out of core the blocks are, a thread
 * starting on the next round's cells while the last cells of a round are
 * held. Its index, or -1 when the epoch has none left or the stop flag is up. */
int wv_glove_scheduler_take(wv_glove_scheduler *s);
/* Gives the cell's bands back (also after a stop: it wakes the waiting). */
void wv_glove_scheduler_give(wv_glove_scheduler *s, int cell);

#endif
