"""Files, for every module that reads or writes them: atomic writes (a
temporary file beside the target, fsynced and renamed), and opening input
plain or compressed, recognised by its magic bytes whatever it is called.
Output is compressed by the name the user gave it (.gz, .bz2, .xz)."""

from __future__ import annotations

import bz2
import contextlib
import errno
import gzip
import lzma
import os
import stat
import tempfile
from collections.abc import Iterator
from typing import IO, Any, BinaryIO, Callable, TypeVar

from .direct_write import DirectWriter
from .errors import CorpusError, FormatError, InputFileError

T = TypeVar("T")
CHUNK_BYTES = 1 << 23  # 8 MiB reads: big enough to amortise a C call per chunk, small in RAM
_MAGIC = (("gz", b"\x1f\x8b"), ("bz2", b"BZh"), ("xz", b"\xfd7zXZ\x00"))
_OPENERS = {"gz": gzip.open, "bz2": bz2.open, "xz": lzma.open}
DECOMPRESSION_ERRORS = (EOFError, OSError, lzma.LZMAError)  # what a damaged compressed stream raises


_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def _not_regular(mode: int) -> str | None:
    """What a file that is not a regular file is ("a FIFO (named pipe)", ...), else None."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def check_input(path: str | os.PathLike, what: str = "input file") -> str:
    """`path` as a str once it names an existing regular file (links
    followed). Every input is read more than once, sized, or read at offsets
    by several threads, which a pipe or a device cannot do, and opening a
    FIFO that has no writer blocks forever: so those are refused at once.
    Raises FileNotFoundError, IsADirectoryError or InputFileError naming it."""
    path = os.fspath(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, "no such file", path) from None
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "a directory, not a file", path)
    kind = _not_regular(mode)
    if kind is not None:
        raise InputFileError(path, kind, f"cannot read the {what} {path}: it is {kind}, not a regular file "
                                         "(inputs are read more than once): write it to a regular file first")
    return path


TEXT_PROBE_BYTES = 1 << 16  # how much of a text input is looked at before it is read for real
# Control bytes text does not hold (tab, newline, vertical tab, form feed,
# carriage return and escape aside): in a binary file one byte in ten is one.
_BINARY_BYTES = bytes(range(0x20)).translate(None, b"\t\n\v\f\r\x1b") + b"\x7f"


def check_text(path: str | os.PathLike, what: str = "text file") -> str:
    """check_input, and then the first 64 KiB of the text (decompressed)
    look like text: no NUL byte, and control bytes under 1%. Binary files
    (vectors, models, archives, random bytes) and UTF-16 text fail that,
    and are refused before a long run reads them (FormatError)."""
    path = check_input(path, what)
    try:
        with open_input(path, what) as f:
            head = f.read(TEXT_PROBE_BYTES)
    except DECOMPRESSION_ERRORS as exc:
        raise FormatError(path, f"the {what} is damaged: {exc}") from None
    control = len(head) - len(head.translate(None, _BINARY_BYTES))
    if b"\0" in head or control * 100 > len(head):
        at = min(i for i in (head.find(bytes([b])) for b in _BINARY_BYTES) if i >= 0)
        raise FormatError(path, f"not a {what}: it holds control bytes text does not ({control:,} of its first "
                                f"{len(head):,}, the first at byte {at:,}): a binary file, or text in UTF-16 "
                                "(give UTF-8 text)")
    return path


def read_as(name: str, path: str | os.PathLike, read: Callable[..., T], *args: Any) -> T:
    """read(path, *args), any failure to read the file raised again as one
    line naming `name` (the flag or parameter that gave it) and the path:
    "--eval-pairs FILE: line 3: expected 'word1 word2 score'". The type is
    kept where it takes a message alone (FileNotFoundError), else OSError
    or ValueError."""
    try:
        return read(path, *args)
    except (OSError, ValueError, KeyError) as exc:
        if isinstance(exc, OSError) and exc.strerror:
            why = exc.strerror
        else:
            why = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
        shown = os.fspath(path)
        why = why.removeprefix(f"{shown}: ").removeprefix(f"{shown}, ").removesuffix(f": {shown}")
        message = f"{name} {shown}: {why}"
        try:
            again = type(exc)(message)
        except TypeError:
            again = OSError(message) if isinstance(exc, OSError) else ValueError(message)
        raise again from None


def check_directory(path: str | os.PathLike | None, name: str = "tmp_dir") -> str | None:
    """`path` as a str (None passes) once it names an existing directory
    this process may write in, or an OSError naming `name` (the setting)
    and the path: where temporary files go is checked before the work that
    makes them starts."""
    if path is None:
        return None
    return read_as(name, os.fspath(path), _writable_directory)


def _writable_directory(path: str) -> str:
    if not os.path.isdir(path):
        if not os.path.lexists(path):
            raise FileNotFoundError(errno.ENOENT, "no such directory", path)
        raise NotADirectoryError(errno.ENOTDIR, "not a directory", path)
    if not os.access(path, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, "a directory this process may not write in", path)
    return path


def compression(path: str | os.PathLike) -> str | None:
    """"gz", "bz2" or "xz" by the file's first bytes, else None (plain)."""
    return _compression(check_input(path))


def _compression(path: str) -> str | None:
    """compression() of a path check_input has passed."""
    with open(path, "rb") as f:
        head = f.read(6)
    return next((kind for kind, magic in _MAGIC if head.startswith(magic)), None)


def open_input(path: str | os.PathLike, what: str = "input file") -> IO[bytes]:
    """Opens a regular file for binary reading, decompressing gzip, bzip2 or
    xz. Raises FileNotFoundError, IsADirectoryError or InputFileError naming
    the path (check_input)."""
    path = check_input(path, what)
    kind = _compression(path)
    return _OPENERS[kind](path, "rb") if kind else open(path, "rb")  # type: ignore[return-value]


def read_position(stream: IO[bytes]) -> int:
    """How far into the file on disk a stream from open_input has read (for
    a compressed file: compressed bytes), for progress against its size."""
    try:
        return os.lseek(stream.fileno(), 0, os.SEEK_CUR)
    except (OSError, AttributeError, ValueError):
        return 0


@contextlib.contextmanager
def _as_corpus_error(path: str | os.PathLike) -> Iterator[None]:
    """A corpus path that is missing, a directory, a pipe or a device, as a CorpusError."""
    try:
        yield
    except InputFileError as exc:
        raise CorpusError(str(exc)) from None
    except IsADirectoryError:
        raise CorpusError(f"corpus path is a directory, not a file: {os.fspath(path)}") from None
    except FileNotFoundError:
        raise CorpusError(f"corpus file not found: {os.fspath(path)}") from None


def open_binary(path: str | os.PathLike) -> IO[bytes]:
    """open_input for a corpus: a missing path or a directory is a CorpusError."""
    with _as_corpus_error(path):
        return open_input(path, "corpus")


def check_corpus_text(path: str | os.PathLike) -> None:
    """check_text for a corpus: what is not a readable text file is a CorpusError."""
    with _as_corpus_error(path):
        try:
            check_text(path, "text corpus")
        except FormatError as exc:
            raise CorpusError(str(exc)) from None


def is_compressed(path: str | os.PathLike) -> bool:
    """True for a gzip, bzip2 or xz corpus (by magic bytes): such a file can
    only be read from its start. CorpusError for a missing path or a directory."""
    with _as_corpus_error(path):
        return _compression(check_input(path, "corpus")) is not None


def fingerprint(path: str | os.PathLike, span: int = 1 << 20) -> dict[str, Any]:
    """What tells one input file from another without reading it all: its
    size and SHA-256 digests of its first and last `span` bytes."""
    import hashlib

    path = check_input(path)
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


def name_max(directory: str) -> int:
    """The longest file name, in bytes, the file system at `directory` takes."""
    try:
        return os.pathconf(directory, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def _fit_name(directory: str, name: str, room: int) -> str:
    """`name` cut (in bytes, as the file system counts them) so that `room`
    more bytes still fit under NAME_MAX beside it."""
    raw = os.fsencode(name)
    keep = max(name_max(directory) - room, 1)
    return name if len(raw) <= keep else os.fsdecode(raw[:keep])


def sibling_path(path: str | os.PathLike, suffix: str) -> str:
    """`path` + `suffix` (such as ".partial"), the name cut before the suffix
    where the whole would be longer than the file system allows."""
    path = os.fspath(path)
    directory, name = os.path.split(os.path.abspath(path))
    return os.path.join(os.path.dirname(path), _fit_name(directory, name, len(os.fsencode(suffix))) + suffix)


def _temp_stem(directory: str, path: str) -> str:
    """`path`'s name cut so that a temporary name made from it, ".NAME.PID.
    XXXXXXXX.tmp" with room for a 10-digit PID, fits NAME_MAX: a target whose
    own name fits never fails for its temporary's. The cut does not depend on
    the PID, so a later process finds an earlier one's leftovers."""
    return _fit_name(directory, os.path.basename(path), 1 + 1 + 10 + 1 + 8 + 4)


def _temp_prefix(directory: str, path: str) -> str:
    """".NAME.PID.", the start of this process's temporary names for `path`."""
    return f".{_temp_stem(directory, path)}.{os.getpid()}."


def check_writable(path: str | os.PathLike, what: str = "output") -> None:
    """Raises a one-line OSError (InputFileError for a pipe or device in its
    place) naming `path` when a file cannot be written there (missing or
    read-only directory, a directory in its place, a name longer than the
    file system takes): called before long work
    starts, so that no run is lost to a typo at its end. The temporary file an
    atomic write will use is created and removed here, under its real name."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise FileNotFoundError(errno.ENOENT, f"cannot write the {what} {path}: the directory {directory} does not exist")
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, f"cannot write the {what} {path}: it is a directory")
    with contextlib.suppress(OSError):
        kind = _not_regular(os.stat(path).st_mode)
        if kind is not None:  # an atomic write would replace the pipe or device node with a file
            raise InputFileError(path, kind, f"cannot write the {what} {path}: it is {kind}, and outputs are "
                                             "written to a temporary file renamed over the target: name a "
                                             "regular file")
    limit = name_max(directory)
    if len(os.fsencode(os.path.basename(path))) > limit:
        raise OSError(errno.ENAMETOOLONG, f"cannot write the {what} {path}: its name is longer than the "
                                          f"{limit} bytes the file system allows")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, f"cannot write the {what} {path}: the directory {directory} is not writable")
    try:
        fd, probe = tempfile.mkstemp(prefix=_temp_prefix(directory, path), suffix=".tmp", dir=directory)
    except OSError as exc:
        raise type(exc)(exc.errno, f"cannot write the {what} {path}: {exc.strerror}") from None
    os.close(fd)
    os.unlink(probe)


def _temporary(directory: str, path: str) -> tuple[int, str | None]:
    """A file to write `path`'s new contents into: an unnamed one (O_TMPFILE,
    so that a kill, even SIGKILL, leaves nothing behind), given a name only
    when complete; else a named one, `.NAME.PID.XXXX.tmp`."""
    _remove_stale(directory, path)
    if _unnamed_files_work(directory):
        try:
            return os.open(directory, os.O_TMPFILE | os.O_WRONLY, 0o666 & ~_current_umask()), None
        except OSError:
            pass
    return tempfile.mkstemp(prefix=_temp_prefix(directory, path), suffix=".tmp", dir=directory)


_UNNAMED_OK: dict[int, bool] = {}  # per device: can an O_TMPFILE file be given a name there


def _unnamed_files_work(directory: str) -> bool:
    """Whether an unnamed file can be made in `directory` and linked into it
    later (Linux O_TMPFILE + linkat through /proc): tried once per device,
    since some file systems and sandboxes refuse one or the other."""
    if not hasattr(os, "O_TMPFILE") or not os.path.isdir("/proc/self/fd"):
        return False
    try:
        dev = os.stat(directory).st_dev
    except OSError:
        return False
    if dev not in _UNNAMED_OK:
        ok = False
        try:
            fd = os.open(directory, os.O_TMPFILE | os.O_WRONLY, 0o600)
            try:
                probe = os.path.join(directory, f".wv_engine_probe.{os.getpid()}.{os.urandom(4).hex()}")
                os.link(f"/proc/self/fd/{fd}", probe, follow_symlinks=True)
                os.unlink(probe)
                ok = True
            finally:
                os.close(fd)
        except OSError:
            pass
        _UNNAMED_OK[dev] = ok
    return _UNNAMED_OK[dev]


def _remove_stale(directory: str, path: str) -> None:
    """Deletes temporary files of earlier writes of `path` whose process is
    gone (killed before it could clean up)."""
    prefix = f".{_temp_stem(directory, path)}."  # any process's
    with contextlib.suppress(OSError):
        for entry in os.listdir(directory):
            if not (entry.startswith(prefix) and entry.endswith(".tmp")):
                continue
            pid = entry[len(prefix):].split(".", 1)[0]
            if pid.isdigit() and int(pid) != os.getpid() and not os.path.exists(f"/proc/{pid}"):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(directory, entry))


def _named(fd: int, tmp: str | None, directory: str, path: str) -> str:
    """The temporary file's name, linking an unnamed one into `directory` first."""
    if tmp is not None:
        return tmp
    for _ in range(100):
        name = os.path.join(directory, f"{_temp_prefix(directory, path)}{os.urandom(4).hex()}.tmp")
        try:
            os.link(f"/proc/self/fd/{fd}", name, follow_symlinks=True)
            return name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, f"no free temporary name beside {path}")


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "wb", direct: bool = False) -> Iterator[IO[Any]]:
    """Open a temporary file next to `path` for writing (`mode` "wb" or "w"); on normal exit
    flush, fsync and rename it onto `path`. On any exception (KeyboardInterrupt included) the
    temporary file is removed and an existing `path` is left untouched; where the file system
    allows (O_TMPFILE), the temporary file has no name until it is complete, so that not even
    a kill leaves it behind. Errors name `path`, never the temporary file.

    direct=True (binary mode, files of a gigabyte such as a fastText .bin): the file object
    has write() only, and the bytes pass the page cache where the file system allows
    (direct_write.DirectWriter).
    """
    if "w" not in mode or any(ch in mode for ch in "ra+x"):
        raise ValueError(f"atomic_write needs a write mode such as 'wb' or 'w', got {mode!r}")
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = _temporary(directory, path)
    except OSError as exc:
        raise type(exc)(exc.errno, f"cannot write {path}: {exc.strerror}") from None
    try:
        if direct and "b" in mode:
            writer = DirectWriter(fd)
            try:
                yield writer
                writer.finish()
            finally:
                writer.close()
            os.fsync(fd)
        else:
            kwargs = {} if "b" in mode else {"encoding": "utf-8", "newline": ""}
            with os.fdopen(fd, mode, closefd=False, **kwargs) as fh:
                yield fh
                fh.flush()
                os.fsync(fh.fileno())
        if os.path.exists(path):
            os.fchmod(fd, os.stat(path).st_mode & 0o7777)
        elif tmp is not None:
            os.fchmod(fd, 0o666 & ~_current_umask())
        tmp = _named(fd, tmp, directory, path)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise type(exc)(exc.errno, f"cannot write {path}: {exc.strerror}") from exc
    finally:
        os.close(fd)
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    # Make the rename itself durable (POSIX; directories cannot be opened on Windows).
    with contextlib.suppress(OSError):
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def write_json(path: str | os.PathLike, data: Any) -> None:
    """`data` as indented JSON in `path`, atomically (stats files)."""
    import json

    with atomic_write(path, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")


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
