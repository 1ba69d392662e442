/* Paragraph vectors (Doc2Vec; Le & Mikolov 2014, gensim's Doc2Vec) on the
 * word2vec kernels: each document has one or more tags, each tag a row of
 * its own (the doctag rows), trained with the word rows and the output rows
 * of word2vec's losses (negative sampling or hierarchical softmax).
 *
 *   PV-DBOW    each tag row predicts every word of its document (skip-gram
 *              with the document as the centre); with dbow_words, word
 *              skip-gram pairs interleaved, as gensim's dbow_words=1
 *   PV-DM      the mean (or sum) of the window's word rows and the tag rows
 *              predicts the centre word (CBOW with the tags added)
 *   PV-DM concat  the tag rows and the 2 x window word rows side by side
 *              (a null word padding the document's ends) predict the centre
 *              word; the output rows are that wide
 *
 * PV-DBOW with NS (but for dbow_words and shared_negatives) trains eight of
 * a thread's documents side by side, each step's negative set serving all
 * eight (d2v_train.c).
 *
 * Inference trains fresh tag rows, one a document, each document its own
 * passes with the learning rate falling from alpha to min_alpha over them
 * (gensim's infer_vector), word and output rows frozen; many documents at
 * once on every thread, each one's result independent of the others. All
 * arrays are owned by the caller; this core holds pointers only. */
#ifndef WV_D2V_H
#define WV_D2V_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "parallel.h"
#include "status.h"
#include "w2v.h"

enum { WV_D2V_DBOW = 0, WV_D2V_DM = 1, WV_D2V_DM_CONCAT = 2 };
/* PV-DBOW with shared negatives: the words a negative set serves (per tag). */
enum { WV_D2V_GROUP = 8 };

typedef struct wv_d2v_worker wv_d2v_worker;

typedef struct {
    /* The kernels' context: cfg (dim is the output layer's width: the vector
     * size, or (dm_tag_count + 2 window) x it with concat; loss, window,
     * negative, cbow_mean, shrink_windows, alpha, min_alpha, linear_decay,
     * seed, max_sentence_length), the output rows, the noise table or the
     * Huffman tree, the sigmoid table, keep_prob (subsampling), input (the
     * word rows: vocab_size of them, and the null word's after them with
     * concat), input_lock, vocab_size, and the schedule's words_done and
     * schedule_words (wv_w2v_current_alpha). */
    wv_w2v_model k;
    int mode;            /* WV_D2V_DBOW, WV_D2V_DM, WV_D2V_DM_CONCAT */
    int dbow_words;      /* DBOW: skip-gram on the words too */
    int shared_negatives; /* DBOW with NS: `group` words of a piece share one negative set (group_step) */
    int group;            /* ... so many words a group (WV_D2V_GROUP) */
    int group_negatives;  /* ... and so many negatives a group, each weighted negative / group_negatives */
    int dm_tag_count;    /* concat: the tag rows in the input layer (documents with another number are skipped) */
    int vec_dim;         /* the word and tag rows' width */
    int learn_words, learn_doctags, learn_hidden;
    int32_t null_word;   /* concat: the word row that pads a window past the document's ends */
    float *doctags;      /* n_doctags x vec_dim */
    int64_t n_doctags;
    const int32_t *words;       /* every document's word ids, one after another */
    const int64_t *doc_start;   /* n_docs + 1: document d is words[doc_start[d], doc_start[d + 1]) */
    const int64_t *tag_start;   /* n_docs + 1: its tags are tags[tag_start[d], tag_start[d + 1]) */
    const int32_t *tags;        /* rows of doctags */
    int64_t n_docs;
    /* Inference (infer_epochs > 0): document d's one tag is row d, which
     * starts as (u - 0.5) / vec_dim, u uniform from doc_seed[d], and trains
     * infer_epochs passes of its document alone; tag_start and tags unused. */
    int infer_epochs;
    const uint64_t *doc_seed;
    /* the running epoch */
    int64_t docs_per_block, n_blocks;
    _Atomic int64_t next_block;
    int n_threads;
    wv_d2v_worker *workers;
    wv_run run;
} wv_d2v_model;

/* Clears the running state and fills the kernels' sigmoid table; the
 * caller sets the rest. */
void wv_d2v_model_init(wv_d2v_model *m);
/* Starts one pass over the documents on n_threads threads (blocks of
 * documents claimed in order) and returns at once: WV_OK, WV_ERR_BUSY or
 * WV_ERR_NOMEM. In inference the pass is every document's infer_epochs. */
wv_status wv_d2v_start(wv_d2v_model *m, int epoch, int n_threads);
/* Waits for the pass: WV_OK or the first worker error; its loss and
 * examples (float64 sums). */
wv_status wv_d2v_join(wv_d2v_model *m, double *loss_sum, int64_t *examples);
/* While a pass runs: its loss and examples so far. */
void wv_d2v_running_loss(const wv_d2v_model *m, double *loss_sum, int64_t *examples);
/* The bytes wv_d2v_start allocates for n_threads threads. */
size_t wv_d2v_worker_bytes(const wv_d2v_model *m, int n_threads);

/* One prediction as training takes it, for tests: the input rows (tag rows
 * `tags`, word rows `ctx`) as the mode combines them predict `target`
 * against `negatives` (NS: k.cfg.negative of them) or along its path (HS);
 * the rows that learn (learn_* flags) then move. DBOW: each tag in turn
 * (ctx unused); DM: the mean or sum of all; concat: side by side (n_ctx ==
 * 2 window, null_word where the window passes the document's ends).
 * scratch holds 2 x k.cfg.dim + 6 x (1 + k.cfg.negative) + 3 x (n_ctx + 1)
 * floats, 8-byte aligned. Returns the loss. */
double wv_d2v_step(wv_d2v_model *m, const int32_t *tags, int n_tags, const int32_t *ctx, int n_ctx,
                   int32_t target, const int32_t *negatives, float alpha, float *scratch);

/* One PV-DBOW group with shared negatives as training takes it, for tests:
 * tag row `tag` predicts targets[0..k) against k.cfg.negative negatives,
 * the positives in turn, each negative once weighted by the positives it is
 * not, the tag row moved once by the sum. scratch: as wv_d2v_step's. */
double wv_d2v_group_step(wv_d2v_model *m, int32_t tag, const int32_t *targets, int k, const int32_t *negatives,
                         float alpha, float *scratch);

#endif
