"""word2vec training: skip-gram and CBOW with negative sampling,
hierarchical softmax or (for small vocabularies) the exact full softmax.

The epochs run in C threads (Hogwild, GIL released); this module validates
settings, owns the weight matrices, polls progress and runs callbacks."""

from __future__ import annotations

import math
import os
from typing import Any, Callable, Iterable

import numpy as np

from . import _word2vec, formats, scaleout
from .corpus import (CorpusSource, EncodedCorpus, encode, ids_belong_on_disk, ids_memory_room, is_path,
                     likely_ids_bytes, parallel_file)
from .files import fingerprint
from .epochs import Checkpoints, EpochStats, TrainingStats, run_epochs
from .errors import FormatError
from .memory import check_fits, gib
from .progress import Progress
from .settings import check as _check
from .settings import C_INT_MAX, INT64_MAX, resolve_threads, threads_for
from .vectors import Vectors
from .vocab import Vocabulary
from .wordcount import CountedIds, count_with_ids

__all__ = ["ARCHS", "LOSSES", "EpochStats", "TrainingStats", "Word2Vec"]

ARCHS = ("skipgram", "cbow")
LOSSES = ("ns", "hs", "softmax")
SOFTMAX_MAX_VOCAB = 20000  # the exact softmax is O(V) per prediction


MODEL_FORMAT = "wv_engine.word2vec"  # the metadata's "trainer" of a saved Word2Vec
MODEL_VERSION = 1
SCHEDULES = ("epochs", "word2vec")  # how the learning rate falls (class docstring)


def default_min_alpha(arch: str, loss: str, schedule: str, asked: bool, alpha: float, epochs: int) -> float:
    """Where the learning rate ends when no min_alpha is given: on gensim's
    line, alpha / (2 x epochs); on word2vec.c's, its floor alpha x 1e-4, but
    alpha / (3 x epochs) when CBOW with hierarchical softmax takes that
    schedule by default, not `asked` for it (docs/performance.md, "Where
    HS's rate ends": skip-gram HS lost analogy with it)."""
    if schedule == "epochs":
        return alpha / (2 * epochs)
    if not asked and loss == "hs" and arch == "cbow":
        return alpha / (3 * epochs)
    return alpha * 1e-4


# Where an epoch stands at its start: the claims of chunks done (and the
# regions they were taken from), the words done in the schedule when it
# paused, and the loss and examples of its part already trained.
_EPOCH_START = {"claim": 0, "regions": 0, "words_done": 0, "loss_sum": 0.0, "examples": 0}

# The numbers of a saved state and their ranges (name: (low, high)), checked
# on load before anything uses them: __init__ checks the settings' lower
# bounds, not that the C ints the cores take hold them, nor what it never
# sees (the history, the schedule, the vocabulary's totals).
_CONFIG_INTS = {"dim": (1, C_INT_MAX), "window": (1, C_INT_MAX), "negative": (0, C_INT_MAX),
                "min_count": (1, INT64_MAX), "epochs": (1, C_INT_MAX), "threads": (1, C_INT_MAX),
                "seed": (0, 2**64 - 1), "max_sentence_length": (1, C_INT_MAX), "hot_rows": (0, C_INT_MAX),
                "max_vocab_size": (1, INT64_MAX), "max_final_vocab": (1, INT64_MAX), "regions": (1, INT64_MAX)}
_CONFIG_FLOATS = {"sample": (0, 1), "alpha": (0, 10), "min_alpha": (0, 10), "ns_exponent": (-math.inf, math.inf),
                  "init_range": (0, math.inf)}
_CONFIG_NULLABLE = ("max_vocab_size", "max_final_vocab", "regions")
_STATE_INTS = {"epochs_trained": (0, C_INT_MAX), "total_tokens": (0, INT64_MAX), "distinct_words": (0, INT64_MAX)}
_HISTORY_INTS = {"epoch": (0, C_INT_MAX), "examples": (0, INT64_MAX), "words": (0, INT64_MAX)}
_HISTORY_FLOATS = {"loss": (0, math.inf), "seconds": (0, math.inf), "alpha": (0, math.inf)}
_SCHEDULE_INTS = {"epochs": (1, C_INT_MAX), "epochs_done": (0, C_INT_MAX), "corpus_words": (0, INT64_MAX),
                  "claim": (0, INT64_MAX), "regions": (0, INT64_MAX), "words_done": (0, INT64_MAX),
                  "examples": (0, INT64_MAX)}
_SCHEDULE_FLOATS = {"alpha": (0, 10), "min_alpha": (0, 10), "loss_sum": (0, math.inf)}


def _checked_config(path: str | os.PathLike, config: dict) -> dict:
    """A saved model's settings with their numbers checked (FormatError naming the field)."""
    return formats.checked_fields(path, "config", config, _CONFIG_INTS, _CONFIG_FLOATS, _CONFIG_NULLABLE)


def _check_state_numbers(path: str | os.PathLike, state: dict) -> None:
    """The numbers of a saved model's state beyond its settings, checked
    (FormatError naming the field); absent ones are load's KeyError."""
    formats.checked_fields(path, "state", state, _STATE_INTS)
    history = state.get("history")
    for i, epoch in enumerate(history if isinstance(history, list) else []):
        if not isinstance(epoch, dict):
            raise FormatError(path, f"damaged Word2Vec state: history[{i}] is not a JSON object")
        formats.checked_fields(path, f"history[{i}]", epoch, _HISTORY_INTS, _HISTORY_FLOATS)
    schedule = state.get("schedule")
    if schedule is not None:
        if not isinstance(schedule, dict):
            raise FormatError(path, "damaged Word2Vec state: its schedule is not a JSON object")
        formats.checked_fields(path, "schedule", schedule, _SCHEDULE_INTS, _SCHEDULE_FLOATS)
        corpus = schedule.get("corpus")
        if isinstance(corpus, dict):
            formats.checked_fields(path, "schedule corpus", corpus, {"size": (0, INT64_MAX)})


class Word2Vec:
    """Trains word2vec vectors.

    Defaults are word2vec.c's: skip-gram, negative sampling with 5 negatives,
    window 5, sample 1e-3, min_count 5, 5 epochs, dim 100, alpha 0.025 for
    skip-gram and 0.05 for CBOW, CBOW averaging its context; but for how the
    learning rate falls with negative sampling (schedule) and how widely the
    input vectors start (init_range). `seed` makes single-thread runs
    bit-reproducible.

    schedule: how the learning rate falls over all the words of all epochs.
    "epochs": on a line from alpha to min_alpha, by default alpha / (2 x
    epochs), so that one epoch ends at alpha / 2 (where gensim's corpus_file
    run on 2 workers ends) and more epochs end lower. "word2vec":
    word2vec.c's alpha x (1 - progress), floored at min_alpha, by default
    alpha x 1e-4. None (the default): "epochs" for negative sampling,
    "word2vec" for hierarchical softmax and the exact softmax, the better
    of the two for each on wiki_17m over three test sets
    (docs/performance.md, "The learning-rate schedule"); CBOW with
    hierarchical softmax then floors it at alpha / (3 x epochs), which gave
    one epoch 0.018 more SimLex-999 at no cost (default_min_alpha).
    A min_alpha given wins over every default.

    init_range: the input vectors start uniform in [-init_range/dim,
    init_range/dim), the output vectors at zero. 1.0 (the default) is
    gensim's range, which gave negative sampling about a point more analogy
    accuracy at one epoch on wiki_17m (docs/performance.md); 0.5 is
    word2vec.c's.

    regions: an epoch takes the corpus in chunks of 16,384 ids from this
    many regions of it in turn, a coarse shuffle of text that comes ordered
    by topic. None (the default): max(threads, 16); with hierarchical
    softmax, one more in each epoch after the first, so that no stretch of
    text is read beside the same neighbours at the same point of every
    epoch (more analogy accuracy at five epochs with HS, not with negative
    sampling: docs/performance.md, "Each epoch its own order"). A count
    given here holds for every epoch: `threads`
    regions is the order word2vec.c's and gensim's threads read in (each its
    own contiguous part, the same in every epoch); fewer regions than 16
    gave more SimLex-999 and less analogy and WS-353 accuracy
    (docs/performance.md, "Initialisation and the order of the text").

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
    (Intel's pWord2Vec): faster than the per-pair kernel and measured to
    match its quality (docs/performance.md). None (default) uses
    it for skip-gram NS with window <= 64 and negative <= 63; False keeps
    word2vec.c's exact per-pair kernel (fresh negatives for every pair).

    save(path) / Word2Vec.load(path) keep the whole training state; a model
    saved in the middle of train() (from a callback) continues that call's
    learning-rate schedule when train() is called again without `epochs`.

    >>> model = Word2Vec(dim=50).fit("corpus.txt")
    >>> model.vectors.most_similar("king")
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
        asked = schedule is not None
        if schedule is None:
            schedule = "epochs" if loss == "ns" else "word2vec"
        _check("schedule", schedule, schedule in SCHEDULES, f"one of {SCHEDULES} or None")
        if min_alpha is None:
            min_alpha = default_min_alpha(arch, loss, schedule, asked, alpha, epochs)
        _check("min_alpha", min_alpha, 0 <= min_alpha <= alpha, f"in [0, alpha={alpha}]")
        threads = resolve_threads(threads)
        _check("seed", seed, isinstance(seed, (int, np.integer)) and 0 <= seed < 2**64,
               "an integer in [0, 2**64)")
        _check("ns_exponent", ns_exponent, np.isfinite(ns_exponent), "finite")
        _check("init_range", init_range, np.isfinite(init_range) and init_range > 0, "finite and > 0")
        _check("regions", regions, regions is None or (isinstance(regions, (int, np.integer)) and regions >= 1),
               "None or an integer >= 1")
        self.arch, self.loss, self.dim, self.window = arch, loss, int(dim), int(window)
        self.negative = int(negative)
        self.min_count, self.sample, self.epochs = int(min_count), float(sample), int(epochs)
        self.alpha, self.min_alpha, self.schedule = float(alpha), float(min_alpha), schedule
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
        _check("ids_on_disk", ids_on_disk, ids_on_disk in (None, True, False), "None, True or False")
        self.tmp_dir, self.ids_on_disk = tmp_dir, ids_on_disk
        self.init_range = float(init_range)
        self.regions = None if regions is None else int(regions)

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
        self._schedule: dict[str, Any] | None = None  # the learning-rate schedule of the current train() call

    # ---- configuration --------------------------------------------------
    def config(self) -> dict:
        """The settings as a JSON-serialisable dict (stored with saved vectors)."""
        return {k: getattr(self, k) for k in (
            "arch", "loss", "dim", "window", "negative", "min_count", "sample", "epochs", "alpha",
            "min_alpha", "schedule", "threads", "seed", "max_vocab_size", "max_final_vocab", "ns_exponent",
            "cbow_mean", "shrink_windows", "max_sentence_length", "hot_rows", "shared_negatives", "tmp_dir",
            "ids_on_disk", "init_range", "regions")}

    # ---- vocabulary -----------------------------------------------------
    def build_vocab(self, corpus: CorpusSource | None = None, *, vocab: Vocabulary | None = None,
                    client=None, progress: bool | None = None) -> "Word2Vec":
        """Counts the corpus (or takes a ready Vocabulary) and allocates the
        weights: input vectors uniform in [-init_range/dim, init_range/dim)
        from the seed, output vectors zero. With a
        dask.distributed client the workers count the file(s).

        A plain file counted on several threads (no max_vocab_size, ids in
        memory) is encoded in the same pass: train() and encode() of the
        unchanged file then use those ids."""
        counted = source = None
        if vocab is None:
            if corpus is None:
                raise ValueError("build_vocab needs a corpus or a vocabulary")
            room = self._room_to_encode_while_counting(corpus) if client is None else None
            if room is not None:
                source = fingerprint(corpus)  # type: ignore[arg-type]  # before: a change while counting shows
                counter, counted = count_with_ids(os.fspath(corpus), self.threads,  # type: ignore[arg-type]
                                                  room, progress)
                vocab = Vocabulary.from_counter(counter, corpus, self.min_count, None, self.max_final_vocab)
            else:
                vocab = Vocabulary.build(corpus, self.min_count, self.max_vocab_size, self.max_final_vocab,
                                         client=client, threads=self.threads, progress=progress)
        if self.loss == "softmax" and len(vocab) > SOFTMAX_MAX_VOCAB:
            raise ValueError(
                f"loss='softmax' is the exact O(vocabulary) reference, meant for small vocabularies; "
                f"this one has {len(vocab):,} words (limit {SOFTMAX_MAX_VOCAB:,}): use 'ns' or 'hs', "
                "or raise min_count")
        needed = self.memory_needed(vocab)
        check_fits(f"a {len(vocab):,}-word, {self.dim}-dimensional model on {self.threads} thread(s) "
                   f"(matrices {gib(needed['input_vectors'] + needed['output_vectors'])}, the threads' buffers "
                   f"{gib(needed['training_threads'])})", needed["total"],
                   "raise min_count, set max_final_vocab, or lower dim or threads")
        self.vocab = vocab
        # the count's tables are freed before the weights take their place
        encoded = self._encoded_from_count(counted, source) if counted is not None else None
        V = len(vocab)
        out_rows = max(V - 1, 1) if self.loss == "hs" else V
        self.input_vectors = self._initial_rows(V)
        self.output_vectors = np.zeros((out_rows, self.dim), dtype=np.float32)
        self.epochs_trained = 0
        self.history = []
        self._new_weights(corpus)
        if encoded is not None:
            self._encoded, self._encoded_source = encoded, corpus
        return self

    def memory_needed(self, vocab: Vocabulary, threads: int | None = None,
                      output_format: str | None = None) -> dict[str, int]:
        """Bytes training on `vocab` takes beyond what the process holds
        already, by what takes them: the vocabulary's tables and the two
        matrices (Vocabulary.memory_estimate), the buffers of the training
        threads (as the C core allocates them: each keeps dim-sized vectors,
        its loss's scratch and private copies of hot output rows) and the
        scratch of writing the vectors out (in output_format, None for the
        costliest); "total" is their sum at the worst moment (the threads'
        buffers are freed before the vectors are written)."""
        est = vocab.memory_estimate(self.dim, self.loss)
        held = est.pop("total")
        est["training_threads"] = self._thread_bytes(len(vocab), threads or self.threads)
        est["saving"] = formats.save_scratch_bytes(len(vocab), self.dim, output_format)
        est["total"] = held + max(est["training_threads"], est["saving"])
        return est

    def _thread_bytes(self, vocab_size: int, threads: int) -> int:
        return _word2vec.worker_bytes(
            arch=self.arch, loss=self.loss, dim=self.dim, window=self.window, negative=self.negative,
            max_sentence_length=self.max_sentence_length, hot_rows=self.hot_rows,
            shared_negatives=self.shared_negatives, vocab_size=vocab_size, threads=threads)

    def _room_to_encode_while_counting(self, corpus: CorpusSource) -> int | None:
        """The memory counting may give the ids it keeps, when it should
        keep each token's provisional id, so that encoding needs no second
        pass over the text (a plain file counted on several threads, without
        pruning, ids not sent to disk and likely to fit); None otherwise."""
        if not (is_path(corpus) and self.threads > 1 and self.max_vocab_size is None
                and self.ids_on_disk is not True and parallel_file(corpus)):  # type: ignore[arg-type]
            return None
        room = ids_memory_room()
        return room if likely_ids_bytes(corpus) <= room else None  # type: ignore[arg-type]

    def _ids_on_disk(self) -> bool:
        return self.ids_on_disk if self.ids_on_disk is not None else ids_belong_on_disk(self.vocab.train_words)

    def _encoded_from_count(self, counted: CountedIds, source: Any) -> EncodedCorpus | None:
        """The corpus encoded for the new vocabulary from the ids its count
        kept (`source`: the file's fingerprint taken before counting),
        unless its ids belong on disk (then encode() reads the text)."""
        if self._ids_on_disk():
            return None
        encoded = counted.encode(self.vocab.words_joined())  # type: ignore[union-attr]
        encoded.source = source
        return encoded

    def _initial_rows(self, rows: int, first_row: int = 0, stream: int = 0) -> np.ndarray:
        """Input rows uniform in [-init_range/dim, init_range/dim), drawn in
        C from the seed, the stream and each row's index."""
        return _word2vec.uniform_rows(rows, self.dim, self.seed, stream, first_row, self.threads, self.init_range)

    def _new_weights(self, corpus: CorpusSource | None) -> None:
        """Forgets what was built on the previous vocabulary and weights (core, encoded corpus,
        Vectors view, schedule); `corpus` is what train() uses when given none."""
        self._core = None
        self._encoded = None
        self._encoded_source = None
        self._vectors = None
        self._pending_source = corpus
        self._schedule = None

    def add_vocab(self, corpus: CorpusSource | None = None, *, vocab: Vocabulary | None = None,
                  progress: bool | None = None) -> "Word2Vec":
        """Adds the words of another corpus (or of a Vocabulary of new
        counts) to a model that has one already, keeping what it learned:
        the counts of known words grow by their new counts, words new to the
        model (seen at least min_count times) join it with input rows
        initialised as build_vocab does and zero output rows. The vocabulary
        is re-sorted by count and the rows of both matrices follow their
        words (with hierarchical softmax the tree is rebuilt from the new
        counts: its inner-node rows are kept by index, new ones start at
        zero). The next train() starts a new learning-rate schedule on the
        corpus given here (or the one passed to it)."""
        if self.vocab is None or self.input_vectors is None or self.output_vectors is None:
            raise RuntimeError("add_vocab grows a model's vocabulary: call build_vocab first")
        if vocab is None:
            if corpus is None:
                raise ValueError("add_vocab needs a corpus or a vocabulary")
            vocab = Vocabulary.build(corpus, 1, self.max_vocab_size, threads=self.threads, progress=progress)
        old = self.vocab
        counts = dict(zip(old.words, old.counts.tolist()))
        new_words = []
        for w, c in zip(vocab.words, vocab.counts.tolist()):
            if w in counts:
                counts[w] += c
            elif c >= self.min_count:
                counts[w] = c
                new_words.append(w)
        words = old.words + new_words
        order = sorted(range(len(words)), key=lambda i: -counts[words[i]])  # stable: ties keep their order
        merged = Vocabulary([words[i] for i in order], [counts[words[i]] for i in order],
                            total_tokens=old.total_tokens + vocab.total_tokens,
                            distinct_words=max(old.distinct_words, len(words)))
        if self.loss == "softmax" and len(merged) > SOFTMAX_MAX_VOCAB:
            raise ValueError(f"loss='softmax' allows at most {SOFTMAX_MAX_VOCAB:,} words; this would make "
                             f"{len(merged):,}")
        V_old, V = len(old), len(merged)
        added = self._initial_rows(V - V_old, first_row=V_old, stream=1)  # not build_vocab's stream
        inp = np.concatenate([self.input_vectors, added])[order]
        if self.loss == "hs":  # rows are inner tree nodes, not words
            out = np.zeros((max(V - 1, 1), self.dim), dtype=np.float32)
            keep = min(len(out), len(self.output_vectors))
            out[:keep] = self.output_vectors[:keep]
        else:
            out = np.concatenate([self.output_vectors, np.zeros((V - V_old, self.dim), np.float32)])[order]
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
            hot_rows=self.hot_rows, shared_negatives=self.shared_negatives)

    def encode(self, corpus: CorpusSource, cache_path: str | None = None, *,
               progress: bool | None = None) -> EncodedCorpus:
        """Encodes a corpus with this model's vocabulary (out-of-vocabulary
        words dropped). The ids go to an unlinked temporary file in tmp_dir
        when ids_on_disk is True, or (None) when they would take more than
        512 MiB or an eighth of the memory available (corpus.ids_belong_on_disk);
        with cache_path they are written there and memory-mapped."""
        if self.vocab is None:
            raise RuntimeError("build the vocabulary first (build_vocab or fit)")
        on_disk = self._ids_on_disk()
        known = self._encoded
        if (known is not None and cache_path is None and not on_disk and is_path(corpus)
                and is_path(self._encoded_source) and known.file is None
                and os.fspath(corpus) == os.fspath(self._encoded_source)  # type: ignore[arg-type]
                and known.source == fingerprint(corpus)):  # type: ignore[arg-type]
            return known  # encoded already (while counting it): the file is unchanged
        return encode(corpus, self.vocab.words_joined(), cache_path, threads=self.threads, on_disk=on_disk,
                      tmp_dir=self.tmp_dir, progress=progress)

    # ---- training -------------------------------------------------------
    def train(self, corpus: CorpusSource | EncodedCorpus | None = None, *, epochs: int | None = None,
              callbacks: Iterable[Callable[["Word2Vec", EpochStats], object]] = (),
              progress: bool | None = None, client=None, sync_words: int = 250_000,
              lr_scale: float | None = None, checkpoint: str | os.PathLike | None = None,
              checkpoint_every: float = 30.0) -> TrainingStats:
        """Trains `epochs` epochs (default: the model's) on the corpus, or on
        the one given to build_vocab/fit. Calling it again continues training
        with the existing vocabulary (same or another corpus); each call runs
        its own linear learning-rate decay from alpha to min_alpha. A model
        saved in the middle of a call (Word2Vec.load) finishes that call's
        schedule when train() is given no `epochs`.

        callbacks are called after each epoch as cb(model, epoch_stats).
        Ctrl-C stops the threads once each has finished its chunk of the
        corpus (16,384 ids), leaves the weights consistent and usable, and
        re-raises KeyboardInterrupt; the stats so far are in model.last_stats.

        checkpoint: a path where save() writes the whole state every
        checkpoint_every minutes and on Ctrl-C, pausing the threads between
        two chunks of the corpus (in the middle of an epoch);
        Word2Vec.load(path).train(corpus) continues from there.

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
        if epochs is not None:
            _check("epochs", epochs, isinstance(epochs, (int, np.integer)) and epochs >= 1, "an integer >= 1")
        encoded = self._resolve_corpus(corpus, progress)
        if encoded.words == 0:
            raise ValueError("the corpus has no words in the vocabulary")
        schedule = self._plan_schedule(epochs, encoded)
        if self._core is None:
            self._core = self._make_core()
        core = self._core
        words_done = schedule["words_done"] if schedule["claim"] else schedule["epochs_done"] * encoded.words
        schedule_args = (schedule["epochs"] * encoded.words, schedule["alpha"], schedule["min_alpha"], words_done,
                         schedule["linear_decay"])
        if encoded.file is not None:  # ids on disk: the threads read them chunk by chunk
            core.set_corpus_file(encoded.file, len(encoded.ids), *schedule_args)
        else:
            core.set_corpus(encoded.ids, *schedule_args)
        self._schedule = schedule
        todo = schedule["epochs"] - schedule["epochs_done"]
        threads = threads_for(self.threads, encoded.words)
        # checked again: threads may differ from build_vocab's (a loaded model's overrides)
        check_fits(f"the buffers of {threads} training thread(s) at dim {self.dim}",
                   self._thread_bytes(len(self.vocab), threads), "lower threads or dim")
        stats = TrainingStats(corpus_words=encoded.words)
        self.last_stats = stats
        bar = Progress(todo * encoded.words, f"{self.arch}-{self.loss}", progress)
        base = schedule["epochs_done"] * encoded.words

        def start(e: int) -> None:
            # a paused epoch keeps the regions it was taken from
            core.start_epoch(self.epochs_trained, threads, schedule["claim"], schedule["regions"] or self.regions or 0)

        shown = {}

        def on_progress(e: int, done: int) -> None:
            loss = core.running_loss  # the epoch's mean so far: a long epoch shows its trend
            if loss is not None:
                shown["loss"] = f"{loss:.4f}"
            bar.update(done - base, epoch=f"{schedule['epochs_done'] + 1}/{schedule['epochs']}",
                       alpha=f"{core.alpha:.5f}", **shown)

        def unfinished(result) -> bool:
            """Books what the threads did; records where a paused epoch stands."""
            schedule["loss_sum"] += result[0]
            schedule["examples"] += result[1]
            if core.claims_done >= core.claims:
                return False
            schedule.update(claim=core.claims_done, regions=core.regions, words_done=core.words_done)
            return True

        def finish(e: int, result, seconds: float) -> None:
            examples = schedule["examples"]
            es = EpochStats(epoch=self.epochs_trained, loss=schedule["loss_sum"] / max(examples, 1),
                            examples=examples, words=core.words_done - schedule["epochs_done"] * encoded.words,
                            seconds=seconds, alpha=core.alpha)
            schedule.update(epochs_done=schedule["epochs_done"] + 1, **_EPOCH_START)
            self.record_epoch(stats, es, callbacks, bar.write)

        checkpoints = Checkpoints(None if checkpoint is None else os.fspath(checkpoint), checkpoint_every,
                                  self.save)
        try:
            run_epochs(core, todo, bar, stats, start=start, on_progress=on_progress, finish=finish,
                       checkpoints=checkpoints, halt=core.request_pause, unfinished=unfinished)
        finally:
            self._vectors_changed()
        return stats

    def _plan_schedule(self, epochs: int | None, encoded: EncodedCorpus) -> dict[str, Any]:
        """The learning-rate schedule of a train() call: a new one over
        `epochs` epochs, or (epochs None) the rest of one a saved model was
        in the middle of, when this is the corpus it was made for (the same
        number of words, and the same file when both are files)."""
        unfinished = self._schedule is not None and self._schedule["epochs_done"] < self._schedule["epochs"]
        if epochs is None and unfinished:
            schedule = dict(self._schedule)  # type: ignore[arg-type]
            stopped = f"this model stopped after epoch {schedule['epochs_done']} of {schedule['epochs']}"
            before, now = schedule.get("corpus"), encoded.source
            if before is not None and now is not None and before != now:
                raise ValueError(f"{stopped} on another corpus file (size {before['size']:,} bytes, this one "
                                 f"{now['size']:,}, or different contents): pass the same corpus to finish "
                                 "that schedule, or epochs=N to start a new one")
            if schedule["corpus_words"] != encoded.words:
                raise ValueError(
                    f"{stopped} on a corpus of {schedule['corpus_words']:,} words, but this corpus has "
                    f"{encoded.words:,}: pass the same corpus to finish that schedule, or epochs=N to start "
                    "a new one")
            return schedule
        return {"epochs": self.epochs if epochs is None else int(epochs), "epochs_done": 0,
                "corpus_words": encoded.words, "corpus": encoded.source, "alpha": self.alpha,
                "min_alpha": self.min_alpha, "linear_decay": self.schedule != "word2vec", **_EPOCH_START}

    @property
    def schedule_state(self) -> dict | None:
        """A copy of where the learning-rate schedule of the last train()
        call (or the one a loaded model was saved in) stands: its epochs,
        epochs_done, corpus_words, alpha, min_alpha, ...; None before any."""
        return None if self._schedule is None else dict(self._schedule)

    @property
    def unfinished_epochs(self) -> int:
        """Epochs left of a train() call this model was saved in the middle
        of (0 when there is none): train() without `epochs` runs them."""
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
        for cb in callbacks:
            cb(self, es)

    def _train_on_cluster(self, corpus, client, epochs, sync_words, lr_scale, callbacks, progress) -> TrainingStats:
        if corpus is None:
            corpus = self._pending_source
        if self.vocab is None:
            self.build_vocab(corpus, client=client)
        epochs = self.epochs if epochs is None else epochs
        _check("epochs", epochs, isinstance(epochs, (int, np.integer)) and epochs >= 1, "an integer >= 1")
        return scaleout.train_word2vec(self, client, corpus, epochs, sync_words, progress, callbacks, lr_scale)

    def fit(self, corpus: CorpusSource, *, client=None, **train_kwargs) -> "Word2Vec":
        """build_vocab(corpus) then train(corpus); returns self. With a
        dask.distributed client, both run on its workers."""
        self.build_vocab(corpus, client=client)
        self.train(corpus, client=client, **train_kwargs)
        return self

    def _resolve_corpus(self, corpus, progress: bool | None = None) -> EncodedCorpus:
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
        self._encoded = self.encode(corpus, progress=progress)
        self._encoded_source = corpus
        return self._encoded

    # ---- weights (what the cluster layer and other callers read and set) --
    @classmethod
    def from_weights(cls, config: dict, vocab: Vocabulary, input_vectors: np.ndarray, output_vectors: np.ndarray,
                     epochs_trained: int = 0) -> "Word2Vec":
        """A model with these settings (a config() dict), vocabulary and
        weights, ready to train, without initialising new weights. The arrays
        are used as they are (float32, C-contiguous): training updates them."""
        model = cls(**config)
        V = len(vocab)
        out_rows = max(V - 1, 1) if model.loss == "hs" else V
        for name, a, rows in (("input_vectors", input_vectors, V), ("output_vectors", output_vectors, out_rows)):
            if not (isinstance(a, np.ndarray) and a.dtype == np.float32 and a.flags.c_contiguous
                    and a.flags.writeable and a.shape == (rows, model.dim)):
                raise ValueError(f"{name} must be a writeable C-contiguous float32 array of shape "
                                 f"({rows}, {model.dim}), got {getattr(a, 'shape', None)} "
                                 f"{getattr(a, 'dtype', type(a).__name__)}")
        if model.loss == "softmax" and V > SOFTMAX_MAX_VOCAB:
            raise ValueError(f"loss='softmax' allows at most {SOFTMAX_MAX_VOCAB:,} words, this vocabulary has {V:,}")
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
        state = {"format": MODEL_FORMAT, "version": MODEL_VERSION, "config": self.config(),
                 "epochs_trained": self.epochs_trained, "history": [e.__dict__ for e in self.history],
                 "schedule": self._schedule, "total_tokens": self.vocab.total_tokens,
                 "distinct_words": self.vocab.distinct_words}
        metadata = {**self.metadata(), "word2vec_state": state}
        if extra is not None:
            metadata["extra"] = extra
        formats.save_native(self.vectors, path, metadata=metadata,  # the one Vectors view: no second index
                            sections={"output_vectors": self.output_vectors})

    @staticmethod
    def saved_config(path: str | os.PathLike) -> dict:
        """The settings of a model saved by save(), reading only the file's
        header (to check a resume's flags before loading the weights)."""
        state = formats.read_native_metadata(path).get("word2vec_state")
        if not isinstance(state, dict) or not isinstance(state.get("config"), dict):
            raise FormatError(path, "not a saved Word2Vec model (vectors only? load them with load_vectors)")
        return dict(_checked_config(path, state["config"]))

    @classmethod
    def load(cls, path: str | os.PathLike, **overrides) -> "Word2Vec":
        """A model saved by save(), ready to train on (overrides change
        settings such as threads). Raises FormatError for a file that is not a
        saved Word2Vec or is damaged."""
        words, matrix, counts, metadata = formats.read_vectors(path, format="native")
        state = (metadata or {}).get("word2vec_state")
        if not isinstance(state, dict) or state.get("format") != MODEL_FORMAT:
            raise FormatError(path, "not a saved Word2Vec model (vectors only? load them with load_vectors)")
        if state.get("version") != MODEL_VERSION:
            raise FormatError(path, f"Word2Vec state version {state.get('version')!r} is not supported "
                                    f"(this wv_engine reads version {MODEL_VERSION})")
        if counts is None:
            raise FormatError(path, "the saved model has no word counts")
        if not isinstance(state.get("config"), dict):
            raise FormatError(path, "damaged Word2Vec state: its config is not a JSON object")
        _checked_config(path, state["config"])
        _check_state_numbers(path, state)
        output = formats.read_native_section(path, "output_vectors")
        try:
            # saved before schedule and init_range existed: word2vec.c's, the only ones then
            config = {"schedule": "word2vec", "init_range": 0.5, **state["config"], **overrides}
            vocab = Vocabulary(words, counts, total_tokens=state["total_tokens"],
                               distinct_words=state["distinct_words"])
            # read into fresh arrays already: no second copy of a model-sized matrix
            model = cls.from_weights(config, vocab, _owned_float32(matrix), _owned_float32(output),
                                     state["epochs_trained"])
            model.history = [EpochStats(**e) for e in state["history"]]
            schedule = state["schedule"]
            if schedule is not None:
                schedule = {**{k: schedule[k] for k in ("epochs", "epochs_done", "corpus_words", "alpha",
                                                        "min_alpha")},
                            # saved before the flag existed: word2vec.c's schedule, the only one then
                            "linear_decay": bool(schedule.get("linear_decay", False)),
                            **{k: type(v)(schedule.get(k, v)) for k, v in _EPOCH_START.items()}}
                corpus = state["schedule"].get("corpus")
                schedule["corpus"] = None if corpus is None else {k: corpus[k] for k in (
                    "size", "head_sha256", "tail_sha256")}
            model._schedule = schedule
            model.saved_extra = metadata.get("extra")
        except (KeyError, TypeError, ValueError) as exc:
            raise FormatError(path, f"damaged Word2Vec state: {exc}") from None
        return model

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
                                             self.vocab.counts, self.metadata())
        return self._vectors

    def metadata(self) -> dict:
        """Settings and training history stored with saved vectors."""
        return {"trainer": "word2vec", "config": self.config(), "epochs_trained": self.epochs_trained,
                "epoch_loss": [e.loss for e in self.history]}


def _owned_float32(a: np.ndarray) -> np.ndarray:
    """a as a writable C-contiguous float32 array, copied only if it is not one."""
    if a.dtype == np.float32 and a.flags.c_contiguous and a.flags.writeable and not isinstance(a, np.memmap):
        return a
    return np.array(a, dtype=np.float32, order="C")
