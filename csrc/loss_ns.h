/* What the two negative-sampling losses (loss_ns.c, loss_ns_window.c)
 * share: the gradient, the draws of negatives and where their hot rows
 * lie. Internal to the word2vec core. */
#ifndef WV_LOSS_NS_H
#define WV_LOSS_NS_H

#include "alias.h"
#include "sigmoid.h"
#include "vecmath.h"
#include "w2v_loss.h"

/* Gradient for label given f = h . out, with word2vec.c's saturation
 * outside the table. */
WV_HOT float ns_gradient(const wv_sigmoid_table *t, float f, float label, float alpha) {
    if (f > WV_SIGMOID_MAX) return (label - 1.0f) * alpha;
    if (f < -WV_SIGMOID_MAX) return label * alpha;
    return (label - t->sigmoid[wv_sigmoid_index(f)]) * alpha;
}

WV_HOT void ns_draw(const wv_w2v_model *m, wv_rng *rng, int32_t *negatives) {
    for (int d = 0; d < m->cfg.negative; d++) negatives[d] = wv_alias_draw(&m->noise, rng);
}

/* Draws the next negative set into next_negatives and prefetches its rows. */
WV_HOT void ns_draw_next(wv_w2v_worker *w, wv_rng *rng) {
    const wv_w2v_model *m = w->m;
    ns_draw(m, rng, w->next_negatives);
    for (int d = 0; d < m->cfg.negative; d++)
        wv_prefetch_span(wv_out_row(&w->rows, w->next_negatives[d], m->cfg.dim), (size_t)m->cfg.dim);
}

/* The set drawn ahead becomes the current one. */
WV_HOT void ns_swap(wv_w2v_worker *w) {
    int32_t *t = w->negatives;
    w->negatives = w->next_negatives;
    w->next_negatives = t;
}

/* One negative set per centre word, drawn a word ahead: at word 0 its own
 * set, at every later word the set drawn at the word before. */
WV_HOT void ns_begin_word_drawn_ahead(wv_w2v_worker *w, wv_rng *rng, int i) {
    if (i == 0) ns_draw(w->m, rng, w->negatives);
    else ns_swap(w);
}

/* The hot rows: the first ones, the most frequent words' (the vocabulary
 * is sorted by count), which are the most frequent targets and negatives. */
static inline wv_hot_span ns_hot_rows(const wv_w2v_model *m, int32_t wanted) {
    return (wv_hot_span){0, wanted < m->vocab_size ? wanted : m->vocab_size, -1};
}

/* word2vec.c's NS step, one output row after another: each row's dot
 * product sees the changes of the rows before it (a negative drawn twice
 * is trained twice, the second time from its new value). Taking all dot
 * products first where the rows are distinct, as hs_update does, was
 * slower here for CBOW when measured (docs/performance.md). */
WV_HOT double ns_update(const wv_w2v_model *m, const wv_hot_rows *rows, const float *h, int32_t target,
                        const int32_t *negatives, int n_neg, float *neu1e, float alpha) {
    const int dim = m->cfg.dim;
    double loss = 0.0;
    for (int d = -1; d < n_neg; d++) {
        int32_t word = d < 0 ? target : negatives[d];
        float label = d < 0 ? 1.0f : 0.0f;
        if (d >= 0 && word == target) continue; /* word2vec.c skips, no redraw */
        float *out = wv_out_row(rows, word, dim);
        float f = wv_dot(h, out, dim);
        loss -= wv_log_sigmoid(&m->sigmoid, d < 0 ? f : -f);
        float g = ns_gradient(&m->sigmoid, f, label, alpha);
        wv_axpy(g, out, neu1e, dim);
        wv_axpy(g, h, out, dim);
    }
    return loss;
}

/* One NS step with w->negatives[0..n_neg) (loss_ns.c): a step of either
 * NS loss, for wv_w2v_step. */
double wv_ns_step(wv_w2v_worker *w, const float *h, int32_t target, int n_neg, float *neu1e, float alpha);

#endif
