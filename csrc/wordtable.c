#include "wordtable.h"

#include <limits.h>
#include <string.h>

#include "strtab.h"

int64_t wv_wt_slots_for(int64_t n) {
    int64_t s = 8;
    while (s < 2 * n) s *= 2;
    return s;
}

int wv_wt_word(const wv_wordtable *t, int64_t row, int64_t *at, int64_t *len) {
    if (row < 0 || row >= t->n_rows) return WV_WT_DAMAGED;
    int64_t a = t->offsets[row], b = t->offsets[row + 1];
    if (a < 0 || b < a || b > t->blob_len || b - a > INT_MAX) return WV_WT_DAMAGED;
    *at = a;
    *len = b - a;
    return 0;
}

static inline uint64_t hash_of(const uint8_t *s, int64_t len) {
    return wv_hash_bytes((const char *)s, (int)len);
}

/* The slot holding s or the empty one where it would go; -1 when every
 * slot is full of other words (a damaged table), WV_WT_DAMAGED for a slot
 * that names no row. */
static int64_t probe(const wv_wordtable *t, const uint32_t *slots, const uint8_t *s, int64_t len, int64_t *row) {
    uint64_t mask = (uint64_t)t->n_slots - 1;
    uint64_t k = hash_of(s, len) & mask;
    for (int64_t tries = 0; tries < t->n_slots; tries++, k = (k + 1) & mask) {
        uint32_t v = slots[k];
        if (v == 0) {
            *row = WV_WT_ABSENT;
            return (int64_t)k;
        }
        int64_t at, wl;
        if (wv_wt_word(t, (int64_t)v - 1, &at, &wl)) return WV_WT_DAMAGED;
        if (wl == len && (len == 0 || memcmp(t->blob + at, s, (size_t)len) == 0)) { /* an empty word may come as NULL */
            *row = (int64_t)v - 1;
            return (int64_t)k;
        }
    }
    return -1;
}

int64_t wv_wt_build(const wv_wordtable *t, uint32_t *slots, uint8_t *dup) {
    int64_t left_out = 0;
    if (t->n_slots < 2 * t->n_rows || t->n_rows >= (int64_t)UINT32_MAX) return WV_WT_DAMAGED;
    for (int64_t r = 0; r < t->n_rows; r++) {
        int64_t at, wl, found;
        if (wv_wt_word(t, r, &at, &wl)) return WV_WT_DAMAGED;
        int64_t k = probe(t, slots, t->blob + at, wl, &found);
        if (k < 0) return WV_WT_DAMAGED;
        if (found >= 0) {
            left_out++;
            if (dup) dup[r] = 1;
            continue;
        }
        slots[k] = (uint32_t)(r + 1);
    }
    return left_out;
}

int64_t wv_wt_find(const wv_wordtable *t, const uint8_t *s, int64_t len) {
    if (len < 0 || len > INT_MAX || t->n_slots < 1) return WV_WT_ABSENT;
    int64_t row;
    int64_t k = probe(t, t->slots, s, len, &row);
    if (k == WV_WT_DAMAGED) return WV_WT_DAMAGED;
    if (k < 0) return WV_WT_ABSENT;
    return row >= t->visible ? WV_WT_ABSENT : row;
}
