"""Paragraph vectors (Doc2Vec): a vector for each document, trained with
word2vec's objectives on the same C kernels; vectors for unseen documents
inferred many at once. The model (model.py), its settings and their checks
(settings.py), its documents (documents.py: a file of one a line, or
(words, tags) pairs), its saved state (state.py) and its scores while
training (scores.py)."""

from .documents import Documents
from .model import Doc2Vec
from .scores import DocumentScores

__all__ = ["Doc2Vec", "DocumentScores", "Documents"]
