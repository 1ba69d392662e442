"""gensim 4's Word2Vec, corpus readers and callbacks, over wv_engine.Word2Vec.

Settings are translated once to the engine's (sg -> arch, hs/negative -> loss,
vector_size -> dim, workers -> threads) with gensim's defaults; training,
vocabulary growth (build_vocab(update=True)) and saving are the engine's.
What differs from gensim is listed in docs/GENSIM.md."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import itertools
import logging
import math
import os
import re
from types import GeneratorType
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from .. import file_checks, pickling
from .. import word2vec as _core
from ..corpus import check_corpus, is_path
from ..errors import CorpusError, FormatError, NotAModelError
from ..settings import C_INT_MAX, INT64_MAX, Range, bounded
from ..vocab import Vocabulary
from . import pickled, scoring, vocab_steps
from .keyedvectors import KeyedVectors, _check_unsupported, gensim3_hint
from .vocab_steps import RULE_DEFAULT, RULE_DISCARD, RULE_KEEP

__all__ = ["Word2Vec", "LineSentence", "Text8Corpus", "PathLineSentences", "CallbackAny2Vec",
           "MAX_WORDS_IN_BATCH", "RULE_DEFAULT", "RULE_DISCARD", "RULE_KEEP"]

logger = logging.getLogger(__name__)

MAX_WORDS_IN_BATCH = 10000
# The integers of the gensim layer's saved state (Word2Vec.save's extra) and their ranges.
_EXTRA_INTS = {name: (low, INT64_MAX) for name, low in (
    ("min_count", 0), ("effective_min_count", 1), ("corpus_count", 0), ("corpus_total_words", 0), ("train_count", 0))}


# ---- corpus readers -------------------------------------------------------------------------
def _open(source: Any):
    if hasattr(source, "read"):
        source.seek(0)
        return source, False
    path = os.fspath(source)
    if path.endswith(".gz"):
        return gzip.open(path, "rb"), True
    if path.endswith(".bz2"):
        return bz2.open(path, "rb"), True
    return open(path, "rb"), True


def _line_sentences(source: Any, max_sentence_length: int, limit: int | None):
    f, close = _open(source)
    try:
        for line in itertools.islice(f, limit):
            words = line.decode("utf8").split()
            for i in range(0, len(words), max_sentence_length):
                yield words[i:i + max_sentence_length]
    finally:
        if close:
            f.close()


class LineSentence:
    """One sentence per line, words separated by whitespace (a path, .gz/.bz2 by name, or an
    open binary file); lines longer than max_sentence_length are cut into pieces."""

    def __init__(self, source: Any, max_sentence_length: int = MAX_WORDS_IN_BATCH, limit: int | None = None):
        self.source, self.max_sentence_length, self.limit = source, max_sentence_length, limit

    def __iter__(self):
        return _line_sentences(self.source, self.max_sentence_length, self.limit)

    def _engine_path(self, max_sentence_length: int) -> str | None:
        """The file the engine can read itself (same sentences), or None."""
        if self.limit is None and isinstance(self.source, (str, os.PathLike)) \
                and self.max_sentence_length == max_sentence_length:
            return os.fspath(self.source)
        return None


class PathLineSentences:
    """LineSentence over every file of a directory (in name order), or over one file."""

    def __init__(self, source: str | os.PathLike, max_sentence_length: int = MAX_WORDS_IN_BATCH,
                 limit: int | None = None):
        self.source, self.max_sentence_length, self.limit = os.fspath(source), max_sentence_length, limit
        if os.path.isfile(self.source):
            self.input_files = [self.source]
        elif os.path.isdir(self.source):
            self.input_files = sorted(os.path.join(self.source, n) for n in os.listdir(self.source)
                                      if os.path.isfile(os.path.join(self.source, n)))
        else:
            raise ValueError(f"input is neither a file nor a path: {self.source}")

    def __iter__(self):
        for path in self.input_files:
            yield from _line_sentences(path, self.max_sentence_length, self.limit)

    def _engine_path(self, max_sentence_length: int) -> str | None:
        if len(self.input_files) == 1 and self.limit is None and self.max_sentence_length == max_sentence_length:
            return self.input_files[0]
        return None


class Text8Corpus:
    """text8-style text (one long line): sentences of max_sentence_length words."""

    def __init__(self, fname: str | os.PathLike, max_sentence_length: int = MAX_WORDS_IN_BATCH):
        self.fname, self.max_sentence_length = fname, max_sentence_length

    def __iter__(self):
        sentence: list[str] = []
        rest = b""
        f, _ = _open(self.fname)
        with f:
            while True:
                text = rest + f.read(8192)
                if text == rest:
                    words = text.decode("utf8").split()
                    sentence.extend(words)
                    while sentence:
                        yield sentence[:self.max_sentence_length]
                        sentence = sentence[self.max_sentence_length:]
                    return
                last = text.rfind(b" ")
                words, rest = (text[:last].decode("utf8").split(), text[last:].strip()) if last >= 0 else ([], text)
                sentence.extend(words)
                while len(sentence) >= self.max_sentence_length:
                    yield sentence[:self.max_sentence_length]
                    sentence = sentence[self.max_sentence_length:]

    def _engine_path(self, max_sentence_length: int) -> str | None:
        # The engine cuts sentences at max_sentence_length words too; newlines (none in text8) would differ.
        if self.max_sentence_length == max_sentence_length and isinstance(self.fname, (str, os.PathLike)):
            return os.fspath(self.fname)
        return None


class CallbackAny2Vec:
    """gensim's callback base: override any of these; each gets the model."""

    def on_epoch_begin(self, model: Any) -> None:
        pass

    def on_epoch_end(self, model: Any) -> None:
        pass

    def on_batch_begin(self, model: Any) -> None:
        pass

    def on_batch_end(self, model: Any) -> None:
        pass

    def on_train_begin(self, model: Any) -> None:
        pass

    def on_train_end(self, model: Any) -> None:
        pass


_PICKLE_OPTIONS = {"separately", "sep_limit", "ignore", "pickle_protocol"}

# ---- the model -------------------------------------------------------------------------------
_FORWARDED = ("window", "sample", "epochs", "alpha", "min_alpha", "seed", "max_vocab_size", "max_final_vocab",
              "ns_exponent", "shrink_windows", "max_sentence_length")


# gensim's names of the settings the engine names otherwise
GENSIM_NAMES = {"dim": "vector_size", "threads": "workers", "minn": "min_n", "maxn": "max_n"}
_ENGINE_NAME = re.compile(r"\b(dim|threads|minn|maxn)(?==| must be )")


@contextlib.contextmanager
def gensim_names() -> Iterator[None]:
    """A ValueError the engine raises about a setting ("dim must be ...",
    "minn=0 and maxn=6: ...") told with gensim's names for them."""
    try:
        yield
    except ValueError as exc:
        told = _ENGINE_NAME.sub(lambda m: GENSIM_NAMES[m.group(1)], str(exc))
        if told != str(exc):
            raise ValueError(told) from None
        raise


def _forward(name: str) -> property:
    return property(lambda self: getattr(self._model, name),
                    lambda self, value: setattr(self._model, name, value),
                    doc=f"The engine's {name}.")


# gensim 3 model attributes that gensim 4 moved, and where (AttributeError says so)
_GENSIM3 = {**{name: f"model.wv.{name}" for name in (
    "most_similar", "most_similar_cosmul", "similarity", "n_similarity", "doesnt_match", "similar_by_word",
    "similar_by_vector", "wmdistance", "distance", "distances", "evaluate_word_pairs", "init_sims")},
    "accuracy": "model.wv.evaluate_word_analogies", "iter": "epochs", "size": "vector_size",
    "vocabulary": "model.wv.key_to_index and model.wv.get_vecattr", "trainables": "model.wv.vectors and syn1neg",
    "index2word": "model.wv.index_to_key", "syn0": "model.wv.vectors"}


class Word2Vec:
    """gensim.models.Word2Vec with gensim 4's arguments and defaults, trained by
    wv_engine.Word2Vec (`engine` is that model)."""

    _engine, _keyed_vectors = _core.Word2Vec, KeyedVectors  # what a subclass trains and shows (FastText)

    def __getattr__(self, name: str) -> Any:
        if name in _GENSIM3:  # only reached when normal lookup fails
            raise gensim3_hint("Word2Vec", name, _GENSIM3)
        raise AttributeError(f"'Word2Vec' object has no attribute {name!r}")

    def __init__(self, sentences: Iterable | None = None, corpus_file: str | None = None, vector_size: int = 100,
                 alpha: float = 0.025, window: int = 5, min_count: int = 5, max_vocab_size: int | None = None,
                 sample: float = 1e-3, seed: int = 1, workers: int = 3, min_alpha: float = 0.0001, sg: int = 0,
                 hs: int = 0, negative: int = 5, ns_exponent: float = 0.75, cbow_mean: int = 1,
                 hashfxn: Callable = hash, epochs: int = 5, null_word: int = 0, trim_rule: Callable | None = None,
                 sorted_vocab: int = 1, batch_words: int = MAX_WORDS_IN_BATCH, compute_loss: bool = False,
                 callbacks: Iterable = (), comment: str | None = None, max_final_vocab: int | None = None,
                 shrink_windows: bool = True):
        if hashfxn is not hash:
            raise NotImplementedError("wv_engine.gensim: hashfxn is not supported (the engine seeds its own "
                                      "initialisation from `seed`)")
        if null_word:
            raise NotImplementedError("wv_engine.gensim: null_word is not supported")
        if not sorted_vocab:
            raise NotImplementedError("wv_engine.gensim: sorted_vocab=0 is not supported (the vocabulary is "
                                      "always sorted by descending count)")
        if batch_words != MAX_WORDS_IN_BATCH:
            logger.warning("wv_engine.gensim: batch_words has no equivalent (the engine's threads take "
                           "sentences, not batches) and does not change training")
        if not hs and not negative:
            raise ValueError("The model can't be trained: choose hs=1 or negative > 0")
        if hs and negative:
            logger.warning("Both hierarchical softmax and negative sampling are activated. wv_engine.gensim "
                           "trains hierarchical softmax only (gensim trains both output layers)")
        with gensim_names():  # every number checked by the engine, named as gensim names it
            min_count = bounded("min_count", min_count, Range(0, C_INT_MAX))  # gensim takes 0: keep all
            self._model = _core.Word2Vec(
                arch="skipgram" if sg else "cbow", loss="hs" if hs else "ns", dim=vector_size, window=window,
                negative=negative if not hs else 0, min_count=max(1, min_count), sample=sample,
                epochs=epochs, alpha=alpha, min_alpha=min_alpha, threads=workers, seed=seed,
                max_vocab_size=max_vocab_size, max_final_vocab=max_final_vocab, ns_exponent=ns_exponent,
                cbow_mean=bool(cbow_mean), shrink_windows=shrink_windows, max_sentence_length=MAX_WORDS_IN_BATCH)
        self.hs, self.negative = int(bool(hs)), 0 if hs else int(negative)
        self.sg, self.cbow_mean = int(bool(sg)), int(bool(cbow_mean))
        self.min_count = min_count
        self.trim_rule = trim_rule
        self.compute_loss = bool(compute_loss)
        self.callbacks = tuple(callbacks)
        self.comment = comment
        self.batch_words = batch_words
        self.null_word, self.sorted_vocab, self.hashfxn = null_word, sorted_vocab, hashfxn
        self.running_training_loss = 0.0
        self.effective_min_count = max(1, self.min_count)
        self.corpus_total_words: int | None = None
        self._corpus_count: int | None = None
        self._counted: Any = None  # the corpus whose sentences corpus_count counts, when not counted yet
        self.train_count = 0
        self._lowest_alpha: float | None = None  # the lowest learning rate reached so far
        self._scanned: tuple[Vocabulary, Any] | None = None  # scan_vocab's counts and corpus
        self._raw_vocab: dict | None = None  # raw_vocab, once asked for
        self.wv = KeyedVectors(vector_size)
        if sentences is not None or corpus_file is not None:
            self.build_vocab(sentences, corpus_file=corpus_file, trim_rule=trim_rule)
            self.train(sentences, corpus_file=corpus_file, total_examples=self.corpus_count,
                       total_words=self.corpus_total_words, epochs=self.epochs, start_alpha=self.alpha,
                       end_alpha=self.min_alpha, compute_loss=compute_loss, callbacks=callbacks)

    for _name in _FORWARDED:
        locals()[_name] = _forward(_name)
    del _name

    @property
    def engine(self) -> _core.Word2Vec:
        """The wv_engine.Word2Vec underneath."""
        return self._model

    @property
    def vector_size(self) -> int:
        return self._model.dim

    @property
    def workers(self) -> int:
        return self._model.threads

    @workers.setter
    def workers(self, value: int) -> None:
        self._model.threads = int(value)

    @property
    def layer1_size(self) -> int:
        return self._model.dim

    @property
    def syn1neg(self) -> np.ndarray:
        if self._model.loss != "ns" or self._model.output_vectors is None:
            raise AttributeError("syn1neg: the model has no negative-sampling weights (hs=1, or no vocabulary)")
        return self._model.output_vectors

    @property
    def syn1(self) -> np.ndarray:
        """Hierarchical softmax's inner-node weights: len(wv) rows, the last unused (as gensim's)."""
        if self._model.loss != "hs" or self._model.output_vectors is None:
            raise AttributeError("syn1: the model has no hierarchical-softmax weights (hs=0, or no vocabulary)")
        return self._model.output_vectors

    @property
    def corpus_count(self) -> int | None:
        """Sentences in the last corpus given to build_vocab (counted on first use for files)."""
        if self._corpus_count is None and self._counted is not None:
            source, self._counted = self._counted, None
            self._corpus_count = _count_sentences(source)
        return self._corpus_count

    @corpus_count.setter
    def corpus_count(self, value: int | None) -> None:
        self._corpus_count, self._counted = value, None

    # ---- corpus arguments -----------------------------------------------------------------
    def _source(self, corpus_iterable: Any, corpus_file: Any) -> Any:
        """What the engine reads: a file path, or a re-iterable of token lists."""
        if (corpus_iterable is None) == (corpus_file is None):
            raise TypeError("pass exactly one of corpus_iterable (sentences) or corpus_file")
        if corpus_file is not None:
            if not isinstance(corpus_file, (str, os.PathLike)):
                raise TypeError(f"corpus_file must be a path, got {type(corpus_file).__name__}")
            return os.fspath(corpus_file)
        if isinstance(corpus_iterable, GeneratorType):
            raise TypeError("You can't pass a generator as the sentences argument. Try a sequence.")
        fast = getattr(corpus_iterable, "_engine_path", None)
        path = fast(self._model.max_sentence_length) if fast is not None else None
        if path is not None:
            return path
        first = next(iter(corpus_iterable), None)
        if isinstance(first, str):
            logger.warning("Each 'sentences' item should be a list of words (usually unicode strings). "
                           "First item here is instead plain %s.", type(first))
            return _Chars(corpus_iterable)  # gensim reads a str sentence as its characters
        return corpus_iterable

    # ---- vocabulary -----------------------------------------------------------------------
    def build_vocab(self, corpus_iterable: Iterable | None = None, corpus_file: str | None = None,
                    update: bool = False, progress_per: int = 10000, keep_raw_vocab: bool = False,
                    trim_rule: Callable | None = None, **kwargs: Any) -> None:
        """Counts the corpus; update=True adds its words to a trained model (counts added, new
        words with rows initialised as for a new model)."""
        _check_unsupported(**kwargs)
        self.scan_vocab(corpus_iterable, corpus_file, progress_per=progress_per, trim_rule=trim_rule)
        self.prepare_vocab(update=update, keep_raw_vocab=keep_raw_vocab, trim_rule=trim_rule)

    def scan_vocab(self, corpus_iterable: Iterable | None = None, corpus_file: str | None = None,
                   progress_per: int = 10000, workers: int | None = None,
                   trim_rule: Callable | None = None) -> tuple[int, int]:
        """gensim's first vocabulary step: counts every word of the corpus (`raw_vocab`);
        returns (words in the corpus, corpus_count). prepare_vocab then chooses the words."""
        source = self._source(corpus_iterable, corpus_file)
        if is_path(source):  # a file that cannot be read is an error; only an empty corpus is let pass
            check_corpus(source)
        try:
            raw = Vocabulary.build(source, 1, self.max_vocab_size, threads=self._model.threads, progress=False)
        except CorpusError as exc:
            logger.warning("no vocabulary built: %s", exc)
            raw = None
        self._scanned, self._raw_vocab = (raw, source), None
        self.corpus_total_words = 0 if raw is None else raw.total_tokens
        self._corpus_count, self._counted = None, source
        return self.corpus_total_words, self.corpus_count

    @property
    def raw_vocab(self) -> dict:
        """{word: count} of the corpus scan_vocab read (before min_count), until prepare_vocab."""
        if self._raw_vocab is None:
            raw = self._scanned[0] if self._scanned is not None else None
            self._raw_vocab = {} if raw is None else dict(zip(raw.words, raw.counts.tolist()))
        return self._raw_vocab

    @raw_vocab.setter
    def raw_vocab(self, value: dict) -> None:
        self._raw_vocab = dict(value)

    def prepare_vocab(self, update: bool = False, keep_raw_vocab: bool = False, trim_rule: Callable | None = None,
                      min_count: int | None = None, sample: float | None = None,
                      dry_run: bool = False) -> dict[str, Any]:
        """gensim's second vocabulary step: keeps the words of raw_vocab seen min_count times
        (raised to honour max_final_vocab: effective_min_count) and makes the model's
        vocabulary and weights from them; returns gensim's report of what was kept."""
        if self._scanned is None:
            raise RuntimeError("call scan_vocab (or build_vocab) first")
        raw, source = self._scanned
        if self._raw_vocab is not None:  # raw_vocab was looked at, and may have been changed
            raw = vocab_steps.from_counts(self._raw_vocab)
        if raw is None:  # an empty corpus, or the counts were let go
            return vocab_steps.report(None, None, self.sample)
        if min_count is not None:
            self.min_count = int(min_count)
        if sample is not None:
            self.sample = sample
        trim_rule = trim_rule if trim_rule is not None else self.trim_rule
        if update:
            keep = vocab_steps.keep_mask(raw, 1, trim_rule)  # the engine takes new words seen min_count times
        else:
            effective = vocab_steps.final_min_count(raw, self.min_count, self.max_final_vocab)
            keep = vocab_steps.keep_mask(raw, effective, trim_rule)
        kept = vocab_steps.subset(raw, keep) if keep.any() else None
        report = vocab_steps.report(raw, kept, self.sample)
        if dry_run:
            return report
        if not keep_raw_vocab:
            self._scanned, self._raw_vocab = (None, source), None
        if update:
            if self._model.vocab is None:
                raise RuntimeError("You cannot do an online vocabulary-update of a model which has no prior "
                                   "vocabulary. First build the vocabulary of your model with a corpus "
                                   "before doing an online update.")
            if kept is not None:
                self._model.add_vocab(source, vocab=kept)
        elif kept is None:
            logger.warning("no vocabulary built: min_count=%s (or trim_rule) left no words", self.min_count)
            return report
        else:
            self.effective_min_count = max(1, effective)
            self._model.build_vocab(source, vocab=kept)
        self._attach_wv()
        return report

    def prepare_weights(self, update: bool = False) -> None:
        """gensim's third step; prepare_vocab has made the weights already."""
        if self._model.vocab is None:
            raise RuntimeError("call prepare_vocab (or build_vocab) first")

    def build_vocab_from_freq(self, word_freq: dict, keep_raw_vocab: bool = False, corpus_count: int | None = None,
                              trim_rule: Callable | None = None, update: bool = False) -> None:
        """The vocabulary from a {word: count} dict."""
        self._scanned, self._raw_vocab = (vocab_steps.from_counts(word_freq), None), None
        self.prepare_vocab(update=update, keep_raw_vocab=keep_raw_vocab, trim_rule=trim_rule)
        self.corpus_count = corpus_count or 0

    def _trained(self) -> None:
        """After training: wv shares the engine's matrix already (FastText's makes its vectors again)."""

    def _wv_is_own(self) -> bool:
        """True while wv shows this model's own vectors (not a KeyedVectors assigned to it)."""
        return self.wv.vectors is self._model.input_vectors

    def _attach_wv(self) -> None:
        """wv shows the engine's vectors (with hierarchical softmax, its tree as gensim's code/point),
        every word free to train (gensim's vectors_lockf of one factor for all)."""
        self.wv._attach(self._model.vectors, self._model.vocab.huffman if self._model.loss == "hs" else None)
        self.wv.vectors_lockf = np.ones(1, dtype=np.float32)

    @property
    def cum_table(self) -> np.ndarray:
        """gensim's negative-sampling table: the running sum of count ** ns_exponent over the
        vocabulary, scaled to end at 2 ** 31 - 1 (the engine samples from an alias table)."""
        if self._model.loss != "ns" or self._model.vocab is None:
            raise AttributeError("cum_table: the model has no negative-sampling vocabulary (hs=1, or none yet)")
        return np.round(np.cumsum(self._model.vocab.noise_distribution(self.ns_exponent)) * (2**31 - 1)
                        ).astype(np.uint32)

    # ---- training -------------------------------------------------------------------------
    def train(self, corpus_iterable: Iterable | None = None, corpus_file: str | None = None,
              total_examples: int | None = None, total_words: int | None = None, epochs: int | None = None,
              start_alpha: float | None = None, end_alpha: float | None = None, word_count: int = 0,
              queue_factor: int = 2, report_delay: float = 1.0, compute_loss: bool = False,
              callbacks: Iterable = (), **kwargs: Any) -> tuple[int, int]:
        """Trains `epochs` epochs (gensim requires epochs and total_examples or total_words; the
        engine counts the corpus itself). Returns (effective words, raw words) as gensim does."""
        _check_unsupported(word_count=word_count, **kwargs)
        if queue_factor != 2 or report_delay != 1.0:
            logger.warning("wv_engine.gensim: queue_factor and report_delay have no equivalent and are ignored")
        if epochs is None:
            raise ValueError("You must specify an explicit epochs count. The usual value is epochs=model.epochs.")
        if total_examples is None and total_words is None:
            raise ValueError("You must specify either total_examples or total_words, for proper learning-rate "
                             "and progress calculations. If you've just built the vocabulary using the same "
                             "corpus, using the count cached in the model is sufficient: "
                             "total_examples=model.corpus_count.")
        if self._model.vocab is None:
            raise RuntimeError("you must first build vocabulary before training the model")
        if not self._wv_is_own():
            raise ValueError("a KeyedVectors assigned to .wv cannot be trained (the model's own vocabulary "
                             "and weights are needed)")
        self._model.input_lock = getattr(self.wv, "vectors_lockf", None)  # 0 freezes a word's vector
        source = self._source(corpus_iterable, corpus_file)
        model, callbacks = self._model, tuple(callbacks)
        encoded = model.encode(source, progress=False)  # once: train takes these ids
        if encoded.words == 0:  # gensim runs the epochs over nothing, and says so
            logger.warning("none of the %i words given is in the vocabulary: nothing trained", encoded.tokens)
            for cb in callbacks:
                cb.on_train_begin(self)
                for _ in range(int(epochs)):
                    cb.on_epoch_begin(self)
                    cb.on_epoch_end(self)
                cb.on_train_end(self)
            self.train_count += 1
            return 0, int(encoded.tokens) * int(epochs)
        begin = model.alpha if start_alpha is None else float(start_alpha)
        if self._lowest_alpha is not None and self._lowest_alpha < begin:
            logger.warning("Effective 'alpha' higher than previous training cycles")
        end = model.min_alpha if end_alpha is None else float(end_alpha)
        self._lowest_alpha = end if self._lowest_alpha is None else min(self._lowest_alpha, end)
        self.compute_loss = bool(compute_loss)
        self.running_training_loss = 0.0
        saved = model.alpha, model.min_alpha
        if start_alpha is not None:
            model.alpha = float(start_alpha)
        if end_alpha is not None:
            model.min_alpha = float(end_alpha)
        for cb in callbacks:
            if any(getattr(type(cb), n, None) not in (None, getattr(CallbackAny2Vec, n))
                   for n in ("on_batch_begin", "on_batch_end")):
                logger.warning("wv_engine.gensim: on_batch_begin/on_batch_end are never called (the engine's "
                               "threads have no batches); use the epoch callbacks")
            cb.on_train_begin(self)
            cb.on_epoch_begin(self)
        done = [0]

        def on_epoch(_engine: Any, es: Any) -> None:
            self.running_training_loss += es.loss * es.examples
            done[0] += 1
            for cb in callbacks:
                cb.on_epoch_end(self)
            if done[0] < epochs:
                for cb in callbacks:
                    cb.on_epoch_begin(self)

        try:
            stats = model.train(encoded, epochs=int(epochs), callbacks=[on_epoch], progress=False)
        finally:
            model.alpha, model.min_alpha = saved
        self._trained()
        self.wv.fill_norms(force=True)
        self.train_count += 1
        for cb in callbacks:
            cb.on_train_end(self)
        raw_words = stats.corpus_words * stats.epochs
        trained = sum(e.examples for e in stats.epoch_stats) if self.sg == 0 else raw_words
        return int(trained), int(raw_words)

    def get_latest_training_loss(self) -> float:
        """The summed loss of the last train() call (the engine always computes it)."""
        return self.running_training_loss

    # ---- other gensim methods ------------------------------------------------------------
    def predict_output_word(self, context_words_list: list, topn: int = 10) -> list[tuple[str, float]] | None:
        """Distribution of the centre word given its context (negative sampling only)."""
        if self._model.loss != "ns":
            raise RuntimeError("We have currently only implemented predict_output_word for the negative "
                               "sampling scheme, so you need to have run word2vec with negative > 0 for this "
                               "to work.")
        if self.wv.vectors is not self._model.input_vectors:
            raise RuntimeError("Parameters required for predicting the output words not found.")
        idx = [self.wv.get_index(w) for w in context_words_list if w in self.wv]
        if not idx:
            logger.warning("All the input context words are out-of-vocabulary for the current model.")
            return None
        l1 = np.sum(self.wv.vectors[idx], axis=0)
        if idx and self.cbow_mean:
            l1 /= len(idx)
        prob = np.exp(np.dot(l1, self.syn1neg.T))
        prob /= prob.sum()
        top = np.argsort(-prob, kind="stable")[:topn]
        return [(self.wv.index_to_key[i], float(prob[i])) for i in top]

    def reset_from(self, other_model: "Word2Vec") -> None:
        """Takes the other model's vocabulary, with fresh weights."""
        self._model.build_vocab(vocab=other_model._model.vocab)
        self.corpus_count, self.corpus_total_words = other_model.corpus_count, other_model.corpus_total_words
        self._attach_wv()

    def estimate_memory(self, vocab_size: int | None = None, report: Any = None) -> dict[str, int]:
        vocab = self._model.vocab
        if vocab is None:
            raise RuntimeError("build the vocabulary first")
        return vocab.memory_estimate(self.vector_size, self._model.loss)

    def score(self, sentences: Iterable, total_sentences: int = int(1e6), chunksize: int = 100,
              queue_factor: int = 2, report_delay: float = 1) -> np.ndarray:
        """gensim's score (hierarchical softmax only): the log-probability of each of the first
        total_sentences sentences under the model (wv_engine.gensim.scoring)."""
        return scoring.score_sentences(self, sentences, total_sentences)

    def __str__(self) -> str:
        return f"Word2Vec<vocab={len(self.wv)}, vector_size={self.vector_size}, alpha={self.alpha}>"

    # ---- saving ---------------------------------------------------------------------------
    def save(self, fname_or_handle: str | os.PathLike, **kwargs: Any) -> None:
        """The whole model in wv_engine's native format (one file, no pickle); Word2Vec.load reads it."""
        unknown = set(kwargs) - _PICKLE_OPTIONS
        if unknown:
            raise TypeError(f"save() got unexpected arguments {sorted(unknown)}")
        if kwargs:
            logger.warning("wv_engine.gensim: save options %s shape gensim's pickles; the native format is "
                           "one file and does not use them", sorted(kwargs))
        extra = {"gensim": {"hs": self.hs, "negative": self.negative, "min_count": self.min_count,
                            "effective_min_count": self.effective_min_count, "compute_loss": self.compute_loss,
                            "comment": self.comment, "corpus_count": self.corpus_count,
                            "corpus_total_words": self.corpus_total_words,
                            "running_training_loss": self.running_training_loss, "train_count": self.train_count}}
        self._model.save(fname_or_handle, extra=extra)

    def __reduce__(self):
        """pickle, copy.deepcopy and multiprocessing through save()'s file
        (wv_engine.pickling); a model with no vocabulary yet by its settings."""
        settings = None
        if self._model.vocab is None:
            settings = {name: getattr(self, name) for name in (
                "vector_size", "alpha", "window", "min_count", "max_vocab_size", "sample", "seed", "workers",
                "min_alpha", "sg", "hs", "negative", "ns_exponent", "cbow_mean", "epochs", "compute_loss",
                "comment", "max_final_vocab", "shrink_windows")}
        return pickling.reduce(self, self.save, type(self).load, settings)

    def load(cls, fname: str | os.PathLike, mmap: str | None = None, **kwargs: Any) -> "Word2Vec":
        """A model saved by Word2Vec.save, here or by gensim (gensim's file is read without
        running its code: wv_engine.gensim.pickled); ready to train on. The model is read into
        memory (training writes to it): mmap is not used."""
        _check_unsupported(**kwargs)
        if mmap is not None:
            logger.warning("wv_engine.gensim: Word2Vec.load reads the model into memory; mmap is not used "
                           "(KeyedVectors.load(path, mmap='r') maps vectors)")
        if pickled.looks_pickled(fname):
            return pickled.gensim_word2vec(cls, os.fspath(fname))
        try:
            engine = cls._engine.load(fname)
        except NotAModelError as exc:
            raise _NotAWord2Vec(exc.path, exc.problem) from None
        self = cls.__new__(cls)
        saved = getattr(engine, "saved_extra", None) or {}
        extra = saved.get("gensim", {}) if isinstance(saved, dict) else None
        if not isinstance(extra, dict):
            raise FormatError(fname, "damaged gensim state: not a JSON object")
        file_checks.checked_fields(fname, "gensim state", extra, _EXTRA_INTS, {"running_training_loss": (0, math.inf)},
                               ("corpus_count", "corpus_total_words"))
        self._model = engine
        self.hs, self.negative = (1, 0) if engine.loss == "hs" else (0, engine.negative)
        self.sg, self.cbow_mean = int(engine.arch == "skipgram"), int(engine.cbow_mean)
        self.min_count = extra.get("min_count", engine.min_count)
        self.effective_min_count = extra.get("effective_min_count", engine.min_count)
        self.trim_rule, self.callbacks, self.batch_words = None, (), MAX_WORDS_IN_BATCH
        self.null_word, self.sorted_vocab, self.hashfxn = 0, 1, hash
        self.compute_loss = extra.get("compute_loss", False)
        self.comment = extra.get("comment")
        self._corpus_count, self._counted = extra.get("corpus_count"), None
        self.corpus_total_words = extra.get("corpus_total_words")
        self.running_training_loss = extra.get("running_training_loss", 0.0)
        self.train_count = extra.get("train_count", 0)
        self.wv = cls._keyed_vectors(engine.dim)
        self._attach_wv()
        self._lowest_alpha, self._scanned, self._raw_vocab = None, None, None
        return self


class _NotAWord2Vec(NotAModelError, AttributeError):
    """A vectors file given to Word2Vec.load: gensim raises AttributeError there."""


class _Chars:
    """A corpus whose str sentences are read as lists of characters (what gensim does)."""

    def __init__(self, corpus: Iterable) -> None:
        self.corpus = corpus

    def __iter__(self):
        return (list(s) if isinstance(s, str) else s for s in self.corpus)


class _ClassOnly:
    """A classmethod that raises AttributeError when called on an instance (gensim's load)."""

    def __init__(self, func: Callable) -> None:
        self.func = func

    def __get__(self, obj: Any, cls: type) -> Callable:
        if obj is not None:
            raise AttributeError("This method should be called on a class object.")
        return self.func.__get__(cls, cls)


Word2Vec.load = _ClassOnly(Word2Vec.load)  # type: ignore[assignment]  # (a plain function until here)


def _count_sentences(source: Any) -> int:
    """gensim's corpus_count: for a file, the sentences LineSentence gives
    (each line of n > 0 words is ceil(n / MAX_WORDS_IN_BATCH) of them, an
    empty line none); for an iterable, its items."""
    if isinstance(source, (str, os.PathLike)):
        from ..files import open_binary

        n, tail = 0, b""
        with open_binary(source) as f:
            for chunk in iter(lambda: f.read(1 << 22), b""):
                lines = (tail + chunk).split(b"\n")
                tail = lines.pop()  # the line that goes on in the next chunk
                n += sum(-(-len(line.split()) // MAX_WORDS_IN_BATCH) for line in lines)
        return n + -(-len(tail.split()) // MAX_WORDS_IN_BATCH)
    try:
        return len(source)
    except TypeError:
        return sum(1 for _ in source)
