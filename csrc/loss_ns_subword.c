/* fastText's unsupervised model on negative sampling: the sentence loop
 * of w2v_subword_sentence.h with NS's hooks. Negatives are drawn as
 * loss_ns.c draws them (a set per pair for skip-gram, per word for CBOW,
 * each a step ahead so that its rows are prefetched); skip-gram with
 * cfg.shared_negatives draws one set per centre word, as CBOW, and trains
 * its window over the positions' sums (w2v_subword_sentence.h). */
#include "loss_ns.h"
#include "subword_rows.h"

/* Skip-gram over sentence positions with one negative set per centre word
 * (cfg.shared_negatives): context j's mean, its sum ins[j] over n_rows[j]
 * rows, predicts word against the shared negatives. All dot products are
 * taken first (as loss_ns_window.c); the output rows' changes come from the
 * sums before those change, the sums' from the output rows before those
 * change. Context j's gradient goes to pend[j] (for its rows) and, n_rows[j]
 * times, to its sum. A negative equal to word is skipped, as word2vec.c.
 * delta_out holds (1 + K) x dim floats, g_in dim. */
WV_HOT double sg_positions(wv_w2v_worker *w, float *const *ins, const float *n_rows, float *const *pend, int m_ctx,
                           int32_t word, float alpha, float *delta_out, float *g_in) {
    const wv_w2v_model *m = w->m;
    const int dim = m->cfg.dim, k1 = 1 + m->cfg.negative;
    enum { MAX_CTX = 2 * 64, MAX_OUT = 64 }; /* window <= 64, negative <= 63: checked by the bindings */
    float *outs[MAX_OUT];
    float label[MAX_OUT], grad[MAX_CTX * MAX_OUT], of_sums[MAX_OUT * MAX_CTX];
    for (int k = 0; k < k1; k++) {
        int32_t t = k == 0 ? word : w->negatives[k - 1];
        outs[k] = wv_out_row(&w->rows, t, dim);
        label[k] = k == 0 ? 1.0f : (t == word ? -1.0f : 0.0f); /* -1: skipped */
    }
    double loss = 0.0;
    for (int j = 0; j < m_ctx; j++) {
        float dots[MAX_OUT];
        wv_dots(ins[j], (const float *const *)outs, k1, dim, dots);
        for (int k = 0; k < k1; k++) {
            float g = 0.0f;
            if (label[k] >= 0.0f) {
                float f = dots[k] / n_rows[j];
                loss -= wv_log_sigmoid(&m->sigmoid, label[k] > 0.0f ? f : -f);
                g = ns_gradient(&m->sigmoid, f, label[k], alpha);
            }
            grad[j * k1 + k] = g;
            of_sums[k * MAX_CTX + j] = g / n_rows[j]; /* the mean's share of the sum */
        }
    }
    for (int k = 0; k < k1; k++) {
        float *d = delta_out + (size_t)k * dim;
        wv_zero(d, dim);
        wv_add_combination(d, (const float *const *)ins, of_sums + k * MAX_CTX, 1, m_ctx, dim);
    }
    for (int j = 0; j < m_ctx; j++) {
        wv_zero(g_in, dim);
        wv_add_combination(g_in, (const float *const *)outs, grad + j * k1, 1, k1, dim);
        wv_axpy(1.0f, g_in, pend[j], dim);
        wv_axpy(n_rows[j], g_in, ins[j], dim);
    }
    for (int k = 0; k < k1; k++) wv_axpy(1.0f, delta_out + (size_t)k * dim, outs[k], dim);
    return loss;
}

/* The scratch past subword_scratch(m): skip-gram over positions' output
 * rows' changes, (1 + K) x dim. */
static size_t ns_subword_scratch(const wv_w2v_model *m) {
    size_t outs = m->cfg.arch == WV_SKIPGRAM && subword_positions(m) ? (size_t)m->cfg.negative + 1 : 0;
    return subword_scratch(m) + outs * (size_t)m->cfg.dim;
}

/* h predicts target against w->negatives[0..n_neg): CBOW's step, a
 * skip-gram pair in fastText's orientation (h fixed over the window), and
 * this loss's step for the test entry. All dot products first (h is read
 * once for all of them), then grad and the rows. A negative equal to
 * target is skipped, as word2vec.c. */
WV_HOT double predict_ns(wv_w2v_worker *w, const float *h, int32_t target, int n_neg, float *grad, float alpha) {
    const wv_w2v_model *m = w->m;
    const int dim = m->cfg.dim, n = 1 + n_neg;
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
    wv_add_combination_and_rows(grad, 1.0f, 1, outs, g, n, h, dim);
    return loss;
}

/* The draws of centre word i: skip-gram's per-pair sets are drawn in
 * subword_sg_window (the first one here, later ones a pair ahead); the
 * others are a word's, drawn a word ahead with the next centre word's
 * output row prefetched. */
WV_HOT void subword_begin_word(wv_w2v_worker *w, wv_rng *rng, int i, int len) {
    const wv_w2v_model *m = w->m;
    if (m->cfg.arch == WV_SKIPGRAM && !m->cfg.shared_negatives) {
        if (i == 0) ns_draw(m, rng, w->negatives);
        return;
    }
    ns_begin_word_drawn_ahead(w, rng, i);
    if (i + 1 < len) {
        wv_prefetch_span(wv_out_row(&w->rows, w->sentence[i + 1], m->cfg.dim), (size_t)m->cfg.dim);
        ns_draw_next(w, rng); /* the next word's */
    }
}

WV_HOT double subword_sg_window(wv_w2v_worker *w, wv_rng *rng, const float *h, int lo, int hi, int i,
                                float *grad, float alpha, int64_t *examples) {
    const int32_t *sen = w->sentence;
    double loss = 0.0;
    for (int c = lo; c <= hi; c++) {
        if (c == i) continue;
        ns_draw_next(w, rng);
        loss += predict_ns(w, h, sen[c], w->m->cfg.negative, grad, alpha);
        ns_swap(w);
        (*examples)++;
    }
    return loss;
}

WV_HOT double subword_sg_positions(wv_w2v_worker *w, float *sums, float *pending, int lo, int hi, int i,
                                   float alpha, int64_t *examples) {
    const wv_w2v_model *m = w->m;
    float *ins[MAX_CONTEXT], *pend[MAX_CONTEXT], n_rows[MAX_CONTEXT];
    int m_ctx = context_positions(m, w->sentence, sums, pending, lo, hi, i, ins, pend, n_rows);
    *examples += m_ctx;
    return sg_positions(w, ins, n_rows, pend, m_ctx, w->sentence[i], alpha, w->scratch + subword_scratch(m),
                        w->neu1e);
}

WV_HOT double subword_cbow(wv_w2v_worker *w, const float *h, int32_t word, float *grad, float alpha) {
    return predict_ns(w, h, word, w->m->cfg.negative, grad, alpha);
}

static double ns_subword_step(wv_w2v_worker *w, const float *h, int32_t target, int n_neg, float *neu1e,
                              float alpha) {
    return predict_ns(w, h, target, n_neg, neu1e, alpha);
}

#define SUBWORD_SG_POSITIONS
#include "w2v_subword_sentence.h"

const wv_w2v_loss wv_loss_ns_subword = {
    .train_sentence = train_sentence,
    .step = ns_subword_step,
    .hot_rows = ns_hot_rows,
    .scratch_floats = ns_subword_scratch,
};

double wv_w2v_subword_window_step(wv_w2v_model *m, const int32_t *rows, const int32_t *offsets, int m_ctx,
                                  int32_t target, const int32_t *negatives, float alpha, float *scratch) {
    const int dim = m->cfg.dim;
    float *sums = scratch, *pending = sums + (size_t)m_ctx * dim, *delta_out = pending + (size_t)m_ctx * dim;
    float *g_in = delta_out + (size_t)(m->cfg.negative + 1) * dim;
    float *ins[2 * 64], *pend[2 * 64];
    float n_rows[2 * 64];
    wv_w2v_worker w = wv_w2v_step_worker(m, negatives, NULL);
    for (int j = 0; j < m_ctx; j++) {
        row_list r = {rows + offsets[j], offsets[j + 1] - offsets[j]};
        ins[j] = sums + (size_t)j * dim;
        pend[j] = pending + (size_t)j * dim;
        n_rows[j] = (float)r.n;
        wv_zero(ins[j], dim);
        wv_zero(pend[j], dim);
        add_rows(m->input, r, ins[j], dim);
    }
    double loss = sg_positions(&w, ins, n_rows, pend, m_ctx, target, alpha, delta_out, g_in);
    for (int j = 0; j < m_ctx; j++)
        update_rows(m->input, (row_list){rows + offsets[j], offsets[j + 1] - offsets[j]}, pend[j], dim);
    return loss;
}
