"""pickle, copy.deepcopy and multiprocessing of models through their own
files: an object's pickle is the bytes of its native file (what save()
writes), and unpickling loads them as load() does. So a copy holds exactly
what a saved model holds, and the formats stay the project's (no pickled
class of ours other than the loader that reads the bytes)."""

from __future__ import annotations

import os
import tempfile
from typing import Any, Callable


def reduce(obj: Any, save: Callable[[str], object], load: Callable[[str], Any],
           settings: dict | None = None) -> tuple:
    """What obj.__reduce__ returns: the bytes save(path) writes and `load`
    to read them back; or, for an object with nothing to save yet, its
    class and `settings` (its constructor's keyword arguments)."""
    if settings is not None:
        return rebuilt, (type(obj), settings)
    return from_file_bytes, (load, file_bytes(save))


def rebuilt(cls: type, settings: dict) -> Any:
    """cls(**settings): an object unpickled before it had anything to save."""
    return cls(**settings)


def file_bytes(save: Callable[[str], object]) -> bytes:
    """The bytes save(path) writes."""
    with tempfile.TemporaryDirectory(prefix="wv_engine_pickle_") as directory:
        path = os.path.join(directory, "saved")
        save(path)
        with open(path, "rb") as f:
            return f.read()


def from_file_bytes(load: Callable[[str], Any], data: bytes) -> Any:
    """What load(path) gives for a file holding `data`."""
    with tempfile.TemporaryDirectory(prefix="wv_engine_pickle_") as directory:
        path = os.path.join(directory, "saved")
        with open(path, "wb") as f:
            f.write(data)
        return load(path)
