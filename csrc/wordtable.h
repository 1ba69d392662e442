/* A vocabulary's word -> row index kept as plain arrays that a file can
 * hold and a mapping can share: the words' bytes end to end (blob), where
 * each starts (offsets, n + 1 of them) and an open-addressing table of
 * row + 1 (0: empty), a power of two slots, probed linearly from the
 * word's wv_hash_bytes. Every read checks what it reads against the
 * arrays' sizes, so a damaged file gives WV_WT_DAMAGED, never a read out
 * of bounds. */
#ifndef WV_WORDTABLE_H
#define WV_WORDTABLE_H

#include <stdint.h>

#define WV_WT_ABSENT (-1)
#define WV_WT_DAMAGED (-2)

typedef struct {
    const uint8_t *blob;
    int64_t blob_len;
    const int64_t *offsets;   /* n_rows + 1 */
    int64_t n_rows;           /* rows the table holds */
    int64_t visible;          /* rows a lookup may answer (a limit: the first `visible`) */
    const uint32_t *slots;
    int64_t n_slots;          /* a power of two */
} wv_wordtable;

/* The slots for n words: a power of two at least 2n (and 8). */
int64_t wv_wt_slots_for(int64_t n);

/* Fills t->slots (given zeroed, n_slots of them) with the rows 0..n_rows;
 * a word already held is left out and flagged in dup[row] (when dup is not
 * NULL). Returns the words left out, or WV_WT_DAMAGED when offsets do not
 * fit the blob. */
int64_t wv_wt_build(const wv_wordtable *t, uint32_t *slots, uint8_t *dup);

/* The row of the word s (len bytes), WV_WT_ABSENT or WV_WT_DAMAGED. */
int64_t wv_wt_find(const wv_wordtable *t, const uint8_t *s, int64_t len);

/* Word row's bytes: 0 and *at, *len set, or WV_WT_DAMAGED. */
int wv_wt_word(const wv_wordtable *t, int64_t row, int64_t *at, int64_t *len);

#endif
