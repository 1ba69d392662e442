"""The nearest rows of many queries at once: one matrix product a block of
rows at a time (numpy's BLAS, on every core), each block's scores handed
to csrc/topk.c, which keeps every query's best k in a bounded heap. No
query's whole score list is ever held, so 1,000 queries over 3M rows take
one block of scores in memory, and the matrix (in memory or a mapped
file) is read once for all of them."""

from __future__ import annotations

import numpy as np

from ._vectors import TopK
from .settings import default_threads

BLOCK_SCORES = 1 << 22   # scores held at a time: queries x rows of one block
MIN_BLOCK_ROWS = 1 << 12
MAX_BLOCK_ROWS = 1 << 16


def block_rows(queries: int) -> int:
    """Rows of the matrix a block takes for this many queries."""
    return int(min(MAX_BLOCK_ROWS, max(MIN_BLOCK_ROWS, BLOCK_SCORES // max(queries, 1))))


def best_rows(matrix: np.ndarray, scale: np.ndarray, queries: np.ndarray, k: int,
              threads: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each row q of `queries` (nq x dim float32), the k rows i of
    `matrix` with the highest (matrix[i] @ q) * scale[i], best first, ties
    to the lower row: (rows (nq, k) int64, scores (nq, k) float32, filled
    (nq,): how many of each row are set, min(k, len(matrix)))."""
    n = matrix.shape[0]
    queries = np.ascontiguousarray(queries, dtype=np.float32)
    if queries.ndim != 2 or queries.shape[1] != matrix.shape[1]:
        raise ValueError(f"queries must be (n, {matrix.shape[1]}), got {queries.shape}")
    if scale.shape != (n,):
        raise ValueError("one scale per row of the matrix")
    nq = queries.shape[0]
    k = max(0, min(int(k), n))
    threads = threads or default_threads()
    best = TopK(nq, k)
    rows = block_rows(nq)
    scores = np.empty((nq, min(rows, n)), dtype=np.float32)
    scale = np.ascontiguousarray(scale, dtype=np.float32)
    for start in range(0, n if k else 0, rows):
        block = matrix[start:start + rows]
        out = scores if len(block) == scores.shape[1] else np.empty((nq, len(block)), dtype=np.float32)
        np.matmul(queries, block.T, out=out)
        best.push(out, start, scale[start:start + len(block)], threads)
    return best.finish()
