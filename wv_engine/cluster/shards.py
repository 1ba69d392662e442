"""Splitting the input into shards that workers read on their own: byte
ranges of plain text files, cut just after a whitespace byte so that no word
is ever cut in two (a sentence may be: its two halves are trained as two
sentences, and the co-occurrence count stitches them back, see
`context_before`). Compressed files cannot be entered in the middle, so each
is one shard.

Workers open the paths themselves: on a real cluster the files must be on a
filesystem every worker sees, at the same path."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np

from .. import _tokenize
from ..corpus import CHUNK_BYTES, CorpusError, is_compressed, open_binary

WHITESPACE = b" \t\n\r\v\f"  # the C tokenizer's separators (csrc/tokenize.c)
_SCAN = 1 << 16


@dataclass(frozen=True)
class Shard:
    """Bytes [start, end) of path; end = -1: to the end (compressed files)."""

    path: str
    start: int
    end: int

    @property
    def compressed(self) -> bool:
        return self.end < 0


def _first_separator(text: bytes) -> int:
    return min((i for i in (text.find(bytes([c])) for c in WHITESPACE) if i >= 0), default=len(text))


def _next_cut(f, offset: int, size: int) -> int:
    """The first position >= offset that follows a whitespace byte (or the end)."""
    if offset <= 0:
        return 0
    f.seek(offset - 1)
    pos = offset - 1
    while pos < size:
        block = f.read(_SCAN)
        if not block:
            break
        first = _first_separator(block)
        if first < len(block):
            return pos + first + 1
        pos += len(block)
    return size


def make_shards(paths: str | os.PathLike | Sequence[str | os.PathLike], parts: int) -> list[Shard]:
    """About `parts` shards over the files, in reading order: plain files are
    cut into byte ranges in proportion to their size, compressed ones are a
    shard each. Raises CorpusError for a missing, unreadable or empty input."""
    if parts < 1:
        raise ValueError(f"parts must be >= 1, got {parts}")
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [os.path.abspath(os.fspath(p)) for p in paths]
    if not paths:
        raise CorpusError("no input files")
    plain = {p: not is_compressed(p) for p in paths}  # also checks each file exists
    total = sum(os.path.getsize(p) for p in paths if plain[p]) or 1
    shards: list[Shard] = []
    for p in paths:
        size = os.path.getsize(p)
        if not plain[p]:
            shards.append(Shard(p, 0, -1))
            continue
        if size == 0:
            continue
        k = max(1, round(parts * size / total))
        with open(p, "rb") as f:
            cuts = sorted({_next_cut(f, size * i // k, size) for i in range(k)} | {size})
        shards += [Shard(p, a, b) for a, b in zip(cuts, cuts[1:]) if b > a]
    if not shards:
        raise CorpusError(f"the input is empty: {', '.join(paths)}")
    return shards


def iter_shard(shard: Shard, chunk_bytes: int = CHUNK_BYTES) -> Iterator[bytes]:
    """The shard's bytes in chunks (what the C tokenizer is fed)."""
    if shard.compressed:
        with open_binary(shard.path) as f:
            while chunk := f.read(chunk_bytes):
                yield chunk
        return
    with open(shard.path, "rb") as f:
        f.seek(shard.start)
        left = shard.end - shard.start
        while left > 0:
            chunk = f.read(min(chunk_bytes, left))
            if not chunk:
                raise CorpusError(f"{shard.path} is shorter than when it was split into shards "
                                  f"(changed while training?)")
            left -= len(chunk)
            yield chunk


def context_before(shard: Shard, max_bytes: int) -> tuple[bytes, bool]:
    """The text just before the shard that belongs to the same sentence, at
    most max_bytes of it, starting at a token boundary: (text, complete),
    complete when it reaches back to the line's (or the file's) start.
    Empty and complete for the first shard of a file or a shard that starts
    a line."""
    if shard.compressed or shard.start == 0:
        return b"", True
    lo = max(0, shard.start - max_bytes)
    with open(shard.path, "rb") as f:
        f.seek(lo)
        text = f.read(shard.start - lo)
    line_start = text.rfind(b"\n") + 1
    if line_start > 0 or lo == 0:
        return text[line_start:], True
    return text[_first_separator(text):], False


def encode_chunks(words: list[bytes], chunks) -> np.ndarray:
    """Token ids (int32, -1 ends a sentence, out-of-vocabulary words dropped)
    of byte chunks, with the C encoder."""
    encoder = _tokenize.Encoder(words)
    parts = [encoder.encode(c) for c in chunks]
    parts.append(encoder.encode(b"", final=True))
    return np.concatenate(parts)


SHARD_BYTES = 256 << 20  # a counting task's input: big enough to amortise, small enough to balance


def corpus_paths(corpus) -> list[str]:
    """The file paths of a corpus given to a cluster call: a path or a list
    of paths. In-memory token lists cannot be read by remote workers."""
    if isinstance(corpus, (str, os.PathLike)):
        return [os.fspath(corpus)]
    if isinstance(corpus, (list, tuple)) and corpus and all(isinstance(p, (str, os.PathLike)) for p in corpus):
        return [os.fspath(p) for p in corpus]
    raise CorpusError("with a dask client the corpus must be a file path or a list of file paths "
                      "that every worker can read (token lists in memory are not sent to workers)")


def plan_shards(corpus, n_workers: int) -> list[Shard]:
    """Shards for counting: at least one per worker, at most SHARD_BYTES each
    (plain files)."""
    paths = corpus_paths(corpus)
    total = sum(os.path.getsize(p) for p in paths if os.path.isfile(p))
    return make_shards(paths, max(n_workers, -(-total // SHARD_BYTES)))
