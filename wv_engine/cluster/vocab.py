"""Counting words on a cluster: each worker counts its shards with the C
counter; the counts merge pairwise in a tree on the workers. Without
max_vocab_size pruning the result equals the one-machine count exactly
(shards are cut between words, so every token is seen once)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..corpus import CorpusError
from ..wordcount import count_chunks
from .client import result, show_progress, submit, tree_reduce, worker_addresses
from ..shards import position_origin
from .shards import Shard, iter_shard, plan_shards


@dataclass
class WordCounts:
    """Raw counts of part of a corpus (words as bytes, any order), with the
    position where each word was first seen (shards.position_origin)."""

    words: list[bytes]
    counts: np.ndarray  # int64
    firsts: np.ndarray  # int64
    tokens: int
    pruned: bool


def _prune(counts: WordCounts, max_size: int | None) -> WordCounts:
    """Drops the rarest words until at most max_size remain (as the C
    counter's pruning does while counting: whole count levels at a time)."""
    if not max_size or len(counts.words) <= max_size:
        return counts
    threshold = int(np.sort(counts.counts)[::-1][max_size])  # drop every word at or below the first level past the cap
    keep = counts.counts > threshold
    return WordCounts([w for w, k in zip(counts.words, keep) if k], counts.counts[keep], counts.firsts[keep],
                      counts.tokens, True)


def count_shard(shard: Shard, index: int, max_vocab_size: int | None) -> WordCounts:
    """(worker) The word counts of one shard, the index-th of the corpus."""
    counter = count_chunks(iter_shard(shard), max_vocab_size, origin=position_origin(index))
    words, counts, firsts = counter.sorted_words(1, with_firsts=True)
    return WordCounts(list(words), np.asarray(counts, dtype=np.int64), firsts, int(counter.tokens),
                      counter.prunes > 0)


def merge_counts(a: WordCounts, b: WordCounts, max_vocab_size: int | None) -> WordCounts:
    """(worker) The sum of two partial counts (each word first seen where the
    earlier saw it), pruned to max_vocab_size."""
    index = dict(zip(a.words, range(len(a.words))))
    at = np.fromiter((index.get(w, -1) for w in b.words), dtype=np.int64, count=len(b.words))
    hit, new = at >= 0, at < 0
    held = at[hit]  # a part's words are distinct: no row is hit twice
    counts, firsts = a.counts.copy(), a.firsts.copy()
    counts[held] += b.counts[hit]
    firsts[held] = np.minimum(firsts[held], b.firsts[hit])
    merged = WordCounts(a.words + [w for w, n in zip(b.words, new.tolist()) if n],
                        np.concatenate([counts, b.counts[new]]), np.concatenate([firsts, b.firsts[new]]),
                        a.tokens + b.tokens, a.pruned or b.pruned)
    return _prune(merged, max_vocab_size)


def count_words(client, corpus, max_vocab_size: int | None = None,
                progress: bool | None = None) -> tuple[list[bytes], np.ndarray, int, int | None]:
    """(raw words, counts, total tokens, distinct words or None if pruned),
    sorted as Vocabulary.build sorts them: count descending, then first
    seen, then bytes."""
    shards = plan_shards(corpus, len(worker_addresses(client)))
    parts = [submit(client, count_shard, s, i, max_vocab_size) for i, s in enumerate(shards)]
    show_progress(parts, [1] * len(parts), "counting words", progress, " shards")
    merged = result(tree_reduce(client, parts, merge_counts, max_vocab_size), "counting words")
    if merged.tokens == 0:
        raise CorpusError(f"the corpus has no words: {', '.join(sorted({s.path for s in shards}))}")
    order = sorted(range(len(merged.words)),
                   key=lambda i: (-int(merged.counts[i]), int(merged.firsts[i]), merged.words[i]))
    words = [merged.words[i] for i in order]
    counts = merged.counts[np.asarray(order, dtype=np.int64)]
    return words, counts, merged.tokens, None if merged.pruned else len(words)
