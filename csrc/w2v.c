#include "w2v.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "rng.h"
#include "vecmath.h"
#include "vocab.h" /* WV_EOS */

/* Words a thread processes before it publishes progress and re-reads alpha
 * (word2vec.c: 10,000). */
#define PROGRESS_STEP 10000
/* Words between two merges of a thread's hot-row copies into the shared rows
 * (about 1.7 ms at 16 threads; each merge moves hot_rows x dim floats).
 * Overridable at build time (CFLAGS=-DWV_HOT_SYNC_WORDS=N) to measure it on
 * many cores. */
#ifndef WV_HOT_SYNC_WORDS
#define WV_HOT_SYNC_WORDS 1024
#endif
/* ... or sooner, in HS, once a thread has updated its copy of the root this
 * many times. Each thread's changes to a row are added up at the merge;
 * where one thread's copy has moved most of the way to that thread's own
 * optimum, T such changes overshoot T-fold. In NS the hottest row (the most
 * frequent word's) takes ~60 updates per 1,024 words with shared negatives;
 * in skip-gram HS the root is on every pair's path and took thousands:
 * 1-epoch analogy fell from 22.2 to 14.8 at 16 threads and to 5.8 at 64
 * (RESULTS.md). */
#ifndef WV_HOT_SYNC_TOUCHES
#define WV_HOT_SYNC_TOUCHES 256
#endif
/* Ids per unit of work: threads claim chunks from a shared counter, so the
 * epoch ends when the work runs out, not when the slowest of T fixed shards
 * does (text regions differ in subsampling and sentence length; at 16
 * threads an epoch is about a second and a shard's tail is most of the
 * loss). Small enough that the last chunk is ~15 ms of work. */
#define CHUNK_IDS 16384
/* The fewest regions the corpus is cut into for the order of claims (see
 * run_worker): with fewer threads than this the epoch still visits this many
 * places in turn, a coarse shuffle of the text. Corpora are ordered by
 * article and topic; trained in order, the last part of the epoch, where
 * alpha is smallest, sees one stretch of text. 5 epochs, 2 threads,
 * wiki_17m: analogy 37.0 -> 37.8 over 6 seeds, same speed (RESULTS.md). */
#define MIN_REGIONS 64

/* Where a thread reads and writes output rows: rows [lo, hi) in its own
 * copy, the rest in the shared matrix. With several threads the hottest
 * output rows (frequent words' NS rows, the top of the HS tree) are written
 * by every thread many times a microsecond, and the cache line ping-pong
 * between cores, not arithmetic, limits scaling; each thread therefore
 * works on a private copy of those rows and merges its changes into the
 * shared rows every WV_HOT_SYNC_WORDS words (Hogwild with a short delay on
 * those rows only). With one thread, or hot_rows = 0, lo == hi: exact. */
typedef struct {
    float *shared;
    float *local;
    int32_t lo, hi;
    int32_t hottest;   /* the private row updated most often; -1: none */
    int32_t touches;   /* its updates since the last merge, counted in HS
                        * only (the NS kernels ran 25% slower with a count,
                        * even outside their loops; their hottest row takes a
                        * few hundred updates per 1,024 words at most) */
} out_rows;

WV_HOT float *out_row(const out_rows *o, int32_t r, int dim) {
    return (r >= o->lo && r < o->hi) ? o->local + (size_t)(r - o->lo) * dim : o->shared + (size_t)r * dim;
}

struct wv_w2v_worker {
    wv_w2v_model *m;
    int epoch;
    int32_t *sentence;         /* max_sentence_length */
    float *neu1, *neu1e;       /* dim */
    float *scratch;            /* softmax scores: vocab_size */
    int32_t *negatives;        /* negative */
    int32_t *next_negatives;   /* the next negative set, drawn ahead: the next word's or pair's */
    float *window_delta;       /* shared negatives: the output rows' changes, (negative + 1) x dim */
    out_rows rows;             /* output rows, hot ones private */
    float *hot_snapshot;       /* the hot rows as last merged */
    double loss;
    int64_t examples;
};

void wv_w2v_model_init(wv_w2v_model *m) {
    wv_sigmoid_table_init(&m->sigmoid);
    atomic_store(&m->words_done, 0);
    atomic_store(&m->stop, 0);
    atomic_store(&m->error, 0);
    m->workers = NULL;
    m->n_threads = 0;
    m->run.running = 0;
}

float wv_w2v_current_alpha(const wv_w2v_model *m) {
    double done = (double)atomic_load_explicit(&m->words_done, memory_order_relaxed);
    double alpha = m->cfg.alpha * (1.0 - done / ((double)m->schedule_words + 1.0));
    return (float)(alpha > m->cfg.min_alpha ? alpha : m->cfg.min_alpha);
}

/* Gradient g for label given f = h . out, with word2vec.c's saturation
 * outside the table for NS. */
WV_HOT float ns_gradient(const wv_sigmoid_table *t, float f, float label, float alpha) {
    if (f > WV_SIGMOID_MAX) return (label - 1.0f) * alpha;
    if (f < -WV_SIGMOID_MAX) return label * alpha;
    return (label - t->sigmoid[wv_sigmoid_index(f)]) * alpha;
}

/* word2vec.c's NS step, one output row after another: each row's dot
 * product sees the changes of the rows before it (a negative drawn twice
 * is trained twice, the second time from its new value). Taking all dot
 * products first where the rows are distinct, as hs_update does, was
 * measured slower here for CBOW (RESULTS.md). */
WV_HOT double ns_update(wv_w2v_model *m, const out_rows *rows, const float *h, int32_t target,
                        const int32_t *negatives, int n_neg, float *neu1e, float alpha) {
    const int dim = m->cfg.dim;
    double loss = 0.0;
    for (int d = -1; d < n_neg; d++) {
        int32_t word = d < 0 ? target : negatives[d];
        float label = d < 0 ? 1.0f : 0.0f;
        if (d >= 0 && word == target) continue; /* word2vec.c skips, no redraw */
        float *out = out_row(rows, word, dim);
        float f = wv_dot(h, out, dim);
        loss -= wv_log_sigmoid(&m->sigmoid, d < 0 ? f : -f);
        float g = ns_gradient(&m->sigmoid, f, label, alpha);
        wv_axpy(g, out, neu1e, dim);
        wv_axpy(g, h, out, dim);
    }
    return loss;
}

WV_HOT double hs_update(wv_w2v_model *m, out_rows *rows, const float *h, int32_t target,
                               float *neu1e, float alpha) {
    const int dim = m->cfg.dim;
    const uint8_t *restrict code = m->codes + (size_t)target * WV_MAX_CODE_LENGTH;
    const int32_t *restrict point = m->points + (size_t)target * WV_MAX_CODE_LENGTH;
    const int len = m->code_length[target];
    /* All dot products first: the path's nodes are distinct and h does not
     * change during the walk, so this equals word2vec.c's interleaved order
     * exactly, and the node loads can overlap in the memory system. */
    float f[WV_MAX_CODE_LENGTH], g[WV_MAX_CODE_LENGTH];
    float *outs[WV_MAX_CODE_LENGTH];
    int32_t hottest_hits = 0;
    for (int d = 0; d < len; d++) {
        outs[d] = out_row(rows, point[d], dim);
        hottest_hits += point[d] == rows->hottest;
    }
    rows->touches += hottest_hits;
    wv_dots(h, (const float *const *)outs, len, dim, f);
    double loss = 0.0;
    int n = 0; /* the nodes that train, packed */
    for (int d = 0; d < len; d++) {
        loss -= wv_log_sigmoid(&m->sigmoid, code[d] ? -f[d] : f[d]);
        /* word2vec.c skips (does not saturate) outside the table in HS */
        if (f[d] <= -WV_SIGMOID_MAX || f[d] >= WV_SIGMOID_MAX) continue;
        g[n] = (1.0f - code[d] - m->sigmoid.sigmoid[wv_sigmoid_index(f[d])]) * alpha;
        outs[n++] = outs[d];
    }
    /* neu1e is zero on entry in training, so its sum in registers rounds as
     * word2vec.c's running sum; each node's row enters it before it changes. */
    wv_add_combination(neu1e, (const float *const *)outs, g, 1, n, dim);
    for (int d = 0; d < n; d++) wv_axpy(g[d], h, outs[d], dim);
    return loss;
}

/* Exact softmax over the whole vocabulary: the reference objective. */
WV_HOT double softmax_update(wv_w2v_model *m, const float *h, int32_t target,
                                    float *neu1e, float alpha, float *scores) {
    const int dim = m->cfg.dim;
    const int32_t V = m->vocab_size;
    float top = -INFINITY;
    for (int32_t j = 0; j < V; j++) {
        scores[j] = wv_dot(h, m->output + (size_t)j * dim, dim);
        if (scores[j] > top) top = scores[j];
    }
    double total = 0.0;
    for (int32_t j = 0; j < V; j++) total += exp((double)(scores[j] - top));
    double log_total = log(total);
    double loss = -((double)(scores[target] - top) - log_total);
    for (int32_t j = 0; j < V; j++) {
        float p = (float)exp((double)(scores[j] - top) - log_total);
        float g = ((j == target ? 1.0f : 0.0f) - p) * alpha;
        float *out = m->output + (size_t)j * dim;
        wv_axpy(g, out, neu1e, dim);
        wv_axpy(g, h, out, dim);
    }
    return loss;
}

WV_HOT double predict(wv_w2v_model *m, out_rows *rows, const float *h, int32_t target,
                             const int32_t *negatives, int n_neg, float *neu1e,
                             float alpha, float *scratch) {
    switch (m->cfg.loss) {
    case WV_LOSS_NS: return ns_update(m, rows, h, target, negatives, n_neg, neu1e, alpha);
    case WV_LOSS_HS: return hs_update(m, rows, h, target, neu1e, alpha);
    default: return softmax_update(m, h, target, neu1e, alpha, scratch);
    }
}

double wv_w2v_step(wv_w2v_model *m, const float *h, int32_t target,
                   const int32_t *negatives, int n_negatives, float *neu1e,
                   float alpha, float *scratch) {
    out_rows rows = {m->output, NULL, 0, 0, -1, 0};
    return predict(m, &rows, h, target, negatives, n_negatives, neu1e, alpha, scratch);
}

/* Merges this thread's changes to its hot rows into the shared rows and
 * refreshes its copy with what the other threads merged meanwhile. */
WV_HOT void sync_hot_rows(wv_w2v_worker *w) {
    out_rows *o = &w->rows;
    o->touches = 0;
    if (o->lo == o->hi) return;
    size_t n = (size_t)(o->hi - o->lo) * (size_t)w->m->cfg.dim;
    float *shared = o->shared + (size_t)o->lo * w->m->cfg.dim;
    float *local = o->local, *snap = w->hot_snapshot;
    for (size_t i = 0; i < n; i++) {
        float merged = shared[i] + (local[i] - snap[i]);
        shared[i] = merged;
        local[i] = merged;
        snap[i] = merged;
    }
}

WV_HOT void draw_negatives(wv_w2v_model *m, wv_rng *rng, int32_t *negatives) {
    for (int d = 0; d < m->cfg.negative; d++) negatives[d] = wv_alias_draw(&m->noise, rng);
}

/* Skip-gram NS with one set of negatives shared by the whole window of a
 * centre word (pWord2Vec's minibatching, optional: cfg.shared_negatives).
 * The m context vectors and the 1 + K output rows form two small matrices;
 * all m x (1 + K) dot products are taken first, then both sides are updated
 * from the same gradients. Same arithmetic as the pair-by-pair loop, but the
 * output rows are fetched once per window instead of once per pair. */
WV_HOT double sg_ns_window(wv_w2v_worker *w, const int32_t *ctx, int m_ctx, int32_t word, float alpha) {
    wv_w2v_model *m = w->m;
    const int dim = m->cfg.dim, k1 = 1 + m->cfg.negative;
    enum { MAX_CTX = 2 * 64, MAX_OUT = 64 }; /* bounds checked at the Python boundary */
    float *outs[MAX_OUT], *ins[MAX_CTX];
    float label[MAX_OUT];
    float grad[MAX_CTX * MAX_OUT];
    for (int k = 0; k < k1; k++) {
        int32_t t = k == 0 ? word : w->negatives[k - 1];
        outs[k] = out_row(&w->rows, t, dim);
        label[k] = k == 0 ? 1.0f : (t == word ? -1.0f : 0.0f); /* -1: skipped, as word2vec.c */
    }
    double loss = 0.0;
    for (int j = 0; j < m_ctx; j++) {
        ins[j] = m->input + (size_t)ctx[j] * dim;
        float dots[MAX_OUT];
        wv_dots(ins[j], (const float *const *)outs, k1, dim, dots);
        for (int k = 0; k < k1; k++) {
            float g = 0.0f;
            if (label[k] >= 0.0f) {
                float f = dots[k];
                loss -= wv_log_sigmoid(&m->sigmoid, label[k] > 0.0f ? f : -f);
                g = ns_gradient(&m->sigmoid, f, label[k], alpha);
            }
            grad[j * k1 + k] = g;
        }
    }
    /* The output rows' changes come from the input rows before those
     * change; the input rows' from the output rows before those change. */
    float *delta_out = w->window_delta;
    for (int k = 0; k < k1; k++) {
        float *d = delta_out + (size_t)k * dim;
        wv_zero(d, dim);
        wv_add_combination(d, (const float *const *)ins, grad + k, k1, m_ctx, dim);
    }
    for (int j = 0; j < m_ctx; j++) wv_add_combination(ins[j], (const float *const *)outs, grad + j * k1, 1, k1, dim);
    for (int k = 0; k < k1; k++) wv_axpy(1.0f, delta_out + (size_t)k * dim, outs[k], dim);
    return loss;
}

double wv_w2v_window_step(wv_w2v_model *m, const int32_t *ctx, int m_ctx, int32_t target,
                          const int32_t *negatives, float alpha, float *scratch) {
    wv_w2v_worker w;
    memset(&w, 0, sizeof w);
    w.m = m;
    w.negatives = (int32_t *)negatives;
    w.window_delta = scratch;
    w.rows = (out_rows){m->output, NULL, 0, 0, -1, 0};
    return sg_ns_window(&w, ctx, m_ctx, target, alpha);
}

/* Draws the next negative set into next_negatives and prefetches its rows. */
WV_HOT void draw_next_negatives(wv_w2v_worker *w, wv_rng *rng) {
    wv_w2v_model *m = w->m;
    draw_negatives(m, rng, w->next_negatives);
    for (int d = 0; d < m->cfg.negative; d++)
        wv_prefetch_span(out_row(&w->rows, w->next_negatives[d], m->cfg.dim), (size_t)m->cfg.dim);
}

/* Look-ahead for centre word i (the next one), issued while the current
 * one is computed: the rows are random, and the loop waits on them longer
 * than on its arithmetic (more so with many threads). Where negatives are
 * drawn once per centre word (CBOW, shared negatives) they are drawn here,
 * one word early, into next_negatives. Prefetched: the word's output row or
 * its Huffman path, its negatives' rows, and the input row of the word that
 * enters the window. */
WV_HOT void prefetch_next_word(wv_w2v_worker *w, wv_rng *rng, const int32_t *sen, int i, int len,
                               int draw_ahead) {
    wv_w2v_model *m = w->m;
    const int dim = m->cfg.dim;
    const int32_t word = sen[i];
    if (m->cfg.loss == WV_LOSS_NS) {
        wv_prefetch_span(out_row(&w->rows, word, dim), (size_t)dim);
        if (draw_ahead) draw_next_negatives(w, rng);
    } else if (m->cfg.loss == WV_LOSS_HS) {
        const int32_t *point = m->points + (size_t)word * WV_MAX_CODE_LENGTH;
        for (int d = 0; d < m->code_length[word]; d++) wv_prefetch_span(out_row(&w->rows, point[d], dim), (size_t)dim);
    }
    if (i + m->cfg.window < len) wv_prefetch_span(m->input + (size_t)sen[i + m->cfg.window] * dim, (size_t)dim);
}

WV_HOT void swap_negatives(wv_w2v_worker *w) {
    int32_t *t = w->negatives;
    w->negatives = w->next_negatives;
    w->next_negatives = t;
}

/* Trains one sentence. Loss and example counts go to the caller's locals,
 * not to the worker struct: workers sit side by side in one array, and
 * per-pair writes there would bounce a shared cache line between cores. */
WV_HOT void train_sentence(wv_w2v_worker *w, wv_rng *rng, int len, float alpha,
                           double *loss, int64_t *examples) {
    wv_w2v_model *m = w->m;
    const int dim = m->cfg.dim, window = m->cfg.window;
    const int n_neg = m->cfg.loss == WV_LOSS_NS ? m->cfg.negative : 0;
    const int32_t *sen = w->sentence;
    float *neu1 = w->neu1, *neu1e = w->neu1e;
    /* one negative set per centre word: CBOW, or skip-gram with shared negatives;
     * otherwise (word2vec.c's skip-gram) one per pair, drawn a pair ahead */
    const int draw_ahead = n_neg && (m->cfg.arch == WV_CBOW || m->cfg.shared_negatives);
    const int pair_ahead = n_neg && !draw_ahead;
    for (int i = 0; i < len; i++) {
        int32_t word = sen[i];
        int radius = m->cfg.shrink_windows ? window - (int)wv_rng_below(rng, (uint32_t)window) : window;
        int lo = i - radius < 0 ? 0 : i - radius;
        int hi = i + radius >= len ? len - 1 : i + radius;
        if (draw_ahead) { /* this word's negatives were drawn at word i - 1 */
            if (i == 0) draw_negatives(m, rng, w->negatives);
            else swap_negatives(w);
        } else if (pair_ahead && i == 0) {
            draw_negatives(m, rng, w->negatives); /* the first pair's */
        }
        if (w->rows.touches >= WV_HOT_SYNC_TOUCHES) sync_hot_rows(w);
        if (i + 1 < len) prefetch_next_word(w, rng, sen, i + 1, len, draw_ahead);
        if (m->cfg.arch == WV_SKIPGRAM && m->cfg.shared_negatives && n_neg) {
            int32_t ctx[2 * 64];
            int m_ctx = 0;
            for (int c = lo; c <= hi; c++)
                if (c != i) ctx[m_ctx++] = sen[c];
            if (!m_ctx) continue;
            *loss += sg_ns_window(w, ctx, m_ctx, word, alpha);
            *examples += m_ctx;
        } else if (m->cfg.arch == WV_SKIPGRAM) {
            /* word2vec.c's orientation: each context word's input vector
             * predicts the centre word. */
            for (int c = lo; c <= hi; c++) {
                if (c == i) continue;
                float *in = m->input + (size_t)sen[c] * dim;
                if (pair_ahead) draw_next_negatives(w, rng); /* the next pair's */
                wv_zero(neu1e, dim);
                *loss += predict(m, &w->rows, in, word, w->negatives, n_neg, neu1e, alpha, w->scratch);
                (*examples)++;
                wv_axpy(1.0f, neu1e, in, dim);
                if (pair_ahead) swap_negatives(w);
            }
        } else {
            int cw = 0;
            wv_zero(neu1, dim);
            for (int c = lo; c <= hi; c++) {
                if (c == i) continue;
                wv_axpy(1.0f, m->input + (size_t)sen[c] * dim, neu1, dim);
                cw++;
            }
            if (!cw) continue;
            if (m->cfg.cbow_mean) wv_scale(1.0f / (float)cw, neu1, dim);
            wv_zero(neu1e, dim);
            *loss += predict(m, &w->rows, neu1, word, w->negatives, n_neg, neu1e, alpha, w->scratch);
            (*examples)++;
            /* every context word gets the full (unscaled) error, as word2vec.c */
            for (int c = lo; c <= hi; c++) {
                if (c == i) continue;
                wv_axpy(1.0f, neu1e, m->input + (size_t)sen[c] * dim, dim);
            }
        }
    }
}

/* Where chunk c begins: just after the first sentence end in its nominal
 * span [c, c + 1) * CHUNK_IDS, so that chunks cut sentences only where a
 * sentence is longer than a chunk (then at the nominal place). Monotone in
 * c; chunk 0 begins at 0 and the chunk past the last at n_ids. */
static int64_t chunk_begin(const wv_w2v_model *m, int64_t c) {
    int64_t nominal = c * CHUNK_IDS;
    if (nominal <= 0) return 0;
    if (nominal >= m->n_ids) return m->n_ids;
    int64_t limit = nominal + CHUNK_IDS < m->n_ids ? nominal + CHUNK_IDS : m->n_ids;
    for (int64_t p = nominal; p < limit; p++)
        if (m->ids[p] == WV_EOS) return p + 1;
    return nominal;
}

WV_MULTIVERSION /* vecmath.h */
static void run_worker(wv_w2v_worker *w) {
    wv_w2v_model *m = w->m;
    wv_rng rng;
    const int max_len = m->cfg.max_sentence_length;
    const int64_t n_chunks = (m->n_ids + CHUNK_IDS - 1) / CHUNK_IDS;
    /* Claim k is chunk (k mod R) * per + k div R: the corpus is cut into
     * R = max(T, MIN_REGIONS) regions of `per` chunks and the T claims in
     * flight at any moment lie in T different regions, far apart as fixed
     * shards would be (threads on neighbouring text would write the same
     * rare words' rows), while the work is still shared out until none is
     * left. A corpus of at most R chunks is visited in order. */
    const int64_t R = m->n_threads > MIN_REGIONS ? m->n_threads : MIN_REGIONS;
    const int64_t per = (n_chunks + R - 1) / R;
    int64_t unpublished = 0, examples = 0, since_sync = 0;
    double loss = 0.0;
    float alpha = wv_w2v_current_alpha(m);
    for (;;) {
        int64_t k = atomic_fetch_add_explicit(&m->next_chunk, 1, memory_order_relaxed);
        if (k >= R * per || atomic_load_explicit(&m->stop, memory_order_relaxed)) break;
        int64_t c = (k % R) * per + k / R;
        if (c >= n_chunks) continue; /* the last region is short */
        /* One random stream per (epoch, chunk): what is drawn for a chunk
         * does not depend on the thread count or on which thread takes it. */
        wv_rng_seed(&rng, m->cfg.seed, (uint64_t)w->epoch + 1, (uint64_t)c + 1);
        int64_t pos = chunk_begin(m, c);
        const int64_t end = chunk_begin(m, c + 1);
        while (pos < end) {
            if (atomic_load_explicit(&m->stop, memory_order_relaxed)) break;
            /* Assemble a sentence: up to EOS or max_len kept words; words are
             * counted for progress before subsampling (word2vec.c). */
            int len = 0;
            while (pos < end) {
                int32_t id = m->ids[pos++];
                if (id == WV_EOS) {
                    if (len) break;
                    continue;
                }
                unpublished++;
                since_sync++;
                float keep = m->keep_prob[id];
                if (keep < 1.0f && wv_rng_uniform(&rng) >= keep) continue;
                w->sentence[len++] = id;
                if (len >= max_len) break;
            }
            if (unpublished >= PROGRESS_STEP) {
                atomic_fetch_add_explicit(&m->words_done, unpublished, memory_order_relaxed);
                unpublished = 0;
                alpha = wv_w2v_current_alpha(m);
            }
            if (len) train_sentence(w, &rng, len, alpha, &loss, &examples);
            if (since_sync >= WV_HOT_SYNC_WORDS) {
                sync_hot_rows(w);
                since_sync = 0;
            }
            if (!isfinite(loss)) {
                int expected = WV_OK;
                atomic_compare_exchange_strong(&m->error, &expected, WV_ERR_DIVERGED);
                atomic_store(&m->stop, 1);
                break;
            }
        }
    }
    sync_hot_rows(w);
    atomic_fetch_add_explicit(&m->words_done, unpublished, memory_order_relaxed);
    w->loss = loss;
    w->examples = examples;
}

static void worker_main(void *arg) { run_worker(arg); }

static void free_workers(wv_w2v_model *m) {
    if (!m->workers) return;
    for (int t = 0; t < m->n_threads; t++) {
        wv_w2v_worker *w = &m->workers[t];
        free(w->sentence); free(w->neu1); free(w->neu1e); free(w->scratch); free(w->negatives);
        free(w->next_negatives); free(w->rows.local); free(w->hot_snapshot); free(w->window_delta);
    }
    free(m->workers);
    m->workers = NULL;
    m->n_threads = 0;
}

wv_status wv_w2v_start_epoch(wv_w2v_model *m, int epoch, int n_threads) {
    if (m->run.running) return WV_ERR_BUSY;
    if (n_threads < 1) n_threads = 1;
    atomic_store(&m->stop, 0);
    atomic_store(&m->error, WV_OK);
    atomic_store(&m->next_chunk, 0);
    m->workers = calloc((size_t)n_threads, sizeof *m->workers);
    if (!m->workers) return WV_ERR_NOMEM;
    m->n_threads = n_threads;
    const size_t dim = (size_t)m->cfg.dim;
    for (int t = 0; t < n_threads; t++) {
        wv_w2v_worker *w = &m->workers[t];
        w->m = m;
        w->epoch = epoch;
        w->sentence = wv_alloc_lines((size_t)m->cfg.max_sentence_length * sizeof *w->sentence);
        w->neu1 = wv_alloc_lines(dim * sizeof(float));
        w->neu1e = wv_alloc_lines(dim * sizeof(float));
        const size_t neg_bytes = (size_t)(m->cfg.negative > 0 ? m->cfg.negative : 1) * sizeof(int32_t);
        w->negatives = wv_alloc_lines(neg_bytes);
        w->next_negatives = wv_alloc_lines(neg_bytes);
        w->scratch = wv_alloc_lines(m->cfg.loss == WV_LOSS_SOFTMAX ? (size_t)m->vocab_size * sizeof(float)
                                                                   : sizeof(float));
        w->window_delta = m->cfg.shared_negatives
            ? wv_alloc_lines((size_t)(m->cfg.negative + 1) * dim * sizeof(float))
            : wv_alloc_lines(sizeof(float));
        if (!w->sentence || !w->neu1 || !w->neu1e || !w->negatives || !w->next_negatives || !w->scratch ||
            !w->window_delta) {
            free_workers(m);
            return WV_ERR_NOMEM;
        }
        /* Hot rows: the first output rows in NS (the most frequent words),
         * the last ones in HS (the top of the tree); none for softmax. */
        int32_t out_rows_n = m->cfg.loss == WV_LOSS_HS ? (m->vocab_size > 1 ? m->vocab_size - 1 : 1) : m->vocab_size;
        int32_t hot = n_threads > 1 && m->cfg.loss != WV_LOSS_SOFTMAX ? m->cfg.hot_rows : 0;
        if (hot > out_rows_n) hot = out_rows_n;
        w->rows.shared = m->output;
        w->rows.lo = m->cfg.loss == WV_LOSS_HS ? out_rows_n - hot : 0;
        w->rows.hi = w->rows.lo + hot;
        w->rows.hottest = hot > 0 && m->cfg.loss == WV_LOSS_HS ? w->rows.hi - 1 : -1; /* the root */
        if (hot > 0) {
            size_t bytes = (size_t)hot * dim * sizeof(float);
            w->rows.local = wv_alloc_lines(bytes);
            w->hot_snapshot = wv_alloc_lines(bytes);
            if (!w->rows.local || !w->hot_snapshot) {
                free_workers(m);
                return WV_ERR_NOMEM;
            }
            memcpy(w->rows.local, m->output + (size_t)w->rows.lo * dim, bytes);
            memcpy(w->hot_snapshot, w->rows.local, bytes);
        }
    }
    wv_status rc = wv_run_start(&m->run, n_threads, worker_main, m->workers, sizeof *m->workers);
    if (rc == WV_ERR_NOMEM) {
        free_workers(m);
        return WV_ERR_NOMEM;
    }
    if (rc) { /* the started workers stop at once; join_epoch reports it */
        atomic_store(&m->stop, 1);
        atomic_store(&m->error, WV_ERR_THREAD);
    }
    return WV_OK;
}

wv_status wv_w2v_join_epoch(wv_w2v_model *m, double *loss_sum, int64_t *examples) {
    *loss_sum = 0.0;
    *examples = 0;
    if (!m->run.running) return WV_OK;
    wv_run_join(&m->run);
    for (int t = 0; t < m->n_threads; t++) {
        *loss_sum += m->workers[t].loss;
        *examples += m->workers[t].examples;
    }
    free_workers(m);
    return (wv_status)atomic_load(&m->error);
}
