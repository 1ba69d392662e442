"""A Doc2Vec's whole state in one native file (Doc2Vec.save / load): the
document vectors as the file's vectors, named by tag (so load_vectors reads
them), and in sections beside them the word and output vectors and the
vocabulary (its words as a blob and offsets, its counts); the settings, the
history and the vocabulary's totals in the metadata. Every number read back
is checked (file_checks) before it is used."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .. import file_checks, formats
from ..epochs import EpochStats
from ..errors import FormatError, NotAModelError
from ..settings import C_INT_MAX, INT64_MAX
from ..vocab import Vocabulary
from ..word2vec.state import TREE_SECTIONS, checked_tree

MODEL_FORMAT = "wv_engine.doc2vec"
MODEL_VERSION = 1
_SECTIONS = ("word_vectors", "output_vectors", "vocab_offsets", "vocab_blob", "vocab_counts")
_STATE_INTS = {"epochs_trained": (0, C_INT_MAX), "total_tokens": (0, INT64_MAX), "distinct_words": (0, INT64_MAX)}
_HISTORY_INTS = {"epoch": (0, C_INT_MAX), "examples": (0, INT64_MAX), "words": (0, INT64_MAX)}
_HISTORY_FLOATS = {"loss": (0, float("inf")), "seconds": (0, float("inf")), "alpha": (0, float("inf"))}


def save_model(model: Any, path: str | os.PathLike, extra: dict | None = None) -> None:
    """Writes `model` (a Doc2Vec with a vocabulary) to `path` atomically;
    `extra`, a JSON-serialisable dict, with it (load gives it back as the
    model's saved_extra)."""
    vocab = model.vocab
    raw = [w.encode("utf-8", "surrogateescape") for w in vocab.words]
    offsets = np.zeros(len(raw) + 1, dtype=np.uint64)
    np.cumsum([len(w) for w in raw], out=offsets[1:])
    state = {"format": MODEL_FORMAT, "version": MODEL_VERSION, "config": model.config(),
             "epochs_trained": model.epochs_trained, "history": [e.__dict__ for e in model.history],
             "total_tokens": vocab.total_tokens, "distinct_words": vocab.distinct_words,
             "schedule": model._schedule, "hs_tree": vocab.tree is not None}
    sections = {"word_vectors": model.word_vectors, "output_vectors": model.output_vectors,
                "vocab_offsets": offsets, "vocab_blob": np.frombuffer(b"".join(raw), dtype=np.uint8),
                "vocab_counts": np.asarray(vocab.counts, dtype=np.int64)}
    if vocab.tree is not None:  # a tree given (read from gensim): kept, since the output rows follow it
        sections.update(zip(TREE_SECTIONS, vocab.tree))
    metadata = {**model.metadata(), "doc2vec_state": state}
    if extra is not None:
        metadata["extra"] = extra
    formats.save_native(model.dv, path, metadata=metadata, sections=sections)


def saved_config(path: str | os.PathLike) -> dict:
    """The settings of a saved model, reading only the file's header."""
    state = formats.read_native_metadata(path).get("doc2vec_state")
    if not isinstance(state, dict) or not isinstance(state.get("config"), dict):
        raise NotAModelError(path, "not a saved Doc2Vec model (vectors only? load them with load_vectors)")
    return dict(state["config"])


def load_model(cls: Any, path: str | os.PathLike, **overrides: Any) -> Any:
    """A `cls` (Doc2Vec) from a saved state, settings changed by overrides."""
    keys, doc_vectors, _, metadata = formats.read_vectors(path, format="native")
    state = (metadata or {}).get("doc2vec_state")
    if not isinstance(state, dict) or state.get("format") != MODEL_FORMAT:
        raise NotAModelError(path, "not a saved Doc2Vec model (vectors only? load them with load_vectors)")
    if state.get("version") != MODEL_VERSION:
        raise FormatError(path, f"Doc2Vec state version {state.get('version')!r} is not supported "
                                f"(this wv_engine reads version {MODEL_VERSION})")
    file_checks.checked_fields(path, "state", state, _STATE_INTS)
    file_checks.checked_entries(path, "history", state.get("history"), _HISTORY_INTS, _HISTORY_FLOATS)
    if not isinstance(state.get("config"), dict):
        raise FormatError(path, "damaged Doc2Vec state: its config is not a JSON object")
    parts = {name: formats.read_native_section(path, name) for name in _SECTIONS}
    tree = tuple(formats.read_native_section(path, name) for name in TREE_SECTIONS) if state.get("hs_tree") else None
    try:
        model = cls(**{**state["config"], **overrides})
        words = _words(path, parts["vocab_offsets"], parts["vocab_blob"])
        counts = np.asarray(parts["vocab_counts"], dtype=np.int64)
        vocab = Vocabulary(words, counts, total_tokens=state["total_tokens"], distinct_words=state["distinct_words"])
        vocab.tree = None if tree is None else checked_tree(path, tree, len(words))
        extra = 1 if model.dm_concat and model.arch == "dm" else 0
        _check_shape(path, "word_vectors", parts["word_vectors"], (len(words) + extra, model.dim))
        _check_shape(path, "output_vectors", parts["output_vectors"], (len(words), _layer(model)))
        _check_shape(path, "vectors", doc_vectors, (len(keys), model.dim))
        model.vocab, model.tag_keys = vocab, list(keys)
        model.word_vectors = np.array(parts["word_vectors"], dtype=np.float32, order="C")
        model.output_vectors = np.array(parts["output_vectors"], dtype=np.float32, order="C")
        model.doc_vectors = np.array(doc_vectors, dtype=np.float32, order="C")
        model.epochs_trained = state["epochs_trained"]
        model.history = [EpochStats(**e) for e in state["history"]]
        model.saved_extra = metadata.get("extra")
        schedule = state.get("schedule")
        if schedule is not None:
            if not isinstance(schedule, dict):
                raise FormatError(path, "damaged Doc2Vec state: its schedule is not a JSON object")
            file_checks.checked_fields(path, "schedule", schedule, {"epochs": (1, C_INT_MAX),
                                                                    "epochs_done": (0, C_INT_MAX)})
            if schedule["epochs_done"] > schedule["epochs"]:
                raise FormatError(path, "damaged Doc2Vec state: more epochs done than its schedule has")
            model._schedule = {"epochs": schedule["epochs"], "epochs_done": schedule["epochs_done"]}
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, FormatError):
            raise
        raise FormatError(path, f"damaged Doc2Vec state: {exc}") from None
    return model


def _layer(model: Any) -> int:
    from .settings import layer_size

    return layer_size(model)


def _check_shape(path: Any, name: str, a: np.ndarray, shape: tuple[int, int]) -> None:
    if a.shape != shape:
        raise FormatError(path, f"damaged Doc2Vec state: {name} is {a.shape}, the model needs {shape}")


def _words(path: Any, offsets: np.ndarray, blob: np.ndarray) -> list[str]:
    """The vocabulary's words from their blob and offsets, checked."""
    o = np.asarray(offsets, dtype=np.uint64)
    if len(o) < 2 or o[0] != 0 or o[-1] != len(blob) or np.any(np.diff(o.astype(np.int64)) < 1):
        raise FormatError(path, "damaged Doc2Vec state: the vocabulary's offsets do not cut its blob")
    data = bytes(np.asarray(blob, dtype=np.uint8))
    return [data[o[i]:o[i + 1]].decode("utf-8", "surrogateescape") for i in range(len(o) - 1)]
