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
 * context words predicts the centre word; each sentence position sums its
 * word's rows once, when it enters a window, and keeps that sum up to date
 * with the gradients it receives, which reach its rows once, when it leaves
 * the last window (fastText sums and updates every context word's rows for
 * every window it is in, 2 x window times). A row shared by two positions
 * of one window sees the other's gradients late. Negatives are drawn as loss_ns.c
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

/* Skip-gram with one negative set per window (cfg.shared_negatives, as
 * loss_ns_window.c): the centre word's mean h against its m_ctx context
 * words' output rows and the K negatives' at once. h is fixed over the
 * window, so a negative's m_ctx pairs share one dot product: its gradient is
 * that of one pair times the pairs where it is not the context word (those
 * are skipped, as word2vec.c). All products are taken first; grad gets the
 * output rows' contribution before they change. */
WV_HOT double sg_window(wv_w2v_worker *w, const float *h, const int32_t *ctx, int m_ctx, float *grad,
                        float alpha) {
    const wv_w2v_model *m = w->m;
    const int dim = m->cfg.dim, k_neg = m->cfg.negative, n = m_ctx + k_neg;
    enum { MAX_OUT = 2 * 64 + 64 }; /* window <= 64, negative <= 63: checked by the bindings */
    float *outs[MAX_OUT];
    float dots[MAX_OUT], g[MAX_OUT];
    for (int j = 0; j < m_ctx; j++) outs[j] = wv_out_row(&w->rows, ctx[j], dim);
    for (int k = 0; k < k_neg; k++) outs[m_ctx + k] = wv_out_row(&w->rows, w->negatives[k], dim);
    wv_dots(h, (const float *const *)outs, n, dim, dots);
    double loss = 0.0;
    for (int j = 0; j < m_ctx; j++) {
        loss -= wv_log_sigmoid(&m->sigmoid, dots[j]);
        g[j] = ns_gradient(&m->sigmoid, dots[j], 1.0f, alpha);
    }
    for (int k = 0; k < k_neg; k++) {
        int pairs = 0;
        for (int j = 0; j < m_ctx; j++) pairs += ctx[j] != w->negatives[k];
        float f = dots[m_ctx + k];
        loss -= pairs * wv_log_sigmoid(&m->sigmoid, -f);
        g[m_ctx + k] = (float)pairs * ns_gradient(&m->sigmoid, f, 0.0f, alpha);
    }
    wv_add_combination(grad, (const float *const *)outs, g, 1, n, dim);
    for (int k = 0; k < n; k++) wv_axpy(g[k], h, outs[k], dim);
    return loss;
}

/* One skip-gram pair with its own negatives: h (fixed over the window) against
 * the context word's output row and the K negatives' rows, all dot products
 * first (h is read once for all of them), then grad and the rows. A negative
 * equal to the context word is skipped, as word2vec.c. */
WV_HOT double sg_pair(wv_w2v_worker *w, const float *h, int32_t target, float *grad, float alpha) {
    const wv_w2v_model *m = w->m;
    const int dim = m->cfg.dim, n = 1 + m->cfg.negative;
    enum { MAX_OUT = 64 }; /* negative <= 63: checked by the bindings */
    float *outs[MAX_OUT];
    float dots[MAX_OUT], g[MAX_OUT];
    outs[0] = wv_out_row(&w->rows, target, dim);
    for (int k = 1; k < n; k++) outs[k] = wv_out_row(&w->rows, w->negatives[k - 1], dim);
    wv_dots(h, (const float *const *)outs, n, dim, dots);
    double loss = -wv_log_sigmoid(&m->sigmoid, dots[0]);
    g[0] = ns_gradient(&m->sigmoid, dots[0], 1.0f, alpha);
    for (int k = 1; k < n; k++) {
        g[k] = 0.0f;
        if (w->negatives[k - 1] == target) continue;
        loss -= wv_log_sigmoid(&m->sigmoid, -dots[k]);
        g[k] = ns_gradient(&m->sigmoid, dots[k], 0.0f, alpha);
    }
    wv_add_combination(grad, (const float *const *)outs, g, 1, n, dim);
    for (int k = 0; k < n; k++) wv_axpy(g[k], h, outs[k], dim);
    return loss;
}

WV_MULTIVERSION /* vecmath.h */
static void train_sentence(wv_w2v_worker *w, wv_rng *rng, int len, float alpha, double *loss,
                           int64_t *examples) {
    wv_w2v_model *m = w->m;
    const int dim = m->cfg.dim, window = m->cfg.window, neg = m->cfg.negative;
    const int skipgram = m->cfg.arch == WV_SKIPGRAM, shared = m->cfg.shared_negatives;
    const int32_t *sen = w->sentence;
    float *h = w->neu1, *grad = w->neu1e;
    /* CBOW: the positions [applied, ready) hold their word's sum of rows
     * (sums) and the gradients not yet added to those rows (pending) */
    float *sums = w->scratch, *pending = skipgram ? NULL : w->scratch + (size_t)m->cfg.max_sentence_length * dim;
    int ready = 0, applied = 0;
    for (int i = 0; i < len; i++) {
        int32_t word = sen[i];
        int radius = m->cfg.shrink_windows ? window - (int)wv_rng_below(rng, (uint32_t)window) : window;
        int lo = i - radius < 0 ? 0 : i - radius;
        int hi = i + radius >= len ? len - 1 : i + radius;
        if (skipgram) {
            if (shared) ns_begin_word_drawn_ahead(w, rng, i);
            else if (i == 0) ns_draw(m, rng, w->negatives); /* the first pair's; later ones a pair ahead */
            if (i + 1 < len) {
                /* the next centre word's rows, read while this window trains */
                prefetch_rows(m->input, rows_of(m, sen[i + 1]), dim);
                if (shared) ns_draw_next(w, rng); /* the next word's */
            }
            if (lo == hi) continue;
            row_list r = rows_of(m, word);
            wv_zero(h, dim);
            add_rows(m->input, r, h, dim);
            wv_scale(1.0f / (float)r.n, h, dim);
            wv_zero(grad, dim);
            if (shared) {
                int32_t ctx[2 * 64]; /* window <= 64 (checked by the bindings) */
                int m_ctx = 0;
                for (int c = lo; c <= hi; c++)
                    if (c != i) ctx[m_ctx++] = sen[c];
                *loss += sg_window(w, h, ctx, m_ctx, grad, alpha);
                *examples += m_ctx;
            } else {
                for (int c = lo; c <= hi; c++) {
                    if (c == i) continue;
                    ns_draw_next(w, rng);
                    *loss += sg_pair(w, h, sen[c], grad, alpha);
                    ns_swap(w);
                    (*examples)++;
                }
            }
            update_rows(m->input, r, grad, dim);
        } else {
            ns_begin_word_drawn_ahead(w, rng, i);
            if (i + 1 < len) {
                wv_prefetch_span(wv_out_row(&w->rows, sen[i + 1], dim), (size_t)dim);
                ns_draw_next(w, rng); /* the next word's */
                if (i + 1 + window < len) prefetch_rows(m->input, rows_of(m, sen[i + 1 + window]), dim);
            }
            /* positions entering a window get their sums; those no window
             * will see again get their gradients */
            for (; ready < len && ready <= i + window; ready++) {
                wv_zero(sums + (size_t)ready * dim, dim);
                wv_zero(pending + (size_t)ready * dim, dim);
                add_rows(m->input, rows_of(m, sen[ready]), sums + (size_t)ready * dim, dim);
            }
            for (; applied < i - window; applied++)
                update_rows(m->input, rows_of(m, sen[applied]), pending + (size_t)applied * dim, dim);
            if (lo == hi) continue;
            int n = 0;
            wv_zero(h, dim);
            for (int c = lo; c <= hi; c++) {
                if (c == i) continue;
                wv_axpy(1.0f, sums + (size_t)c * dim, h, dim);
                n += rows_of(m, sen[c]).n;
            }
            wv_scale(1.0f / (float)n, h, dim);
            wv_zero(grad, dim);
            *loss += ns_update(m, &w->rows, h, word, w->negatives, neg, grad, alpha);
            (*examples)++;
            for (int c = lo; c <= hi; c++) {
                if (c == i) continue;
                wv_axpy(1.0f, grad, pending + (size_t)c * dim, dim);
                wv_axpy((float)rows_of(m, sen[c]).n, grad, sums + (size_t)c * dim, dim); /* its rows, once applied */
            }
        }
    }
    for (; !skipgram && applied < ready; applied++)
        update_rows(m->input, rows_of(m, sen[applied]), pending + (size_t)applied * dim, dim);
}

/* CBOW's two rows a sentence position: the sum of its word's rows and the
 * gradients it has received that its rows have not yet. */
static size_t subword_scratch(const wv_w2v_model *m) {
    return m->cfg.arch == WV_CBOW ? 2 * (size_t)m->cfg.max_sentence_length * (size_t)m->cfg.dim : 0;
}

const wv_w2v_loss wv_loss_ns_subword = {
    .train_sentence = train_sentence,
    .step = wv_ns_step,
    .hot_rows = ns_hot_rows,
    .scratch_floats = subword_scratch,
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
