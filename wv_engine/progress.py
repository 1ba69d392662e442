"""A progress bar for training runs (tqdm: words/s, ETA, current alpha).

Shown when asked, or by default only when stderr is a terminal, so logs and
CI output are not filled with carriage returns; per-epoch lines (write) are
printed in both cases unless progress was turned off."""

from __future__ import annotations

import sys
import threading


class Progress:
    """Progress over `total` words; update(done, **postfix) sets the position."""

    def __init__(self, total: int, desc: str, enabled: bool | None = None, unit: str = "w"):
        self._quiet = enabled is False
        if enabled is None:
            enabled = sys.stderr.isatty()
        self._bar = None
        self._done = 0
        if enabled:
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=desc, unit=unit, unit_scale=True,
                             dynamic_ncols=True, mininterval=0.25, smoothing=0.1)

    def update(self, done: int, **postfix: object) -> None:
        """Moves the bar to `done` and shows postfix values (alpha, epoch)."""
        if self._bar is None:
            return
        step = done - self._done
        if step > 0:
            self._bar.update(step)
            self._done = done
        if postfix:
            self._bar.set_postfix(postfix, refresh=False)

    def write(self, message: str) -> None:
        """Prints a line (without breaking the bar, if there is one)."""
        if self._bar is not None:
            self._bar.write(message, file=sys.stderr)
        elif not self._quiet:
            print(message, file=sys.stderr, flush=True)

    def close(self) -> None:
        """Removes the bar; safe to call twice."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class ByteProgress:
    """Bytes of input read, added from any thread: the bar shows bytes/s and
    an ETA against `total` (the file's size on disk)."""

    def __init__(self, total: int, desc: str, enabled: bool | None = None):
        self._bar = Progress(total, desc, enabled, unit="B")
        self._lock = threading.Lock()
        self._done = 0

    def add(self, n: int) -> None:
        with self._lock:
            self._done += n
            self._bar.update(self._done)

    def close(self) -> None:
        with self._lock:
            self._bar.close()


def reading(source, desc: str, enabled: bool | None):
    """A ByteProgress over a corpus file's size, or None for what is not a
    file path (token lists) or when progress is off. `source`: a path, or a
    corpus.Corpus (its `path`)."""
    import os

    path = getattr(source, "path", source)
    if enabled is False or not isinstance(path, (str, os.PathLike)):
        return None
    try:
        total = os.path.getsize(path)
    except OSError:
        return None
    return ByteProgress(total, desc, enabled)
