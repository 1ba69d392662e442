"""gensim.models.doc2vec over wv_engine: Doc2Vec with gensim 4's arguments and
defaults (trained by wv_engine.Doc2Vec, `engine`), TaggedDocument and
TaggedLineDocument. `model.dv` holds a vector for each tag, keyed as gensim
keys it (an int tag stays an int); `model.wv` the word vectors. Saved models
are wv_engine's native file (no pickle); Doc2Vec.load also reads the models
gensim saved."""

from __future__ import annotations

import logging
import os
from collections import namedtuple
from types import GeneratorType
from typing import Any, Callable, Iterable

import numpy as np

from .. import doc2vec as _core
from ..io import save_vectors
from ..errors import CorpusError
from ..vectors import Vectors
from . import pickled
from .keyedvectors import KeyedVectors, _check_unsupported
from .pickled_doc2vec import gensim_doc2vec
from .word2vec import _ClassOnly

logger = logging.getLogger(__name__)

__all__ = ["Doc2Vec", "TaggedDocument", "TaggedLineDocument"]


def _engine_setting(name: str, convert: Callable[[Any], Any]) -> property:
    """A setting of the wrapped engine, read and written through (converted on the way in)."""
    return property(lambda self: getattr(self.engine, name),
                    lambda self, value: setattr(self.engine, name, convert(value)))


class TaggedDocument(namedtuple("TaggedDocument", "words tags")):
    """A document: its words (a list of str) and its tags (a list of str or int)."""

    def __str__(self) -> str:
        return f"{self.__class__.__name__}<{self.words}, {self.tags}>"


class TaggedLineDocument:
    """A file of one document a line, words separated by whitespace, each
    tagged with its line number (0 first), as gensim's."""

    def __init__(self, source: str | os.PathLike) -> None:
        self.source = source

    def __iter__(self):
        with open(self.source, encoding="utf-8", errors="surrogateescape") as f:
            for item_no, line in enumerate(f):
                yield TaggedDocument(line.split(), [item_no])


class Doc2Vec:
    """gensim.models.Doc2Vec with gensim 4's arguments and defaults, trained by
    wv_engine.Doc2Vec (`engine`)."""

    def __init__(self, documents: Iterable | None = None, corpus_file: str | None = None, vector_size: int = 100,
                 dm_mean: int | None = None, dm: int = 1, dbow_words: int = 0, dm_concat: int = 0,
                 dm_tag_count: int = 1, dv: Any = None, dv_mapfile: str | None = None, comment: str | None = None,
                 trim_rule: Any = None, callbacks: Iterable = (), window: int = 5, epochs: int = 10,
                 shrink_windows: bool = True, alpha: float = 0.025, min_alpha: float = 0.0001, min_count: int = 5,
                 max_vocab_size: int | None = None, sample: float = 1e-3, seed: int = 1, workers: int = 3,
                 hs: int = 0, negative: int = 5, ns_exponent: float = 0.75, cbow_mean: int = 1, **kwargs: Any):
        _check_unsupported(dv=dv, dv_mapfile=dv_mapfile, trim_rule=trim_rule)
        for name in ("hashfxn", "null_word", "sorted_vocab", "batch_words"):
            kwargs.pop(name, None)  # gensim's internals: no equivalent, no effect on what is learned here
        if kwargs:
            raise TypeError(f"Doc2Vec got unexpected arguments: {', '.join(kwargs)}")
        if not hs and not negative:
            raise ValueError("The model can't be trained: choose hs=1 or negative > 0")
        self.comment, self.callbacks = comment, tuple(callbacks)
        self._init_args = dict(vector_size=vector_size, dm_mean=dm_mean, dm=dm, dbow_words=dbow_words,
                               dm_concat=dm_concat, dm_tag_count=dm_tag_count, comment=comment, window=window,
                               epochs=epochs, shrink_windows=shrink_windows, alpha=alpha, min_alpha=min_alpha,
                               min_count=min_count, max_vocab_size=max_vocab_size, sample=sample, seed=seed,
                               workers=workers, hs=hs, negative=negative, ns_exponent=ns_exponent,
                               cbow_mean=cbow_mean)
        mean = cbow_mean if dm_mean is None else dm_mean
        self._settings = dict(
            arch="dm" if dm else "dbow", loss="hs" if hs else "ns", dim=vector_size, window=window,
            negative=negative if not hs else 0, min_count=max(1, min_count), sample=sample, epochs=epochs,
            alpha=alpha, min_alpha=min_alpha, threads=workers, seed=seed, max_vocab_size=max_vocab_size,
            ns_exponent=ns_exponent, dm_mean=bool(mean), dm_concat=bool(dm_concat) and bool(dm),
            dm_tag_count=dm_tag_count, dbow_words=bool(dbow_words) and not dm, shrink_windows=shrink_windows)
        self.engine = _core.Doc2Vec(**self._settings)
        self.dv = KeyedVectors(vector_size)
        self.wv = KeyedVectors(vector_size)
        self._tags: dict[str, Any] = {}  # each tag's key in the engine (str(tag)) -> the tag as given
        self._lowest_alpha: float | None = None  # the lowest learning rate trained with so far
        self.corpus_count = 0
        self.corpus_total_words = 0
        if documents is not None or corpus_file is not None:
            self.build_vocab(documents, corpus_file=corpus_file)
            self.train(documents, corpus_file=corpus_file, total_examples=self.corpus_count,
                       total_words=self.corpus_total_words, epochs=self.epochs, callbacks=callbacks)

    # ---- gensim's attributes ------------------------------------------------------------
    vector_size = property(lambda self: self.engine.dim)
    epochs = property(lambda self: self.engine.epochs)
    window = property(lambda self: self.engine.window)
    min_count = property(lambda self: self.engine.min_count)
    sample = property(lambda self: self.engine.sample)
    seed = property(lambda self: self.engine.seed)
    negative = property(lambda self: self.engine.negative)
    hs = property(lambda self: int(self.engine.loss == "hs"))
    dm = property(lambda self: int(self.engine.arch == "dm"))
    sg = property(lambda self: int(self.engine.arch == "dbow"))
    dbow_words = property(lambda self: int(self.engine.dbow_words))
    dm_concat = property(lambda self: int(self.engine.dm_concat))
    dm_tag_count = property(lambda self: self.engine.dm_tag_count)
    cbow_mean = property(lambda self: int(self.engine.dm_mean))
    ns_exponent = property(lambda self: self.engine.ns_exponent)
    shrink_windows = property(lambda self: self.engine.shrink_windows)

    alpha = _engine_setting("alpha", float)
    min_alpha = _engine_setting("min_alpha", float)
    workers = _engine_setting("threads", int)  # gensim's name for the threads

    def __getitem__(self, tag: Any) -> np.ndarray:
        """The vector of a tag (gensim 3's model[tag]; dv[tag] is gensim 4's)."""
        return self.dv[tag]

    @property
    def layer1_size(self) -> int:
        return self.engine.output_vectors.shape[1] if self.engine.output_vectors is not None else self.vector_size

    @property
    def syn1neg(self) -> np.ndarray:
        return self.engine.output_vectors if self.engine.loss == "ns" else np.zeros((0, self.layer1_size))

    @property
    def syn1(self) -> np.ndarray:
        return self.engine.output_vectors if self.engine.loss == "hs" else np.zeros((0, self.layer1_size))

    def __str__(self) -> str:
        kind = "dm/" + ("c" if self.dm_concat else "m" if self.cbow_mean else "s") if self.dm else "dbow"
        if self.dbow_words:
            kind += "+w"
        return f"Doc2Vec<{kind},d{self.vector_size},{'hs' if self.hs else f'n{self.negative}'},w{self.window}," \
               f"mc{self.min_count},s{self.sample},t{self.workers}>"

    __repr__ = __str__

    # ---- vocabulary and training ----------------------------------------------------------
    def _documents(self, corpus_iterable: Iterable | None, corpus_file: str | None) -> Any:
        if (corpus_iterable is None) == (corpus_file is None):
            raise TypeError("Either one of corpus_file or corpus_iterable value must be provided")
        if corpus_file is not None:
            if not isinstance(corpus_file, (str, os.PathLike)):
                raise TypeError(f"Parameter corpus_file must be a valid path to a file, got {corpus_file!r}")
            return os.fspath(corpus_file)  # a line a document, tagged with its number
        if isinstance(corpus_iterable, TaggedLineDocument):
            return os.fspath(corpus_iterable.source)
        if isinstance(corpus_iterable, (GeneratorType, str)) or not hasattr(corpus_iterable, "__iter__"):
            raise TypeError(f"The corpus_iterable must be an iterable of TaggedDocument, got {corpus_iterable!r}")
        first = next(iter(corpus_iterable), None)
        if first is not None and isinstance(getattr(first, "words", None), str):
            logger.warning("Each 'words' should be a list of words (usually unicode strings). First 'words' "
                           "here is instead plain %s.", type(first.words))
            return _Chars(corpus_iterable)  # gensim reads a str as its characters
        return corpus_iterable

    def _remember_tags(self, documents: Any) -> None:
        """Each tag as given (an int stays an int), by its key in the engine."""
        if isinstance(documents, str):
            self._tags.update((key, int(key)) for key in self.engine.tag_keys if key not in self._tags)
            return
        for doc in documents:
            for tag in doc.tags if hasattr(doc, "tags") else doc[1]:
                self._tags.setdefault(str(tag), int(tag) if isinstance(tag, (int, np.integer)) else tag)

    def build_vocab(self, corpus_iterable: Iterable | None = None, corpus_file: str | None = None,
                    update: bool = False, progress_per: int = 10000, keep_raw_vocab: bool = False,
                    trim_rule: Any = None, **kwargs: Any) -> None:
        """Counts the documents' words and tags and initialises the vectors (gensim's build_vocab);
        update=True adds them to a model that has a vocabulary (wv_engine.Doc2Vec.add_vocab)."""
        _check_unsupported(trim_rule=trim_rule)
        documents = self._documents(corpus_iterable, corpus_file)
        if update and self.engine.vocab is None:
            raise RuntimeError("You cannot do an online vocabulary-update of a model which has no prior vocabulary. "
                               "First build the vocabulary of your model with a corpus before doing an online update.")
        words_before = self.engine.vocab.total_tokens if update else 0
        try:
            if update:  # new words and tags join, what was learned stays
                self.engine.add_vocab(documents, progress=False)
            else:
                self.engine.build_vocab(documents, progress=False)
        except (CorpusError, ValueError) as exc:  # gensim: nothing to train on is a RuntimeError
            raise RuntimeError(f"you must first build vocabulary before training the model ({exc})") from None
        self._remember_tags(documents)
        self.corpus_count = self.engine._documents[1].n_docs
        self.corpus_total_words = self.engine.vocab.total_tokens - words_before  # these documents' words
        self._attach()

    def train(self, corpus_iterable: Iterable | None = None, corpus_file: str | None = None,
              total_examples: int | None = None, total_words: int | None = None, epochs: int | None = None,
              start_alpha: float | None = None, end_alpha: float | None = None, word_count: int = 0,
              queue_factor: int = 2, report_delay: float = 1.0, callbacks: Iterable = (), **kwargs: Any) -> tuple:
        """Trains `epochs` epochs (gensim's train: epochs is required); returns (words
        trained, corpus words x epochs) as gensim's does."""
        documents = self._documents(corpus_iterable, corpus_file)
        if epochs is None:
            raise ValueError("You must specify an explicit epochs count. The usual value is epochs=model.epochs.")
        if start_alpha is not None or end_alpha is not None:
            self.engine.alpha = self.engine.alpha if start_alpha is None else float(start_alpha)
            self.engine.min_alpha = self.engine.min_alpha if end_alpha is None else float(end_alpha)
        if self._lowest_alpha is not None and self._lowest_alpha < self.engine.alpha:
            logger.warning("Effective 'alpha' higher than previous training cycles")
        self._lowest_alpha = min(self.engine.min_alpha, self._lowest_alpha or self.engine.min_alpha)
        for cb in callbacks:
            if hasattr(cb, "on_train_begin"):
                cb.on_train_begin(self)
        engine_callbacks = [lambda model, epoch, cb=cb: cb.on_epoch_end(self) for cb in callbacks
                            if hasattr(cb, "on_epoch_end")]
        stats = self.engine.train(documents, epochs=epochs, progress=False, callbacks=engine_callbacks)
        self._remember_tags(documents)
        self._attach()
        for cb in callbacks:
            if hasattr(cb, "on_train_end"):
                cb.on_train_end(self)
        return stats.corpus_words * stats.epochs, stats.corpus_words * stats.epochs

    def _attach(self) -> None:
        """dv and wv show the engine's vectors (shared memory), keyed as gensim keys them."""
        keys = [self._tags.get(key, key) for key in self.engine.tag_keys]
        self.dv = KeyedVectors(self.vector_size)
        self.dv.index_to_key = keys
        self.dv.key_to_index = {k: i for i, k in enumerate(keys)}
        self.dv.vectors = self.engine.doc_vectors
        self.dv.next_index = len(keys)
        self.wv = KeyedVectors.from_vectors(self.engine.wv)

    # ---- inference ------------------------------------------------------------------------
    def infer_vector(self, doc_words: list[str], alpha: float | None = None, min_alpha: float | None = None,
                     epochs: int | None = None) -> np.ndarray:
        """The vector of an unseen document (gensim's infer_vector)."""
        if isinstance(doc_words, str):
            raise TypeError("Parameter doc_words of infer_vector() must be a list of strings (not a single string).")
        return self.engine.infer_vector(doc_words, alpha=alpha, min_alpha=min_alpha, epochs=epochs)

    def similarity_unseen_docs(self, doc_words1: list[str], doc_words2: list[str], alpha: float | None = None,
                               min_alpha: float | None = None, epochs: int | None = None) -> float:
        """The cosine of two unseen documents' inferred vectors."""
        both = self.engine.infer([list(doc_words1), list(doc_words2)], alpha=alpha, min_alpha=min_alpha,
                                 epochs=epochs)
        a, b = (v / np.linalg.norm(v) for v in both)
        return float(np.dot(a, b))

    # ---- files ----------------------------------------------------------------------------
    def save(self, fname: str | os.PathLike, *args: Any, **kwargs: Any) -> None:
        """Writes the model as wv_engine's native file (no pickle); Doc2Vec.load reads it."""
        ints = [k for k, tag in self._tags.items() if isinstance(tag, int)]
        self.engine.save(fname, extra={"gensim": {"int_tags": ints, "comment": self.comment}})

    @classmethod
    def load(cls, fname: str | os.PathLike, *args: Any, **kwargs: Any) -> "Doc2Vec":
        """A model save() wrote, or one gensim saved (read without running
        gensim's code: wv_engine.gensim.pickled_doc2vec), ready to infer with
        and to train on."""
        if pickled.looks_pickled(fname):
            engine, tags = gensim_doc2vec(os.fspath(fname))
            comment = None
        else:
            engine = _core.Doc2Vec.load(fname)
            saved = (engine.saved_extra or {}).get("gensim", {})
            ints = set(saved.get("int_tags", []))
            tags = {key: int(key) if key in ints else key for key in engine.tag_keys}
            comment = saved.get("comment")
        model = cls.__new__(cls)
        model.engine, model.callbacks, model._lowest_alpha = engine, (), None
        model.comment, model._tags = comment, tags
        model.corpus_count = len(engine.tag_keys)
        model.corpus_total_words = engine.vocab.total_tokens
        model._attach()
        return model

    def save_word2vec_format(self, fname: str | os.PathLike, doctag_vec: bool = False, word_vec: bool = True,
                             prefix: str = "*dt_", fvocab: str | None = None, binary: bool = False) -> None:
        """Word vectors and/or document vectors (named prefix + tag) in word2vec's format, one file."""
        _check_unsupported(fvocab=fvocab)
        words, rows = [], []
        if word_vec:
            words += list(self.wv.index_to_key)
            rows.append(self.wv.vectors)
        if doctag_vec:
            words += [f"{prefix}{key}" for key in self.dv.index_to_key]
            rows.append(self.dv.vectors)
        if not words:
            raise ValueError("nothing to write: doctag_vec and word_vec are both False")
        save_vectors(Vectors(words, np.vstack(rows)), fname, "word2vec-bin" if binary else "word2vec-txt")

    def __reduce__(self):
        """pickle and copy.deepcopy through the engine's native file."""
        from .. import pickling

        return pickling.reduce(self, self.save, type(self).load,
                               getattr(self, "_init_args", {}) if self.engine.vocab is None else None)


Doc2Vec.load = _ClassOnly(Doc2Vec.load)  # type: ignore[assignment]  # gensim's: on the class only


class _Chars:
    """Documents whose words are a str, read as gensim reads them: its characters."""

    def __init__(self, documents: Iterable) -> None:
        self.documents = documents

    def __iter__(self):
        return (TaggedDocument(list(d.words), d.tags) if isinstance(d.words, str) else d for d in self.documents)
