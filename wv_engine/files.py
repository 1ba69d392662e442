"""Files, for every module that reads or writes them: atomic writes (a
temporary file beside the target, fsynced and renamed), and opening input
plain or compressed, recognised by its magic bytes whatever it is called.
Output is compressed by the name the user gave it (.gz, .bz2, .xz)."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
import os
import tempfile
from collections.abc import Iterator
from typing import IO, Any, BinaryIO

from .errors import CorpusError

CHUNK_BYTES = 1 << 23  # 8 MiB reads: big enough to amortise a C call per chunk, small in RAM
_MAGIC = (("gz", b"\x1f\x8b"), ("bz2", b"BZh"), ("xz", b"\xfd7zXZ\x00"))
_OPENERS = {"gz": gzip.open, "bz2": bz2.open, "xz": lzma.open}
DECOMPRESSION_ERRORS = (EOFError, OSError, lzma.LZMAError)  # what a damaged compressed stream raises


def compression(path: str | os.PathLike) -> str | None:
    """"gz", "bz2" or "xz" by the file's first bytes, else None (plain)."""
    with open(path, "rb") as f:
        head = f.read(6)
    return next((kind for kind, magic in _MAGIC if head.startswith(magic)), None)


def open_input(path: str | os.PathLike) -> IO[bytes]:
    """Opens a file for binary reading, decompressing gzip, bzip2 or xz.
    Raises FileNotFoundError or IsADirectoryError naming the path."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(2, "no such file", path)
    if os.path.isdir(path):
        raise IsADirectoryError(21, "a directory, not a file", path)
    kind = compression(path)
    return _OPENERS[kind](path, "rb") if kind else open(path, "rb")  # type: ignore[return-value]


def read_position(stream: IO[bytes]) -> int:
    """How far into the file on disk a stream from open_input has read (for
    a compressed file: compressed bytes), for progress against its size."""
    try:
        return os.lseek(stream.fileno(), 0, os.SEEK_CUR)
    except (OSError, AttributeError, ValueError):
        return 0


def open_binary(path: str | os.PathLike) -> IO[bytes]:
    """open_input for a corpus: a missing path or a directory is a CorpusError."""
    try:
        return open_input(path)
    except IsADirectoryError:
        raise CorpusError(f"corpus path is a directory, not a file: {os.fspath(path)}") from None
    except FileNotFoundError:
        raise CorpusError(f"corpus file not found: {os.fspath(path)}") from None


def is_compressed(path: str | os.PathLike) -> bool:
    """True for a gzip, bzip2 or xz corpus (by magic bytes): such a file can
    only be read from its start. CorpusError for a missing path or a directory."""
    open_binary(path).close()
    return compression(path) is not None


def fingerprint(path: str | os.PathLike, span: int = 1 << 20) -> dict[str, Any]:
    """What tells one input file from another without reading it all: its
    size and SHA-256 digests of its first and last `span` bytes."""
    import hashlib

    path = os.fspath(path)
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = hashlib.sha256(f.read(span)).hexdigest()
        f.seek(max(0, size - span))
        tail = hashlib.sha256(f.read(span)).hexdigest()
    return {"size": size, "head_sha256": head, "tail_sha256": tail}


def _current_umask() -> int:
    """The process umask, so the final file gets ordinary permissions (mkstemp uses 0600)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "wb") -> Iterator[IO[Any]]:
    """Open a temporary file next to `path` for writing (`mode` "wb" or "w"); on normal exit
    flush, fsync and rename it onto `path`. On any exception (KeyboardInterrupt included) the
    temporary file is removed and an existing `path` is left untouched.
    """
    if "w" not in mode or any(ch in mode for ch in "ra+x"):
        raise ValueError(f"atomic_write needs a write mode such as 'wb' or 'w', got {mode!r}")
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        kwargs = {} if "b" in mode else {"encoding": "utf-8", "newline": ""}
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        if os.path.exists(path):
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o666 & ~_current_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    # Make the rename itself durable (POSIX; directories cannot be opened on Windows).
    with contextlib.suppress(OSError):
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """atomic_write in binary mode, compressing when the name ends in .gz, .bz2 or .xz."""
    name = os.fspath(path).lower()
    with atomic_write(path, "wb") as raw:
        if name.endswith(".gz"):
            inner: Any = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0)
        elif name.endswith(".bz2"):
            inner = bz2.BZ2File(raw, "wb")
        elif name.endswith((".xz", ".lzma")):
            inner = lzma.LZMAFile(raw, "wb")
        else:
            yield raw
            return
        with inner:
            yield inner
