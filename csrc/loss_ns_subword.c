/* fastText's unsupervised model on negative sampling (cfg.subwords): a
 * word's input vector is the mean of its rows, its own and its character
 * n-grams' (m->subword_rows, computed once per vocabulary word; subwords.h),
 * and every one of those rows receives the whole gradient of that mean, as
 * fastText applies it.
 *
 * Skip-gram takes fastText's orientation: the centre word's mean predicts
 * each context word. The mean is taken once per centre word and the window's
 * gradients are added up and applied to its rows once, after the window
 * (fastText takes the mean again and updates the rows after every pair: a
 * word of 10 n-grams in a window of 6 pairs reads and writes 66 rows where
 * this reads and writes 11). CBOW, as fastText: the mean of all rows of all
 * context words predicts the centre word. Negatives are drawn as loss_ns.c
 * draws them (a set per pair for skip-gram, per word for CBOW, each a step
 * ahead so that its rows are prefetched). Own sentence loop: the input
 * vector is not one row, so w2v_sentence.h's hooks do not fit. */
#include "loss_ns.h"

/* Word w's input rows. */
typedef struct {
    const int32_t *rows;
    int n;
} row_list;

WV_HOT row_list rows_of(const wv_w2v_model *m, int32_t w) {
    int32_t a = m->subword_offsets[w];
    return (row_list){m->subword_rows + a, m->subword_offsets[w + 1] - a};
}

WV_HOT void add_rows(const float *input, row_list r, float *sum, int dim) {
    for (int k = 0; k < r.n; k++) wv_axpy(1.0f, input + (size_t)r.rows[k] * dim, sum, dim);
}

WV_HOT void update_rows(float *input, row_list r, const float *grad, int dim) {
    for (int k = 0; k < r.n; k++) wv_axpy(1.0f, grad, input + (size_t)r.rows[k] * dim, dim);
}

WV_HOT void prefetch_rows(const float *input, row_list r, int dim) {
    for (int k = 0; k < r.n; k++) wv_prefetch_span(input + (size_t)r.rows[k] * dim, (size_t)dim);
}

WV_MULTIVERSION /* vecmath.h */
static void train_sentence(wv_w2v_worker *w, wv_rng *rng, int len, float alpha, double *loss,
                           int64_t *examples) {
    wv_w2v_model *m = w->m;
    const int dim = m->cfg.dim, window = m->cfg.window, neg = m->cfg.negative;
    const int skipgram = m->cfg.arch == WV_SKIPGRAM;
    const int32_t *sen = w->sentence;
    float *h = w->neu1, *grad = w->neu1e;
    for (int i = 0; i < len; i++) {
        int32_t word = sen[i];
        int radius = m->cfg.shrink_windows ? window - (int)wv_rng_below(rng, (uint32_t)window) : window;
        int lo = i - radius < 0 ? 0 : i - radius;
        int hi = i + radius >= len ? len - 1 : i + radius;
        if (skipgram) {
            if (i == 0) ns_draw(m, rng, w->negatives); /* the first pair's; later ones a pair ahead */
            /* the next centre word's rows, read while this window trains */
            if (i + 1 < len) prefetch_rows(m->input, rows_of(m, sen[i + 1]), dim);
            if (lo == hi) continue;
            row_list r = rows_of(m, word);
            wv_zero(h, dim);
            add_rows(m->input, r, h, dim);
            wv_scale(1.0f / (float)r.n, h, dim);
            wv_zero(grad, dim);
            for (int c = lo; c <= hi; c++) {
                if (c == i) continue;
                ns_draw_next(w, rng);
                *loss += ns_update(m, &w->rows, h, sen[c], w->negatives, neg, grad, alpha);
                ns_swap(w);
                (*examples)++;
            }
            update_rows(m->input, r, grad, dim);
        } else {
            ns_begin_word_drawn_ahead(w, rng, i);
            if (i + 1 < len) {
                wv_prefetch_span(wv_out_row(&w->rows, sen[i + 1], dim), (size_t)dim);
                ns_draw_next(w, rng); /* the next word's */
                if (i + 1 + window < len) prefetch_rows(m->input, rows_of(m, sen[i + 1 + window]), dim);
            }
            if (lo == hi) continue;
            int n = 0;
            wv_zero(h, dim);
            for (int c = lo; c <= hi; c++) {
                if (c == i) continue;
                row_list r = rows_of(m, sen[c]);
                add_rows(m->input, r, h, dim);
                n += r.n;
            }
            wv_scale(1.0f / (float)n, h, dim);
            wv_zero(grad, dim);
            *loss += ns_update(m, &w->rows, h, word, w->negatives, neg, grad, alpha);
            (*examples)++;
            for (int c = lo; c <= hi; c++)
                if (c != i) update_rows(m->input, rows_of(m, sen[c]), grad, dim);
        }
    }
}

const wv_w2v_loss wv_loss_ns_subword = {
    .train_sentence = train_sentence,
    .step = wv_ns_step,
    .hot_rows = ns_hot_rows,
    .scratch_floats = wv_w2v_no_scratch,
};

double wv_w2v_subword_step(wv_w2v_model *m, const int32_t *rows, int n_rows, int32_t target,
                           const int32_t *negatives, float alpha, float *scratch) {
    wv_w2v_worker w = wv_w2v_step_worker(m, negatives, NULL);
    const int dim = m->cfg.dim;
    float *h = scratch, *grad = scratch + dim;
    row_list r = {rows, n_rows};
    wv_zero(h, dim);
    add_rows(m->input, r, h, dim);
    wv_scale(1.0f / (float)n_rows, h, dim);
    wv_zero(grad, dim);
    double loss = ns_update(m, &w.rows, h, target, negatives, m->cfg.negative, grad, alpha);
    update_rows(m->input, r, grad, dim);
    return loss;
}
