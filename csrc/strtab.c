#include "strtab.h"

#include <stdlib.h>

#include "memory.h"

static inline uint64_t load64(const char *p) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

uint64_t wv_hash_bytes(const char *s, int len) {
    /* Eight bytes per multiply, then murmur3's finaliser so that both the
     * low bits (slots) and the high bits (partitions) are well mixed. */
    const uint64_t k = 0x9e3779b97f4a7c15ULL;
    uint64_t h = k ^ ((uint64_t)len * 0xc2b2ae3d27d4eb4fULL);
    int i = 0;
    for (; i + 8 <= len; i += 8) {
        h = (h ^ load64(s + i)) * k;
        h ^= h >> 29;
    }
    if (i < len) {
        uint64_t tail = 0;
        const unsigned char *p = (const unsigned char *)s + i;
        for (int j = 0; j < len - i; j++) tail |= (uint64_t)p[j] << (8 * j);
        h = (h ^ tail) * k;
        h ^= h >> 29;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static wv_status alloc_slots(wv_strtab *t, size_t n_slots) {
    /* Written all over at once (empty is all ones, so the compiler cannot
     * turn this into calloc): calloc's fresh pages are the shared zero page
     * until written, and the first write after a probe has read one is a
     * copy-on-write fault that flushes the TLB of every thread of the
     * process (a fifth of the time counting on 2 threads here). */
    wv_slot *slots = malloc(n_slots * sizeof *slots);
    if (!slots) return WV_ERR_NOMEM;
    wv_advise_huge(slots, n_slots * sizeof *slots);
    memset(slots, 0xff, n_slots * sizeof *slots);
    size_t mask = n_slots - 1;
    for (size_t k = 0; k < t->n_slots; k++) {
        wv_slot s = t->slots[k];
        if (s.ref == WV_SLOT_EMPTY) continue;
        size_t j = (size_t)s.hash & mask;
        while (slots[j].ref != WV_SLOT_EMPTY) j = (j + 1) & mask;
        slots[j] = s;
    }
    free(t->slots);
    t->slots = slots;
    t->n_slots = n_slots;
    return WV_OK;
}

wv_status wv_strtab_init(wv_strtab *t, int64_t expected) {
    memset(t, 0, sizeof *t);
    if (expected < 1024) expected = 1024;
    t->arena_cap = (size_t)expected * 32;
    t->arena_len = WV_STRTAB_FIRST;
    t->arena = malloc(t->arena_cap);
    size_t n_slots = 1;
    while (n_slots < (size_t)expected * 2) n_slots <<= 1;
    if (!t->arena || alloc_slots(t, n_slots)) {
        wv_strtab_free(t);
        return WV_ERR_NOMEM;
    }
    return WV_OK;
}

void wv_strtab_free(wv_strtab *t) {
    free(t->arena);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

wv_status wv_strtab_copy(wv_strtab *dst, const wv_strtab *src) {
    memset(dst, 0, sizeof *dst);
    dst->arena = malloc(src->arena_cap);
    dst->slots = malloc(src->n_slots * sizeof *src->slots);
    if (!dst->arena || !dst->slots) {
        wv_strtab_free(dst);
        return WV_ERR_NOMEM;
    }
    memcpy(dst->arena, src->arena, src->arena_len);
    memcpy(dst->slots, src->slots, src->n_slots * sizeof *src->slots);
    dst->arena_len = src->arena_len;
    dst->arena_cap = src->arena_cap;
    dst->n_slots = src->n_slots;
    dst->n = src->n;
    return WV_OK;
}

static inline uint64_t make_ref(size_t r, int len) { return (uint64_t)r << 16 | (uint64_t)len; }
static inline size_t ref_record(uint64_t ref) { return (size_t)(ref >> 16); }

/* The slot holding the string, or the empty slot where it would go. */
static inline size_t probe(const wv_strtab *t, const char *s, int len, uint64_t h) {
    size_t mask = t->n_slots - 1;
    for (size_t k = (size_t)h & mask;; k = (k + 1) & mask) {
        wv_slot slot = t->slots[k];
        if (slot.ref == WV_SLOT_EMPTY) return k;
        if (slot.hash == h && (int)(slot.ref & 0xffff) == len &&
            memcmp(wv_strtab_bytes(t, ref_record(slot.ref)), s, (size_t)len) == 0)
            return k;
    }
}

int64_t *wv_strtab_find(const wv_strtab *t, const char *s, int len, uint64_t h) {
    uint64_t ref = t->slots[probe(t, s, len, h)].ref;
    return ref != WV_SLOT_EMPTY ? wv_strtab_value(t, ref_record(ref)) : NULL;
}

wv_status wv_strtab_intern(wv_strtab *t, const char *s, int len, uint64_t h, int64_t **value, int *inserted) {
    if (len < 0 || len > WV_STRTAB_MAX_LEN) return WV_ERR_INVALID;
    size_t k = probe(t, s, len, h);
    if (t->slots[k].ref != WV_SLOT_EMPTY) {
        *inserted = 0;
        *value = wv_strtab_value(t, ref_record(t->slots[k].ref));
        return WV_OK;
    }
    size_t need = wv_strtab_record_size(len);
    if (t->arena_len + need > t->arena_cap) {
        size_t cap = t->arena_cap * 2;
        while (cap < t->arena_len + need) cap *= 2;
        char *a = realloc(t->arena, cap);
        if (!a) return WV_ERR_NOMEM;
        t->arena = a;
        t->arena_cap = cap;
        wv_advise_huge(a, cap);
    }
    size_t r = t->arena_len;
    int64_t zero = 0;
    int32_t len32 = len;
    memcpy(t->arena + r, &zero, sizeof zero);
    memcpy(t->arena + r + 8, &zero, sizeof zero);
    memcpy(t->arena + r + 16, &len32, sizeof len32);
    memcpy(t->arena + r + 20, s, (size_t)len);
    t->arena_len += need;
    t->slots[k] = (wv_slot){h, make_ref(r, len)};
    t->n++;
    *inserted = 1;
    *value = wv_strtab_value(t, r);
    /* on failure the table stays valid (load factor just above 1/2) */
    if ((size_t)t->n * 2 > t->n_slots) return alloc_slots(t, t->n_slots * 2);
    return WV_OK;
}

void wv_strtab_keep_at_least(wv_strtab *t, int64_t min_value) {
    /* Records only move down (in order), then the slots are rebuilt from the
     * kept records' bytes: no allocation, so nothing can fail. */
    size_t len = WV_STRTAB_FIRST;
    int64_t n = 0;
    for (size_t r = WV_STRTAB_FIRST; r < t->arena_len;) {
        size_t size = wv_strtab_record_size(wv_strtab_len(t, r));
        if (*wv_strtab_value(t, r) >= min_value) {
            memmove(t->arena + len, t->arena + r, size);
            len += size;
            n++;
        }
        r += size;
    }
    t->arena_len = len;
    t->n = n;
    memset(t->slots, 0xff, t->n_slots * sizeof *t->slots);
    size_t mask = t->n_slots - 1;
    for (size_t r = WV_STRTAB_FIRST; r < t->arena_len; r = wv_strtab_next(t, r)) {
        int wl = wv_strtab_len(t, r);
        uint64_t h = wv_hash_bytes(wv_strtab_bytes(t, r), wl);
        size_t k = (size_t)h & mask;
        while (t->slots[k].ref != WV_SLOT_EMPTY) k = (k + 1) & mask;
        t->slots[k] = (wv_slot){h, make_ref(r, wl)};
    }
}
