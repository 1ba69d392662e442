"""A gensim 4 drop-in over wv_engine: change `from gensim.models import Word2Vec,
KeyedVectors` to `from wv_engine.gensim import Word2Vec, KeyedVectors` (and FastText).

Word2Vec, KeyedVectors, LineSentence, Text8Corpus, PathLineSentences and
CallbackAny2Vec, and Phrases / FrozenPhrases / Phraser, take gensim 4's arguments (and defaults) and have its methods
and attributes for what people use; training, vocabulary, files and queries
are wv_engine's. Saved models and vectors use wv_engine's native format;
models and vectors gensim saved load too, read without running their code
(wv_engine.gensim.pickled). Where a gensim argument has no equivalent it
raises NotImplementedError or is logged. docs/GENSIM.md lists the differences.

`keyedvectors`, `word2vec`, `phrases` and `callbacks` mirror gensim.models' modules of
those names, and `wv_engine.gensim.models` mirrors gensim.models' paths."""

from . import callbacks, doc2vec, fasttext, keyedvectors, phrases, word2vec
from .doc2vec import Doc2Vec, TaggedDocument, TaggedLineDocument
from .fasttext import FastText, FastTextKeyedVectors, load_facebook_model, load_facebook_vectors, save_facebook_model
from .keyedvectors import REAL, KeyedVectors, pseudorandom_weak_vector
from .phrases import ENGLISH_CONNECTOR_WORDS, FrozenPhrases, Phraser, Phrases
from .word2vec import (RULE_DEFAULT, RULE_DISCARD, RULE_KEEP, CallbackAny2Vec, LineSentence, PathLineSentences,
                       Text8Corpus, Word2Vec)

__all__ = ["Word2Vec", "FastText", "FastTextKeyedVectors", "load_facebook_model", "load_facebook_vectors",
           "save_facebook_model", "fasttext", "KeyedVectors", "LineSentence", "Text8Corpus", "PathLineSentences", "CallbackAny2Vec",
           "REAL", "pseudorandom_weak_vector", "RULE_DEFAULT", "RULE_DISCARD", "RULE_KEEP", "callbacks",
           "keyedvectors", "models", "word2vec", "Phrases", "FrozenPhrases", "Phraser", "ENGLISH_CONNECTOR_WORDS",
           "phrases", "Doc2Vec", "TaggedDocument", "TaggedLineDocument", "doc2vec"]


def __getattr__(name: str):
    # wv_engine.gensim.models, imported on first use (it only gives these modules their gensim paths)
    if name == "models":
        import importlib

        return importlib.import_module(f"{__name__}.models")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
