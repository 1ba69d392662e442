"""Trained word vectors and the queries users run on them.

`Vectors` holds a vocabulary (row order = descending corpus frequency), a float32 matrix
with one row per word, optional corpus counts and a metadata dict. It knows nothing of
training or of file formats: reading and writing live in `wv_engine.formats`
(as plain data) and `wv_engine.io` (as Vectors).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Union

import numpy as np

from . import formats, neighbours
from ._vectors import row_norms
from .settings import default_threads
from .word_index import Words, WordTable

__all__ = ["Vectors", "UnknownWordError"]

# A query term: a word, or a raw vector of length `dim`.
Term = Union[str, np.ndarray]


class UnknownWordError(KeyError):
    """A queried word is not in the vocabulary (a KeyError, so `except KeyError` still works)."""

    def __init__(self, word: str, vocab_size: int) -> None:
        super().__init__(word)
        self.word = word
        self.vocab_size = vocab_size

    def __str__(self) -> str:
        # KeyError's default str() is repr(arg); give a sentence instead.
        return f"word {self.word!r} is not in the vocabulary ({self.vocab_size:,} words)"


def _as_float32_matrix(vectors: Any) -> np.ndarray:
    """Return `vectors` as a C-contiguous float32 2-D array, without copying when it already is
    one (a read-only np.memmap stays a memmap)."""
    if isinstance(vectors, np.ndarray) and vectors.dtype == np.float32 \
            and vectors.dtype.isnative and vectors.flags.c_contiguous:
        arr = vectors
    else:
        arr = np.asarray(vectors)
        if arr.dtype.kind not in "fiu":
            raise ValueError(f"vectors must be a numeric array, got dtype {arr.dtype}")
        arr = np.ascontiguousarray(arr, dtype=np.float32)
    if arr.ndim != 2:
        raise ValueError(f"vectors must be a 2-D array (words x dim), got shape {arr.shape}")
    if arr.shape[1] < 1:
        raise ValueError("vectors must have at least one dimension")
    return arr


class Vectors:
    """Word vectors with similarity and analogy queries.

    Construct with `Vectors(words, vectors, counts=None, metadata=None)`:

    - `words`: sequence of distinct str, in vocabulary order (most frequent first). Words
      decoded with 'surrogateescape' (lone surrogates) are fine and round-trip losslessly.
    - `vectors`: 2-D float array of shape (len(words), dim); converted to C-contiguous float32
      (no copy when it already is one, so a read-only np.memmap stays mapped).
    - `counts`: optional corpus frequencies, int64 of shape (len(words),).
    - `metadata`: optional JSON-serialisable dict (training settings), kept by the native format.
    """

    def __init__(
        self,
        words: Sequence[str],
        vectors: Any,
        counts: Any = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        words = list(words)
        if not all(issubclass(t, str) for t in set(map(type, words))):  # no Python loop unless one is bad
            i, w = next((i, w) for i, w in enumerate(words) if not isinstance(w, str))
            raise ValueError(f"words must be str; entry {i} is {type(w).__name__} ({w!r})")
        key_to_index = dict(zip(words, range(len(words))))
        if len(key_to_index) != len(words):
            first = {w: i for i, w in reversed(list(enumerate(words)))}
            dup = next(w for i, w in enumerate(words) if first[w] != i)
            raise ValueError(
                f"duplicate word {dup!r} in words ({len(words) - len(key_to_index)} duplicates)"
            )
        mat = _as_float32_matrix(vectors)
        if mat.shape[0] != len(words):
            raise ValueError(
                f"vectors has {mat.shape[0]} rows but there are {len(words)} words"
            )
        if counts is not None:
            counts = np.asarray(counts)
            if counts.dtype.kind not in "iu":
                raise ValueError(f"counts must be integers, got dtype {counts.dtype}")
            counts = np.ascontiguousarray(counts, dtype=np.int64)
            if counts.shape != (len(words),):
                raise ValueError(
                    f"counts must have shape ({len(words)},), got {counts.shape}"
                )
            if counts.size and counts.min() < 0:
                raise ValueError("counts must not be negative")
        if metadata is not None and not isinstance(metadata, dict):
            raise ValueError(f"metadata must be a dict, got {type(metadata).__name__}")
        self._set(words, key_to_index, mat, counts, metadata)

    def _set(self, words: list[str] | None, key_to_index: dict[str, int] | None, mat: np.ndarray,
             counts: np.ndarray | None, metadata: dict[str, Any] | None, table: WordTable | None = None,
             norms: np.ndarray | None = None) -> None:
        self._words = words  # None: the words are in `table` (bytes) until asked for as a list
        self._table = table
        self._vectors = mat
        self._counts = counts
        self._key_to_index = key_to_index  # None: built on first use (the words are distinct)
        self._unit: np.ndarray | None = None
        self._norms = norms
        self._scale: np.ndarray | None = None
        self.metadata: dict[str, Any] = dict(metadata) if metadata else {}

    @classmethod
    def _loaded(cls, got: formats.Loaded) -> "Vectors":
        """Vectors over what a reader found: its words a WordTable (no Python
        object per word until asked for) or a list, its norms if it computed them."""
        if got.words is not None:
            self = cls(got.words, got.vectors, counts=got.counts, metadata=got.metadata)
            self._norms = got.norms
            return self
        mat = _as_float32_matrix(got.vectors)
        if mat.shape[0] != len(got.table):
            raise ValueError(f"vectors has {mat.shape[0]} rows for {len(got.table)} words")
        self = cls.__new__(cls)
        self._set(None, None, mat, got.counts, got.metadata, table=got.table, norms=got.norms)
        return self

    @classmethod
    def _indexed(cls, words: Sequence[str], vectors: np.ndarray, counts: np.ndarray | None,
                 metadata: dict[str, Any] | None = None, key_to_index: dict[str, int] | None = None) -> "Vectors":
        """Vectors over words a Vocabulary has already checked (distinct
        str): only the matrix is checked and the index waits for its first
        use, so a model of millions of words gets its Vectors (and writes
        them) at once. `key_to_index`: the vocabulary's own, where it has one."""
        mat = _as_float32_matrix(vectors)
        if mat.shape[0] != len(words):
            raise ValueError(f"vectors has {mat.shape[0]} rows for {len(words)} words")
        self = cls.__new__(cls)
        self._set(list(words), key_to_index, mat, counts, metadata)
        return self

    # ------------------------------------------------------------------ basic access

    @property
    def words(self) -> list[str]:
        """The vocabulary, in row order (most frequent first). A loaded file's
        words become a list on first use (until then they are bytes)."""
        if self._words is None:
            self._words = self._table.words()
        return self._words

    def word(self, index: int) -> str:
        """The word of row `index`."""
        if self._words is not None:
            return self._words[index]
        return self._table.word(index)

    def encoded_words(self, plain: bool) -> Words:
        """The words as UTF-8 bytes with offsets (what files hold); `plain`
        refuses what word2vec/GloVe files cannot hold."""
        if self._words is None:
            return Words.from_table(self._table, plain)
        return Words(self._words, plain)

    @property
    def vectors(self) -> np.ndarray:
        """The (n, dim) float32 matrix. Call `vectors_changed()` after editing it in place."""
        return self._vectors

    @property
    def counts(self) -> np.ndarray | None:
        """Corpus counts (int64, one per word) or None when unknown."""
        return self._counts

    @property
    def dim(self) -> int:
        """Vector dimensionality."""
        return int(self._vectors.shape[1])

    @property
    def key_to_index(self) -> dict[str, int]:
        """Mapping word -> row index."""
        if self._key_to_index is None:
            self._key_to_index = dict(zip(self.words, range(len(self))))
        return self._key_to_index

    def __len__(self) -> int:
        return int(self._vectors.shape[0])

    def __contains__(self, word: object) -> bool:
        return self._find(word) >= 0

    def __iter__(self) -> Iterator[str]:
        return iter(self.words)

    def __repr__(self) -> str:
        return f"Vectors({len(self):,} words, dim={self.dim})"

    def _find(self, word: object) -> int:
        """Row of `word`, or -1."""
        if self._key_to_index is None and self._table is not None:
            return self._table.index(word) if isinstance(word, str) else -1
        try:
            return self.key_to_index.get(word, -1)  # type: ignore[call-overload]
        except TypeError:  # unhashable
            return -1

    def get_index(self, word: str) -> int:
        """Row index of `word`; raises UnknownWordError when absent."""
        index = self._find(word)
        if index < 0:
            raise UnknownWordError(word, len(self))
        return index

    def __getitem__(self, word: str | Sequence[str]) -> np.ndarray:
        """`v[word]` -> the word's row (1-D view); `v[[w1, w2]]` -> a 2-D array of rows."""
        if isinstance(word, str):
            return self._vectors[self.get_index(word)]
        return self._vectors[[self.get_index(w) for w in word]]

    # ------------------------------------------------------------------ unit vectors

    @property
    def unit_vectors(self) -> np.ndarray:
        """L2-normalised float32 rows (cached; zero rows stay zero)."""
        if self._unit is None:
            self._unit = _normalise_rows(self._vectors)
        return self._unit

    def unit_head(self, n: int) -> np.ndarray:
        """Unit rows of the `n` most frequent words. Uses the cache when it exists and does
        not build it otherwise, so scoring 30k candidates of a 3M-word memory-mapped matrix
        normalises 30k rows only."""
        if self._unit is not None:
            return self._unit[:n]
        return _normalise_rows(self._vectors[:n])

    @property
    def norms(self) -> np.ndarray:
        """Each row's L2 norm (float32; read from a native file or computed
        while loading, else on first use, on every core)."""
        if self._norms is None:
            self._norms = row_norms(self._vectors, default_threads())
        return self._norms

    def _row_scale(self) -> np.ndarray:
        """One over each row's norm (0 for a zero row): a row times it is its unit vector."""
        if self._scale is None:
            norms = self.norms
            with np.errstate(divide="ignore"):
                scale = np.float32(1.0) / norms
            scale[norms == 0] = 0.0
            self._scale = scale
        return self._scale

    def _units(self, indices: Sequence[int] | np.ndarray) -> np.ndarray:
        """Unit rows of `indices` (zero rows stay zero)."""
        idx = np.asarray(indices, dtype=np.int64)
        return self._vectors[idx] * self._row_scale()[idx][:, None]

    def vectors_changed(self) -> None:
        """Tell the object its matrix was modified in place, so cached unit vectors and
        norms are rebuilt."""
        self._unit = None
        self._norms = None
        self._scale = None

    def _unit_of(self, term: Term) -> tuple[np.ndarray, int | None]:
        """Unit vector of a word or of a raw vector, plus the word's index (None for vectors)."""
        if isinstance(term, str):
            idx = self.get_index(term)
            return self._units([idx])[0], idx
        try:
            vec = np.asarray(term, dtype=np.float32)
        except (TypeError, ValueError):
            vec = None
        if vec is None or vec.shape != (self.dim,):
            raise ValueError(f"query terms must be words or vectors of length {self.dim}, "
                             f"got {term!r:.60}")
        if not np.isfinite(vec).all():
            raise ValueError("a query vector holds inf or nan")
        return _normalise_rows(vec[None, :])[0], None

    def _terms(self, terms: Term | Iterable[Term] | None) -> list[Term]:
        if terms is None:
            return []
        if isinstance(terms, str):
            return [terms]
        if isinstance(terms, np.ndarray) and terms.ndim == 1:
            return [terms]
        return list(terms)

    def _limit(self, restrict_vocab: int | None) -> int:
        if restrict_vocab is None:
            return len(self)
        if restrict_vocab < 1:
            raise ValueError(f"restrict_vocab must be positive, got {restrict_vocab}")
        return min(int(restrict_vocab), len(self))

    # ------------------------------------------------------------------ similarity queries

    def most_similar(
        self,
        positive: Term | Iterable[Term] | None = None,
        negative: Term | Iterable[Term] | None = None,
        topn: int | None = 10,
        restrict_vocab: int | None = None,
    ) -> list[tuple[str, float]] | np.ndarray:
        """Nearest words by cosine to the mean of the unit vectors of `positive` minus those
        of `negative` (3CosAdd for analogies).

        `positive`/`negative`: a word, a vector, or a list of them (vectors are normalised
        too). Query words are excluded from the answer. `restrict_vocab` searches only the
        first N (most frequent) words. Returns [(word, cosine)] best first, or, with
        `topn=None`, the array of cosines over the searched rows.
        """
        pos, neg = self._terms(positive), self._terms(negative)
        if not pos and not neg:
            raise ValueError("most_similar needs at least one positive or negative term")
        limit = self._limit(restrict_vocab)
        rows, exclude = [], set()
        for sign, terms in ((1.0, pos), (-1.0, neg)):
            for t in terms:
                u, idx = self._unit_of(t)
                rows.append(sign * u)
                if idx is not None:
                    exclude.add(idx)
        query = _normalise_rows(np.mean(rows, axis=0, dtype=np.float32)[None, :])
        if topn is None:
            return (self._vectors[:limit] @ query[0]) * self._row_scale()[:limit]
        if topn < 1:
            return []
        found, scores, filled = neighbours.best_rows(self._vectors[:limit], self._row_scale()[:limit], query,
                                                     topn + len(exclude))
        return self._pairs(found[0, :filled[0]], scores[0], exclude)[:topn]

    def _pairs(self, rows: np.ndarray, scores: np.ndarray, exclude: set[int] | int = -1) -> list[tuple[str, float]]:
        """(word, score) of `rows`, those in `exclude` left out."""
        skip = exclude if isinstance(exclude, set) else {exclude}
        return [(self.word(r), float(v)) for r, v in zip(rows.tolist(), scores.tolist()) if r not in skip]

    def most_similar_many(
        self, queries: Iterable[Term] | np.ndarray, topn: int = 10, restrict_vocab: int | None = None,
    ) -> list[list[tuple[str, float]]]:
        """`most_similar` of many queries at once: one list of [(word, cosine)]
        per query, best first, each query word left out of its own answer.

        `queries`: words and vectors (a 2-D array: one query a row). One matrix
        product on every core over the searched rows, a block at a time, so
        1,000 words cost far less than 1,000 calls; `restrict_vocab` as in
        most_similar."""
        if isinstance(queries, np.ndarray) and queries.ndim == 2:
            terms: list[Term] = list(queries)
        else:
            terms = self._terms(queries)  # type: ignore[arg-type]
        if not terms:
            return []
        if topn < 1:
            return [[] for _ in terms]
        limit = self._limit(restrict_vocab)
        units, own = [], []
        for t in terms:
            u, idx = self._unit_of(t)
            units.append(u)
            own.append(-1 if idx is None else idx)
        extra = int(any(i >= 0 for i in own))
        found, scores, filled = neighbours.best_rows(self._vectors[:limit], self._row_scale()[:limit],
                                                     np.stack(units), topn + extra)
        return [self._pairs(found[q, :filled[q]], scores[q], own[q])[:topn] for q in range(len(terms))]

    def similarity_matrix(self, words1: Sequence[Term], words2: Sequence[Term] | None = None) -> np.ndarray:
        """Cosines of every word (or vector) of `words1` with every one of
        `words2` (default: words1 itself): a (len(words1), len(words2)) float32 array."""
        a = np.stack([self._unit_of(t)[0] for t in words1]) if len(words1) else np.zeros((0, self.dim), np.float32)
        if words2 is None:
            return a @ a.T
        b = np.stack([self._unit_of(t)[0] for t in words2]) if len(words2) else np.zeros((0, self.dim), np.float32)
        return a @ b.T

    def similar_by_vector(
        self, vector: np.ndarray, topn: int | None = 10, restrict_vocab: int | None = None
    ) -> list[tuple[str, float]] | np.ndarray:
        """Words nearest by cosine to a raw `vector` of length dim; nothing is excluded."""
        return self.most_similar(positive=[np.asarray(vector)], topn=topn,
                                 restrict_vocab=restrict_vocab)

    def similar_by_word(
        self, word: str, topn: int | None = 10, restrict_vocab: int | None = None
    ) -> list[tuple[str, float]] | np.ndarray:
        """Words nearest by cosine to `word` (the word itself excluded)."""
        return self.most_similar(positive=[word], topn=topn, restrict_vocab=restrict_vocab)

    def most_similar_cosmul(
        self,
        positive: Term | Iterable[Term] | None = None,
        negative: Term | Iterable[Term] | None = None,
        topn: int | None = 10,
        restrict_vocab: int | None = None,
    ) -> list[tuple[str, float]] | np.ndarray:
        """Levy & Goldberg's 3CosMul: score(w) = prod_p s(w, p) / (prod_n s(w, n) + 1e-6) with
        s = (1 + cos) / 2 in [0, 1].

        Arguments as in `most_similar`; returns [(word, score)] best first, or the score array
        with `topn=None`.
        """
        pos, neg = self._terms(positive), self._terms(negative)
        if not pos and not neg:
            raise ValueError("most_similar_cosmul needs at least one positive or negative term")
        limit = self._limit(restrict_vocab)
        exclude: set[int] = set()
        units = []
        for t in pos + neg:
            u, idx = self._unit_of(t)
            units.append(u)
            if idx is not None:
                exclude.add(idx)
        # One matrix product for all terms: (limit, dim) @ (dim, k).
        cosines = (self._vectors[:limit] @ np.stack(units).T) * self._row_scale()[:limit, None]
        shifted = (1.0 + cosines) / 2.0
        num = np.prod(shifted[:, : len(pos)], axis=1)
        den = np.prod(shifted[:, len(pos):], axis=1)
        scores = num / (den + 1e-6)
        if topn is None:
            return scores
        return self._top(scores, topn, exclude)

    def _top(self, scores: np.ndarray, topn: int, exclude: set[int]) -> list[tuple[str, float]]:
        """Best `topn` rows of `scores` (descending, ties by row order) skipping `exclude`."""
        if topn < 1:
            return []
        k = min(topn + len(exclude), scores.shape[0])
        if k < scores.shape[0]:
            cand = np.argpartition(-scores, k - 1)[:k]
        else:
            cand = np.arange(scores.shape[0])
        cand = np.sort(cand)  # stable sort below then breaks ties by row order
        cand = cand[np.argsort(-scores[cand], kind="stable")]
        out = [(self.word(i), float(scores[i])) for i in cand.tolist() if i not in exclude]
        return out[:topn]

    def similarity(self, w1: str, w2: str) -> float:
        """Cosine similarity of two words (0.0 when either vector is zero)."""
        u = self._units([self.get_index(w1), self.get_index(w2)])
        return float(u[0] @ u[1])

    def distance(self, w1: str, w2: str) -> float:
        """Cosine distance, 1 - similarity."""
        return 1.0 - self.similarity(w1, w2)

    def n_similarity(self, words1: Sequence[str], words2: Sequence[str]) -> float:
        """Cosine between the means of the unit vectors of two non-empty word lists."""
        if not words1 or not words2:
            raise ValueError("n_similarity needs two non-empty word lists")
        m1 = self._units([self.get_index(w) for w in words1]).mean(axis=0)
        m2 = self._units([self.get_index(w) for w in words2]).mean(axis=0)
        return float(_normalise_rows(m1[None, :])[0] @ _normalise_rows(m2[None, :])[0])

    def doesnt_match(self, words: Sequence[str]) -> str:
        """The word of `words` least similar (by cosine) to the mean of their unit vectors."""
        words = list(words)
        if not words:
            raise ValueError("doesnt_match needs at least one word")
        u = self._units([self.get_index(w) for w in words])
        mean = _normalise_rows(u.mean(axis=0)[None, :])[0]
        return words[int(np.argmin(u @ mean))]

    def analogy(
        self,
        a: str,
        b: str,
        c: str,
        topn: int = 10,
        method: str = "3cosadd",
        restrict_vocab: int | None = None,
    ) -> list[tuple[str, float]]:
        """Answer "a is to b as c is to ?" (b - a + c) with `method` "3cosadd" or "3cosmul";
        returns [(word, score)] best first, a, b and c excluded."""
        m = method.lower()
        if m == "3cosadd":
            return self.most_similar([b, c], [a], topn=topn, restrict_vocab=restrict_vocab)
        if m == "3cosmul":
            return self.most_similar_cosmul([b, c], [a], topn=topn, restrict_vocab=restrict_vocab)
        raise ValueError(f"method must be '3cosadd' or '3cosmul', got {method!r}")

    # ------------------------------------------------------------------ persistence

    def save(self, path: str | os.PathLike, format: str = "native", **kwargs: Any) -> None:
        """Write to `path` atomically. `format`: "native" (default; mmap-able, keeps counts
        and metadata), "word2vec-bin", "word2vec-txt" or "glove-txt". Extra keyword
        arguments go to the writer in `wv_engine.io`."""
        formats.save_vectors(self, path, format=format, **kwargs)

    @classmethod
    def load(cls, path: str | os.PathLike, **kwargs: Any) -> "Vectors":
        """Read vectors from `path`; see `wv_engine.formats.read_vectors` for the keyword
        arguments (format="auto", unicode_errors, limit, mmap)."""
        return cls._loaded(formats.read_loaded(path, **kwargs))

    # ------------------------------------------------------------------ gensim interop

    def to_gensim(self) -> Any:
        """Build an in-memory gensim.models.KeyedVectors with the same words and rows, and the
        counts as the 'count' vector attribute when known. Needs gensim installed."""
        try:
            from gensim.models import KeyedVectors
        except ImportError as exc:  # gensim is optional
            raise ImportError(
                "Vectors.to_gensim() needs gensim; install it with 'pip install gensim'"
            ) from exc
        kv = KeyedVectors(vector_size=self.dim, dtype=np.float32)
        kv.add_vectors(self.words, np.asarray(self._vectors))
        if self._counts is not None:
            # add_vectors(extras=...) is broken in gensim 4.4 (iterates the dict as pairs), so
            # allocate the attribute and fill it in one go instead of per word.
            kv.allocate_vecattrs(["count"], [np.int64])
            kv.expandos["count"][:] = self._counts
        return kv

    @classmethod
    def from_gensim(cls, kv: Any) -> "Vectors":
        """Copy a gensim KeyedVectors (str keys) into a Vectors, keeping its 'count' attribute
        when every word has one."""
        words = list(kv.index_to_key)
        counts = None
        expandos = getattr(kv, "expandos", None) or {}
        if "count" in expandos and len(expandos["count"]) == len(words):
            counts = np.asarray(expandos["count"], dtype=np.int64)
        return cls(words, np.array(kv.vectors, dtype=np.float32), counts=counts)


def _normalise_rows(mat: np.ndarray) -> np.ndarray:
    """Float32 copy of `mat` with rows scaled to unit L2 norm; zero rows stay zero."""
    out = np.array(mat, dtype=np.float32, copy=True)
    # Norms in float64 so that large or tiny values neither overflow nor underflow.
    norms = np.sqrt(np.einsum("ij,ij->i", out, out, dtype=np.float64))
    norms[norms == 0] = 1.0
    out /= norms[:, None].astype(np.float32)
    return out
