"""Counting the words of a corpus with the C counter (csrc/vocab.c): in one
pass, or on several threads over byte ranges of a large plain file. The
cluster layer counts its shards with the same function."""

from __future__ import annotations

from . import _tokenize
from .corpus import CorpusSource, iter_chunks, parallel_file
from .shards import iter_shard, map_in_threads


def count_chunks(chunks, max_vocab_size: int | None = None) -> _tokenize.WordCounter:
    """Counts the words of byte chunks with the C counter (pruning past
    max_vocab_size distinct words)."""
    counter = _tokenize.WordCounter(max_vocab_size or 0)
    for chunk in chunks:
        counter.feed(chunk)
    counter.feed(b"", final=True)
    return counter


def count_corpus(corpus: CorpusSource, max_vocab_size: int | None, threads: int) -> _tokenize.WordCounter:
    """The C counter fed the whole corpus: on `threads` byte ranges at once
    for a large uncompressed file without pruning, else in one pass."""
    if threads > 1 and not max_vocab_size and parallel_file(corpus):
        counters = map_in_threads(corpus, threads,  # type: ignore[arg-type]
                                  lambda _, shard: count_chunks(iter_shard(shard)))
        for other in counters[1:]:
            counters[0].merge(other)
        return counters[0]
    return count_chunks(iter_chunks(corpus), max_vocab_size)
