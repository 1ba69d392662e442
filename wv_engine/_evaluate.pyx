# cython: language_level=3, boundscheck=False, wraparound=False
"""Binding of csrc/analogy.c: the answers to analogy questions from their
words' cosine rows (wv_engine.evaluate)."""

from libc.stdint cimport int32_t, int64_t

import numpy as np

include "_status.pxi"

cdef extern from "analogy.h":
    int WV_3COSADD
    int WV_3COSMUL
    wv_status wv_analogy_best(const float *gram, int64_t n, const int32_t *abc, const int32_t *excluded,
                              int n_excluded, int64_t k, int method, int n_threads, int32_t *best) nogil


def analogy_best(const float[:, ::1] gram not None, const int32_t[:, ::1] abc not None,
                 const int32_t[:, ::1] excluded not None, str method, int threads):
    """For each question (a row of abc: three rows of gram), the candidate
    (column of gram) that answers it by 3CosAdd or 3CosMul, its `excluded`
    candidates (-1 pads) left out; -1 where none is left. Rows and
    candidates are checked here."""
    cdef int64_t k = abc.shape[0], n = gram.shape[1]
    if abc.shape[1] != 3 or excluded.shape[0] != k:
        raise ValueError("abc must be (k, 3) and excluded (k, e)")
    a, e = np.asarray(abc), np.asarray(excluded)
    if k and (a.min() < 0 or a.max() >= gram.shape[0]):
        raise ValueError("a question word's row is outside gram")
    if e.size and (e.min() < -1 or e.max() >= n):
        raise ValueError("an excluded candidate is outside gram")
    if method not in ("3cosadd", "3cosmul"):
        raise ValueError(f"unknown method {method!r}")
    best = np.empty(k, dtype=np.int32)
    cdef int32_t[::1] out = best
    cdef int m = WV_3COSADD if method == "3cosadd" else WV_3COSMUL
    cdef int n_excluded = excluded.shape[1]
    cdef wv_status rc
    if k == 0 or n == 0:
        best[:] = -1
        return best
    with nogil:
        rc = wv_analogy_best(&gram[0, 0], n, &abc[0, 0], &excluded[0, 0] if n_excluded else NULL, n_excluded,
                             k, m, threads, &out[0])
    raise_for(rc, "answering analogy questions")
    return best
