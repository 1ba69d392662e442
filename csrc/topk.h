/* The k best rows of many score lists at once, fed a block of rows at a
 * time (a block of a matrix product, so that no query's whole score list
 * is ever held): a bounded heap per query, ties going to the lower row,
 * as a stable sort by descending score would order them. */
#ifndef WV_TOPK_H
#define WV_TOPK_H

#include <stdint.h>

typedef struct {
    int64_t nq, k;
    float *score;      /* nq x k */
    int64_t *row;      /* nq x k */
    int64_t *filled;   /* nq */
} wv_topk;

/* scores: nq rows of ncols (leading dimension ld), the columns standing
 * for rows row0.. of the matrix; each is multiplied by scale[j] (one over
 * the row's norm; 0 for a zero row) before it is compared. Queries are
 * shared among threads. */
void wv_topk_push(wv_topk *t, const float *scores, int64_t ncols, int64_t ld, int64_t row0, const float *scale,
                  int threads);

/* Each query's kept rows, best first. */
void wv_topk_finish(wv_topk *t);

#endif
