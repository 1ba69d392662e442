"""Word classes by k-means over word vectors, as word2vec.c's `-classes K`:
word i starts in class i mod K; each of ten rounds sets every class's
centroid to the unit-length mean of its words (rows as trained, not
normalised) and moves every word to the class whose centroid has the
largest dot product with it."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

ROUNDS = 10  # word2vec.c's fixed number of rounds
BLOCK = 16384  # words scored against the centroids at a time


def word_classes(vectors: np.ndarray, k: int, rounds: int = ROUNDS) -> np.ndarray:
    """The class (0..k-1) of each row of `vectors` (V x D). A class left
    empty keeps a zero centroid and takes no word, as in word2vec.c, where
    its centroid divides by zero and loses every comparison."""
    if k < 1:
        raise ValueError(f"the number of classes must be >= 1, got {k}")
    rows = np.ascontiguousarray(vectors, dtype=np.float32)
    V = len(rows)
    classes = np.arange(V, dtype=np.int64) % k
    for _ in range(rounds):
        members = sp.csr_matrix((np.ones(V, dtype=np.float32), (classes, np.arange(V))), shape=(k, V))
        # word2vec.c starts each class's count at 1, which the unit length then cancels
        centroids = np.asarray(members @ rows, dtype=np.float32)
        lengths = np.linalg.norm(centroids, axis=1)
        live = lengths > 0
        centroids[live] /= lengths[live, None]
        for start in range(0, V, BLOCK):
            scores = rows[start:start + BLOCK] @ centroids.T
            scores[:, ~live] = -np.inf
            classes[start:start + BLOCK] = np.argmax(scores, axis=1)  # ties: the first class, as word2vec.c
    return classes
