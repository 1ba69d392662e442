/* The full symmetric CSR matrix from the counted upper triangle, on several
 * threads. Each thread owns a range of output rows and writes only there,
 * so no two threads touch one row and the result does not depend on the
 * thread count: row v receives its transposed entries (a, v), a < v, in
 * record order, then its own (v, c), c >= v, so every row comes out sorted.
 * A thread reads the records of rows below its range's end and keeps those
 * that land in its range. */
#include <stdlib.h>
#include <string.h>

#include "cooccur.h"
#include "parallel.h"

typedef struct {
    const wv_cooc_result *r;
    int64_t *indptr;
    int32_t *indices;
    float *data;
    int32_t row_begin, row_end; /* output rows owned */
} csr_slice;

/* indptr[v + 1] = entries of row v, for the owned rows. */
static void *count_rows(void *arg) {
    csr_slice *s = arg;
    const int32_t lo = s->row_begin, hi = s->row_end;
    int64_t *count = s->indptr + 1;
    for (int32_t v = lo; v < hi; v++) count[v] = 0;
    for (int k = 0; k < s->r->n_parts; k++) {
        const wv_cooc_part *p = &s->r->parts[k];
        for (int64_t e = 0; e < p->n; e++) {
            int32_t a = p->rows[e], b = p->cols[e];
            if (a >= hi) return NULL; /* later records never reach the owned rows */
            if (a >= lo) count[a]++;
            if (a != b && b >= lo && b < hi) count[b]++;
        }
    }
    return NULL;
}

/* Writes the owned rows; indptr[v] is row v's cursor and ends at its end. */
static void *fill_rows(void *arg) {
    csr_slice *s = arg;
    const int32_t lo = s->row_begin, hi = s->row_end;
    const double unit = (double)s->r->unit;
    int64_t *cursor = s->indptr;
    for (int k = 0; k < s->r->n_parts; k++) {
        const wv_cooc_part *p = &s->r->parts[k];
        for (int64_t e = 0; e < p->n; e++) {
            int32_t a = p->rows[e], b = p->cols[e];
            if (a >= hi) return NULL;
            int own = a >= lo, mirrored = a != b && b >= lo && b < hi;
            if (!own && !mirrored) continue;
            double x = (double)p->units[e] / unit;
            if (own) {
                s->indices[cursor[a]] = b;
                s->data[cursor[a]++] = (float)(a == b ? 2.0 * x : x); /* X[w][w] / 2 is stored */
            }
            if (mirrored) {
                s->indices[cursor[b]] = a;
                s->data[cursor[b]++] = (float)x;
            }
        }
    }
    return NULL;
}

int64_t wv_cooc_full_nnz(const wv_cooc_result *r) {
    int64_t nnz = 0;
    for (int k = 0; k < r->n_parts; k++) {
        const wv_cooc_part *p = &r->parts[k];
        for (int64_t e = 0; e < p->n; e++) nnz += p->rows[e] == p->cols[e] ? 1 : 2;
    }
    return nnz;
}

/* Splits rows [0, V) into T ranges: of equal row counts when prefix is
 * NULL, else of equal entries (prefix[v] = entries in rows before v). */
static void split(csr_slice *slices, int T, int32_t V, const int64_t *prefix) {
    int32_t begin = 0;
    for (int t = 0; t < T; t++) {
        int32_t end = V;
        if (t < T - 1) {
            if (!prefix) {
                end = (int32_t)((int64_t)V * (t + 1) / T);
            } else { /* first row whose prefix reaches (t + 1) / T of the total */
                int64_t target = prefix[V] / T * (t + 1);
                int32_t lo = begin, hi = V;
                while (lo < hi) {
                    int32_t mid = lo + (hi - lo) / 2;
                    if (prefix[mid] < target) lo = mid + 1;
                    else hi = mid;
                }
                end = lo;
            }
        }
        slices[t].row_begin = begin;
        slices[t].row_end = end;
        begin = end;
    }
}

void wv_cooc_to_csr(const wv_cooc_result *r, int32_t vocab_size, int64_t *indptr, int32_t *indices, float *data,
                    int threads) {
    int T = threads > 0 ? threads : 1;
    if (T > vocab_size) T = vocab_size > 0 ? vocab_size : 1;
    csr_slice one, *slices = T > 1 ? malloc((size_t)T * sizeof *slices) : NULL;
    if (!slices) { /* one thread, or no memory for more: the same result */
        T = 1;
        slices = &one;
    }
    for (int t = 0; t < T; t++) slices[t] = (csr_slice){r, indptr, indices, data, 0, 0};
    indptr[0] = 0;
    split(slices, T, vocab_size, NULL);
    wv_threads_run(T, count_rows, slices, sizeof *slices);
    for (int32_t v = 0; v < vocab_size; v++) indptr[v + 1] += indptr[v];
    split(slices, T, vocab_size, indptr); /* equal numbers of entries to write */
    wv_threads_run(T, fill_rows, slices, sizeof *slices);
    /* Each cursor stopped at its row's end, the next row's start: shift back. */
    memmove(indptr + 1, indptr, (size_t)vocab_size * sizeof *indptr);
    indptr[0] = 0;
    if (slices != &one) free(slices);
}
