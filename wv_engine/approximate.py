"""Approximate nearest neighbours for millions of words: an HNSW graph
(hierarchical navigable small world, Malkov & Yashunin) over a Vectors'
rows by cosine, built, saved and loaded beside the vectors, and asked one
query or many at a time. The optional extra `pip install "wv_engine[ann]"`
(hnswlib) provides it; everything else in the package works without it.

Why hnswlib: measured here against faiss-cpu (HNSW and IVF), usearch and
annoy on the same rows (benchmarks.ann_libraries, docs/vectors.md), it
built the graph fastest and answered fastest at each recall, and it is one
small compiled module with no threading runtime of its own to fight ours.

An index answers for the vectors it was built on: its file records their
size and a fingerprint of their words, and loading it beside other vectors
is refused."""

from __future__ import annotations

import json
import os
import tempfile
import zlib
from collections.abc import Iterable
from typing import Any

import numpy as np

from .files import atomic_write, check_input
from .errors import FormatError
from .settings import RANGES, default_threads
from .vectors import Term, Vectors

__all__ = ["ApproximateIndex", "index_path"]

SUFFIX = ".hnsw"


def _hnswlib() -> Any:
    try:
        import hnswlib
    except ImportError:
        raise ImportError("approximate neighbours need hnswlib: pip install 'wv_engine[ann]' "
                          "(or pip install hnswlib)") from None
    return hnswlib


def index_path(vectors_path: str | os.PathLike) -> str:
    """Where the index of a vectors file lives: beside it, `VECTORS.hnsw`."""
    return os.fspath(vectors_path) + SUFFIX


def _fingerprint(vectors: Vectors) -> dict[str, Any]:
    """Size, dimension and a CRC of the first and last thousand words."""
    n = len(vectors)
    picked = list(range(min(n, 1000))) + list(range(max(1000, n - 1000), n))
    crc = zlib.crc32("\n".join(vectors.word(i) for i in picked).encode("utf-8", "surrogateescape"))
    return {"rows": n, "dim": vectors.dim, "words_crc32": crc}


class ApproximateIndex:
    """An HNSW graph over `vectors`' rows (cosine). `ef` is how wide a query
    searches: higher finds more of the true neighbours, more slowly
    (docs/vectors.md has the measured trade-off)."""

    def __init__(self, vectors: Vectors, graph: Any, settings: dict[str, Any]):
        self.vectors = vectors
        self._graph = graph
        self.settings = dict(settings)
        self.ef = int(settings.get("ef", 128))

    # ---- making one ---------------------------------------------------------
    @classmethod
    def build(cls, vectors: Vectors, m: int = 32, ef_construction: int = 200, ef: int = 128,
              threads: int | None = None, seed: int = 1) -> "ApproximateIndex":
        """The graph of every row of `vectors`: `m` links a node (memory: about
        8 * m bytes a row beside hnswlib's own copy of the rows), `ef_construction`
        the search width while linking (a better graph, built more slowly)."""
        for name, key, value in (("m", "hnsw_m", m), ("ef_construction", "ef_construction", ef_construction),
                                 ("ef", "ef", ef), ("seed", "seed", seed)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not RANGES[key].admits(value):
                raise ValueError(f"{name} must be {RANGES[key]}, got {value!r}")
        if len(vectors) == 0:
            raise ValueError("no vectors to index")
        hnswlib = _hnswlib()
        graph = hnswlib.Index(space="cosine", dim=vectors.dim)
        graph.init_index(max_elements=len(vectors), M=int(m), ef_construction=int(ef_construction),
                         random_seed=int(seed))
        threads = threads or default_threads()
        step = 1 << 16  # a block of rows at a time: a mapped matrix is read, not copied whole
        for start in range(0, len(vectors), step):
            rows = np.ascontiguousarray(vectors.vectors[start:start + step], dtype=np.float32)
            graph.add_items(rows, np.arange(start, start + len(rows)), num_threads=threads)
        settings = {"m": int(m), "ef_construction": int(ef_construction), "ef": int(ef), "seed": int(seed),
                    **_fingerprint(vectors)}
        return cls(vectors, graph, settings)

    # ---- files --------------------------------------------------------------
    def save(self, path: str | os.PathLike) -> None:
        """Writes the graph to `path` and its settings to `path.json`, each
        atomically (a crash leaves the previous files)."""
        path = os.fspath(path)
        folder = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".wv_hnsw_", dir=folder)
        os.close(fd)
        try:
            self._graph.save_index(tmp)
            with atomic_write(path + ".json", "w") as f:
                json.dump({"format": "wv_engine.hnsw", "library": "hnswlib", **self.settings, "ef": self.ef}, f)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    @classmethod
    def load(cls, path: str | os.PathLike, vectors: Vectors) -> "ApproximateIndex":
        """The index saved at `path`, for `vectors` (refused, naming what
        differs, when it was built on others)."""
        path = check_input(path, "approximate index")
        meta_path = check_input(path + ".json", "approximate index settings")
        try:
            with open(meta_path, encoding="utf-8") as f:
                settings = json.load(f)
            ok = isinstance(settings, dict) and settings.get("format") == "wv_engine.hnsw"
        except (ValueError, UnicodeDecodeError):
            ok = False
        if not ok:
            raise FormatError(meta_path, "not the settings of a wv_engine approximate index")
        mine = _fingerprint(vectors)
        for key, value in mine.items():
            if settings.get(key) != value:
                raise FormatError(path, f"built for other vectors: its {key} is {settings.get(key)!r}, "
                                        f"these vectors' {value!r}")
        graph = _hnswlib().Index(space="cosine", dim=vectors.dim)
        try:
            graph.load_index(path, max_elements=len(vectors))
        except RuntimeError as exc:
            raise FormatError(path, f"damaged approximate index: {exc}") from None
        if graph.get_current_count() != len(vectors):
            raise FormatError(path, f"holds {graph.get_current_count()} rows for {len(vectors)} vectors")
        return cls(vectors, graph, settings)

    # ---- queries ------------------------------------------------------------
    def _search(self, queries: np.ndarray, k: int, threads: int) -> tuple[np.ndarray, np.ndarray]:
        self._graph.set_ef(max(self.ef, k))
        labels, distances = self._graph.knn_query(queries, k=k, num_threads=threads)
        return labels.astype(np.int64), (1.0 - distances).astype(np.float32)

    def most_similar(self, query: Term, topn: int = 10) -> list[tuple[str, float]]:
        """About the `topn` nearest words to a word or a vector, [(word, cosine)]
        best first; a word is left out of its own answer. (gensim's indexer
        shape: `most_similar(vector, num_neighbors)`.)"""
        return self.most_similar_many([query], topn)[0]

    def most_similar_many(self, queries: Iterable[Term] | np.ndarray, topn: int = 10,
                          threads: int | None = None) -> list[list[tuple[str, float]]]:
        """most_similar of many queries at once, on every thread."""
        terms = list(queries)
        if not terms or topn < 1:
            return [[] for _ in terms]
        units, own = [], []
        for term in terms:
            unit, idx = self.vectors._unit_of(term)
            units.append(unit)
            own.append(-1 if idx is None else idx)
        k = min(len(self.vectors), int(topn) + int(any(i >= 0 for i in own)))
        labels, scores = self._search(np.stack(units), k, threads or default_threads())
        return [self.vectors._pairs(labels[q], scores[q], own[q])[:topn] for q in range(len(terms))]
