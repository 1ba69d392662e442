"""A GloVe model's checkpoint (GloVe.save_checkpoint / load_checkpoint):
parameters, AdaGrad accumulators, vocabulary and settings in one .npz (no
pickle), written atomically; every number is checked on load before
anything uses it."""

from __future__ import annotations

import json
import math
import os
from typing import Any

import numpy as np

from .. import _glove, file_checks
from ..errors import FormatError
from ..files import atomic_write, check_input
from ..settings import C_INT_MAX, INT64_MAX
from ..vocab import Vocabulary

CHECKPOINT_VERSION = 1

# The numbers of a checkpoint's metadata and their ranges (name: (low, high)),
# checked on load before anything uses them: __init__ checks the settings'
# lower bounds, not that the C ints the cores take hold them.
_CONFIG_INTS = {"dim": (1, C_INT_MAX), "window": (1, C_INT_MAX), "epochs": (1, C_INT_MAX),
                "min_count": (1, INT64_MAX), "threads": (1, C_INT_MAX), "seed": (0, INT64_MAX),
                "memory_limit": (1, file_checks.MAX_FILE_INT), "max_vocab_size": (1, INT64_MAX),
                "grid": (0, _glove.MAX_BANDS), "grid_rounds": (1, _glove.MAX_ROUNDS)}
_CONFIG_FLOATS = {"x_max": (0, math.inf), "alpha": (0, math.inf), "eta": (0, math.inf)}
_HISTORY_INTS = {"epoch": (0, C_INT_MAX), "records": (0, INT64_MAX)}
_HISTORY_FLOATS = {"cost": (0, math.inf), "seconds": (0, math.inf)}
_PARAMS = ("word", "context", "word_bias", "context_bias", "word_gradsq", "context_gradsq", "word_bias_gradsq",
           "context_bias_gradsq")


def save_checkpoint(model: Any, path: str | os.PathLike) -> None:
    """Writes `model` (a GloVe with parameters) to `path` atomically."""
    # a limit not given stays not given: the resumed run takes its default on its own machine
    config = {**model.config(), **({} if model._limit_given else {"memory_limit": None})}
    meta = {"version": CHECKPOINT_VERSION, "config": config, "epochs_trained": model.epochs_trained,
            "history": [e.__dict__ for e in model.history]}
    words = [w.encode("utf-8", "surrogateescape") for w in model.vocab.words]
    if any(b"\n" in w for w in words):
        raise ValueError("a vocabulary word contains a newline; it cannot be checkpointed")
    blob = b"\n".join(words)
    with atomic_write(path, "wb") as f:
        np.savez(f, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
                 words=np.frombuffer(blob, dtype=np.uint8), counts=model.vocab.counts, **model.params)


def _opened(path: str | os.PathLike) -> Any:
    check_input(path, "GloVe checkpoint")
    try:
        return np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise FormatError(path, f"not a GloVe checkpoint ({exc})") from None


def _checked_meta(path: str | os.PathLike, z: Any, settings: set[str]) -> dict:
    """The checkpoint's metadata, its version, settings (of the names in
    `settings`) and numbers checked."""
    meta = file_checks.parse_json(z["meta"].tobytes().decode())
    if not isinstance(meta, dict):
        raise ValueError("its metadata is not a JSON object")
    if meta.get("version") != CHECKPOINT_VERSION:
        raise FormatError(path, f"unknown checkpoint version {meta.get('version')!r}")
    config = meta["config"]
    if not isinstance(config, dict):
        raise ValueError("its settings are not a JSON object")
    unknown = sorted(set(config) - settings)
    if unknown:
        raise ValueError(f"unknown settings {', '.join(map(repr, unknown))}")
    file_checks.checked_fields(path, "config", config, _CONFIG_INTS, _CONFIG_FLOATS,
                           ("memory_limit", "max_vocab_size", "grid", "grid_rounds"))
    file_checks.checked_fields(path, "checkpoint", meta, {"epochs_trained": (0, C_INT_MAX)})
    file_checks.checked_entries(path, "history", meta["history"], _HISTORY_INTS, _HISTORY_FLOATS)
    return meta


def _damaged(path: str | os.PathLike, exc: Exception) -> FormatError:
    what = f"missing {exc}" if isinstance(exc, KeyError) else str(exc)
    return FormatError(path, f"damaged GloVe checkpoint: {what}")


def saved_config(cls: Any, path: str | os.PathLike) -> dict:
    """The settings of a checkpoint, reading its metadata only."""
    with _opened(path) as z:
        try:
            return dict(_checked_meta(path, z, set(cls().config()))["config"])
        except FormatError:
            raise
        except (KeyError, TypeError, ValueError, UnicodeDecodeError, OSError) as exc:
            raise _damaged(path, exc) from None


def load_checkpoint(cls: Any, path: str | os.PathLike, epoch: Any, **overrides) -> Any:
    """A `cls` (GloVe) from a checkpoint, settings changed by overrides,
    its history made of `epoch` (GloVeEpoch) records."""
    with _opened(path) as z:
        try:
            meta = _checked_meta(path, z, set(cls().config()))
            words = [w.decode("utf-8", "surrogateescape") for w in z["words"].tobytes().split(b"\n")]
            counts = z["counts"]
            if counts.dtype.kind not in "iu":
                raise ValueError(f"its word counts are {counts.dtype}, not integers")
            params = {k: np.ascontiguousarray(z[k]) for k in _PARAMS}
            model = cls(**{**meta["config"], **overrides})
            if params["word"].shape != (len(words), model.dim):  # before allocating for dim
                raise ValueError(f"parameter word has shape {params['word'].shape}, expected "
                                 f"{(len(words), model.dim)}")
            model.build_vocab(vocab=Vocabulary(words, counts))
            for k, v in params.items():
                if v.shape != model.params[k].shape:
                    raise ValueError(f"parameter {k} has shape {v.shape}, expected {model.params[k].shape}")
            for k, v in params.items():
                model.params[k][...] = v  # into the interleaved tables
            model.epochs_trained = meta["epochs_trained"]
            model.history = [epoch(**e) for e in meta["history"]]
        except FormatError:
            raise
        except (KeyError, TypeError, ValueError, UnicodeDecodeError, OSError) as exc:
            raise _damaged(path, exc) from None
    return model
