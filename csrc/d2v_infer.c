/* Paragraph vectors' inference (d2v.h): fresh tag rows trained on frozen
 * word and output rows, in lanes: up to WV_D2V_LANES documents of similar
 * length advance side by side, a prediction each a step, and with NS the step's
 * negatives are one set for all of them. A document's s-th prediction
 * always takes the s-th set of one stream drawn from the model's seed
 * alone, so what it gets depends on nothing beside it; its own stream
 * (from its words) draws its starting row, subsampling and windows. The
 * negatives' rows, random rows of the whole output matrix, are then fetched
 * once for the lane instead of once a document. */
#include <stdlib.h>

#include "d2v_worker.h"

/* Moves lane l to its next prediction: the next position of its piece, or
 * a fresh piece (the next pass when the document is read out). Returns 0
 * when its passes are done. */
static int lane_next(wv_d2v_worker *w, lane *l, tally *t) {
    const wv_d2v_model *m = w->m;
    if (++l->i < l->len) return 1;
    const int64_t start = m->doc_start[l->d], end = m->doc_start[l->d + 1];
    const int epochs = m->infer_epochs;
    const double step = epochs > 1 ? ((double)m->k.cfg.alpha - m->k.cfg.min_alpha) / (epochs - 1) : 0.0;
    for (;;) {
        if (l->pos >= end) {
            if (++l->epoch >= epochs || start == end) return 0;
            l->pos = start;
            l->alpha = (float)(m->k.cfg.alpha - step * l->epoch);
        }
        if (lane_read_piece(m, l, &l->rng, t)) return 1;
    }
}

/* Inference's NS prediction: h predicts target, and `row` (the tag's row,
 * the first `width` columns of h's layer) moves by `scale` x the error,
 * straight from the products (no error buffer: nothing else learns). */
WV_HOT double infer_ns(wv_d2v_worker *w, const float *h, int32_t target, float *row, int width, float scale,
                       float alpha) {
    int n;
    double loss = ns_products(w, h, target, alpha, scale, &n);
    wv_add_combination(row, w->outs, w->dots + 1 + w->m->k.cfg.negative, 1, n, width);
    return loss;
}

/* Lane l's prediction at its position (the step's negatives in
 * w->negatives), in the way of `mode` (a constant where inlined). */
WV_HOT double lane_step(wv_d2v_worker *w, lane *l, int mode) {
    wv_d2v_model *m = w->m;
    const int window = m->k.cfg.window, i = l->i, len = l->len, vd = m->vec_dim;
    const int ns = m->k.cfg.loss == WV_LOSS_NS;
    const int32_t *p = l->piece, tag = (int32_t)l->d;
    float *row = tag_row(m, tag);
    if (mode == WV_D2V_DBOW)
        return ns ? infer_ns(w, row, p[i], row, vd, 1.0f, l->alpha) : row_step(w, row, 1.0f, 1, p[i], l->alpha);
    if (mode == WV_D2V_DM) {
        int radius = window;
        if (m->k.cfg.shrink_windows) radius = window - (int)wv_rng_below(&l->rng, (uint32_t)window);
        const int lo = i - radius < 0 ? 0 : i - radius, hi = i + radius >= len ? len - 1 : i + radius;
        const int n_ctx = dm_window(w, p, lo, i, hi);
        const float inv = dm_sum(w, &tag, 1, n_ctx);
        if (!ns) return dm_learn(w, &tag, 1, w->slots, n_ctx, inv, p[i], l->alpha);
        return infer_ns(w, w->neu1, p[i], row, vd, m->k.cfg.cbow_mean ? 1.0f : inv, l->alpha);
    }
    concat_window(m, p, len, i, w->slots);
    if (!ns) return concat_step(w, &tag, 1, w->slots, 2 * window, p[i], l->alpha);
    concat_layer(w, &tag, 1, w->slots, 2 * window);
    return infer_ns(w, w->neu1, p[i], row, vd, 1.0f, l->alpha); /* the tag's part of the error: its first vd columns */
}

/* Documents by length, then by place. */
static int by_length(const void *a, const void *b) {
    const sized_doc *x = a, *y = b;
    if (x->words != y->words) return x->words < y->words ? -1 : 1;
    return x->d < y->d ? -1 : x->d > y->d;
}

/* Documents [lo, hi) inferred in the way of `mode` (a constant where inlined). */
WV_HOT int infer_documents(wv_d2v_worker *w, int64_t lo, int64_t hi, tally *t, int mode) {
    wv_d2v_model *m = w->m;
    const int vd = m->vec_dim;
    const int ns = m->k.cfg.loss == WV_LOSS_NS;
    sized_doc *order = w->order;
    for (int64_t from = lo; from < hi; from += WV_D2V_SORTED) {
        const int n = (int)(hi - from < WV_D2V_SORTED ? hi - from : WV_D2V_SORTED);
        for (int j = 0; j < n; j++)
            order[j] = (sized_doc){m->doc_start[from + j + 1] - m->doc_start[from + j], from + j};
        qsort(order, (size_t)n, sizeof *order, by_length);
        for (int g = 0; g < n; g += WV_D2V_LANES) {
            lane *lanes = w->lanes;
            int active = 0;
            for (int j = g; j < n && j < g + WV_D2V_LANES; j++) {
                lane *l = &lanes[active];
                l->d = order[j].d;
                wv_rng_seed(&l->rng, m->k.cfg.seed, m->doc_seed[l->d], 0);
                float *row = tag_row(m, (int32_t)l->d);
                for (int c = 0; c < vd; c++) row[c] = (wv_rng_uniform(&l->rng) - 0.5f) / (float)vd;
                l->epoch = 0;
                l->alpha = m->k.cfg.alpha;
                l->pos = m->doc_start[l->d];
                l->len = l->i = 0;
                if (lane_next(w, l, t)) active++;
            }
            wv_rng stream;
            wv_rng_seed(&stream, m->k.cfg.seed, 0, 1);
            if (ns) draw_next_negatives(w, &stream);
            while (active) {
                if (ns) draw_negatives(w, &stream);
                for (int k = 0; k < active;) {
                    lane *l = &lanes[k];
                    t->loss += lane_step(w, l, mode);
                    t->examples++;
                    if (lane_next(w, l, t)) {
                        prefetch_lane(w, l, mode);
                        k++;
                        continue;
                    }
                    active = retire_lane(lanes, k, active);
                }
                if (lanes_step_done(w, t)) return 1;
            }
        }
    }
    return 0;
}

/* infer_documents, a loop a mode (as d2v_train.c's train_piece: one loop
 * holding every mode's code was too large for the compiler's global passes). */
WV_MULTIVERSION
static int infer_dbow(wv_d2v_worker *w, int64_t lo, int64_t hi, tally *t) {
    return infer_documents(w, lo, hi, t, WV_D2V_DBOW);
}

WV_MULTIVERSION
static int infer_dm(wv_d2v_worker *w, int64_t lo, int64_t hi, tally *t) {
    return infer_documents(w, lo, hi, t, WV_D2V_DM);
}

WV_MULTIVERSION
static int infer_concat(wv_d2v_worker *w, int64_t lo, int64_t hi, tally *t) {
    return infer_documents(w, lo, hi, t, WV_D2V_DM_CONCAT);
}

int wv_d2v_infer_documents(wv_d2v_worker *w, int64_t lo, int64_t hi, tally *t) {
    switch (w->m->mode) {
    case WV_D2V_DBOW: return infer_dbow(w, lo, hi, t);
    case WV_D2V_DM: return infer_dm(w, lo, hi, t);
    default: return infer_concat(w, lo, hi, t);
    }
}
