/* Word counting (with word2vec.c-style pruning when the table grows past
 * max_size) and encoding text into token ids with a fixed vocabulary. */
#ifndef WV_VOCAB_H
#define WV_VOCAB_H

#include <stdint.h>

#include "status.h"
#include "strtab.h"
#include "tokenize.h"

#define WV_EOS (-1) /* sentence boundary in an encoded id stream */

typedef struct {
    wv_strtab words;
    int64_t *counts;
    int64_t counts_cap;
    int64_t max_size;      /* prune when more distinct words than this (0 = never) */
    int64_t min_reduce;    /* next pruning drops counts <= min_reduce */
    int64_t prunes;
    wv_status error;       /* WV_ERR_NOMEM once memory ran out */
    wv_tokenizer tok;
} wv_counter;

wv_status wv_counter_init(wv_counter *c, int64_t max_size);
void wv_counter_free(wv_counter *c);
/* WV_ERR_NOMEM: memory ran out (the counter must then be freed). */
wv_status wv_counter_feed(wv_counter *c, const char *buf, size_t n, int final);
/* Adds from's counts (and token totals) into `into`, for counting parts of
 * one corpus on several threads. Exact only without pruning, so refused
 * (WV_ERR_INVALID) when either counter has a max_size; WV_ERR_NOMEM if
 * memory ran out, now or while either counter was fed. */
wv_status wv_counter_merge(wv_counter *into, const wv_counter *from);
/* Indices of entries with count >= min_count, sorted by count descending and
 * then by bytes ascending (a deterministic order): *out (malloc'ed) receives
 * *n of them. */
wv_status wv_counter_sorted(const wv_counter *c, int64_t min_count, int64_t **out, int64_t *n);

typedef struct {
    wv_strtab words;       /* id = insertion index */
    int32_t *out;          /* caller's buffer for this feed */
    int64_t out_len, out_cap;
    int64_t oov;           /* tokens not in the vocabulary */
    int last_was_eos;      /* suppress repeated / leading boundaries */
    wv_status error;       /* WV_ERR_OVERFLOW: out_cap was too small */
    wv_tokenizer tok;
} wv_encoder;

wv_status wv_encoder_init(wv_encoder *e, int64_t n_words);
/* Adds the next vocabulary word (ids are given in call order).
 * WV_ERR_DUPLICATE: the word was added before. */
wv_status wv_encoder_add(wv_encoder *e, const char *word, int len);
void wv_encoder_free(wv_encoder *e);
/* Encodes buf into out[0..cap); cap >= n + 2 always suffices. *written
 * receives the number of ids written (WV_EOS at newlines); WV_ERR_OVERFLOW
 * if cap was too small. */
wv_status wv_encoder_feed(wv_encoder *e, const char *buf, size_t n, int final,
                          int32_t *out, int64_t cap, int64_t *written);

#endif
