/* Analogy answers (analogy.h). The candidates are taken in tiles, and each
 * thread runs all its questions over one tile before the next: questions
 * share their words, so a tile's rows stay in cache across them. */
#include "analogy.h"

#include <math.h>
#include <stdlib.h>

#include "parallel.h"
#include "vecmath.h"

enum { TILE = 2048 };

typedef struct {
    const float *gram;
    int64_t n, first, last; /* this thread's questions: [first, last) */
    const int32_t *abc, *excluded;
    int n_excluded, method;
    float *best_score;
    int32_t *best;
} analogy_job;

/* The highest of m > 0 scores (-inf if all are; NaN never wins). */
WV_MULTIVERSION
static float tile_max(const float *restrict scores, int64_t m) {
    float top = -INFINITY;
#pragma omp simd reduction(max:top)
    for (int64_t j = 0; j < m; j++) top = scores[j] > top ? scores[j] : top;
    return top;
}

WV_MULTIVERSION
static void tile_scores(const float *restrict a, const float *restrict b, const float *restrict c, int64_t m,
                        int method, float *restrict out) {
    if (method == WV_3COSADD) {
#pragma omp simd
        for (int64_t j = 0; j < m; j++) out[j] = (b[j] - a[j]) + c[j];
    } else {
#pragma omp simd
        for (int64_t j = 0; j < m; j++) out[j] = (b[j] * c[j]) / (a[j] + 1e-6f);
    }
}

static void *answer(void *arg) {
    const analogy_job *job = arg;
    float scores[TILE];
    for (int64_t start = 0; start < job->n; start += TILE) {
        int64_t m = job->n - start < TILE ? job->n - start : TILE;
        for (int64_t q = job->first; q < job->last; q++) {
            const int32_t *row = job->abc + 3 * q;
            const float *a = job->gram + row[0] * job->n + start, *b = job->gram + row[1] * job->n + start,
                        *c = job->gram + row[2] * job->n + start;
            tile_scores(a, b, c, m, job->method, scores);
            for (int e = 0; e < job->n_excluded; e++) {
                int64_t x = job->excluded[q * job->n_excluded + e];
                if (x >= start && x < start + m) scores[x - start] = -INFINITY;
            }
            /* ties as numpy's argmax: the first of the highest, an earlier tile's first */
            float top = tile_max(scores, m);
            if (top > job->best_score[q]) {
                int64_t at = 0;
                while (scores[at] != top) at++;
                job->best_score[q] = top;
                job->best[q] = (int32_t)(start + at);
            }
        }
    }
    return NULL;
}

wv_status wv_analogy_best(const float *gram, int64_t n, const int32_t *abc, const int32_t *excluded,
                          int n_excluded, int64_t k, int method, int n_threads, int32_t *best) {
    if (k <= 0) return WV_OK;
    if (n_threads < 1) n_threads = 1;
    if (n_threads > k) n_threads = (int)k;
    float *best_score = malloc((size_t)k * sizeof *best_score);
    analogy_job *jobs = malloc((size_t)n_threads * sizeof *jobs);
    if (!best_score || !jobs) {
        free(best_score);
        free(jobs);
        return WV_ERR_NOMEM;
    }
    for (int64_t q = 0; q < k; q++) best_score[q] = -INFINITY, best[q] = -1;
    for (int t = 0; t < n_threads; t++)
        jobs[t] = (analogy_job){gram, n, k * t / n_threads, k * (t + 1) / n_threads, abc, excluded,
                                n_excluded, method, best_score, best};
    wv_threads_run(n_threads, answer, jobs, sizeof *jobs);
    free(best_score);
    free(jobs);
    return WV_OK;
}
