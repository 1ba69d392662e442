#include "glove.h"

#include <math.h>
#include <stdlib.h>

#include "glove_blocks.h"
#include "glove_grid.h"
#include "memory.h"
#include "rng.h"
#include "vecmath.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define WV_GLOVE_RSQRT 1 /* the AVX2 step below, chosen at run time */
#endif

#define PROGRESS_STEP 65536
/* Records are in random order: the rows of the record this many ahead are
 * requested while the current one is computed (the loop waits on memory). */
#define PREFETCH_AHEAD 16

struct wv_glove_worker {
    wv_glove_model *m;
    int index;        /* with a stream, index n_threads - 1 is the block reader */
    int64_t begin, end;
    float *scratch;   /* 2 * dim: the pending updates of both vectors */
    double cost;
};

void wv_glove_model_init(wv_glove_model *m) {
    m->row_stride = 0; /* set with the arrays */
    m->exact_sqrt = 0;
    m->bias_stride = 0;
    atomic_store(&m->records_done, 0);
    atomic_store(&m->stop, 0);
    m->n_threads = 0;
    m->run.running = 0;
    m->workers = NULL;
    m->records = NULL;
    m->n_records = 0;
    m->stream = NULL;
    m->scheduler = NULL;
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

/* Both vectors' AdaGrad step for components [from, to): u = clip(fdiff *
 * other) * eta / sqrt(gradsq) into ui, uj, and the accumulators grow by
 * the squared numerators. The steps' sums go to sums[0], sums[1]: they only
 * decide finiteness, so their order is free. */
WV_HOT void step_components(const float *restrict wi, const float *restrict wj, float *restrict gi,
                            float *restrict gj, float fdiff, float eta, int from, int to, float *restrict ui,
                            float *restrict uj, float *sums) {
    float sum_i = 0.0f, sum_j = 0.0f;
#pragma omp simd reduction(+ : sum_i, sum_j)
    for (int b = from; b < to; b++) {
        float t1 = clip(fdiff * wj[b]) * eta;
        float t2 = clip(fdiff * wi[b]) * eta;
        ui[b] = t1 / sqrtf(gi[b]);
        uj[b] = t2 / sqrtf(gj[b]);
        sum_i += ui[b];
        sum_j += uj[b];
        gi[b] += t1 * t1;
        gj[b] += t2 * t2;
    }
    sums[0] += sum_i;
    sums[1] += sum_j;
}

/* The vectors move by -u only if every u is finite (glove.c skips such an
 * update). */
WV_HOT void apply_steps(float *restrict wi, float *restrict wj, const float *restrict ui,
                        const float *restrict uj, const float *sums, int dim) {
    if (isfinite(sums[0]) && isfinite(sums[1])) {
        wv_axpy(-1.0f, ui, wi, dim);
        wv_axpy(-1.0f, uj, wj, dim);
    }
}

WV_HOT void step_rows_exact(float *restrict wi, float *restrict wj, float *restrict gi, float *restrict gj,
                            float fdiff, float eta, int dim, float *restrict ui, float *restrict uj) {
    float sums[2] = {0.0f, 0.0f};
    step_components(wi, wj, gi, gj, fdiff, eta, 0, dim, ui, uj, sums);
    apply_steps(wi, wj, ui, uj, sums, dim);
}

#ifdef WV_GLOVE_RSQRT
/* 1/sqrt(g) for g >= 1: the 12-bit estimate and one Newton step. */
__attribute__((target("avx2,fma"))) static inline __m256 rsqrt_refined(__m256 g) {
    __m256 r = _mm256_rsqrt_ps(g);
    __m256 half_g_r2 = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), g), _mm256_mul_ps(r, r));
    return _mm256_mul_ps(r, _mm256_sub_ps(_mm256_set1_ps(1.5f), half_g_r2));
}

/* step_rows_exact with the division by sqrt replaced by rsqrt_refined. The
 * accumulators get the same values. Clipping keeps a NaN a NaN, as clip(). */
__attribute__((target("avx2,fma"))) static void step_rows_rsqrt(float *restrict wi, float *restrict wj,
                                                                 float *restrict gi, float *restrict gj,
                                                                 float fdiff, float eta, int dim,
                                                                 float *restrict ui, float *restrict uj) {
    const __m256 f = _mm256_set1_ps(fdiff), e = _mm256_set1_ps(eta);
    const __m256 hi = _mm256_set1_ps(WV_GLOVE_GRAD_CLIP), lo = _mm256_set1_ps(-WV_GLOVE_GRAD_CLIP);
    __m256 si = _mm256_setzero_ps(), sj = _mm256_setzero_ps();
    int b = 0;
    for (; b + 8 <= dim; b += 8) {
        __m256 t1 = _mm256_mul_ps(_mm256_min_ps(hi, _mm256_max_ps(lo, _mm256_mul_ps(f, _mm256_loadu_ps(wj + b)))), e);
        __m256 t2 = _mm256_mul_ps(_mm256_min_ps(hi, _mm256_max_ps(lo, _mm256_mul_ps(f, _mm256_loadu_ps(wi + b)))), e);
        __m256 g1 = _mm256_loadu_ps(gi + b), g2 = _mm256_loadu_ps(gj + b);
        __m256 u1 = _mm256_mul_ps(t1, rsqrt_refined(g1)), u2 = _mm256_mul_ps(t2, rsqrt_refined(g2));
        _mm256_storeu_ps(ui + b, u1);
        _mm256_storeu_ps(uj + b, u2);
        si = _mm256_add_ps(si, u1);
        sj = _mm256_add_ps(sj, u2);
        _mm256_storeu_ps(gi + b, _mm256_add_ps(g1, _mm256_mul_ps(t1, t1)));
        _mm256_storeu_ps(gj + b, _mm256_add_ps(g2, _mm256_mul_ps(t2, t2)));
    }
    float lanes_i[8], lanes_j[8], sums[2] = {0.0f, 0.0f};
    _mm256_storeu_ps(lanes_i, si);
    _mm256_storeu_ps(lanes_j, sj);
    for (int k = 0; k < 8; k++) {
        sums[0] += lanes_i[k];
        sums[1] += lanes_j[k];
    }
    step_components(wi, wj, gi, gj, fdiff, eta, b, dim, ui, uj, sums); /* the last dim % 8 */
    apply_steps(wi, wj, ui, uj, sums, dim);
}

static int has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
#define step_rows_rsqrt step_rows_exact /* never chosen: use_rsqrt() is 0 */
#endif

WV_HOT double update(wv_glove_model *m, const wv_glove_record *r, float *scratch, int rsqrt) {
    const int dim = m->dim;
    const size_t i = (size_t)r->row * (size_t)m->row_stride, j = (size_t)r->col * (size_t)m->row_stride;
    const size_t bi = (size_t)r->row * (size_t)m->bias_stride, bj = (size_t)r->col * (size_t)m->bias_stride;
    float *wi = m->word + i, *wj = m->context + j;
    float *gi = m->word_gradsq + i, *gj = m->context_gradsq + j;
    float diff = wv_dot(wi, wj, dim) + m->word_bias[bi] + m->context_bias[bj] - r->log_x;
    float fdiff = r->weight * diff;
    if (!isfinite(diff) || !isfinite(fdiff)) return 0.0; /* glove.c skips such a record */
    if (rsqrt) step_rows_rsqrt(wi, wj, gi, gj, fdiff, m->eta, dim, scratch, scratch + dim);
    else step_rows_exact(wi, wj, gi, gj, fdiff, m->eta, dim, scratch, scratch + dim);
    /* biases: glove.c steps them with fdiff, not fdiff * eta */
    m->word_bias[bi] -= finite_or_zero(fdiff / sqrtf(m->word_bias_gradsq[bi]));
    m->context_bias[bj] -= finite_or_zero(fdiff / sqrtf(m->context_bias_gradsq[bj]));
    float f2 = fdiff * fdiff;
    m->word_bias_gradsq[bi] += f2;
    m->context_bias_gradsq[bj] += f2;
    return 0.5 * (double)fdiff * (double)diff;
}

/* Whether steps use step_rows_rsqrt: asked for, and the CPU has it. */
static int use_rsqrt(const wv_glove_model *m) {
#ifdef WV_GLOVE_RSQRT
    return !m->exact_sqrt && has_avx2();
#else
    (void)m;
    return 0;
#endif
}

double wv_glove_step(wv_glove_model *m, const wv_glove_record *r, float *scratch) {
    return update(m, r, scratch, use_rsqrt(m));
}

/* Trains records[begin, end), publishing progress every PROGRESS_STEP
 * records (*since carries the count between calls); returns its cost, and
 * 0 in *stopped unless the stop flag was seen. */
WV_MULTIVERSION /* vecmath.h */
static double train_range(wv_glove_model *m, const wv_glove_record *records, int64_t begin, int64_t end,
                          float *scratch, int64_t *since, int *stopped) {
    double cost = 0.0; /* a local: workers share cache lines in their array */
    const int rsqrt = use_rsqrt(m);
    int64_t count = *since;
    *stopped = 0;
    for (int64_t p = begin; p < end; p++) {
        if (PREFETCH_AHEAD && p + PREFETCH_AHEAD < end) prefetch_record(m, &records[p + PREFETCH_AHEAD]);
        cost += update(m, &records[p], scratch, rsqrt);
        if (++count == PROGRESS_STEP) {
            atomic_fetch_add_explicit(&m->records_done, count, memory_order_relaxed);
            count = 0;
            if (atomic_load_explicit(&m->stop, memory_order_relaxed)) {
                *stopped = 1;
                break;
            }
        }
    }
    *since = count;
    return cost;
}

/* Trains the cells a scheduler hands this thread, one at a time. */
static double train_cells(wv_glove_worker *w, const wv_glove_record *records, wv_glove_scheduler *s,
                          int64_t *since, int *stopped) {
    const int64_t *start = s->grid.start;
    double cost = 0.0;
    int cell;
    *stopped = 0;
    while (!*stopped && (cell = wv_glove_scheduler_take(s)) >= 0) {
        cost += train_range(w->m, records, start[cell], start[cell + 1], w->scratch, since, stopped);
        wv_glove_scheduler_give(s, cell);
    }
    return cost;
}

/* A training thread over the blocks of a stream, each split in T ranges or
 * trained cell by cell. */
static double train_blocks(wv_glove_worker *w, int64_t *since) {
    wv_glove_model *m = w->m;
    const int T = m->n_threads - 1, t = w->index;
    double cost = 0.0;
    for (int k = 0;; k++) {
        int64_t n;
        const wv_glove_record *block = wv_glove_stream_get(m->stream, k, &n);
        if (!block) break;
        int stopped;
        wv_glove_scheduler *cells = wv_glove_stream_cells(m->stream, k);
        if (cells) cost += train_cells(w, block, cells, since, &stopped);
        else cost += train_range(m, block, n * t / T, n * (t + 1) / T, w->scratch, since, &stopped);
        if (stopped) {
            wv_glove_stream_abort(m->stream);
            break;
        }
        wv_glove_stream_done(m->stream, k);
    }
    return cost;
}

static void run_worker(wv_glove_worker *w) {
    wv_glove_model *m = w->m;
    int64_t since = 0;
    int stopped;
    if (m->scheduler) w->cost = train_cells(w, m->records, m->scheduler, &since, &stopped);
    else if (!m->stream) w->cost = train_range(m, m->records, w->begin, w->end, w->scratch, &since, &stopped);
    else if (w->index == m->n_threads - 1) wv_glove_stream_read(m->stream);
    else w->cost = train_blocks(w, &since);
    atomic_fetch_add_explicit(&m->records_done, since, memory_order_relaxed);
}

static void worker_main(void *arg) { run_worker(arg); }

static void free_workers(wv_glove_model *m) {
    if (!m->workers) return;
    for (int t = 0; t < m->n_threads; t++) free(m->workers[t].scratch);
    free(m->workers);
    m->workers = NULL;
    m->n_threads = 0;
}

/* A thread's scratch: the two rows' gradients. */
static size_t scratch_bytes(int dim) { return 2 * (size_t)dim * sizeof(float); }

size_t wv_glove_worker_bytes(int dim, int n_threads, int streamed) {
    size_t n = (size_t)(n_threads > 0 ? n_threads : 1) + (streamed ? 1 : 0);
    return n * (wv_lines_bytes(scratch_bytes(dim)) + sizeof(wv_glove_worker));
}

wv_status wv_glove_start_epoch(wv_glove_model *m, int n_threads) {
    if (m->run.running) return WV_ERR_BUSY;
    if (n_threads < 1) n_threads = 1;
    if (m->stream && m->scheduler) return WV_ERR_INVALID;
    if (m->stream) n_threads++; /* the block reader */
    atomic_store(&m->stop, 0);
    atomic_store(&m->records_done, 0);
    m->workers = calloc((size_t)n_threads, sizeof *m->workers);
    if (!m->workers) return WV_ERR_NOMEM;
    m->n_threads = n_threads;
    for (int t = 0; t < n_threads; t++) {
        wv_glove_worker *w = &m->workers[t];
        w->m = m;
        w->index = t;
        w->begin = m->n_records * t / n_threads;
        w->end = m->n_records * (t + 1) / n_threads;
        w->scratch = wv_alloc_lines(scratch_bytes(m->dim));
        if (!w->scratch) {
            free_workers(m);
            return WV_ERR_NOMEM;
        }
    }
    wv_status rc = wv_run_start(&m->run, n_threads, worker_main, m->workers, sizeof *m->workers);
    if (rc == WV_ERR_NOMEM) {
        free_workers(m);
        return rc;
    }
    if (rc) atomic_store(&m->stop, 1); /* join_epoch joins the started ones and reports it */
    return WV_OK;
}

wv_status wv_glove_join_epoch(wv_glove_model *m, double *cost) {
    *cost = 0.0;
    if (!m->run.running) return WV_OK;
    int failed = m->run.threads.started < m->n_threads;
    wv_run_join(&m->run);
    for (int t = 0; t < m->n_threads; t++) *cost += m->workers[t].cost;
    free_workers(m);
    if (failed) return WV_ERR_THREAD;
    return m->stream && m->stream->error ? m->stream->error : WV_OK;
}

wv_status wv_glove_make_records(const int64_t *indptr, const int32_t *indices, const float *data,
                                int32_t n_rows, double x_max, double alpha, uint64_t seed,
                                wv_glove_record *out) {
    int64_t n = indptr[n_rows];
    for (int32_t i = 0; i < n_rows; i++) {
        for (int64_t e = indptr[i]; e < indptr[i + 1]; e++) {
            double x = data[e];
            if (!(x > 0.0) || !isfinite(x)) return WV_ERR_INVALID;
            wv_glove_record_of(&out[e], i, indices[e], data[e], x_max, alpha);
        }
    }
    wv_rng rng;
    wv_rng_seed(&rng, seed, 0x61C8864680B583EBULL, 0);
    wv_glove_shuffle(out, n, &rng);
    return WV_OK;
}
