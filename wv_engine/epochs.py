"""The epoch loop both trainers share, around a C core: start the threads,
report the atomic progress counter while waiting on the workers (the wait
wakes as soon as the last one finishes, so a short epoch is not rounded up
to a poll interval), and on Ctrl-C (or any error) ask the workers to stop
and join them before re-raising, so the shared matrices are never left with
threads still writing to them. Also the statistics of a word2vec run, which
the cluster layer fills in as well.

A core is any object with start_epoch(...), wait(seconds), words_done,
request_stop() and join_epoch(): the word2vec and GloVe bindings both are."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from .progress import Progress

POLL_SECONDS = 0.05


@dataclass
class EpochStats:
    """What one word2vec epoch did: its mean loss per prediction (float64),
    the words it covered and the seconds it took.

    Attributes:
        epoch: the model's epochs trained before this one (0 for its first).
        loss: the mean loss per prediction (float64).
        examples: the predictions trained.
        words: the corpus words the epoch covered.
        seconds: the time it took.
        alpha: the learning rate where it ended.
    """

    epoch: int
    loss: float
    examples: int
    words: int
    seconds: float
    alpha: float


@dataclass
class TrainingStats:
    """Totals of one word2vec train() call. corpus_words are the corpus tokens
    in the vocabulary (word2vec.c's train_words); words_per_sec counts each of
    them in every epoch, subsampled ones included, as word2vec.c counts.

    Attributes:
        epochs: the epochs finished.
        corpus_words: the corpus tokens in the vocabulary (one epoch's words).
        train_seconds: the time spent training.
        interrupted: True when Ctrl-C (or an error) stopped the call.
        epoch_stats: one EpochStats per finished epoch.
        syncs: on a cluster, the weight averages done.
        epoch_scores: what an EpochScores callback measured, one entry per
            scored epoch (wv_engine.epoch_scores).
    """

    epochs: int = 0
    corpus_words: int = 0
    train_seconds: float = 0.0
    interrupted: bool = False
    epoch_stats: list[EpochStats] = field(default_factory=list)
    syncs: int = 0  # on a cluster: weight averages done (each moves the model to and from every worker)
    epoch_scores: list[dict] = field(default_factory=list)

    @property
    def epoch_loss(self) -> list[float]:
        """Mean loss per prediction of each epoch (float64)."""
        return [e.loss for e in self.epoch_stats]

    @property
    def words_per_sec(self) -> float:
        """Corpus words per second of training, all epochs."""
        return self.corpus_words * self.epochs / self.train_seconds if self.train_seconds else 0.0


def run_epoch(core: Any, start: Callable[[], None], on_progress: Callable[[int], None], *,
              halt: Callable[[], None] | None = None, pause_when: Callable[[], bool] | None = None,
              on_halted: Callable[[Any], object] | None = None) -> Any:
    """Starts the epoch with start(), reports core.words_done to
    on_progress while it runs, and returns core.join_epoch().

    halt stops the threads early (default core.request_stop); pause_when,
    polled while the epoch runs, ends it early through halt when it returns
    True (for a checkpoint); on an exception (Ctrl-C) the threads are halted
    and joined, on_halted gets their partial result, and it is re-raised."""
    halt = halt or core.request_stop
    halted = False
    try:
        start()  # inside the try: Ctrl-C may land just after the threads started
        while not core.wait(POLL_SECONDS):
            on_progress(core.words_done)
            if not halted and pause_when is not None and pause_when():
                halt()
                halted = True
    except BaseException:
        halt()
        partial = core.join_epoch()
        if on_halted is not None:
            on_halted(partial)
        raise
    result = core.join_epoch()
    on_progress(core.words_done)
    return result


class Checkpoints:
    """Saves a trainer's whole state with save(path): every `minutes` minutes
    of training (at the next epoch's end, or at once for a trainer that can
    pause in the middle of an epoch: run_epochs) and when training is
    interrupted. A path of None turns it off."""

    def __init__(self, path: str | None, minutes: float, save: Callable[[str], None]):
        if not minutes > 0:
            raise ValueError(f"checkpoint_every must be > 0 minutes, got {minutes!r}")
        self.path, self.interval, self._save = path, 60.0 * minutes, save
        self._last = time.monotonic()
        self.saved = 0

    def due(self) -> bool:
        return self.path is not None and time.monotonic() - self._last >= self.interval

    def save(self) -> None:
        if self.path is not None:
            self._save(self.path)
            self._last = time.monotonic()
            self.saved += 1


def run_epochs(core: Any, epochs: int, bar: Progress, stats: Any, *,
               start: Callable[[int], None], on_progress: Callable[[int, int], None],
               finish: Callable[[int, Any, float], None], checkpoints: Checkpoints | None = None,
               halt: Callable[[], None] | None = None,
               unfinished: Callable[[Any], bool] | None = None) -> None:
    """Runs `epochs` epochs: start(e) starts (or continues) epoch e's
    threads, on_progress(e, words_done) moves the bar, finish(e, result,
    seconds) books a finished epoch. stats.train_seconds follows the time
    spent and stats.interrupted is set when an epoch ends in an exception
    (Ctrl-C, divergence), which is re-raised; on Ctrl-C the checkpoint (if
    any) is saved first. The bar is closed in every case.

    A trainer that can stop in the middle of an epoch and continue there
    gives halt (how to stop its threads so) and unfinished(result), which
    records where a halted epoch stands and says whether it is unfinished:
    then a checkpoint falls due at once, not at the epoch's end, and the
    epoch continues after it is saved."""
    began = time.perf_counter()
    mid_epoch = checkpoints is not None and unfinished is not None
    try:
        for e in range(epochs):
            t0 = time.perf_counter()
            try:
                while True:
                    result = run_epoch(core, lambda: start(e), lambda done: on_progress(e, done), halt=halt,
                                       pause_when=checkpoints.due if mid_epoch else None,  # type: ignore[union-attr]
                                       on_halted=unfinished)
                    stats.train_seconds = time.perf_counter() - began
                    if unfinished is not None and unfinished(result):
                        if checkpoints is not None:
                            checkpoints.save()
                        continue
                    break
                finish(e, result, time.perf_counter() - t0)
                if checkpoints is not None and checkpoints.due():
                    checkpoints.save()
            except BaseException as exc:
                stats.interrupted = True
                stats.train_seconds = time.perf_counter() - began
                if checkpoints is not None and isinstance(exc, KeyboardInterrupt):  # never a diverged state
                    checkpoints.save()
                raise
    finally:
        bar.close()
