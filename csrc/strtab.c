#include "strtab.h"

#include <stdlib.h>
#include <string.h>

uint64_t wv_hash_bytes(const char *s, int len) {
    /* FNV-1a, then a final avalanche so linear probing sees mixed low bits. */
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static wv_status alloc_slots(wv_strtab *t, size_t n_slots) {
    int64_t *slots = malloc(n_slots * sizeof *slots);
    if (!slots) return WV_ERR_NOMEM;
    memset(slots, 0xff, n_slots * sizeof *slots); /* all -1 */
    size_t mask = n_slots - 1;
    for (int64_t i = 0; i < t->n; i++) {
        size_t s = (size_t)t->hash[i] & mask;
        while (slots[s] >= 0) s = (s + 1) & mask;
        slots[s] = i;
    }
    free(t->slots);
    t->slots = slots;
    t->n_slots = n_slots;
    return WV_OK;
}

wv_status wv_strtab_init(wv_strtab *t, int64_t expected) {
    memset(t, 0, sizeof *t);
    if (expected < 1024) expected = 1024;
    t->cap = expected;
    t->arena_cap = (size_t)expected * 8;
    t->arena = malloc(t->arena_cap);
    t->offset = malloc((size_t)t->cap * sizeof *t->offset);
    t->length = malloc((size_t)t->cap * sizeof *t->length);
    t->hash = malloc((size_t)t->cap * sizeof *t->hash);
    size_t n_slots = 1;
    while (n_slots < (size_t)expected * 2) n_slots <<= 1;
    if (!t->arena || !t->offset || !t->length || !t->hash || alloc_slots(t, n_slots)) {
        wv_strtab_free(t);
        return WV_ERR_NOMEM;
    }
    return WV_OK;
}

void wv_strtab_free(wv_strtab *t) {
    free(t->arena); free(t->offset); free(t->length); free(t->hash); free(t->slots);
    memset(t, 0, sizeof *t);
}

int64_t wv_strtab_find(const wv_strtab *t, const char *s, int len, uint64_t h) {
    size_t mask = t->n_slots - 1;
    for (size_t k = (size_t)h & mask;; k = (k + 1) & mask) {
        int64_t i = t->slots[k];
        if (i < 0) return -1;
        if (t->hash[i] == h && t->length[i] == len &&
            memcmp(t->arena + t->offset[i], s, (size_t)len) == 0)
            return i;
    }
}

static wv_status grow(void **p, size_t elem, int64_t new_cap) {
    void *q = realloc(*p, (size_t)new_cap * elem);
    if (!q) return WV_ERR_NOMEM;
    *p = q;
    return WV_OK;
}

wv_status wv_strtab_intern(wv_strtab *t, const char *s, int len, uint64_t h, int64_t *index, int *inserted) {
    size_t mask = t->n_slots - 1;
    size_t k = (size_t)h & mask;
    for (;; k = (k + 1) & mask) {
        int64_t i = t->slots[k];
        if (i < 0) break;
        if (t->hash[i] == h && t->length[i] == len &&
            memcmp(t->arena + t->offset[i], s, (size_t)len) == 0) {
            *inserted = 0;
            *index = i;
            return WV_OK;
        }
    }
    if (t->n == t->cap) {
        int64_t cap = t->cap * 2;
        if (grow((void **)&t->offset, sizeof *t->offset, cap) ||
            grow((void **)&t->length, sizeof *t->length, cap) ||
            grow((void **)&t->hash, sizeof *t->hash, cap))
            return WV_ERR_NOMEM;
        t->cap = cap;
    }
    if (t->arena_len + (size_t)len > t->arena_cap) {
        size_t cap = t->arena_cap * 2;
        while (cap < t->arena_len + (size_t)len) cap *= 2;
        char *a = realloc(t->arena, cap);
        if (!a) return WV_ERR_NOMEM;
        t->arena = a;
        t->arena_cap = cap;
    }
    int64_t i = t->n;
    memcpy(t->arena + t->arena_len, s, (size_t)len);
    t->offset[i] = t->arena_len;
    t->length[i] = len;
    t->hash[i] = h;
    t->arena_len += (size_t)len;
    t->n++;
    t->slots[k] = i;
    *inserted = 1;
    *index = i;
    /* on failure the table stays valid (load factor just above 1/2) */
    if ((size_t)t->n * 2 > t->n_slots) return alloc_slots(t, t->n_slots * 2);
    return WV_OK;
}

wv_status wv_strtab_compact(wv_strtab *t, const uint8_t *keep) {
    char *arena = malloc(t->arena_cap);
    if (!arena) return WV_ERR_NOMEM;
    size_t len = 0;
    int64_t j = 0;
    for (int64_t i = 0; i < t->n; i++) {
        if (!keep[i]) continue;
        memcpy(arena + len, t->arena + t->offset[i], (size_t)t->length[i]);
        t->offset[j] = len;
        t->length[j] = t->length[i];
        t->hash[j] = t->hash[i];
        len += (size_t)t->length[i];
        j++;
    }
    free(t->arena);
    t->arena = arena;
    t->arena_len = len;
    t->n = j;
    /* same slot count is enough: we only shrank */
    return alloc_slots(t, t->n_slots);
}
