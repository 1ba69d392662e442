"""Scores while training: the analogy accuracy and word-pair correlations of
the vectors after every few epochs, so that a run shows how quality moved
with its loss (`wv-engine word2vec/glove --eval-every N`, or the
EpochScores callback in Python). The same sets and settings as `wv-engine
eval`, so the last epoch's scores are what eval says of the saved vectors.

An evaluation of 30,000 candidates takes a fraction of a second (the
analogy answers are scored in C on every core: evaluate.py); the training
threads are idle while it runs."""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Sequence

from .evaluate import AnalogySet, PairSet, evaluate_analogies, evaluate_word_pairs, read_analogies, read_pairs
from .files import read_as
from .settings import bounded

__all__ = ["EpochScores", "evaluate_sets", "summary"]

DEFAULT_PAIRS = ("wordsim353", "simlex999")  # the shipped word-pair sets, by name


def evaluate_sets(vectors: Any, analogies: str | os.PathLike | AnalogySet | None = None,
                  pairs: Sequence[str | os.PathLike | PairSet] | None = None, restrict_vocab: int | None = 30000,
                  threads: int | None = None, pvalues: bool = True) -> dict[str, dict[str, Any]]:
    """What `wv-engine eval` reports: {"analogy": evaluate_analogies(...)}
    and, for each word-pair file, {its file name: evaluate_word_pairs(...)}
    (default: the shipped WordSim-353 and SimLex-999, as "wordsim353" and
    "simlex999"). `analogies`: None for the shipped Google set. Each file may
    be one read already (read_analogies, read_pairs). pvalues=False
    leaves the correlations' p-values out (and scipy unimported)."""
    results = {"analogy": evaluate_analogies(vectors, analogies, restrict_vocab=restrict_vocab, threads=threads)}
    if not pairs:
        from . import datasets

        named = [(name, datasets.path(name)) for name in DEFAULT_PAIRS]
    else:
        named = [(os.path.basename(p.path if isinstance(p, PairSet) else os.fspath(p)), p) for p in pairs]
    for name, path in named:
        results[name] = evaluate_word_pairs(vectors, path, pvalues=pvalues)
    return results


def summary(results: dict[str, dict[str, Any]]) -> dict[str, float | None]:
    """One number per set of evaluate_sets' results: the analogy accuracy and
    each word-pair set's Spearman correlation (None where nothing could be
    measured)."""
    return {name: r["accuracy"] if name == "analogy" else r["spearman"] for name, r in results.items()}


class EveryFewEpochs:
    """What a scoring callback shares: it scores every `every` epochs
    (score(model), the subclass's), and books each entry in its `scores`,
    in the model's last_stats.epoch_scores and, as a line, in `report`."""

    def __init__(self, every: int, report: Callable[[str], object] | None) -> None:
        self.every = bounded("every", every)
        self.report = report
        self.scores: list[dict[str, Any]] = []

    def __call__(self, model: Any, epoch: Any) -> None:
        if (epoch.epoch + 1) % self.every == 0:
            self.score(model)

    def score(self, model: Any) -> dict[str, Any]:
        raise NotImplementedError

    def _book(self, model: Any, entry: dict[str, Any], line: str) -> dict[str, Any]:
        self.scores.append(entry)
        stats = getattr(model, "last_stats", None)
        if stats is not None:
            stats.epoch_scores.append(entry)
        if self.report is not None:
            self.report(line)
        return entry


class EpochScores(EveryFewEpochs):
    """A training callback that scores the vectors every `every` epochs:
    `Word2Vec.train(callbacks=[scores])` or `GloVe.train(callbacks=...)`.

    Each scoring appends {"epoch": epochs trained so far, "analogy": accuracy,
    <pair set>: Spearman, ..., "seconds": its time} to `self.scores` and to
    the model's `last_stats.epoch_scores`, and passes a one-line account to
    `report` when given. `score(model)` scores at once (the CLI uses it for
    a last epoch that `every` skipped). Settings as evaluate_sets. The test
    sets are read and parsed here, so that a missing or bad file stops a run
    before it starts (ValueError or OSError naming the parameter and the
    file), not after its first epoch.

    Example::

        scores = EpochScores(every=1)
        Word2Vec(epochs=5).fit("corpus.txt", callbacks=[scores])
        scores.scores  # [{"epoch": 1, "analogy": 0.21, "wordsim353": 0.55, ...}, ...]
    """

    def __init__(self, every: int = 1, analogies: str | os.PathLike | AnalogySet | None = None,
                 pairs: Sequence[str | os.PathLike | PairSet] | None = None, restrict_vocab: int | None = 30000,
                 threads: int | None = None, report: Callable[[str], object] | None = None):
        super().__init__(every, report)
        self.restrict_vocab = bounded("restrict_vocab", restrict_vocab, none=True)
        self.threads = bounded("threads", threads, none=True)
        self.analogies = None if analogies is None else test_set("analogies", analogies, read_analogies)
        self.pairs = [test_set("pairs", p, read_pairs) for p in pairs] if pairs else None

    def score(self, model: Any) -> dict[str, Any]:
        """Scores the model's vectors now (after model.epochs_trained epochs)."""
        started = time.perf_counter()
        # training leaves model.vectors current (Word2Vec.record_epoch and train); the evaluations
        # normalise the rows they use and cache none
        results = evaluate_sets(model.vectors, self.analogies, self.pairs, self.restrict_vocab, self.threads,
                                pvalues=False)
        entry = {"epoch": model.epochs_trained, **summary(results), "seconds": time.perf_counter() - started}
        return self._book(model, entry, describe(entry))


def test_set(name: str, path: Any, read: Callable[[Any], Any]) -> Any:
    """read(path), a failure named by the parameter (read_as); a set read
    already passes as it is."""
    return path if isinstance(path, (AnalogySet, PairSet)) else read_as(name, path, read)


def describe(entry: dict[str, Any]) -> str:
    """'epoch 3: analogy 41.20%, wordsim353 0.652, simlex999 0.331 (0.4 s)'."""
    parts = []
    for name, value in entry.items():
        if name in ("epoch", "seconds"):
            continue
        shown = "n/a" if value is None or value != value else (
            f"{value * 100:.2f}%" if name == "analogy" else f"{value:.3f}")
        parts.append(f"{name} {shown}")
    return f"epoch {entry['epoch']}: {', '.join(parts)} ({entry['seconds']:.1f} s)"
