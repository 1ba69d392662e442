"""Byte-range shards of plain text files, cut just after a whitespace byte
so that no word is ever cut in two (a sentence may be). Compressed files
cannot be entered in the middle, so each is one shard. Used to read one
file with several threads (corpus.encode) and by the cluster layer."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence, TypeVar

from .errors import CorpusError
from .files import CHUNK_BYTES, is_compressed, open_binary, read_position

WHITESPACE = b" \t\n\r\v\f"  # the C tokenizer's separators (csrc/tokenize.c)
_SCAN = 1 << 16
T = TypeVar("T")


@dataclass(frozen=True)
class Shard:
    """Bytes [start, end) of path; end = -1: to the end (compressed files)."""

    path: str
    start: int
    end: int

    @property
    def compressed(self) -> bool:
        return self.end < 0


def position_origin(index: int) -> int:
    """The first token position of shard `index` of a corpus's shards (in
    reading order), for its word counter (_tokenize.WordCounter): 2**40
    tokens a shard, so that words of equal count sort in the order the
    corpus first shows them whichever shard counted them."""
    return index << 40


def first_separator(text: bytes, separators: bytes = WHITESPACE) -> int:
    return min((i for i in (text.find(bytes([c])) for c in separators) if i >= 0), default=len(text))


def _next_cut(f, offset: int, size: int, separators: bytes = WHITESPACE) -> int:
    """The first position >= offset that follows a separator byte (or the end)."""
    if offset <= 0:
        return 0
    f.seek(offset - 1)
    pos = offset - 1
    while pos < size:
        block = f.read(_SCAN)
        if not block:
            break
        first = first_separator(block, separators)
        if first < len(block):
            return pos + first + 1
        pos += len(block)
    return size


def make_shards(paths: str | os.PathLike | Sequence[str | os.PathLike], parts: int,
                separators: bytes = WHITESPACE) -> list[Shard]:
    """About `parts` shards over the files, in reading order: plain files are
    cut into byte ranges in proportion to their size, just after one of the
    separators (b"\n": whole lines), compressed ones are a shard each.
    Raises CorpusError for a missing, unreadable or empty input."""
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
            cuts = sorted({_next_cut(f, size * i // k, size, separators) for i in range(k)} | {size})
        shards += [Shard(p, a, b) for a, b in zip(cuts, cuts[1:]) if b > a]
    if not shards:
        raise CorpusError(f"the input is empty: {', '.join(paths)}")
    return shards


def iter_shard(shard: Shard, chunk_bytes: int = CHUNK_BYTES,
               on_bytes: Callable[[int], None] | None = None) -> Iterator[bytes]:
    """The shard's bytes in chunks (what the C tokenizer is fed); on_bytes(n)
    is told of each n bytes read from the file on disk."""
    if shard.compressed:
        with open_binary(shard.path) as f:
            seen = 0
            while chunk := f.read(chunk_bytes):
                if on_bytes is not None:
                    pos = read_position(f)
                    on_bytes(pos - seen)
                    seen = pos
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
            if on_bytes is not None:
                on_bytes(len(chunk))
            yield chunk


def map_in_threads(path: str | os.PathLike, parts: int, fn: Callable[[int, Shard], T],
                   separators: bytes = WHITESPACE) -> list[T]:
    """fn(index, shard) for each of about `parts` byte ranges of a file (cut
    after a separator), one thread each (for work done in C without the
    GIL), results in file order."""
    shards = make_shards(path, parts, separators)
    with ThreadPoolExecutor(max_workers=len(shards)) as pool:
        return list(pool.map(fn, range(len(shards)), shards))
