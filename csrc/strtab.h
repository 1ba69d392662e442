/* A byte-string -> int64 value hash table (open addressing, linear probing)
 * laid out for cache misses, not for convenience:
 *
 * - a slot holds the word's full 64-bit hash and its length beside a
 *   reference to its record, so a probe decides an empty slot or a
 *   mismatch without touching anything else;
 * - each word is one record in a single growing arena: its value (a count,
 *   an id) and a second int64 (a counter's: where the word was first seen),
 *   then its bytes, so a hit reads one slot and one record (one or two cache
 *   lines in all), and records are in insertion order for a sequential walk
 *   (wv_strtab_next).
 *
 * Values live in the arena: a pointer to one is good until the next insert. */
#ifndef WV_STRTAB_H
#define WV_STRTAB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "status.h"

typedef struct {
    uint64_t hash;
    uint64_t ref;        /* record offset << 16 | byte length, or WV_SLOT_EMPTY */
} wv_slot;

#define WV_SLOT_EMPTY UINT64_MAX

typedef struct {
    char *arena;         /* records (8-byte aligned): int64 value, int64 first, int32 length, bytes */
    size_t arena_len, arena_cap;
    wv_slot *slots;
    size_t n_slots;      /* power of two, kept >= 2 * n */
    int64_t n;           /* words held */
} wv_strtab;

#define WV_STRTAB_MAX_LEN 0xffff     /* the length is kept in a slot's low 16 bits */
#define WV_STRTAB_FIRST ((size_t)8)   /* offset of the first record (0: no record) */

wv_status wv_strtab_init(wv_strtab *t, int64_t expected);
void wv_strtab_free(wv_strtab *t);
/* dst (uninitialised) becomes a copy of src. WV_ERR_NOMEM: dst is left empty. */
wv_status wv_strtab_copy(wv_strtab *dst, const wv_strtab *src);
uint64_t wv_hash_bytes(const char *s, int len);
/* The value of the string, or NULL. */
int64_t *wv_strtab_find(const wv_strtab *t, const char *s, int len, uint64_t h);
/* *value receives the string's value, a new 0 if it was not held
 * (*inserted: 1; its first is then 0 too). WV_ERR_NOMEM: out of memory; WV_ERR_INVALID: len is
 * negative or above WV_STRTAB_MAX_LEN; the table stays valid. */
wv_status wv_strtab_intern(wv_strtab *t, const char *s, int len, uint64_t h, int64_t **value, int *inserted);
/* Keeps only the words whose value is >= min_value, in their order (the
 * memory held stays allocated for the words to come). */
void wv_strtab_keep_at_least(wv_strtab *t, int64_t min_value);

static inline void wv_prefetch(const void *p) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p);
#else
    (void)p;
#endif
}

/* Brings the slot where the search for hash h starts into cache. */
static inline void wv_strtab_prefetch(const wv_strtab *t, uint64_t h) {
    wv_prefetch(&t->slots[(size_t)h & (t->n_slots - 1)]);
}

/* The record of the first slot on h's probe path with hash h and length
 * len (0 if none): the string's record unless two strings of that length
 * share all 64 hash bits (the caller compares the bytes to be sure, and
 * falls back to wv_strtab_find / wv_strtab_intern if they differ). Reads
 * the slots only, so a batch of candidates can be prefetched before any
 * record is read. */
static inline size_t wv_strtab_candidate(const wv_strtab *t, uint64_t h, int len) {
    size_t mask = t->n_slots - 1;
    for (size_t k = (size_t)h & mask;; k = (k + 1) & mask) {
        wv_slot slot = t->slots[k];
        if (slot.ref == WV_SLOT_EMPTY) return 0;
        if (slot.hash == h && (int)(slot.ref & 0xffff) == len) return (size_t)(slot.ref >> 16);
    }
}

/* Records, in insertion order: for (size_t r = WV_STRTAB_FIRST; r < t->arena_len; r = wv_strtab_next(t, r)). */
static inline int64_t *wv_strtab_value(const wv_strtab *t, size_t r) {
    return (int64_t *)(void *)(t->arena + r);
}
/* The record's second int64, beside the value `value` points to. */
static inline int64_t *wv_strtab_first_of(int64_t *value) { return value + 1; }
static inline int64_t *wv_strtab_first(const wv_strtab *t, size_t r) {
    return wv_strtab_first_of(wv_strtab_value(t, r));
}
static inline int wv_strtab_len(const wv_strtab *t, size_t r) {
    int32_t len;
    memcpy(&len, t->arena + r + 16, sizeof len);
    return len;
}
static inline const char *wv_strtab_bytes(const wv_strtab *t, size_t r) { return t->arena + r + 20; }
static inline size_t wv_strtab_record_size(int len) { return ((size_t)len + 20 + 7) & ~(size_t)7; }
static inline size_t wv_strtab_next(const wv_strtab *t, size_t r) {
    return r + wv_strtab_record_size(wv_strtab_len(t, r));
}

#endif
