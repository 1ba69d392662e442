"""gensim.models' paths over wv_engine.gensim, so that a script moves over by
a textual rename of its imports (`gensim.` -> `wv_engine.gensim.`):
`from wv_engine.gensim.models import Word2Vec`,
`from wv_engine.gensim.models.word2vec import LineSentence`,
`from wv_engine.gensim.models.keyedvectors import KeyedVectors`,
`from wv_engine.gensim.models.callbacks import CallbackAny2Vec`,
`from wv_engine.gensim.models import word2vec_corpusfile`,
`from wv_engine.gensim.models.phrases import Phrases, ENGLISH_CONNECTOR_WORDS`,
`from wv_engine.gensim.models.fasttext import FastText, load_facebook_model`,
`from wv_engine.gensim.models.doc2vec import Doc2Vec, TaggedDocument`. Each module
here is the wv_engine.gensim module of that name itself (the same object),
so a setting changed through either path is seen through both."""

import sys

from .. import callbacks, doc2vec, fasttext, keyedvectors, phrases, word2vec, word2vec_corpusfile
from ..doc2vec import Doc2Vec, TaggedDocument, TaggedLineDocument
from ..fasttext import FastText
from ..keyedvectors import KeyedVectors
from ..phrases import FrozenPhrases, Phraser, Phrases
from ..word2vec import CallbackAny2Vec, LineSentence, PathLineSentences, Text8Corpus, Word2Vec

for _module in (callbacks, doc2vec, fasttext, keyedvectors, phrases, word2vec, word2vec_corpusfile):
    sys.modules[f"{__name__}.{_module.__name__.rsplit('.', 1)[1]}"] = _module
del _module

__all__ = ["Word2Vec", "FastText", "KeyedVectors", "LineSentence", "Text8Corpus", "PathLineSentences", "CallbackAny2Vec",
           "Phrases", "FrozenPhrases", "Phraser", "callbacks", "fasttext", "keyedvectors", "phrases", "word2vec",
           "word2vec_corpusfile", "Doc2Vec", "TaggedDocument", "TaggedLineDocument", "doc2vec"]
