"""fastText's unsupervised word vectors: word2vec where a word's input vector
is the mean of its own row and the rows of its character n-grams, so that
rare words, inflections and words never seen get vectors too.

FastText is a Word2Vec whose input matrix has `bucket` more rows, the
n-grams' (fastText's layout: the words' rows, then the buckets'); the C core
trains it with its subword losses (csrc/w2v_subword_sentence.h: negative
sampling or hierarchical softmax) from a table of each vocabulary word's
rows computed once (csrc/subwords.c)."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .. import _subwords, _word2vec
from ..errors import FormatError
from ..memory import check_fits, gib
from ..settings import bounded
from ..vocab import Vocabulary
from ..word2vec import Word2Vec
from . import bin_file as fasttext_bin
from .row_order import TrainingOrder
from .vectors import SubwordVectors

__all__ = ["FastText", "FASTTEXT_DEFAULTS"]

#: fastText's defaults for unsupervised vectors (src/args.cc of facebookresearch/fastText):
#: skip-gram, dim 100, window 5, 5 epochs, min_count 5, 5 negatives, n-grams of 3 to 6
#: characters in 2,000,000 buckets, sampling threshold 1e-4, learning rate 0.05 falling on a
#: line to 0, noise distribution counts^0.5, lines cut at 1,024 words.
FASTTEXT_DEFAULTS = {"arch": "skipgram", "dim": 100, "window": 5, "epochs": 5, "min_count": 5, "negative": 5,
                     "minn": 3, "maxn": 6, "bucket": 2_000_000, "sample": 1e-4, "alpha": 0.05,
                     "ns_exponent": 0.5, "max_sentence_length": 1024}

_BUCKET_STREAM = 2  # the random stream of the n-gram rows' initial values (words' rows take 0)


class FastText(Word2Vec):
    """Trains fastText's word vectors (skip-gram or CBOW, with negative
    sampling or hierarchical softmax): a word's input vector is the mean of
    its own row and the rows of its character n-grams (`<` and `>` around
    the word, minn to maxn characters, each hashed with fastText's hash into
    one of `bucket` rows), and every row of that mean receives its whole
    gradient, as in fastText.

    The defaults are fastText's (FASTTEXT_DEFAULTS; the learning rate falls
    on a line to 0 as fastText's does). maxn=0 trains plain word2vec (no
    n-gram rows). Other arguments as Word2Vec: loss="ns", "hs" or "softmax"
    (the exact softmax, O(vocabulary) a prediction, as fastText's -loss
    softmax). Skip-gram NS draws one negative set per centre word and lets
    each context word's mean predict the centre word (word2vec.c's
    orientation: the same pairs, the window's output rows fetched once);
    shared_negatives=False takes fastText's per-pair loop, the centre word's
    mean against each context word with fresh negatives
    (csrc/w2v_subword_sentence.h, docs: the fastText guide).
    add_vocab grows the vocabulary: new words get rows of their own, the
    n-gram rows stay.

    `vectors` are SubwordVectors: every vocabulary word's mean, and a vector
    for any other word from its n-grams. save/load keep the whole state as
    Word2Vec's do; `input_vectors` is the whole input matrix (words' rows,
    then the buckets'), `ngram_vectors` its bucket rows.

    Example::

        model = FastText(dim=50).fit("corpus.txt")
        model.vectors["unseenword"]
    """

    state_format = "wv_engine.fasttext"  # word2vec/state.py: a saved FastText is not a saved Word2Vec
    #: train with the n-gram rows moved into the order training reads them (row_order.py;
    #: the same arithmetic either way: False is for comparisons)
    train_in_row_order = True

    def __init__(self, *, arch: str = "skipgram", loss: str = "ns", dim: int = 100, window: int = 5,
                 negative: int = 5, min_count: int = 5, sample: float = 1e-4, epochs: int = 5,
                 alpha: float = 0.05, min_alpha: float | None = None, schedule: str | None = "word2vec",
                 threads: int | None = None, seed: int = 1, minn: int = 3, maxn: int = 6,
                 bucket: int = 2_000_000, max_vocab_size: int | None = None,
                 max_final_vocab: int | None = None, ns_exponent: float = 0.5, cbow_mean: bool = True,
                 shrink_windows: bool = True, max_sentence_length: int = 1024, hot_rows: int | None = None,
                 shared_negatives: bool | None = None, tmp_dir: str | None = None,
                 ids_on_disk: bool | None = None, init_range: float = 1.0, regions: int | None = None):
        minn, maxn, bucket = bounded("minn", minn), bounded("maxn", maxn), bounded("bucket", bucket)
        if maxn > 0:
            if not 1 <= minn <= maxn:
                raise ValueError(f"minn={minn} and maxn={maxn}: n-grams need 1 <= minn <= maxn "
                                 "(maxn=0 trains without n-grams)")
            if bucket == 0:
                raise ValueError(f"bucket=0 leaves the n-grams of {minn} to {maxn} characters no rows: "
                                 "give bucket >= 1, or maxn=0 to train without n-grams")
            if loss == "ns" and not 1 <= negative <= 63:
                raise ValueError(f"negative={negative}: the subword model takes 1 to 63 negatives")
        self.minn, self.maxn, self.bucket = int(minn), int(maxn), int(bucket)
        settings = {k: v for k, v in locals().items() if k not in ("self", "minn", "maxn", "bucket", "__class__")}
        super().__init__(**settings)
        self._table: tuple[np.ndarray, np.ndarray] | None = None
        self._row_order: TrainingOrder | None = None  # made with the core that trains in it
        self._training = threading.RLock()  # held by train(): the rows move, other threads may not read them

    @property
    def input_vectors(self) -> np.ndarray | None:
        """The input matrix: the words' rows, then the n-grams' bucket rows,
        in fastText's layout (put back first if training had moved them)."""
        self._layout_for_training(False)
        return self.__dict__.get("_matrix")

    @input_vectors.setter
    def input_vectors(self, value: np.ndarray | None) -> None:
        self._layout_for_training(False)  # the matrix given up leaves in fastText's layout
        self._matrix = value

    def _layout_for_training(self, training: bool) -> None:
        order, matrix = self.__dict__.get("_row_order"), self.__dict__.get("_matrix")
        if order is None or matrix is None:
            return
        if not self._training.acquire(blocking=False):
            raise RuntimeError("the model is training in another thread: read its input rows in a callback "
                               "or after train returns")
        try:
            if training:
                order.apply(matrix)
            elif order.applied:
                if self._core is not None and self._core.running:
                    raise RuntimeError("the input rows are being trained: read them between epochs "
                                       "(callbacks) or after train returns")
                order.restore(matrix)
        finally:
            self._training.release()

    def train(self, *args, **kwargs):
        """Word2Vec.train; while it runs the n-gram rows move (row_order.py),
        so other threads' reads of input_vectors are refused until it returns."""
        with self._training:
            return super().train(*args, **kwargs)

    @property
    def ngram_buckets(self) -> int:
        """Rows of the input matrix past the words' (0 with maxn=0, as fastText)."""
        return self.bucket if self.maxn > 0 else 0

    def config(self) -> dict:
        return {**super().config(), "minn": self.minn, "maxn": self.maxn, "bucket": self.bucket}

    def metadata(self) -> dict:
        return {**super().metadata(), "trainer": "fasttext"}

    # ---- the input matrix: words' rows, then the buckets' ------------------
    def ngram_bytes(self) -> int:
        """Bytes of the n-gram rows (bucket x dim x 4)."""
        return self.ngram_buckets * self.dim * 4

    def memory_needed(self, vocab: Vocabulary, threads: int | None = None,
                      output_format: str | None = None) -> dict[str, int]:
        """Word2Vec.memory_needed and the n-gram rows (`ngram_rows`, bucket x
        dim x 4 bytes), held from build_vocab on."""
        est = super().memory_needed(vocab, threads, output_format)
        est["ngram_rows"] = self.ngram_bytes()
        est["total"] += est["ngram_rows"]
        return est

    def build_vocab(self, corpus=None, *, vocab: Vocabulary | None = None, client=None,
                    progress: bool | None = None) -> "FastText":
        """Counts the corpus (or takes a Vocabulary) and allocates the
        weights: the words' and the n-grams' input rows uniform in
        [-init_range/dim, init_range/dim) from the seed, output rows zero.
        Raises MemoryError naming bucket before counting when the n-gram
        rows cannot fit."""
        if client is not None:
            raise NotImplementedError("FastText does not train on a cluster yet; drop client=")
        self._check_ngrams_fit()
        super().build_vocab(corpus, vocab=vocab, progress=progress)
        assert self.vocab is not None and self.input_vectors is not None
        words = self.input_vectors
        V = len(words)
        full = np.empty((V + self.ngram_buckets, self.dim), dtype=np.float32)
        full[:V] = words
        del words
        self.input_vectors = None
        _fill_rows(full[V:], self.seed, self.init_range, self.threads)
        self.input_vectors = full
        return self

    def _check_ngrams_fit(self) -> None:
        check_fits(f"the n-gram matrix ({self.ngram_buckets:,} buckets x {self.dim} floats, "
                   f"{gib(self.ngram_bytes())})", self.ngram_bytes(),
                   "lower --bucket (bucket=), dim, or maxn=0 for no n-grams")

    def add_vocab(self, corpus=None, *, vocab: Vocabulary | None = None,
                  progress: bool | None = None, min_count: int | None = None) -> "FastText":
        """Word2Vec.add_vocab on the words' rows: new words join with rows of
        their own (initialised as build_vocab does), every row follows its
        word to its new place, the n-gram rows stay as they are and the
        table of each word's rows is made again (a new word's n-gram rows
        are shared ones, already trained)."""
        self._need_weights()
        V = len(self.vocab)
        full = self.input_vectors
        self.input_vectors = np.ascontiguousarray(full[:V])  # Word2Vec's part: the words' rows
        try:
            super().add_vocab(corpus, vocab=vocab, progress=progress, min_count=min_count)
        except BaseException:
            self.input_vectors = full
            raise
        words = self.input_vectors
        grown = np.empty((len(words) + self.ngram_buckets, self.dim), dtype=np.float32)
        grown[:len(words)] = words
        grown[len(words):] = full[V:]
        del full, words
        self.input_vectors = grown
        return self

    @property
    def word_rows(self) -> np.ndarray:
        """The words' own input rows (the first len(vocab) rows of input_vectors)."""
        self._need_weights()
        return self.input_vectors[:len(self.vocab)]

    @property
    def ngram_vectors(self) -> np.ndarray:
        """The n-grams' bucket rows (the rows of input_vectors past the words')."""
        self._need_weights()
        return self.input_vectors[len(self.vocab):]

    def _need_weights(self) -> None:
        if self.vocab is None or self.input_vectors is None:
            raise RuntimeError("the model has no vocabulary yet: call fit or build_vocab")

    def subword_table(self) -> tuple[np.ndarray, np.ndarray]:
        """(offsets, rows): vocabulary word i's input rows are
        rows[offsets[i]:offsets[i + 1]], its own first (computed once)."""
        self._need_weights()
        if self._table is None:
            self._table = _subwords.subword_table(self.vocab.words, self.minn, self.maxn, self.ngram_buckets)
        return self._table

    def _new_weights(self, text) -> None:
        super()._new_weights(text)
        self._table = None
        self._row_order = None  # in fastText's layout: the setter put the rows back

    def _core_options(self) -> dict:
        if not self.ngram_buckets:
            return {}
        offsets, rows = self.subword_table()
        if self.train_in_row_order:
            if self._row_order is None:
                self._row_order = TrainingOrder(rows, len(self.vocab), len(self.input_vectors))
            rows = self._row_order.rows
        return {"subwords": (offsets, rows)}

    # ---- fastText's .bin ---------------------------------------------------
    def save_fasttext(self, path: str | os.PathLike) -> None:
        """Writes fastText's .bin (atomic): fastText and gensim's
        load_facebook_model read it and give the same vector to every word,
        seen or not. Keeps the weights and n-gram settings, not the
        learning-rate schedule (save() keeps the whole state). With
        hierarchical softmax the output rows are the tree's inner nodes,
        numbered as fastText numbers them (its tree is word2vec.c's), and
        negated: fastText's bit 1 asks sigmoid(h . node) for 1, word2vec.c's
        for 0 (_hs_flip)."""
        self._need_weights()
        fasttext_bin.write_fasttext_bin(
            path, words=self.vocab.words, counts=self.vocab.counts, input_matrix=self.input_vectors,
            output_matrix=_hs_flip(self.output_vectors) if self.loss == "hs" else self.output_vectors,
            arch=self.arch, window=self.window, epochs=self.epochs,
            min_count=self.min_count, negative=self.negative if self.loss == "ns" else 0, minn=self.minn,
            maxn=self.maxn, bucket=self.ngram_buckets, sample=self.sample, ntokens=self.vocab.total_tokens,
            loss=self.loss)

    @classmethod
    def load_fasttext(cls, path: str | os.PathLike, *, _vectors_only: bool = False, **overrides) -> "FastText":
        """A model from fastText's .bin (skip-gram or CBOW with negative
        sampling, hierarchical softmax or the softmax, not quantized), ready
        to give vectors and to train on;
        overrides change settings such as threads. Raises FormatError for a
        damaged, foreign or unsupported file. (_vectors_only: for a caller
        that keeps only the vectors, the output matrix is left unread.)"""
        data = fasttext_bin.read_fasttext_bin(path, output=not _vectors_only)
        args = data["args"]
        loss = data["loss"]
        if loss == "ova":
            raise FormatError(path, "trained with loss 'ova' (one-vs-all, for classifiers): word vectors are "
                                    "trained with ns, hs or softmax")
        config = {"arch": data["arch"], "loss": loss, "dim": args["dim"], "window": args["ws"],
                  "epochs": args["epoch"], "min_count": max(args["minCount"], 1),
                  "negative": max(args["neg"], 1) if loss == "ns" else 0, "minn": args["minn"],
                  "maxn": args["maxn"], "bucket": args["bucket"] if args["maxn"] else 0, "sample": args["t"],
                  **overrides}
        try:
            vocab = Vocabulary(data["words"], data["counts"], total_tokens=data["ntokens"])
            output = data["output_matrix"]
            if output is None:  # never read: zeros the system gives untouched, so no memory until trained
                output = np.zeros((len(vocab), args["dim"]), dtype=np.float32)
            elif loss == "hs":  # fastText's bits mean the opposite of word2vec.c's (save_fasttext)
                output = _hs_flip(output)
            return cls.from_weights(config, vocab, data["input_matrix"], output)
        except ValueError as exc:
            raise FormatError(path, f"not a model this library can use: {exc}") from None

    # ---- results --------------------------------------------------------
    def _vectors_changed(self) -> None:
        self._vectors = None  # the words' vectors are means of the rows: made again on next use

    @property
    def vectors(self) -> SubwordVectors:
        """The words' vectors (each the mean of its rows) and the n-gram
        rows, as SubwordVectors: a vector for any word. The words' means
        are a copy of the model as it stands (continued training makes new
        ones); the n-gram rows are the model's own, so read them outside
        train (or in its callbacks), when they are in fastText's layout."""
        self._need_weights()
        if self._vectors is None:
            V = len(self.vocab)
            norms = None
            if self.ngram_buckets:
                offsets, rows = self.subword_table()
                norms = np.empty(V, dtype=np.float32)
                means = _subwords.mean_rows(self.input_vectors, offsets, rows,
                                            np.empty((V, self.dim), dtype=np.float32), self.threads, norms)
            else:
                means = self.input_vectors
            self._vectors = SubwordVectors._made(self.vocab.words, np.asarray(means), self.ngram_vectors,
                                                 self.minn, self.maxn, self.vocab.counts, self.metadata(),
                                                 self.vocab.built_index)
            self._vectors._norms = norms  # made with the means (None: computed on first use)
        return self._vectors


def _hs_flip(output: np.ndarray) -> np.ndarray:
    """HS output rows between word2vec.c's convention and fastText's: the
    same tree and node numbers, but fastText's bit 1 trains sigmoid(h .
    node) towards 1 (src/loss.cc binaryLogistic) where word2vec.c's trains
    it towards 0, so each node's row is the other's negated."""
    return np.ascontiguousarray(-output, dtype=np.float32)


def _fill_rows(out: np.ndarray, seed: int, init_range: float, threads: int) -> None:
    """out's rows uniform in [-init_range/dim, init_range/dim), in place
    (on up to `threads` threads: first touch of 800 MB is most of the time)."""
    parts = max(1, min(threads, len(out) // 65536))
    cuts = [len(out) * i // parts for i in range(parts + 1)]
    with ThreadPoolExecutor(max_workers=parts) as pool:
        list(pool.map(lambda i: _word2vec.fill_uniform_rows(out[cuts[i]:cuts[i + 1]], seed, _BUCKET_STREAM,
                                                             cuts[i], init_range), range(parts)))

