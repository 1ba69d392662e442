"""The command line's ways of watching training: the trainers' --eval-every
and --snapshots callbacks, and the `report` and `map` commands."""

from __future__ import annotations

import sys
from dataclasses import asdict
from typing import Any

from ..files import read_as


def training_callbacks(args) -> list:
    """The callbacks word2vec's or glove's flags ask for, set up before the
    corpus is read: their test sets read and parsed, the snapshots' folder
    made and matplotlib found, or the run stopped at once naming the flag."""
    callbacks: list = []
    if args.eval_every:
        from ..epoch_scores import EpochScores
        from ..evaluate import read_analogies, read_pairs

        analogies = read_as("--eval-analogies", args.eval_analogies, read_analogies) if args.eval_analogies else None
        pairs = [read_as("--eval-pairs", path, read_pairs) for path in args.eval_pairs or ()]
        callbacks.append(EpochScores(args.eval_every, analogies, pairs, report=_reporter(args)))
    elif args.eval_analogies or args.eval_pairs:
        raise ValueError("--eval-analogies and --eval-pairs need --eval-every N")
    if args.snapshots:
        from ..maps import EpochMaps

        callbacks.append(read_as("--snapshots", args.snapshots, EpochMaps, args.snapshot_words))
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
    from ..epoch_scores import EpochScores

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
    from ..report import draw_report, read_run, report_kind

    if args.labels and len(args.labels) != len(args.stats):
        raise ValueError(f"--labels gives {len(args.labels)} names for {len(args.stats)} stats files")
    report_kind(args.output)
    for path in args.stats:  # each one read first, a bad one named before anything is drawn
        read_as("STATS", path, read_run)
    runs = draw_report(args.stats, args.output, args.labels)
    print(f"wrote {args.output}: {len(runs)} run(s), {max(len(r.epochs) for r in runs)} epoch(s)", file=sys.stderr)
    return 0


def run_map(args) -> int:
    """`wv-engine map`: a 2-D picture of word vectors, and/or a projector export."""
    from .. import maps
    from ..io import load_vectors

    if not args.output and not args.projector:
        raise ValueError("say where to write: -o map.png and/or --projector DIR")
    vectors = read_as("VECTORS", args.vectors, load_vectors)
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
