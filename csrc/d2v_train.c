/* Paragraph vectors (d2v.h): a pass over the documents on T threads, each
 * claiming blocks of documents (in training the corpus's two halves in
 * turn: pass_block), each document cut into pieces of at most
 * max_sentence_length kept words (subsampled as word2vec.c), each piece
 * trained position by position in the mode's way (PV-DBOW with NS: eight
 * documents' positions in turn, train_lanes); in inference each block goes
 * to d2v_infer.c. */
#include "d2v.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "d2v_worker.h" /* the worker and its one-prediction kernels */
#include "memory.h"

/* About this many words a claim: small enough that the last block of a pass
 * is a short wait, large enough that claiming costs nothing. */
#define BLOCK_WORDS 16384

/* Whether a pass trains its documents in lanes: PV-DBOW with NS, but for
 * the skip-gram pairs of dbow_words and the groups of shared_negatives,
 * which draw their own sets. Not PV-DM: on docs_21m its documents' measure
 * fell 0.755 -> 0.730 with the set shared across lanes (performance.md). */
static int in_lanes(const wv_d2v_model *m) {
    return m->k.cfg.loss == WV_LOSS_NS && !m->infer_epochs && m->mode == WV_D2V_DBOW
           && !(m->dbow_words && m->learn_words) && !m->shared_negatives;
}

/* Trains position i of piece p[0..len) of a document tagged
 * tags[0..n_tags) in the way of `mode` (m->mode, a constant where this is
 * inlined, so that each mode's loop holds its own code alone). Each
 * prediction draws its negatives, but with `shared` (PV-DBOW's lanes,
 * where in_lanes holds: no skip-gram pairs, no groups) the tags'
 * predictions take the set in w->negatives. */
WV_HOT void train_position(wv_d2v_worker *w, wv_rng *rng, const int32_t *p, int len, int i, const int32_t *tags,
                           int n_tags, float alpha, int shared, double *loss, int64_t *examples, int mode) {
    wv_d2v_model *m = w->m;
    const int window = m->k.cfg.window;
    const int32_t target = p[i];
    int radius = window;
    if (mode != WV_D2V_DM_CONCAT && m->k.cfg.shrink_windows)
        radius = window - (int)wv_rng_below(rng, (uint32_t)window);
    const int lo = i - radius < 0 ? 0 : i - radius, hi = i + radius >= len ? len - 1 : i + radius;
    if (mode == WV_D2V_DBOW) {
        if (!shared && m->dbow_words && m->learn_words) /* word2vec.c's skip-gram: each context word predicts the centre */
            for (int c = lo; c <= hi; c++) {
                if (c == i) continue;
                draw_negatives(w, rng);
                *loss += row_step(w, word_row(m, p[c]), word_lock(m, p[c]), 1, target, alpha);
                (*examples)++;
            }
        if (!shared && m->shared_negatives && m->k.cfg.loss == WV_LOSS_NS) {
            if (i % m->group) return; /* the group's first word trains the group */
            const int k = len - i < m->group ? len - i : m->group;
            for (int c = i + m->group; c < i + 2 * m->group && c < len; c++) prefetch_target(w, p[c]);
            for (int t = 0; t < n_tags; t++) {
                draw_negatives(w, rng);
                *loss += group_step(w, tag_row(m, tags[t]), p + i, k, m->learn_doctags, alpha);
                *examples += k;
            }
            return;
        }
        for (int t = 0; t < n_tags; t++) {
            if (!shared) draw_negatives(w, rng);
            *loss += row_step(w, tag_row(m, tags[t]), 1.0f, m->learn_doctags, target, alpha);
            (*examples)++;
        }
    } else if (mode == WV_D2V_DM) {
        const int n_ctx = dm_window(w, p, lo, i, hi);
        if (n_ctx + n_tags == 0) return;
        draw_negatives(w, rng);
        const float inv = dm_sum(w, tags, n_tags, n_ctx);
        *loss += dm_learn(w, tags, n_tags, w->slots, n_ctx, inv, target, alpha);
        (*examples)++;
    } else {
        concat_window(m, p, len, i, w->slots);
        draw_negatives(w, rng);
        *loss += concat_step(w, tags, n_tags, w->slots, 2 * window, target, alpha);
        (*examples)++;
    }
}

/* Trains the piece w->piece[0..len) of a document tagged tags[0..n_tags),
 * a prediction's negatives drawn one prediction ahead. */
WV_HOT void train_piece(wv_d2v_worker *w, wv_rng *rng, int len, const int32_t *tags, int n_tags, float alpha,
                        double *loss, int64_t *examples, int mode) {
    const wv_d2v_model *m = w->m;
    const int32_t *p = w->piece;
    /* the input row of the word that enters the window next, where a window's word rows are read */
    const int ahead = m->k.cfg.window + 1, windowed = mode != WV_D2V_DBOW || (m->dbow_words && m->learn_words);
    if (m->k.cfg.loss == WV_LOSS_NS) draw_next_negatives(w, rng); /* the first prediction's */
    for (int i = 0; i < len; i++) {
        if (i + 1 < len) prefetch_target(w, p[i + 1]);
        if (windowed && i + ahead < len) wv_prefetch_span(word_row(m, p[i + ahead]), (size_t)m->vec_dim);
        train_position(w, rng, p, len, i, tags, n_tags, alpha, 0, loss, examples, mode);
    }
}

/* train_piece, a loop a mode: one function holding every mode's code was
 * too large for the compiler's global passes (minutes a build). */
WV_MULTIVERSION
static void train_piece_dbow(wv_d2v_worker *w, wv_rng *rng, int len, const int32_t *tags, int n_tags, float alpha,
                             double *loss, int64_t *examples) {
    train_piece(w, rng, len, tags, n_tags, alpha, loss, examples, WV_D2V_DBOW);
}

WV_MULTIVERSION
static void train_piece_dm(wv_d2v_worker *w, wv_rng *rng, int len, const int32_t *tags, int n_tags, float alpha,
                           double *loss, int64_t *examples) {
    train_piece(w, rng, len, tags, n_tags, alpha, loss, examples, WV_D2V_DM);
}

WV_MULTIVERSION
static void train_piece_concat(wv_d2v_worker *w, wv_rng *rng, int len, const int32_t *tags, int n_tags,
                               float alpha, double *loss, int64_t *examples) {
    train_piece(w, rng, len, tags, n_tags, alpha, loss, examples, WV_D2V_DM_CONCAT);
}

/* Lane l's next position: the next of its piece, or the first of its
 * document's next piece. Returns 0 when the document is read out. */
static int train_lane_next(wv_d2v_worker *w, lane *l, wv_rng *rng, tally *t) {
    if (++l->i < l->len) return 1;
    const int64_t end = w->m->doc_start[l->d + 1];
    while (l->pos < end)
        if (lane_read_piece(w->m, l, rng, t)) return 1;
    return 0;
}

/* Documents [lo, hi) in lanes: WV_D2V_LANES of them side by side in the
 * block's order, a position each a step, the step's negatives one set for
 * every lane (shared across documents, as skip-gram's window shares them
 * across its pairs: each document's rows still move after each of its
 * predictions, and the set's rows are fetched once for the lanes); a lane
 * whose document ends takes the block's next one. Returns 0, or 1 when the
 * run must stop. */
WV_MULTIVERSION
static int train_lanes(wv_d2v_worker *w, wv_rng *rng, int64_t lo, int64_t hi, tally *t) {
    wv_d2v_model *m = w->m;
    lane *lanes = w->lanes;
    int active = 0;
    int64_t next = lo;
    draw_next_negatives(w, rng); /* the first step's */
    for (;;) {
        while (active < WV_D2V_LANES && next < hi) {
            lane *l = &lanes[active];
            l->d = next++;
            l->pos = m->doc_start[l->d];
            l->len = l->i = 0;
            if (train_lane_next(w, l, rng, t)) {
                prefetch_lane(w, l, WV_D2V_DBOW);
                active++;
            }
        }
        if (!active) return 0;
        draw_negatives(w, rng);
        for (int k = 0; k < active;) {
            lane *l = &lanes[k];
            const int64_t t0 = m->tag_start[l->d];
            train_position(w, rng, l->piece, l->len, l->i, m->tags + t0, (int)(m->tag_start[l->d + 1] - t0),
                           t->alpha, 1, &t->loss, &t->examples, WV_D2V_DBOW);
            if (train_lane_next(w, l, rng, t)) {
                prefetch_lane(w, l, WV_D2V_DBOW);
                k++;
                continue;
            }
            active = retire_lane(lanes, k, active);
        }
        if (lanes_step_done(w, t)) return 1;
    }
}

void wv_d2v_fail(wv_d2v_model *m, wv_status status) {
    int expected = WV_OK;
    atomic_compare_exchange_strong(&m->k.error, &expected, status);
    atomic_store(&m->k.stop, 1);
}

void wv_d2v_publish(wv_d2v_worker *w, tally *t) {
    wv_d2v_model *m = w->m;
    atomic_fetch_add_explicit(&m->k.words_done, t->unpublished, memory_order_relaxed);
    atomic_store_explicit(&w->loss_seen, t->loss, memory_order_relaxed);
    atomic_store_explicit(&w->examples_seen, t->examples, memory_order_relaxed);
    t->unpublished = 0;
    if (!m->infer_epochs) t->alpha = wv_w2v_current_alpha(&m->k);
}

/* One pass over document d with these tags: its words subsampled and cut
 * into pieces of at most max_sentence_length, each piece trained. Returns
 * 0, or 1 when the run must stop. */
static int train_document(wv_d2v_worker *w, wv_rng *rng, int64_t d, const int32_t *tags, int n_tags, tally *t) {
    wv_d2v_model *m = w->m;
    int64_t pos = m->doc_start[d];
    const int64_t end = m->doc_start[d + 1];
    while (pos < end) {
        const int len = read_piece(m, &pos, end, rng, t, w->piece);
        if (len) {
            if (m->mode == WV_D2V_DBOW)
                train_piece_dbow(w, rng, len, tags, n_tags, t->alpha, &t->loss, &t->examples);
            else if (m->mode == WV_D2V_DM)
                train_piece_dm(w, rng, len, tags, n_tags, t->alpha, &t->loss, &t->examples);
            else
                train_piece_concat(w, rng, len, tags, n_tags, t->alpha, &t->loss, &t->examples);
        }
        if (!isfinite(t->loss)) {
            wv_d2v_fail(m, WV_ERR_DIVERGED);
            return 1;
        }
        if (t->unpublished >= PROGRESS_STEP) wv_d2v_publish(w, t);
        if (atomic_load_explicit(&m->k.stop, memory_order_relaxed)) return 1;
    }
    return 0;
}

/* The block a pass trains k-th: in training, the blocks of the corpus's
 * two halves in turn, each half in its order (as gensim's corpus_file reads
 * its file with two workers), so that text whose documents run by topic
 * (Wikipedia's articles) does not end a pass on one region of it: the word
 * vectors of dbow_words come out better so (docs/performance.md). Inference
 * takes the blocks in order. */
static int64_t pass_block(const wv_d2v_model *m, int64_t k) {
    if (m->infer_epochs) return k;
    const int64_t half = (m->n_blocks + 1) / 2;
    return k % 2 == 0 ? k / 2 : half + k / 2;
}

static void run_worker(void *arg) {
    wv_d2v_worker *w = arg;
    wv_d2v_model *m = w->m;
    tally t = {0, 0.0, 0, wv_w2v_current_alpha(&m->k)};
    for (;;) {
        if (atomic_load_explicit(&m->k.stop, memory_order_relaxed)) break;
        const int64_t k = atomic_fetch_add_explicit(&m->next_block, 1, memory_order_relaxed);
        if (k >= m->n_blocks) break;
        const int64_t b = pass_block(m, k);
        /* One random stream a (pass, block): what is drawn for a block does
         * not depend on the thread count or on which thread takes it. */
        wv_rng rng;
        wv_rng_seed(&rng, m->k.cfg.seed, (uint64_t)w->epoch + 1, (uint64_t)b + 1);
        const int64_t lo = b * m->docs_per_block;
        const int64_t hi = lo + m->docs_per_block < m->n_docs ? lo + m->docs_per_block : m->n_docs;
        int stop = 0;
        if (m->infer_epochs)
            stop = wv_d2v_infer_documents(w, lo, hi, &t);
        else if (in_lanes(m))
            stop = train_lanes(w, &rng, lo, hi, &t);
        else
            for (int64_t d = lo; d < hi && !stop; d++) {
                const int64_t t0 = m->tag_start[d];
                const int n_tags = (int)(m->tag_start[d + 1] - t0);
                if (m->mode == WV_D2V_DM_CONCAT && n_tags != m->dm_tag_count) { /* gensim skips it */
                    t.unpublished += m->doc_start[d + 1] - m->doc_start[d];
                    continue;
                }
                stop = train_document(w, &rng, d, m->tags + t0, n_tags, &t);
            }
        if (stop) break;
    }
    wv_hot_rows_sync(&w->rows, m->k.cfg.dim);
    wv_d2v_publish(w, &t);
}

typedef struct {
    /* lanes: the lanes, inference's order, and the lanes' pieces; else 0 */
    size_t piece, slots, layer, negatives, negative_rows, lanes, outs, dots, inputs, locks;
    wv_hot_span hot;
} worker_sizes;

/* The buffers of a thread among n_threads: with several, and output rows
 * that learn, a private copy of the loss's hot rows (cfg.hot_rows of them:
 * the most frequent words' with NS, the top of the tree with HS). */
static worker_sizes sizes_of(const wv_d2v_model *m, int n_threads) {
    const int32_t wanted = n_threads > 1 && m->learn_hidden ? m->k.cfg.hot_rows : 0;
    /* the most negatives a set draws (draws(): more for the groups of shared negatives) */
    const size_t drawn = (size_t)(m->k.cfg.negative > m->group_negatives ? m->k.cfg.negative : m->group_negatives);
    return (worker_sizes){
        .piece = (size_t)m->k.cfg.max_sentence_length * sizeof(int32_t),
        .slots = (size_t)(2 * (size_t)m->k.cfg.window + 1) * sizeof(int32_t),
        .layer = (size_t)m->k.cfg.dim * sizeof(float),
        .negatives = drawn * sizeof(int32_t),
        .negative_rows = drawn * sizeof(float *),
        .outs = (size_t)(1 + m->k.cfg.negative) * sizeof(float *),
        .dots = 2 * (size_t)(1 + m->k.cfg.negative) * sizeof(float),
        .inputs = (size_t)(2 * (size_t)m->k.cfg.window + 1) * sizeof(float *),
        .locks = (size_t)(2 * (size_t)m->k.cfg.window + 1) * sizeof(float),
        .lanes = m->infer_epochs || in_lanes(m) ? WV_D2V_LANES * (sizeof(lane) + (size_t)m->k.cfg.max_sentence_length
                                                                      * sizeof(int32_t))
                                       + (m->infer_epochs ? WV_D2V_SORTED * sizeof(sized_doc) : 0)
                                 : 0,
        .hot = m->k.cfg.loss == WV_LOSS_HS ? hs_hot_rows(&m->k, wanted) : ns_hot_rows(&m->k, wanted),
    };
}

size_t wv_d2v_worker_bytes(const wv_d2v_model *m, int n_threads) {
    if (n_threads < 1) n_threads = 1;
    worker_sizes z = sizes_of(m, n_threads);
    size_t hot = (size_t)(z.hot.hi > z.hot.lo ? z.hot.hi - z.hot.lo : 0) * z.layer;
    size_t one = wv_lines_bytes(z.piece) + wv_lines_bytes(z.slots) + 2 * wv_lines_bytes(z.layer)
                 + 2 * wv_lines_bytes(z.negatives) + 2 * wv_lines_bytes(z.negative_rows) + 2 * wv_lines_bytes(hot)
                 + sizeof(wv_d2v_worker) + wv_lines_bytes(z.lanes) + wv_lines_bytes(z.outs) + wv_lines_bytes(z.dots)
                 + wv_lines_bytes(z.inputs) + wv_lines_bytes(z.locks);
    return (size_t)n_threads * one;
}

static void free_workers(wv_d2v_model *m) {
    if (!m->workers) return;
    for (int t = 0; t < m->n_threads; t++) {
        wv_d2v_worker *w = &m->workers[t];
        free(w->piece); free(w->slots); free(w->neu1); free(w->neu1e); free(w->negatives); free(w->next_negatives);
        free(w->negative_rows); free(w->next_negative_rows);
        free(w->lanes); /* its pieces and the order live in the same block */
        free(w->outs); free(w->dots); free(w->inputs); free(w->locks);
        wv_hot_rows_free(&w->rows);
    }
    free(m->workers);
    m->workers = NULL;
    m->n_threads = 0;
}

static wv_status init_worker(wv_d2v_model *m, wv_d2v_worker *w, int epoch, int n_threads) {
    worker_sizes z = sizes_of(m, n_threads);
    w->m = m;
    w->rows = wv_hot_rows_none(m->k.output);
    w->epoch = epoch;
    atomic_init(&w->loss_seen, 0.0);
    atomic_init(&w->examples_seen, 0);
    w->piece = wv_alloc_lines(z.piece);
    w->slots = wv_alloc_lines(z.slots);
    w->neu1 = wv_alloc_lines(z.layer);
    w->neu1e = wv_alloc_lines(z.layer);
    w->negatives = wv_alloc_lines(z.negatives);
    w->next_negatives = wv_alloc_lines(z.negatives);
    w->negative_rows = wv_alloc_lines(z.negative_rows);
    w->next_negative_rows = wv_alloc_lines(z.negative_rows);
    w->outs = wv_alloc_lines(z.outs);
    w->dots = wv_alloc_lines(z.dots);
    w->inputs = wv_alloc_lines(z.inputs);
    w->locks = wv_alloc_lines(z.locks);
    if (!w->piece || !w->slots || !w->neu1 || !w->neu1e || !w->negatives || !w->next_negatives
        || !w->negative_rows || !w->next_negative_rows || !w->outs || !w->dots || !w->inputs || !w->locks)
        return WV_ERR_NOMEM;
    if (z.lanes) { /* one block: the lanes, the order, then each lane's piece */
        w->lanes = wv_alloc_lines(z.lanes);
        if (!w->lanes) return WV_ERR_NOMEM;
        w->order = m->infer_epochs ? (sized_doc *)(w->lanes + WV_D2V_LANES) : NULL; /* inference's */
        int32_t *pieces = m->infer_epochs ? (int32_t *)(w->order + WV_D2V_SORTED)
                                          : (int32_t *)(w->lanes + WV_D2V_LANES);
        for (int l = 0; l < WV_D2V_LANES; l++) w->lanes[l].piece = pieces + (size_t)l * m->k.cfg.max_sentence_length;
    }
    return wv_hot_rows_init(&w->rows, m->k.output, m->k.cfg.dim, z.hot);
}

void wv_d2v_model_init(wv_d2v_model *m) {
    wv_w2v_model_init(&m->k);
    m->doctags = NULL;
    m->words = NULL;
    m->doc_start = m->tag_start = NULL;
    m->tags = NULL;
    m->doc_seed = NULL;
    m->n_docs = m->n_doctags = 0;
    m->infer_epochs = 0;
    m->shared_negatives = 0;
    m->group = WV_D2V_GROUP;
    m->group_negatives = 1;
    m->workers = NULL;
    m->n_threads = 0;
    m->run.running = 0;
    atomic_store(&m->next_block, 0);
}

wv_status wv_d2v_start(wv_d2v_model *m, int epoch, int n_threads) {
    if (m->run.running) return WV_ERR_BUSY;
    if (n_threads < 1) n_threads = 1;
    const int64_t words = m->n_docs ? m->doc_start[m->n_docs] : 0;
    int64_t per = words > 0 ? (int64_t)((double)BLOCK_WORDS * (double)m->n_docs / (double)words) : m->n_docs;
    if (per < 1) per = 1;
    m->docs_per_block = per;
    m->n_blocks = (m->n_docs + per - 1) / per;
    atomic_store(&m->k.stop, 0);
    atomic_store(&m->k.error, WV_OK);
    atomic_store(&m->next_block, 0);
    m->workers = calloc((size_t)n_threads, sizeof *m->workers);
    if (!m->workers) return WV_ERR_NOMEM;
    m->n_threads = n_threads;
    for (int t = 0; t < n_threads; t++) {
        if (init_worker(m, &m->workers[t], epoch, n_threads)) {
            free_workers(m);
            return WV_ERR_NOMEM;
        }
    }
    wv_status rc = wv_run_start(&m->run, n_threads, run_worker, m->workers, sizeof *m->workers);
    if (rc == WV_ERR_NOMEM) {
        free_workers(m);
        return rc;
    }
    if (rc) { /* the started workers stop at once; wv_d2v_join reports it */
        atomic_store(&m->k.stop, 1);
        atomic_store(&m->k.error, WV_ERR_THREAD);
    }
    return WV_OK;
}

void wv_d2v_running_loss(const wv_d2v_model *m, double *loss_sum, int64_t *examples) {
    *loss_sum = 0.0;
    *examples = 0;
    if (!m->workers) return;
    for (int t = 0; t < m->n_threads; t++) {
        *loss_sum += atomic_load_explicit(&m->workers[t].loss_seen, memory_order_relaxed);
        *examples += atomic_load_explicit(&m->workers[t].examples_seen, memory_order_relaxed);
    }
}

wv_status wv_d2v_join(wv_d2v_model *m, double *loss_sum, int64_t *examples) {
    *loss_sum = 0.0;
    *examples = 0;
    if (!m->run.running) return WV_OK;
    wv_run_join(&m->run);
    wv_d2v_running_loss(m, loss_sum, examples);
    free_workers(m);
    return (wv_status)atomic_load(&m->k.error);
}

/* A worker for one step outside training (the test entry points): the
 * caller's negatives and scratch (d2v.h says its size), every output row
 * shared. */
static wv_d2v_worker step_worker(wv_d2v_model *m, const int32_t *negatives, float *scratch, int n_ctx) {
    wv_d2v_worker w;
    memset(&w, 0, sizeof w);
    const size_t k1 = 1 + (size_t)m->k.cfg.negative;
    w.m = m;
    w.negatives = (int32_t *)negatives; /* only read */
    w.outs = (const float **)(void *)scratch; /* 2 (1 + K) floats hold 1 + K pointers */
    w.negative_rows = (const float **)(void *)(scratch + 2 * k1); /* and K */
    w.dots = scratch + 4 * k1;
    w.neu1 = w.dots + 2 * k1;
    w.neu1e = w.neu1 + m->k.cfg.dim;
    w.inputs = (const float **)(void *)(w.neu1e + m->k.cfg.dim); /* 2 (n_ctx + 1) floats, then n_ctx + 1 */
    w.locks = w.neu1e + m->k.cfg.dim + 2 * ((size_t)n_ctx + 1);
    w.rows = wv_hot_rows_none(m->k.output);
    return w;
}

/* wv_d2v_step, a function a mode (WV_APART). */
WV_APART double dbow_step(wv_d2v_worker *w, const int32_t *tags, int n_tags, int32_t target, float alpha) {
    double loss = 0.0;
    for (int t = 0; t < n_tags; t++)
        loss += row_step(w, tag_row(w->m, tags[t]), 1.0f, w->m->learn_doctags, target, alpha);
    return loss;
}

WV_APART double dm_step_apart(wv_d2v_worker *w, const int32_t *tags, int n_tags, const int32_t *ctx, int n_ctx,
                              int32_t target, float alpha) {
    return dm_step(w, tags, n_tags, ctx, n_ctx, target, alpha);
}

WV_APART double concat_step_apart(wv_d2v_worker *w, const int32_t *tags, int n_tags, const int32_t *ctx, int n_ctx,
                                  int32_t target, float alpha) {
    return concat_step(w, tags, n_tags, ctx, n_ctx, target, alpha);
}

double wv_d2v_step(wv_d2v_model *m, const int32_t *tags, int n_tags, const int32_t *ctx, int n_ctx,
                   int32_t target, const int32_t *negatives, float alpha, float *scratch) {
    wv_d2v_worker w = step_worker(m, negatives, scratch, n_ctx);
    if (m->k.cfg.loss == WV_LOSS_NS) /* the caller's k.cfg.negative negatives */
        for (int d = 0; d < m->k.cfg.negative; d++)
            w.negative_rows[d] = wv_out_row(&w.rows, negatives[d], m->k.cfg.dim);
    if (m->mode == WV_D2V_DBOW) return dbow_step(&w, tags, n_tags, target, alpha);
    if (m->mode == WV_D2V_DM) return dm_step_apart(&w, tags, n_tags, ctx, n_ctx, target, alpha);
    return concat_step_apart(&w, tags, n_tags, ctx, n_ctx, target, alpha);
}

double wv_d2v_group_step(wv_d2v_model *m, int32_t tag, const int32_t *targets, int k, const int32_t *negatives,
                         float alpha, float *scratch) {
    wv_d2v_worker w = step_worker(m, negatives, scratch, 0);
    return group_step(&w, tag_row(m, tag), targets, k, m->learn_doctags, alpha);
}
