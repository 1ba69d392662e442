"""fastText's subword model on the word2vec kernels: the model (model.py),
fastText's .bin file (bin_file.py), the order the n-gram rows train in
(row_order.py) and vectors for any word (vectors.py)."""

from .bin_file import read_fasttext_bin, write_fasttext_bin
from .model import FASTTEXT_DEFAULTS, FastText
from .row_order import TrainingOrder
from .vectors import SubwordVectors, ngram_rows

__all__ = ["FASTTEXT_DEFAULTS", "FastText", "SubwordVectors", "TrainingOrder", "ngram_rows", "read_fasttext_bin",
           "write_fasttext_bin"]
