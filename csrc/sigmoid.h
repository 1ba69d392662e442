/* Precomputed sigmoid and log-sigmoid tables over [-MAX, MAX], as word2vec.c
 * (1000 bins over [-6, 6]). The table lives in the caller's model struct:
 * no global mutable state. */
#ifndef WV_SIGMOID_H
#define WV_SIGMOID_H

#include <math.h>

#define WV_SIGMOID_BINS 1000
#define WV_SIGMOID_MAX 6.0f

typedef struct {
    float sigmoid[WV_SIGMOID_BINS + 1];
    float log_sigmoid[WV_SIGMOID_BINS + 1];
} wv_sigmoid_table;

static inline void wv_sigmoid_table_init(wv_sigmoid_table *t) {
    for (int i = 0; i <= WV_SIGMOID_BINS; i++) {
        /* word2vec.c's bin centres: x = (i / BINS * 2 - 1) * MAX */
        double x = ((double)i / WV_SIGMOID_BINS * 2.0 - 1.0) * WV_SIGMOID_MAX;
        double s = 1.0 / (1.0 + exp(-x));
        t->sigmoid[i] = (float)s;
        t->log_sigmoid[i] = (float)log(s);
    }
}

/* Index of f, valid only for -MAX < f < MAX (callers test the range first). */
static inline int wv_sigmoid_index(float f) {
    return (int)((f + WV_SIGMOID_MAX) * (WV_SIGMOID_BINS / WV_SIGMOID_MAX / 2.0f));
}

/* log(sigmoid(f)) for any f: table inside the range, asymptotes outside. */
static inline double wv_log_sigmoid(const wv_sigmoid_table *t, float f) {
    if (f >= WV_SIGMOID_MAX) return -log1p(exp(-(double)f));
    if (f <= -WV_SIGMOID_MAX) return (double)f - log1p(exp((double)f));
    return t->log_sigmoid[wv_sigmoid_index(f)];
}

#endif
