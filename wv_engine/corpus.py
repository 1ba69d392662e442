"""Reading a corpus (a text file, plain or compressed, or a re-iterable of
token lists) as byte chunks, and encoding it once into int32 token ids.

Text is tokenized in C: whitespace-separated byte tokens, a newline ends a
sentence. Epochs train on the encoded ids and never re-tokenize."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence, Union

import numpy as np

from . import _tokenize
from .errors import CorpusError
from .files import (CHUNK_BYTES, DECOMPRESSION_ERRORS, check_corpus_text, fingerprint, is_compressed, open_binary,
                    read_position)
from .progress import reading
from .shards import Shard, iter_shard, map_in_threads

__all__ = ["CHUNK_BYTES", "Corpus", "CorpusError", "CorpusSource", "EncodedCorpus", "check_corpus", "collect_ids",
           "describe", "encode", "encode_chunks", "encode_words", "is_compressed", "is_path", "iter_chunks",
           "iter_encoded", "open_binary", "parallel_file", "sentence_chunks"]

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
        check_corpus_text(source)
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


class Corpus:
    """A training text resolved once, at the entry point, and handed to
    every step after it (counting, encoding, co-occurrence, the cluster's
    shard planning, the trainers) so that none asks of it again: what it is
    (a file path or a re-iterable of token lists, checked readable),
    the file's size and compression, whether it can be read in byte ranges
    on several threads (`splittable`), and how many bytes its ids would
    likely take. `Corpus.of(x)` resolves x unless it is one already.

    phrases: a phrase model (wv_engine.Phrases) the text is read through,
    its phrases joined as the chunks leave (nothing phrased is written),
    on several threads in byte ranges as a plain file is (shard_chunks)."""

    def __init__(self, source: CorpusSource, phrases: Any = None) -> None:
        if isinstance(source, Corpus):
            raise TypeError("Corpus.of(corpus) takes a Corpus as it is")
        if phrases is not None and not callable(getattr(phrases, "pipe", None)):
            raise TypeError(f"phrases must be a phrase model (wv_engine.Phrases), got {type(phrases).__name__}")
        self.source = source
        self.phrases = phrases
        self.path: str | None = os.fspath(source) if is_path(source) else None  # type: ignore[arg-type]
        check_corpus(source)
        self.compressed = self.path is not None and is_compressed(self.path)  # also checks it is readable
        self.size = os.path.getsize(self.path) if self.path is not None else None
        self.splittable = (self.path is not None and not self.compressed
                           and self.size >= PARALLEL_MIN_BYTES)  # type: ignore[operator]

    @classmethod
    def of(cls, source: "CorpusSource | Corpus") -> "Corpus":
        return source if isinstance(source, Corpus) else cls(source)

    def is_for(self, source: "CorpusSource | Corpus | None") -> bool:
        """Whether `source` names this text: the same object, or a path to
        the same file name."""
        if isinstance(source, Corpus):
            if source.phrases is not self.phrases:
                return False
            source = source.source
        if source is self.source:
            return True
        return self.path is not None and is_path(source) and os.fspath(source) == self.path  # type: ignore[arg-type]

    def fingerprint(self) -> dict[str, Any] | None:
        """The file's fingerprint now (files.fingerprint), None for token
        lists: taken again where a change since counting must show."""
        return fingerprint(self.path) if self.path is not None else None

    @property
    def likely_ids_bytes(self) -> int:
        """What a plain file's ids would take in memory, guessed from its
        size before it is read (natural text averages about 6 bytes a token
        with its space); 0 for token lists."""
        return (self.size or 0) * 4 // 6

    def chunks(self, chunk_bytes: int = CHUNK_BYTES,
               on_bytes: Callable[[int], None] | None = None) -> Iterator[bytes]:
        """The text as UTF-8 byte chunks (iter_chunks), its phrases joined
        when it is read through a phrase model."""
        if self.path is not None:
            chunks = _file_chunks(self.path, chunk_bytes, on_bytes)
        else:
            chunks = _iterable_chunks(self.source, chunk_bytes)  # type: ignore[arg-type]
        return chunks if self.phrases is None else _phrased(chunks, self.phrases.pipe())

    def shard_chunks(self, shard: Shard, chunk_bytes: int = CHUNK_BYTES,
                     on_bytes: Callable[[int], None] | None = None) -> Iterator[bytes]:
        """A byte range of the (splittable) file as chunks, its phrases
        joined as in one pass over the whole file when it is read through a
        phrase model."""
        if self.phrases is None:
            return iter_shard(shard, chunk_bytes, on_bytes)
        return self.phrases.shard_chunks(shard, chunk_bytes, on_bytes)

    def __str__(self) -> str:
        return describe(self.source)


def _file_chunks(path: str | os.PathLike, chunk_bytes: int,
                 on_bytes: Callable[[int], None] | None = None) -> Iterator[bytes]:
    try:
        with open_binary(path) as f:
            seen = 0
            while True:
                chunk = f.read(chunk_bytes)
                if not chunk:
                    return
                if on_bytes is not None:
                    pos = read_position(f)
                    on_bytes(pos - seen)
                    seen = pos
                yield chunk
    except DECOMPRESSION_ERRORS as exc:
        if isinstance(exc, CorpusError):
            raise
        raise CorpusError(f"cannot read corpus {os.fspath(path)}: {exc}") from exc


def _phrased(chunks: Iterator[bytes], pipe: Any) -> Iterator[bytes]:
    """The chunks through a phrase pipe (wv_engine.Phrases.pipe)."""
    for chunk in chunks:
        out = pipe.feed(chunk)
        if out:
            yield out
    yield pipe.feed(b"", final=True)


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


def sentence_chunks(sentences: Iterable[Sequence[str]], chunk_bytes: int = CHUNK_BYTES) -> Iterator[bytes]:
    """Token lists as newline-ended UTF-8 byte chunks, read once (a one-shot
    iterator is fine here); CorpusError for a str sentence or a token that is
    empty or holds whitespace."""
    return _iterable_chunks(sentences, chunk_bytes)


def iter_chunks(source: "CorpusSource | Corpus", chunk_bytes: int = CHUNK_BYTES,
                on_bytes: Callable[[int], None] | None = None) -> Iterator[bytes]:
    """Yields the corpus as UTF-8 byte chunks of about chunk_bytes (a token
    may straddle two chunks; the C tokenizer joins it). For a file,
    on_bytes(n) is told of each n bytes read from disk (progress)."""
    return Corpus.of(source).chunks(chunk_bytes, on_bytes)


def describe(source: "CorpusSource | Corpus") -> str:
    """A short name of the corpus for messages."""
    if isinstance(source, Corpus):
        source = source.source
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
    file: Any = None  # the open file the ids are mapped from (ids on disk), else None
    source: dict | None = None  # files.fingerprint of the file encoded (None for token lists)


# Below this size a plain file is encoded on one thread: starting more costs
# more than it saves.
PARALLEL_MIN_BYTES = 16 << 20
PARALLEL_CHUNK_BYTES = 1 << 20


# The ids of a corpus stay in memory up to this size (and an eighth of the
# memory available); larger, they go to a temporary file, so that a run's
# memory is the model plus bounded buffers whatever the corpus size.
IDS_IN_MEMORY_MAX = 512 << 20


def ids_memory_room(memory_limit: int | None = None) -> int:
    """Bytes of ids a corpus may keep in memory: IDS_IN_MEMORY_MAX, an
    eighth of the memory available, and an eighth of a job's memory_limit."""
    from .memory import available_memory

    room = min(IDS_IN_MEMORY_MAX, available_memory() // 8)
    return room if memory_limit is None else min(room, memory_limit // 8)


def ids_belong_on_disk(words: int, memory_limit: int | None = None) -> bool:
    """The rule for where the ids of a corpus of `words` in-vocabulary tokens
    go when the caller does not say (sentence ends add about 5%)."""
    return int(4 * words * 1.05) > ids_memory_room(memory_limit)


def parallel_file(source: "CorpusSource | Corpus") -> bool:
    """True for an uncompressed file large enough to read on several threads
    (in byte ranges: wv_engine.shards)."""
    return Corpus.of(source).splittable


def encode(source: "CorpusSource | Corpus", words_as_bytes: list[bytes] | bytes, cache_path: str | None = None,
           chunk_bytes: int = CHUNK_BYTES, threads: int = 1, *, on_disk: bool = False,
           tmp_dir: str | None = None, progress: bool | None = None) -> EncodedCorpus:
    """Encodes the corpus once over the words (a list of bytes, or one
    bytes object of them joined by newlines: Vocabulary.words_joined); the
    id of a word is its position. The ids stay in memory, unless:
    cache_path: they are written to that file and memory-mapped from it;
    on_disk: they go to a temporary file in tmp_dir (default: the system's),
    unlinked at creation so that nothing is left behind, and are
    memory-mapped from it (EncodedCorpus.file holds it open).
    With threads > 1 an uncompressed file is encoded in that many byte ranges
    at once (each written to its own place), to exactly the ids one pass
    gives. progress shows bytes read, bytes/s and an ETA."""
    corpus = Corpus.of(source)
    encoded = _encode(corpus, words_as_bytes, cache_path, chunk_bytes, threads, on_disk, tmp_dir, progress)
    encoded.source = corpus.fingerprint()
    return encoded


def _encode(source: Corpus, words_as_bytes: list[bytes] | bytes, cache_path: str | None, chunk_bytes: int,
            threads: int, on_disk: bool, tmp_dir: str | None, progress: bool | None) -> EncodedCorpus:
    to_file = cache_path is not None or on_disk
    directory = os.path.dirname(os.path.abspath(cache_path)) if cache_path is not None else tmp_dir
    if to_file and directory is not None and not os.path.isdir(directory):
        raise FileNotFoundError(2, "not a directory (for the encoded ids)", directory)
    bar = reading(source, "encoding", progress)
    on_bytes = bar.add if bar is not None else None
    try:
        if threads > 1 and source.splittable:
            pieces, tokens, oov = _encode_shards(source, words_as_bytes, threads, chunk_bytes, to_file, directory,
                                                 on_bytes)
            if not to_file:
                return encoded_in_memory(pieces, tokens, oov)
        else:
            encoder = _tokenize.Encoder(words_as_bytes)
            sink = IdSink(tempfile.TemporaryFile(dir=directory) if to_file else None)
            sink.encode_all(encoder, iter_chunks(source, chunk_bytes, on_bytes))
            tokens, oov = int(encoder.tokens), int(encoder.oov)
            if not to_file:
                return _encoded(sink.array(), tokens, oov)
            pieces = [sink]
    finally:
        if bar is not None:
            bar.close()
    return _join_on_disk(pieces, tokens, oov, directory, cache_path)


class IdSink:
    """Where one pass's ids go: an array grown in place (memory) or a file,
    with what joining the passes needs to know (first and last id, count of
    sentence ends)."""

    def __init__(self, file=None):
        self.file = file
        self.n = self.eos = 0
        self.first: int | None = None
        self.last: int | None = None
        self._ids = np.empty(0, np.int32) if file is None else None

    def encode(self, encoder: _tokenize.Encoder, chunk: bytes, final: bool = False) -> None:
        """Encodes a chunk into the sink: in memory, straight into its array."""
        if self.file is not None:
            self.write(encoder.encode(chunk, final))
            return
        k = self.fill(encoder.encode_into, chunk, final)
        self._book(self._ids[self.n:self.n + k])
        self.n += k

    def fill(self, write, chunk: bytes, final: bool = False) -> int:
        """write(chunk, out, final) -> k puts k ids after those held (room
        for len(chunk) + 2 is made); returns k, the caller books them."""
        need = self.n + len(chunk) + 2
        if need > len(self._ids):
            self._ids.resize(max(2 * len(self._ids), need, 1 << 16), refcheck=False)  # no views yet
        return write(chunk, self._ids[self.n:], final)

    @property
    def held(self) -> np.ndarray:
        """The ids held in memory (a view: rewrite them, then kept())."""
        return self._ids[:self.n]

    def kept(self, n: int, eos: int) -> None:
        """The ids held were rewritten in place: the first n stay, eos of
        them sentence ends."""
        self.n, self.eos = n, eos
        self.first = int(self._ids[0]) if n else None
        self.last = int(self._ids[n - 1]) if n else None

    def encode_all(self, encoder: _tokenize.Encoder, chunks: Iterable[bytes]) -> None:
        """Encodes the chunks, then what the end of the input releases."""
        for chunk in chunks:
            self.encode(encoder, chunk)
        self.encode(encoder, b"", final=True)

    def _book(self, ids: np.ndarray) -> None:
        """Notes what joining needs of ids about to be added."""
        if not len(ids):
            return
        if self.first is None:
            self.first = int(ids[0])
        self.last = int(ids[-1])
        self.eos += int(np.count_nonzero(ids == -1))

    def write(self, ids: np.ndarray) -> None:
        if not len(ids):
            return
        self._book(ids)
        end = self.n + len(ids)
        if self.file is not None:
            self.file.write(memoryview(np.ascontiguousarray(ids, dtype=np.int32)).cast("B"))
        else:
            if end > len(self._ids):
                self._ids.resize(max(2 * len(self._ids), end, 1 << 16), refcheck=False)  # no views yet
            self._ids[self.n:end] = ids
        self.n = end

    def array(self) -> np.ndarray:
        """The ids held in memory (the sink gives them up)."""
        ids, self._ids = self._ids, None
        ids.resize(self.n, refcheck=False)
        return ids


def _encode_shards(corpus: Corpus, words_as_bytes: list[bytes] | bytes, threads: int, chunk_bytes: int,
                   to_file: bool, directory: str | None, on_bytes) -> tuple[list[IdSink], int, int]:
    """Encodes byte ranges of a plain file on several threads (the C encoder
    runs without the GIL), each into its own sink (in memory, or with to_file
    a temporary file in `directory`). A range that may continue a
    sentence writes a sentence end for a newline before its first word,
    which the join drops where the text before ended one."""
    # Smaller reads than one pass makes: each call's output buffer (4 bytes per
    # input byte) is freed into the thread's own malloc arena, which keeps it.
    chunk_bytes = min(chunk_bytes, PARALLEL_CHUNK_BYTES)

    words = _tokenize.Encoder(words_as_bytes)

    def one(index: int, shard):
        encoder = words.copy(mid_sentence=index > 0)
        sink = IdSink(tempfile.TemporaryFile(dir=directory) if to_file else None)
        sink.encode_all(encoder, corpus.shard_chunks(shard, chunk_bytes, on_bytes))
        return sink, int(encoder.tokens), int(encoder.oov)

    results = map_in_threads(corpus.path, threads, one)  # type: ignore[arg-type]
    return [r[0] for r in results], sum(r[1] for r in results), sum(r[2] for r in results)


def _joined(pieces: list[IdSink]) -> Iterator[tuple[IdSink, int]]:
    """(piece, ids to skip at its start) in order: a piece's leading sentence
    end is dropped where the ids before it ended a sentence (or there are none)."""
    ended = True
    for piece in pieces:
        skip = 1 if piece.first == -1 and ended else 0
        if piece.n > skip:
            ended = piece.last == -1
        yield piece, skip


def encoded_in_memory(pieces: list[IdSink], tokens: int, oov: int) -> EncodedCorpus:
    """The corpus whose ids are those of the pieces (consecutive byte ranges
    of one text, in order) joined in memory."""
    return _encoded(_join_in_memory(pieces), tokens, oov)


def _join_in_memory(pieces: list[IdSink]) -> np.ndarray:
    """The pieces' ids in one array: the first piece's array grown in place
    (a remap, not a copy) and the others copied after it, each given up once
    copied, so the peak stays near one copy of the ids."""
    parts = list(_joined(pieces))
    first, skip = parts[0]
    ids = first.array()
    out = ids[skip:].copy() if skip else ids  # a view cannot grow; only a text starting with a newline skips
    n = len(out)
    out.resize(n + sum(max(p.n - s, 0) for p, s in parts[1:]), refcheck=False)
    for piece, skip in parts[1:]:
        ids = piece.array()
        m = max(len(ids) - skip, 0)
        out[n:n + m] = ids[skip:]
        n += m
    return out


def _join_on_disk(pieces: list[IdSink], tokens: int, oov: int, directory: str | None,
                  cache_path: str | None) -> EncodedCorpus:
    """One file of ids from the pieces' files (copied in the kernel), memory-
    mapped: an unlinked temporary file, or cache_path (written beside it and
    renamed). A single piece is used as it is."""
    if cache_path is None and len(pieces) == 1 and pieces[0].first != -1:
        return _mapped(pieces[0].file, pieces[0].n, pieces[0].eos, pieces[0].last, tokens, oov)
    if cache_path is None:
        out = tempfile.TemporaryFile(dir=directory)
        tmp = None
    else:
        fd, tmp = tempfile.mkstemp(prefix=".ids-", dir=directory)
        out = os.fdopen(fd, "w+b")
    try:
        n = eos = 0
        for piece, skip in _joined(pieces):
            piece.file.flush()
            _copy_file(piece.file, out, 4 * skip, 4 * (piece.n - skip), 4 * n)
            n += max(piece.n - skip, 0)
            eos += piece.eos - skip
            piece.file.close()
        out.flush()
        if tmp is not None:
            os.fsync(out.fileno())
            os.replace(tmp, cache_path)  # type: ignore[arg-type]
            tmp = None
    except BaseException:
        for piece in pieces:
            piece.file.close()
        out.close()
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return _mapped(out, n, eos, next((p.last for p in reversed(pieces) if p.n), -1), tokens, oov)


def _mapped(file, n: int, eos: int, last: int | None, tokens: int, oov: int) -> EncodedCorpus:
    """The EncodedCorpus of n ids written to an open file (memory-mapped)."""
    file.flush()
    ids = np.memmap(file, dtype=np.int32, mode="r", shape=(n,)) if n else np.zeros(0, np.int32)
    ended = n == 0 or last == -1
    return EncodedCorpus(ids=ids, tokens=tokens, words=n - eos, oov=oov, sentences=eos + (0 if ended else 1),
                         file=file)


def _copy_file(src, dst, src_offset: int, nbytes: int, dst_offset: int) -> None:
    """nbytes of src from src_offset into dst at dst_offset, in the kernel
    where it can (copy_file_range), else through a buffer."""
    done = 0
    while done < nbytes:
        try:
            n = os.copy_file_range(src.fileno(), dst.fileno(), nbytes - done, src_offset + done, dst_offset + done)
        except (AttributeError, OSError):
            src.seek(src_offset + done)
            dst.seek(dst_offset + done)
            n = dst.write(src.read(min(nbytes - done, 1 << 24)))
        if n == 0:
            raise OSError(f"could not copy the encoded ids ({done:,} of {nbytes:,} bytes)")
        done += n


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


def encode_words(words: list[bytes] | bytes, chunks: Iterable[bytes]) -> np.ndarray:
    """The ids of byte chunks against `words` (their order gives the ids),
    with the C encoder: -1 ends a sentence, unknown words are dropped."""
    return encode_chunks(_tokenize.Encoder(words), chunks)


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
