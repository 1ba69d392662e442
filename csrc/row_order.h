/* A permutation of a matrix's rows, applied in place one cycle at a time
 * with one row of scratch, and undone the same way. Training keeps
 * fastText's n-gram rows in the order it reads them (each vocabulary word's
 * rows side by side) and puts them back before anything else reads them
 * (wv_engine/subword_order.py). No allocation: the caller gives the
 * scratch. */
#ifndef WV_ROW_ORDER_H
#define WV_ROW_ORDER_H

#include <stdint.h>

/* The cycles of the permutation new[t] = old[src[t]] of n rows, written
 * into cycles (room for cap entries, as many as rows move): each cycle's
 * positions in turn, its first stored as -1 - position; rows that stay
 * are left out. seen is n bytes of scratch. Returns the entries written,
 * or -1 when src is not a permutation of 0..n-1 or moves more than cap
 * rows. */
int64_t wv_row_cycles(const int32_t *src, int64_t n, int32_t *cycles, int64_t cap, unsigned char *seen);

/* Moves the rows of matrix (dim floats each) by the cycles (len entries,
 * from wv_row_cycles): forward gives new[t] = old[src[t]], otherwise the
 * move is undone. scratch holds one row. */
void wv_move_rows(float *matrix, int64_t dim, const int32_t *cycles, int64_t len, int forward, float *scratch);

#endif
