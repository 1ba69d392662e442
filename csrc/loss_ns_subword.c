/* fastText's unsupervised model on negative sampling: the sentence loop
 * of w2v_subword_sentence.h with NS's hooks. Negatives are drawn as
 * loss_ns.c draws them (a set per pair for skip-gram, per word for CBOW,
 * each a step ahead so that its rows are prefetched); skip-gram with
 * cfg.shared_negatives draws one set per window, as loss_ns_window.c. */
#include "loss_ns.h"

/* Skip-gram with one negative set per window (cfg.shared_negatives, as
 * loss_ns_window.c): the centre word's mean h against its m_ctx context
 * words' output rows and the K negatives' at once. h is fixed over the
 * window, so a negative's m_ctx pairs share one dot product: its gradient is
 * that of one pair times the pairs where it is not the context word (those
 * are skipped, as word2vec.c). All products are taken first; grad gets the
 * output rows' contribution before they change. */
WV_HOT double sg_window(wv_w2v_worker *w, const float *h, const int32_t *ctx, int m_ctx, float *grad,
                        float alpha) {
    const wv_w2v_model *m = w->m;
    const int dim = m->cfg.dim, k_neg = m->cfg.negative, n = m_ctx + k_neg;
    enum { MAX_OUT = 2 * 64 + 64 }; /* window <= 64, negative <= 63: checked by the bindings */
    float *outs[MAX_OUT];
    float dots[MAX_OUT], g[MAX_OUT];
    for (int j = 0; j < m_ctx; j++) outs[j] = wv_out_row(&w->rows, ctx[j], dim);
    for (int k = 0; k < k_neg; k++) outs[m_ctx + k] = wv_out_row(&w->rows, w->negatives[k], dim);
    wv_dots(h, (const float *const *)outs, n, dim, dots);
    double loss = 0.0;
    for (int j = 0; j < m_ctx; j++) {
        loss -= wv_log_sigmoid(&m->sigmoid, dots[j]);
        g[j] = ns_gradient(&m->sigmoid, dots[j], 1.0f, alpha);
    }
    for (int k = 0; k < k_neg; k++) {
        int pairs = 0;
        for (int j = 0; j < m_ctx; j++) pairs += ctx[j] != w->negatives[k];
        float f = dots[m_ctx + k];
        loss -= pairs * wv_log_sigmoid(&m->sigmoid, -f);
        g[m_ctx + k] = (float)pairs * ns_gradient(&m->sigmoid, f, 0.0f, alpha);
    }
    wv_add_combination(grad, (const float *const *)outs, g, 1, n, dim);
    for (int k = 0; k < n; k++) wv_axpy(g[k], h, outs[k], dim);
    return loss;
}

/* One skip-gram pair with its own negatives: h (fixed over the window) against
 * the context word's output row and the K negatives' rows, all dot products
 * first (h is read once for all of them), then grad and the rows. A negative
 * equal to the context word is skipped, as word2vec.c. */
WV_HOT double sg_pair(wv_w2v_worker *w, const float *h, int32_t target, float *grad, float alpha) {
    const wv_w2v_model *m = w->m;
    const int dim = m->cfg.dim, n = 1 + m->cfg.negative;
    enum { MAX_OUT = 64 }; /* negative <= 63: checked by the bindings */
    float *outs[MAX_OUT];
    float dots[MAX_OUT], g[MAX_OUT];
    outs[0] = wv_out_row(&w->rows, target, dim);
    for (int k = 1; k < n; k++) outs[k] = wv_out_row(&w->rows, w->negatives[k - 1], dim);
    wv_dots(h, (const float *const *)outs, n, dim, dots);
    double loss = -wv_log_sigmoid(&m->sigmoid, dots[0]);
    g[0] = ns_gradient(&m->sigmoid, dots[0], 1.0f, alpha);
    for (int k = 1; k < n; k++) {
        g[k] = 0.0f;
        if (w->negatives[k - 1] == target) continue;
        loss -= wv_log_sigmoid(&m->sigmoid, -dots[k]);
        g[k] = ns_gradient(&m->sigmoid, dots[k], 0.0f, alpha);
    }
    wv_add_combination(grad, (const float *const *)outs, g, 1, n, dim);
    for (int k = 0; k < n; k++) wv_axpy(g[k], h, outs[k], dim);
    return loss;
}

/* The draws of centre word i: skip-gram's per-pair sets are drawn in
 * subword_sg_window (the first one here, later ones a pair ahead); the
 * others are a word's, drawn a word ahead. */
WV_HOT void subword_begin_word(wv_w2v_worker *w, wv_rng *rng, int i, int len) {
    const wv_w2v_model *m = w->m;
    if (m->cfg.arch == WV_SKIPGRAM && !m->cfg.shared_negatives) {
        if (i == 0) ns_draw(m, rng, w->negatives);
        return;
    }
    ns_begin_word_drawn_ahead(w, rng, i);
    if (i + 1 < len) {
        if (m->cfg.arch == WV_CBOW)
            wv_prefetch_span(wv_out_row(&w->rows, w->sentence[i + 1], m->cfg.dim), (size_t)m->cfg.dim);
        ns_draw_next(w, rng); /* the next word's */
    }
}

WV_HOT double subword_sg_window(wv_w2v_worker *w, wv_rng *rng, const float *h, int lo, int hi, int i,
                                float *grad, float alpha, int64_t *examples) {
    const int32_t *sen = w->sentence;
    double loss = 0.0;
    if (w->m->cfg.shared_negatives) {
        int32_t ctx[2 * 64]; /* window <= 64 (checked by the bindings) */
        int m_ctx = 0;
        for (int c = lo; c <= hi; c++)
            if (c != i) ctx[m_ctx++] = sen[c];
        *examples += m_ctx;
        return sg_window(w, h, ctx, m_ctx, grad, alpha);
    }
    for (int c = lo; c <= hi; c++) {
        if (c == i) continue;
        ns_draw_next(w, rng);
        loss += sg_pair(w, h, sen[c], grad, alpha);
        ns_swap(w);
        (*examples)++;
    }
    return loss;
}

WV_HOT double subword_cbow(wv_w2v_worker *w, const float *h, int32_t word, float *grad, float alpha) {
    return ns_update(w->m, &w->rows, h, word, w->negatives, w->m->cfg.negative, grad, alpha);
}

#include "w2v_subword_sentence.h"

const wv_w2v_loss wv_loss_ns_subword = {
    .train_sentence = train_sentence,
    .step = wv_ns_step,
    .hot_rows = ns_hot_rows,
    .scratch_floats = subword_scratch,
};
