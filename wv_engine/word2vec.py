"""word2vec training: skip-gram and CBOW with negative sampling,
hierarchical softmax or (for small vocabularies) the exact full softmax.

The epochs run in C threads (Hogwild, GIL released); this module validates
settings, owns the weight matrices, polls progress and runs callbacks."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np

from . import _word2vec
from .corpus import CorpusSource, EncodedCorpus, encode
from .epochs import run_epoch
from .memory import check_fits
from .progress import Progress
from .settings import check as _check
from .settings import default_threads
from .vectors import Vectors
from .vocab import Vocabulary

ARCHS = ("skipgram", "cbow")
LOSSES = ("ns", "hs", "softmax")
SOFTMAX_MAX_VOCAB = 20000  # the exact softmax is O(V) per prediction


@dataclass
class EpochStats:
    """What one epoch did: its mean loss per prediction (float64), the words
    it covered and the seconds it took."""

    epoch: int
    loss: float
    examples: int
    words: int
    seconds: float
    alpha: float


@dataclass
class TrainingStats:
    """Totals of one train() call. corpus_words are the corpus tokens in the
    vocabulary (word2vec.c's train_words); words_per_sec counts each of them
    in every epoch, subsampled ones included, as word2vec.c counts."""

    epochs: int = 0
    corpus_words: int = 0
    train_seconds: float = 0.0
    interrupted: bool = False
    epoch_stats: list[EpochStats] = field(default_factory=list)
    syncs: int = 0  # on a cluster: weight averages done (each moves the model to and from every worker)

    @property
    def epoch_loss(self) -> list[float]:
        """Mean loss per prediction of each epoch (float64)."""
        return [e.loss for e in self.epoch_stats]

    @property
    def words_per_sec(self) -> float:
        """Corpus words per second of training, all epochs."""
        return self.corpus_words * self.epochs / self.train_seconds if self.train_seconds else 0.0


class Word2Vec:
    """Trains word2vec vectors.

    Defaults are word2vec.c's: skip-gram, negative sampling with 5 negatives,
    window 5, sample 1e-3, min_count 5, 5 epochs, dim 100, alpha 0.025 for
    skip-gram and 0.05 for CBOW decaying linearly to alpha * 1e-4, CBOW
    averaging its context. `seed` makes single-thread runs bit-reproducible.

    hot_rows: with several threads, each keeps a private copy of this many
    of the most contended output rows (the most frequent words' NS rows, the
    top of the HS tree) and merges its changes every 1,024 words (in HS also
    after every 256 updates of the root), instead of bouncing those cache
    lines between cores on every update. Default 1,024 for NS and 256 for HS (the
    top of the tree is updated by every pair, so its merges come often and
    each costs its rows). 0 turns it off (plain Hogwild); one thread never
    uses it.

    shared_negatives (skip-gram NS): draw one set of negatives per centre
    word and train the whole window against it as two small matrices
    (Intel's pWord2Vec): about twice as fast, and measured to match the
    reference kernel's quality (benchmarks/RESULTS.md). None (default) uses
    it for skip-gram NS with window <= 64 and negative <= 63; False keeps
    word2vec.c's exact per-pair kernel (fresh negatives for every pair).

    >>> model = Word2Vec(dim=50).fit("corpus.txt")
    >>> model.vectors.most_similar("king")
    """

    def __init__(self, *, arch: str = "skipgram", loss: str = "ns", dim: int = 100, window: int = 5,
                 negative: int = 5, min_count: int = 5, sample: float = 1e-3, epochs: int = 5,
                 alpha: float | None = None, min_alpha: float | None = None,
                 threads: int | None = None, seed: int = 1, max_vocab_size: int | None = None,
                 max_final_vocab: int | None = None, ns_exponent: float = 0.75,
                 cbow_mean: bool = True, shrink_windows: bool = True,
                 max_sentence_length: int = 1000, hot_rows: int | None = None, shared_negatives: bool | None = None):
        _check("arch", arch, arch in ARCHS, f"one of {ARCHS}")
        _check("loss", loss, loss in LOSSES, f"one of {LOSSES}")
        for name, v in [("dim", dim), ("window", window), ("epochs", epochs), ("min_count", min_count),
                        ("max_sentence_length", max_sentence_length)]:
            _check(name, v, isinstance(v, (int, np.integer)) and v >= 1, "an integer >= 1")
        _check("negative", negative, isinstance(negative, (int, np.integer)) and
               (negative >= 1 if loss == "ns" else negative >= 0),
               "an integer >= 1 with loss='ns'" if loss == "ns" else "an integer >= 0")
        _check("sample", sample, 0 <= sample < 1, "in [0, 1)")
        if alpha is None:
            alpha = 0.05 if arch == "cbow" else 0.025
        _check("alpha", alpha, 0 < alpha < 10, "in (0, 10)")
        if min_alpha is None:
            min_alpha = alpha * 1e-4
        _check("min_alpha", min_alpha, 0 <= min_alpha <= alpha, f"in [0, alpha={alpha}]")
        if threads is None:
            threads = default_threads()
        _check("threads", threads, isinstance(threads, (int, np.integer)) and threads >= 1,
               "an integer >= 1")
        _check("seed", seed, isinstance(seed, (int, np.integer)) and 0 <= seed < 2**64,
               "an integer in [0, 2**64)")
        _check("ns_exponent", ns_exponent, np.isfinite(ns_exponent), "finite")
        self.arch, self.loss, self.dim, self.window = arch, loss, int(dim), int(window)
        self.negative = int(negative)
        self.min_count, self.sample, self.epochs = int(min_count), float(sample), int(epochs)
        self.alpha, self.min_alpha = float(alpha), float(min_alpha)
        self.threads, self.seed = int(threads), int(seed)
        self.max_vocab_size, self.max_final_vocab = max_vocab_size, max_final_vocab
        self.ns_exponent, self.cbow_mean = float(ns_exponent), bool(cbow_mean)
        self.shrink_windows, self.max_sentence_length = bool(shrink_windows), int(max_sentence_length)
        if hot_rows is None:  # the default: fewer for HS, whose hot rows take many more updates each
            hot_rows = 256 if loss == "hs" else 1024
        _check("hot_rows", hot_rows, isinstance(hot_rows, (int, np.integer)) and hot_rows >= 0, "an integer >= 0")
        self.hot_rows = int(hot_rows)
        fits = window <= 64 and negative <= 63
        if shared_negatives is None:  # the default: on where it applies
            shared_negatives = arch == "skipgram" and loss == "ns" and fits
        elif shared_negatives and not fits:
            raise ValueError("shared_negatives supports window <= 64 and negative <= 63")
        self.shared_negatives = bool(shared_negatives) and arch == "skipgram" and loss == "ns"

        self.vocab: Vocabulary | None = None
        self.input_vectors: np.ndarray | None = None
        self.output_vectors: np.ndarray | None = None
        self.epochs_trained = 0
        self.history: list[EpochStats] = []
        self._core = None
        self._encoded: EncodedCorpus | None = None
        self._encoded_source = None
        self._vectors: Vectors | None = None
        self._pending_source: CorpusSource | None = None

    # ---- configuration --------------------------------------------------
    def config(self) -> dict:
        """The settings as a JSON-serialisable dict (stored with saved vectors)."""
        return {k: getattr(self, k) for k in (
            "arch", "loss", "dim", "window", "negative", "min_count", "sample", "epochs", "alpha",
            "min_alpha", "threads", "seed", "max_vocab_size", "max_final_vocab", "ns_exponent",
            "cbow_mean", "shrink_windows", "max_sentence_length", "hot_rows", "shared_negatives")}

    # ---- vocabulary -----------------------------------------------------
    def build_vocab(self, corpus: CorpusSource | None = None, *, vocab: Vocabulary | None = None,
                    client=None) -> "Word2Vec":
        """Counts the corpus (or takes a ready Vocabulary) and allocates the
        weights: input vectors uniform in [-0.5/dim, 0.5/dim) from the seed,
        output vectors zero (word2vec.c's initialisation). With a
        dask.distributed client the workers count the file(s)."""
        if vocab is None:
            if corpus is None:
                raise ValueError("build_vocab needs a corpus or a vocabulary")
            vocab = Vocabulary.build(corpus, self.min_count, self.max_vocab_size, self.max_final_vocab,
                                     client=client, threads=self.threads)
        if self.loss == "softmax" and len(vocab) > SOFTMAX_MAX_VOCAB:
            raise ValueError(
                f"loss='softmax' is the exact O(vocabulary) reference, meant for small vocabularies; "
                f"this one has {len(vocab):,} words (limit {SOFTMAX_MAX_VOCAB:,}): use 'ns' or 'hs', "
                "or raise min_count")
        check_fits(f"a {len(vocab):,}-word, {self.dim}-dimensional model",
                   vocab.memory_estimate(self.dim, self.loss)["total"],
                   "raise min_count, set max_final_vocab, or lower dim")
        self.vocab = vocab
        V = len(vocab)
        rng = np.random.default_rng(self.seed)
        inp = rng.random((V, self.dim), dtype=np.float32)
        inp -= 0.5
        inp /= self.dim
        out_rows = max(V - 1, 1) if self.loss == "hs" else V
        self.input_vectors = inp
        self.output_vectors = np.zeros((out_rows, self.dim), dtype=np.float32)
        self.epochs_trained = 0
        self.history = []
        self._core = None
        self._encoded = None
        self._encoded_source = None
        self._vectors = None
        self._pending_source = corpus
        return self

    def _make_core(self):
        vocab = self.vocab
        assert vocab is not None
        noise = vocab.noise_sampler(self.ns_exponent) if self.loss == "ns" else None
        huffman = vocab.huffman() if self.loss == "hs" else None
        return _word2vec.Word2VecCore(
            arch=self.arch, loss=self.loss, dim=self.dim, window=self.window,
            negative=self.negative, max_sentence_length=self.max_sentence_length,
            cbow_mean=self.cbow_mean, shrink_windows=self.shrink_windows, seed=self.seed,
            input_vectors=self.input_vectors, output_vectors=self.output_vectors,
            keep_prob=vocab.keep_probabilities(self.sample), noise=noise, huffman=huffman,
            hot_rows=self.hot_rows, shared_negatives=self.shared_negatives)

    def encode(self, corpus: CorpusSource, cache_path: str | None = None) -> EncodedCorpus:
        """Encodes a corpus with this model's vocabulary (out-of-vocabulary
        words dropped). With cache_path the ids are memory-mapped from disk."""
        if self.vocab is None:
            raise RuntimeError("build the vocabulary first (build_vocab or fit)")
        return encode(corpus, self.vocab.words_as_bytes(), cache_path, threads=self.threads)

    # ---- training -------------------------------------------------------
    def train(self, corpus: CorpusSource | EncodedCorpus | None = None, *, epochs: int | None = None,
              callbacks: Iterable[Callable[["Word2Vec", EpochStats], object]] = (),
              progress: bool | None = None, client=None, sync_words: int = 250_000,
              lr_scale: float | None = None) -> TrainingStats:
        """Trains `epochs` epochs (default: the model's) on the corpus, or on
        the one given to build_vocab/fit. Calling it again continues training
        with the existing vocabulary (same or another corpus); each call runs
        its own linear learning-rate decay from alpha to min_alpha.

        callbacks are called after each epoch as cb(model, epoch_stats).
        Ctrl-C stops the threads at a sentence boundary, leaves the weights
        consistent and usable, and re-raises KeyboardInterrupt; the stats so
        far are in model.last_stats.

        With a dask.distributed `client` the workers train on shards of the
        file(s) (a path or a list of paths they can read) and their models
        are averaged every sync_words words per worker, each worker's
        learning rate multiplied by lr_scale (default: the number of
        workers, at most 4; wv_engine.cluster.word2vec); threads is then the
        threads per worker."""
        if client is not None:
            return self._train_on_cluster(corpus, client, epochs, sync_words, lr_scale, callbacks, progress)
        if self.vocab is None:
            if corpus is None:
                raise ValueError("train needs a corpus (or call build_vocab first)")
            if isinstance(corpus, EncodedCorpus):
                raise ValueError("an encoded corpus needs a vocabulary: call build_vocab first")
            self.build_vocab(corpus)
        epochs = self.epochs if epochs is None else epochs
        _check("epochs", epochs, isinstance(epochs, (int, np.integer)) and epochs >= 1, "an integer >= 1")
        encoded = self._resolve_corpus(corpus)
        if encoded.words == 0:
            raise ValueError("the corpus has no words in the vocabulary")
        if self._core is None:
            self._core = self._make_core()
        core = self._core
        core.set_corpus(encoded.ids, epochs * encoded.words, self.alpha, self.min_alpha)
        threads = max(1, min(self.threads, encoded.words // 1000 or 1))
        stats = TrainingStats(corpus_words=encoded.words)
        self.last_stats = stats
        bar = Progress(epochs * encoded.words, f"{self.arch}-{self.loss}", progress)
        start = time.perf_counter()
        try:
            for e in range(epochs):
                t0 = time.perf_counter()
                done0 = core.words_done
                try:
                    loss_sum, examples = run_epoch(
                        core, lambda: core.start_epoch(self.epochs_trained, threads),
                        lambda done: bar.update(done, epoch=f"{e + 1}/{epochs}", alpha=f"{core.alpha:.5f}"))
                except BaseException:
                    stats.interrupted = True
                    raise
                finally:
                    stats.train_seconds = time.perf_counter() - start
                es = EpochStats(epoch=self.epochs_trained, loss=loss_sum / max(examples, 1),
                                examples=examples, words=core.words_done - done0,
                                seconds=time.perf_counter() - t0, alpha=core.alpha)
                self._record_epoch(stats, es, bar, callbacks)
        finally:
            bar.close()
            self._vectors_changed()
        return stats

    def _record_epoch(self, stats: TrainingStats, es: EpochStats, bar: Progress,
                      callbacks: Iterable[Callable[["Word2Vec", EpochStats], object]], detail: str = "") -> None:
        """Books a finished epoch (here or on a cluster), reports it, runs the callbacks."""
        self.epochs_trained += 1
        stats.epochs += 1
        stats.epoch_stats.append(es)
        self.history.append(es)
        bar.write(f"epoch {es.epoch + 1}: loss {es.loss:.6f}, {es.words / es.seconds:,.0f} words/s{detail}")
        for cb in callbacks:
            cb(self, es)

    def _train_on_cluster(self, corpus, client, epochs, sync_words, lr_scale, callbacks, progress) -> TrainingStats:
        from .cluster.word2vec import train_word2vec

        if corpus is None:
            corpus = self._pending_source
        if self.vocab is None:
            self.build_vocab(corpus, client=client)
        epochs = self.epochs if epochs is None else epochs
        _check("epochs", epochs, isinstance(epochs, (int, np.integer)) and epochs >= 1, "an integer >= 1")
        return train_word2vec(self, client, corpus, epochs, sync_words, progress, callbacks, lr_scale)

    def fit(self, corpus: CorpusSource, *, client=None, **train_kwargs) -> "Word2Vec":
        """build_vocab(corpus) then train(corpus); returns self. With a
        dask.distributed client, both run on its workers."""
        self.build_vocab(corpus, client=client)
        self.train(corpus, client=client, **train_kwargs)
        return self

    def _resolve_corpus(self, corpus) -> EncodedCorpus:
        if isinstance(corpus, EncodedCorpus):
            return corpus
        if corpus is None:
            if self._encoded is not None:
                return self._encoded
            corpus = self._pending_source
            if corpus is None:
                raise ValueError("train needs a corpus")
        if self._encoded is not None and corpus is self._encoded_source:
            return self._encoded
        self._encoded = self.encode(corpus)
        self._encoded_source = corpus
        return self._encoded

    # ---- results --------------------------------------------------------
    def _vectors_changed(self) -> None:
        if self._vectors is not None:
            self._vectors.vectors_changed()
            self._vectors.metadata = self.metadata()

    @property
    def vectors(self) -> Vectors:
        """The trained input vectors as a Vectors object (shares memory with
        the model: continued training updates it)."""
        if self.vocab is None or self.input_vectors is None:
            raise RuntimeError("the model has no vocabulary yet: call fit or build_vocab")
        if self._vectors is None:
            self._vectors = Vectors(self.vocab.words, self.input_vectors, self.vocab.counts)
            self._vectors.metadata = self.metadata()
        return self._vectors

    def metadata(self) -> dict:
        """Settings and training history stored with saved vectors."""
        return {"trainer": "word2vec", "config": self.config(), "epochs_trained": self.epochs_trained,
                "epoch_loss": [e.loss for e in self.history]}
