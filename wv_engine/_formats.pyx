# cython: language_level=3, boundscheck=False, wraparound=False
"""The one loop of wv_engine.formats that numpy cannot do without large
temporaries: word2vec binary rows, "word<space><floats><newline>", where
every row's floats start at a different offset."""

from libc.stdint cimport int64_t, uint8_t
from libc.string cimport memcpy
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize


def binary_rows(const uint8_t[::1] blob, const int64_t[::1] offsets, const uint8_t[:, ::1] floats,
                int64_t start):
    """The rows of words start..start+len(floats): word i's bytes are
    blob[offsets[i]:offsets[i + 1]], its vector's bytes floats[i - start]."""
    cdef int64_t count = floats.shape[0], width = floats.shape[1], i, n
    if start < 0 or start + count + 1 > offsets.shape[0]:
        raise ValueError("rows past the end of the words")
    if count and (offsets[start] < 0 or offsets[start + count] > blob.shape[0]):
        raise ValueError("word offsets past the end of the blob")
    for i in range(start, start + count):
        if offsets[i + 1] < offsets[i]:
            raise ValueError("word offsets must not decrease")
    cdef int64_t size = offsets[start + count] - offsets[start] + count * (width + 2)
    out = PyBytes_FromStringAndSize(NULL, size)
    cdef char *dst = PyBytes_AS_STRING(out)
    cdef const uint8_t *words = &blob[0] if blob.shape[0] else NULL
    with nogil:
        for i in range(count):
            n = offsets[start + i + 1] - offsets[start + i]
            if n:
                memcpy(dst, words + offsets[start + i], n)
            dst[n] = 32
            if width:
                memcpy(dst + n + 1, &floats[i, 0], width)
            dst[n + 1 + width] = 10
            dst += n + width + 2
    return out
