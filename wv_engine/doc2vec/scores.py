"""Scores of document vectors while training (`wv-engine doc2vec
--eval-every N --eval-documents FILE`, or the DocumentScores callback): a
test set of documents named by the tags of trained ones, each inferred and
asked to find its own among all trained document vectors. With the second
halves of training documents (or other texts of the same item: a review's
title, an article's abstract), it measures what the vectors are for: that
a document's text, unseen, lands by its own vector."""

from __future__ import annotations

import os
import time
from typing import Any, Callable

import numpy as np

from ..epoch_scores import EveryFewEpochs
from ..files import read_as
from .documents import Documents, EncodedDocuments

__all__ = ["DocumentScores", "finds_own"]


def finds_own(trained: np.ndarray, rows: np.ndarray, inferred: np.ndarray, top: tuple[int, ...] = (1, 10)
              ) -> dict[str, float]:
    """The share of inferred vectors (one a test document) whose own trained
    row (`rows`, one a test document) is among the `top` nearest trained
    rows by cosine: {"top1": ..., "top10": ...}."""
    t = trained / np.maximum(np.linalg.norm(trained, axis=1, keepdims=True), 1e-12)
    q = inferred / np.maximum(np.linalg.norm(inferred, axis=1, keepdims=True), 1e-12)
    ranks = np.empty(len(q), dtype=np.int64)
    for start in range(0, len(q), 1024):  # the similarities a block at a time
        sims = q[start:start + 1024] @ t.T
        own = sims[np.arange(len(sims)), rows[start:start + 1024]]
        ranks[start:start + 1024] = (sims > own[:, None]).sum(axis=1)
    return {f"top{k}": float(np.mean(ranks < k)) if len(ranks) else float("nan") for k in top}


class DocumentScores(EveryFewEpochs):
    """A Doc2Vec training callback that scores the document vectors every
    `every` epochs: the documents of `path` (one a line, `TAG<TAB>words`:
    the tag of the trained document it is a text of) are inferred and each
    asked to find its tag's vector among all (finds_own). Each scoring
    appends {"epoch", "top1", "top10", "seconds"} to `self.scores` and to
    the model's last_stats.epoch_scores, and passes a line to `report`.
    The file is read and checked when the callback is made: a missing or bad
    file stops a run before it starts."""

    def __init__(self, path: str | os.PathLike, every: int = 1, report: Callable[[str], object] | None = None):
        super().__init__(every, report)
        self.path = os.fspath(path)
        self.documents = read_as("documents", path, Documents)
        encoded: EncodedDocuments = self.documents.encode(None)  # its tags, checked now
        counts = np.diff(encoded.tag_start)
        if np.any(counts != 1) or len(encoded.keys) == 0:
            raise ValueError(f"documents {self.path}: each line names one trained document: 'TAG<TAB>words'")
        self.tags = [encoded.keys[t] for t in encoded.tags]

    def score(self, model: Any) -> dict[str, Any]:
        """Scores the model's document vectors now."""
        started = time.perf_counter()
        index = {key: row for row, key in enumerate(model.tag_keys)}
        known = [i for i, tag in enumerate(self.tags) if tag in index]
        if not known:
            raise ValueError(f"documents {self.path}: no line names a trained document's tag")
        inferred = model.infer(self.documents)[known]
        rows = np.array([index[self.tags[i]] for i in known])
        entry = {"epoch": model.epochs_trained, **finds_own(model.doc_vectors, rows, inferred),
                 "seconds": time.perf_counter() - started}
        return self._book(model, entry, f"epoch {entry['epoch']}: finds its own document {entry['top1'] * 100:.2f}% "
                                        f"(top 1), {entry['top10'] * 100:.2f}% (top 10) of {len(known):,} "
                                        f"({entry['seconds']:.1f} s)")
