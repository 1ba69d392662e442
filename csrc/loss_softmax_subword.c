/* fastText's unsupervised model on the exact softmax (loss="softmax" with
 * cfg.subwords): the sentence loop of w2v_subword_sentence.h with the
 * softmax's kernel (loss_softmax.h), one output row per word as fastText's
 * `-loss softmax`. Its scores follow the loop's scratch. */
#include "loss_softmax.h"
#include "subword_rows.h"

WV_HOT void subword_begin_word(wv_w2v_worker *w, wv_rng *rng, int i, int len) {
    (void)w, (void)rng, (void)i, (void)len; /* the softmax draws nothing and reads every row */
}

WV_HOT double subword_sg_window(wv_w2v_worker *w, wv_rng *rng, const float *h, int lo, int hi, int i,
                                float *grad, float alpha, int64_t *examples) {
    (void)rng;
    float *scores = w->scratch + subword_scratch(w->m);
    double loss = 0.0;
    for (int c = lo; c <= hi; c++) {
        if (c == i) continue;
        loss += softmax_update(w->m, h, w->sentence[c], grad, alpha, scores);
        (*examples)++;
    }
    return loss;
}

WV_HOT double subword_cbow(wv_w2v_worker *w, const float *h, int32_t word, float *grad, float alpha) {
    return softmax_update(w->m, h, word, grad, alpha, w->scratch + subword_scratch(w->m));
}

#include "w2v_subword_sentence.h"

/* The loop's scratch, then the scores of the whole vocabulary. */
static size_t softmax_subword_scratch(const wv_w2v_model *m) { return subword_scratch(m) + (size_t)m->vocab_size; }

const wv_w2v_loss wv_loss_softmax_subword = {
    .train_sentence = train_sentence,
    .step = softmax_step,
    .hot_rows = softmax_hot_rows,
    .scratch_floats = softmax_subword_scratch,
};
