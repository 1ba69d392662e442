"""gensim.models.callbacks: the base class of training callbacks."""

from .word2vec import CallbackAny2Vec

__all__ = ["CallbackAny2Vec"]
