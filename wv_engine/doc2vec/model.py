"""Doc2Vec: paragraph vectors (Le & Mikolov 2014) trained by the C core
(csrc/d2v.h) on word2vec's losses, Hogwild threads with the GIL released;
inference of many documents at once."""

from __future__ import annotations

import hashlib
import os
from typing import Any, Callable, Iterable

import numpy as np

from .. import _doc2vec, _word2vec, pickling
from ..epochs import Checkpoints, EpochStats, TrainingStats, run_epochs
from ..progress import Progress
from ..settings import Range, bounded, threads_for
from ..vectors import Vectors
from ..vocab import Vocabulary
from . import settings as doc2vec_settings
from . import state as doc2vec_state
from .documents import Documents, EncodedDocuments

__all__ = ["Doc2Vec"]


class Doc2Vec:
    """Trains a vector for each document tag, and infers vectors for unseen
    documents.

    arch "dbow" is PV-DBOW (each of a document's tags predicts every one of
    its words; dbow_words=True interleaves skip-gram training of the word
    vectors, as gensim's dbow_words=1), "dm" is PV-DM (the mean of the
    window's word vectors and the document's tag vectors, or their sum with
    dm_mean=False, predicts the centre word; dm_concat=True puts
    dm_tag_count tag vectors and the 2 x window word vectors side by side
    instead). loss "ns" (negative sampling) or "hs" (hierarchical softmax).
    The defaults are gensim's Doc2Vec's (PV-DM, dim 100, window 5, 5
    negatives, min_count 5, sample 1e-3, 10 epochs, the learning rate
    falling on a line from 0.025 to 0.0001). With one thread and a seed a
    run is bit-reproducible.

    Documents (fit, build_vocab, train): a text file of one document a
    line, whose tags are the text before a TAB or else the line number, or
    a re-iterable of (words, tags) or TaggedDocument-like objects
    (doc2vec.documents). A document longer than max_sentence_length words
    trains in pieces of that many, all under its tags.

    Results: `dv`, the document vectors as Vectors named by tag (str(tag));
    `wv`, the word vectors. infer(documents) gives a matrix of vectors for
    unseen documents (lists of words, or a file of one a line), on every
    thread; infer_vector(words) one. save(path) / Doc2Vec.load(path) keep
    the whole state.

    Example::

        model = Doc2Vec(arch="dbow", dim=100, epochs=20).fit("docs.txt")
        model.dv.most_similar("12")                # documents like line 12
        model.infer([["some", "new", "text"]])    # a (1, 100) matrix
    """

    def __init__(self, *, arch: str = "dm", loss: str = "ns", dim: int = 100, window: int = 5, negative: int = 5,
                 min_count: int = 5, sample: float = 1e-3, epochs: int = 10, alpha: float = 0.025,
                 min_alpha: float = 0.0001, threads: int | None = None, seed: int = 1,
                 max_vocab_size: int | None = None, max_final_vocab: int | None = None, ns_exponent: float = 0.75,
                 dm_mean: bool = True, dm_concat: bool = False, dm_tag_count: int = 1, dbow_words: bool = False,
                 shrink_windows: bool = True, max_sentence_length: int = doc2vec_settings.MAX_DOCUMENT_WORDS,
                 shared_negatives: bool | None = None, hot_rows: int | None = None):
        settings = {k: v for k, v in locals().items() if k != "self"}
        self.__dict__.update(doc2vec_settings.resolve(**settings))
        self.vocab: Vocabulary | None = None
        self.tag_keys: list[str] = []
        self.word_vectors: np.ndarray | None = None    # V x dim (and the null word's row with dm_concat)
        self.doc_vectors: np.ndarray | None = None     # tags x dim
        self.output_vectors: np.ndarray | None = None  # V x the output layer's width
        self.epochs_trained = 0
        self.history: list[EpochStats] = []
        self._documents: tuple[Documents, EncodedDocuments] | None = None
        self._core: Any = None
        self._group = (8, 2 * self.negative)  # shared negatives: words a group, negatives a group
        self.saved_extra: dict | None = None  # what save(extra=...) stored, once loaded
        self._schedule: dict | None = None  # the last train() call's epochs and those done

    def config(self) -> dict:
        """The settings as a JSON-serialisable dict (stored with a saved model)."""
        return {k: getattr(self, k) for k in doc2vec_settings.NAMES}

    # ---- vocabulary and documents -----------------------------------------
    def build_vocab(self, documents: Any, *, progress: bool | None = None) -> "Doc2Vec":
        """Counts the documents' words, checks that the model fits in memory
        (from the counts, before anything is allocated), encodes the
        documents and their tags, and initialises the vectors: word and
        document vectors uniform in [-1/dim, 1/dim) from the seed (gensim's
        range), output vectors zero."""
        docs = Documents.of(documents, self.threads)
        vocab = docs.count(self.min_count, self.max_vocab_size, self.max_final_vocab)
        doc2vec_settings.check_model_fits(self, len(vocab), docs.tag_bound, vocab.total_tokens, docs.n_docs)
        encoded = docs.encode(vocab)
        self.vocab, self.tag_keys = vocab, encoded.keys
        extra = 1 if doc2vec_settings.mode(self) == "dm_concat" else 0  # the null word padding windows
        self.word_vectors = _word2vec.uniform_rows(len(vocab) + extra, self.dim, self.seed, 0, 0, self.threads, 1.0)
        self.doc_vectors = _word2vec.uniform_rows(len(encoded.keys), self.dim, self.seed, 2, 0, self.threads, 1.0)
        self.output_vectors = np.zeros((len(vocab), doc2vec_settings.layer_size(self)), dtype=np.float32)
        self.epochs_trained, self.history = 0, []
        self._documents, self._core = (docs, encoded), None
        return self

    def add_vocab(self, documents: Any, *, progress: bool | None = None) -> "Doc2Vec":
        """Adds the words and tags of more documents to a model that has a
        vocabulary, keeping what it learned (gensim's build_vocab(update=True)):
        known words' counts grow, words new to the model seen at least
        min_count times join it with word rows drawn as build_vocab draws
        them and zero output rows, the vocabulary is re-sorted by count and
        the rows follow their words (with hierarchical softmax the tree is
        rebuilt from the new counts, its inner-node rows kept by index), and
        new tags get new document vectors. The next train() runs on these
        documents unless given others."""
        if self.vocab is None or self.word_vectors is None or self.output_vectors is None:
            raise RuntimeError("add_vocab grows a model's vocabulary: call build_vocab first")
        docs = Documents.of(documents, self.threads)
        merged, order = self.vocab.merged(docs.count(1, self.max_vocab_size, None), self.min_count)
        V_old, V = len(self.vocab), len(merged)
        doc2vec_settings.check_model_fits(self, V, max(docs.tag_bound, len(self.tag_keys)), merged.total_tokens,
                                          docs.n_docs)
        added = _word2vec.uniform_rows(V - V_old, self.dim, self.seed, 3, V_old, self.threads, 1.0)
        words = np.concatenate([self.word_vectors[:V_old], added])[order]
        null_row = self.word_vectors[V_old:]  # dm_concat's null word: after the vocabulary's rows, as before
        out = Vocabulary.merged_output_rows(self.output_vectors, order, self.loss == "hs")
        self.vocab = merged
        self.word_vectors = np.ascontiguousarray(np.concatenate([words, null_row]))
        self.output_vectors = np.ascontiguousarray(out)
        self._documents, self._core, self._schedule = None, None, None  # ids and schedule start again
        self._encoded(docs)
        return self

    def _encoded(self, documents: Any) -> EncodedDocuments:
        """The documents encoded with this model's vocabulary and tags: the
        ones build_vocab read, or others (their new tags get new vectors)."""
        held = self._documents
        if documents is None or (held is not None and (held[0] is documents or held[0].source is documents)):
            if self._documents is None:
                raise ValueError("train needs documents (or call build_vocab first)")
            return self._documents[1]
        docs = Documents.of(documents, self.threads)
        keys = dict(zip(self.tag_keys, range(len(self.tag_keys))))
        encoded = docs.encode(self.vocab, keys)
        added = len(encoded.keys) - len(self.tag_keys)
        if added:
            doc2vec_settings.check_model_fits(self, len(self.vocab), len(encoded.keys), len(encoded.words),
                                              encoded.n_docs)
            rows = _word2vec.uniform_rows(added, self.dim, self.seed, 2, len(self.tag_keys), self.threads, 1.0)
            self.doc_vectors = np.concatenate([self.doc_vectors, rows])
            self.tag_keys = encoded.keys
            self._core = None
        self._documents = (docs, encoded)
        return encoded

    def _make_core(self, word_vectors: np.ndarray) -> Any:
        vocab = self.vocab
        return _doc2vec.Doc2VecCore(
            mode=doc2vec_settings.mode(self), loss=self.loss, vector_size=self.dim, window=self.window,
            negative=self.negative, max_sentence_length=self.max_sentence_length, cbow_mean=self.dm_mean,
            shrink_windows=self.shrink_windows, seed=self.seed, dbow_words=self.dbow_words,
            dm_tag_count=self.dm_tag_count, shared_negatives=self.shared_negatives, hot_rows=self.hot_rows,
            group=self._group[0], group_negatives=self._group[1], word_vectors=word_vectors,
            output_vectors=self.output_vectors,
            keep_prob=vocab.keep_probabilities(self.sample),
            noise=vocab.noise_sampler(self.ns_exponent) if self.loss == "ns" else None,
            huffman=vocab.huffman() if self.loss == "hs" else None)

    # ---- training -------------------------------------------------------
    def train(self, documents: Any = None, *, epochs: int | None = None, progress: bool | None = None,
              callbacks: Iterable[Callable[["Doc2Vec", EpochStats], object]] = (),
              checkpoint: str | os.PathLike | None = None, checkpoint_every: float = 30.0) -> TrainingStats:
        """Trains `epochs` epochs (default: the model's) on the documents
        given to build_vocab, or on others (their tags new or known), the
        learning rate falling on a line from alpha to min_alpha over all of
        them. Ctrl-C stops the threads and re-raises; the stats so far are
        in model.last_stats. callbacks: each called as cb(model, epoch_stats)
        after every epoch. checkpoint: where save() writes the whole state
        every checkpoint_every minutes (at the next epoch's end) and on
        Ctrl-C; a model loaded from it and given no `epochs` trains the
        epochs its call had left, its learning rate going on where it was."""
        if self.vocab is None:
            if documents is None:
                raise ValueError("train needs documents (or call build_vocab first)")
            self.build_vocab(documents, progress=progress)
        left = self.unfinished_epochs if epochs is None else 0
        epochs = (self._schedule["epochs"] if left else self.epochs) if epochs is None else bounded("epochs", epochs)
        done = epochs - left if left else 0
        self._schedule = {"epochs": epochs, "epochs_done": done}
        encoded = self._encoded(documents)
        words = len(encoded.words)
        if words == 0:
            raise ValueError("the documents have no word in the vocabulary")
        if self._core is None:
            self._core = self._make_core(self.word_vectors)
        core = self._core
        core.set_documents(encoded.words, encoded.doc_start, self.doc_vectors, encoded.tag_start, encoded.tags,
                           schedule_words=epochs * words, alpha=self.alpha, min_alpha=self.min_alpha,
                           words_done=done * words)
        threads = threads_for(self.threads, words)
        stats = TrainingStats(corpus_words=words)
        self.last_stats = stats
        bar = Progress((epochs - done) * words, f"doc2vec-{doc2vec_settings.mode(self)}", progress)

        def on_progress(e: int, words_done: int) -> None:
            loss = core.running_loss
            bar.update(words_done - done * words, epoch=f"{done + e + 1}/{epochs}", alpha=f"{core.alpha:.5f}",
                       **({"loss": f"{loss:.4f}"} if loss is not None else {}))

        def finish(e: int, result, seconds: float) -> None:
            loss_sum, examples = result
            es = EpochStats(epoch=self.epochs_trained, loss=loss_sum / max(examples, 1), examples=examples,
                            words=words, seconds=seconds, alpha=core.alpha)
            self.epochs_trained += 1
            self._schedule["epochs_done"] += 1
            stats.epochs += 1
            stats.epoch_stats.append(es)
            self.history.append(es)
            bar.write(f"epoch {es.epoch + 1}: loss {es.loss:.6f}, {words / max(seconds, 1e-9):,.0f} words/s")
            for cb in callbacks:
                cb(self, es)

        checkpoints = Checkpoints(None if checkpoint is None else os.fspath(checkpoint), checkpoint_every, self.save)
        run_epochs(core, epochs - done, bar, stats, start=lambda e: core.start_epoch(self.epochs_trained, threads),
                   on_progress=on_progress, finish=finish, checkpoints=checkpoints)
        return stats

    @property
    def unfinished_epochs(self) -> int:
        """Epochs left of the train() call this model was saved in (train() without `epochs` runs them)."""
        s = self._schedule
        return 0 if s is None else s["epochs"] - s["epochs_done"]

    def fit(self, documents: Any, **train_kwargs: Any) -> "Doc2Vec":
        """build_vocab(documents) then train(documents); returns self."""
        self.build_vocab(documents, progress=train_kwargs.get("progress"))
        self.train(documents, **train_kwargs)
        return self

    # ---- inference ------------------------------------------------------
    def infer(self, documents: Any, *, epochs: int | None = None, alpha: float | None = None,
              min_alpha: float | None = None, threads: int | None = None, progress: bool | None = False
              ) -> np.ndarray:
        """Vectors of unseen documents, one row each, in their order: each
        starts from a vector drawn from the model's seed and the document's
        words, and trains `epochs` passes of its document alone (default:
        the model's epochs), the learning rate falling from alpha to
        min_alpha over them, word and output vectors frozen (gensim's
        infer_vector, a document at a time, on every thread). The result of
        a document does not depend on the others or on the threads.
        documents: lists of words, or a text file of one document a line
        (a tag column is ignored). Unknown words are skipped; a document
        without a known word keeps its starting vector."""
        if self.vocab is None or self.word_vectors is None:
            raise RuntimeError("the model is not trained: call fit or build_vocab and train first")
        epochs = self.epochs if epochs is None else bounded("epochs", epochs)
        alpha = self.alpha if alpha is None else bounded("alpha", alpha)
        min_alpha = self.min_alpha if min_alpha is None else bounded("min_alpha", min_alpha,
                                                                      Range(0, alpha, integer=False))
        threads = self.threads if threads is None else bounded("threads", threads)
        if not is_file(documents) and not isinstance(documents, Documents):
            if isinstance(documents, (str, bytes)):
                raise TypeError("infer takes lists of words (or a path): for one document use infer_vector(words)")
            documents = Documents.of_word_lists(list(documents))
        encoded = Documents.of(documents, threads).encode(self.vocab)
        out = np.empty((encoded.n_docs, self.dim), dtype=np.float32)
        if encoded.n_docs == 0:
            return out
        core = self._make_core(self.word_vectors)
        words = len(encoded.words)
        core.set_documents(encoded.words, encoded.doc_start, out, doc_seed=document_seeds(encoded),
                           schedule_words=max(words * epochs, 1), alpha=alpha, min_alpha=min_alpha,
                           infer_epochs=epochs, learn_words=False, learn_doctags=True, learn_hidden=False)
        bar = Progress(words * epochs, "inferring", progress)
        run_epochs(core, 1, bar, TrainingStats(corpus_words=words),
                   start=lambda e: core.start_epoch(0, threads_for(threads, max(words, encoded.n_docs))),
                   on_progress=lambda e, done: bar.update(done), finish=lambda e, result, seconds: None)
        return out

    def infer_vector(self, words: Iterable[str], **kwargs: Any) -> np.ndarray:
        """The vector of one unseen document (a list of words): infer's row
        for it, the same whatever else is inferred beside it."""
        if isinstance(words, (str, bytes)):
            raise TypeError("infer_vector takes a list of words, not a str: split it first")
        return self.infer([list(words)], **kwargs)[0]

    # ---- results ----------------------------------------------------------
    @property
    def dv(self) -> Vectors:
        """The document vectors, named by their tags (str(tag)); they share
        memory with the model."""
        if self.doc_vectors is None:
            raise RuntimeError("the model has no documents yet: call fit or build_vocab")
        return Vectors(self.tag_keys, self.doc_vectors, metadata=self.metadata())

    @property
    def wv(self) -> Vectors:
        """The word vectors (PV-DBOW trains them only with dbow_words)."""
        if self.vocab is None or self.word_vectors is None:
            raise RuntimeError("the model has no vocabulary yet: call fit or build_vocab")
        return Vectors(self.vocab.words, self.word_vectors[:len(self.vocab)], self.vocab.counts,
                       metadata=self.metadata())

    def metadata(self) -> dict:
        """Settings and training history stored with saved vectors."""
        return {"trainer": "doc2vec", "config": self.config(), "epochs_trained": self.epochs_trained,
                "epoch_loss": [e.loss for e in self.history]}

    # ---- saving the whole state -------------------------------------------
    def save(self, path: str | os.PathLike, extra: dict | None = None) -> None:
        """Writes the whole state to one native file, atomically (no
        pickle): the document vectors (what load_vectors reads from it),
        the word and output vectors, the vocabulary, the settings and the
        history. Doc2Vec.load continues from it. `extra`: a
        JSON-serialisable dict stored with it, given back by load as the
        model's `saved_extra` (a layer's own settings)."""
        if self.vocab is None:
            raise RuntimeError("nothing to save: the model has no vocabulary yet")
        doc2vec_state.save_model(self, path, extra)

    @staticmethod
    def saved_config(path: str | os.PathLike) -> dict:
        """The settings of a model saved by save(), reading only the file's header."""
        return doc2vec_state.saved_config(path)

    @classmethod
    def load(cls, path: str | os.PathLike, **overrides: Any) -> "Doc2Vec":
        """A model save() wrote, ready to train on and infer with
        (overrides change settings such as threads)."""
        return doc2vec_state.load_model(cls, path, **overrides)

    def __reduce__(self):
        """pickle and copy.deepcopy through the native file (pickling.py)."""
        return pickling.reduce(self, self.save, type(self).load, self.config() if self.vocab is None else None)


def is_file(source: Any) -> bool:
    return isinstance(source, (str, os.PathLike)) and not isinstance(source, bytes)


def document_seeds(encoded: EncodedDocuments) -> np.ndarray:
    """A seed a document from its words' ids (with the model's seed, what
    its inferred vector starts from): the same document, the same seed,
    wherever it stands."""
    seeds = np.empty(encoded.n_docs, dtype=np.uint64)
    starts = encoded.doc_start
    for d in range(encoded.n_docs):
        digest = hashlib.blake2b(encoded.words[starts[d]:starts[d + 1]].tobytes(), digest_size=8).digest()
        seeds[d] = int.from_bytes(digest, "little")
    return seeds
