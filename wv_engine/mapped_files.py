"""word2vec binary and text files read through a read-only mapping, on
every thread (csrc/vecfile.c): the rows land once in the matrix, each
row's norm is computed on the way (so the first query needs no pass over
the matrix), and the words stay bytes end to end (a blob and offsets, no
Python object per word) for wv_engine.word_index.

The file is read a window at a time and each window's pages are let go of
once read (the page cache keeps them), so that while loading, the memory
held is the matrix and one window, not the matrix and the file.
wv_engine.formats decides when this reader applies (an uncompressed
regular file) and owns the messages' wording for the checks it shares
with the streaming reader."""

from __future__ import annotations

import mmap
import os
import warnings
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Iterator, NamedTuple

import numpy as np

from . import _vectors
from .errors import FormatError
from .progress import ByteProgress
from .settings import default_threads

WINDOW_BYTES = 1 << 25        # bytes of the file mapped in at a time
PIECE_BYTES = 1 << 22         # text parsed a piece at a time, pieces shared among threads
BIG_FILE_BYTES = 1 << 28      # a progress bar (on a terminal) from this size on
READ_CHUNK = 1 << 26          # bytes a thread reads at a time into a fresh array
MAX_LINE = 1 << 26            # the first row of a file without a header, read to find the dimension
_PAGE = mmap.PAGESIZE


class RawRows(NamedTuple):
    """What a reader found: the words as bytes (blob, offsets) and their rows."""

    blob: np.ndarray      # uint8
    offsets: np.ndarray   # int64, len(matrix) + 1
    matrix: np.ndarray    # float32 (n, dim)
    norms: np.ndarray     # float32 (n,)


@contextmanager
def mapped(path: str) -> Iterator[mmap.mmap]:
    """The file mapped read-only (an empty file cannot be mapped: FormatError)."""
    with open(path, "rb") as fh:
        if os.fstat(fh.fileno()).st_size == 0:
            raise FormatError(path, "file is empty")
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        yield mm
    finally:
        mm.close()


def _let_go(mm: mmap.mmap, begin: int, end: int) -> None:
    """Unmaps the pages of [begin, end) from this process (a file's
    pages stay in the page cache): RSS does not grow with the file."""
    start = begin // _PAGE * _PAGE
    stop = end // _PAGE * _PAGE
    if stop > start and hasattr(mm, "madvise"):
        try:
            mm.madvise(mmap.MADV_DONTNEED, start, stop - start)
        except OSError:
            pass


def _progress(path: str, size: int, enabled: bool | None) -> ByteProgress:
    if enabled is None and size < BIG_FILE_BYTES:
        enabled = False
    return ByteProgress(size, f"reading {os.path.basename(path)}", enabled)


def _offsets(lengths: np.ndarray) -> np.ndarray:
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def _not_finite(path: str, where: str, row: np.ndarray) -> FormatError:
    bad = row[~np.isfinite(row)]
    value = bad[0] if bad.size else float("nan")
    return FormatError(path, f"{where}: value {value} is not a finite number "
                             "(inf, nan, or past float32's range of 3.4e38)")


def read_floats(fh, offset: int, count: int, threads: int | None = None) -> np.ndarray:
    """`count` little-endian float32 from byte `offset` of the open file
    `fh`, read straight into a fresh array by several threads at once
    (pread releases the GIL): the page faults of the new memory and the
    copy out of the page cache are shared among the cores, where one
    np.fromfile takes them in turn. FormatError if the file ends first."""
    out = np.empty(count, dtype="<f4")
    raw = memoryview(out).cast("B")
    fd = fh.fileno()
    chunks = range(0, len(raw), READ_CHUNK)

    def read(start: int) -> int:
        part = raw[start:start + READ_CHUNK]
        done = 0
        while done < len(part):
            got = os.preadv(fd, [part[done:]], offset + start + done)
            if got <= 0:
                break
            done += got
        return done

    workers = max(1, min(threads or default_threads(), len(chunks)))
    if workers == 1:
        got = sum(map(read, chunks))
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            got = sum(pool.map(read, chunks))
    if got != len(raw):
        raise FormatError(getattr(fh, "name", "?"), f"truncated: {count:,} values at offset {offset:,}, "
                                                    f"the file holds {got // 4:,}")
    return out


# ---------------------------------------------------------------------------- binary


def read_binary(path: str, header: tuple[int, int], header_len: int, limit: int | None, max_word: int,
                threads: int | None = None, progress: bool | None = None) -> RawRows:
    """Entries "word<space><D float32>[\\n]" after the header line (the
    header's sizes already checked against the file's)."""
    n, dim = header
    wanted = n if limit is None else min(n, limit)
    threads = threads or default_threads()
    stride = 4 * dim
    matrix = np.empty((wanted, dim), dtype=np.float32)
    norms = np.empty(wanted, dtype=np.float32)
    blobs, lengths = [], []
    size = os.path.getsize(path)
    bar = _progress(path, size, progress)
    per_window = max(1, WINDOW_BYTES // (stride + 16))
    try:
        with mapped(path) as mm:
            pos, done = header_len, 0
            while done < wanted:
                count = min(per_window, wanted - done)
                word_at, word_len, problem = _vectors.binary_scan(mm, pos, count, dim, max_word)
                found = len(word_at)
                if found:
                    bad = _vectors.binary_rows(mm, word_at, word_len, matrix[done:done + found],
                                               norms[done:done + found], threads)
                    if bad >= 0:
                        word = mm[word_at[bad]:word_at[bad] + min(word_len[bad], 40)]
                        raise _not_finite(path, f"entry {done + bad} ({word!r})", matrix[done + bad])
                    local = _offsets(word_len)
                    blob = np.empty(local[-1], dtype=np.uint8)
                    _vectors.gather_words(mm, word_at, local, blob, threads)
                    blobs.append(blob)
                    lengths.append(word_len)
                if problem is not None:
                    raise _binary_problem(path, n, problem, done + found, mm, max_word)
                end = int(word_at[-1] + word_len[-1] + 1 + stride)
                _let_go(mm, pos, end)
                bar.add(end - pos)
                pos, done = end, done + found
    finally:
        bar.close()
    blob = np.concatenate(blobs) if len(blobs) != 1 else blobs[0]
    return RawRows(blob, _offsets(np.concatenate(lengths)), matrix, norms)


def _binary_problem(path: str, n: int, problem: tuple, entry: int, mm: mmap.mmap, max_word: int) -> FormatError:
    kind, _, at = problem
    if kind == "no_space":
        return FormatError(path, f"entry {entry}: no space after the word within {max_word} bytes; "
                                 "not a word2vec binary file?")
    if kind == "empty_word":
        return FormatError(path, f"entry {entry}: empty word")
    word = mm[at:at + max_word + 1].split(b" ", 1)[0][:40]
    if kind == "nul_word":
        return FormatError(path, f"entry {entry}: word {word!r} contains a NUL byte")
    if b" " in mm[at:at + max_word + 1]:
        return FormatError(path, f"truncated: header says {n} words, file ends inside the vector of entry "
                                 f"{entry} ({word!r})")
    return FormatError(path, f"truncated: header says {n} words, file ends in entry {entry} "
                             f"(found {entry} complete vectors)")


# ---------------------------------------------------------------------------- text


def read_text(path: str, header: tuple[int, int] | None, start: int, first_line: int, limit: int | None,
              threads: int | None = None, progress: bool | None = None) -> RawRows:
    """Rows "word v1 ... vD" from byte `start` (line `first_line`) until the
    header's V rows, `limit`, or the end of the file; without a header the
    dimension is the first row's."""
    threads = threads or default_threads()
    size = os.path.getsize(path)
    with mapped(path) as mm:
        wanted = header[0] if header else None
        if limit is not None:
            wanted = limit if wanted is None else min(wanted, limit)
        target = wanted  # the rows the header (and limit) promise
        dim = header[1] if header else _first_dimension(path, mm, start, first_line)
        end = size
        if limit is not None and (header is None or limit < header[0]):
            end = _vectors.text_rows_end(mm, start, size, limit)  # the rest is never read
        bar = _progress(path, end - start, progress)
        try:
            if wanted is None or wanted * (2 * dim + 2) > end - start:
                # GloVe, or a header claiming more rows than the bytes can hold: counted first,
                # a window at a time, so that nothing is allocated for rows that are not there
                counted = _count_rows(mm, start, end, threads, bar)
                wanted = counted if wanted is None else min(wanted, counted)
                bar.close()
                bar = _progress(path, end - start, progress)
            if wanted == 0:
                raise FormatError(path, "no vectors in file")
            matrix = np.empty((wanted, dim), dtype=np.float32)
            norms = np.empty(wanted, dtype=np.float32)
            word_at = np.empty(wanted, dtype=np.int64)
            word_len = np.empty(wanted, dtype=np.int64)
            blobs = []
            rows, line, pos = 0, first_line, start
            while pos < end and rows < wanted:
                stop = end if end - pos <= WINDOW_BYTES else _vectors.text_rows_end(mm, pos + WINDOW_BYTES - 1, end, 1)
                pieces = _vectors.text_pieces(mm, pos, stop, max(threads, (stop - pos) // PIECE_BYTES + 1), threads)
                take = np.cumsum(pieces[:, 2])
                if take.size and take[-1] > wanted - rows:  # the header's rows end inside this window
                    keep = int(np.searchsorted(take, wanted - rows))
                    pieces = pieces[:keep + 1].copy()
                    before = int(take[keep - 1]) if keep else 0
                    cut = _vectors.text_rows_end(mm, int(pieces[keep, 0]), int(pieces[keep, 1]),
                                                 wanted - rows - before)
                    pieces[keep, 1] = cut
                    pieces[keep, 2] = wanted - rows - before
                    stop = cut
                first_row = rows + np.concatenate(([0], np.cumsum(pieces[:, 2])[:-1])).astype(np.int64)
                first_lines = line + np.concatenate(([0], np.cumsum(pieces[:, 3])[:-1])).astype(np.int64)
                errors = _vectors.text_parse(mm, pieces, first_row, first_lines, matrix, norms, word_at, word_len,
                                             threads)
                failed = np.flatnonzero(errors[:, 0])
                if failed.size:
                    i = failed[0]
                    raise _text_problem(path, mm, errors[i], dim, header is not None, matrix, int(first_row[i]),
                                        pieces[i])
                got = int(pieces[:, 2].sum())
                local = _offsets(word_len[rows:rows + got])
                blob = np.empty(local[-1], dtype=np.uint8)
                _vectors.gather_words(mm, word_at[rows:rows + got], local, blob, threads)
                blobs.append(blob)
                _let_go(mm, pos, stop)
                bar.add(stop - pos)
                rows, line = rows + got, line + int(pieces[:, 3].sum())
                pos = stop
        finally:
            bar.close()
        if header is not None and rows < (target or 0):
            raise FormatError(path, f"truncated: header says {header[0]} words but the file holds {rows}")
        if rows == 0:
            raise FormatError(path, "no vectors in file")
        if limit is None and header is not None and pos < size and _has_row(mm, pos, size):
            warnings.warn(f"{path}: ignored lines after the {header[0]} words the header announces", stacklevel=4)
    blob = np.concatenate(blobs) if len(blobs) != 1 else blobs[0]
    return RawRows(blob, _offsets(word_len[:rows]), matrix[:rows], norms[:rows])


def _has_row(mm: mmap.mmap, pos: int, size: int) -> bool:
    return bool(_vectors.text_pieces(mm, pos, size, 1, 1)[:, 2].sum())


def _count_rows(mm: mmap.mmap, start: int, end: int, threads: int, bar: ByteProgress) -> int:
    rows, pos = 0, start
    while pos < end:
        stop = end if end - pos <= WINDOW_BYTES else _vectors.text_rows_end(mm, pos + WINDOW_BYTES - 1, end, 1)
        pieces = _vectors.text_pieces(mm, pos, stop, max(threads, (stop - pos) // PIECE_BYTES + 1), threads)
        rows += int(pieces[:, 2].sum())
        _let_go(mm, pos, stop)
        bar.add(stop - pos)
        pos = stop
    return rows


def _first_dimension(path: str, mm: mmap.mmap, start: int, first_line: int) -> int:
    """The values on the first non-blank line (a file without a header)."""
    pos, line, size = start, first_line, len(mm)
    while pos < size:
        nl = mm.find(b"\n", pos, pos + MAX_LINE + 1)
        if nl < 0 and size - pos > MAX_LINE:
            raise FormatError(path, f"line {line} is longer than {MAX_LINE} bytes")
        stop = size if nl < 0 else nl
        parts = mm[pos:stop].split()
        if parts:
            if len(parts) < 2:
                raise FormatError(path, f"line {line}: a word with no values")
            return len(parts) - 1
        pos, line = stop + 1, line + 1
    raise FormatError(path, "no vectors in file")


def _text_problem(path: str, mm: mmap.mmap, error: np.ndarray, dim: int, has_header: bool, matrix: np.ndarray,
                  first_row: int, piece: np.ndarray) -> FormatError:
    code, line, at, count = (int(x) for x in error)
    kind = _vectors.PROBLEMS[code]
    if kind == "nul_word":
        return FormatError(path, f"line {line}: word contains a NUL byte")
    if kind == "not_number":
        token = mm[at:at + 41].split()[0][:40]
        return FormatError(path, f"line {line}: {token!r} is not a number")
    if kind == "count":
        return FormatError(path, f"line {line}: {count} values where {dim} were expected"
                                 f"{' (header dimension)' if has_header else ' (from the first line)'}")
    # not finite: the row is the one this line was parsed into, after the piece's rows before it
    before = mm.rfind(b"\n", int(piece[0]), at) + 1
    row = first_row + (int(_vectors.text_pieces(mm, int(piece[0]), before, 1, 1)[:, 2].sum()) if before else 0)
    return _not_finite(path, f"line {line}", matrix[row])
