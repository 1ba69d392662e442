"""word2vec training: skip-gram and CBOW with negative sampling,
hierarchical softmax or (for small vocabularies) the exact full softmax.

The epochs run in C threads (Hogwild, GIL released); this module validates
settings, owns the weight matrices, polls progress and runs callbacks."""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable

import numpy as np

from .. import _word2vec, pickling, scaleout
from ..corpus import Corpus, CorpusSource, EncodedCorpus
from ..epochs import EpochStats, TrainingStats
from ..memory import check_fits
from ..settings import bounded, threads_for
from ..training_text import TrainingText
from ..vectors import Vectors
from ..vocab import Vocabulary
from . import settings as word2vec_settings
from . import state as word2vec_state
from . import training as word2vec_training
from .settings import ARCHS, LOSSES

__all__ = ["ARCHS", "LOSSES", "EpochStats", "TrainingStats", "Word2Vec"]

class Word2Vec:
    """Trains word2vec vectors: skip-gram or CBOW, with negative sampling,
    hierarchical softmax or the exact softmax.

    The defaults are word2vec.c's (skip-gram, 5 negatives, window 5, sample
    1e-3, min_count 5, 5 epochs, dim 100, alpha 0.025 for skip-gram and 0.05
    for CBOW) but for the learning-rate schedule with negative sampling and
    the initial range of the input vectors, where measured quality chose
    otherwise (docs: the word2vec guide and performance.md). With one thread
    and a seed a run is bit-reproducible.

    Args:
        schedule: how the learning rate falls over all words of all epochs.
            "epochs": on a line from alpha to min_alpha (by default alpha /
            (2 x epochs)); "word2vec": word2vec.c's alpha x (1 - progress),
            floored at min_alpha (by default alpha x 1e-4, and alpha / (3 x
            epochs) for CBOW with hierarchical softmax). None: "epochs" for
            negative sampling, else "word2vec". A min_alpha given wins.
        init_range: the input vectors start uniform in [-init_range/dim,
            init_range/dim), the output vectors at zero; 1.0 is gensim's
            range (the default), 0.5 word2vec.c's.
        regions: an epoch takes the corpus in chunks of 16,384 ids from this
            many regions in turn, a coarse shuffle of text ordered by topic.
            None: max(threads, 16), and with hierarchical softmax one more in
            each later epoch so that no stretch of text meets the same
            neighbours in every epoch; `threads` regions is word2vec.c's and
            gensim's order.
        hot_rows: with several threads, each keeps a private copy of this
            many of the most contended output rows and merges its changes
            every 1,024 words, instead of bouncing those cache lines between
            cores (default 1,024 for NS, 256 for HS; 0: plain Hogwild).
        shared_negatives: skip-gram NS draws one set of negatives per centre
            word and trains the window against it as two small matrices
            (None: on where it applies, window <= 64 and negative <= 63;
            False: word2vec.c's per-pair kernel).
        ids_on_disk, tmp_dir: where the encoded corpus goes (None: on disk
            when it would take more than 512 MiB or an eighth of the memory
            available).

    input_lock (attribute, None by default): a factor per word on the
    updates of its input vector, 0 freezing it (pre-trained rows kept as
    they are), 1 training it as usual; gensim's vectors_lockf. Not saved.

    save(path) / Word2Vec.load(path) keep the whole training state: a model
    saved in the middle of train() finishes that call's schedule when train()
    is called again without `epochs`.

    Example::

        model = Word2Vec(dim=50).fit("corpus.txt")
        model.vectors.most_similar("king")
    """

    def __init__(self, *, arch: str = "skipgram", loss: str = "ns", dim: int = 100, window: int = 5,
                 negative: int = 5, min_count: int = 5, sample: float = 1e-3, epochs: int = 5,
                 alpha: float | None = None, min_alpha: float | None = None, schedule: str | None = None,
                 threads: int | None = None, seed: int = 1, max_vocab_size: int | None = None,
                 max_final_vocab: int | None = None, ns_exponent: float = 0.75,
                 cbow_mean: bool = True, shrink_windows: bool = True,
                 max_sentence_length: int = 1000, hot_rows: int | None = None, shared_negatives: bool | None = None,
                 tmp_dir: str | None = None, ids_on_disk: bool | None = None, init_range: float = 1.0,
                 regions: int | None = None):
        settings = {k: v for k, v in locals().items() if k != "self"}
        self.__dict__.update(word2vec_settings.resolve(**settings))
        self.vocab: Vocabulary | None = None
        self.input_vectors: np.ndarray | None = None
        self.output_vectors: np.ndarray | None = None
        self.epochs_trained = 0
        self.history: list[EpochStats] = []
        self._core = None
        self.input_lock: np.ndarray | None = None
        # the corpus given last: counted and encoded (TrainingText), or as given for a cluster
        self._input: TrainingText | CorpusSource | None = None
        self._vectors: Vectors | None = None
        self._schedule: dict[str, Any] | None = None  # the learning-rate schedule of the current train() call

    # ---- configuration --------------------------------------------------
    def config(self) -> dict:
        """The settings as a JSON-serialisable dict (stored with saved vectors)."""
        return {k: getattr(self, k) for k in word2vec_settings.NAMES}

    # ---- vocabulary -----------------------------------------------------
    def build_vocab(self, corpus: CorpusSource | None = None, *, vocab: Vocabulary | None = None,
                    client=None, progress: bool | None = None) -> "Word2Vec":
        """Counts the corpus (or takes a ready Vocabulary) and allocates the
        weights: input vectors uniform in [-init_range/dim, init_range/dim)
        from the seed, output vectors zero. With a
        dask.distributed client the workers count the file(s).

        A plain file counted on several threads (no max_vocab_size, ids in
        memory) is encoded in the same pass: train() and encode() of the
        unchanged file then use those ids (training_text.TrainingText)."""
        # a cluster's workers read the corpus as given; here it is resolved once
        text = self._text(corpus, fresh=True) if corpus is not None and client is None else corpus
        if vocab is None:
            if corpus is None:
                raise ValueError("build_vocab needs a corpus or a vocabulary")
            vocab = text.count(self.min_count, self.max_vocab_size, self.max_final_vocab, progress=progress) \
                if client is None else Vocabulary.build(corpus, self.min_count, self.max_vocab_size,
                                                        self.max_final_vocab, client=client, threads=self.threads)
        word2vec_settings.check_model_fits(self, vocab)
        self.vocab = vocab
        if isinstance(text, TrainingText):
            text.adopt(vocab)  # the count's tables are freed before the weights take their place
        V = len(vocab)
        self.input_vectors = self._initial_rows(V)
        # V rows for every loss (hierarchical softmax uses V - 1, as word2vec.c and gensim allocate)
        self.output_vectors = np.zeros((V, self.dim), dtype=np.float32)
        self.epochs_trained = 0
        self.history = []
        self._new_weights(text)
        return self

    def memory_needed(self, vocab: Vocabulary, threads: int | None = None,
                      output_format: str | None = None) -> dict[str, int]:
        """Bytes training on `vocab` takes beyond what the process holds
        already, by what takes them (word2vec_settings.memory_needed);
        "total" is their sum at the worst moment."""
        return word2vec_settings.memory_needed(self, vocab, threads or self.threads, output_format)

    def _initial_rows(self, rows: int, first_row: int = 0, stream: int = 0) -> np.ndarray:
        """Input rows uniform in [-init_range/dim, init_range/dim), drawn in
        C from the seed, the stream and each row's index."""
        return _word2vec.uniform_rows(rows, self.dim, self.seed, stream, first_row, self.threads, self.init_range)

    def _new_weights(self, text: TrainingText | CorpusSource | None) -> None:
        """Forgets what was built on the previous vocabulary and weights (core, encoded corpus,
        Vectors view, schedule); `text` is what train() uses when given none."""
        self._core = None
        self._input = text
        self._vectors = None
        self._schedule = None

    def _text(self, corpus: CorpusSource | Corpus, fresh: bool = False) -> TrainingText:
        """The corpus on its way to training: the one held when `corpus` is it (unless fresh), else a new one."""
        if not fresh and isinstance(self._input, TrainingText) and self._input.is_for(corpus):
            return self._input
        return TrainingText(corpus, threads=self.threads, ids_on_disk=self.ids_on_disk, tmp_dir=self.tmp_dir)

    def add_vocab(self, corpus: CorpusSource | None = None, *, vocab: Vocabulary | None = None,
                  progress: bool | None = None, min_count: int | None = None) -> "Word2Vec":
        """Adds the words of another corpus (or of a Vocabulary of new
        counts) to a model that has one already, keeping what it learned:
        the counts of known words grow by their new counts, words new to the
        model (seen at least min_count times) join it with input rows
        initialised as build_vocab does and zero output rows. The vocabulary
        is re-sorted by count and the rows of both matrices follow their
        words (with hierarchical softmax the tree is rebuilt from the new
        counts: its inner-node rows are kept by index, new ones start at
        zero). The next train() starts a new learning-rate schedule on the
        corpus given here (or the one passed to it). `min_count`: the
        threshold for new words (default: the model's)."""
        if self.vocab is None or self.input_vectors is None or self.output_vectors is None:
            raise RuntimeError("add_vocab grows a model's vocabulary: call build_vocab first")
        if vocab is None:
            if corpus is None:
                raise ValueError("add_vocab needs a corpus or a vocabulary")
            vocab = Vocabulary.build(corpus, 1, self.max_vocab_size, threads=self.threads, progress=progress)
        old = self.vocab
        merged, order = old.merged(vocab, self.min_count if min_count is None else min_count)
        word2vec_settings.check_vocabulary(self, len(merged))
        V_old, V = len(old), len(merged)
        added = self._initial_rows(V - V_old, first_row=V_old, stream=1)  # not build_vocab's stream
        inp = np.concatenate([self.input_vectors, added])[order]
        out = Vocabulary.merged_output_rows(self.output_vectors, order, self.loss == "hs")
        self.vocab = merged
        self.input_vectors = np.ascontiguousarray(inp)
        self.output_vectors = np.ascontiguousarray(out)
        self._new_weights(corpus)
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
            hot_rows=self.hot_rows, shared_negatives=self.shared_negatives, **self._core_options())

    def _core_options(self) -> dict:
        return {}  # a subclass's further arguments of the core (FastText's subword table)

    def start_from(self, vectors) -> int:
        """The input rows of the words `vectors` (a Vectors of the same dim)
        also holds take its values before training, as fastText's
        -pretrainedVectors and gensim's intersect do; the others keep their
        random start. Returns how many rows were set."""
        if self.vocab is None or self.input_vectors is None:
            raise RuntimeError("build the vocabulary first: the rows to set are the vocabulary's")
        if vectors.dim != self.dim:
            raise ValueError(f"the vectors have {vectors.dim} dimensions, the model {self.dim}")
        index = vectors.key_to_index
        pairs = [(row, index[w]) for row, w in enumerate(self.vocab.words) if w in index]
        if pairs:
            ours, theirs = (np.array(side, dtype=np.int64) for side in zip(*pairs))
            self.input_vectors[ours] = vectors.vectors[theirs]
        return len(pairs)

    def encode(self, corpus: CorpusSource, cache_path: str | None = None, *,
               progress: bool | None = None) -> EncodedCorpus:
        """Encodes a corpus with this model's vocabulary (out-of-vocabulary
        words dropped), its ids where ids_on_disk says (the class docstring),
        or written to cache_path and memory-mapped from it."""
        if self.vocab is None:
            raise RuntimeError("build the vocabulary first (build_vocab or fit)")
        return self._text(corpus).encoded(self.vocab, cache_path=cache_path, progress=progress)

    # ---- training -------------------------------------------------------
    def train(self, corpus: CorpusSource | EncodedCorpus | None = None, *, epochs: int | None = None,
              callbacks: Iterable[Callable[["Word2Vec", EpochStats], object]] = (),
              progress: bool | None = None, client=None, sync_words: int = 250_000,
              lr_scale: float | None = None, checkpoint: str | os.PathLike | None = None,
              checkpoint_every: float = 30.0) -> TrainingStats:
        """Trains `epochs` epochs (default: the model's) on the corpus, or on
        the one given to build_vocab/fit; called again it continues with the
        same vocabulary, each call with its own learning-rate schedule (a
        loaded model saved in the middle of a call finishes that one when
        given no `epochs`). Ctrl-C stops the threads at their next chunk of
        16,384 ids, leaves the weights usable and re-raises; the stats so far
        are in model.last_stats.

        Args:
            callbacks: each called after every epoch as cb(model, epoch_stats).
            checkpoint: where save() writes the whole state every
                checkpoint_every minutes (between two chunks) and on Ctrl-C;
                Word2Vec.load(path).train(corpus) continues from there.
            client: a dask.distributed Client: its workers train on shards of
                the file(s) and their models are averaged every sync_words
                words, each worker's learning rate times lr_scale (default:
                the number of workers, at most 4); threads is then per worker."""
        if client is not None:
            return self._train_on_cluster(corpus, client, epochs, sync_words, lr_scale, callbacks, progress)
        if self.vocab is None:
            if corpus is None:
                raise ValueError("train needs a corpus (or call build_vocab first)")
            if isinstance(corpus, EncodedCorpus):
                raise ValueError("an encoded corpus needs a vocabulary: call build_vocab first")
            self.build_vocab(corpus)
        if epochs is not None:
            epochs = bounded("epochs", epochs)
        encoded = self._resolve_corpus(corpus, progress)
        if encoded.words == 0:
            raise ValueError("the corpus has no words in the vocabulary")
        schedule = word2vec_state.plan_schedule(self._schedule, epochs, encoded, self)
        if self._core is None:
            self._core = self._make_core()
        core = self._core
        core.set_input_lock(word2vec_settings.input_lock(self.input_lock, len(self.vocab)))
        words_done = schedule["words_done"] if schedule["claim"] else schedule["epochs_done"] * encoded.words
        schedule_args = (schedule["epochs"] * encoded.words, schedule["alpha"], schedule["min_alpha"], words_done,
                         schedule["linear_decay"])
        if encoded.file is not None:  # ids on disk: the threads read them chunk by chunk
            core.set_corpus_file(encoded.file, len(encoded.ids), *schedule_args)
        else:
            core.set_corpus(encoded.ids, *schedule_args)
        self._schedule = schedule
        threads = threads_for(self.threads, encoded.words)
        # checked again: threads may differ from build_vocab's (a loaded model's overrides)
        check_fits(f"the buffers of {threads} training thread(s) at dim {self.dim}",
                   word2vec_settings.thread_bytes(self, len(self.vocab), threads), "lower threads or dim")
        return word2vec_training.train_epochs(self, core, encoded, schedule, threads, callbacks, progress,
                                            checkpoint, checkpoint_every)

    def _layout_for_training(self, training: bool) -> None:
        """Puts the input rows in the order the core trains them (True: the
        threads are about to start) or back in the model's own (False:
        something else may read them). One order here; FastText moves its
        n-gram rows (fasttext/row_order.py)."""

    @property
    def schedule_state(self) -> dict | None:
        """A copy of where the schedule of the last train() call (or the one a
        loaded model was saved in) stands (epochs, epochs_done, ...); None before any."""
        return None if self._schedule is None else dict(self._schedule)

    @property
    def unfinished_epochs(self) -> int:
        """Epochs left of the train() call this model was saved in (train() without `epochs` runs them)."""
        s = self._schedule
        return 0 if s is None else s["epochs"] - s["epochs_done"]

    def record_epoch(self, stats: TrainingStats, epoch_stats: EpochStats,
                     callbacks: Iterable[Callable[["Word2Vec", EpochStats], object]] = (),
                     report: Callable[[str], None] | None = None, detail: str = "") -> None:
        """Books a finished epoch (trained here or on a cluster) in the
        model's history and in `stats`, reports it through `report` and runs
        the callbacks."""
        es = epoch_stats
        self.epochs_trained += 1
        stats.epochs += 1
        stats.epoch_stats.append(es)
        self.history.append(es)
        if report is not None:
            report(f"epoch {es.epoch + 1}: loss {es.loss:.6f}, {es.words / max(es.seconds, 1e-9):,.0f} words/s{detail}")
        if callbacks:  # they see the rows and vectors as this epoch left them
            self._layout_for_training(False)
            self._vectors_changed()
        for cb in callbacks:
            cb(self, es)

    def _train_on_cluster(self, corpus, client, epochs, sync_words, lr_scale, callbacks, progress) -> TrainingStats:
        corpus = corpus if corpus is not None else getattr(self._input, "source", self._input)
        if corpus is None:
            raise ValueError("train needs a corpus")
        if self.vocab is None:
            self.build_vocab(corpus, client=client)
        epochs = self.epochs if epochs is None else epochs
        epochs = bounded("epochs", epochs)
        return scaleout.train_word2vec(self, client, corpus, epochs, sync_words, progress, callbacks, lr_scale)

    def fit(self, corpus: CorpusSource, *, client=None, **train_kwargs) -> "Word2Vec":
        """build_vocab(corpus) then train(corpus); returns self (with a dask client, on its workers)."""
        self.build_vocab(corpus, client=client)
        self.train(corpus, client=client, **train_kwargs)
        return self

    def _resolve_corpus(self, corpus, progress: bool | None = None) -> EncodedCorpus:
        if isinstance(corpus, EncodedCorpus):
            return corpus
        if corpus is None:
            if self._input is None:
                raise ValueError("train needs a corpus")
            corpus = self._input
        self._input = self._text(corpus)
        return self._input.encoded(self.vocab, progress=progress)

    # ---- weights (what the cluster layer and other callers read and set) --
    @classmethod
    def from_weights(cls, config: dict, vocab: Vocabulary, input_vectors: np.ndarray, output_vectors: np.ndarray,
                     epochs_trained: int = 0) -> "Word2Vec":
        """A model with these settings (a config() dict), vocabulary and
        weights, ready to train, without initialising new weights. The arrays
        are used as they are (float32, C-contiguous): training updates them."""
        model = cls(**config)
        word2vec_settings.check_weights(model, len(vocab), input_vectors, output_vectors)
        model.vocab = vocab
        model.input_vectors, model.output_vectors = input_vectors, output_vectors
        model.epochs_trained = int(epochs_trained)
        return model

    def set_weights(self, input_vectors: np.ndarray, output_vectors: np.ndarray) -> None:
        """Copies new weights into the model's matrices (same shapes); the
        Vectors view and a core built on them see the change."""
        if self.input_vectors is None or self.output_vectors is None:
            raise RuntimeError("the model has no weights yet: call build_vocab first")
        for name, new, old in (("input_vectors", input_vectors, self.input_vectors),
                               ("output_vectors", output_vectors, self.output_vectors)):
            if np.shape(new) != old.shape:
                raise ValueError(f"{name} has shape {np.shape(new)}, the model's is {old.shape}")
        self.input_vectors[...] = input_vectors
        self.output_vectors[...] = output_vectors
        self._vectors_changed()

    # ---- saving the whole state -------------------------------------------
    def save(self, path: str | os.PathLike, extra: dict | None = None) -> None:
        """Writes the whole training state to one file in the native format
        (no pickle, atomic): both matrices, the vocabulary and its counts,
        the settings, the history and where the learning-rate schedule
        stands. Word2Vec.load continues from it exactly; load_vectors reads
        the same file as the model's input vectors. `extra`: a
        JSON-serialisable dict stored with it, given back by load as the
        model's `saved_extra` (a layer's own settings)."""
        if self.vocab is None or self.input_vectors is None or self.output_vectors is None:
            raise RuntimeError("nothing to save: the model has no vocabulary yet")
        word2vec_state.save_model(self, path, extra)

    @staticmethod
    def saved_config(path: str | os.PathLike) -> dict:
        """The settings of a model saved by save(), reading only the file's
        header (to check a resume's flags before loading the weights)."""
        return word2vec_state.saved_config(path)

    @classmethod
    def load(cls, path: str | os.PathLike, **overrides) -> "Word2Vec":
        """A model saved by save(), ready to train on (overrides change
        settings such as threads). Raises FormatError for a file that is not a
        saved Word2Vec or is damaged."""
        return word2vec_state.load_model(cls, path, **overrides)

    def __reduce__(self):
        """pickle and copy.deepcopy through the native file (pickling.py)."""
        return pickling.reduce(self, self.save, type(self).load, self.config() if self.vocab is None else None)

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
            self._vectors = Vectors._indexed(self.vocab.words, self.input_vectors,
                                             self.vocab.counts, self.metadata(), self.vocab.built_index)
        return self._vectors

    def metadata(self) -> dict:
        """Settings and training history stored with saved vectors."""
        return {"trainer": "word2vec", "config": self.config(), "epochs_trained": self.epochs_trained,
                "epoch_loss": [e.loss for e in self.history]}
