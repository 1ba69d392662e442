"""Exact co-occurrence counts as integer units of the upper triangle, and
the CSR matrix from summed units: what the cluster layer counts per shard,
adds up across shards and assembles (wv_engine.cluster.cooccur). Counts in
units of 1/LCM(1..window) are integers (csrc/cooccur.h), so sums over shards
are exact and give the one-machine matrix bit for bit."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from . import _glove


def count_upper(ids: np.ndarray, vocab_size: int, window: int, distance_weighting: bool, threads: int,
                memory_limit: int, tmp_dir: str | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(rows, cols, units, unit) of the upper triangle (row <= col) of the
    ids' co-occurrences, sorted by (row, col), counted on `threads` threads
    within memory_limit (spilling to tmp_dir past it)."""
    job = _glove.CooccurrenceCount(np.ascontiguousarray(ids, dtype=np.int32), vocab_size, window,
                                   distance_weighting, threads, memory_limit, tmp_dir)
    job.run()
    return job.upper_units()


def csr_from_units(rows: np.ndarray, cols: np.ndarray, units: np.ndarray, unit: int, vocab_size: int,
                   threads: int) -> sp.csr_matrix:
    """The symmetric float32 matrix of upper-triangle entries in units
    (sorted by (row, col), each pair once), mirrored on `threads` threads."""
    indptr, indices, data = _glove.csr_from_upper(rows, cols, units, unit, vocab_size, threads)
    return sp.csr_matrix((data, indices, indptr), shape=(vocab_size, vocab_size))
