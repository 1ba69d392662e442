"""`wv-engine glove` and `wv-engine svd`: vocabulary, co-occurrences, then
AdaGrad training or PPMI + SVD, the vectors and the stats (flags: args.py)."""

from __future__ import annotations

import time

from ..files import write_json
from ..memory import peak_rss_bytes
from . import watch
from .args import MATRIX_FORMATS
from .common import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    check_outputs,
    dask_client,
    final_output,
    resume_overrides,
    say,
    secondary,
)
from .inputs import check_tmp_dir, read_input, resumed

GLOVE_FIXED = ("dim", "window", "x_max", "alpha", "eta", "min_count", "seed", "max_vocab_size")


def _save_matrix_vectors(args, vectors, output: str | None = None) -> None:
    from ..io import save_vectors

    kwargs = {"header": True} if args.format == "txt" and getattr(args, "header", False) else {}
    save_vectors(vectors, output or args.output, MATRIX_FORMATS[args.format], **kwargs)


def _save_cooccurrence(args, matrix) -> None:
    from .. import cooccur

    if args.save_cooccurrence.endswith(".bin"):
        cooccur.write_records(matrix, args.save_cooccurrence)
    else:
        cooccur.save_npz(matrix, args.save_cooccurrence)


def run_glove(args) -> int:
    """`wv-engine glove`: vocabulary, co-occurrences, AdaGrad training, vectors."""
    from ..glove import GloVe

    started = time.perf_counter()
    progress = False if args.quiet else None
    settings = dict(dim=args.dim, window=args.window, x_max=args.x_max, alpha=args.alpha, epochs=args.epochs,
                    eta=args.eta, min_count=args.min_count, threads=args.threads, seed=args.seed,
                    memory_limit=args.memory_limit, tmp_dir=args.tmp_dir,
                    max_vocab_size=args.max_vocab_size, output=args.output_vectors, exact_sqrt=args.exact_sqrt,
                    grid=args.grid, grid_rounds=args.grid_rounds)
    settings = {k: v for k, v in settings.items() if v is not None}
    check_outputs(args, "output", "checkpoint", "stats_json", "save_cooccurrence")
    callbacks = watch.training_callbacks(args)  # their test sets read before any work
    check_tmp_dir(args)
    with dask_client(args) as client:
        corpus = read_input(args, client)  # resolved once
        if args.resume:
            model = resumed(args, GloVe.saved_config, GloVe.load_checkpoint, lambda saved: resume_overrides(
                args, saved, GLOVE_FIXED, {"output_vectors": "output", "output": None}))
            say(args, f"resuming from {args.resume} after {model.epochs_trained} epoch(s); the settings given "
                       "agree with it; the co-occurrences are counted again (a checkpoint holds no records)")
        else:
            model = GloVe(**settings)
            say(args, f"counting words in {args.input}")
            model.build_vocab(corpus, client=client)
        vocab = model.vocab
        say(args, f"vocabulary: {len(vocab):,} words (min_count {model.min_count}); counting co-occurrences "
                   f"(window {model.window}, {model.threads} threads{' per worker' if client else ''})")
        save = (lambda matrix: _save_cooccurrence(args, matrix)) if args.save_cooccurrence else None
        vocab_seconds = time.perf_counter() - started
        nonzeros = model.prepare_training(corpus, progress=progress, client=client, on_cooccurrence=save)
    count_seconds = vocab_seconds + model.stage_seconds["count"]
    stage_seconds = {"count": count_seconds, "records": model.stage_seconds["records"]}
    where = (f"; out of core: {model.record_blocks} shuffled blocks of training records in "
             f"{model.tmp_dir or 'the temporary directory'}" if model.record_blocks else "")
    say(args, f"{nonzeros:,} non-zeros in {count_seconds:.1f} s{where}")
    interrupted = False
    try:
        stats = model.train(progress=progress, checkpoint=args.checkpoint, checkpoint_every=args.checkpoint_every,
                            callbacks=callbacks)
    except KeyboardInterrupt:
        interrupted = True
        stats = model.last_stats
        say(args, f"interrupted after {len(stats.epochs)} full epoch(s): saving what is trained")
    stage_seconds["train"] = stats.train_seconds
    watched = watch.finish(callbacks, model, stats, score_last=not interrupted)
    output = final_output(args, interrupted, len(stats.epochs))
    t0 = time.perf_counter()
    _save_matrix_vectors(args, model.vectors, output)
    ok = True
    if args.checkpoint and not interrupted:
        ok = secondary(args, f"checkpoint {args.checkpoint}", lambda: model.save_checkpoint(args.checkpoint))
    stage_seconds["save"] = time.perf_counter() - t0
    total = time.perf_counter() - started
    say(args, f"wrote {len(vocab):,} vectors to {output} ({total:.1f} s in all)")
    if args.stats_json:
        ok &= secondary(args, f"stats file {args.stats_json}", lambda: write_json(args.stats_json, {
            "vocab_size": len(vocab), "nonzeros": nonzeros, "count_seconds": count_seconds,
            "train_seconds": stats.train_seconds, "total_seconds": total, "epoch_cost": stats.epoch_cost,
            "epochs": len(stats.epochs), "threads": model.threads, "interrupted": interrupted,
            "config": model.config(), "peak_rss_bytes": peak_rss_bytes(), "output": output,
            # count: vocabulary and co-occurrences; records: the shuffled training records (out of core:
            # the last merge writing the blocks); train; save: the vectors and the checkpoint
            "stage_seconds": stage_seconds, "out_of_core": stats.out_of_core, "blocks": stats.blocks,
            "grid_bands": stats.grid_bands, "grid_rounds": stats.grid_rounds,
            **watched,  # epoch_stats, epoch_scores (--eval-every)
            # memory_needed for this run (records aside: checked as they are made); compare peak_rss_bytes
            "memory_estimate_bytes": model.memory_needed(len(vocab), None, MATRIX_FORMATS[args.format])["total"],
        }))
    return EXIT_INTERRUPTED if interrupted else 0 if ok else EXIT_ERROR


def run_svd(args) -> int:
    """`wv-engine svd`: vocabulary, co-occurrences, PPMI + truncated SVD, vectors."""
    from ..ppmi import ppmi_svd

    started = time.perf_counter()
    check_outputs(args, "output", "save_cooccurrence")
    check_tmp_dir(args)
    with dask_client(args) as client:
        vectors = ppmi_svd(read_input(args, client), dim=args.dim, window=args.window, min_count=args.min_count,
                           max_vocab_size=args.max_vocab_size, cds=args.cds, shift=args.shift, eig=args.eig,
                           threads=args.threads, memory_limit=args.memory_limit, tmp_dir=args.tmp_dir,
                           client=client, progress=False if args.quiet else None,
                           on_cooccurrence=(lambda m: _save_cooccurrence(args, m)) if args.save_cooccurrence else None,
                           report=lambda message: say(args, message))
    _save_matrix_vectors(args, vectors)
    say(args, f"wrote {len(vectors):,} vectors to {args.output} ({time.perf_counter() - started:.1f} s in all)")
    return 0
