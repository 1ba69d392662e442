#include "vocab.h"

#include <stdlib.h>
#include <string.h>

wv_status wv_counter_init(wv_counter *c, int64_t max_size) {
    memset(c, 0, sizeof *c);
    if (wv_strtab_init(&c->words, 1 << 16)) return WV_ERR_NOMEM;
    c->counts_cap = c->words.cap;
    c->counts = malloc((size_t)c->counts_cap * sizeof *c->counts);
    if (!c->counts) { wv_strtab_free(&c->words); return WV_ERR_NOMEM; }
    c->max_size = max_size;
    c->min_reduce = 1;
    wv_tokenizer_init(&c->tok);
    return WV_OK;
}

void wv_counter_free(wv_counter *c) {
    wv_strtab_free(&c->words);
    free(c->counts);
    c->counts = NULL;
}

/* word2vec.c's ReduceVocab: drop words seen <= min_reduce times, then raise
 * the bar so repeated pruning keeps the table bounded. */
static void prune(wv_counter *c) {
    int64_t n = c->words.n;
    uint8_t *keep = malloc((size_t)n);
    if (!keep) { c->error = WV_ERR_NOMEM; return; }
    int64_t j = 0;
    for (int64_t i = 0; i < n; i++) {
        keep[i] = c->counts[i] > c->min_reduce;
        if (keep[i]) c->counts[j++] = c->counts[i];
    }
    if (wv_strtab_compact(&c->words, keep)) c->error = WV_ERR_NOMEM;
    free(keep);
    c->min_reduce++;
    c->prunes++;
}

/* The count of word w, a new zero one if w is new; NULL (and c->error) if
 * memory ran out. */
static int64_t *count_of(wv_counter *c, const char *w, int len) {
    int inserted;
    int64_t i;
    if (wv_strtab_intern(&c->words, w, len, wv_hash_bytes(w, len), &i, &inserted)) {
        c->error = WV_ERR_NOMEM;
        return NULL;
    }
    if (inserted) {
        if (i >= c->counts_cap) {
            int64_t cap = c->words.cap;
            int64_t *p = realloc(c->counts, (size_t)cap * sizeof *p);
            if (!p) { c->error = WV_ERR_NOMEM; return NULL; }
            c->counts = p;
            c->counts_cap = cap;
        }
        c->counts[i] = 0;
    }
    return &c->counts[i];
}

static void count_token(void *ctx, const char *w, int len) {
    wv_counter *c = ctx;
    if (c->error) return;
    int64_t *n = count_of(c, w, len);
    if (!n) return;
    (*n)++;
    if (c->max_size > 0 && c->words.n > c->max_size) prune(c);
}

wv_status wv_counter_merge(wv_counter *into, const wv_counter *from) {
    if (into->error) return into->error;
    if (from->error) return from->error;
    if (into->max_size > 0 || from->max_size > 0) return WV_ERR_INVALID;
    for (int64_t i = 0; i < from->words.n; i++) {
        int64_t *n = count_of(into, wv_strtab_str(&from->words, i), from->words.length[i]);
        if (!n) return into->error;
        *n += from->counts[i];
    }
    into->tok.tokens += from->tok.tokens;
    into->tok.newlines += from->tok.newlines;
    into->tok.truncated += from->tok.truncated;
    return WV_OK;
}

wv_status wv_counter_feed(wv_counter *c, const char *buf, size_t n, int final) {
    if (c->error) return c->error;
    wv_tokenize(&c->tok, buf, n, final, count_token, NULL, c);
    return c->error;
}

/* qsort has no context argument in C11; sort (count, index) pairs and
 * compare bytes through a pointer packed beside them. */
typedef struct {
    int64_t count;
    int64_t index;
    const wv_strtab *tab;
} sort_item;

static int compare_items(const void *pa, const void *pb) {
    const sort_item *a = pa, *b = pb;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    int la = a->tab->length[a->index], lb = b->tab->length[b->index];
    int m = memcmp(wv_strtab_str(a->tab, a->index), wv_strtab_str(b->tab, b->index),
                   (size_t)(la < lb ? la : lb));
    if (m) return m;
    return (la > lb) - (la < lb);
}

wv_status wv_counter_sorted(const wv_counter *c, int64_t min_count, int64_t **out, int64_t *n_out) {
    int64_t n = 0;
    for (int64_t i = 0; i < c->words.n; i++) n += c->counts[i] >= min_count;
    sort_item *items = malloc((size_t)(n ? n : 1) * sizeof *items);
    int64_t *idx = malloc((size_t)(n ? n : 1) * sizeof *idx);
    if (!items || !idx) { free(items); free(idx); return WV_ERR_NOMEM; }
    int64_t j = 0;
    for (int64_t i = 0; i < c->words.n; i++)
        if (c->counts[i] >= min_count)
            items[j++] = (sort_item){c->counts[i], i, &c->words};
    qsort(items, (size_t)n, sizeof *items, compare_items);
    for (int64_t i = 0; i < n; i++) idx[i] = items[i].index;
    free(items);
    *out = idx;
    *n_out = n;
    return WV_OK;
}

wv_status wv_encoder_init(wv_encoder *e, int64_t n_words) {
    memset(e, 0, sizeof *e);
    if (wv_strtab_init(&e->words, n_words)) return WV_ERR_NOMEM;
    e->last_was_eos = 1;
    wv_tokenizer_init(&e->tok);
    return WV_OK;
}

void wv_encoder_free(wv_encoder *e) { wv_strtab_free(&e->words); }

wv_status wv_encoder_add(wv_encoder *e, const char *word, int len) {
    int inserted;
    int64_t i;
    wv_status rc = wv_strtab_intern(&e->words, word, len, wv_hash_bytes(word, len), &i, &inserted);
    if (rc) return rc;
    return inserted ? WV_OK : WV_ERR_DUPLICATE;
}

static void encode_token(void *ctx, const char *w, int len) {
    wv_encoder *e = ctx;
    int64_t i = wv_strtab_find(&e->words, w, len, wv_hash_bytes(w, len));
    if (i < 0) { e->oov++; return; }
    if (e->out_len >= e->out_cap) { e->error = WV_ERR_OVERFLOW; return; }
    e->out[e->out_len++] = (int32_t)i;
    e->last_was_eos = 0;
}

static void encode_newline(void *ctx) {
    wv_encoder *e = ctx;
    if (e->last_was_eos) return;
    if (e->out_len >= e->out_cap) { e->error = WV_ERR_OVERFLOW; return; }
    e->out[e->out_len++] = WV_EOS;
    e->last_was_eos = 1;
}

wv_status wv_encoder_feed(wv_encoder *e, const char *buf, size_t n, int final,
                          int32_t *out, int64_t cap, int64_t *written) {
    e->out = out;
    e->out_cap = cap;
    e->out_len = 0;
    e->error = WV_OK;
    wv_tokenize(&e->tok, buf, n, final, encode_token, encode_newline, e);
    e->out = NULL;
    *written = e->out_len;
    return e->error;
}
