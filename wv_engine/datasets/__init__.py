"""Evaluation sets shipped inside the package (see README.md in this folder for sources and
licences). `path(name)` gives the file for one of `NAMES`."""

from __future__ import annotations

import atexit
import contextlib
from importlib import resources
from pathlib import Path

__all__ = ["NAMES", "path"]

# Public name -> file in this folder.
NAMES: dict[str, str] = {
    "questions-words": "questions-words.txt",
    "wordsim353": "wordsim353.tsv",
    "simlex999": "simlex999.txt",
    "ws353-similarity": "ws353_similarity.txt",
    "ws353-relatedness": "ws353_relatedness.txt",
    "demo-corpus": "demo_small.txt.gz",
}

_extracted = contextlib.ExitStack()  # files extracted from a zipped install, kept until exit
atexit.register(_extracted.close)


def path(name: str) -> Path:
    """Filesystem path of the shipped dataset `name` (one of `NAMES`, e.g. "questions-words").

    Raises KeyError naming the valid choices for an unknown name.
    """
    try:
        filename = NAMES[name]
    except KeyError:
        raise KeyError(f"unknown dataset {name!r}; choose one of {', '.join(NAMES)}") from None
    resource = resources.files(__name__).joinpath(filename)
    if isinstance(resource, Path):
        return resource
    # Installed inside a zip: extract once, to a file that lives until the interpreter exits.
    return _extracted.enter_context(resources.as_file(resource))
