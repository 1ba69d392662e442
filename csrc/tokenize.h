/* Streaming byte tokenizer: whitespace-separated tokens, newline ends a
 * sentence. Input arrives in chunks of any size; a token cut by a chunk
 * boundary is carried over. Tokens longer than WV_MAX_TOKEN_BYTES are cut at
 * a UTF-8 character boundary (the rest of that token is skipped and counted),
 * so memory stays bounded even on a 1 GB line with no whitespace. */
#ifndef WV_TOKENIZE_H
#define WV_TOKENIZE_H

#include <stddef.h>
#include <stdint.h>

#define WV_MAX_TOKEN_BYTES 1024

/* word[0..len) stays readable until wv_tokenize returns (a consumer may
 * collect a batch of tokens and look them up together). */
typedef void (*wv_token_fn)(void *ctx, const char *word, int len);
typedef void (*wv_newline_fn)(void *ctx);

typedef struct {
    /* the token carried over from the previous chunk; two buffers, so that
     * the one emitted at the start of a call stays readable while the next
     * carry-over is collected in the other */
    char partial[2][WV_MAX_TOKEN_BYTES];
    int partial_len;
    int cur;             /* the buffer in use */
    int in_token;        /* the previous chunk ended inside a token */
    int overflowed;      /* the current token passed WV_MAX_TOKEN_BYTES */
    int64_t tokens;      /* tokens emitted */
    int64_t newlines;
    int64_t truncated;   /* tokens cut at WV_MAX_TOKEN_BYTES */
} wv_tokenizer;

void wv_tokenizer_init(wv_tokenizer *t);

/* Feeds buf[0..n). With final != 0 a pending token is flushed (end of input). */
void wv_tokenize(wv_tokenizer *t, const char *buf, size_t n, int final,
                 wv_token_fn on_token, wv_newline_fn on_newline, void *ctx);

#endif
