/* The word2vec model: its initial state, the learning rate, the choice of
 * loss and the test entry point for one step. Training an epoch is in
 * w2v_epoch.c, each loss in its own file (w2v_loss.h). */
#include "w2v.h"

#include <string.h>

#include "w2v_loss.h"

void wv_w2v_model_init(wv_w2v_model *m) {
    wv_sigmoid_table_init(&m->sigmoid);
    m->ids = NULL;
    m->ids_fd = -1;
    m->n_ids = 0;
    atomic_store(&m->words_done, 0);
    atomic_store(&m->stop, 0);
    atomic_store(&m->error, 0);
    m->workers = NULL;
    m->n_threads = 0;
    m->run.running = 0;
}

float wv_w2v_current_alpha(const wv_w2v_model *m) {
    double done = (double)atomic_load_explicit(&m->words_done, memory_order_relaxed);
    double progress = done / ((double)m->schedule_words + 1.0);
    double end = m->cfg.linear_decay ? m->cfg.min_alpha : 0.0;
    double alpha = m->cfg.alpha - (m->cfg.alpha - end) * progress;
    return (float)(alpha > m->cfg.min_alpha ? alpha : m->cfg.min_alpha);
}

const wv_w2v_loss *wv_w2v_loss_for(const wv_w2v_config *cfg) {
    switch (cfg->loss) {
    case WV_LOSS_NS:
        return cfg->arch == WV_SKIPGRAM && cfg->shared_negatives && cfg->negative > 0 ? &wv_loss_ns_window
                                                                                      : &wv_loss_ns;
    case WV_LOSS_HS: return &wv_loss_hs;
    default: return &wv_loss_softmax;
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
