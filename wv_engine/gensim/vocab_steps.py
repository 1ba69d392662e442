"""gensim's vocabulary steps over the engine's counts: which words a model
keeps (min_count, trim_rule, max_final_vocab) and the report gensim's
prepare_vocab returns."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..vocab import Vocabulary

RULE_DEFAULT, RULE_DISCARD, RULE_KEEP = 0, 1, 2  # gensim.utils' trim_rule answers


def final_min_count(raw: Vocabulary, min_count: int, max_final_vocab: int | None) -> int:
    """gensim's effective_min_count: min_count, raised where needed so that
    at most max_final_vocab words remain (ties at the cut are all dropped)."""
    if max_final_vocab is None or max_final_vocab >= len(raw):
        return min_count
    ordered = np.sort(raw.counts)[::-1]
    return max(int(ordered[max_final_vocab]) + 1, min_count)


def keep_mask(raw: Vocabulary, min_count: int, trim_rule: Callable | None) -> np.ndarray:
    """The words kept: seen min_count times (at least once), unless trim_rule says otherwise."""
    keep = raw.counts >= max(1, min_count)
    if trim_rule is not None:
        for i, (w, c) in enumerate(zip(raw.words, raw.counts.tolist())):
            rule = trim_rule(w, c, min_count)
            if rule == RULE_DISCARD:
                keep[i] = False
            elif rule == RULE_KEEP:
                keep[i] = True
    return keep


def subset(raw: Vocabulary, keep: np.ndarray) -> Vocabulary:
    """The kept words of `raw`, with its corpus totals."""
    words = [w for w, k in zip(raw.words, keep.tolist()) if k]
    return Vocabulary(words, raw.counts[keep], total_tokens=raw.total_tokens, distinct_words=raw.distinct_words)


def report(raw: Vocabulary | None, kept: Vocabulary | None, sample: float) -> dict[str, Any]:
    """gensim's prepare_vocab report on `kept`, the words kept of `raw`
    (subset; None: none): words dropped, tokens kept, and what subsampling
    at `sample` leaves of them (word2vec.c's keep probability)."""
    if raw is None or kept is None:
        return {"drop_unique": 0 if raw is None else len(raw), "retain_total": 0, "downsample_unique": 0,
                "downsample_total": 0, "num_retained_words": 0}
    counts = kept.counts.astype(np.float64)
    probability = kept.keep_probabilities(sample).astype(np.float64)
    return {"drop_unique": len(raw) - len(kept), "retain_total": int(counts.sum()),
            "downsample_unique": int((probability < 1.0).sum()),
            "downsample_total": int((probability * counts).sum()), "num_retained_words": len(kept)}


def from_counts(word_freq: dict) -> Vocabulary | None:
    """A raw vocabulary from {word: count}, by descending count (ties in the
    dict's order); None when no word has a count."""
    items = sorted(((w, c) for w, c in word_freq.items() if c > 0), key=lambda kv: -kv[1])
    return Vocabulary([w for w, _ in items], [c for _, c in items]) if items else None
