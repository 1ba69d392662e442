"""gensim's `gensim.similarities` path for approximate neighbours:
`HnswIndexer`, shaped as gensim's AnnoyIndexer (built from a model or
KeyedVectors, `most_similar(vector, num_neighbors)`, save/load), over
wv_engine.approximate (hnswlib, the optional extra `wv_engine[ann]`).

    from wv_engine.gensim.similarities import HnswIndexer
    indexer = HnswIndexer(model)                 # or HnswIndexer(model.wv)
    model.wv.most_similar("king", topn=10, indexer=indexer)
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ...approximate import ApproximateIndex

__all__ = ["HnswIndexer"]


class HnswIndexer:
    """An HNSW index of a model's (or KeyedVectors') vectors for
    `most_similar(..., indexer=...)`. `m`, `ef_construction`, `ef`: the
    graph's links a node, its build width and the query width
    (wv_engine.approximate.ApproximateIndex)."""

    def __init__(self, model: Any = None, m: int = 32, ef_construction: int = 200, ef: int = 128,
                 threads: int | None = None, seed: int = 1):
        self.model = model
        self.index: ApproximateIndex | None = None
        if model is not None:
            kv = getattr(model, "wv", model)
            self.index = ApproximateIndex.build(kv._vec(), m=m, ef_construction=ef_construction, ef=ef,
                                                threads=threads, seed=seed)
            self._kv = kv

    def save(self, fname: str | os.PathLike) -> None:
        """The index to `fname` (and its settings to `fname.json`)."""
        self._built().save(fname)

    def load(self, fname: str | os.PathLike) -> None:
        """Reads an index saved for this indexer's model (set `model` first, as gensim's)."""
        if self.model is None:
            raise ValueError("set the indexer's model before loading its index (HnswIndexer(); .model = m)")
        self._kv = getattr(self.model, "wv", self.model)
        self.index = ApproximateIndex.load(fname, self._kv._vec())

    def most_similar(self, vector: np.ndarray, num_neighbors: int) -> list[tuple[Any, float]]:
        """About the num_neighbors nearest keys to `vector`: [(key, cosine)], best first."""
        index = self._built()
        labels, scores = index._search(np.asarray(vector, dtype=np.float32)[None, :], int(num_neighbors), 1)
        keys = self._kv.index_to_key
        return [(keys[int(r)], float(s)) for r, s in zip(labels[0], scores[0])]

    def _built(self) -> ApproximateIndex:
        if self.index is None:
            raise ValueError("no index: build it from a model (HnswIndexer(model)) or load one")
        return self.index
