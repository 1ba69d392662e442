# cython: language_level=3, boundscheck=False, wraparound=False
"""Thin bindings to the C word2vec core (csrc/w2v.h), the alias sampler and
the Huffman coder. Shapes and ranges are checked here once; the C loops
trust them. Epochs run on C threads with the GIL released."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

include "_status.pxi"


cdef extern from "rng.h":
    ctypedef struct wv_rng:
        uint64_t state
    void wv_rng_seed(wv_rng *rng, uint64_t seed, uint64_t a, uint64_t b) nogil
    float wv_rng_uniform(wv_rng *rng) nogil


cdef extern from "alias.h":
    ctypedef struct wv_alias_table:
        uint32_t *threshold
        int32_t *alias
        int32_t size
    wv_status wv_alias_build(const double *weights, int32_t n, uint32_t *threshold, int32_t *alias) nogil
    int32_t wv_alias_draw(const wv_alias_table *t, wv_rng *rng) nogil


cdef extern from "huffman.h":
    int WV_MAX_CODE_LENGTH
    wv_status wv_huffman_build(const int64_t *counts, int32_t n, uint8_t *code_length,
                               uint8_t *codes, int32_t *points) nogil


cdef extern from "w2v.h":
    int WV_SKIPGRAM, WV_CBOW, WV_LOSS_NS, WV_LOSS_HS, WV_LOSS_SOFTMAX
    ctypedef struct wv_w2v_config:
        int arch, loss, dim, window, negative, max_sentence_length
        int cbow_mean, shrink_windows
        float alpha, min_alpha
        int linear_decay
        uint64_t seed
        int shared_negatives
        int32_t hot_rows
        int subwords
    ctypedef struct wv_w2v_model:
        wv_w2v_config cfg
        int32_t vocab_size
        float *input
        float *output
        const float *keep_prob
        const float *input_lock
        wv_alias_table noise
        const uint8_t *code_length
        const uint8_t *codes
        const int32_t *points
        const int32_t *subword_offsets
        const int32_t *subword_rows
        const int32_t *ids
        int ids_fd
        int64_t n_ids
        int64_t schedule_words
        int64_t words_done      # _Atomic in C; read through the helpers below
        int64_t regions
        int64_t claims
        int stop
    void wv_w2v_model_init(wv_w2v_model *m) nogil
    wv_status wv_w2v_start_epoch(wv_w2v_model *m, int epoch, int n_threads, int64_t first_claim,
                                 int64_t regions) nogil
    int64_t wv_w2v_claims_done(const wv_w2v_model *m) nogil
    wv_status wv_w2v_join_epoch(wv_w2v_model *m, double *loss_sum, int64_t *examples) nogil
    size_t wv_w2v_worker_bytes(const wv_w2v_model *m, int n_threads) nogil
    void wv_w2v_running_loss(const wv_w2v_model *m, double *loss_sum, int64_t *examples) nogil
    float wv_w2v_current_alpha(const wv_w2v_model *m) nogil
    double wv_w2v_step(wv_w2v_model *m, const float *h, int32_t target,
                       const int32_t *negatives, int n_negatives, float *neu1e,
                       float alpha, float *scratch) nogil
    double wv_w2v_window_step(wv_w2v_model *m, const int32_t *ctx, int m_ctx, int32_t target,
                              const int32_t *negatives, float alpha, float *scratch) nogil
    double wv_w2v_subword_step(wv_w2v_model *m, const int32_t *rows, int n_rows, int32_t target,
                               const int32_t *negatives, float alpha, float *scratch) nogil
    double wv_w2v_subword_window_step(wv_w2v_model *m, const int32_t *rows, const int32_t *offsets, int m_ctx,
                                      int32_t target, const int32_t *negatives, float alpha, float *scratch) nogil


cdef extern from *:
    """
    #include <stdatomic.h>
    static inline int64_t wv_w2v_words_done(wv_w2v_model *m) { return atomic_load(&m->words_done); }
    static inline int wv_w2v_active(wv_w2v_model *m) { return m->run.running ? wv_run_active(&m->run) : 0; }
    static inline int wv_w2v_wait(wv_w2v_model *m, double seconds) { return wv_run_wait(&m->run, seconds); }
    static inline void wv_w2v_request_stop(wv_w2v_model *m) { atomic_store(&m->stop, 1); }
    static inline void wv_w2v_request_pause(wv_w2v_model *m) { atomic_store(&m->pause, 1); }
    static inline void wv_w2v_set_progress(wv_w2v_model *m, int64_t done) { atomic_store(&m->words_done, done); }
    """
    int64_t wv_w2v_words_done(wv_w2v_model *m) nogil
    int wv_w2v_active(wv_w2v_model *m) nogil
    int wv_w2v_wait(wv_w2v_model *m, double seconds) nogil
    void wv_w2v_request_stop(wv_w2v_model *m) nogil
    void wv_w2v_request_pause(wv_w2v_model *m) nogil
    void wv_w2v_set_progress(wv_w2v_model *m, int64_t done) nogil


MAX_CODE_LENGTH = WV_MAX_CODE_LENGTH
ARCHS = {"skipgram": WV_SKIPGRAM, "cbow": WV_CBOW}
LOSSES = {"ns": WV_LOSS_NS, "hs": WV_LOSS_HS, "softmax": WV_LOSS_SOFTMAX}


def uniform_rows(int64_t rows, int dim, uint64_t seed, uint64_t stream=0, int64_t first_row=0, int threads=1,
                 double scale=0.5):
    """A (rows, dim) float32 matrix uniform in [-scale/dim, scale/dim)
    (0.5: word2vec.c's initialisation, 1.0: gensim's). Row r draws from its
    own generator seeded with (seed, stream, first_row + r), so a row's
    values depend on nothing else: the same rows come out however the matrix
    is built or grown, and on however many threads (up to `threads`) it is
    filled."""
    if rows < 0 or dim < 1 or threads < 1 or not scale > 0:
        raise ValueError(f"need rows >= 0, dim >= 1, threads >= 1 and scale > 0, "
                         f"got {rows}, {dim}, {threads} and {scale}")
    out = np.empty((rows, dim), dtype=np.float32)
    parts = max(1, min(threads, rows // 65536))  # first touch of the pages is most of the time
    if parts == 1:
        fill_uniform_rows(out, seed, stream, first_row, scale)
        return out
    cuts = [rows * i // parts for i in range(parts + 1)]
    with ThreadPoolExecutor(max_workers=parts) as pool:
        list(pool.map(lambda i: fill_uniform_rows(out[cuts[i]:cuts[i + 1]], seed, stream, first_row + cuts[i],
                                                  scale), range(parts)))
    return out


def fill_uniform_rows(float[:, ::1] out not None, uint64_t seed, uint64_t stream=0, int64_t first_row=0,
                      double scale=0.5):
    """Fills out (rows, dim) with the rows uniform_rows draws for rows
    first_row, first_row + 1, ...: slices of one matrix can be filled on
    several threads at once (the GIL is released)."""
    cdef wv_rng rng
    cdef int64_t r, rows = out.shape[0]
    cdef int c, dim = out.shape[1]
    cdef float width = 2.0 * scale / dim if dim else 0.0
    with nogil:
        for r in range(rows):
            wv_rng_seed(&rng, seed, stream, <uint64_t>(first_row + r))
            for c in range(dim):
                out[r, c] = (wv_rng_uniform(&rng) - 0.5) * width


def build_alias(weights):
    """Alias table (threshold uint32, alias int32) for the weights (>= 0)."""
    cdef double[::1] w = np.ascontiguousarray(weights, dtype=np.float64)
    cdef int32_t n = w.shape[0]
    if n == 0:
        raise ValueError("cannot build a sampler over an empty vocabulary")
    threshold = np.empty(n, dtype=np.uint32)
    alias = np.empty(n, dtype=np.int32)
    cdef uint32_t[::1] t = threshold
    cdef int32_t[::1] a = alias
    cdef wv_status rc
    with nogil:
        rc = wv_alias_build(&w[0], n, &t[0], &a[0])
    raise_for(rc, {WV_ERR_INVALID: "sampling weights must be finite, >= 0 and not all zero",
                   WV_ERR_NOMEM: "building the noise sampler"})
    return threshold, alias


def sample_alias(threshold, alias, int64_t n, uint64_t seed=1):
    """n draws from an alias table with the training loop's own draw
    function (for tests of the sampler)."""
    cdef uint32_t[::1] t = np.ascontiguousarray(threshold, dtype=np.uint32)
    cdef int32_t[::1] a = np.ascontiguousarray(alias, dtype=np.int32)
    if t.shape[0] == 0 or t.shape[0] != a.shape[0]:
        raise ValueError("threshold and alias must be non-empty and of equal length")
    if np.asarray(a).min() < 0 or np.asarray(a).max() >= a.shape[0]:
        raise ValueError("alias holds out-of-range ids")
    cdef wv_alias_table table
    table.threshold = &t[0]
    table.alias = &a[0]
    table.size = t.shape[0]
    cdef wv_rng rng
    wv_rng_seed(&rng, seed, 0, 0)
    out = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] o = out
    cdef int64_t i
    with nogil:
        for i in range(n):
            o[i] = wv_alias_draw(&table, &rng)
    return out


def build_huffman(counts):
    """Huffman code lengths, codes and points (word2vec.c's tree) for counts
    sorted in descending order."""
    cdef int64_t[::1] c = np.ascontiguousarray(counts, dtype=np.int64)
    cdef int32_t n = c.shape[0]
    lengths = np.zeros(max(n, 1), dtype=np.uint8)[:n]
    codes = np.zeros((max(n, 1), WV_MAX_CODE_LENGTH), dtype=np.uint8)[:n]
    points = np.zeros((max(n, 1), WV_MAX_CODE_LENGTH), dtype=np.int32)[:n]
    if n == 0:
        return lengths, codes, points
    cdef uint8_t[::1] l = lengths
    cdef uint8_t[:, ::1] cd = codes
    cdef int32_t[:, ::1] p = points
    cdef wv_status rc
    with nogil:
        rc = wv_huffman_build(&c[0], n, &l[0], &cd[0, 0], &p[0, 0])
    raise_for(rc, {WV_ERR_NOMEM: "the Huffman tree", WV_ERR_CODE_TOO_LONG: f"more than {WV_MAX_CODE_LENGTH} bits"})
    return lengths, codes, points


cdef _set_config(wv_w2v_config *cfg, str arch, str loss, int dim, int window, int negative,
                 int max_sentence_length, int32_t hot_rows, bint shared_negatives):
    """Checks the settings that shape the model and its threads' buffers and
    writes them into cfg."""
    if arch not in ARCHS or loss not in LOSSES:
        raise ValueError(f"unknown arch {arch!r} or loss {loss!r}")
    if dim < 1 or window < 1 or max_sentence_length < 1 or negative < 0:
        raise ValueError("dim, window and max_sentence_length must be >= 1, negative >= 0")
    if hot_rows < 0:
        raise ValueError("hot_rows must be >= 0")
    if shared_negatives and (window > 64 or negative > 63):
        raise ValueError("shared_negatives supports window <= 64 and negative <= 63")
    cfg.arch = ARCHS[arch]
    cfg.loss = LOSSES[loss]
    cfg.dim = dim
    cfg.window = window
    cfg.negative = negative if loss == "ns" else 0
    cfg.max_sentence_length = max_sentence_length
    cfg.hot_rows = hot_rows
    cfg.shared_negatives = shared_negatives
    cfg.subwords = 0


def worker_bytes(*, str arch, str loss, int dim, int window, int negative, int max_sentence_length,
                 int32_t hot_rows, bint shared_negatives, int32_t vocab_size, int threads, bint subwords=False):
    """The bytes an epoch's threads allocate (their buffers, the loss's
    scratch and private hot rows) for these settings (subwords: fastText's
    model, whose losses keep other scratch): the same sizes start_epoch
    allocates, for the memory check made before training."""
    cdef wv_w2v_model m
    wv_w2v_model_init(&m)
    _set_config(&m.cfg, arch, loss, dim, window, negative, max_sentence_length, hot_rows, shared_negatives)
    m.cfg.subwords = subwords
    m.vocab_size = vocab_size
    return wv_w2v_worker_bytes(&m, threads)


cdef class Word2VecCore:
    """Holds the C model: pointers into numpy arrays kept alive here."""
    cdef wv_w2v_model m
    cdef object _keep   # the arrays the C struct points into
    cdef object _lock   # the input lock's array, while the C struct points into it

    def __cinit__(self):
        wv_w2v_model_init(&self.m)
        self._keep = ()

    def __init__(self, *, str arch, str loss, int dim, int window, int negative,
                 int max_sentence_length, bint cbow_mean, bint shrink_windows,
                 uint64_t seed, float[:, ::1] input_vectors, float[:, ::1] output_vectors,
                 float[::1] keep_prob, noise=None, huffman=None, int32_t hot_rows=0,
                 bint shared_negatives=False, subwords=None):
        # subwords: (offsets, rows) of fastText's model, a word's input vector the mean of its
        # rows of input_vectors (the vocabulary's, then the n-grams' buckets): _set_subwords
        cdef int32_t V = input_vectors.shape[0] if subwords is None else keep_prob.shape[0]
        _set_config(&self.m.cfg, arch, loss, dim, window, negative, max_sentence_length, hot_rows,
                    shared_negatives)
        if V < 1 or input_vectors.shape[1] != dim or input_vectors.shape[0] < V:
            raise ValueError("input_vectors must be (vocab_size, dim), or more rows with subwords")
        if output_vectors.shape[1] != dim or keep_prob.shape[0] != V:
            raise ValueError("output_vectors / keep_prob do not match the vocabulary")
        self.m.cfg.cbow_mean = cbow_mean
        self.m.cfg.shrink_windows = shrink_windows
        self.m.cfg.seed = seed
        self.m.vocab_size = V
        self.m.input = &input_vectors[0, 0]
        self.m.keep_prob = &keep_prob[0]
        keep = [input_vectors, output_vectors, keep_prob]
        cdef uint32_t[::1] threshold
        cdef int32_t[::1] alias
        cdef uint8_t[::1] lengths
        cdef uint8_t[:, ::1] codes
        cdef int32_t[:, ::1] points
        if loss == "ns":
            if output_vectors.shape[0] != V:
                raise ValueError("NS needs output_vectors of shape (vocab_size, dim)")
            threshold, alias = noise
            if threshold.shape[0] != V or alias.shape[0] != V:
                raise ValueError("the noise table does not match the vocabulary")
            if np.any(np.asarray(alias) < 0) or np.any(np.asarray(alias) >= V):
                raise ValueError("alias table holds out-of-range ids")
            self.m.noise.threshold = &threshold[0]
            self.m.noise.alias = &alias[0]
            self.m.noise.size = V
            keep += [threshold, alias]
        elif loss == "hs":
            lengths, codes, points = huffman
            if lengths.shape[0] != V or codes.shape[0] != V or points.shape[0] != V \
                    or codes.shape[1] != WV_MAX_CODE_LENGTH or points.shape[1] != WV_MAX_CODE_LENGTH:
                raise ValueError("the Huffman tables do not match the vocabulary")
            if output_vectors.shape[0] < max(V - 1, 1):
                raise ValueError("HS needs output_vectors with vocab_size - 1 rows")
            np_points = np.asarray(points)
            np_len = np.asarray(lengths)
            used = np.arange(WV_MAX_CODE_LENGTH)[None, :] < np_len[:, None]
            if used.any() and (np_points[used].min() < 0 or np_points[used].max() >= output_vectors.shape[0]):
                raise ValueError("Huffman points are out of range")
            self.m.code_length = &lengths[0]
            self.m.codes = &codes[0, 0]
            self.m.points = &points[0, 0]
            keep += [lengths, codes, points]
        else:
            if output_vectors.shape[0] != V:
                raise ValueError("softmax needs output_vectors of shape (vocab_size, dim)")
        self.m.output = &output_vectors[0, 0]
        if subwords is not None:
            keep += self._set_subwords(subwords, loss, shared_negatives, input_vectors.shape[0])
        self._keep = tuple(keep)

    def _set_subwords(self, subwords, str loss, bint shared_negatives, int64_t input_rows):
        """Checks a subword table once (word w's rows are rows[offsets[w]:
        offsets[w + 1]], at least one, each a row of the input matrix) and
        attaches it."""
        if loss == "ns" and not 0 < self.m.cfg.negative <= 63:
            raise ValueError("subwords with loss='ns' take 1 <= negative <= 63")
        cdef int32_t[::1] offsets = np.ascontiguousarray(subwords[0], dtype=np.int32)
        cdef int32_t[::1] rows = np.ascontiguousarray(subwords[1], dtype=np.int32)
        o, r = np.asarray(offsets), np.asarray(rows)
        if (o.shape[0] != self.m.vocab_size + 1 or o[0] != 0 or o[len(o) - 1] != r.shape[0]
                or np.any(np.diff(o) < 1)):
            raise ValueError("subword offsets must start at 0, give every word at least one row "
                             "and end at the number of rows")
        if r.min() < 0 or r.max() >= input_rows:
            raise ValueError("subword rows lie outside the input matrix")
        self.m.subword_offsets = &offsets[0]
        self.m.subword_rows = &rows[0]
        self.m.cfg.subwords = 1
        return [offsets, rows]

    def set_corpus(self, const int32_t[::1] ids not None, int64_t schedule_words, double alpha, double min_alpha,
                   int64_t words_done=0, bint linear_decay=False):
        """Attaches the id stream (checked once: every id in [-1, V)) and
        starts a learning-rate schedule over schedule_words words, of which
        words_done are already behind (a resumed schedule): alpha falling
        on a line to min_alpha (linear_decay) or word2vec.c's line to zero
        floored at min_alpha (w2v.h)."""
        self._schedule(schedule_words, alpha, min_alpha, words_done)
        arr = np.asarray(ids)
        if arr.size == 0:
            raise ValueError("the encoded corpus is empty")
        if arr.min() < -1 or arr.max() >= self.m.vocab_size:
            raise ValueError("the encoded corpus holds ids outside the vocabulary")
        self.m.ids = &ids[0]
        self.m.ids_fd = -1
        self.m.n_ids = ids.shape[0]
        self._start_schedule(schedule_words, alpha, min_alpha, words_done, linear_decay)
        self._keep = self._keep[:] + (ids,)

    def set_corpus_file(self, file, int64_t n_ids, int64_t schedule_words, double alpha, double min_alpha,
                        int64_t words_done=0, bint linear_decay=False):
        """Attaches ids held in an open file (int32, native byte order, from
        its start): the workers read them chunk by chunk, so memory stays
        bounded whatever the corpus size; they check each chunk's ids
        against the vocabulary as they read it."""
        self._schedule(schedule_words, alpha, min_alpha, words_done)
        import os
        if n_ids < 1:
            raise ValueError("the encoded corpus is empty")
        size = os.fstat(file.fileno()).st_size
        if size < 4 * n_ids:
            raise ValueError(f"the ids file holds {size // 4:,} ids, not {n_ids:,}")
        self.m.ids = NULL
        self.m.ids_fd = file.fileno()
        self.m.n_ids = n_ids
        self._start_schedule(schedule_words, alpha, min_alpha, words_done, linear_decay)
        self._keep = self._keep[:] + (file,)

    def set_input_lock(self, lock):
        """A float32 factor per word on its input-row updates (0 freezes the
        row, 1 trains it as usual), or None: every word trains."""
        cdef float[::1] view
        if wv_w2v_active(&self.m):
            raise RuntimeError("cannot change the input lock while an epoch runs")
        if lock is None:
            self.m.input_lock = NULL
            self._lock = None
            return
        if self.m.cfg.subwords:
            raise NotImplementedError("an input lock (vectors_lockf) is not supported with subwords (FastText)")
        view = lock
        if view.shape[0] != self.m.vocab_size:
            raise ValueError(f"the input lock has {view.shape[0]} factors for {self.m.vocab_size} words")
        if not np.all(np.isfinite(np.asarray(view))):
            raise ValueError("the input lock holds a NaN or an infinity")
        self.m.input_lock = &view[0]
        self._lock = lock

    def _schedule(self, int64_t schedule_words, double alpha, double min_alpha, int64_t words_done):
        if wv_w2v_active(&self.m):
            raise RuntimeError("cannot change the corpus while an epoch runs")
        if not 0 <= words_done <= schedule_words:
            raise ValueError(f"words_done must be in [0, schedule_words], got {words_done}")

    def _start_schedule(self, int64_t schedule_words, double alpha, double min_alpha, int64_t words_done,
                        bint linear_decay):
        self.m.schedule_words = schedule_words
        self.m.cfg.alpha = alpha
        self.m.cfg.min_alpha = min_alpha
        self.m.cfg.linear_decay = linear_decay
        wv_w2v_set_progress(&self.m, words_done)

    def start_epoch(self, int epoch, int threads, int64_t first_claim=0, int64_t regions=0):
        """Starts the epoch's threads; first_claim and regions continue one
        that was paused (claims_done and regions as they were then)."""
        cdef wv_status rc
        if self.m.ids == NULL and self.m.ids_fd < 0:
            raise RuntimeError("no corpus attached")
        with nogil:
            rc = wv_w2v_start_epoch(&self.m, epoch, threads, first_claim, regions)
        raise_for(rc, {WV_ERR_NOMEM: f"the buffers of {threads} training thread(s) "
                                     f"({wv_w2v_worker_bytes(&self.m, threads):,} bytes); lower threads or dim",
                       WV_ERR_INVALID: f"claim {first_claim} is past the epoch's end"})

    def join_epoch(self):
        """Waits for the epoch; returns (loss_sum, examples); raises a worker's error."""
        cdef double loss = 0
        cdef int64_t examples = 0
        cdef wv_status rc
        with nogil:
            rc = wv_w2v_join_epoch(&self.m, &loss, &examples)
        raise_for(rc, {WV_ERR_IO: "reading the encoded corpus from its file",
                       WV_ERR_INVALID: "the encoded corpus file holds ids outside the vocabulary"})
        return loss, examples

    def request_stop(self):
        """Workers stop at the next sentence (the claims in hand are left part-trained)."""
        wv_w2v_request_stop(&self.m)

    def request_pause(self):
        """Workers finish the chunk in hand and claim no more: after the join,
        claims_done says exactly where to continue."""
        wv_w2v_request_pause(&self.m)

    @property
    def claims_done(self):
        """Claims of the last epoch completed (valid after join_epoch)."""
        return wv_w2v_claims_done(&self.m)

    @property
    def claims(self):
        """Claims in the last epoch started (all of them: the epoch is complete)."""
        return self.m.claims

    @property
    def regions(self):
        return self.m.regions

    def wait(self, double seconds):
        """Waits until the epoch's workers have all finished, or at most
        `seconds`; returns True when none is running (wakes at once when the
        last one finishes)."""
        cdef int left
        with nogil:
            left = wv_w2v_wait(&self.m, seconds)
        return left == 0

    @property
    def running(self):
        """True while a worker of the started epoch is still going."""
        return wv_w2v_active(&self.m) > 0

    @property
    def words_done(self):
        return wv_w2v_words_done(&self.m)

    @property
    def running_loss(self):
        """The running epoch's mean loss per example so far (None before
        its threads have published any)."""
        cdef double loss
        cdef int64_t examples
        wv_w2v_running_loss(&self.m, &loss, &examples)
        return loss / examples if examples else None

    @property
    def alpha(self):
        return wv_w2v_current_alpha(&self.m)

    def step(self, float[::1] h, int32_t target, negatives, float alpha):
        """One prediction step as training does it (tests): returns
        (loss, neu1e); output rows are updated in place."""
        cdef int32_t[::1] neg = np.ascontiguousarray(negatives, dtype=np.int32) \
            if negatives is not None and len(negatives) else np.zeros(1, dtype=np.int32)
        cdef int n_neg = len(negatives) if negatives is not None else 0
        if h.shape[0] != self.m.cfg.dim or not 0 <= target < self.m.vocab_size:
            raise ValueError("bad hidden vector or target")
        if n_neg and (np.asarray(neg).min() < 0 or np.asarray(neg).max() >= self.m.vocab_size):
            raise ValueError("negatives out of range")
        if self.m.cfg.subwords and self.m.cfg.loss == WV_LOSS_NS and n_neg > 63:
            raise ValueError("subwords with loss='ns' take 1 <= negative <= 63")
        neu1e = np.zeros(self.m.cfg.dim, dtype=np.float32)
        scratch = np.zeros(self.m.vocab_size, dtype=np.float32)
        cdef float[::1] e = neu1e
        cdef float[::1] s = scratch
        cdef double loss
        loss = wv_w2v_step(&self.m, &h[0], target, &neg[0], n_neg, &e[0], alpha, &s[0])
        return loss, neu1e

    def window_step(self, contexts, int32_t target, negatives, float alpha):
        """One shared-negatives window update (skip-gram NS) as training does
        it (tests); returns its loss. Vectors are updated in place."""
        cdef int32_t[::1] ctx = np.ascontiguousarray(contexts, dtype=np.int32)
        cdef int32_t[::1] neg = np.ascontiguousarray(negatives, dtype=np.int32)
        if self.m.cfg.loss != WV_LOSS_NS or len(neg) != self.m.cfg.negative or neg.shape[0] == 0:
            raise ValueError("window_step needs loss='ns' and exactly `negative` negatives")
        if not 0 < ctx.shape[0] <= 128 or not 0 <= target < self.m.vocab_size:
            raise ValueError("bad window")
        for a in (np.asarray(ctx), np.asarray(neg)):
            if a.min() < 0 or a.max() >= self.m.vocab_size:
                raise ValueError("ids out of range")
        scratch = np.zeros((neg.shape[0] + 1) * self.m.cfg.dim, dtype=np.float32)
        cdef float[::1] s = scratch
        return wv_w2v_window_step(&self.m, &ctx[0], ctx.shape[0], target, &neg[0], alpha, &s[0])

    def subword_window_step(self, contexts, int32_t target, negatives, float alpha):
        """One skip-gram window with shared negatives as the subword loop
        takes it (tests): `contexts` is each context word's list of input
        rows; the mean of each predicts target against `negative`
        negatives, then every context's rows get its gradient. Returns the
        loss; vectors are updated in place."""
        if not self.m.cfg.subwords or self.m.cfg.loss != WV_LOSS_NS or self.m.cfg.negative == 0:
            raise ValueError("subword_window_step needs a subword NS model")
        cdef int32_t[::1] neg = np.ascontiguousarray(negatives, dtype=np.int32)
        if neg.shape[0] != self.m.cfg.negative or not 0 <= target < self.m.vocab_size:
            raise ValueError("needs exactly `negative` negatives and a target in the vocabulary")
        if np.asarray(neg).min() < 0 or np.asarray(neg).max() >= self.m.vocab_size:
            raise ValueError("negatives out of range")
        if not 0 < len(contexts) <= 128 or any(np.size(c) == 0 for c in contexts):
            raise ValueError("1 to 128 contexts, each with at least one row")
        parts = [np.asarray(c, dtype=np.int64).ravel() for c in contexts]
        every = np.concatenate(parts)
        if every.min() < 0 or every.max() >= self._keep[0].shape[0]:
            raise ValueError("rows out of range")
        cdef int32_t[::1] r = np.ascontiguousarray(every, dtype=np.int32)
        cdef int32_t[::1] off = np.concatenate([[0], np.cumsum([len(p) for p in parts])]).astype(np.int32)
        m_ctx = len(contexts)
        scratch = np.zeros((2 * m_ctx + neg.shape[0] + 2) * self.m.cfg.dim, dtype=np.float32)
        cdef float[::1] s = scratch
        return wv_w2v_subword_window_step(&self.m, &r[0], &off[0], m_ctx, target, &neg[0], alpha, &s[0])

    def subword_step(self, rows, int32_t target, negatives=(), float alpha=0.025):
        """One fastText step (tests): the mean of the input rows `rows`
        predicts target (NS: against `negative` negatives; HS: along its
        path; softmax: against every word; no negatives but NS's); returns
        its loss. Vectors are updated in place."""
        cdef int32_t[::1] r = np.ascontiguousarray(rows, dtype=np.int32)
        cdef int32_t[::1] neg = np.ascontiguousarray(negatives, dtype=np.int32)
        if not self.m.cfg.subwords or neg.shape[0] != self.m.cfg.negative:
            raise ValueError("subword_step needs a subword model and exactly `negative` negatives")
        if r.shape[0] == 0 or not 0 <= target < self.m.vocab_size:
            raise ValueError("bad rows or target")
        if neg.shape[0] and (np.asarray(neg).min() < 0 or np.asarray(neg).max() >= self.m.vocab_size):
            raise ValueError("negatives out of range")
        if np.asarray(r).min() < 0 or np.asarray(r).max() >= self._keep[0].shape[0]:
            raise ValueError("rows out of range")
        scores = self.m.vocab_size if self.m.cfg.loss == WV_LOSS_SOFTMAX else 0
        scratch = np.zeros(2 * self.m.cfg.dim + scores, dtype=np.float32)
        cdef float[::1] s = scratch
        return wv_w2v_subword_step(&self.m, &r[0], r.shape[0], target, &neg[0] if neg.shape[0] else NULL,
                                   alpha, &s[0])
