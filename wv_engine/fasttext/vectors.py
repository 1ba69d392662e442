"""Word vectors that give a vector to any word: fastText's, where a word's
vector is the mean of its own row and the rows of its character n-grams.

`SubwordVectors` is a `Vectors` (the vocabulary's words and their vectors,
each already that mean) that also holds the n-grams' bucket rows and the
n-gram settings. A word outside the vocabulary gets the mean of its
n-grams' rows, as fastText computes it; a word with none (shorter than minn
with its brackets, or a model with maxn 0) gets a zero vector, fastText's
answer, whose cosine with anything is 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _subwords
from ..vectors import Term, Vectors, _as_float32_matrix, _normalise_rows

__all__ = ["SubwordVectors", "ngram_rows"]


def ngram_rows(word: str, minn: int, maxn: int, bucket: int) -> np.ndarray:
    """The bucket rows (0..bucket-1) of the n-grams of `<word>` with minn to
    maxn characters, in fastText's order with repeats (fastText's hash of
    the UTF-8 bytes, modulo bucket); empty for "</s>", maxn 0 or bucket 0."""
    return _subwords.ngram_rows(word, minn, maxn, bucket)


class SubwordVectors(Vectors):
    """Vectors for a vocabulary plus n-gram rows that give any word a vector.

    Construct with `SubwordVectors(words, vectors, ngram_vectors, minn, maxn,
    counts=None, metadata=None)`: `vectors` are the words' vectors (each the
    mean of its word row and n-gram rows, as `FastText.vectors` gives them),
    `ngram_vectors` the (bucket, dim) rows of the n-grams.

    `v[word]` and every query (most_similar, similarity, n_similarity,
    doesnt_match, analogy terms) accept words outside the vocabulary;
    `word in v` still tells whether a word is in the vocabulary, and
    `has_vector(word)` whether it has a vector that is not zero.
    """

    def __init__(self, words: Sequence[str], vectors: Any, ngram_vectors: Any, minn: int, maxn: int,
                 counts: Any = None, metadata: dict[str, Any] | None = None) -> None:
        super().__init__(words, vectors, counts=counts, metadata=metadata)
        self._set_ngrams(ngram_vectors, minn, maxn)

    @classmethod
    def _made(cls, words: Sequence[str], vectors: np.ndarray, ngram_vectors: np.ndarray, minn: int, maxn: int,
              counts: np.ndarray | None, metadata: dict[str, Any] | None,
              key_to_index: dict[str, int] | None = None) -> "SubwordVectors":
        """Over words a Vocabulary has checked (see Vectors._indexed)."""
        self = cls._indexed(words, vectors, counts, metadata, key_to_index)
        self._set_ngrams(ngram_vectors, minn, maxn)
        return self

    def _set_ngrams(self, ngram_vectors: Any, minn: int, maxn: int) -> None:
        ngrams = _as_float32_matrix(ngram_vectors) if len(ngram_vectors) else \
            np.zeros((0, self.dim), dtype=np.float32)
        if ngrams.shape[1] != self.dim:
            raise ValueError(f"ngram_vectors have dim {ngrams.shape[1]}, the words' vectors {self.dim}")
        if maxn > 0 and not 1 <= minn <= maxn:
            raise ValueError(f"need 1 <= minn <= maxn, got minn={minn}, maxn={maxn}")
        self._ngrams = ngrams
        self.minn, self.maxn = int(minn), int(maxn)

    @property
    def ngram_vectors(self) -> np.ndarray:
        """The (bucket, dim) rows of the n-grams."""
        return self._ngrams

    @property
    def bucket(self) -> int:
        return int(self._ngrams.shape[0])

    def __repr__(self) -> str:
        return f"SubwordVectors({len(self):,} words, {self.bucket:,} n-gram buckets, dim={self.dim})"

    def ngrams(self, word: str) -> np.ndarray:
        """The bucket rows of a word's n-grams (see `ngram_rows`)."""
        return ngram_rows(word, self.minn, self.maxn, self.bucket)

    def word_vector(self, word: str) -> np.ndarray:
        """The vector of any word: its row for a vocabulary word, else the
        mean of its n-grams' rows (zeros when it has none), as fastText."""
        idx = self.key_to_index.get(word)
        if idx is not None:
            return self._vectors[idx]
        rows = self.ngrams(word)
        if not len(rows):
            return np.zeros(self.dim, dtype=np.float32)
        return self._ngrams[rows].mean(axis=0, dtype=np.float32)

    def has_vector(self, word: str) -> bool:
        """True when `word` is in the vocabulary or has at least one n-gram."""
        return word in self.key_to_index or len(self.ngrams(word)) > 0

    def __getitem__(self, word: str | Sequence[str]) -> np.ndarray:
        """`v[word]` -> the word's vector (any word); `v[[w1, w2]]` -> a 2-D array."""
        if isinstance(word, str):
            return self.word_vector(word)
        return np.stack([self.word_vector(w) for w in word]) if len(word) else \
            np.zeros((0, self.dim), dtype=np.float32)

    def _unit_of(self, term: Term) -> tuple[np.ndarray, int | None]:
        if isinstance(term, str) and term not in self.key_to_index:
            return _normalise_rows(self.word_vector(term)[None, :])[0], None
        return super()._unit_of(term)

    def _word_units(self, words: Sequence[str]) -> np.ndarray:
        """Unit vectors of any words, unseen ones from their n-grams (Vectors._units takes rows)."""
        return _normalise_rows(self[list(words)])

    def similarity(self, w1: str, w2: str) -> float:
        """Cosine similarity of two words, either of them possibly unseen
        (0.0 when either vector is zero)."""
        u = self._word_units([w1, w2])
        return float(u[0] @ u[1])

    def n_similarity(self, words1: Sequence[str], words2: Sequence[str]) -> float:
        """Cosine between the means of the unit vectors of two non-empty word lists."""
        if not words1 or not words2:
            raise ValueError("n_similarity needs two non-empty word lists")
        m1 = self._word_units(words1).mean(axis=0)
        m2 = self._word_units(words2).mean(axis=0)
        return float(_normalise_rows(m1[None, :])[0] @ _normalise_rows(m2[None, :])[0])

    def doesnt_match(self, words: Sequence[str]) -> str:
        """The word of `words` least similar (by cosine) to the mean of their unit vectors."""
        words = list(words)
        if not words:
            raise ValueError("doesnt_match needs at least one word")
        u = self._word_units(words)
        mean = _normalise_rows(u.mean(axis=0)[None, :])[0]
        return words[int(np.argmin(u @ mean))]
