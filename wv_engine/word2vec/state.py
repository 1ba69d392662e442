"""The whole training state of a Word2Vec in one file (Word2Vec.save /
load): a native vectors file (the input matrix, the words and counts) whose
metadata carries the settings, the history and where the learning-rate
schedule of the train() call in progress stands, with the output matrix as
an extra section. Every number is checked on load before anything uses it."""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from .. import file_checks, formats
from ..epochs import EpochStats
from ..errors import FormatError, NotAModelError
from ..settings import C_INT_MAX, INT64_MAX
from ..vocab import Vocabulary

MODEL_FORMAT = "wv_engine.word2vec"  # the metadata's "trainer" of a saved Word2Vec
MODEL_VERSION = 1
_NOT_A_MODEL = "not a saved Word2Vec model (vectors only? load them with load_vectors)"

# Where an epoch stands at its start: the claims of chunks done (and the
# regions they were taken from), the words done in the schedule when it
# paused, and the loss and examples of its part already trained.
EPOCH_START = {"claim": 0, "regions": 0, "words_done": 0, "loss_sum": 0.0, "examples": 0}

# The numbers of a saved state and their ranges (name: (low, high)), checked
# on load before anything uses them: __init__ checks the settings' lower
# bounds, not that the C ints the cores take hold them, nor what it never
# sees (the history, the schedule, the vocabulary's totals).
_CONFIG_INTS = {"dim": (1, C_INT_MAX), "window": (1, C_INT_MAX), "negative": (0, C_INT_MAX),
                "min_count": (1, INT64_MAX), "epochs": (1, C_INT_MAX), "threads": (1, C_INT_MAX),
                "seed": (0, 2**64 - 1), "max_sentence_length": (1, C_INT_MAX), "hot_rows": (0, C_INT_MAX),
                "max_vocab_size": (1, INT64_MAX), "max_final_vocab": (1, INT64_MAX), "regions": (1, INT64_MAX)}
_CONFIG_FLOATS = {"sample": (0, 1), "alpha": (0, 10), "min_alpha": (0, 10), "ns_exponent": (-math.inf, math.inf),
                  "init_range": (0, math.inf)}
_CONFIG_NULLABLE = ("max_vocab_size", "max_final_vocab", "regions")
_STATE_INTS = {"epochs_trained": (0, C_INT_MAX), "total_tokens": (0, INT64_MAX), "distinct_words": (0, INT64_MAX)}
_HISTORY_INTS = {"epoch": (0, C_INT_MAX), "examples": (0, INT64_MAX), "words": (0, INT64_MAX)}
_HISTORY_FLOATS = {"loss": (0, math.inf), "seconds": (0, math.inf), "alpha": (0, math.inf)}
_SCHEDULE_INTS = {"epochs": (1, C_INT_MAX), "epochs_done": (0, C_INT_MAX), "corpus_words": (0, INT64_MAX),
                  "claim": (0, INT64_MAX), "regions": (0, INT64_MAX), "words_done": (0, INT64_MAX),
                  "examples": (0, INT64_MAX)}
_SCHEDULE_FLOATS = {"alpha": (0, 10), "min_alpha": (0, 10), "loss_sum": (0, math.inf)}


def _checked_config(path: str | os.PathLike, config: dict) -> dict:
    """A saved model's settings with their numbers checked (FormatError naming the field)."""
    return file_checks.checked_fields(path, "config", config, _CONFIG_INTS, _CONFIG_FLOATS, _CONFIG_NULLABLE)


def _check_state_numbers(path: str | os.PathLike, state: dict) -> None:
    """The numbers of a saved model's state beyond its settings, checked
    (FormatError naming the field); absent ones are load's KeyError."""
    file_checks.checked_fields(path, "state", state, _STATE_INTS)
    file_checks.checked_entries(path, "history", state.get("history"), _HISTORY_INTS, _HISTORY_FLOATS)
    schedule = state.get("schedule")
    if schedule is not None:
        if not isinstance(schedule, dict):
            raise FormatError(path, "damaged Word2Vec state: its schedule is not a JSON object")
        file_checks.checked_fields(path, "schedule", schedule, _SCHEDULE_INTS, _SCHEDULE_FLOATS)
        corpus = schedule.get("corpus")
        if isinstance(corpus, dict):
            file_checks.checked_fields(path, "schedule corpus", corpus, {"size": (0, INT64_MAX)})


def plan_schedule(saved: dict | None, epochs: int | None, encoded: Any, settings: Any) -> dict:
    """The learning-rate schedule of a train() call on `encoded` (an
    EncodedCorpus): a new one over `epochs` epochs (None: the settings'),
    from the settings' alpha, min_alpha and schedule; or, epochs None, the
    rest of `saved`, the one a saved model was in the middle of, when this
    is the corpus it was made for (the same number of words, and the same
    file when both are files)."""
    if epochs is None and saved is not None and saved["epochs_done"] < saved["epochs"]:
        schedule = dict(saved)
        stopped = f"this model stopped after epoch {schedule['epochs_done']} of {schedule['epochs']}"
        before, now = schedule.get("corpus"), encoded.source
        if before is not None and now is not None and before != now:
            raise ValueError(f"{stopped} on another corpus file (size {before['size']:,} bytes, this one "
                             f"{now['size']:,}, or different contents): pass the same corpus to finish "
                             "that schedule, or epochs=N to start a new one")
        if schedule["corpus_words"] != encoded.words:
            raise ValueError(
                f"{stopped} on a corpus of {schedule['corpus_words']:,} words, but this corpus has "
                f"{encoded.words:,}: pass the same corpus to finish that schedule, or epochs=N to start "
                "a new one")
        return schedule
    return {"epochs": settings.epochs if epochs is None else int(epochs), "epochs_done": 0,
            "corpus_words": encoded.words, "corpus": encoded.source, "alpha": settings.alpha,
            "min_alpha": settings.min_alpha, "linear_decay": settings.schedule != "word2vec", **EPOCH_START}


TREE_SECTIONS = ("hs_code_length", "hs_codes", "hs_points")  # the sections of a Huffman tree given (vocab.tree)


def checked_tree(path: str | os.PathLike, tree: tuple, words: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A Huffman tree read from a file, as the C core takes it: each word's
    code length in 1..MAX_CODE_LENGTH, codes of 0 and 1, points naming inner
    nodes 0..words-2 (FormatError otherwise)."""
    from .. import _word2vec

    most = _word2vec.MAX_CODE_LENGTH
    try:
        lengths = np.ascontiguousarray(tree[0], dtype=np.uint8)
        codes = np.ascontiguousarray(tree[1], dtype=np.uint8).reshape(words, most)
        points = np.ascontiguousarray(tree[2], dtype=np.int32).reshape(words, most)
    except (ValueError, TypeError, OverflowError) as exc:
        raise FormatError(path, f"damaged Huffman tree: {exc}") from None
    used = np.arange(most)[None, :] < lengths[:, None]
    if (lengths.shape != (words,) or (words > 1 and lengths.min() < 1) or lengths.max(initial=0) > most
            or np.any(codes[used] > 1) or np.any(points[used] < 0) or np.any(points[used] > max(words - 2, 0))):
        raise FormatError(path, "damaged Huffman tree: code lengths, codes or inner nodes out of range")
    return lengths, codes, points


def save_model(model: Any, path: str | os.PathLike, extra: dict | None = None) -> None:
    """Writes `model` (a Word2Vec with a vocabulary) to `path` atomically."""
    state = {"format": getattr(model, "state_format", MODEL_FORMAT), "version": MODEL_VERSION,
             "config": model.config(),
             "epochs_trained": model.epochs_trained, "history": [e.__dict__ for e in model.history],
             "schedule": model.schedule_state, "total_tokens": model.vocab.total_tokens,
             "distinct_words": model.vocab.distinct_words, "hs_tree": model.vocab.tree is not None,
             # vectors made from more rows than one a word (FastText's): the rows kept beside them
             "input_section": model.vectors.vectors is not model.input_vectors}
    metadata = {**model.metadata(), "word2vec_state": state}
    if extra is not None:
        metadata["extra"] = extra
    sections = {"output_vectors": model.output_vectors}
    if state["input_section"]:
        sections["input_vectors"] = model.input_vectors
    if model.vocab.tree is not None:  # a tree given (read from gensim): kept, since the output rows follow it
        sections.update(zip(TREE_SECTIONS, model.vocab.tree))
    formats.save_native(model.vectors, path, metadata=metadata,  # the one Vectors view: no second index
                        sections=sections)


def saved_config(path: str | os.PathLike) -> dict:
    """The settings of a saved model, reading only the file's header."""
    state = formats.read_native_metadata(path).get("word2vec_state")
    if not isinstance(state, dict) or not isinstance(state.get("config"), dict):
        raise NotAModelError(path, _NOT_A_MODEL)
    return dict(_checked_config(path, state["config"]))


def load_model(cls: Any, path: str | os.PathLike, **overrides) -> Any:
    """A `cls` (Word2Vec) from a saved state, settings changed by overrides."""
    words, matrix, counts, metadata = formats.read_vectors(path, format="native")
    state = (metadata or {}).get("word2vec_state")
    if not isinstance(state, dict) or state.get("format") != getattr(cls, "state_format", MODEL_FORMAT):
        raise NotAModelError(path, _NOT_A_MODEL)
    if state.get("version") != MODEL_VERSION:
        raise FormatError(path, f"Word2Vec state version {state.get('version')!r} is not supported "
                                f"(this wv_engine reads version {MODEL_VERSION})")
    if counts is None:
        raise FormatError(path, "the saved model has no word counts")
    if not isinstance(state.get("config"), dict):
        raise FormatError(path, "damaged Word2Vec state: its config is not a JSON object")
    _checked_config(path, state["config"])
    _check_state_numbers(path, state)
    output = formats.read_native_section(path, "output_vectors")
    if state.get("input_section"):
        matrix = formats.read_native_section(path, "input_vectors")
    tree = tuple(formats.read_native_section(path, name) for name in TREE_SECTIONS) if state.get("hs_tree") else None
    try:
        # saved before schedule and init_range existed: word2vec.c's, the only ones then
        config = {"schedule": "word2vec", "init_range": 0.5, **state["config"], **overrides}
        vocab = Vocabulary(words, counts, total_tokens=state["total_tokens"],
                           distinct_words=state["distinct_words"])
        vocab.tree = None if tree is None else checked_tree(path, tree, len(words))
        # read into fresh arrays already: no second copy of a model-sized matrix
        if config.get("loss") == "hs" and len(output) == len(words) - 1:  # saved before HS had V rows
            output = np.concatenate([output, np.zeros((1, output.shape[1]), np.float32)])
        model = cls.from_weights(config, vocab, _owned_float32(matrix), _owned_float32(output),
                                 state["epochs_trained"])
        model.history = [EpochStats(**e) for e in state["history"]]
        model._schedule = _loaded_schedule(state["schedule"])
        model.saved_extra = metadata.get("extra")
    except (KeyError, TypeError, ValueError) as exc:
        raise FormatError(path, f"damaged Word2Vec state: {exc}") from None
    return model


def _loaded_schedule(saved: dict | None) -> dict | None:
    """A saved schedule with the fields older versions lacked filled in."""
    if saved is None:
        return None
    schedule = {**{k: saved[k] for k in ("epochs", "epochs_done", "corpus_words", "alpha", "min_alpha")},
                # saved before the flag existed: word2vec.c's schedule, the only one then
                "linear_decay": bool(saved.get("linear_decay", False)),
                **{k: type(v)(saved.get(k, v)) for k, v in EPOCH_START.items()}}
    corpus = saved.get("corpus")
    schedule["corpus"] = None if corpus is None else {k: corpus[k] for k in ("size", "head_sha256", "tail_sha256")}
    return schedule


def _owned_float32(a: np.ndarray) -> np.ndarray:
    """a as a writable C-contiguous float32 array, copied only if it is not one."""
    if a.dtype == np.float32 and a.flags.c_contiguous and a.flags.writeable and not isinstance(a, np.memmap):
        return a
    return np.array(a, dtype=np.float32, order="C")
