"""Word-vector files, as Vectors: the public face of wv_engine.formats (which
knows the formats and works on plain data) and the names users import from
here. `atomic_write` lives in wv_engine.files and is kept here for the
callers that import it from this module."""

from __future__ import annotations

import os

from .errors import FormatError
from .files import atomic_write
from .formats import (FORMATS, NATIVE_MAGIC, NATIVE_VERSION, detect_format, save_glove_text,
                      save_native, save_vectors, save_word2vec)
from .vectors import Vectors

__all__ = [
    "FormatError", "atomic_write", "save_vectors", "save_word2vec", "save_glove_text", "save_native",
    "load_vectors", "detect_format", "NATIVE_MAGIC", "NATIVE_VERSION", "FORMATS",
]


def load_vectors(path: str | os.PathLike, format: str = "auto", unicode_errors: str = "surrogateescape",
                 limit: int | None = None, mmap: bool = False) -> Vectors:
    """Read word vectors from `path` as Vectors; the arguments are those of
    `wv_engine.formats.read_vectors` (format "auto" or one of FORMATS,
    unicode_errors, limit, mmap for the native format). Raises FormatError
    (a ValueError) naming the file and the problem for damaged or hostile files."""
    return Vectors.load(path, format=format, unicode_errors=unicode_errors, limit=limit, mmap=mmap)
