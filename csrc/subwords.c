#include "subwords.h"

#include <math.h>
#include <string.h>

#include "parallel.h"

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

typedef struct {
    const float *matrix;
    const int32_t *offsets, *rows;
    float *out, *norms;
    int64_t dim, lo, hi;
} mean_job;

/* How many rows ahead the walk asks for: the rows lie at random in a table
 * far larger than the caches, so each is a miss; several in flight at once
 * instead of one at a time. */
enum { MEAN_AHEAD = 6 };

static void *mean_part(void *p) {
    const mean_job *j = p;
    const int64_t dim = j->dim, row_bytes = dim * (int64_t)sizeof(float);
    const int32_t last = j->offsets[j->hi];
    for (int64_t i = j->lo; i < j->hi; i++) {
        float *restrict o = j->out + i * dim;
        const int32_t a = j->offsets[i], b = j->offsets[i + 1];
        memset(o, 0, (size_t)dim * sizeof *o);
        for (int32_t k = a; k < b; k++) {
            if (k + MEAN_AHEAD < last) { /* across words too: the next word's rows follow this one's */
                const char *next = (const char *)(j->matrix + (int64_t)j->rows[k + MEAN_AHEAD] * dim);
                for (int64_t c = 0; c < row_bytes; c += 64) __builtin_prefetch(next + c);
            }
            const float *restrict r = j->matrix + (int64_t)j->rows[k] * dim;
            for (int64_t c = 0; c < dim; c++) o[c] += r[c];
        }
        if (b > a) {
            const float scale = 1.0f / (float)(b - a);
            for (int64_t c = 0; c < dim; c++) o[c] *= scale;
        }
        if (j->norms) {
            double sq = 0.0;
            for (int64_t c = 0; c < dim; c++) sq += (double)o[c] * (double)o[c];
            j->norms[i] = (float)sqrt(sq);
        }
    }
    return NULL;
}

void wv_mean_rows(const float *matrix, int64_t dim, const int32_t *offsets, const int32_t *rows, int64_t n,
                  float *out, float *norms, int threads) {
    enum { MAX_THREADS = 256 };
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (threads > n / 1024 + 1) threads = (int)(n / 1024 + 1);
    mean_job jobs[MAX_THREADS];
    for (int t = 0; t < threads; t++)
        jobs[t] = (mean_job){matrix, offsets, rows, out, norms, dim, n * t / threads, n * (t + 1) / threads};
    wv_threads_run(threads, mean_part, jobs, sizeof jobs[0]);
}
