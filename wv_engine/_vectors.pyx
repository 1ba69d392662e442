# cython: language_level=3, boundscheck=False, wraparound=False
"""Bindings of csrc/vecfile.c (word2vec binary and text rows from a mapped
file), csrc/wordtable.c (word -> row over plain arrays) and csrc/topk.c
(the best rows of many queries). Every array the C reads or writes is
checked against the others here, once; the C trusts what it is given."""

from libc.stdint cimport int8_t, int64_t, uint8_t, uint32_t
from cpython.unicode cimport PyUnicode_DecodeUTF8

import numpy as np

cdef extern from "vecfile.h" nogil:
    ctypedef struct wv_vf_error:
        int problem
        int64_t where
        int64_t at
        int64_t count
    ctypedef struct wv_vf_piece:
        int64_t begin, end, rows, lines
    int64_t wv_vf_nul_entries(const uint8_t *buf, int64_t len, int64_t pos, int64_t n, int64_t *word_at,
                              int64_t *word_len, int64_t *count, int8_t *type)
    int64_t wv_vf_binary_scan(const uint8_t *buf, int64_t len, int64_t pos, int64_t n, int64_t dim,
                              int64_t max_word, int64_t *word_at, int64_t *word_len, wv_vf_error *err)
    int64_t wv_vf_binary_rows(const uint8_t *buf, const int64_t *word_at, const int64_t *word_len, int64_t n,
                              int64_t dim, float *out, float *norms, int threads)
    int wv_vf_text_pieces(const uint8_t *buf, int64_t begin, int64_t end, wv_vf_piece *pieces, int max_pieces,
                          int threads)
    int64_t wv_vf_text_rows_end(const uint8_t *buf, int64_t begin, int64_t end, int64_t rows)
    void wv_vf_text_parse(const uint8_t *buf, const wv_vf_piece *pieces, int n_pieces, const int64_t *first_row,
                          const int64_t *first_line, int64_t dim, float *out, float *norms, int64_t *word_at,
                          int64_t *word_len, wv_vf_error *errors, int threads)
    void wv_vf_gather_words(const uint8_t *buf, const int64_t *word_at, const int64_t *offsets, int64_t n,
                            uint8_t *blob, int threads)
    void wv_vf_row_norms(const float *m, int64_t n, int64_t dim, float *norms, int threads)

cdef extern from "wordtable.h" nogil:
    int64_t WV_WT_ABSENT
    int64_t WV_WT_DAMAGED
    ctypedef struct wv_wordtable:
        const uint8_t *blob
        int64_t blob_len
        const int64_t *offsets
        int64_t n_rows
        int64_t visible
        const uint32_t *slots
        int64_t n_slots
    int64_t wv_wt_slots_for(int64_t n)
    int64_t wv_wt_build(const wv_wordtable *t, uint32_t *slots, uint8_t *dup)
    int64_t wv_wt_find(const wv_wordtable *t, const uint8_t *s, int64_t len)
    int wv_wt_word(const wv_wordtable *t, int64_t row, int64_t *at, int64_t *len)

cdef extern from "topk.h" nogil:
    ctypedef struct wv_topk:
        int64_t nq, k
        float *score
        int64_t *row
        int64_t *filled
    void wv_topk_push(wv_topk *t, const float *scores, int64_t ncols, int64_t ld, int64_t row0, const float *scale,
                      int threads)
    void wv_topk_finish(wv_topk *t)

# what csrc/vecfile.h's wv_vf_problem members are called here
PROBLEMS = {1: "truncated", 2: "no_space", 3: "empty_word", 4: "nul_word", 5: "not_number", 6: "count",
            7: "not_finite"}

PIECE_FIELDS = 4  # begin, end, rows, lines


cdef inline const uint8_t *first_byte(const uint8_t[::1] buf) noexcept nogil:
    return &buf[0] if buf.shape[0] else NULL


# ---------------------------------------------------------------------------- binary rows


def nul_entries(const uint8_t[::1] buf not None, int64_t pos, int64_t n):
    """(word_at, word_len, count, type) of up to n fastText dictionary
    entries from byte pos ("word NUL int64 int8"): arrays as long as the
    entries found (fewer than n: the buffer ends inside the next)."""
    if pos < 0 or pos > buf.shape[0] or n < 0:
        raise ValueError("nul_entries: position or count out of range")
    word_at = np.empty(n, dtype=np.int64)
    word_len = np.empty(n, dtype=np.int64)
    count = np.empty(n, dtype=np.int64)
    kind = np.empty(n, dtype=np.int8)
    cdef int64_t[::1] a = word_at, l = word_len, c = count
    cdef int8_t[::1] k = kind
    cdef int64_t found
    with nogil:
        found = wv_vf_nul_entries(first_byte(buf), buf.shape[0], pos, n, &a[0] if n else NULL,
                                  &l[0] if n else NULL, &c[0] if n else NULL, &k[0] if n else NULL)
    return word_at[:found], word_len[:found], count[:found], kind[:found]


def decode_words(const uint8_t[::1] buf not None, const int64_t[::1] word_at not None,
                 const int64_t[::1] word_len not None):
    """The words at word_at (word_len bytes each) as a list of str (UTF-8,
    surrogateescape for bytes that are not)."""
    cdef int64_t i, n = word_at.shape[0]
    if word_len.shape[0] != n:
        raise ValueError("decode_words: word_at and word_len differ in length")
    for i in range(n):
        if word_at[i] < 0 or word_len[i] < 0 or word_at[i] + word_len[i] > buf.shape[0]:
            raise ValueError(f"decode_words: word {i} lies outside the buffer")
    return [PyUnicode_DecodeUTF8(<const char *>&buf[0] + word_at[i], word_len[i], "surrogateescape")
            if word_len[i] else "" for i in range(n)]


def binary_scan(const uint8_t[::1] buf not None, int64_t pos, int64_t n, int64_t dim, int64_t max_word):
    """(word_at, word_len, problem) of up to n binary entries from byte pos:
    the arrays hold the entries found, problem is None or (name, entry, byte)."""
    if pos < 0 or pos > buf.shape[0] or n < 0 or dim < 1 or max_word < 1:
        raise ValueError("binary_scan: position, count, dimension or word limit out of range")
    word_at = np.empty(n, dtype=np.int64)
    word_len = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] wa = word_at, wl = word_len
    cdef wv_vf_error err
    cdef int64_t found
    with nogil:
        found = wv_vf_binary_scan(first_byte(buf), buf.shape[0], pos, n, dim, max_word,
                                  &wa[0] if n else NULL, &wl[0] if n else NULL, &err)
    problem = None if found == n else (PROBLEMS[err.problem], err.where, err.at)
    return word_at[:found], word_len[:found], problem


def binary_rows(const uint8_t[::1] buf not None, const int64_t[::1] word_at not None,
                const int64_t[::1] word_len not None, float[:, ::1] out not None, float[::1] norms not None,
                int threads):
    """Copies the entries' vectors into out and their norms into norms;
    returns the first row holding inf or nan, or -1."""
    cdef int64_t n = out.shape[0], dim = out.shape[1], got
    if word_at.shape[0] != n or word_len.shape[0] != n or norms.shape[0] != n or dim < 1:
        raise ValueError("binary_rows: arrays of different lengths")
    if n:
        at, ln = np.asarray(word_at), np.asarray(word_len)
        if at.min() < 0 or ln.min() < 0 or (at + ln + 1 + 4 * dim).max() > buf.shape[0]:
            raise ValueError("binary_rows: an entry lies outside the buffer")
    with nogil:
        got = wv_vf_binary_rows(first_byte(buf), &word_at[0] if n else NULL, &word_len[0] if n else NULL, n, dim,
                                &out[0, 0] if n else NULL, &norms[0] if n else NULL, threads)
    return got


# ---------------------------------------------------------------------------- text rows


def text_pieces(const uint8_t[::1] buf not None, int64_t begin, int64_t end, int max_pieces, int threads):
    """[begin, end) cut at newlines into at most max_pieces pieces: an
    (n, 4) int64 array of begin, end, rows, lines."""
    if begin < 0 or end > buf.shape[0] or begin > end or max_pieces < 1:
        raise ValueError("text_pieces: range out of the buffer")
    pieces = np.zeros((max_pieces, PIECE_FIELDS), dtype=np.int64)
    cdef int64_t[:, ::1] p = pieces
    cdef int made
    with nogil:
        made = wv_vf_text_pieces(first_byte(buf), begin, end, <wv_vf_piece *>&p[0, 0], max_pieces, threads)
    return pieces[:made]


def text_rows_end(const uint8_t[::1] buf not None, int64_t begin, int64_t end, int64_t rows):
    """Where the first `rows` rows from begin end (end when there are fewer)."""
    if begin < 0 or end > buf.shape[0] or begin > end:
        raise ValueError("text_rows_end: range out of the buffer")
    cdef int64_t at
    with nogil:
        at = wv_vf_text_rows_end(first_byte(buf), begin, end, rows)
    return at


def text_parse(const uint8_t[::1] buf not None, const int64_t[:, ::1] pieces not None,
               const int64_t[::1] first_row not None, const int64_t[::1] first_line not None,
               float[:, ::1] out not None, float[::1] norms not None, int64_t[::1] word_at not None,
               int64_t[::1] word_len not None, int threads):
    """Parses the pieces' rows into out (their words' places into word_at
    and word_len, their norms into norms); returns an (n, 4) int64 array
    of each piece's problem (0: none), line, byte and values found."""
    cdef int64_t n = pieces.shape[0], rows = out.shape[0], dim = out.shape[1]
    if pieces.shape[1] != PIECE_FIELDS or first_row.shape[0] != n or first_line.shape[0] != n:
        raise ValueError("text_parse: pieces, first rows and first lines differ")
    if norms.shape[0] != rows or word_at.shape[0] != rows or word_len.shape[0] != rows or dim < 1:
        raise ValueError("text_parse: output arrays of different lengths")
    if n:
        p, fr = np.asarray(pieces), np.asarray(first_row)
        if p[:, 0].min() < 0 or p[:, 1].max() > buf.shape[0] or (p[:, 1] < p[:, 0]).any():
            raise ValueError("text_parse: a piece lies outside the buffer")
        if fr.min() < 0 or (fr + p[:, 2]).max() > rows:
            raise ValueError("text_parse: a piece's rows lie outside out")
    errors = np.zeros((n, PIECE_FIELDS), dtype=np.int64)
    cdef int64_t[:, ::1] e = errors
    with nogil:
        wv_vf_text_parse(first_byte(buf), <const wv_vf_piece *>&pieces[0, 0] if n else NULL, <int>n,
                         &first_row[0] if n else NULL, &first_line[0] if n else NULL, dim,
                         &out[0, 0] if rows else NULL, &norms[0] if rows else NULL, &word_at[0] if rows else NULL,
                         &word_len[0] if rows else NULL, <wv_vf_error *>&e[0, 0] if n else NULL, threads)
    return errors


# ---------------------------------------------------------------------------- words, norms


def gather_words(const uint8_t[::1] buf not None, const int64_t[::1] word_at not None,
                 const int64_t[::1] offsets not None, uint8_t[::1] blob not None, int threads):
    """Word i's bytes (at word_at[i] in buf) to blob[offsets[i]:offsets[i + 1]]."""
    cdef int64_t n = word_at.shape[0]
    if offsets.shape[0] != n + 1:
        raise ValueError("gather_words: need one more offset than words")
    o = np.asarray(offsets)
    if o[0] < 0 or o[n] > blob.shape[0] or (np.diff(o) < 0).any():
        raise ValueError("gather_words: offsets outside the blob")
    if n and (np.asarray(word_at).min() < 0 or (np.asarray(word_at) + np.diff(o)).max() > buf.shape[0]):
        raise ValueError("gather_words: a word lies outside the buffer")
    with nogil:
        wv_vf_gather_words(first_byte(buf), &word_at[0] if n else NULL, &offsets[0], n,
                           &blob[0] if blob.shape[0] else NULL, threads)


def row_norms(const float[:, ::1] m not None, int threads):
    """The L2 norm of each row of m (float32; summed in double)."""
    cdef int64_t n = m.shape[0], dim = m.shape[1]
    norms = np.empty(n, dtype=np.float32)
    cdef float[::1] out = norms
    if n and dim:
        with nogil:
            wv_vf_row_norms(&m[0, 0], n, dim, &out[0], threads)
    elif n:
        norms[:] = 0
    return norms


def table_slots(int64_t n):
    """The number of slots a WordTable of n words takes."""
    return wv_wt_slots_for(n)


class DamagedTable(ValueError):
    """The words' arrays do not fit together (a damaged file)."""


cdef class WordTable:
    """word <-> row over a blob of the words' UTF-8 bytes, their offsets and
    a slot table (all may be read-only mappings of a file): no Python object
    per word until one is asked for."""

    cdef wv_wordtable t
    cdef object _blob, _offsets, _slots  # the arrays the pointers point into
    cdef const uint8_t[::1] blob_view
    cdef const int64_t[::1] offsets_view
    cdef const uint32_t[::1] slots_view

    def __init__(self, blob, offsets, slots, int64_t visible=-1):
        """blob: uint8; offsets: int64 (n + 1); slots: uint32, a power of
        two of them, at least n + 1 (table_slots(n) when built here)."""
        self.blob_view = blob
        self.offsets_view = offsets
        self.slots_view = slots
        cdef int64_t n = self.offsets_view.shape[0] - 1, s = self.slots_view.shape[0]
        if n < 0 or s < n + 1 or s & (s - 1):
            raise DamagedTable(f"{n} words need more than {s} slots, a power of two")
        self._blob, self._offsets, self._slots = blob, offsets, slots
        self.t.blob = first_byte(self.blob_view)
        self.t.blob_len = self.blob_view.shape[0]
        self.t.offsets = &self.offsets_view[0]
        self.t.n_rows = n
        self.t.visible = n if visible < 0 or visible > n else visible
        self.t.slots = &self.slots_view[0] if s else NULL
        self.t.n_slots = s

    @staticmethod
    def build(blob, offsets):
        """(slots, dup) for words given as blob and offsets: the slot table,
        and a bool array flagging each word already seen (left out)."""
        cdef const uint8_t[::1] b = blob
        cdef const int64_t[::1] o = offsets
        cdef int64_t n = o.shape[0] - 1
        if n < 0:
            raise ValueError("need at least one offset")
        if n >= 0xFFFFFFFF:
            raise ValueError(f"{n} words: more than a word table holds")
        slots = np.zeros(wv_wt_slots_for(n), dtype=np.uint32)
        dup = np.zeros(n, dtype=np.uint8)
        cdef uint32_t[::1] sv = slots
        cdef uint8_t[::1] dv = dup
        cdef wv_wordtable t
        t.blob, t.blob_len, t.offsets, t.n_rows, t.visible = first_byte(b), b.shape[0], &o[0], n, n
        t.slots, t.n_slots = &sv[0], sv.shape[0]
        cdef int64_t left
        with nogil:
            left = wv_wt_build(&t, &sv[0], &dv[0] if n else NULL)
        if left == WV_WT_DAMAGED:
            raise DamagedTable("word offsets do not fit the words' bytes")
        return slots, dup.view(bool)

    def __len__(self):
        return self.t.visible

    @property
    def arrays(self):
        """(blob, offsets, slots) as given."""
        return self._blob, self._offsets, self._slots

    def index(self, str word):
        """The row of word, or -1."""
        raw = word.encode("utf-8", "surrogateescape")
        return self.index_bytes(raw)

    def index_bytes(self, const uint8_t[::1] raw):
        cdef int64_t r = wv_wt_find(&self.t, first_byte(raw), raw.shape[0])
        if r == WV_WT_DAMAGED:
            raise DamagedTable("the word table names a row whose word lies outside the words' bytes")
        return r

    def word(self, int64_t row):
        """The word of row (surrogateescape for bytes that are not UTF-8)."""
        cdef int64_t at, ln
        if row < 0:
            row += self.t.visible
        if row < 0 or row >= self.t.visible:
            raise IndexError(f"row {row} of {self.t.visible}")
        if wv_wt_word(&self.t, row, &at, &ln):
            raise DamagedTable(f"word {row} lies outside the words' bytes")
        return PyUnicode_DecodeUTF8(<const char *>self.t.blob + at, ln, "surrogateescape")

    def words(self, int64_t start=0, int64_t stop=-1):
        """The words of rows start..stop as a list."""
        cdef int64_t at, ln, i
        if stop < 0 or stop > self.t.visible:
            stop = self.t.visible
        out = []
        for i in range(start, stop):
            if wv_wt_word(&self.t, i, &at, &ln):
                raise DamagedTable(f"word {i} lies outside the words' bytes")
            out.append(PyUnicode_DecodeUTF8(<const char *>self.t.blob + at, ln, "surrogateescape"))
        return out

    def with_visible(self, int64_t visible):
        """The same table answering only the first `visible` rows."""
        return WordTable(self._blob, self._offsets, self._slots, visible)


cdef class TopK:
    """The k best rows of nq queries, fed blocks of scores in row order."""

    cdef wv_topk t
    cdef object score, row, filled
    cdef int64_t _next

    def __init__(self, int64_t nq, int64_t k):
        if nq < 0 or k < 0:
            raise ValueError("TopK: negative size")
        self.score = np.empty((nq, k), dtype=np.float32)
        self.row = np.empty((nq, k), dtype=np.int64)
        self.filled = np.zeros(nq, dtype=np.int64)
        cdef float[:, ::1] s = self.score
        cdef int64_t[:, ::1] r = self.row
        cdef int64_t[::1] f = self.filled
        self.t.nq, self.t.k = nq, k
        self.t.score = &s[0, 0] if nq and k else NULL
        self.t.row = &r[0, 0] if nq and k else NULL
        self.t.filled = &f[0] if nq else NULL
        self._next = 0

    def push(self, const float[:, ::1] scores not None, int64_t row0, const float[::1] scale not None, int threads):
        """scores: (nq, ncols), the columns standing for rows row0.. (each
        block after the last one pushed); scale: one per column."""
        cdef int64_t ncols = scores.shape[1]
        if scores.shape[0] != self.t.nq or scale.shape[0] != ncols:
            raise ValueError("TopK.push: a block of another shape")
        if row0 < self._next:
            raise ValueError("TopK.push: blocks must come in row order")
        self._next = row0 + ncols
        if self.t.nq == 0 or ncols == 0 or self.t.k == 0:
            return
        with nogil:
            wv_topk_push(&self.t, &scores[0, 0], ncols, scores.shape[1], row0, &scale[0], threads)

    def finish(self):
        """(rows, scores, filled): each query's best first."""
        with nogil:
            wv_topk_finish(&self.t)
        return self.row, self.score, self.filled
