# cython: language_level=3, boundscheck=False, wraparound=False
"""The loops of wv_engine.formats that numpy cannot do without large
temporaries: word2vec binary rows, "word<space><floats><newline>", where
every row's floats start at a different offset, and text rows of "%f"
values."""

from libc.stdint cimport int64_t, uint8_t
from libc.stdio cimport snprintf
from libc.string cimport memcpy
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize


cdef check_rows(const uint8_t[::1] blob, const int64_t[::1] offsets, int64_t start, int64_t count):
    """Words start..start+count lie within offsets, and their bytes within blob."""
    cdef int64_t i
    if start < 0 or start + count + 1 > offsets.shape[0]:
        raise ValueError("rows past the end of the words")
    if count and (offsets[start] < 0 or offsets[start + count] > blob.shape[0]):
        raise ValueError("word offsets past the end of the blob")
    for i in range(start, start + count):
        if offsets[i + 1] < offsets[i]:
            raise ValueError("word offsets must not decrease")


cdef inline char *put_word(char *dst, const uint8_t *words, const int64_t[::1] offsets, int64_t i) noexcept nogil:
    """Copies word i's bytes to dst; returns the end."""
    cdef int64_t n = offsets[i + 1] - offsets[i]
    if n:
        memcpy(dst, words + offsets[i], n)
    return dst + n


def binary_rows(const uint8_t[::1] blob, const int64_t[::1] offsets, const uint8_t[:, ::1] floats,
                int64_t start):
    """The rows of words start..start+len(floats): word i's bytes are
    blob[offsets[i]:offsets[i + 1]], its vector's bytes floats[i - start]."""
    cdef int64_t count = floats.shape[0], width = floats.shape[1], i
    check_rows(blob, offsets, start, count)
    cdef int64_t size = offsets[start + count] - offsets[start] + count * (width + 2)
    out = PyBytes_FromStringAndSize(NULL, size)
    cdef char *dst = PyBytes_AS_STRING(out)
    cdef const uint8_t *words = &blob[0] if blob.shape[0] else NULL
    with nogil:
        for i in range(count):
            dst = put_word(dst, words, offsets, start + i)
            dst[0] = 32
            if width:
                memcpy(dst + 1, &floats[i, 0], width)
            dst[1 + width] = 10
            dst += width + 2
    return out


cdef extern from "math.h" nogil:
    double rint(double x)
    double fabs(double x)
    int signbit(double x)
    int isfinite(double x)
    int isnan(double x)

cdef extern from "stdio.h" nogil:
    int snprintf(char *buf, size_t size, const char *fmt, ...)


# Below this, x * 1e6 of a float32 x is an exact integer in a double.
cdef double FIXED6_LIMIT = 4503599627370496.0  # 2 ** 52
# The widest "%f" of a float32: sign, 39 integer digits, point, 6 decimals.
FIXED6_MOST = 47


cdef inline int fixed6_size(float value) noexcept nogil:
    """The length of fixed6(value)."""
    cdef double x = <double>value
    cdef char tmp[64]
    if isnan(x):
        return 3
    if not (isfinite(x) and fabs(x) * 1e6 < FIXED6_LIMIT):
        return snprintf(tmp, sizeof(tmp), "%f", x)
    cdef unsigned long long ip = <unsigned long long>rint(fabs(x) * 1e6) // 1000000
    cdef int n = 8 if signbit(x) else 7  # the point, 6 decimals, a sign
    while True:
        n += 1
        ip //= 10
        if ip == 0:
            return n


cdef inline char *fixed6(char *dst, float value) noexcept nogil:
    """Writes "%f" of value as Python prints it at dst (C's for a number:
    promoted to double, the exact binary value rounded to 6 decimals, half
    to even, as rint rounds; "nan" without a sign); returns the end."""
    cdef double x = <double>value
    cdef char tmp[64]
    cdef int n = 0, j
    if isnan(x):
        memcpy(dst, b"nan", 3)
        return dst + 3
    if not (isfinite(x) and fabs(x) * 1e6 < FIXED6_LIMIT):
        n = snprintf(tmp, sizeof(tmp), "%f", x)
        memcpy(dst, tmp, n)
        return dst + n
    cdef unsigned long long v = <unsigned long long>rint(fabs(x) * 1e6)
    cdef unsigned long long ip = v // 1000000, frac = v % 1000000
    if signbit(x):
        dst[0] = 45  # "-", as printf writes it for -0.0 and for what rounds to 0 from below
        dst += 1
    while True:
        tmp[n] = <char>(48 + ip % 10)
        n += 1
        ip //= 10
        if ip == 0:
            break
    for j in range(n):
        dst[j] = tmp[n - 1 - j]
    dst += n
    dst[0] = 46  # "."
    for j in range(6, 0, -1):
        dst[j] = <char>(48 + frac % 10)
        frac //= 10
    return dst + 7


def text_rows(const uint8_t[::1] blob, const int64_t[::1] offsets, const float[:, ::1] values, int64_t start,
              bint trailing_space):
    """The text rows of words start..start+len(values), each value as
    Python's "%f": word2vec.c's "word v1 ... vD \\n" (trailing_space) or
    glove.c's "word v1 ... vD\\n". The bytes are sized exactly first, so
    the only scratch is the result."""
    cdef int64_t count = values.shape[0], dim = values.shape[1], i, k
    check_rows(blob, offsets, start, count)
    cdef int64_t size = offsets[start + count] - offsets[start] + count * (dim + 1 + trailing_space)
    with nogil:
        for i in range(count):
            for k in range(dim):
                size += fixed6_size(values[i, k])
    out = PyBytes_FromStringAndSize(NULL, size)
    cdef char *dst = PyBytes_AS_STRING(out)
    cdef const uint8_t *words = &blob[0] if blob.shape[0] else NULL
    with nogil:
        for i in range(count):
            dst = put_word(dst, words, offsets, start + i)
            if trailing_space:
                dst[0] = 32
                dst += 1
            for k in range(dim):
                if not trailing_space:
                    dst[0] = 32
                    dst += 1
                dst = fixed6(dst, values[i, k])
                if trailing_space:
                    dst[0] = 32
                    dst += 1
            dst[0] = 10
            dst += 1
    return out


def text_rows_g(const uint8_t[::1] blob, const int64_t[::1] offsets, const float[:, ::1] values, int64_t start,
                int digits):
    """text_rows' word2vec layout ("word v1 ... vD \\n") with each value as
    C's "%.<digits>g" of the float promoted to double: what a C++ stream
    prints at setprecision(digits) (fastText's .vec: 5)."""
    if not 1 <= digits <= 9:
        raise ValueError("digits must be in [1, 9]")
    cdef int64_t count = values.shape[0], dim = values.shape[1], i, k
    check_rows(blob, offsets, start, count)
    # the longest value: sign, digits, point, "e-XXX"
    cdef int64_t most = offsets[start + count] - offsets[start] + count * (2 + dim * (digits + 8))
    out = PyBytes_FromStringAndSize(NULL, most)
    cdef char *base = PyBytes_AS_STRING(out)
    cdef char *dst = base
    cdef const uint8_t *words = &blob[0] if blob.shape[0] else NULL
    with nogil:
        for i in range(count):
            dst = put_word(dst, words, offsets, start + i)
            dst[0] = 32
            dst += 1
            for k in range(dim):
                dst += snprintf(dst, digits + 8, "%.*g", digits, <double>values[i, k])
                dst[0] = 32
                dst += 1
            dst[0] = 10
            dst += 1
    return out[:dst - base]
