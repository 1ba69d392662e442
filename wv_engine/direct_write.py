"""Writing a large file past the page cache (O_DIRECT), for atomic_write.

A model file of a gigabyte is written once and fsynced: through the page
cache it is first copied into a gigabyte of fresh cache pages, which on a
virtual machine costs as much as the disk (docs/performance.md). With
O_DIRECT the bytes go from one small aligned buffer to the disk. Where the
file system refuses O_DIRECT, or a write is refused, the writer goes on
with plain writes: never an error that a plain write would not raise."""

from __future__ import annotations

import contextlib
import errno
import mmap
import os

try:
    import fcntl
except ImportError:  # Windows: no O_DIRECT, plain writes
    fcntl = None  # type: ignore[assignment]

BUFFER_BYTES = 1 << 23  # a multiple of every block size O_DIRECT asks alignment to


class DirectWriter:
    """A write-only binary file on descriptor `fd` (opened for writing, at
    offset 0): write() copies into an aligned buffer that goes to the disk
    whole; finish() writes the rest. The caller closes fd."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._direct = _set_direct(fd, True)
        self._buf = mmap.mmap(-1, BUFFER_BYTES) if self._direct else None  # page-aligned
        self._fill = 0

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        if self._buf is None:
            _write_all(self._fd, view)
            return len(view)
        done = 0
        while done < len(view):
            k = min(BUFFER_BYTES - self._fill, len(view) - done)
            self._buf[self._fill:self._fill + k] = view[done:done + k]
            self._fill += k
            done += k
            if self._fill == BUFFER_BYTES:
                self._flush()
        return len(view)

    def finish(self) -> None:
        """Writes what the buffer holds (its length is not a block multiple:
        a plain write) and frees the buffer."""
        if self._buf is None:
            return
        if self._fill:
            self._plain()
            self._flush()
        self.close()

    def close(self) -> None:
        if self._buf is not None:
            # a view of it held by an exception's traceback: freed with that instead
            with contextlib.suppress(BufferError):
                self._buf.close()
            self._buf = None

    def _flush(self) -> None:
        view = memoryview(self._buf)[:self._fill]
        if self._direct:
            try:
                view = view[os.write(self._fd, view):]
            except OSError as exc:
                if exc.errno != errno.EINVAL:  # EINVAL: no O_DIRECT write of this shape here
                    raise
            if len(view):  # refused or short: the rest without O_DIRECT
                self._plain()
        _write_all(self._fd, view)
        self._fill = 0

    def _plain(self) -> None:
        if self._direct:
            _set_direct(self._fd, False)
            self._direct = False


def _set_direct(fd: int, on: bool) -> bool:
    """Turns O_DIRECT on or off for fd; whether that worked."""
    flag = getattr(os, "O_DIRECT", 0)
    if not flag or fcntl is None:
        return False
    try:
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags | flag if on else flags & ~flag)
    except OSError:
        return False
    return True


def _write_all(fd: int, view: memoryview) -> None:
    while len(view):
        view = view[os.write(fd, view):]
