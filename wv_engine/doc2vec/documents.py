"""Documents for paragraph vectors, resolved once: a text file of one
document a line, or a re-iterable of (words, tags).

In a file, the text before a line's first TAB is its tags, separated by
spaces (later TABs are whitespace among the words); a line without a TAB is
tagged with its line number (0 first), as gensim's TaggedLineDocument tags
it. An empty line is an empty document: it keeps its place and its tag.
From an iterable, each item is a TaggedDocument-like object (.words,
.tags) or a (words, tags) pair; a tag is a str or an int, and its key (the
name of its vector) is str(tag).

Words are counted and encoded by the C tokenizer (whitespace-separated
tokens, as the word2vec corpus); a sentinel token no text holds starts each
document while encoding, so that documents without a known word keep their
place."""

from __future__ import annotations

import itertools
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from .. import _tokenize
from ..corpus import PARALLEL_MIN_BYTES, check_corpus, collect_ids, is_path
from ..errors import CorpusError
from ..files import CHUNK_BYTES, DECOMPRESSION_ERRORS, check_corpus_text, is_compressed, open_binary
from ..shards import iter_shard, make_shards, position_origin
from ..vocab import Vocabulary
from ..wordcount import count_chunks, merge_counters, thread_vocab_size

__all__ = ["Documents", "EncodedDocuments"]

# Starts each document while encoding; a text file cannot hold it (files.check_text refuses NUL bytes).
SENTINEL = b"\x00doc\x00"


@dataclass
class EncodedDocuments:
    """Documents as the C core takes them: document d is
    words[doc_start[d]:doc_start[d + 1]] (word ids, unknown words dropped),
    tagged tags[tag_start[d]:tag_start[d + 1]] (rows of the tag vectors,
    named keys[row])."""

    words: np.ndarray       # int32
    doc_start: np.ndarray   # int64, n_docs + 1
    tag_start: np.ndarray   # int64, n_docs + 1
    tags: np.ndarray        # int32
    keys: list[str]

    @property
    def n_docs(self) -> int:
        return len(self.doc_start) - 1


Pieces = Iterator[tuple[bytes, "list[list[bytes] | None] | int"]]


class Documents:
    """A document source resolved once (the module docstring says what it
    may be); `Documents.of(x)` resolves x unless it is one already. A large
    plain file is read on `threads` threads, in byte ranges of whole lines."""

    def __init__(self, source: Any, threads: int = 1) -> None:
        if isinstance(source, Documents):
            raise TypeError("Documents.of(documents) takes Documents as they are")
        self.source, self.threads = source, threads
        self.path: str | None = os.fspath(source) if is_path(source) else None
        if self.path is not None:
            check_corpus_text(self.path)
        else:
            check_corpus(source)  # re-iterable, not a str or a one-shot generator
        self.n_docs = self.tag_bound = 0  # count() sets them
        self.untagged = False

    @classmethod
    def of(cls, source: Any, threads: int = 1) -> "Documents":
        return source if isinstance(source, Documents) else cls(source, threads)

    @classmethod
    def of_word_lists(cls, lists: list) -> "Documents":
        """Untagged documents, each a list of words (inference's), tagged by
        their place; read in runs joined and checked at once."""
        documents = cls(lists)
        documents.untagged = True
        return documents

    def _runs(self) -> list[Callable[[], Pieces]]:
        """The documents as runs to read in order, each on a thread of its
        own: byte ranges of whole lines of a large plain file, else one."""
        if (self.path is None or self.threads < 2 or is_compressed(self.path)
                or os.path.getsize(self.path) < PARALLEL_MIN_BYTES):
            return [self._pieces]
        return [lambda shard=shard: _line_pieces(iter_shard(shard))
                for shard in make_shards(self.path, self.threads, b"\n")]

    def __str__(self) -> str:
        return self.path or f"an iterable of documents ({type(self.source).__name__})"

    # ---------------------------------------------------------------- reading
    def _pieces(self) -> Pieces:
        """(text, tags) for consecutive runs of whole documents: text their
        words, a line each; tags each document's tags (None: its line
        number), or the number of documents when they are all tagged by
        their line numbers."""
        if self.path is not None:
            yield from _file_pieces(self.path)
        elif self.untagged:
            yield from _word_list_pieces(self.source)
        else:
            yield from _iterable_pieces(self.source)

    def text_chunks(self) -> Iterator[bytes]:
        """The documents' words as byte chunks, a line a document."""
        for text, _ in self._pieces():
            yield text

    def count(self, min_count: int, max_vocab_size: int | None = None,
              max_final_vocab: int | None = None) -> Vocabulary:
        """The vocabulary of the documents' words (Vocabulary.build's limits);
        the documents and their tags are counted too (n_docs, and tag_bound:
        at least as many as the distinct tags), for the memory check made
        before they are encoded."""
        runs = self._runs()
        tallies = [[0, 0] for _ in runs]  # each run's documents and tags

        def count(i: int) -> _tokenize.WordCounter:
            def texts() -> Iterator[bytes]:
                for text, tags in runs[i]():
                    n = tags if isinstance(tags, int) else len(tags)
                    tallies[i][0] += n
                    tallies[i][1] += n if isinstance(tags, int) else sum(1 if t is None else len(t) for t in tags)
                    yield text
            if len(runs) == 1:
                return count_chunks(texts(), max_vocab_size)
            return count_chunks(texts(), thread_vocab_size(max_vocab_size, len(runs)), len(runs), position_origin(i))

        counter = _in_threads(count, len(runs))
        counter = counter[0] if len(counter) == 1 else merge_counters(counter)
        self.n_docs, self.tag_bound = (sum(t[k] for t in tallies) for k in (0, 1))
        if self.n_docs == 0:
            raise CorpusError(f"no documents in {self}")
        return Vocabulary.from_counter(counter, str(self), min_count, max_vocab_size, max_final_vocab)

    def encode(self, vocab: Vocabulary | None, keys: dict[str, int] | None = None) -> EncodedDocuments:
        """The documents' word ids for `vocab` and their tags' rows: keys met
        for the first time are appended to `keys` (a new dict by default)
        and take the next rows."""
        joined = vocab.words_joined() if vocab is not None else b""
        sentinel = len(vocab) if vocab is not None else 0
        table = joined + b"\n" + SENTINEL if joined else SENTINEL
        runs = self._runs()

        def encode_run(i: int) -> tuple[np.ndarray, list]:
            encoder = _tokenize.Encoder(table)  # one a thread
            tags: list = []

            def ids() -> Iterator[np.ndarray]:
                for text, run_tags in runs[i]():
                    tags.append(run_tags)
                    yield encoder.encode(_with_sentinels(text))
                yield encoder.encode(b"", final=True)
            return collect_ids(ids()), tags

        done = _in_threads(encode_run, len(runs))
        keys = {} if keys is None else keys
        tag_rows, tag_counts, line = _tag_rows([t for _, tags in done for t in tags], keys)
        ids = done[0][0] if len(done) == 1 else collect_ids(ids for ids, _ in done)
        del done
        starts = np.flatnonzero(ids == sentinel)
        if len(starts) != line:
            raise CorpusError(f"{self}: {line:,} documents read, {len(starts):,} encoded")
        ends = np.flatnonzero(ids < 0)
        # the words before each document: its place, less the sentinels and sentence ends before it
        doc_start = starts - np.arange(len(starts)) - np.searchsorted(ends, starts)
        doc_start = np.append(doc_start, len(ids) - len(starts) - len(ends)).astype(np.int64)
        words = ids[(ids >= 0) & (ids != sentinel)]
        tag_start = np.concatenate([[0], np.cumsum(tag_counts, dtype=np.int64)])
        return EncodedDocuments(words, doc_start, tag_start, tag_rows, list(keys))


def _tag_rows(pieces: list, keys: dict[str, int]) -> tuple[np.ndarray, np.ndarray, int]:
    """The rows of every document's tags, in order (keys met for the first
    time appended to `keys`), each document's number of tags, and the
    number of documents. Millions of tags: the per-tag work is in C
    (map, dict.fromkeys), the Python loop runs once a document at most."""
    names: list[str] = []
    counts: list[int] = []
    line = 0
    for tags in pieces:
        if isinstance(tags, int):  # tagged by line number
            names.extend(map(str, range(line, line + tags)))
            counts.extend([1] * tags)
            line += tags
            continue
        if None not in tags:  # every line its own tags: joined, decoded and split at once
            counts.extend(map(len, tags))
            if tags:  # a tag holds no whitespace, so no newline
                names.extend(b"\n".join(itertools.chain.from_iterable(tags))
                             .decode("utf-8", "surrogateescape").split("\n"))
            line += len(tags)
            continue
        for doc_tags in tags:
            if doc_tags is None:
                names.append(str(line))
                counts.append(1)
            else:
                names.extend([tag.decode("utf-8", "surrogateescape") for tag in doc_tags])
                counts.append(len(doc_tags))
            line += 1
    if not keys:
        keys.update(zip(dict.fromkeys(names), itertools.count()))
    else:
        for name in dict.fromkeys(names):
            if name not in keys:
                keys[name] = len(keys)
    rows = np.fromiter(map(keys.__getitem__, names), dtype=np.int32, count=len(names))
    return rows, np.asarray(counts, dtype=np.int64), line


def _in_threads(fn: Callable[[int], Any], n: int) -> list:
    """fn(i) for i < n, on n threads (the work is in C, without the GIL), in order."""
    if n == 1:
        return [fn(0)]
    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(fn, range(n)))


def _with_sentinels(text: bytes) -> bytes:
    """Each line of text (newline-ended) started by the sentinel token."""
    if not text:
        return b""
    body = text[:-1] if text.endswith(b"\n") else text
    return SENTINEL + b" " + body.replace(b"\n", b"\n" + SENTINEL + b" ") + b"\n"


def _file_pieces(path: str) -> Pieces:
    """A text file's documents in runs of whole lines (CHUNK_BYTES or so)."""
    def chunks() -> Iterator[bytes]:
        try:
            with open_binary(path) as f:
                while data := f.read(CHUNK_BYTES):
                    yield data
        except DECOMPRESSION_ERRORS as exc:
            raise CorpusError(f"cannot read {path}: {exc}") from None
    return _line_pieces(chunks())


def _line_pieces(chunks: Iterable[bytes]) -> Pieces:
    """Byte chunks recut at line ends, each run of whole lines _tagged."""
    rest = b""
    for data in chunks:
        data = rest + data
        cut = data.rfind(b"\n") + 1
        rest = data[cut:]
        if cut:
            yield _tagged(data[:cut])
    if rest:
        yield _tagged(rest + b"\n")


def _tagged(lines: bytes) -> tuple[bytes, list[list[bytes] | None] | int]:
    """Whole lines (newline-ended) as (words' text, tags): a line's text
    before its first TAB is its tags; a line without one (or with nothing
    before it) is tagged by its number, None here (the count alone when no
    line has a TAB)."""
    if b"\t" not in lines:
        return lines, lines.count(b"\n")
    text, tags = [], []
    for line in lines.split(b"\n")[:-1]:
        head, tab, body = line.partition(b"\t")
        text.append(body if tab else line)
        tags.append(head.split() or None if tab else None)
    return b"\n".join(text) + b"\n", tags


def _iterable_pieces(items: Iterable[Any]) -> Iterator[tuple[bytes, list[list[bytes] | None]]]:
    text: list[bytes] = []
    tags: list[list[bytes] | None] = []
    size = 0
    for n, item in enumerate(items):
        words, doc_tags = _item(n, item)
        line = _line(n, words)
        text.append(line)
        tags.append(doc_tags)
        size += len(line) + 1
        if size >= CHUNK_BYTES:
            yield b"\n".join(text) + b"\n", tags
            text, tags, size = [], [], 0
    if text:
        yield b"\n".join(text) + b"\n", tags


# Words a run of untagged documents holds before it is encoded.
RUN_WORDS = CHUNK_BYTES // 8
# What bytes.split() splits at (and the C tokenizer too).
WHITESPACE = b" \t\n\r\x0b\x0c"


def _word_list_pieces(lists: Iterable[Any]) -> Pieces:
    """Untagged documents, each a list of words, in runs (text, the number
    of documents: tagged by their place)."""
    batch: list[list[str]] = []
    size = 0
    for n, words in enumerate(lists):
        batch.append(_words(n, words))
        size += len(batch[-1])
        if size >= RUN_WORDS:
            yield _joined_run(batch, n + 1 - len(batch)), len(batch)
            batch, size = [], 0
    if batch:
        yield _joined_run(batch, n + 1 - len(batch)), len(batch)


def _joined_run(batch: list[list[str]], first: int) -> bytes:
    """A run of documents as text, a line each, checked at once: no empty
    word, and no whitespace but the spaces and newlines that separate the
    words and the documents (a word holding whitespace would be split)."""
    text = "\n".join(map(" ".join, batch)).encode("utf-8", "surrogateescape") + b"\n"
    words = sum(map(len, batch))
    separators = words - sum(1 for w in batch if w) + len(batch)
    if len(text) - len(text.translate(None, WHITESPACE)) != separators or any("" in w for w in batch):
        for n, w in enumerate(batch):  # which one
            _line(first + n, w)
    return text


def _line(n: int, words: list[str]) -> bytes:
    """Document n's words as a line of text: refused if a word is empty or
    holds whitespace (the text would split otherwise)."""
    line = " ".join(words).encode("utf-8", "surrogateescape")
    if len(line.split()) != len(words):
        raise CorpusError(f"document {n} has an empty word or a word holding whitespace; words are "
                          "whitespace-separated in wv_engine")
    return line


def _words(n: int, words: Any) -> list[str]:
    """Document n's words as a list: refused if they are one str or bytes."""
    if isinstance(words, (str, bytes)):
        raise CorpusError(f"document {n}'s words are a {type(words).__name__}, not a list of words: split it first")
    return words if isinstance(words, list) else list(words)


def _item(n: int, item: Any) -> tuple[list[str], list[bytes]]:
    """An iterable's document n as (words, tags as UTF-8 keys)."""
    if hasattr(item, "words") and hasattr(item, "tags"):
        words, tags = item.words, item.tags
    elif isinstance(item, (tuple, list)) and len(item) == 2:
        words, tags = item
    else:
        raise CorpusError(f"document {n} is a {type(item).__name__}: give (words, tags) or an object with "
                          ".words and .tags (TaggedDocument)")
    words = _words(n, words)
    if isinstance(tags, (str, bytes, int)):
        raise CorpusError(f"document {n}'s tags are a {type(tags).__name__}, not a list of tags: give [tag]")
    keys = []
    for tag in tags:
        if isinstance(tag, bool) or not isinstance(tag, (str, int, np.integer)):
            raise CorpusError(f"document {n} has a tag {tag!r}: a tag is a str or an int")
        keys.append(str(tag).encode("utf-8", "surrogateescape"))
    return words, keys
