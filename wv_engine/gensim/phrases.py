"""gensim 4's `gensim.models.phrases` over wv_engine's phrase counting:
`Phrases`, `FrozenPhrases` (and its old name `Phraser`),
`ENGLISH_CONNECTOR_WORDS`, `original_scorer`, `npmi_scorer`, with gensim's
arguments, defaults and results.

Words and candidates are counted in C (csrc/phrases.c) and kept there
(`vocab` is made into a dict on first use); the built-in scorers score in C
with gensim's arithmetic, and sentences are joined in C. A custom scorer
(any function taking gensim's six arguments) is called from Python, as
gensim does. Models are saved in wv_engine's phrase model format (no
pickle); a custom scorer is saved by name and found again on load only
in a module already imported. gensim's own pickled models cannot be read.
docs/GENSIM.md lists the differences."""

from __future__ import annotations

import inspect
import logging
import math
import os
import sys
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from .. import _tokenize
from ..corpus import sentence_chunks
from ..errors import FormatError
from ..phrases.settings import ENGLISH_CONNECTOR_WORDS

__all__ = ["ENGLISH_CONNECTOR_WORDS", "FrozenPhrases", "NEGATIVE_INFINITY", "Phraser", "Phrases",
           "npmi_scorer", "original_scorer"]

logger = logging.getLogger(__name__)

NEGATIVE_INFINITY = float("-inf")
_SCORER_ARGS = ("worda_count", "wordb_count", "bigram_count", "len_vocab", "min_count", "corpus_word_count")
# Counting joins candidates with the user's delimiter (so a word holding it
# shares a count with a candidate, as in gensim's dict); one holding
# whitespace cannot reach the C tokenizer, so this stands in for it.
_STAND_IN = "\x1f"


def original_scorer(worda_count, wordb_count, bigram_count, len_vocab, min_count, corpus_word_count):
    """word2vec's score as gensim computes it: (bigram_count - min_count) /
    (worda_count * wordb_count) * len_vocab; -inf where a word count is 0."""
    product = worda_count * wordb_count
    if product == 0:
        return NEGATIVE_INFINITY
    return (bigram_count - min_count) / float(product) * len_vocab


def npmi_scorer(worda_count, wordb_count, bigram_count, len_vocab, min_count, corpus_word_count):
    """Normalised pointwise mutual information, in -1..1: ln(p(ab) / (p(a)
    p(b))) / -ln(p(ab)), p = count / corpus_word_count; -inf below min_count."""
    if bigram_count < min_count:
        return NEGATIVE_INFINITY
    total = float(corpus_word_count)
    pa, pb, pab = worda_count / total, wordb_count / total, bigram_count / total
    try:
        return math.log(pab / (pa * pb)) / -math.log(pab)
    except (ValueError, ZeroDivisionError):
        return NEGATIVE_INFINITY


_BUILT_IN = {"default": original_scorer, "npmi": npmi_scorer}


def _scorer_name(scoring: Callable) -> str:
    """"default", "npmi", or "module:qualname" of a custom scorer."""
    for name, fn in _BUILT_IN.items():
        if scoring is fn:
            return name
    return f"{getattr(scoring, '__module__', '?')}:{getattr(scoring, '__qualname__', '?')}"


def _scorer_by_name(name: str) -> Callable:
    """The scorer a saved name stands for: a built-in one, or a function of a
    module already imported (nothing is imported or run to find it)."""
    if name in _BUILT_IN:
        return _BUILT_IN[name]
    module, _, qualname = name.partition(":")
    found: Any = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if not callable(found):
        raise ValueError(f"the custom scorer {name!r} this model was saved with is not loaded: import its module "
                         "first (wv_engine imports nothing to find it)")
    return found


def _is_single(obj: Any) -> tuple[bool, Any]:
    """(True, tokens) for one sentence, (False, sentences) for a corpus: an
    empty input and a sequence of str are one sentence; an iterator is read
    once, so its first item is put back."""
    it = iter(obj)
    try:
        first = next(it)
    except StopIteration:
        return True, obj
    rest = _Chained(first, it)
    if isinstance(first, str):
        return True, rest
    return False, (rest if it is obj else obj)


class _Chained:
    """An iterator's first item put back in front of the rest (read once)."""

    def __init__(self, first: Any, rest: Iterator) -> None:
        self.first, self.rest = first, rest

    def __iter__(self) -> Iterator:
        yield self.first
        yield from self.rest


class _Phrased:
    """A corpus with each sentence's phrases joined, made anew at each
    iteration (as gensim's TransformedCorpus)."""

    def __init__(self, model: "_PhrasesTransformation", corpus: Iterable) -> None:
        self.model, self.corpus = model, corpus

    def __iter__(self) -> Iterator[list[str]]:
        for sentence in self.corpus:
            yield self.model[sentence]


def _encode(word: str) -> bytes:
    return word.encode("utf-8", "surrogateescape")


class _PhrasesTransformation:
    """What Phrases and FrozenPhrases share: connector words, joining the
    phrases of a sentence left to right (analyze_sentence), phrases[...],
    find_phrases, save and load."""

    def __init__(self, connector_words: Iterable[str]) -> None:
        self.connector_words = frozenset(connector_words)

    def score_candidate(self, word_a: str, word_b: str, in_between: list[str]) -> tuple[Any, Any]:
        """(the phrase joined, its score) for a phrase, else (None, None)."""
        raise NotImplementedError("score_candidate is for the subclasses to say")

    def analyze_sentence(self, sentence: Iterable[str]) -> Iterator[tuple[str, Any]]:
        """(phrase, score) for each phrase found and (word, None) for each
        other word, in order: a non-connector word starts a candidate,
        connector words after it join it, the next non-connector word ends
        it, as a phrase or not (then that word starts the next)."""
        start: str | None = None
        between: list[str] = []
        for word in sentence:
            if word in self.connector_words:
                if start is None:
                    yield word, None
                else:
                    between.append(word)
                continue
            if start is not None:
                phrase, score = self.score_candidate(start, word, between)
                if score is not None:
                    yield phrase, score
                    start, between = None, []
                    continue
                yield start, None
                yield from ((w, None) for w in between)
            start, between = word, []
        if start is not None:
            yield start, None
            yield from ((w, None) for w in between)

    def __getitem__(self, sentence: Any) -> Any:
        """The sentence with its phrases joined (a list of str), or for a
        corpus a re-iterable of such sentences."""
        single, sentence = _is_single(sentence)
        if not single:
            return _Phrased(self, sentence)
        words = list(sentence)
        table = self._c_table() if words and all(isinstance(w, str) for w in words) and self._c_joins(words) else None
        if table is not None:
            text = b" ".join(_encode(w) for w in words)
            if len(text.split()) == len(words):
                out = _tokenize.PhrasePipe([table]).feed(text, final=True)
                return out.decode("utf-8", "surrogateescape").split()
        return [token for token, _ in self.analyze_sentence(words)]

    def _c_table(self) -> Any:
        """The C table that joins exactly as analyze_sentence would, or None
        (a custom scorer, or a delimiter the C tokenizer cannot hold)."""
        return None

    def _c_joins(self, words: list[str]) -> bool:
        """Whether the C table joins these words as score_candidate would."""
        return True

    def find_phrases(self, sentences: Iterable[Iterable[str]]) -> dict[str, float]:
        """Each phrase that joins in the sentences, with its score."""
        found = {}
        for sentence in sentences:
            for phrase, score in self.analyze_sentence(sentence):
                if score is not None:
                    found[phrase] = score
        return found

    # ------------------------------------------------------------ files
    def _settings(self) -> dict[str, Any]:
        return {"class": type(self).__name__, "scoring": _scorer_name(self.scoring),  # type: ignore[attr-defined]
                "threshold": float(self.threshold), "min_count": int(self.min_count),  # type: ignore[attr-defined]
                "delimiter": self.delimiter, "connector_words": sorted(self.connector_words)}  # type: ignore

    def save(self, fname_or_handle: Any, *args: Any, **kwargs: Any) -> None:
        """Saves the model in wv_engine's phrase model format (atomically)."""
        from ..phrases.file import save_phrases

        if not isinstance(fname_or_handle, (str, os.PathLike)):
            raise TypeError("save() takes a file name")
        keys, values = self._table_entries()
        if any("\n" in k for k in keys):
            raise ValueError("a word holding a newline cannot be saved")
        blob = b"\n".join(_encode(k) for k in keys)
        save_phrases(fname_or_handle, [], extra={"gensim": self._settings()}, table=(blob, values))

    def _table_entries(self) -> tuple[list[str], np.ndarray]:
        raise NotImplementedError

    @classmethod
    def load(cls, fname: Any, *args: Any, **kwargs: Any) -> Any:
        """A Phrases or FrozenPhrases that save() wrote (FormatError for
        anything else, gensim's pickles included)."""
        from ..phrases.file import read_phrase_file

        path = os.fspath(fname)
        with open(path, "rb") as f:
            if f.read(1) == b"\x80":
                raise FormatError(path, "a pickle (gensim's own save?): wv_engine reads phrase models saved by "
                                        "wv_engine.gensim only; learn the phrases again")
        content = read_phrase_file(path)
        settings = (content["extra"] or {}).get("gensim")
        if not isinstance(settings, dict) or content["table"] is None:
            raise FormatError(path, "not a model saved by wv_engine.gensim's Phrases or FrozenPhrases")
        try:
            kind = {"Phrases": Phrases, "FrozenPhrases": FrozenPhrases}[settings["class"]]
            model = kind.__new__(kind)
            model._restore(settings, *content["table"])
        except (KeyError, TypeError, ValueError) as exc:
            raise FormatError(path, f"damaged settings: {exc}") from None
        if not isinstance(model, cls):
            raise FormatError(path, f"holds a {type(model).__name__}, not a {cls.__name__}")
        return model

    def _restore_settings(self, settings: dict[str, Any]) -> None:
        self.scoring = _scorer_by_name(str(settings["scoring"]))
        self.threshold = float(settings["threshold"])
        self.min_count = int(settings["min_count"])
        self.delimiter = str(settings["delimiter"])
        self.connector_words = frozenset(str(w) for w in settings["connector_words"])


class Phrases(_PhrasesTransformation):
    """Detects phrases from word and candidate counts (gensim 4's arguments
    and defaults: scoring "default", threshold 10; "npmi" takes a
    threshold in -1..1; or a function of gensim's six scorer arguments)."""

    def __init__(self, sentences: Iterable[Iterable[str]] | None = None, min_count: int = 5,
                 threshold: float = 10.0, max_vocab_size: int = 40000000, delimiter: str = "_",
                 progress_per: int = 10000, scoring: Any = "default",
                 connector_words: Iterable[str] = frozenset()) -> None:
        super().__init__(connector_words)
        if min_count <= 0:
            raise ValueError("min_count should be at least 1")
        if threshold <= 0 and scoring == "default":
            raise ValueError("threshold should be positive for default scoring")
        if scoring == "npmi" and not -1 <= threshold <= 1:
            raise ValueError("threshold should be between -1 and 1 for npmi scoring")
        if isinstance(scoring, str):
            if scoring not in _BUILT_IN:
                raise ValueError(f"unknown scoring method string {scoring} specified")
            scoring = _BUILT_IN[scoring]
        missing = [a for a in _SCORER_ARGS if a not in inspect.signature(scoring).parameters]
        if missing:
            raise ValueError(f"scoring function missing expected parameters {missing}")
        if not isinstance(delimiter, str) or not delimiter:
            raise ValueError(f"delimiter must be a non-empty str, got {delimiter!r}")
        self.scoring, self.min_count, self.threshold = scoring, min_count, threshold
        self.max_vocab_size, self.delimiter, self.progress_per = max_vocab_size, delimiter, progress_per
        self.min_reduce = 1
        self.corpus_word_count = 0
        self._counter: Any = None  # the counts, in C
        self._vocab: dict[str, int] | None = None  # or as a dict: made on first use, or set by the user
        self._export: tuple[Any, Any] | None = None  # (settings, phrases) last exported
        if sentences is not None:
            self.add_vocab(sentences)

    def __str__(self) -> str:
        return (f"{type(self).__name__}<{len(self.vocab)} vocab, min_count={self.min_count}, "
                f"threshold={self.threshold}, max_vocab_size={self.max_vocab_size}>")

    @property
    def _count_delimiter(self) -> str:
        return _STAND_IN if any(c.isspace() for c in self.delimiter) else self.delimiter

    # ------------------------------------------------------------ counting
    def add_vocab(self, sentences: Iterable[Iterable[str]]) -> None:
        """Counts the words and candidates of more sentences."""
        words = _tokenize.PhraseTable(_encode(self._count_delimiter),
                                      b"\n".join(sorted(_encode(w) for w in self.connector_words)))
        counter = _tokenize.WordCounter(self.max_vocab_size or 0, 1)
        pipe = _tokenize.PhrasePipe([], counter, words)
        listed = (s if isinstance(s, (list, tuple)) else list(s) for s in sentences)  # sentences may be generators
        for chunk in sentence_chunks(listed, 1 << 22):
            pipe.feed(chunk)
        pipe.feed(b"", final=True)
        self.corpus_word_count += pipe.words
        self.min_reduce = max(self.min_reduce, counter.min_reduce)
        if self._vocab is not None and self._counter is None:  # the user's dict: merged in Python
            for word, count in self._counted(counter).items():
                self._vocab[word] = self._vocab.get(word, 0) + count
        elif self._counter is None:
            self._counter = counter
        else:
            merged = _tokenize.WordCounter(0, 1)
            merged.absorb_part([self._counter, counter], 0)
            merged.add_totals(self._counter)
            merged.add_totals(counter)
            self._counter, self._vocab = merged, None
        self._export = None
        logger.info("collected %i token types from a corpus of %i words", len(self.vocab), self.corpus_word_count)

    def _counted(self, counter: Any) -> dict[str, int]:
        blob, counts = counter.sorted_blob(1)
        if not len(counts):
            return {}
        keys = blob.decode("utf-8", "surrogateescape")
        if self._count_delimiter != self.delimiter:
            keys = keys.replace(_STAND_IN, self.delimiter)
        return dict(zip(keys.split("\n"), counts.tolist()))

    @property
    def vocab(self) -> dict[str, int]:
        """Each word and candidate (joined by the delimiter) and its count."""
        if self._vocab is None:
            self._vocab = self._counted(self._counter) if self._counter is not None else {}
        return self._vocab

    @vocab.setter
    def vocab(self, value: dict[str, int]) -> None:
        self._vocab, self._counter, self._export = dict(value), None, None

    def _count(self, key: str) -> int:
        if self._counter is not None:
            return _tokenize.count_of(self._counter, _encode(key.replace(self.delimiter, self._count_delimiter)
                                                             if self._count_delimiter != self.delimiter else key))
        return (self._vocab or {}).get(key, 0)

    # ------------------------------------------------------------ scoring
    def score_candidate(self, word_a: str, word_b: str, in_between: list[str]) -> tuple[Any, Any]:
        a = self._count(word_a)
        if a <= 0:
            return None, None
        b = self._count(word_b)
        if b <= 0:
            return None, None
        phrase = self.delimiter.join([word_a, *in_between, word_b])
        ab = self._count(phrase)
        if ab <= 0:
            return None, None
        score = self.scoring(worda_count=a, wordb_count=b, bigram_count=ab, len_vocab=self._len_vocab(),
                             min_count=self.min_count, corpus_word_count=self.corpus_word_count)
        if score <= self.threshold:
            return None, None
        return phrase, score

    def _len_vocab(self) -> int:
        return self._counter.distinct if self._counter is not None else len(self._vocab or {})

    def export_phrases(self) -> dict[str, float]:
        """Every candidate counted that scores above the threshold, split at
        its first and last delimiter (as gensim's), with its score."""
        key = (self.scoring, self.threshold, self.min_count, self.delimiter, self.corpus_word_count)
        if self._export is not None and self._export[0] == key:
            return dict(self._export[1])
        name = _scorer_name(self.scoring)
        if self._counter is not None and name in _BUILT_IN:
            words = _tokenize.PhraseTable(_encode(self._count_delimiter), b"")
            blob, scores, _ = _tokenize.score_part(self._counter, 0, words, name, self.min_count,
                                                    float(self.threshold), self.corpus_word_count,
                                                    self._counter.distinct)
            keys = blob.decode("utf-8", "surrogateescape").replace(self._count_delimiter, self.delimiter)
            found = dict(zip(keys.split("\n"), scores.tolist())) if len(scores) else {}
        else:
            found = {}
            for token in self.vocab:
                parts = token.split(self.delimiter)
                if len(parts) > 1:
                    phrase, score = self.score_candidate(parts[0], parts[-1], parts[1:-1])
                    if score is not None:
                        found[phrase] = score
        self._export = (key, found)
        return dict(found)

    def _c_table(self) -> Any:
        if _scorer_name(self.scoring) not in _BUILT_IN or self._count_delimiter != self.delimiter:
            return None
        self.export_phrases()
        return _frozen_table(self, self._export[1])  # type: ignore[index]

    def _c_joins(self, words: list[str]) -> bool:
        # score_candidate counts the words themselves, export_phrases a key's first and last part: the same
        # unless a word holds the delimiter
        return not any(self.delimiter in w for w in words)

    def freeze(self) -> "FrozenPhrases":
        """A FrozenPhrases of these phrases: smaller and faster, no more counting."""
        return FrozenPhrases(self)

    # ------------------------------------------------------------ files
    def _settings(self) -> dict[str, Any]:
        return {**super()._settings(), "corpus_word_count": int(self.corpus_word_count),
                "max_vocab_size": self.max_vocab_size, "min_reduce": int(self.min_reduce),
                "progress_per": self.progress_per}

    def _table_entries(self) -> tuple[list[str], np.ndarray]:
        vocab = self.vocab
        return list(vocab), np.fromiter(vocab.values(), np.int64, len(vocab))

    def _restore(self, settings: dict[str, Any], keys: bytes, values: np.ndarray) -> None:
        self._restore_settings(settings)
        self.corpus_word_count = int(settings["corpus_word_count"])
        self.max_vocab_size = settings["max_vocab_size"]
        self.min_reduce = int(settings["min_reduce"])
        self.progress_per = settings["progress_per"]
        self._counter, self._export = None, None
        words = keys.decode("utf-8", "surrogateescape").split("\n") if len(values) else []
        self._vocab = dict(zip(words, values.tolist()))


def _frozen_table(model: Any, phrases: dict[str, float]) -> Any:
    """The C table of the phrases scoring above the model's threshold
    (cached on the model while its phrases and settings stay)."""
    key = (id(phrases), len(phrases), model.threshold, model.delimiter, model.connector_words)
    cached = getattr(model, "_c_cache", None)
    if cached is not None and cached[0] == key and cached[2] is phrases:
        return cached[1]
    keep = [(k, s) for k, s in phrases.items() if s > model.threshold and "\n" not in k]
    table = _tokenize.PhraseTable(_encode(model.delimiter), b"\n".join(sorted(_encode(w) for w in
                                                                              model.connector_words)),
                                  b"\n".join(_encode(k) for k, _ in keep), np.array([s for _, s in keep], np.float64),
                                  np.full(len(keep), -1, np.int32))
    model._c_cache = (key, table, phrases)
    return table


class FrozenPhrases(_PhrasesTransformation):
    """The phrases a Phrases exported (phrasegrams: phrase -> score), and
    its settings: joins sentences without the counts."""

    def __init__(self, phrases_model: Phrases) -> None:
        self.threshold = phrases_model.threshold
        self.min_count = phrases_model.min_count
        self.delimiter = phrases_model.delimiter
        self.scoring = phrases_model.scoring
        self.connector_words = phrases_model.connector_words
        self.phrasegrams = phrases_model.export_phrases()

    def __str__(self) -> str:
        return (f"{type(self).__name__}<{len(self.phrasegrams)} phrases, min_count={self.min_count}, "
                f"threshold={self.threshold}>")

    def score_candidate(self, word_a: str, word_b: str, in_between: list[str]) -> tuple[Any, Any]:
        phrase = self.delimiter.join([word_a, *in_between, word_b])
        score = self.phrasegrams.get(phrase, NEGATIVE_INFINITY)
        if score > self.threshold:
            return phrase, score
        return None, None

    def _c_table(self) -> Any:
        if any(c.isspace() for c in self.delimiter) or len(_encode(self.delimiter)) > _tokenize.PHRASE_MAX_DELIMITER:
            return None
        return _frozen_table(self, self.phrasegrams)

    def _table_entries(self) -> tuple[list[str], np.ndarray]:
        return list(self.phrasegrams), np.fromiter(self.phrasegrams.values(), np.float64, len(self.phrasegrams))

    def _restore(self, settings: dict[str, Any], keys: bytes, values: np.ndarray) -> None:
        self._restore_settings(settings)
        words = keys.decode("utf-8", "surrogateescape").split("\n") if len(values) else []
        if values.dtype != np.float64:
            raise ValueError("a FrozenPhrases table holds scores")
        self.phrasegrams = dict(zip(words, values.tolist()))


Phraser = FrozenPhrases  # gensim 3's name
