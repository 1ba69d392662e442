"""The epochs of one Word2Vec.train() call on the C core: the threads
started and joined epoch by epoch, progress shown, each finished epoch
booked, and a paused epoch (Ctrl-C, a checkpoint) recorded in the schedule
so that a saved model resumes it where it stopped (state.py)."""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable

from ..corpus import EncodedCorpus
from ..epochs import Checkpoints, EpochStats, TrainingStats, run_epochs
from ..progress import Progress
from .state import EPOCH_START


def train_epochs(model: Any, core: Any, encoded: EncodedCorpus, schedule: dict, threads: int,
                 callbacks: Iterable[Callable[[Any, EpochStats], object]], progress: bool | None,
                 checkpoint: str | os.PathLike | None, checkpoint_every: float) -> TrainingStats:
    """Trains what is left of `schedule` (plan_schedule's) on `encoded`,
    the core's corpus and schedule set; returns the stats (also
    model.last_stats, kept up to date for an interrupted call)."""
    todo = schedule["epochs"] - schedule["epochs_done"]
    stats = TrainingStats(corpus_words=encoded.words)
    model.last_stats = stats
    bar = Progress(todo * encoded.words, f"{model.arch}-{model.loss}", progress)
    base = schedule["epochs_done"] * encoded.words

    def start(e: int) -> None:
        model._layout_for_training(True)
        # a paused epoch keeps the regions it was taken from
        core.start_epoch(model.epochs_trained, threads, schedule["claim"], schedule["regions"] or model.regions or 0)

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
        es = EpochStats(epoch=model.epochs_trained, loss=schedule["loss_sum"] / max(examples, 1),
                        examples=examples, words=core.words_done - schedule["epochs_done"] * encoded.words,
                        seconds=seconds, alpha=core.alpha)
        schedule.update(epochs_done=schedule["epochs_done"] + 1, **EPOCH_START)
        model.record_epoch(stats, es, callbacks, bar.write)

    checkpoints = Checkpoints(None if checkpoint is None else os.fspath(checkpoint), checkpoint_every,
                              model.save)
    try:
        run_epochs(core, todo, bar, stats, start=start, on_progress=on_progress, finish=finish,
                   checkpoints=checkpoints, halt=core.request_pause, unfinished=unfinished)
    finally:
        model._layout_for_training(False)
        model._vectors_changed()
    return stats

