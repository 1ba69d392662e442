/* The choice of loss for a configuration, what the losses share, and the
 * test entry point for one step (w2v_loss.h). */
#include "w2v_loss.h"

#include <string.h>

#include "subword_rows.h"

const wv_w2v_loss *wv_w2v_loss_for(const wv_w2v_config *cfg) {
    switch (cfg->loss) {
    case WV_LOSS_NS:
        if (cfg->subwords) return &wv_loss_ns_subword;
        return cfg->arch == WV_SKIPGRAM && cfg->shared_negatives && cfg->negative > 0 ? &wv_loss_ns_window
                                                                                      : &wv_loss_ns;
    case WV_LOSS_HS: return cfg->subwords ? &wv_loss_hs_subword : &wv_loss_hs;
    default: return cfg->subwords ? &wv_loss_softmax_subword : &wv_loss_softmax;
    }
}

size_t wv_w2v_no_scratch(const wv_w2v_model *m) {
    (void)m;
    return 0;
}

wv_w2v_worker wv_w2v_step_worker(wv_w2v_model *m, const int32_t *negatives, float *scratch) {
    wv_w2v_worker w;
    memset(&w, 0, sizeof w);
    w.m = m;
    w.negatives = (int32_t *)negatives; /* only read */
    w.scratch = scratch;
    w.rows = wv_hot_rows_none(m->output);
    return w;
}

double wv_w2v_step(wv_w2v_model *m, const float *h, int32_t target,
                   const int32_t *negatives, int n_negatives, float *neu1e,
                   float alpha, float *scratch) {
    wv_w2v_worker w = wv_w2v_step_worker(m, negatives, scratch);
    return wv_w2v_loss_for(&m->cfg)->step(&w, h, target, n_negatives, neu1e, alpha);
}

double wv_w2v_subword_step(wv_w2v_model *m, const int32_t *rows, int n_rows, int32_t target,
                           const int32_t *negatives, float alpha, float *scratch) {
    const int dim = m->cfg.dim;
    float *h = scratch, *grad = scratch + dim;
    wv_w2v_worker w = wv_w2v_step_worker(m, negatives, scratch + 2 * dim); /* the softmax's scores */
    row_list r = {rows, n_rows};
    wv_zero(h, dim);
    add_rows(m->input, r, h, dim);
    wv_scale(1.0f / (float)n_rows, h, dim);
    wv_zero(grad, dim);
    double loss = wv_w2v_loss_for(&m->cfg)->step(&w, h, target, m->cfg.negative, grad, alpha);
    update_rows(m->input, r, grad, dim);
    return loss;
}
