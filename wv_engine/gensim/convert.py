"""`wv-engine convert`: a model or vectors gensim saved, written as ours."""

from __future__ import annotations

import os

from ..vectors import Vectors
from . import pickled
from .word2vec import Word2Vec


def convert(path: str | os.PathLike, output: str | os.PathLike, format: str | None = None,
            record: pickled.Record | None = None) -> str:
    """Writes what gensim saved at `path` as ours: a Word2Vec as our whole
    training state (Word2Vec.save: wv_engine.Word2Vec.load reads it), or with a
    vectors `format` ("native", "word2vec-bin", ...) only its vectors, as a
    KeyedVectors always is. Returns what it wrote, in words. `record`: the
    file read already (pickled.read)."""
    path = os.fspath(path)
    record = record or pickled.read(path)
    is_model = record.gensim_class.endswith(".Word2Vec")
    if is_model and format is None:
        model = pickled.gensim_word2vec(Word2Vec, path, record).engine  # the file is read once
        model.save(output)
        return (f"the {model.arch}-{model.loss} model ({len(model.vocab):,} words, dim {model.dim}) to {output}: "
                "wv_engine.Word2Vec.load(path) reads it, and .train(corpus, epochs=N) trains it on")
    words, counts, matrix = pickled.read_vectors(path, record)
    Vectors(words, matrix, counts=counts).save(output, format=format or "native")
    return f"{len(words):,} vectors of dim {matrix.shape[1]} to {output}"
