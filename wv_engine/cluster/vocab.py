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
from .shards import Shard, iter_shard, plan_shards


@dataclass
class WordCounts:
    """Raw counts of part of a corpus (words as bytes, any order)."""

    words: list[bytes]
    counts: np.ndarray  # int64
    tokens: int
    pruned: bool


def _prune(words: list[bytes], counts: np.ndarray, max_size: int | None) -> tuple[list[bytes], np.ndarray, bool]:
    """Drops the rarest words until at most max_size remain (as the C
    counter's pruning does while counting: whole count levels at a time)."""
    if not max_size or len(words) <= max_size:
        return words, counts, False
    threshold = int(np.sort(counts)[::-1][max_size])  # drop every word at or below the first level past the cap
    keep = counts > threshold
    return [w for w, k in zip(words, keep) if k], counts[keep], True


def count_shard(shard: Shard, max_vocab_size: int | None) -> WordCounts:
    """(worker) The word counts of one shard."""
    counter = count_chunks(iter_shard(shard), max_vocab_size)
    words, counts = counter.sorted_words(1)
    return WordCounts(list(words), np.asarray(counts, dtype=np.int64), int(counter.tokens), counter.prunes > 0)


def merge_counts(a: WordCounts, b: WordCounts, max_vocab_size: int | None) -> WordCounts:
    """(worker) The sum of two partial counts, pruned to max_vocab_size."""
    total = dict(zip(a.words, a.counts.tolist()))
    for w, c in zip(b.words, b.counts.tolist()):
        total[w] = total.get(w, 0) + c
    words = list(total)
    counts = np.fromiter(total.values(), dtype=np.int64, count=len(words))
    words, counts, pruned = _prune(words, counts, max_vocab_size)
    return WordCounts(words, counts, a.tokens + b.tokens, a.pruned or b.pruned or pruned)


def count_words(client, corpus, max_vocab_size: int | None = None,
                progress: bool | None = None) -> tuple[list[bytes], np.ndarray, int, int | None]:
    """(raw words, counts, total tokens, distinct words or None if pruned),
    sorted as Vocabulary.build sorts them: count descending, ties by bytes."""
    shards = plan_shards(corpus, len(worker_addresses(client)))
    parts = [submit(client, count_shard, s, max_vocab_size) for s in shards]
    show_progress(parts, [1] * len(parts), "counting words", progress, " shards")
    merged = result(tree_reduce(client, parts, merge_counts, max_vocab_size), "counting words")
    if merged.tokens == 0:
        raise CorpusError(f"the corpus has no words: {', '.join(sorted({s.path for s in shards}))}")
    order = sorted(range(len(merged.words)), key=lambda i: (-int(merged.counts[i]), merged.words[i]))
    words = [merged.words[i] for i in order]
    counts = merged.counts[np.asarray(order, dtype=np.int64)]
    return words, counts, merged.tokens, None if merged.pruned else len(words)
