/* fastText's unsupervised model (cfg.subwords): the sentence loop, written
 * once for its losses (loss_ns_subword.c, loss_hs_subword.c,
 * loss_softmax_subword.c). A word's input vector is the mean of its rows,
 * its own and its character n-grams' (subword_rows.h), and every one of
 * those rows receives the whole gradient of that mean, as fastText applies
 * it.
 *
 * CBOW, as fastText: the mean of all rows of all context words predicts the
 * centre word. Each sentence position sums its word's rows once, when it
 * enters a window, and keeps that sum up to date with the gradients it
 * receives, which reach its rows once, when it leaves the last window
 * (fastText sums and updates every context word's rows for every window it
 * is in, 2 x window times). A row shared by two positions of one window sees
 * the other's gradients late.
 *
 * Skip-gram with one negative set per centre word (cfg.shared_negatives, a
 * loss that defines SUBWORD_SG_POSITIONS) takes word2vec.c's orientation on
 * the same positions: each context position's mean predicts the centre
 * word. Every pair of words is trained in one direction or the other as
 * often as in fastText's (the window is symmetric), and a window's 1 + K
 * output rows are fetched once rather than once per pair. Otherwise
 * skip-gram takes fastText's orientation: the centre word's mean predicts
 * each context word, taken once per centre word, the window's gradients
 * added up and applied to its rows once, after the window (fastText takes
 * the mean again and updates the rows after every pair: a word of 10
 * n-grams in a window of 6 pairs reads and writes 66 rows where this reads
 * and writes 11). Own loop, not w2v_sentence.h's: the input vector is not
 * one row.
 *
 * A loss file defines these hooks, static and WV_HOT, then includes this
 * file, which defines its train_sentence with the hooks inlined:
 *
 *   subword_begin_word(w, rng, i, len)   before centre word i: its random
 *                                  draws and the output rows to prefetch
 *   subword_sg_window(w, rng, h, lo, hi, i, grad, alpha, examples)
 *                                  skip-gram without positions (fastText's
 *                                  orientation): the centre word's mean h
 *                                  predicts sentence[lo..hi] but i; adds
 *                                  the error for h times alpha to grad
 *   subword_cbow(w, h, word, grad, alpha)  CBOW: the context's mean h
 *                                  predicts the centre word
 *   subword_sg_positions(w, sums, pending, lo, hi, i, alpha, examples)
 *                                  with SUBWORD_SG_POSITIONS defined:
 *                                  skip-gram's window as positions (above)
 *
 * The last three return the loss of what they trained. No include guard:
 * each loss file includes this once. */
#include "subword_rows.h"
#include "w2v_loss.h"

WV_MULTIVERSION /* vecmath.h */
static void train_sentence(wv_w2v_worker *w, wv_rng *rng, int len, float alpha, double *loss,
                           int64_t *examples) {
    wv_w2v_model *m = w->m;
    const int dim = m->cfg.dim, window = m->cfg.window;
    const int positions = subword_positions(m); /* else skip-gram in fastText's orientation */
    const int32_t *sen = w->sentence;
    float *h = w->neu1, *grad = w->neu1e;
    /* the positions [applied, ready) hold their word's sum of rows (sums)
     * and the gradients not yet added to those rows (pending), in
     * w->scratch (subword_scratch) */
    float *sums = w->scratch, *pending = w->scratch + (size_t)m->cfg.max_sentence_length * dim;
    int ready = 0, applied = 0;
    for (int i = 0; i < len; i++) {
        int32_t word = sen[i];
        int radius = m->cfg.shrink_windows ? window - (int)wv_rng_below(rng, (uint32_t)window) : window;
        int lo = i - radius < 0 ? 0 : i - radius;
        int hi = i + radius >= len ? len - 1 : i + radius;
        subword_begin_word(w, rng, i, len);
        if (!positions) {
            /* the next centre word's rows, read while this window trains */
            if (i + 1 < len) prefetch_rows(m->input, rows_of(m, sen[i + 1]), dim);
            if (lo == hi) continue;
            row_list r = rows_of(m, word);
            wv_zero(h, dim);
            add_rows(m->input, r, h, dim);
            wv_scale(1.0f / (float)r.n, h, dim);
            wv_zero(grad, dim);
            *loss += subword_sg_window(w, rng, h, lo, hi, i, grad, alpha, examples);
            update_rows(m->input, r, grad, dim);
        } else {
            /* positions entering a window get their sums; those no window
             * will see again get their gradients. The entering rows are
             * not prefetched: the sum's loads, independent of each other,
             * overlap their misses well enough, and asking for every line
             * ahead was slower (docs/performance.md) */
            for (; ready < len && ready <= i + window; ready++) {
                wv_zero(sums + (size_t)ready * dim, dim);
                wv_zero(pending + (size_t)ready * dim, dim);
                add_rows(m->input, rows_of(m, sen[ready]), sums + (size_t)ready * dim, dim);
            }
            for (; applied < i - window; applied++)
                update_rows(m->input, rows_of(m, sen[applied]), pending + (size_t)applied * dim, dim);
            if (lo == hi) continue;
#ifdef SUBWORD_SG_POSITIONS
            if (m->cfg.arch == WV_SKIPGRAM) {
                *loss += subword_sg_positions(w, sums, pending, lo, hi, i, alpha, examples);
                continue;
            }
#endif
            float *ctx_sums[MAX_CONTEXT], *ctx_pending[MAX_CONTEXT], n_rows[MAX_CONTEXT];
            int m_ctx = context_positions(m, sen, sums, pending, lo, hi, i, ctx_sums, ctx_pending, n_rows);
            float n = 0.0f;
            for (int j = 0; j < m_ctx; j++) n += n_rows[j];
            wv_zero(h, dim);
            wv_add_combination(h, (const float *const *)ctx_sums, &ONE, 0, m_ctx, dim);
            wv_scale(1.0f / n, h, dim);
            wv_zero(grad, dim);
            *loss += subword_cbow(w, h, word, grad, alpha);
            (*examples)++;
            wv_add_to_rows(ctx_pending, &ONE, 0, m_ctx, grad, dim);
            wv_add_to_rows(ctx_sums, n_rows, 1, m_ctx, grad, dim); /* its rows, once applied */
        }
    }
    for (; positions && applied < ready; applied++)
        update_rows(m->input, rows_of(m, sen[applied]), pending + (size_t)applied * dim, dim);
}
