#include "subwords.h"

#include <string.h>

/* Byte p of `<word>`. */
static inline unsigned char bracketed(const char *word, size_t len, size_t p) {
    return p == 0 ? '<' : p == len + 1 ? '>' : (unsigned char)word[p - 1];
}

static inline int continuation(unsigned char b) { return (b & 0xC0) == 0x80; }

int64_t wv_subword_rows(const char *word, size_t len, int minn, int maxn, uint32_t bucket, int64_t first_row,
                        int32_t *out, int64_t cap) {
    if (maxn < 1 || bucket == 0 || (len == 4 && memcmp(word, "</s>", 4) == 0)) return 0;
    const size_t total = len + 2;
    int64_t count = 0;
    for (size_t i = 0; i < total; i++) {
        if (continuation(bracketed(word, len, i))) continue; /* n-grams start on a character */
        /* The hash of bytes [i, j) grows a character at a time: FNV-1a
         * takes the bytes in order, so each n-gram extends the last. */
        uint32_t h = 2166136261u;
        size_t j = i;
        for (int n = 1; j < total && n <= maxn; n++) {
            do {
                h ^= (uint32_t)(int32_t)(int8_t)bracketed(word, len, j++);
                h *= 16777619u;
            } while (j < total && continuation(bracketed(word, len, j)));
            /* a lone bracket is not an n-gram (fastText) */
            if (n >= minn && !(n == 1 && (i == 0 || j == total))) {
                if (count < cap) out[count] = (int32_t)(first_row + h % bucket);
                count++;
            }
        }
    }
    return count;
}
