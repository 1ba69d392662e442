/* The word2vec model: its initial state and the learning rate. Training an
 * epoch is in w2v_epoch.c, the choice of loss in w2v_loss.c and each loss in
 * its own file (w2v_loss.h). */
#include "w2v.h"

void wv_w2v_model_init(wv_w2v_model *m) {
    wv_sigmoid_table_init(&m->sigmoid);
    m->subword_offsets = NULL;
    m->subword_rows = NULL;
    m->ids = NULL;
    m->input_lock = NULL;
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
