/* Inside the word2vec core: a training thread (wv_w2v_worker) and what a
 * loss is to the rest of the core (wv_w2v_loss).
 *
 * Each loss is one file that owns everything it does: its kernel, which
 * output rows it keeps private (hotrows.h), what it prefetches and which
 * random draws it makes ahead. It fills the sentence loop of
 * w2v_sentence.h with its hooks and publishes one descriptor below; the
 * epoch (w2v_epoch.c) picks the descriptor once per worker and calls it
 * once per sentence, so the per-word and per-pair work stays inlined.
 *
 *   loss_ns.c         negative sampling, pair by pair (word2vec.c)
 *   loss_ns_window.c  skip-gram NS with one negative set per window
 *   loss_hs.c         hierarchical softmax
 *   loss_softmax.c    the exact softmax over the vocabulary
 *   loss_ns_subword.c fastText's model: NS on means of word and n-gram rows
 *   loss_hs_subword.c fastText's model on hierarchical softmax
 *   loss_softmax_subword.c  ... and on the exact softmax (the three in the
 *                     loop of w2v_subword_sentence.h) */
#ifndef WV_W2V_LOSS_H
#define WV_W2V_LOSS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hotrows.h"
#include "rng.h"
#include "w2v.h"

typedef struct wv_w2v_loss wv_w2v_loss;

struct wv_w2v_worker {
    wv_w2v_model *m;
    const wv_w2v_loss *loss;
    int epoch;
    int32_t *sentence;         /* max_sentence_length */
    int32_t *ids;              /* ids read from the corpus file: two chunks */
    float *neu1, *neu1e;       /* dim */
    int32_t *negatives;        /* negative: the current word's or pair's */
    int32_t *next_negatives;   /* negative: the next set, drawn ahead */
    float *scratch;            /* the loss's own (its scratch_floats) */
    float **window_rows;       /* 2 x window: CBOW's context rows, */
    float *window_locks;       /* ... and their factors on the error (input_lock) */
    wv_hot_rows rows;          /* output rows, hot ones private */
    /* The epoch's loss and examples so far, published with the progress
     * and at the end (wv_w2v_running_loss reads them while the threads run,
     * wv_w2v_join_epoch after). */
    _Atomic double loss_seen;
    _Atomic int64_t examples_seen;
};

struct wv_w2v_loss {
    /* Trains w->sentence[0..len) and adds its loss and examples to the
     * caller's locals (workers sit side by side in one array: per-pair
     * writes there would bounce a shared cache line between cores). */
    void (*train_sentence)(wv_w2v_worker *w, wv_rng *rng, int len, float alpha, double *loss,
                           int64_t *examples);
    /* One prediction step as training takes it, with w->negatives[0..n_neg)
     * where the loss has negatives (wv_w2v_step, for tests). */
    double (*step)(wv_w2v_worker *w, const float *h, int32_t target, int n_neg, float *neu1e, float alpha);
    /* The output rows a thread keeps private when there are several:
     * `wanted` rows (at most), where the loss writes most. */
    wv_hot_span (*hot_rows)(const wv_w2v_model *m, int32_t wanted);
    /* Floats of w->scratch the loss needs. */
    size_t (*scratch_floats)(const wv_w2v_model *m);
};

extern const wv_w2v_loss wv_loss_ns, wv_loss_ns_window, wv_loss_hs, wv_loss_softmax, wv_loss_ns_subword,
    wv_loss_hs_subword, wv_loss_softmax_subword;

/* The loss that trains a model with this configuration (w2v.c). */
const wv_w2v_loss *wv_w2v_loss_for(const wv_w2v_config *cfg);
/* A worker for one step outside training (the test entry points): the
 * caller's negatives and scratch, every output row shared. */
wv_w2v_worker wv_w2v_step_worker(wv_w2v_model *m, const int32_t *negatives, float *scratch);
/* scratch_floats of a loss that needs none. */
size_t wv_w2v_no_scratch(const wv_w2v_model *m);

#endif
