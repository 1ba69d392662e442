# cython: language_level=3, boundscheck=False, wraparound=False
"""Thin bindings to the C tokenizer: word counting and encoding text into
token ids. Bytes in, numpy arrays out; the GIL is released while C works."""

import numpy as np
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memchr, memcpy
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize

include "_status.pxi"


cdef extern from "tokenize.h":
    ctypedef struct wv_tokenizer:
        int64_t tokens
        int64_t newlines
        int64_t truncated
    int WV_MAX_TOKEN_BYTES


cdef extern from "vocab.h":
    ctypedef struct wv_counter:
        int64_t max_size
        int64_t min_reduce
        int64_t prunes
        int n_parts
        int ids_unfit
        wv_tokenizer tok
    ctypedef struct wv_word_count:
        const char *word
        int64_t count
        int64_t first
        int32_t len
    ctypedef struct wv_encoder:
        int64_t oov
        wv_tokenizer tok
        int last_was_eos
    wv_status wv_counter_init(wv_counter *c, int64_t max_size, int n_parts, int64_t origin) nogil
    void wv_counter_free(wv_counter *c) nogil
    wv_status wv_counter_feed(wv_counter *c, const char *buf, size_t n, int final) nogil
    int64_t wv_counter_distinct(const wv_counter *c) nogil
    int64_t wv_counter_max_count(const wv_counter *c) nogil
    wv_status wv_counter_merge(wv_counter *into, const wv_counter *other) nogil
    wv_status wv_counter_absorb_part(wv_counter *into, wv_counter **src, int k, int p) nogil
    void wv_counter_add_totals(wv_counter *into, const wv_counter *src) nogil
    wv_status wv_counter_sorted(const wv_counter *c, int64_t min_count, wv_word_count **out, int64_t *n) nogil
    wv_status wv_counter_feed_ids(wv_counter *c, const char *buf, size_t n, int final,
                                  int32_t *out, int64_t cap, int64_t *written) nogil
    wv_status wv_counter_number(wv_counter *merged, const char *joined, size_t length) nogil
    wv_status wv_counter_resolve_ids(wv_counter *c, const wv_counter *merged, int32_t *ids, int64_t n,
                                     int mid_sentence, int64_t *n_out, int64_t *oov, int64_t *eos) nogil
    wv_status wv_encoder_init(wv_encoder *e, int64_t n_words) nogil
    wv_status wv_encoder_add(wv_encoder *e, const char *word, int length) nogil
    void wv_encoder_free(wv_encoder *e) nogil
    wv_status wv_encoder_copy(wv_encoder *dst, const wv_encoder *src) nogil
    wv_status wv_encoder_feed(wv_encoder *e, const char *buf, size_t n, int final,
                              int32_t *out, int64_t cap, int64_t *written) nogil

MAX_TOKEN_BYTES = WV_MAX_TOKEN_BYTES
cdef const char EMPTY[1]


cdef inline const char *chunk_bytes(const unsigned char[::1] chunk):
    """The chunk's first byte; EMPTY for an empty chunk, which has none."""
    return <const char *>&chunk[0] if chunk.shape[0] else EMPTY


cdef inline int32_t *first_id(int32_t[::1] ids, int32_t *spare):
    """Where ids starts; `spare` (never written) for an empty array."""
    return &ids[0] if ids.shape[0] else spare


cdef class WordCounter:
    """Counts whitespace-separated byte tokens fed in chunks of any size.

    max_size > 0 prunes rare words whenever more distinct words than that are
    held (word2vec.c's ReduceVocab), bounding memory on huge corpora.
    parts: the number of tables the words are spread over (by hash), so that
    counters of parts of one corpus merge on that many threads (absorb_part).
    origin: the position of the first token fed; each word keeps where it
    was first seen, which orders words of equal count (sorted_words), so
    counters of consecutive parts of a corpus take origins in that order
    (shards.position_origin)."""
    cdef wv_counter c
    cdef bint ready

    def __cinit__(self, int64_t max_size=0, int parts=1, int64_t origin=0):
        raise_for(wv_counter_init(&self.c, max_size, parts, origin), "the word counter")
        self.ready = True

    def __dealloc__(self):
        if self.ready:
            wv_counter_free(&self.c)

    def feed(self, const unsigned char[::1] chunk not None, bint final=False):
        """Counts the tokens in chunk (bytes); final=True ends the input."""
        cdef size_t n = chunk.shape[0]
        cdef const char *p = chunk_bytes(chunk)
        cdef wv_status rc
        with nogil:
            rc = wv_counter_feed(&self.c, p, n, final)
        raise_for(rc, f"counting words ({self.distinct:,} distinct so far); "
                      "set max_vocab_size to prune rare words while counting")

    def feed_ids(self, const unsigned char[::1] chunk not None, int32_t[::1] out not None, bint final=False):
        """feed(), also writing each token's provisional id (and -1 for a
        newline after anything else) into out (room for len(chunk) + 2 ids
        always suffices); returns how many. Once merged, number() and
        resolve_ids() turn them into the encoder's ids: counting and
        encoding in one pass. Nothing more is written once ids_unfit."""
        cdef size_t n = chunk.shape[0]
        cdef const char *p = chunk_bytes(chunk)
        cdef int64_t k = 0
        cdef int32_t spare[1]
        cdef int32_t *dst = first_id(out, spare)
        cdef wv_status rc
        with nogil:
            rc = wv_counter_feed_ids(&self.c, p, n, final, dst, out.shape[0], &k)
        raise_for(rc, {WV_ERR_INVALID: "a counter that prunes (max_size > 0) cannot write ids",
                       WV_ERR_NOMEM: f"counting words ({self.distinct:,} distinct so far)"})
        return k

    @property
    def ids_unfit(self):
        """True once a provisional id could not be written (tables too large
        for 31-bit ids): encode the corpus in a pass of its own."""
        return bool(self.c.ids_unfit)

    def number(self, bytes joined not None):
        """Gives the words joined by newlines (a vocabulary, most frequent
        first) ids 0, 1, ... in this (merged) counter, for resolve_ids."""
        cdef const char *p = joined
        cdef size_t n = len(joined)
        cdef wv_status rc
        with nogil:
            rc = wv_counter_number(&self.c, p, n)
        raise_for(rc, "numbering the vocabulary: a word the counter does not hold")

    def resolve_ids(self, WordCounter merged not None, int32_t[::1] ids not None, bint mid_sentence=False):
        """Rewrites the provisional ids this counter wrote (feed_ids) in
        place into the ids of the vocabulary numbered in `merged` (this
        counter, or the one its tables were merged into), exactly as an
        Encoder of that vocabulary writes them. Returns (ids kept, tokens
        dropped as out of vocabulary, sentence ends kept)."""
        cdef int64_t k = 0, oov = 0, eos = 0
        cdef int32_t spare[1]
        cdef int32_t *dst = first_id(ids, spare)
        cdef wv_status rc
        with nogil:
            rc = wv_counter_resolve_ids(&self.c, &merged.c, dst, ids.shape[0], mid_sentence, &k, &oov, &eos)
        raise_for(rc, "resolving provisional ids: not ids this counter wrote, or another merge")
        return k, oov, eos

    def merge(self, WordCounter other not None):
        """Adds the counts of `other` (another part of the same corpus, fed
        to its end) into this one. Only for counters that never prune."""
        cdef wv_status rc
        with nogil:
            rc = wv_counter_merge(&self.c, &other.c)
        raise_for(rc, {WV_ERR_INVALID: "counters that prune (max_size > 0) cannot be merged exactly",
                       WV_ERR_NOMEM: f"merging word counts ({self.distinct:,} distinct)"})

    def absorb_part(self, counters, int part):
        """Makes this (new, empty) counter's table `part` the union of that
        table of every counter in `counters` (fed to their end, all with
        this one's number of parts), counts added up; the largest is taken
        over, not copied. Calls for different parts may run on different
        threads at once (the GIL is released); then add_totals."""
        cdef int k = len(counters), i
        cdef wv_status rc
        cdef WordCounter other
        cdef wv_counter **src = <wv_counter **>malloc(max(k, 1) * sizeof(wv_counter *))
        if src == NULL:
            raise MemoryError("merging word counts")
        try:
            for i in range(k):
                other = counters[i]
                src[i] = &other.c
            with nogil:
                rc = wv_counter_absorb_part(&self.c, src, k, part)
        finally:
            free(src)
        raise_for(rc, {WV_ERR_INVALID: "absorb_part: counters with another number of parts, or a part already filled",
                       WV_ERR_NOMEM: f"merging word counts (part {part})"})

    def add_totals(self, WordCounter other not None):
        """Adds other's token totals and prunes to this counter's (after absorb_part)."""
        wv_counter_add_totals(&self.c, &other.c)

    def sorted_words(self, int64_t min_count=1, bint with_firsts=False):
        """(words as bytes, counts) of words seen >= min_count times, by count
        descending, then by where each was first seen (word2vec.c's
        order), then by bytes; with_firsts: and those positions."""
        blob, *rest = self.sorted_blob(min_count, with_firsts)
        return ((blob.split(b"\n") if len(rest[0]) else []), *rest)

    def sorted_blob(self, int64_t min_count=1, bint with_firsts=False):
        """(words, counts) as sorted_words orders them, the words as one
        bytes object joined by newlines (a token never holds one): a
        vocabulary of millions of words leaves C as one object, to be split
        or decoded in one call (Vocabulary.build) or fed to an Encoder.
        with_firsts: (words, counts, first positions)."""
        cdef wv_word_count *order = NULL
        cdef int64_t n = 0, i, size = 0
        cdef int64_t[::1] cv, fv
        cdef char *dst
        cdef wv_status rc
        with nogil:
            rc = wv_counter_sorted(&self.c, min_count, &order, &n)
        raise_for(rc, "sorting the vocabulary")
        try:
            counts = np.empty(n, dtype=np.int64)
            firsts = np.empty(n if with_firsts else 0, dtype=np.int64)
            cv = counts
            fv = firsts
            for i in range(n):
                size += order[i].len + 1
            blob = PyBytes_FromStringAndSize(NULL, max(size - 1, 0))
            dst = PyBytes_AS_STRING(blob)
            for i in range(n):
                memcpy(dst, order[i].word, order[i].len)
                dst += order[i].len
                if i + 1 < n:
                    dst[0] = 10
                    dst += 1
                cv[i] = order[i].count
                if with_firsts:
                    fv[i] = order[i].first
        finally:
            free(order)
        return (blob, counts, firsts) if with_firsts else (blob, counts)

    @property
    def tokens(self):
        """Tokens counted (before any pruning)."""
        return self.c.tok.tokens

    @property
    def newlines(self):
        return self.c.tok.newlines

    @property
    def truncated(self):
        """Tokens cut at MAX_TOKEN_BYTES."""
        return self.c.tok.truncated

    @property
    def distinct(self):
        """Distinct words held now (after pruning)."""
        return wv_counter_distinct(&self.c)

    @property
    def max_count(self):
        """The largest count (0 before any word)."""
        return wv_counter_max_count(&self.c)

    @property
    def parts(self):
        return self.c.n_parts

    @property
    def prunes(self):
        return self.c.prunes

    @property
    def min_reduce(self):
        """Words seen fewer than this many times may have been pruned."""
        return self.c.min_reduce


cdef class Encoder:
    """Turns text chunks into int32 word ids (-1 marks a sentence end) for a
    fixed list of words (bytes); id = position in that list. `words` may
    also be one bytes object of the words joined by newlines
    (WordCounter.sorted_blob), or another Encoder, whose words are copied
    (Encoder.copy).

    A sentence end is written for a newline after at least one word, once.
    mid_sentence=True: the text may continue a sentence begun before it (a
    byte range from inside a file), so a newline before its first word also
    writes one; the caller drops it where the text before ended a sentence."""
    cdef wv_encoder e
    cdef bint ready

    def __cinit__(self, words, bint mid_sentence=False):
        cdef bytes w
        cdef wv_status rc
        cdef Encoder original
        if isinstance(words, Encoder):  # a copy of another encoder's words (Encoder.copy)
            original = words
            with nogil:
                rc = wv_encoder_copy(&self.e, &original.e)
            raise_for(rc, "the encoder")
            self.ready = True
        elif isinstance(words, bytes):
            self._add_joined(words)
        else:
            raise_for(wv_encoder_init(&self.e, max(len(words), 1)), "the encoder")
            self.ready = True
            for w in words:
                rc = wv_encoder_add(&self.e, w, len(w))
                if rc != WV_OK:
                    raise_for(rc, {WV_ERR_NOMEM: "the encoder", WV_ERR_DUPLICATE: repr(w)})
        if mid_sentence:
            self.e.last_was_eos = 0

    cdef _add_joined(self, bytes joined):
        """The words of one bytes object, separated by newlines."""
        cdef const char *p = joined
        cdef const char *end = p + len(joined)
        cdef const char *nl
        cdef wv_status rc = WV_OK
        raise_for(wv_encoder_init(&self.e, joined.count(b"\n") + 1), "the encoder")
        self.ready = True
        with nogil:
            while True:
                nl = <const char *>memchr(p, 10, end - p)
                if nl == NULL:
                    nl = end
                rc = wv_encoder_add(&self.e, p, nl - p)
                if rc != WV_OK or nl == end:
                    break
                p = nl + 1
        if rc != WV_OK:
            raise_for(rc, {WV_ERR_NOMEM: "the encoder", WV_ERR_DUPLICATE: repr(p[:nl - p])})

    def copy(self, bint mid_sentence=False):
        """A new encoder of the same words, at the start of a text (the
        table is copied, not rebuilt: one per thread of a parallel encode)."""
        return Encoder(self, mid_sentence)

    def __dealloc__(self):
        if self.ready:
            wv_encoder_free(&self.e)

    def encode(self, const unsigned char[::1] chunk not None, bint final=False):
        """int32 ids of the tokens in chunk; words not in the list are dropped."""
        out = np.empty(chunk.shape[0] + 2, dtype=np.int32)
        return out[:self.encode_into(chunk, out, final)].copy()

    def encode_into(self, const unsigned char[::1] chunk not None, int32_t[::1] out not None, bint final=False):
        """encode() writing the ids into out (room for len(chunk) + 2 ids
        always suffices) instead of a new array; returns how many."""
        cdef size_t n = chunk.shape[0]
        cdef const char *p = chunk_bytes(chunk)
        cdef int64_t k = 0
        cdef int32_t spare[1]
        cdef int32_t *dst = first_id(out, spare)
        cdef wv_status rc
        with nogil:
            rc = wv_encoder_feed(&self.e, p, n, final, dst, out.shape[0], &k)
        raise_for(rc, "the encoder")
        return k

    @property
    def oov(self):
        """Tokens dropped because they are not in the vocabulary."""
        return self.e.oov

    @property
    def tokens(self):
        return self.e.tok.tokens

    @property
    def newlines(self):
        return self.e.tok.newlines


include "_phrases.pxi"
