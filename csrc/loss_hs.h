/* Hierarchical softmax (word2vec.c): the centre word is predicted by the
 * binary decisions on its Huffman path (huffman.h), one output row per
 * inner node of the tree. Its kernel and hot rows, shared by the word
 * model (loss_hs.c) and fastText's subword model (loss_hs_subword.c).
 * Internal to the word2vec core. */
#ifndef WV_LOSS_HS_H
#define WV_LOSS_HS_H

#include "huffman.h"
#include "vecmath.h"
#include "w2v_loss.h"

WV_HOT double hs_update(const wv_w2v_model *m, wv_hot_rows *rows, const float *h, int32_t target, float *neu1e,
                        float alpha) {
    const int dim = m->cfg.dim;
    const uint8_t *restrict code = m->codes + (size_t)target * WV_MAX_CODE_LENGTH;
    const int32_t *restrict point = m->points + (size_t)target * WV_MAX_CODE_LENGTH;
    const int len = m->code_length[target];
    /* All dot products first: the path's nodes are distinct and h does not
     * change during the walk, so this equals word2vec.c's interleaved order
     * exactly, and the node loads can overlap in the memory system. */
    float f[WV_MAX_CODE_LENGTH], g[WV_MAX_CODE_LENGTH];
    float *outs[WV_MAX_CODE_LENGTH];
    int32_t hottest_hits = 0;
    for (int d = 0; d < len; d++) {
        outs[d] = wv_out_row(rows, point[d], dim);
        hottest_hits += point[d] == rows->hottest;
    }
    rows->touches += hottest_hits;
    wv_dots(h, (const float *const *)outs, len, dim, f);
    double loss = 0.0;
    int n = 0; /* the nodes that train, packed */
    for (int d = 0; d < len; d++) {
        loss -= wv_log_sigmoid(&m->sigmoid, code[d] ? -f[d] : f[d]);
        /* word2vec.c skips (does not saturate) outside the table in HS */
        if (f[d] <= -WV_SIGMOID_MAX || f[d] >= WV_SIGMOID_MAX) continue;
        g[n] = (1.0f - code[d] - m->sigmoid.sigmoid[wv_sigmoid_index(f[d])]) * alpha;
        outs[n++] = outs[d];
    }
    /* neu1e is zero on entry in training, so its sum in registers rounds as
     * word2vec.c's running sum; each node's row enters it before it changes,
     * in the pass that moves it. */
    wv_add_combination_and_rows(neu1e, 1.0f, 1, outs, g, n, h, dim);
    return loss;
}

/* The word's path, prefetched while the word before it trains. */
WV_HOT void hs_prefetch_path(wv_w2v_worker *w, int32_t word) {
    const wv_w2v_model *m = w->m;
    const int32_t *point = m->points + (size_t)word * WV_MAX_CODE_LENGTH;
    for (int d = 0; d < m->code_length[word]; d++)
        wv_prefetch_span(wv_out_row(&w->rows, point[d], m->cfg.dim), (size_t)m->cfg.dim);
}

/* One step for wv_w2v_step (HS has no negatives). */
static inline double hs_step(wv_w2v_worker *w, const float *h, int32_t target, int n_neg, float *neu1e,
                             float alpha) {
    (void)n_neg;
    return hs_update(w->m, &w->rows, h, target, neu1e, alpha);
}

/* The hot rows: the last ones, the top of the tree (the root is the last
 * row and on every path); the root's updates are counted (hotrows.h). */
static inline wv_hot_span hs_hot_rows(const wv_w2v_model *m, int32_t wanted) {
    int32_t n = m->vocab_size > 1 ? m->vocab_size - 1 : 1; /* inner nodes */
    int32_t hot = wanted < n ? wanted : n;
    return (wv_hot_span){n - hot, n, hot > 0 ? n - 1 : -1};
}

#endif
