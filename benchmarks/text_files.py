"""Reading the benchmark corpora as text: a file's stem and its chunks cut
at whitespace, for the modules that prepare corpora (corpus.py) and derive
test sets from them (absent_words.py)."""

from __future__ import annotations

import os

from wv_engine.corpus import open_binary

CHUNK = 1 << 23


def stem(path: str) -> str:
    """The file's name without .gz, .bz2, .xz and then .txt."""
    name = os.path.basename(path)
    for ext in (".gz", ".bz2", ".xz"):
        if name.endswith(ext):
            name = name[: -len(ext)]
    return name[:-4] if name.endswith(".txt") else name


def chunks_at_whitespace(path: str):
    """Chunks of the file (plain or compressed) that each end at whitespace
    (no token split)."""
    rest = b""
    with open_binary(path) as f:
        while True:
            data = f.read(CHUNK)
            if not data:
                if rest:
                    yield rest
                return
            data = rest + data
            cut = max(data.rfind(c) for c in (b" ", b"\n", b"\t", b"\r"))
            if cut < 0:
                rest = data
                continue
            yield data[: cut + 1]
            rest = data[cut + 1:]
