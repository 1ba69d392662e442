/* The exact softmax over the whole vocabulary: the reference objective,
 * O(V) per prediction. It reads and writes the shared output matrix
 * directly: every row is written on every step, so no row is hotter than
 * another. */
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

WV_HOT void loss_begin_word(wv_w2v_worker *w, wv_rng *rng, int i) {
    (void)w, (void)rng, (void)i; /* the softmax draws nothing */
}

WV_HOT void loss_prefetch_word(wv_w2v_worker *w, wv_rng *rng, int32_t word) {
    (void)w, (void)rng, (void)word; /* it reads every row in turn */
}

WV_HOT double loss_pair(wv_w2v_worker *w, wv_rng *rng, const float *h, int32_t word, float *neu1e, float alpha) {
    (void)rng;
    return softmax_update(w->m, h, word, neu1e, alpha, w->scratch);
}

WV_HOT double loss_predict(wv_w2v_worker *w, const float *h, int32_t word, float *neu1e, float alpha) {
    return softmax_update(w->m, h, word, neu1e, alpha, w->scratch);
}

#include "w2v_sentence.h"

static double softmax_step(wv_w2v_worker *w, const float *h, int32_t target, int n_neg, float *neu1e,
                           float alpha) {
    (void)n_neg;
    return softmax_update(w->m, h, target, neu1e, alpha, w->scratch);
}

static wv_hot_span softmax_hot_rows(const wv_w2v_model *m, int32_t wanted) {
    (void)m, (void)wanted;
    return (wv_hot_span){0, 0, -1};
}

/* The scores of the whole vocabulary. */
static size_t softmax_scratch(const wv_w2v_model *m) { return (size_t)m->vocab_size; }

const wv_w2v_loss wv_loss_softmax = {
    .train_sentence = train_sentence,
    .step = softmax_step,
    .hot_rows = softmax_hot_rows,
    .scratch_floats = softmax_scratch,
};
