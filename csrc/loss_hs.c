/* Hierarchical softmax for the word model: the kernel (loss_hs.h) in
 * w2v_sentence.h's loop. */
#include "loss_hs.h"

WV_HOT void loss_begin_word(wv_w2v_worker *w, wv_rng *rng, int i) {
    (void)w, (void)rng, (void)i; /* HS draws nothing */
}

WV_HOT void loss_prefetch_word(wv_w2v_worker *w, wv_rng *rng, int32_t word) {
    (void)rng;
    hs_prefetch_path(w, word);
}

WV_HOT double loss_pair(wv_w2v_worker *w, wv_rng *rng, const float *h, int32_t word, float *neu1e, float alpha) {
    (void)rng;
    return hs_update(w->m, &w->rows, h, word, neu1e, alpha);
}

WV_HOT double loss_predict(wv_w2v_worker *w, const float *h, int32_t word, float *neu1e, float alpha) {
    return hs_update(w->m, &w->rows, h, word, neu1e, alpha);
}

#include "w2v_sentence.h"

const wv_w2v_loss wv_loss_hs = {
    .train_sentence = train_sentence,
    .step = hs_step,
    .hot_rows = hs_hot_rows,
    .scratch_floats = wv_w2v_no_scratch,
};
