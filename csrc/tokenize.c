#include "tokenize.h"

#include <string.h>

void wv_tokenizer_init(wv_tokenizer *t) { memset(t, 0, sizeof *t); }

static inline int is_space(unsigned char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Longest prefix of w[0..len) not ending inside a UTF-8 sequence. */
static int utf8_cut(const char *w, int len) {
    int cut = len;
    /* back off over continuation bytes, then drop the lead byte they belong to */
    int k = cut;
    while (k > 0 && ((unsigned char)w[k - 1] & 0xC0) == 0x80) k--;
    if (k > 0 && (unsigned char)w[k - 1] >= 0xC0) {
        unsigned char lead = (unsigned char)w[k - 1];
        int need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
        if (cut - (k - 1) < need) cut = k - 1;
    }
    return cut;
}

static void emit(wv_tokenizer *t, const char *w, int len, wv_token_fn on_token, void *ctx) {
    if (t->overflowed) {
        len = utf8_cut(w, len);
        t->truncated++;
        t->overflowed = 0;
    }
    if (len <= 0) return;
    t->tokens++;
    on_token(ctx, w, len);
}

/* Appends to the carried-over token, noting overflow instead of growing. */
static void append_partial(wv_tokenizer *t, const char *s, size_t n) {
    size_t room = WV_MAX_TOKEN_BYTES - (size_t)t->partial_len;
    if (n > room) {
        t->overflowed = 1;
        n = room;
    }
    memcpy(t->partial[t->cur] + t->partial_len, s, n);
    t->partial_len += (int)n;
}

void wv_tokenize(wv_tokenizer *t, const char *buf, size_t n, int final,
                 wv_token_fn on_token, wv_newline_fn on_newline, void *ctx) {
    size_t i = 0;
    /* Finish a token carried over from the previous chunk. */
    if (t->in_token) {
        size_t j = 0;
        while (j < n && !is_space((unsigned char)buf[j])) j++;
        append_partial(t, buf, j);
        if (j == n && !final) return; /* still inside the token */
        emit(t, t->partial[t->cur], t->partial_len, on_token, ctx);
        t->partial_len = 0;
        t->in_token = 0;
        i = j;
    }
    while (i < n) {
        unsigned char c = (unsigned char)buf[i];
        if (is_space(c)) {
            if (c == '\n') {
                t->newlines++;
                if (on_newline) on_newline(ctx);
            }
            i++;
            continue;
        }
        size_t start = i;
        while (i < n && !is_space((unsigned char)buf[i])) i++;
        size_t len = i - start;
        if (i == n && !final) { /* token may continue in the next chunk */
            t->in_token = 1;
            t->partial_len = 0;
            t->cur ^= 1;
            append_partial(t, buf + start, len);
            return;
        }
        if (len > WV_MAX_TOKEN_BYTES) {
            t->overflowed = 1;
            len = WV_MAX_TOKEN_BYTES;
        }
        emit(t, buf + start, (int)len, on_token, ctx);
    }
    if (final && t->in_token) {
        emit(t, t->partial[t->cur], t->partial_len, on_token, ctx);
        t->partial_len = 0;
        t->in_token = 0;
    }
}
