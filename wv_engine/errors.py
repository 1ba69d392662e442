"""The exceptions the package raises for bad input, defined below every
module that raises them."""

from __future__ import annotations

import os


class CorpusError(ValueError):
    """The corpus cannot be read (missing, empty, damaged or of the wrong type)."""


class FormatError(ValueError):
    """A vector file is damaged, hostile or not in the expected format.

    The message names the file and the problem.
    """

    def __init__(self, path: str | os.PathLike, problem: str) -> None:
        self.path = os.fspath(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")
