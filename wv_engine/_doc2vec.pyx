# cython: language_level=3, boundscheck=False, wraparound=False
"""Thin bindings to the paragraph-vector core (csrc/d2v.h): shapes, ids and
offsets are checked here once; the C loops trust them. Passes run on C
threads with the GIL released."""

import numpy as np
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

include "_status.pxi"


cdef extern from "alias.h":
    ctypedef struct wv_alias_table:
        uint32_t *threshold
        int32_t *alias
        int32_t size


cdef extern from "huffman.h":
    int WV_MAX_CODE_LENGTH


cdef extern from "w2v.h":
    int WV_LOSS_NS, WV_LOSS_HS
    ctypedef struct wv_w2v_config:
        int arch, loss, dim, window, negative, max_sentence_length
        int cbow_mean, shrink_windows
        float alpha, min_alpha
        int linear_decay
        uint64_t seed
        int32_t hot_rows
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
        int64_t schedule_words
    float wv_w2v_current_alpha(const wv_w2v_model *m) nogil


cdef extern from "d2v.h":
    int WV_D2V_DBOW, WV_D2V_DM, WV_D2V_DM_CONCAT
    ctypedef struct wv_d2v_model:
        wv_w2v_model k
        int mode, dbow_words, shared_negatives, group, group_negatives, dm_tag_count, vec_dim
        int learn_words, learn_doctags, learn_hidden
        int32_t null_word
        float *doctags
        int64_t n_doctags
        const int32_t *words
        const int64_t *doc_start
        const int64_t *tag_start
        const int32_t *tags
        int64_t n_docs
        int infer_epochs
        const uint64_t *doc_seed
    void wv_d2v_model_init(wv_d2v_model *m) nogil
    wv_status wv_d2v_start(wv_d2v_model *m, int epoch, int n_threads) nogil
    wv_status wv_d2v_join(wv_d2v_model *m, double *loss_sum, int64_t *examples) nogil
    void wv_d2v_running_loss(const wv_d2v_model *m, double *loss_sum, int64_t *examples) nogil
    size_t wv_d2v_worker_bytes(const wv_d2v_model *m, int n_threads) nogil
    double wv_d2v_step(wv_d2v_model *m, const int32_t *tags, int n_tags, const int32_t *ctx, int n_ctx,
                       int32_t target, const int32_t *negatives, float alpha, float *scratch) nogil
    double wv_d2v_group_step(wv_d2v_model *m, int32_t tag, const int32_t *targets, int k,
                             const int32_t *negatives, float alpha, float *scratch) nogil


cdef extern from *:
    """
    #include <stdatomic.h>
    static inline int64_t wv_d2v_words_done(wv_d2v_model *m) { return atomic_load(&m->k.words_done); }
    static inline void wv_d2v_set_progress(wv_d2v_model *m, int64_t done) { atomic_store(&m->k.words_done, done); }
    static inline int wv_d2v_active(wv_d2v_model *m) { return m->run.running ? wv_run_active(&m->run) : 0; }
    static inline int wv_d2v_wait(wv_d2v_model *m, double seconds) { return wv_run_wait(&m->run, seconds); }
    static inline void wv_d2v_request_stop(wv_d2v_model *m) { atomic_store(&m->k.stop, 1); }
    """
    int64_t wv_d2v_words_done(wv_d2v_model *m) nogil
    void wv_d2v_set_progress(wv_d2v_model *m, int64_t done) nogil
    int wv_d2v_active(wv_d2v_model *m) nogil
    int wv_d2v_wait(wv_d2v_model *m, double seconds) nogil
    void wv_d2v_request_stop(wv_d2v_model *m) nogil


MODES = {"dbow": WV_D2V_DBOW, "dm": WV_D2V_DM, "dm_concat": WV_D2V_DM_CONCAT}


def layer_size(str mode, int vector_size, int window, int dm_tag_count):
    """The output layer's width: the vector size, or with concat the tag and
    window rows side by side."""
    return (dm_tag_count + 2 * window) * vector_size if mode == "dm_concat" else vector_size


def worker_bytes(*, str mode, str loss, int vector_size, int window, int negative, int max_sentence_length,
                 int dm_tag_count, int32_t vocab_size, int threads):
    """The bytes a training pass's threads allocate (buffers and private hot
    output rows), for the memory check made first."""
    cdef wv_d2v_model m
    wv_d2v_model_init(&m)
    m.k.cfg.loss = WV_LOSS_HS if loss == "hs" else WV_LOSS_NS
    m.k.cfg.dim = layer_size(mode, vector_size, window, dm_tag_count)
    m.k.cfg.window = window
    m.k.cfg.negative = negative
    m.k.cfg.max_sentence_length = max_sentence_length
    m.k.cfg.hot_rows = 256 if loss == "hs" else 1024
    m.k.vocab_size = vocab_size
    m.learn_hidden = 1
    return wv_d2v_worker_bytes(&m, threads)


cdef _check_offsets(name, offsets, int64_t end):
    o = np.asarray(offsets)
    if o.shape[0] < 2 or o[0] != 0 or o[o.shape[0] - 1] != end or np.any(np.diff(o) < 0):
        raise ValueError(f"{name} must rise from 0 to {end:,}")


cdef class Doc2VecCore:
    """Holds the C model: pointers into numpy arrays kept alive here."""
    cdef wv_d2v_model m
    cdef object _keep   # the model's arrays
    cdef object _docs   # the documents' arrays and the tag rows, while attached

    def __cinit__(self):
        wv_d2v_model_init(&self.m)
        self._keep = ()
        self._docs = ()

    def __init__(self, *, str mode, str loss, int vector_size, int window, int negative,
                 int max_sentence_length, bint cbow_mean, bint shrink_windows, uint64_t seed, bint dbow_words,
                 int dm_tag_count, float[:, ::1] word_vectors, float[:, ::1] output_vectors, float[::1] keep_prob,
                 noise=None, huffman=None, int32_t hot_rows=-1, bint shared_negatives=False, int group=8,
                 int group_negatives=0):
        if mode not in MODES or loss not in ("ns", "hs"):
            raise ValueError(f"mode must be one of {sorted(MODES)} and loss 'ns' or 'hs'")
        cdef int32_t V = keep_prob.shape[0]
        cdef int layer = layer_size(mode, vector_size, window, dm_tag_count)
        cdef int extra = 1 if mode == "dm_concat" else 0  # the null word's row
        if V < 1 or word_vectors.shape[0] != V + extra or word_vectors.shape[1] != vector_size:
            raise ValueError(f"word_vectors must be ({V + extra}, {vector_size})")
        if output_vectors.shape[1] != layer or output_vectors.shape[0] < max(V - 1, 1):
            raise ValueError(f"output_vectors must be ({V}, {layer})")
        if window < 1 or max_sentence_length < 1 or dm_tag_count < 1 or (loss == "ns" and negative < 1):
            raise ValueError("window, max_sentence_length, dm_tag_count and (NS) negative must be >= 1")
        self.m.mode = MODES[mode]
        self.m.dbow_words = dbow_words
        self.m.shared_negatives = shared_negatives and mode == "dbow" and loss == "ns"
        if group < 1 or group_negatives < 0:
            raise ValueError("group must be >= 1 and group_negatives >= 0")
        self.m.group = group
        self.m.group_negatives = group_negatives or max(negative, 1)
        self.m.dm_tag_count = dm_tag_count
        self.m.vec_dim = vector_size
        self.m.null_word = V
        self.m.learn_words = self.m.learn_doctags = self.m.learn_hidden = 1
        self.m.k.cfg.loss = WV_LOSS_HS if loss == "hs" else WV_LOSS_NS
        self.m.k.cfg.dim = layer
        self.m.k.cfg.window = window
        self.m.k.cfg.negative = negative if loss == "ns" else 0
        self.m.k.cfg.max_sentence_length = max_sentence_length
        self.m.k.cfg.cbow_mean = cbow_mean
        self.m.k.cfg.shrink_windows = shrink_windows
        self.m.k.cfg.seed = seed
        # with several threads, each keeps a private copy of this many of the most written output rows
        # (word2vec's defaults: fewer for HS, whose top rows take many more updates each)
        self.m.k.cfg.hot_rows = hot_rows if hot_rows >= 0 else (256 if loss == "hs" else 1024)
        self.m.k.vocab_size = V
        self.m.k.input = &word_vectors[0, 0]
        self.m.k.keep_prob = &keep_prob[0]
        keep = [word_vectors, output_vectors, keep_prob]
        cdef uint32_t[::1] threshold
        cdef int32_t[::1] alias
        cdef uint8_t[::1] lengths
        cdef uint8_t[:, ::1] codes
        cdef int32_t[:, ::1] points
        if loss == "ns":
            threshold, alias = noise
            if output_vectors.shape[0] != V or threshold.shape[0] != V or alias.shape[0] != V:
                raise ValueError("NS needs V output rows and a noise table of V entries")
            if np.any(np.asarray(alias) < 0) or np.any(np.asarray(alias) >= V):
                raise ValueError("alias table holds out-of-range ids")
            self.m.k.noise.threshold = &threshold[0]
            self.m.k.noise.alias = &alias[0]
            self.m.k.noise.size = V
            keep += [threshold, alias]
        else:
            lengths, codes, points = huffman
            if lengths.shape[0] != V or codes.shape[0] != V or points.shape[0] != V \
                    or codes.shape[1] != WV_MAX_CODE_LENGTH or points.shape[1] != WV_MAX_CODE_LENGTH:
                raise ValueError("the Huffman tables do not match the vocabulary")
            np_points, np_len = np.asarray(points), np.asarray(lengths)
            used = np.arange(WV_MAX_CODE_LENGTH)[None, :] < np_len[:, None]
            if used.any() and (np_points[used].min() < 0 or np_points[used].max() >= output_vectors.shape[0]):
                raise ValueError("Huffman points are out of range")
            self.m.k.code_length = &lengths[0]
            self.m.k.codes = &codes[0, 0]
            self.m.k.points = &points[0, 0]
            keep += [lengths, codes, points]
        self.m.k.output = &output_vectors[0, 0]
        self._keep = tuple(keep)

    def set_documents(self, const int32_t[::1] words not None, const int64_t[::1] doc_start not None,
                      float[:, ::1] doctags not None, tag_start=None, tags=None, doc_seed=None, *,
                      int64_t schedule_words, double alpha, double min_alpha, int64_t words_done=0,
                      int infer_epochs=0, bint learn_words=True, bint learn_doctags=True,
                      bint learn_hidden=True):
        """Attaches the documents (document d is words[doc_start[d],
        doc_start[d + 1]), tagged tags[tag_start[d], tag_start[d + 1]), rows
        of doctags) and a schedule over schedule_words words of which
        words_done are behind, alpha falling on a line to min_alpha. With
        infer_epochs, inference: document d's one tag is row d, drawn from
        doc_seed[d], trained infer_epochs passes alone."""
        cdef const int64_t[::1] ts
        cdef const int32_t[::1] tg
        cdef const uint64_t[::1] seeds
        if wv_d2v_active(&self.m):
            raise RuntimeError("cannot change the documents while a pass runs")
        cdef int64_t n_docs = doc_start.shape[0] - 1
        if n_docs < 1:
            raise ValueError("no documents")
        _check_offsets("doc_start", doc_start, words.shape[0])
        w = np.asarray(words)
        if w.size and (w.min() < 0 or w.max() >= self.m.k.vocab_size):
            raise ValueError("the documents hold word ids outside the vocabulary")
        if doctags.shape[1] != self.m.vec_dim or doctags.shape[0] < 1:
            raise ValueError(f"doctags must have {self.m.vec_dim} columns")
        if not 0 <= words_done <= schedule_words or not 0 <= min_alpha <= alpha < 10:
            raise ValueError("bad schedule")
        docs = [words, doc_start, doctags]
        if infer_epochs:
            if infer_epochs < 0 or doc_seed is None or doctags.shape[0] != n_docs:
                raise ValueError("inference needs a seed and a fresh row a document")
            seeds = np.ascontiguousarray(doc_seed, dtype=np.uint64)
            if seeds.shape[0] != n_docs:
                raise ValueError("one seed a document")
            self.m.doc_seed = &seeds[0]
            self.m.tag_start = NULL
            self.m.tags = NULL
            docs.append(seeds)
        else:
            ts = np.ascontiguousarray(tag_start, dtype=np.int64)
            tg = np.ascontiguousarray(tags, dtype=np.int32)
            if ts.shape[0] != n_docs + 1:
                raise ValueError("tag_start must have a place a document and one more")
            _check_offsets("tag_start", ts, tg.shape[0])
            t = np.asarray(tg)
            if t.size and (t.min() < 0 or t.max() >= doctags.shape[0]):
                raise ValueError("tags name rows outside doctags")
            self.m.tag_start = &ts[0]
            self.m.tags = &tg[0] if tg.shape[0] else NULL
            self.m.doc_seed = NULL
            docs += [ts, tg]
        self.m.words = &words[0] if words.shape[0] else NULL
        self.m.doc_start = &doc_start[0]
        self.m.n_docs = n_docs
        self.m.doctags = &doctags[0, 0]
        self.m.n_doctags = doctags.shape[0]
        self.m.infer_epochs = infer_epochs
        self.m.learn_words, self.m.learn_doctags, self.m.learn_hidden = learn_words, learn_doctags, learn_hidden
        self.m.k.schedule_words = schedule_words
        self.m.k.cfg.alpha = alpha
        self.m.k.cfg.min_alpha = min_alpha
        self.m.k.cfg.linear_decay = 1
        wv_d2v_set_progress(&self.m, words_done)
        self._docs = tuple(docs)

    def start_epoch(self, int epoch, int threads):
        """Starts a pass's threads."""
        cdef wv_status rc
        if not self._docs:
            raise RuntimeError("no documents attached")
        with nogil:
            rc = wv_d2v_start(&self.m, epoch, threads)
        raise_for(rc, {WV_ERR_NOMEM: f"the buffers of {threads} training thread(s) "
                                     f"({wv_d2v_worker_bytes(&self.m, threads):,} bytes); lower threads"})

    def join_epoch(self):
        """Waits for the pass; returns (loss_sum, examples); raises a worker's error."""
        cdef double loss = 0
        cdef int64_t examples = 0
        cdef wv_status rc
        with nogil:
            rc = wv_d2v_join(&self.m, &loss, &examples)
        raise_for(rc)
        return loss, examples

    def request_stop(self):
        """Workers stop at the next piece of a document."""
        wv_d2v_request_stop(&self.m)

    def wait(self, double seconds):
        """Waits until the pass's workers have finished, or at most `seconds`;
        True when none is running."""
        cdef int left
        with nogil:
            left = wv_d2v_wait(&self.m, seconds)
        return left == 0

    @property
    def running(self):
        return wv_d2v_active(&self.m) > 0

    @property
    def words_done(self):
        return wv_d2v_words_done(&self.m)

    @property
    def running_loss(self):
        """The running pass's mean loss per example so far (None before any)."""
        cdef double loss
        cdef int64_t examples
        wv_d2v_running_loss(&self.m, &loss, &examples)
        return loss / examples if examples else None

    @property
    def alpha(self):
        return wv_w2v_current_alpha(&self.m.k)

    def step(self, tags, ctx, int32_t target, negatives, float alpha, *, bint learn_words=True,
             bint learn_doctags=True, bint learn_hidden=True):
        """One prediction as training takes it (tests): the rows of `tags`
        (rows of the attached doctags) and of the context words `ctx`
        predict target; returns the loss. Rows move in place."""
        cdef int32_t[::1] t = np.ascontiguousarray(tags, dtype=np.int32)
        cdef int32_t[::1] c = np.ascontiguousarray(ctx if ctx is not None and len(ctx) else [0], dtype=np.int32)
        cdef int n_ctx = len(ctx) if ctx is not None else 0
        cdef int32_t[::1] neg = np.ascontiguousarray(negatives if negatives is not None and len(negatives) else [0],
                                                    dtype=np.int32)
        cdef float[::1] scratch = np.zeros(2 * self.m.k.cfg.dim + 6 * (1 + self.m.k.cfg.negative) + 3 * (n_ctx + 1),
                                           dtype=np.float32)
        if not self._docs or not 0 <= target < self.m.k.vocab_size or t.shape[0] < 1:
            raise ValueError("attach documents first; target and tags must be in range")
        if np.asarray(t).min() < 0 or np.asarray(t).max() >= self.m.n_doctags:
            raise ValueError("tags out of range")
        if n_ctx and (np.asarray(c).min() < 0 or np.asarray(c).max() > self.m.k.vocab_size):
            raise ValueError("context ids out of range")
        if self.m.mode == WV_D2V_DM_CONCAT and (n_ctx != 2 * self.m.k.cfg.window or t.shape[0] != self.m.dm_tag_count):
            raise ValueError("concat takes dm_tag_count tags and 2 x window context slots")
        if self.m.k.cfg.loss == WV_LOSS_NS and len(negatives) != self.m.k.cfg.negative:
            raise ValueError(f"NS takes {self.m.k.cfg.negative} negatives")
        if self.m.k.cfg.loss == WV_LOSS_NS and (np.asarray(neg).min() < 0 or np.asarray(neg).max() >= self.m.k.vocab_size):
            raise ValueError("negatives out of range")
        self.m.learn_words, self.m.learn_doctags, self.m.learn_hidden = learn_words, learn_doctags, learn_hidden
        return wv_d2v_step(&self.m, &t[0], t.shape[0], &c[0], n_ctx, target, &neg[0], alpha, &scratch[0])

    def group_step(self, int32_t tag, targets, negatives, float alpha):
        """One PV-DBOW group with shared negatives as training takes it
        (tests): tag row `tag` predicts `targets` against `negatives`; returns
        the loss. Rows move in place."""
        cdef int32_t[::1] t = np.ascontiguousarray(targets, dtype=np.int32)
        cdef int32_t[::1] neg = np.ascontiguousarray(negatives, dtype=np.int32)
        cdef float[::1] scratch = np.zeros(2 * self.m.k.cfg.dim + 6 * (1 + self.m.k.cfg.negative) + 3,
                                           dtype=np.float32)
        if not self._docs or not 0 <= tag < self.m.n_doctags or t.shape[0] < 1 or self.m.mode != WV_D2V_DBOW:
            raise ValueError("attach documents first; a DBOW model, a tag in range and at least one target")
        if self.m.k.cfg.loss != WV_LOSS_NS or neg.shape[0] != self.m.group_negatives:
            raise ValueError(f"a group takes {self.m.group_negatives} negatives")
        for a in (np.asarray(t), np.asarray(neg)):
            if a.min() < 0 or a.max() >= self.m.k.vocab_size:
                raise ValueError("word ids out of range")
        self.m.learn_doctags = self.m.learn_hidden = 1
        return wv_d2v_group_step(&self.m, tag, &t[0], t.shape[0], &neg[0], alpha, &scratch[0])
