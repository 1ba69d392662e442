"""Counting the words of a corpus with the C counter (csrc/vocab.c): in one
pass, or on several threads over byte ranges of a large plain file, each
thread counting its range into tables split by hash, then merging one table
of all of them per thread. The cluster layer counts its shards with the same
function. count_with_ids also keeps each token's provisional id, so that the
corpus is encoded without a second pass over its text (CountedIds)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Iterable, Sequence

from . import _tokenize
from .corpus import Corpus, CorpusSource, EncodedCorpus, IdSink, encoded_in_memory
from .progress import reading
from .shards import map_in_threads, position_origin

# Chunks read by a counting thread that keeps ids: its ids array grows by
# 4 bytes per byte read, freed into that thread's malloc arena, which keeps it.
IDS_CHUNK_BYTES = 1 << 20


def count_chunks(chunks: Iterable[bytes], max_vocab_size: int | None = None,
                 parts: int = 1, origin: int = 0) -> _tokenize.WordCounter:
    """Counts the words of byte chunks with the C counter (pruning past
    max_vocab_size distinct words), into `parts` tables (merge_counters),
    the tokens' positions from `origin` (shards.position_origin)."""
    counter = _tokenize.WordCounter(max_vocab_size or 0, parts, origin)
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
    consumed: some tables are taken over rather than copied, the others
    left naming their words' places in the merged count (CountedIds)."""
    parts = counters[0].parts
    merged = _tokenize.WordCounter(0, parts)
    with ThreadPoolExecutor(max_workers=parts) as pool:
        list(pool.map(lambda p: merged.absorb_part(counters, p), range(parts)))
    for c in counters:
        merged.add_totals(c)
    return merged


def count_corpus(corpus: CorpusSource | Corpus, max_vocab_size: int | None, threads: int,
                 progress: bool | None = None) -> _tokenize.WordCounter:
    """The C counter fed the whole corpus: on `threads` byte ranges at once
    for a large uncompressed file (each range pruned past max_vocab_size /
    threads words, see Vocabulary.build), else in one pass."""
    corpus = Corpus.of(corpus)
    bar = reading(corpus, "counting words", progress)
    on_bytes = bar.add if bar is not None else None
    try:
        if threads > 1 and corpus.splittable:
            limit = thread_vocab_size(max_vocab_size, threads)
            counters = map_in_threads(corpus.path, threads,  # type: ignore[arg-type]
                                      lambda i, shard: count_chunks(corpus.shard_chunks(shard, on_bytes=on_bytes),
                                                                    limit, threads, position_origin(i)))
            return merge_counters(counters)
        return count_chunks(corpus.chunks(on_bytes=on_bytes), max_vocab_size)
    finally:
        if bar is not None:
            bar.close()


class CountedIds:
    """The count of a plain file made on several threads (count_with_ids),
    with the provisional id of each of its tokens: encode() turns them into
    the corpus's ids for a vocabulary taken from `counter`, in one pass over
    the ids instead of a second pass over the text. Holds the threads'
    counters and ids until then (encode gives them up)."""

    def __init__(self, counters: list[_tokenize.WordCounter], sinks: list[IdSink],
                 counter: _tokenize.WordCounter):
        self.counter = counter  # the merged count
        self._counters, self._sinks = counters, sinks

    def encode(self, words_joined: bytes) -> EncodedCorpus:
        """The corpus encoded over the words (joined by newlines, most
        frequent first, all held by the count): exactly the ids that
        corpus.encode gives. Once only."""
        counters, sinks = self._counters, self._sinks
        self._counters = self._sinks = []
        if not counters:
            raise RuntimeError("the provisional ids were already encoded")
        self.counter.number(words_joined)

        def one(i: int) -> int:
            n, oov, eos = counters[i].resolve_ids(self.counter, sinks[i].held, mid_sentence=i > 0)
            sinks[i].kept(n, eos)
            return oov

        with ThreadPoolExecutor(max_workers=len(counters)) as pool:
            oov = sum(pool.map(one, range(len(counters))))
        tokens = sum(c.tokens for c in counters)
        counters.clear()  # the threads' tables go before the ids are joined
        return encoded_in_memory(sinks, tokens, oov)


def count_with_ids(corpus: str | Corpus, threads: int, id_bytes: int,
                   progress: bool | None = None) -> tuple[_tokenize.WordCounter, CountedIds | None]:
    """count_corpus for a plain file on `threads` threads (no pruning), each
    also keeping its tokens' provisional ids while they take at most
    id_bytes / threads bytes: (the merged count, CountedIds), or (the
    merged count, None) where a thread ran past that (encode the usual way)."""
    corpus = Corpus.of(corpus)
    bar = reading(corpus, "counting words", progress)
    on_bytes = bar.add if bar is not None else None
    room = id_bytes // threads

    def one(i: int, shard) -> tuple[_tokenize.WordCounter, IdSink | None]:
        counter = _tokenize.WordCounter(0, threads, position_origin(i))
        sink: IdSink | None = IdSink()
        for chunk in corpus.shard_chunks(shard, IDS_CHUNK_BYTES, on_bytes):
            if sink is None:
                counter.feed(chunk)
                continue
            sink.n += sink.fill(counter.feed_ids, chunk)
            if 4 * sink.n > room or counter.ids_unfit:
                sink = None  # past the room for ids: count only
        if sink is not None:
            sink.n += sink.fill(counter.feed_ids, b"", True)
        else:
            counter.feed(b"", final=True)
        return counter, sink

    try:
        results = map_in_threads(corpus.path, threads, one)
    finally:
        if bar is not None:
            bar.close()
    counters = [c for c, _ in results]
    sinks = [s for _, s in results]
    merged = merge_counters(counters)
    if any(s is None for s in sinks) or any(c.ids_unfit for c in counters):
        return merged, None
    return merged, CountedIds(counters, sinks, merged)  # type: ignore[arg-type]
