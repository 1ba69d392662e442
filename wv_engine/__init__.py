"""wv_engine: fast word2vec and GloVe training with C kernels and Hogwild threads.

The public API: Vocabulary, Word2Vec, Vectors, load_vectors, and the
evaluation functions in wv_engine.evaluate."""

from .corpus import CorpusError, EncodedCorpus
from .io import FormatError, load_vectors
from .vectors import UnknownWordError, Vectors
from .vocab import Vocabulary
from .word2vec import EpochStats, TrainingStats, Word2Vec

__version__ = "0.1.0"

__all__ = [
    "CorpusError", "EncodedCorpus", "EpochStats", "FormatError", "TrainingStats", "UnknownWordError",
    "Vectors", "Vocabulary", "Word2Vec", "load_vectors", "__version__",
]
