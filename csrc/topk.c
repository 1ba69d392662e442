#include "topk.h"

#include "parallel.h"

#define WV_TOPK_MAX_THREADS 256

/* a is worse than b: a lower score, or the same score from a later row. */
static inline int worse(float sa, int64_t ra, float sb, int64_t rb) {
    return sa < sb || (sa == sb && ra > rb);
}

/* Restores the heap (the worst at the root) below position i of n. */
static void sift_down(float *s, int64_t *r, int64_t n, int64_t i) {
    float vs = s[i];
    int64_t vr = r[i];
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && worse(s[c + 1], r[c + 1], s[c], r[c])) c++;
        if (!worse(s[c], r[c], vs, vr)) break;
        s[i] = s[c];
        r[i] = r[c];
        i = c;
    }
    s[i] = vs;
    r[i] = vr;
}

static void sift_up(float *s, int64_t *r, int64_t i) {
    float vs = s[i];
    int64_t vr = r[i];
    while (i > 0) {
        int64_t p = (i - 1) / 2;
        if (!worse(vs, vr, s[p], r[p])) break;
        s[i] = s[p];
        r[i] = r[p];
        i = p;
    }
    s[i] = vs;
    r[i] = vr;
}

static void push_one(wv_topk *t, int64_t q, const float *raw, int64_t ncols, int64_t row0, const float *scale) {
    float *s = t->score + q * t->k;
    int64_t *r = t->row + q * t->k;
    int64_t n = t->filled[q], k = t->k, j = 0;
    for (; j < ncols && n < k; j++) {
        s[n] = raw[j] * scale[j];
        r[n] = row0 + j;
        sift_up(s, r, n++);
    }
    t->filled[q] = n;
    if (n < k) return;
    float floor = s[0]; /* rows come in rising order: a later row must beat the worst outright */
    for (; j < ncols; j++) {
        float v = raw[j] * scale[j];
        if (v > floor) {
            s[0] = v;
            r[0] = row0 + j;
            sift_down(s, r, k, 0);
            floor = s[0];
        }
    }
}

typedef struct {
    wv_topk *t;
    const float *scores, *scale;
    int64_t ncols, ld, row0, lo, hi;
} push_job;

static void *push_part(void *p) {
    push_job *j = p;
    for (int64_t q = j->lo; q < j->hi; q++) push_one(j->t, q, j->scores + q * j->ld, j->ncols, j->row0, j->scale);
    return NULL;
}

void wv_topk_push(wv_topk *t, const float *scores, int64_t ncols, int64_t ld, int64_t row0, const float *scale,
                  int threads) {
    push_job jobs[WV_TOPK_MAX_THREADS];
    if (threads > WV_TOPK_MAX_THREADS) threads = WV_TOPK_MAX_THREADS;
    if (threads > t->nq) threads = (int)t->nq;
    if (threads < 1) threads = 1;
    for (int i = 0; i < threads; i++)
        jobs[i] = (push_job){t, scores, scale, ncols, ld, row0, t->nq * i / threads, t->nq * (i + 1) / threads};
    wv_threads_run(threads, push_part, jobs, sizeof jobs[0]);
}

void wv_topk_finish(wv_topk *t) {
    for (int64_t q = 0; q < t->nq; q++) {
        float *s = t->score + q * t->k;
        int64_t *r = t->row + q * t->k;
        for (int64_t n = t->filled[q] - 1; n > 0; n--) {
            float ts = s[0];
            int64_t tr = r[0];
            s[0] = s[n];
            r[0] = r[n];
            s[n] = ts;
            r[n] = tr;
            sift_down(s, r, n, 0);
        }
    }
}
