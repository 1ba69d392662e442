/* word2vec training: skip-gram and CBOW with negative sampling, hierarchical
 * softmax or full softmax, over an encoded token-id array, in T lock-free
 * (Hogwild) threads. Semantics follow word2vec.c (see docs/ARCHITECTURE.md).
 * All arrays are owned by the caller; this core holds pointers only. */
#ifndef WV_W2V_H
#define WV_W2V_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "alias.h"
#include "huffman.h"
#include "parallel.h"
#include "sigmoid.h"
#include "status.h"

enum { WV_SKIPGRAM = 0, WV_CBOW = 1 };
enum { WV_LOSS_NS = 0, WV_LOSS_HS = 1, WV_LOSS_SOFTMAX = 2 };


typedef struct {
    int arch, loss;
    int dim, window, negative;
    int max_sentence_length;
    int cbow_mean;          /* 1: mean of context vectors (word2vec.c); 0: sum */
    int shrink_windows;     /* 1: radius uniform in 1..window (word2vec.c) */
    /* The learning rate at a progress p in [0, 1]: alpha - (alpha - min_alpha) x p
     * (linear_decay, gensim's line), or alpha x (1 - p) floored at min_alpha
     * (word2vec.c). */
    float alpha, min_alpha;
    int linear_decay;
    uint64_t seed;
    int shared_negatives;   /* SG-NS: one negative set per window (loss_ns_window.c); window <= 64, negative <= 63 */
    int32_t hot_rows;       /* output rows each thread keeps a private copy of
                             * when threads > 1 (0: none; see hotrows.h) */
    int subwords;           /* 1: fastText's model, a word's input vector the mean of
                             * its rows in subword_rows (w2v_subword_sentence.h; any loss) */
} wv_w2v_config;

typedef struct wv_w2v_worker wv_w2v_worker;

typedef struct {
    wv_w2v_config cfg;
    int32_t vocab_size;
    float *input;                 /* V x dim ("syn0"); with subwords, V + bucket rows */
    float *output;                /* V x dim ("syn1neg"/softmax) or (V-1) x dim ("syn1", HS) */
    const float *keep_prob;       /* V: probability to keep a word (subsampling) */
    const float *input_lock;      /* V: factor on each word's input-row updates, 0 freezes the row
                                   * (gensim's vectors_lockf); NULL: 1 for every word */
    wv_alias_table noise;         /* NS noise distribution */
    const uint8_t *code_length;   /* HS: V */
    const uint8_t *codes;         /* HS: V x WV_MAX_CODE_LENGTH */
    const int32_t *points;        /* HS: V x WV_MAX_CODE_LENGTH */
    wv_sigmoid_table sigmoid;
    const int32_t *subword_offsets; /* subwords: V + 1; word w's rows are
                                     * subword_rows[offsets[w], offsets[w + 1]) */
    const int32_t *subword_rows;    /* subwords: its own row, then its n-grams' (subwords.h) */
    const int32_t *ids;           /* the corpus: word ids, WV_EOS at sentence ends */
    int ids_fd;                   /* >= 0: the ids are read from this file instead (int32, native order) */
    int64_t n_ids;
    int64_t schedule_words;       /* words over the whole schedule (alpha decay) */
    _Atomic int64_t words_done;   /* words processed in the schedule so far */
    _Atomic int stop;             /* set to ask the workers to stop */
    _Atomic int error;            /* first worker error */
    _Atomic int64_t next_chunk;   /* the running epoch's next claim of a chunk of ids (w2v_epoch.c) */
    _Atomic int pause;            /* set to ask the workers to claim no more chunks */
    int64_t regions;              /* the running epoch's regions (the order of its claims) */
    int64_t claims;               /* ... and its number of claims */
    /* running epoch */
    int n_threads;
    wv_w2v_worker *workers;
    wv_run run;
} wv_w2v_model;

/* The factor on word w's input-row updates (w2v_model.input_lock). */
static inline float wv_input_lock(const wv_w2v_model *m, int32_t w) {
    return m->input_lock ? m->input_lock[w] : 1.0f;
}

/* Fills the sigmoid table and clears the running state; the caller sets the
 * other fields. */
void wv_w2v_model_init(wv_w2v_model *m);

/* Starts one epoch on n_threads threads (they claim chunks of ids in order
 * until none is left) and returns at once: WV_OK, WV_ERR_BUSY or WV_ERR_NOMEM
 * (a thread that did not start is reported by wv_w2v_join_epoch).
 * first_claim > 0 continues an epoch paused after that many claims, with
 * the regions it had (regions 0: max(n_threads, 16), plus the epoch with
 * hierarchical softmax), so that the rest of
 * the epoch visits the same chunks in the same order. */
wv_status wv_w2v_start_epoch(wv_w2v_model *m, int epoch, int n_threads, int64_t first_claim, int64_t regions);
/* After a join: the claims the epoch has completed (all of them unless it
 * was paused; after a stop the last ones may be partly trained). */
int64_t wv_w2v_claims_done(const wv_w2v_model *m);
/* The bytes wv_w2v_start_epoch allocates for n_threads threads (their
 * buffers, the loss's scratch and hot rows; ids read from a file assumed),
 * from cfg and vocab_size alone: the memory check made before training. */
size_t wv_w2v_worker_bytes(const wv_w2v_model *m, int n_threads);
/* Waits for the running epoch. Returns WV_OK or the first worker error
 * (WV_ERR_THREAD, WV_ERR_DIVERGED); loss_sum and examples receive the epoch
 * totals (float64). */
wv_status wv_w2v_join_epoch(wv_w2v_model *m, double *loss_sum, int64_t *examples);
/* While an epoch runs: its loss and examples so far, as the threads last
 * published them (zeros when no epoch is running). */
void wv_w2v_running_loss(const wv_w2v_model *m, double *loss_sum, int64_t *examples);
/* The learning rate at the current progress. */
float wv_w2v_current_alpha(const wv_w2v_model *m);

/* One prediction step exactly as the training loop does it, for tests:
 * hidden h (dim), target word, explicit negatives (NS only), accumulates
 * the input gradient times alpha into neu1e and updates output rows.
 * Returns the loss of this step. */
double wv_w2v_step(wv_w2v_model *m, const float *h, int32_t target,
                   const int32_t *negatives, int n_negatives, float *neu1e,
                   float alpha, float *scratch);

/* One shared-negatives window (skip-gram NS) as the loop does it, for tests:
 * m_ctx <= 128 context ids, cfg.negative negatives; scratch holds
 * (negative + 1) x dim floats. Returns the window's loss. */
double wv_w2v_window_step(wv_w2v_model *m, const int32_t *ctx, int m_ctx, int32_t target,
                          const int32_t *negatives, float alpha, float *scratch);

/* One fastText step as the subword loop takes it, for tests: the mean of
 * the input rows rows[0..n_rows) (n_rows >= 1) predicts target (NS: against
 * cfg.negative negatives; HS: along its path; softmax: against every
 * word); every one of those rows then receives the whole input gradient
 * times alpha. scratch holds 2 x dim floats (the softmax: and vocab_size
 * more). Returns the step's loss. */
double wv_w2v_subword_step(wv_w2v_model *m, const int32_t *rows, int n_rows, int32_t target,
                           const int32_t *negatives, float alpha, float *scratch);

/* One skip-gram window over positions with shared negatives (NS,
 * cfg.shared_negatives) as the subword loop takes it, for tests: context j
 * (m_ctx <= 128) has the input rows rows[offsets[j], offsets[j + 1]) (at
 * least one); the mean of each predicts target against cfg.negative
 * negatives, then each context's rows receive its gradient. scratch holds
 * (2 m_ctx + negative + 2) x dim floats. Returns the window's loss. */
double wv_w2v_subword_window_step(wv_w2v_model *m, const int32_t *rows, const int32_t *offsets, int m_ctx,
                                  int32_t target, const int32_t *negatives, float alpha, float *scratch);

#endif
