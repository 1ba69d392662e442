/* Paragraph vectors' worker, private to d2v_train.c (training) and d2v_infer.c
 * (inference): a thread's buffers, and the one-prediction kernels both run,
 * forced inline so that each multiversioned loop compiles them for its
 * target (vecmath.h). */
#ifndef WV_D2V_WORKER_H
#define WV_D2V_WORKER_H

#include <math.h>
#include <string.h>

#include "d2v.h"
#include "hotrows.h"
#include "huffman.h"
#include "loss_hs.h" /* hs_hot_rows */
#include "loss_ns.h" /* ns_gradient, ns_draw, ns_hot_rows */
#include "rng.h"
#include "sigmoid.h"
#include "vecmath.h"

/* Words a thread trains before it publishes its progress and reads the
 * learning rate again (word2vec.c's 10,000). */
#define PROGRESS_STEP 10000
/* Documents a lane group (one negative set serves them all; inference, and
 * PV-DBOW's training), and in inference documents sorted by length at a time
 * before they are grouped (so that a group's documents end together and its
 * negatives keep serving several). */
#define WV_D2V_LANES 8
#define WV_D2V_SORTED 256

typedef struct lane lane;
typedef struct sized_doc sized_doc;

/* A document on its lane (training's lanes in d2v_train.c, inference's in d2v_infer.c). */
struct lane {
    int64_t d;       /* the document */
    wv_rng rng;      /* inference: its own stream */
    int epoch;       /* inference: its pass, */
    float alpha;     /* ... and the pass's rate */
    int64_t pos;     /* its next word to read */
    int len, i;      /* its piece (kept words) and the position in it */
    int32_t *piece;
};

/* A document and its length, to sort by. */
struct sized_doc {
    int64_t words, d;
};

struct wv_d2v_worker {
    wv_d2v_model *m;
    int epoch;
    int32_t *piece;      /* max_sentence_length: the kept words of a document's piece */
    int32_t *slots;      /* 2 x window: the word ids of a position's window */
    float *neu1, *neu1e; /* the output layer's width */
    int32_t *negatives;  /* negative: the current prediction's */
    int32_t *next_negatives; /* negative: the next prediction's, drawn ahead so that their rows are fetched
                              * while this one trains (the loop waits on random rows, not arithmetic) */
    const float **negative_rows, **next_negative_rows; /* their output rows, found once as they are fetched */
    wv_hot_rows rows;    /* output rows, the most written ones private with several threads (hotrows.h) */
    lane *lanes;         /* WV_D2V_LANES documents side by side, each with its piece (in_lanes, inference) */
    sized_doc *order;    /* inference: WV_D2V_SORTED documents by length */
    const float **outs;  /* 1 + negative: a prediction's output rows (ns_products) */
    float *dots;         /* 2 x (1 + negative): their products, then their gradients */
    const float **inputs; /* 2 x window + 1: the window's rows PV-DM's input layer sums */
    float *locks;        /* 2 x window + 1: their factors on the error (input_lock) */
    int since_sync;      /* predictions since its hot rows were last merged */
    _Atomic double loss_seen;
    _Atomic int64_t examples_seen;
};

/* The factor on word row r's updates: input_lock for the vocabulary's words,
 * 1 for the null word after them. */
WV_HOT float word_lock(const wv_d2v_model *m, int32_t r) {
    return r < m->k.vocab_size ? wv_input_lock(&m->k, r) : 1.0f;
}

WV_HOT float *word_row(const wv_d2v_model *m, int32_t r) { return m->k.input + (size_t)r * m->vec_dim; }

WV_HOT float *tag_row(const wv_d2v_model *m, int32_t t) { return m->doctags + (size_t)t * m->vec_dim; }

/* One NS term for f = h . out: its gradient (ns_gradient), its loss
 * (-log sigmoid(+-f)) added to *loss; inside the table one range test for
 * both (the same values as taking them apart). */
WV_HOT float ns_term(const wv_sigmoid_table *t, float f, int positive, float alpha, double *loss) {
    if (f > -WV_SIGMOID_MAX && f < WV_SIGMOID_MAX) {
        *loss -= t->log_sigmoid[wv_sigmoid_index(positive ? f : -f)];
        return ((positive ? 1.0f : 0.0f) - t->sigmoid[wv_sigmoid_index(f)]) * alpha;
    }
    *loss -= wv_log_sigmoid(t, positive ? f : -f);
    return ns_gradient(t, f, positive ? 1.0f : 0.0f, alpha);
}

/* Negative sampling's products: h against target's output row and the
 * negatives' (one equal to target skipped, as word2vec.c), all taken first
 * in one pass over h: w->outs[0..n) the rows, w->dots the products, and
 * the gradients (times `scale`) after them, at w->dots + 1 + negative.
 * Returns the loss; *n the rows. */
WV_HOT double ns_products(wv_d2v_worker *w, const float *h, int32_t target, float alpha, float scale, int *n) {
    const wv_w2v_model *k = &w->m->k;
    const float **outs = w->outs;
    float *dots = w->dots, *g = w->dots + 1 + k->cfg.negative;
    int rows = 0;
    outs[rows++] = wv_out_row(&w->rows, target, k->cfg.dim);
    for (int d = 0; d < k->cfg.negative; d++)
        if (w->negatives[d] != target) outs[rows++] = w->negative_rows[d];
    wv_dots(h, outs, rows, k->cfg.dim, dots);
    double loss = 0.0;
    g[0] = ns_term(&k->sigmoid, dots[0], 1, alpha, &loss) * scale;
    for (int j = 1; j < rows; j++) g[j] = ns_term(&k->sigmoid, dots[j], 0, alpha, &loss) * scale;
    *n = rows;
    return loss;
}

/* Negative sampling: h predicts target against the negatives; `e` becomes
 * e_scale x the error for h (with `add`: e += it; e may be h itself), and
 * the output rows move only where the hidden layer learns (not in
 * inference), in the same pass. The products are all taken before any row
 * moves: word2vec.c's loop but for a negative drawn twice, whose second
 * product there sees its first move. */
WV_HOT double predict_ns(wv_d2v_worker *w, const float *h, int32_t target, float *e, float e_scale, int add,
                         float alpha) {
    const int dim = w->m->k.cfg.dim;
    int n;
    double loss = ns_products(w, h, target, alpha, 1.0f, &n);
    const float *g = w->dots + 1 + w->m->k.cfg.negative;
    if (w->m->learn_hidden) {
        wv_add_combination_and_rows(e, e_scale, add, (float *const *)w->outs, g, n, h, dim);
    } else {
        if (!add) wv_zero(e, dim);
        wv_add_combination(e, w->outs, g, 1, n, dim); /* e_scale is 1 wherever output rows are frozen */
    }
    return loss;
}

/* Hierarchical softmax: the binary decisions along target's Huffman path;
 * neu1e becomes the error for h. Where the output rows learn, word2vec's
 * kernel (loss_hs.h); else the path read only. */
WV_HOT double predict_hs(const wv_d2v_model *m, wv_hot_rows *rows, const float *h, int32_t target, float *neu1e,
                         float alpha) {
    const wv_w2v_model *k = &m->k;
    const int dim = k->cfg.dim;
    wv_zero(neu1e, dim);
    if (m->learn_hidden) return hs_update(k, rows, h, target, neu1e, alpha);
    const uint8_t *code = k->codes + (size_t)target * WV_MAX_CODE_LENGTH;
    const int32_t *point = k->points + (size_t)target * WV_MAX_CODE_LENGTH;
    double loss = 0.0;
    for (int d = 0; d < k->code_length[target]; d++) {
        float *out = wv_out_row(rows, point[d], dim);
        rows->touches += point[d] == rows->hottest;
        float f = wv_dot(h, out, dim);
        loss -= wv_log_sigmoid(&k->sigmoid, code[d] ? -f : f);
        if (f <= -WV_SIGMOID_MAX || f >= WV_SIGMOID_MAX) continue; /* word2vec.c skips outside the table */
        float g = (1.0f - code[d] - k->sigmoid.sigmoid[wv_sigmoid_index(f)]) * alpha;
        wv_axpy(g, out, neu1e, dim);
    }
    return loss;
}

/* Merges the worker's hot rows when due (after each prediction). */
WV_HOT void sync_when_due(wv_d2v_worker *w) {
    if (++w->since_sync >= WV_HOT_SYNC_WORDS || w->rows.touches >= WV_HOT_SYNC_TOUCHES) {
        wv_hot_rows_sync(&w->rows, w->m->k.cfg.dim);
        w->since_sync = 0;
    }
}

/* One prediction by the worker's loss: neu1e becomes the error for h. */
WV_HOT double predict(wv_d2v_worker *w, const float *h, int32_t target, float *neu1e, float alpha) {
    const wv_d2v_model *m = w->m;
    double loss = m->k.cfg.loss == WV_LOSS_HS ? predict_hs(m, &w->rows, h, target, neu1e, alpha)
                                              : predict_ns(w, h, target, neu1e, 1.0f, 0, alpha);
    sync_when_due(w);
    return loss;
}

/* One input row (a tag's, or a context word's with dbow_words) predicts
 * target; the row moves when `learn` and by `lock`: with NS in the pass that
 * moves the output rows (no error buffer). */
WV_HOT double row_step(wv_d2v_worker *w, float *in, float lock, int learn, int32_t target, float alpha) {
    const wv_d2v_model *m = w->m;
    if (learn && m->learn_hidden && m->k.cfg.loss == WV_LOSS_NS) {
        double loss = predict_ns(w, in, target, in, lock, 1, alpha);
        sync_when_due(w);
        return loss;
    }
    double loss = predict(w, in, target, w->neu1e, alpha);
    if (learn) wv_axpy(lock, w->neu1e, in, m->k.cfg.dim);
    return loss;
}

/* PV-DBOW with shared negatives: the tag row h predicts k words at once,
 * against one negative set: the k positives as row_step does them, each
 * negative once with the weight of the positives it stands against (those
 * it is not), and h moves by the sum, once (a step of k predictions taken
 * at the same h). The negatives' rows are read once for k words. */
WV_HOT double group_step(wv_d2v_worker *w, float *h, const int32_t *targets, int k, int learn, float alpha) {
    const wv_d2v_model *m = w->m;
    const wv_w2v_model *km = &m->k;
    const int dim = km->cfg.dim;
    float *neu1e = w->neu1e;
    wv_zero(neu1e, dim);
    double loss = 0.0;
    for (int j = 0; j < k; j++) {
        float *out = wv_out_row(&w->rows, targets[j], dim);
        float f = wv_dot(h, out, dim);
        loss -= wv_log_sigmoid(&km->sigmoid, f);
        float g = ns_gradient(&km->sigmoid, f, 1.0f, alpha);
        wv_axpy(g, out, neu1e, dim);
        if (m->learn_hidden) wv_axpy(g, h, out, dim);
    }
    /* each of the group's negatives stands for negative / group_negatives of each word's */
    const float share = (float)km->cfg.negative / (float)m->group_negatives;
    for (int d = 0; d < m->group_negatives; d++) {
        const int32_t word = w->negatives[d];
        int against = k;
        for (int j = 0; j < k; j++) against -= targets[j] == word; /* word2vec.c skips a negative equal to its target */
        if (!against) continue;
        const float weight = share * (float)against;
        float *out = wv_out_row(&w->rows, word, dim);
        float f = wv_dot(h, out, dim);
        loss -= weight * wv_log_sigmoid(&km->sigmoid, -f);
        float g = ns_gradient(&km->sigmoid, f, 0.0f, alpha) * weight;
        wv_axpy(g, out, neu1e, dim);
        if (m->learn_hidden) wv_axpy(g, h, out, dim);
    }
    if (learn) wv_axpy(1.0f, neu1e, h, dim);
    w->since_sync += k;
    if (w->since_sync >= WV_HOT_SYNC_WORDS) {
        wv_hot_rows_sync(&w->rows, dim);
        w->since_sync = 0;
    }
    return loss;
}

/* PV-DM's window: the words of p[lo..hi] but p[i], their ids in w->slots
 * and their rows in w->inputs. Returns their number. */
WV_HOT int dm_window(wv_d2v_worker *w, const int32_t *p, int lo, int i, int hi) {
    const float *input = w->m->k.input; /* held: the stores below might alias the model */
    const size_t vd = (size_t)w->m->vec_dim;
    int32_t *slots = w->slots;
    const float **inputs = w->inputs;
    int n = 0;
    for (int c = lo; c < i; c++, n++) inputs[n] = input + (size_t)(slots[n] = p[c]) * vd;
    for (int c = i + 1; c <= hi; c++, n++) inputs[n] = input + (size_t)(slots[n] = p[c]) * vd;
    return n;
}

/* PV-DM's input layer from the window's rows in w->inputs[0..n_ctx):
 * w->neu1 = the mean (or sum) of them and the tag rows, in one pass (with
 * one tag, the common case, it is w->inputs[n_ctx] after the words' rows;
 * with more, each is added after). Returns 1 / their number. */
WV_HOT float dm_sum(wv_d2v_worker *w, const int32_t *tags, int n_tags, int n_ctx) {
    const wv_d2v_model *m = w->m;
    const int dim = m->vec_dim;
    const float inv = 1.0f / (float)(n_ctx + n_tags);
    const float weight = m->k.cfg.cbow_mean ? inv : 1.0f;
    const int one_tag = n_tags == 1; /* w->inputs holds 2 window + 1 rows */
    if (one_tag) w->inputs[n_ctx] = tag_row(m, tags[0]);
    wv_set_combination(w->neu1, w->inputs, &weight, 0, n_ctx + one_tag, dim);
    for (int t = 0; t < n_tags && !one_tag; t++) wv_axpy(weight, tag_row(m, tags[t]), w->neu1, dim);
    return inv;
}

/* PV-DM after its input layer (dm_sum's, which returned inv): the layer
 * predicts target; each of its rows receives the error (with the sum,
 * divided by their number, as gensim). The window's rows are moved in one
 * pass (a repeated word's row takes each share). */
WV_HOT double dm_learn(wv_d2v_worker *w, const int32_t *tags, int n_tags, const int32_t *ctx, int n_ctx, float inv,
                       int32_t target, float alpha) {
    const wv_d2v_model *m = w->m;
    const int dim = m->vec_dim;
    float *neu1e = w->neu1e;
    double loss = predict(w, w->neu1, target, neu1e, alpha);
    const float share = m->k.cfg.cbow_mean ? 1.0f : inv;
    /* the rows that learn, in w->inputs: the words' (by their locks), then the one tag's */
    const int locked = m->k.input_lock != NULL;
    int n = 0;
    if (m->learn_words) { /* w->inputs[0, n_ctx) are their rows */
        n = n_ctx;
        for (int c = 0; c < n_ctx && locked; c++) w->locks[c] = share * word_lock(m, ctx[c]);
    }
    const int tag_in_rows = n_tags == 1 && m->learn_doctags;
    if (tag_in_rows) {
        w->inputs[n] = tag_row(m, tags[0]);
        w->locks[n++] = share;
    }
    if (locked) wv_add_to_rows((float *const *)w->inputs, w->locks, 1, n, neu1e, dim);
    else wv_add_to_rows((float *const *)w->inputs, &share, 0, n, neu1e, dim); /* every row by the same factor */
    if (m->learn_doctags && !tag_in_rows)
        for (int t = 0; t < n_tags; t++) wv_axpy(share, neu1e, tag_row(m, tags[t]), dim);
    return loss;
}

/* PV-DM: the mean (or sum) of the context words' rows ctx[0..n_ctx) and
 * the tag rows predicts target (dm_learn). */
WV_HOT double dm_step(wv_d2v_worker *w, const int32_t *tags, int n_tags, const int32_t *ctx, int n_ctx,
                      int32_t target, float alpha) {
    for (int c = 0; c < n_ctx; c++) w->inputs[c] = word_row(w->m, ctx[c]);
    const float inv = dm_sum(w, tags, n_tags, n_ctx);
    return dm_learn(w, tags, n_tags, ctx, n_ctx, inv, target, alpha);
}

/* PV-DM concat's window at position i of piece p[0..len): the 2 x window
 * words around it, the null word past the piece's ends. */
WV_HOT void concat_window(const wv_d2v_model *m, const int32_t *p, int len, int i, int32_t *slots) {
    int s = 0;
    for (int c = i - m->k.cfg.window; c <= i + m->k.cfg.window; c++)
        if (c != i) slots[s++] = c < 0 || c >= len ? m->null_word : p[c];
}

/* PV-DM concat's input layer: w->neu1 = the tag rows, then the slots' word
 * rows, side by side. */
WV_HOT void concat_layer(wv_d2v_worker *w, const int32_t *tags, int n_tags, const int32_t *slots, int n_slots) {
    const wv_d2v_model *m = w->m;
    const size_t vd = (size_t)m->vec_dim;
    for (int t = 0; t < n_tags; t++) memcpy(w->neu1 + (size_t)t * vd, tag_row(m, tags[t]), sizeof(float) * vd);
    for (int s = 0; s < n_slots; s++)
        memcpy(w->neu1 + (size_t)(n_tags + s) * vd, word_row(m, slots[s]), sizeof(float) * vd);
}

/* PV-DM concat: the tag rows, then the window's 2 x window word rows, side
 * by side, predict target; each row receives its own part of the error. */
WV_HOT double concat_step(wv_d2v_worker *w, const int32_t *tags, int n_tags, const int32_t *slots, int n_slots,
                          int32_t target, float alpha) {
    const wv_d2v_model *m = w->m;
    const int vd = m->vec_dim;
    float *neu1e = w->neu1e;
    concat_layer(w, tags, n_tags, slots, n_slots);
    double loss = predict(w, w->neu1, target, neu1e, alpha);
    if (m->learn_doctags)
        for (int t = 0; t < n_tags; t++) wv_axpy(1.0f, neu1e + (size_t)t * vd, tag_row(m, tags[t]), vd);
    if (m->learn_words)
        for (int s = 0; s < n_slots; s++)
            wv_axpy(word_lock(m, slots[s]), neu1e + (size_t)(n_tags + s) * vd, word_row(m, slots[s]), vd);
    return loss;
}

/* The output rows a prediction of `word` reads (its own, or its Huffman
 * path's), asked for ahead of their use. */
WV_HOT void prefetch_target(const wv_d2v_worker *w, int32_t word) {
    const wv_w2v_model *k = &w->m->k;
    if (k->cfg.loss == WV_LOSS_NS) {
        wv_prefetch_span(wv_out_row(&w->rows, word, k->cfg.dim), (size_t)k->cfg.dim);
        return;
    }
    const int32_t *point = k->points + (size_t)word * WV_MAX_CODE_LENGTH;
    for (int d = 0; d < k->code_length[word]; d++)
        wv_prefetch_span(wv_out_row(&w->rows, point[d], k->cfg.dim), (size_t)k->cfg.dim);
}

/* Negatives drawn a prediction: cfg.negative, or more for the groups of shared negatives. */
WV_HOT int draws(const wv_d2v_model *m) {
    return m->shared_negatives && !m->infer_epochs && m->group_negatives > m->k.cfg.negative ? m->group_negatives : m->k.cfg.negative;
}

/* Draws the next set (w->next_negatives) and asks for its rows. */
WV_HOT void draw_next_negatives(wv_d2v_worker *w, wv_rng *rng) {
    const wv_w2v_model *k = &w->m->k;
    const int n = draws(w->m);
    for (int d = 0; d < n; d++) w->next_negatives[d] = wv_alias_draw(&k->noise, rng);
    for (int d = 0; d < n; d++) {
        const float *row = wv_out_row(&w->rows, w->next_negatives[d], k->cfg.dim);
        w->next_negative_rows[d] = row;
        wv_prefetch_span(row, (size_t)k->cfg.dim);
    }
}

/* The set drawn ahead becomes the current one, and the next is drawn and its rows fetched. */
WV_HOT void draw_negatives(wv_d2v_worker *w, wv_rng *rng) {
    if (w->m->k.cfg.loss != WV_LOSS_NS) return;
    int32_t *t = w->negatives;
    w->negatives = w->next_negatives;
    w->next_negatives = t;
    const float **r = w->negative_rows;
    w->negative_rows = w->next_negative_rows;
    w->next_negative_rows = r;
    draw_next_negatives(w, rng);
}

/* The rows lane l's next position reads first: its target's output rows,
 * and, in the modes with a window (`mode`, a constant where inlined), the
 * word row that enters it (the whole window's at a piece's start): the
 * lane's turn comes a lane group later. */
WV_HOT void prefetch_lane(const wv_d2v_worker *w, const lane *l, int mode) {
    const wv_d2v_model *m = w->m;
    prefetch_target(w, l->piece[l->i]);
    if (mode == WV_D2V_DBOW) return;
    const int window = m->k.cfg.window;
    const int to = l->i + window < l->len ? l->i + window : l->len - 1;
    for (int c = l->i ? to : 0; c <= to; c++) wv_prefetch_span(word_row(m, l->piece[c]), (size_t)m->vec_dim);
}

/* A thread's running counts, published every PROGRESS_STEP words. */
typedef struct {
    int64_t unpublished;
    double loss;
    int64_t examples;
    float alpha;
} tally;

/* Reads a piece of document words from *pos up to end into piece: at most
 * max_sentence_length kept words, subsampled by rng as word2vec.c, each
 * word read counted in t. Returns its length: 0 when every word read was
 * dropped or none was left. */
WV_HOT int read_piece(const wv_d2v_model *m, int64_t *pos, int64_t end, wv_rng *rng, tally *t, int32_t *piece) {
    const int max_len = m->k.cfg.max_sentence_length;
    int len = 0;
    while (*pos < end && len < max_len) {
        const int32_t id = m->words[(*pos)++];
        t->unpublished++;
        const float keep = m->k.keep_prob[id];
        if (keep < 1.0f && wv_rng_uniform(rng) >= keep) continue;
        piece[len++] = id;
    }
    return len;
}

/* Reads lane l's next piece (read_piece) and starts it. Returns its length. */
WV_HOT int lane_read_piece(const wv_d2v_model *m, lane *l, wv_rng *rng, tally *t) {
    l->i = 0;
    l->len = read_piece(m, &l->pos, m->doc_start[l->d + 1], rng, t, l->piece);
    return l->len;
}

/* Stops the run with this error (the first one reported wins). */
void wv_d2v_fail(wv_d2v_model *m, wv_status status);
/* Publishes the progress and the loss so far; in training reads the
 * learning rate again. */
void wv_d2v_publish(wv_d2v_worker *w, tally *t);
/* Lane k's document is done: the last active lane takes its place (the
 * order of lanes is not in any result). Returns the lanes still active. */
WV_HOT int retire_lane(lane *lanes, int k, int active) {
    lane done = lanes[k];
    lanes[k] = lanes[--active];
    lanes[active] = done;
    return active;
}

/* After a step of the lanes: stops a diverged run, and publishes the
 * progress when due. Returns 1 when the run must stop. */
WV_HOT int lanes_step_done(wv_d2v_worker *w, tally *t) {
    if (!isfinite(t->loss)) {
        wv_d2v_fail(w->m, WV_ERR_DIVERGED);
        return 1;
    }
    if (t->unpublished >= PROGRESS_STEP) {
        wv_d2v_publish(w, t);
        if (atomic_load_explicit(&w->m->k.stop, memory_order_relaxed)) return 1;
    }
    return 0;
}

/* Infers documents [lo, hi) (d2v_infer.c): in order of length,
 * WV_D2V_LANES at a time. Returns 0, or 1 when the run must stop. */
int wv_d2v_infer_documents(wv_d2v_worker *w, int64_t lo, int64_t hi, tally *t);

#endif
