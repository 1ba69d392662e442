/* A byte-string -> index hash table (open addressing, linear probing) with
 * the strings kept in one growing arena. Indices are insertion order. */
#ifndef WV_STRTAB_H
#define WV_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct {
    char *arena;
    size_t arena_len, arena_cap;
    size_t *offset;      /* per entry: start in arena */
    int32_t *length;     /* per entry: byte length */
    uint64_t *hash;      /* per entry: hash of the bytes */
    int64_t n, cap;      /* entries used / allocated */
    int64_t *slots;      /* -1 = empty, else entry index */
    size_t n_slots;      /* power of two, kept > 2 * n */
} wv_strtab;

wv_status wv_strtab_init(wv_strtab *t, int64_t expected);
void wv_strtab_free(wv_strtab *t);
uint64_t wv_hash_bytes(const char *s, int len);
/* Index of the string, or -1. */
int64_t wv_strtab_find(const wv_strtab *t, const char *s, int len, uint64_t h);
/* *index receives the index of the string, inserted if new (*inserted: 1).
 * WV_ERR_NOMEM: out of memory; the table stays valid. */
wv_status wv_strtab_intern(wv_strtab *t, const char *s, int len, uint64_t h, int64_t *index, int *inserted);
/* Keeps only entries with keep[i] != 0, renumbering them in order. On
 * WV_ERR_NOMEM the table must only be freed. */
wv_status wv_strtab_compact(wv_strtab *t, const uint8_t *keep);

static inline const char *wv_strtab_str(const wv_strtab *t, int64_t i) {
    return t->arena + t->offset[i];
}

#endif
