# cython: language_level=3, boundscheck=False, wraparound=False
"""Thin bindings to fastText's character n-grams (csrc/subwords.h): the hash,
the n-gram rows of a word and of a whole vocabulary, a word's vector as
the mean of its rows, and the rows' training order moved in place
(csrc/row_order.h)."""

import numpy as np
from libc.stdint cimport int32_t, int64_t, uint32_t


cdef extern from "subwords.h":
    uint32_t wv_subword_hash(const unsigned char *s, size_t n) nogil
    int64_t wv_subword_rows(const char *word, size_t len, int minn, int maxn, uint32_t bucket, int64_t first_row,
                            int32_t *out, int64_t cap) nogil
    void wv_mean_rows(const float *matrix, int64_t dim, const int32_t *offsets, const int32_t *rows, int64_t n,
                      float *out, float *norms, int threads) nogil


cdef extern from "row_order.h":
    int64_t wv_row_cycles(const int32_t *src, int64_t n, int32_t *cycles, int64_t cap, unsigned char *seen) nogil
    void wv_move_rows(float *matrix, int64_t dim, const int32_t *cycles, int64_t len, int forward,
                      float *scratch) nogil


def _encoded(str word):
    return word.encode("utf-8", "surrogateescape")  # words read with surrogateescape round-trip


def fasttext_hash(bytes data):
    """fastText's 32-bit hash of the bytes (FNV-1a, bytes taken as signed chars)."""
    return wv_subword_hash(<const unsigned char *>data, len(data))


def ngram_rows(str word, int minn, int maxn, uint32_t bucket, int64_t first_row=0):
    """The rows (first_row + hash % bucket) of the n-grams of `<word>` of
    minn..maxn characters, in fastText's order (repeats kept); none for
    "</s>", maxn 0 or bucket 0."""
    cdef bytes b = _encoded(word)
    cdef int64_t n = wv_subword_rows(b, len(b), minn, maxn, bucket, first_row, NULL, 0)
    out = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] o = out
    if n:
        wv_subword_rows(b, len(b), minn, maxn, bucket, first_row, &o[0], n)
    return out


def subword_table(words, int minn, int maxn, uint32_t bucket):
    """(offsets, rows) for a vocabulary: word i's rows are rows[offsets[i]:
    offsets[i + 1]], its own row i first, then its n-grams' rows, offset
    past the vocabulary (len(words) + hash % bucket)."""
    encoded = [_encoded(w) for w in words]
    cdef int32_t V = len(encoded)
    cdef int64_t[::1] starts = np.zeros(V + 1, dtype=np.int64)
    if V:
        np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=V), out=np.asarray(starts)[1:])
    cdef bytes blob = b"".join(encoded)
    cdef const char *p = blob
    offsets = np.empty(V + 1, dtype=np.int64)
    cdef int64_t[::1] off = offsets
    cdef int64_t i, total = 0
    with nogil:
        for i in range(V):
            off[i] = total
            total += 1 + wv_subword_rows(p + starts[i], starts[i + 1] - starts[i], minn, maxn, bucket, V, NULL, 0)
        off[V] = total
    if V + <int64_t>bucket >= 2**31 or total >= 2**31:
        raise ValueError(f"{V:,} words and {bucket:,} buckets make more rows than a 32-bit id holds: "
                         "lower bucket or raise min_count")
    rows = np.empty(max(total, 1), dtype=np.int32)
    cdef int32_t[::1] r = rows
    with nogil:
        for i in range(V):
            r[off[i]] = <int32_t>i
            wv_subword_rows(p + starts[i], starts[i + 1] - starts[i], minn, maxn, bucket, V, &r[off[i] + 1],
                            off[i + 1] - off[i] - 1)
    return offsets.astype(np.int32), rows[:total]


def mean_rows(const float[:, ::1] matrix not None, offsets, rows, float[:, ::1] out not None, int threads=1,
              float[::1] norms=None):
    """out[i] = the mean of matrix's rows rows[offsets[i]:offsets[i + 1]]
    (zeros where there are none), on `threads` threads: the vectors of a
    subword table's words; `norms`, if given, gets each one's L2 norm."""
    cdef const int32_t[::1] o = np.ascontiguousarray(offsets, dtype=np.int32)
    cdef const int32_t[::1] r = np.ascontiguousarray(rows, dtype=np.int32)
    cdef int64_t n = out.shape[0], dim = out.shape[1]
    if o.shape[0] != n + 1 or matrix.shape[1] != dim or o[0] != 0 or o[n] != r.shape[0] \
            or np.any(np.diff(np.asarray(o)) < 0):
        raise ValueError("offsets, rows and out do not match")
    if r.shape[0] and (np.asarray(r).min() < 0 or np.asarray(r).max() >= matrix.shape[0]):
        raise ValueError("rows lie outside the matrix")
    if norms is not None and norms.shape[0] != n:
        raise ValueError("one norm per row of out")
    if n == 0 or dim == 0:
        return out
    with nogil:
        wv_mean_rows(&matrix[0, 0] if matrix.shape[0] else NULL, dim, &o[0], &r[0] if r.shape[0] else NULL, n,
                     &out[0, 0], &norms[0] if norms is not None else NULL, max(threads, 1))
    return out


def row_cycles(src, int64_t moved=-1):
    """The cycles of the row permutation new[t] = old[src[t]] (int32: each
    cycle's positions, its first as -1 - position; rows that stay left
    out), for move_rows. moved: at most how many rows move (default all).
    Raises ValueError when src is not a permutation or moves more."""
    cdef const int32_t[::1] s = np.ascontiguousarray(src, dtype=np.int32)
    cdef int64_t n = s.shape[0], k = 0
    cdef int64_t cap = n if moved < 0 else min(moved, n)
    cycles = np.empty(max(cap, 1), dtype=np.int32)
    cdef int32_t[::1] c = cycles
    cdef unsigned char[::1] seen = np.empty(max(n, 1), dtype=np.uint8)
    if n:
        with nogil:
            k = wv_row_cycles(&s[0], n, &c[0], cap, &seen[0])
    if k < 0:
        raise ValueError("src is not a permutation of its positions moving at most the rows given")
    return cycles[:k].copy()


def training_order(rows, int64_t vocab_size, int64_t buckets):
    """(renumbered, cycles) for a subword table's rows (words' rows below
    vocab_size, then `buckets` n-gram rows): the bucket rows some word
    uses take positions 0, 1, ... in the order the table first names them,
    renumbered gives each entry's row in that order, and cycles
    (row_cycles) move the bucket rows there. The rows a used one pushes
    out go where used rows left; every other row stays."""
    cdef const int32_t[::1] r = np.ascontiguousarray(rows, dtype=np.int32)
    cdef int64_t n = r.shape[0], k, t, b, U = 0, V = vocab_size, j = 0
    if n and (np.asarray(r).min() < 0 or np.asarray(r).max() >= V + buckets):
        raise ValueError("rows lie outside the words' and the buckets' rows")
    renumbered = np.empty(n, dtype=np.int32)
    place_of = np.full(max(buckets, 1), -1, dtype=np.int32)
    used_rows = np.empty(max(min(n, buckets), 1), dtype=np.int32)
    cdef int32_t[::1] out = renumbered, place = place_of, used = used_rows
    with nogil:
        for k in range(n):
            if r[k] < V:
                out[k] = r[k]
                continue
            b = r[k] - V
            if place[b] < 0:
                place[b] = <int32_t>U
                used[U] = <int32_t>b
                U += 1
            out[k] = <int32_t>(V + place[b])
    pushed_rows = np.empty(max(U, 1), dtype=np.int32)
    cdef int32_t[::1] pushed = pushed_rows
    with nogil:
        for t in range(U):  # rows in the used rows' new places that no word uses
            if place[t] < 0:
                pushed[j] = <int32_t>t
                j += 1
        for t in range(buckets):  # place becomes src: new[t] = old[src[t]]
            place[t] = <int32_t>t
        j = 0
        for k in range(U):
            b = used[k]
            place[k] = <int32_t>b
            if b >= U:  # its old place takes a row pushed out
                place[b] = pushed[j]
                j += 1
    del pushed_rows, used_rows
    return renumbered, row_cycles(place_of[:buckets], 2 * U)


def move_rows(float[:, ::1] matrix not None, cycles, bint forward, unsigned char[::1] moved=None):
    """Moves matrix's rows in place by row_cycles' cycles: forward gives
    new[t] = old[src[t]], otherwise the move is undone. moved: one byte
    saying whether the rows stand moved; nothing happens when it already
    says `forward`, and it is set in the same compiled call as the move, so
    that no Ctrl-C can land between the two."""
    cdef const int32_t[::1] c = np.ascontiguousarray(cycles, dtype=np.int32)
    cdef int64_t n = c.shape[0], rows = matrix.shape[0]
    if moved is not None:
        if moved.shape[0] != 1:
            raise ValueError("moved is one byte")
        if moved[0] == forward:
            return
    if n and (c[0] >= 0 or np.asarray(c).max() >= rows or np.asarray(c).min() < -rows):
        raise ValueError("cycles do not fit the matrix")
    cdef float[::1] scratch = np.empty(max(matrix.shape[1], 1), dtype=np.float32)
    with nogil:
        if n:
            wv_move_rows(&matrix[0, 0], matrix.shape[1], &c[0], n, forward, &scratch[0])
        if moved is not None:
            moved[0] = forward
