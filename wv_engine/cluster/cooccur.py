"""Counting GloVe co-occurrences on a cluster, exactly.

Each worker encodes its shard against the broadcast vocabulary and counts it
with the C counter. A shard that starts inside a sentence first takes the
last `window` in-vocabulary words before it as left context: it counts
(context + shard) and subtracts the count of the context alone, which
leaves exactly the pairs with a word in the shard. Counts stay integers
(units of 1/LCM(1..window), csrc/cooccur.h), so the sums over shards are
exact and the final matrix is bit-identical to the one-machine count.

Partial counts are split into row blocks of the upper triangle and summed
pairwise per block on the workers; only the finished blocks come to the
caller, one at a time, to be assembled into the CSR matrix."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..cooccur_units import count_upper, csr_from_units
from ..settings import threads_for
from .client import pick, result, scatter, show_progress, submit, tree_reduce, worker_addresses
from .shards import Shard, context_before, encode_chunks, iter_shard, plan_shards

CONTEXT_START_BYTES = 1 << 16


@dataclass
class UpperPart:
    """Part of the upper triangle: entries sorted by (row, col), integer units."""

    rows: np.ndarray  # int32
    cols: np.ndarray  # int32
    units: np.ndarray  # int64
    unit: int


def _aggregate(rows, cols, units, unit, vocab_size: int) -> UpperPart:
    """Sums repeated (row, col) entries exactly and drops zeros; sorted."""
    key = rows.astype(np.int64) * vocab_size + cols
    order = np.argsort(key, kind="stable")
    key, units = key[order], units[order]
    if len(key) == 0:
        return UpperPart(rows[:0], cols[:0], units[:0], unit)
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    sums = np.add.reduceat(units, starts)
    key = key[starts]
    nz = sums != 0
    key, sums = key[nz], sums[nz]
    return UpperPart((key // vocab_size).astype(np.int32), (key % vocab_size).astype(np.int32), sums, unit)


def _left_context(shard: Shard, words: list[bytes], window: int) -> np.ndarray:
    """The last `window` in-vocabulary ids of the shard's sentence before it."""
    span = CONTEXT_START_BYTES
    while True:
        text, complete = context_before(shard, span)
        ids = encode_chunks(words, [text])
        ids = ids[ids >= 0]
        if complete or len(ids) >= window:
            return ids[-window:] if len(ids) > window else ids
        span *= 4


def _count_upper(ids: np.ndarray, vocab_size: int, window: int, distance_weighting: bool, threads: int,
                 memory_limit: int, tmp_dir: str) -> UpperPart:
    return UpperPart(*count_upper(ids, vocab_size, window, distance_weighting, threads_for(threads, len(ids)),
                                  memory_limit, tmp_dir))


def count_shard(shard: Shard, words: list[bytes], window: int, distance_weighting: bool, threads: int,
                memory_limit: int, tmp_dir: str | None, row_bounds: list[int]) -> list[UpperPart]:
    """(worker) The shard's exact contribution, split into row blocks."""
    V = len(words)
    tmp_dir = tmp_dir or tempfile.gettempdir()
    ids = encode_chunks(words, iter_shard(shard))
    context = _left_context(shard, words, window)
    whole = _count_upper(np.concatenate([context, ids]), V, window, distance_weighting, threads,
                         memory_limit, tmp_dir)
    if len(context) > 1:  # pairs inside the context belong to the previous shard
        inner = _count_upper(context, V, window, distance_weighting, 1, memory_limit, tmp_dir)
        whole = _aggregate(np.r_[whole.rows, inner.rows], np.r_[whole.cols, inner.cols],
                           np.r_[whole.units, -inner.units], whole.unit, V)
    cuts = np.searchsorted(whole.rows, row_bounds)
    return [UpperPart(whole.rows[a:b], whole.cols[a:b], whole.units[a:b], whole.unit)
            for a, b in zip(cuts[:-1], cuts[1:])]


def add_parts(a: UpperPart, b: UpperPart, vocab_size: int) -> UpperPart:
    """(worker) The exact sum of two parts of the same row block."""
    if a.unit != b.unit:
        raise ValueError("parts counted with different windows cannot be added")
    return _aggregate(np.r_[a.rows, b.rows], np.r_[a.cols, b.cols], np.r_[a.units, b.units], a.unit, vocab_size)


def row_blocks(vocab_size: int, n_blocks: int) -> list[int]:
    """Row boundaries of the blocks; denser at the frequent (low) ids, whose
    rows hold most of the non-zeros."""
    bounds = np.unique((np.linspace(0.0, 1.0, n_blocks + 1) ** 2 * vocab_size).astype(np.int64))
    return sorted({0, vocab_size, *bounds.tolist()})


def count_blocks(client, corpus, vocab, window: int = 10, distance_weighting: bool = True, threads: int = 1,
                 memory_limit: int = 1 << 30, tmp_dir: str | None = None,
                 progress: bool | None = None) -> tuple[list[int], list]:
    """(row bounds, futures of the summed upper-triangle row blocks): the
    exact co-occurrence counts of the file(s), left on the workers."""
    workers = worker_addresses(client)
    shards = plan_shards(corpus, len(workers))
    V = len(vocab)
    bounds = row_blocks(V, max(1, 2 * len(workers)))
    [words] = scatter(client, [vocab.words_as_bytes()], "sending the vocabulary")
    per_shard = [submit(client, count_shard, s, words, window, distance_weighting, threads, memory_limit,
                        tmp_dir, bounds, worker=workers[i % len(workers)]) for i, s in enumerate(shards)]
    show_progress(per_shard, [_size(s) for s in shards], "co-occurrences", progress, "B")
    blocks = [tree_reduce(client, [pick(client, f, b) for f in per_shard], add_parts, V)
              for b in range(len(bounds) - 1)]
    return bounds, blocks


def gather_matrix(blocks: list, vocab_size: int, threads: int = 1) -> sp.csr_matrix:
    """The full symmetric float32 CSR from the upper-triangle blocks, which
    come to the caller one at a time (mirrored on `threads` threads)."""
    parts = []
    for fut in blocks:
        parts.append(result(fut, "counting co-occurrences"))
        fut.release()
    if len({p.unit for p in parts}) != 1:
        raise RuntimeError("row blocks disagree on the count unit")
    rows = np.concatenate([p.rows for p in parts])
    cols = np.concatenate([p.cols for p in parts])
    units = np.concatenate([p.units for p in parts])
    unit = parts[0].unit
    del parts
    return csr_from_units(rows, cols, units, unit, vocab_size, threads)


def count_cooccurrence(client, corpus, vocab, window: int = 10, distance_weighting: bool = True,
                       threads: int = 1, memory_limit: int = 1 << 30, tmp_dir: str | None = None,
                       progress: bool | None = None) -> sp.csr_matrix:
    """The co-occurrence matrix of the file(s), counted by the cluster's
    workers; equal, bit for bit, to cooccur.count on one machine."""
    _, blocks = count_blocks(client, corpus, vocab, window, distance_weighting, threads, memory_limit, tmp_dir,
                             progress)
    return gather_matrix(blocks, len(vocab), threads)


def _size(shard: Shard) -> int:
    return (shard.end - shard.start) if not shard.compressed else os.path.getsize(shard.path)
