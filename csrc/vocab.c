#include "vocab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The table of a word: its hash's high 32 bits scaled to [0, n_parts)
 * (the slots use the low bits, so a table's words still spread evenly). */
static inline int part_of(uint64_t h, int n_parts) {
    return (int)(((h >> 32) * (uint64_t)n_parts) >> 32);
}

wv_status wv_counter_init(wv_counter *c, int64_t max_size, int n_parts, int64_t origin) {
    memset(c, 0, sizeof *c);
    if (n_parts < 1) return WV_ERR_INVALID;
    c->position = origin;
    c->parts = calloc((size_t)n_parts, sizeof *c->parts);
    c->refs = calloc((size_t)n_parts, 1);
    if (!c->parts || !c->refs) {
        free(c->parts);
        free(c->refs);
        c->parts = NULL;
        c->refs = NULL;
        return WV_ERR_NOMEM;
    }
    c->n_parts = n_parts;
    for (int p = 0; p < n_parts; p++)
        if (wv_strtab_init(&c->parts[p], (1 << 16) / n_parts)) {
            wv_counter_free(c);
            return WV_ERR_NOMEM;
        }
    c->max_size = max_size;
    c->min_reduce = 1;
    while ((1 << c->id_part_bits) < n_parts) c->id_part_bits++;
    wv_tokenizer_init(&c->tok);
    return WV_OK;
}

void wv_counter_free(wv_counter *c) {
    for (int p = 0; p < c->n_parts; p++) wv_strtab_free(&c->parts[p]);
    free(c->parts);
    free(c->refs);
    c->parts = NULL;
    c->refs = NULL;
    c->n_parts = 0;
}

int64_t wv_counter_distinct(const wv_counter *c) {
    int64_t n = 0;
    for (int p = 0; p < c->n_parts; p++) n += c->parts[p].n;
    return n;
}

int64_t wv_counter_max_count(const wv_counter *c) {
    int64_t m = 0;
    for (int p = 0; p < c->n_parts; p++) {
        const wv_strtab *t = &c->parts[p];
        for (size_t r = WV_STRTAB_FIRST; r < t->arena_len; r = wv_strtab_next(t, r))
            if (*wv_strtab_value(t, r) > m) m = *wv_strtab_value(t, r);
    }
    return m;
}

/* word2vec.c's ReduceVocab: drop words seen <= min_reduce times, then raise
 * the bar so repeated pruning keeps the table bounded. */
static void prune(wv_counter *c) {
    for (int p = 0; p < c->n_parts; p++) wv_strtab_keep_at_least(&c->parts[p], c->min_reduce + 1);
    c->min_reduce++;
    c->prunes++;
}

/* The first two passes over a batch: hashes (prefetching the slots where
 * the searches start, in the table each hash chooses), then candidate
 * records (prefetching them). */
static void locate_batch(wv_token_batch *b, const wv_strtab *tables, int n_tables) {
    for (int i = 0; i < b->n; i++) {
        if (b->len[i] < 0) continue; /* a newline (encoder) */
        uint64_t h = wv_hash_bytes(b->word[i], b->len[i]);
        b->hash[i] = h;
        wv_strtab_prefetch(&tables[part_of(h, n_tables)], h);
    }
    for (int i = 0; i < b->n; i++) {
        if (b->len[i] < 0) continue;
        const wv_strtab *t = &tables[part_of(b->hash[i], n_tables)];
        size_t r = wv_strtab_candidate(t, b->hash[i], b->len[i]);
        b->record[i] = r;
        if (r) wv_prefetch(t->arena + r);
    }
}

/* The value of token i of a located batch if its candidate record holds
 * its bytes, else NULL (then look it up in full). */
static inline int64_t *candidate_value(const wv_token_batch *b, int i, const wv_strtab *t) {
    size_t r = b->record[i];
    if (r && memcmp(wv_strtab_bytes(t, r), b->word[i], (size_t)b->len[i]) == 0) return wv_strtab_value(t, r);
    return NULL;
}

/* Adds n to the count of a word (held or new, first seen at `first`) in c;
 * *record: where. */
static wv_status add_count(wv_counter *c, const char *w, int len, uint64_t h, int64_t n, int64_t first,
                           size_t *record) {
    int64_t *count;
    int inserted;
    wv_strtab *t = &c->parts[part_of(h, c->n_parts)];
    if (wv_strtab_intern(t, w, len, h, &count, &inserted)) return WV_ERR_NOMEM;
    *count += n;
    if (inserted || first < *wv_strtab_first_of(count)) *wv_strtab_first_of(count) = first;
    *record = (size_t)((char *)count - t->arena);
    return WV_OK;
}

/* The next provisional id (counted past the caller's cap, so that the
 * feed can tell the buffer was too small). */
static inline void put_id(wv_counter *c, int32_t id) {
    if (c->ids_len < c->ids_cap) c->ids[c->ids_len] = id;
    c->ids_len++;
    c->last_was_mark = id == WV_EOS;
}

/* The provisional id of the word whose count is at `count` in table p. */
static void write_id(wv_counter *c, int p, const int64_t *count) {
    if (c->ids_unfit) return;
    size_t record = (size_t)((const char *)count - c->parts[p].arena) >> 3;
    if (record > (size_t)(INT32_MAX >> c->id_part_bits)) {
        c->ids_unfit = 1;
        return;
    }
    put_id(c, (int32_t)(record << c->id_part_bits | (size_t)p));
}

static void count_batch(wv_counter *c) {
    wv_token_batch *b = &c->batch;
    locate_batch(b, c->parts, c->n_parts);
    int64_t prunes = c->prunes; /* a pruning moves records: candidates are then stale */
    for (int i = 0; i < b->n && !c->error; i++) {
        if (b->len[i] < 0) { /* a newline (wv_counter_feed_ids only) */
            if (!c->last_was_mark && !c->ids_unfit) put_id(c, WV_EOS);
            continue;
        }
        int p = part_of(b->hash[i], c->n_parts), inserted = 0;
        int64_t position = c->position++;
        int64_t *count = prunes == c->prunes ? candidate_value(b, i, &c->parts[p]) : NULL;
        if (!count && wv_strtab_intern(&c->parts[p], b->word[i], b->len[i], b->hash[i], &count, &inserted)) {
            c->error = WV_ERR_NOMEM;
            break;
        }
        if (inserted) *wv_strtab_first_of(count) = position;
        ++*count;
        if (c->ids) write_id(c, p, count);
        if (inserted && c->max_size > 0 && wv_counter_distinct(c) > c->max_size) prune(c);
    }
    b->n = 0;
}

static void count_token(void *ctx, const char *w, int len) {
    wv_counter *c = ctx;
    wv_token_batch *b = &c->batch;
    b->word[b->n] = w;
    b->len[b->n] = len;
    if (++b->n == WV_TOKEN_BATCH) count_batch(c);
}

static void count_newline(void *ctx) { count_token(ctx, NULL, -1); }

wv_status wv_counter_reserve(wv_counter *c, int64_t expected) {
    for (int p = 0; p < c->n_parts; p++) {
        wv_strtab *t = &c->parts[p];
        if (t->n != 0) continue;
        wv_strtab_free(t);
        if (wv_strtab_init(t, expected / c->n_parts + 1)) return WV_ERR_NOMEM;
    }
    return WV_OK;
}

int wv_counter_push(wv_counter *c, const char *word, int len) {
    count_token(c, word, len);
    return c->batch.n == 0;
}

wv_status wv_counter_flush(wv_counter *c) {
    count_batch(c);
    return c->error;
}

int64_t wv_counter_count_of(const wv_counter *c, const char *word, int len) {
    uint64_t h = wv_hash_bytes(word, len);
    const int64_t *v = wv_strtab_find(&c->parts[part_of(h, c->n_parts)], word, len, h);
    return v ? *v : 0;
}

wv_status wv_counter_feed(wv_counter *c, const char *buf, size_t n, int final) {
    if (c->error) return c->error;
    wv_tokenize(&c->tok, buf, n, final, count_token, NULL, c);
    count_batch(c); /* the tokens' bytes are only good until wv_tokenize returns */
    return c->error;
}

wv_status wv_counter_feed_ids(wv_counter *c, const char *buf, size_t n, int final,
                              int32_t *out, int64_t cap, int64_t *written) {
    *written = 0;
    if (c->error) return c->error;
    if (c->max_size > 0) return WV_ERR_INVALID;
    c->ids = out;
    c->ids_cap = cap;
    c->ids_len = 0;
    wv_tokenize(&c->tok, buf, n, final, count_token, count_newline, c);
    count_batch(c);
    c->ids = NULL;
    if (c->ids_len > cap) return WV_ERR_OVERFLOW;
    *written = c->ids_len;
    return c->error;
}

/* Adds every count of table t into c, a batch of words at a time. refs:
 * NULL, or t's own arena, where each record's count is then replaced by
 * the offset of its word's record in c (in the table its hash chooses). */
static wv_status add_table(wv_counter *c, const wv_strtab *t, char *refs) {
    wv_token_batch b;
    int64_t counts[WV_TOKEN_BATCH], firsts[WV_TOKEN_BATCH];
    size_t from[WV_TOKEN_BATCH];
    size_t r = WV_STRTAB_FIRST;
    while (r < t->arena_len) {
        for (b.n = 0; b.n < WV_TOKEN_BATCH && r < t->arena_len; b.n++, r = wv_strtab_next(t, r)) {
            b.word[b.n] = wv_strtab_bytes(t, r);
            b.len[b.n] = wv_strtab_len(t, r);
            counts[b.n] = *wv_strtab_value(t, r);
            firsts[b.n] = *wv_strtab_first(t, r);
            from[b.n] = r;
        }
        locate_batch(&b, c->parts, c->n_parts);
        for (int i = 0; i < b.n; i++) {
            const wv_strtab *into = &c->parts[part_of(b.hash[i], c->n_parts)];
            int64_t *count = candidate_value(&b, i, into);
            size_t at;
            if (count) {
                *count += counts[i];
                if (firsts[i] < *wv_strtab_first_of(count)) *wv_strtab_first_of(count) = firsts[i];
                at = (size_t)((char *)count - into->arena);
            } else if (add_count(c, b.word[i], b.len[i], b.hash[i], counts[i], firsts[i], &at)) {
                return WV_ERR_NOMEM;
            }
            if (refs) {
                int64_t ref = (int64_t)at;
                memcpy(refs + from[i], &ref, sizeof ref);
            }
        }
    }
    return WV_OK;
}

static void add_totals(wv_counter *into, const wv_counter *from) {
    into->tok.tokens += from->tok.tokens;
    into->tok.newlines += from->tok.newlines;
    into->tok.truncated += from->tok.truncated;
}

wv_status wv_counter_merge(wv_counter *into, const wv_counter *from) {
    if (into->error) return into->error;
    if (from->error) return from->error;
    if (into->max_size > 0 || from->max_size > 0) return WV_ERR_INVALID;
    for (int p = 0; p < from->n_parts; p++) {
        wv_status rc = add_table(into, &from->parts[p], NULL);
        if (rc) return into->error = rc;
    }
    add_totals(into, from);
    return WV_OK;
}

wv_status wv_counter_absorb_part(wv_counter *into, wv_counter *const *from, int k, int p) {
    if (p < 0 || p >= into->n_parts || into->parts[p].n != 0) return WV_ERR_INVALID;
    int big = -1;
    for (int i = 0; i < k; i++) {
        if (from[i]->n_parts != into->n_parts) return WV_ERR_INVALID;
        if (from[i]->error) return from[i]->error;
        if (big < 0 || from[i]->parts[p].n > from[big]->parts[p].n) big = i;
    }
    if (big < 0) return WV_OK;
    wv_strtab empty = into->parts[p];
    into->parts[p] = from[big]->parts[p];
    from[big]->parts[p] = empty;
    /* add_table only touches table p of into: every word it meets hashes there */
    for (int i = 0; i < k; i++)
        if (i != big) {
            wv_status rc = add_table(into, &from[i]->parts[p], from[i]->parts[p].arena);
            if (rc) return rc;
            from[i]->refs[p] = 1;
        }
    return WV_OK;
}

void wv_counter_add_totals(wv_counter *into, const wv_counter *from) {
    add_totals(into, from);
    into->prunes += from->prunes;
    if (from->min_reduce > into->min_reduce) into->min_reduce = from->min_reduce;
}

/* Each word of a located batch's value in the tables (NULL: not held). */
static void batch_values(wv_token_batch *b, const wv_strtab *tables, int n_tables, int64_t **values) {
    locate_batch(b, tables, n_tables);
    for (int i = 0; i < b->n; i++) {
        const wv_strtab *t = &tables[part_of(b->hash[i], n_tables)];
        values[i] = candidate_value(b, i, t);
        if (!values[i] && b->record[i]) values[i] = wv_strtab_find(t, b->word[i], b->len[i], b->hash[i]);
    }
}

wv_status wv_counter_number(wv_counter *merged, const char *joined, size_t len) {
    for (int p = 0; p < merged->n_parts; p++) {
        wv_strtab *t = &merged->parts[p];
        for (size_t r = WV_STRTAB_FIRST; r < t->arena_len; r = wv_strtab_next(t, r)) *wv_strtab_value(t, r) = -1;
    }
    wv_token_batch b;
    int64_t *values[WV_TOKEN_BATCH];
    const char *w = joined, *end = joined + len;
    int64_t id = 0;
    while (len && w <= end) {
        for (b.n = 0; b.n < WV_TOKEN_BATCH && w <= end; b.n++) {
            const char *nl = memchr(w, '\n', (size_t)(end - w));
            if (!nl) nl = end;
            if (nl - w > WV_MAX_TOKEN_BYTES) return WV_ERR_INVALID;
            b.word[b.n] = w;
            b.len[b.n] = (int)(nl - w);
            w = nl + 1;
        }
        batch_values(&b, merged->parts, merged->n_parts, values);
        for (int i = 0; i < b.n; i++) {
            if (!values[i]) return WV_ERR_INVALID;
            *values[i] = id++;
        }
    }
    return WV_OK;
}

/* Gives every record of c's own tables (those absorbed into merged's,
 * whose values are now offsets there) the id its word has in merged.
 * WV_ERR_INVALID: a table that merged did not absorb, or a bad offset. */
static wv_status number_like(wv_counter *c, const wv_counter *merged) {
    for (int p = 0; p < c->n_parts; p++) {
        wv_strtab *t = &c->parts[p];
        const wv_strtab *into = &merged->parts[p];
        if (t->n == 0) continue;
        if (!c->refs[p]) return WV_ERR_INVALID;
        for (size_t r = WV_STRTAB_FIRST; r < t->arena_len; r = wv_strtab_next(t, r)) {
            int64_t *v = wv_strtab_value(t, r);
            if (*v < (int64_t)WV_STRTAB_FIRST || (uint64_t)*v + 8 > into->arena_len) return WV_ERR_INVALID;
            *v = *wv_strtab_value(into, (size_t)*v);
        }
        c->refs[p] = 0; /* ids now, not offsets */
    }
    return WV_OK;
}

wv_status wv_counter_resolve_ids(wv_counter *c, const wv_counter *merged, int32_t *ids, int64_t n,
                                 int mid_sentence, int64_t *n_out, int64_t *oov, int64_t *eos) {
    *n_out = *oov = *eos = 0;
    if (c->n_parts != merged->n_parts || c->id_part_bits != merged->id_part_bits) return WV_ERR_INVALID;
    if (c != merged) {
        wv_status rc = number_like(c, merged);
        if (rc) return rc;
    }
    /* A table c no longer holds was taken over by merged (an empty one
     * names no record, so looking there instead is always right). */
    const wv_strtab *const mine = c->parts, *const theirs = merged->parts;
    const int bits = c->id_part_bits, n_parts = c->n_parts;
    const uint32_t mask = (1u << bits) - 1;
    int64_t k = 0, dropped = 0, ends = 0;
    int ended = !mid_sentence;
    enum { AHEAD = 16 };
    for (int64_t i = 0; i < n; i++) {
        if (i + AHEAD < n && ids[i + AHEAD] >= 0) { /* its record, into cache by the time it is read */
            uint32_t a = (uint32_t)ids[i + AHEAD];
            int q = (int)(a & mask);
            if (q < n_parts) {
                const wv_strtab *u = mine[q].n ? &mine[q] : &theirs[q];
                size_t r = (size_t)(a >> bits) << 3;
                if (r < u->arena_len) wv_prefetch(u->arena + r);
            }
        }
        int32_t v = ids[i];
        if (v == WV_EOS) {
            if (!ended) {
                ids[k++] = WV_EOS;
                ends++;
                ended = 1;
            }
            continue;
        }
        int p = (int)((uint32_t)v & mask);
        if (v < 0 || p >= n_parts) return WV_ERR_INVALID;
        const wv_strtab *t = mine[p].n ? &mine[p] : &theirs[p];
        size_t r = (size_t)((uint32_t)v >> bits) << 3;
        if (r < WV_STRTAB_FIRST || r + 8 > t->arena_len) return WV_ERR_INVALID;
        int64_t id = *wv_strtab_value(t, r);
        if (id < 0) {
            dropped++;
            continue;
        }
        ids[k++] = (int32_t)id;
        ended = 0;
    }
    *n_out = k;
    *oov = dropped;
    *eos = ends;
    return WV_OK;
}

/* Sorting the kept words: count descending, then first seen, then bytes
 * ascending, decided by the first eight bytes (big-endian, zero-padded)
 * where they differ, so that most comparisons read no word at all. */
typedef struct {
    int64_t count, first;
    uint64_t prefix;
    const char *word;
    int32_t len;
} sort_key;

static uint64_t prefix_of(const char *w, int len) {
    uint64_t x = 0;
    for (int i = 0; i < 8; i++) x = x << 8 | (i < len ? (unsigned char)w[i] : 0);
    return x;
}

static inline int before(const sort_key *a, const sort_key *b) {
    if (a->count != b->count) return a->count > b->count;
    if (a->first != b->first) return a->first < b->first;
    if (a->prefix != b->prefix) return a->prefix < b->prefix;
    int m = a->len < b->len ? a->len : b->len;
    int r = m > 8 ? memcmp(a->word + 8, b->word + 8, (size_t)(m - 8)) : 0;
    return r ? r < 0 : a->len < b->len;
}

/* Merge sort of a[0..n) (tmp: room for n / 2 + 1 keys). */
static void sort_keys(sort_key *a, sort_key *tmp, size_t n) {
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            sort_key x = a[i];
            size_t j = i;
            for (; j > 0 && before(&x, &a[j - 1]); j--) a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    size_t h = n / 2;
    sort_keys(a, tmp, h);
    sort_keys(a + h, tmp, n - h);
    if (!before(&a[h], &a[h - 1])) return; /* already in order */
    memcpy(tmp, a, h * sizeof *tmp);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) a[k++] = before(&a[j], &tmp[i]) ? a[j++] : tmp[i++];
    while (i < h) a[k++] = tmp[i++];
}

wv_status wv_counter_sorted(const wv_counter *c, int64_t min_count, wv_word_count **out, int64_t *n_out) {
    size_t n = 0;
    for (int p = 0; p < c->n_parts; p++) {
        const wv_strtab *t = &c->parts[p];
        for (size_t r = WV_STRTAB_FIRST; r < t->arena_len; r = wv_strtab_next(t, r))
            n += *wv_strtab_value(t, r) >= min_count;
    }
    sort_key *keys = malloc((n ? n : 1) * sizeof *keys);
    sort_key *tmp = malloc((n / 2 + 1) * sizeof *tmp);
    wv_word_count *words = malloc((n ? n : 1) * sizeof *words);
    if (!keys || !tmp || !words) {
        free(keys); free(tmp); free(words);
        return WV_ERR_NOMEM;
    }
    size_t j = 0;
    for (int p = 0; p < c->n_parts; p++) {
        const wv_strtab *t = &c->parts[p];
        for (size_t r = WV_STRTAB_FIRST; r < t->arena_len; r = wv_strtab_next(t, r)) {
            int64_t count = *wv_strtab_value(t, r);
            if (count < min_count) continue;
            const char *w = wv_strtab_bytes(t, r);
            int len = wv_strtab_len(t, r);
            keys[j++] = (sort_key){count, *wv_strtab_first(t, r), prefix_of(w, len), w, len};
        }
    }
    sort_keys(keys, tmp, n);
    for (size_t i = 0; i < n; i++)
        words[i] = (wv_word_count){keys[i].word, keys[i].count, keys[i].first, keys[i].len};
    free(keys);
    free(tmp);
    *out = words;
    *n_out = (int64_t)n;
    return WV_OK;
}

/* The state of a text not yet begun (no sentence open). */
static void begin_text(wv_encoder *e) {
    e->last_was_eos = 1;
    wv_tokenizer_init(&e->tok);
}

wv_status wv_encoder_init(wv_encoder *e, int64_t n_words) {
    memset(e, 0, sizeof *e);
    if (wv_strtab_init(&e->words, n_words)) return WV_ERR_NOMEM;
    begin_text(e);
    return WV_OK;
}

void wv_encoder_free(wv_encoder *e) { wv_strtab_free(&e->words); }

wv_status wv_encoder_copy(wv_encoder *dst, const wv_encoder *src) {
    memset(dst, 0, sizeof *dst);
    if (wv_strtab_copy(&dst->words, &src->words)) return WV_ERR_NOMEM;
    dst->n_words = src->n_words;
    begin_text(dst);
    return WV_OK;
}

wv_status wv_encoder_add(wv_encoder *e, const char *word, int len) {
    /* longer than any token: it can never be met, so it only takes its id */
    if (len > WV_MAX_TOKEN_BYTES) {
        e->n_words++;
        return WV_OK;
    }
    int inserted;
    int64_t *id;
    wv_status rc = wv_strtab_intern(&e->words, word, len, wv_hash_bytes(word, len), &id, &inserted);
    if (rc) return rc;
    if (!inserted) return WV_ERR_DUPLICATE;
    *id = e->n_words++;
    return WV_OK;
}

static void encode_batch(wv_encoder *e) {
    wv_token_batch *b = &e->batch;
    locate_batch(b, &e->words, 1);
    for (int i = 0; i < b->n; i++) {
        int32_t id;
        if (b->len[i] < 0) { /* a newline: a sentence end after a word */
            if (e->last_was_eos) continue;
            id = WV_EOS;
        } else {
            /* no candidate: not in the vocabulary (it does not change here) */
            const int64_t *v = !b->record[i] ? NULL : candidate_value(b, i, &e->words);
            if (b->record[i] && !v) v = wv_strtab_find(&e->words, b->word[i], b->len[i], b->hash[i]);
            if (!v) { e->oov++; continue; }
            id = (int32_t)*v;
        }
        if (e->out_len >= e->out_cap) { e->error = WV_ERR_OVERFLOW; continue; }
        e->out[e->out_len++] = id;
        e->last_was_eos = id == WV_EOS;
    }
    b->n = 0;
}

/* Words and newlines go into the batch in order; len -1 marks a newline. */
static void batch_add(wv_encoder *e, const char *w, int len) {
    wv_token_batch *b = &e->batch;
    b->word[b->n] = w;
    b->len[b->n] = len;
    if (++b->n == WV_TOKEN_BATCH) encode_batch(e);
}

static void encode_token(void *ctx, const char *w, int len) { batch_add(ctx, w, len); }
static void encode_newline(void *ctx) { batch_add(ctx, NULL, -1); }

wv_status wv_encoder_feed(wv_encoder *e, const char *buf, size_t n, int final,
                          int32_t *out, int64_t cap, int64_t *written) {
    e->out = out;
    e->out_cap = cap;
    e->out_len = 0;
    e->error = WV_OK;
    wv_tokenize(&e->tok, buf, n, final, encode_token, encode_newline, e);
    encode_batch(e); /* the tokens' bytes are only good until wv_tokenize returns */
    e->out = NULL;
    *written = e->out_len;
    return e->error;
}
