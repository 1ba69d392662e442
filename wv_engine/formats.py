"""Reading and writing word-vector files: the only module that knows their formats.
Readers return plain data (VectorData); writers take anything shaped like Vectors
(words, vectors, dim, counts, metadata, len). wv_engine.io wraps both in Vectors.

Formats:

- "word2vec-bin": header ``b"V D\\n"``, then per word: word bytes, ``b" "``, D little-endian
  float32, ``b"\\n"`` (word2vec.c's layout; gensim's variant without the newline is read too).
- "word2vec-txt": header ``"V D\\n"``, then ``"word v1 ... vD \\n"`` with "%f" values (word2vec.c).
- "glove-txt": ``"word v1 ... vD\\n"`` without header (Stanford GloVe), optional "V D" header.
- "native": our own single-file format, mmap-able, with counts and metadata (see
  `save_native` for the layout). No pickle anywhere.

Words are stored as bytes encoded 'utf-8' with 'surrogateescape', so tokens that were not
valid UTF-8 in the corpus (decoded with surrogateescape) come back byte for byte. Every writer
goes through `files.atomic_write`: a crash or Ctrl-C never leaves a half-written target.
"""

from __future__ import annotations

import errno
import json
import math
import mmap
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, BinaryIO, NamedTuple, Protocol

import numpy as np

from . import _formats, _vectors, mapped_files
from .errors import FormatError, InputFileError
from .file_checks import (PREFIX as _NATIVE_PREFIX, checked_fields, checked_number, checked_prefix,
                          parse_json)
from .files import atomic_output, atomic_write, check_input, compression, open_input
from .settings import default_threads
from .word_index import HASH_NAME, DamagedTable, Words, WordTable, table_of

__all__ = [
    "FormatError",
    "checked_number",
    "checked_fields",
    "parse_json",
    "VectorData",
    "save_vectors",
    "save_word2vec",
    "save_glove_text",
    "save_native",
    "read_vectors",
    "detect_format",
    "NATIVE_MAGIC",
    "NATIVE_VERSION",
    "FORMATS",
]

FORMATS = ("native", "word2vec-bin", "word2vec-txt", "glove-txt")

NATIVE_MAGIC = b"\x89WVE\r\n\x1a\n"  # PNG-style: catches 7-bit and newline-translating copies
NATIVE_VERSION = 1
_NATIVE_SECTIONS = ("vectors", "word_offsets", "word_blob", "counts", "norms", "word_hash")
_ALIGN = 64

_UNICODE_ERRORS = ("surrogateescape", "strict", "replace", "ignore", "latin-1")
# Bytes that end a word in the word2vec/GloVe formats (bytes.split() splits on these too).
_WHITESPACE = b" \t\n\r\x0b\x0c"
_MAX_LINE = 1 << 26  # 64 MiB: far above any real row, small enough to refuse runaway "lines"
_MAX_WORD = 1 << 20  # 1 MiB for one word in binary files
_CHUNK = 1 << 23  # read granularity for text and binary readers
# A word2vec header is two counts: past 2**40 (a trillion) neither is a real vocabulary or
# dimension, so it is damage; below it the readers check sizes against what the file holds
# (binary) or allocate only what arrives (text, compressed).
_MAX_HEADER_COUNT = 2**40


class VectorsLike(Protocol):
    """What the writers need of a Vectors."""

    words: Sequence[str]
    vectors: np.ndarray
    counts: np.ndarray | None
    metadata: dict[str, Any]

    @property
    def dim(self) -> int: ...

    def __len__(self) -> int: ...


class VectorData(NamedTuple):
    """What a reader found: the arguments of Vectors(words, vectors, counts, metadata)."""

    words: list[str]
    vectors: np.ndarray
    counts: np.ndarray | None
    metadata: dict[str, Any] | None


class Loaded(NamedTuple):
    """What a reader found, as the fast readers keep it: the words as a
    WordTable (or, where a lossy unicode_errors policy changed them, as a
    list: then `table` is None), the matrix, each row's norm where the
    reader computed it on the way, counts and metadata."""

    words: list[str] | None
    table: WordTable | None
    vectors: np.ndarray
    norms: np.ndarray | None
    counts: np.ndarray | None
    metadata: dict[str, Any] | None


def _words_of(vectors: VectorsLike, plain: bool) -> Words:
    """The words as bytes: from the Vectors' own table where it has one."""
    encoded = getattr(vectors, "encoded_words", None)
    return encoded(plain) if encoded is not None else Words(vectors.words, plain)


# ---------------------------------------------------------------------------- writers


SAVE_BLOCK_VALUES = 1 << 18  # values written at a time: the scratch stays small whatever the matrix
# bytes of temporaries a value takes while its block is written: a float32 copy and its text
# (_formats.FIXED6_MOST and a space at most), or a copy in the binary rows
_SCRATCH_PER_VALUE = {"word2vec-txt": 4 + _formats.FIXED6_MOST + 1, "glove-txt": 4 + _formats.FIXED6_MOST + 1,
                      "word2vec-bin": 8, "native": 4}


def _row_blocks(vectors: VectorsLike) -> Iterator[tuple[int, np.ndarray]]:
    """(start, block) over the matrix, SAVE_BLOCK_VALUES values (at least one
    row) a block, so that neither a memory-mapped matrix nor a very wide one
    is ever copied whole."""
    mat = vectors.vectors
    rows = max(1, SAVE_BLOCK_VALUES // max(mat.shape[1], 1))
    for start in range(0, mat.shape[0], rows):
        yield start, mat[start:start + rows]


def save_scratch_bytes(rows: int, dim: int, format: str | None = None) -> int:
    """The most memory writing a rows x dim matrix in `format` takes besides
    the matrix (None: the costliest format, text)."""
    block_values = min(rows, max(1, SAVE_BLOCK_VALUES // max(dim, 1))) * dim
    return _SCRATCH_PER_VALUE[format or "word2vec-txt"] * block_values


def _text_rows(vectors: VectorsLike, words: Words, trailing_space: bool,
               significant: int | None = None) -> Iterator[bytes]:
    """Text rows with "%f" (6 decimals, as a float promoted to double prints with C's "%lf"):
    word2vec.c's "word v1 ... vD \\n" (`trailing_space`) or glove.c's "word v1 ... vD\\n";
    with `significant`, word2vec.c's layout with "%.<significant>g" values."""
    for start, block in _row_blocks(vectors):
        block = np.ascontiguousarray(block, dtype=np.float32)
        if significant:
            yield _formats.text_rows_g(words.blob, words.offsets, block, start, significant)
        else:
            yield _formats.text_rows(words.blob, words.offsets, block, start, trailing_space)  # one compiled loop


def save_word2vec(vectors: VectorsLike, path: str | os.PathLike, binary: bool = True,
                  significant: int | None = None) -> None:
    """Write `vectors` in word2vec.c's format, binary (default) or text, atomically.

    Binary: ``b"V D\\n"``, then per word its UTF-8 bytes, ``b" "``, D little-endian float32,
    ``b"\\n"``. Text: ``"V D\\n"``, then ``"word v1 v2 ... vD \\n"`` with "%f" values (note the
    trailing space, as word2vec.c writes), or with `significant` digits ("%.5g" at 5: fastText's
    .vec). A name ending in .gz/.bz2/.xz is compressed. Raises ValueError for words holding
    whitespace or NUL, which the format cannot represent.
    """
    n, dim = len(vectors), vectors.dim
    # Encode every word before opening the file, so a bad word fails without any I/O.
    words = _words_of(vectors, plain=True)
    with atomic_output(path) as fh:
        fh.write(f"{n} {dim}\n".encode("ascii"))
        if binary:
            for start, block in _row_blocks(vectors):
                raw = np.ascontiguousarray(block, dtype="<f4").view(np.uint8).reshape(len(block), 4 * dim)
                fh.write(_formats.binary_rows(words.blob, words.offsets, raw, start))  # one compiled loop
        else:
            for chunk in _text_rows(vectors, words, trailing_space=True, significant=significant):
                fh.write(chunk)


def save_glove_text(vectors: VectorsLike, path: str | os.PathLike, header: bool = False) -> None:
    """Write Stanford GloVe's text format atomically: ``"word v1 ... vD\\n"`` per word, values
    "%f", space separated, with an optional "V D" first line (`header=True`, which gensim's
    word2vec text reader needs). A name ending in .gz/.bz2/.xz is compressed."""
    words = _words_of(vectors, plain=True)
    with atomic_output(path) as fh:
        if header:
            fh.write(f"{len(vectors)} {vectors.dim}\n".encode("ascii"))
        for chunk in _text_rows(vectors, words, trailing_space=False):
            fh.write(chunk)


def _align(n: int) -> int:
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


def save_native(
    vectors: VectorsLike, path: str | os.PathLike, metadata: dict[str, Any] | None = None,
    sections: dict[str, np.ndarray] | None = None,
) -> None:
    """Write our single-file native format atomically (no pickle; the matrix is mmap-able).

    Layout (all integers little-endian):

    - bytes 0-7: magic ``b"\\x89WVE\\r\\n\\x1a\\n"``; 8-11: uint32 format version (1);
      12-15: uint32 length H of the JSON header; 16..16+H: JSON header (UTF-8).
    - zero padding, then sections at the absolute, 64-byte aligned offsets the header gives:
      "vectors" (count x dim float32, row-major), "word_offsets" (count+1 uint64 offsets into
      the blob), "word_blob" (words as UTF-8 with surrogateescape, concatenated) and
      optionally "counts" (count int64).
    - the JSON header holds {"count", "dim", "sections": {name: {"offset", "nbytes",
      "dtype", "shape"}}, "metadata"}.

    `metadata` (default `vectors.metadata`) must be JSON-serialisable; `load_vectors` returns
    it as `Vectors.metadata`. `sections` adds named arrays after those (numeric, little-endian
    on disk; a saved Word2Vec keeps its output matrix there), read back by
    `read_native_section`; vector readers skip them.
    """
    meta = vectors.metadata if metadata is None else metadata
    if not isinstance(meta, dict):
        raise ValueError(f"metadata must be a dict, got {type(meta).__name__}")
    n, dim = len(vectors), vectors.dim
    words = _words_of(vectors, plain=False)
    offsets = words.offsets.astype("<u8")
    blob = words.blob.tobytes()
    counts = vectors.counts
    norms = _norms_of(vectors)
    slots = WordTable.build(words.blob, words.offsets)[0] if n < 0xFFFFFFFF else None

    plan = [
        ("vectors", "<f4", [n, dim], n * dim * 4),
        ("word_offsets", "<u8", [n + 1], offsets.nbytes),
        ("word_blob", "|u1", [len(blob)], len(blob)),
    ]
    if counts is not None:
        plan.append(("counts", "<i8", [n], n * 8))
    plan.append(("norms", "<f4", [n], n * 4))
    if slots is not None:
        plan.append(("word_hash", "<u4", [len(slots)], slots.nbytes))
    extra = {}
    for name, arr in (sections or {}).items():
        if name in _NATIVE_SECTIONS:
            raise ValueError(f"section name {name!r} is the format's own")
        arr = np.asarray(arr)
        if arr.dtype.kind not in "fiu":
            raise ValueError(f"section {name!r} must be numeric, got dtype {arr.dtype}")
        extra[name] = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
        plan.append((name, extra[name].dtype.str, list(arr.shape), arr.nbytes))

    def header_for(data_start: int) -> bytes:
        sections, pos = {}, data_start
        for name, dtype, shape, nbytes in plan:
            sections[name] = {"offset": pos, "nbytes": nbytes, "dtype": dtype, "shape": shape}
            pos = _align(pos + nbytes)
        doc = {"format": "wv_engine.vectors", "count": n, "dim": dim, "sections": sections,
               "word_hash": HASH_NAME, "metadata": meta}
        try:
            return json.dumps(doc, ensure_ascii=True, allow_nan=False).encode("ascii")
        except (TypeError, ValueError) as exc:
            raise ValueError(f"metadata is not JSON-serialisable: {exc}") from None

    # Offsets are absolute, so the header's own length decides where data starts: iterate
    # until the header fits in front of the data it describes (two rounds at most in practice).
    data_start = _align(_NATIVE_PREFIX.size + 256)
    while True:
        head = header_for(data_start)
        needed = _align(_NATIVE_PREFIX.size + len(head))
        if needed <= data_start:
            break
        data_start = needed

    with atomic_write(path, "wb", direct=True) as fh:
        fh.write(_NATIVE_PREFIX.pack(NATIVE_MAGIC, NATIVE_VERSION, len(head)))
        fh.write(head)
        pos = _NATIVE_PREFIX.size + len(head)

        def pad_to(target: int) -> None:
            nonlocal pos
            fh.write(b"\0" * (target - pos))
            pos = target

        pad_to(data_start)
        for start, block in _row_blocks(vectors):
            data = np.ascontiguousarray(block, dtype="<f4")
            fh.write(memoryview(data).cast("B"))
            pos += data.nbytes
        pad_to(_align(pos))
        fh.write(offsets.tobytes())
        pos += offsets.nbytes
        pad_to(_align(pos))
        fh.write(blob)
        pos += len(blob)
        if counts is not None:
            pad_to(_align(pos))
            fh.write(np.ascontiguousarray(counts, dtype="<i8").tobytes())
            pos += n * 8
        for arr in (norms, slots):
            if arr is not None:
                pad_to(_align(pos))
                fh.write(arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes())
                pos += arr.nbytes
        for arr in extra.values():
            pad_to(_align(pos))
            data = np.ascontiguousarray(arr)
            fh.write(memoryview(data).cast("B") if data.size else b"")
            pos += data.nbytes


def _norms_of(vectors: VectorsLike) -> np.ndarray:
    """Each row's L2 norm, float32: the Vectors' own when it has them, else
    computed a block at a time."""
    norms = getattr(vectors, "norms", None)
    if norms is not None:
        return np.asarray(norms, dtype=np.float32)
    out = np.empty(len(vectors), dtype=np.float32)
    for start, block in _row_blocks(vectors):
        out[start:start + len(block)] = _vectors.row_norms(np.ascontiguousarray(block, dtype=np.float32),
                                                           default_threads())
    return out


def save_vectors(
    vectors: VectorsLike, path: str | os.PathLike, format: str = "native", **kwargs: Any
) -> None:
    """Write `vectors` to `path` in `format` (one of FORMATS); kwargs go to the writer
    (`metadata` for native, `header` for glove-txt)."""
    if format == "native":
        save_native(vectors, path, **kwargs)
    elif format == "word2vec-bin":
        save_word2vec(vectors, path, binary=True, **kwargs)
    elif format == "word2vec-txt":
        save_word2vec(vectors, path, binary=False, **kwargs)
    elif format == "glove-txt":
        save_glove_text(vectors, path, **kwargs)
    else:
        raise ValueError(f"unknown format {format!r}; expected one of {', '.join(FORMATS)}")


# ---------------------------------------------------------------------------- reading helpers


def _make_decoder(unicode_errors: str):
    """A bytes -> str function for the chosen policy; 'latin-1' means UTF-8, else Latin-1."""
    if unicode_errors not in _UNICODE_ERRORS:
        raise ValueError(
            f"unicode_errors must be one of {', '.join(_UNICODE_ERRORS)}, got {unicode_errors!r}"
        )
    if unicode_errors == "latin-1":
        def decode(raw: bytes) -> str:
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError:
                return raw.decode("latin-1")
        return decode
    return lambda raw: raw.decode("utf-8", unicode_errors)


def _decode_words(path: str, raw_words: list[bytes], unicode_errors: str) -> list[str]:
    decode = _make_decoder(unicode_errors)
    try:
        return [decode(w) for w in raw_words]
    except UnicodeDecodeError:
        for i, w in enumerate(raw_words):
            try:
                decode(w)
            except UnicodeDecodeError as exc:
                raise FormatError(
                    path, f"word {i} ({w!r}) is not valid UTF-8 ({exc.reason}); pass "
                    "unicode_errors='surrogateescape', 'replace', 'ignore' or 'latin-1'"
                ) from None
        raise


def _build(path: str, words: list[str], mat: np.ndarray, counts: np.ndarray | None = None,
           metadata: dict[str, Any] | None = None, norms: np.ndarray | None = None) -> Loaded:
    """The rows as decoded; duplicate words (real ones, or made by a lossy
    unicode_errors policy) keep their first row, as gensim does, with a warning."""
    index: dict[str, int] = {}
    for i, w in enumerate(words):
        index.setdefault(w, i)
    if len(index) != len(words):
        _warn_duplicates(path, len(words) - len(index))
        keep = np.fromiter(index.values(), dtype=np.int64, count=len(index))
        words = list(index)
        mat = np.ascontiguousarray(mat[keep])
        counts = None if counts is None else counts[keep]
        norms = None if norms is None else norms[keep]
    return Loaded(words, None, mat, norms, counts, metadata)


def _warn_duplicates(path: str, count: int) -> None:
    warnings.warn(f"{path}: {count} duplicate words after decoding; keeping the first row of each", stacklevel=5)


def valid_utf8_words(table: WordTable) -> bool:
    """Whether every word of the table is valid UTF-8 (so any decoding policy reads it as it is)."""
    blob, offsets, _ = table.arrays
    return _valid_utf8(blob[:offsets[len(table)]])


def _valid_utf8(blob: np.ndarray) -> bool:
    try:
        memoryview(blob).tobytes().decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _from_bytes(path: str, blob: np.ndarray, offsets: np.ndarray, mat: np.ndarray, norms: np.ndarray | None,
                unicode_errors: str, counts: np.ndarray | None = None, metadata: dict[str, Any] | None = None,
                slots: np.ndarray | None = None) -> Loaded:
    """Rows whose words are bytes (blob, offsets; the first len(mat) of
    them): kept as bytes behind a WordTable (over `slots` when the file
    stored them) when decoding cannot change them (surrogateescape, or valid
    UTF-8), else decoded by the policy into a list."""
    n = len(mat)
    if unicode_errors != "surrogateescape" and not _valid_utf8(blob[:offsets[n]]):
        raw = [memoryview(blob[offsets[i]:offsets[i + 1]]).tobytes() for i in range(n)]
        return _build(path, _decode_words(path, raw, unicode_errors), mat, counts, metadata, norms)
    if slots is not None:  # the file's table over all its words (offsets too), answering for the first n
        try:
            return Loaded(None, WordTable(blob, offsets, slots, n), mat, norms, counts, metadata)
        except DamagedTable as exc:
            raise FormatError(path, f"damaged word table: {exc}") from None
    offsets = offsets[:n + 1]
    try:
        table, dup = table_of(blob, offsets, n)
    except DamagedTable as exc:
        raise FormatError(path, f"damaged word offsets: {exc}") from None
    if dup.any():
        _warn_duplicates(path, int(dup.sum()))
        keep = np.flatnonzero(~dup)
        lengths = np.diff(offsets)[keep]
        blob = np.concatenate([blob[offsets[i]:offsets[i + 1]] for i in keep]) if len(keep) else blob[:0]
        offsets = np.zeros(len(keep) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        table = table_of(blob, offsets)[0]
        mat = np.ascontiguousarray(mat[keep])
        norms = None if norms is None else norms[keep]
        counts = None if counts is None else counts[keep]
    return Loaded(None, table, mat, norms, counts, metadata)


def _parse_header(path: str, line: bytes) -> tuple[int, int] | None:
    """(V, D) when `line` is a word2vec header, None when it does not look like one at all."""
    parts = line.split()
    if len(parts) != 2 or not all(p.lstrip(b"-+").isdigit() for p in parts):
        return None
    # Past 40 digits a number is far past the bound: shown as text (int() refuses 4,300 digits).
    v, d = (int(p) if len(p) <= 40 else p[:40].decode("ascii") + "..." for p in parts)
    if isinstance(v, int) and isinstance(d, int) and (v <= 0 or d <= 0):
        raise FormatError(path, f"header claims {v} words of dimension {d}; both must be positive")
    return (checked_number(path, "the header's word count", v, 1, _MAX_HEADER_COUNT),
            checked_number(path, "the header's dimension", d, 1, _MAX_HEADER_COUNT))


def _require_finite(path: str, block: np.ndarray, row_name: Callable[[int], str]) -> None:
    """FormatError naming the first row of `block` that holds inf or NaN
    (read as such, or past float32's range): one such vector turns every
    cosine it takes part in into NaN, silently. One pass over the block."""
    finite = np.isfinite(block)
    if not finite.all():
        row = int(np.argmin(finite.all(axis=1)))
        value = block[row][~finite[row]][0]
        raise FormatError(path, f"{row_name(row)}: value {value} is not a finite number "
                                "(inf, nan, or past float32's range of 3.4e38)")


def _floats_ok(tokens: list[bytes]) -> bool:
    try:
        np.array(tokens, dtype=np.float64)
    except ValueError:
        return False
    return True


def _require_regular_file(path: str) -> None:
    """check_input's refusal of a pipe, socket or device, as a FormatError."""
    try:
        check_input(path, "vectors file")
    except InputFileError as exc:
        raise FormatError(path, f"cannot read vectors from a pipe, socket or device ({exc.kind}): the formats "
                                "are read twice (to detect them, then to load): copy it to a regular file "
                                "first") from None


def detect_format(path: str | os.PathLike) -> str:
    """Guess the format of `path` from its first bytes: "native", "word2vec-bin",
    "word2vec-txt" or "glove-txt". Raises FormatError when it is none of them."""
    path = os.fspath(path)
    _require_regular_file(path)
    with open_input(path) as fh:
        start = fh.read(len(NATIVE_MAGIC))
        if start == NATIVE_MAGIC:
            return "native"
        fh.seek(0)  # the magic is 8 bytes; anything else is judged by its first line
        first = fh.readline(_MAX_LINE)
        if not first.strip():
            raise FormatError(path, "file is empty or starts with a blank line")
        header = _parse_header(path, first)
        if header is not None:
            second = fh.readline(_MAX_LINE)
            parts = second.split()
            # A text row is a word and numbers on one line (how many is the reader's concern,
            # which then names a ragged row); raw float32 bytes almost never parse as numbers.
            if len(parts) >= 2 and _floats_ok(parts[1:]):
                return "word2vec-txt"
            return "word2vec-bin"
        parts = first.split()
        if len(parts) >= 2 and _floats_ok(parts[1:]):
            return "glove-txt"
    raise FormatError(path, "unrecognised format: no native magic, no 'V D' header and the "
                            "first line is not 'word v1 ... vD'")


# ---------------------------------------------------------------------------- text reader


def _iter_lines(path: str, fh: BinaryIO, first_line_no: int) -> Iterator[tuple[int, bytes]]:
    """(line number, line) in bounded memory: a missing newline cannot swallow the file."""
    rest = b""
    line_no = first_line_no
    while True:
        data = fh.read(_CHUNK)
        if not data:
            break
        lines = (rest + data).split(b"\n")
        rest = lines.pop()
        if len(rest) > _MAX_LINE:
            raise FormatError(path, f"line {line_no + len(lines)} is longer than {_MAX_LINE} bytes")
        for line in lines:
            yield line_no, line
            line_no += 1
    if rest:
        yield line_no, rest


def _read_text(path: str, fh: BinaryIO, header: tuple[int, int] | None, first_line_no: int,
               limit: int | None, unicode_errors: str) -> Loaded:
    """Rows "word v1 ... vD" until the header's V rows, `limit`, or the end of the file.

    Nothing is preallocated from the header: the lists grow with what the file really holds.
    """
    dim = header[1] if header else None
    wanted = header[0] if header else None
    if limit is not None:
        wanted = limit if wanted is None else min(wanted, limit)
    words: list[bytes] = []
    blocks: list[np.ndarray] = []
    tokens: list[bytes] = []
    pending_lines: list[int] = []

    def flush() -> None:
        try:
            with np.errstate(over="ignore"):  # past float32's range: inf, refused just below
                block = np.array(tokens, dtype=np.float64).astype(np.float32).reshape(-1, dim)
        except ValueError:
            # Find the culprit only on the failure path, to name its line.
            for k, no in enumerate(pending_lines):
                for tok in tokens[k * dim:(k + 1) * dim]:
                    try:
                        float(tok)
                    except ValueError:
                        raise FormatError(
                            path, f"line {no}: {tok[:40]!r} is not a number") from None
            raise
        _require_finite(path, block, lambda row: f"line {pending_lines[row]}")
        blocks.append(block)
        tokens.clear()
        pending_lines.clear()

    extra = False
    for line_no, line in _iter_lines(path, fh, first_line_no):
        parts = line.split()
        if not parts:
            continue  # blank lines (e.g. a final empty line) carry nothing
        if wanted is not None and len(words) >= wanted:
            extra = True
            break
        if dim is None:
            dim = len(parts) - 1
            if dim < 1:
                raise FormatError(path, f"line {line_no}: a word with no values")
        if len(parts) != dim + 1:
            raise FormatError(
                path, f"line {line_no}: {len(parts) - 1} values where {dim} were expected"
                f"{' (header dimension)' if header else ' (from the first line)'}")
        word = parts[0]
        if b"\0" in word:
            raise FormatError(path, f"line {line_no}: word contains a NUL byte")
        words.append(word)
        tokens.extend(parts[1:])
        pending_lines.append(line_no)
        if len(tokens) >= 1 << 20:
            flush()
    if tokens:
        flush()
    if header is not None and len(words) < (wanted or 0):
        raise FormatError(
            path, f"truncated: header says {header[0]} words but the file holds {len(words)}")
    if not words:
        raise FormatError(path, "no vectors in file")
    if extra and limit is None:
        warnings.warn(f"{path}: ignored lines after the {header[0] if header else 0} "
                      "words the header announces", stacklevel=3)
    mat = np.concatenate(blocks) if len(blocks) > 1 else blocks[0]
    return _build(path, _decode_words(path, words, unicode_errors), mat)


# ---------------------------------------------------------------------------- binary reader


def _check_binary_room(path: str, header: tuple[int, int], header_len: int) -> None:
    """Each entry takes at least one word byte, a space and D floats: a header claiming
    more than the file can hold is refused before anything is allocated."""
    n, dim = header
    room = os.path.getsize(path) - header_len
    if n * (4 * dim + 2) > room:
        raise FormatError(
            path, f"header claims {n} words of dimension {dim} "
            f"({n * (4 * dim + 2):,} bytes at least) but only {room:,} bytes follow it; "
            "the file is truncated or not a word2vec binary file")


def _read_word2vec_binary(path: str, fh: BinaryIO, header: tuple[int, int], header_len: int,
                          limit: int | None, unicode_errors: str) -> Loaded:
    """Entries "word<space><D float32>[\\n]" after the header line."""
    n, dim = header
    stride = 4 * dim
    compressed = compression(path) is not None
    if not compressed:
        _check_binary_room(path, header, header_len)
    wanted = n if limit is None else min(n, limit)
    # Uncompressed sizes were checked above, so one block holds everything; compressed input
    # grows block by block, each allocated only once its first row's bytes have arrived, so
    # a lying header costs nothing.
    block_cap = wanted if not compressed else max(1, min(wanted, (1 << 24) // stride))
    blocks: list[np.ndarray] = []
    cur: np.ndarray | None = None
    cur_bytes = memoryview(b"")
    filled = 0
    words: list[bytes] = []
    buf = b""
    pos = 0
    eof = False

    def more() -> bool:
        nonlocal buf, pos, eof
        if eof:
            return False
        data = fh.read(_CHUNK)
        if not data:
            eof = True
            return False
        buf = buf[pos:] + data
        pos = 0
        return True

    for i in range(wanted):
        # Skip the newline(s) word2vec.c writes after each vector (gensim writes none).
        while True:
            while pos < len(buf) and buf[pos] == 0x0A:
                pos += 1
            if pos < len(buf) or not more():
                break
        while True:
            sp = buf.find(b" ", pos, pos + _MAX_WORD + 1)
            if sp >= 0:
                break
            if len(buf) - pos > _MAX_WORD:
                raise FormatError(path, f"entry {i}: no space after the word within "
                                        f"{_MAX_WORD} bytes; not a word2vec binary file?")
            if not more():
                raise FormatError(path, f"truncated: header says {n} words, file ends in "
                                        f"entry {i} (found {i} complete vectors)")
        word = buf[pos:sp]
        if not word:
            raise FormatError(path, f"entry {i}: empty word")
        if b"\0" in word:
            raise FormatError(path, f"entry {i}: word {word[:40]!r} contains a NUL byte")
        pos = sp + 1
        while len(buf) - pos < stride:
            if not more():
                raise FormatError(path, f"truncated: header says {n} words, file ends inside "
                                        f"the vector of entry {i} ({word[:40]!r})")
        if cur is None or filled == cur.shape[0]:
            if cur is not None:
                blocks.append(cur)
            cur = np.empty((min(block_cap, wanted - i), dim), dtype="<f4")
            cur_bytes = memoryview(cur).cast("B")
            filled = 0
        cur_bytes[filled * stride:(filled + 1) * stride] = buf[pos:pos + stride]
        filled += 1
        pos += stride
        words.append(word)
    assert cur is not None  # wanted >= 1: the header check refuses V <= 0
    blocks.append(cur[:filled])
    mat = np.concatenate(blocks) if len(blocks) > 1 else blocks[0]
    _require_finite(path, mat, lambda row: f"entry {row} ({words[row][:40]!r})")
    return _build(path, _decode_words(path, words, unicode_errors),
                  mat.astype(np.float32, copy=False))


# ---------------------------------------------------------------------------- native reader


def _native_header(path: str, fh: BinaryIO, size: int) -> tuple[dict[str, Any], int]:
    """The native file's JSON header, checked, and where it ends."""
    head_len = checked_prefix(path, fh, size, NATIVE_MAGIC, NATIVE_VERSION, "native",
                              "upgrade wv_engine or re-export the vectors")
    try:
        doc = parse_json(fh.read(head_len).decode("utf-8"))
        count, dim, sections = doc["count"], doc["dim"], doc["sections"]
        meta = doc.get("metadata") or {}
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise FormatError(path, f"damaged JSON header: {exc}") from None
    except RecursionError:
        raise FormatError(path, "damaged JSON header: nested too deeply") from None
    # sizes against the file's: _native_section, which names what is truncated
    n = checked_number(path, "header field 'count'", count)
    dim = checked_number(path, "header field 'dim'", dim, 1)
    if not isinstance(meta, dict) or not isinstance(sections, dict):
        raise FormatError(path, "invalid header: 'sections' and 'metadata' must be JSON objects")
    return ({"count": n, "dim": dim, "sections": sections, "metadata": meta, "word_hash": doc.get("word_hash")},
            _NATIVE_PREFIX.size + head_len)


def _native_section(path: str, head: dict[str, Any], name: str, size: int, data_start: int,
                    expected: tuple[str, list[int]] | None = None,
                    required: bool = True) -> tuple[int, int, str, list[int]] | None:
    """(offset, nbytes, dtype, shape) of a section, checked against the
    header's end, the file size and, when given, the expected dtype and shape."""
    sec = head["sections"].get(name)
    if sec is None:
        if required:
            raise FormatError(path, f"missing section {name!r}")
        return None
    try:
        off, nbytes, dtype, shape = sec["offset"], sec["nbytes"], sec["dtype"], sec["shape"]
    except (KeyError, TypeError):
        raise FormatError(path, f"damaged description of section {name!r}") from None
    if not isinstance(dtype, str) or not isinstance(shape, list):
        raise FormatError(path, f"damaged description of section {name!r}: dtype {dtype!r:.40}, "
                                f"shape {shape!r:.40}")
    off = checked_number(path, f"section {name!r} field 'offset'", off)  # the file size: below
    nbytes = checked_number(path, f"section {name!r} field 'nbytes'", nbytes)
    shape = [checked_number(path, f"section {name!r} field 'shape'", d) for d in shape]
    if expected is not None and (dtype, shape) != expected:
        raise FormatError(path, f"section {name!r} has dtype {dtype} shape {shape}, "
                                f"expected {expected}")
    if expected is not None or name not in _NATIVE_SECTIONS:
        try:
            itemsize = np.dtype(dtype).itemsize
        except (TypeError, ValueError):
            raise FormatError(path, f"section {name!r} has an unknown dtype {dtype!r}") from None
        if nbytes != itemsize * math.prod(shape):  # Python ints: a product past int64 cannot wrap
            raise FormatError(path, f"section {name!r} size does not match its shape")
    if off < data_start:
        raise FormatError(path, f"section {name!r} starts at byte {off}, inside the header "
                                f"(which ends at {data_start})")
    if off + nbytes > size:
        raise FormatError(path, f"truncated: section {name!r} needs bytes "
                                f"{off}..{off + nbytes} but the file has {size}")
    return off, nbytes, dtype, shape


def read_native_section(path: str | os.PathLike, name: str) -> np.ndarray:
    """An extra section of a native file (save_native's `sections`), as a
    writable native-endian array read straight into place (no bytes copy in
    between: a section can be as large as the model). Raises FormatError
    when it is missing or damaged."""
    path = os.fspath(path)
    _require_regular_file(path)
    size = os.path.getsize(path)
    with open(path, "rb") as fh:
        head, data_start = _native_header(path, fh, size)
        off, nbytes, dtype, shape = _native_section(path, head, name, size, data_start)  # type: ignore[misc]
        dt = np.dtype(dtype)
        if dt.kind not in "fiu":
            raise FormatError(path, f"section {name!r} is not numeric ({dtype})")
        fh.seek(off)
        data = np.fromfile(fh, dtype=dt, count=nbytes // dt.itemsize)
    if data.nbytes != nbytes:
        raise FormatError(path, f"truncated section {name!r}")
    return data.astype(dt.newbyteorder("="), copy=False).reshape(shape)


def read_native_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """The metadata of a native file, reading its header only."""
    path = os.fspath(path)
    _require_regular_file(path)
    with open(path, "rb") as fh:
        return _native_header(path, fh, os.path.getsize(path))[0]["metadata"]


def _read_native(path: str, limit: int | None, mapped: bool, unicode_errors: str) -> Loaded:
    """The native file, read (mapped=False) or mapped read-only (True: its
    arrays are views of the file's pages, shared with every process that
    maps it, and opening costs the same at any size: the words stay bytes,
    their table and the norms come from the file)."""
    if compression(path) is not None:
        raise FormatError(path, "the native format is not read compressed; decompress it first")
    size = os.path.getsize(path)
    with open(path, "rb") as fh:
        head, data_start = _native_header(path, fh, size)
        n, dim, meta = head["count"], head["dim"], head["metadata"]
        slots_shape = head["sections"].get("word_hash", {}).get("shape") if isinstance(
            head["sections"].get("word_hash"), dict) else None
        expected = {"vectors": ("<f4", [n, dim]), "word_offsets": ("<u8", [n + 1]), "counts": ("<i8", [n]),
                    "word_blob": None, "norms": ("<f4", [n]), "word_hash": ("<u4", slots_shape)}

        def section(name: str, required: bool = True) -> tuple[int, int] | None:
            found = _native_section(path, head, name, size, data_start, expected[name], required)
            return None if found is None else found[:2]

        vec_off, _ = section("vectors")
        wo_off, _ = section("word_offsets")
        blob_off, blob_len = section("word_blob")
        cnt = section("counts", required=False)
        nrm = section("norms", required=False)
        hsh = section("word_hash", required=False)
        if hsh is not None and (head.get("word_hash") != HASH_NAME or sys.byteorder != "little"):
            hsh = None  # built with another hash (or read on a big-endian machine): rebuilt below
        m = n if limit is None else max(0, min(n, limit))
        if mapped and m:
            return _mapped_native(path, fh, meta, m, n, dim, vec_off, wo_off, (blob_off, blob_len), cnt, nrm, hsh,
                                  unicode_errors)
        stored_table = hsh is not None and m == n
        fh.seek(wo_off)
        offsets = np.frombuffer(fh.read(8 * (m + 1)), dtype="<u8").astype(np.int64)
        if m and (offsets[0] != 0 or np.any(np.diff(offsets) < 0) or offsets[-1] > blob_len):
            raise FormatError(path, "damaged word offsets")
        fh.seek(blob_off)
        blob = np.frombuffer(fh.read(int(offsets[-1])), dtype=np.uint8)

        def read(where: tuple[int, int] | None, dtype: str, count: int) -> np.ndarray | None:
            if where is None:
                return None
            fh.seek(where[0])
            arr = np.fromfile(fh, dtype=dtype, count=count)
            if arr.size != count:
                raise FormatError(path, "truncated section")
            return arr.astype(np.dtype(dtype).newbyteorder("="), copy=False)

        counts = read(cnt, "<i8", m)
        norms = read(nrm, "<f4", m)
        slots = read(hsh, "<u4", int(slots_shape[0])) if stored_table else None
        mat = read((vec_off, 0), "<f4", m * dim).reshape(m, dim)
    return _from_bytes(path, blob, offsets, mat, norms, unicode_errors, counts, meta, slots)


def _mapped_native(path: str, fh: BinaryIO, meta: dict[str, Any], m: int, n: int, dim: int, vec_off: int,
                   wo_off: int, blob_at: tuple[int, int], cnt: tuple[int, int] | None,
                   nrm: tuple[int, int] | None, hsh: tuple[int, int] | None, unicode_errors: str) -> Loaded:
    """Views of the mapped file; what the C reads of them it checks as it
    reads (csrc/wordtable.c), so opening needs no pass over the words."""
    mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)

    def view(off: int, dtype: str, count: int) -> np.ndarray:
        return np.frombuffer(mm, dtype=dtype, count=count, offset=off)

    mat = np.memmap(path, dtype="<f4", mode="r", offset=vec_off, shape=(m, dim))  # a memmap, as before
    offsets = view(wo_off, "<i8", n + 1)
    blob = view(blob_at[0], "<u1", blob_at[1])
    if offsets[0] != 0 or offsets[n] > blob_at[1] or offsets[n] < 0:
        raise FormatError(path, "damaged word offsets")
    counts = None if cnt is None else view(cnt[0], "<i8", m)
    norms = None if nrm is None else view(nrm[0], "<f4", m)
    slots = None if hsh is None else view(hsh[0], "<u4", hsh[1] // 4)  # None: an older file, the table built once
    return _from_bytes(path, blob, offsets, mat, norms, unicode_errors, counts, meta, slots)


# ---------------------------------------------------------------------------- entry point


def read_vectors(
    path: str | os.PathLike,
    format: str = "auto",
    unicode_errors: str = "surrogateescape",
    limit: int | None = None,
    mmap: bool = False,
) -> VectorData:
    """Read word vectors from `path`.

    `format`: "auto" (detect from the content), "native", "word2vec-bin", "word2vec-txt" or
    "glove-txt". Text and binary files may be compressed (gzip, bzip2 or xz, known by their
    first bytes).
    `unicode_errors`: how to decode non-UTF-8 words: "surrogateescape" (lossless default),
    "strict", "replace", "ignore", or "latin-1" (UTF-8 first, Latin-1 for the rest).
    `limit`: read only the first N vectors. `mmap`: map the matrix read-only instead of
    reading it (native format only).

    Returns VectorData (counts and metadata are only known for the native format). Raises
    FormatError (a ValueError) naming the file and the problem for damaged or hostile files.
    """
    got = read_loaded(path, format, unicode_errors, limit, mmap)
    words = got.words if got.words is not None else got.table.words()
    return VectorData(words, got.vectors, got.counts, got.metadata)


def read_loaded(path: str | os.PathLike, format: str = "auto", unicode_errors: str = "surrogateescape",
                limit: int | None = None, mmap: bool = False, threads: int | None = None,
                progress: bool | None = None) -> Loaded:
    """read_vectors' work, the words kept as a WordTable where they can be
    (see Loaded); `threads` (default: every core) parse and copy an
    uncompressed file, `progress` shows a bar (None: on a terminal, for a
    file of 256 MiB or more)."""
    path = os.fspath(path)
    if format != "auto" and format not in FORMATS:
        raise ValueError(
            f"unknown format {format!r}; expected 'auto' or one of {', '.join(FORMATS)}")
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be a positive number of vectors, got {limit}")
    _make_decoder(unicode_errors)  # validate early
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, "vectors file not found", path)
    _require_regular_file(path)
    fmt = detect_format(path) if format == "auto" else format
    if mmap and fmt != "native":
        raise ValueError(f"{path}: mmap=True needs the native format; this file is {fmt}")
    if fmt == "native":
        return _read_native(path, limit, mmap, unicode_errors)
    fast = compression(path) is None and sys.byteorder == "little"
    with open_input(path) as fh:
        first = fh.readline(_MAX_LINE)
        header = _parse_header(path, first)
        if fmt == "glove-txt" and header is None:
            if fast:
                return _fast_text(path, None, 0, 1, limit, unicode_errors, threads, progress)
            # No header: the first line is already data, so read the file from its start.
            fh.seek(0)
            return _read_text(path, fh, None, 1, limit, unicode_errors)
        if header is None:
            raise FormatError(path, f"missing 'V D' header line (found {first[:60]!r})")
        if fmt in ("word2vec-txt", "glove-txt"):
            if fast:
                return _fast_text(path, header, len(first), 2, limit, unicode_errors, threads, progress)
            return _read_text(path, fh, header, 2, limit, unicode_errors)
        if fast:
            _check_binary_room(path, header, len(first))
            raw = mapped_files.read_binary(path, header, len(first), limit, _MAX_WORD, threads, progress)
            return _from_bytes(path, raw.blob, raw.offsets, raw.matrix, raw.norms, unicode_errors)
        return _read_word2vec_binary(path, fh, header, len(first), limit, unicode_errors)


def _fast_text(path: str, header: tuple[int, int] | None, start: int, first_line: int, limit: int | None,
               unicode_errors: str, threads: int | None, progress: bool | None) -> Loaded:
    raw = mapped_files.read_text(path, header, start, first_line, limit, threads, progress)
    return _from_bytes(path, raw.blob, raw.offsets, raw.matrix, raw.norms, unicode_errors)
