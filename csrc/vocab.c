#include "vocab.h"

#include <stdlib.h>
#include <string.h>

/* The table of a word: its hash's high 32 bits scaled to [0, n_parts)
 * (the slots use the low bits, so a table's words still spread evenly). */
static inline int part_of(uint64_t h, int n_parts) {
    return (int)(((h >> 32) * (uint64_t)n_parts) >> 32);
}

wv_status wv_counter_init(wv_counter *c, int64_t max_size, int n_parts) {
    memset(c, 0, sizeof *c);
    if (n_parts < 1) return WV_ERR_INVALID;
    c->parts = calloc((size_t)n_parts, sizeof *c->parts);
    if (!c->parts) return WV_ERR_NOMEM;
    c->n_parts = n_parts;
    for (int p = 0; p < n_parts; p++)
        if (wv_strtab_init(&c->parts[p], (1 << 16) / n_parts)) {
            wv_counter_free(c);
            return WV_ERR_NOMEM;
        }
    c->max_size = max_size;
    c->min_reduce = 1;
    wv_tokenizer_init(&c->tok);
    return WV_OK;
}

void wv_counter_free(wv_counter *c) {
    for (int p = 0; p < c->n_parts; p++) wv_strtab_free(&c->parts[p]);
    free(c->parts);
    c->parts = NULL;
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

/* Adds n to the count of a word (held or new) in c. */
static wv_status add_count(wv_counter *c, const char *w, int len, uint64_t h, int64_t n, int *inserted) {
    int64_t *count;
    if (wv_strtab_intern(&c->parts[part_of(h, c->n_parts)], w, len, h, &count, inserted))
        return WV_ERR_NOMEM;
    *count += n;
    return WV_OK;
}

static void count_batch(wv_counter *c) {
    wv_token_batch *b = &c->batch;
    locate_batch(b, c->parts, c->n_parts);
    int64_t prunes = c->prunes; /* a pruning moves records: candidates are then stale */
    for (int i = 0; i < b->n && !c->error; i++) {
        int inserted;
        int64_t *count = prunes == c->prunes ? candidate_value(b, i, &c->parts[part_of(b->hash[i], c->n_parts)]) : NULL;
        if (count) {
            ++*count;
            continue;
        }
        if (add_count(c, b->word[i], b->len[i], b->hash[i], 1, &inserted)) {
            c->error = WV_ERR_NOMEM;
            break;
        }
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

wv_status wv_counter_feed(wv_counter *c, const char *buf, size_t n, int final) {
    if (c->error) return c->error;
    wv_tokenize(&c->tok, buf, n, final, count_token, NULL, c);
    count_batch(c); /* the tokens' bytes are only good until wv_tokenize returns */
    return c->error;
}

/* Adds every count of table t into c, a batch of words at a time. */
static wv_status add_table(wv_counter *c, const wv_strtab *t) {
    wv_token_batch b;
    int64_t counts[WV_TOKEN_BATCH];
    size_t r = WV_STRTAB_FIRST;
    while (r < t->arena_len) {
        for (b.n = 0; b.n < WV_TOKEN_BATCH && r < t->arena_len; b.n++, r = wv_strtab_next(t, r)) {
            b.word[b.n] = wv_strtab_bytes(t, r);
            b.len[b.n] = wv_strtab_len(t, r);
            counts[b.n] = *wv_strtab_value(t, r);
        }
        locate_batch(&b, c->parts, c->n_parts);
        for (int i = 0; i < b.n; i++) {
            int inserted;
            int64_t *count = candidate_value(&b, i, &c->parts[part_of(b.hash[i], c->n_parts)]);
            if (count) {
                *count += counts[i];
                continue;
            }
            if (add_count(c, b.word[i], b.len[i], b.hash[i], counts[i], &inserted)) return WV_ERR_NOMEM;
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
        wv_status rc = add_table(into, &from->parts[p]);
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
            wv_status rc = add_table(into, &from[i]->parts[p]);
            if (rc) return rc;
        }
    return WV_OK;
}

void wv_counter_add_totals(wv_counter *into, const wv_counter *from) {
    add_totals(into, from);
    into->prunes += from->prunes;
    if (from->min_reduce > into->min_reduce) into->min_reduce = from->min_reduce;
}

/* Sorting the kept words: count descending, then bytes ascending, decided
 * by the first eight bytes (big-endian, zero-padded) where they differ, so
 * that most comparisons read no word at all. */
typedef struct {
    int64_t count;
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
            keys[j++] = (sort_key){count, prefix_of(w, len), w, len};
        }
    }
    sort_keys(keys, tmp, n);
    for (size_t i = 0; i < n; i++) words[i] = (wv_word_count){keys[i].word, keys[i].count, keys[i].len};
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
