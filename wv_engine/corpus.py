"""Reading a corpus (a text file, plain or compressed, or a re-iterable of
token lists) as byte chunks, and encoding it once into int32 token ids.

Text is tokenized in C: whitespace-separated byte tokens, a newline ends a
sentence. Epochs train on the encoded ids and never re-tokenize."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence, Union

import numpy as np

from . import _tokenize
from .errors import CorpusError
from .files import CHUNK_BYTES, DECOMPRESSION_ERRORS, is_compressed, open_binary
from .shards import iter_shard, map_in_threads

__all__ = ["CHUNK_BYTES", "CorpusError", "CorpusSource", "EncodedCorpus", "check_corpus", "collect_ids",
           "describe", "encode", "encode_chunks", "is_compressed", "is_path", "iter_chunks", "iter_encoded",
           "open_binary", "parallel_file"]

CorpusSource = Union[str, os.PathLike, Iterable[Sequence[str]]]


def is_path(source: object) -> bool:
    """True for a file path (str or os.PathLike), False for an iterable."""
    return isinstance(source, (str, os.PathLike))


def check_corpus(source: CorpusSource) -> None:
    """Raises a clear error for what cannot be read twice or at all.

    Iterables must be re-iterable (a list, or an object whose __iter__ starts
    over): a one-shot generator is rejected rather than silently giving an
    empty second pass, because the vocabulary and the encoding each read it."""
    if is_path(source):
        open_binary(source).close()
        return
    if isinstance(source, (bytes, bytearray)):
        raise CorpusError("pass a file path (str) or an iterable of token lists, not bytes")
    try:
        it = iter(source)  # type: ignore[arg-type]
    except TypeError:
        raise CorpusError(
            f"a corpus must be a file path or an iterable of token lists, got {type(source).__name__}"
        ) from None
    if it is source:
        raise CorpusError(
            "the corpus is a one-shot iterator (e.g. a generator), but it must be read twice "
            "(vocabulary, then encoding): pass a list, a re-iterable object, or a file path"
        )


def _file_chunks(path: str | os.PathLike, chunk_bytes: int) -> Iterator[bytes]:
    try:
        with open_binary(path) as f:
            while True:
                chunk = f.read(chunk_bytes)
                if not chunk:
                    return
                yield chunk
    except DECOMPRESSION_ERRORS as exc:
        if isinstance(exc, CorpusError):
            raise
        raise CorpusError(f"cannot read corpus {os.fspath(path)}: {exc}") from exc


def _iterable_chunks(sentences: Iterable[Sequence[str]], chunk_bytes: int) -> Iterator[bytes]:
    lines: list[bytes] = []
    size = 0
    for n, sentence in enumerate(sentences):
        if isinstance(sentence, (str, bytes)):
            raise CorpusError(
                f"sentence {n} is a {type(sentence).__name__}, not a list of tokens: "
                "split it first (e.g. text.split())"
            )
        line = " ".join(sentence).encode("utf-8", "surrogateescape")
        if len(line.split()) != len(sentence):
            raise CorpusError(
                f"sentence {n} has an empty token or a token containing whitespace; "
                "tokens are whitespace-separated in wv_engine"
            )
        lines.append(line)
        size += len(line) + 1
        if size >= chunk_bytes:
            yield b"\n".join(lines) + b"\n"
            lines, size = [], 0
    if lines:
        yield b"\n".join(lines) + b"\n"


def iter_chunks(source: CorpusSource, chunk_bytes: int = CHUNK_BYTES) -> Iterator[bytes]:
    """Yields the corpus as UTF-8 byte chunks of about chunk_bytes (a token
    may straddle two chunks; the C tokenizer joins it)."""
    check_corpus(source)
    if is_path(source):
        return _file_chunks(source, chunk_bytes)  # type: ignore[arg-type]
    return _iterable_chunks(source, chunk_bytes)  # type: ignore[arg-type]


def describe(source: CorpusSource) -> str:
    """A short name of the corpus for messages."""
    return os.fspath(source) if is_path(source) else f"<{type(source).__name__} of token lists>"


@dataclass
class EncodedCorpus:
    """A corpus as token ids: ids (int32, -1 ends a sentence), plus counts.

    tokens: all tokens in the text; words: those in the vocabulary (the ones
    trained on); oov: tokens dropped as out of vocabulary."""

    ids: np.ndarray
    tokens: int
    words: int
    oov: int
    sentences: int


# Below this size a plain file is encoded on one thread: starting more costs
# more than it saves.
PARALLEL_MIN_BYTES = 16 << 20
PARALLEL_CHUNK_BYTES = 1 << 20


def parallel_file(source: CorpusSource) -> bool:
    """True for an uncompressed file large enough to read on several threads
    (in byte ranges: wv_engine.shards)."""
    return (is_path(source) and not is_compressed(source)  # type: ignore[arg-type]
            and os.path.getsize(source) >= PARALLEL_MIN_BYTES)  # type: ignore[arg-type]


def encode(source: CorpusSource, words_as_bytes: list[bytes], cache_path: str | None = None,
           chunk_bytes: int = CHUNK_BYTES, threads: int = 1) -> EncodedCorpus:
    """Encodes the corpus once. With cache_path the ids are written to that
    file and memory-mapped (for corpora larger than RAM); otherwise they stay
    in memory. With threads > 1 an uncompressed file is encoded in that many
    byte ranges at once, to exactly the ids one pass gives."""
    if threads > 1 and cache_path is None and parallel_file(source):
        return _encode_file_in_parallel(source, words_as_bytes, threads, chunk_bytes)  # type: ignore[arg-type]
    encoder = _tokenize.Encoder(words_as_bytes)
    pieces = iter_encoded(encoder, iter_chunks(source, chunk_bytes))
    if cache_path is None:
        return _encoded(collect_ids(pieces), int(encoder.tokens), int(encoder.oov))
    directory = os.path.dirname(os.path.abspath(cache_path))
    fd, tmp = tempfile.mkstemp(prefix=".ids-", dir=directory)
    try:
        n_ids = 0
        with os.fdopen(fd, "wb") as sink:
            for ids in pieces:
                sink.write(ids.tobytes())
                n_ids += len(ids)
        os.replace(tmp, cache_path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    ids_all = np.memmap(cache_path, dtype=np.int32, mode="r") if n_ids else np.zeros(0, np.int32)
    return _encoded(ids_all, int(encoder.tokens), int(encoder.oov))


def _encoded(ids: np.ndarray, tokens: int, oov: int) -> EncodedCorpus:
    n_eos = int(np.count_nonzero(ids == -1))
    sentences = n_eos + (1 if len(ids) and ids[-1] != -1 else 0)
    return EncodedCorpus(ids=ids, tokens=tokens, words=int(len(ids) - n_eos), oov=oov, sentences=sentences)


def iter_encoded(encoder: _tokenize.Encoder, chunks: Iterable[bytes]) -> Iterator[np.ndarray]:
    """The ids of each byte chunk, then those the end of the input releases
    (final=True)."""
    for chunk in chunks:
        yield encoder.encode(chunk)
    yield encoder.encode(b"", final=True)


def encode_chunks(encoder: _tokenize.Encoder, chunks: Iterable[bytes]) -> np.ndarray:
    """The ids of byte chunks, ended as the input ends."""
    return collect_ids(iter_encoded(encoder, chunks))


def collect_ids(pieces: Iterable[np.ndarray]) -> np.ndarray:
    """Joins id arrays into one int32 array that grows in place: resize
    reallocates, and a large block is remapped rather than copied. The peak is
    the ids once plus the piece in hand, where np.concatenate of a list of
    pieces holds them twice."""
    out = np.empty(0, np.int32)
    n = 0
    for piece in pieces:
        end = n + len(piece)
        if end > len(out):
            out.resize(max(2 * len(out), end, 1 << 16), refcheck=False)  # out has no views yet
        out[n:end] = piece
        n = end
    out.resize(n, refcheck=False)
    return out


def _encode_file_in_parallel(path: str | os.PathLike, words_as_bytes: list[bytes], threads: int,
                             chunk_bytes: int) -> EncodedCorpus:
    """Encodes byte ranges of a plain file on several threads (the C encoder
    runs without the GIL) and joins them as one pass would have: a range
    that may continue a sentence writes a sentence end for a newline before
    its first word, which is dropped where the text before ended one."""
    # Smaller reads than one pass makes: each call's output buffer (4 bytes per
    # input byte) is freed into the thread's own malloc arena, which keeps it.
    chunk_bytes = min(chunk_bytes, PARALLEL_CHUNK_BYTES)

    def one(index: int, shard):
        encoder = _tokenize.Encoder(words_as_bytes, mid_sentence=index > 0)
        ids = encode_chunks(encoder, iter_shard(shard, chunk_bytes))
        return ids, int(encoder.tokens), int(encoder.oov)

    results = map_in_threads(path, threads, one)
    tokens, oov = sum(r[1] for r in results), sum(r[2] for r in results)
    shard_ids = [r[0] for r in results]
    del results

    def joined() -> Iterator[np.ndarray]:
        ended = True  # the ids so far end a sentence (or there are none)
        while shard_ids:
            ids = shard_ids.pop(0)  # dropped once copied: the peak stays near one copy
            if len(ids) and ids[0] == -1 and ended:
                ids = ids[1:]
            if len(ids):
                ended = bool(ids[-1] == -1)
                yield ids

    return _encoded(collect_ids(joined()), tokens, oov)
