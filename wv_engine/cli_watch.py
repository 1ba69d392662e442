"""The command line's ways of watching training: the trainers' --eval-every
and --snapshots callbacks, and the `report` and `map` commands."""

from __future__ import annotations

import sys
from dataclasses import asdict
from typing import Any


def training_callbacks(args) -> list:
    """The callbacks word2vec's or glove's flags ask for (set up before
    training, so that a missing test set or matplotlib stops the run at once)."""
    callbacks: list = []
    if args.eval_every:
        from .epoch_scores import EpochScores

        callbacks.append(EpochScores(args.eval_every, args.eval_analogies, args.eval_pairs, report=_reporter(args)))
    elif args.eval_analogies or args.eval_pairs:
        raise ValueError("--eval-analogies and --eval-pairs need --eval-every N")
    if args.snapshots:
        from .maps import EpochMaps

        callbacks.append(EpochMaps(args.snapshots, args.snapshot_words))
    elif args.snapshot_words:
        raise ValueError("--snapshot-words needs --snapshots DIR")
    return callbacks


def _reporter(args):
    """Prints a line without breaking a progress bar, unless --quiet."""
    if args.quiet:
        return None
    from tqdm import tqdm

    return lambda line: tqdm.write(line, file=sys.stderr)


def finish(callbacks: list, model: Any, stats: Any, score_last: bool = True) -> dict[str, Any]:
    """Scores the last epoch where --eval-every skipped it (unless told not
    to: an interrupted run); the stats file's per-epoch keys (epoch_stats,
    epoch_scores)."""
    from .epoch_scores import EpochScores

    for cb in callbacks:
        if score_last and isinstance(cb, EpochScores) and model.epochs_trained and (
                not cb.scores or cb.scores[-1]["epoch"] != model.epochs_trained):
            cb.score(model)
    per_epoch = getattr(stats, "epoch_stats", None)
    if per_epoch is None:  # GloVe's
        per_epoch = getattr(stats, "epochs", [])
    return {"epoch_stats": [asdict(e) for e in per_epoch], "epoch_scores": stats.epoch_scores}


def run_report(args) -> int:
    """`wv-engine report`: the runs' loss, speed and scores per epoch, side by side."""
    from .report import draw_report

    if args.labels and len(args.labels) != len(args.stats):
        raise ValueError(f"--labels gives {len(args.labels)} names for {len(args.stats)} stats files")
    runs = draw_report(args.stats, args.output, args.labels)
    print(f"wrote {args.output}: {len(runs)} run(s), {max(len(r.epochs) for r in runs)} epoch(s)", file=sys.stderr)
    return 0


def run_map(args) -> int:
    """`wv-engine map`: a 2-D picture of word vectors, and/or a projector export."""
    from . import maps
    from .io import load_vectors

    if not args.output and not args.projector:
        raise ValueError("say where to write: -o map.png and/or --projector DIR")
    vectors = load_vectors(args.vectors)
    if args.words or args.top or args.neighbours:
        words: Any = maps.choose_words(vectors, args.words, args.top, args.neighbours, args.per_word)
    else:
        groups = maps.analogy_groups(vectors)
        words = groups if sum(map(len, groups.values())) >= 3 else maps.choose_words(vectors, top=100)
    flat = [w for ws in words.values() for w in ws] if isinstance(words, dict) else words
    if args.output:
        maps.draw_map(vectors, words, args.output, args.method)
        print(f"wrote {args.output}: {len(flat)} words ({args.method})", file=sys.stderr)
    if args.projector:
        maps.write_projector(vectors, flat, args.projector)
        print(f"wrote {args.projector}/vectors.tsv and metadata.tsv ({len(flat)} words)", file=sys.stderr)
    return 0
