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

import os
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

import numpy as np

from .. import _tokenize
from ..corpus import check_corpus, collect_ids, is_path
from ..errors import CorpusError
from ..files import CHUNK_BYTES, DECOMPRESSION_ERRORS, check_corpus_text, open_binary
from ..vocab import Vocabulary
from ..wordcount import count_chunks

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


class Documents:
    """A document source resolved once (the module docstring says what it
    may be); `Documents.of(x)` resolves x unless it is one already."""

    def __init__(self, source: Any) -> None:
        if isinstance(source, Documents):
            raise TypeError("Documents.of(documents) takes Documents as they are")
        self.source = source
        self.path: str | None = os.fspath(source) if is_path(source) else None
        if self.path is not None:
            check_corpus_text(self.path)
        else:
            check_corpus(source)  # re-iterable, not a str or a one-shot generator

    @classmethod
    def of(cls, source: Any) -> "Documents":
        return source if isinstance(source, Documents) else cls(source)

    def __str__(self) -> str:
        return self.path or f"an iterable of documents ({type(self.source).__name__})"

    # ---------------------------------------------------------------- reading
    def _pieces(self) -> Iterator[tuple[bytes, list[list[bytes] | None] | int]]:
        """(text, tags) for consecutive runs of whole documents: text their
        words, a line each; tags each document's tags (None: its line
        number), or the number of documents when they are all tagged by
        their line numbers."""
        if self.path is not None:
            yield from _file_pieces(self.path)
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
        self.n_docs = self.tag_bound = 0

        def chunks() -> Iterator[bytes]:
            for text, tags in self._pieces():
                n = tags if isinstance(tags, int) else len(tags)
                self.n_docs += n
                self.tag_bound += n if isinstance(tags, int) else sum(1 if t is None else len(t) for t in tags)
                yield text
        counter = count_chunks(chunks(), max_vocab_size)
        if self.n_docs == 0:
            raise CorpusError(f"no documents in {self}")
        return Vocabulary.from_counter(counter, str(self), min_count, max_vocab_size, max_final_vocab)

    def encode(self, vocab: Vocabulary | None, keys: dict[str, int] | None = None) -> EncodedDocuments:
        """The documents' word ids for `vocab` and their tags' rows: keys met
        for the first time are appended to `keys` (a new dict by default)
        and take the next rows."""
        words = vocab.words_joined() if vocab is not None else b""
        sentinel = len(vocab) if vocab is not None else 0
        encoder = _tokenize.Encoder(words + b"\n" + SENTINEL if words else SENTINEL)
        keys = {} if keys is None else keys
        tag_rows: list[int] = []
        tag_counts: list[int] = []
        line = 0

        def pieces() -> Iterator[np.ndarray]:
            nonlocal line
            for text, tags in self._pieces():
                if isinstance(tags, int):  # tagged by line number
                    for n in range(line, line + tags):
                        tag_rows.append(keys.setdefault(str(n), len(keys)))
                    tag_counts.extend([1] * tags)
                    line += tags
                else:
                    for doc_tags in tags:
                        named = [str(line).encode()] if doc_tags is None else doc_tags
                        tag_counts.append(len(named))
                        for tag in named:
                            tag_rows.append(keys.setdefault(tag.decode("utf-8", "surrogateescape"), len(keys)))
                        line += 1
                yield encoder.encode(_with_sentinels(text))
            yield encoder.encode(b"", final=True)

        ids = collect_ids(pieces())
        starts = ids == sentinel
        kept = (ids >= 0) & ~starts
        words_before = np.concatenate([[0], np.cumsum(kept, dtype=np.int64)])
        doc_start = np.append(words_before[:-1][starts], words_before[-1]).astype(np.int64)
        tag_start = np.concatenate([[0], np.cumsum(np.asarray(tag_counts, dtype=np.int64))])
        if len(doc_start) - 1 != line:
            raise CorpusError(f"{self}: {line:,} documents read, {len(doc_start) - 1:,} encoded")
        return EncodedDocuments(ids[kept], doc_start, tag_start.astype(np.int64), np.asarray(tag_rows, np.int32),
                                list(keys))


def _with_sentinels(text: bytes) -> bytes:
    """Each line of text (newline-ended) started by the sentinel token."""
    if not text:
        return b""
    body = text[:-1] if text.endswith(b"\n") else text
    return SENTINEL + b" " + body.replace(b"\n", b"\n" + SENTINEL + b" ") + b"\n"


def _file_pieces(path: str) -> Iterator[tuple[bytes, list[list[bytes] | None] | int]]:
    """A text file's documents in runs of whole lines (CHUNK_BYTES or so)."""
    rest = b""
    try:
        with open_binary(path) as f:
            while True:
                data = f.read(CHUNK_BYTES)
                if not data:
                    break
                data = rest + data
                cut = data.rfind(b"\n") + 1
                rest = data[cut:]
                if cut:
                    yield _tagged(data[:cut])
    except DECOMPRESSION_ERRORS as exc:
        raise CorpusError(f"cannot read {path}: {exc}") from None
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
        line = " ".join(words).encode("utf-8", "surrogateescape")
        if len(line.split()) != len(words):
            raise CorpusError(f"document {n} has an empty word or a word holding whitespace; words are "
                              "whitespace-separated in wv_engine")
        text.append(line)
        tags.append(doc_tags)
        size += len(line) + 1
        if size >= CHUNK_BYTES:
            yield b"\n".join(text) + b"\n", tags
            text, tags, size = [], [], 0
    if text:
        yield b"\n".join(text) + b"\n", tags


def _item(n: int, item: Any) -> tuple[list[str], list[bytes]]:
    """An iterable's document n as (words, tags as UTF-8 keys)."""
    if hasattr(item, "words") and hasattr(item, "tags"):
        words, tags = item.words, item.tags
    elif isinstance(item, (tuple, list)) and len(item) == 2:
        words, tags = item
    else:
        raise CorpusError(f"document {n} is a {type(item).__name__}: give (words, tags) or an object with "
                          ".words and .tags (TaggedDocument)")
    if isinstance(words, (str, bytes)):
        raise CorpusError(f"document {n}'s words are a {type(words).__name__}, not a list of words: split it first")
    if isinstance(tags, (str, bytes, int)):
        raise CorpusError(f"document {n}'s tags are a {type(tags).__name__}, not a list of tags: give [tag]")
    keys = []
    for tag in tags:
        if isinstance(tag, bool) or not isinstance(tag, (str, int, np.integer)):
            raise CorpusError(f"document {n} has a tag {tag!r}: a tag is a str or an int")
        keys.append(str(tag).encode("utf-8", "surrogateescape"))
    return list(words), keys
