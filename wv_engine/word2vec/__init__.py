"""word2vec: skip-gram and CBOW with negative sampling, hierarchical
softmax or the exact softmax. The model (model.py), its settings and their
checks (settings.py), its saved state (state.py) and the epochs of one
train() call on the C core (training.py)."""

from .model import ARCHS, LOSSES, EpochStats, TrainingStats, Word2Vec

__all__ = ["ARCHS", "LOSSES", "EpochStats", "TrainingStats", "Word2Vec"]
