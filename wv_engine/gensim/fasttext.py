"""gensim 4's FastText, FastTextKeyedVectors and fastText-file functions,
over wv_engine.FastText (the subword model, trained in C; fastText's .bin
read and written by wv_engine.fasttext_bin).

Differences from gensim (docs/GENSIM.md): hs=1 with negative > 0 trains
hierarchical softmax only (as Word2Vec here), word n-grams (word_ngrams > 1)
are not supported, and "</s>" has no n-grams, as in fastText (gensim gives
it some)."""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable

import numpy as np

from .. import _subwords
from .. import fasttext as _core
from .keyedvectors import KeyedVectors
from .word2vec import MAX_WORDS_IN_BATCH, Word2Vec, gensim_names

__all__ = ["FastText", "FastTextKeyedVectors", "load_facebook_model", "load_facebook_vectors",
           "save_facebook_model", "compute_ngrams", "compute_ngrams_bytes", "ft_hash_bytes", "ft_ngram_hashes"]
# _unpack is importable (gensim's tests import it) and raises NotImplementedError


class FastTextKeyedVectors(KeyedVectors):
    """gensim's FastTextKeyedVectors: a vector for any key with n-grams
    (`in` is True for every key when bucket > 0, as gensim)."""

    compatible_hash = True  # n-gram rows by fastText's hash (gensim 3.x before 3.8 used another)

    def __init__(self, vector_size: int, min_n: int = 3, max_n: int = 6, bucket: int = 2_000_000,
                 count: int = 0, dtype: Any = np.float32):
        super().__init__(vector_size, count=count, dtype=dtype)
        self.min_n, self.max_n, self.bucket = int(min_n), int(max_n), int(bucket)
        self.vectors_ngrams = np.zeros((0, vector_size), dtype=np.float32)
        self.vectors_vocab = self.vectors

    def _attach(self, vectors: Any, huffman: Callable | None = None) -> None:
        super()._attach(vectors, huffman)
        self.vectors_ngrams = vectors.ngram_vectors
        self.min_n, self.max_n, self.bucket = vectors.minn, vectors.maxn, vectors.bucket

    @property
    def vectors_vocab_lockf(self) -> np.ndarray:
        """All ones: every word row trains (freezing rows is not supported)."""
        return np.ones(len(self), dtype=np.float32)

    @property
    def vectors_ngrams_lockf(self) -> np.ndarray:
        """All ones: every n-gram row trains (freezing rows is not supported)."""
        return np.ones(len(self.vectors_ngrams), dtype=np.float32)

    def __contains__(self, key: Any) -> bool:
        return True if self.bucket else super().__contains__(key)

    def get_vector(self, key: Any, norm: bool = False) -> np.ndarray:
        if self.has_index_for(key):
            return super().get_vector(key, norm)
        if not self.bucket:
            raise KeyError(f"cannot calculate vector for OOV word without ngrams: {key!r}")
        rows = _subwords.ngram_rows(str(key), self.min_n, self.max_n, self.bucket)
        if not len(rows):  # fastText and gensim give the origin (e.g. for "", shorter than min_n)
            return np.zeros(self.vector_size, dtype=np.float32)
        vec = self.vectors_ngrams[rows].mean(axis=0, dtype=np.float32)
        return vec / np.linalg.norm(vec) if norm and np.linalg.norm(vec) else vec

    def get_sentence_vector(self, sentence: Iterable[str]) -> np.ndarray:
        """The mean of the words' unit vectors (zero ones skipped), as fastText's."""
        units = [v / n for v in (self.get_vector(w) for w in sentence) if (n := np.linalg.norm(v))]
        return np.mean(units, axis=0) if units else np.zeros(self.vector_size, dtype=np.float32)

    def __str__(self) -> str:
        return f"FastTextKeyedVectors<vector_size={self.vector_size}, {len(self)} keys>"


class FastText(Word2Vec):
    """gensim.models.FastText with gensim 4's arguments and defaults, trained by
    wv_engine.FastText (`engine` is that model)."""

    _engine, _keyed_vectors = _core.FastText, FastTextKeyedVectors

    def __init__(self, sentences: Iterable | None = None, corpus_file: str | None = None, sg: int = 0, hs: int = 0,
                 vector_size: int = 100, alpha: float = 0.025, window: int = 5, min_count: int = 5,
                 max_vocab_size: int | None = None, word_ngrams: int = 1, sample: float = 1e-3, seed: int = 1,
                 workers: int = 3, min_alpha: float = 0.0001, negative: int = 5, ns_exponent: float = 0.75,
                 cbow_mean: int = 1, hashfxn: Callable = hash, epochs: int = 5, null_word: int = 0, min_n: int = 3,
                 max_n: int = 6, sorted_vocab: int = 1, bucket: int = 2_000_000, trim_rule: Callable | None = None,
                 batch_words: int = MAX_WORDS_IN_BATCH, callbacks: Iterable = (), max_final_vocab: int | None = None,
                 shrink_windows: bool = True):
        if word_ngrams != 1:
            raise NotImplementedError("wv_engine.gensim: word_ngrams > 1 is not supported")
        super().__init__(None, None, vector_size=vector_size, alpha=alpha, window=window, min_count=min_count,
                         max_vocab_size=max_vocab_size, sample=sample, seed=seed, workers=workers,
                         min_alpha=min_alpha, sg=sg, hs=hs, negative=negative, ns_exponent=ns_exponent,
                         cbow_mean=cbow_mean, hashfxn=hashfxn, epochs=epochs, null_word=null_word,
                         trim_rule=trim_rule, sorted_vocab=sorted_vocab, batch_words=batch_words,
                         callbacks=callbacks, max_final_vocab=max_final_vocab, shrink_windows=shrink_windows)
        self.word_ngrams = 1
        old = self._model
        with gensim_names():
            self._model = _core.FastText(
                arch=old.arch, loss=old.loss, dim=vector_size, window=window, negative=self.negative,
                min_count=old.min_count, sample=sample, epochs=epochs, alpha=alpha, min_alpha=min_alpha,
                schedule="word2vec", threads=workers, seed=seed, minn=min_n, maxn=max_n if bucket else 0,
                bucket=bucket if max_n else 0, max_vocab_size=max_vocab_size, max_final_vocab=max_final_vocab,
                ns_exponent=ns_exponent, cbow_mean=bool(cbow_mean), shrink_windows=shrink_windows,
                max_sentence_length=MAX_WORDS_IN_BATCH)
        self.wv = FastTextKeyedVectors(vector_size, min_n, max_n, bucket if max_n else 0)
        if sentences is not None or corpus_file is not None:
            self.build_vocab(sentences, corpus_file=corpus_file, trim_rule=trim_rule)
            self.train(sentences, corpus_file=corpus_file, total_examples=self.corpus_count,
                       total_words=self.corpus_total_words, epochs=self.epochs, start_alpha=self.alpha,
                       end_alpha=self.min_alpha, callbacks=callbacks)

    def _attach_wv(self) -> None:
        self.wv._attach(self._model.vectors, self._model.vocab.huffman if self._model.loss == "hs" else None)
        self.wv.vectors_vocab = self._model.word_rows
        self.wv._model_of = self._model  # wv shows this model's vectors (made again after training)

    def _trained(self) -> None:
        self._attach_wv()

    def _wv_is_own(self) -> bool:
        return getattr(self.wv, "_model_of", None) is self._model


def load_facebook_model(path: str | os.PathLike, encoding: str = "utf-8") -> FastText:
    """A model from fastText's .bin (negative sampling or hierarchical softmax), ready to train on."""
    return _loaded(path, vectors_only=False)


def _loaded(path: str | os.PathLike, vectors_only: bool) -> FastText:
    # gensim trains a loaded model with its own noise exponent (0.75), not fastText's (0.5)
    engine = _core.FastText.load_fasttext(path, ns_exponent=0.75, _vectors_only=vectors_only)
    hs = int(engine.loss == "hs")
    self = FastText(vector_size=engine.dim, min_n=engine.minn, max_n=engine.maxn, bucket=engine.bucket,
                    sg=int(engine.arch == "skipgram"), hs=hs, window=engine.window,
                    negative=0 if hs else engine.negative,
                    epochs=engine.epochs, sample=engine.sample, min_count=engine.min_count)
    self._model = engine
    self._attach_wv()
    return self


def load_facebook_vectors(path: str | os.PathLike, encoding: str = "utf-8") -> FastTextKeyedVectors:
    """The vectors of fastText's .bin (its output matrix, needed only to
    train on, is not read)."""
    return _loaded(path, vectors_only=True).wv


def save_facebook_model(model: FastText, path: str | os.PathLike, encoding: str = "utf-8", lr_update_rate: int = 100,
                        word_ngrams: int = 1) -> None:
    """Writes `model` as fastText's .bin (wv_engine.FastText.save_fasttext)."""
    model.engine.save_fasttext(path)


def compute_ngrams(word: str, min_n: int, max_n: int) -> list[str]:
    """The character n-grams of `<word>` (gensim's order: by length, then position)."""
    s = f"<{word}>"
    return [s[i:i + n] for n in range(min_n, min(len(s), max_n) + 1) for i in range(len(s) - n + 1)]


def compute_ngrams_bytes(word: str, min_n: int, max_n: int) -> list[bytes]:
    """The n-grams of `<word>` as UTF-8 bytes, in fastText's order (by position, then length)."""
    s = f"<{word}>"
    return [s[i:i + n].encode("utf-8") for i in range(len(s)) for n in range(min_n, max_n + 1)
            if i + n <= len(s)]


def ft_hash_bytes(bytez: bytes) -> int:
    """fastText's hash of the bytes."""
    return _subwords.fasttext_hash(bytes(bytez))


def ft_ngram_hashes(word: str, minn: int, maxn: int, num_buckets: int) -> list[int]:
    """The buckets of a word's n-grams (fastText's: "</s>" has none)."""
    return [int(r) for r in _subwords.ngram_rows(word, minn, maxn, num_buckets)]


def _unpack(m: np.ndarray, num_rows: int, hash2index: dict, seed: int = 1, fill: Any = None) -> np.ndarray:
    """gensim's converter of gensim-3.x n-gram matrices: not supported (docs/GENSIM.md)."""
    raise NotImplementedError("wv_engine.gensim: models saved by gensim 3.x with packed n-gram rows are not read")
