"""A Doc2Vec gensim saved, read without running its code (pickled.py's
restricted reader) and turned into wv_engine's: its settings, vocabulary,
word, document and output vectors, ready to infer with and to train on."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import FormatError
from .pickled import Record, _attr, _damage_named, _tree_of, hs_rows, read, vectors_of

NULL_WORD = "\0"  # gensim's padding word of dm_concat, the last of its vocabulary


def gensim_doc2vec(path: str, record: Record | None = None) -> tuple[Any, dict[str, Any]]:
    """(wv_engine.Doc2Vec, its tags as gensim kept them by their keys in
    the engine) from the Doc2Vec gensim saved at `path`; `record`: the file
    read already."""
    with _damage_named(path, "model"):
        return _gensim_doc2vec(path, read(path) if record is None else record)


def _gensim_doc2vec(path: str, record: Record) -> tuple[Any, dict[str, Any]]:
    from ..doc2vec import Doc2Vec
    from ..doc2vec.settings import layer_size
    from ..vocab import Vocabulary

    if not record.gensim_class.endswith(".Doc2Vec"):
        raise FormatError(path, f"a gensim {record.gensim_class.rsplit('.', 1)[-1]}, not a Doc2Vec")
    words, counts, word_vectors = vectors_of(path, _attr(record, "wv"))
    concat = bool(_attr(record, "dm_concat", default=0)) and not _attr(record, "sg", default=0)
    hs = bool(_attr(record, "hs", default=0))
    if concat and hs:
        raise FormatError(path, "a dm_concat Doc2Vec on hierarchical softmax: its tree holds the null word, "
                                "which ours leaves out; not read")
    if concat:  # our null word is the row after the vocabulary's, outside it
        if not words or words[-1] != NULL_WORD:
            raise FormatError(path, "a dm_concat Doc2Vec whose vocabulary does not end with its null word")
        words, counts = words[:-1], None if counts is None else counts[:-1]
    if counts is None or np.any(np.diff(counts) > 0) or np.any(counts <= 0):
        raise FormatError(path, "the vocabulary's counts are missing or not sorted (sorted_vocab=0)")
    setting = lambda name, default=None: _attr(record, name, default=default)  # noqa: E731
    model = Doc2Vec(arch="dbow" if setting("sg", 0) else "dm", loss="hs" if hs else "ns",
                    dim=word_vectors.shape[1], window=setting("window", 5),
                    negative=0 if hs else setting("negative", 5), min_count=max(1, setting("min_count", 5)),
                    sample=setting("sample", 1e-3), epochs=setting("epochs", 10), alpha=setting("alpha", 0.025),
                    min_alpha=setting("min_alpha", 0.0001), seed=setting("seed", 1),
                    max_vocab_size=setting("max_vocab_size"), max_final_vocab=setting("max_final_vocab"),
                    ns_exponent=setting("ns_exponent", 0.75), dm_mean=bool(setting("cbow_mean", 1)),
                    dm_concat=concat, dm_tag_count=setting("dm_tag_count", 1),
                    dbow_words=bool(setting("dbow_words", 0)) and bool(setting("sg", 0)),
                    shrink_windows=setting("shrink_windows", True))
    vocab = Vocabulary(words, counts, total_tokens=setting("corpus_total_words"))
    tags, doc_vectors = _tags_of(path, _attr(record, "dv", "docvecs"), model.dim)
    output = _attr(record, "syn1" if hs else "syn1neg")
    width = layer_size(model)
    if not isinstance(output, np.ndarray) or output.ndim != 2 or output.shape[1] != width:
        raise FormatError(path, f"a Doc2Vec without its output weights ({'syn1' if hs else 'syn1neg'}, "
                                f"{width} wide)")
    output = np.ascontiguousarray(output[:len(words)], dtype=np.float32)  # dm_concat: the null word's left out
    if hs:
        output = hs_rows(path, _tree_of(_attr(record, "wv"), words), output, vocab)
    elif output.shape[0] != len(words):
        raise FormatError(path, f"syn1neg has {output.shape[0]} rows for {len(words)} words")
    model.vocab, model.tag_keys = vocab, list(tags)
    model.word_vectors, model.output_vectors, model.doc_vectors = word_vectors, output, doc_vectors
    model.epochs_trained = model.epochs if setting("train_count", 0) else 0
    return model, tags


def _tags_of(path: str, dv: Any, dim: int) -> tuple[dict[str, Any], np.ndarray]:
    """({key in the engine (str(tag)): the tag as gensim kept it}, the
    document vectors) of gensim's dv: plain int tags are their rows, other
    tags follow them."""
    if dv is None:
        raise FormatError(path, "a Doc2Vec without its document vectors (dv)")
    matrix = _attr(dv, "vectors", "vectors_docs")
    keys = _attr(dv, "index_to_key", "offset2doctag")
    if not isinstance(matrix, np.ndarray) or matrix.ndim != 2 or matrix.shape[1] != dim:
        raise FormatError(path, f"the document vectors are not a matrix of {dim} columns")
    if not isinstance(keys, list) or len(keys) != matrix.shape[0]:
        raise FormatError(path, f"{len(keys) if isinstance(keys, list) else 'no'} tags for {matrix.shape[0]} "
                                "document vectors (gensim before 4 kept int tags apart: save it again with gensim 4)")
    tags: dict[str, Any] = {}
    for tag in keys:
        if not isinstance(tag, (str, int)) or isinstance(tag, bool):
            raise FormatError(path, f"a tag of type {type(tag).__name__}")
        if str(tag) in tags:
            raise FormatError(path, f"the tags {tags[str(tag)]!r} and {tag!r} read the same here (str(tag))")
        tags[str(tag)] = tag
    return tags, np.ascontiguousarray(matrix, dtype=np.float32)
