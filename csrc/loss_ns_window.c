/* Skip-gram negative sampling with one negative set per window: the set is
 * drawn once per centre word (a word ahead, so its rows can be prefetched)
 * and shared by all of the word's context words (cfg.shared_negatives;
 * pWord2Vec's minibatching). */
#include "loss_ns.h"

/* Skip-gram NS with one set of negatives shared by the whole window of a
 * centre word (pWord2Vec's minibatching, optional: cfg.shared_negatives).
 * The m context vectors and the 1 + K output rows form two small matrices;
 * all m x (1 + K) dot products are taken first, then both sides are updated
 * from the same gradients. Same arithmetic as the pair-by-pair loop, but the
 * output rows are fetched once per window instead of once per pair. */
WV_HOT double sg_ns_window(wv_w2v_worker *w, const int32_t *ctx, int m_ctx, int32_t word, float alpha) {
    const wv_w2v_model *m = w->m;
    const int dim = m->cfg.dim, k1 = 1 + m->cfg.negative;
    enum { MAX_CTX = 2 * 64, MAX_OUT = 64 }; /* bounds checked at the Python boundary */
    float *outs[MAX_OUT], *ins[MAX_CTX];
    float label[MAX_OUT];
    float grad[MAX_CTX * MAX_OUT];
    for (int k = 0; k < k1; k++) {
        int32_t t = k == 0 ? word : w->negatives[k - 1];
        outs[k] = wv_out_row(&w->rows, t, dim);
        label[k] = k == 0 ? 1.0f : (t == word ? -1.0f : 0.0f); /* -1: skipped, as word2vec.c */
    }
    double loss = 0.0;
    for (int j = 0; j < m_ctx; j++) {
        ins[j] = m->input + (size_t)ctx[j] * dim;
        float dots[MAX_OUT];
        wv_dots(ins[j], (const float *const *)outs, k1, dim, dots);
        for (int k = 0; k < k1; k++) {
            float g = 0.0f;
            if (label[k] >= 0.0f) {
                float f = dots[k];
                loss -= wv_log_sigmoid(&m->sigmoid, label[k] > 0.0f ? f : -f);
                g = ns_gradient(&m->sigmoid, f, label[k], alpha);
            }
            grad[j * k1 + k] = g;
        }
    }
    /* The output rows' changes come from the input rows before those
     * change; the input rows' from the output rows before those change. */
    float *delta_out = w->scratch; /* (1 + K) x dim */
    for (int k = 0; k < k1; k++) {
        float *d = delta_out + (size_t)k * dim;
        wv_zero(d, dim);
        wv_add_combination(d, (const float *const *)ins, grad + k, k1, m_ctx, dim);
    }
    for (int j = 0; j < m_ctx; j++) {
        const float *g = grad + j * k1;
        float locked[MAX_OUT];
        if (m->input_lock) { /* the input row's share only: the output rows took the full gradient */
            for (int k = 0; k < k1; k++) locked[k] = m->input_lock[ctx[j]] * g[k];
            g = locked;
        }
        wv_add_combination(ins[j], (const float *const *)outs, g, 1, k1, dim);
    }
    for (int k = 0; k < k1; k++) wv_axpy(1.0f, delta_out + (size_t)k * dim, outs[k], dim);
    return loss;
}

WV_HOT void loss_begin_word(wv_w2v_worker *w, wv_rng *rng, int i) { ns_begin_word_drawn_ahead(w, rng, i); }

WV_HOT void loss_prefetch_word(wv_w2v_worker *w, wv_rng *rng, int32_t word) {
    wv_prefetch_span(wv_out_row(&w->rows, word, w->m->cfg.dim), (size_t)w->m->cfg.dim);
    ns_draw_next(w, rng); /* the next word's */
}

WV_HOT double loss_window(wv_w2v_worker *w, const int32_t *ctx, int m_ctx, int32_t word, float alpha) {
    return sg_ns_window(w, ctx, m_ctx, word, alpha);
}

#define LOSS_TRAINS_WINDOWS 1
#include "w2v_sentence.h"

/* (1 + K) x dim: the output rows' changes over a window. */
static size_t window_scratch(const wv_w2v_model *m) { return (size_t)(m->cfg.negative + 1) * (size_t)m->cfg.dim; }

const wv_w2v_loss wv_loss_ns_window = {
    .train_sentence = train_sentence,
    .step = wv_ns_step, /* a single (h, target) step is NS's */
    .hot_rows = ns_hot_rows,
    .scratch_floats = window_scratch,
};

double wv_w2v_window_step(wv_w2v_model *m, const int32_t *ctx, int m_ctx, int32_t target,
                          const int32_t *negatives, float alpha, float *scratch) {
    wv_w2v_worker w = wv_w2v_step_worker(m, negatives, scratch);
    return sg_ns_window(&w, ctx, m_ctx, target, alpha);
}
