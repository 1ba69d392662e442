/* Phrases (word2phrase.c, gensim's Phrases): counting the words and the
 * candidate bigrams of a text, scoring the candidates, and joining the
 * phrases found in text, one pass ("layer") after another.
 *
 * A candidate is a non-connector word, any connector words after it, and
 * the next non-connector word (gensim 4's connector words; with none, two
 * adjacent words): its key is those words joined by the delimiter, counted
 * in the same table as the words themselves (as both references do, so a
 * word "new_york" and the pair "new york" share a count).
 *
 * The text flows through a pipe: the tokenizer, then the layers already
 * learned (each joins its phrases greedily, left to right), then a sink:
 * the counter (learning the next layer) or the text written out. Tokens
 * carry an `owned` flag so that byte ranges of one file can be processed
 * on several threads exactly as one pass would: text before a range (its
 * lead-in) only sets the state, text after it (its lead-out) only settles
 * what the range's last words join with. */
#ifndef WV_PHRASES_H
#define WV_PHRASES_H

#include <stdint.h>

#include "status.h"
#include "strtab.h"
#include "tokenize.h"
#include "vocab.h"

#define WV_PHRASE_MAX_KEY 4096      /* longer candidates are never counted nor joined */
#define WV_PHRASE_MAX_DELIMITER 64
#define WV_PHRASE_MAX_PARTS (WV_PHRASE_MAX_KEY / 2 + 2)
#define WV_PHRASE_RUN_BYTES (WV_PHRASE_MAX_KEY + WV_MAX_TOKEN_BYTES + WV_PHRASE_MAX_DELIMITER)

enum { WV_SCORE_WORD2PHRASE = 0, WV_SCORE_DEFAULT = 1, WV_SCORE_NPMI = 2 };

/* The words of one layer: its delimiter and connector words. */
typedef struct {
    char delimiter[WV_PHRASE_MAX_DELIMITER];
    int delimiter_len;
    wv_strtab connectors;
    int has_connectors;
} wv_phrase_words;

/* One layer's phrases: key = the phrase's words joined by the delimiter;
 * value = its score (the bits of a double); first = the cuts of the key
 * into a first word and the rest that are phrases, a bit mask over the
 * key's delimiters (bit i: the i-th; bit 31: any from the 31st): word2phrase
 * scores the pair of words the text shows, and the same key may be
 * "new_york" + "times" or "new" + "york_times". -1: any cut (gensim's
 * FrozenPhrases looks the joined key up). Read-only once built: threads
 * share it. */
#define WV_PHRASE_PAIR_BITS 20

typedef struct {
    wv_phrase_words words;
    wv_strtab phrases;
    /* a bit for the hashes of every (first word, last word) a phrase may be
     * made of (each prefix of a key that ends before a delimiter, with each
     * suffix that starts after it): nearly every pair of words in a text is
     * turned away here, from the hashes the pipe takes anyway, before a key
     * is built and looked up */
    uint64_t pairs[(1 << WV_PHRASE_PAIR_BITS) / 64];
} wv_phrase_table;

/* delimiter: 1..WV_PHRASE_MAX_DELIMITER bytes without whitespace;
 * connectors: words joined by newlines (len 0: none). WV_ERR_INVALID. */
wv_status wv_phrase_table_init(wv_phrase_table *t, const char *delimiter, int delimiter_len,
                               const char *connectors, size_t connectors_len, int64_t expected);
void wv_phrase_table_free(wv_phrase_table *t);
/* WV_ERR_DUPLICATE: the key was added before; WV_ERR_INVALID: too long,
 * or no cut (cuts 0). */
wv_status wv_phrase_table_add(wv_phrase_table *t, const char *key, int len, double score, int32_t cuts);

/* What scoring needs besides the counts. */
typedef struct {
    int scoring;             /* WV_SCORE_* */
    int64_t min_count;
    double threshold;
    int64_t corpus_words;    /* tokens counted (connector words too) */
    int64_t vocab_size;      /* distinct keys counted (words and candidates): gensim's len(vocab) */
} wv_phrase_scoring;

/* Phrases found: keys joined by newlines, with their scores and cuts. */
typedef struct {
    char *blob;
    size_t blob_len, blob_cap;
    double *scores;
    int32_t *splits;
    int64_t n, cap;
} wv_phrase_list;

void wv_phrase_list_free(wv_phrase_list *l);
/* Scores every candidate key of table `part` of the counter c (counted
 * with words `w`) and appends the phrases to out (zeroed at first). Calls
 * for different parts may run at once. */
wv_status wv_phrase_score_part(const wv_counter *c, int part, const wv_phrase_words *w,
                               const wv_phrase_scoring *s, wv_phrase_list *out);

/* The tokens a layer holds: a started candidate (its first word and the
 * connector words after it, joined by the delimiter). */
typedef struct {
    char buf[WV_PHRASE_RUN_BYTES];
    int len;                 /* bytes in buf */
    int n;                   /* words held; 0: no candidate started */
    int too_long;            /* the candidate outgrew WV_PHRASE_MAX_KEY */
    uint64_t start_hash;     /* wv_hash_bytes of its first word */
    int lens[WV_PHRASE_MAX_PARTS];
    unsigned char owned[WV_PHRASE_MAX_PARTS];
} wv_phrase_run;

enum { WV_SINK_TEXT = 0, WV_SINK_COUNT = 1 };

typedef struct {
    const wv_phrase_table *const *layers;
    int n_layers;
    wv_phrase_run *runs;     /* one per layer, then the counter's */
    char *scratch;           /* a key being built, per layer */
    int sink;
    int owned;               /* the text fed now is the caller's own */
    /* WV_SINK_TEXT: tokens separated by spaces, lines by newlines */
    char *out;
    size_t out_len, out_cap;
    int line_open;
    /* WV_SINK_COUNT */
    wv_counter *counter;
    const wv_phrase_words *count_words;
    int across_newlines;     /* word2phrase: a pair may span a sentence end */
    int64_t words;           /* tokens counted */
    char *keys;              /* the bytes of the words pushed into the counter's batch */
    size_t keys_len;
    wv_status error;
    wv_tokenizer tok;
} wv_phrase_pipe;

/* layers: n_layers tables the caller keeps alive (may be 0). sink
 * WV_SINK_COUNT: counter (the caller's) and words must be given. */
wv_status wv_phrase_pipe_init(wv_phrase_pipe *p, const wv_phrase_table *const *layers, int n_layers, int sink,
                              wv_counter *counter, const wv_phrase_words *words, int across_newlines);
void wv_phrase_pipe_free(wv_phrase_pipe *p);
/* Room the text sink may need for n bytes fed. */
size_t wv_phrase_out_bound(const wv_phrase_pipe *p, size_t n);
/* Feeds buf[0..n) (owned or not; final flushes everything held). The
 * text sink writes into out[0..cap) (*written); WV_ERR_OVERFLOW if cap
 * was too small (wv_phrase_out_bound never is). */
wv_status wv_phrase_pipe_feed(wv_phrase_pipe *p, const char *buf, size_t n, int owned, int final,
                              char *out, size_t cap, size_t *written);
/* 1 when no layer holds an owned word: a lead-out can stop. */
int wv_phrase_pipe_settled(const wv_phrase_pipe *p);

#endif
