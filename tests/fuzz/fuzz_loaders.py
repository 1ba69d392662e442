"""Random files to load_vectors, auto-detected and as each format."""

import sys

import atheris

with atheris.instrument_imports():
    import numpy as np

    from common import with_file
    from wv_engine import load_vectors

FORMATS = ["auto", "word2vec-bin", "word2vec-txt", "glove-txt", "native"]


def test_one(data: bytes) -> None:
    if not data:
        return
    fmt = FORMATS[data[0] % len(FORMATS)]
    errors = ["surrogateescape", "replace", "latin-1"][data[-1] % 3]
    v = with_file(data[1:], lambda p: load_vectors(p, format=fmt, unicode_errors=errors))
    if v is not None:
        assert v.vectors.shape == (len(v), v.dim)
        if len(v):
            v.unit_vectors  # must not raise on whatever values came in
            assert np.isfinite(v.unit_vectors).all() or not np.isfinite(v.vectors).all()


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one)
    atheris.Fuzz()
