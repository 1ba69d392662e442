/* fastText's unsupervised model on hierarchical softmax (loss="hs" with
 * cfg.subwords): the sentence loop of w2v_subword_sentence.h with HS's
 * kernel (loss_hs.h). The tree is word2vec.c's, which is also fastText's
 * (the same two-queue construction and inner-node numbering), so a model
 * moves between the two tools with its output rows. */
#include "loss_hs.h"

/* HS draws nothing; CBOW's next target is known, so its path is read
 * ahead. The root is on every path: merge the hot rows when it has been
 * updated often (hotrows.h), as w2v_sentence.h does. */
WV_HOT void subword_begin_word(wv_w2v_worker *w, wv_rng *rng, int i, int len) {
    (void)rng;
    if (w->rows.touches >= WV_HOT_SYNC_TOUCHES) wv_hot_rows_sync(&w->rows, w->m->cfg.dim);
    if (w->m->cfg.arch == WV_CBOW && i + 1 < len) hs_prefetch_path(w, w->sentence[i + 1]);
}

WV_HOT double subword_sg_window(wv_w2v_worker *w, wv_rng *rng, const float *h, int lo, int hi, int i,
                                float *grad, float alpha, int64_t *examples) {
    (void)rng;
    double loss = 0.0;
    for (int c = lo; c <= hi; c++) {
        if (c == i) continue;
        loss += hs_update(w->m, &w->rows, h, w->sentence[c], grad, alpha);
        (*examples)++;
    }
    return loss;
}

WV_HOT double subword_cbow(wv_w2v_worker *w, const float *h, int32_t word, float *grad, float alpha) {
    return hs_update(w->m, &w->rows, h, word, grad, alpha);
}

#include "w2v_subword_sentence.h"

const wv_w2v_loss wv_loss_hs_subword = {
    .train_sentence = train_sentence,
    .step = hs_step,
    .hot_rows = hs_hot_rows,
    .scratch_floats = subword_scratch,
};
