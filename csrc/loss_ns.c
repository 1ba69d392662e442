/* Negative sampling as word2vec.c does it: the centre word's output row is
 * the positive, `negative` noise words' rows the negatives. Skip-gram draws
 * a negative set per (context, centre) pair, CBOW one per centre word; each
 * set is drawn one pair or one word ahead, so that its rows can be
 * prefetched while the current one is trained. */
#include "loss_ns.h"

WV_HOT void loss_begin_word(wv_w2v_worker *w, wv_rng *rng, int i) {
    if (w->m->cfg.arch == WV_CBOW) ns_begin_word_drawn_ahead(w, rng, i);
    else if (i == 0) ns_draw(w->m, rng, w->negatives); /* the first pair's; later ones are drawn a pair ahead */
}

WV_HOT void loss_prefetch_word(wv_w2v_worker *w, wv_rng *rng, int32_t word) {
    wv_prefetch_span(wv_out_row(&w->rows, word, w->m->cfg.dim), (size_t)w->m->cfg.dim);
    if (w->m->cfg.arch == WV_CBOW) ns_draw_next(w, rng); /* the next word's */
}

WV_HOT double loss_pair(wv_w2v_worker *w, wv_rng *rng, const float *h, int32_t word, float *neu1e, float alpha) {
    ns_draw_next(w, rng); /* the next pair's */
    double loss = ns_update(w->m, &w->rows, h, word, w->negatives, w->m->cfg.negative, neu1e, alpha);
    ns_swap(w);
    return loss;
}

WV_HOT double loss_predict(wv_w2v_worker *w, const float *h, int32_t word, float *neu1e, float alpha) {
    return ns_update(w->m, &w->rows, h, word, w->negatives, w->m->cfg.negative, neu1e, alpha);
}

#include "w2v_sentence.h"

double wv_ns_step(wv_w2v_worker *w, const float *h, int32_t target, int n_neg, float *neu1e, float alpha) {
    return ns_update(w->m, &w->rows, h, target, w->negatives, n_neg, neu1e, alpha);
}

const wv_w2v_loss wv_loss_ns = {
    .train_sentence = train_sentence,
    .step = wv_ns_step,
    .hot_rows = ns_hot_rows,
    .scratch_floats = wv_w2v_no_scratch,
};
