/* One word2vec epoch: the threads (their memory, start and join) and the
 * order in which they take the corpus. A thread claims chunks of ids,
 * assembles sentences (subsampling as word2vec.c), hands each to its loss
 * (w2v_loss.h) and merges its hot rows (hotrows.h) every
 * WV_HOT_SYNC_WORDS words. */
#define _POSIX_C_SOURCE 200809L /* pread */
#include <math.h>
#include <stdlib.h>

#include "fileio.h"
#include "memory.h"
#include "rng.h"
#include "vocab.h" /* WV_EOS */
#include "w2v.h"
#include "w2v_loss.h"

/* Words a thread processes before it publishes progress and re-reads alpha
 * (word2vec.c: 10,000). */
#define PROGRESS_STEP 10000
/* Ids per unit of work: threads claim chunks from a shared counter, so the
 * epoch ends when the work runs out, not when the slowest of T fixed shards
 * does (text regions differ in subsampling and sentence length, and with
 * many threads the wait for the slowest shard would be a large part of an
 * epoch). Small enough that the last chunk to finish is a short wait. */
#define CHUNK_IDS 16384
/* The fewest regions the corpus is cut into for the order of claims (see
 * run_worker): with fewer threads than this an epoch still visits this many
 * places in turn, a coarse shuffle of the text. Corpora are ordered by
 * article and topic; trained in order, the last part of the epoch, where
 * alpha is smallest, would see one stretch of text only, which costs
 * analogy accuracy at no gain in speed. More regions than this traded
 * similarity (SimLex-999) for it (docs/performance.md). */
#define MIN_REGIONS 16

/* The regions of an epoch given no count. With hierarchical softmax each
 * later epoch takes one region more than the one before, so that the same
 * text is not read beside the same neighbours at the same point of every
 * epoch's schedule: HS gained analogy accuracy at five epochs, negative
 * sampling did not (docs/performance.md, "Each epoch its own order"). */
static int64_t default_regions(const wv_w2v_model *m, int epoch, int n_threads) {
    int64_t base = n_threads > MIN_REGIONS ? n_threads : MIN_REGIONS;
    return m->cfg.loss == WV_LOSS_HS && epoch > 0 ? base + epoch : base;
}

/* The ids a worker can see: ids[start, end) of the corpus at span[0..]. */
typedef struct {
    const int32_t *span;
    int64_t start, end;
} id_view;

/* Where chunk c begins: just after the first sentence end in its nominal
 * span [c, c + 1) * CHUNK_IDS, so that chunks cut sentences only where a
 * sentence is longer than a chunk (then at the nominal place). Monotone in
 * c; chunk 0 begins at 0 and the chunk past the last at n_ids. The view
 * must hold the nominal span. */
static int64_t chunk_begin(const wv_w2v_model *m, const id_view *v, int64_t c) {
    int64_t nominal = c * CHUNK_IDS;
    if (nominal <= 0) return 0;
    if (nominal >= m->n_ids) return m->n_ids;
    int64_t limit = nominal + CHUNK_IDS < m->n_ids ? nominal + CHUNK_IDS : m->n_ids;
    for (int64_t p = nominal; p < limit; p++)
        if (v->span[p - v->start] == WV_EOS) return p + 1;
    return nominal;
}

/* The view of chunk c: the ids in memory, or (ids in a file) chunks c and
 * c + 1 read into the worker's buffer, which is all chunk c needs to find
 * its two ends. Reading per chunk keeps the process's memory at the
 * buffers whatever the corpus size (a mapped file would count every page
 * it touched). Ids read from a file are checked against the vocabulary
 * here, since they never passed the binding's check. */
static wv_status view_chunk(const wv_w2v_model *m, int32_t *buf, int64_t c, id_view *v) {
    if (m->ids_fd < 0) {
        *v = (id_view){m->ids, 0, m->n_ids};
        return WV_OK;
    }
    int64_t start = c * CHUNK_IDS, end = start + 2 * CHUNK_IDS;
    if (end > m->n_ids) end = m->n_ids;
    wv_status rc = wv_read_ids(m->ids_fd, buf, start, end, m->vocab_size);
    if (rc) return rc;
    *v = (id_view){buf, start, end};
    return WV_OK;
}

static void fail(wv_w2v_model *m, wv_status status) {
    int expected = WV_OK;
    atomic_compare_exchange_strong(&m->error, &expected, status);
    atomic_store(&m->stop, 1);
}

static void run_worker(wv_w2v_worker *w) {
    wv_w2v_model *m = w->m;
    wv_rng rng;
    const int max_len = m->cfg.max_sentence_length;
    const int64_t n_chunks = (m->n_ids + CHUNK_IDS - 1) / CHUNK_IDS;
    /* Claim k is chunk (k mod R) * per + k div R: the corpus is cut into
     * R regions of `per` chunks (by default_regions) and the T claims in
     * flight at any moment lie in T different regions, far apart as fixed
     * shards would be (threads on neighbouring text would write the same
     * rare words' rows), while the work is still shared out until none is
     * left. A corpus of at most R chunks is visited in order. */
    const int64_t R = m->regions;
    const int64_t per = (n_chunks + R - 1) / R;
    int64_t unpublished = 0, examples = 0, since_sync = 0;
    double loss = 0.0;
    float alpha = wv_w2v_current_alpha(m);
    for (;;) {
        /* A pause is seen before a claim, never inside one: every chunk
         * claimed is trained whole, so the claims done say exactly where to
         * continue (a checkpoint in the middle of an epoch). */
        if (atomic_load_explicit(&m->pause, memory_order_relaxed)) break;
        int64_t k = atomic_fetch_add_explicit(&m->next_chunk, 1, memory_order_relaxed);
        if (k >= R * per || atomic_load_explicit(&m->stop, memory_order_relaxed)) break;
        int64_t c = (k % R) * per + k / R;
        if (c >= n_chunks) continue; /* the last region is short */
        /* One random stream per (epoch, chunk): what is drawn for a chunk
         * does not depend on the thread count or on which thread takes it. */
        wv_rng_seed(&rng, m->cfg.seed, (uint64_t)w->epoch + 1, (uint64_t)c + 1);
        id_view v;
        wv_status rc = view_chunk(m, w->ids, c, &v);
        if (rc) {
            fail(m, rc);
            break;
        }
        int64_t pos = chunk_begin(m, &v, c);
        const int64_t end = chunk_begin(m, &v, c + 1);
        while (pos < end) {
            if (atomic_load_explicit(&m->stop, memory_order_relaxed)) break;
            /* Assemble a sentence: up to EOS or max_len kept words; words are
             * counted for progress before subsampling (word2vec.c). */
            int len = 0;
            while (pos < end) {
                int32_t id = v.span[pos++ - v.start];
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
                atomic_store_explicit(&w->loss_seen, loss, memory_order_relaxed);
                atomic_store_explicit(&w->examples_seen, examples, memory_order_relaxed);
                unpublished = 0;
                alpha = wv_w2v_current_alpha(m);
            }
            if (len) w->loss->train_sentence(w, &rng, len, alpha, &loss, &examples);
            if (since_sync >= WV_HOT_SYNC_WORDS) {
                wv_hot_rows_sync(&w->rows, m->cfg.dim);
                since_sync = 0;
            }
            if (!isfinite(loss)) {
                fail(m, WV_ERR_DIVERGED);
                break;
            }
        }
    }
    wv_hot_rows_sync(&w->rows, m->cfg.dim);
    atomic_fetch_add_explicit(&m->words_done, unpublished, memory_order_relaxed);
    atomic_store_explicit(&w->loss_seen, loss, memory_order_relaxed);
    atomic_store_explicit(&w->examples_seen, examples, memory_order_relaxed);
}

static void worker_main(void *arg) { run_worker(arg); }

static void free_workers(wv_w2v_model *m) {
    if (!m->workers) return;
    for (int t = 0; t < m->n_threads; t++) {
        wv_w2v_worker *w = &m->workers[t];
        free(w->sentence); free(w->ids); free(w->neu1); free(w->neu1e); free(w->scratch); free(w->negatives);
        free(w->next_negatives); free(w->window_rows); free(w->window_locks);
        wv_hot_rows_free(&w->rows);
    }
    free(m->workers);
    m->workers = NULL;
    m->n_threads = 0;
}

/* The bytes of each buffer a thread allocates (init_worker), in one place
 * so that the estimate made before training (wv_w2v_worker_bytes) is the
 * allocation itself. */
typedef struct {
    size_t sentence, ids, vector, negatives, scratch, window_rows, window_locks;
    wv_hot_span hot;
} worker_sizes;

static worker_sizes sizes_of(const wv_w2v_model *m, const wv_w2v_loss *loss, int n_threads, int ids_on_disk) {
    /* One thread writes every row itself: no private copies, exact. */
    int32_t wanted = n_threads > 1 ? m->cfg.hot_rows : 0;
    return (worker_sizes){
        .sentence = (size_t)m->cfg.max_sentence_length * sizeof(int32_t),
        .ids = (ids_on_disk ? 2 * CHUNK_IDS : 1) * sizeof(int32_t),
        .vector = (size_t)m->cfg.dim * sizeof(float),
        .negatives = (size_t)(m->cfg.negative > 0 ? m->cfg.negative : 1) * sizeof(int32_t),
        .scratch = loss->scratch_floats(m) * sizeof(float),
        .window_rows = m->cfg.arch == WV_CBOW ? 2 * (size_t)m->cfg.window * sizeof(float *) : 0,
        .window_locks = m->cfg.arch == WV_CBOW ? 2 * (size_t)m->cfg.window * sizeof(float) : 0,
        .hot = loss->hot_rows(m, wanted),
    };
}

size_t wv_w2v_worker_bytes(const wv_w2v_model *m, int n_threads) {
    if (n_threads < 1) n_threads = 1;
    worker_sizes z = sizes_of(m, wv_w2v_loss_for(&m->cfg), n_threads, 1);
    size_t hot = (size_t)(z.hot.hi > z.hot.lo ? z.hot.hi - z.hot.lo : 0) * z.vector;
    size_t one = wv_lines_bytes(z.sentence) + wv_lines_bytes(z.ids) + 2 * wv_lines_bytes(z.vector)
                 + 2 * wv_lines_bytes(z.negatives) + wv_lines_bytes(z.scratch) + 2 * wv_lines_bytes(hot)
                 + wv_lines_bytes(z.window_rows) + wv_lines_bytes(z.window_locks) + sizeof(wv_w2v_worker);
    return (size_t)n_threads * one;
}

/* Thread t's buffers, its loss and its hot rows. */
static wv_status init_worker(wv_w2v_model *m, wv_w2v_worker *w, int epoch) {
    w->m = m;
    w->loss = wv_w2v_loss_for(&m->cfg);
    w->epoch = epoch;
    atomic_init(&w->loss_seen, 0.0);
    atomic_init(&w->examples_seen, 0);
    w->rows = wv_hot_rows_none(m->output);
    worker_sizes z = sizes_of(m, w->loss, m->n_threads, m->ids_fd >= 0);
    w->sentence = wv_alloc_lines(z.sentence);
    w->ids = wv_alloc_lines(z.ids);
    w->neu1 = wv_alloc_lines(z.vector);
    w->neu1e = wv_alloc_lines(z.vector);
    w->negatives = wv_alloc_lines(z.negatives);
    w->next_negatives = wv_alloc_lines(z.negatives);
    w->scratch = wv_alloc_lines(z.scratch);
    w->window_rows = wv_alloc_lines(z.window_rows);
    w->window_locks = wv_alloc_lines(z.window_locks);
    if (!w->sentence || !w->ids || !w->neu1 || !w->neu1e || !w->negatives || !w->next_negatives || !w->scratch
        || !w->window_rows || !w->window_locks)
        return WV_ERR_NOMEM;
    return wv_hot_rows_init(&w->rows, m->output, m->cfg.dim, z.hot);
}

wv_status wv_w2v_start_epoch(wv_w2v_model *m, int epoch, int n_threads, int64_t first_claim, int64_t regions) {
    if (m->run.running) return WV_ERR_BUSY;
    if (n_threads < 1) n_threads = 1;
    if (regions < 1) regions = default_regions(m, epoch, n_threads);
    const int64_t n_chunks = (m->n_ids + CHUNK_IDS - 1) / CHUNK_IDS;
    const int64_t per = (n_chunks + regions - 1) / regions;
    if (first_claim < 0 || first_claim > regions * per) return WV_ERR_INVALID;
    m->regions = regions;
    m->claims = regions * per;
    atomic_store(&m->stop, 0);
    atomic_store(&m->pause, 0);
    atomic_store(&m->error, WV_OK);
    atomic_store(&m->next_chunk, first_claim);
    m->workers = calloc((size_t)n_threads, sizeof *m->workers);
    if (!m->workers) return WV_ERR_NOMEM;
    m->n_threads = n_threads;
    for (int t = 0; t < n_threads; t++) {
        if (init_worker(m, &m->workers[t], epoch)) {
            free_workers(m);
            return WV_ERR_NOMEM;
        }
    }
    wv_status rc = wv_run_start(&m->run, n_threads, worker_main, m->workers, sizeof *m->workers);
    if (rc == WV_ERR_NOMEM) {
        free_workers(m);
        return rc;
    }
    if (rc) { /* the started workers stop at once; join_epoch reports it */
        atomic_store(&m->stop, 1);
        atomic_store(&m->error, WV_ERR_THREAD);
    }
    return WV_OK;
}

int64_t wv_w2v_claims_done(const wv_w2v_model *m) {
    int64_t next = atomic_load(&m->next_chunk);
    return next < m->claims ? next : m->claims;
}

void wv_w2v_running_loss(const wv_w2v_model *m, double *loss_sum, int64_t *examples) {
    *loss_sum = 0.0;
    *examples = 0;
    if (!m->workers) return;
    for (int t = 0; t < m->n_threads; t++) {
        *loss_sum += atomic_load_explicit(&m->workers[t].loss_seen, memory_order_relaxed);
        *examples += atomic_load_explicit(&m->workers[t].examples_seen, memory_order_relaxed);
    }
}

wv_status wv_w2v_join_epoch(wv_w2v_model *m, double *loss_sum, int64_t *examples) {
    *loss_sum = 0.0;
    *examples = 0;
    if (!m->run.running) return WV_OK;
    wv_run_join(&m->run);
    wv_w2v_running_loss(m, loss_sum, examples); /* each thread published its totals last */
    free_workers(m);
    return (wv_status)atomic_load(&m->error);
}
