#include "phrases.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Room for the bytes of a full batch of pushed words (each at most a key). */
#define KEYS_BYTES ((size_t)WV_TOKEN_BATCH * WV_PHRASE_RUN_BYTES)

static int has_space(const char *s, int len) {
    for (int i = 0; i < len; i++)
        if (strchr(" \t\n\r\v\f", s[i]) && s[i]) return 1;
    return 0;
}

/* The offset of the first (last: the last) occurrence of d in s at or
 * after `from`, or -1. */
static int find_delimiter(const char *s, int len, const char *d, int dl, int from, int last) {
    int found = -1;
    for (int i = from; i + dl <= len; i++)
        if (memcmp(s + i, d, (size_t)dl) == 0) {
            if (!last) return i;
            found = i;
        }
    return found;
}

static wv_status words_init(wv_phrase_words *w, const char *delimiter, int dl, const char *joined, size_t len) {
    memset(w, 0, sizeof *w);
    if (dl < 1 || dl > WV_PHRASE_MAX_DELIMITER || has_space(delimiter, dl)) return WV_ERR_INVALID;
    memcpy(w->delimiter, delimiter, (size_t)dl);
    w->delimiter_len = dl;
    if (wv_strtab_init(&w->connectors, 64)) return WV_ERR_NOMEM;
    const char *p = joined, *end = joined + len;
    while (len && p <= end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) nl = end;
        int wl = (int)(nl - p);
        if (wl > 0 && wl <= WV_MAX_TOKEN_BYTES) {
            int64_t *v;
            int inserted;
            if (wv_strtab_intern(&w->connectors, p, wl, wv_hash_bytes(p, wl), &v, &inserted)) return WV_ERR_NOMEM;
            w->has_connectors = 1;
        }
        p = nl + 1;
    }
    return WV_OK;
}

static int is_connector(const wv_phrase_words *w, const char *s, int len) {
    return w->has_connectors && wv_strtab_find(&w->connectors, s, len, wv_hash_bytes(s, len)) != NULL;
}

wv_status wv_phrase_table_init(wv_phrase_table *t, const char *delimiter, int delimiter_len,
                               const char *connectors, size_t connectors_len, int64_t expected) {
    memset(t, 0, sizeof *t);
    wv_status rc = words_init(&t->words, delimiter, delimiter_len, connectors, connectors_len);
    if (!rc && wv_strtab_init(&t->phrases, expected > 0 ? expected : 1)) rc = WV_ERR_NOMEM;
    if (rc) wv_phrase_table_free(t);
    return rc;
}

void wv_phrase_table_free(wv_phrase_table *t) {
    wv_strtab_free(&t->words.connectors);
    wv_strtab_free(&t->phrases);
    memset(t, 0, sizeof *t);
}

static inline uint64_t pair_bit(uint64_t first, uint64_t last) {
    /* the two hashes are independent and well mixed: rotating one keeps
     * "a a" (equal hashes) from landing on bit 0 */
    return (first ^ (last << 32 | last >> 32)) >> (64 - WV_PHRASE_PAIR_BITS);
}

static inline int may_pair(const wv_phrase_table *t, uint64_t first, uint64_t last) {
    uint64_t b = pair_bit(first, last);
    return (int)(t->pairs[b >> 6] >> (b & 63)) & 1;
}

wv_status wv_phrase_table_add(wv_phrase_table *t, const char *key, int len, double score, int32_t cuts) {
    if (len < 1 || len > WV_PHRASE_MAX_KEY || cuts == 0) return WV_ERR_INVALID;
    int64_t *v;
    int inserted;
    wv_status rc = wv_strtab_intern(&t->phrases, key, len, wv_hash_bytes(key, len), &v, &inserted);
    if (rc) return rc;
    if (!inserted) return WV_ERR_DUPLICATE;
    memcpy(v, &score, sizeof score);
    *wv_strtab_first_of(v) = cuts;
    const char *d = t->words.delimiter;
    int dl = t->words.delimiter_len;
    /* the first word ends before a delimiter; the last starts after the
     * same one or a later one (connector words between) */
    for (int at = find_delimiter(key, len, d, dl, 1, 0); at > 0; at = find_delimiter(key, len, d, dl, at + 1, 0)) {
        uint64_t first = wv_hash_bytes(key, at);
        for (int to = at; to >= 0 && to + dl < len; to = find_delimiter(key, len, d, dl, to + 1, 0)) {
            uint64_t b = pair_bit(first, wv_hash_bytes(key + to + dl, len - to - dl));
            t->pairs[b >> 6] |= (uint64_t)1 << (b & 63);
        }
    }
    return WV_OK;
}

/* ---------------------------------------------------------------- scoring */

void wv_phrase_list_free(wv_phrase_list *l) {
    free(l->blob);
    free(l->scores);
    free(l->splits);
    memset(l, 0, sizeof *l);
}

static wv_status list_add(wv_phrase_list *l, const char *key, int len, double score, int32_t split) {
    if (l->n == l->cap) {
        int64_t cap = l->cap ? 2 * l->cap : 1024;
        double *s = realloc(l->scores, (size_t)cap * sizeof *s);
        if (!s) return WV_ERR_NOMEM;
        l->scores = s;
        int32_t *p = realloc(l->splits, (size_t)cap * sizeof *p);
        if (!p) return WV_ERR_NOMEM;
        l->splits = p;
        l->cap = cap;
    }
    if (l->blob_len + (size_t)len + 1 > l->blob_cap) {
        size_t cap = 2 * (l->blob_len + (size_t)len + 1) + 4096;
        char *b = realloc(l->blob, cap);
        if (!b) return WV_ERR_NOMEM;
        l->blob = b;
        l->blob_cap = cap;
    }
    if (l->n) l->blob[l->blob_len++] = '\n';
    memcpy(l->blob + l->blob_len, key, (size_t)len);
    l->blob_len += (size_t)len;
    l->scores[l->n] = score;
    l->splits[l->n] = split;
    l->n++;
    return WV_OK;
}

/* word2phrase.c's score, in its float arithmetic: (count(ab) - min_count)
 * / count(a) / count(b) x corpus words, for a pair whose three counts reach
 * min_count; NAN otherwise. */
static double score_word2phrase(const wv_phrase_scoring *s, int64_t ab, int64_t a, int64_t b) {
    if (ab < s->min_count || a < s->min_count || b < s->min_count) return NAN;
    float score = (float)(ab - s->min_count) / (float)a / (float)b * (float)s->corpus_words;
    return score > (float)s->threshold ? (double)score : NAN;
}

/* gensim's original_scorer (x the number of keys counted) and npmi_scorer,
 * in its double arithmetic; NAN where it is no phrase. */
static double score_gensim(const wv_phrase_scoring *s, int64_t ab, int64_t a, int64_t b) {
    if (a <= 0 || b <= 0 || ab <= 0) return NAN;
    double score;
    if (s->scoring == WV_SCORE_DEFAULT) {
        int64_t denom;
        double d = __builtin_mul_overflow(a, b, &denom) ? (double)a * (double)b : (double)denom;
        score = (double)(ab - s->min_count) / d * (double)s->vocab_size;
    } else {
        if (ab < s->min_count) return NAN;
        double n = (double)s->corpus_words;
        double pa = (double)a / n, pb = (double)b / n, pab = (double)ab / n;
        score = log(pab / (pa * pb)) / -log(pab);
    }
    return score > s->threshold ? score : NAN;
}

wv_status wv_phrase_score_part(const wv_counter *c, int part, const wv_phrase_words *w,
                               const wv_phrase_scoring *s, wv_phrase_list *out) {
    if (part < 0 || part >= c->n_parts) return WV_ERR_INVALID;
    const wv_strtab *t = &c->parts[part];
    const char *d = w->delimiter;
    int dl = w->delimiter_len;
    /* word2phrase scores each pair of words a key can be cut into (it
     * looks pairs up as the text shows them); gensim its first and last
     * word (FrozenPhrases looks the joined key up) */
    int pairs = s->scoring == WV_SCORE_WORD2PHRASE && !w->has_connectors;
    for (size_t r = WV_STRTAB_FIRST; r < t->arena_len; r = wv_strtab_next(t, r)) {
        int64_t ab = *wv_strtab_value(t, r);
        const char *key = wv_strtab_bytes(t, r);
        int len = wv_strtab_len(t, r);
        if (ab < (s->scoring == WV_SCORE_DEFAULT ? 1 : s->min_count)) continue;
        int first = find_delimiter(key, len, d, dl, 0, 0);
        if (first < 0) continue;
        if (pairs) {
            int32_t cuts = 0; /* bit i: the cut at the key's i-th delimiter (bit 31: any from the 31st) */
            double best = NAN;
            int i = 0;
            for (int at = first; at >= 0; at = find_delimiter(key, len, d, dl, at + 1, 0), i++) {
                if (at == 0 || at + dl >= len) continue;
                double score = score_word2phrase(s, ab, wv_counter_count_of(c, key, at),
                                                 wv_counter_count_of(c, key + at + dl, len - at - dl));
                if (isnan(score)) continue;
                if (!cuts) best = score;
                cuts |= (int32_t)((uint32_t)1 << (i < 31 ? i : 31));
            }
            if (cuts) {
                wv_status rc = list_add(out, key, len, best, cuts);
                if (rc) return rc;
            }
            continue;
        }
        int last = find_delimiter(key, len, d, dl, first, 1);
        int64_t a = wv_counter_count_of(c, key, first);
        int64_t b = wv_counter_count_of(c, key + last + dl, len - last - dl);
        double score = s->scoring == WV_SCORE_WORD2PHRASE ? score_word2phrase(s, ab, a, b) : score_gensim(s, ab, a, b);
        if (!isnan(score)) {
            wv_status rc = list_add(out, key, len, score, -1);
            if (rc) return rc;
        }
    }
    return WV_OK;
}

/* ---------------------------------------------------------------- the pipe */

wv_status wv_phrase_pipe_init(wv_phrase_pipe *p, const wv_phrase_table *const *layers, int n_layers, int sink,
                              wv_counter *counter, const wv_phrase_words *words, int across_newlines) {
    memset(p, 0, sizeof *p);
    if (n_layers < 0 || (sink == WV_SINK_COUNT && (!counter || !words))) return WV_ERR_INVALID;
    p->layers = layers;
    p->n_layers = n_layers;
    p->sink = sink;
    p->counter = counter;
    p->count_words = words;
    p->across_newlines = across_newlines;
    p->runs = calloc((size_t)n_layers + 1, sizeof *p->runs);
    p->scratch = malloc(((size_t)n_layers + 1) * WV_PHRASE_RUN_BYTES);
    p->keys = sink == WV_SINK_COUNT ? malloc(KEYS_BYTES) : NULL;
    if (!p->runs || !p->scratch || (sink == WV_SINK_COUNT && !p->keys)) {
        wv_phrase_pipe_free(p);
        return WV_ERR_NOMEM;
    }
    wv_tokenizer_init(&p->tok);
    return WV_OK;
}

void wv_phrase_pipe_free(wv_phrase_pipe *p) {
    free(p->runs);
    free(p->scratch);
    free(p->keys);
    p->runs = NULL;
    p->scratch = p->keys = NULL;
}

size_t wv_phrase_out_bound(const wv_phrase_pipe *p, size_t n) {
    /* a joined phrase replaces one separator by a delimiter; what the
     * layers held from before comes out too */
    size_t dl = 1;
    for (int k = 0; k < p->n_layers; k++)
        if ((size_t)p->layers[k]->words.delimiter_len > dl) dl = (size_t)p->layers[k]->words.delimiter_len;
    return (n + 2) * dl * ((size_t)p->n_layers + 1) + ((size_t)p->n_layers + 1) * 2 * WV_PHRASE_RUN_BYTES;
}

static void run_start(wv_phrase_run *r, const char *w, int len, int owned, uint64_t h) {
    r->start_hash = h;
    memcpy(r->buf, w, (size_t)len);
    r->len = len;
    r->n = 1;
    r->lens[0] = len;
    r->owned[0] = (unsigned char)owned;
    r->too_long = 0;
}

/* Appends the delimiter and w; 0 (nothing changed) past the longest key. */
static int run_append(wv_phrase_run *r, const wv_phrase_words *w, const char *s, int len, int owned) {
    if (r->len + w->delimiter_len + len > WV_PHRASE_MAX_KEY || r->n >= WV_PHRASE_MAX_PARTS) return 0;
    memcpy(r->buf + r->len, w->delimiter, (size_t)w->delimiter_len);
    memcpy(r->buf + r->len + w->delimiter_len, s, (size_t)len);
    r->len += w->delimiter_len + len;
    r->lens[r->n] = len;
    r->owned[r->n] = (unsigned char)owned;
    r->n++;
    return 1;
}

/* The run's bytes, the delimiter and w in dst; the key's length, or -1 past
 * the longest key. */
static int join_key(char *dst, const wv_phrase_run *r, const wv_phrase_words *w, const char *s, int len) {
    int n = r->len + w->delimiter_len + len;
    if (n > WV_PHRASE_MAX_KEY) return -1;
    memcpy(dst, r->buf, (size_t)r->len);
    memcpy(dst + r->len, w->delimiter, (size_t)w->delimiter_len);
    memcpy(dst + r->len + w->delimiter_len, s, (size_t)len);
    return n;
}

static void put(wv_phrase_pipe *p, const char *s, size_t n) {
    if (p->out_len + n > p->out_cap) {
        p->error = WV_ERR_OVERFLOW;
        return;
    }
    memcpy(p->out + p->out_len, s, n);
    p->out_len += n;
}

/* Pushes a word into the counter; its bytes live in p->keys until counted. */
static void push(wv_phrase_pipe *p, const char *s, int len) {
    char *dst = p->keys + p->keys_len;
    if (dst != s) memcpy(dst, s, (size_t)len);
    p->keys_len += (size_t)len;
    if (wv_counter_push(p->counter, dst, len)) p->keys_len = 0;
}

static void count_token(wv_phrase_pipe *p, const char *s, int len, int owned) {
    const wv_phrase_words *w = p->count_words;
    wv_phrase_run *r = &p->runs[p->n_layers];
    if (is_connector(w, s, len)) {
        p->words += owned;
        if (r->n && !r->too_long && !run_append(r, w, s, len, owned)) r->too_long = 1;
        return;
    }
    if (owned) {
        p->words++;
        push(p, s, len);
        if (r->n && !r->too_long) {
            int n = join_key(p->keys + p->keys_len, r, w, s, len);
            if (n > 0) push(p, p->keys + p->keys_len, n);
        }
    }
    run_start(r, s, len, owned, 0);
}

static void sink_token(wv_phrase_pipe *p, const char *s, int len, int owned) {
    if (p->sink == WV_SINK_COUNT) {
        count_token(p, s, len, owned);
        return;
    }
    if (owned) {
        if (p->line_open) put(p, " ", 1);
        put(p, s, (size_t)len);
    }
    p->line_open = 1; /* an earlier range's word on this line is written before this range's */
}

static void stage_token(wv_phrase_pipe *p, int k, const char *s, int len, int owned);

/* Sends the words layer k holds on, one by one. */
static void run_flush(wv_phrase_pipe *p, int k) {
    wv_phrase_run *r = &p->runs[k];
    int n = r->n, dl = p->layers[k]->words.delimiter_len;
    r->n = 0;
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        stage_token(p, k + 1, r->buf + at, r->lens[i], r->owned[i]);
        at += (size_t)r->lens[i] + (size_t)dl;
    }
    r->len = 0;
}

/* Whether the cut of key after its first `first_len` bytes is one of the
 * phrase's cuts (a bit mask over its delimiters, -1: any). */
static int cut_is_phrase(const char *key, int len, const wv_phrase_words *w, int first_len, int64_t cuts) {
    if (cuts == -1) return 1;
    int i = 0;
    for (int at = find_delimiter(key, len, w->delimiter, w->delimiter_len, 0, 0); at >= 0 && at < first_len;
         at = find_delimiter(key, len, w->delimiter, w->delimiter_len, at + 1, 0))
        i++;
    return (int)((uint64_t)cuts >> (i < 31 ? i : 31)) & 1;
}

/* gensim's analyze_sentence, one word at a time: a connector word joins a
 * started candidate (or passes), any other word ends it, as a phrase or
 * not, and starts the next. */
static void layer_token(wv_phrase_pipe *p, int k, const char *s, int len, int owned) {
    const wv_phrase_table *t = p->layers[k];
    wv_phrase_run *r = &p->runs[k];
    if (is_connector(&t->words, s, len)) {
        if (!r->n) {
            stage_token(p, k + 1, s, len, owned);
        } else if (!run_append(r, &t->words, s, len, owned)) {
            run_flush(p, k); /* too long to be a phrase */
            stage_token(p, k + 1, s, len, owned);
        }
        return;
    }
    uint64_t h = t->phrases.n ? wv_hash_bytes(s, len) : 0;
    if (r->n && may_pair(t, r->start_hash, h)) {
        char *key = p->scratch + (size_t)k * WV_PHRASE_RUN_BYTES;
        int n = join_key(key, r, &t->words, s, len);
        const int64_t *v = n > 0 ? wv_strtab_find(&t->phrases, key, n, wv_hash_bytes(key, n)) : NULL;
        if (v && cut_is_phrase(key, n, &t->words, r->lens[0], v[1])) {
            int first_owned = r->owned[0];
            r->n = 0;
            r->len = 0;
            stage_token(p, k + 1, key, n, first_owned);
            return;
        }
    }
    if (r->n) run_flush(p, k);
    run_start(r, s, len, owned, h);
}

static void stage_token(wv_phrase_pipe *p, int k, const char *s, int len, int owned) {
    if (k < p->n_layers)
        layer_token(p, k, s, len, owned);
    else
        sink_token(p, s, len, owned);
}

static void on_token(void *ctx, const char *s, int len) {
    wv_phrase_pipe *p = ctx;
    stage_token(p, 0, s, len, p->owned);
}

static void on_newline(void *ctx) {
    wv_phrase_pipe *p = ctx;
    for (int k = 0; k < p->n_layers; k++) run_flush(p, k);
    if (p->sink == WV_SINK_COUNT) {
        if (!p->across_newlines) p->runs[p->n_layers].n = 0;
        return;
    }
    if (p->owned) put(p, "\n", 1);
    p->line_open = 0;
}

wv_status wv_phrase_pipe_feed(wv_phrase_pipe *p, const char *buf, size_t n, int owned, int final,
                              char *out, size_t cap, size_t *written) {
    *written = 0;
    if (p->error && p->error != WV_ERR_OVERFLOW) return p->error;
    p->error = WV_OK;
    p->owned = owned;
    p->out = out;
    p->out_cap = out ? cap : 0;
    p->out_len = 0;
    wv_tokenize(&p->tok, buf, n, final, on_token, on_newline, p);
    if (final)
        for (int k = 0; k < p->n_layers; k++) run_flush(p, k);
    if (p->sink == WV_SINK_COUNT) {
        wv_status rc = wv_counter_flush(p->counter);
        p->keys_len = 0;
        if (rc) p->error = rc;
    }
    p->out = NULL;
    *written = p->out_len;
    return p->error;
}

int wv_phrase_pipe_settled(const wv_phrase_pipe *p) {
    for (int k = 0; k < p->n_layers; k++)
        for (int i = 0; i < p->runs[k].n; i++)
            if (p->runs[k].owned[i]) return 0;
    return 1;
}
