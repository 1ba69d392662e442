# Bindings of csrc/phrases.c (included by _tokenize.pyx, whose WordCounter
# the phrase counts go into): a layer's phrase table, the pipe that joins
# phrases in text and counts words and candidates, and the scoring of one
# part of a merged count. Bytes in, bytes out; the GIL is released in C.

from libc.string cimport memset


cdef extern from "phrases.h":
    int WV_PHRASE_MAX_KEY
    int WV_PHRASE_MAX_DELIMITER
    int WV_SINK_TEXT
    int WV_SINK_COUNT
    ctypedef struct wv_phrase_words:
        int has_connectors
    ctypedef struct wv_phrase_table:
        wv_phrase_words words
    ctypedef struct wv_phrase_scoring:
        int scoring
        int64_t min_count
        double threshold
        int64_t corpus_words
        int64_t vocab_size
    ctypedef struct wv_phrase_list:
        char *blob
        size_t blob_len
        double *scores
        int32_t *splits
        int64_t n
    ctypedef struct wv_phrase_pipe:
        int64_t words
        wv_tokenizer tok
    wv_status wv_phrase_table_init(wv_phrase_table *t, const char *delimiter, int delimiter_len,
                                   const char *connectors, size_t connectors_len, int64_t expected) nogil
    void wv_phrase_table_free(wv_phrase_table *t) nogil
    wv_status wv_phrase_table_add(wv_phrase_table *t, const char *key, int length, double score, int32_t split) nogil
    void wv_phrase_list_free(wv_phrase_list *l) nogil
    wv_status wv_phrase_score_part(const wv_counter *c, int part, const wv_phrase_words *w,
                                   const wv_phrase_scoring *s, wv_phrase_list *out) nogil
    wv_status wv_phrase_pipe_init(wv_phrase_pipe *p, const wv_phrase_table *const *layers, int n_layers, int sink,
                                  wv_counter *counter, const wv_phrase_words *words, int across_newlines) nogil
    void wv_phrase_pipe_free(wv_phrase_pipe *p) nogil
    size_t wv_phrase_out_bound(const wv_phrase_pipe *p, size_t n) nogil
    wv_status wv_phrase_pipe_feed(wv_phrase_pipe *p, const char *buf, size_t n, int owned, int final,
                                  char *out, size_t cap, size_t *written) nogil
    int wv_phrase_pipe_settled(const wv_phrase_pipe *p) nogil
    int64_t wv_counter_count_of(const wv_counter *c, const char *word, int length) nogil
    wv_status wv_counter_reserve(wv_counter *c, int64_t expected) nogil

PHRASE_MAX_KEY = WV_PHRASE_MAX_KEY
PHRASE_MAX_DELIMITER = WV_PHRASE_MAX_DELIMITER
SCORINGS = {"word2phrase": 0, "default": 1, "npmi": 2}


cdef class PhraseTable:
    """One pass's phrases (keys joined by the delimiter, with their scores
    and splits: the cuts of each key into a first word and the rest that
    are phrases, a bit mask over its delimiters, bit i the i-th and bit 31
    any from the 31st, -1 any cut), its delimiter and its connector words
    (joined by newlines). With no keys it only names the words a count uses."""
    cdef wv_phrase_table t
    cdef bint ready
    cdef readonly int size

    def __cinit__(self, bytes delimiter not None, bytes connectors not None, bytes keys=b"",
                  const double[::1] scores=None, const int32_t[::1] splits=None):
        cdef const char *p
        cdef const char *end
        cdef const char *nl
        cdef int64_t i = 0, n = 0 if scores is None else scores.shape[0]
        cdef wv_status rc
        if (splits is None) != (scores is None) or (splits is not None and splits.shape[0] != n):
            raise ValueError("scores and splits must be given together, one per key")
        if n and keys.count(b"\n") + 1 != n:
            raise ValueError(f"{keys.count(b'\n') + 1:,} keys for {n:,} scores")
        raise_for(wv_phrase_table_init(&self.t, delimiter, len(delimiter), connectors, len(connectors), max(n, 1)),
                  {WV_ERR_INVALID: f"a delimiter is 1 to {WV_PHRASE_MAX_DELIMITER} bytes without whitespace, "
                                   f"got {delimiter!r}"})
        self.ready = True
        p = keys
        end = p + len(keys)
        rc = WV_OK
        with nogil:
            while i < n:
                nl = <const char *>memchr(p, 10, end - p)
                if nl == NULL:
                    nl = end
                rc = wv_phrase_table_add(&self.t, p, nl - p, scores[i], splits[i])
                if rc != WV_OK:
                    break
                p = nl + 1
                i += 1
        if rc != WV_OK:
            raise_for(rc, {WV_ERR_DUPLICATE: f"phrase {i} is given twice",
                           WV_ERR_INVALID: f"phrase {i} is empty, longer than {WV_PHRASE_MAX_KEY} bytes, or has no cut"})
        self.size = n

    def __dealloc__(self):
        if self.ready:
            wv_phrase_table_free(&self.t)


def score_part(WordCounter merged not None, int part, PhraseTable words not None, str scoring, int64_t min_count,
               double threshold, int64_t corpus_words, int64_t vocab_size):
    """The phrases among the candidates of table `part` of a merged count:
    (keys joined by newlines, scores float64, splits int32)."""
    cdef wv_phrase_scoring s
    cdef wv_phrase_list out
    cdef wv_status rc
    cdef double[::1] sv
    cdef int32_t[::1] pv
    memset(&out, 0, sizeof(out))
    s.scoring = SCORINGS[scoring]
    s.min_count = min_count
    s.threshold = threshold
    s.corpus_words = corpus_words
    s.vocab_size = vocab_size
    try:
        with nogil:
            rc = wv_phrase_score_part(&merged.c, part, &words.t.words, &s, &out)
        raise_for(rc, "scoring phrases")
        keys = PyBytes_FromStringAndSize(out.blob, out.blob_len) if out.n else b""
        scores = np.empty(out.n, np.float64)
        splits = np.empty(out.n, np.int32)
        sv = scores
        pv = splits
        if out.n:
            memcpy(&sv[0], out.scores, out.n * sizeof(double))
            memcpy(&pv[0], out.splits, out.n * sizeof(int32_t))
        return keys, scores, splits
    finally:
        wv_phrase_list_free(&out)


cdef class PhrasePipe:
    """Text through the phrase layers (PhraseTable, in order), into
    `counter` (a WordCounter: the words and candidates of `words`, a
    PhraseTable) or, without one, out as text. feed(owned=False) only sets
    the state (a byte range's lead-in), or settles the range's last words
    (its lead-out, fed until `settled`)."""
    cdef wv_phrase_pipe p
    cdef bint ready, counting
    cdef list keep  # the tables and counter the C pipe points into
    cdef const wv_phrase_table **tables

    def __cinit__(self, list layers not None, WordCounter counter=None, PhraseTable words=None,
                  bint across_newlines=False):
        cdef int i, n = len(layers)
        cdef PhraseTable layer
        if (counter is None) != (words is None):
            raise ValueError("a counting pipe takes both counter and words")
        self.keep = list(layers) + [counter, words]
        self.counting = counter is not None
        self.tables = <const wv_phrase_table **>malloc(max(n, 1) * sizeof(wv_phrase_table *))
        if self.tables == NULL:
            raise MemoryError("the phrase pipe")
        for i in range(n):
            layer = layers[i]
            self.tables[i] = &layer.t
        raise_for(wv_phrase_pipe_init(&self.p, self.tables, n, WV_SINK_TEXT if counter is None else WV_SINK_COUNT,
                                      NULL if counter is None else &counter.c,
                                      NULL if words is None else &words.t.words, across_newlines),
                  "the phrase pipe")
        self.ready = True

    def __dealloc__(self):
        if self.ready:
            wv_phrase_pipe_free(&self.p)
        free(self.tables)

    def feed(self, const unsigned char[::1] chunk not None, bint owned=True, bint final=False):
        """Feeds chunk; returns the text written (b"" when counting)."""
        cdef size_t n = chunk.shape[0], written = 0, cap
        cdef const char *src = chunk_bytes(chunk)
        cdef wv_status rc
        cdef char *dst
        if self.counting:
            with nogil:
                rc = wv_phrase_pipe_feed(&self.p, src, n, owned, final, NULL, 0, &written)
            raise_for(rc, "counting phrases; set max_vocab_size or memory_limit to prune rare candidates")
            return b""
        cap = wv_phrase_out_bound(&self.p, n)
        out = PyBytes_FromStringAndSize(NULL, cap)
        dst = PyBytes_AS_STRING(out)
        with nogil:
            rc = wv_phrase_pipe_feed(&self.p, src, n, owned, final, dst, cap, &written)
        raise_for(rc, "joining phrases")
        return out[:written]

    @property
    def settled(self):
        """True when no layer holds a word of the caller's own text."""
        return bool(wv_phrase_pipe_settled(&self.p))

    @property
    def words(self):
        """Tokens counted (the caller's own, connector words too)."""
        return self.p.words


def count_of(WordCounter counter not None, bytes key not None):
    """The count of a word or candidate key in the counter (0: not held)."""
    if len(key) > WV_PHRASE_MAX_KEY:
        return 0
    return wv_counter_count_of(&counter.c, key, len(key))


def reserve(WordCounter counter not None, int64_t expected):
    """Sizes the counter's (empty) tables for `expected` distinct keys."""
    cdef wv_status rc
    with nogil:
        rc = wv_counter_reserve(&counter.c, expected)
    raise_for(rc, f"sizing the phrase count for {expected:,} words and pairs")
