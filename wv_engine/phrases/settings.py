"""Phrase settings: the scorings, their default thresholds, the English
connector words, and the checks every pass's settings pass (Phrases, the
model file, the command line)."""

from __future__ import annotations

from typing import Any, Iterable

from .. import _tokenize
from ..settings import bounded

__all__ = ["DEFAULT_THRESHOLDS", "ENGLISH_CONNECTOR_WORDS", "SCORINGS", "check_settings", "connectors_bytes"]

# Common English articles, prepositions and conjunctions: a phrase may hold
# any number of them inside ("bank_of_america") but never start or end with
# one (the content of gensim 4's ENGLISH_CONNECTOR_WORDS).
ENGLISH_CONNECTOR_WORDS = frozenset((
    "a", "an", "the",
    "at", "by", "for", "from", "in", "of", "on", "to", "with", "without",
    "and", "or",
))

SCORINGS = ("word2phrase", "default", "npmi")
DEFAULT_THRESHOLDS = {"word2phrase": 100.0, "default": 10.0, "npmi": 0.5}


def check_settings(min_count: Any, threshold: Any, scoring: str, delimiter: Any) -> None:
    """ValueError for settings no pass can use."""
    if scoring not in SCORINGS:
        raise ValueError(f"scoring must be one of {', '.join(SCORINGS)}, got {scoring!r}")
    bounded("min_count", min_count)
    thresholds = threshold if isinstance(threshold, (list, tuple)) else [threshold]
    for t in thresholds:
        bounded("threshold", t)
        if scoring == "npmi" and not -1 <= t <= 1:
            raise ValueError(f"threshold must be in -1..1 for npmi scoring, got {t}")
        if scoring != "npmi" and t <= 0:
            raise ValueError(f"threshold must be > 0 for {scoring} scoring, got {t}")
    if not isinstance(delimiter, str) or not delimiter or any(c.isspace() for c in delimiter):
        raise ValueError(f"delimiter must be a non-empty string without whitespace (tokens are whitespace-"
                         f"separated), got {delimiter!r}")
    if len(delimiter.encode("utf-8", "surrogateescape")) > _tokenize.PHRASE_MAX_DELIMITER:
        raise ValueError(f"delimiter must be at most {_tokenize.PHRASE_MAX_DELIMITER} bytes, got {delimiter!r}")



def connectors_bytes(words: Iterable[str]) -> bytes:
    """Connector words as the C table takes them: sorted, joined by newlines."""
    out = []
    for w in sorted(set(words)):
        if not isinstance(w, str) or not w or any(c.isspace() for c in w):
            raise ValueError(f"a connector word is a non-empty string without whitespace, got {w!r}")
        out.append(w.encode("utf-8", "surrogateescape"))
    return b"\n".join(out)
