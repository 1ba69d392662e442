"""The phrase model file (Phrases.save / load): no pickle, versioned,
written atomically, every number checked before use. Its layout::

    8 bytes  magic b"\\x89WVP\\r\\n\\x1a\\n"
    4 bytes  version (uint32 little-endian), 1
    4 bytes  length of the JSON header (uint32 little-endian)
    JSON     {"format": "wv_engine phrases", "layers": [{"settings": {...},
             "stats": {...}, "phrases": n, "keys_bytes": b}, ...],
             "extra": {...}, "table": {"entries": m, "keys_bytes": c,
             "dtype": "int64" or "float64"}}   (extra and table optional)
    per layer: its keys (b bytes, joined by newlines), its scores
             (n float64 little-endian), its splits (n int32 little-endian:
             each key's cuts that are phrases, a bit mask, -1 any)
    the table: its keys (c bytes, joined by newlines), its values (m of dtype)

A table holds what a layer cannot: the counts of a gensim Phrases, the
phrases of a FrozenPhrases whose delimiter holds whitespace
(wv_engine.gensim.phrases); extra, that layer's settings.

The file ends where the last layer does; anything else is damage."""

from __future__ import annotations

import math
import os
import struct
from typing import Any, BinaryIO

import numpy as np

from .. import _tokenize
from ..errors import FormatError
from ..files import atomic_write, check_input
from ..file_checks import checked_fields, checked_number, checked_prefix, parse_json
from .settings import SCORINGS, check_settings, connectors_bytes

__all__ = ["MAGIC", "VERSION", "load_phrases", "read_phrase_file", "save_phrases"]

MAGIC = b"\x89WVP\r\n\x1a\n"
VERSION = 1
_PREFIX = struct.Struct("<8sII")
_MAX_HEADER = 1 << 26
_MAX_LAYERS = 64


_DTYPES = {"int64": "<i8", "float64": "<f8"}


def save_phrases(path: str | os.PathLike, layers: list[dict[str, Any]], extra: dict[str, Any] | None = None,
                 table: tuple[bytes, np.ndarray] | None = None) -> None:
    """Writes the layers (dicts of keys, scores, splits, settings, stats),
    and `extra` (JSON) and `table` (keys joined by newlines, int64 or
    float64 values) where given, atomically: a temporary file, then renamed."""
    head: dict[str, Any] = {
        "format": "wv_engine phrases",
        "layers": [{"settings": layer["settings"], "stats": layer["stats"], "phrases": len(layer["scores"]),
                    "keys_bytes": len(layer["keys"])} for layer in layers]}
    if extra is not None:
        head["extra"] = extra
    if table is not None:
        keys, values = table
        head["table"] = {"entries": len(values), "keys_bytes": len(keys), "dtype": str(values.dtype)}
        if head["table"]["dtype"] not in _DTYPES:
            raise ValueError(f"a table's values are int64 or float64, got {values.dtype}")
    import json

    blob = json.dumps(head, allow_nan=False).encode("utf-8")
    with atomic_write(path, "wb") as f:
        f.write(_PREFIX.pack(MAGIC, VERSION, len(blob)))
        f.write(blob)
        for layer in layers:
            f.write(layer["keys"])
            f.write(np.ascontiguousarray(layer["scores"], "<f8").tobytes())
            f.write(np.ascontiguousarray(layer["splits"], "<i4").tobytes())
        if table is not None:
            f.write(table[0])
            f.write(np.ascontiguousarray(table[1], _DTYPES[head["table"]["dtype"]]).tobytes())


def _read(path: str, f: BinaryIO, n: int, what: str) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise FormatError(path, f"truncated: {what} needs {n:,} bytes, {len(data):,} left")
    return data


def _settings(path: str, where: str, doc: Any) -> dict[str, Any]:
    if not isinstance(doc, dict):
        raise FormatError(path, f"{where} is not a JSON object")
    s = checked_fields(path, where, dict(doc), ints={"min_count": (1, 2**62)},
                       floats={"threshold": (-math.inf, math.inf)})
    try:
        settings = {"scoring": s["scoring"], "min_count": s["min_count"], "threshold": s["threshold"],
                    "delimiter": s["delimiter"], "connector_words": list(s["connector_words"])}
        check_settings(settings["min_count"], settings["threshold"], settings["scoring"], settings["delimiter"])
        if not all(isinstance(w, str) and w and not any(c.isspace() for c in w)
                   for w in settings["connector_words"]):
            raise ValueError("connector_words must be words without whitespace")
    except (KeyError, TypeError, ValueError) as exc:
        raise FormatError(path, f"{where}: bad settings ({exc})") from None
    assert settings["scoring"] in SCORINGS
    return settings


def load_phrases(path: str | os.PathLike) -> list[dict[str, Any]]:
    """The layers of a phrase model file (dicts of keys, scores, splits,
    settings, stats and the C table built from them); FormatError names
    what is wrong."""
    return read_phrase_file(path)["layers"]


def _table(path: str, f: BinaryIO, doc: Any, left: int) -> tuple[bytes, np.ndarray]:
    if not isinstance(doc, dict) or doc.get("dtype") not in _DTYPES:
        raise FormatError(path, "the table's header is damaged")
    n = checked_number(path, "table field 'entries'", doc.get("entries"), 0, left)
    keys_bytes = checked_number(path, "table field 'keys_bytes'", doc.get("keys_bytes"), 0, left)
    if keys_bytes + 8 * n != left:
        raise FormatError(path, f"the table needs {keys_bytes + 8 * n:,} bytes, {left:,} are left")
    keys = _read(path, f, keys_bytes, "the table's keys")
    values = np.frombuffer(_read(path, f, 8 * n, "the table's values"), _DTYPES[doc["dtype"]]).astype(doc["dtype"])
    if (keys.count(b"\n") + 1 if keys else 0) != n:
        raise FormatError(path, f"the table has {n:,} values, but its keys hold another number")
    if doc["dtype"] == "float64" and not np.isfinite(values).all():
        raise FormatError(path, "a table value is not a finite number")
    return keys, values


def read_phrase_file(path: str | os.PathLike) -> dict[str, Any]:
    """{"layers": load_phrases's, "extra": the JSON object or None,
    "table": (keys, values) or None}; FormatError names what is wrong."""
    path = check_input(path, "phrase model")
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head_len = checked_prefix(path, f, size, MAGIC, VERSION, "phrase model",
                                  "upgrade wv_engine or learn the phrases again")
        if head_len > _MAX_HEADER:
            raise FormatError(path, f"header length {head_len:,} is past the largest a phrase model writes")
        try:
            head = parse_json(_read(path, f, head_len, "the header").decode("utf-8"))
            entries = head["layers"]
            if head.get("format") != "wv_engine phrases" or not isinstance(entries, list):
                raise ValueError("not a phrase model header")
        except (ValueError, KeyError, TypeError, UnicodeDecodeError, RecursionError) as exc:
            raise FormatError(path, f"damaged JSON header: {exc}") from None
        if len(entries) > _MAX_LAYERS:
            raise FormatError(path, f"{len(entries)} layers (at most {_MAX_LAYERS})")
        layers, end = [], _PREFIX.size + head_len
        for i, entry in enumerate(entries):
            where = f"layer {i}"
            if not isinstance(entry, dict):
                raise FormatError(path, f"{where} is not a JSON object")
            n = checked_number(path, f"{where} field 'phrases'", entry.get("phrases"), 0, size)
            keys_bytes = checked_number(path, f"{where} field 'keys_bytes'", entry.get("keys_bytes"), 0, size)
            if end + keys_bytes + 12 * n > size:
                raise FormatError(path, f"truncated: {where} needs {keys_bytes + 12 * n:,} bytes, "
                                        f"{size - end:,} left")
            settings = _settings(path, f"{where} settings", entry.get("settings"))
            stats = entry.get("stats") if isinstance(entry.get("stats"), dict) else {}
            keys = _read(path, f, keys_bytes, f"{where} keys")
            scores = np.frombuffer(_read(path, f, 8 * n, f"{where} scores"), "<f8").astype(np.float64)
            splits = np.frombuffer(_read(path, f, 4 * n, f"{where} splits"), "<i4").astype(np.int32)
            end += keys_bytes + 12 * n
            if (keys.count(b"\n") + 1 if keys else 0) != n:
                raise FormatError(path, f"{where}: {n:,} phrases, but the keys hold another number")
            if not np.isfinite(scores).all():
                raise FormatError(path, f"{where}: a score is not a finite number")
            if not splits.all():
                raise FormatError(path, f"{where}: a phrase has no cut (a split mask of 0)")
            try:  # the keys themselves: lengths, duplicates
                table = _tokenize.PhraseTable(settings["delimiter"].encode("utf-8", "surrogateescape"),
                                              connectors_bytes(settings["connector_words"]), keys, scores, splits)
            except ValueError as exc:
                raise FormatError(path, f"{where}: {exc}") from None
            layers.append({"keys": keys, "scores": scores, "splits": splits, "settings": settings, "stats": stats,
                           "table": table})
        table = head.get("table")
        if table is not None:
            table = _table(path, f, table, size - end)
            end = size
        if end != size:
            raise FormatError(path, f"{size - end:,} bytes after the last layer (damaged or not a phrase model)")
        extra = head.get("extra")
        if extra is not None and not isinstance(extra, dict):
            raise FormatError(path, "the header's 'extra' is not a JSON object")
    return {"layers": layers, "extra": extra, "table": table}
