"""Counting the words of a corpus with the C counter (csrc/vocab.c): in one
pass, or on several threads over byte ranges of a large plain file. The
cluster layer counts its shards with the same function."""

from __future__ import annotations

from typing import Iterable

from . import _tokenize
from .corpus import CorpusSource, iter_chunks, parallel_file
from .progress import reading
from .shards import iter_shard, map_in_threads


def count_chunks(chunks: Iterable[bytes], max_vocab_size: int | None = None) -> _tokenize.WordCounter:
    """Counts the words of byte chunks with the C counter (pruning past
    max_vocab_size distinct words)."""
    counter = _tokenize.WordCounter(max_vocab_size or 0)
    for chunk in chunks:
        counter.feed(chunk)
    counter.feed(b"", final=True)
    return counter


def count_corpus(corpus: CorpusSource, max_vocab_size: int | None, threads: int,
                 progress: bool | None = None) -> _tokenize.WordCounter:
    """The C counter fed the whole corpus: on `threads` byte ranges at once
    for a large uncompressed file without pruning, else in one pass."""
    bar = reading(corpus, "counting words", progress)
    on_bytes = bar.add if bar is not None else None
    try:
        if threads > 1 and not max_vocab_size and parallel_file(corpus):
            counters = map_in_threads(corpus, threads,  # type: ignore[arg-type]
                                      lambda _, shard: count_chunks(iter_shard(shard, on_bytes=on_bytes)))
            for other in counters[1:]:
                counters[0].merge(other)
            return counters[0]
        return count_chunks(iter_chunks(corpus, on_bytes=on_bytes), max_vocab_size)
    finally:
        if bar is not None:
            bar.close()
