/* Word counting (with word2vec.c-style pruning when the table grows past
 * max_size) and encoding text into token ids with a fixed vocabulary. */
#ifndef WV_VOCAB_H
#define WV_VOCAB_H

#include <stdint.h>

#include "status.h"
#include "strtab.h"
#include "tokenize.h"

#define WV_EOS (-1) /* sentence boundary in an encoded id stream */
#define WV_TOKEN_BATCH 32

/* Tokens collected by the tokenizer's callback and looked up together, in
 * three passes over the batch so that memory latency overlaps: all hashed
 * (their first slots prefetched), then each one's candidate record found
 * in the slots (and prefetched), then counted or encoded in order. */
typedef struct {
    int n;
    const char *word[WV_TOKEN_BATCH];
    int len[WV_TOKEN_BATCH];     /* -1: a newline (encoder) */
    uint64_t hash[WV_TOKEN_BATCH];
    size_t record[WV_TOKEN_BATCH]; /* wv_strtab_candidate */
} wv_token_batch;

/* Counts are the values of n_parts tables: a word goes to the one its
 * hash's high bits choose, so that counters of parts of one corpus merge
 * table by table on as many threads (wv_counter_absorb_part). */
typedef struct {
    wv_strtab *parts;
    int n_parts;
    int64_t position;      /* the next token's position: where a word is first seen is kept beside its count */
    int64_t max_size;      /* prune when more distinct words than this are held (0 = never) */
    int64_t min_reduce;    /* next pruning drops counts <= min_reduce */
    int64_t prunes;
    wv_status error;       /* WV_ERR_NOMEM once memory ran out */
    /* wv_counter_feed_ids: each token's provisional id (see there) */
    int32_t *ids;          /* the caller's buffer for this feed */
    int64_t ids_len, ids_cap;
    int id_part_bits;      /* a provisional id is record / 8 << id_part_bits | part */
    int ids_unfit;         /* a record lay beyond what an id can name: ids are no longer written */
    int last_was_mark;     /* the last id written was a newline mark */
    unsigned char *refs;   /* refs[p]: table p was absorbed into another counter's (see there) */
    wv_tokenizer tok;
    wv_token_batch batch;
} wv_counter;

/* A word, its count and the position where it was first seen, as
 * wv_counter_sorted lists them; word points into the counter (good until
 * it is fed, merged or freed). */
typedef struct {
    const char *word;
    int64_t count;
    int64_t first;
    int32_t len;
} wv_word_count;

/* n_parts >= 1 (WV_ERR_INVALID otherwise). Tokens take positions origin,
 * origin + 1, ... in the order they are fed: counters of consecutive parts
 * of one corpus, given origins that keep the parts in order, merge into the
 * corpus's first-seen order. */
wv_status wv_counter_init(wv_counter *c, int64_t max_size, int n_parts, int64_t origin);
void wv_counter_free(wv_counter *c);
/* WV_ERR_NOMEM: memory ran out (the counter must then be freed). */
wv_status wv_counter_feed(wv_counter *c, const char *buf, size_t n, int final);
/* Counts one word given by the caller rather than the tokenizer (phrases.c
 * counts bigram keys it builds): it joins the batch, counted when the
 * batch fills or at wv_counter_flush. Returns 1 when the batch was counted
 * (the bytes of every word pushed before may then be reused), else 0: the
 * bytes must stay readable until then. */
int wv_counter_push(wv_counter *c, const char *word, int len);
/* Sizes the empty tables of c for `expected` distinct words in all, so
 * that they do not grow (rehashing, touching fresh memory) on the way
 * there. WV_ERR_NOMEM: c must then be freed. */
wv_status wv_counter_reserve(wv_counter *c, int64_t expected);
/* Counts the words pushed and not yet counted; c->error as wv_counter_feed. */
wv_status wv_counter_flush(wv_counter *c);
/* The count of a word (0 when not held). */
int64_t wv_counter_count_of(const wv_counter *c, const char *word, int len);
/* Distinct words held, and the largest count (0 when empty). */
int64_t wv_counter_distinct(const wv_counter *c);
int64_t wv_counter_max_count(const wv_counter *c);
/* Adds from's counts (and token totals) into `into`, for counting parts of
 * one corpus on several threads; a word's first position is the earlier of
 * the two. Exact only without pruning, so refused
 * (WV_ERR_INVALID) when either counter has a max_size; WV_ERR_NOMEM if
 * memory ran out, now or while either counter was fed. */
wv_status wv_counter_merge(wv_counter *into, const wv_counter *from);
/* The parallel merge, one call per part p (calls for different p may run
 * at once): into's table p (empty) becomes the union of table p of the k
 * counters `from`, counts added up (first positions: the earliest). The
 * largest of those tables is taken over rather than copied (it is left
 * empty in its counter). All must have
 * into's n_parts (WV_ERR_INVALID otherwise); counters that pruned are
 * merged too (their counts are then lower bounds: the caller says so).
 * WV_ERR_NOMEM: into must then be freed. The other tables p are consumed:
 * each record's count becomes the offset of its word's record in into's
 * table p (for wv_counter_resolve_ids), and their refs[p] is set. Writes
 * nothing but those tables and into's table p. */
wv_status wv_counter_absorb_part(wv_counter *into, wv_counter *const *from, int k, int p);
/* After the absorbs: adds from's token totals and prunes into `into`, and
 * raises its min_reduce to from's. */
void wv_counter_add_totals(wv_counter *into, const wv_counter *from);
/* The words with count >= min_count, sorted by count descending, then by
 * where they were first seen (word2vec.c's order), then by
 * bytes ascending (only words of counters whose positions overlap can tie
 * there): *out (malloc'ed) receives *n. */
wv_status wv_counter_sorted(const wv_counter *c, int64_t min_count, wv_word_count **out, int64_t *n);

/* Counting and encoding in one pass over a corpus: wv_counter_feed_ids
 * counts as wv_counter_feed does and also writes, for every token, a
 * provisional id naming the word's record in the counter's tables (and
 * WV_EOS for a newline, once after anything else). Once counters are merged
 * and sorted into a vocabulary, wv_counter_number gives the vocabulary's
 * words their ids in the merged counter and wv_counter_resolve_ids turns
 * each counter's provisional ids into exactly what wv_encoder_feed would
 * have written for its text: the second pass over the text (tokenizing and
 * hashing every token again) becomes one pass over the ids.
 *
 * Counters that prune cannot write ids (records move): WV_ERR_INVALID. When
 * a record lies beyond what 31 bits can name (tables of gigabytes),
 * ids_unfit is set and no more ids are written (encode the usual way).
 * cap >= n + 2 always suffices; WV_ERR_OVERFLOW if cap was too small. */
wv_status wv_counter_feed_ids(wv_counter *c, const char *buf, size_t n, int final,
                              int32_t *out, int64_t cap, int64_t *written);
/* After the merge (the counters' tables absorbed into `merged`, or merged
 * the one counter that wrote the ids): the words joined by newlines (len
 * bytes; the vocabulary, most frequent first) take ids 0, 1, ... in merged,
 * every other word -1. WV_ERR_INVALID: a word that merged does not hold. */
wv_status wv_counter_number(wv_counter *merged, const char *joined, size_t len);
/* Rewrites ids[0..n), the provisional ids c wrote, in place into the ids of
 * the numbered vocabulary of merged: out-of-vocabulary tokens dropped, a
 * sentence end after a word (mid_sentence: also before the first word, as
 * the encoder's). c is merged itself, or one of the counters merged into
 * it (then c's tables are rewritten: call once per counter; calls for
 * different counters may run at once). *n_out: ids kept; *oov: tokens
 * dropped; *eos: sentence ends kept. */
wv_status wv_counter_resolve_ids(wv_counter *c, const wv_counter *merged, int32_t *ids, int64_t n,
                                 int mid_sentence, int64_t *n_out, int64_t *oov, int64_t *eos);

typedef struct {
    wv_strtab words;       /* value = id (the order words were added in) */
    int64_t n_words;
    int32_t *out;          /* caller's buffer for this feed */
    int64_t out_len, out_cap;
    int64_t oov;           /* tokens not in the vocabulary */
    int last_was_eos;      /* suppress repeated / leading boundaries */
    wv_status error;       /* WV_ERR_OVERFLOW: out_cap was too small */
    wv_tokenizer tok;
    wv_token_batch batch;
} wv_encoder;

wv_status wv_encoder_init(wv_encoder *e, int64_t n_words);
/* Adds the next vocabulary word (ids are given in call order).
 * WV_ERR_DUPLICATE: the word was added before. A word longer than
 * WV_MAX_TOKEN_BYTES (never a token) only takes its id. */
wv_status wv_encoder_add(wv_encoder *e, const char *word, int len);
void wv_encoder_free(wv_encoder *e);
/* dst (uninitialised) encodes with src's words, from the start of a text
 * (a copy costs a memcpy of the table, where adding the words again
 * hashes each one). WV_ERR_NOMEM: nothing to free. */
wv_status wv_encoder_copy(wv_encoder *dst, const wv_encoder *src);
/* Encodes buf into out[0..cap); cap >= n + 2 always suffices. *written
 * receives the number of ids written (WV_EOS at newlines); WV_ERR_OVERFLOW
 * if cap was too small. */
wv_status wv_encoder_feed(wv_encoder *e, const char *buf, size_t n, int final,
                          int32_t *out, int64_t cap, int64_t *written);

#endif
