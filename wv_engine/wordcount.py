"""Counting the words of a corpus with the C counter (csrc/vocab.c): in one
pass, or on several threads over byte ranges of a large plain file, each
thread counting its range into tables split by hash, then merging one table
of all of them per thread. The cluster layer counts its shards with the same
function."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Iterable, Sequence

from . import _tokenize
from .corpus import CorpusSource, iter_chunks, parallel_file
from .progress import reading
from .shards import iter_shard, map_in_threads


def count_chunks(chunks: Iterable[bytes], max_vocab_size: int | None = None,
                 parts: int = 1) -> _tokenize.WordCounter:
    """Counts the words of byte chunks with the C counter (pruning past
    max_vocab_size distinct words), into `parts` tables (merge_counters)."""
    counter = _tokenize.WordCounter(max_vocab_size or 0, parts)
    for chunk in chunks:
        counter.feed(chunk)
    counter.feed(b"", final=True)
    return counter


def thread_vocab_size(max_vocab_size: int | None, threads: int) -> int | None:
    """Each of `threads` counters prunes past this many distinct words, so
    that they hold at most max_vocab_size words together."""
    return None if not max_vocab_size else max(1, max_vocab_size // threads)


def merge_counters(counters: Sequence[_tokenize.WordCounter]) -> _tokenize.WordCounter:
    """One counter holding the sum of counters that each have the same
    number of parts P: P threads each merge one part of all of them (no
    locks: a word's part is fixed by its hash). The counters given are
    emptied of some tables (taken over rather than copied)."""
    parts = counters[0].parts
    merged = _tokenize.WordCounter(0, parts)
    with ThreadPoolExecutor(max_workers=parts) as pool:
        list(pool.map(lambda p: merged.absorb_part(counters, p), range(parts)))
    for c in counters:
        merged.add_totals(c)
    return merged


def count_corpus(corpus: CorpusSource, max_vocab_size: int | None, threads: int,
                 progress: bool | None = None) -> _tokenize.WordCounter:
    """The C counter fed the whole corpus: on `threads` byte ranges at once
    for a large uncompressed file (each range pruned past max_vocab_size /
    threads words, see Vocabulary.build), else in one pass."""
    bar = reading(corpus, "counting words", progress)
    on_bytes = bar.add if bar is not None else None
    try:
        if threads > 1 and parallel_file(corpus):
            limit = thread_vocab_size(max_vocab_size, threads)
            counters = map_in_threads(corpus, threads,  # type: ignore[arg-type]
                                      lambda _, shard: count_chunks(iter_shard(shard, on_bytes=on_bytes),
                                                                    limit, threads))
            return merge_counters(counters)
        return count_chunks(iter_chunks(corpus, on_bytes=on_bytes), max_vocab_size)
    finally:
        if bar is not None:
            bar.close()
