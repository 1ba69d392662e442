"""wv_engine: fast word2vec and GloVe training with C kernels and Hogwild threads.

The public API: Vocabulary, Word2Vec, FastText, Doc2Vec, GloVe, Vectors, load_vectors, and the
evaluation functions in wv_engine.evaluate."""

import logging


def _require_compiled_modules():
    """A source checkout that was never built in place has the .pyx files but
    no compiled modules; when Python imports that folder (it shadows the
    installed package when the working directory is the repository root),
    the first binding import fails halfway through the package and Python
    guesses at a circular import. Say what is really missing instead."""
    import importlib.util
    import os

    missing = [name for name in ("_tokenize", "_word2vec", "_glove", "_formats", "_evaluate")
               if importlib.util.find_spec(f"{__name__}.{name}") is None]
    if missing:
        here = os.path.dirname(os.path.abspath(__file__))
        raise ImportError(
            f"wv_engine's compiled modules ({', '.join(missing)}) are missing in {here}: this is an "
            "unbuilt source tree. Build it in place with `pip install -e .` (or `python setup.py "
            "build_ext --inplace`), or run Python from another directory so that the installed "
            "wv_engine is imported instead of this folder.",
            name=__name__, path=here)


_require_compiled_modules()

from . import _old_paths  # noqa: E402 - the module paths before the family folders, for one release

_old_paths.install()

# A library says what it has to say through logging and prints nothing unless the application
# configures logging (Python's last-resort handler would otherwise print warnings to stderr).
logging.getLogger(__name__).addHandler(logging.NullHandler())

from .corpus import Corpus, EncodedCorpus
from .doc2vec import Doc2Vec
from .epoch_scores import EpochScores
from .errors import CorpusError, FormatError, InputFileError, NotAModelError, UnsupportedModelError
from .fasttext import FastText
from .io import load_vectors
from .phrases import Phrases
from .vectors import UnknownWordError, Vectors
from .vocab import Vocabulary
from .word2vec import EpochStats, TrainingStats, Word2Vec

__version__ = "0.1.0"


def __getattr__(name: str):
    # GloVe is loaded on first use: it brings scipy.sparse, which word2vec users need not pay for.
    if name == "GloVe":
        from .glove import GloVe

        return GloVe
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "Corpus", "CorpusError", "Doc2Vec", "EncodedCorpus", "EpochScores", "EpochStats", "FastText", "FormatError", "GloVe",
    "InputFileError", "NotAModelError", "Phrases", "TrainingStats", "UnknownWordError", "UnsupportedModelError",
    "Vectors", "Vocabulary", "Word2Vec", "load_vectors", "__version__",
]
