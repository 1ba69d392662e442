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

/* The rows are taken ROW_BLOCK at a time, each block's addresses first, so
 * that the vector kernels keep the sum (the gradient) in registers over a
 * block. */
enum { ROW_BLOCK = 64 };
static const float ONE = 1.0f; /* the coefficient of a plain sum (a stride of 0) */

WV_HOT int row_block(float *input, row_list r, int k0, int dim, float **at) {
    int n = r.n - k0 < ROW_BLOCK ? r.n - k0 : ROW_BLOCK;
    for (int k = 0; k < n; k++) at[k] = input + (size_t)r.rows[k0 + k] * dim;
    return n;
}

/* sum += the sum of r's rows. */
WV_HOT void add_rows(const float *input, row_list r, float *sum, int dim) {
    float *at[ROW_BLOCK];
    for (int k0 = 0; k0 < r.n; k0 += ROW_BLOCK) {
        int n = row_block((float *)input, r, k0, dim, at);
        wv_add_combination(sum, (const float *const *)at, &ONE, 0, n, dim);
    }
}

/* Each of r's rows += grad. */
WV_HOT void update_rows(float *input, row_list r, const float *grad, int dim) {
    float *at[ROW_BLOCK];
    for (int k0 = 0; k0 < r.n; k0 += ROW_BLOCK)
        wv_add_to_rows(at, &ONE, 0, row_block(input, r, k0, dim, at), grad, dim);
}

WV_HOT void prefetch_rows(const float *input, row_list r, int dim) {
    for (int k = 0; k < r.n; k++) wv_prefetch_span(input + (size_t)r.rows[k] * dim, (size_t)dim);
}

/* The context of centre position i, the positions lo..hi but i, as the
 * sentence loop keeps them (w2v_subword_sentence.h): each one's sum of rows
 * (sums[j]), gradients pending for its rows (pend[j]) and number of rows
 * (n_rows[j]). Returns how many; window <= 64 (checked by the bindings). */
enum { MAX_CONTEXT = 2 * 64 };
WV_HOT int context_positions(const wv_w2v_model *m, const int32_t *sentence, float *sums, float *pending, int lo,
                             int hi, int i, float **ctx_sums, float **ctx_pending, float *n_rows) {
    const int dim = m->cfg.dim;
    int n = 0;
    for (int c = lo; c <= hi; c++) {
        if (c == i) continue;
        ctx_sums[n] = sums + (size_t)c * dim;
        ctx_pending[n] = pending + (size_t)c * dim;
        n_rows[n++] = (float)rows_of(m, sentence[c]).n;
    }
    return n;
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
