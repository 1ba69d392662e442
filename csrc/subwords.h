/* fastText's character n-grams of a word: `<word>` cut into every run of n
 * characters (UTF-8 code points, not bytes) for n in [minn, maxn], each
 * hashed with fastText's FNV-1a into one of `bucket` rows. The rows mean
 * the same thing as fastText's (its dictionary's computeSubwords), so that
 * a model moves between the two tools. */
#ifndef WV_SUBWORDS_H
#define WV_SUBWORDS_H

#include <stddef.h>
#include <stdint.h>

/* fastText's hash: 32-bit FNV-1a over the bytes, each byte taken as a
 * signed char and sign-extended (bytes >= 0x80 enter as 0xFFFFFFxx). */
static inline uint32_t wv_subword_hash(const unsigned char *s, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= (uint32_t)(int32_t)(int8_t)s[i];
        h *= 16777619u;
    }
    return h;
}

/* The rows of the n-grams of `word` (len bytes, without the angle
 * brackets): first_row + hash % bucket for each, in fastText's order and
 * with its repeats. Writes at most cap of them into out and returns how
 * many there are (call with cap 0 to count). None for "</s>" (fastText's
 * end of line), for maxn < 1 or bucket 0. */
int64_t wv_subword_rows(const char *word, size_t len, int minn, int maxn, uint32_t bucket, int64_t first_row,
                        int32_t *out, int64_t cap);

/* out[i] = the mean of matrix's rows rows[offsets[i]..offsets[i + 1]) (zeros
 * where there are none), for i < n, on up to `threads` threads: each word's
 * vector from its own row and its n-grams'; norms[i] its L2 norm, taken
 * while the row is in cache (norms may be NULL). Rows and offsets are
 * trusted (checked once by the caller). */
void wv_mean_rows(const float *matrix, int64_t dim, const int32_t *offsets, const int32_t *rows, int64_t n,
                  float *out, float *norms, int threads);

#endif
