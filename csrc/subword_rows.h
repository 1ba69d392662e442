/* A vocabulary word's input rows in fastText's model (cfg.subwords): its
 * own row, then its character n-grams' (m->subword_rows, computed once per
 * word; subwords.h), the sums and updates taken over them, and the scratch
 * the subword sentence loop needs. Internal to the word2vec core. */
#ifndef WV_SUBWORD_ROWS_H
#define WV_SUBWORD_ROWS_H

#include "vecmath.h"
#include "w2v.h"

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

/* Whether the subword sentence loop keeps sentence positions' sums: CBOW,
 * and skip-gram with one negative set per centre word (w2v_subword_sentence.h). */
static inline int subword_positions(const wv_w2v_model *m) {
    return m->cfg.arch == WV_CBOW || (m->cfg.shared_negatives && m->cfg.loss == WV_LOSS_NS);
}

/* Floats of a worker's scratch the subword sentence loop takes (a loss's
 * own follow them): with positions, two rows a sentence position, the sum
 * of its word's rows and the gradients it has received that its rows have
 * not yet. */
static inline size_t subword_scratch(const wv_w2v_model *m) {
    return subword_positions(m) ? 2 * (size_t)m->cfg.max_sentence_length * (size_t)m->cfg.dim : 0;
}

#endif
