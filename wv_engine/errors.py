"""The exceptions the package raises for bad input, defined below every
module that raises them."""

from __future__ import annotations

import os


class CorpusError(ValueError):
    """The corpus cannot be read (missing, empty, damaged or of the wrong type)."""


class InputFileError(ValueError):
    """A path names a FIFO, a socket or a device where a regular file is
    needed: inputs are read more than once (and opening a FIFO without a
    writer would wait forever); outputs are renamed into place. `kind` says
    what the path is ("a FIFO (named pipe)", ...)."""

    def __init__(self, path: str | os.PathLike, kind: str, message: str) -> None:
        self.path = os.fspath(path)
        self.kind = kind
        super().__init__(message)


class FormatError(ValueError):
    """A vector file is damaged, hostile or not in the expected format.

    The message names the file and the problem.
    """

    def __init__(self, path: str | os.PathLike, problem: str) -> None:
        self.path = os.fspath(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


class UnsupportedModelError(FormatError, NotImplementedError):
    """A file in a format read here that holds a kind of model this package
    does not make (fastText's supervised classifiers): a NotImplementedError
    too, as gensim raises for one."""


class NotAModelError(FormatError):
    """A file that is not a saved model (a vectors file, say) was given
    where one is needed: load its vectors with load_vectors instead."""
