/* The exact softmax for the word model: the kernel (loss_softmax.h) in
 * w2v_sentence.h's loop. */
#include "loss_softmax.h"

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

/* The scores of the whole vocabulary. */
static size_t softmax_scratch(const wv_w2v_model *m) { return (size_t)m->vocab_size; }

const wv_w2v_loss wv_loss_softmax = {
    .train_sentence = train_sentence,
    .step = softmax_step,
    .hot_rows = softmax_hot_rows,
    .scratch_floats = softmax_scratch,
};
