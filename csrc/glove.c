#include "glove.h"

#include <math.h>
#include <stdlib.h>

#include "memory.h"
#include "rng.h"
#include "vecmath.h"

#define PROGRESS_STEP 65536
/* Records are in random order: the rows of the record this many ahead are
 * requested while the current one is computed (the loop waits on memory). */
#define PREFETCH_AHEAD 16

struct wv_glove_worker {
    wv_glove_model *m;
    int64_t begin, end;
    float *scratch;   /* 2 * dim: the pending updates of both vectors */
    double cost;
};

void wv_glove_model_init(wv_glove_model *m) {
    m->row_stride = 0; /* set with the arrays */
    m->bias_stride = 0;
    atomic_store(&m->records_done, 0);
    atomic_store(&m->stop, 0);
    m->n_threads = 0;
    m->run.running = 0;
    m->workers = NULL;
}

WV_HOT float clip(float g) {
    return g > WV_GLOVE_GRAD_CLIP ? WV_GLOVE_GRAD_CLIP : (g < -WV_GLOVE_GRAD_CLIP ? -WV_GLOVE_GRAD_CLIP : g);
}

WV_HOT float finite_or_zero(float x) { return isfinite(x) ? x : 0.0f; }

WV_HOT void prefetch_record(const wv_glove_model *m, const wv_glove_record *r) {
    const size_t dim = (size_t)m->dim, i = (size_t)r->row * (size_t)m->row_stride,
                 j = (size_t)r->col * (size_t)m->row_stride;
    wv_prefetch_span(m->word + i, dim);
    wv_prefetch_span(m->context + j, dim);
    wv_prefetch_span(m->word_gradsq + i, dim);
    wv_prefetch_span(m->context_gradsq + j, dim);
    const size_t bi = (size_t)r->row * (size_t)m->bias_stride, bj = (size_t)r->col * (size_t)m->bias_stride;
    __builtin_prefetch(m->word_bias + bi, 1, 3);
    __builtin_prefetch(m->context_bias + bj, 1, 3);
    __builtin_prefetch(m->word_bias_gradsq + bi, 1, 3);
    __builtin_prefetch(m->context_bias_gradsq + bj, 1, 3);
}

WV_HOT double update(wv_glove_model *m, const wv_glove_record *r, float *scratch) {
    const int dim = m->dim;
    const size_t i = (size_t)r->row * (size_t)m->row_stride, j = (size_t)r->col * (size_t)m->row_stride;
    const size_t bi = (size_t)r->row * (size_t)m->bias_stride, bj = (size_t)r->col * (size_t)m->bias_stride;
    float *wi = m->word + i, *wj = m->context + j;
    float *gi = m->word_gradsq + i, *gj = m->context_gradsq + j;
    float diff = wv_dot(wi, wj, dim) + m->word_bias[bi] + m->context_bias[bj] - r->log_x;
    float fdiff = r->weight * diff;
    if (!isfinite(diff) || !isfinite(fdiff)) return 0.0; /* glove.c skips such a record */
    float *ui = scratch, *uj = scratch + dim;
    float sum_i = 0.0f, sum_j = 0.0f;
    const float eta = m->eta;
    /* Vectorised (8 lanes with AVX2): sqrt and division dominate a record;
     * the sums only decide whether the step is finite, so their order is free. */
#pragma omp simd reduction(+ : sum_i, sum_j)
    for (int b = 0; b < dim; b++) {
        float t1 = clip(fdiff * wj[b]) * eta;
        float t2 = clip(fdiff * wi[b]) * eta;
        ui[b] = t1 / sqrtf(gi[b]);
        uj[b] = t2 / sqrtf(gj[b]);
        sum_i += ui[b];
        sum_j += uj[b];
        gi[b] += t1 * t1;
        gj[b] += t2 * t2;
    }
    if (isfinite(sum_i) && isfinite(sum_j)) {
        wv_axpy(-1.0f, ui, wi, dim);
        wv_axpy(-1.0f, uj, wj, dim);
    }
    /* biases: glove.c steps them with fdiff, not fdiff * eta */
    m->word_bias[bi] -= finite_or_zero(fdiff / sqrtf(m->word_bias_gradsq[bi]));
    m->context_bias[bj] -= finite_or_zero(fdiff / sqrtf(m->context_bias_gradsq[bj]));
    float f2 = fdiff * fdiff;
    m->word_bias_gradsq[bi] += f2;
    m->context_bias_gradsq[bj] += f2;
    return 0.5 * (double)fdiff * (double)diff;
}

double wv_glove_step(wv_glove_model *m, const wv_glove_record *r, float *scratch) {
    return update(m, r, scratch);
}

WV_MULTIVERSION /* vecmath.h */
static void run_worker(wv_glove_worker *w) {
    wv_glove_model *m = w->m;
    int64_t since = 0;
    double cost = 0.0; /* a local: workers share cache lines in their array */
    for (int64_t p = w->begin; p < w->end; p++) {
        if (PREFETCH_AHEAD && p + PREFETCH_AHEAD < w->end) prefetch_record(m, &m->records[p + PREFETCH_AHEAD]);
        cost += update(m, &m->records[p], w->scratch);
        if (++since == PROGRESS_STEP) {
            atomic_fetch_add_explicit(&m->records_done, since, memory_order_relaxed);
            since = 0;
            if (atomic_load_explicit(&m->stop, memory_order_relaxed)) break;
        }
    }
    atomic_fetch_add_explicit(&m->records_done, since, memory_order_relaxed);
    w->cost = cost;
}

static void worker_main(void *arg) { run_worker(arg); }

static void free_workers(wv_glove_model *m) {
    if (!m->workers) return;
    for (int t = 0; t < m->n_threads; t++) free(m->workers[t].scratch);
    free(m->workers);
    m->workers = NULL;
    m->n_threads = 0;
}

int wv_glove_start_epoch(wv_glove_model *m, int n_threads) {
    if (m->run.running) return 4;
    if (n_threads < 1) n_threads = 1;
    atomic_store(&m->stop, 0);
    atomic_store(&m->records_done, 0);
    m->workers = calloc((size_t)n_threads, sizeof *m->workers);
    if (!m->workers) return 1;
    m->n_threads = n_threads;
    for (int t = 0; t < n_threads; t++) {
        wv_glove_worker *w = &m->workers[t];
        w->m = m;
        w->begin = m->n_records * t / n_threads;
        w->end = m->n_records * (t + 1) / n_threads;
        w->scratch = wv_alloc_lines(2 * (size_t)m->dim * sizeof(float));
        if (!w->scratch) {
            free_workers(m);
            return 1;
        }
    }
    int rc = wv_run_start(&m->run, n_threads, worker_main, m->workers, sizeof *m->workers);
    if (rc == -2) {
        free_workers(m);
        return 1;
    }
    if (rc) atomic_store(&m->stop, 1); /* join_epoch joins the started ones and reports it */
    return 0;
}

int wv_glove_join_epoch(wv_glove_model *m, double *cost) {
    *cost = 0.0;
    if (!m->run.running) return 0;
    int failed = m->run.threads.started < m->n_threads;
    wv_run_join(&m->run);
    for (int t = 0; t < m->n_threads; t++) *cost += m->workers[t].cost;
    free_workers(m);
    return failed ? 2 : 0;
}

int wv_glove_make_records(const int64_t *indptr, const int32_t *indices, const float *data,
                          int32_t n_rows, double x_max, double alpha, uint64_t seed,
                          wv_glove_record *out) {
    int64_t n = indptr[n_rows];
    for (int32_t i = 0; i < n_rows; i++) {
        for (int64_t e = indptr[i]; e < indptr[i + 1]; e++) {
            double x = data[e];
            if (!(x > 0.0) || !isfinite(x)) return -1;
            out[e].row = i;
            out[e].col = indices[e];
            out[e].log_x = (float)log(x);
            out[e].weight = x > x_max ? 1.0f : (float)pow(x / x_max, alpha);
        }
    }
    wv_rng rng;
    wv_rng_seed(&rng, seed, 0x61C8864680B583EBULL, 0);
    for (int64_t k = n - 1; k > 0; k--) {
        int64_t j = (int64_t)(wv_rng_next(&rng) % (uint64_t)(k + 1));
        wv_glove_record t = out[k];
        out[k] = out[j];
        out[j] = t;
    }
    return 0;
}
