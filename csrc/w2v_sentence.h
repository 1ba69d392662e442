/* The sentence loop of word2vec.c, written once for every loss. A loss file
 * (w2v_loss.h) defines these hooks, static and WV_HOT, then includes this
 * file, which defines its train_sentence with the hooks inlined:
 *
 *   loss_begin_word(w, rng, i)     before centre word i: the random draws
 *                                  that belong to the word (its negatives)
 *   loss_prefetch_word(w, rng, word)  look-ahead for the next centre word,
 *                                  issued while this one is computed: the
 *                                  rows are random and the loop waits on
 *                                  them more than on its arithmetic
 *   loss_pair(w, rng, h, word, neu1e, alpha)  skip-gram: the context word's
 *                                  input vector h predicts the centre word;
 *                                  adds the error for h times alpha to neu1e
 *   loss_predict(w, h, word, neu1e, alpha)    CBOW: the context's mean (or
 *                                  sum) h predicts the centre word
 *
 * or, with LOSS_TRAINS_WINDOWS defined to 1 (skip-gram only), instead of
 * the last two:
 *
 *   loss_window(w, ctx, m_ctx, word, alpha)   all of a window's pairs at once
 *
 * Each hook returns the loss of what it trained. No include guard: each
 * loss file includes this once, for its own train_sentence. */
#ifndef LOSS_TRAINS_WINDOWS
#define LOSS_TRAINS_WINDOWS 0
#endif

#include "vecmath.h"
#include "w2v_loss.h"

WV_MULTIVERSION /* vecmath.h: the hooks and kernels are compiled inside each clone */
static void train_sentence(wv_w2v_worker *w, wv_rng *rng, int len, float alpha, double *loss,
                           int64_t *examples) {
    wv_w2v_model *m = w->m;
    const int dim = m->cfg.dim, window = m->cfg.window;
    const int32_t *sen = w->sentence;
    for (int i = 0; i < len; i++) {
        int32_t word = sen[i];
        int radius = m->cfg.shrink_windows ? window - (int)wv_rng_below(rng, (uint32_t)window) : window;
        int lo = i - radius < 0 ? 0 : i - radius;
        int hi = i + radius >= len ? len - 1 : i + radius;
        loss_begin_word(w, rng, i);
        if (w->rows.touches >= WV_HOT_SYNC_TOUCHES) wv_hot_rows_sync(&w->rows, dim);
        if (i + 1 < len) {
            loss_prefetch_word(w, rng, sen[i + 1]);
            /* the input row of the word that enters the window next */
            if (i + 1 + window < len) wv_prefetch_span(m->input + (size_t)sen[i + 1 + window] * dim, (size_t)dim);
        }
#if LOSS_TRAINS_WINDOWS
        int32_t ctx[2 * 64]; /* window <= 64 (checked by the bindings) */
        int m_ctx = 0;
        for (int c = lo; c <= hi; c++)
            if (c != i) ctx[m_ctx++] = sen[c];
        if (!m_ctx) continue;
        *loss += loss_window(w, ctx, m_ctx, word, alpha);
        *examples += m_ctx;
#else
        float *neu1e = w->neu1e;
        if (m->cfg.arch == WV_SKIPGRAM) {
            /* word2vec.c's orientation: each context word's input vector
             * predicts the centre word. */
            for (int c = lo; c <= hi; c++) {
                if (c == i) continue;
                float *in = m->input + (size_t)sen[c] * dim;
                wv_zero(neu1e, dim);
                *loss += loss_pair(w, rng, in, word, neu1e, alpha);
                (*examples)++;
                wv_axpy(wv_input_lock(m, sen[c]), neu1e, in, dim);
            }
        } else {
            /* the context's rows summed, and later moved, in one pass each
             * (vecmath.h; the same sums as a loop of axpys) */
            float *neu1 = w->neu1, **in = w->window_rows, *locks = w->window_locks;
            float *input = m->input; /* held: the stores into `in` might alias the model */
            int cw = 0;
            for (int c = lo; c < i; c++) in[cw++] = input + (size_t)sen[c] * dim;
            for (int c = i + 1; c <= hi; c++) in[cw++] = input + (size_t)sen[c] * dim;
            if (!cw) continue;
            const float one = 1.0f;
            wv_set_combination(neu1, (const float *const *)in, &one, 0, cw, dim);
            if (m->cfg.cbow_mean) wv_scale(1.0f / (float)cw, neu1, dim);
            wv_zero(neu1e, dim);
            *loss += loss_predict(w, neu1, word, neu1e, alpha);
            (*examples)++;
            /* every context word gets the full (unscaled) error, as word2vec.c */
            if (!m->input_lock) {
                wv_add_to_rows(in, &one, 0, cw, neu1e, dim);
                continue;
            }
            int k = 0;
            for (int c = lo; c <= hi; c++)
                if (c != i) locks[k++] = wv_input_lock(m, sen[c]);
            wv_add_to_rows(in, locks, 1, cw, neu1e, dim);
        }
#endif
    }
}
