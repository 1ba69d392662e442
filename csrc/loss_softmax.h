/* The exact softmax over the whole vocabulary: the reference objective,
 * O(V) per prediction. It reads and writes the shared output matrix
 * directly: every row is written on every step, so no row is hotter than
 * another. Its kernel, step and hot rows, shared by the word model
 * (loss_softmax.c) and fastText's subword model (loss_softmax_subword.c);
 * `scores` holds vocab_size floats. Internal to the word2vec core. */
#ifndef WV_LOSS_SOFTMAX_H
#define WV_LOSS_SOFTMAX_H

#include <math.h>

#include "vecmath.h"
#include "w2v_loss.h"

WV_HOT double softmax_update(const wv_w2v_model *m, const float *h, int32_t target, float *neu1e, float alpha,
                             float *scores) {
    const int dim = m->cfg.dim;
    const int32_t V = m->vocab_size;
    float top = -INFINITY;
    for (int32_t j = 0; j < V; j++) {
        scores[j] = wv_dot(h, m->output + (size_t)j * dim, dim);
        if (scores[j] > top) top = scores[j];
    }
    double total = 0.0;
    for (int32_t j = 0; j < V; j++) total += exp((double)(scores[j] - top));
    double log_total = log(total);
    double loss = -((double)(scores[target] - top) - log_total);
    for (int32_t j = 0; j < V; j++) {
        float p = (float)exp((double)(scores[j] - top) - log_total);
        float g = ((j == target ? 1.0f : 0.0f) - p) * alpha;
        float *out = m->output + (size_t)j * dim;
        wv_axpy(g, out, neu1e, dim);
        wv_axpy(g, h, out, dim);
    }
    return loss;
}

/* One step for wv_w2v_step, its scores in w->scratch. */
static inline double softmax_step(wv_w2v_worker *w, const float *h, int32_t target, int n_neg, float *neu1e,
                                  float alpha) {
    (void)n_neg;
    return softmax_update(w->m, h, target, neu1e, alpha, w->scratch);
}

static inline wv_hot_span softmax_hot_rows(const wv_w2v_model *m, int32_t wanted) {
    (void)m, (void)wanted;
    return (wv_hot_span){0, 0, -1};
}

#endif
