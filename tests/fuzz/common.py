"""Shared by the harnesses: run a callable on bytes written to a temp file and
let only the documented exceptions through."""

from __future__ import annotations

import os
import tempfile

EXPECTED = (ValueError,)  # FormatError, CorpusError and UnicodeDecodeError are ValueErrors

_DIR = tempfile.mkdtemp(prefix="wv_fuzz_")


def with_file(data: bytes, fn, suffix: str = ".bin"):
    path = os.path.join(_DIR, f"input{suffix}")
    with open(path, "wb") as f:
        f.write(data)
    try:
        return fn(path)
    except EXPECTED:
        return None
